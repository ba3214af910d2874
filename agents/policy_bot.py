"""A trained policy as a bot, and ``policy.json``, the file that makes a policy self-describing.

Training writes ``runs/<name>/policy.json`` beside ``model.zip``: the game (registry name,
env id and versioned env name), the players, the env options the policy's observations and
actions were built with (observation and action modes among them), the full rules config,
and whether the bot plays the most likely action (``greedy``) or samples. That file is enough
to rebuild the policy's env adapter: :class:`PolicyBot` encodes an engine state with it,
asks the policy, and turns the chosen index back into an engine action through the adapter.
The policy itself is ``policy.onnx`` where the file names one (run by onnxruntime:
:mod:`agents.onnx_policy`, no torch), else the MaskablePPO ``model.zip`` (torch).

``policy:PATH`` (``agents.specs``) takes a run folder or a ``model.zip`` with ``policy.json``
beside it. A state whose game, players or rules differ from ``policy.json`` is refused with
an :class:`~tabletop.errors.InvalidStateError` saying what differs.

``policy.json`` fields (format 3; formats 1, without ``onnx``, and 2, without ``advice``, are
still read):

================  ==========================================================================
field             meaning
================  ==========================================================================
``format``        3
``game``          registry name (``lunatix``, ``ryderz``)
``env_id``        the Gymnasium / PettingZoo id (``LunatixLoop-v0``)
``env_name``      the versioned env name (``lunatix_loop_v0``)
``num_players``   seats of the game the policy was trained for
``env_options``   keyword options of the game's env adapter (no training-only ones)
``rules``         the game's full rules config (``game.config_dict()``)
``mode``          ``greedy`` (most likely legal action) or ``sampled`` (from the masked
                  distribution, with the bot's seeded generator)
``algorithm``     ``MaskablePPO`` (sb3-contrib) or ``RLlib-PPO``
``model``         the torch model file beside it (``model.zip``), or ``""`` if none ships
``onnx``          the ONNX policy beside it (``policy.onnx``, docs/policies.md), or ``""``
``advice``        the advisor's bot spec whose move ends the observation (:mod:`agents.advice`:
                  ``heuristic``), or ``""`` (none)
================  ==========================================================================
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from agents.advice import AdvisedAdapter, check_advice
from agents.onnx_policy import OnnxPolicy
from tabletop import registry
from tabletop.errors import ConfigError, InvalidStateError
from tabletop.protocol import State

POLICY_JSON = "policy.json"
ONNX_FILE = "policy.onnx"
FORMAT = 3
#: formats this code reads (1: before policy.onnx, 2: before advice)
FORMATS = (1, 2, 3)
MODES = ("greedy", "sampled")
ALGORITHMS = ("MaskablePPO", "RLlib-PPO")


@dataclass(frozen=True)
class PolicyMeta:
    """The contents of ``policy.json`` (see the module's table)."""

    game: str
    env_id: str
    env_name: str
    num_players: int
    env_options: dict[str, Any] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    mode: str = "greedy"
    algorithm: str = "MaskablePPO"
    model: str = "model.zip"
    onnx: str = ""
    advice: str = ""
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        """As plain JSON."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any, source: str = POLICY_JSON) -> PolicyMeta:
        """Validate and load ``policy.json`` data (ConfigError naming the problem)."""
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: expected an object, got {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(names))
        missing = sorted({"game", "env_id", "env_name", "num_players"} - set(data))
        if unknown or missing:
            raise ConfigError(
                f"{source}: unknown keys {unknown}, missing keys {missing} "
                f"(keys: {', '.join(names)})"
            )
        meta = cls(**data)
        checks = [
            (meta.format in FORMATS, f"format must be one of {FORMATS}"),
            (
                isinstance(meta.num_players, int)
                and not isinstance(meta.num_players, bool)
                and meta.num_players >= 2,
                "num_players must be an int >= 2",
            ),
            (isinstance(meta.env_options, dict), "env_options must be an object"),
            (isinstance(meta.rules, dict), "rules must be an object"),
            (meta.mode in MODES, f"mode must be one of {MODES}"),
            (meta.algorithm in ALGORITHMS, f"algorithm must be one of {ALGORITHMS}"),
            (
                isinstance(meta.model, str)
                and (
                    meta.model == ""
                    or (Path(meta.model).name == meta.model and meta.model.endswith(".zip"))
                ),
                "model must be a .zip file name beside it, or empty",
            ),
            (
                isinstance(meta.onnx, str)
                and (
                    meta.onnx == ""
                    or (Path(meta.onnx).name == meta.onnx and meta.onnx.endswith(".onnx"))
                ),
                "onnx must be a .onnx file name beside it, or empty",
            ),
            (bool(meta.model or meta.onnx), "model and onnx are both empty"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(f"{source}: {message}")
        entry = registry.get(meta.game)
        check_advice(meta.advice, f"{source}: advice", game=entry.name)
        if meta.advice and meta.format < 3:
            raise ConfigError(f"{source}: advice needs format 3, the file says {meta.format}")
        if (meta.env_id, meta.env_name) != (entry.env_id, entry.env_name):
            raise ConfigError(
                f"{source}: env {meta.env_id} / {meta.env_name} is not "
                f"{entry.name}'s ({entry.env_id} / {entry.env_name})"
            )
        return meta


def write_policy_json(run_dir: Path, meta: PolicyMeta) -> Path:
    """Write ``run_dir/policy.json``; returns its path."""
    path = Path(run_dir) / POLICY_JSON
    path.write_text(json.dumps(meta.to_json(), indent=1, sort_keys=True) + "\n")
    return path


def find_policy(path: str | Path) -> tuple[PolicyMeta, Path]:
    """``(meta, policy file)`` of a run folder (its ``policy.onnx`` where ``policy.json``
    names one, else its ``model.zip``), or of a ``model.zip`` / ``policy.onnx`` with
    ``policy.json`` beside it."""
    p = Path(path)
    folder = p if p.is_dir() else p.parent
    meta_path = folder / POLICY_JSON
    if not meta_path.is_file():
        raise ConfigError(
            f"no {POLICY_JSON} in {folder} (policy:PATH takes a run folder, or "
            "a model.zip or policy.onnx with policy.json beside it)"
        )
    try:
        data = json.loads(meta_path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{meta_path}: {exc}") from None
    meta = PolicyMeta.from_json(data, str(meta_path))
    if p.is_file():
        if p.suffix not in (".zip", ".onnx"):
            raise ConfigError(f"{p}: a policy file is a .zip (MaskablePPO) or .onnx")
        return meta, p
    file = folder / (meta.onnx or meta.model)
    if not file.is_file():
        raise ConfigError(f"policy file {file} not found")
    return meta, file


class PolicyBot:
    """A trained policy playing engine states through its env's adapter: ``policy.onnx``
    under onnxruntime (no torch) or a MaskablePPO ``model.zip``."""

    def __init__(self, meta: PolicyMeta, model: Any, seed: int | None = None) -> None:
        self.meta = meta
        self.name = "policy"
        self.entry = registry.get(meta.game)
        adapter = self.entry.envs().make_adapter(num_players=meta.num_players, **meta.env_options)
        self.adapter = (
            AdvisedAdapter(adapter, meta.advice, self.entry.name, seed) if meta.advice else adapter
        )
        if self.adapter.game.config_dict() != meta.rules:
            raise ConfigError(
                "policy.json: its rules do not rebuild from its env options "
                f"({self.entry.name}, {meta.num_players} players)"
            )
        expected = self.adapter.observation_size()
        takes = _input_size(model)
        if takes is not None and takes != expected:
            raise ConfigError(
                f"the policy takes {takes} inputs, its env gives {expected} "
                f"(advice {meta.advice or 'none'}: policy.json's advice must be the training's)"
            )
        self.model = model
        self.greedy = meta.mode == "greedy"
        self.rng = np.random.default_rng(seed)
        self._logits = model.logits if isinstance(model, OnnxPolicy) else _logits_fn(model)

    @classmethod
    def load(cls, path: str | Path, game: str | None = None, seed: int | None = None) -> PolicyBot:
        """The policy of a run folder, ``policy.onnx`` or ``model.zip`` (``game``: the game
        it must be of)."""
        meta, file = find_policy(path)
        if game is not None and registry.get(game).name != meta.game:
            raise ConfigError(f"the policy at {path} plays {meta.game}, not {game}")
        if file.suffix == ".onnx":
            return cls(meta, OnnxPolicy(file), seed)
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(file), device="cpu")
        return cls(meta, model, seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the sampling generator (greedy play draws nothing) and the advisor."""
        self.rng = np.random.default_rng(seed)
        if isinstance(self.adapter, AdvisedAdapter):
            self.adapter.new_game(seed)

    def check(self, state: State) -> None:
        """InvalidStateError unless ``state`` is of the policy's game, players and rules."""
        game = state.game  # type: ignore[attr-defined]
        if registry.of_state(state).name != self.meta.game:
            raise InvalidStateError(
                f"the policy plays {self.meta.game}, not {registry.of_state(state).name}"
            )
        if game.num_players != self.meta.num_players:
            raise InvalidStateError(
                f"the policy was trained for {self.meta.num_players} "
                f"players, the state has {game.num_players}"
            )
        config = game.config_dict()
        if config != self.meta.rules:
            diff = sorted(
                k
                for k in set(config) | set(self.meta.rules)
                if config.get(k) != self.meta.rules.get(k)
            )
            raise InvalidStateError(f"the state's rules differ from the policy's in {diff}")

    def act(self, state: State, seat: int) -> Any:
        """The policy's engine action for ``seat``."""
        self.check(state)
        legal = self.adapter.legal_ints(state, seat)
        if not legal:
            raise InvalidStateError(f"seat {seat} has nothing to decide now")
        obs = self.adapter.encode(state, seat)
        logits = np.asarray(self._logits(obs), dtype=np.float64)[legal]
        if self.greedy:
            index = legal[int(np.argmax(logits))]
        else:
            p = np.exp(logits - logits.max())
            index = legal[int(self.rng.choice(len(legal), p=p / p.sum()))]
        return self.adapter.to_engine(state, seat, index, legal)


def _input_size(model: Any) -> int | None:
    """The observation length a policy takes (None where the file does not say)."""
    if isinstance(model, OnnxPolicy):
        return model.obs_size
    shape = getattr(model.observation_space, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) == 1 else None


def _logits_fn(model: Any) -> Any:
    """``logits(obs) -> numpy array`` of a MaskablePPO model's action head (unmasked)."""
    import torch

    pol = model.policy
    pol.set_training_mode(False)

    def logits(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
            latent = pol.mlp_extractor.forward_actor(pol.pi_features_extractor(x))
            return pol.action_net(latent)[0].numpy().astype(np.float64)

    return logits
