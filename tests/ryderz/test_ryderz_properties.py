"""Property tests of the Lazer Ryderz engine protocol over random seeds and random play.

For random games (2 to 4 seats, with and without Power Prizms, on every table preset and the
long table squared with the other odd-table options) and random prefixes of random legal
play: the JSON round trip, clone independence and replayability, NOOP never legal and legal
actions that encode, the exact die distribution (the gear deal, after three all-stall redos,
does not come up in random play: ``test_ryderz_engine_protocol`` covers it), continuous chance
outcomes (launch noise, tossed Prizms) that the state accepts and samples reproducibly, Launch
Points anywhere in reach legal (and played on) and outside it illegal without touching the
state, and piece outlines placed by a rigid motion.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

import numpy as np
import pytest
import random_play
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from random_play import check_clone, check_json_round_trip, play_on, random_step

from ryderz_env.rules import NOOP, Action, ActionKind, ChanceKind, DecisionKind, Game, State
from ryderz_env.rules.kernels import place_outline
from tabletop.errors import IllegalActionError, InvalidStateError

TABLES = ("standard", "small", "large", "rectangle", "hexagon", "long", "long squared")
VARIANTS = [(n, powers, table) for n in range(2, 5) for powers in (False, True) for table in TABLES]
variants = st.sampled_from(VARIANTS)
seeds = st.integers(0, 2**32 - 1)
prefixes = st.integers(1, 600)  # random games last a few hundred steps (4 players up to ~600)
# no shrinking: a failing run stays fast, and (variant, seed, prefix) replays it exactly
PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
EXAMPLES = 25


@functools.cache
def game_of(variant: tuple[int, bool, str]) -> Game:
    n, powers, table = variant
    squared = table == "long squared"  # with the other odd-table options on too
    odd = dict.fromkeys(
        ("toss_start_prizms", "start_far_sides", "large_far_sides", "square_edge"), squared
    )
    return Game(num_players=n, powers=powers, table=table.split()[0], odd_table=odd)


def random_state(variant: tuple[int, bool, str], seed: int, steps: int) -> tuple[State, Any]:
    """A state of ``variant`` after ``steps`` random steps (or the end), and the generator."""
    return random_play.random_state(game_of(variant), seed, steps)


def next_node(s: State, rng: np.random.Generator, chance: bool) -> bool:
    """Play on to the next chance node (``chance``) or decision; whether one was reached."""
    for _ in range(300):
        if s.is_terminal() or s.is_chance_node() == chance:
            break
        random_step(s, rng)
    return not s.is_terminal() and s.is_chance_node() == chance


# ---------------------------------------------------------------------------- JSON, clone
# (``view=State.locks``: which Prizms are locked is worked out from the table and kept up to
# date by the state, never stored, so ``to_dict()`` equality does not cover it)
@settings(max_examples=EXAMPLES, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes, st.integers(1, 60))
def test_state_survives_a_json_round_trip_and_plays_on_identically(
    variant: tuple[int, bool, str], seed: int, prefix: int, more: int
) -> None:
    check_json_round_trip(game_of(variant), seed, prefix, more, view=State.locks, continuous=True)


@settings(max_examples=EXAMPLES, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes, st.integers(1, 60))
def test_clone_is_independent_and_replays_to_the_same_state(
    variant: tuple[int, bool, str], seed: int, prefix: int, more: int
) -> None:
    check_clone(game_of(variant), seed, prefix, more, view=State.locks, continuous=True)


# ---------------------------------------------------------------------------- decisions
@settings(max_examples=EXAMPLES, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes)
def test_noop_is_never_legal_for_a_decider_and_legal_actions_encode(
    variant: tuple[int, bool, str], seed: int, prefix: int
) -> None:
    s, rng = random_state(variant, seed, prefix)
    if not next_node(s, rng, chance=False):
        return
    g = s.game
    for p in s.current_players():
        legal = s.legal_actions(p)
        assert legal, f"seat {p} deciding with no legal action"
        assert NOOP not in legal and not s.is_legal(p, NOOP)
        assert all(s.is_legal(p, a) for a in legal)
        ints = s.legal_action_ints(p)
        assert 0 not in ints and ints == sorted({g.action_to_int(a) for a in legal})
        for a in legal:  # the record's JSON form of every action reads back
            assert g.action_from_json(json.loads(json.dumps(g.action_to_json(a)))) == a
    for p in range(g.num_players):
        if p not in s.current_players():
            assert s.legal_actions(p) == []


@settings(max_examples=EXAMPLES, deadline=None, phases=PHASES)
@given(
    variants,
    seeds,
    prefixes,
    st.floats(-1.0, 1.0),
    st.floats(1.0, 1e6, exclude_min=True),
    st.booleans(),
)
def test_launch_points_anywhere_in_reach_are_legal_and_outside_it_are_not(
    variant: tuple[int, bool, str], seed: int, prefix: int, x: float, beyond: float, negative: bool
) -> None:
    s, rng = random_state(variant, seed, prefix)
    for _ in range(40):  # on to a launch: Start Your Engines or a respawn
        if not next_node(s, rng, chance=False):
            return
        if s.decision_kind() in (DecisionKind.ENGINES, DecisionKind.RESPAWN):
            break
        random_step(s, rng)
    else:
        return
    if s.decision_kind() not in (DecisionKind.ENGINES, DecisionKind.RESPAWN):
        return
    seat = s.current_players()[0]
    gear = next(a.arg for a in s.legal_actions(seat) if a.kind is ActionKind.LAUNCH)
    out = Action.launch(gear, -beyond if negative else beyond)
    assert not s.is_legal(seat, out)
    before = s.to_dict()
    others = {p: s.legal_actions(p)[0] for p in s.current_players() if p != seat}
    with pytest.raises(IllegalActionError):
        s.apply_actions({seat: out, **others})
    assert s.to_dict() == before
    inside = Action.launch(gear, x)
    assert s.is_legal(seat, inside)
    s.apply_actions({seat: inside, **others})  # placed (after the noise), and play goes on
    play_on(s, rng, 30)
    d = s.to_dict()
    assert game_of(variant).state_from_dict(json.loads(json.dumps(d))).to_dict() == d


# ---------------------------------------------------------------------------- chance
@settings(max_examples=EXAMPLES, deadline=None, phases=PHASES)
@given(variants, seeds, prefixes, st.integers(0, 2**32 - 1))
def test_chance_outcomes_are_exact_or_continuous_and_sampled_reproducibly(
    variant: tuple[int, bool, str], seed: int, prefix: int, rng_seed: int
) -> None:
    s, rng = random_state(variant, seed, prefix)
    if not next_node(s, rng, chance=True):
        return
    assert s.current_players() == ()
    before = s.to_dict()
    draws = [s.sample_chance(np.random.default_rng(rng_seed)) for _ in range(3)]
    assert json.dumps(draws[0]) == json.dumps(draws[1]) == json.dumps(draws[2])
    assert s.to_dict() == before, "sampling must not apply the outcome"
    kind = s.chance_kind()
    if kind in (ChanceKind.LAUNCH_NOISE, ChanceKind.TOSS):  # continuous: no list of outcomes
        with pytest.raises(InvalidStateError, match="continuous"):
            s.chance_outcomes()
    else:
        outs = s.chance_outcomes()
        if kind is ChanceKind.DIE:  # the die's faces, each 1/6 (Spin Out is 0)
            assert outs == [(f, 1 / 6) for f in sorted(set(s.game.rules.die_faces))]
        values = [o for o, _ in outs]
        assert len(set(values)) == len(values) and all(p > 0 for _, p in outs)
        assert math.fsum(p for _, p in outs) == pytest.approx(1.0, abs=1e-12)
        assert draws[0] in values
        for o in values:  # every listed outcome can be applied
            s.clone().apply_chance(o)
    s.apply_chance(draws[0])


@settings(max_examples=8, deadline=None, phases=PHASES)
@given(variants, seeds)
def test_whole_random_game_is_reproducible_from_its_seed(
    variant: tuple[int, bool, str], seed: int
) -> None:
    a, _ = random_state(variant, seed, 10_000)
    b, _ = random_state(variant, seed, 10_000)
    assert a.is_terminal()
    assert a.to_dict() == b.to_dict()


# ---------------------------------------------------------------------------- geometry
angles = st.floats(-4 * math.pi, 4 * math.pi)
coords = st.floats(-100.0, 100.0)


@settings(max_examples=200, deadline=None, phases=PHASES)
@given(st.integers(0, 1_000_000), coords, coords, angles)
def test_piece_outlines_are_placed_by_a_rigid_motion(
    shape_index: int, x: float, y: float, h: float
) -> None:
    g = game_of((2, False, "standard"))
    shapes = sorted(g.shapes, key=lambda k: (k[0].value, k[1], k[2]))
    local = g.shapes[shapes[shape_index % len(shapes)]].outline
    c, s = math.cos(h), math.sin(h)
    placed, *bounds = place_outline(local, x, y, c, s)
    want = np.column_stack(
        [x + c * local[:, 0] - s * local[:, 1], y + s * local[:, 0] + c * local[:, 1]]
    )
    assert np.allclose(placed, want, rtol=0, atol=1e-12)
    # distances between outline vertices are kept
    d_local = np.linalg.norm(local[:, None] - local[None], axis=2)
    d_placed = np.linalg.norm(placed[:, None] - placed[None], axis=2)
    assert np.allclose(d_local, d_placed, rtol=0, atol=1e-11)
    assert bounds == [
        placed[:, 0].min(),
        placed[:, 1].min(),
        placed[:, 0].max(),
        placed[:, 1].max(),
    ]
