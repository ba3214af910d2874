"""Action spaces of the Lazer Ryderz envs (issue 5): the native hybrid space and the pieces
of the ``box`` and ``discrete`` modes that do not depend on the env machinery.

- :class:`HybridActionSpace`: ``Dict({"discrete": Discrete(n), "x": Box(-1, 1, (1,))})``
  whose ``sample`` also takes the discrete part's mask vector, as PettingZoo's tests pass
  ``action_space.sample(obs["action_mask"])`` and gymnasium's ``Dict.sample`` only takes a
  dict of masks.
- :func:`masked_argmax`: the ``box`` mode's decoding of per-option scores, so that every
  vector is legal.
- :class:`LaunchAim`: the ``discrete`` mode's Launch Points: ``K`` evenly spaced positions
  along the reach stretch, and for each Prizm the position whose Launch Point faces it.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np

from ryderz_env.rules import Action, ActionKind, Game


class HybridActionSpace(gym.spaces.Dict):
    """The native action: a masked discrete part and a Launch Point position in [-1, 1]."""

    def __init__(self, num_discrete: int, seed: int | None = None) -> None:
        super().__init__({
            "discrete": gym.spaces.Discrete(num_discrete),
            "x": gym.spaces.Box(-1.0, 1.0, (1,), dtype=np.float32),
        }, seed=seed)

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


class LaunchAim:
    """Where a Launch Point of ``seat`` should go: a grid of ``k`` positions along the reach
    stretch, or facing a point (a Prizm) so that a straight from it runs through that point.

    Positions are the engine's ``x`` in [-1, 1]. Aiming solves, over the reach stretch, for
    the position whose Launch Point frame has the point on its centre line, ahead of it
    (sign changes of the lateral offset found on a fine grid, then bisected); of several,
    the nearest to the seat. ``None`` when no position in reach faces the point.
    """

    #: aims remembered per (seat, point); cleared when it grows past this many
    cache_size = 4096

    def __init__(self, game: Game, k: int = 36, grid: int = 256) -> None:
        if k < 2:
            raise ValueError("the discrete mode needs at least 2 Launch Point positions")
        self.game = game
        self.k = k
        self.positions = tuple(-1.0 + 2.0 * i / (k - 1) for i in range(k))
        self._grid = np.linspace(-1.0, 1.0, grid)
        # per seat: the Launch Point frames at the grid positions (x, y, cos h, sin h)
        self._frames: dict[int, tuple[np.ndarray, ...]] = {}
        self._cache: dict[tuple[int, float, float], float | None] = {}

    def _frame(self, seat: int, x: float) -> tuple[float, float, float]:
        tb = self.game.table
        lo, hi = tb.reach(seat, self.game.num_players)
        fr = tb.launch_frame(lo + (x + 1.0) / 2.0 * (hi - lo))
        return fr.x, fr.y, fr.h

    def _offset(self, seat: int, x: float, px: float, py: float) -> tuple[float, float]:
        """(lateral, forward) position of the point in the Launch Point frame at ``x``."""
        fx, fy, h = self._frame(seat, x)
        c, s = math.cos(h), math.sin(h)
        dx, dy = px - fx, py - fy
        return (-s * dx + c * dy, c * dx + s * dy)

    def _grid_lateral(self, seat: int, px: float, py: float) -> np.ndarray:
        """The lateral offsets of the point from the frames at every grid position."""
        frames = self._frames.get(seat)
        if frames is None:
            f = np.array([self._frame(seat, float(x)) for x in self._grid])
            frames = self._frames[seat] = (f[:, 0], f[:, 1], np.cos(f[:, 2]), np.sin(f[:, 2]))
        fx, fy, c, s = frames
        return -s * (px - fx) + c * (py - fy)

    def aim(self, seat: int, px: float, py: float) -> float | None:
        """The position ``x`` of ``seat``'s Launch Point facing (px, py), or None
        (remembered per seat and point: Prizms seldom move)."""
        key = (seat, px, py)
        if key in self._cache:
            return self._cache[key]
        if len(self._cache) >= self.cache_size:
            self._cache.clear()
        best = self._cache[key] = self._solve(seat, px, py)
        return best

    def _solve(self, seat: int, px: float, py: float) -> float | None:
        lat = self._grid_lateral(seat, px, py)
        best: float | None = None
        for i in np.flatnonzero(np.sign(lat[:-1]) != np.sign(lat[1:])):
            a, b = float(self._grid[i]), float(self._grid[i + 1])
            fa = lat[i]
            for _ in range(50):
                m = (a + b) / 2.0
                fm = self._offset(seat, m, px, py)[0]
                if (fm > 0) == (fa > 0):
                    a, fa = m, fm
                else:
                    b = m
            x = (a + b) / 2.0
            if self._offset(seat, x, px, py)[1] > 0 and (best is None or abs(x) < abs(best)):
                best = x
        return best


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
        self.slots = prizm_slots if prizm_slots is not None else \
            game.num_players * game.rules.win_prizms
        self.plain = [i for i, a in enumerate(game.codec.actions)
                      if a.kind is not ActionKind.LAUNCH]
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
        aims = [j for j in range(min(self.slots, len(state.prizms)))
                if self._aim_x(state, seat, j) is not None]
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
