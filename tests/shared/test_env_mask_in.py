"""``mask_in="info"``: a bare Box observation and the mask in the infos, the same values as
the default Dict observation (both games, AEC and parallel); and
:class:`tabletop.env_vec.ActionMasksVecEnv`, which gives SB3 vector envs ``action_masks()``
from those infos."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test
from stable_baselines3.common.vec_env import DummyVecEnv

from tabletop import registry
from tabletop.env_vec import ActionMasksVecEnv, MissingMaskError
from tabletop.errors import ConfigError

#: each game's options for a Discrete action space (Lazer Ryderz: also the image mode)
CASES: list[tuple[str, dict[str, Any]]] = [
    ("lunatix", {}),
    ("ryderz", {"action_mode": "discrete"}),
    ("ryderz", {"obs_mode": "image"}),
]
IDS = ["lunatix", "ryderz-discrete", "ryderz-image"]


@pytest.mark.parametrize(("name", "opts"), CASES, ids=IDS)
def test_parallel_mask_in_info_matches_the_dict_observation(
    name: str, opts: dict[str, Any]
) -> None:
    e = registry.get(name)
    flat = e.parallel_env(num_players=2, mask_in="info", **opts)
    ref = e.parallel_env(num_players=2, **opts)
    key = ref._mask_key
    assert flat.observation_space("player_0") == ref.observation_space("player_0")["observation"]
    obs, infos = flat.reset(seed=5)
    robs, _ = ref.reset(seed=5)
    rng = np.random.default_rng(0)
    steps = 0
    while ref.agents:
        for a in ref.agents:
            assert flat.observation_space(a).contains(obs[a])
            np.testing.assert_array_equal(obs[a], robs[a]["observation"])
            np.testing.assert_array_equal(infos[a][key], robs[a][key])
        acts = {a: ref.adapter.random_env_action(robs[a][key], rng) for a in ref.agents}
        obs, _, _, _, infos = flat.step(acts)
        robs, *_ = ref.step(acts)
        steps += 1
    assert steps > 5 and flat.agents == []
    assert flat.record.to_dict() == ref.record.to_dict()


@pytest.mark.parametrize(("name", "opts"), CASES, ids=IDS)
def test_aec_mask_in_info_matches_the_dict_observation(name: str, opts: dict[str, Any]) -> None:
    e = registry.get(name)
    flat = e.aec_env(num_players=2, mask_in="info", **opts)
    ref = e.aec_env(num_players=2, **opts)
    key = ref.unwrapped._mask_key
    flat.reset(seed=2)
    ref.reset(seed=2)
    rng = np.random.default_rng(1)
    for agent in ref.agent_iter(3000):
        assert flat.agent_selection == agent
        robs, _, term, trunc, _ = ref.last()
        obs, _, fterm, ftrunc, info = flat.last()
        assert (term, trunc) == (fterm, ftrunc)
        np.testing.assert_array_equal(obs, robs["observation"])
        np.testing.assert_array_equal(info[key], robs[key])
        act = None if term or trunc else ref.unwrapped.adapter.random_env_action(robs[key], rng)
        ref.step(act)
        flat.step(act)
    assert flat.agents == ref.agents == []


@pytest.mark.parametrize(("name", "opts"), CASES[:2], ids=IDS[:2])
def test_pettingzoo_api_tests_pass_with_mask_in_info(name: str, opts: dict[str, Any]) -> None:
    e = registry.get(name)
    # PettingZoo's tests sample unmasked when the mask is not in the observation
    opts = {"num_players": 2, "mask_in": "info", "on_illegal": "random_legal", **opts}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(e.aec_env(**opts), num_cycles=300)
        parallel_api_test(e.parallel_env(**opts), num_cycles=300)


def test_mask_in_refuses_an_unknown_place_and_the_single_agent_view() -> None:
    with pytest.raises(ConfigError, match="mask_in 'obs' is not one of observation, info"):
        registry.get("lunatix").parallel_env(mask_in="obs")
    with pytest.raises(TypeError, match="mask_in is an option of the AEC and parallel envs"):
        registry.get("ryderz").single_agent_env(mask_in="info")


def test_infos_handed_out_do_not_change_afterwards() -> None:
    env = registry.get("lunatix").aec_env(num_players=2, mask_in="info")
    env.reset(seed=0)
    kept = env.last()[4]
    mask = kept["action_mask"].copy()
    agent = env.agent_selection
    env.step(int(np.flatnonzero(mask)[0]))
    while env.agent_selection != agent:
        env.step(int(np.flatnonzero(env.last()[4]["action_mask"])[0]))
    assert np.array_equal(kept["action_mask"], mask)


def test_action_masks_vec_env_reads_the_masks_of_the_infos() -> None:
    e = registry.get("lunatix")
    venv = ActionMasksVecEnv(DummyVecEnv([lambda: e.single_agent_env(num_players=2)] * 3))
    venv.seed(4)
    venv.reset()
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_attribute")
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):  # past several episode ends (auto-resets)
        masks = venv.action_masks()
        inner = np.stack(venv.venv.env_method("action_masks"))
        np.testing.assert_array_equal(masks, inner)
        np.testing.assert_array_equal(
            np.stack(venv.env_method("action_masks", indices=[2, 0])), masks[[2, 0]]
        )
        assert masks.dtype == bool and masks.shape == (3, e.parallel_env().adapter.num_actions)
        _, _, dones, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += int(dones.sum())
    assert episodes >= 2


def test_action_masks_vec_env_names_a_missing_mask() -> None:
    e = registry.get("lunatix")
    env_fn = lambda: e.single_agent_env(num_players=2)  # noqa: E731
    venv = ActionMasksVecEnv(DummyVecEnv([env_fn]), mask_key="legal_mask")
    with pytest.raises(MissingMaskError, match="no 'legal_mask'.*mask_in='info'"):
        venv.reset()
    with pytest.raises(RuntimeError, match="before reset"):
        ActionMasksVecEnv(DummyVecEnv([env_fn])).action_masks()
