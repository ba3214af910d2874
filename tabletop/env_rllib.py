"""Any registry game as a native RLlib ``MultiAgentEnv`` (Ray RLlib 2.60, new API stack).

``RLlibMultiAgentEnv(config)`` takes an RLlib ``env_config`` dict: ``game`` (a registry name,
``lunatix`` or ``ryderz``) and the env keyword options of the game's PettingZoo parallel env
(``num_players``, ``action_mode``, ``max_rounds``, ``on_illegal``, ``shaping``, ...). It is
built on ``registry.get(game).parallel_env(**options)`` only, and follows RLlib's
multi-agent conventions for turn-based games:

- each observation dict holds only the agents that must act next (the deciders: the agents
  whose mask does not allow NOOP; several at a simultaneous decision), and ``step`` takes
  actions from exactly those agents (the others are sent NOOP, which the parallel env
  ignores);
- a reward earned by an agent that is not acting is kept and delivered with its next
  observation, or at the end of the episode, when every agent gets its last observation and
  its remaining reward (so the rewards an agent receives sum to what the parallel env gave
  it);
- ``terminateds`` / ``truncateds`` carry ``"__all__"`` (a game cut at its round limit is
  truncated for every agent, any other end terminated).

Observations are ``Dict({"observations": Box, "action_mask": Box(0, 1, (n,), float32)})``:
the keys RLlib's action-masking example module (``ActionMaskingTorchRLModule``) reads; the
mask is the parallel env's mask (under ``action_mask``, or ``legal_mask`` in Lazer Ryderz's
``box`` mode) as float32. Action spaces are the parallel env's (``Discrete(n)``, Lazer
Ryderz's ``hybrid`` ``Dict``, its ``box`` ``Box``); the discrete ones sample, when asked
without a mask, a legal action of their agent now (RLlib's env pre-check and its random
actions call ``get_action_space(agent).sample()``), and pickle to the plain space.

Seeding: ``reset(seed=s)`` plays the game of seed ``s`` (as the parallel env's
``reset(seed=s)``) and starts a seed stream mixed with the RLlib worker index, from which
every later ``reset()`` without a seed draws its game's seed (RLlib seeds only the first
reset of each env).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from tabletop import registry

__all__ = [
    "MASK_KEY",
    "OBS_KEY",
    "RLlibEnvConfig",
    "RLlibEnvError",
    "RLlibMultiAgentEnv",
    "env_creator",
]

#: the observation keys of RLlib's action-masking examples
OBS_KEY = "observations"
MASK_KEY = "action_mask"
#: env_config keys the adapter sets itself
RESERVED_OPTIONS = ("render_mode",)


class RLlibEnvError(ValueError):
    """A bad ``env_config``, or a step the adapter cannot take (the message says what was
    wrong and what is allowed)."""


@dataclass(frozen=True)
class RLlibEnvConfig:
    """The adapter's ``env_config``: the registry game and the parallel env's options."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env_config(cls, config: Mapping[str, Any] | None) -> RLlibEnvConfig:
        """Validate an RLlib ``env_config`` (a dict or ``EnvContext``): ``game`` plus the
        env keyword options."""
        if config is None:
            config = {}
        if not isinstance(config, Mapping):
            raise RLlibEnvError(f"env_config must be a dict, got {type(config).__name__}")
        data = dict(config)
        game = data.pop("game", None)
        if not isinstance(game, str):
            raise RLlibEnvError(
                f"env_config needs 'game' (one of {', '.join(registry.names())}), got {game!r}"
            )
        registry.get(game)  # UnknownGameError naming the known games
        bad = [k for k in data if k in RESERVED_OPTIONS or not isinstance(k, str)]
        if bad:
            raise RLlibEnvError(
                f"env_config keys {bad} are not allowed here (the RLlib env "
                "does not render); every other key is an env option of "
                f"{game}'s parallel env"
            )
        return cls(game=registry.get(game).name, options=data)


def _plain(space: spaces.Space[Any]) -> spaces.Space[Any]:
    """Unpickling target of the legal-sampling spaces: the plain space itself."""
    return space


class _LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws among its agent's legal
    actions now (pickles and deep-copies to a plain ``Discrete``)."""

    def __init__(self, n: int, mask_of: Callable[[], np.ndarray | None]) -> None:
        super().__init__(n)
        self._mask_of = mask_of

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        """A legal action of the agent now (or as gymnasium's, given a mask)."""
        if mask is None and probability is None:
            mask = self._mask_of()
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[Any, ...]:
        return _plain, (spaces.Discrete(int(self.n), start=int(self.start)),)


class _LegalDict(spaces.Dict):
    """A ``Dict`` action (Lazer Ryderz's ``hybrid``) whose ``sample()`` without a mask masks
    its discrete part ``key`` with the agent's legal actions now (pickles to the plain
    space)."""

    def __init__(
        self, plain: spaces.Dict, key: str, mask_of: Callable[[], np.ndarray | None]
    ) -> None:
        # copies: the env's agents share one space object, so each seeds its own
        super().__init__({k: copy.deepcopy(v) for k, v in plain.spaces.items()})
        self._plain_space = plain
        self._key = key
        self._mask_of = mask_of

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        """A random action whose discrete part is legal now (or gymnasium's, given masks)."""
        if isinstance(mask, np.ndarray):
            mask = {k: (mask if k == self._key else None) for k in self.spaces}
        if mask is None and probability is None:
            m = self._mask_of()
            if m is not None:
                mask = {k: (m if k == self._key else None) for k in self.spaces}
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[Any, ...]:
        return _plain, (self._plain_space,)


def _masked_part(space: spaces.Dict, n: int) -> str | None:
    """The key of the ``Dict`` action's discrete part the mask (of length ``n``) is over."""
    keys = [k for k, s in space.spaces.items() if isinstance(s, spaces.Discrete) and s.n == n]
    return keys[0] if len(keys) == 1 else None


def _noop(space: spaces.Space[Any]) -> Any:
    """The action sent for an agent that is not deciding (the parallel env ignores it):
    index 0, or zeros."""
    if isinstance(space, spaces.Discrete):
        return int(space.start)
    if isinstance(space, spaces.Dict):
        return {k: _noop(s) for k, s in space.spaces.items()}
    if isinstance(space, spaces.Box):
        return np.zeros(space.shape, dtype=space.dtype)
    raise RLlibEnvError(
        f"action space {space} is not supported (Discrete, Box, or a Dict of those)"
    )


class RLlibMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]  # Ray: not in .venv (its own)
    """A registry game as an RLlib ``MultiAgentEnv`` over its PettingZoo parallel env (see
    the module docstring): only the deciders observe and act; rewards are held for the
    agents that are not acting and delivered with their next observation."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.config = RLlibEnvConfig.from_env_config(config)
        self.entry = registry.get(self.config.game)
        self.par_env = self.entry.parallel_env(**self.config.options)
        self.render_mode = None
        self.metadata = {**getattr(self.par_env, "metadata", {})}
        self.possible_agents = list(self.par_env.possible_agents)
        self.agents: list[str] = []
        self._agent_ids = set(self.possible_agents)
        first = self.possible_agents[0]
        self._mask_key: str = self.par_env.unwrapped.adapter.mask_key
        pz_space = self.par_env.observation_space(first)
        if isinstance(pz_space, spaces.Dict):  # mask in the observation (the default)
            inner, mask_space = pz_space["observation"], pz_space[self._mask_key]
            self._mask_in_info = False
        else:  # mask_in="info": the bare observation, the mask in the infos
            inner = pz_space
            mask_space = spaces.Box(0, 1, (self.par_env.unwrapped.adapter.num_actions,))
            self._mask_in_info = True
        self.num_actions = int(cast("tuple[int, ...]", mask_space.shape)[0])  # a Box's
        obs_space = spaces.Dict(
            {
                OBS_KEY: inner,
                MASK_KEY: spaces.Box(0.0, 1.0, (self.num_actions,), np.float32),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space(a) for a in self.possible_agents}
        self._noops = {a: _noop(self.par_env.action_space(a)) for a in self.possible_agents}
        #: each agent's mask (int8) in its last parallel-env observation
        self._masks: dict[str, np.ndarray] = {}
        #: the agents asked to act in the last observation dict
        self.acting: list[str] = []
        #: rewards earned and not yet delivered, per agent
        self._pending: dict[str, float] = {}
        #: with ``events=True``: turn events not yet delivered, per agent (each agent gets
        #: those since its last observation, as its rewards)
        self._held_events: dict[str, list[Any]] = {}
        self._worker = int(getattr(config, "worker_index", 0) or 0)
        self._seeds: np.random.Generator | None = None
        self.game_seed: int | None = None

    # ------------------------------------------------------------------ spaces
    def _action_space(self, agent: str) -> spaces.Space[Any]:
        plain: spaces.Space[Any] = self.par_env.action_space(agent)
        ref = weakref.ref(self)

        def mask_of() -> np.ndarray | None:
            env = ref()
            return None if env is None else env._masks.get(agent)

        if isinstance(plain, spaces.Discrete) and plain.n == self.num_actions and plain.start == 0:
            return _LegalDiscrete(int(plain.n), mask_of)
        if isinstance(plain, spaces.Dict):
            key = _masked_part(plain, self.num_actions)
            if key is not None:
                return _LegalDict(plain, key, mask_of)
        return plain  # a Box (Lazer Ryderz's box mode): every vector in it is legal

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a game; returns the observations and infos of the agents to act first."""
        if seed is not None:
            game_seed = int(seed)
            self._seeds = np.random.default_rng([game_seed, self._worker])
        elif self._seeds is not None:
            game_seed = int(self._seeds.integers(2**63))
        else:
            game_seed = None  # never seeded: the parallel env draws fresh entropy
        obs, infos = self.par_env.reset(seed=game_seed, options=options)
        self.game_seed = self.par_env.session.record.seed if game_seed is None else game_seed
        if seed is not None:
            for i, a in enumerate(self.possible_agents):  # the spaces' own draws, seeded
                self.action_spaces[a].seed(
                    int(
                        np.random.SeedSequence(
                            [cast(int, game_seed), self._worker, i]  # seed given: an int
                        ).generate_state(1)[0]
                    )
                )
        self.agents = list(self.par_env.agents)
        self._pending = {a: 0.0 for a in self.agents}
        self._held_events = {a: [] for a in self.agents}
        self._note_masks(obs, infos)
        self.acting = self._deciders()
        self._hold_events(infos, self.acting)
        return (
            {a: self._view(obs[a], infos[a]) for a in self.acting},
            {a: infos[a] for a in self.acting},
        )

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the acting agents' actions; returns obs, rewards, terminateds, truncateds,
        infos of the agents to act next (of every agent when the game is over)."""
        if not self.agents:
            raise RLlibEnvError("step() on a finished game (or before reset()); call reset()")
        acting = self.acting
        unknown = sorted(set(action_dict) - set(acting))
        missing = [a for a in acting if a not in action_dict]
        if unknown or missing:
            raise RLlibEnvError(
                f"actions must come from exactly the agents to act now "
                f"{acting}; got actions of {sorted(action_dict)}"
                + (f" (not to act: {unknown})" if unknown else "")
                + (f" (missing: {missing})" if missing else "")
            )
        actions = {
            a: (action_dict[a] if a in action_dict else self._noops[a]) for a in self.par_env.agents
        }
        obs, rewards, terms, truncs, infos = self.par_env.step(actions)
        pending = self._pending
        for a, r in rewards.items():
            pending[a] += float(r)
        done = not self.par_env.agents
        self._note_masks(obs, infos)
        report = list(self.agents) if done else self._deciders()
        out_obs = {a: self._view(obs[a], infos[a]) for a in report}
        out_rew = {a: pending[a] for a in report}
        for a in report:
            pending[a] = 0.0
        truncated = done and all(truncs.get(a, False) for a in report)
        terminateds: dict[str, bool] = {a: bool(done and not truncated) for a in report}
        truncateds: dict[str, bool] = {a: bool(truncated) for a in report}
        terminateds["__all__"] = bool(done and not truncated)
        truncateds["__all__"] = bool(truncated)
        self._hold_events(infos, report)
        out_infos = {a: infos.get(a, {}) for a in report}
        self.acting = [] if done else report
        if done:
            self.agents = []
        return out_obs, out_rew, terminateds, truncateds, out_infos

    def _hold_events(self, infos: Mapping[str, Any], report: list[str]) -> None:
        """With ``events=True``: keep every agent's new events; give the reported agents
        (in ``infos``, changed in place) all those held since their last observation."""
        held = self._held_events
        for a, info in infos.items():
            if "events" in info:
                held[a].extend(info["events"])
        for a in report:
            if a in infos and "events" in infos[a]:
                infos[a]["events"], held[a] = held[a], []

    def close(self) -> None:
        """Close the parallel env."""
        self.par_env.close()

    # ------------------------------------------------------------------ helpers
    @property
    def session(self) -> Any:
        """The parallel env's game session (``deciders()``, ``state``, the record)."""
        return self.par_env.session

    def pending_rewards(self) -> dict[str, float]:
        """Rewards earned and not yet delivered (a copy)."""
        return dict(self._pending)

    def _note_masks(self, obs: Mapping[str, Any], infos: Mapping[str, Any]) -> None:
        key = self._mask_key
        if self._mask_in_info:
            self._masks = {a: np.asarray(infos[a][key]) for a in obs}
        else:
            self._masks = {a: np.asarray(o[key]) for a, o in obs.items()}

    def _deciders(self) -> list[str]:
        """The agents to act now: those whose mask does not allow NOOP (a decider never
        has NOOP; every other agent has NOOP alone)."""
        acting = [a for a in self.agents if self._masks[a][0] == 0]
        if not acting:
            raise RLlibEnvError(
                f"{self.entry.name}: the game is not over but no agent has "
                "an action other than NOOP (a broken env?)"
            )
        return acting

    def _view(self, obs: Any, info: Mapping[str, Any]) -> dict[str, np.ndarray]:
        if self._mask_in_info:
            inner, mask = obs, info[self._mask_key]
        else:
            inner, mask = obs["observation"], obs[self._mask_key]
        return {OBS_KEY: inner, MASK_KEY: np.asarray(mask, dtype=np.float32)}


def env_creator(config: Mapping[str, Any] | None) -> RLlibMultiAgentEnv:
    """``ray.tune.registry.register_env(name, env_creator)`` form of the adapter."""
    return RLlibMultiAgentEnv(config)
