"""Lazer Ryderz's envs under the shared conformance kit (``tabletop.conformance``), in every
action mode and observation mode."""

from __future__ import annotations

import json
import pickle
from functools import partial

import pytest
from pettingzoo import AECEnv, ParallelEnv

from ryderz_env import envs
from tabletop import conformance as kit

MODES = [(a, o) for a in ("hybrid", "box", "discrete") for o in ("vector", "image")]
MODE_IDS = [f"{a}-{o}" for a, o in MODES]

_PROTOTYPES: dict[tuple[str, str], bytes] = {}


def fresh(make: object, **kw: object) -> object:
    """A new env as ``make(**kw)`` gives it (a copy of a cached, never-reset one)."""
    key = (make.__name__, json.dumps(kw, sort_keys=True, default=repr))  # type: ignore[attr-defined]
    if key not in _PROTOTYPES:
        _PROTOTYPES[key] = pickle.dumps(make(**kw))  # type: ignore[operator]
    return pickle.loads(_PROTOTYPES[key])


def aec(action_mode: str, obs_mode: str, **kw: object) -> AECEnv:
    return fresh(envs.env, num_players=2, action_mode=action_mode, obs_mode=obs_mode, **kw)  # type: ignore[return-value]


def par(action_mode: str, obs_mode: str, **kw: object) -> ParallelEnv:
    return fresh(envs.parallel_env, num_players=2, action_mode=action_mode, obs_mode=obs_mode, **kw)  # type: ignore[return-value]


@pytest.mark.parametrize(("action_mode", "obs_mode"), MODES, ids=MODE_IDS)
def test_pettingzoo_suite(action_mode: str, obs_mode: str) -> None:
    kit.run_pettingzoo_suite(
        partial(aec, action_mode, obs_mode),
        partial(par, action_mode, obs_mode),
        num_cycles=30,
        render=(action_mode, obs_mode) == ("hybrid", "vector"),
    )


@pytest.mark.parametrize(("action_mode", "obs_mode"), MODES, ids=MODE_IDS)
def test_gymnasium_check_env(action_mode: str, obs_mode: str) -> None:
    kit.check_single_agent_env(
        env_id=envs.ENV_ID, num_players=2, action_mode=action_mode, obs_mode=obs_mode, steps=150
    )


@pytest.mark.parametrize(("action_mode", "obs_mode"), MODES, ids=MODE_IDS)
def test_json_round_trip_pickle_and_record_replay(action_mode: str, obs_mode: str) -> None:
    make = partial(aec, action_mode, obs_mode)
    kit.check_json_round_trip_mid_episode(make, checkpoints=(1, 40), continue_events=60)
    kit.check_pickle_mid_game(make, pickle_after=20, continue_steps=150)
    kit.check_record_replay(make)
    kit.check_record_replay(partial(par, action_mode, obs_mode))


@pytest.mark.parametrize(("action_mode", "obs_mode"), MODES, ids=MODE_IDS)
@pytest.mark.parametrize(
    "cls",
    [envs.raw_env, envs.RyderzParallelEnv, envs.RyderzSingleAgentEnv],
    ids=lambda c: c.__name__,
)
def test_docstring_tables_match_the_spaces(cls: type, action_mode: str, obs_mode: str) -> None:
    env = cls(action_mode=action_mode, obs_mode=obs_mode)  # the documented 4-player game
    adapter = env.adapter
    sizes = envs.doc_sizes()
    doc = kit.select_sections(
        cls.__doc__ or "", f'obs_mode="{obs_mode}"', f'action_mode="{action_mode}"'
    )
    obs_space = (
        env.observation_space
        if cls is envs.RyderzSingleAgentEnv
        else env.observation_space("player_0")
    )
    act_space = (
        env.action_space if cls is envs.RyderzSingleAgentEnv else env.action_space("player_0")
    )
    kit.check_docstring_tables(
        cls,
        sizes["D"],
        sizes["A"],
        obs_space,
        act_space,
        doc=doc,
        symbols={k: sizes[k] for k in ("K", "C", "S")},
    )
    assert adapter.num_actions == (sizes["K"] if action_mode == "discrete" else sizes["A"])


def test_docstring_table_check_catches_a_wrong_size() -> None:
    env = envs.raw_env(action_mode="box")
    sizes = envs.doc_sizes()
    doc = kit.select_sections(
        envs.raw_env.__doc__ or "", 'obs_mode="vector"', 'action_mode="box"'
    ).replace("(A+1,)", "(A,)")
    with pytest.raises(AssertionError, match="shape"):
        kit.check_docstring_tables(
            envs.raw_env,
            sizes["D"],
            sizes["A"],
            env.observation_space("player_0"),
            env.action_space("player_0"),
            doc=doc,
            symbols={k: sizes[k] for k in ("K", "C", "S")},
        )
