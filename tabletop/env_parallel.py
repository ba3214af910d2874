"""A generic PettingZoo parallel env over any :class:`~tabletop.env_core.GameAdapter`."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from tabletop.env_aec import RenderMixin, agent_name, observation_space_for, state_space_for
from tabletop.env_core import GameAdapter, GameSession, OnIllegal


class TabletopParallelEnv(RenderMixin, ParallelEnv):
    """Parallel env: one ``step`` resolves one decision layer.

    Every live agent sends an action; agents that are not deciding have only NOOP (0)
    unmasked and their action is ignored. Simultaneous decisions (the card reveal, the
    chip mix) take all deciders' actions in one step.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": True,
                "render_fps": 4}

    def __init__(self, adapter: GameAdapter, render_mode: str | None = None,
                 on_illegal: str = "raise", auto_play: bool = False) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in "
                             f"{self.metadata['render_modes']}")
        self.adapter = adapter
        self.render_mode = render_mode
        self.session = GameSession(adapter, OnIllegal(on_illegal), auto_play)
        self.possible_agents = [agent_name(i) for i in range(adapter.num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = observation_space_for(adapter)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        act_space = spaces.Discrete(adapter.num_actions)
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = state_space_for(adapter)
        self._viewer = None
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        """The same Dict space for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(num_actions)``; NOOP is 0."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None,
              options: dict | None = None) -> tuple[dict[str, Any], dict[str, dict]]:
        """Start a new game; returns (observations, infos)."""
        self.session.reset(seed)
        self.session.take_rewards()
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        st = self.session.state
        return {
            a: {"observation": self.adapter.encode(st, self._index[a]),
                "action_mask": self.session.mask(self._index[a])}
            for a in self.agents
        }

    def state(self) -> np.ndarray:
        """The full global state vector (centralized critics)."""
        return self.adapter.state_vector(self.session.state)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the deciders' actions; returns obs, rewards, terminations, truncations, infos."""
        seats = {self._index[a]: act for a, act in actions.items() if a in self._index}
        self.session.act_all(seats)
        rewards_arr = self.session.take_rewards()
        done = self.session.done
        trunc = self.session.truncated
        obs = self._observations()
        rewards = {a: float(rewards_arr[self._index[a]]) for a in self.agents}
        terminations = {a: done and not trunc for a in self.agents}
        truncations = {a: trunc for a in self.agents}
        infos: dict[str, dict] = {a: {} for a in self.agents}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos

    @property
    def record(self):  # noqa: ANN201 - GameRecord
        """The record (config, seed, actions, chance outcomes) of the current episode."""
        return self.session.record
