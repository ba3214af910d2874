"""The geometric model of Lazer Ryderz: piece outlines, the table, and the exact predicates.

Everything is a polygon in inches (shapely 2). Arcs become chords whose midpoints lie at most
``arc_max_sagitta`` inside the true arc (pieces, Prizm discs); a round table is kept exact (a
polygon lies on a disc exactly when its vertices do). On that model the predicates are exact to
one tolerance: two shapes *touch* when their distance is below ``touch_tolerance``.

Frames: a :class:`Pose` is a point and a heading (radians, counter-clockwise from +x). A piece's
local frame has its entry pose at the origin heading along +x, with +y to its left.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np
import shapely
from shapely import Point, Polygon, lib
from shapely.creation import HandleNaN

from ryderz_env.rules.config import (
    LaunchPointSize,
    PieceKind,
    PiecesConfig,
    TableConfig,
    turn_radians,
)
from ryderz_env.rules.kernels import place_outline
from tabletop.errors import ConfigError

if TYPE_CHECKING:
    from shapely.geometry.base import BaseGeometry

TWO_PI = 2.0 * math.pi


def fixed(x: float, digits: int = 2) -> str:
    """``x`` with ``digits`` decimals for text, never "-0.00" (a rounding of -1e-17 is zero)."""
    return f"{round(x, digits) + 0.0:.{digits}f}"


class Pose(NamedTuple):
    """A point on the table and a heading in radians (counter-clockwise from +x)."""

    x: float
    y: float
    h: float

    def __str__(self) -> str:
        return f"({fixed(self.x)}, {fixed(self.y)}) {round(math.degrees(self.h)) % 360} deg"

    def compose(self, local: Pose) -> Pose:
        """The world pose of ``local`` given in this pose's frame."""
        c, s = math.cos(self.h), math.sin(self.h)
        return Pose(
            self.x + c * local.x - s * local.y,
            self.y + s * local.x + c * local.y,
            _wrap_angle(self.h + local.h),
        )

    def ahead(self, distance: float) -> tuple[float, float]:
        """The point ``distance`` ahead along the heading."""
        return (self.x + distance * math.cos(self.h), self.y + distance * math.sin(self.h))


def _wrap_angle(a: float) -> float:
    """An angle in [-pi, pi)."""
    return (a + math.pi) % TWO_PI - math.pi


_ALLOW_NAN = np.intc(HandleNaN.allow)
_NO_HOLES = np.empty(0, dtype=object)


def polygon(coords: np.ndarray) -> Polygon:
    """``shapely.polygons(coords)`` for one ring of (N, 2) float coordinates: the same
    geometry, made by the compiled calls that function makes, without its argument checks
    (half the time of a piece placement's polygon)."""
    poly: Polygon = lib.polygons(lib.linearrings(coords, _ALLOW_NAN), _NO_HOLES)
    return poly


def to_world(local: np.ndarray, pose: Pose) -> np.ndarray:
    """Transform local (N, 2) coordinates into the world frame of ``pose`` (the same
    arithmetic on every CPU: :mod:`ryderz_env.rules.kernels`)."""
    return place_outline(local, pose.x, pose.y, math.cos(pose.h), math.sin(pose.h))[0]


#: the most chords one arc may become (a pieces file with a tiny ``arc_max_sagitta`` made
#: outlines of millions of vertices: a Game that took minutes and gigabytes to build)
MAX_ARC_SEGMENTS = 2048


def arc_chords(angle: float, radius: float, sagitta: float) -> int:
    """Chords needed so that none lies more than ``sagitta`` inside an arc (unbounded)."""
    if sagitta >= radius:
        return max(1, math.ceil(angle / (math.pi / 2)))
    return max(1, math.ceil(angle / (2.0 * math.acos(1.0 - sagitta / radius))))


def arc_segments(angle: float, radius: float, sagitta: float) -> int:
    """:func:`arc_chords` for the shapes of a game; a ``ConfigError`` beyond
    :data:`MAX_ARC_SEGMENTS`."""
    n = arc_chords(angle, radius, sagitta)
    if n > MAX_ARC_SEGMENTS:
        raise ConfigError(
            f"arc_max_sagitta {sagitta:g} makes an arc of radius {radius:g} need {n} chords "
            f"(at most {MAX_ARC_SEGMENTS}): give a larger arc_max_sagitta"
        )
    return n


def disc_coords(radius: float, sagitta: float) -> np.ndarray:
    """Vertices of a regular polygon inscribed in a circle of ``radius`` at the origin."""
    n = max(8, arc_segments(TWO_PI, radius, sagitta))
    a = np.linspace(0.0, TWO_PI, n, endpoint=False)
    return np.column_stack([radius * np.cos(a), radius * np.sin(a)])


@dataclass(frozen=True)
class PieceShape:
    """One piece type (kind, gear, side) in its local frame; placed by a pose transform."""

    kind: PieceKind
    gear: int
    side: int  # +1 turns left, -1 turns right, 0 straight
    outline: np.ndarray  # (N, 2), counter-clockwise, not closed
    exit: Pose  # the exit pose in the local frame
    length: float  # centreline length
    radius: float  # centreline radius (inf for a straight)
    angle: float  # turn angle in radians (0 for a straight)
    #: ``n`` -> :meth:`samples` (a cache, not part of the shape)
    _samples: dict[int, tuple[tuple[float, float, float], ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def samples(self, n: int) -> tuple[tuple[float, float, float], ...]:
        """``(d, x, y)`` of the ``n + 1`` local centreline points ``d = length * k / n``
        (:meth:`point_at`), computed once per ``n``."""
        got = self._samples.get(n)
        if got is None:
            got = self._samples[n] = tuple(
                (d, *self.point_at(d)) for d in (self.length * k / n for k in range(n + 1))
            )
        return got

    def point_at(self, d: float) -> tuple[float, float]:
        """The local centreline point ``d`` along from the entry (0 <= d <= length)."""
        if self.side == 0:
            return (d, 0.0)
        phi = d / self.radius
        return (self.radius * math.sin(phi), self.side * self.radius * (1.0 - math.cos(phi)))

    def centreline(self, n: int = 16) -> np.ndarray:
        """``n + 1`` local points along the centreline (for drawing and rays)."""
        return np.array([self.point_at(self.length * i / n) for i in range(n + 1)])


def _curve_outline(
    radius: float, angle: float, width: float, tip: float, sagitta: float
) -> tuple[np.ndarray, Pose]:
    """A left-turning curve: right (outer) edge forward, tip, left (inner) edge back, notch."""
    half = width / 2.0
    r_out, r_in = radius + half, radius - half
    n = arc_segments(angle, r_out, sagitta)
    phi = np.linspace(0.0, angle, n + 1)
    outer = np.column_stack([r_out * np.sin(phi), radius - r_out * np.cos(phi)])
    inner = np.column_stack([r_in * np.sin(phi), radius - r_in * np.cos(phi)])[::-1]
    exit_pose = Pose(radius * math.sin(angle), radius * (1.0 - math.cos(angle)), angle)
    tip_pt = np.array([exit_pose.ahead(tip)])
    notch = np.array([[tip, 0.0]])
    return np.vstack([outer, tip_pt, inner, notch]), exit_pose


def _straight_outline(length: float, width: float, tip: float) -> tuple[np.ndarray, Pose]:
    half = width / 2.0
    coords = np.array(
        [
            [0.0, -half],
            [length, -half],
            [length + tip, 0.0],
            [length, half],
            [0.0, half],
            [tip, 0.0],
        ]
    )
    return coords, Pose(length, 0.0, 0.0)


def build_shapes(pieces: PiecesConfig) -> dict[tuple[PieceKind, int, int], PieceShape]:
    """Every piece type of the config, keyed by (kind, gear, side); built once per game."""
    shapes: dict[tuple[PieceKind, int, int], PieceShape] = {}
    for g in pieces.gears:
        coords, ex = _straight_outline(g.straight, pieces.width, pieces.tip)
        shapes[(PieceKind.STRAIGHT, g.gear, 0)] = PieceShape(
            PieceKind.STRAIGHT, g.gear, 0, coords, ex, g.straight, math.inf, 0.0
        )
        for kind, turn in ((PieceKind.SOFT, g.soft), (PieceKind.HARD, g.hard)):
            if turn is None:
                continue
            a = turn_radians(turn)
            coords, ex = _curve_outline(
                turn.radius, a, pieces.width, pieces.tip, pieces.arc_max_sagitta
            )
            length = turn.radius * a
            shapes[(kind, g.gear, 1)] = PieceShape(
                kind, g.gear, 1, coords, ex, length, turn.radius, a
            )
            mirrored = coords[::-1] * np.array([1.0, -1.0])
            shapes[(kind, g.gear, -1)] = PieceShape(
                kind, g.gear, -1, mirrored, Pose(ex.x, -ex.y, -ex.h), length, turn.radius, a
            )
    return shapes


def launch_outline(width: float, depth: float, piece_width: float, tip: float) -> np.ndarray:
    """The Launch Point in its frame (back midpoint at the origin, +x inward): back corners
    on the edge, shoulders, and a front point that a first piece's notch nests on."""
    hw, hp, d = width / 2.0, piece_width / 2.0, depth - tip
    return np.array([[0.0, -hw], [d, -hw], [d, -hp], [depth, 0.0], [d, hp], [d, hw], [0.0, hw]])


def launch_exit(depth: float, tip: float) -> Pose:
    """The Launch Point's exit pose in its frame: ``tip`` behind its point, facing inward."""
    return Pose(depth - tip, 0.0, 0.0)


@dataclass(frozen=True, eq=False)
class Element:
    """A piece or Launch Point on the table (immutable, shared between clones).

    ``pose`` is a piece's entry pose, or a Launch Point's back-midpoint frame; ``t`` is a
    Launch Point's position along the perimeter (``nan`` for pieces).
    """

    owner: int
    kind: PieceKind
    gear: int
    side: int
    pose: Pose
    turn: int
    t: float
    exit: Pose
    coords: np.ndarray = field(repr=False)
    poly: Polygon = field(repr=False)
    bbox: tuple[float, float, float, float] = field(repr=False)

    @property
    def is_launch(self) -> bool:
        """True for a Launch Point token."""
        return self.kind is PieceKind.LAUNCH

    def tip(self, tip: float) -> tuple[float, float]:
        """The point of the front."""
        return self.exit.ahead(tip)

    def __str__(self) -> str:
        if self.is_launch:
            return f"Launch Point at t={fixed(self.t)}"
        side = {0: "", 1: " left", -1: " right"}[self.side]
        return f"gear {self.gear} {self.kind.name.lower()}{side} from {self.pose}"


def make_element(
    owner: int,
    kind: PieceKind,
    gear: int,
    side: int,
    pose: Pose,
    turn: int,
    local: np.ndarray,
    exit_local: Pose,
    t: float = math.nan,
) -> Element:
    """Place a local outline at ``pose``."""
    coords, x0, y0, x1, y1 = place_outline(
        local, pose.x, pose.y, math.cos(pose.h), math.sin(pose.h)
    )
    return Element(
        owner,
        kind,
        gear,
        side,
        pose,
        turn,
        t,
        pose.compose(exit_local),
        coords,
        polygon(coords),
        (x0, y0, x1, y1),
    )


def joint_line(exit_pose: Pose, width: float, tip: float) -> np.ndarray:
    """The V where a piece nests on its predecessor (the predecessor's point)."""
    local = np.array([[0.0, width / 2.0], [tip, 0.0], [0.0, -width / 2.0]])
    return to_world(local, exit_pose)


ShapeKey = tuple[PieceKind, int, int]  # (kind, gear, side); a Launch Point is (LAUNCH, 0, 0)
LAUNCH_KEY: ShapeKey = (PieceKind.LAUNCH, 0, 0)


@lru_cache(maxsize=64)
def clean_joints(
    pieces: PiecesConfig, launch: LaunchPointSize, tol: float, joint_tol: float
) -> frozenset[tuple[ShapeKey, ShapeKey]]:
    """The (predecessor, piece) shape pairs that can only touch at their joint, wherever placed.

    For such a pair, with the piece nested on the predecessor's front (entry pose on the
    predecessor's exit pose), every point of either shape that lies within ``2 * tol`` of the
    other lies within ``joint_tol / 2`` of the joint (the V of the predecessor's point). It is
    checked once, in the predecessor's frame, with polygonal buffers that contain the true
    offset by ``2 * tol`` and lie inside the true offset by ``joint_tol / 2`` (``covered_by`` is
    exact on the model). Placed anywhere on the table the two shapes are the same up to
    rounding (1e-13 in), so every contact region of the pair, from either side
    (``contact_parts`` with ``tol``), has all its vertices within ``joint_tol`` of the joint:
    the contact is excused as the joint without computing it. Pairs that fail the check are
    left out (the caller computes).
    """
    shapes = build_shapes(pieces)
    preds: dict[ShapeKey, tuple[np.ndarray, Pose]] = {
        k: (s.outline, s.exit) for k, s in shapes.items()
    }
    preds[LAUNCH_KEY] = (
        launch_outline(launch.width, launch.depth, pieces.width, pieces.tip),
        launch_exit(launch.depth, pieces.tip),
    )
    q = 8
    grow = inflate(2.0 * tol, q)
    out = set()
    for pk, (outline, ex) in preds.items():
        pred = cast(Polygon, shapely.polygons(outline))  # one ring: one polygon
        pred_grown = shapely.buffer(pred, grow, quad_segs=q)
        zone = shapely.buffer(
            shapely.linestrings(joint_line(ex, pieces.width, pieces.tip)),
            joint_tol / 2.0,
            quad_segs=q,
        )
        for sk, s in shapes.items():
            piece = cast(Polygon, shapely.polygons(to_world(s.outline, ex)))
            near = (
                shapely.intersection(piece, pred_grown),
                shapely.intersection(pred, shapely.buffer(piece, grow, quad_segs=q)),
            )
            if all(g.is_empty or bool(shapely.covered_by(g, zone)) for g in near):
                out.add((pk, sk))
    return frozenset(out)


class Table:
    """A table: a circle centred on the origin or a simple polygon, with its perimeter
    parametrized by arc length ``t`` running clockwise (seat numbers increase clockwise;
    for a player facing the table, increasing ``t`` runs to its left)."""

    def __init__(self, cfg: TableConfig, sagitta: float) -> None:
        self.cfg = cfg
        self.name = cfg.name
        self.is_circle = cfg.shape == "circle"
        if self.is_circle:
            self.radius = cfg.diameter / 2.0
            self.perimeter = math.pi * cfg.diameter
            self.centre = (0.0, 0.0)
            self.polygon: Polygon = cast(
                Polygon, shapely.polygons(disc_coords(self.radius, sagitta))
            )
            self.min_width = cfg.diameter
        else:
            verts = np.array(cfg.polygon, dtype=float)
            poly = Polygon(verts)
            if not poly.is_valid or poly.area <= 0:
                raise ValueError(f"table {cfg.name!r}: the polygon is not simple")
            if shapely.is_ccw(poly.exterior):
                verts = np.vstack([verts[:1], verts[:0:-1]])  # clockwise, same first vertex
            self.vertices = verts
            closed = np.vstack([verts, verts[:1]])
            seg = np.diff(closed, axis=0)
            self.seg_len = np.hypot(seg[:, 0], seg[:, 1])
            self.cum = np.concatenate([[0.0], np.cumsum(self.seg_len)])
            self.perimeter = float(self.cum[-1])
            # plain-float copies for point_at (called ~100 times a Launch Point): the same
            # numbers, without numpy's per-call overhead
            self._cum_list: list[float] = self.cum.tolist()
            self._seg_list: list[float] = self.seg_len.tolist()
            self._vert_list: list[list[float]] = verts.tolist()
            self.polygon = Polygon(verts)
            self.boundary = self.polygon.exterior
            c = self.polygon.centroid
            self.centre = (float(c.x), float(c.y))
            self.min_width = _min_width(verts)
            self.radius = math.nan
        #: a search disc around a point of the table this wide covers the table (Nudge)
        self.search_limit = 2.0 * max(self.min_width, math.hypot(*self.polygon.bounds[2:]) * 2.0)
        shapely.prepare(self.polygon)
        self.sagitta = sagitta
        self._insets: dict[float, Polygon] = {}
        self._far_sides: tuple[tuple[float, float], ...] | None = None
        self._inset_inner: dict[float, float] = {}  # a round table inset's inscribed radius
        self._inset_edges: dict[float, shapely.Geometry] = {}  # a polygon table inset's edges

    # -- the perimeter ------------------------------------------------------------------
    def point_at(self, t: float) -> tuple[float, float]:
        """The perimeter point at arc length ``t`` (clockwise from the start)."""
        t %= self.perimeter
        if self.is_circle:
            phi = -math.pi / 2.0 - t / self.radius
            return (self.radius * math.cos(phi), self.radius * math.sin(phi))
        seg = self._seg_list
        i = min(bisect_right(self._cum_list, t) - 1, len(seg) - 1)
        f = (t - self._cum_list[i]) / seg[i]
        verts = self._vert_list
        a, b = verts[i], verts[(i + 1) % len(verts)]
        return (float(a[0] + f * (b[0] - a[0])), float(a[1] + f * (b[1] - a[1])))

    def far_sides(self) -> tuple[tuple[float, float], ...] | None:
        """Perimeter stretches (start, end) of the sides furthest from the centre; None on a
        round table, where every point of the edge is as far as any other. A side split by
        a vertex on its line is one stretch; one through the perimeter's start ends past
        ``perimeter`` (its end is the start of the next lap)."""
        if self.is_circle:
            return None
        if self._far_sides is None:
            self._far_sides = self._find_far_sides()
        return self._far_sides

    def _find_far_sides(self) -> tuple[tuple[float, float], ...]:
        cx, cy = self.centre
        count = len(self.seg_len)
        edges = [self.vertices[(i + 1) % count] - self.vertices[i] for i in range(count)]
        dist = [
            abs(e[0] * (cy - self.vertices[i][1]) - e[1] * (cx - self.vertices[i][0]))
            / self.seg_len[i]
            for i, e in enumerate(edges)
        ]
        far = [d >= max(dist) * (1.0 - 1e-9) for d in dist]

        def continues(i: int) -> bool | np.bool_:  # segment i runs on along segment i - 1's line
            a, b = edges[i - 1], edges[i]
            runs_on: bool | np.bool_ = (
                far[i - 1]
                and far[i]
                and a @ b > 0
                and abs(a[0] * b[1] - a[1] * b[0]) <= 1e-9 * self.seg_len[i - 1] * self.seg_len[i]
            )
            return runs_on

        stretches: list[list[float]] = []
        for i in range(count):
            if not far[i]:
                continue
            if stretches and i > 0 and continues(i):
                stretches[-1][1] = float(self.cum[i + 1])
            else:
                stretches.append([float(self.cum[i]), float(self.cum[i + 1])])
        if len(stretches) > 1 and far[0] and continues(0):  # the side through the start
            first = stretches.pop(0)
            stretches[-1][1] = first[1] + self.perimeter
        return tuple((a, b) for a, b in stretches)

    def on_far_side(self, t: float) -> bool:
        """Whether a Launch Point at ``t`` has both back corners on one far side."""
        sides = self.far_sides()
        if sides is None:
            return True
        t %= self.perimeter
        half = self.cfg.launch_point.width / 2.0
        return any(a + half <= x <= b - half for a, b in sides for x in (t, t + self.perimeter))

    def seat_position(self, seat: int, num_players: int) -> float:
        """Where ``seat`` sits, as a perimeter position."""
        return ((self.cfg.first_seat + seat / num_players) % 1.0) * self.perimeter

    def reach(self, seat: int, num_players: int) -> tuple[float, float]:
        """The stretch within arm's reach of ``seat`` as (start, end) positions (end > start)."""
        c = self.seat_position(seat, num_players)
        half = self.cfg.reach * self.perimeter / 2.0
        return (c - half, c + half)

    def launch_frame(self, t: float) -> Pose:
        """The Launch Point frame at ``t``: back midpoint, heading along the inward normal;
        the back corners lie on the edge, ``launch_point.width`` apart."""
        w = self.cfg.launch_point.width
        if self.is_circle:
            phi = -math.pi / 2.0 - (t % self.perimeter) / self.radius
            back = self.radius * math.cos(math.asin(min(1.0, w / 2.0 / self.radius)))
            return Pose(back * math.cos(phi), back * math.sin(phi), _wrap_angle(phi + math.pi))
        lo, hi = w / 2.0, self.perimeter / 2.0
        c1 = c2 = (0.0, 0.0)
        for _ in range(60):  # bisection on the half-stretch whose chord is w long
            a = (lo + hi) / 2.0
            c1, c2 = self.point_at(t - a), self.point_at(t + a)
            if math.hypot(c2[0] - c1[0], c2[1] - c1[1]) < w:
                lo = a
            else:
                hi = a
        a = hi
        c1, c2 = self.point_at(t - a), self.point_at(t + a)
        ux, uy = c2[0] - c1[0], c2[1] - c1[1]  # towards the player's left
        return Pose((c1[0] + c2[0]) / 2.0, (c1[1] + c2[1]) / 2.0, math.atan2(-ux, uy))

    # -- containment, sampling ----------------------------------------------------------
    def holds(
        self,
        element_coords: np.ndarray,
        poly: Polygon,
        tol: float,
        bbox: tuple[float, float, float, float] | None = None,
    ) -> bool | np.bool_:
        """True when a shape lies wholly on the table, clear of the edge by ``tol``.

        On a round table, a shape whose bounding box (``bbox``, optional) has its farthest
        corner well inside (by a relative 1e-12, far beyond rounding) needs no vertex check.
        """
        if self.is_circle:
            limit = (self.radius - tol) ** 2
            if bbox is not None:
                ax, ay = max(-bbox[0], bbox[2]), max(-bbox[1], bbox[3])
                if ax * ax + ay * ay < limit * (1.0 - 1e-12):
                    return True
            r2 = float(np.max(np.einsum("ij,ij->i", element_coords, element_coords)))
            return r2 <= limit
        return bool(self.polygon.contains(poly)) and shapely.distance(poly, self.boundary) >= tol

    def inset(self, d: float) -> Polygon:
        """The table shrunk by ``d`` (where a disc of radius ``d`` may lie); kept per ``d``."""
        region = self._insets.get(d)
        if region is None:
            if self.is_circle:
                corners = disc_coords(self.radius - d, self.sagitta)
                region = cast(Polygon, shapely.polygons(corners))
                self._inset_inner[d] = (self.radius - d) * math.cos(math.pi / len(corners))
            else:
                region = self.polygon.buffer(-d, join_style="mitre")
                self._inset_edges[d] = region.boundary
            self._insets[d] = region
        return region

    def inset_holds(self, d: float, x: float, y: float, rho: float) -> bool | np.bool_:
        """Whether every point within ``rho`` of (``x``, ``y``) lies in :meth:`inset` ``(d)``
        (a sufficient test, with a margin of 1e-9 in)."""
        region = self.inset(d)
        if self.is_circle:  # the inset is a regular polygon: within its inscribed circle
            return math.hypot(x, y) + rho <= self._inset_inner[d] - 1e-9
        return bool(shapely.contains_xy(region, x, y)) and (
            shapely.distance(self._inset_edges[d], Point(x, y)) >= rho + 1e-9
        )

    def random_point(self, rng: np.random.Generator, inset: float) -> tuple[float, float]:
        """A uniformly random point of the table shrunk by ``inset``."""
        if self.is_circle:
            u, v = rng.random(), rng.random()
            r = (self.radius - inset) * math.sqrt(u)
            return (r * math.cos(TWO_PI * v), r * math.sin(TWO_PI * v))
        region = self.inset(inset)
        x0, y0, x1, y1 = region.bounds
        while True:
            x, y = x0 + (x1 - x0) * rng.random(), y0 + (y1 - y0) * rng.random()
            if shapely.contains_xy(region, x, y):
                return (x, y)

    def contains_point(self, x: float, y: float, inset: float) -> bool:
        """True when (x, y) lies in the table shrunk by ``inset``."""
        if self.is_circle:
            return math.hypot(x, y) <= self.radius - inset
        return bool(shapely.contains_xy(self.inset(inset), x, y))


def _min_width(verts: np.ndarray) -> float:
    """The shortest surface dimension: the least width over all directions (convex hull)."""
    return _narrowest(verts)[0]


def _narrowest(verts: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The least width over all directions and the unit normal of the hull edge across which
    it is measured (it is reached across a hull edge; of edges within 1e-9 of it, the first
    in the hull's order). Plain float arithmetic: the same on every machine, unlike a BLAS
    product."""
    # the hull of a table's (three or more, not collinear) vertices is a polygon
    hull = cast(Polygon, shapely.convex_hull(shapely.multipoints(verts))).exterior.coords[:-1]
    widths = []
    for i, (ax, ay) in enumerate(hull):
        bx, by = hull[(i + 1) % len(hull)]
        length = math.hypot(bx - ax, by - ay)
        nx, ny = -(by - ay) / length, (bx - ax) / length
        widths.append((max(abs((px - ax) * nx + (py - ay) * ny) for px, py in hull), (nx, ny)))
    least = min(w for w, _ in widths)
    return next((w, n) for w, n in widths if w <= least * (1.0 + 1e-9))


def squared_table(cfg: TableConfig, fence_length: float) -> TableConfig:
    """The odd-table option ``square_edge``: a long table made more square by a straight edge.

    Stand-in for the rulebook's "use the 5 straight pieces to define an edge that makes the
    table more square": the new edge runs across the table's long axis (perpendicular to the
    direction of its shortest dimension ``w``) at ``w`` from the end where the first vertex
    lies, so the table keeps that end and is as long as it is wide; what lies beyond is off
    the table. The new edge (not counting sides of the table that lie on its line) must be
    no longer than ``fence_length`` (the pieces laid along it). The vertex order is kept, so
    the perimeter starts at the same first vertex. Raises ``ValueError`` for a round table,
    one no longer than it is wide, a first vertex beyond the cut, an edge the pieces do not
    cover, a cut that splits the table or leaves it narrower than ``w``.
    """
    if cfg.shape != "polygon":
        raise ValueError("square_edge needs a polygon table: a round one is as long as wide")
    verts = [(float(x), float(y)) for x, y in cfg.polygon]
    width, (nx, ny) = _narrowest(np.array(verts))
    ux, uy = -ny, nx  # the long axis
    proj = [x * ux + y * uy for x, y in verts]
    lo, hi = min(proj), max(proj)
    if hi - proj[0] < proj[0] - lo:  # keep the first vertex's end
        ux, uy, proj, lo, hi = -ux, -uy, [-p for p in proj], -hi, -lo
    name = cfg.name
    if hi - lo <= width + 1e-9:
        raise ValueError(
            f"square_edge: table {name!r} is no longer ({hi - lo:.4g} in) than "
            f"it is wide ({width:.4g} in); there is nothing to cut off"
        )
    cut = lo + width
    if proj[0] > cut + 1e-9:
        raise ValueError(
            f"square_edge: the first vertex of table {name!r} lies "
            f"{proj[0] - lo:.4g} in from its end, beyond the new edge at "
            f"{width:.4g} in; list the vertices from the end to keep"
        )
    kept, new_edges = _clip_below(verts, proj, cut)
    fence = sum(math.dist(kept[i], kept[(i + 1) % len(kept)]) for i in new_edges)
    if fence > fence_length + 1e-9:
        raise ValueError(
            f"square_edge: the new edge of table {name!r} is {fence:.4g} in long, "
            f"but the pieces laid along it cover only {fence_length:.4g} in"
        )
    across = [x * nx + y * ny for x, y in verts]
    a0, a1 = min(across) - 1.0, max(across) + 1.0  # the kept side, as a rectangle
    side = Polygon(
        [(cut * ux + a * nx, cut * uy + a * ny) for a in (a0, a1)]
        + [((lo - 1.0) * ux + a * nx, (lo - 1.0) * uy + a * ny) for a in (a1, a0)]
    )
    whole = shapely.intersection(Polygon(verts), side)
    region = Polygon(kept)
    if (
        whole.geom_type != "Polygon"
        or not region.is_valid
        or not math.isclose(region.area, whole.area, rel_tol=1e-9)
    ):
        raise ValueError(f"square_edge: the cut splits table {name!r} into parts")
    left = _narrowest(np.array(kept))[0]
    if left < width - 1e-9:
        raise ValueError(
            f"square_edge: cut at {width:.4g} in from its end, table {name!r} "
            f"would be {left:.4g} in wide, narrower than before"
        )
    return replace(cfg, name=f"{name}, squared", polygon=tuple(kept))


def _clip_below(
    verts: list[tuple[float, float]], proj: list[float], cut: float
) -> tuple[list[tuple[float, float]], list[int]]:
    """The polygon ``verts`` cut to where ``proj`` (each vertex's coordinate along an axis)
    is at most ``cut``: one Sutherland-Hodgman pass keeping the vertex order (repeated points
    dropped), and the indices ``i`` of the kept outline's edges ``i -> i + 1`` that the cut
    made (along the cut line, and not a side of the table lying on it)."""
    count = len(verts)
    out: list[tuple[tuple[float, float], int]] = []  # (point, its vertex index or -1)
    for i in range(count):
        j = (i + 1) % count
        (ax, ay), (bx, by), pa, pb = verts[i], verts[j], proj[i], proj[j]
        if pa <= cut:
            out.append((verts[i], i))
        if (pa < cut < pb) or (pb < cut < pa):
            f = (cut - pa) / (pb - pa)
            out.append(((ax + f * (bx - ax), ay + f * (by - ay)), -1))
    pts = [out[0]]
    for p in out[1:]:
        if math.dist(p[0], pts[-1][0]) > 1e-12:
            pts.append(p)
    if len(pts) > 1 and math.dist(pts[0][0], pts[-1][0]) <= 1e-12:
        pts.pop()
    on_cut = [p[1] < 0 or abs(proj[p[1]] - cut) <= 1e-9 for p in pts]
    made = []
    for k in range(len(pts)):
        m = (k + 1) % len(pts)
        side = pts[k][1] >= 0 and pts[m][1] == (pts[k][1] + 1) % count
        if on_cut[k] and on_cut[m] and not side:
            made.append(k)
    return [p for p, _ in pts], made


def inflate(d: float, quad_segs: int) -> float:
    """A buffer distance whose polygonal buffer contains the true offset by ``d``."""
    return d / math.cos(math.pi / (4 * quad_segs)) + 1e-9


def contact_parts(a: Polygon, b: Polygon, tol: float) -> list[Polygon]:
    """Where ``a`` comes within ``tol`` of ``b``: the parts of ``a`` inside ``b`` grown by tol."""
    region = shapely.intersection(a, shapely.buffer(b, tol, quad_segs=4))
    return [p for p in shapely.get_parts(region) if not p.is_empty]


def crossing_parts(disc: Polygon, lazer: list[Polygon], min_area: float, seal: float) -> int:
    """How many parts (of at least ``min_area``) the Lazer cuts a Prizm disc into.

    Nested pieces meet along their joint only up to rounding, which can leave a hairline
    between them that would join the disc's two sides; the Lazer is grown by ``seal`` (the
    joint tolerance) to close it.
    """
    grown = shapely.buffer(shapely.union_all(lazer), seal, quad_segs=1, join_style="bevel")
    rest = shapely.difference(disc, shapely.make_valid(grown))
    return sum(1 for p in shapely.get_parts(rest) if p.area >= min_area)


#: segments per quarter circle of the buffers a Nudge's search draws
NUDGE_QUAD_SEGS = 16


def _circle_directions(quad_segs: int) -> np.ndarray:
    """The unit vectors to the vertices of shapely's buffer of a point (``quad_segs`` per
    quarter, from +x clockwise; the quarter points exact)."""
    n = 4 * quad_segs
    out = np.empty((n, 2))
    for k in range(n):
        a = -k * (TWO_PI / n)
        out[k] = (math.cos(a), math.sin(a))
    out[::quad_segs] = ((1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0))
    return out


_SEARCH_DIRECTIONS = _circle_directions(NUDGE_QUAD_SEGS)


def search_disc(x: float, y: float, rho: float) -> Polygon:
    """``Point(x, y).buffer(rho, quad_segs=NUDGE_QUAD_SEGS)`` (the same vertices), made
    directly: a point's buffer goes through shapely's whole buffer machinery."""
    return polygon(np.array((x, y)) + rho * _SEARCH_DIRECTIONS)


def nudge_obstacles(pieces: list[Polygon], radius: float, clearance: float) -> list[Polygon]:
    """Where a nudged Prizm's centre may not lie because of each of ``pieces``: the piece
    grown by the disc's ``radius`` and the ``clearance`` (see :func:`nudge_point`)."""
    q = NUDGE_QUAD_SEGS
    return list(
        shapely.buffer(np.array(pieces, dtype=object), inflate(radius + clearance, q), quad_segs=q)
    )


def nudge_point(
    centre: tuple[float, float],
    pieces: list[Polygon],
    prizms: list[tuple[float, float]],
    table: Table,
    radius: float,
    clearance: float,
    tol: float,
    boxes: np.ndarray | list[tuple[float, float, float, float]] | None = None,
    grown: Callable[[list[int]], list[Polygon]] | None = None,
) -> tuple[float, float] | None:
    """The nearest point to ``centre`` where a Prizm disc lies ``clearance`` from every piece
    and other Prizm and wholly on the table; ``None`` when there is none. ``boxes``, when
    given, are the pieces' bounds (``Element.bbox``), so they need not be computed again;
    ``grown(indices)``, when given, is :func:`nudge_obstacles` of those pieces (kept by the
    caller).

    Only obstacles within the search radius can matter, so the search grows a disc around the
    centre until a free point turns up or the disc covers the table.
    """
    q = NUDGE_QUAD_SEGS
    d_prizm = inflate(2 * radius + clearance, q)
    free_table = table.inset(radius + tol)
    cx, cy = centre
    if boxes is None:
        boxes = [p.bounds for p in pieces]
    box = np.array(boxes) if pieces else np.zeros((0, 4))
    rho = 2.0 * radius + clearance
    limit = table.search_limit
    while rho <= limit:
        reach = rho + d_prizm
        near = np.flatnonzero(
            (box[:, 0] <= cx + reach)
            & (box[:, 2] >= cx - reach)
            & (box[:, 1] <= cy + reach)
            & (box[:, 3] >= cy - reach)
        ).tolist()
        blocked = (
            nudge_obstacles([pieces[i] for i in near], radius, clearance)
            if grown is None
            else grown(near)
        )
        others = [p for p in prizms if math.hypot(p[0] - cx, p[1] - cy) <= reach]
        if others:
            blocked += list(shapely.buffer(shapely.points(others), d_prizm, quad_segs=q))
        region: BaseGeometry = search_disc(cx, cy, rho)
        if not table.inset_holds(radius + tol, cx, cy, rho):
            region = shapely.intersection(free_table, region)
        if blocked:
            region = shapely.difference(region, shapely.union_all(blocked))
        if not region.is_empty and region.area > 0:
            if shapely.contains_xy(region, cx, cy):
                return centre
            p = shapely.shortest_line(region, Point(centre)).coords[0]
            return (float(p[0]), float(p[1]))
        rho *= 2.0
    return None
