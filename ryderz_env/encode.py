"""Observation encoding of Lazer Ryderz: the table as a float32 vector (``obs_mode="vector"``).

Layer 2 of the design: no RL imports. :class:`VectorEncoder` turns what a seat may know
(everything on the table; see ``State.observation``) into one flat vector, mostly in
[-1, 1], from the observer's point of view: positions and headings of the others, the Prizms
and the recent pieces are given in the observer's frame (its head pose; before its launch or
after a crash, its seat's Launch Point frame), seats in the order observer first, then the
others clockwise. Blocks, in order (``VectorEncoder.blocks`` names them with their sizes):

1. ``decision``: the decision asked (one-hot over none + every ``DecisionKind``), whether the
   observer decides, round progress.
2. ``turn``: per seat, its place in this round's order, the mover, the Tie-Breaker Marker.
3. ``self``: on the table, head position (table frame) and heading, gear, supply, power,
   character, score.
4. ``others``: per other seat, the same in the observer's frame (without the supply detail).
5. ``prizms``: per Prizm slot (the table's Prizms in state order, then padding): present,
   position and distance in the observer's frame, owner (neutral, observer, others), locked.
6. ``rays``: distances from the head's point to the nearest Lazer or table edge along
   ``num_rays`` directions spread evenly from straight ahead, as a fraction of ``ray_range``.
7. ``recent``: per seat, its newest ``recent_pieces`` elements as centreline segments in the
   observer's frame (present, start, end, is a Launch Point).

Rays are cast against capsules: each piece's centreline (curves as a few chords) grown by
half the Lazer width, and a Launch Point's middle, so that one ray pass costs a handful of
numpy operations over a few hundred segments instead of every outline edge.
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import numpy as np

from ryderz_env.rules import Element, Game, Pose, State
from ryderz_env.rules.config import Character, PieceKind
from ryderz_env.rules.geometry import arc_segments, to_world
from ryderz_env.rules.state import DecisionKind

DECISIONS = (None, *DecisionKind)
CHARACTERS = tuple(Character)
LAUNCH = PieceKind.LAUNCH
#: chord sagitta of the centrelines the rays see (inches)
RAY_SAGITTA = 0.02
#: Lazers whose joined capsule tables ``VectorEncoder`` keeps (the oldest go first)
LAZER_CACHE = 512


#: how near (inches; squared inches for the ends) the ray origin must lie to a capsule's side
#: line or outline for the rounding of the cast to decide what it sees
GRAZE = 1e-9


def chord_table(a: np.ndarray, b: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Capsules: chords from ``a`` to ``b`` ((S, 2) each) grown by ``radii`` (S,), as the
    (17, S) table :func:`cast_rays` reads. Rows, grouped so that each group is one array of a
    single operation: nx, ux, ny, uy (unit normal n = (-uy, ux) and direction u); n.a,
    u.a + L/2; L/2, r; ax, bx, ay, by; the midpoint (x, y); r^2, r^2; (L/2 + r)^2."""
    e = b - a
    length = np.hypot(e[:, 0], e[:, 1])
    inv = 1.0 / np.maximum(length, 1e-12)
    ux, uy = e[:, 0] * inv, e[:, 1] * inv
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    half = length / 2.0
    r = np.broadcast_to(radii, length.shape)
    return np.stack([-uy, ux, ux, uy, ux * ay - uy * ax, ux * ax + uy * ay + half, half, r,
                     ax, bx, ay, by, (ax + bx) / 2.0, (ay + by) / 2.0, r * r, r * r,
                     (half + r) ** 2])


#: the rows of a ``chord_table`` with a and b as (ax, ay, bx, by)
ENDS = [8, 10, 9, 11]


def reachable(rays: np.ndarray, chords: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Indices of the capsules (a ``chord_table``) that a ray may meet, for rays evenly
    spread around the circle (``rays`` as in :func:`cast_rays`). A ray meets a capsule only
    if it meets the disc around it (centre m, radius L/2 + r), and if any ray does, the ray
    nearest in angle to m does. That one passes m at sin(x) |m| for an angle x of at most half
    the angle between rays, so at least k x |m| with k a lower bound of sin(x) / x there;
    ``limit`` is ((L/2 + r) / (k * the angle between rays))^2 per capsule."""
    n_rays = rays.shape[1] - 1
    m = chords[12:14] - rays[:, n_rays:]
    off = np.arctan2(m[1], m[0])
    off -= math.atan2(rays[1, 0], rays[0, 0])
    off *= n_rays / (2.0 * math.pi)
    off -= np.rint(off)  # the angle to the nearest ray, in steps
    off *= off
    m *= m
    off *= m.sum(axis=0)
    return np.flatnonzero(off <= limit)


def cast_rays(rays: np.ndarray, chords: np.ndarray) -> np.ndarray:
    """For each ray, the distance from its origin to the first capsule (a ``chord_table``),
    ``inf`` where it meets none; an origin inside a capsule sees it at distance 0. ``rays``
    (2, R + 1) holds R unit directions as columns, then the origin.

    Both long sides of a capsule are one test: where the ray enters the slab ``|n.(p - a)| <=
    r`` from the origin's side, if there ``0 <= u.(p - a) <= L``. An origin inside a slab gets a
    meaningless entry, left in: a ray that meets the slab between the capsule's ends from there
    went through an end disc first, which the ends find nearer.

    Pieces fit a lattice of sorts, so rays do run along side lines and graze ends, and the
    origin can lie on an outline; there the answer is a matter of rounding. Those cases are
    computed in the arithmetic of :func:`_sides_by_line` and :func:`_inside_by_projection`, and
    the ends always in that of :func:`_ends`, so that an observation never depends on which
    of two formulas was used.
    """
    n_rays, n_ch = rays.shape[1] - 1, chords.shape[1]
    origin = rays[:, n_rays:]
    # d.n, then d.u, per ray and capsule (R + 1, S) each, the origin's last
    p = np.matmul(rays.T, chords[:4].reshape(2, 2, n_ch).transpose(1, 0, 2))
    ms = chords[4:6] - p[:, n_rays]
    m0, nsm = ms  # -n.(o - a), L/2 - u.(o - a)
    hl, radius = chords[6:8]
    g = np.abs(m0)
    g -= radius  # how far the origin lies outside the slab
    # the ends: both of each capsule (a disc shared by two chords twice, to the same bits)
    c = chords[8:12].reshape(2, 2 * n_ch) - origin  # v - o
    e = (c * c).sum(axis=0)
    e -= chords[14:16].reshape(-1)  # |v - o|^2 - r^2
    near_end = e.min() < GRAZE
    out = np.abs(nsm)
    out -= hl
    np.maximum(out, g, out=out)  # how far the origin lies outside the rectangle (at least)
    if (near_end or out.min() < GRAZE) and _inside_by_projection(
            origin[:, 0], chords[ENDS], radius):
        return np.zeros(n_rays)
    with np.errstate(divide="ignore", invalid="ignore"):
        sides = np.copysign(g, m0) / p[0, :n_rays]  # where each ray enters each slab
        q = sides * p[1, :n_rays]
        q -= nsm
        np.abs(q, out=q)
        miss = q > hl
        miss |= sides < 0.0
        np.abs(g, out=g)
        on_line = g.min() < GRAZE
        if on_line:
            lined = g < GRAZE
            miss[:, lined] = True
        np.putmask(sides, miss, np.inf)
        best = sides.min(axis=1)
        if on_line:
            np.minimum(best, _sides_by_line(rays, chords[ENDS][:, lined], radius[lined]),
                       out=best)
        # |c - t d| = r: t = c.d - sqrt((c.d)^2 - e); with c.d clamped to 0, a disc behind the
        # origin (e > 0) gets a negative square, so nan
        ends = rays[0, :n_rays, None] * c[0]
        ends += rays[1, :n_rays, None] * c[1]
        if near_end:
            inner = e < GRAZE
            ends[:, inner] = _ends(ends[:, inner], e[inner])
            ends[:, ~inner] = _ends(np.maximum(ends[:, ~inner], 0.0), e[~inner])
        else:
            np.maximum(ends, 0.0, out=ends)
            root = ends * ends
            root -= e
            np.sqrt(root, out=root)
            ends -= root
        return np.fmin(best, np.fmin.reduce(ends, axis=1), out=best)


def _ends(bb: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Ray hits on discs given c.d (R, V) and |c|^2 - r^2 (V,); nan where none."""
    disc = bb * bb - e
    t2 = bb - np.sqrt(disc)
    return np.where((disc >= 0) & (t2 >= 0), t2, np.nan)


def _sides_by_line(rays: np.ndarray, ends: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Per ray (``rays`` as in :func:`cast_rays`), the nearest hit on the long sides of
    capsules (``ends``: rows ax, ay, bx, by), each side a segment crossed by the ray; ``inf``
    where none."""
    dirs = rays[:, :-1].T
    ox, oy = rays[:, -1]
    ax, ay = ends[0] - ox, ends[1] - oy
    bx, by = ends[2] - ox, ends[3] - oy
    ex, ey = bx - ax, by - ay
    length = np.hypot(ex, ey)
    inv = 1.0 / np.maximum(length, 1e-12)
    ux, uy = ex * inv, ey * inv
    dx, dy = dirs[:, 0:1], dirs[:, 1:2]
    # the long sides p = a +- r n, n = (-uy, ux): o + t d = p + s u, 0 <= s <= length
    px = np.concatenate([ax - radii * uy, ax + radii * uy])
    py = np.concatenate([ay + radii * ux, ay - radii * ux])
    su, sv, sl = np.concatenate([ux, ux]), np.concatenate([uy, uy]), np.concatenate(
        [length, length])
    denom = dx * sv - dy * su
    t = (px * sv - py * su) / denom
    s = (px * dy - py * dx) / denom
    return np.where((t >= 0) & (s >= 0) & (s <= sl), t, np.inf).min(axis=1)


def _inside_by_projection(origin: np.ndarray, ends: np.ndarray, radii: np.ndarray) -> bool:
    """Whether ``origin`` lies within its radius of a capsule's chord (``ends`` as above)."""
    ox, oy = origin
    ax, ay = ends[0] - ox, ends[1] - oy
    ex, ey = ends[2] - ox - ax, ends[3] - oy - ay
    length = np.hypot(ex, ey)
    inv = 1.0 / np.maximum(length, 1e-12)
    ux, uy = ex * inv, ey * inv
    proj = np.clip(-(ax * ux + ay * uy), 0.0, length)
    return bool((np.hypot(ax + proj * ux, ay + proj * uy) < radii).any())


def ray_distances(origin: tuple[float, float], dirs: np.ndarray, segs: np.ndarray,
                  radii: np.ndarray, max_range: float) -> np.ndarray:
    """For each unit direction (R, 2, evenly spread around the circle), the distance along
    the ray from ``origin`` to the first capsule (segments (S, 2, 2) grown by ``radii``
    (S,)), capped at ``max_range``; an origin inside a capsule sees it at distance 0."""
    if not len(segs):
        return np.full(len(dirs), max_range)
    chords = chord_table(segs[:, 0], segs[:, 1], np.asarray(radii, dtype=float))
    rays = np.vstack([dirs, [origin]]).T.copy()
    return np.fmin(cast_rays(rays, chords), max_range)


def _placement(local: np.ndarray) -> np.ndarray:
    """A (9, 17 k) matrix that maps (c, s, c x, c y, s x, s y, x, y, 1) of a pose (x, y, h),
    c = cos h, s = sin h, to the ``chord_table`` (17, k), flattened, of ``local``'s capsules
    placed at that pose (rows of a and b left at 0)."""
    nx, ux, ny, uy, na, ua, hl, r, _, _, _, _, mx, my, r2, _, lim = local
    z = np.zeros_like(nx)
    one = np.ones_like(nx)
    rows = [  # per table row, its coefficient of each of the 9
        (nx, -ny, z, z, z, z, z, z, z), (ux, -uy, z, z, z, z, z, z, z),
        (ny, nx, z, z, z, z, z, z, z), (uy, ux, z, z, z, z, z, z, z),
        (z, z, nx, ny, -ny, nx, z, z, na), (z, z, ux, uy, -uy, ux, z, z, ua),
        (z, z, z, z, z, z, z, z, hl), (z, z, z, z, z, z, z, z, r),
        *[(z,) * 9] * 4,
        (mx, -my, z, z, z, z, one, z, z), (my, mx, z, z, z, z, z, one, z),
        (z, z, z, z, z, z, z, z, r2), (z, z, z, z, z, z, z, z, r2),
        (z, z, z, z, z, z, z, z, lim)]
    return np.array(rows).transpose(1, 0, 2).reshape(9, -1)


class LazerTables(NamedTuple):
    """What the encoder keeps per Lazer: its elements' capsules joined (a ``chord_table``),
    how many of them are the front element's (the last ones), and its ``recent`` block rows in
    table coordinates (newest first: present, entry x, y, exit x, y, is a Launch Point)."""

    chords: np.ndarray
    front: int
    recent: np.ndarray


class VectorEncoder:
    """Encodes states of one :class:`Game` for any seat as float32 vectors."""

    def __init__(self, game: Game, num_rays: int = 16, recent_pieces: int = 6) -> None:
        self.game = game
        r = game.rules
        self.n = n = r.num_players
        self.top = game.top_gear
        self.num_rays = num_rays
        self.recent = recent_pieces
        self.prizm_slots = n * r.win_prizms
        tb = game.table
        x0, y0, x1, y1 = tb.polygon.bounds
        cx, cy = tb.centre
        #: half the table's largest extent: positions are scaled by it
        self.scale = max(x1 - cx, cx - x0, y1 - cy, cy - y0)
        self.ray_range = 2.0 * self.scale
        self._rel_scale = 1.0 / (2.0 * self.scale)
        self.half_width = game.pieces.width / 2.0
        self.lp_width = game.table.cfg.launch_point.width
        self.lp_depth = game.table.cfg.launch_point.depth
        #: per piece shape (and ``LAUNCH`` for a Launch Point), the centreline points the rays
        #: see, in its local frame, their capsule radius and their local ``chord_table``; a
        #: Launch Point is one capsule across its middle, as wide and as deep as the token
        lp_r = self.lp_depth / 2.0
        lp_half = max(0.0, self.lp_width / 2.0 - lp_r)
        local = {key: (shape.centreline(1 if shape.side == 0 else arc_segments(
            shape.angle, shape.radius, RAY_SAGITTA)), self.half_width)
            for key, shape in game.shapes.items()}
        local[LAUNCH] = (np.array([[lp_r, -lp_half], [lp_r, lp_half]]), lp_r)
        half = math.pi / num_rays
        self._cull = num_rays >= 4
        self._shape_tables = {}
        for key, (pts, radius) in local.items():
            table = chord_table(pts[:-1], pts[1:], np.full(len(pts) - 1, radius))
            if self._cull:  # ``reachable``'s limit: row 16 over (k * the angle between rays)^2,
                # k = sin(x) / x at half that angle, less a margin
                table[16] /= (0.999 * math.sin(half) / half * 2.0 * half) ** 2
            self._shape_tables[key] = (pts, _placement(table))
        #: per element on the table, its capsule tables (elements are immutable and shared
        #: between states, so this cache holds them weakly); per Lazer (the tuple of its
        #: elements), its :class:`LazerTables`; per heading, the ray directions
        self._element_tables: weakref.WeakKeyDictionary[
            Element, np.ndarray] = weakref.WeakKeyDictionary()
        self._lazer_cache: dict[tuple[Element, ...], LazerTables] = {}
        self._directions: dict[float, np.ndarray] = {}
        self._no_recent = np.zeros((recent_pieces, 6))
        self.ray_angles = np.arange(num_rays) * (2.0 * math.pi / num_rays)
        self.max_supply = max(max(g) for g in game.supply) or 1
        self._total_supply = sum(map(sum, game.supply)) or 1
        self.blocks = (
            ("decision", len(DECISIONS) + 2),
            ("turn", 3 * n),
            ("self", 5 + self.top + 3 * self.top + 2 + len(CHARACTERS) + 2),
            ("others", (n - 1) * (5 + self.top + 1 + len(CHARACTERS) + 2)),
            ("prizms", self.prizm_slots * (4 + 1 + n + 1)),
            ("rays", num_rays),
            ("recent", n * recent_pieces * 6),
        )
        self.size = sum(s for _, s in self.blocks)
        self._head_size = self.size - num_rays - n * recent_pieces * 6  # up to the rays
        #: the decision block's slot per raw decision kind (``state.decision["kind"]``)
        self._decision_slot = {None if k is None else k.value: i for i, k in enumerate(DECISIONS)}
        self._character_slot = [CHARACTERS.index(r.characters[s]) for s in range(n)]
        self._seat_orders = [[(s + k) % n for k in range(n)] for s in range(n)]
        self._seat_frames = [tb.launch_frame(tb.seat_position(s, n)) for s in range(n)]
        if not game.table.is_circle:
            v = game.table.vertices
            e = np.roll(v, -1, axis=0) - v
            self._edge_cols = (v[:, 0].copy(), v[:, 1].copy(), e[:, 0].copy(), e[:, 1].copy())

    # ------------------------------------------------------------------ frames
    def frame(self, state: State, seat: int) -> Pose:
        """The observer's frame: its head, else its seat's Launch Point frame."""
        head = state.players[seat].head
        return self._seat_frames[seat] if head is None else head

    # ------------------------------------------------------------------ rays
    def _capsules(self, el: Element) -> np.ndarray:
        """The capsules (``chord_table``) of an element's world centreline chords: a linear
        map of the element's pose (see :func:`_placement`), the ends at the world points of
        ``geometry.to_world``."""
        got = self._element_tables.get(el)
        if got is None:
            pts, placement = self._shape_tables[
                LAUNCH if el.is_launch else (el.kind, el.gear, el.side)]
            x, y, h = el.pose
            c, s = math.cos(h), math.sin(h)
            got = (np.array([c, s, c * x, c * y, s * x, s * y, x, y, 1.0]) @ placement).reshape(
                17, -1)
            pts = to_world(pts, el.pose)
            got[8:12:2] = pts[:-1].T
            got[9:12:2] = pts[1:].T
            self._element_tables[el] = got
        return got

    def _lazer_tables(self, lazer: list[Element]) -> LazerTables | None:
        """The tables of a Lazer (None for none). Consecutive states share most Lazers, so
        they are kept, and a Lazer one piece longer than a kept one is built from it."""
        if not lazer:
            return None
        key = tuple(lazer)
        got = self._lazer_cache.get(key)
        if got is None:
            front = lazer[-1]
            chords = self._capsules(front)
            row = np.array([[1.0, front.pose.x, front.pose.y, front.exit.x, front.exit.y,
                             float(front.is_launch)]])
            prev = self._lazer_cache.get(key[:-1]) if len(key) > 1 else None
            if prev is not None:
                got = LazerTables(np.concatenate([prev.chords, chords], axis=1),
                                  chords.shape[1], np.concatenate([row, prev.recent[:-1]]))
            else:
                recent = np.zeros((self.recent, 6))
                for out, el in zip(recent, reversed(lazer[-self.recent:]), strict=False):
                    out[:] = (1.0, el.pose.x, el.pose.y, el.exit.x, el.exit.y,
                              float(el.is_launch))
                got = LazerTables(np.concatenate([self._capsules(el) for el in lazer], axis=1),
                                  chords.shape[1], recent)
            if len(self._lazer_cache) >= LAZER_CACHE:
                del self._lazer_cache[next(iter(self._lazer_cache))]  # the oldest
            self._lazer_cache[key] = got
        return got

    def rays(self, state: State, seat: int) -> np.ndarray:
        """Distances (fractions of ``ray_range``) from the observer's point along each ray."""
        tables = [self._lazer_tables(state.players[s].lazer) for s in self._seat_orders[seat]]
        return self._rays(state, seat, self.frame(state, seat), tables)

    def _rays(self, state: State, seat: int, fr: Pose,
              tables: list[LazerTables | None]) -> np.ndarray:
        """:meth:`rays`, given the frame and the seats' Lazer tables, the observer's first."""
        me = state.players[seat]
        n_rays = self.num_rays
        dirs = self._directions.get(fr.h)
        if dirs is None:
            ang = fr.h + self.ray_angles
            dirs = np.stack([np.cos(ang), np.sin(ang)])
            if len(self._directions) >= LAZER_CACHE:
                self._directions.clear()
            self._directions[fr.h] = dirs
        rays = np.empty((2, n_rays + 1))  # the directions, then the origin, as columns
        rays[:, :n_rays] = dirs
        rays[:, n_rays] = fr.ahead(self.game.pieces.tip if me.head is not None else 0.0)
        chords = [t.chords for t in tables if t is not None]
        own = tables[0]
        if own is not None and me.head == me.lazer[-1].exit:  # leave out the piece it sits on
            chords[0] = own.chords[:, :-own.front]
        dist = self._edge_distances(rays)
        if chords:
            chords_all = np.concatenate(chords, axis=1)
            if self._cull:
                chords_all = chords_all[:, reachable(rays, chords_all, chords_all[16])]
            if chords_all.shape[1]:
                np.minimum(dist, cast_rays(rays, chords_all), out=dist)
        dist /= self.ray_range
        return dist

    def _edge_distances(self, rays: np.ndarray) -> np.ndarray:
        """Per ray (``rays`` as in :func:`cast_rays`), the distance to the table's edge."""
        ox, oy = rays[:, -1].tolist()
        dx, dy = rays[0, :-1, None], rays[1, :-1, None]
        tb = self.game.table
        if tb.is_circle:
            b = dx[:, 0] * ox
            b += dy[:, 0] * oy
            c = ox * ox + oy * oy - tb.radius ** 2
            root = b * b
            root -= c
            np.maximum(root, 0.0, out=root)
            np.sqrt(root, out=root)
            root -= b
            return np.minimum(root, self.ray_range, out=root)
        # the origin can lie on an edge's line (a seat's Launch Point frame), where what a ray
        # sees is a matter of rounding: this is exactly the arithmetic of the first version
        p0, p1, e0, e1 = self._edge_cols
        denom = dx * e1
        denom -= dy * e0
        w0, w1 = p0 - ox, p1 - oy
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (w0 * e1 - w1 * e0) / denom
            s = w0 * dy
            s -= w1 * dx
            s /= denom
        miss = np.abs(denom) <= 1e-12
        miss |= t < 0
        miss |= s < 0
        miss |= s > 1
        np.putmask(t, miss, np.inf)
        return np.minimum(t.min(axis=1), self.ray_range)

    # ------------------------------------------------------------------ the vector
    def encode(self, state: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` (float32, length ``size``)."""
        r, n = self.game.rules, self.n
        out = [0.0] * self._head_size  # the blocks up to the Prizms, one conversion at the end
        seats = self._seat_orders[seat]
        decision = state.decision
        out[self._decision_slot[decision["kind"] if decision else None]] = 1.0
        i = len(DECISIONS)
        out[i] = float(seat in state.current_players())
        out[i + 1] = state.round / r.round_limit
        i += 2
        for k, s in enumerate(state.order):
            out[i + (s - seat) % n] = (k + 1) / n
        if state.turn is not None:
            out[i + n + (state.turn["seat"] - seat) % n] = 1.0
        out[i + 2 * n + (state.marker - seat) % n] = 1.0
        i += 3 * n
        fr = self.frame(state, seat)
        fx, fy, fh = fr
        c, sn, k = math.cos(fh), math.sin(fh), self._rel_scale
        players = state.players
        me = players[seat]
        scores = [0] * n
        for q in state.prizms:
            if q.owner >= 0:
                scores[q.owner] += 1
        cx, cy = self.game.table.centre
        out[i] = float(me.head is not None)
        out[i + 1] = (fx - cx) / self.scale
        out[i + 2] = (fy - cy) / self.scale
        out[i + 3], out[i + 4] = c, sn
        i += 5
        out[i + me.gear - 1] = 1.0
        i += self.top
        ms = self.max_supply
        out[i:i + 3 * self.top] = [v / ms for gear in me.supply for v in gear]
        i += 3 * self.top
        out[i], out[i + 1] = float(r.powers), float(r.powers and me.power_ready)
        i += 2
        out[i + self._character_slot[seat]] = 1.0
        i += len(CHARACTERS)
        out[i] = scores[seat] / r.win_prizms
        out[i + 1] = sum(1 for e in me.lazer if e.kind is not LAUNCH) / self._total_supply
        i += 2
        for s in seats[1:]:
            p = players[s]
            head = p.head
            if head is not None:
                dx, dy = head.x - fx, head.y - fy
                out[i] = 1.0
                out[i + 1], out[i + 2] = (c * dx + sn * dy) * k, (-sn * dx + c * dy) * k
                out[i + 3] = math.cos(head.h - fh)
                out[i + 4] = math.sin(head.h - fh)
            i += 5
            out[i + p.gear - 1] = 1.0
            i += self.top
            out[i] = float(r.powers and p.power_ready)
            i += 1
            out[i + self._character_slot[s]] = 1.0
            i += len(CHARACTERS)
            out[i] = scores[s] / r.win_prizms
            out[i + 1] = sum(map(sum, p.supply)) / self._total_supply
            i += 2
        prizms = state.prizms[: self.prizm_slots]
        if prizms:
            for b, q, locked in zip(range(i, self._head_size, 6 + n), prizms, state.locks(),
                                    strict=False):
                dx, dy = q.x - fx, q.y - fy
                x, y = (c * dx + sn * dy) * k, (-sn * dx + c * dy) * k
                out[b], out[b + 1], out[b + 2] = 1.0, x, y
                out[b + 3] = min(1.0, math.hypot(x, y))
                out[b + 4 + (0 if q.owner < 0 else 1 + (q.owner - seat) % n)] = 1.0
                out[b + 5 + n] = float(locked)
        vec = np.empty(self.size, dtype=np.float32)
        vec[: self._head_size] = out
        tables = [self._lazer_tables(players[s].lazer) for s in seats]
        i = self._head_size
        vec[i:i + self.num_rays] = self._rays(state, seat, fr, tables)
        i += self.num_rays
        # the recent pieces: entry and exit points, turned into the observer's frame
        recent = np.concatenate([self._no_recent if t is None else t.recent for t in tables])
        pts = recent[:, 1:5].reshape(-1, 2)
        pts -= (fx, fy)
        pts = pts @ np.array([[c * k, -sn * k], [sn * k, c * k]])
        pts *= np.repeat(recent[:, 0], 2)[:, None]  # nothing where no piece
        recent[:, 1:5] = pts.reshape(-1, 4)
        vec[i:] = recent.ravel()
        np.minimum(vec, 1.0, out=vec)
        return np.maximum(vec, -1.0, out=vec)
