"""Potential-based reward shaping with the fitted value (``value_shaping:`` in a train config).

The learner's reward at every step gains ``weight * (gamma * phi(s') - phi(s))``, where
``phi`` is the fitted value of the learner's seat (:class:`agents.fitted_value.FittedValue`:
the expected return a conditional logit over who wins gives the position, from public facts
only) and ``phi`` of a finished game is 0. Shaping of this form leaves the optimal policies
unchanged (Ng, Harada and Russell 1999): over an episode the terms add up to
``-weight * phi(s0)`` plus discounting, whatever the play. What it changes is the variance:
a decision that makes the learner likelier to win is rewarded at once instead of at the end
of a race of 250 decisions.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from agents.fitted_value import FittedValue
from tabletop import registry

__all__ = ["ValueShaping", "shaped"]


def shaped(cfg: Any, view: gymnasium.Env) -> gymnasium.Env:
    """``view`` with the config's value shaping (``cfg.value_shaping``), if any."""
    if cfg.value_shaping <= 0.0:
        return view
    return ValueShaping(view, registry.get(cfg.game).name, cfg.value_shaping, cfg.ppo.gamma)


class ValueShaping(gymnasium.Wrapper):
    """Adds ``weight * (gamma * phi(s') - phi(s))`` to a single-agent view's rewards;
    ``info["value_shaping"]`` carries the step's term."""

    def __init__(self, env: gymnasium.Env, game: str, weight: float, gamma: float) -> None:
        super().__init__(env)
        self.value = FittedValue(game)
        self.weight = weight
        self.gamma = gamma
        self._phi = 0.0

    def _potential(self) -> float:
        view: Any = self.env.unwrapped
        state = view.session.state
        if state.is_terminal():
            return 0.0
        return float(self.value.value(state, view.learner))

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._phi = self._potential()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, term, trunc, info = self.env.step(action)
        phi = 0.0 if (term or trunc) else self._potential()
        term_value = self.weight * (self.gamma * phi - self._phi)
        self._phi = phi
        info["value_shaping"] = term_value
        return obs, float(reward) + term_value, term, trunc, info

    def action_masks(self) -> Any:
        """The wrapped view's mask (MaskablePPO)."""
        return self.env.action_masks()  # type: ignore[attr-defined]
