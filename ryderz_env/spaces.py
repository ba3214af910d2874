"""Action spaces of the Lazer Ryderz envs (issue 5): the native hybrid space and the pieces
of the ``box`` and ``discrete`` modes that do not depend on the env machinery.

- :class:`HybridActionSpace`: ``Dict({"discrete": Discrete(n), "x": Box(-1, 1, (1,))})``
  whose ``sample`` also takes the discrete part's mask vector, as PettingZoo's tests pass
  ``action_space.sample(obs["action_mask"])`` and gymnasium's ``Dict.sample`` only takes a
  dict of masks.
- :func:`masked_argmax`: the ``box`` mode's decoding of per-option scores, so that every
  vector is legal.
- :class:`LaunchAim` (the geometry lives in the rules, ``ryderz_env.rules.aim``; re-exported
  here): the ``discrete`` mode's Launch Points: ``K`` evenly spaced positions along the reach
  stretch, and for each Prizm the position whose Launch Point faces it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ryderz_env.rules import Action, ActionKind, Game
from ryderz_env.rules.aim import LaunchAim

__all__ = ["DiscreteLayout", "HybridActionSpace", "LaunchAim", "masked_argmax"]


class HybridActionSpace(gym.spaces.Dict):
    """The native action: a masked discrete part and a Launch Point position in [-1, 1]."""

    def __init__(self, num_discrete: int, seed: int | None = None) -> None:
        super().__init__(
            {
                "discrete": gym.spaces.Discrete(num_discrete),
                "x": gym.spaces.Box(-1.0, 1.0, (1,), dtype=np.float32),
            },
            seed=seed,
        )

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        """A random action; ``mask`` may be the discrete part's int8 mask vector, or
        gymnasium's dict of masks."""
        if isinstance(mask, np.ndarray):
            mask = {"discrete": mask, "x": None}
        return super().sample(mask=mask, probability=probability)


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> int:
    """The legal option with the highest score (the lowest index among equals)."""
    s = np.where(np.asarray(mask, dtype=bool), np.asarray(scores, dtype=np.float64), -np.inf)
    if not np.isfinite(s).any():
        raise ValueError("the mask allows no option")
    return int(np.argmax(s))


class DiscreteLayout:
    """The ``discrete`` action mode: one flat index space over every decision.

    Index layout (NOOP at 0): every engine action that is not a launch, in codec order; then,
    per gear, the ``k`` grid positions of :class:`LaunchAim` and one "aim at Prizm j" option
    per Prizm slot (``prizm_slots``, the observation's order of Prizms). An aim option is
    legal when Prizm ``j`` exists and a Launch Point within reach faces it.
    """

    def __init__(self, game: Game, k: int = 36, prizm_slots: int | None = None) -> None:
        self.game = game
        self.aim = LaunchAim(game, k)
        self.k = k
        self.slots = (
            prizm_slots if prizm_slots is not None else game.num_players * game.rules.win_prizms
        )
        self.plain = [
            i for i, a in enumerate(game.codec.actions) if a.kind is not ActionKind.LAUNCH
        ]
        self.plain_index = {c: i for i, c in enumerate(self.plain)}
        self.per_gear = k + self.slots
        self.launch_base = len(self.plain)
        self.size = self.launch_base + game.top_gear * self.per_gear

    def legal(self, state: Any, seat: int) -> list[int]:
        """Legal indices of ``seat`` now (sorted)."""
        ints = state.legal_action_ints(seat)
        if not ints:
            return []
        launch = self.game.codec.actions[ints[0]].kind is ActionKind.LAUNCH
        if not launch:
            return [self.plain_index[i] for i in ints]
        aims = [
            j
            for j in range(min(self.slots, len(state.prizms)))
            if self._aim_x(state, seat, j) is not None
        ]
        out = []
        for gear in range(1, self.game.top_gear + 1):
            base = self.launch_base + (gear - 1) * self.per_gear
            out += range(base, base + self.k)
            out += [base + self.k + j for j in aims]
        return out

    def _aim_x(self, state: Any, seat: int, j: int) -> float | None:
        q = state.prizms[j]
        return self.aim.aim(seat, q.x, q.y)

    def decode(self, state: Any, seat: int, index: int) -> Action:
        """The engine action of a legal ``index`` (ValueError for an aim option whose Prizm
        no Launch Point in reach faces)."""
        if index < self.launch_base:
            return self.game.codec.actions[self.plain[index]]
        gear, rest = divmod(index - self.launch_base, self.per_gear)
        if rest < self.k:
            x = self.aim.positions[rest]
        else:
            x = self._aim_x(state, seat, rest - self.k)
            if x is None:
                raise ValueError(f"aim option {index} is not available now")
        return Action.launch(gear + 1, x)
