"""Hypothesis-driven fuzzing of ``state_from_dict`` for both games: states of seeded random
play, one to three fields replaced (by values of other types, neighbouring ints, other
kinds' names), removed, or lists grown. Each mutated dict is either refused with an
``InvalidStateError`` or accepted; an accepted state round-trips through JSON, gives every
seat an observation, and plays 20 random steps raising nothing but the engines' typed errors.
``TABLETOP_SOAK_GAMES`` sizes it: 5 mutated states per soak game and game (1,500 in
``make test``, 10,000 in ``.ci/run``)."""

from __future__ import annotations

import copy
import functools
import json
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_mutation import change_one, leaves
from random_play import random_step, sampled_states

from tabletop import registry
from tabletop.errors import IllegalActionError, InvalidStateError

EXAMPLES = 5 * int(os.environ.get("TABLETOP_SOAK_GAMES", "300"))
#: replacement values: other types, edge numbers, names of kinds of both games
VALUES = (
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    3,
    7,
    99,
    10**6,
    -(10**6),
    0.5,
    -0.5,
    1e9,
    "x",
    "",
    [],
    {},
    [0],
    [0, 0],
    {"a": 1},
    "win",
    "card",
    "luck",
    "die",
    "launch",
    35,
    140,
)


@functools.cache
def base_states(name: str) -> tuple[tuple[int, str], ...]:
    """(players, JSON text) of states every 23 steps of seeded random games."""
    out = []
    for players in (2, 3):
        g = registry.get(name).game(num_players=players)
        for s in sampled_states(g, range(4), 23, 400):
            out.append((players, json.dumps(s.to_dict())))
    return tuple(out)


def mutate(data: dict, draw: Any) -> dict:
    d = copy.deepcopy(data)
    paths = leaves(d)
    for _ in range(draw(st.integers(1, 3))):
        change_one(d, paths, draw, VALUES, st.integers(-3, 3), int)
    return d


@pytest.mark.parametrize("name", registry.names())
def test_mutated_states_are_refused_or_play_on(name: str) -> None:
    games = {n: registry.get(name).game(num_players=n) for n in (2, 3)}
    bases = base_states(name)
    seen = {"refused": 0, "accepted": 0}

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def check(data: Any) -> None:
        players, text = bases[data.draw(st.integers(0, len(bases) - 1))]
        game = games[players]
        mutated = mutate(json.loads(text), data.draw)
        try:
            s = game.state_from_dict(mutated)
        except InvalidStateError:
            seen["refused"] += 1
            return
        seen["accepted"] += 1
        assert (
            game.state_from_dict(json.loads(json.dumps(s.to_dict(), allow_nan=False))).to_dict()
            == s.to_dict()
        )
        rng = np.random.default_rng(0)
        try:
            for _ in range(20):
                if s.is_terminal():
                    break
                for seat in range(players):
                    s.observation(seat)
                random_step(s, rng)
        except (IllegalActionError, InvalidStateError):
            pass  # typed: an engine refusing to go on

    check()
    assert seen["refused"] > seen["accepted"] > 0
