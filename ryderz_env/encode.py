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
half the Lazer width, and a Launch Point's middle (:func:`cast_rays`). The capsules are kept
per Lazer, a Lazer one piece longer than a known one built from it, and cast in one compiled
loop over the table's capsules (``ryderz_env.raycast``); a convex table's edges are capsules
of radius 0 in the same pass (reaching ``raycast.GRAZE`` past their corners).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ryderz_env.raycast import GRAZE, cast, directions, extend, finish, place
from ryderz_env.rules import Element, Game, Pose, State
from ryderz_env.rules.config import Character, PieceKind
from ryderz_env.rules.geometry import arc_chords
from ryderz_env.rules.records import DecisionKind

DECISIONS = (None, *DecisionKind)
_NO_HEAD = (0.0, 0.0, 0.0, 0.0)
CHARACTERS = tuple(Character)
LAUNCH = PieceKind.LAUNCH
#: chord sagitta of the centrelines the rays see (inches)
RAY_SAGITTA = 0.02
#: the most chords of one curve's centreline the rays see (a curve of an absurd radius in a
#: pieces file stays a few hundred chords)
MAX_RAY_CHORDS = 256


def _ray_chords(angle: float, radius: float) -> int:
    """Chords of a curve's centreline for the rays: none more than :data:`RAY_SAGITTA` inside
    the arc, at most :data:`MAX_RAY_CHORDS`."""
    return min(arc_chords(angle, radius, RAY_SAGITTA), MAX_RAY_CHORDS)


#: Lazers whose joined capsule tables ``VectorEncoder`` keeps (all forgotten when it is full)
LAZER_CACHE = 512
#: how far ahead of its seat's Launch Point frame (inches) an observer with no head casts its
#: rays on a polygon table, where that frame's point lies on an edge (or just inside it, at a
#: seat on a corner)
EDGE_INSET = 1e-6
_NO_ANGLES = np.zeros(0)


def chord_table(a: np.ndarray, b: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Capsules: chords from ``a`` to ``b`` ((S, 2) each) grown by ``radii`` (S,), as the
    (14, S) table :func:`cast_rays` reads. Rows, grouped so that each group is one array of a
    single operation: nx, ux, ny, uy (unit normal n = (-uy, ux) and direction u); n.a,
    u.a + L/2; L/2, r; ax, bx, ay, by; r^2, r^2."""
    e = b - a
    length = np.hypot(e[:, 0], e[:, 1])
    inv = 1.0 / np.maximum(length, 1e-12)
    ux, uy = e[:, 0] * inv, e[:, 1] * inv
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    half = length / 2.0
    r = np.broadcast_to(radii, length.shape)
    return np.stack(
        [
            -uy,
            ux,
            ux,
            uy,
            ux * ay - uy * ax,
            ux * ax + uy * ay + half,
            half,
            r,
            ax,
            bx,
            ay,
            by,
            r * r,
            r * r,
        ]
    )


def cast_rays(rays: np.ndarray, chords: np.ndarray, n_ends: int | None = None) -> np.ndarray:
    """For each ray, the distance from its origin to the first capsule (a ``chord_table``),
    ``inf`` where it meets none; an origin inside a capsule sees every capsule at distance 0.
    ``rays`` (2, R + 1) holds R unit directions as columns, then the origin. Only the first
    ``n_ends`` capsules (default all) have round ends: the others are segments (radius 0)
    that reach ``raycast.GRAZE`` past their ends (a polygon table's edges).
    The cast itself, and how it treats rays that graze an outline, is
    :func:`ryderz_env.raycast.cast`."""
    n_rays = rays.shape[1] - 1
    n_ends = chords.shape[1] if n_ends is None else n_ends
    out = np.empty(n_rays)
    ox, oy = rays[:, n_rays].tolist()
    cast_into(
        out,
        0,
        (
            _NO_ANGLES,
            0.0,
            ox,
            oy,
            np.ascontiguousarray(chords),
            n_ends,
            0.0,
            _NO_ANGLES,
            np.ascontiguousarray(rays[:, :n_rays]),
        ),
        0.0,
    )
    return out


def cast_into(out: np.ndarray, at: int, args: tuple, scale: float) -> None:
    """:func:`ryderz_env.raycast.cast` into ``out`` from ``at``; ``args``: its arguments from
    ``angles`` to ``edge_dist``, then ``dirs``. The common case's cast first; where it declines
    (an origin on an outline) the one that handles every origin."""
    *head, dirs = args
    chords, n_ends = head[4], head[5]
    cap, end = np.empty((6, chords.shape[1])), np.empty((3, 2 * n_ends))
    if not cast(out, at, *head, scale, cap, end, dirs):
        cast(out, at, *head, scale, cap, end, dirs, True)


def ray_distances(
    origin: tuple[float, float],
    dirs: np.ndarray,
    segs: np.ndarray,
    radii: np.ndarray,
    max_range: float,
) -> np.ndarray:
    """For each unit direction (R, 2), the distance along the ray from ``origin`` to the
    first capsule (segments (S, 2, 2) grown by ``radii`` (S,)), capped at ``max_range``; an
    origin inside a capsule sees it at distance 0."""
    if not len(segs):
        return np.full(len(dirs), max_range)
    chords = chord_table(segs[:, 0], segs[:, 1], np.asarray(radii, dtype=float))
    rays = np.vstack([dirs, [origin]]).T.copy()
    return np.fmin(cast_rays(rays, chords), max_range)


class LazerTables(NamedTuple):
    """What the encoder keeps per Lazer: its elements' capsules joined (a ``chord_table``),
    how many of them are the front element's (the last ones), how many pieces it has
    (Launch Points not counted), and its ``recent`` block before the move into an
    observer's frame: per element, newest first, present, entry x and y, exit x and y in
    table coordinates, is a Launch Point; all 0 where no element."""

    chords: np.ndarray
    front: int
    pieces: int
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
        #: per piece shape (and ``LAUNCH`` for a Launch Point), the capsules the rays see in its
        #: local frame and their chords' points; a Launch Point is one capsule across its
        #: middle, as wide and as deep as the token
        lp_r = self.lp_depth / 2.0
        lp_half = max(0.0, self.lp_width / 2.0 - lp_r)
        local = {
            key: (
                shape.centreline(1 if shape.side == 0 else _ray_chords(shape.angle, shape.radius)),
                self.half_width,
            )
            for key, shape in game.shapes.items()
        }
        local[LAUNCH] = (np.array([[lp_r, -lp_half], [lp_r, lp_half]]), lp_r)
        self._shape_tables = {
            key: (
                chord_table(pts[:-1], pts[1:], np.full(len(pts) - 1, radius)),
                np.ascontiguousarray(pts, dtype=float),
            )
            for key, (pts, radius) in local.items()
        }
        #: per Lazer (its newest element and length), its :class:`LazerTables`
        self._lazer_cache: dict[tuple[Element, int], LazerTables] = {}
        self._no_recent = np.zeros((recent_pieces, 6))
        self._no_chords = np.zeros((14, 0))
        self._no_edge_dist = np.full(num_rays, np.inf)
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
        self._other_size = 5 + self.top + 1 + len(CHARACTERS) + 2  # one seat's "others" block
        self._head_size = self.size - num_rays - n * recent_pieces * 6  # up to the rays
        #: the decision block's slot per raw decision kind (``state.decision.kind.value``)
        self._decision_slot = {None if k is None else k.value: i for i, k in enumerate(DECISIONS)}
        self._character_slot = [CHARACTERS.index(r.characters[s]) for s in range(n)]
        self._seat_orders = [[(s + k) % n for k in range(n)] for s in range(n)]
        self._seat_frames = game.seat_frames
        #: a polygon table's edges: for ``_edge_distances`` and, convex, as capsules
        self._edge_table: np.ndarray | None = None
        if not tb.is_circle:
            v, w = tb.vertices, np.roll(tb.vertices, -1, axis=0)
            e = w - v
            self._edge_cols = (v[:, 0].copy(), v[:, 1].copy(), e[:, 0].copy(), e[:, 1].copy())
            # how far past its ends (as a fraction of it) an edge reaches: GRAZE, as in the cast
            self._edge_slack = GRAZE / np.hypot(e[:, 0], e[:, 1])
            if tb.polygon.convex_hull.area <= tb.polygon.area * (1.0 + 1e-12):
                self._edge_table = chord_table(v, w, np.zeros(len(v)))

    # ------------------------------------------------------------------ frames
    def frame(self, state: State, seat: int) -> Pose:
        """The observer's frame: its head, else its seat's Launch Point frame."""
        head = state.players[seat].head
        return self._seat_frames[seat] if head is None else head

    # ------------------------------------------------------------------ rays
    def _capsules(self, el: Element) -> np.ndarray:
        """The capsules (``chord_table``) of an element's world centreline chords
        (:func:`ryderz_env.raycast.place`)."""
        return place(*self._shape_tables[self._shape_key(el)], *el.pose)

    @staticmethod
    def _shape_key(el: Element) -> tuple | PieceKind:
        return LAUNCH if el.is_launch else (el.kind, el.gear, el.side)

    def _lazer_tables(self, lazer: list[Element]) -> LazerTables | None:
        """The tables of a Lazer (None for none). Consecutive states share most Lazers, so
        they are kept, and a Lazer one piece longer than a kept one is built from it.

        A Lazer is known by its newest element and its length: pieces join a Lazer only at
        the front and leave it only from the back (the oldest first; a crash keeps the
        newest ones), and an element's predecessors are fixed when it is placed."""
        if not lazer:
            return None
        front = lazer[-1]
        key = (front, len(lazer))
        got = self._lazer_cache.get(key)
        if got is not None:
            return got
        launch = front.is_launch
        prev = self._lazer_cache.get((lazer[-2], len(lazer) - 1)) if len(lazer) > 1 else None
        if prev is not None:
            pose, ex = front.pose, front.exit
            chords, recent = extend(
                prev.chords,
                prev.recent,
                self._shape_tables[self._shape_key(front)],
                (pose.x, pose.y, pose.h),
                (ex.x, ex.y),
                launch,
            )
            got = LazerTables(
                chords, chords.shape[1] - prev.chords.shape[1], prev.pieces + (not launch), recent
            )
        else:
            recent = np.zeros((self.recent, 6))
            for j, el in enumerate(reversed(lazer[-self.recent :])):
                recent[j] = (1.0, el.pose.x, el.pose.y, el.exit.x, el.exit.y, float(el.is_launch))
            tables = [self._capsules(el) for el in lazer]
            got = LazerTables(
                np.concatenate(tables, axis=1),
                tables[-1].shape[1],
                sum(1 for el in lazer if not el.is_launch),
                recent,
            )
        if len(self._lazer_cache) >= LAZER_CACHE:  # (cheaper than evicting one by one)
            self._lazer_cache.clear()
        self._lazer_cache[key] = got
        return got

    def rays(
        self, state: State, seat: int, tables: list[LazerTables | None] | None = None
    ) -> np.ndarray:
        """Distances (fractions of ``ray_range``) from the observer's point along each ray;
        ``tables``, the seats' Lazer tables (observer first), when the caller has them."""
        if tables is None:
            tables = [self._lazer_tables(state.players[s].lazer) for s in self._seat_orders[seat]]
        fr = self.frame(state, seat)
        dist = np.empty(self.num_rays)
        cast_into(dist, 0, self._cast_args(state, seat, fr, tables), self.ray_range)
        return dist

    def _cast_args(
        self, state: State, seat: int, fr: Pose, tables: list[LazerTables | None]
    ) -> tuple:
        """What :func:`ryderz_env.raycast.cast` needs besides its output and the scale (the
        ``args`` of :func:`cast_into`): the ray angles and the heading, the origin, the
        capsules (the seats' Lazers', the observer's without the piece it sits on, then a
        convex table's edges), how many of them have round ends, the table's radius, the
        distances to a non-convex table's edge (else ``inf``), and on such a table the ray
        directions (else None: the kernel turns the angles itself)."""
        me = state.players[seat]
        tb = self.game.table
        if me.head is not None:
            ox, oy = fr.ahead(self.game.pieces.tip)
        else:  # its seat's Launch Point frame: on a polygon table that point lies on an edge
            # (or just inside, at a corner seat), and from on an edge every ray would meet it at
            # once, so the rays start just inside
            ox, oy = fr.ahead(0.0 if tb.is_circle else EDGE_INSET)
        own = tables[0]
        chords = [t.chords for t in tables if t is not None]
        if own is not None and me.head == me.lazer[-1].exit:  # leave out the piece it sits on
            chords[0] = chords[0][:, : chords[0].shape[1] - own.front]
        n_ends = sum(c.shape[1] for c in chords)
        # a convex table's edges are capsules of radius 0 too, seen from inside it
        if self._edge_table is not None:
            chords.append(self._edge_table)
        dirs, edge_dist = None, self._no_edge_dist
        if not (self._edge_table is not None or tb.is_circle):
            dirs = directions(fr.h, self.ray_angles)
            edge_dist = self._edge_distances(dirs, ox, oy)
        if len(chords) > 1:
            table = np.concatenate(chords, axis=1)
        else:  # (contiguous, as every call passes it: one compiled signature)
            table = np.ascontiguousarray(chords[0]) if chords else self._no_chords
        return (
            self.ray_angles,
            fr.h,
            ox,
            oy,
            table,
            n_ends,
            tb.radius if tb.is_circle else 0.0,
            edge_dist,
            dirs,
        )

    def _edge_distances(self, dirs: np.ndarray, ox: float, oy: float) -> np.ndarray:
        """Per ray (unit directions ``dirs`` (2, R) from (``ox``, ``oy``)), the distance to a
        polygon table's edge (round tables: in :func:`ryderz_env.raycast.cast`); each edge
        reaches ``GRAZE`` past its corners, so no ray slips between two edges at a corner."""
        dx, dy = dirs[0, :, None], dirs[1, :, None]
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
        miss |= s < -self._edge_slack
        miss |= s > 1.0 + self._edge_slack
        np.putmask(t, miss, np.inf)
        return np.minimum(t.min(axis=1), self.ray_range)

    # ------------------------------------------------------------------ the vector
    def encode(self, state: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` (float32, length ``size``)."""
        r, n = self.game.rules, self.n
        out = [0.0] * self._head_size  # the blocks up to the Prizms, one conversion at the end
        seats = self._seat_orders[seat]
        decision = state.decision
        out[self._decision_slot[decision.kind.value if decision is not None else None]] = 1.0
        i = len(DECISIONS)
        out[i] = float(seat in state.current_players())
        out[i + 1] = state.round / r.round_limit
        i += 2
        for k, s in enumerate(state.order):
            out[i + (s - seat) % n] = (k + 1) / n
        if state.turn is not None:
            out[i + n + (state.turn.seat - seat) % n] = 1.0
        out[i + 2 * n + (state.marker - seat) % n] = 1.0
        i += 3 * n
        fr = self.frame(state, seat)
        fx, fy, fh = fr
        c, sn, k = math.cos(fh), math.sin(fh), self._rel_scale
        players = state.players
        me = players[seat]
        tables = [self._lazer_tables(players[s].lazer) for s in seats]
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
        out[i : i + 3 * self.top] = [v / ms for gear in me.supply for v in gear]
        i += 3 * self.top
        out[i], out[i + 1] = float(r.powers), float(r.powers and me.power_ready)
        i += 2
        out[i + self._character_slot[seat]] = 1.0
        i += len(CHARACTERS)
        out[i] = scores[seat] / r.win_prizms
        own = tables[0]
        out[i + 1] = (0 if own is None else own.pieces) / self._total_supply
        i += 2
        others_at = i
        heads = []  # the others' head poses, moved into the frame by the compiled call
        for s in seats[1:]:
            p = players[s]
            head = p.head
            heads.append(_NO_HEAD if head is None else (1.0, head.x, head.y, head.h))
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
        # per Prizm slot: position, distance, owner slot, locked (by the compiled call)
        prizms = [
            (q.x, q.y, 0 if q.owner < 0 else 1 + (q.owner - seat) % n, locked)
            for q, locked in zip(state.prizms[: self.prizm_slots], state.locks(), strict=False)
        ]
        vec = np.empty(self.size, dtype=np.float32)
        vec[: self._head_size] = out
        # the rays, then the poses, Prizms and recent pieces moved into the observer's frame,
        # in two compiled calls; then the clip to [-1, 1]
        cast_into(vec, self._head_size, self._cast_args(state, seat, fr, tables), self.ray_range)
        no = self._no_recent
        finish(
            vec,
            np.array((fx, fy, fh, k)),
            np.array(heads, dtype=float).reshape(-1, 4),
            others_at,
            self._other_size,
            np.array(prizms, dtype=float).reshape(-1, 4),
            i,
            6 + n,
            n,
            np.concatenate([no if t is None else t.recent for t in tables]),
            self._head_size + self.num_rays,
        )
        np.clip(vec, -1.0, 1.0, out=vec)
        return vec
