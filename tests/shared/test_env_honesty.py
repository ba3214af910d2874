"""The envs tell the truth to generic tools: with ``on_illegal="random_legal"`` every step whose
action was replaced says so in ``infos["substituted"]`` and each env warns once (both games,
AEC, parallel, single-agent); ``metadata["is_parallelizable"]`` is False for the AEC envs."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from tabletop import registry
from tabletop.env_core import SubstitutedActionWarning

#: options giving each game a flat Discrete action space
OPTIONS: dict[str, dict[str, Any]] = {"lunatix": {}, "ryderz": {"action_mode": "discrete"}}


def pick(mask: np.ndarray, illegal: bool, rng: np.random.Generator) -> tuple[int, bool]:
    """A legal index, or (when ``illegal`` and the mask has a zero) an illegal one; with
    whether it is illegal."""
    pool = np.flatnonzero(mask == 0) if illegal else np.flatnonzero(mask)
    if len(pool) == 0:
        pool, illegal = np.flatnonzero(mask), False
    return int(rng.choice(pool)), illegal


def substitution_warnings(caught: list[warnings.WarningMessage]) -> int:
    return sum(issubclass(w.category, SubstitutedActionWarning) for w in caught)


@pytest.mark.parametrize("name", registry.names())
def test_aec_marks_each_substituted_step(name: str) -> None:
    e = registry.get(name)
    env = e.aec_env(num_players=2, on_illegal="random_legal", **OPTIONS[name])
    rng = np.random.default_rng(1)
    marked = sent = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for game in range(2):
            env.reset(seed=game)
            for agent in env.agent_iter(400):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                action, illegal = pick(obs[env.unwrapped._mask_key], rng.random() < 0.3, rng)
                env.step(action)
                assert env.infos[agent].get("substituted", False) is illegal
                marked += illegal
                sent += 1
    assert 0 < marked < sent
    assert substitution_warnings(caught) == 1  # once per env, not per game or per step
    # the warning names the caller's line (here, this file), not the env's
    assert [w.filename for w in caught if issubclass(w.category, SubstitutedActionWarning)] == [
        __file__
    ]


def random_legal_parallel(name: str) -> tuple[Any, str]:
    """The game's 2-player parallel env with ``on_illegal="random_legal"``, and its mask key."""
    env = registry.get(name).parallel_env(num_players=2, on_illegal="random_legal", **OPTIONS[name])
    return env, env._mask_key


@pytest.mark.parametrize("name", registry.names())
def test_parallel_marks_the_substituted_agents(name: str) -> None:
    env, key = random_legal_parallel(name)
    rng = np.random.default_rng(2)
    marked = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obs, _ = env.reset(seed=0)
        while env.agents:
            # an agent that is not deciding sends an ignored action: never a substitution
            deciding = {env.possible_agents[p] for p in env.session.deciders()}
            choice = {
                a: pick(obs[a][key], a in deciding and rng.random() < 0.3, rng) for a in env.agents
            }
            obs, _, _, _, infos = env.step({a: c[0] for a, c in choice.items()})
            for a, (_, illegal) in choice.items():
                assert infos[a].get("substituted", False) is illegal, (a, infos)
                marked += illegal
    assert marked > 0
    assert substitution_warnings(caught) == 1


@pytest.mark.parametrize("name", registry.names())
def test_single_agent_view_marks_the_learners_substituted_steps(name: str) -> None:
    e = registry.get(name)
    rng = np.random.default_rng(3)
    counts = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):  # two envs: one warning each
            env = e.single_agent_env(num_players=2, on_illegal="random_legal", **OPTIONS[name])
            env.reset(seed=0)
            done, marked = False, 0
            while not done:
                action, illegal = pick(env.action_masks().astype(np.int8), rng.random() < 0.5, rng)
                _, _, term, trunc, info = env.step(action)
                assert info.get("substituted", False) is illegal
                marked += illegal
                done = term or trunc
            counts.append(marked)
    assert min(counts) > 0
    assert substitution_warnings(caught) == 2


@pytest.mark.parametrize("name", registry.names())
def test_no_mark_and_no_warning_when_every_action_is_legal(name: str) -> None:
    env, key = random_legal_parallel(name)
    rng = np.random.default_rng(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obs, _ = env.reset(seed=1)
        while env.agents:
            obs, _, _, _, infos = env.step(
                {a: pick(obs[a][key], False, rng)[0] for a in env.agents}
            )
            assert not any("substituted" in i for i in infos.values())
    assert substitution_warnings(caught) == 0


@pytest.mark.parametrize("name", registry.names())
def test_aec_metadata_says_it_cannot_be_converted_and_the_native_parallel_env_can(
    name: str,
) -> None:
    from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

    e = registry.get(name)
    aec = e.aec_env(num_players=2)
    assert aec.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(aec)
    par = e.parallel_env(num_players=2)
    # the native parallel env round-trips through PettingZoo's converters unchanged
    assert aec_to_parallel(parallel_to_aec(par)) is par


@pytest.mark.parametrize("name", registry.names())
@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_seedless_resets_continue_the_stream_of_the_last_seed(name: str, api: str) -> None:
    # Gymnasium's convention, which collectors rely on: reset(seed=s), then reset() ...
    e = registry.get(name)

    def seeds(first: int | None, n: int = 3) -> list[int]:
        env = (e.aec_env if api == "aec" else e.parallel_env)(num_players=2)
        env.reset(seed=first)
        out = [env.unwrapped.record.seed]
        for _ in range(n):
            env.reset()
            out.append(env.unwrapped.record.seed)
        return out

    a, b = seeds(7), seeds(7)
    assert a == b and a[0] == 7 and len(set(a)) == len(a)
    assert seeds(8)[1:] != a[1:]
    assert seeds(None)[0] != seeds(None)[0]  # never seeded: OS entropy
