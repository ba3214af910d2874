"""A trained policy run by onnxruntime: no torch, only numpy and the game's encoder.

``policy.onnx`` (docs/policies.md) takes one input ``obs`` (float32, ``[batch, obs_size]``,
the env adapter's encoding of one seat's observation) and gives named outputs: ``logits``
(float32, ``[batch, num_actions]``, *unmasked*: the caller masks the illegal actions) and
``value`` (float32, ``[batch, 1]``, the critic's estimate, where the producer has one);
policies over Lazer Ryderz's hybrid action add ``x_mean`` (the continuous part's mean). The
file carries no masking, no sampling and no game logic: the consumer encodes, masks and
picks, so every producer (MaskablePPO here, RLlib in ``train.rllib_selfplay``) writes the same
thing and every consumer (the policy bot, the league's snapshot opponents, the server) reads
it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.errors import ConfigError

__all__ = ["OnnxPolicy", "masked_pick"]

#: the input's name and the outputs every policy.onnx has
INPUT = "obs"
REQUIRED_OUTPUTS = ("logits",)


class OnnxPolicy:
    """``policy.onnx`` under onnxruntime (one CPU thread: a batch of one is what bots ask).

    ``logits(obs)`` for one observation or a batch; ``pick(obs, mask, greedy, rng)`` the
    masked choice; the object is also an opponent policy of the single-agent views
    (``(obs, mask, seat, rng) -> action index``, greedy unless built with ``greedy=False``).
    """

    def __init__(self, path: str | Path, greedy: bool = True, threads: int = 1) -> None:
        import onnxruntime as ort

        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"policy file {self.path} not found")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(
                str(self.path), opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ConfigError(f"{self.path}: not a loadable ONNX model ({exc})") from None
        inputs = self.session.get_inputs()
        if [i.name for i in inputs] != [INPUT]:
            raise ConfigError(
                f"{self.path}: expected one input {INPUT!r}, got {[i.name for i in inputs]}"
            )
        self.outputs = [o.name for o in self.session.get_outputs()]
        missing = [o for o in REQUIRED_OUTPUTS if o not in self.outputs]
        if missing:
            raise ConfigError(f"{self.path}: outputs {self.outputs} lack {missing}")
        shape = inputs[0].shape
        self.obs_size = shape[1] if len(shape) == 2 and isinstance(shape[1], int) else None
        self.greedy = greedy
        self.needs_observation = True

    def run(self, obs: np.ndarray, outputs: Sequence[str] = ("logits",)) -> list[np.ndarray]:
        """The named outputs for ``obs`` (one observation or a batch)."""
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        if single:
            x = x[None, :]
        if self.obs_size is not None and x.shape[1] != self.obs_size:
            raise ValueError(
                f"observation of {x.shape[1]} floats, the policy takes {self.obs_size}"
            )
        got = self.session.run(list(outputs), {INPUT: x})
        return [g[0] if single else g for g in got]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation (or a batch), float32."""
        return self.run(obs)[0]

    def pick(
        self, obs: np.ndarray, mask: np.ndarray, greedy: bool, rng: np.random.Generator
    ) -> int:
        """The action index: the most likely legal one (``greedy``) or one sampled from the
        masked distribution with ``rng``."""
        return masked_pick(self.logits(obs), mask, greedy, rng)

    def __call__(self, obs: Any, mask: np.ndarray, seat: int, rng: np.random.Generator) -> int:
        """As an opponent policy of the single-agent views."""
        return self.pick(obs, mask, self.greedy, rng)


def masked_pick(
    logits: np.ndarray, mask: np.ndarray, greedy: bool, rng: np.random.Generator
) -> int:
    """The index among ``mask``'s legal ones: argmax of ``logits`` (ties: the lowest
    index, as torch's argmax) or a draw from their softmax with ``rng``."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("no legal action in the mask")
    z = np.asarray(logits, dtype=np.float64)[legal]
    if greedy:
        return int(legal[int(np.argmax(z))])
    p = np.exp(z - z.max())
    return int(legal[int(rng.choice(legal.size, p=p / p.sum()))])
