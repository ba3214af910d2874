"""Helpers of the advice tests (tests/shared/test_advice*.py): the learner's positions in
random play of an advised view, and the tiny advised self-play config."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

#: a tiny advised self-play run of Lunatix Loop (2 players, a few hundred steps)
TINY_ADVISED = """\
name: tiny_advised
game: lunatix
num_players: 2
total_timesteps: 512
n_envs: 2
advice: heuristic
ppo: {n_steps: 128, batch_size: 128, n_epochs: 1, shared_trunk: 16, net_arch: [16]}
shaping: {progress: 0.5, damage: 0.02}
eval_games: 2
gif_frames: 6
gif_size: 48
warm_start: {games: 2, epochs: 1, opponents: [random]}
league:
  snapshot_every: 2
  latest: 2
  mixture: {latest: 0.5, heuristic: 0.5}
  eval_every: 1
  eval_games: 2
"""


def advised_positions(
    view: Any, count: int, advised_choices_only: bool = False
) -> tuple[torch.Tensor, np.ndarray]:
    """``count`` observations and masks of the learner's decisions in seeded random play
    (``advised_choices_only``: only those with an advised move and more than one legal
    move)."""
    rng = np.random.default_rng(4)
    obs, _ = view.reset(seed=9)
    rows, masks = [], []
    n = int(view.action_space.n)
    while len(rows) < count:
        mask = view.action_masks()
        if not advised_choices_only or (mask.sum() > 1 and obs[-n:].sum() > 0):
            rows.append(obs)
            masks.append(mask)
        obs, _, done, cut, _ = view.step(int(rng.choice(np.flatnonzero(mask))))
        if done or cut:
            obs, _ = view.reset()
    return torch.as_tensor(np.array(rows), dtype=torch.float32), np.array(masks)
