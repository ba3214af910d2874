"""What one seat may know: the structured observation behind the env encoders.

Hidden from a seat: other players' gadgets in hand (only their count shows), the content
of the gadget deck's unordered top, cards other players put at the bottom, another
player's gadget offer, and the details of another player's decision when the decision
exists only because of a held gadget (shown as kind ``private``). Everything else on the
table is public. That some seat is deciding at all stays visible, as at a real table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lunatix_env.rules.state import State

from lunatix_env.rules.records import Decision, DecisionKind


def observe(state: State, seat: int) -> dict[str, Any]:
    """The observation of ``seat`` as plain data."""
    g = state.game
    cars = []
    for c in state.cars:
        own = c.seat == seat
        cars.append(
            {
                "seat": c.seat,
                "square": None if c.in_pit or c.square < 0 else c.square,
                "lane": None if c.in_pit or c.square < 0 else g.track.lane[c.square],
                "facing": c.facing,
                "speed": c.speed,
                "max_speed": c.max_speed,
                "luck": c.luck,
                "chips": list(c.chips),
                "gadgets": list(c.gadgets) if own else None,
                "num_gadgets": len(c.gadgets),
                "spent": list(c.spent),
                "lunacies": list(c.lunacies),
                "in_pit": c.in_pit,
                "pit_opening": c.pit_opening,
                "progress": c.u,
                "laps": state.laps(c.seat),
                "laps_required": state.laps_required(c.seat),
                "out": c.out,
                "card": state.cards[c.seat],
            }
        )
    decision = None
    d = state.decision
    if d is not None:
        decision = d.to_dict()
        if 0 <= d.seat != seat and _reveals_hand(state, d):
            decision = {"kind": "private", "seat": d.seat}
    own_bottom = [e[0] if e[1] == seat else None for e in state.gadget_bottom]
    return {
        "seat": seat,
        "round": state.round,
        "order": list(state.order),
        "turn_seat": None if state.turn is None else state.turn.seat,
        "turn": None if state.turn is None else state.turn.to_dict(),
        "decision": decision,
        "deciding": seat in state.current_players(),
        "cars": cars,
        "track_chips": sorted(state.track_chips.items()),
        "hazard_deck": list(state.hazard_deck),
        "hazard_discard": list(state.hazard_discard),
        "turbo_deck": list(state.turbo_deck),
        "turbo_discard": list(state.turbo_discard),
        "gadget_top_count": len(state.gadget_top),
        "gadget_bottom": own_bottom,
        "offer": list(state.offer) if state.turn and state.turn.seat == seat else None,
        "supply": list(state.supply),
        "outcome": state.status.value,
        "winner": state.winner,
    }


#: decisions that arise only because the decider holds a particular gadget
PRIVATE_DECISIONS = ("protect", "gadget", "keep_gadget", "discard_gadget")


def _reveals_hand(state: State, decision: Decision) -> bool:
    """Whether showing ``decision`` to another seat would reveal the decider's gadgets.

    Luck decisions are public while the decider has luck chips; with none left, the
    decision can only come from a held Fuzzy Dice.
    """
    kind = decision.kind
    if kind is DecisionKind.LUCK:
        return state.cars[decision.seat].luck == 0
    return kind.value in PRIVATE_DECISIONS
