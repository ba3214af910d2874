"""Lunatix Loop's envs under the shared conformance kit (``tabletop.conformance``), plus the
env behaviour the issue names: hidden simultaneous choices in AEC, NOOP-only masks for
non-deciders, on_illegal modes, dead steps, rewards, truncation, auto_play, registries,
``state()`` and the replay CLI."""

from __future__ import annotations

import json
import pickle
import struct
import subprocess
import sys
import zlib
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from lunatix_builders import edited, hide_swap
from pettingzoo import AECEnv, ParallelEnv

from lunatix_env import envs
from lunatix_env.rules import Game, State
from lunatix_env.rules.config import load_rules
from tabletop import conformance as kit
from tabletop import registry
from tabletop import replay as replay_cli
from tabletop.errors import IllegalActionError
from tabletop.records import GameRecord, replay

ROOT = Path(__file__).resolve().parents[2]

CASES = {
    "2p": {"num_players": 2},
    "4p": {"num_players": 4},
    "3p-turn-around": {"num_players": 3, "turn_around": True},
    "4p-four-opening": {"num_players": 4, "four_opening_pit": True},
}
CASE_IDS = list(CASES)


# Building an env parses the track YAML (about 0.14 s); the factories below build each
# distinct configuration once and hand out copies of that never-reset env (reset
# re-initializes everything), which keeps this file fast.
_PROTOTYPES: dict[tuple[str, str], bytes] = {}


def fresh(make: object, **kw: object) -> object:
    """A new env as ``make(**kw)`` gives it (a copy of a cached, never-reset one)."""
    key = (make.__name__, json.dumps(kw, sort_keys=True, default=repr))  # type: ignore[attr-defined]
    if key not in _PROTOTYPES:
        _PROTOTYPES[key] = pickle.dumps(make(**kw))  # type: ignore[operator]
    return pickle.loads(_PROTOTYPES[key])


def aec(case: str, **kw: object) -> AECEnv:
    return fresh(envs.env, **CASES[case], **kw)  # type: ignore[return-value]


def par(case: str, **kw: object) -> ParallelEnv:
    return fresh(envs.parallel_env, **CASES[case], **kw)  # type: ignore[return-value]


def rand(mask: np.ndarray, rng: np.random.Generator) -> int:
    return kit.masked_random_action(mask, rng)


def play_aec_to_end(env: AECEnv, rng: np.random.Generator) -> None:
    for _ in kit._aec_play(env, rng, 10**6):
        pass


# ====================================================================== the kit
@pytest.mark.parametrize("case", CASE_IDS)
def test_pettingzoo_suite(case: str) -> None:
    kit.run_pettingzoo_suite(
        partial(aec, case), partial(par, case), num_cycles=40, render=case == "2p"
    )


@pytest.mark.parametrize("case", ["2p", "4p-four-opening"])
def test_gymnasium_check_env_on_the_single_agent_view(case: str) -> None:
    kit.check_single_agent_env(
        env_id=envs.ENV_ID, skip_render_check=False, steps=150, **CASES[case]
    )


def test_gymnasium_check_env_from_a_factory() -> None:
    kit.check_single_agent_env(partial(envs.single_agent_env, **CASES["3p-turn-around"]), steps=100)


@pytest.mark.parametrize(
    ("path", "kwargs", "seed"),
    [
        ("lunatix_env.envs:env", {"num_players": 2, "turn_around": True}, 5),
        ("lunatix_env.envs:parallel_env", {"num_players": 4, "four_opening_pit": True}, 8),
    ],
    ids=["aec-2p-turn-around", "parallel-4p-four-opening"],
)
def test_determinism_across_processes(path: str, kwargs: dict, seed: int) -> None:
    out = kit.check_determinism_across_processes(path, kwargs, seed)
    assert out["record"]["seed"] == seed and out["steps"] > 50


@pytest.mark.parametrize("case", CASE_IDS)
def test_json_round_trip_mid_episode(case: str) -> None:
    kit.check_json_round_trip_mid_episode(
        partial(aec, case), seed=3, checkpoints=(1, 30, 150), continue_events=120
    )


@pytest.mark.parametrize("case", CASE_IDS)
def test_pickle_mid_game(case: str) -> None:
    kit.check_pickle_mid_game(partial(aec, case), seed=4, pickle_after=30, continue_steps=300)


def deal_gadgets(state: State, rng: np.random.Generator) -> State:
    """A copy where every car holds two gadgets (random play rarely buys any)."""

    def deal(d: dict) -> None:
        top = d["gadget_top"]
        for c in d["cars"]:
            while top and len(c["gadgets"]) < 2:
                c["gadgets"].append(top.pop(int(rng.integers(len(top)))))
            c["gadgets"].sort()

    return edited(state, deal)


@pytest.mark.parametrize("case", ["2p", "4p", "3p-turn-around"])
def test_no_hidden_information_leak(case: str) -> None:
    changed = kit.check_no_leak(
        partial(aec, case), hide_swap, seed=1, every=4, max_steps=400, prepare=deal_gadgets
    )
    assert changed > 20


@pytest.mark.parametrize(
    "cls",
    [envs.raw_env, envs.LunatixParallelEnv, envs.LunatixSingleAgentEnv],
    ids=lambda c: c.__name__,
)
def test_docstring_tables_match_the_spaces(cls: type) -> None:
    adapter = envs.make_adapter()
    e = fresh(cls)
    if hasattr(e, "possible_agents"):
        obs_space, act_space = e.observation_space("player_0"), e.action_space("player_0")
    else:
        obs_space, act_space = e.observation_space, e.action_space
    kit.check_docstring_tables(
        cls, adapter.observation_size(), adapter.num_actions, obs_space, act_space
    )


@pytest.mark.parametrize("case", CASE_IDS)
@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_record_replays_to_the_same_state(case: str, api: str) -> None:
    fn = partial(aec, case) if api == "aec" else partial(par, case)
    record = kit.check_record_replay(fn, seed=6)
    assert record.game == envs.ENV_NAME


# ---------------------------------------------------------------------- the kit can fail
def test_kit_catches_a_leak() -> None:
    def leaky(state: State, viewer: int, rng: np.random.Generator) -> State:
        def change(d: dict) -> None:
            other = d["cars"][(viewer + 1) % len(d["cars"])]
            other["speed"] = 0 if other["speed"] else 10  # public: the leak check sees it

        return edited(state, change)

    with pytest.raises(AssertionError, match="leaks into player_"):
        kit.check_no_leak(partial(aec, "2p"), leaky, max_steps=30)


def test_kit_catches_hidden_information_in_turn_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine whose public events name every hand (which no observation shows)."""
    record = State._event

    def leaky(self: State, kind: Any, seat: Any, to: Any = None, **fields: Any) -> None:
        hands = [list(c.gadgets) for c in self.cars]
        record(self, kind, seat, to, **fields, hands=hands)

    monkeypatch.setattr(State, "_event", leaky)
    with pytest.raises(AssertionError, match="leaks into player_.'s turn events"):
        kit.check_no_leak(partial(aec, "4p"), hide_swap, seed=1, every=4, prepare=deal_gadgets)


def test_kit_catches_a_vacuous_perturbation() -> None:
    with pytest.raises(AssertionError, match="vacuous"):
        kit.check_no_leak(partial(aec, "2p"), lambda s, v, r: s.clone(), max_steps=30)


def test_kit_catches_wrong_docstring_tables() -> None:
    class Wrong:
        """**Observation** (per agent): ``Dict``

        | key | space | content |
        |---|---|---|
        | ``observation`` | ``Box(-1, 1, (D,), float32)`` | x |
        | ``action_mask`` | ``Box(0, 1, (A,), int8)`` | y |

        D = 10 and A = 5. **Action**: ``Discrete(A)``

        | index | meaning |
        |---|---|
        | 0 | NOOP |
        | 1..A-2 | the rest |
        """

    good = fresh(envs.raw_env)
    obs_space = gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(-1.0, 1.0, (10,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (5,), np.int8),
        }
    )
    with pytest.raises(AssertionError, match="cover"):
        kit.check_docstring_tables(Wrong, 10, 5, obs_space, gymnasium.spaces.Discrete(5))
    with pytest.raises(AssertionError, match="D = 10"):
        kit.check_docstring_tables(Wrong, 11, 5)
    with pytest.raises(AssertionError, match="'action_mask'"):
        kit.check_docstring_tables(Wrong, 10, 5, good.observation_space("player_0"))


def test_kit_catches_a_replay_on_the_wrong_game() -> None:
    with pytest.raises((AssertionError, ValueError)):
        kit.check_record_replay(
            partial(aec, "2p"), seed=2, game_factory=lambda cfg: Game(num_players=3)
        )


# ====================================================================== env behaviour
def _to_simultaneous(env: AECEnv, rng: np.random.Generator, kind: str, skip: int = 0) -> None:
    """Advance with masked random actions to the (skip+1)-th ``kind`` simultaneous node."""
    sess = env.unwrapped.session
    seen = 0
    for _ in range(5000):
        st = sess.state
        if (
            st.decision is not None
            and st.decision.kind.value == kind
            and len(sess.deciders()) == len(st.current_players()) > 1
        ):
            if seen == skip:
                return
            seen += 1
        obs, *_ = env.last()
        env.step(rand(obs["action_mask"], rng))
    raise AssertionError(f"no {kind} decision reached")


@pytest.mark.parametrize("case", ["2p", "4p"])
@pytest.mark.parametrize(("kind", "skip"), [("chip_mix", 0), ("card", 0), ("card", 3)])
def test_aec_simultaneous_choice_is_not_revealed_to_later_deciders(
    case: str, kind: str, skip: int
) -> None:
    env = aec(case)
    env.reset(seed=11)
    _to_simultaneous(env, np.random.default_rng(1), kind, skip)
    first = env.agent_selection
    choices = np.flatnonzero(env.last()[0]["action_mask"])
    assert len(choices) >= 2
    before = env.unwrapped.session.state.to_dict()
    seen_obs, revealed = [], []
    for choice in choices[:6]:
        twin = pickle.loads(pickle.dumps(env))
        twin.step(int(choice))
        second = twin.agent_selection
        assert second != first
        assert twin.unwrapped.session.state.to_dict() == before, "applied before the last"
        seen_obs.append({a: twin.observe(a) for a in twin.agents})
        # the later deciders act with fixed choices; then the choices are revealed
        while twin.unwrapped.session.buffer:
            mask = twin.last()[0]["action_mask"]
            twin.step(int(np.flatnonzero(mask)[0]))
        revealed.append(twin.unwrapped.session.state.to_dict())
    for obs in seen_obs[1:]:
        for agent, o in obs.items():
            for key in o:
                assert np.array_equal(o[key], seen_obs[0][agent][key]), (
                    f"{agent}'s {key} depends on {first}'s undisclosed {kind} choice"
                )
    assert len({json.dumps(r, sort_keys=True) for r in revealed}) == len(revealed), (
        "the choices made no difference once everyone had acted"
    )


@pytest.mark.parametrize("case", ["2p", "4p", "3p-turn-around"])
def test_parallel_non_deciders_have_noop_only_masks_and_are_ignored(case: str) -> None:
    """Every decider's mask excludes NOOP; every other agent's mask is NOOP alone, and
    whatever it sends (even an illegal action, with on_illegal='raise') changes nothing."""
    e1, e2 = par(case), par(case)
    o1, _ = e1.reset(seed=2)
    o2, _ = e2.reset(seed=2)
    rng, junk = np.random.default_rng(3), np.random.default_rng(4)
    noop_only = np.zeros(e1.adapter.num_actions, np.int8)
    noop_only[0] = 1
    saw_idle = 0
    while e1.agents:
        deciders = {f"player_{p}" for p in e1.session.deciders()}
        assert deciders
        a1, a2 = {}, {}
        for agent in e1.agents:
            mask = o1[agent]["action_mask"]
            assert np.array_equal(mask, o2[agent]["action_mask"])
            if agent in deciders:
                assert mask[0] == 0 and mask.sum() >= 1, f"{agent}: NOOP legal for a decider"
                a1[agent] = a2[agent] = rand(mask, rng)
            else:
                assert np.array_equal(mask, noop_only), f"{agent} idle but not NOOP-only"
                a1[agent] = int(junk.integers(1, e1.adapter.num_actions))
                a2[agent] = 0
                saw_idle += 1
        o1, r1, t1, u1, _ = e1.step(a1)
        o2, r2, t2, u2, _ = e2.step(a2)
        assert (r1, t1, u1) == (r2, t2, u2)
        for agent in o1:
            assert np.array_equal(o1[agent]["observation"], o2[agent]["observation"])
    assert saw_idle > 50
    assert e1.record.to_dict() == e2.record.to_dict()


@pytest.mark.parametrize("auto_play", [False, True])
def test_noop_is_never_legal_for_a_decider_in_aec(auto_play: bool) -> None:
    for case, seed in (("2p", 0), ("4p", 1), ("3p-turn-around", 2)):
        env = aec(case, auto_play=auto_play)
        env.reset(seed=seed)
        sess = env.unwrapped.session
        for agent, obs, _, term, trunc, _ in kit._aec_play(env, np.random.default_rng(seed), 300):
            if term or trunc:
                continue
            seat = int(agent.split("_")[1])
            assert seat in sess.deciders()
            assert obs["action_mask"][0] == 0
            for other in range(sess.n):
                if other not in sess.deciders():
                    m = env.observe(f"player_{other}")["action_mask"]
                    assert m[0] == 1 and m.sum() == 1


def _snapshot(env: AECEnv) -> dict:
    u = env.unwrapped
    s = u.session
    return {
        "state": s.state.to_dict(),
        "buffer": dict(s.buffer),
        "events": len(s.record.events),
        "rng": json.dumps(s.rng.bit_generator.state, sort_keys=True),
        "selection": u.agent_selection,
        "agents": list(u.agents),
        "rewards": dict(u.rewards),
        "cumulative": dict(u._cumulative_rewards),
        "terminations": dict(u.terminations),
        "truncations": dict(u.truncations),
        "obs": {a: u.observe(a)["observation"].tobytes() for a in u.agents},
    }


@pytest.mark.parametrize("wrapped", [False, True])
def test_on_illegal_raise_leaves_the_aec_env_unchanged(wrapped: bool) -> None:
    make = envs.env if wrapped else envs.raw_env
    env = fresh(make, num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(120):
        obs, *_ = env.last()
        mask = obs["action_mask"]
        illegal = [0, *np.flatnonzero(mask == 0)[:3].tolist()]
        before = _snapshot(env)
        for a in illegal:
            with pytest.raises(IllegalActionError, match="not legal"):
                env.step(a)
            assert _snapshot(env) == before
            checked += 1
        env.step(rand(mask, rng))
    assert checked >= 400


def test_on_illegal_raise_keeps_the_cumulative_reward_of_the_offender() -> None:
    env = fresh(envs.raw_env, num_players=2, shaping={"progress": 1.0})
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(400):
        agent = env.agent_selection
        if env._cumulative_rewards[agent] != 0.0:
            break
        env.step(rand(env.last()[0]["action_mask"], rng))
    assert env._cumulative_rewards[agent] != 0.0
    before = _snapshot(env)
    with pytest.raises(IllegalActionError):
        env.step(0)
    assert _snapshot(env) == before


def test_on_illegal_raise_leaves_the_parallel_env_unchanged() -> None:
    """An illegal action of a later decider must not leave earlier deciders' choices
    buffered (the chip mix at the start is a simultaneous decision of every seat)."""
    env = fresh(envs.parallel_env, num_players=3)
    obs, _ = env.reset(seed=0)
    sess = env.session
    assert len(sess.deciders()) == 3
    legal = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    before = (sess.state.to_dict(), dict(sess.buffer), len(sess.record.events))
    with pytest.raises(IllegalActionError, match="player_2"):
        env.step({**legal, "player_2": 0})
    assert (sess.state.to_dict(), dict(sess.buffer), len(sess.record.events)) == before
    assert sess.deciders() == (0, 1, 2)


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("mid_simultaneous", [False, True])
def test_on_illegal_penalty_ends_the_game_for_everyone(n: int, mid_simultaneous: bool) -> None:
    env = fresh(envs.env, num_players=n, on_illegal="penalty")
    env.reset(seed=1)
    if mid_simultaneous:  # the first decider of the chip mix has chosen
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    offender = env.agent_selection
    state_before = env.unwrapped.session.state.to_dict()
    env.step(0)
    assert env.unwrapped.session.state.to_dict() == state_before, "no choice was applied"
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert term and not trunc
        finals[agent] = reward
        env.step(None)
    assert finals == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []


def test_on_illegal_penalty_in_the_parallel_env() -> None:
    env = fresh(envs.parallel_env, num_players=3, on_illegal="penalty")
    obs, _ = env.reset(seed=0)
    acts = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    acts["player_1"] = 0
    _, rewards, terms, truncs, _ = env.step(acts)
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(terms.values()) and not any(truncs.values())
    assert env.agents == []


@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_on_illegal_random_legal_plays_a_legal_action(api: str) -> None:
    if api == "aec":
        env = fresh(envs.env, num_players=2, on_illegal="random_legal")
        env.reset(seed=3)
        sess = env.unwrapped.session
        for _ in range(200):
            if sess.done:
                break
            seat = int(env.agent_selection.split("_")[1])
            legal = sess.legal(seat)
            n_events = len(sess.record.events)
            pending = dict(sess.buffer)
            env.step(0)
            applied = (
                sess.record.events[n_events]["actions"]
                if len(sess.record.events) > n_events
                else None
            )
            to_int = env.unwrapped.game.action_to_int  # the buffer holds game actions
            if applied is not None:
                assert applied[str(seat)] in legal
                for s, a in pending.items():
                    assert applied[str(s)] == to_int(a)
            else:
                assert to_int(sess.buffer[seat]) in legal
    else:
        env = fresh(envs.parallel_env, num_players=2, on_illegal="random_legal")
        env.reset(seed=3)
        sess = env.session
        for _ in range(200):
            if not env.agents:
                break
            legal = {p: sess.legal(p) for p in sess.deciders()}
            n_events = len(sess.record.events)
            env.step({a: 0 for a in env.agents})
            applied = sess.record.events[n_events]["actions"]
            assert {int(s) for s in applied} == set(legal)
            for s, a in applied.items():
                assert a in legal[int(s)]
    # the whole game (random replacements included) is in the record
    final = env.unwrapped.session.state.to_dict()
    game, _ = envs.replay_game(env.unwrapped.record.config)
    assert replay(game, env.unwrapped.record).to_dict() == final


def test_dead_agents_step_with_none_after_termination() -> None:
    env = fresh(envs.env, num_players=3)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    sess = env.unwrapped.session
    while not sess.done:
        env.step(rand(env.last()[0]["action_mask"], rng))
    assert set(env.agents) == set(env.possible_agents)
    assert all(env.terminations[a] or env.truncations[a] for a in env.agents)
    first = env.agent_selection
    with pytest.raises((ValueError, AssertionError)):
        env.step(1)
    assert env.agent_selection == first and len(env.agents) == 3
    removed = []
    while env.agents:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        assert term or trunc
        assert obs["action_mask"][0] == 1 and obs["action_mask"].sum() == 1
        env.step(None)
        assert agent not in env.agents
        removed.append(agent)
    assert sorted(removed) == env.possible_agents
    assert list(env.agent_iter()) == []


def _play_until_win(n: int, **kw: object) -> tuple[AECEnv, list[dict], dict]:
    """Masked random one-lap games until one is won (most are); per-step rewards and the
    terminal rewards."""
    one_lap = replace(load_rules(None), laps=1)
    for seed in range(20):
        env = fresh(envs.raw_env, config=one_lap, num_players=n, **kw)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed + 1000)  # not the env's own chance stream
        steps = []
        while not env.session.done:
            env.step(rand(env.last()[0]["action_mask"], rng))
            if not env.session.done:
                steps.append(dict(env.rewards))
        if env.session.state.outcome().reason.value == "win":
            return env, steps, dict(env.rewards)
    raise AssertionError("no random game was won")


@pytest.mark.parametrize("n", [2, 3])
def test_rewards_are_zero_sum_and_terminal_by_default(n: int) -> None:
    env, steps, final = _play_until_win(n)
    assert all(v == 0.0 for r in steps for v in r.values()), "a non-terminal reward"
    winner = f"player_{env.session.state.outcome().winner}"
    assert final == {a: (1.0 if a == winner else -1.0 / (n - 1)) for a in env.possible_agents}
    assert sum(final.values()) == pytest.approx(0.0)
    # every agent sees its final reward through last() before its dead step
    for agent in env.agent_iter():
        assert env.last()[1] == final[agent]
        env.step(None)


def test_shaping_gives_non_zero_per_step_rewards() -> None:
    env = fresh(envs.raw_env, num_players=2, shaping={"progress": 1.0})
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    nonzero = 0
    while not env.session.done:
        env.step(rand(env.last()[0]["action_mask"], rng))
        if not env.session.done:
            nonzero += any(v != 0.0 for v in env.rewards.values())
            for a, v in env.rewards.items():
                total[a] += v
    assert nonzero > 10
    # progress shaping pays laps gained: a random car drives forwards on the whole
    assert all(v > 0 for v in total.values())


@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_max_rounds_truncates(api: str) -> None:
    rng = np.random.default_rng(0)
    if api == "aec":
        env = fresh(envs.env, num_players=2, max_rounds=3)
        env.reset(seed=0)
        flags = {}
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                flags[agent] = (term, trunc)
                env.step(None)
            else:
                env.step(rand(obs["action_mask"], rng))
        assert flags == {a: (False, True) for a in env.possible_agents}
        assert env.unwrapped.session.state.round == 3
    else:
        env = fresh(envs.parallel_env, num_players=2, max_rounds=3)
        obs, _ = env.reset(seed=0)
        while env.agents:
            obs, _, terms, truncs, _ = env.step(
                {a: rand(obs[a]["action_mask"], rng) for a in env.agents}
            )
        assert truncs == {a: True for a in env.possible_agents}
        assert terms == {a: False for a in env.possible_agents}
        assert env.session.state.round == 3


@pytest.mark.parametrize("case", ["2p", "4p", "3p-turn-around"])
def test_auto_play_never_asks_a_decision_with_one_legal_action(case: str) -> None:
    forced_without = 0
    for auto_play in (False, True):
        env = aec(case, auto_play=auto_play)
        env.reset(seed=7)
        asked = 0
        for _, obs, _, term, trunc, _ in kit._aec_play(env, np.random.default_rng(7), 400):
            if term or trunc:
                continue
            asked += 1
            if auto_play:
                assert obs["action_mask"].sum() >= 2
            else:
                forced_without += obs["action_mask"].sum() == 1
        if auto_play:
            events = env.unwrapped.record.events
            decisions = sum(len(e["actions"]) for e in events if "actions" in e)
            assert decisions > asked, "nothing was auto-played"
    assert forced_without > 0, "the game never had a forced decision; the test is vacuous"
    penv = par(case, auto_play=True)
    obs, _ = penv.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(200):
        if not penv.agents:
            break
        for p in penv.session.deciders():
            assert obs[f"player_{p}"]["action_mask"].sum() >= 2
        obs, *_ = penv.step({a: rand(obs[a]["action_mask"], rng) for a in penv.agents})


def test_registries_make_the_envs() -> None:
    a = pettingzoo.make("aec", envs.ENV_ID, num_players=2)
    p = pettingzoo.make("parallel", envs.ENV_ID, num_players=3)
    assert isinstance(a.unwrapped, AECEnv) and isinstance(p, ParallelEnv)
    a.reset(seed=0)
    assert a.possible_agents == ["player_0", "player_1"]
    assert a.unwrapped.metadata["name"] == envs.ENV_NAME
    obs, _ = p.reset(seed=0)
    assert sorted(obs) == ["player_0", "player_1", "player_2"]
    g = gymnasium.make(envs.ENV_ID, num_players=2)
    o, info = g.reset(seed=0)
    assert g.observation_space.contains(o) and info["action_mask"].any()


def test_gymnasium_make_imports_the_module_on_demand() -> None:
    code = (
        "import sys, gymnasium, numpy as np\n"
        "assert 'lunatix_env.envs' not in sys.modules\n"
        "e = gymnasium.make('lunatix_env.envs:LunatixLoop-v0', num_players=2)\n"
        "o, info = e.reset(seed=0)\n"
        "m = e.unwrapped.action_masks()\n"
        "o, r, te, tr, info = e.step(int(np.flatnonzero(m)[0]))\n"
        "print(o.shape[0], e.action_space.n, int(m.sum()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    size, n, legal = map(int, out.stdout.split()[-3:])
    adapter = envs.make_adapter(num_players=2)
    assert (size, n) == (adapter.observation_size(), adapter.num_actions) and legal >= 1


@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_state_vector_shape_is_stable(api: str) -> None:
    rng = np.random.default_rng(1)
    env = fresh(envs.raw_env if api == "aec" else envs.parallel_env, num_players=4)
    size = env.adapter.state_size()
    vectors = []
    if api == "aec":
        env.reset(seed=1)
        for _ in range(150):
            vectors.append(env.state())
            env.step(rand(env.last()[0]["action_mask"], rng))
    else:
        obs, _ = env.reset(seed=1)
        for _ in range(60):
            vectors.append(env.state())
            obs, *_ = env.step({a: rand(obs[a]["action_mask"], rng) for a in env.agents})
    assert all(v.shape == (size,) and v.dtype == np.float32 for v in vectors)
    assert size > env.adapter.observation_size()
    assert len({v.tobytes() for v in vectors}) > 10


# ====================================================================== replay CLI
def _recorded_game(tmp_path: Path, **kw: object) -> tuple[Path, AECEnv]:
    env = fresh(envs.env, **kw)
    env.reset(seed=9)
    play_aec_to_end(env, np.random.default_rng(9))
    path = tmp_path / "game.json"
    env.unwrapped.record.save(path)
    return path, env


def test_replay_cli_prints_every_round(tmp_path: Path) -> None:
    path, env = _recorded_game(tmp_path, num_players=2, max_rounds=6)
    out = subprocess.run(
        [sys.executable, "-m", "tabletop.replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    titles = [ln for ln in out.stdout.splitlines() if ln.startswith("=== ")]
    assert [t.split()[2] for t in titles[:7]] == ["0", "1", "2", "3", "4", "5", "6"]
    assert titles[-1].endswith("[final]")
    final_text = env.unwrapped.adapter.render_ansi(env.unwrapped.session.state)
    assert final_text in out.stdout
    assert "outcome:" in out.stdout.splitlines()[-1]


def test_replay_cli_every_step_and_frames(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, env = _recorded_game(tmp_path, num_players=2, max_rounds=3)
    n_events = len(env.unwrapped.record.events)
    assert replay_cli.main([str(path), "--every-step"]) == 0
    titles = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("=== event")]
    assert len(titles) == n_events + 1
    assert "chance" in "".join(titles) and "player_1:" in "".join(titles)

    frames = tmp_path / "frames"
    assert replay_cli.main([str(path), "--render", "rgb_array", "--out", str(frames)]) == 0
    pngs = sorted(frames.glob("*.png"))
    assert len(pngs) == 5  # rounds 0..3 and the final state
    h, w, pixels = _read_png(pngs[-1])
    expected = env.unwrapped.adapter.render_rgb(env.unwrapped.session.state)
    assert (h, w) == expected.shape[:2] and np.array_equal(pixels, expected)


def test_replay_cli_rejects_an_unknown_game(tmp_path: Path) -> None:
    rec = GameRecord(game="no_such_game_v0", config={}, seed=0)
    rec.save(tmp_path / "r.json")
    assert replay_cli.main([str(tmp_path / "r.json")]) == 1
    assert "no_such_game_v0" not in [e.env_name for e in registry.GAMES.values()]


def test_replay_cli_reports_any_bad_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Malformed or hostile records: one line on stderr naming the file, exit status 1, no
    traceback, and no file opened because the record named it."""
    path, env = _recorded_game(tmp_path, num_players=2, max_rounds=3)
    good = json.loads(path.read_text())
    secret = tmp_path / "secret.yaml"
    secret.write_text("PASSWORD-LINE: 1\n")
    cases = {
        "list.json": "[]",
        "not_json.json": "{oops",
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "config_list.json": json.dumps({**good, "config": []}),
        "path_in_config.json": json.dumps(
            {**good, "config": {**good["config"], "decks": str(secret)}}
        ),
        "truncated.json": json.dumps({**good, "events": good["events"][:-3]}),
        "bad_action.json": json.dumps({**good, "events": [{"actions": {"0": "x"}}]}),
    }
    for name, text in cases.items():
        bad = tmp_path / name
        bad.write_text(text)
        assert replay_cli.main([str(bad)]) == 1, name
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"error: {bad}: "), (name, err)
        assert "PASSWORD" not in err and "Traceback" not in err
    assert replay_cli.main([str(tmp_path / "missing.json")]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_replay_game_factory_rebuilds_the_env_game() -> None:
    env = fresh(envs.raw_env, num_players=3, turn_around=True)
    env.reset(seed=1)
    game, adapter = envs.replay_game(env.record.config)
    assert game.config_dict() == env.game.config_dict()
    assert adapter.observation_size() == env.adapter.observation_size()


def _read_png(path: Path) -> tuple[int, int, np.ndarray]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0] == (
            zlib.crc32(tag + body) & 0xFFFFFFFF
        )
        if tag == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    assert not raw[:, 0].any()  # filter type 0 on every row
    return h, w, raw[:, 1:].reshape(h, w, 3)


# ====================================================================== the AEC wrapper
def _wrapped_pair(**kw: object) -> tuple[AECEnv, AECEnv]:
    """``envs.env()`` (FastOrderEnforcingWrapper) and the same raw env under PettingZoo's
    own OrderEnforcingWrapper."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    fast = fresh(envs.env, **kw)
    plain = OrderEnforcingWrapper(fresh(envs.raw_env, **kw))  # type: ignore[arg-type]
    return fast, plain  # type: ignore[return-value]


def test_fast_order_enforcing_wrapper_guards_like_pettingzoos() -> None:
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    fast, plain = _wrapped_pair(num_players=3)
    assert isinstance(fast, OrderEnforcingWrapper) and str(fast) == str(plain)
    for name in (
        "agent_selection",
        "agents",
        "rewards",
        "terminations",
        "truncations",
        "infos",
        "num_agents",
    ):
        errors = []
        for e in (fast, plain):
            with pytest.raises(AttributeError) as info:
                getattr(e, name)
            errors.append(str(info.value))
            assert not hasattr(e, name)
        assert errors[0] == errors[1], name
    for call in (
        lambda e: e.last(),
        lambda e: e.step(1),
        lambda e: e.observe("player_0"),
        lambda e: e.agent_iter(),
    ):
        kinds = []
        for e in (fast, plain):
            with pytest.raises(Exception) as info:  # noqa: PT011 - the same type is checked
                call(e)
            kinds.append(type(info.value))
        assert kinds[0] is kinds[1]
    with pytest.raises(AttributeError, match="private"):
        _ = fast._has_updated_nothing  # noqa: SLF001
    for e in (fast, plain):  # agent_iter() wants a step between two agents
        e.reset(seed=0)
        it = iter(e.agent_iter(max_iter=5))
        assert next(it) == e.agent_selection
        with pytest.raises(AssertionError, match="need to call step"):
            next(it)


@pytest.mark.parametrize("seed", [0, 1])
def test_fast_order_enforcing_wrapper_plays_like_pettingzoos(seed: int) -> None:
    fast, plain = _wrapped_pair(num_players=3)
    for e in (fast, plain):
        e.reset(seed=seed)
    r1 = np.random.default_rng(seed)
    for a1, a2 in zip(fast.agent_iter(), plain.agent_iter(), strict=True):
        assert a1 == a2 == fast.agent_selection == plain.agent_selection
        o1, rw1, te1, tr1, in1 = fast.last()
        o2, rw2, te2, tr2, in2 = plain.last()
        again = fast.observe(a1)  # a second look at the same node: a new, equal array
        for key in o1:
            assert np.array_equal(o1[key], o2[key]) and np.array_equal(o1[key], again[key])
            assert again[key] is not o1[key]
        assert (rw1, te1, tr1, in1) == (rw2, te2, tr2, in2)
        assert fast.rewards == plain.rewards
        assert fast._cumulative_rewards == plain._cumulative_rewards  # noqa: SLF001
        assert (fast.agents, fast.terminations, fast.truncations) == (
            plain.agents,
            plain.terminations,
            plain.truncations,
        )
        action = None if te1 or tr1 else rand(o1["action_mask"], r1)
        fast.step(action)
        plain.step(action)
    assert fast.agents == plain.agents == []
    from pettingzoo.utils.env_logger import EnvLogger

    for e in (fast, plain):  # a step with no agent left: PettingZoo's logged warning
        EnvLogger.flush()
        e.step(None)
        assert len(EnvLogger.mqueue) == 1
    EnvLogger.flush()
