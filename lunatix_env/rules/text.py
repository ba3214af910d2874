"""``str(state)``: the track drawn in text, one row per lane, with the cars and chips."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lunatix_env.rules.state import State

CHIP_CHARS = ("t", "o", "g")


def state_to_text(state: State) -> str:
    """A multi-line picture of the state.

    Columns are middle-lane squares along the track from the finish line (``|``); each lane
    is a row (outside lane on top). ``.`` asphalt, ``:`` dirt, ``~`` curve, ``0-5`` cars,
    ``x`` wrecks, ``t``/``o``/``g`` chips; a column a curve's inside lane skips is blank.
    """
    g = state.game
    tr = g.track
    width = int(round(tr.length))
    occ = {c.square: c for c in state.cars if not c.in_pit and c.square >= 0}
    rows = []
    for lane in reversed(range(tr.num_lanes)):
        row = [" "] * width
        for sq in tr.spec.lanes[lane]:
            col = int(tr.s[sq]) % width
            if sq in occ:
                ch = "x" if occ[sq].out else str(occ[sq].seat)
            elif sq in state.track_chips:
                ch = CHIP_CHARS[state.track_chips[sq]]
            elif tr.curve[sq] is not None:
                ch = "~"
            else:
                ch = ":" if tr.surface[sq] == "dirt" else "."
            if row[col] == " " or ch not in "~.:":
                row[col] = ch
        rows.append(f"lane {lane} |{''.join(row)}|")
    pit = [str(c.seat) for c in sorted(state.cars, key=lambda c: c.pit_order) if c.in_pit]
    head = f"{tr.name}  round {state.round}/{g.rules.round_limit}"
    if state.is_terminal():
        head += f"  {state.status.value}" + (
            f" (player_{state.winner})" if state.winner is not None else ""
        )
    elif state.decision is not None:
        who = ",".join(f"player_{s}" for s in state.current_players())
        head += f"  deciding: {state.decision.kind.value} ({who})"
    elif state.chance is not None:
        head += f"  chance: {state.chance.kind.value}"
    lines = [head, *rows, f"pit: {' '.join(pit) if pit else '-'}"]
    for c in state.cars:
        luns = ",".join(g.decks.hazard[i].name for i in c.lunacies) or "-"
        card = state.cards[c.seat]
        played = str(g.codec.decode(card)) if card is not None else "-"
        facing = "" if c.facing == 0 else " (clockwise)"
        status = " OUT" if c.out else (" in pit" if c.in_pit else "")
        lines.append(
            f"player_{c.seat}: {c.speed:>3}/{c.max_speed:<3} mph  laps {state.laps(c.seat)}/"
            f"{state.laps_required(c.seat)}  luck {c.luck}  chips t{c.chips[0]} o{c.chips[1]} "
            f"g{c.chips[2]}  gadgets {len(c.gadgets)}  lunacies {luns}  played {played}"
            f"{facing}{status}"
        )
    return "\n".join(lines)
