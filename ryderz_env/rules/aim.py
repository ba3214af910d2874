"""Aiming a Launch Point: where along a seat's reach a Launch Point faces a given point.

Pure geometry over the game's table (numpy and math only): a Launch Point's exit pose faces
the inward normal of the edge where it stands, so a straight from it runs through a point
only from the few positions whose frame has the point on its centre line. From the rim a
straight line scores a Prizm only within a few degrees of its bearing, so players (bots, the
discrete action mode's "aim at Prizm j" options) ask :class:`LaunchAim` for that position.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game
    from ryderz_env.rules.state import State

__all__ = ["LaunchAim", "aim_launches", "launch_aim"]


#: :meth:`LaunchAim.aim`'s mark of a point not solved yet (None is an answer)
_UNSOLVED = object()


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
        got = self._cache.get(key, _UNSOLVED)  # one read: a server thread may clear it
        if got is not _UNSOLVED:
            return cast("float | None", got)
        if len(self._cache) >= self.cache_size:
            self._cache.clear()
        best = self._cache[key] = self._solve(seat, px, py)
        return best

    def aim_fast(self, seat: int, px: float, py: float) -> float | None:
        """An approximation of :meth:`aim` for rating many points: the sign change of the
        lateral offset interpolated linearly between grid positions (no bisection, so no
        table frames found beyond the grid: within ~1e-8 of it on a round table, ~1e-3 near
        a polygon table's corners, where the offset bends), nothing remembered."""
        lat = self._grid_lateral(seat, px, py)
        fx, fy, c, s = self._frames[seat]
        best: float | None = None
        for i in np.flatnonzero(np.sign(lat[:-1]) != np.sign(lat[1:])):
            a, b = float(self._grid[i]), float(self._grid[i + 1])
            la, lb = float(lat[i]), float(lat[i + 1])
            u = la / (la - lb) if la != lb else 0.5
            fwd = (1.0 - u) * (c[i] * (px - fx[i]) + s[i] * (py - fy[i])) + u * (
                c[i + 1] * (px - fx[i + 1]) + s[i + 1] * (py - fy[i + 1])
            )
            x = a + u * (b - a)
            if fwd > 0 and (best is None or abs(x) < abs(best)):
                best = x
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


def launch_aim(game: Game) -> LaunchAim:
    """The :class:`LaunchAim` of ``game`` shared by every caller of :func:`aim_launches`
    (its solves are cached per point, so sharing it across states and bots saves them);
    kept on the game (``Game.derived``) and freed with it."""
    return game.derived("ryderz.launch_aim", LaunchAim)


def aim_launches(state: State, seat: int, aim: LaunchAim | None = None) -> list[float | None]:
    """For each Prizm of ``state`` (in ``state.prizms`` order), the launch position ``x`` of
    ``seat`` whose Launch Point faces it, or None when no position in reach does.

    The position is where the Launch Point is asked for; blind placement (launch noise) and
    the overlap rule may still move it."""
    a = aim if aim is not None else launch_aim(state.game)
    return [a.aim(seat, q.x, q.y) for q in state.prizms]
