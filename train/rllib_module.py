"""A masking MLP policy for RLlib's new API stack (``RLModule``, torch), and its ONNX export.

:class:`MaskedMLPModule` reads the observations of :class:`tabletop.env_rllib.RLlibMultiAgentEnv`
(``{"observations": Box, "action_mask": Box}``): an MLP actor gives one logit per action,
and every action the mask forbids gets the logit :data:`MASK_LOGIT` (a large negative,
finite number: softmax, log-probabilities, KL and entropy stay finite, and an illegal action
is never drawn) in the forward pass of exploration, inference and training alike; a
separate MLP critic gives the value (``ValueFunctionAPI``), so PPO trains it as it is.

Action spaces: ``Discrete(n)`` (a categorical), and a ``Dict`` of one ``Discrete(n)`` (the
masked part) and ``Box`` parts (Lazer Ryderz's ``hybrid`` action: a categorical and a
diagonal Gaussian, RLlib's ``TorchMultiDistribution``; the Gaussian's mean and log-std are
outputs of the actor).

:func:`export_onnx` writes the actor and critic as ``policy.onnx`` (docs/policies.md:
input ``obs``, outputs ``logits`` unmasked and ``value``; a hybrid policy adds ``x_mean``,
the Gaussian's mean), :func:`parity` checks it against torch.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.models.catalog import Catalog
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

from agents.onnx_policy import INPUT, OnnxPolicy
from tabletop.env_rllib import MASK_KEY, OBS_KEY
from train.export import LOGIT_TOLERANCE, OPSET, Parity

__all__ = [
    "MASK_LOGIT",
    "MaskedMLPModule",
    "ModuleConfig",
    "export_onnx",
    "module_spec",
    "parity",
    "torch_outputs",
]

#: the logit of an action the mask forbids
MASK_LOGIT = -1e9
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
#: keys RLlib may put into a module's model_config (its DefaultModelConfig's fields)
_RLLIB_MODEL_KEYS = frozenset(f.name for f in fields(DefaultModelConfig))


@dataclass(frozen=True)
class ModuleConfig:
    """The module's ``model_config``: hidden layer sizes (actor and critic alike) and the
    activation (``tanh`` or ``relu``)."""

    hiddens: tuple[int, ...] = (256, 256)
    activation: str = "tanh"

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation {self.activation!r} is not one of {', '.join(ACTIVATIONS)}"
            )
        if not self.hiddens or any(int(h) < 1 for h in self.hiddens):
            raise ValueError(f"hiddens must be positive layer sizes, got {self.hiddens}")

    @classmethod
    def from_model_config(cls, data: Mapping[str, Any] | None) -> ModuleConfig:
        """From an RLModuleSpec's ``model_config`` dict (the keys RLlib adds from its
        ``DefaultModelConfig`` are ignored; any other unknown key is an error)."""
        data = dict(data or {})
        unknown = sorted(set(data) - {"hiddens", "activation"} - _RLLIB_MODEL_KEYS)
        if unknown:
            raise ValueError(f"model_config keys {unknown} unknown; known: hiddens, activation")
        return cls(
            hiddens=tuple(int(h) for h in data.get("hiddens", cls.hiddens)),
            activation=str(data.get("activation", cls.activation)),
        )

    def to_model_config(self) -> dict[str, Any]:
        """As an RLModuleSpec's ``model_config``."""
        return {"hiddens": list(self.hiddens), "activation": self.activation}


def _mlp(
    inputs: int, hiddens: Sequence[int], outputs: int, activation: str, out_gain: float
) -> nn.Sequential:
    """An MLP with orthogonal initialisation (hidden gain sqrt(2), output ``out_gain``)."""
    layers: list[nn.Module] = []
    size = inputs
    for h in hiddens:
        lin = nn.Linear(size, int(h))
        nn.init.orthogonal_(lin.weight, math.sqrt(2.0))
        nn.init.zeros_(lin.bias)
        layers += [lin, ACTIVATIONS[activation]()]
        size = int(h)
    out = nn.Linear(size, outputs)
    nn.init.orthogonal_(out.weight, out_gain)
    nn.init.zeros_(out.bias)
    layers.append(out)
    return nn.Sequential(*layers)


@dataclass(frozen=True)
class _Layout:
    """Where the parts of the actor's output lie: the masked logits ``[lo, lo + n)`` and,
    for a ``Dict`` action, the Gaussian means of its ``Box`` part."""

    size: int
    lo: int
    n: int
    mean: tuple[int, int] | None = None


def _layout(action_space: gym.Space, n: int) -> tuple[_Layout, Any]:
    """The actor's output layout and the action distribution class for ``action_space``."""
    if isinstance(action_space, gym.spaces.Discrete):
        if int(action_space.n) != n:
            raise ValueError(
                f"the action mask has {n} entries, the action space "
                f"{action_space} has {action_space.n} actions"
            )
        return _Layout(size=n, lo=0, n=n), TorchCategorical
    if isinstance(action_space, gym.spaces.Dict):
        offset, lo, mean, discrete = 0, None, None, 0
        for key in sorted(action_space.spaces):  # RLlib's (dm-tree's) order of a Dict
            sub = action_space.spaces[key]
            if isinstance(sub, gym.spaces.Discrete) and int(sub.n) == n:
                lo, discrete = offset, discrete + 1
                offset += n
            elif isinstance(sub, gym.spaces.Box) and len(sub.shape) == 1 and mean is None:
                d = int(sub.shape[0])
                mean = (offset, offset + d)
                offset += 2 * d  # mean, then log-std (TorchDiagGaussian)
            else:
                lo = None
                break
        if lo is not None and discrete == 1:
            dist = Catalog._get_dist_cls_from_action_space(action_space, framework="torch")
            return _Layout(size=offset, lo=lo, n=n, mean=mean), dist
    raise ValueError(
        f"MaskedMLPModule supports Discrete({n}) and Dict(one Discrete({n}) and "
        f"at most one 1-D Box) action spaces, not {action_space}"
    )


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """An MLP actor-critic over ``{"observations", "action_mask"}`` observations whose
    illegal actions get :data:`MASK_LOGIT` in every forward pass (see the module
    docstring); ``model_config``: :class:`ModuleConfig` keys."""

    def setup(self) -> None:
        """Build the actor and critic for the observation and action spaces."""
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(
                f"MaskedMLPModule needs Dict({{'{OBS_KEY}': Box, '{MASK_KEY}': "
                f"Box}}) observations (tabletop.env_rllib), got {space}"
            )
        cfg = ModuleConfig.from_model_config(self.model_config)
        self.obs_size = int(np.prod(space[OBS_KEY].shape))
        n = int(space[MASK_KEY].shape[0])
        self.layout, self.dist_cls = _layout(self.action_space, n)
        self.pi = _mlp(self.obs_size, cfg.hiddens, self.layout.size, cfg.activation, 0.01)
        self.vf = _mlp(self.obs_size, cfg.hiddens, 1, cfg.activation, 1.0)

    # ------------------------------------------------------------------ forward passes
    def _flat_obs(self, batch: Mapping[str, Any]) -> torch.Tensor:
        obs = batch[Columns.OBS][OBS_KEY]
        return obs.reshape(obs.shape[0], -1).float()

    def _masked_inputs(self, batch: Mapping[str, Any]) -> torch.Tensor:
        """The actor's output with the illegal actions' logits set to ``MASK_LOGIT``."""
        out = self.pi(self._flat_obs(batch))
        mask = batch[Columns.OBS][MASK_KEY] > 0.5
        lo, n = self.layout.lo, self.layout.n
        logits = torch.where(
            mask, out[:, lo : lo + n], torch.full_like(out[:, lo : lo + n], MASK_LOGIT)
        )
        if self.layout.size == n:
            return logits
        return torch.cat([out[:, :lo], logits, out[:, lo + n :]], dim=-1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked action-distribution inputs (exploration and inference)."""
        return {Columns.ACTION_DIST_INPUTS: self._masked_inputs(batch)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """Masked action-distribution inputs (the loss's)."""
        return {Columns.ACTION_DIST_INPUTS: self._masked_inputs(batch)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The critic's values, shape ``(B,)``."""
        return self.vf(self._flat_obs(batch)).squeeze(-1)

    def get_inference_action_dist_cls(self) -> Any:
        """Categorical (or the hybrid action's multi-distribution)."""
        return self.dist_cls

    def get_exploration_action_dist_cls(self) -> Any:
        """As for inference."""
        return self.dist_cls

    def get_train_action_dist_cls(self) -> Any:
        """As for inference."""
        return self.dist_cls

    # ------------------------------------------------------------------ export
    def policy_outputs(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``(logits, value)`` (and ``x_mean`` for a ``Dict`` action) of flat observations,
        **unmasked** (what ``policy.onnx`` gives)."""
        out = self.pi(obs)
        lo, n = self.layout.lo, self.layout.n
        value = self.vf(obs)
        if self.layout.mean is None:
            return out[:, lo : lo + n], value
        a, b = self.layout.mean
        return out[:, lo : lo + n], value, out[:, a:b]


def module_spec(
    config: ModuleConfig | None = None, module_class: type | None = None
) -> RLModuleSpec:
    """The ``RLModuleSpec`` of a :class:`MaskedMLPModule` (or a subclass, ``module_class``;
    spaces filled in by RLlib)."""
    return RLModuleSpec(
        module_class=module_class or MaskedMLPModule,
        model_config=(config or ModuleConfig()).to_model_config(),
    )


class _Exported(nn.Module):
    """The module's actor and critic as one graph: ``obs -> logits, value[, x_mean]``."""

    def __init__(self, module: MaskedMLPModule) -> None:
        super().__init__()
        self.module = module

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.module.policy_outputs(obs)


def output_names(module: MaskedMLPModule) -> list[str]:
    """The names of ``policy.onnx``'s outputs for ``module``."""
    return ["logits", "value"] + (["x_mean"] if module.layout.mean is not None else [])


def export_onnx(module: MaskedMLPModule, path: str | Path) -> Path:
    """Write ``module`` as ``policy.onnx`` at ``path`` (docs/policies.md): input ``obs``
    ``[batch, obs_size]``, outputs ``logits`` (unmasked), ``value`` (and ``x_mean``)."""
    path = Path(path)
    net = _Exported(module).eval()
    names = output_names(module)
    dummy = torch.zeros(1, module.obs_size, dtype=torch.float32)
    with warnings.catch_warnings():
        # the TorchScript exporter, as train.export (torch 2.13's default needs onnxscript)
        warnings.simplefilter("ignore", DeprecationWarning)
        with torch.no_grad():
            torch.onnx.export(
                net,
                (dummy,),
                str(path),
                input_names=[INPUT],
                output_names=names,
                opset_version=OPSET,
                dynamic_axes={k: {0: "batch"} for k in [INPUT, *names]},
                dynamo=False,
            )
    return path


def torch_outputs(module: MaskedMLPModule, observations: np.ndarray) -> list[np.ndarray]:
    """``policy_outputs`` of a batch of flat observations, as numpy arrays."""
    with torch.no_grad():
        outs = module.policy_outputs(torch.as_tensor(observations, dtype=torch.float32))
    return [o.numpy() for o in outs]


def parity(module: MaskedMLPModule, path: str | Path, observations: np.ndarray) -> Parity:
    """Compare ``policy.onnx`` at ``path`` with the torch module on ``observations`` (the
    criteria of ``train.export.Parity``; ``x_mean`` counts in the logit difference). An
    arg-max counts as the same where the two picks' torch logits tie within the logit
    tolerance (an untrained policy's logits are near-equal, and float rounding may then
    pick either)."""
    obs = np.asarray(observations, dtype=np.float32)
    want = torch_outputs(module, obs)
    got = OnnxPolicy(path).run(obs, output_names(module))
    logit_diff = float(np.abs(want[0] - got[0]).max())
    if len(want) > 2:
        logit_diff = max(logit_diff, float(np.abs(want[2] - got[2]).max()))
    scale = float(np.abs(want[0]).max())
    rows = np.arange(len(obs))
    picks, onnx_picks = want[0].argmax(1), got[0].argmax(1)
    tied = np.abs(want[0][rows, picks] - want[0][rows, onnx_picks]) <= (
        LOGIT_TOLERANCE * max(1.0, scale)
    )
    return Parity(
        observations=len(obs),
        argmax_equal=int(((picks == onnx_picks) | tied).sum()),
        max_logit_diff=logit_diff,
        max_value_diff=float(np.abs(want[1] - got[1]).max()),
        logit_scale=scale,
    )
