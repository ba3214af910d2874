"""Opponent policies for the single-agent views: random, and frozen trained models.

A policy is ``(observation, action_mask, seat, rng) -> env action`` (see
``tabletop.env_single.Policy``): an int for a ``Discrete`` action space, else an action of
the env's action mode (a Lazer Ryderz ``box`` vector or ``hybrid`` dict).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.env_single import Policy, random_policy

__all__ = ["frozen_policy", "random_policy"]


def frozen_policy(model: Any, deterministic: bool = True, masked: bool = True) -> Policy:
    """Wrap a trained model as an opponent policy: sb3-contrib's ``MaskablePPO`` (or any
    object with ``predict(obs, action_masks=mask, deterministic=...)``), or with
    ``masked=False`` any stable-baselines3 model (``predict(obs, deterministic=...)``, say a
    PPO or SAC policy over the ``box`` mode, whose every action is legal)."""

    def act(obs: Any, mask: np.ndarray, seat: int, rng: np.random.Generator) -> Any:
        if masked:
            action, _ = model.predict(
                obs, action_masks=mask.astype(bool), deterministic=deterministic
            )
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return int(action) if np.ndim(action) == 0 else action

    return act
