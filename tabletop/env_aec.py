"""A generic PettingZoo AEC env over any :class:`~tabletop.env_core.GameAdapter`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from tabletop.env_core import GameAdapter, GameSession, on_illegal_option
from tabletop.errors import ConfigError, IllegalActionError

if TYPE_CHECKING:
    from tabletop.records import GameRecord


def agent_name(seat: int) -> str:
    """``player_<seat>``."""
    return f"player_{seat}"


def state_space_for(adapter: GameAdapter) -> spaces.Box:
    """The space of ``state()``, the global state vector."""
    return spaces.Box(-1.0, 1.0, (adapter.state_size(),), np.float32)


#: where the AEC and parallel envs put the action mask: in the observation dict (PettingZoo's
#: convention, the default) or in ``infos[agent][mask key]`` beside a bare ``Box`` observation
#: (for wrappers that refuse Dict observations: SuperSuit's vector envs, frame stacking, ...)
MASK_IN = ("observation", "info")


class EnvCommon:
    """What the AEC and parallel envs share: setup, spaces, ``state()`` and rendering."""

    adapter: GameAdapter
    session: GameSession
    render_mode: str | None
    metadata: dict[str, Any]
    _viewer: Any = None

    #: keywords of the env class itself (not of the game's ``make_adapter``)
    view_options: tuple[str, ...] = ("mask_in",)

    def _setup(
        self,
        adapter: GameAdapter,
        render_mode: str | None,
        on_illegal: str,
        auto_play: bool,
        mask_in: str = "observation",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        if mask_in not in MASK_IN:
            raise ConfigError(f"mask_in {mask_in!r} is not one of {', '.join(MASK_IN)}")
        self.adapter = adapter
        self.render_mode = render_mode
        self.session = GameSession(adapter, on_illegal_option(on_illegal), auto_play)
        self.possible_agents = [agent_name(i) for i in range(adapter.num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_dict = adapter.observation_space()
        #: True: observations are the bare ``observation`` entry, masks are in the infos
        self._mask_in_info = mask_in == "info"
        obs_space: spaces.Space[Any] = obs_dict
        if self._mask_in_info:
            obs_space = obs_dict["observation"]
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        act_space = adapter.action_space()
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = state_space_for(adapter)
        self._mask_key = adapter.mask_key
        self._viewer = None
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same space for every agent: ``adapter.observation_space()`` (a Dict), or its
        ``observation`` entry with ``mask_in="info"``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The same space for every agent (``adapter.action_space()``; NOOP at 0)."""
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """The full global state vector (centralized critics)."""
        return self.adapter.state_vector(self.session.state)

    @property
    def record(self) -> GameRecord:
        """The record (config, seed, actions, chance outcomes) of the current episode."""
        return self.session.record

    def render(self) -> Any:
        """ansi: text; rgb_array: an (H, W, 3) picture; human: a window where possible."""
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return self.adapter.render_ansi(self.session.state)
        frame = self.adapter.render_rgb(self.session.state)
        if self.render_mode == "rgb_array":
            return frame
        if self._viewer is None:
            self._viewer = self.adapter.make_viewer()  # type: ignore[attr-defined]
        self._viewer.show(frame)
        return None

    def close(self) -> None:
        """Close the human viewer, if any."""
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None


class TabletopAECEnv(EnvCommon, AECEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """Agent-environment-cycle env: one decider at a time, simultaneous choices hidden.

    ``agent_selection`` follows the engine's deciders; at a simultaneous node they act one
    after another and nothing is applied (or shown) until the last has acted. Chance is
    resolved inside ``step`` with the env's seeded generator and logged in ``record``.
    """

    # False: the deciders do not step in a fixed cycle (one seat may decide several times
    # running, a simultaneous node takes only its deciders), so PettingZoo's
    # ``aec_to_parallel`` cannot convert it; every game has a native ``parallel_env()``
    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        adapter: GameAdapter,
        render_mode: str | None = None,
        on_illegal: str = "raise",
        auto_play: bool = False,
        mask_in: str = "observation",
    ) -> None:
        super().__init__()
        self._setup(adapter, render_mode, on_illegal, auto_play, mask_in)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; the same seed and actions give the same trajectory."""
        self.session.reset(seed)
        self.session.take_rewards()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._rewards_zero = True  # every value in self.rewards is 0.0
        self._put_events()
        self._select()

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """The agent's encoded observation and action mask (new arrays at every call; the
        mask's key is ``adapter.mask_key``); with ``mask_in="info"`` the observation alone,
        the mask being in ``infos[agent]``."""
        seat = self._index[agent]
        session = self.session
        if self._mask_in_info:
            return session.observation(seat)
        return {"observation": session.observation(seat), self._mask_key: session.mask(seat)}

    def step(self, action: Any) -> None:
        """The selected agent acts (None for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # (PettingZoo's _was_dead_step raises a bare ValueError)
                raise IllegalActionError(
                    f"{agent} is done (terminated or truncated): its only valid action is "
                    f"None, got {action!r}"
                )
            self._rewards_zero = False  # _was_dead_step clears the rewards to int 0
            self._was_dead_step(action)
            return
        session = self.session
        session.act(self._index[agent], action)
        info = self.infos[agent]  # a new dict where it changes: one handed out stays as it was
        if session.substituted:
            self.infos[agent] = {**info, "substituted": True}
        elif "substituted" in info:
            self.infos[agent] = {k: v for k, v in info.items() if k != "substituted"}
        self._cumulative_rewards[agent] = 0.0
        rewards = session.take_rewards()
        if rewards is not session.zero_rewards:
            index = self._index
            for a in self.agents:
                self.rewards[a] = float(rewards[index[a]])
            self._rewards_zero = False
        elif not self._rewards_zero:
            for a in self.agents:
                self.rewards[a] = 0.0
            self._rewards_zero = True
        if session.done:
            trunc = session.truncated
            for a in self.agents:
                self.terminations[a] = not trunc
                self.truncations[a] = trunc
        if not self._rewards_zero:  # adding 0.0 everywhere would change nothing
            self._accumulate_rewards()
        self._put_events()
        self._select()
        if self.render_mode == "human":
            self.render()

    def _put_events(self) -> None:
        """With ``events=True``: each agent's ``infos["events"]``, the events it may see
        since it last acted (new dicts: one handed out stays as it was)."""
        session = self.session
        if session.events_on:
            for a in self.agents:
                self.infos[a] = {**self.infos[a], "events": session.events_of(self._index[a])}

    def _select(self) -> None:
        if self._mask_in_info:
            key, session = self._mask_key, self.session
            for a in self.agents:
                self.infos[a] = {**self.infos[a], key: session.mask(self._index[a])}
        deciders = self.session.deciders()
        if not deciders:  # the game is over
            self._deads_step_first()
            return
        self.agent_selection = self.possible_agents[deciders[0]]


def _before_reset(name: str) -> AttributeError:
    return AttributeError(f"{name} cannot be accessed before reset")


class FastOrderEnforcingWrapper(OrderEnforcingWrapper):  # type: ignore[misc]  # PettingZoo is untyped
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks, errors and warnings,
    minus its cost on the hot path.

    The base class reaches ``agent_selection``, ``agents``, ``rewards`` ... through
    ``__getattr__`` (a failed attribute lookup, then two Python calls), and ``last()`` and
    the ``agent_iter()`` loop read seven of them per step that way. Here they are
    properties (raising the same AttributeError before the first reset), and ``last``,
    ``step`` and the iterator reach the wrapped env directly after the same checks.
    Everything else is inherited.
    """

    #: the wrapped env (``wrap_aec`` wraps the games' AEC envs)
    env: TabletopAECEnv

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise _before_reset("agent_selection")
        return self.env.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise _before_reset("agents")
        return self.env.agents

    @property
    def rewards(self) -> dict[str, float]:
        if not self._has_reset:
            raise _before_reset("rewards")
        return self.env.rewards

    @property
    def terminations(self) -> dict[str, bool]:
        if not self._has_reset:
            raise _before_reset("terminations")
        return self.env.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        if not self._has_reset:
            raise _before_reset("truncations")
        return self.env.truncations

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        if not self._has_reset:
            raise _before_reset("infos")
        return self.env.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, cumulative reward, flags and info."""
        if not self._has_reset:
            raise _before_reset("agent_selection")
        last: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return last

    def step(self, action: Any) -> None:
        """As the base class: an error before reset, a warning once no agent is left."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """As the base class (an error before reset), with a cheaper iterator."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _FastIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env) if hasattr(self, "metadata") else repr(self)


class _FastIterable(AECOrderEnforcingIterable):  # type: ignore[misc]  # PettingZoo is untyped
    def __iter__(self) -> _FastIterator:
        return _FastIterator(self.env, self.max_iter)


class _FastIterator(AECOrderEnforcingIterator):  # type: ignore[misc]  # PettingZoo is untyped
    """``AECOrderEnforcingIterator.__next__`` in one call, reading the wrapped env."""

    env: FastOrderEnforcingWrapper

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = env.agent_selection
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return agent
