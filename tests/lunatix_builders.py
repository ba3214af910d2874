"""Small builders for Lunatix Loop scenario tests: set up a position, act, force chance.

A position set up before acting comes from the public ``PositionBuilder``
(``lunatix_env.rules.PositionBuilder``, docs/positions.md): ``start(g)`` is round 1's card
reveal, and ``put``, ``lay_chip``, ``give_gadget`` and ``give_lunacy`` describe it square by
square before ``b.build()``. A change after some actions goes through the JSON round trip
(``edited``, and ``moved`` / ``handed`` for the common ones), so that every position a test
plays from satisfies the documented invariants (docs/state_invariants.md). No helper writes
a state's fields (``tests/shared/test_scenarios_use_public_api.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from edit_state import edited

from lunatix_env.rules import Action, ActionKind, Card, Game, PositionBuilder, State
from lunatix_env.rules.actions import CHIP_NAMES
from lunatix_env.rules.builder import BEHIND_LINE

A = Action
K = ActionKind

__all__ = [
    "A",
    "BEHIND_LINE",
    "K",
    "act",
    "choose",
    "edited",
    "first_round",
    "force",
    "gadget_index",
    "game",
    "give_gadget",
    "give_lunacy",
    "handed",
    "hazard_index",
    "hide_swap",
    "lane_row",
    "lay_chip",
    "mix_index",
    "moved",
    "park",
    "put",
    "square_at",
    "start",
    "turbo_index",
]


def game(**overrides: object) -> Game:
    """A game with rule overrides (``num_players=2``, ``turn_around=True`` ...)."""
    return Game(**overrides)


def start(g: Game, mixes: Sequence[int] | None = None) -> PositionBuilder:
    """A builder at round 1's card reveal: start dots dealt in seat order, chip mixes chosen.

    ``mixes`` are indices into ``g.codec.chip_mixes`` (default: the first legal mix).
    """
    b = PositionBuilder(g)
    for seat, m in enumerate(mixes or ()):
        b.car(seat, chips=g.codec.chip_mixes[m])
    return b


def first_round(g: Game, mixes: Sequence[int] | None = None) -> State:
    """The state at round 1's card decision of ``start(g, mixes)``."""
    s = start(g, mixes).build()
    assert s.decision_kind() is not None and s.decision is not None
    assert s.decision.kind.value == "card"
    return s


def mix_index(g: Game, tacks: int, oil: int, glue: int) -> int:
    """Index of a chip mix in the codec's list."""
    return g.codec.chip_mixes.index((tacks, oil, glue))


def square_at(g: Game, lane: int, index: int) -> int:
    """The ``index``-th square of ``lane`` in race order from the finish line."""
    return g.track.spec.lanes[lane][index]


def lane_row(g: Game, square: int) -> tuple[int, int]:
    """(lane, row) of ``square``: the inverse of ``square_at`` (rows from 0)."""
    lane = g.track.lane[square]
    return lane, g.track.spec.lanes[lane].index(square)


def put(
    b: PositionBuilder,
    seat: int,
    square: int,
    speed: int | None = None,
    max_speed: int | None = None,
    facing: int = 0,
    laps: int = 0,
) -> PositionBuilder:
    """Place ``seat``'s car on ``square`` (out of the pit), optionally set speeds.

    Progress: ``laps`` whole laps plus the square's ``s``; with ``laps=0`` a square in the
    last ``BEHIND_LINE`` squares before the line counts as not yet across the start line.
    """
    lane, row = lane_row(b.game, square)
    return b.car(
        seat, lane=lane, row=row, lap=laps, facing=facing, speed=speed, max_speed=max_speed
    )


def park(b: PositionBuilder, seat: int, square: int) -> PositionBuilder:
    """Move a car out of the way onto ``square`` without touching anything else."""
    return put(b, seat, square)


def lay_chip(b: PositionBuilder, square: int, kind: int) -> PositionBuilder:
    """A road-hazard chip from the supply onto ``square`` (0 tacks, 1 oil, 2 glue)."""
    lane, row = lane_row(b.game, square)
    return b.chip(lane=lane, row=row, kind=CHIP_NAMES[kind])


def give_gadget(b: PositionBuilder, seat: int, name: str) -> int:
    """Add gadget ``name`` from the deck top to ``seat``'s hand; returns its index."""
    deck = [c.name for c in b.game.decks.gadgets]
    held = [deck[i] for i in b.to_dict()["cars"][seat]["gadgets"]]
    b.car(seat, gadgets=[*held, name])
    return deck.index(name)


def give_lunacy(b: PositionBuilder, seat: int, name: str) -> int:
    """Add the lunacy card ``name`` from the hazard deck to ``seat``; returns its index."""
    hazards = [c.name for c in b.game.decks.hazard]
    held = [hazards[i] for i in b.to_dict()["cars"][seat]["lunacies"]]
    b.car(seat, lunacies=[*held, name])
    return hazards.index(name)


# ------------------------------------------------------------------ changes mid-scenario
def moved(
    s: State,
    seat: int,
    square: int,
    speed: int | None = None,
    max_speed: int | None = None,
    facing: int = 0,
    laps: int = 0,
) -> State:
    """``s`` with ``seat``'s car on ``square`` (out of the pit, progress as ``put``),
    through the JSON round trip: a change in the middle of a scenario."""
    tr = s.game.track
    behind_line = laps == 0 and tr.s[square] > tr.length - BEHIND_LINE
    u = tr.s[square] - tr.length if behind_line else tr.s[square] + laps * tr.length
    car: dict[str, Any] = {"square": square, "facing": facing, "u": u, "best_u": u}
    car.update(in_pit=False, pit_opening=-1, pit_order=0)
    if speed is not None:
        car["speed"] = speed
    if max_speed is not None:
        car["max_speed"] = max_speed
    return edited(s, lambda d: d["cars"][seat].update(car))


def handed(s: State, seat: int, name: str) -> State:
    """``s`` with gadget ``name`` moved from the deck top into ``seat``'s hand, through the
    JSON round trip: a change in the middle of a scenario."""
    gi = gadget_index(s.game, name)

    def give(d: dict[str, Any]) -> None:
        d["gadget_top"].remove(gi)
        d["cars"][seat]["gadgets"] = sorted([*d["cars"][seat]["gadgets"], gi])

    return edited(s, give)


# ------------------------------------------------------------------ acting
def choose(s: State, cards: dict[int, Action | Card]) -> None:
    """Reveal cards: a Card or an Action per live seat (missing seats play Accelerate)."""
    acts = {}
    for seat in s.current_players():
        c = cards.get(seat, Card.ACCELERATE)
        acts[seat] = A(K.CARD, int(c)) if isinstance(c, Card) else c
    s.apply_actions(acts)


def force(s: State, outcomes: Iterable[int]) -> None:
    """Apply chance outcomes in order (each must be possible)."""
    for o in outcomes:
        assert s.is_chance_node(), f"expected a chance node, decision is {s.decision}"
        s.apply_chance(o)


def act(s: State, *actions: Action) -> None:
    """Apply single-decider actions in order."""
    for a in actions:
        s.apply_action(a)


def hazard_index(g: Game, name: str) -> int:
    """Index of the hazard card named ``name``."""
    return [c.name for c in g.decks.hazard].index(name)


def turbo_index(g: Game, name: str) -> int:
    """Index of the turbo card named ``name``."""
    return [c.name for c in g.decks.turbo].index(name)


def gadget_index(g: Game, name: str) -> int:
    """Index of the gadget card named ``name``."""
    return [c.name for c in g.decks.gadgets].index(name)


def hide_swap(state: State, viewer: int, rng: np.random.Generator) -> State:
    """A copy where every gadget ``viewer`` cannot see is dealt out again at random:
    the deck's top, other hands, others' bottom cards and another seat's offer."""

    def swap(t: dict[str, Any]) -> None:
        hidden = list(t["gadget_top"])
        slots: list[tuple[str, int, int]] = [("top", i, -1) for i in range(len(hidden))]
        for c in t["cars"]:
            if c["seat"] != viewer:
                for i, g in enumerate(c["gadgets"]):
                    hidden.append(g)
                    slots.append(("hand", i, c["seat"]))
        for i, (g, owner) in enumerate(t["gadget_bottom"]):
            if owner != viewer:
                hidden.append(g)
                slots.append(("bottom", i, -1))
        if t["turn"] is None or t["turn"]["seat"] != viewer:
            for i, g in enumerate(t["offer"]):
                hidden.append(g)
                slots.append(("offer", i, -1))
        perm = [hidden[i] for i in rng.permutation(len(hidden))]
        for (where, i, seat), g in zip(slots, perm, strict=True):
            if where == "top":
                t["gadget_top"][i] = g
            elif where == "hand":
                t["cars"][seat]["gadgets"][i] = g
            elif where == "bottom":
                t["gadget_bottom"][i][0] = g
            else:
                t["offer"][i] = g
        for c in t["cars"]:
            c["gadgets"].sort()
        t["gadget_top"].sort()

    return edited(state, swap)
