"""Drawing Lunatix Loop: ``ansi`` text, an off-screen ``rgb_array`` picture, a ``human`` window.

Layer 4 of the design. The picture is drawn with numpy only (no matplotlib, PIL or pygame),
so it works on a machine without a display; pygame is imported lazily, and only by
:class:`HumanViewer` to show a window.

- :func:`render_ansi` is ``str(state)`` plus one line naming the pending decision.
- :class:`BoardPainter` is built once per :class:`~lunatix_env.rules.Game`. It lays the track
  (any track file) along a stadium / rounded-rectangle loop drawn counter-clockwise with the
  finish line on the bottom straight, paints the static board once (squares by surface,
  curves tinted by rating, finish line, pit box with its openings, a side panel), and
  :meth:`BoardPainter.paint` copies it and draws the pieces of one state: chips, cars, wrecks,
  cars in the pit, and the panel's per-player lines.
- :class:`HumanViewer` (from :mod:`tabletop.viewer`, re-exported here) blits frames into a
  pygame window when a display exists, and does nothing at all when headless. Text in the
  pictures uses the shared bitmap font of :mod:`tabletop.draw`.

Geometry: world units are middle-lane squares (the track's ``s``), y up. The loop starts at
the finish line (``s = 0``) heading right and turns left (counter-clockwise on screen) through
every curve; a curve turns ``2 pi * extent / total curve extent``, so all curves share one
radius. If the straights do not close the loop exactly (a track whose opposite straights
differ in length), the difference is spread over the straights.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop.draw import draw_text, text_width
from tabletop.viewer import HumanViewer  # noqa: F401  (re-exported for lunatix_env.envs)

if TYPE_CHECKING:
    from lunatix_env.rules.game import Game
    from lunatix_env.rules.records import Car
    from lunatix_env.rules.state import State

Colour = tuple[int, int, int]

#: one colour per seat (cars and the panel), distinct from the chip colours
SEAT_COLOURS: tuple[Colour, ...] = (
    (250, 204, 40),  # yellow
    (70, 200, 245),  # sky blue
    (240, 90, 205),  # pink
    (130, 225, 70),  # lime
    (255, 140, 40),  # orange
    (245, 245, 245),  # white
)
#: chip kinds in the engine's order: tacks, oil, glue
CHIP_COLOURS: tuple[Colour, ...] = ((225, 30, 30), (10, 10, 10), (40, 90, 245))

GRASS: Colour = (44, 102, 60)
ASPHALT: Colour = (104, 106, 112)
DIRT: Colour = (156, 110, 66)
CURVE_TINT: Colour = (235, 120, 70)
SEAM: Colour = (46, 46, 50)
EDGE: Colour = (225, 225, 225)
KERB_RED: Colour = (200, 40, 40)
PIT_FLOOR: Colour = (72, 76, 86)
PIT_LINE: Colour = (240, 200, 40)
CLOSED: Colour = (120, 120, 120)
PANEL: Colour = (28, 32, 40)
TEXT: Colour = (230, 230, 230)
DIM_TEXT: Colour = (140, 146, 158)
DARK: Colour = (22, 22, 24)
WRECK_CROSS: Colour = (20, 20, 20)
CW_MARK: Colour = (230, 30, 30)
HIGHLIGHT: Colour = (250, 220, 90)
RATING_TEXT: Colour = (246, 232, 206)
FINISH_WHITE: Colour = (252, 252, 252)
FINISH_BLACK: Colour = (14, 14, 14)

PANEL_WIDTH = 136
MARGIN = 8
BORDER = 0.14  # white edge / kerb width beyond the outer lanes (world units)
PIT_GAP = 0.45  # from the inside lane's edge to the pit box (world units)
PIT_DEPTH = 1.9  # the pit box's depth (world units)


def render_ansi(state: State) -> str:
    """``str(state)`` plus, when a decision is pending, one line naming it and its deciders."""
    text = str(state)
    if state.decision is not None and not state.is_terminal():
        who = ", ".join(f"player_{s}" for s in state.current_players())
        text += f"\ndecision: {state.decision.kind.value} by {who}"
    return text


# ---------------------------------------------------------------------------------- geometry
@dataclass(frozen=True)
class _Piece:
    """One stretch of the centreline: a straight or a circular arc turning left."""

    s0: float  # track s where it starts
    s1: float  # and ends (s0 < s1 <= length)
    arc: bool
    x0: float  # start point (world)
    y0: float
    heading: float  # straight: its direction; arc: heading at its start
    length: float  # straight: world length
    radius: float  # arc: centreline radius
    turn: float  # arc: total left turn (radians)

    def at(self, s: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World x, y and tangent angle at track ``s`` (inside this piece), offset outward."""
        t = (s - self.s0) / (self.s1 - self.s0)
        if not self.arc:
            c, n = math.cos(self.heading), math.sin(self.heading)
            x = self.x0 + c * self.length * t + n * off
            y = self.y0 + n * self.length * t - c * off
            return x, y, np.full_like(t, self.heading)
        cx, cy = self.centre()
        phi = self.heading - math.pi / 2 + self.turn * t
        r = self.radius + off
        return cx + r * np.cos(phi), cy + r * np.sin(phi), phi + math.pi / 2

    def centre(self) -> tuple[float, float]:
        """An arc's centre (world)."""
        return (
            self.x0 - self.radius * math.sin(self.heading),
            self.y0 + self.radius * math.cos(self.heading),
        )

    def end(self) -> tuple[float, float, float]:
        """End point and heading."""
        x, y, h = self.at(np.array([self.s1]), np.array([0.0]))
        return float(x[0]), float(y[0]), float(h[0])


class _Layout:
    """Where every square of a track lies on the loop, in world units."""

    def __init__(self, game: Game) -> None:
        tr = game.track
        self.length = length = float(tr.length)
        self.num_lanes = nl = tr.num_lanes
        self.hw = nl / 2.0
        n = len(tr.s)
        s = np.array(tr.s, dtype=float) % length
        self.s = s
        self.lane = np.array(tr.lane, dtype=int)
        curve = list(tr.curve)
        # ---- each curve's extent along s (from its finest lane's evenly spaced squares)
        spans: dict[int, tuple[float, float]] = {}
        for c in sorted({c for c in curve if c is not None}):
            best: tuple[int, float, float] | None = None
            for lane in range(nl):
                ss = [float(s[i]) for i in range(n) if curve[i] == c and tr.lane[i] == lane]
                if not ss:
                    continue
                ref = ss[0]
                u = sorted(ref + self.wrap(x - ref) for x in ss)
                d = (u[-1] - u[0]) / (len(u) - 1) if len(u) > 1 else 1.0
                if best is None or len(u) > best[0]:
                    best = (len(u), u[0] - d / 2, u[-1] + d / 2)
            assert best is not None
            start = best[1] % length
            spans[c] = (start, start + best[2] - best[1])
        # ---- each square's extent [lo, hi] relative to its s (boundaries between squares)
        self.lo = np.zeros(n)
        self.hi = np.zeros(n)
        self.lane_squares: list[np.ndarray] = []
        for lane in range(nl):
            sq = sorted((i for i in range(n) if tr.lane[i] == lane), key=lambda i: s[i])
            self.lane_squares.append(np.array(sq, dtype=int))
            for k, a in enumerate(sq):
                b = sq[(k + 1) % len(sq)]
                if curve[a] == curve[b]:
                    edge = s[a] + self.wrap(s[b] - s[a]) / 2
                elif curve[b] is not None:
                    edge = spans[curve[b]][0]
                else:
                    assert curve[a] is not None
                    edge = spans[curve[a]][1]
                self.hi[a] = self.wrap(edge - s[a])
                self.lo[b] = self.wrap(edge - s[b])
        # ---- the centreline's pieces over [0, length)
        cuts: list[tuple[float, float, bool]] = []
        for a, b in spans.values():
            if b <= length + 1e-9:
                cuts.append((a, min(b, length), True))
            else:
                cuts += [(a, length, True), (0.0, b - length, True)]
        if not cuts:  # no curve at all: draw the track as one circle
            cuts = [(0.0, length, True)]
        cuts.sort()
        raw: list[tuple[float, float, bool]] = []
        pos = 0.0
        for a, b, arc in cuts:
            if a > pos + 1e-9:
                raw.append((pos, a, False))
            raw.append((a, b, arc))
            pos = b
        if pos < length - 1e-9:
            raw.append((pos, length, False))
        total_curve = sum(b - a for a, b, arc in raw if arc)
        k = 2 * math.pi / total_curve  # radians per unit of s on a curve
        radius = max(1 / k, self.hw + 0.8)
        # integrate once to find how far the loop misses closing, then spread that over the
        # straights
        vecs: list[tuple[float, float]] = []
        x = y = h = 0.0
        for a, b, arc in raw:
            if arc:
                p = _Piece(a, b, True, x, y, h, 0.0, radius, k * (b - a))
                x, y, h = p.end()
                vecs.append((0.0, 0.0))
            else:
                vx, vy = (b - a) * math.cos(h), (b - a) * math.sin(h)
                x, y = x + vx, y + vy
                vecs.append((vx, vy))
        straight_total = sum(b - a for a, b, arc in raw if not arc)
        ex, ey = x, y
        self.pieces: list[_Piece] = []
        x = y = h = 0.0
        for (a, b, arc), (vx, vy) in zip(raw, vecs, strict=True):
            if arc:
                p = _Piece(a, b, True, x, y, h, 0.0, radius, k * (b - a))
                x, y, h = p.end()
            else:
                if straight_total > 0:
                    vx -= ex * (b - a) / straight_total
                    vy -= ey * (b - a) / straight_total
                p = _Piece(a, b, False, x, y, math.atan2(vy, vx), math.hypot(vx, vy), 0.0, 0.0)
                x, y = x + vx, y + vy
            self.pieces.append(p)
        self.radius = radius

    def wrap(self, ds: Any) -> Any:
        """An along-track difference wrapped into [-length/2, length/2)."""
        half = self.length / 2
        return (ds + half) % self.length - half

    def at(self, s: Any, off: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World x, y and tangent angle (race direction) at track ``s``, offset ``off``."""
        s = np.atleast_1d(np.asarray(s, dtype=float)) % self.length
        off = np.broadcast_to(np.asarray(off, dtype=float), s.shape)
        x, y, h = np.zeros_like(s), np.zeros_like(s), np.zeros_like(s)
        for i, p in enumerate(self.pieces):
            last = i == len(self.pieces) - 1
            m = (s >= p.s0) & ((s < p.s1) | last)
            if m.any():
                x[m], y[m], h[m] = p.at(s[m], off[m])
        return x, y, h

    def lane_offset(self, lane: int) -> float:
        """Outward offset of a lane's middle from the centreline (lane 0 inside)."""
        return lane + 0.5 - self.hw

    def locate(
        self, wx: np.ndarray, wy: np.ndarray, off_min: float, off_max: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For world points: track s, outward offset, world length per unit s there, the piece
        index (-1: none within the offsets) and whether that piece is straight."""
        shape = wx.shape
        S = np.zeros(shape)
        OFF = np.full(shape, np.inf)
        DS = np.ones(shape)
        PIECE = np.full(shape, -1, dtype=int)
        for i, p in enumerate(self.pieces):
            span = p.s1 - p.s0
            if p.arc:
                cx, cy = p.centre()
                vx, vy = wx - cx, wy - cy
                r = np.hypot(vx, vy)
                off = r - p.radius
                dphi = (np.arctan2(vy, vx) - (p.heading - math.pi / 2)) % (2 * math.pi)
                t = dphi / p.turn
                ds = r * p.turn / span
            else:
                c, n = math.cos(p.heading), math.sin(p.heading)
                rx, ry = wx - p.x0, wy - p.y0
                t = (rx * c + ry * n) / p.length
                off = rx * n - ry * c
                ds = np.full(shape, p.length / span)
            m = (t >= 0) & (t < 1) & (off >= off_min) & (off <= off_max)
            m &= np.abs(off) < np.abs(OFF)
            S[m] = p.s0 + t[m] * span
            OFF[m] = off[m]
            DS[m] = ds[m]
            PIECE[m] = i
        straight = np.array([not p.arc for p in self.pieces] + [False])[PIECE]
        return S, OFF, DS, PIECE, straight


# ---------------------------------------------------------------------------------- drawing
@functools.lru_cache(maxsize=64)
def _disc_alpha(r: float, pad: int = 1) -> np.ndarray:
    """An anti-aliased disc of radius ``r`` centred in an odd square patch."""
    h = int(math.ceil(r)) + pad
    yy, xx = np.mgrid[-h : h + 1, -h : h + 1]
    return np.clip(r + 0.5 - np.hypot(xx, yy), 0.0, 1.0).astype(np.float32)


@functools.lru_cache(maxsize=64)
def _ring_alpha(r: float, width: float) -> np.ndarray:
    """An anti-aliased ring of mid radius ``r``."""
    h = int(math.ceil(r + width)) + 1
    yy, xx = np.mgrid[-h : h + 1, -h : h + 1]
    return np.clip(width / 2 + 0.5 - np.abs(np.hypot(xx, yy) - r), 0.0, 1.0).astype(np.float32)


@functools.lru_cache(maxsize=64)
def _cross_alpha(a: float, width: float) -> np.ndarray:
    """An anti-aliased X with arms reaching ``a`` pixels from the centre."""
    h = int(math.ceil(a + width)) + 1
    yy, xx = np.mgrid[-h : h + 1, -h : h + 1].astype(np.float32)
    d = np.minimum(np.abs(xx - yy), np.abs(xx + yy)) / math.sqrt(2)
    box = np.clip(a + 0.5 - np.maximum(np.abs(xx), np.abs(yy)), 0.0, 1.0)
    return (np.clip(width / 2 + 0.5 - d, 0.0, 1.0) * box).astype(np.float32)


def _blend(img: np.ndarray, cx: float, cy: float, alpha: np.ndarray, colour: Colour) -> None:
    """Blend ``colour`` into ``img`` through the ``alpha`` patch centred at (cx, cy)."""
    h = alpha.shape[0] // 2
    x0, y0 = int(round(cx)) - h, int(round(cy)) - h
    H, W = img.shape[:2]
    ax0, ay0 = max(0, -x0), max(0, -y0)
    ax1, ay1 = min(alpha.shape[1], W - x0), min(alpha.shape[0], H - y0)
    if ax0 >= ax1 or ay0 >= ay1:
        return
    a = alpha[ay0:ay1, ax0:ax1, None]
    region = img[y0 + ay0 : y0 + ay1, x0 + ax0 : x0 + ax1]
    col = np.array(colour, dtype=np.float32)
    region[...] = (region * (1.0 - a) + col * a + 0.5).astype(np.uint8)


def _mix(a: Colour, b: Colour, t: float) -> Colour:
    return (
        int(round(a[0] + (b[0] - a[0]) * t)),
        int(round(a[1] + (b[1] - a[1]) * t)),
        int(round(a[2] + (b[2] - a[2]) * t)),
    )


class BoardPainter:
    """Draws states of one :class:`~lunatix_env.rules.Game` as ``(H, W, 3)`` uint8 pictures.

    Build it once per game: the constructor lays the track out, computes the pixel centre of
    every square (``centres[square] = (x, y)``) and of every pit slot (``pit_slots``), and
    paints the static background. :meth:`paint` then copies the background and draws the
    pieces of one state (about 1-2 ms a frame at the default size).

    ``size`` is (width, height) in pixels. With ``panel`` (and a width of at least three times
    ``PANEL_WIDTH``) a strip of ``PANEL_WIDTH`` pixels on the right lists every player (speed,
    maximum, laps, chips, pit / out / clockwise, and a ``>`` at the deciding players).
    ``seat_colours`` overrides :data:`SEAT_COLOURS`.
    """

    def __init__(
        self,
        game: Game,
        size: tuple[int, int] = (640, 400),
        panel: bool = True,
        seat_colours: tuple[Colour, ...] = SEAT_COLOURS,
    ) -> None:
        width, height = int(size[0]), int(size[1])
        if width < 64 or height < 48:
            raise ValueError(f"picture size {size} is too small (at least 64 x 48)")
        if len(seat_colours) < game.num_players:
            raise ValueError(f"{game.num_players} players need as many seat colours")
        self.game = game
        self.width, self.height = width, height
        self.seat_colours = tuple(seat_colours)
        # the panel only where it leaves the board most of the width
        self.panel_x = width - PANEL_WIDTH if panel and width >= 3 * PANEL_WIDTH else width
        lay = self.layout = _Layout(game)
        tr = game.track
        hw = lay.hw
        # ---- the pit box: along the openings' squares, inside the inside lane
        op_sq = np.array([o.square for o in tr.openings], dtype=int)
        ref = float(lay.s[op_sq[0]]) if len(op_sq) else 0.0
        op_rel = lay.wrap(lay.s[op_sq] - ref) + ref if len(op_sq) else np.zeros(0)
        self.pit_lo = float((op_rel + lay.lo[op_sq]).min()) if len(op_sq) else 0.0
        self.pit_hi = float((op_rel + lay.hi[op_sq]).max()) if len(op_sq) else 0.0
        self.pit_out = -(hw + PIT_GAP)  # offset of the box side toward the track
        self.pit_in = self.pit_out - PIT_DEPTH
        # ---- world -> pixel transform fitting the board area
        ss = np.linspace(0.0, lay.length, 721)
        xs, ys = [], []
        for off in (hw + BORDER + 0.1, -(hw + BORDER + 0.1)):
            x, y, _ = lay.at(ss, off)
            xs.append(x)
            ys.append(y)
        sp = np.linspace(self.pit_lo, self.pit_hi, 9)
        x, y, _ = lay.at(sp, self.pit_in - 0.1)
        xs.append(x)
        ys.append(y)
        allx, ally = np.concatenate(xs), np.concatenate(ys)
        bw, bh = self.panel_x - 2 * MARGIN, height - 2 * MARGIN
        self.scale = scale = min(bw / (allx.max() - allx.min()), bh / (ally.max() - ally.min()))
        self.ox = MARGIN + (bw - scale * (allx.max() - allx.min())) / 2 - scale * allx.min()
        self.oy = MARGIN + (bh - scale * (ally.max() - ally.min())) / 2 + scale * ally.max()
        # ---- square centres and race-direction tangents, in pixels
        off = np.array([lay.lane_offset(int(ln)) for ln in lay.lane])
        mid = lay.s + (lay.lo + lay.hi) / 2
        x, y, h = lay.at(mid, off)
        # pixel-index coordinates: pixel (i, j) covers [i, i + 1) x [j, j + 1) around i + 0.5
        self.centres = np.stack([self.ox + scale * x - 0.5, self.oy - scale * y - 0.5], axis=1)
        self.tangents = np.stack([np.cos(h), -np.sin(h)], axis=1)
        n = game.num_players
        slot_s = self.pit_lo + (np.arange(n) + 0.5) * (self.pit_hi - self.pit_lo) / max(n, 1)
        x, y, h = lay.at(slot_s, self.pit_in + 0.36 * PIT_DEPTH)
        self.pit_slots = np.stack([self.ox + scale * x - 0.5, self.oy - scale * y - 0.5], axis=1)
        self.pit_tangent = np.array([math.cos(float(h[0])), -math.sin(float(h[0]))])
        # ---- stamps
        self.car_r = max(3.0, 0.42 * scale)
        self._car = _disc_alpha(self.car_r)
        self._car_edge = _ring_alpha(self.car_r, max(1.0, 0.06 * scale))
        self._cw_ring = _ring_alpha(self.car_r + max(2.0, 0.1 * scale), max(1.5, 0.09 * scale))
        self._halo = _ring_alpha(self.car_r + max(4.0, 0.22 * scale), 1.6)
        self._nose = _disc_alpha(max(1.5, 0.1 * scale))
        self._chip = _disc_alpha(max(2.0, 0.2 * scale))
        self._chip_edge = _ring_alpha(max(2.0, 0.2 * scale) + 0.6, 1.2)
        self._wreck = _disc_alpha(self.car_r * 0.8)
        self._cross = _cross_alpha(self.car_r * 0.9, max(2.0, 0.14 * scale))
        self.digit_scale = 2 if self.car_r >= 7.5 else 1 if self.car_r >= 4.5 else 0
        self.background = self._paint_background()

    # ------------------------------------------------------------------ static background
    def _paint_background(self) -> np.ndarray:
        lay, tr, scale = self.layout, self.game.track, self.scale
        hw, length = lay.hw, lay.length
        H, W = self.height, self.panel_x
        img = np.empty((self.height, self.width, 3), dtype=np.uint8)
        img[...] = GRASS
        py, px = np.mgrid[0:H, 0:W].astype(np.float64)
        wx = (px + 0.5 - self.ox) / scale
        wy = (self.oy - (py + 0.5)) / scale
        S, OFF, DS, PIECE, STRAIGHT = lay.locate(wx, wy, self.pit_in - 0.2, hw + BORDER)
        found = PIECE >= 0
        out = np.zeros((H, W, 3), dtype=np.float32)
        out[...] = GRASS
        # squares: colour by square, seams by distance to the square's edges
        n = len(lay.s)
        palette = np.zeros((n, 3), dtype=np.float32)
        for i in range(n):
            col = DIRT if tr.surface[i] == "dirt" else ASPHALT
            rating = tr.rating[i]
            if rating is not None:
                hard = min(1.0, max(0.0, (100 - rating) / 80))
                col = _mix(col, CURVE_TINT, 0.22 + 0.3 * hard)
            palette[i] = col
        on_track = found & (np.abs(OFF) <= hw)
        lane = np.clip(np.floor(OFF + hw), 0, lay.num_lanes - 1).astype(int)
        sq = np.full((H, W), -1, dtype=int)
        for ln in range(lay.num_lanes):
            members = lay.lane_squares[ln]
            starts = (lay.s[members] + lay.lo[members]) % length
            order = np.argsort(starts)
            m = on_track & (lane == ln)
            k = np.searchsorted(starts[order], S[m], side="right") - 1
            sq[m] = members[order][k % len(members)]
        idx = np.where(on_track, sq, 0)
        rel = lay.wrap(S - lay.s[idx])
        d_along = np.minimum(rel - lay.lo[idx], lay.hi[idx] - rel) * DS * scale
        lane_lo = lane - hw
        d_side = np.minimum(OFF - lane_lo, lane_lo + 1 - OFF) * scale
        seam_w = max(1.0, 0.07 * scale)
        seam = np.clip(seam_w / 2 + 0.5 - np.minimum(d_along, d_side), 0.0, 1.0)[..., None]
        squares = palette[idx] * (1 - seam) + np.array(SEAM, dtype=np.float32) * seam
        out[on_track] = squares[on_track]
        # the edges: white on straights, red and white kerbs on curves
        edge = found & (np.abs(OFF) > hw) & (np.abs(OFF) <= hw + BORDER)
        curve_px = np.array([p.arc for p in lay.pieces] + [False])[PIECE]
        red = curve_px & (np.floor(S * 2).astype(int) % 2 == 0)
        out[edge & ~red] = EDGE
        out[edge & red] = KERB_RED
        # the finish line: a checkered stripe across the lanes at s = 0
        along = lay.wrap(S) * DS * scale
        stripe = max(6.0, 0.34 * scale)
        cell = stripe / 2
        line = on_track & (np.abs(along) < stripe / 2)
        across = np.where(found, OFF + hw, 0.0) * scale
        checker = (np.floor((along + stripe / 2) / cell) + np.floor(across / cell)) % 2
        out[line & (checker == 0)] = FINISH_WHITE
        out[line & (checker == 1)] = FINISH_BLACK
        # the pit box and its openings
        if len(tr.openings):
            self._paint_pit(out, S, OFF, DS, found, STRAIGHT)
        img[:, :W] = (out + 0.5).astype(np.uint8)
        if self.panel_x < self.width:
            img[:, self.panel_x :] = PANEL
            img[:, self.panel_x : self.panel_x + 2] = (60, 66, 78)
        self._label_openings(img)
        self._label_ratings(img)
        return img

    def _paint_pit(
        self,
        out: np.ndarray,
        S: np.ndarray,
        OFF: np.ndarray,
        DS: np.ndarray,
        found: np.ndarray,
        straight: np.ndarray,
    ) -> None:
        lay, tr, scale, hw = self.layout, self.game.track, self.scale, self.layout.hw
        ref = (self.pit_lo + self.pit_hi) / 2
        rel = lay.wrap(S - ref) + ref
        ops = [lay.s[o.square] for o in tr.openings]
        allow = found & (straight if all(self._straight_at(s) for s in ops) else True)
        box = allow & (rel >= self.pit_lo) & (rel <= self.pit_hi)
        box &= (OFF >= self.pit_in) & (OFF <= self.pit_out)
        out[box] = PIT_FLOOR
        d = (
            np.minimum(
                np.minimum(rel - self.pit_lo, self.pit_hi - rel) * DS,
                np.minimum(OFF - self.pit_in, self.pit_out - OFF),
            )
            * scale
        )
        lw = max(1.5, 0.09 * scale)
        out[box & (d < lw)] = PIT_LINE
        active = {o.name for o in tr.openings}
        spec_pit = getattr(getattr(tr, "spec", None), "pit", None)
        if not self.game.rules.four_opening_pit and spec_pit is not None:
            active = {spec_pit.basic_entry, spec_pit.basic_exit}  # the basic game's two
        for o in tr.openings:
            i = o.square
            lo, hi = lay.s[i] + lay.lo[i], lay.s[i] + lay.hi[i]
            r = lay.wrap(S - lay.s[i]) + lay.s[i]
            band = allow & (r >= lo + 0.12) & (r <= hi - 0.12)
            if o.name in active:
                conn = band & (OFF > self.pit_out - 0.05) & (OFF < -hw)
                dd = np.minimum(r - lo - 0.12, hi - 0.12 - r) * DS * scale
                out[conn] = PIT_FLOOR
                out[conn & (dd < lw)] = PIT_LINE
            else:
                mark = band & (OFF > self.pit_out) & (OFF < self.pit_out + 0.5 * PIT_GAP)
                out[mark] = CLOSED

    def _straight_at(self, s: float) -> bool:
        """Whether track ``s`` lies on a straight piece of the loop."""
        for p in self.layout.pieces:
            if p.s0 <= s % self.layout.length < p.s1:
                return not p.arc
        return False

    def _label_ratings(self, img: np.ndarray) -> None:
        """Write each curve rating, small, on the first square of its run in each lane."""
        lay, tr = self.layout, self.game.track
        if self.scale < 14:
            return
        for members in lay.lane_squares:
            for k, sq in enumerate(members):
                prev = members[k - 1]
                rating = tr.rating[sq]
                if rating is None or (tr.curve[prev] == tr.curve[sq] and tr.rating[prev] == rating):
                    continue
                label = str(rating)
                x, y = self.centres[sq]
                draw_text(
                    img,
                    int(round(x - text_width(label, 1) / 2)),
                    int(round(y - 2)),
                    label,
                    RATING_TEXT,
                    1,
                )

    def _label_openings(self, img: np.ndarray) -> None:
        lay, tr = self.layout, self.game.track
        if self.scale < 12:
            return
        for o in tr.openings:
            x, y, _ = lay.at(lay.s[o.square], self.pit_out - 0.45)
            cx, cy = self.ox + self.scale * float(x[0]), self.oy - self.scale * float(y[0])
            sc = 2 if self.scale >= 18 else 1
            draw_text(
                img, int(cx - text_width(o.name, sc) / 2), int(cy - 2.5 * sc), o.name, DIM_TEXT, sc
            )

    # ------------------------------------------------------------------ dynamic pieces
    def paint(self, state: State) -> np.ndarray:
        """A new ``(height, width, 3)`` uint8 picture of ``state``."""
        img = self.background.copy()
        cs = self.centres
        for sq, kind in state.track_chips.items():
            x, y = cs[sq]
            _blend(img, x, y, self._chip_edge, (235, 235, 235))
            _blend(img, x, y, self._chip, CHIP_COLOURS[kind])
        in_pit = sorted((c for c in state.cars if c.in_pit), key=lambda c: c.pit_order)
        for rank, car in enumerate(in_pit):
            x, y = self.pit_slots[min(rank, len(self.pit_slots) - 1)]
            self._car_at(img, car, x, y, self.pit_tangent)
        players = state.current_players()
        for car in state.cars:
            if car.in_pit or car.square < 0:
                continue
            x, y = cs[car.square]
            if players == (car.seat,) and not car.out:  # the one player deciding now
                _blend(img, x, y, self._halo, HIGHLIGHT)
            self._car_at(img, car, x, y, self.tangents[car.square])
        if self.panel_x < self.width:
            self._paint_panel(img, state)
        return img

    def _car_at(self, img: np.ndarray, car: Car, x: float, y: float, tangent: np.ndarray) -> None:
        """One car (or wreck) centred at pixel (x, y); ``tangent`` is the race direction."""
        colour = self.seat_colours[car.seat]
        if car.out:
            _blend(img, x, y, self._wreck, _mix(colour, DARK, 0.55))
            _blend(img, x, y, self._cross, WRECK_CROSS)
            return
        if car.facing == 1:
            _blend(img, x, y, self._cw_ring, CW_MARK)
        _blend(img, x, y, self._car, colour)
        _blend(img, x, y, self._car_edge, DARK)
        sign = 1.0 if car.facing == 0 else -1.0
        nx, ny = x + sign * tangent[0] * self.car_r, y + sign * tangent[1] * self.car_r
        _blend(img, nx, ny, self._nose, DARK if car.facing == 0 else CW_MARK)
        sc = self.digit_scale
        if sc:
            draw_text(
                img, int(round(x - 1.5 * sc)), int(round(y - 2.5 * sc)), str(car.seat), DARK, sc
            )

    def _paint_panel(self, img: np.ndarray, state: State) -> None:
        g = self.game
        x0 = self.panel_x + 8
        head = f"ROUND {state.round}/{g.rules.round_limit}"
        draw_text(img, x0, 8, head, TEXT)
        if state.is_terminal():
            word = state.status.value.replace("_", " ")
            if state.winner is not None:
                word = f"WIN P{state.winner}"
            draw_text(img, x0, 24, word, HIGHLIGHT)
        elif state.chance is not None:
            draw_text(img, x0, 24, state.chance.kind.value.replace("_", " "), DIM_TEXT)
        elif state.decision is not None:
            draw_text(img, x0, 24, state.decision.kind.value.replace("_", " "), HIGHLIGHT)
        deciding = set(state.current_players())
        n = len(state.cars)
        top = 42
        row_h = max(30, min(58, (self.height - top - 4) // max(n, 1)))
        bar_w = self.width - x0 - 30 - 6
        full = max(g.rules.max_speed, 1)
        for car in state.cars:
            y = top + car.seat * row_h
            if y + 30 > self.height:
                break
            colour = self.seat_colours[car.seat]
            if car.seat in deciding:
                draw_text(img, self.panel_x + 3, y + 4, ">", HIGHLIGHT)
            cx, cy = x0 + 12, y + 9
            if car.out:
                _blend(img, cx, cy, _disc_alpha(8.0), _mix(colour, DARK, 0.55))
                _blend(img, cx, cy, _cross_alpha(7.0, 2.5), WRECK_CROSS)
            else:
                _blend(img, cx, cy, _disc_alpha(8.0), colour)
                _blend(img, cx, cy, _ring_alpha(8.0, 1.2), DARK)
                draw_text(img, cx - 3, cy - 5, str(car.seat), DARK)
            tx = x0 + 26
            end = draw_text(img, tx, y + 1, f"{car.speed}", TEXT)
            end = draw_text(img, end + 2, y + 1, f"/{car.max_speed}", DIM_TEXT)
            status = "OUT" if car.out else "PIT" if car.in_pit else "CW" if car.facing else ""
            if status:
                draw_text(
                    img,
                    self.width - 6 - text_width(status),
                    y + 1,
                    status,
                    CW_MARK if status != "PIT" else PIT_LINE,
                )
            # speed bar: filled to speed, dark red beyond the car's maximum
            by = y + 14
            img[by : by + 4, tx : tx + bar_w] = (58, 62, 72)
            lost = int(round(bar_w * (1 - min(car.max_speed, full) / full)))
            if lost:
                img[by : by + 4, tx + bar_w - lost : tx + bar_w] = (110, 30, 30)
            fill = int(round(bar_w * min(car.speed, full) / full))
            img[by : by + 4, tx : tx + fill] = colour
            if row_h >= 40:
                ly = y + 22
                laps = f"L{state.laps(car.seat)}/{state.laps_required(car.seat)}"
                end = draw_text(img, tx, ly, laps, TEXT)
                cx2 = end + 6
                for kind, cnt in enumerate(car.chips):
                    _blend(img, cx2 + 3, ly + 5, _disc_alpha(3.0), CHIP_COLOURS[kind])
                    _blend(img, cx2 + 3, ly + 5, _ring_alpha(3.6, 1.0), (200, 200, 200))
                    cx2 = draw_text(img, cx2 + 9, ly, str(cnt), TEXT) + 3
