"""Property tests of the Lunatix Loop engine protocol over random seeds and random play.

For random games (2 to 6 seats, with and without Turn Around and the four-opening pit) and
random prefixes of random legal play: the JSON round trip, clone independence and
replayability, the bijective action codec with NOOP never legal, exact chance distributions
and reproducible sampling.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pytest
import random_play
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from lunatix_builders import (
    A,
    K,
    choose,
    force,
    give_gadget,
    hazard_index,
    lay_chip,
    put,
    turbo_index,
)
from lunatix_builders import square_at as lane_square
from lunatix_builders import start as position_builder
from random_play import check_clone, check_json_round_trip, random_step

from lunatix_env.rules import (
    NOOP,
    Action,
    ActionKind,
    Card,
    Game,
    IllegalActionError,
    Outcome,
    State,
)

VARIANTS = [(n, ta, four) for n in range(2, 7) for ta in (False, True) for four in (False, True)]
variants = st.sampled_from(VARIANTS)
seeds = st.integers(0, 2**32 - 1)
prefixes = st.integers(0, 700)  # random games last a few hundred steps
# no shrinking: a failing run stays fast, and (variant, seed, prefix) replays it exactly
PHASES = (Phase.explicit, Phase.reuse, Phase.generate)


@functools.cache
def game_of(variant: tuple[int, bool, bool]) -> Game:
    n, ta, four = variant
    return Game(num_players=n, turn_around=ta, four_opening_pit=four)


def random_state(variant: tuple[int, bool, bool], seed: int, steps: int) -> tuple[State, Any]:
    """A state of ``variant`` after ``steps`` random steps (or the end), and the generator."""
    return random_play.random_state(game_of(variant), seed, steps)


# ---------------------------------------------------------------------------- JSON
@settings(max_examples=40, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes, st.integers(0, 60))
def test_state_survives_a_json_round_trip_and_plays_on_identically(
    variant: tuple[int, bool, bool], seed: int, prefix: int, more: int
) -> None:
    check_json_round_trip(game_of(variant), seed, prefix, more)


def test_round_trip_while_shrinks_card_is_offered_against_a_drawn_lunacy() -> None:
    """A lunacy drawn by a car holding Shrink's Card is drawn and not yet applied."""
    g = game_of((2, False, False))
    b = position_builder(g)
    gi = give_gadget(b, 0, "Shrink's Card")
    start, oil = lane_square(g, 1, 2), lane_square(g, 1, 3)
    put(b, 0, start, speed=40)
    put(b, 1, lane_square(g, 2, 8), speed=20)
    lay_chip(b, oil, 1)  # an oil chip straight ahead, taken from the supply
    s = b.build()
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})  # the faster car 0 acts first
    assert s.decision is not None and s.decision.to_dict() == {"kind": "accelerate", "seat": 0}
    s.apply_action(A(K.ACCELERATE, 0))
    s.apply_action(A(K.STEP, 2))  # front, onto the oil: one hazard card
    assert s.chance is not None and s.chance.kind.value == "hazard"
    force(s, [hazard_index(g, "Chicken")])
    s.apply_action(A(K.LUCK, 0))  # keep the card
    assert s.decision is not None and s.decision.kind.value == "gadget"
    assert s.legal_actions(0) == [A(K.DECLINE), A(K.USE_GADGET, gi)]
    d = s.to_dict()
    back = g.state_from_dict(json.loads(json.dumps(d)))
    assert back.to_dict() == d
    back.apply_action(A(K.USE_GADGET, gi))  # the lunacy is cancelled: to the discards
    assert back.cars[0].lunacies == [] and gi in back.cars[0].spent
    assert back.hazard_discard[hazard_index(g, "Chicken")] == 1


def test_round_trip_of_a_game_won_in_the_middle_of_a_turbo_turn() -> None:
    """The win ends the turn, so the turbo turn's speed clamp applies to the final state."""
    g = game_of((2, False, False))
    b = position_builder(g)
    put(b, 0, lane_square(g, 1, -2), speed=40, max_speed=40, laps=2)  # 2 squares to the line
    put(b, 1, lane_square(g, 2, 20), speed=20)
    s = b.build()
    assert s.laps(0) == 2 and s.laps_required(0) == 3
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})
    s.apply_action(A(K.TURBO))
    force(s, [turbo_index(g, "+40 Bang")])
    s.apply_action(A(K.LUCK, 0))  # keep it: +40 mph and one explosion die
    assert s.chance is not None and s.chance.to_dict() == {"kind": "dice", "seat": 0, "n": 1}
    force(s, [2])  # two hits: max 40 -> 20, speed stays 80 until the turn ends
    assert (s.cars[0].speed, s.cars[0].max_speed) == (80, 20)
    s.apply_action(A(K.STEP, 2))
    s.apply_action(A(K.STEP, 2))  # crosses the line: third lap, the game is won
    assert s.outcome().reason is Outcome.WIN and s.winner == 0 and s.laps(0) == 3
    d = s.to_dict()
    back = g.state_from_dict(json.loads(json.dumps(d)))
    assert back.to_dict() == d
    assert s.cars[0].speed <= s.cars[0].max_speed


# ---------------------------------------------------------------------------- clone
@settings(max_examples=40, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes, st.integers(1, 80))
def test_clone_is_independent_and_replays_to_the_same_state(
    variant: tuple[int, bool, bool], seed: int, prefix: int, more: int
) -> None:
    check_clone(game_of(variant), seed, prefix, more)


# ---------------------------------------------------------------------------- action codec
@pytest.mark.parametrize("variant", [(2, False, False), (4, True, True), (6, True, False)])
def test_action_codec_is_a_bijection_with_noop_at_zero(variant: tuple[int, bool, bool]) -> None:
    g = game_of(variant)
    n = g.info.num_distinct_actions
    assert n == len(g.codec) > 1
    assert g.int_to_action(0) == NOOP and g.action_to_int(NOOP) == 0
    actions = [g.int_to_action(i) for i in range(n)]
    assert len(set(actions)) == n
    for i, a in enumerate(actions):
        assert isinstance(a, Action)
        assert g.action_to_int(a) == i
        assert g.int_to_action(g.action_to_int(a)) == a
    assert len({str(a) for a in actions}) == n, "two actions print the same"
    for bad in (-1, n, n + 100):
        with pytest.raises(IllegalActionError):
            g.int_to_action(bad)
    with pytest.raises(IllegalActionError):
        g.action_to_int(Action(ActionKind.BRAKE, 15))
    # every card and every step/drop combination has a code
    for c in Card:
        g.action_to_int(Action(ActionKind.CARD, int(c)))
    for arg in range(6):
        g.action_to_int(Action(ActionKind.STEP, arg))


@settings(max_examples=40, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes)
def test_noop_is_never_legal_for_a_decider_and_legal_actions_encode(
    variant: tuple[int, bool, bool], seed: int, prefix: int
) -> None:
    s, rng = random_state(variant, seed, prefix)
    g = s.game
    # move on to the next decision
    for _ in range(50):
        if s.is_terminal() or not s.is_chance_node():
            break
        random_step(s, rng)
    for p in s.current_players():
        legal = s.legal_actions(p)
        assert legal, f"seat {p} deciding with no legal action"
        assert NOOP not in legal and not s.is_legal(p, NOOP)
        ints = s.legal_action_ints(p)
        assert 0 not in ints
        assert ints == [g.action_to_int(a) for a in legal]
        assert len(set(ints)) == len(ints)
        assert all(g.int_to_action(i) == a for i, a in zip(ints, legal, strict=True))
        assert all(s.is_legal(p, a) for a in legal)
    for p in range(g.num_players):
        if p not in s.current_players():
            assert s.legal_actions(p) == []


# ---------------------------------------------------------------------------- chance
def next_chance(variant: tuple[int, bool, bool], seed: int, prefix: int) -> State | None:
    s, rng = random_state(variant, seed, prefix)
    for _ in range(300):
        if s.is_terminal() or s.is_chance_node():
            break
        random_step(s, rng)
    return s if s.is_chance_node() else None


@settings(max_examples=40, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes)
def test_chance_outcomes_are_positive_and_sum_to_one(
    variant: tuple[int, bool, bool], seed: int, prefix: int
) -> None:
    s = next_chance(variant, seed, prefix)
    if s is None:
        return
    assert s.current_players() == ()
    outs = s.chance_outcomes()
    assert outs
    values = [o for o, _ in outs]
    assert len(set(values)) == len(values)
    assert all(isinstance(o, int) for o in values)
    assert all(p > 0 for _, p in outs)
    assert sum(p for _, p in outs) == pytest.approx(1.0, abs=1e-12)
    kind = s.chance.kind.value  # type: ignore[index]
    if kind == "hazard":
        total = sum(s.hazard_deck)
        assert outs == [(i, c / total) for i, c in enumerate(s.hazard_deck) if c]
    elif kind == "turbo":
        total = sum(s.turbo_deck)
        assert outs == [(i, c / total) for i, c in enumerate(s.turbo_deck) if c]
    elif kind == "dice":
        n = s.chance.n  # type: ignore[index]
        assert values == list(range(2 * n + 1))
        assert dict(outs)[0] == pytest.approx((1 / 3) ** n)
        assert dict(outs)[2 * n] == pytest.approx((1 / 3) ** n)
    elif kind == "gadget":
        assert sorted(values) == sorted(s.gadget_top)
    # every listed outcome can be applied
    for o in values:
        c = s.clone()
        c.apply_chance(o)


@settings(max_examples=40, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes, st.integers(0, 2**32 - 1))
def test_sample_chance_with_a_seeded_generator_is_reproducible(
    variant: tuple[int, bool, bool], seed: int, prefix: int, rng_seed: int
) -> None:
    s = next_chance(variant, seed, prefix)
    if s is None:
        return
    before = s.to_dict()
    draws = [s.sample_chance(np.random.default_rng(rng_seed)) for _ in range(3)]
    assert draws[0] == draws[1] == draws[2]
    assert draws[0] in [o for o, _ in s.chance_outcomes()]
    r1, r2 = np.random.default_rng(rng_seed), np.random.default_rng(rng_seed)
    assert [s.sample_chance(r1) for _ in range(5)] == [s.sample_chance(r2) for _ in range(5)]
    assert s.to_dict() == before, "sampling must not apply the outcome"


@settings(max_examples=15, deadline=None, phases=PHASES)
@given(variants, seeds)
def test_whole_random_game_is_reproducible_from_its_seed(
    variant: tuple[int, bool, bool], seed: int
) -> None:
    a, _ = random_state(variant, seed, 10_000)
    b, _ = random_state(variant, seed, 10_000)
    assert a.is_terminal()
    assert a.to_dict() == b.to_dict()
