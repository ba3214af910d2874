"""A generic PettingZoo parallel env over any :class:`~tabletop.env_core.GameAdapter`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import ParallelEnv

from tabletop.env_aec import EnvCommon
from tabletop.env_core import GameAdapter
from tabletop.errors import IllegalActionError


class TabletopParallelEnv(EnvCommon, ParallelEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """Parallel env: one ``step`` resolves one decision layer.

    Every live agent sends an action; agents that are not deciding have only NOOP (0)
    unmasked and their action is ignored. Simultaneous decisions (the card reveal, the
    chip mix) take all deciders' actions in one step.
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": True,
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
        self._setup(adapter, render_mode, on_illegal, auto_play, mask_in)
        self.session.events_by_step = True  # infos hold the events of each step

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Start a new game; returns (observations, infos)."""
        self.session.reset(seed)
        self.session.take_rewards()
        self.agents = self.possible_agents[:]
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        return self._observations(infos), infos

    def _observations(self, infos: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Every live agent's observation (with ``mask_in="info"``: the bare observation,
        its mask put in ``infos``)."""
        st = self.session.state
        key = self._mask_key
        if self.session.events_on:  # the events of this step (of the reset)
            for a in self.agents:
                infos[a]["events"] = self.session.events_of(self._index[a])
        if self._mask_in_info:
            for a in self.agents:
                infos[a][key] = self.session.mask(self._index[a])
            return {a: self.adapter.encode(st, self._index[a]) for a in self.agents}
        return {
            a: {
                "observation": self.adapter.encode(st, self._index[a]),
                key: self.session.mask(self._index[a]),
            }
            for a in self.agents
        }

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Any],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply the deciders' actions; returns obs, rewards, terminations, truncations, infos."""
        if not isinstance(actions, Mapping):
            raise IllegalActionError(
                f"actions must be a dict of agent name to action ({{'player_0': ..., ...}}), "
                f"got {type(actions).__name__}"
            )
        seats = {self._index[a]: act for a, act in actions.items() if a in self._index}
        self.session.act_all(seats)
        rewards_arr = self.session.take_rewards()
        done = self.session.done
        trunc = self.session.truncated
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        obs = self._observations(infos)
        rewards = {a: float(rewards_arr[self._index[a]]) for a in self.agents}
        terminations = {a: done and not trunc for a in self.agents}
        truncations = {a: trunc for a in self.agents}
        for seat in self.session.substituted:
            infos[self.possible_agents[seat]]["substituted"] = True
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos
