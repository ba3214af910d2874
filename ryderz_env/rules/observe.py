"""What a Lazer Ryderz seat may know (the one visibility policy): everything on the table is
public; the aimed Launch Points of a blind placement never appear in a view (they are in the
pending tasks and chance event, which a view does not show)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ryderz_env.rules.serialize import element_to_dict, pose_to_list

if TYPE_CHECKING:
    from ryderz_env.rules.state import State


def public_view(s: State, seat: int) -> dict[str, Any]:
    """Everything on the table, from ``seat``'s chair (all of it is public)."""
    d = s.decision
    return {
        "seat": seat,
        "round": s.round,
        "marker": s.marker,
        "order": list(s.order),
        "turn_seat": None if s.turn is None else s.turn.seat,
        "decision": None if d is None else d.kind.value,
        "deciders": list(s.current_players()),
        "chance": None if s.chance is None else s.chance.kind.value,
        "players": [
            {
                "gear": p.gear,
                "power_ready": p.power_ready,
                "score": s.score(p.seat),
                "supply": [list(g) for g in p.supply],
                "on_table": p.head is not None,
                "head": pose_to_list(p.head),
                "prev_turn": p.prev_turn,
                "lazer": [element_to_dict(e) for e in p.lazer],
            }
            for p in s.players
        ],
        "prizms": [
            {"x": q.x, "y": q.y, "owner": q.owner, "locked": s.locked(j)}
            for j, q in enumerate(s.prizms)
        ],
        "status": s.status.value,
        "winner": s.winner,
    }
