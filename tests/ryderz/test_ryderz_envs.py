"""Behaviour of the Lazer Ryderz envs (issue 5): the three action modes (hybrid, box,
discrete), masks, on_illegal, hidden simultaneous launches, rewards and shaping, auto_play,
the single-agent view, options, records and ``state()``.

The PettingZoo suite, ``check_env``, JSON round trips, pickling and record replay in all six
modes are in ``test_ryderz_env_conformance.py``. Positions are built with
``ryderz_builders`` on the 36-inch round table with the launch noise off (seat 0 at the
bottom; in a two-player game seat 1 at the top) and put into an env's session.
"""

from __future__ import annotations

import json
import math
import pickle
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo import AECEnv, ParallelEnv
from ryderz_builders import (
    EAST,
    PREV,
    UP,
    chain,
    edited,
    position,
    st,
    straight_at,
    with_lazer,
    with_prizms,
)

from ryderz_env import envs
from ryderz_env.envs import EnvConfig
from ryderz_env.rules import (
    Action,
    ActionKind,
    ChanceKind,
    DecisionKind,
    Game,
    Move,
    Pose,
    Prizm,
    State,
)
from ryderz_env.rules.config import load_rules
from tabletop import conformance as kit
from tabletop.errors import ConfigError, IllegalActionError
from tabletop.records import GameRecord, replay

ROOT = Path(__file__).resolve().parents[2]
NOISELESS = load_rules(None, launch_noise_sigma=0.0)
MODES = ("hybrid", "box", "discrete")
F32_03 = float(np.float32(0.3))  # what a float32 0.3 is as a Python float

_PROTOTYPES: dict[tuple[str, str], bytes] = {}


def fresh(make: Any, **kw: Any) -> Any:
    """A new env as ``make(**kw)`` gives it (a copy of a cached, never-reset one)."""
    key = (make.__name__, json.dumps(kw, sort_keys=True, default=repr))
    if key not in _PROTOTYPES:
        _PROTOTYPES[key] = pickle.dumps(make(**kw))
    return pickle.loads(_PROTOTYPES[key])


def aec(**kw: Any) -> Any:
    """A raw AEC env (two players unless told)."""
    kw.setdefault("num_players", 2)
    return fresh(envs.raw_env, **kw)


def par(**kw: Any) -> Any:
    kw.setdefault("num_players", 2)
    return fresh(envs.parallel_env, **kw)


def single(**kw: Any) -> Any:
    kw.setdefault("num_players", 2)
    return fresh(envs.single_agent_env, **kw)


def mode_action(adapter: Any, index: int, x: float = 0.0) -> Any:
    """The env action of the adapter's mode for codec ``index`` (and launch position x)."""
    mode = adapter.action_mode.value
    if mode == "hybrid":
        return {"discrete": index, "x": np.array([x], np.float32)}
    if mode == "box":
        v = np.full(len(adapter.codec) + 1, -1.0, np.float32)
        v[index] = 1.0
        v[-1] = x
        return v
    a = adapter.codec.actions[index]
    assert a.kind is not ActionKind.LAUNCH, "discrete launches: use grid_index or aim_index"
    return adapter.layout.plain_index[index]


def grid_index(layout: Any, gear: int, k: int) -> int:
    """The discrete mode's index of grid position ``k`` in ``gear``."""
    return layout.launch_base + (gear - 1) * layout.per_gear + k


def aim_index(layout: Any, gear: int, j: int) -> int:
    """The discrete mode's index of "aim at Prizm j" in ``gear``."""
    return layout.launch_base + (gear - 1) * layout.per_gear + layout.k + j


def straight_index(adapter: Any) -> int:
    """The codec index of "stay in gear, straight"."""
    return adapter.codec.encode(Action.move(0, Move.STRAIGHT))


def inject(env: Any, state: State) -> None:
    """Make ``state`` the env's current position."""
    u = env.unwrapped
    assert state.game is u.adapter.game
    u.session.state = state
    u.session.buffer = {}
    u.session._changed()
    if isinstance(u, AECEnv):
        u._select()


def reach_t(game: Game, seat: int, x: float) -> float:
    """The perimeter position of a Launch Point at ``x`` (no noise, nothing in the way)."""
    lo, hi = game.table.reach(seat, game.num_players)
    return lo + (x + 1.0) / 2.0 * (hi - lo)


def launch_t(state: State, seat: int) -> float:
    el = state.players[seat].lazer[0]
    assert el.is_launch
    return el.t


def eastward(g: Game, gear: int = 3, prizms: Any = (), **kw: Any) -> State:
    """Seat 0 about to move from (-4, 0) heading east (its previous piece a 1st-gear
    straight ending there); a straight of ``gear`` covers x in [-4, -4 + 1.5 gear]."""
    pre = straight_at(g, 0, Pose(-4.0, 0.0, EAST), 1, PREV)
    lazers = {0: [pre], **kw.pop("lazers", {})}
    return position(g, 0, lazers=lazers, prizms=list(prizms), gears={0: gear}, **kw)


def crash_position(g: Game) -> State:
    """Seat 0 about to go north from (-4.5, -1) with a 3rd-gear straight that hits seat 1's
    Lazer along y = 2 (seat 1 keeps its front pieces; seat 0 loses everything). Seat 1's
    Lazer has lost its Launch Point (hit before): a Lazer is one chain."""
    victim = chain(g, 1, Pose(-9.0, 2.0, EAST), [st(2), st(2), st(3), st(3)])
    pre = straight_at(g, 0, Pose(-4.5, -1.0, UP), 1, PREV)
    return position(
        g, 0, lazers={0: [pre], 1: victim}, prizms=[Prizm(10.0, -10.0, 0)], gears={0: 3}
    )


def one_short_of_a_win(g: Game) -> State:
    """Seat 0 owns two Prizms; its stay-in-gear straight scores the third."""
    return eastward(
        g,
        3,
        prizms=[
            Prizm(10.0, 10.0, 0),
            Prizm(-1.75, 0.3),
            Prizm(-10.0, 10.0, 0),
            Prizm(0.0, -12.0, 1),
        ],
    )


def snapshot(env: Any) -> dict[str, Any]:
    """Everything an illegal action with on_illegal='raise' must leave alone."""
    u = env.unwrapped
    s = u.session
    return {
        "state": s.state.to_dict(),
        "buffer": dict(s.buffer),
        "events": json.dumps(s.record.to_dict()),
        "rng": json.dumps(s.rng.bit_generator.state, sort_keys=True),
        "selection": u.agent_selection,
        "rewards": dict(u.rewards),
        "cumulative": dict(u._cumulative_rewards),
    }


# ====================================================================== hybrid mode
def test_hybrid_launch_at_engines_keeps_the_float32_x_in_the_record_and_the_replay(
    tmp_path: Path,
) -> None:
    assert F32_03 != 0.3 and F32_03 == 0.30000001192092896
    env = aec(config=NOISELESS)
    env.reset(seed=3)
    game = env.game
    env.step({"discrete": 3, "x": np.array([0.3], np.float32)})
    assert env.session.buffer == {0: Action.launch(3, F32_03)}
    assert env.session.buffer[0].x == F32_03  # not rounded back to 0.3, not a float32
    assert type(env.session.buffer[0].x) is float
    env.step({"discrete": 2, "x": [0.3]})  # a Python float stays exactly 0.3
    first = env.record.events[0]
    assert first == {"actions": {"0": [3, F32_03], "1": [2, 0.3]}}
    st_ = env.session.state
    assert launch_t(st_, 0) == reach_t(game, 0, F32_03)
    assert launch_t(st_, 1) == reach_t(game, 1, 0.3)
    assert [p.gear for p in st_.players] == [3, 2]
    # the record survives JSON and replays to the same state, x and all
    rng = np.random.default_rng(0)
    for _ in range(20):
        env.step(
            env.adapter.random_env_action(env.observe(env.agent_selection)["action_mask"], rng)
        )
    path = tmp_path / "r.json"
    env.record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.events[0] == first
    game2, _ = envs.replay_game(loaded.config)
    again = replay(game2, loaded)
    assert again.to_dict() == env.session.state.to_dict()


def test_hybrid_launch_positions_at_the_ends_of_reach_are_legal() -> None:
    env = aec(config=NOISELESS)
    env.reset(seed=0)
    env.step({"discrete": 4, "x": np.array([-1.0], np.float32)})
    env.step({"discrete": 1, "x": 1.0})  # a bare number is one position too
    assert env.record.events[0] == {"actions": {"0": [4, -1.0], "1": [1, 1.0]}}
    lo, _ = env.game.table.reach(0, 2)
    _, hi = env.game.table.reach(1, 2)
    assert launch_t(env.session.state, 0) == lo and launch_t(env.session.state, 1) == hi


HYBRID_BAD = [
    ({"discrete": 1, "x": [1.5]}, r"position 1\.5 is outside reach: x must lie in \[-1, 1\]"),
    ({"discrete": 5, "x": np.array([-1.01], np.float32)}, r"outside reach"),
    ({"discrete": 1, "x": [math.nan]}, r"'x' must be one finite number"),
    ({"discrete": 1, "x": [math.inf]}, r"'x' must be one finite number"),
    ({"discrete": 1, "x": [0.1, 0.2]}, r"'x' must be one finite number"),
    ({"discrete": 1, "x": "0.3"}, r"'x' must be one finite number"),
    ({"discrete": 1, "x": [True]}, r"'x' must be one finite number"),
    ({"discrete": 1}, r"exactly the keys 'discrete' and 'x'.*got keys \['discrete'\]"),
    ({"discrete": 1, "x": [0.0], "y": 0}, r"exactly the keys 'discrete' and 'x'"),
    ({"index": 1, "x": [0.0]}, r"exactly the keys 'discrete' and 'x'"),
    (3, r"must be a dict with exactly the keys"),
    ({"discrete": 1.5, "x": [0.0]}, r"'discrete' must be an integer index.*got 1\.5"),
    ({"discrete": True, "x": [0.0]}, r"'discrete' must be an integer index.*got True"),
    ({"discrete": "1", "x": [0.0]}, r"'discrete' must be an integer index"),
    ({"discrete": 6, "x": [0.0]}, r"index 6 is not legal now; legal indices: 1 \(launch"),
    ({"discrete": 0, "x": [0.0]}, r"index 0 is not legal now"),
    ({"discrete": 41, "x": [0.0]}, r"index 41 is not legal now"),
    ({"discrete": -1, "x": [0.0]}, r"index -1 is not legal now"),
]


@pytest.mark.parametrize(
    ("action", "message"), HYBRID_BAD, ids=[str(i) for i in range(len(HYBRID_BAD))]
)
def test_hybrid_illegal_actions_raise_and_change_nothing(action: Any, message: str) -> None:
    env = aec()
    env.reset(seed=1)
    env.step({"discrete": 2, "x": [0.5]})  # player_0's launch waits in the buffer
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=message) as info:
        env.step(action)
    assert "player_1" in str(info.value)
    assert snapshot(env) == before


def test_hybrid_non_launch_decision_ignores_x() -> None:
    env = aec(config=NOISELESS)
    env.reset(seed=2)
    env.step({"discrete": 5, "x": [0.0]})
    env.step({"discrete": 2, "x": [0.0]})
    assert env.session.state.decision_kind() is DecisionKind.MOVE
    assert env.agent_selection == "player_0"
    straight = straight_index(env.adapter)
    twins = [pickle.loads(pickle.dumps(env)) for _ in range(3)]
    for twin, x in zip(twins, ([0.7], [5.0], np.array([-1.0], np.float32)), strict=True):
        twin.step({"discrete": straight, "x": x})
        assert twin.record.events[-1] == {"actions": {"0": straight}}
    states = {json.dumps(t.session.state.to_dict(), sort_keys=True) for t in twins}
    assert len(states) == 1


# ====================================================================== box mode
def test_box_plays_the_legal_option_with_the_highest_score() -> None:
    env = aec(action_mode="box", config=NOISELESS)
    env.reset(seed=0)
    n = len(env.adapter.codec)
    v = np.zeros(n + 1, np.float32)
    v[0] = v[6] = v[20] = 1.0  # NOOP, decline and a move: all illegal at the engines
    v[4], v[2] = 0.5, 0.9  # the best legal option: a launch in gear 2
    v[-1] = 0.3
    env.step(v)
    assert env.session.buffer == {0: Action.launch(2, F32_03)}
    v = np.zeros(n + 1, np.float32)  # ties: the lowest legal index (gear 1) ...
    v[-1] = -0.3  # ... at the last entry's position
    env.step(v)
    assert env.record.events[0] == {"actions": {"0": [2, F32_03], "1": [1, -F32_03]}}
    assert launch_t(env.session.state, 1) == reach_t(env.game, 1, -F32_03)
    # a move decision: launches and NOOP score highest but are illegal; x is ignored
    assert env.session.state.decision_kind() is DecisionKind.MOVE
    seat = env.session.deciders()[0]
    legal = env.session.legal(seat)
    best = legal[len(legal) // 2]
    v = np.full(n + 1, -0.5, np.float32)
    v[:6] = 1.0
    v[best] = 0.75
    v[-1] = 1.0
    env.step(v)
    assert env.record.events[1] == {"actions": {str(seat): best}}


BOX_BAD = [
    (lambda n: np.zeros(n - 1, np.float32), r"shape \(41,\), expected \(42,\)"),
    (lambda n: np.zeros(n + 1, np.float32), r"shape \(43,\), expected \(42,\)"),
    (lambda n: np.zeros((2, n // 2), np.float32), r"shape \(2, 21\), expected \(42,\)"),
    (lambda n: np.where(np.arange(n) == 7, np.nan, 0.0), r"not finite at \[7\]"),
    (lambda n: np.where(np.arange(n) == 3, np.inf, 0.0), r"not finite at \[3\]"),
    (lambda n: np.where(np.arange(n) == 2, 1.5, 0.0), r"outside \[-1, 1\] at \[2\]"),
    (lambda n: np.where(np.arange(n) == n - 1, -1.25, 0.0), r"outside \[-1, 1\] at \[41\]"),
    (lambda n: ["a"] * n, r"must be 42 numbers"),
    (lambda n: {"discrete": 1, "x": [0.0]}, r"must be 42 numbers"),
    (lambda n: 3, r"shape \(\), expected \(42,\)"),
]


@pytest.mark.parametrize(("make", "message"), BOX_BAD, ids=[str(i) for i in range(len(BOX_BAD))])
def test_box_bad_vectors_raise_and_change_nothing(make: Any, message: str) -> None:
    env = aec(action_mode="box")
    env.reset(seed=1)
    n = len(env.adapter.codec) + 1
    assert n == 42
    env.step(np.zeros(n, np.float32))
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=message) as info:
        env.step(make(n))
    assert "player_1" in str(info.value)
    assert snapshot(env) == before


def test_box_ignores_the_position_at_a_non_launch_decision_only_within_the_space() -> None:
    env = aec(action_mode="box", config=NOISELESS)
    env.reset(seed=0)
    n = len(env.adapter.codec) + 1
    env.step(np.eye(n, dtype=np.float32)[5])
    env.step(np.eye(n, dtype=np.float32)[2])
    seat = env.session.deciders()[0]
    assert env.session.state.decision_kind() is DecisionKind.MOVE
    v = np.eye(n, dtype=np.float32)[straight_index(env.adapter)]
    v[-1] = 0.9
    env.step(v)
    assert env.record.events[-1] == {"actions": {str(seat): straight_index(env.adapter)}}


# ====================================================================== discrete mode
def test_discrete_grid_indices_launch_at_the_grid_positions() -> None:
    env = aec(action_mode="discrete", config=NOISELESS, launch_positions=40)
    env.reset(seed=0)
    layout = env.adapter.layout
    assert layout.aim.positions[7] == -1.0 + 2.0 * 7 / 39
    env.step(grid_index(layout, 4, 7))
    env.step(grid_index(layout, 2, 39))
    x0 = layout.aim.positions[7]
    assert env.record.events[0] == {"actions": {"0": [4, x0], "1": [2, 1.0]}}
    st_ = env.session.state
    assert launch_t(st_, 0) == reach_t(env.game, 0, x0)
    assert [p.gear for p in st_.players] == [4, 2]


@pytest.mark.parametrize("n", [2, 4])
def test_discrete_aim_index_launches_facing_the_prizm(n: int) -> None:
    env = aec(action_mode="discrete", config=NOISELESS, num_players=n)
    env.reset(seed=0)
    layout = env.adapter.layout
    s = env.session.state
    assert layout.slots == 3 * n and len(s.prizms) == n
    # Prizm 0 off seat 0's axis (x far from 0); Prizm 1 to seat 0's right, out of reach
    inject(env, with_prizms(s, [Prizm(3.0, -6.0), Prizm(12.0, 0.0), *s.prizms[2:]]))
    mask = env.observe("player_0")["action_mask"]
    for gear in range(1, env.game.top_gear + 1):
        assert mask[grid_index(layout, gear, 0) : grid_index(layout, gear, layout.k)].all()
        aims = mask[aim_index(layout, gear, 0) : aim_index(layout, gear, layout.slots)]
        expected = [1, 0] + [1] * (n - 2) + [0] * (layout.slots - n)
        if n == 4:  # the start Prizms 2 (top) and 3 (right of centre)
            expected[3] = 0  # (4.5, 0) sits to seat 0's side: no Launch Point faces it
        assert aims.tolist() == expected, gear
    assert mask[: layout.launch_base].sum() == 0
    x = layout.aim.aim(0, 3.0, -6.0)  # to seat 0's right: x < 0 (+1 is the left end)
    assert x is not None and -0.9 < x < -0.3
    env.step(aim_index(layout, 3, 0))
    for _ in range(n - 1):
        seat = int(env.agent_selection.split("_")[1])
        env.step(grid_index(layout, 1 + seat, 5))
    assert env.record.events[0]["actions"]["0"] == [3, x]
    st_ = env.session.state
    head = st_.players[0].head
    assert launch_t(st_, 0) == reach_t(env.game, 0, x)
    # a straight from the Launch Point runs through the Prizm's centre
    dx, dy = 3.0 - head.x, -6.0 - head.y
    lateral = -math.sin(head.h) * dx + math.cos(head.h) * dy
    forward = math.cos(head.h) * dx + math.sin(head.h) * dy
    assert abs(lateral) < 1e-9 and forward > 5.0
    frame = env.game.table.launch_frame(reach_t(env.game, 0, x))
    assert abs(-math.sin(frame.h) * (3.0 - frame.x) + math.cos(frame.h) * (-6.0 - frame.y)) < 1e-9


def test_discrete_aim_at_an_empty_slot_or_an_unfaced_prizm_is_illegal() -> None:
    env = aec(action_mode="discrete", config=NOISELESS)
    env.reset(seed=0)
    layout = env.adapter.layout
    s = env.session.state
    inject(env, with_prizms(s, [s.prizms[0], Prizm(12.0, 0.0), *s.prizms[2:]]))
    before = snapshot(env)
    for index in (
        aim_index(layout, 2, 1),
        aim_index(layout, 2, 2),
        aim_index(layout, 5, 5),
        0,
        layout.size,
        True,
    ):
        with pytest.raises(IllegalActionError, match="not legal"):
            env.step(index)
        assert snapshot(env) == before


def test_discrete_index_must_be_a_whole_number() -> None:
    env = aec(action_mode="discrete", config=NOISELESS)
    env.reset(seed=0)
    layout = env.adapter.layout
    env.step(grid_index(layout, 5, 0))
    env.step(grid_index(layout, 2, 0))
    legal = env.session.legal(0)
    assert env.session.state.decision_kind() is DecisionKind.MOVE and env.session.deciders() == (0,)
    before = snapshot(env)
    for bad in (legal[0] + 0.5, str(legal[0]), [legal[0], legal[1]], None, math.nan):
        with pytest.raises(IllegalActionError, match="not legal for player_0"):
            env.step(bad)
        assert snapshot(env) == before
    env.step(np.array([float(legal[1])]))  # one whole number, whatever its type
    acted = [e for e in env.record.events if "actions" in e][-1]
    assert acted == {"actions": {"0": layout.plain[legal[1]]}}


@pytest.mark.parametrize("mode", MODES)
def test_masks_noop_alone_for_non_deciders_and_never_for_deciders(mode: str) -> None:
    env = aec(action_mode=mode, num_players=3)
    env.reset(seed=4)
    key = env.adapter.mask_key
    noop_only = np.zeros(env.adapter.num_actions, np.int8)
    noop_only[0] = 1
    sess = env.session
    kinds = set()
    for agent, obs, _, term, trunc, _ in kit._aec_play(env, np.random.default_rng(4), 150):
        if term or trunc:
            assert np.array_equal(obs[key], noop_only)
            continue
        kinds.add(sess.state.decision_kind())
        deciders = sess.deciders()
        assert int(agent.split("_")[1]) in deciders
        for seat in range(3):
            m = env.observe(f"player_{seat}")[key]
            assert m.dtype == np.int8 and m.shape == (env.adapter.num_actions,)
            if seat in deciders:
                assert m[0] == 0 and m.sum() >= 2, (seat, m)
            else:
                assert np.array_equal(m, noop_only), seat
    assert {DecisionKind.ENGINES, DecisionKind.MOVE} <= kinds


def test_parallel_masks_and_ignored_non_decider_actions() -> None:
    e1, e2 = par(action_mode="hybrid", num_players=3), par(action_mode="hybrid", num_players=3)
    o1, _ = e1.reset(seed=5)
    e2.reset(seed=5)
    rng = np.random.default_rng(5)
    idle = 0
    while e1.agents:
        deciders = {f"player_{p}" for p in e1.session.deciders()}
        a1, a2 = {}, {}
        for agent in e1.agents:
            mask = o1[agent]["action_mask"]
            if agent in deciders:
                assert mask[0] == 0
                a1[agent] = a2[agent] = e1.adapter.random_env_action(mask, rng)
            else:
                assert mask[0] == 1 and mask.sum() == 1
                a1[agent] = {"discrete": 7, "x": [9.0]}  # junk: ignored
                a2[agent] = {"discrete": 0, "x": [0.0]}
                idle += 1
        o1, *_ = e1.step(a1)
        e2.step(a2)
    assert idle > 50
    assert e1.record.to_dict() == e2.record.to_dict()


# ====================================================================== mask key and spaces
@pytest.mark.parametrize("mode", MODES)
def test_mask_key_in_aec_parallel_and_single_agent_info(mode: str) -> None:
    key = "legal_mask" if mode == "box" else "action_mask"
    env = aec(action_mode=mode)
    env.reset(seed=0)
    assert set(env.observe("player_0")) == {"observation", key}
    assert set(env.observation_space("player_0").spaces) == {"observation", key}
    p = par(action_mode=mode)
    obs, _ = p.reset(seed=0)
    assert all(set(o) == {"observation", key} for o in obs.values())
    obs, *_ = p.step(
        {a: p.adapter.random_env_action(obs[a][key], np.random.default_rng(0)) for a in p.agents}
    )
    assert all(set(o) == {"observation", key} for o in obs.values())
    s = single(action_mode=mode)
    _, info = s.reset(seed=0)
    assert set(info) == {key, "seat"}
    assert np.array_equal(info[key].astype(bool), s.action_masks())
    _, _, _, _, info = s.step(
        s.adapter.random_env_action(s.action_masks(), np.random.default_rng(1))
    )
    assert set(info) == {key, "seat"}


@pytest.mark.parametrize("obs_mode", ["vector", "image"])
@pytest.mark.parametrize("mode", MODES)
def test_observation_spaces_contain_every_observation(mode: str, obs_mode: str) -> None:
    env = aec(action_mode=mode, obs_mode=obs_mode, num_players=3)
    env.reset(seed=6)
    space = env.observation_space("player_0")
    act_space = env.action_space("player_0")
    seen = 0
    for _, obs, _, term, trunc, action in kit._aec_play(env, np.random.default_rng(6), 60):
        for agent in env.possible_agents:
            assert space.contains(env.observe(agent)), agent
        assert space.contains(obs)
        if not (term or trunc):
            assert act_space.contains(action)
        seen += 1
    assert seen >= 60
    s = single(action_mode=mode, obs_mode=obs_mode)
    o, info = s.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(40):
        assert s.observation_space.contains(o)
        o, _, term, trunc, info = s.step(s.adapter.random_env_action(s.action_masks(), rng))
        if term or trunc:
            o, info = s.reset()


# ====================================================================== on_illegal
@pytest.mark.parametrize("mode", MODES)
def test_on_illegal_penalty_ends_the_game_for_everyone(mode: str) -> None:
    env = aec(
        action_mode=mode,
        num_players=3,
        config=EnvConfig(illegal_penalty=-2.5),
        on_illegal="penalty",
    )
    env.reset(seed=0)
    mask = env.observe("player_0")[env.adapter.mask_key]
    env.step(env.adapter.random_env_action(mask, np.random.default_rng(0)))
    bad = {"hybrid": {"discrete": 6, "x": [0.0]}, "box": np.zeros(3), "discrete": 0}[mode]
    env.step(bad)  # player_1's illegal action
    assert env.session.illegal_by == 1 and env.session.done
    assert env.rewards == {"player_0": 0.0, "player_1": -2.5, "player_2": 0.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.session.state.decision_kind() is DecisionKind.ENGINES  # nothing applied
    final = dict(env.rewards)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc and reward == final[agent]
        env.step(None)
    assert env.agents == []
    p = par(action_mode=mode, on_illegal="penalty")
    obs, _ = p.reset(seed=0)
    good = p.adapter.random_env_action(
        obs["player_1"][p.adapter.mask_key], np.random.default_rng(0)
    )
    _, rewards, terms, truncs, _ = p.step({"player_0": bad, "player_1": good})
    assert rewards == {"player_0": -1.0, "player_1": 0.0}
    assert terms == {"player_0": True, "player_1": True}
    assert truncs == {"player_0": False, "player_1": False} and p.agents == []


@pytest.mark.parametrize("mode", MODES)
def test_on_illegal_random_legal_plays_a_legal_action(mode: str) -> None:
    env = aec(action_mode=mode, config=NOISELESS, on_illegal="random_legal")
    env.reset(seed=0)
    bad = {"hybrid": {"discrete": 6, "x": [0.0]}, "box": np.full(42, np.nan), "discrete": 0}[mode]
    env.step(bad)
    env.step(bad)
    launches = env.record.events[0]["actions"]
    xs = []
    for seat in ("0", "1"):
        index, x = launches[seat]
        assert 1 <= index <= 5 and -1.0 <= x <= 1.0
        xs.append(x)
    if mode == "hybrid":  # anywhere in reach, not on the engine's spread of 9
        assert not set(xs) & set(env.game.launch_spread)
    if mode == "discrete":
        assert set(xs) <= set(env.adapter.layout.aim.positions) | {
            env.adapter.layout.aim.aim(0, q.x, q.y) for q in env.session.state.prizms
        } | {env.adapter.layout.aim.aim(1, q.x, q.y) for q in env.session.state.prizms}
    if env.session.state.decision_kind() is DecisionKind.MOVE:  # (no all-stall redo)
        seat = env.session.deciders()[0]
        env.step(bad)
        move = env.record.events[1]["actions"][str(seat)]
        assert isinstance(move, int)
        assert env.game.codec.actions[move].kind is ActionKind.MOVE
    assert env.session.illegal_by is None and not env.session.done


# ====================================================================== simultaneity
@pytest.mark.parametrize("n", [2, 3])
def test_aec_engines_choices_are_hidden_until_the_last_decider(n: int) -> None:
    env = aec(num_players=n)
    env.reset(seed=8)
    before_state = env.session.state.to_dict()
    before_obs = {a: env.observe(a) for a in env.possible_agents}
    noop_only = np.eye(env.adapter.num_actions, dtype=np.int8)[0]
    revealed = set()
    for gear, x in ((1, -0.9), (3, 0.0), (5, 0.8)):
        twin = pickle.loads(pickle.dumps(env))
        twin.step({"discrete": gear, "x": [x]})
        for k in range(1, n):  # the later deciders see nothing of the earlier choices
            assert twin.agent_selection == f"player_{k}"
            assert twin.session.state.to_dict() == before_state, "applied too early"
            for i, agent in enumerate(env.possible_agents):
                now, then = twin.observe(agent), before_obs[agent]
                assert np.array_equal(now["observation"], then["observation"]), agent
                # those who chose have nothing left to decide
                mask = noop_only if i < k else then["action_mask"]
                assert np.array_equal(now["action_mask"], mask), agent
            if k < n - 1:
                twin.step({"discrete": 1 + (k + 2) % 5, "x": [0.1 * k]})
        twin.step({"discrete": 2 if gear != 2 else 4, "x": [-0.2]})
        after = twin.session.state
        assert after.to_dict() != before_state
        assert after.decision_kind() is not DecisionKind.ENGINES or after.round == 0
        assert twin.record.events[0]["actions"]["0"] == [gear, x]
        revealed.add(json.dumps(after.to_dict(), sort_keys=True))
    assert len(revealed) == 3


def test_parallel_one_step_resolves_start_your_engines() -> None:
    p = par(num_players=3, config=NOISELESS)
    obs, _ = p.reset(seed=0)
    assert set(p.session.deciders()) == {0, 1, 2}
    obs, rewards, *_ = p.step(
        {
            "player_0": {"discrete": 2, "x": [0.5]},
            "player_1": {"discrete": 5, "x": [-0.5]},
            "player_2": {"discrete": 4, "x": [0.0]},
        }
    )
    s = p.session.state
    assert p.record.events[0] == {"actions": {"0": [2, 0.5], "1": [5, -0.5], "2": [4, 0.0]}}
    assert all(pl.lazer and pl.lazer[0].is_launch for pl in s.players)
    assert [pl.gear for pl in s.players] == [2, 5, 4]
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (1,)
    assert s.round == 1 and s.order == [1, 2, 0]
    assert rewards == {a: 0.0 for a in p.possible_agents}


# ====================================================================== no hidden information
def into_placement(state: State, rng: np.random.Generator) -> State:
    """A copy of ``state`` advanced into the blind Launch Point placement of Start Your
    Engines: every seat's launch applied, a random number of them already placed, so the
    others' aimed positions wait in the pending chance event and tasks."""
    t = state.clone()
    if t.decision_kind() is not DecisionKind.ENGINES:
        return t
    gears = rng.permutation(np.arange(1, t.game.top_gear + 1))[: len(t.players)]
    t.apply_actions(
        {s: Action.launch(int(gears[s]), float(rng.uniform(-1, 1))) for s in t.current_players()}
    )
    for _ in range(int(rng.integers(len(t.players) - 1))):
        assert t.chance_kind() is ChanceKind.LAUNCH_NOISE
        t.apply_chance(t.sample_chance(rng))
    assert t.chance_kind() is ChanceKind.LAUNCH_NOISE
    return t


def move_hidden_launch(state: State, viewer: int, rng: np.random.Generator) -> State:
    """A copy where another seat's aimed, not yet placed Launch Point position differs."""
    t = state.clone()
    if t.chance_kind() is not ChanceKind.LAUNCH_NOISE:
        return t
    pending = [("chance", t.chance.seat)] + [
        ("task", i) for i, task in enumerate(t.tasks) if task[0] == "launch"
    ]
    others = [
        (where, i)
        for where, i in pending
        if (t.chance.seat if where == "chance" else t.tasks[i][1]) != viewer
    ]
    if not others:
        return t
    where, i = others[int(rng.integers(len(others)))]
    x = float(rng.uniform(-1, 1))

    def aim_elsewhere(d: dict[str, Any]) -> None:
        if where == "chance":
            d["chance"]["x"] = x
        else:
            d["tasks"][i][2] = x

    return edited(t, aim_elsewhere)


@pytest.mark.parametrize(("obs_mode", "mode"), [("vector", "hybrid"), ("image", "discrete")])
def test_no_hidden_information_leak_during_blind_placement(obs_mode: str, mode: str) -> None:
    changed = kit.check_no_leak(
        partial(aec, num_players=4, obs_mode=obs_mode, action_mode=mode),
        move_hidden_launch,
        seed=0,
        every=1,
        max_steps=8,
        prepare=into_placement,
        min_events=0,  # the prepared states are at the die roll: no action to apply
    )
    assert changed >= 8


def test_the_leak_check_sees_a_changed_launch_point() -> None:
    def leaky(state: State, viewer: int, rng: np.random.Generator) -> State:
        t = move_hidden_launch(state, viewer, rng)
        p = t.players[(viewer + 1) % len(t.players)]
        if p.lazer:  # a placed Launch Point is public: moving it must show
            t = with_lazer(t, p.seat, [t.game.launch_element(p.seat, p.lazer[0].t + 1.0, 0)])
        return t

    def placed(state: State, rng: np.random.Generator) -> State:
        t = into_placement(state, rng)
        while t.chance_kind() is ChanceKind.LAUNCH_NOISE:
            t.apply_chance(0.0)
        return t

    with pytest.raises(AssertionError, match="leaks into player_"):
        kit.check_no_leak(partial(aec, num_players=4), leaky, every=1, max_steps=3, prepare=placed)


# ====================================================================== rewards
def _straight(env: Any) -> Any:
    return mode_action(env.adapter, straight_index(env.adapter))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [2, 3])
def test_a_win_gives_one_to_the_winner_and_minus_one_over_n_minus_1_to_the_others(
    n: int, mode: str
) -> None:
    env = aec(num_players=n, action_mode=mode, config=NOISELESS)
    env.reset(seed=0)
    inject(env, one_short_of_a_win(env.game))
    assert env.agent_selection == "player_0"
    env.step(_straight(env))
    s = env.session.state
    assert s.outcome().winner == 0 and s.status.value == "win"
    expected = {f"player_{i}": (1.0 if i == 0 else -1.0 / (n - 1)) for i in range(n)}
    assert env.rewards == expected
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for agent in env.agent_iter():
        assert env.last()[1] == expected[agent]
        env.step(None)
    p = par(num_players=n, action_mode=mode, config=NOISELESS)
    p.reset(seed=0)
    inject(p, one_short_of_a_win(p.game))
    _, rewards, terms, truncs, _ = p.step({a: _straight(p) for a in p.agents})
    assert rewards == expected and all(terms.values()) and not any(truncs.values())
    sa = single(num_players=n, action_mode=mode, config=NOISELESS)
    sa.reset(seed=0)
    inject(sa, one_short_of_a_win(sa.game))
    _, reward, term, trunc, info = sa.step(_straight(sa))
    assert (reward, term, trunc, info["won"]) == (1.0, True, False, 1.0)


def test_truncation_at_max_rounds_gives_zeros() -> None:
    env = fresh(envs.env, num_players=2, max_rounds=2)
    env.reset(seed=0)
    flags, rewards = {}, []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        rewards.append(reward)
        if term or trunc:
            flags[agent] = (term, trunc, reward)
            env.step(None)
        else:
            env.step(
                env.unwrapped.adapter.random_env_action(
                    obs["action_mask"], np.random.default_rng(0)
                )
            )
    assert flags == {a: (False, True, 0.0) for a in env.possible_agents}
    assert set(rewards) == {0.0}
    assert env.unwrapped.session.state.round == 2
    p = par(num_players=2, max_rounds=2)
    obs, _ = p.reset(seed=0)
    rng = np.random.default_rng(0)
    while p.agents:
        obs, rw, terms, truncs, _ = p.step(
            {a: p.adapter.random_env_action(obs[a]["action_mask"], rng) for a in p.agents}
        )
        assert set(rw.values()) == {0.0}
    assert truncs == {a: True for a in p.possible_agents}
    assert terms == {a: False for a in p.possible_agents}
    s = single(num_players=2, max_rounds=2)
    s.reset(seed=0)
    done = False
    while not done:
        _, reward, term, trunc, info = s.step(s.adapter.random_env_action(s.action_masks(), rng))
        assert reward == 0.0
        done = term or trunc
    assert (term, trunc, info["won"]) == (False, True, 0.0)


SHAPING = {"prizms": 0.5, "crash": 0.25}


@pytest.mark.parametrize(
    ("build", "shaping", "expected"),
    [
        (lambda g: eastward(g, 3, prizms=[Prizm(-1.75, 0.3)]), SHAPING, (0.5, 0.0)),
        (lambda g: eastward(g, 3, prizms=[Prizm(-1.75, 0.3, 1)]), SHAPING, (0.5, -0.5)),
        (crash_position, SHAPING, (-0.25, 0.0)),
        (lambda g: eastward(g, 3, prizms=[Prizm(-1.75, 0.3)]), None, (0.0, 0.0)),
        (crash_position, None, (0.0, 0.0)),
    ],
    ids=["score", "steal", "crash", "score-unshaped", "crash-unshaped"],
)
def test_shaping_pays_prizms_and_charges_crashes(build: Any, shaping: Any, expected: tuple) -> None:
    kw = {} if shaping is None else {"shaping": shaping}
    env = aec(config=NOISELESS, **kw)
    env.reset(seed=0)
    s = build(env.game)
    before = [s.score(0), s.score(1)]
    inject(env, s)
    env.step(_straight(env))
    after = env.session.state
    if build is crash_position:  # seat 0 crashed, seat 1 keeps its front
        assert after.players[0].head is None and after.players[1].head is not None
        assert after.score(0) == before[0]
    else:  # the move scored
        assert after.score(0) == before[0] + 1 and after.players[0].head is not None
    assert env.rewards == {"player_0": expected[0], "player_1": expected[1]}
    assert not env.session.done


# ====================================================================== auto_play
def _one_legal(adapter: Any) -> None:
    """Cut every decision down to its first legal action."""
    orig = adapter.legal_ints
    adapter.legal_ints = lambda state, seat: orig(state, seat)[:1]


@pytest.mark.parametrize("mode", MODES)
def test_auto_play_plays_single_choices_but_never_a_launch(mode: str) -> None:
    asked_kinds: dict[bool, list] = {}
    for auto_play in (False, True):
        env = aec(action_mode=mode, max_rounds=6, auto_play=auto_play)
        _one_legal(env.adapter)
        env.reset(seed=0)
        key = env.adapter.mask_key
        kinds = asked_kinds[auto_play] = []
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert obs[key].sum() == 1
            kinds.append(env.session.state.decision_kind())
            env.step(env.adapter.random_env_action(obs[key], np.random.default_rng(0)))
        events = env.record.events
        decisions = sum(len(e["actions"]) for e in events if "actions" in e)
        launches = sum(
            isinstance(a, list) for e in events if "actions" in e for a in e["actions"].values()
        )
        if auto_play:  # every launch asked, every other (single) choice auto-played
            assert set(kinds) <= {DecisionKind.ENGINES, DecisionKind.RESPAWN}
            assert len(kinds) == launches and decisions > launches + 10
        else:
            assert len(kinds) == decisions and DecisionKind.MOVE in kinds
    assert asked_kinds[True]


@pytest.mark.parametrize("mode", MODES)
def test_forced_action_is_never_a_launch(mode: str) -> None:
    env = aec(action_mode=mode, config=NOISELESS)
    env.reset(seed=0)
    a = env.adapter
    s = env.session.state
    for index in a.legal_ints(s, 0):
        assert a.forced_action(s, 0, [index]) is None
    env.step(mode_action(a, 5, 0.0) if mode != "discrete" else grid_index(a.layout, 5, 3))
    env.step(mode_action(a, 2, 0.0) if mode != "discrete" else grid_index(a.layout, 2, 3))
    s = env.session.state
    legal = a.legal_ints(s, 0)
    assert s.decision_kind() is DecisionKind.MOVE and len(legal) > 1
    assert a.forced_action(s, 0, legal) is None
    for index in legal:
        forced = a.forced_action(s, 0, [index])
        assert forced == a.decode_action(s, 0, index) and forced.kind is ActionKind.MOVE


# ====================================================================== single-agent view
@pytest.mark.parametrize("mode", MODES)
def test_single_agent_view_in_every_action_mode(mode: str) -> None:
    env = single(action_mode=mode, num_players=3)
    made = []
    spy_space = env.action_space
    orig = env.adapter.random_env_action

    def spy(mask: np.ndarray, rng: np.random.Generator) -> Any:
        a = orig(mask, rng)
        made.append(a)
        return a

    env.adapter.random_env_action = spy
    obs, info = env.reset(seed=3)
    key = env.adapter.mask_key
    rng = np.random.default_rng(3)
    steps = 0
    while True:
        m = env.action_masks()
        assert m.shape == (env.adapter.num_actions,) == info[key].shape and m.dtype == bool
        assert np.array_equal(m, info[key].astype(bool)) and m.any()
        assert env.learner in env.session.deciders()
        obs, _, term, trunc, info = env.step(orig(m, rng))
        steps += 1
        if term or trunc:
            break
    assert steps > 20 and len(made) > steps
    expected_type = {"hybrid": dict, "box": np.ndarray, "discrete": int}[mode]
    assert all(isinstance(a, expected_type) and spy_space.contains(a) for a in made)
    seats = {k for e in env.record.events if "actions" in e for k in e["actions"]}
    assert seats == {"0", "1", "2"}


def test_single_agent_learner_seat_random() -> None:
    env = single(num_players=3, learner_seat="random")
    seats = set()
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        assert info["seat"] == env.learner
        seats.add(env.learner)
        assert np.array_equal(obs, env.adapter.encode(env.session.state, env.learner))
        assert env.learner in env.session.deciders()
        assert not (set(env.session.deciders()) - {env.learner})
    assert seats == {0, 1, 2}
    again = single(num_players=3, learner_seat="random")
    assert [again.reset(seed=s)[1]["seat"] for s in range(8)] == [
        env.reset(seed=s)[1]["seat"] for s in range(8)
    ]


@pytest.mark.parametrize("mode", MODES)
def test_registries_make_working_envs(mode: str) -> None:
    assert envs.ENV_ID in pettingzoo.aec_registry and envs.ENV_ID in pettingzoo.parallel_registry
    a = pettingzoo.make("aec", envs.ENV_ID, num_players=2, action_mode=mode)
    assert isinstance(a.unwrapped, envs.raw_env) and a.unwrapped.metadata["name"] == envs.ENV_NAME
    a.reset(seed=0)
    key = "legal_mask" if mode == "box" else "action_mask"
    obs, *_ = a.last()
    a.step(a.unwrapped.adapter.random_env_action(obs[key], np.random.default_rng(0)))
    assert a.agent_selection == "player_1"
    p = pettingzoo.make("parallel", envs.ENV_ID, num_players=3, action_mode=mode)
    assert isinstance(p, ParallelEnv)
    obs, _ = p.reset(seed=0)
    rng = np.random.default_rng(0)
    obs, *_ = p.step({ag: p.adapter.random_env_action(obs[ag][key], rng) for ag in p.agents})
    assert p.record.events[0]["actions"].keys() == {"0", "1", "2"}
    g = gymnasium.make(envs.ENV_ID, num_players=2, action_mode=mode)
    o, info = g.reset(seed=0)
    assert g.observation_space.contains(o) and info[key].any()
    assert g.action_space == g.unwrapped.adapter.action_space()
    o, r, term, trunc, info = g.step(
        g.action_space.sample(info[key]) if mode != "box" else g.action_space.sample()
    )
    assert g.observation_space.contains(o) and not (term or trunc)


# ====================================================================== options
def test_options_change_the_game_and_the_spaces() -> None:
    base = aec()
    assert base.game.top_gear == 5 and not base.game.small_table
    assert base.action_space("player_0")["discrete"].n == 41  # 32 + 5 gears + 2 * 2 seats
    small = aec(table="small", action_mode="discrete")
    assert small.game.small_table and small.game.top_gear == 4
    assert small.adapter.num_actions == 36 + 4 * (36 + 6)
    small.reset(seed=0)
    layout = small.adapter.layout
    assert np.flatnonzero(small.observe("player_0")["action_mask"]).min() == layout.launch_base
    assert grid_index(layout, 5, 0) == small.adapter.num_actions
    small_h = aec(table="small")
    small_h.reset(seed=0)
    assert np.flatnonzero(small_h.observe("player_0")["action_mask"]).tolist() == [1, 2, 3, 4]
    three = aec(num_players=3)
    three.reset(seed=0)
    assert three.possible_agents == ["player_0", "player_1", "player_2"]
    assert three.action_space("player_0")["discrete"].n == 43
    assert len(three.session.state.prizms) == 3
    assert (
        three.observation_space("player_0")["observation"].shape[0]
        > base.observation_space("player_0")["observation"].shape[0]
    )
    k48 = aec(action_mode="discrete", launch_positions=48)
    assert k48.adapter.layout.k == 48 and k48.action_space("player_0").n == 36 + 5 * (48 + 6)
    assert aec(action_mode="discrete").action_space("player_0").n == 246
    rounds = aec(max_rounds=7)
    assert rounds.game.rules.round_limit == 7
    rounds.reset(seed=0)
    for _ in kit._aec_play(rounds, np.random.default_rng(0), 10**5):
        pass
    assert rounds.session.truncated and rounds.session.state.round == 7
    # Power Prizms: the flags in the observation, and power decisions in play
    plain, powered = aec(), aec(powers=True)
    assert powered.game.rules.powers and not plain.game.rules.powers
    plain.reset(seed=0)
    powered.reset(seed=0)
    assert not np.array_equal(
        plain.observe("player_0")["observation"], powered.observe("player_0")["observation"]
    )
    kinds = set()
    for _ in kit._aec_play(powered, np.random.default_rng(0), 200):
        kinds.add(powered.session.state.decision_kind())
    assert {DecisionKind.POWER, DecisionKind.SHARK} & kinds


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (
            {"action_mode": "continuous"},
            r"action_mode 'continuous' is not one of "
            r"\['hybrid', 'box', 'discrete'\]",
        ),
        ({"obs_mode": "pixels"}, r"obs_mode 'pixels' is not one of \['vector', 'image'\]"),
        ({"launch_positions": 1}, r"launch_positions must be at least 2"),
        ({"image_size": 4}, r"image_size must be at least 8"),
    ],
)
@pytest.mark.parametrize(
    "make",
    [envs.raw_env, envs.env, envs.parallel_env, envs.single_agent_env],
    ids=lambda f: f.__name__,
)
def test_bad_options_raise_config_error(make: Any, kw: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make(num_players=2, **kw)


def test_env_config_from_yaml(tmp_path: Path) -> None:
    cfg = tmp_path / "env.yaml"
    cfg.write_text(
        f"rules: {ROOT / 'configs/ryderz/rules.yaml'}\naction_mode: box\n"
        "on_illegal: penalty\nillegal_penalty: -4.0\n"
        "shaping: {prizms: 0.5, crash: 0.0}\n",
        encoding="utf-8",
    )
    env = envs.raw_env(config=str(cfg), num_players=2)
    assert env.adapter.mask_key == "legal_mask" and env.session.on_illegal.value == "penalty"
    assert env.session.illegal_penalty == -4.0 and env.adapter.shaping_enabled()
    env.reset(seed=0)
    env.step(np.zeros(7))
    assert env.rewards["player_0"] == -4.0
    with pytest.raises(ConfigError):
        envs.raw_env(config=EnvConfig(), shaping={"prizm": 1.0})


# ====================================================================== records
def test_replay_cli_on_a_ryderz_record(tmp_path: Path) -> None:
    env = fresh(envs.env, num_players=2, max_rounds=4)
    env.reset(seed=9)
    for _ in kit._aec_play(env, np.random.default_rng(9), 10**5):
        pass
    u = env.unwrapped
    assert any(
        isinstance(a, list)
        for e in u.record.events
        if "actions" in e
        for a in e["actions"].values()
    )
    path = tmp_path / "game.json"
    u.record.save(path)
    out = subprocess.run(
        [sys.executable, "-m", "tabletop.replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0] == f"lazer_ryderz_v0: seed 9, {len(u.record.events)} events"
    titles = [ln for ln in lines if ln.startswith("=== ")]
    assert [t.split()[2] for t in titles] == ["0", "1", "2", "3", "4", "4"]
    assert titles[-1].endswith("[final]")
    assert u.adapter.render_ansi(u.session.state) in out.stdout
    assert lines[-1].startswith("outcome:") and "truncated" in lines[-1].lower()


@pytest.mark.parametrize(
    "value",
    [
        [1],
        [3, "a"],
        [6, 0.1],
        True,
        [True, 0.1],
        [1, True],
        "1",
        1.0,
        [1, 0.1, 2],
        {"a": 1},
        None,
        41,
        -1,
        [41, 0.0],
        [1, float("nan")],
        [1, float("inf")],
        [1, 5.0],
        [1, -1.5],
    ],
)
def test_action_from_json_rejects_malformed_values(value: Any) -> None:
    with pytest.raises(IllegalActionError):
        Game(num_players=2).action_from_json(value)


def test_action_from_json_reads_what_action_to_json_writes() -> None:
    g = Game(num_players=2)
    small = Game(num_players=2, table="small")
    with pytest.raises(IllegalActionError, match="only a launch has a position"):
        small.action_from_json([5, 0.1])  # 5 is decline when the top gear is 4
    assert g.action_from_json([5, 0.1]) == Action.launch(5, 0.1)
    for a in (
        Action.launch(3, F32_03),
        Action.launch(1, -1.0),
        Action.move(1, Move.HARD_LEFT),
        Action(ActionKind.DECLINE),
    ):
        value = json.loads(json.dumps(g.action_to_json(a)))
        assert g.action_from_json(value) == a


# ====================================================================== state()
@pytest.mark.parametrize("obs_mode", ["vector", "image"])
def test_state_matches_state_space(obs_mode: str) -> None:
    env = aec(num_players=3, obs_mode=obs_mode)
    p = par(num_players=3, obs_mode=obs_mode)
    assert env.state_space == p.state_space
    assert env.state_space.shape == (env.adapter.state_size(),)
    env.reset(seed=2)
    obs, _ = p.reset(seed=2)
    vectors = []
    rng = np.random.default_rng(2)
    for _ in kit._aec_play(env, rng, 80):
        v = env.state()
        assert env.state_space.contains(v) and v.dtype == np.float32
        vectors.append(v.tobytes())
    while p.agents:
        assert p.state_space.contains(p.state())
        obs, *_ = p.step(
            {a: p.adapter.random_env_action(obs[a]["action_mask"], rng) for a in p.agents}
        )
    assert len(set(vectors)) > 20
    # the global state is the same whoever is watching; seat 0's view in vector mode
    assert np.array_equal(env.state(), env.adapter.vector.encode(env.session.state, 0))
