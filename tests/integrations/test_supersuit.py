"""SuperSuit's parameter sharing (PettingZoo's SB3 recipe) with action masks: the parallel
env with ``mask_in="info"`` (a Box observation, the mask in the infos), SuperSuit's vector
envs, and :class:`tabletop.env_vec.ActionMasksVecEnv` for MaskablePPO (docs/integrations.md,
"SuperSuit")."""

from __future__ import annotations

import numpy as np
import pytest
import supersuit as ss
import torch
from sb3_contrib import MaskablePPO

import lunatix_env
import ryderz_env
from tabletop.env_vec import ActionMasksVecEnv


def parameter_sharing_run(
    env_module, options: dict, copies: int = 2, steps: int = 128
) -> MaskablePPO:
    """The recipe: one MaskablePPO policy for every seat of ``copies`` games."""
    env = env_module.parallel_env(num_players=2, mask_in="info", **options)
    venv = ss.pettingzoo_env_to_vec_env_v1(env)  # one sub-env per seat
    venv = ss.concat_vec_envs_v1(venv, copies, num_cpus=0, base_class="stable_baselines3")
    venv = ActionMasksVecEnv(venv)  # action_masks() from infos["action_mask"]
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(steps)
    return model


@pytest.mark.parametrize(
    ("env_module", "options"),
    [(lunatix_env, {}), (ryderz_env, {"action_mode": "discrete"})],
    ids=["lunatix", "ryderz"],
)
def test_parameter_sharing_trains_with_masks(env_module, options: dict) -> None:
    torch.manual_seed(0)
    # on_illegal="raise" (the default): one unmasked action would fail the run
    model = parameter_sharing_run(env_module, options)
    assert model.num_timesteps >= 128
    venv = model.get_env()
    assert venv.num_envs == 4  # 2 seats x 2 copies
    masks = venv.action_masks()
    assert masks.shape == (4, venv.action_space.n)
    # every game has a seat deciding (NOOP illegal); a waiting one has NOOP alone
    assert (~masks.reshape(2, 2, -1)[:, :, 0]).any(axis=1).all()
    assert ((masks[:, 0] & (masks.sum(axis=1) == 1)) | ~masks[:, 0]).all()


def test_frame_stacking_works_on_the_box_observation() -> None:
    # SuperSuit's observation wrappers refuse Dict observations; the Box one they take
    env = ss.frame_stack_v1(lunatix_env.parallel_env(num_players=2, mask_in="info"), 2)
    obs, infos = env.reset(seed=0)
    size = (
        lunatix_env.parallel_env(num_players=2)
        .observation_space("player_0")["observation"]
        .shape[0]
    )
    assert obs["player_0"].shape == (2 * size,)
    assert np.array_equal(
        infos["player_0"]["action_mask"],
        lunatix_env.parallel_env(num_players=2).reset(seed=0)[0]["player_0"]["action_mask"],
    )
