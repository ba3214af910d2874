"""A Gymnasium single-agent view of any game: one seat learns, bots play the others."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import gymnasium
import numpy as np

from tabletop.env_core import (
    GameAdapter,
    GameSession,
    is_bot,
    on_illegal_option,
    random_masked_index,
)
from tabletop.errors import ConfigError, ResetNeededError, SeatError
from tabletop.gamebase import seat_index

if TYPE_CHECKING:
    from tabletop.records import GameRecord

#: an opponent: (observation, action mask, seat, rng) -> an env action (an int for
#: ``Discrete`` action spaces)
Policy = Callable[[np.ndarray | None, np.ndarray, int, np.random.Generator], Any]


def random_policy(
    obs: np.ndarray | None, mask: np.ndarray, seat: int, rng: np.random.Generator
) -> int:
    """A uniformly random legal action."""
    return random_masked_index(mask, rng)


#: a policy with ``needs_observation = False`` is called with ``obs=None`` (saves encoding)
random_policy.needs_observation = False  # type: ignore[attr-defined]


class SingleAgentView(gymnasium.Env):
    """One seat is the learner; every other seat is played by an opponent policy.

    ``opponents``: one policy for all others, or one per other seat, or a callable
    ``sampler(rng) -> list of policies`` drawn anew at each reset (self-play pools). A
    policy is an env-action callable (:data:`Policy`) or a bot of ``agents.bot`` (``reset``,
    ``act(state, seat)``), which gets the engine state and whose engine action is applied
    unchanged (a Lazer Ryderz bot's Launch Point is not snapped to the discrete grid).
    ``learner_seat``: a seat, or ``"random"`` for a new seat each episode. Exposes
    ``action_masks()`` for sb3-contrib's MaskablePPO. Rewards are the learner's.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    #: the constructor's own keywords (game options built into the adapter are not)
    view_options = ("opponents", "learner_seat", "opponent_sampler")

    def __init__(
        self,
        adapter: GameAdapter,
        opponents: Policy | Sequence[Policy] | None = None,
        learner_seat: int | str = 0,
        render_mode: str | None = None,
        on_illegal: str = "raise",
        auto_play: bool = True,
        opponent_sampler: Callable[[np.random.Generator], Sequence[Policy]] | None = None,
    ) -> None:
        self.adapter = adapter
        self.render_mode = render_mode
        self.session = GameSession(adapter, on_illegal_option(on_illegal), auto_play)
        n = adapter.num_players
        if opponents is None:
            opponents = self._random_opponent
        single = callable(opponents) or is_bot(opponents)
        self._fixed: list[Policy] = (
            [cast(Policy, opponents)] * (n - 1)
            if single
            else list(cast("Sequence[Policy]", opponents))
        )
        if len(self._fixed) != n - 1:
            raise ConfigError(
                f"need {n - 1} opponent policies (one per other seat) or one "
                f"for all, got {len(self._fixed)}"
            )
        self._sampler = opponent_sampler
        self._seat_option = learner_seat
        if learner_seat == "random":
            self.learner = 0
        else:
            try:
                self.learner = seat_index(learner_seat, n)
            except SeatError as exc:
                raise ConfigError(f"learner_seat: {exc}, or 'random'") from None
        self._started = False
        self.observation_space = adapter.observation_space()["observation"]
        self.action_space = adapter.action_space()
        self._opp_rng = np.random.default_rng(0)
        self._policies: dict[int, Policy] = {}

    def _random_opponent(
        self, obs: Any, mask: np.ndarray, seat: int, rng: np.random.Generator
    ) -> Any:
        """The default opponent: a uniformly random legal env action."""
        return self.adapter.random_env_action(mask, rng)

    _random_opponent.needs_observation = False  # type: ignore[attr-defined]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game; returns the learner's first observation."""
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**62))
        self.adapter.new_game(game_seed)
        self._opp_rng = np.random.default_rng(int(self.np_random.integers(2**62)))
        n = self.adapter.num_players
        if self._seat_option == "random":
            self.learner = int(self.np_random.integers(n))
        pols = list(self._sampler(self._opp_rng)) if self._sampler else self._fixed
        others = [s for s in range(n) if s != self.learner]
        self._policies = dict(zip(others, pols, strict=True))
        self.session.set_bots({p: pol for p, pol in self._policies.items() if is_bot(pol)})
        self.session.reset(game_seed)
        self.session.take_rewards()
        self._play_others()
        self._started = True
        return self._obs(), self._info()

    def _require_reset(self, what: str) -> None:
        if not self._started:
            raise ResetNeededError(f"{what} before the first reset(): call reset() first")

    def _obs(self) -> np.ndarray:
        return self.adapter.encode(self.session.state, self.learner)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            self.adapter.mask_key: self.session.mask(self.learner),
            "seat": self.learner,
        }
        if self.session.done:
            info["won"] = float(self.session.state.outcome().winner == self.learner)
        if self.session.events_on:  # since the learner's last step
            info["events"] = self.session.events_of(self.learner)
        return info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (for MaskablePPO; in an action mode
        that is not one ``Discrete`` space, the mask of its discrete part)."""
        self._require_reset("action_masks()")
        return self.session.mask(self.learner).astype(bool)

    def _play_others(self) -> None:
        """Let the opponents act until the learner must decide or the game ends."""
        s = self.session
        while not s.done:
            deciders = s.deciders()
            others = [p for p in deciders if p != self.learner]
            if not others:
                return
            for p in others:
                policy = self._policies[p]
                obs = (
                    self.adapter.encode(s.state, p)
                    if getattr(policy, "needs_observation", True)
                    else None
                )
                action = policy(obs, s.mask(p), p, self._opp_rng)
                s.act(p, action)
                if s.done or self.learner in s.deciders():
                    break
            if self.learner in s.deciders() and not [p for p in s.deciders() if p != self.learner]:
                return

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner acts; the opponents play until its next decision."""
        self._require_reset("step()")
        s = self.session
        s.act(self.learner, action)
        substituted = bool(s.substituted)
        self._play_others()
        reward = float(s.take_rewards()[self.learner])
        terminated = s.done and not s.truncated
        truncated = s.truncated
        info = self._info()
        if substituted:
            info["substituted"] = True
        return self._obs(), reward, terminated, truncated, info

    @property
    def record(self) -> GameRecord:
        """The record (config, seed, actions, chance outcomes) of the current episode."""
        self._require_reset("record")
        return self.session.record

    def render(self) -> Any:
        """ansi text or an rgb_array picture of the table."""
        if self.render_mode is not None:
            self._require_reset("render()")
        if self.render_mode == "ansi":
            return self.adapter.render_ansi(self.session.state)
        if self.render_mode == "rgb_array":
            return self.adapter.render_rgb(self.session.state)
        return None
