"""``str(state)``: a text summary of a Lazer Ryderz position."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ryderz_env.rules.state import State


def describe(s: State) -> str:
    """Round, turn order, each Ryder's gear, score, power and head, every Prizm, what is
    pending."""
    g = s.game
    r = g.rules
    lines = [f"Lazer Ryderz on the {g.table.name} table, round {s.round}/{r.round_limit}, "
             f"Tie-Breaker Marker before seat {s.marker}, order {s.order}"]
    for p in s.players:
        pieces = sum(1 for e in p.lazer if not e.is_launch)
        launch = "launch point + " if p.lazer and p.lazer[0].is_launch else ""
        head = "no Lazer" if p.head is None else f"head {p.head}"
        power = ""
        if r.powers:
            power = f", {r.characters[p.seat].value} {'ready' if p.power_ready else 'resting'}"
        lines.append(f"  seat {p.seat} ({r.colours[p.seat]}): gear {p.gear}, "
                     f"{s.score(p.seat)} Prizm(s), {launch}{pieces} piece(s), {head}{power}")
    for j, q in enumerate(s.prizms):
        owner = "neutral" if q.owner < 0 else r.colours[q.owner]
        lock = ", locked" if s.locked(j) else ""
        lines.append(f"  Prizm {j}: {owner} at ({q.x:.2f}, {q.y:.2f}){lock}")
    if s.is_terminal():
        lines.append(f"game over: {s.status.value}"
                     + ("" if s.winner is None else f", seat {s.winner} wins"))
    elif s.decision is not None:
        lines.append(f"waiting for {s.decision['kind']} from seat(s) "
                     f"{list(s.current_players())}")
    else:
        lines.append(f"waiting for chance: {s.chance['kind']}")
    return "\n".join(lines)
