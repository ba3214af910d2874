"""observation(seat) carries no hidden information: changing only what a seat may not know
(other hands, the gadget deck's top, others' bottom cards, another's offer) leaves it equal."""

from __future__ import annotations

import json

import numpy as np
import pytest
from lunatix_builders import first_round, give_gadget, hide_swap

from lunatix_env.rules import DecisionKind, Game, State
from tabletop.protocol import play_chance, random_legal_actions


def _random_states(game: Game, seed: int, every: int = 9) -> list[State]:
    rng = np.random.default_rng(seed)
    s = game.new_initial_state(seed)
    out = []
    step = 0
    while not s.is_terminal():
        if s.is_chance_node():
            play_chance(s, rng)
            continue
        step += 1
        if step % every == 0:
            out.append(s.clone())
        s.apply_actions(random_legal_actions(s, rng))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_observation_is_unchanged_by_what_the_seat_may_not_know(seed: int) -> None:
    game = Game(num_players=2 + seed % 5)
    rng = np.random.default_rng(seed)
    states = _random_states(game, seed)
    assert states
    for s in states:
        # give everyone gadgets so that there is something to hide
        for c in s.cars:
            while s.gadget_top and len(c.gadgets) < 2:
                c.gadgets.append(s.gadget_top.pop())
                c.gadgets.sort()
        s._legal = {}
        for viewer in range(game.num_players):
            before = json.dumps(s.observation(viewer), sort_keys=True)
            after = json.dumps(hide_swap(s, viewer, rng).observation(viewer), sort_keys=True)
            assert before == after


def test_own_gadgets_are_visible_and_others_only_counted() -> None:
    game = Game(num_players=3)
    s = first_round(game)
    gi = give_gadget(s, 1, "Armor Plating")
    mine, theirs = s.observation(1), s.observation(0)
    assert mine["cars"][1]["gadgets"] == [gi]
    assert theirs["cars"][1]["gadgets"] is None and theirs["cars"][1]["num_gadgets"] == 1


def test_a_decision_that_exists_only_because_of_a_held_gadget_shows_as_private() -> None:
    game = Game(num_players=2)
    s = first_round(game)
    gi = give_gadget(s, 0, "Armor Plating")
    s.decision = {"kind": DecisionKind.PROTECT.value, "seat": 0, "hits": 2}
    s._legal = {}
    assert s.observation(1)["decision"] == {"kind": "private", "seat": 0}
    assert s.observation(0)["decision"]["hits"] == 2
    assert gi in s.observation(0)["cars"][0]["gadgets"]
