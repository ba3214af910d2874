"""stable-baselines3 and sb3-contrib on the single-agent views: PPO on Lazer Ryderz's ``box``
action mode, MaskablePPO on both games, and ``SubprocVecEnv`` workers made from the plain
and the module-qualified ids in a script of their own (the recipes of docs/integrations.md,
"Stable-Baselines3")."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from user_script import run_as_user

import lunatix_env  # noqa: F401  registers LunatixLoop-v0
import ryderz_env  # noqa: F401  registers LazerRyderz-v0

TINY = {
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "seed": 0,
    "device": "cpu",
    "policy_kwargs": {"net_arch": [32]},
}


def parameters(model: PPO | MaskablePPO) -> torch.Tensor:
    return torch.cat([p.detach().flatten().clone() for p in model.policy.parameters()])


def test_ppo_on_the_box_action_mode() -> None:
    # Box(-1, 1, (A + 1,)): a score per discrete option (the best legal one is played), then x
    venv = make_vec_env(
        "LazerRyderz-v0", n_envs=2, seed=0, env_kwargs={"num_players": 2, "action_mode": "box"}
    )
    model = PPO("MlpPolicy", venv, **TINY)
    before = parameters(model)
    model.learn(128)
    assert model.num_timesteps == 128
    assert not torch.equal(before, parameters(model))


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("LunatixLoop-v0", {"num_players": 2}),
        ("LazerRyderz-v0", {"num_players": 2, "action_mode": "discrete"}),
    ],
)
def test_maskable_ppo_plays_only_legal_actions(env_id: str, options: dict) -> None:
    venv = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs=options)
    model = MaskablePPO("MlpPolicy", venv, **TINY)
    before = parameters(model)
    model.learn(128)  # on_illegal="raise": one unmasked action would fail here
    assert model.num_timesteps == 128
    assert not torch.equal(before, parameters(model))
    obs = venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    action, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[np.arange(2), action].all()


SCRIPT = """\
{import_line}
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

if __name__ == "__main__":
    venv = make_vec_env({env_id!r}, n_envs=2, seed=0, env_kwargs={options!r},
                        vec_env_cls=SubprocVecEnv,
                        vec_env_kwargs={{"start_method": {method!r}}})
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                        device="cpu")
    model.learn(64)
    print("timesteps", model.num_timesteps)
"""


@pytest.mark.parametrize(
    ("env_id", "options", "method"),
    [
        ("LazerRyderz-v0", {"num_players": 2, "action_mode": "discrete"}, "forkserver"),
        ("ryderz_env:LazerRyderz-v0", {"num_players": 2, "action_mode": "discrete"}, "spawn"),
        ("lunatix_env:LunatixLoop-v0", {"num_players": 2}, "forkserver"),
        ("LunatixLoop-v0", {"num_players": 2}, "spawn"),
    ],
)
def test_subproc_vec_env_workers_find_the_ids(
    tmp_path: Path, env_id: str, options: dict, method: str
) -> None:
    # a plain id needs `import <game>` in the main script (workers re-import it); a
    # module-qualified id imports the game by itself
    package = env_id.split(":")[0] if ":" in env_id else None
    import_line = (
        ""
        if package
        else (
            "import ryderz_env  # registers LazerRyderz-v0"
            if "Ryderz" in env_id
            else "import lunatix_env  # registers LunatixLoop-v0"
        )
    )
    script = tmp_path / "train_subproc.py"
    script.write_text(
        textwrap.dedent(
            SCRIPT.format(import_line=import_line, env_id=env_id, options=options, method=method)
        )
    )
    done = run_as_user(script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["timesteps", "64"]
