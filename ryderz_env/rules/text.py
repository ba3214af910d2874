"""``str(state)``: a text summary of a Lazer Ryderz position."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ryderz_env.rules.geometry import fixed
from ryderz_env.rules.records import Chance

if TYPE_CHECKING:
    from ryderz_env.rules.state import State


def describe(s: State) -> str:
    """Round, turn order, each Ryder (colour, character, gear, score, pieces, head pose or off
    the table, supply per gear, power), every Prizm, what is pending."""
    g = s.game
    r = g.rules
    lines = [
        f"Lazer Ryderz on the {g.table.name} table, round {s.round}/{r.round_limit}, "
        f"Tie-Breaker Marker before seat {s.marker}, order {s.order}"
    ]
    for p in s.players:
        pieces = sum(1 for e in p.lazer if not e.is_launch)
        launch = "launch point + " if p.lazer and p.lazer[0].is_launch else ""
        head = "off the table" if p.head is None else f"head {p.head}"
        supply = " ".join("/".join(str(k) for k in gear) for gear in p.supply)
        power = ""
        if r.powers:
            power = f", power {'ready' if p.power_ready else 'resting'}"
        lines.append(
            f"  seat {p.seat} ({r.colours[p.seat]}, {r.characters[p.seat].value}): "
            f"gear {p.gear}, {s.score(p.seat)} Prizm(s), {head}{power}"
        )
        lines.append(
            f"    Lazer {launch}{pieces} piece(s); supply straight/soft/hard by gear: {supply}"
        )
    for j, q in enumerate(s.prizms):
        owner = "neutral" if q.owner < 0 else r.colours[q.owner]
        lock = ", locked" if s.locked(j) else ""
        lines.append(f"  Prizm {j}: {owner} at ({fixed(q.x)}, {fixed(q.y)}){lock}")
    if s.is_terminal():
        lines.append(
            f"game over: {s.status.value}" + ("" if s.winner is None else f", seat {s.winner} wins")
        )
    elif s.decision is not None:
        lines.append(
            f"waiting for {s.decision.kind.value} from seat(s) {list(s.current_players())}"
        )
    else:
        lines.append(f"waiting for chance: {cast(Chance, s.chance).kind.value}")
    return "\n".join(lines)
