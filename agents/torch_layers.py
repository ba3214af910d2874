"""Torch network pieces for the trained policies (needs the ``train`` extra).

``SharedTrunk`` is a stable-baselines3 features extractor: one ``Linear(obs, features_dim)``
+ ReLU that the policy and the value heads share. The Lunatix observation has 2,493 inputs,
so the first layer holds nearly all the weights and compute; sharing it halves that cost
compared with separate first layers for pi and vf. Models trained with it save and load
with ``MaskablePPO.load`` as long as this module is importable (the class is stored by name).
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

__all__ = ["SharedTrunk"]


class SharedTrunk(BaseFeaturesExtractor):
    """``Linear(n_inputs, features_dim)`` + ReLU, shared by the policy and value networks.

    Use with ``policy_kwargs={"features_extractor_class": SharedTrunk,
    "features_extractor_kwargs": {"features_dim": 256}, "share_features_extractor": True}``
    (sharing is stable-baselines3's default for on-policy algorithms).
    """

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        n_inputs = int(observation_space.shape[0])
        self.linear = nn.Linear(n_inputs, features_dim)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(observations))
