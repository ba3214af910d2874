"""Opponent policies for the single-agent views: random, and frozen trained models.

A policy is ``(observation, action_mask, seat, rng) -> action int`` (see
``tabletop.env_single.Policy``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop.env_single import Policy, random_policy

__all__ = ["frozen_policy", "random_policy"]


def frozen_policy(model: Any, deterministic: bool = True) -> Policy:
    """Wrap a trained sb3-contrib ``MaskablePPO`` (or any object with a compatible
    ``predict(obs, action_masks=mask, deterministic=...)``) as an opponent policy."""

    def act(obs: np.ndarray | None, mask: np.ndarray, seat: int,
            rng: np.random.Generator) -> int:
        action, _ = model.predict(obs, action_masks=mask.astype(bool),
                                  deterministic=deterministic)
        return int(action)

    return act
