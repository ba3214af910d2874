"""Regression tests for the state dicts both engines once accepted and then crashed, hung or
broke an invariant on (issue 15's list): each is now refused by ``state_from_dict`` with an
``InvalidStateError`` naming the field, before anything else runs."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from random_play import random_step

from tabletop import registry
from tabletop.errors import InvalidStateError


def reach(name: str, players: int, wanted: Callable[[Any], bool], seed: int = 0) -> Any:
    """The first state of seeded random play of ``name`` for which ``wanted`` holds."""
    g = registry.get(name).game(num_players=players)
    for k in range(seed, seed + 40):
        rng = np.random.default_rng(k)
        s = g.new_initial_state(k)
        while not s.is_terminal():
            if wanted(s):
                return s
            random_step(s, rng)
    raise AssertionError("no such state in 40 games")


def refused(s: Any, change: Callable[[dict], None], match: str) -> None:
    data = copy.deepcopy(s.to_dict())
    change(data)
    with pytest.raises(InvalidStateError, match=match):
        s.game.state_from_dict(data)


def at_decision(kind: str) -> Callable[[Any], bool]:
    return lambda s: s.decision is not None and s.decision.kind.value == kind


# ------------------------------------------------------------------ Lunatix Loop
def test_lunatix_decision_whose_contents_do_not_match_its_kind() -> None:
    # was: {"kind": "luck", "seat": 1} accepted, then KeyError 'deck' on the next action
    s = reach("lunatix", 2, at_decision("brake"))
    seat = s.decision.seat
    refused(
        s,
        lambda d: d.__setitem__("decision", {"kind": "luck", "seat": seat}),
        r"decision: a 'luck' decision has the keys",
    )
    refused(s, lambda d: d["decision"].__setitem__("points", 3), "decision: a 'brake'")


def test_lunatix_duplicated_seat_at_a_simultaneous_decision() -> None:
    # was: accepted, then every input illegal
    s = reach("lunatix", 3, at_decision("card"))
    refused(s, lambda d: d["decision"].__setitem__("seats", [0, 0, 1]), "decision.seats")


def test_lunatix_speed_off_the_rules_step() -> None:
    # was: speed 35 accepted, leaving a decider with no legal action
    s = reach("lunatix", 2, at_decision("card"))
    refused(s, lambda d: d["cars"][0].__setitem__("speed", 35), r"cars\[0\].speed.*multiple")


def test_lunatix_dice_count_beyond_any_roll() -> None:
    # was: chance.n = 2000 accepted; chance_outcomes() then took seconds (quadratic) and
    # every probability underflowed to 0.0
    s = reach("lunatix", 2, lambda s: s.chance is not None and s.chance.kind.value == "dice")
    refused(s, lambda d: d["chance"].__setitem__("n", 2000), r"chance.n: 2000 is outside")


def test_lunatix_decider_without_a_legal_action() -> None:
    # a keep_gadget decision with no gadget on offer: nothing the seat could play
    s = reach("lunatix", 2, at_decision("step"))
    seat = s.decision.seat
    refused(
        s,
        lambda d: d.__setitem__("decision", {"kind": "keep_gadget", "seat": seat}),
        "seat .* has no legal action",
    )


def test_lunatix_out_goes_with_max_speed_zero_and_deciding_no_more() -> None:
    s = reach("lunatix", 3, at_decision("card"))
    refused(s, lambda d: d["cars"][2].__setitem__("out", True), r"cars\[2\].out")
    refused(s, lambda d: d["cars"][2].update(max_speed=0, speed=0), r"cars\[2\].out")

    def out_but_deciding(d: dict) -> None:
        d["cars"][2].update(out=True, speed=0, max_speed=0)

    refused(s, out_but_deciding, "seat 2's car is out of the race: it decides no more")


def test_lunatix_progress_lies_on_the_cars_square() -> None:
    s = reach("lunatix", 2, at_decision("step"))
    refused(s, lambda d: d["cars"][0].__setitem__("u", d["cars"][0]["u"] - 0.5), "race progress")
    laps = s.game.track.length
    for_lap = copy.deepcopy(s.to_dict())
    for_lap["cars"][0]["u"] += laps
    for_lap["cars"][0]["best_u"] += laps
    s.game.state_from_dict(for_lap)  # a whole lap more is a position of its own


# ------------------------------------------------------------------ Lazer Ryderz
def test_ryderz_die_roll_outside_the_rollers_turn() -> None:
    # was: accepted, then TypeError in _c_die
    s = reach("ryderz", 2, lambda s: s.chance is not None and s.chance.kind.value == "die")
    refused(s, lambda d: d.__setitem__("turn", None), "chance.seat: the curve die")


def test_ryderz_unknown_top_level_key_and_unchecked_seed() -> None:
    s = reach("ryderz", 2, lambda s: s.decision is not None)
    refused(s, lambda d: d.__setitem__("bogus", 1), "unknown keys")
    refused(s, lambda d: d.__setitem__("seed", float("nan")), "seed")  # was: to_dict not JSON
    refused(s, lambda d: d.__setitem__("seed", "7"), "seed")


# ------------------------------------------------------------------ both games
GAMES = registry.names()


def nested(depth: int) -> list:
    v: list = []
    for _ in range(depth):
        v = [v]
    return v


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    "change,match",
    [
        (lambda d: d.pop("round"), "missing key 'round'"),  # was: KeyError
        (
            lambda d: d.__setitem__("decision", {"kind": {"a": 1}, "seat": 0}),
            "decision",
        ),  # TypeError
        (lambda d: d.__setitem__("order", nested(100_000)), "nested deeper"),  # RecursionError
        (lambda d: d.__setitem__("order", list(range(10**6))), "values in all"),
        (lambda d: d.__setitem__("round", 10**5000), "integer beyond"),  # unprintable int
        (lambda d: d.__setitem__("schema", "x" * 10**6), "characters"),
        (lambda d: d.__setitem__("order", [float("inf")]), "finite"),
        (lambda d: d.__setitem__("order", {1: 0}), "keys must be strings"),
    ],
    ids=[
        "missing-key",
        "dict-as-enum",
        "deep-nesting",
        "huge-list",
        "huge-int",
        "huge-string",
        "infinity",
        "int-keys",
    ],
)
def test_malformed_json_is_refused_before_anything_reads_it(
    name: str, change: Any, match: str
) -> None:
    s = reach(name, 2, lambda s: s.decision is not None)
    before = json.dumps(s.to_dict(), sort_keys=True)
    refused(s, change, match)
    assert json.dumps(s.to_dict(), sort_keys=True) == before


@pytest.mark.parametrize("name", GAMES)
def test_the_limits_admit_every_state_of_random_play(name: str) -> None:
    """The size limits are far above real states: 4-player games round-trip to the end."""
    g = registry.get(name).game(num_players=4)
    for k in range(2):
        rng = np.random.default_rng(k)
        s = g.new_initial_state(k)
        steps = 0
        while not s.is_terminal():
            random_step(s, rng)
            steps += 1
            if steps % 25 == 0:
                back = g.state_from_dict(json.loads(json.dumps(s.to_dict())))
                assert back.to_dict() == s.to_dict()


@pytest.mark.parametrize("name", GAMES)
def test_many_small_lists_stop_at_the_container_limit(name: str) -> None:
    """Each object or list costs the walk a Python step: their number has its own limit, so
    the largest admitted input stays cheap (bench/bench_validation.py)."""
    s = reach(name, 2, lambda s: s.decision is not None)
    refused(
        s, lambda d: d.__setitem__("order", [[] for _ in range(1000)]), "objects and lists in all"
    )


@pytest.mark.parametrize(
    "change,match",
    [
        (
            lambda d, seat: d.__setitem__("decision", {"kind": "pit_exit", "seat": seat}),
            "in the pit",
        ),
        (
            lambda d, seat: d.__setitem__("decision", {"kind": "step", "seat": 1 - seat}),
            "whose turn it is",
        ),
        (
            lambda d, seat: d.__setitem__("decision", {"kind": "card", "seats": [0, 1]}),
            "between turns",
        ),
        (lambda d, seat: d.__setitem__("turn", None), "inside a turn"),
    ],
    ids=["pit-exit-on-track", "step-of-another-seat", "card-in-a-turn", "step-without-turn"],
)
def test_lunatix_decision_of_another_phase(change: Any, match: str) -> None:
    # a pit_exit decision for a car on the track was accepted (it even has legal actions)
    s = reach("lunatix", 2, at_decision("step"))
    seat = s.decision.seat
    refused(s, lambda d: change(d, seat), match)


def _shift_front_piece(element: dict) -> None:
    element["pose"][0] += 0.5


def _with_lazer(min_pieces: int) -> Callable[[Any], bool]:
    return lambda s: s.decision is not None and any(len(p.lazer) >= min_pieces for p in s.players)


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda d, i: _shift_front_piece(d["players"][i]["lazer"][-1]), "a Lazer is a chain"),
        (lambda d, i: d["players"][i].__setitem__("head", [0.0, 0.0, 0.0]), "the head is the exit"),
        (lambda d, i: d["prizms"][0].__setitem__(0, 1000.0), "wholly on the table"),
    ],
    ids=["broken-chain", "head-away", "prizm-off-table"],
)
def test_ryderz_geometry_is_checked(change: Any, match: str) -> None:
    # were accepted: broken Lazer chains, a head away from its front piece's exit, Prizms off
    # the table
    s = reach("ryderz", 2, _with_lazer(3))
    i = next(k for k, p in enumerate(s.players) if len(p.lazer) >= 3)
    refused(s, lambda d: change(d, i), match)


def test_ryderz_power_and_bonus_decisions_need_their_conditions() -> None:
    g = registry.get("ryderz").game(num_players=4, powers=True)
    s = g.new_initial_state(0)
    rng = np.random.default_rng(0)
    while not (s.decision is not None and s.decision.kind.value == "power"):
        random_step(s, rng)
    seat = s.decision.seat
    refused(s, lambda d: d["players"][seat].__setitem__("power_ready", False), "power decision")
    moving = reach(
        "ryderz",
        2,
        lambda s: at_decision("move")(s) and len(s.players[s.decision.seat].lazer) >= 2,
    )
    refused(moving, lambda d: d["decision"].__setitem__("kind", "bonus"), "large-table bonus")


def test_lunatix_hazard_batches_match_their_pending_tasks() -> None:
    # was: batches emptied while an apply_hazards task was pending: accepted, then IndexError
    # at that task (found by the CI-sized state fuzz)
    s = reach(
        "lunatix", 2, lambda s: s.chance is not None and s.chance.kind.value == "hazard", seed=0
    )
    refused(s, lambda d: d.__setitem__("batches", []), "batches")
    refused(s, lambda d: d["batches"].append([]), "hazard batches for")


@pytest.mark.parametrize(
    "task,index",
    [
        (["hazards", 0, 10**6, 0], 2),  # a million draws pushed by one apply
        (["damage", 0, 2000], 2),  # a roll's distribution grows with dice^2: hours
        (["curve_accel", 0, 10**9], 2),
        (["hazards", 0, 1, 7], 3),  # neither the track nor the pit
        (["turbo_apply", 0, 99], 2),
        (["shop", 0, -1], 2),
    ],
    ids=repr,
)
def test_lunatix_task_arguments_beyond_what_the_rules_make_are_refused(
    task: list[Any], index: int
) -> None:
    """Only the seat of a task was checked: counts and amounts were taken as given (one
    ``apply`` of a position with ``["hazards", 0, 10**6, 0]`` pushed a million tasks)."""
    g = registry.get("lunatix").game(num_players=2)
    d = g.new_initial_state(0).to_dict()
    d["tasks"].insert(0, task)
    with pytest.raises(InvalidStateError, match=rf"tasks\[0\]\[{index}\]"):
        g.state_from_dict(d)
    d["tasks"][0] = ["hazards", 0, 2, 0]  # what the rules push: accepted
    g.state_from_dict(d)
