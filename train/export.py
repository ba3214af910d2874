"""Export a trained MaskablePPO policy to ``policy.onnx`` (docs/policies.md) and check it.

``export_onnx(model, path)`` writes the actor's unmasked ``logits`` and the critic's
``value`` for an input ``obs`` of any batch size; ``parity(model, path, observations)``
compares onnxruntime's outputs with torch's on the same observations (the training writes
the policy only after this check, on 1,000 observations of its own games: the same argmax
and logits within ``1e-5``).

Usage: ``python -m train.export runs/<name>`` exports a run's ``model.zip`` again (for
models trained before policy.onnx existed) and updates its ``policy.json``.
"""

from __future__ import annotations

import argparse
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.advice import advise
from agents.onnx_policy import INPUT, OnnxPolicy

#: the ONNX opset written (onnxruntime 1.18 and newer run it)
OPSET = 17
#: the largest logit difference the parity check accepts, per unit of the largest logit
#: magnitude (at least 1): float32 carries ~7 digits, so logits near 100 (a policy cloned
#: from a teacher grows them) differ by ~1e-5 between two correct float32 computations
LOGIT_TOLERANCE = 1e-5


class _ActorCritic(nn.Module):
    """The parts of an SB3 actor-critic policy that map an observation to logits and value
    (SB3's preprocessing of a ``Box`` observation is a float cast, done by the caller)."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.policy = policy

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        p = self.policy
        pi = p.mlp_extractor.forward_actor(p.pi_features_extractor(obs))
        vf = p.mlp_extractor.forward_critic(p.vf_features_extractor(obs))
        return p.action_net(pi), p.value_net(vf)


def obs_size(model: Any) -> int:
    """The flat observation length the model takes (a 1-D ``Box`` space)."""
    shape = model.observation_space.shape
    if shape is None or len(shape) != 1:
        raise ValueError(f"policy.onnx takes a flat observation; this model's is {shape}")
    return int(shape[0])


def export_onnx(model: Any, path: str | Path) -> Path:
    """Write ``model``'s policy as ``policy.onnx`` at ``path``: input ``obs`` [batch, n],
    outputs ``logits`` [batch, actions] (unmasked) and ``value`` [batch, 1]."""
    path = Path(path)
    net = _ActorCritic(model.policy).eval()
    dummy = torch.zeros(1, obs_size(model), dtype=torch.float32)
    with warnings.catch_warnings():
        # torch 2.13's default exporter needs onnxscript; the TorchScript one (deprecated,
        # still supported in the pinned torch) exports these MLPs exactly
        warnings.simplefilter("ignore", DeprecationWarning)
        with torch.no_grad():
            torch.onnx.export(
                net,
                (dummy,),
                str(path),
                input_names=[INPUT],
                output_names=["logits", "value"],
                opset_version=OPSET,
                dynamic_axes={INPUT: {0: "batch"}, "logits": {0: "batch"}, "value": {0: "batch"}},
                dynamo=False,
            )
    return path


@dataclass(frozen=True)
class Parity:
    """How an exported policy compares with torch on the same observations."""

    observations: int
    argmax_equal: int
    max_logit_diff: float
    max_value_diff: float
    #: the largest logit magnitude of torch's outputs
    logit_scale: float = 1.0

    @property
    def ok(self) -> bool:
        """The same argmax everywhere and logits within ``LOGIT_TOLERANCE`` times
        ``max(1, logit_scale)``."""
        return (
            self.argmax_equal == self.observations
            and self.max_logit_diff <= LOGIT_TOLERANCE * max(1.0, self.logit_scale)
        )


def torch_outputs(model: Any, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(logits, value) of the torch policy for a batch of observations."""
    net = _ActorCritic(model.policy).eval()
    with torch.no_grad():
        logits, value = net(torch.as_tensor(observations, dtype=torch.float32))
    return logits.numpy(), value.numpy()


def parity(model: Any, path: str | Path, observations: np.ndarray) -> Parity:
    """Compare ``policy.onnx`` at ``path`` with the torch policy on ``observations``."""
    obs = np.asarray(observations, dtype=np.float32)
    want_l, want_v = torch_outputs(model, obs)
    got_l, got_v = OnnxPolicy(path).run(obs, ("logits", "value"))
    return Parity(
        observations=len(obs),
        argmax_equal=int((want_l.argmax(1) == got_l.argmax(1)).sum()),
        max_logit_diff=float(np.abs(want_l - got_l).max()),
        max_value_diff=float(np.abs(want_v - got_v).max()),
        logit_scale=float(np.abs(want_l).max()),
    )


def sample_observations(env: Any, n: int, seed: int) -> np.ndarray:
    """``n`` observations of seeded random play in a single-agent ``env`` (the parity
    check's inputs: positions of the game, not random vectors)."""
    rng = np.random.default_rng(seed)
    out = []
    obs, _ = env.reset(seed=seed)
    while len(out) < n:
        out.append(np.asarray(obs, dtype=np.float32))
        legal = np.flatnonzero(env.action_masks())
        obs, _, term, trunc, _ = env.step(int(rng.choice(legal)))
        if term or trunc:
            obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
    return np.stack(out)


def export_checked(
    model: Any, run_dir: str | Path, env: Any, observations: int = 1000, seed: int = 0
) -> Parity:
    """Export ``model`` to ``run_dir/policy.onnx`` and check parity on ``observations``
    positions of seeded random play in the single-agent ``env``; ``ValueError`` (the file
    removed) when it fails."""
    from agents.policy_bot import ONNX_FILE

    path = export_onnx(model, Path(run_dir) / ONNX_FILE)
    check = parity(model, path, sample_observations(env, observations, seed))
    if not check.ok:
        path.unlink()
        raise ValueError(f"{path}: the ONNX policy differs from torch's: {check}")
    return check


def export_run(run_dir: str | Path, observations: int = 1000, seed: int = 0) -> Parity:
    """Export ``run_dir/model.zip`` to ``run_dir/policy.onnx`` (:func:`export_checked`) and
    name the file in its ``policy.json``."""
    from sb3_contrib import MaskablePPO

    from agents.policy_bot import ONNX_FILE, find_policy, write_policy_json
    from tabletop import registry

    run_dir = Path(run_dir)
    meta, _ = find_policy(run_dir)
    if not meta.model:
        raise ValueError(f"{run_dir}: policy.json names no model.zip to export")
    model = MaskablePPO.load(str(run_dir / meta.model), device="cpu")
    entry = registry.get(meta.game)
    env = advise(
        entry.single_agent_env(num_players=meta.num_players, **meta.env_options),
        meta.advice,
        entry.name,
    )
    check = export_checked(model, run_dir, env, observations, seed)
    write_policy_json(run_dir, replace(meta, onnx=ONNX_FILE))
    return check


def main(argv: list[str] | None = None) -> None:
    """``python -m train.export RUN_DIR``."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("run_dir")
    ap.add_argument("--observations", type=int, default=1000)
    args = ap.parse_args(argv)
    print(export_run(args.run_dir, args.observations))


if __name__ == "__main__":
    main()
