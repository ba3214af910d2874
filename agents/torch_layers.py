"""Torch network pieces for the trained policies (needs the ``train`` extra).

``SharedTrunk`` is a stable-baselines3 features extractor: one ``Linear(obs, features_dim)``
+ ReLU that the policy and the value heads share. The Lunatix observation has 2,493 inputs,
so the first layer holds nearly all the weights and compute; sharing it halves that cost
compared with separate first layers for pi and vf. Models trained with it save and load
with ``MaskablePPO.load`` as long as this module is importable (the class is stored by name).

``AdvisedPolicy`` (with ``AdvisedTrunk`` and ``AdvisedMlpExtractor``) is the policy over an
observation that ends with a bot's advice (:mod:`agents.advice`): the advice reaches the
action head directly, beside the hidden layers (which read it too).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn

__all__ = [
    "AdvisedMlpExtractor",
    "AdvisedPolicy",
    "AdvisedTrunk",
    "SharedTrunk",
    "advice_kl",
]


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


class AdvisedTrunk(BaseFeaturesExtractor):
    """:class:`SharedTrunk` over the game's observation, with the advice (the last
    ``advice`` inputs, :mod:`agents.advice`) appended to its features unchanged
    (``features_dim`` 0: the observation itself, no trunk layer)."""

    def __init__(
        self, observation_space: gym.spaces.Box, features_dim: int = 256, advice: int = 0
    ) -> None:
        n_inputs = int(observation_space.shape[0]) - advice
        if advice < 1 or n_inputs < 1:
            raise ValueError(f"advice must be 1..{observation_space.shape[0] - 1}, got {advice}")
        super().__init__(observation_space, (features_dim or n_inputs) + advice)
        self.advice = advice
        self.linear = nn.Linear(n_inputs, features_dim) if features_dim else None

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs, advice = observations[:, : -self.advice], observations[:, -self.advice :]
        body = torch.relu(self.linear(obs)) if self.linear is not None else obs
        return torch.cat([body, advice], dim=1)


class AdvisedMlpExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` whose actor latent ends with the advice (the last ``advice``
    features), so that the action head reads it directly."""

    def __init__(
        self,
        feature_dim: int,
        net_arch: list[int] | dict[str, list[int]],
        activation_fn: type[nn.Module],
        device: torch.device | str,
        advice: int,
    ) -> None:
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.advice = advice
        self.latent_dim_pi += advice

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features), features[:, -self.advice :]], dim=1)


class AdvisedPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy over an advised observation (:mod:`agents.advice`): the features
    are :class:`AdvisedTrunk`'s, the action head reads the advice beside the hidden layers,
    and starts with ``advice_gain`` on the advised action's logit (``advice_gain`` 2: about
    seven times the weight of any other legal action before any training).

    ``advice_pull`` > 0 keeps PPO near the advice: the entropy that :meth:`evaluate_actions`
    returns is net of ``advice_pull`` times the cross-entropy of the policy with the advised
    action (the KL divergence from the advice's one-hot to the policy), so that PPO's loss,
    which adds ``-ent_coef * entropy``, gains ``ent_coef * advice_pull * KL``: the pull is in
    units of the entropy bonus."""

    def __init__(
        self,
        *args: Any,
        advice: int = 0,
        advice_gain: float = 2.0,
        advice_pull: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self.advice = advice
        self.advice_gain = advice_gain
        self.advice_pull = advice_pull
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = AdvisedMlpExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device, self.advice
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        with torch.no_grad():
            w = self.action_net.weight
            w[:, -self.advice :] = self.advice_gain * torch.eye(self.advice, dtype=w.dtype)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(advice=self.advice, advice_gain=self.advice_gain, advice_pull=self.advice_pull)
        return data

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Values, log-probabilities of ``actions`` and the entropy of the masked policy, as
        sb3-contrib's (which it calls when the pull is off); with the pull on, the entropy less
        ``advice_pull`` times :func:`advice_kl`, from the same forward pass (the features
        extractor is shared: ``policy_kwargs`` of :mod:`train.train`)."""
        if not self.advice_pull:
            return super().evaluate_actions(obs, actions, action_masks=action_masks)
        latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
        distribution = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        log_probs = distribution.distribution.logits
        entropy = distribution.entropy() - self.advice_pull * advice_kl(
            log_probs, obs[:, -self.advice :]
        )
        return self.value_net(latent_vf), distribution.log_prob(actions), entropy


#: a masked action's log-probability in sb3-contrib's MaskableCategorical is -1e8
_MASKED = -1e6


def advice_kl(log_probs: torch.Tensor, advice: torch.Tensor) -> torch.Tensor:
    """``KL(one-hot advice || policy) = -log pi(advised action)`` per row, from the policy's
    normalised log-probabilities; 0 where there is no advice (an all-zero block) or the
    advised action is masked."""
    index = advice.argmax(dim=1, keepdim=True)
    log_p = log_probs.gather(1, index).squeeze(1)
    advised = (advice.sum(dim=1) > 0) & (log_p > _MASKED)
    return torch.where(advised, -log_p, torch.zeros_like(log_p))
