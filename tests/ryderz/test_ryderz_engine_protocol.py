"""The engine protocol of shared/DESIGN.md on Lazer Ryderz: determinism across processes,
clone independence, the JSON round trip mid-game, the action codec, continuous legality, and
typed errors that leave the state unchanged."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
import shapely
from determinism import assert_same_in_two_processes
from ryderz_builders import EAST, PREV, move, position, skip_to_move, straight_at

from ryderz_env.rules import (
    NOOP,
    Action,
    ActionKind,
    ChanceKind,
    DecisionKind,
    Game,
    IllegalActionError,
    InvalidStateError,
    Move,
    Pose,
    Prizm,
    State,
)

CASES = [
    ({"num_players": n, "powers": powers, "table": table}, seed)
    for n, powers, table, seed in [
        (2, False, "standard", 1),
        (3, True, "small", 2),
        (4, True, "large", 3),
        (4, False, "rectangle", 4),
        (3, True, "hexagon", 5),
    ]
]


def random_state(game: Game, seed: int, decisions: int) -> tuple[State, np.random.Generator]:
    """A state after ``decisions`` random decisions (chance drawn along the way)."""
    s = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    done = 0
    while not s.is_terminal() and (done < decisions or s.is_chance_node()):
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
            continue
        acts = {
            p: (lambda L: L[int(rng.integers(len(L)))])(s.legal_actions(p))
            for p in s.current_players()
        }
        s.apply_actions(acts)
        done += 1
    return s, rng


def test_same_seed_and_actions_give_identical_games_in_two_processes() -> None:
    results = assert_same_in_two_processes("ryderz_env.rules", CASES, min_steps=100)
    assert {r["status"] for r in results} <= {"win", "truncated"}


def test_clone_is_independent_of_the_original() -> None:
    g = Game(powers=True)
    s, rng = random_state(g, 3, 60)
    before = json.dumps(s.to_dict())
    c = s.clone()
    assert json.dumps(c.to_dict()) == before
    for _ in range(40):
        if c.is_terminal():
            break
        if c.is_chance_node():
            c.apply_chance(c.sample_chance(rng))
        else:
            c.apply_actions({p: c.legal_actions(p)[0] for p in c.current_players()})
    assert json.dumps(s.to_dict()) == before
    assert json.dumps(c.to_dict()) != before


@pytest.mark.parametrize("decisions", [0, 5, 40, 120])
def test_json_round_trip_mid_game_continues_identically(decisions: int) -> None:
    g = Game(num_players=3, powers=True)
    s, _ = random_state(g, 11, decisions)
    t = g.state_from_dict(json.loads(json.dumps(s.to_dict())))
    assert t.to_dict() == s.to_dict()
    assert str(t) == str(s)
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(60):
        if s.is_terminal():
            break
        for st, rng in ((s, r1), (t, r2)):
            if st.is_chance_node():
                st.apply_chance(st.sample_chance(rng))
            else:
                st.apply_actions(
                    {
                        p: st.legal_actions(p)[int(rng.integers(len(st.legal_actions(p))))]
                        for p in st.current_players()
                    }
                )
        assert t.to_dict() == s.to_dict()


def test_action_codec_is_a_bijection_with_noop_at_zero() -> None:
    g = Game()
    n = g.info.num_distinct_actions
    assert g.int_to_action(0) == NOOP
    assert [g.action_to_int(g.int_to_action(i)) for i in range(n)] == list(range(n))
    assert len({g.int_to_action(i) for i in range(n)}) == n
    assert g.int_to_action(g.action_to_int(Action.launch(3, 0.25)), 0.25) == Action.launch(3, 0.25)


def test_default_game_is_four_players_on_the_standard_table_without_powers() -> None:
    g = Game()
    assert (g.num_players, g.table.name, g.rules.powers, g.top_gear) == (4, "standard", False, 5)
    assert not g.small_table and not g.large_table


def test_launch_point_anywhere_in_reach_is_legal_and_outside_is_not() -> None:
    g = Game()
    s = g.new_initial_state(0)
    assert s.current_players() == (0, 1, 2, 3)
    assert s.is_legal(0, Action.launch(2, 0.123456))
    assert s.is_legal(0, Action.launch(5, -1.0))
    assert not s.is_legal(0, Action.launch(2, 1.0001))
    why = s.illegal_reason(0, Action.launch(2, 1.5))
    assert "outside reach" in why and "[-1, 1]" in why
    assert not s.is_legal(0, Action.launch(6, 0.0))
    legal = s.legal_actions(0)
    assert len(legal) == g.top_gear * g.rules.launch_spread
    assert {a.x for a in legal} == set(g.launch_spread)


def test_out_of_reach_launch_is_rejected_and_the_state_is_unchanged() -> None:
    g = Game()
    s = g.new_initial_state(0)
    before = s.to_dict()
    acts = {
        0: Action.launch(1, 0.0),
        1: Action.launch(2, 0.0),
        2: Action.launch(3, 0.0),
        3: Action.launch(4, 2.0),
    }
    with pytest.raises(IllegalActionError, match="outside reach"):
        s.apply_actions(acts)
    assert s.to_dict() == before


@pytest.mark.parametrize(
    "bad",
    [
        NOOP,
        Action(ActionKind.BONUS),
        999,
        "straight",
        None,
        Action(ActionKind.MOVE, 999),
        Action(ActionKind.MOVE, 0, 0.5),
    ],
)
def test_bad_move_is_rejected_with_a_typed_error_and_the_state_is_unchanged(bad: Any) -> None:
    g = Game(launch_noise_sigma=0.0)
    s, _ = random_state(g, 2, 1)
    assert s.decision_kind() is DecisionKind.MOVE
    seat = s.current_players()[0]
    before = s.to_dict()
    with pytest.raises(IllegalActionError):
        s.apply_actions({seat: bad})
    assert s.to_dict() == before


def test_illegal_move_message_lists_the_legal_moves() -> None:
    g = Game(launch_noise_sigma=0.0)
    s, _ = random_state(g, 2, 1)
    with pytest.raises(IllegalActionError, match="legal: .*shift stay, straight"):
        s.apply_action(Action(ActionKind.BONUS))


def test_wrong_deciders_and_wrong_call_are_rejected() -> None:
    g = Game()
    s = g.new_initial_state(0)
    with pytest.raises(IllegalActionError, match="use apply_actions"):
        s.apply_action(Action.launch(1, 0.0))
    with pytest.raises(IllegalActionError, match="deciders are"):
        s.apply_actions({0: Action.launch(1, 0.0)})
    with pytest.raises(IllegalActionError, match="no chance event"):
        s.apply_chance(3)


def test_chance_outcomes_are_exact_and_bad_outcomes_rejected() -> None:
    g = Game(launch_noise_sigma=0.0)
    s, _ = random_state(g, 2, 1)
    seat = s.current_players()[0]
    s.apply_action(Action.move(0, Move.SOFT_LEFT))
    assert s.chance_kind() is ChanceKind.DIE
    outs = s.chance_outcomes()
    assert sorted(o for o, _ in outs) == [0, 1, 2, 3, 4, 5]
    assert all(math.isclose(p, 1 / 6) for _, p in outs)
    before = s.to_dict()
    for bad in (6, -1, True, "5", 2.5):
        with pytest.raises(IllegalActionError, match="not possible"):
            s.apply_chance(bad)
    assert s.to_dict() == before
    with pytest.raises(IllegalActionError, match="apply_chance"):
        s.apply_action(Action.move(0, Move.STRAIGHT))
    assert seat not in s.current_players()


def test_continuous_chance_has_no_discrete_outcomes_and_checks_its_values() -> None:
    g = Game()
    s = g.new_initial_state(0)
    s.apply_actions({i: Action.launch(i + 1, 0.0) for i in range(4)})
    assert s.chance_kind() is ChanceKind.LAUNCH_NOISE
    with pytest.raises(InvalidStateError, match="continuous"):
        s.chance_outcomes()
    before = s.to_dict()
    for bad in (math.nan, math.inf, "x", None):
        with pytest.raises(IllegalActionError, match="finite"):
            s.apply_chance(bad)
    assert s.to_dict() == before
    s.apply_chance(0.5)
    assert s.chance_kind() is ChanceKind.LAUNCH_NOISE  # the next seat's placement


def test_tossed_prizm_off_the_table_is_rejected() -> None:
    g = Game()
    # seat 0 scores the neutral Prizm its straight crosses: a fresh one is tossed
    pre = straight_at(g, 0, Pose(-4.0, 0.0, EAST), 1, PREV)
    s = position(g, 0, lazers={0: [pre]}, prizms=[Prizm(-1.75, 0.3), Prizm(9.0, -9.0, 1)])
    skip_to_move(s)
    move(s, 0, Move.STRAIGHT)
    assert s.chance_kind() is ChanceKind.TOSS
    with pytest.raises(IllegalActionError, match="wholly on the table"):
        s.apply_chance([17.9, 0.0])
    with pytest.raises(IllegalActionError, match="point"):
        s.apply_chance(3)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda d: d.update(schema="x"), "schema"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d["players"][0].update(gear=9), "gear"),
        (lambda d: d["players"][0]["supply"][0].__setitem__(0, 5), "not conserved|owned"),
        (lambda d: d["players"][1].update(extra=1), "unknown keys"),
        (lambda d: d["prizms"].append([0.0, 0.0, 7]), "prizms"),
        (lambda d: d.update(status="over"), "status"),
        (lambda d: d["tasks"].append(["fly"]), "unknown task"),
        (lambda d: d.update(decision={"kind": "dance", "seat": 0}), "unknown decision"),
        (lambda d: d["players"][0]["lazer"].append({"kind": "zigzag", "turn": 1}), "kind"),
    ],
)
def test_malformed_state_dict_is_rejected_naming_the_problem(mutate: Any, match: str) -> None:
    g = Game(launch_noise_sigma=0.0)
    s, _ = random_state(g, 4, 10)
    d = json.loads(json.dumps(s.to_dict()))
    mutate(d)
    with pytest.raises(InvalidStateError, match=match):
        g.state_from_dict(d)


def test_to_dict_is_a_snapshot_not_a_view_of_the_state() -> None:
    g = Game(launch_noise_sigma=0.0)
    s, _ = random_state(g, 2, 1)
    d = s.to_dict()
    frozen = json.dumps(d)
    s.apply_action(Action.move(0, Move.SOFT_LEFT))
    s.apply_chance(5)
    assert json.dumps(d) == frozen
    t = g.state_from_dict(json.loads(frozen))
    data = json.loads(frozen)
    u = g.state_from_dict(data)
    u.apply_action(Action.move(0, Move.STRAIGHT))
    assert json.loads(frozen) == data  # the loaded state does not write into its input
    assert t.to_dict() == json.loads(frozen)


def test_gear_deal_chance_round_trips_through_json() -> None:
    g = Game(num_players=2, max_redos=0, launch_noise_sigma=0.0)
    s = g.new_initial_state(0)
    s.apply_actions({0: Action.launch(2, 0.5), 1: Action.launch(2, -0.5)})
    assert s.chance_kind() is ChanceKind.DEAL_GEARS
    d = s.to_dict()
    assert g.state_from_dict(json.loads(json.dumps(d))).to_dict() == d


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda d: d["chance"].pop("seat"), "keys"),
        (lambda d: d["chance"].update(curve=9), "curve"),
        (lambda d: d["chance"].update(side=0), "side"),
        (lambda d: d["turn"].update(scored="oops"), "scored"),
        (lambda d: d["turn"].update(roll=7), "roll"),
        (lambda d: d["tasks"].append(["turn_end"]), "argument"),
        (lambda d: d["tasks"].append(["launch", 0, 3.0]), r"\[-1, 1\]"),
        (lambda d: d.update(order=[0, 0, 1, 2]), "each seat once"),
    ],
)
def test_malformed_pending_work_is_rejected(mutate: Any, match: str) -> None:
    g = Game(launch_noise_sigma=0.0)
    s, _ = random_state(g, 2, 1)
    s.apply_action(Action.move(0, Move.SOFT_LEFT))
    assert s.chance_kind() is ChanceKind.DIE
    d = json.loads(json.dumps(s.to_dict()))
    mutate(d)
    with pytest.raises(InvalidStateError, match=match):
        g.state_from_dict(d)


def test_observation_flags_a_player_without_a_lazer_and_hides_aimed_positions() -> None:
    g = Game()
    s = g.new_initial_state(0)
    s.apply_actions({i: Action.launch(i + 1, 0.25 * i - 0.3) for i in range(4)})
    obs = s.observation(1)
    assert [p["on_table"] for p in obs["players"]] == [False] * 4
    assert "-0.3" not in json.dumps(obs) and "tasks" not in obs
    assert obs["chance"] == "launch_noise"


def reference_locks(s: State) -> list[bool]:
    """The lock rule by brute force: every element's distance to every Prizm centre."""
    r = s.game.rules
    out = []
    for q in s.prizms:
        colours = {
            e.owner
            for e in s.elements()
            if shapely.distance(shapely.Point(q.x, q.y), e.poly)
            < r.prizm_radius + r.touch_tolerance
        }
        out.append(len(colours) >= 2 or q.owner in colours)
    return out


def test_locks_agree_with_a_brute_force_reference_for_every_prizm() -> None:
    g = Game(powers=True)
    s, rng = random_state(g, 8, 0)
    seen = 0
    for _ in range(400):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
            continue
        assert s.locks() == [s.locked(j) for j in range(len(s.prizms))] == reference_locks(s)
        seen += sum(s.locks())
        s.apply_actions(
            {
                p: s.legal_actions(p)[int(rng.integers(len(s.legal_actions(p))))]
                for p in s.current_players()
            }
        )
    assert seen > 0  # some Prizms were locked along the way
