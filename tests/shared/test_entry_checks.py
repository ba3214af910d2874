"""Public entry points of both engines refuse what is not theirs with a typed error and
leave the state unchanged: seats that are no seats (never coerced: "0", 1.0, True, -1, n),
joint actions that are no mappings, and actions whose argument is out of range (their text
must not fail while the error is being written). Run over every game of the registry."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from random_play import random_state

from tabletop import registry
from tabletop.errors import IllegalActionError, SeatError

GAMES = registry.names()


def decision_state(name: str, seed: int = 3) -> Any:
    """A two-player state of ``name`` at a decision, a few random steps in."""
    g = registry.get(name).game(num_players=2)
    s, rng = random_state(g, seed, 30)
    while s.is_chance_node():
        s.apply_chance(s.sample_chance(rng))
    assert not s.is_terminal() and s.current_players()
    return s


def snap(s: Any) -> str:
    return json.dumps(s.to_dict(), sort_keys=True)


NOT_SEATS = ("0", 1.0, 0.0, True, False, None, -1, 2, 10**9, [0], (0,))


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seat", NOT_SEATS, ids=repr)
def test_seat_arguments_are_checked_never_coerced(name: str, seat: Any) -> None:
    s = decision_state(name)
    before = snap(s)
    rng = np.random.default_rng(0)
    for call in (
        lambda: s.observation(seat),
        lambda: s.legal_actions(seat),
        lambda: s.legal_action_ints(seat),
        lambda: s.resample_hidden(seat, rng),
    ):
        with pytest.raises(SeatError, match="seat"):
            call()
    p = s.current_players()[0]
    if not isinstance(seat, list):  # (a list is no dict key)
        with pytest.raises(SeatError):
            s.apply_actions({seat: s.legal_actions(p)[0]})
    assert snap(s) == before


@pytest.mark.parametrize("name", GAMES)
def test_numpy_ints_are_seats_and_a_seat_not_deciding_has_no_actions(name: str) -> None:
    s = decision_state(name)
    p = s.current_players()[0]
    assert s.legal_actions(np.int64(p)) == s.legal_actions(p)
    assert s.observation(np.int32(p)) == s.observation(p)
    others = [q for q in range(2) if q not in s.current_players()]
    assert others  # a sequential decision: the other seat is not deciding
    for q in others:
        assert s.legal_actions(q) == []
    before = snap(s)
    s.apply_actions({np.int64(p): s.legal_actions(p)[0]})  # accepted as seat p
    assert snap(s) != before


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("actions", (None, [], (), 3, "x", {1, 2}), ids=repr)
def test_joint_actions_must_be_a_mapping(name: str, actions: Any) -> None:
    s = decision_state(name)
    before = snap(s)
    with pytest.raises(IllegalActionError, match="actions must map"):
        s.apply_actions(actions)
    assert snap(s) == before


@pytest.mark.parametrize("name", GAMES)
def test_actions_with_out_of_range_arguments_are_refused_with_their_text(name: str) -> None:
    s = decision_state(name, seed=5)
    before = snap(s)
    p = s.current_players()[0]
    action_cls = type(s.legal_actions(p)[0])
    kinds = type(s.legal_actions(p)[0].kind)
    refused = 0
    for kind in kinds:
        for arg in (99, -5, 10**9):
            try:
                a = action_cls(kind, arg)
            except (TypeError, ValueError):
                continue  # the action type itself refuses it
            assert str(a)  # the text of a foreign action never fails
            with pytest.raises(IllegalActionError):
                s.clone().apply_actions({q: a for q in s.current_players()})
            refused += 1
    assert refused > 0 and snap(s) == before


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", ["7", 1.5, -1, float("nan"), 2**70, True, [1]], ids=repr)
def test_a_game_seed_is_none_or_an_int(name: str, seed: Any) -> None:
    """The seed is stored in the state and its records: was stored as given ("7", NaN), so
    that ``to_dict()`` was no JSON or did not load back."""
    from tabletop.errors import ConfigError

    g = registry.get(name).game(num_players=2)
    with pytest.raises(ConfigError, match="seed"):
        g.new_initial_state(seed)
    assert g.new_initial_state(np.int64(5)).to_dict() == g.new_initial_state(5).to_dict()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    "rng", [None, 42, np.random.RandomState(0)], ids=["None", "int", "RandomState"]
)
def test_chance_is_drawn_only_from_a_generator(name: str, rng: Any) -> None:
    g = registry.get(name).game(num_players=2)
    s = g.new_initial_state(0)
    while not s.is_chance_node():
        s.apply_actions({p: s.legal_actions(p)[0] for p in s.current_players()})
    before = snap(s)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        s.sample_chance(rng)
    assert snap(s) == before
