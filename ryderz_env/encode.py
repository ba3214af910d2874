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

import numpy as np

from ryderz_env.rules import Element, Game, Pose, State
from ryderz_env.rules.config import Character
from ryderz_env.rules.geometry import arc_segments, to_world
from ryderz_env.rules.state import DecisionKind

DECISIONS = (None, *DecisionKind)
CHARACTERS = tuple(Character)
#: chord sagitta of the centrelines the rays see (inches)
RAY_SAGITTA = 0.02


def ray_distances(origin: tuple[float, float], dirs: np.ndarray, segs: np.ndarray,
                  radii: np.ndarray, max_range: float) -> np.ndarray:
    """For each unit direction (R, 2), the distance along the ray from ``origin`` to the
    first capsule (segments (S, 2, 2) grown by ``radii`` (S,)), capped at ``max_range``.

    One pass over both long sides of every capsule (ray against segment) and one over both
    round ends (ray against circle), all relative to the origin; an origin inside a capsule
    sees it at distance 0.
    """
    if not len(segs):
        return np.full(len(dirs), max_range)
    ox, oy = origin
    ax, ay = segs[:, 0, 0] - ox, segs[:, 0, 1] - oy
    bx, by = segs[:, 1, 0] - ox, segs[:, 1, 1] - oy
    ex, ey = bx - ax, by - ay
    length = np.hypot(ex, ey)
    inv = 1.0 / np.maximum(length, 1e-12)
    ux, uy = ex * inv, ey * inv
    dx, dy = dirs[:, 0:1], dirs[:, 1:2]  # (R, 1)
    # the long sides p = a +- r n, n = (-uy, ux): o + t d = p + s u, 0 <= s <= length
    px = np.concatenate([ax - radii * uy, ax + radii * uy])
    py = np.concatenate([ay + radii * ux, ay - radii * ux])
    su, sv, sl = np.concatenate([ux, ux]), np.concatenate([uy, uy]), np.concatenate(
        [length, length])
    denom = dx * sv - dy * su
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (px * sv - py * su) / denom
        s = (px * dy - py * dx) / denom
        side = np.where((t >= 0) & (s >= 0) & (s <= sl), t, np.inf).min(axis=1)
        # the round ends: |c - t d| = r
        cx, cy = np.concatenate([ax, bx]), np.concatenate([ay, by])
        rr = np.concatenate([radii, radii]) ** 2
        bb = cx * dx + cy * dy
        disc = bb * bb - (cx * cx + cy * cy - rr)
        t2 = bb - np.sqrt(disc)
        end = np.where((disc >= 0) & (t2 >= 0), t2, np.inf).min(axis=1)
    best = np.minimum(side, end)
    proj = np.clip(-(ax * ux + ay * uy), 0.0, length)
    if (np.hypot(ax + proj * ux, ay + proj * uy) < radii).any():
        best[:] = 0.0
    return np.minimum(best, max_range)


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
        #: per piece shape, its centreline as local chords for the rays; per element on the
        #: table, its world chords and capsule radii (elements are immutable and shared
        #: between states, so the cache holds them weakly)
        self._local_chords = {
            key: shape.centreline(1 if shape.side == 0 else arc_segments(
                shape.angle, shape.radius, RAY_SAGITTA))
            for key, shape in game.shapes.items()}
        self._capsule_cache: weakref.WeakKeyDictionary[Element, tuple[np.ndarray, np.ndarray]] \
            = weakref.WeakKeyDictionary()
        angles = np.arange(num_rays) * (2.0 * math.pi / num_rays)
        self.ray_angles = angles
        self.max_supply = max(max(g) for g in game.supply) or 1
        self.half_width = game.pieces.width / 2.0
        self.lp_width = game.table.cfg.launch_point.width
        self.lp_depth = game.table.cfg.launch_point.depth
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
        if not game.table.is_circle:
            v = game.table.vertices
            self._edges = np.stack([v, np.roll(v, -1, axis=0)], axis=1)

    # ------------------------------------------------------------------ frames
    def frame(self, state: State, seat: int) -> Pose:
        """The observer's frame: its head, else its seat's Launch Point frame."""
        head = state.players[seat].head
        if head is not None:
            return head
        tb = self.game.table
        return tb.launch_frame(tb.seat_position(seat, self.n))

    def _rel(self, frame: Pose, x: float, y: float) -> tuple[float, float]:
        c, s = math.cos(frame.h), math.sin(frame.h)
        dx, dy = x - frame.x, y - frame.y
        k = 1.0 / (2.0 * self.scale)
        return ((c * dx + s * dy) * k, (-s * dx + c * dy) * k)

    # ------------------------------------------------------------------ rays
    def _capsules(self, el: Element) -> tuple[np.ndarray, np.ndarray]:
        """World centreline chords (k, 2, 2) of an element and their capsule radii. A Launch
        Point is one capsule across its middle, as wide and as deep as the token."""
        got = self._capsule_cache.get(el)
        if got is None:
            if el.is_launch:
                r = self.lp_depth / 2.0
                half = max(0.0, self.lp_width / 2.0 - r)
                pts = to_world(np.array([[r, -half], [r, half]]), el.pose)
                got = (pts[None, :, :], np.array([r]))
            else:
                pts = to_world(self._local_chords[(el.kind, el.gear, el.side)], el.pose)
                got = (np.stack([pts[:-1], pts[1:]], axis=1),
                       np.full(len(pts) - 1, self.half_width))
            self._capsule_cache[el] = got
        return got

    def rays(self, state: State, seat: int) -> np.ndarray:
        """Distances (fractions of ``ray_range``) from the observer's point along each ray."""
        fr = self.frame(state, seat)
        tip = self.game.pieces.tip if state.players[seat].head is not None else 0.0
        origin = fr.ahead(tip)
        ang = fr.h + self.ray_angles
        dirs = np.column_stack([np.cos(ang), np.sin(ang)])
        front = state.players[seat].lazer[-1] if state.players[seat].lazer else None
        segs, radii = [], []
        for el in state.elements():
            if el is front and state.players[seat].head == el.exit:
                continue  # the piece the head sits on
            chords, rad = self._capsules(el)
            segs.append(chords)
            radii.append(rad)
        if segs:
            dist = ray_distances(origin, dirs, np.concatenate(segs), np.concatenate(radii),
                                 self.ray_range)
        else:
            dist = np.full(self.num_rays, self.ray_range)
        edge = self._edge_distances(origin, dirs)
        return np.minimum(dist, edge) / self.ray_range

    def _edge_distances(self, origin: tuple[float, float], dirs: np.ndarray) -> np.ndarray:
        ox, oy = origin
        tb = self.game.table
        if tb.is_circle:
            b = dirs[:, 0] * ox + dirs[:, 1] * oy
            c = ox * ox + oy * oy - tb.radius ** 2
            return np.minimum(-b + np.sqrt(np.maximum(b * b - c, 0.0)), self.ray_range)
        p, q = self._edges[:, 0, :], self._edges[:, 1, :]
        e = q - p
        d = dirs[:, None, :]
        denom = d[..., 0] * e[None, :, 1] - d[..., 1] * e[None, :, 0]
        ok = np.abs(denom) > 1e-12
        safe = np.where(ok, denom, 1.0)
        w = p - np.array(origin)
        t = (w[None, :, 0] * e[None, :, 1] - w[None, :, 1] * e[None, :, 0]) / safe
        s = (w[None, :, 0] * d[..., 1] - w[None, :, 1] * d[..., 0]) / safe
        t = np.where(ok & (t >= 0) & (s >= 0) & (s <= 1), t, np.inf)
        return np.minimum(t.min(axis=1), self.ray_range)

    # ------------------------------------------------------------------ the vector
    def encode(self, state: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` (float32, length ``size``)."""
        g, r, n = self.game, self.game.rules, self.n
        out = [0.0] * self.size  # slot writes into a list, one conversion at the end
        seats = [(seat + k) % n for k in range(n)]
        rel = {s: k for k, s in enumerate(seats)}
        i = 0
        kind = state.decision_kind()
        out[i + DECISIONS.index(kind)] = 1.0
        i += len(DECISIONS)
        out[i] = float(seat in state.current_players())
        out[i + 1] = state.round / r.round_limit
        i += 2
        order = state.order
        mover = None if state.turn is None else state.turn["seat"]
        for s in seats:
            if s in order:
                out[i] = (order.index(s) + 1) / n
            out[i + n] = float(s == mover)
            out[i + 2 * n] = float(s == state.marker)
            i += 1
        i += 2 * n
        fr = self.frame(state, seat)
        cx, cy = g.table.centre
        me = state.players[seat]
        out[i] = float(me.head is not None)
        out[i + 1] = (fr.x - cx) / self.scale
        out[i + 2] = (fr.y - cy) / self.scale
        out[i + 3], out[i + 4] = math.cos(fr.h), math.sin(fr.h)
        i += 5
        out[i + me.gear - 1] = 1.0
        i += self.top
        for gear in range(self.top):
            for k in range(3):
                out[i] = me.supply[gear][k] / self.max_supply
                i += 1
        out[i], out[i + 1] = float(r.powers), float(r.powers and me.power_ready)
        i += 2
        out[i + CHARACTERS.index(r.characters[seat])] = 1.0
        i += len(CHARACTERS)
        out[i] = state.score(seat) / r.win_prizms
        out[i + 1] = sum(1 for e in me.lazer if not e.is_launch) / (sum(map(sum, g.supply))
                                                                    or 1)
        i += 2
        for s in seats[1:]:
            p = state.players[s]
            if p.head is not None:
                out[i] = 1.0
                out[i + 1], out[i + 2] = self._rel(fr, p.head.x, p.head.y)
                out[i + 3] = math.cos(p.head.h - fr.h)
                out[i + 4] = math.sin(p.head.h - fr.h)
            i += 5
            out[i + p.gear - 1] = 1.0
            i += self.top
            out[i] = float(r.powers and p.power_ready)
            i += 1
            out[i + CHARACTERS.index(r.characters[s])] = 1.0
            i += len(CHARACTERS)
            out[i] = state.score(s) / r.win_prizms
            out[i + 1] = sum(map(sum, p.supply)) / (sum(map(sum, g.supply)) or 1)
            i += 2
        locks = state.locks()
        for j in range(self.prizm_slots):
            if j < len(state.prizms):
                q = state.prizms[j]
                x, y = self._rel(fr, q.x, q.y)
                out[i], out[i + 1], out[i + 2] = 1.0, x, y
                out[i + 3] = min(1.0, math.hypot(x, y))
                out[i + 4 + (0 if q.owner < 0 else 1 + rel[q.owner])] = 1.0
                out[i + 5 + n] = float(locks[j])
            i += 6 + n
        out[i:i + self.num_rays] = self.rays(state, seat).tolist()
        i += self.num_rays
        for s in seats:
            els = state.players[s].lazer[-self.recent:]
            for k, el in enumerate(reversed(els)):
                b = i + 6 * k
                out[b] = 1.0
                out[b + 1], out[b + 2] = self._rel(fr, el.pose.x, el.pose.y)
                out[b + 3], out[b + 4] = self._rel(fr, el.exit.x, el.exit.y)
                out[b + 5] = float(el.is_launch)
            i += 6 * self.recent
        vec = np.array(out, dtype=np.float32)
        return np.clip(vec, -1.0, 1.0, out=vec)
