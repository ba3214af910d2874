"""Bad input to the Lunatix Loop engine: illegal actions, impossible chance outcomes and
malformed state dicts are rejected with precise errors, and a rejected input leaves the
state unchanged (shared/DESIGN.md, "Errors")."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from lunatix_builders import A, K, choose, edited, first_round, handed, put, square_at, start

from lunatix_env.rules import (
    NOOP,
    Action,
    ActionKind,
    Card,
    Game,
    IllegalActionError,
    InvalidStateError,
    State,
)
from tabletop.errors import ConfigError


@functools.cache
def game3() -> Game:
    return Game(num_players=3)


def snapshot(s: State) -> str:
    return json.dumps(s.to_dict())


def card_node() -> State:
    """Round 1's simultaneous card reveal, three players."""
    return first_round(game3())


def accelerate_node() -> State:
    """A single decider: seat 0 (fastest) must choose its Accelerate amount."""
    g = game3()
    b = start(g)
    put(b, 0, square_at(g, 1, 6), speed=40)
    put(b, 1, square_at(g, 0, 2), speed=20)
    put(b, 2, square_at(g, 2, 2), speed=20)
    s = b.build()
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE, 2: Card.ACCELERATE})
    assert s.current_players() == (0,) and s.decision.kind.value == "accelerate"  # type: ignore
    return s


def assert_names_legal(msg: str, legal: list[Action]) -> None:
    """The message lists every legal action (by name or by int)."""
    g = game3()
    missing = [str(a) for a in legal if str(a) not in msg and str(g.action_to_int(a)) not in msg]
    assert not missing, f"message does not list the legal actions {missing}: {msg!r}"


def reject(s: State, call: Callable[[], Any], err: type[Exception] = IllegalActionError) -> str:
    """Run ``call``, expect ``err``, check the state is unchanged; return the message."""
    before = snapshot(s)
    legal_before = {p: s.legal_actions(p) for p in s.current_players()}
    with pytest.raises(err) as info:
        call()
    assert snapshot(s) == before, "a rejected input changed the state"
    assert {p: s.legal_actions(p) for p in s.current_players()} == legal_before
    return str(info.value)


# ---------------------------------------------------------------------------- error classes
def test_engine_errors_are_value_errors() -> None:
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(InvalidStateError, ValueError)
    assert issubclass(ConfigError, ValueError)
    assert not issubclass(IllegalActionError, InvalidStateError)
    assert not issubclass(InvalidStateError, IllegalActionError)


# ---------------------------------------------------------------------------- actions
def test_action_of_the_wrong_kind_is_rejected_naming_it_and_the_legal_actions() -> None:
    s = accelerate_node()
    legal = s.legal_actions(0)
    msg = reject(s, lambda: s.apply_action(A(K.BRAKE, 10)))
    assert "brake 10" in msg and "seat 0" in msg and "accelerate" in msg
    assert_names_legal(msg, legal)
    msg = reject(s, lambda: s.apply_action(A(K.CARD, int(Card.RAM))))
    assert "card ram" in msg
    assert_names_legal(msg, legal)
    s.apply_action(A(K.ACCELERATE, 10))  # still playable afterwards
    assert s.cars[0].speed == 50


def test_wrong_card_at_the_simultaneous_reveal_is_rejected_without_partial_effect() -> None:
    s = card_node()
    legal1 = s.legal_actions(1)
    acts = {0: A(K.CARD, int(Card.ACCELERATE)), 1: A(K.STEP, 2), 2: A(K.CARD, int(Card.ACCELERATE))}
    msg = reject(s, lambda: s.apply_actions(acts))
    assert "step front" in msg and "seat 1" in msg and "card" in msg
    assert_names_legal(msg, legal1)
    assert s.cards == [None, None, None] and s.order == []


@pytest.mark.parametrize("bad", ["too_big", "negative", "unknown_action"])
def test_action_outside_the_codec_is_rejected_naming_it_and_the_legal_actions(bad: str) -> None:
    s = accelerate_node()
    g = s.game
    n = g.info.num_distinct_actions
    action: Any = {
        "too_big": n + 7,
        "negative": -3,
        "unknown_action": Action(ActionKind.BRAKE, 15),
    }[bad]
    msg = reject(s, lambda: s.apply_action(action))
    assert str(action) in msg
    if isinstance(action, int):
        assert f"0..{n - 1}" in msg, f"message does not give the action range: {msg!r}"
    assert_names_legal(msg, s.legal_actions(0))


@pytest.mark.parametrize("bad", ["brake 10", 2.0, None, True])
def test_action_of_the_wrong_type_is_rejected(bad: Any) -> None:
    s = accelerate_node()
    msg = reject(s, lambda: s.apply_action(bad))
    assert repr(bad) in msg or str(bad) in msg


def test_noop_is_rejected_for_a_decider_listing_the_legal_actions() -> None:
    s = accelerate_node()
    legal = s.legal_actions(0)
    for noop in (NOOP, 0):
        msg = reject(s, lambda noop=noop: s.apply_action(noop))
        assert "noop" in msg.lower() and "seat 0" in msg
        assert_names_legal(msg, legal)
    s = card_node()
    acts: dict[int, Any] = {p: s.legal_actions(p)[0] for p in s.current_players()}
    acts[2] = NOOP
    msg = reject(s, lambda: s.apply_actions(acts))
    assert "noop" in msg.lower() and "seat 2" in msg
    assert_names_legal(msg, s.legal_actions(2))


def test_action_for_a_seat_that_is_not_deciding_is_rejected_naming_the_decider() -> None:
    s = accelerate_node()
    assert s.legal_actions(1) == [] and not s.is_legal(1, A(K.ACCELERATE, 10))
    msg = reject(s, lambda: s.apply_actions({1: A(K.ACCELERATE, 10)}))
    assert "1" in msg and "decider" in msg and "0" in msg.split("decider")[-1]
    # an extra seat next to the real decider is rejected too
    msg = reject(s, lambda: s.apply_actions({0: A(K.ACCELERATE, 10), 2: A(K.ACCELERATE, 0)}))
    assert "2" in msg and "decider" in msg


def test_apply_action_at_a_simultaneous_node_is_rejected_pointing_to_apply_actions() -> None:
    s = card_node()
    players = s.current_players()
    assert players == (0, 1, 2)
    msg = reject(s, lambda: s.apply_action(A(K.CARD, int(Card.ACCELERATE))))
    assert "apply_actions" in msg
    tail = msg.split("decider")[-1]
    assert all(str(p) in tail for p in players), msg


def test_apply_actions_with_a_seat_missing_is_rejected_naming_the_deciders() -> None:
    s = card_node()
    acts = {0: A(K.CARD, int(Card.ACCELERATE)), 1: A(K.CARD, int(Card.ACCELERATE))}
    msg = reject(s, lambda: s.apply_actions(acts))
    assert "decider" in msg
    tail = msg.split("decider")[-1]
    assert all(str(p) in tail for p in (0, 1, 2)), msg
    msg = reject(s, lambda: s.apply_actions({}))
    assert "decider" in msg


def test_actions_at_a_chance_node_are_rejected_saying_chance_is_pending() -> None:
    s = game3().new_initial_state(0)
    assert s.is_chance_node()
    msg = reject(s, lambda: s.apply_actions({0: A(K.CHIP_MIX, 0)}))
    assert "chance" in msg
    msg = reject(s, lambda: s.apply_action(A(K.CHIP_MIX, 0)))
    assert "chance" in msg


def finished_game() -> State:
    s = game3().new_initial_state(3)
    rng = np.random.default_rng(3)
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
        else:
            s.apply_actions({p: s.legal_actions(p)[0] for p in s.current_players()})
    return s


def test_actions_after_the_end_are_rejected_saying_the_game_is_over() -> None:
    s = finished_game()
    msg = reject(s, lambda: s.apply_actions({0: A(K.CARD, int(Card.ACCELERATE))}))
    assert "over" in msg
    msg = reject(s, lambda: s.apply_action(A(K.CARD, int(Card.ACCELERATE))))
    assert "over" in msg
    msg = reject(s, lambda: s.apply_chance(0))
    assert "no chance" in msg


# ---------------------------------------------------------------------------- chance
def reach_chance(kind: str) -> State:
    """A three-player state whose pending chance event is of ``kind``, by seeded random play
    (the first seed whose game gets there)."""
    g = game3()
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = g.new_initial_state(seed)
        while not s.is_terminal():
            if s.chance is not None and s.chance.kind.value == kind:
                return s
            if s.is_chance_node():
                s.apply_chance(s.sample_chance(rng))
            else:
                s.apply_actions(
                    {
                        p: s.legal_actions(p)[int(rng.integers(len(s.legal_actions(p))))]
                        for p in s.current_players()
                    }
                )
    raise AssertionError(f"no {kind} chance event reached in 200 random games")


def assert_impossible(s: State, outcome: Any) -> None:
    possible = [o for o, _ in s.chance_outcomes()]
    msg = reject(s, lambda: s.apply_chance(outcome), ValueError)
    assert repr(outcome) in msg or str(outcome) in msg, msg
    assert str(possible) in msg or all(str(o) in msg for o in possible), msg


def test_impossible_start_dot_is_rejected_and_the_state_is_unchanged() -> None:
    g = game3()
    s = g.new_initial_state(0)
    ndots = len(g.track.start_dots)
    for bad in (ndots, -1, 1.5, "0"):
        assert_impossible(s, bad)
    s.apply_chance(4)
    assert s.chance is not None and s.chance.kind.value == "start_dot"
    assert_impossible(s, 4)  # already dealt to seat 0
    assert 4 not in [o for o, _ in s.chance_outcomes()]


def test_impossible_dice_total_is_rejected() -> None:
    s = reach_chance("dice")
    n = s.chance.n  # type: ignore[index]
    for bad in (2 * n + 1, -1, 99):
        assert_impossible(s, bad)
    s.apply_chance(2 * n)  # the largest total is possible


def test_hazard_card_not_left_in_the_deck_is_rejected() -> None:
    s = reach_chance("hazard")
    gone = 6  # Close Call, one card

    def discard_it(d: dict[str, Any]) -> None:  # (it was drawn earlier)
        d["hazard_discard"][gone] += d["hazard_deck"][gone]
        d["hazard_deck"][gone] = 0

    s = edited(s, discard_it)
    assert_impossible(s, gone)
    assert_impossible(s, len(s.hazard_deck))


def test_turbo_card_out_of_range_is_rejected() -> None:
    s = reach_chance("turbo")
    assert_impossible(s, len(s.turbo_deck))
    assert_impossible(s, -1)


def test_gadget_not_in_the_deck_top_is_rejected() -> None:
    s = reach_chance("gadget")
    # a gadget of the top goes to the drawing player's hand
    top = sorted(s.gadget_top)
    given = top[-1]
    s = handed(s, s.chance.seat, s.game.decks.gadgets[given].name)  # type: ignore[index]
    assert [o for o, _ in s.chance_outcomes()] == top[:-1]
    assert_impossible(s, given)
    assert_impossible(s, len(s.game.decks.gadgets))


def test_apply_chance_at_a_decision_is_rejected() -> None:
    s = card_node()
    msg = reject(s, lambda: s.apply_chance(0))
    assert "chance" in msg


# ---------------------------------------------------------------------------- state dicts
@functools.cache
def base_dict() -> str:
    """A mid-game state (round 3 or later, a move in progress, a chip on the track)."""
    g = game3()
    rng = np.random.default_rng(11)
    s = g.new_initial_state(11)
    while not (
        s.round >= 3
        and s.decision is not None
        and s.decision.kind.value == "step"
        and s.track_chips
        and not s.turn.rocket  # type: ignore[union-attr]
        and sum(s.hazard_discard) > 0
    ):
        assert not s.is_terminal()
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
        else:
            s.apply_actions(
                {
                    p: s.legal_actions(p)[int(rng.integers(len(s.legal_actions(p))))]
                    for p in s.current_players()
                }
            )
    return json.dumps(s.to_dict())


def fresh() -> dict[str, Any]:
    return json.loads(base_dict())


def test_the_unmodified_state_dict_loads() -> None:
    d = fresh()
    assert game3().state_from_dict(d).to_dict() == d
    assert d == fresh(), "state_from_dict must not modify its input"


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]

    def edit(d: dict[str, Any]) -> None:
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value

    return edit


def _del(path: str) -> Callable[[dict[str, Any]], None]:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]

    def edit(d: dict[str, Any]) -> None:
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]

    return edit


def _two_cars_one_square(d: dict[str, Any]) -> None:
    d["cars"][1]["square"] = d["cars"][0]["square"]
    d["cars"][1]["in_pit"] = d["cars"][0]["in_pit"] = False


def _lose_chip(d: dict[str, Any]) -> None:
    d["supply"][2] -= 1


def _extra_track_chip(d: dict[str, Any]) -> None:
    used = {sq for sq, _ in d["track_chips"]} | {c["square"] for c in d["cars"]}
    free = next(sq for sq in range(100) if sq not in used)
    d["track_chips"].append([free, 0])
    d["track_chips"].sort()


def _lose_hazard(d: dict[str, Any]) -> None:
    i = next(i for i, n in enumerate(d["hazard_deck"]) if n > 0)
    d["hazard_deck"][i] -= 1


def _extra_hazard(d: dict[str, Any]) -> None:
    d["hazard_discard"][0] += 1


def _lose_turbo(d: dict[str, Any]) -> None:
    i = next(i for i, n in enumerate(d["turbo_deck"]) if n > 0)
    d["turbo_deck"][i] -= 1


def _lose_gadget(d: dict[str, Any]) -> None:
    d["gadget_top"].pop()


def _duplicate_gadget(d: dict[str, Any]) -> None:
    d["cars"][0]["gadgets"].append(d["gadget_top"][0])


def _unknown_task(d: dict[str, Any]) -> None:
    d["tasks"].append(["teleport", 0])


def _task_wrong_arity(d: dict[str, Any]) -> None:
    d["tasks"].append(["damage", 0])


def _task_bad_seat(d: dict[str, Any]) -> None:
    d["tasks"].insert(0, ["turn", 9])


def _bottom_bad_seat(d: dict[str, Any]) -> None:
    g = d["gadget_top"].pop()
    d["gadget_bottom"].append([g, 9])


# (case id, edit, words the message must contain)
MALFORMED: list[tuple[str, Callable[[dict[str, Any]], None], tuple[str, ...]]] = [
    ("wrong_schema", _set("schema", "ryderz/state"), ("schema", "ryderz/state")),
    ("wrong_version", _set("version", 99), ("version", "99")),
    ("wrong_num_players", _set("num_players", 4), ("num_players", "4")),
    ("missing_key", _del("supply"), ("supply", "missing")),
    ("missing_car_key", _del("cars.0.luck"), ("cars[0]", "luck")),
    ("unknown_key", _set("colour", "red"), ("colour",)),
    ("unknown_car_key", _set("cars.1.nitro", 1), ("cars[1]", "nitro")),
    ("wrong_type_round", _set("round", "3"), ("round", "integer")),
    ("wrong_type_in_pit", _set("cars.0.in_pit", 1), ("cars[0].in_pit",)),
    ("wrong_type_cars", _set("cars", "three cars"), ("cars",)),
    ("wrong_type_tasks", _set("tasks", {"move": 0}), ("tasks",)),
    ("wrong_type_task_arg", _set("tasks.0", ["turn", "zero"]), ("tasks[0]",)),
    ("square_too_big", _set("cars.0.square", 100_000), ("cars[0].square", "100000")),
    ("square_negative", _set("cars.2.square", -5), ("cars[2].square", "-5")),
    ("square_unset_mid_game", _set("cars.1.square", -1), ("cars[1].square",)),
    ("speed_above_turbo_cap", _set("cars.0.speed", 250), ("cars[0].speed", "250")),
    ("facing_out_of_range", _set("cars.0.facing", 2), ("cars[0].facing",)),
    ("two_cars_one_square", _two_cars_one_square, ("cars[1].square", "car 0")),
    ("chip_missing", _lose_chip, ("chip", "supply")),
    ("chip_extra_on_track", _extra_track_chip, ("chip",)),
    ("track_chip_bad_kind", _set("track_chips.0.1", 3), ("track_chips[0]",)),
    ("hazard_card_missing", _lose_hazard, ("hazard",)),
    ("hazard_card_extra", _extra_hazard, ("hazard", "Fender Bender")),
    ("turbo_card_missing", _lose_turbo, ("turbo",)),
    ("gadget_missing", _lose_gadget, ("gadget",)),
    ("gadget_twice", _duplicate_gadget, ("gadget",)),
    ("unknown_task", _unknown_task, ("task", "teleport")),
    ("task_wrong_arity", _task_wrong_arity, ("task", "damage")),
    ("task_seat_out_of_range", _task_bad_seat, ("tasks[0]", "9")),
    ("gadget_bottom_seat_out_of_range", _bottom_bad_seat, ("gadget_bottom", "9")),
    ("unknown_decision_kind", _set("decision.kind", "fly"), ("decision", "fly")),
    ("decision_seat_out_of_range", _set("decision.seat", 7), ("decision.seat", "7")),
    ("unknown_outcome", _set("outcome", "draw"), ("outcome", "draw")),
    ("winner_without_win", _set("winner", 1), ("winner",)),
    ("turn_missing_key", _del("turn.rocket"), ("turn",)),
]


@pytest.mark.parametrize(
    "edit,words", [(e, w) for _, e, w in MALFORMED], ids=[c for c, _, _ in MALFORMED]
)
def test_malformed_state_dict_is_rejected_naming_the_problem(
    edit: Callable[[dict[str, Any]], None], words: tuple[str, ...]
) -> None:
    d = fresh()
    edit(d)
    kept = copy.deepcopy(d)
    with pytest.raises(InvalidStateError) as info:
        game3().state_from_dict(d)
    msg = str(info.value)
    missing = [w for w in words if w not in msg]
    assert not missing, f"message does not name {missing}: {msg!r}"
    assert d == kept, "state_from_dict must not modify its input"


@pytest.mark.parametrize("data", [None, [], "state", 3])
def test_state_dict_that_is_not_an_object_is_rejected(data: Any) -> None:
    with pytest.raises(InvalidStateError):
        game3().state_from_dict(data)
