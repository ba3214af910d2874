"""Drawing Lazer Ryderz off-screen: the table to scale as an RGB array (issue 5 groundwork).

Layer 4 of the design, numpy and shapely only (no matplotlib, PIL or pygame), so it works on
a machine without a display. :class:`TablePainter` is built once per game: it rasterizes the
table once, then :meth:`TablePainter.paint` copies it and fills every Launch Point and piece
in its player's colour, every Prizm (neutral white, else its owner's colour, a dark ring when
locked), and marks each head with its gear as pips. Pixels are filled where their centre lies
inside a shape (``shapely.contains_xy`` over the shape's bounding box only).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game
    from ryderz_env.rules.state import State

Colour = tuple[int, int, int]

#: one colour per seat (the config's colour names are labels; these are what is drawn)
SEAT_COLOURS: tuple[Colour, ...] = (
    (240, 90, 205),   # pink
    (250, 204, 40),   # yellow
    (70, 200, 245),   # cyan
    (160, 110, 245),  # purple
)
FLOOR: Colour = (18, 18, 28)
TABLE: Colour = (40, 44, 60)
NEUTRAL: Colour = (235, 235, 235)
LOCK_RING: Colour = (20, 20, 20)
PIP: Colour = (255, 255, 255)


class TablePainter:
    """Paints states of one :class:`Game` as ``(size, size, 3)`` uint8 pictures."""

    def __init__(self, game: Game, size: int = 512, margin: float = 0.5) -> None:
        self.game = game
        self.size = size
        x0, y0, x1, y1 = game.table.polygon.bounds
        span = max(x1 - x0, y1 - y0) + 2 * margin
        #: pixels per inch; world y points up, image rows down
        self.scale = size / span
        self.x0 = (x0 + x1) / 2 - span / 2
        self.y1 = (y0 + y1) / 2 + span / 2
        centres = (np.arange(size) + 0.5) / self.scale
        self._xs = self.x0 + centres  # world x of each column's pixel centre
        self._ys = self.y1 - centres  # world y of each row's pixel centre
        self.base = np.empty((size, size, 3), dtype=np.uint8)
        self.base[:] = FLOOR
        self._fill(self.base, game.table.polygon, TABLE)

    def _window(self, bounds: tuple[float, float, float, float]) -> tuple[slice, slice]:
        x0, y0, x1, y1 = bounds
        c0 = max(0, int(math.floor((x0 - self.x0) * self.scale)))
        c1 = min(self.size, int(math.ceil((x1 - self.x0) * self.scale)) + 1)
        r0 = max(0, int(math.floor((self.y1 - y1) * self.scale)))
        r1 = min(self.size, int(math.ceil((self.y1 - y0) * self.scale)) + 1)
        return slice(r0, r1), slice(c0, c1)

    def _fill(self, img: np.ndarray, geom: shapely.Geometry, colour: Colour) -> None:
        rows, cols = self._window(geom.bounds)
        if rows.start >= rows.stop or cols.start >= cols.stop:
            return
        gx, gy = np.meshgrid(self._xs[cols], self._ys[rows])
        inside = shapely.contains_xy(geom, gx, gy)
        img[rows, cols][inside] = colour

    def pixel(self, x: float, y: float) -> tuple[int, int]:
        """The (row, column) of the pixel holding world point (x, y)."""
        return (int((self.y1 - y) * self.scale), int((x - self.x0) * self.scale))

    def paint(self, state: State) -> np.ndarray:
        """The table with every Lazer, Launch Point, Prizm and head (gear pips)."""
        img = self.base.copy()
        for el in state.elements():
            self._fill(img, el.poly, SEAT_COLOURS[el.owner % len(SEAT_COLOURS)])
        r = self.game.rules.prizm_radius
        for j, q in enumerate(state.prizms):
            colour = NEUTRAL if q.owner < 0 else SEAT_COLOURS[q.owner % len(SEAT_COLOURS)]
            disc = shapely.Point(q.x, q.y).buffer(r, quad_segs=8)
            if state.locked(j):
                self._fill(img, disc, LOCK_RING)
                disc = shapely.Point(q.x, q.y).buffer(r * 0.7, quad_segs=8)
            self._fill(img, disc, colour)
        for p in state.players:
            if p.head is None:
                continue
            # the gear as pips along the head's heading, just behind its point
            for k in range(p.gear):
                px, py = p.head.ahead(-0.25 - 0.3 * k)
                self._fill(img, shapely.Point(px, py).buffer(0.09, quad_segs=2), PIP)
        return img
