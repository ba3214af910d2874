"""observation(seat) carries no hidden information: changing only what a seat may not know
(other hands, the gadget deck's top, others' bottom cards, another's offer) leaves it equal."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from lunatix_builders import (
    A,
    K,
    act,
    choose,
    edited,
    force,
    give_gadget,
    hide_swap,
    lay_chip,
    put,
    square_at,
    start,
)

from lunatix_env.rules import Card, DecisionKind, Game, State
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
        s = edited(s, deal_two_each)
        for viewer in range(game.num_players):
            before = json.dumps(s.observation(viewer), sort_keys=True)
            after = json.dumps(hide_swap(s, viewer, rng).observation(viewer), sort_keys=True)
            assert before == after


def deal_two_each(d: dict[str, Any]) -> None:
    """Every car holds two gadgets (from the deck's top, while it lasts)."""
    for c in d["cars"]:
        while d["gadget_top"] and len(c["gadgets"]) < 2:
            c["gadgets"].append(d["gadget_top"].pop())
            c["gadgets"].sort()


def test_own_gadgets_are_visible_and_others_only_counted() -> None:
    game = Game(num_players=3)
    b = start(game)
    gi = give_gadget(b, 1, "Armor Plating")
    s = b.build()
    mine, theirs = s.observation(1), s.observation(0)
    assert mine["cars"][1]["gadgets"] == [gi]
    assert theirs["cars"][1]["gadgets"] is None and theirs["cars"][1]["num_gadgets"] == 1


def test_a_decision_that_exists_only_because_of_a_held_gadget_shows_as_private() -> None:
    game = Game(num_players=2)
    b = start(game)
    gi = give_gadget(b, 0, "Armor Plating")
    # car 0 (no luck chips) drives onto tacks and takes 2 hits: Armor Plating may cancel them
    put(b, 0, square_at(game, 1, 24), speed=40).car(0, luck=0)
    lay_chip(b, square_at(game, 1, 25), 0)
    s = b.build()
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), A(K.STEP, 2))
    force(s, [2])
    assert s.decision is not None
    assert s.decision.to_dict() == {"kind": DecisionKind.PROTECT.value, "seat": 0, "hits": 2}
    assert s.observation(1)["decision"] == {"kind": "private", "seat": 0}
    assert s.observation(0)["decision"]["hits"] == 2
    assert gi in s.observation(0)["cars"][0]["gadgets"]
