"""Drawing Lazer Ryderz: ``ansi`` text, the table to scale as an RGB array, a GIF of a record.

Layer 4 of the design, numpy and shapely only at import time (Pillow only inside
:func:`record_to_gif`), so it works on a machine without a display.

- :func:`render_ansi` is the engine's ``str(state)`` (``rules/text.py``): round, order, each
  Ryder's colour, character, gear, score, head pose or "off the table", supply per gear and
  power, every Prizm, and the decision asked with the seats that decide.
- :class:`TablePainter` is built once per game: it rasterizes the table once, then
  :meth:`TablePainter.paint` copies it and fills every Launch Point and piece in its player's
  colour, every Prizm (neutral white, else its owner's colour, a dark ring when locked), and
  marks each head with its gear as pips. Pixels are filled where their centre lies inside a
  shape (``shapely.contains_xy`` over the shape's bounding box only). With ``panel=True`` a
  strip on the right lists the round, the pending decision and per seat its gear, score and
  state, in the shared bitmap font (:mod:`tabletop.draw`).
- :func:`record_to_gif` replays a :class:`~tabletop.records.GameRecord` into an animated GIF.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely

from tabletop.draw import draw_text, frames_to_gif, text_width

if TYPE_CHECKING:
    from pathlib import Path

    from ryderz_env.rules.game import Game
    from ryderz_env.rules.state import State
    from tabletop.records import GameRecord

Colour = tuple[int, int, int]

#: one colour per seat (the config's colour names are labels; these are what is drawn)
SEAT_COLOURS: tuple[Colour, ...] = (
    (240, 90, 205),  # pink
    (250, 204, 40),  # yellow
    (70, 200, 245),  # cyan
    (160, 110, 245),  # purple
)
FLOOR: Colour = (18, 18, 28)
TABLE: Colour = (40, 44, 60)
NEUTRAL: Colour = (235, 235, 235)
LOCK_RING: Colour = (20, 20, 20)
PIP: Colour = (255, 255, 255)
PANEL: Colour = (28, 32, 40)
PANEL_EDGE: Colour = (60, 66, 78)
TEXT: Colour = (230, 230, 230)
DIM_TEXT: Colour = (140, 146, 158)
HIGHLIGHT: Colour = (250, 220, 90)
#: the side panel's width per unit of text scale (136 pixels at scale 2)
PANEL_UNIT = 68


def render_ansi(state: State) -> str:
    """The text summary of ``state``: the engine's ``str(state)``."""
    return str(state)


class TablePainter:
    """Paints states of one :class:`Game` as ``(size, width, 3)`` uint8 pictures: the table in
    a ``size`` x ``size`` square, and with ``panel`` a text strip to its right (``width`` is
    ``size`` without the panel; text at scale 2 from a size of 256, else 1)."""

    def __init__(
        self, game: Game, size: int = 512, margin: float = 0.5, panel: bool = False
    ) -> None:
        self.game = game
        self.size = size
        #: the panel's text scale, and the picture's width
        self.text_scale = 2 if size >= 256 else 1
        self.width = size + (PANEL_UNIT * self.text_scale if panel else 0)
        x0, y0, x1, y1 = game.table.polygon.bounds
        span = max(x1 - x0, y1 - y0) + 2 * margin
        #: pixels per inch; world y points up, image rows down
        self.scale = size / span
        self.x0 = (x0 + x1) / 2 - span / 2
        self.y1 = (y0 + y1) / 2 + span / 2
        centres = (np.arange(size) + 0.5) / self.scale
        self._xs = self.x0 + centres  # world x of each column's pixel centre
        self._ys = self.y1 - centres  # world y of each row's pixel centre
        self.base = np.empty((size, self.width, 3), dtype=np.uint8)
        self.base[:] = FLOOR
        self._fill(self.base, game.table.polygon, TABLE)
        if panel:
            self.base[:, size:] = PANEL
            self.base[:, size : size + max(1, self.text_scale)] = PANEL_EDGE

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

    def paint(self, state: State, caption: str = "") -> np.ndarray:
        """The table with every Lazer, Launch Point, Prizm and head (gear pips), and the
        panel, if any (``caption`` at its foot)."""
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
        if self.width > self.size:
            self._paint_panel(img, state, caption)
        return img

    def _paint_panel(self, img: np.ndarray, state: State, caption: str) -> None:
        """Round, the pending decision or result, and a row per seat: a swatch (``>`` when it
        decides), gear and score, then "off" (no Lazer on the table) and "power" (ready)."""
        g, sc = self.game, self.text_scale
        r = g.rules
        x0 = self.size + 4 * sc
        line = 8 * sc  # a text line: 5 units of glyph, 3 of gap
        y = 4 * sc
        draw_text(img, x0, y, f"ROUND {state.round}/{r.round_limit}", TEXT, sc)
        y += line
        if state.is_terminal():
            word = state.status.value.replace("_", " ")
            if state.winner is not None:
                word = f"WIN P{state.winner}"
            draw_text(img, x0, y, word, HIGHLIGHT, sc)
        elif state.chance is not None:
            draw_text(img, x0, y, state.chance.kind.value.replace("_", " "), DIM_TEXT, sc)
        elif state.decision is not None:
            draw_text(img, x0, y, state.decision.kind.value.replace("_", " "), HIGHLIGHT, sc)
        y += line + 4 * sc
        deciding = set(state.current_players())
        swatch = 6 * sc
        for p in state.players:
            if y + 2 * line > self.size - (line if caption else 0):
                break
            colour = SEAT_COLOURS[p.seat % len(SEAT_COLOURS)]
            if p.seat in deciding:
                draw_text(img, self.size + sc, y, ">", HIGHLIGHT, sc)
            sx = x0 + 3 * sc
            img[y : y + swatch, sx : sx + swatch] = colour
            tx = sx + swatch + 3 * sc
            end = draw_text(img, tx, y, f"G{p.gear}", TEXT, sc)
            draw_text(img, end + 3 * sc, y, f"P{state.score(p.seat)}/{r.win_prizms}", colour, sc)
            words = ["OFF"] if p.head is None else []
            if r.powers and p.power_ready:
                words.append("POWER")
            draw_text(img, tx, y + line, " ".join(words), DIM_TEXT, sc)
            y += 2 * line + 2 * sc
        if caption:
            cx = max(x0, self.width - 4 * sc - text_width(caption, sc))
            draw_text(img, cx, self.size - line, caption, DIM_TEXT, sc)


def record_to_gif(
    record: GameRecord, path: str | Path, size: int = 384, every: int = 1, fps: float = 4.0
) -> int:
    """Replay ``record`` (a Lazer Ryderz game) and write it as an animated GIF with the side
    panel; returns the number of frames. Every ``every``-th state is drawn, and the last
    one; each frame's caption numbers its state ("EVENT i/N", the state before event i), so
    no two frames are alike and none are merged."""
    from ryderz_env.rules.game import Game
    from tabletop.records import iter_replay

    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    game = Game.from_config_dict(record.config)
    painter = TablePainter(game, size=size, panel=True)
    n = len(record.events)
    frames = (
        painter.paint(state, caption=f"EVENT {i}/{n}")
        for i, state in enumerate(iter_replay(game, record))
        if i % every == 0 or i == n
    )
    return frames_to_gif(frames, path, fps)
