"""The compiled parts of the vector observation (numba): the ray cast, the placing of a
piece's capsules, and the arithmetic blocks of an observation.

A cast asks, for 16 rays, the nearest of a few hundred capsules (each piece's centreline
chords grown by half the Lazer width): a few thousand ray-capsule tests, every step. As numpy
array operations that is a few dozen passes over (rays x capsules) arrays, the largest part of
an observation's cost; as one compiled loop it is a few microseconds. numba is the one
dependency this needs (no C toolchain at install time, results to the same IEEE arithmetic as
the numpy expressions they replace: no fast-math, so no reassociation or fused multiply-add).

The capsule table layout is ``encode.chord_table``'s: rows nx, ux, ny, uy (unit normal
n = (-uy, ux) and direction u of the chord a -> b), n.a, u.a + L/2, L/2, r, ax, bx, ay, by,
r^2, r^2.

What it costs to compile matters as much as what it costs to run: a process whose numba cache
is empty (a fresh install, a CI run, a worker without a writable cache) compiles every kernel
it calls on its first call, about a millisecond per statement of numba's IR, plus a few
hundredths of a second per kernel and per overload it calls. So an environment step calls
three kernels (:func:`cast`, :func:`finish`, :func:`extend_into`), each one flat function:
numba compiles a kernel called from another on its own, then optimizes and links its code
again inside the caller's, so kernels calling kernels (as these once did) paid for the ray
cast three times. They take plain arrays, whatever the number of players (a tuple of arrays
is a new type, so a new compile, for each length), read the capsule table by row views (one
index per access: less code than two), and assign no array slices (each pulls in the code of
numba's message for mismatched shapes: string formatting, seconds to compile). They allocate
nothing (the caller passes the arrays they fill or work in), so they compile without numba's
reference counting (``_nrt=False``); they call no overloaded builtin (``min``, ``max``,
``int``, ``math.hypot``: each one more function to compile), writing the same arithmetic out
instead. The cast compiles its common case only: the rare origin that lies within ``GRAZE`` of
an outline or of the line of a capsule's sides (under one cast in a hundred of random play,
most of them on the rectangle table, whose edges pieces line up with) makes it decline, and
:func:`ryderz_env.encode.cast_into` casts again with the specialization that handles it,
compiled the first time one is met. A mode compiles only what it calls (the ray directions of
a non-convex table, ``cast_rays``: their own specializations).
``bench/bench_ryderz_coldstart.py`` measures the cold start.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from numba.core import types

from ryderz_env.rules.kernels import kernel

#: how near (inches; squared inches for the ends) the ray origin lies to a capsule's side
#: line or outline when the rounding of the cast may decide what a ray sees
GRAZE = 1e-9
#: added to a capsule's bounding radius (inches) when rays are screened against it
BOUND_MARGIN = 1e-7

#: the C library's ``hypot``, declared directly: numba's ``math.hypot`` calls the same C
#: function (``_hypot`` on Windows, where 32-bit builds check for infinities first), but
#: through a wrapper it compiles as one more function in every kernel that uses it
c_hypot = types.ExternalFunction(
    "_hypot" if sys.platform == "win32" else "hypot",
    types.float64(types.float64, types.float64),
)


@kernel
def cast(
    out: np.ndarray,
    at: int,
    angles: np.ndarray,
    h: float,
    ox: float,
    oy: float,
    chords: np.ndarray,
    n_ends: int,
    circle: float,
    edge_dist: np.ndarray,
    scale: float,
    cap: np.ndarray,
    end: np.ndarray,
    dirs: np.ndarray | None = None,
    graze: bool | None = None,
) -> bool:  # pragma: no cover - compiled
    """Cast rays from the origin (``ox``, ``oy``) and write, from ``out[at]``, per ray the
    distance to the first capsule met (``inf`` where none; all 0 when the origin lies inside a
    capsule); with ``scale`` > 0, that distance no further than ``edge_dist`` (per ray) and
    ``scale``, as a fraction of ``scale`` (the observation's ray block).

    The rays: the unit directions ``dirs`` (2, R), or without ``dirs`` the R directions at
    ``angles`` from heading ``h``. The capsules: the ``chords`` table's columns,
    the first ``n_ends`` with round ends; the others are segments (capsules of radius 0 without
    round ends, reaching ``GRAZE`` past their ends so that a ray through a corner meets the
    table there: a convex polygon table's edges). ``circle`` > 0 is the radius of a round
    table centred on the origin of coordinates, whose edge the rays meet too (from inside it).

    Both long sides of a capsule are one test: where the ray enters the slab ``|n.(p - a)| <=
    r`` from the origin's side, if there ``0 <= u.(p - a) <= L``. An origin inside a slab gets
    a meaningless entry, left in: a ray that meets the slab between the capsule's ends from
    there went through an end disc first, which the ends find nearer.

    Pieces fit a lattice of sorts, so rays do run along side lines and graze ends, and the
    origin can lie on an outline; there the answer is a matter of rounding. So a capsule whose
    side line passes within ``GRAZE`` of the origin has its sides found as two segments the
    ray crosses, an end disc whose outline does has its hit without the clamp that drops discs
    behind the origin, and whether the origin is inside a capsule is decided by projecting it
    on the chord.

    ``cap`` ((6, K)) and ``end`` ((3, 2 * ``n_ends``)) are work space. With ``graze`` None
    (the common case, the only code compiled for it) the cast declines an origin that lies
    within ``GRAZE`` of some capsule's outline or of the line of its sides (beyond its ends
    too: there the sides are segments the ray may run along): it returns False and writes
    nothing; with ``graze`` True it handles every origin. Returns True when it wrote the
    distances.

    Compiled once per kind of call: with ``dirs`` None (the observation on a round or convex
    table: the kernel turns the angles itself), the code for given directions is left out, and
    the other way round; with ``graze`` None, the code for origins on an outline.
    """
    if dirs is None:
        n_rays = angles.shape[0]
    else:
        n_rays = dirs.shape[1]
    n_ch = chords.shape[1]
    # the table's rows (row views: each access one index, not two, which keeps the compiled
    # code small, and so its compile time)
    nx = chords[0]
    ux = chords[1]
    ny = chords[2]
    uy = chords[3]
    na = chords[4]
    ua = chords[5]
    half = chords[6]
    rad = chords[7]
    ax = chords[8]
    bx = chords[9]
    ay = chords[10]
    by = chords[11]
    # per capsule: -n.(o - a), L/2 - u.(o - a), how far the origin lies outside the slab, and
    # (below) its bounding circle's centre from the origin and radius
    m0 = cap[0]
    nsm = cap[1]
    g = cap[2]
    wx = cap[3]
    wy = cap[4]
    rr = cap[5]
    near = False  # the origin within GRAZE of some capsule's outline (or inside one)
    side = False  # the origin within GRAZE of some capsule's side line (its two sides found
    # as segments below), anywhere along that line, beyond the capsule's ends too
    for j in range(n_ch):
        m0[j] = na[j] - (ox * nx[j] + oy * ny[j])
        nsm[j] = ua[j] - (ox * ux[j] + oy * uy[j])
        gj = abs(m0[j]) - rad[j]
        g[j] = gj
        if abs(gj) < GRAZE:
            side = True
        a = abs(nsm[j]) - half[j]
        if gj > a:  # (max(a, g), as numba's max)
            a = gj
        if a < GRAZE:
            near = True
    # the ends, a then b of each capsule: v - o and |v - o|^2 - r^2
    cx = end[0]
    cy = end[1]
    e = end[2]
    for j in range(n_ends):
        for k in range(2):
            v = 2 * j + k
            cx[v] = chords[8 + k, j] - ox
            cy[v] = chords[10 + k, j] - oy
            e[v] = (cx[v] * cx[v] + cy[v] * cy[v]) - chords[12, j]
            if e[v] < GRAZE:
                near = True
    inside = False  # whether the origin lies within its radius of some capsule's chord
    if near or side:
        if graze is None:  # the common case declines, before writing anything (with this
            return False  # return, numba leaves the rest of this block out of its code)
        if near:
            for j in range(n_ch):
                pax, pay = ax[j] - ox, ay[j] - oy
                pex, pey = (bx[j] - ox) - pax, (by[j] - oy) - pay
                length = c_hypot(pex, pey)
                inv = 1.0 / (1e-12 if 1e-12 > length else length)
                pux, puy = pex * inv, pey * inv
                proj = -(pax * pux + pay * puy)
                proj = 0.0 if 0.0 > proj else proj
                proj = length if length < proj else proj
                if c_hypot(pax + proj * pux, pay + proj * puy) < rad[j]:
                    inside = True
                    break
    # each capsule's bounding circle, seen from the origin: a ray that passes it by, or
    # whose best hit so far is nearer than the circle, need not test the capsule (every
    # point a test can find lies on the capsule, so within the circle; the margin covers
    # rounding)
    for j in range(n_ch):
        wx[j] = (ax[j] + bx[j]) * 0.5 - ox
        wy[j] = (ay[j] + by[j]) * 0.5 - oy
        rr[j] = half[j] + rad[j] + BOUND_MARGIN
    for k in range(n_rays):
        best = 0.0
        if not inside:
            if dirs is None:
                a = h + angles[k]
                dx, dy = math.cos(a), math.sin(a)
            else:
                dx, dy = dirs[0, k], dirs[1, k]
            best = np.inf
            for j in range(n_ch):
                along = dx * wx[j] + dy * wy[j]
                r = rr[j]
                if along < -r or along - r > best or abs(dx * wy[j] - dy * wx[j]) > r:
                    continue
                if graze is not None and abs(g[j]) < GRAZE:  # its side line passes by the origin
                    # its two long sides, each a segment the ray crosses
                    pax, pay = ax[j] - ox, ay[j] - oy
                    pex, pey = (bx[j] - ox) - pax, (by[j] - oy) - pay
                    length = c_hypot(pex, pey)
                    inv = 1.0 / (1e-12 if 1e-12 > length else length)
                    pux, puy = pex * inv, pey * inv
                    r = rad[j]
                    denom = dx * puy - dy * pux
                    t = np.inf
                    for side in range(2):  # the sides p = a -+ r n, n = (-uy, ux)
                        sign = -1.0 if side == 0 else 1.0
                        px = pax + sign * r * puy
                        py = pay - sign * r * pux
                        ts = (px * puy - py * pux) / denom
                        s = (px * dy - py * dx) / denom
                        if ts >= 0.0 and 0.0 <= s <= length and ts < t:
                            t = ts
                else:
                    dn = dx * nx[j] + dy * ny[j]
                    du = dx * ux[j] + dy * uy[j]
                    t = math.copysign(g[j], m0[j]) / dn  # where the ray enters the slab
                    # (a table's edge reaches GRAZE past its corners: a ray through a corner
                    # meets one of the two edges there, whatever the rounding)
                    reach = half[j]
                    if j >= n_ends:
                        reach += GRAZE
                    if not (t >= 0.0 and not abs(t * du - nsm[j]) > reach):
                        t = np.inf
                if t < best:
                    best = t
                if j >= n_ends:
                    continue
                for v in range(2 * j, 2 * j + 2):
                    bb = dx * cx[v] + dy * cy[v]
                    # a disc behind the origin is not met (bb <= 0), unless the origin lies on
                    # (or in) its outline: then |c - t d| = r for t >= 0
                    if graze is None:
                        on = False
                    else:
                        on = e[v] < GRAZE
                    if on or bb > 0.0:
                        disc = bb * bb - e[v]
                        if disc >= 0.0:
                            t = bb - math.sqrt(disc)
                            if t < best and (t >= 0.0 or not on):
                                best = t
            if circle > 0.0:  # |o + t d| = R, the root ahead
                b = dx * ox + dy * oy
                root = b * b - ((ox * ox + oy * oy) - circle * circle)
                if 0.0 > root:  # (max(root, 0.0), as numba's max)
                    root = 0.0
                t = math.sqrt(root) - b
                if t < best:
                    best = t
        if scale > 0.0:  # min(min(best, edge), scale) / scale, as numba's min
            edge = edge_dist[k]
            if edge < best:
                best = edge
            if scale < best:
                best = scale
            out[at + k] = best / scale
        else:
            out[at + k] = best
    return True


@kernel
def directions_into(dirs: np.ndarray, h: float, angles: np.ndarray) -> None:  # pragma: no cover
    """Write into ``dirs`` ((2, R)) the unit ray directions at ``angles`` from heading ``h``
    (as :func:`cast` turns them)."""
    for r in range(angles.shape[0]):
        a = h + angles[r]
        dirs[0, r], dirs[1, r] = math.cos(a), math.sin(a)


def directions(h: float, angles: np.ndarray) -> np.ndarray:
    """The unit ray directions (2, R) at ``angles`` from heading ``h`` (as :func:`cast`
    turns them): :func:`directions_into`."""
    dirs = np.empty((2, angles.shape[0]))
    directions_into(dirs, h, angles)
    return dirs


@kernel
def finish(
    vec: np.ndarray,
    frame: np.ndarray,
    others: np.ndarray,
    others_at: int,
    others_stride: int,
    prizms: np.ndarray,
    prizms_at: int,
    prizms_stride: int,
    n: int,
    recents: np.ndarray,
    recent_at: int,
) -> None:  # pragma: no cover
    """The parts of an observation vector (float32) that are arithmetic, in the observer's
    ``frame`` (x, y, heading, scale): the other seats' head poses (rows of ``others``:
    present, x, y, heading; at ``others_at``, one block per ``others_stride``); the Prizms
    (rows of ``prizms``: x, y, owner slot, locked; at ``prizms_at`` by ``prizms_stride``;
    ``n`` seats); from ``recent_at`` the recent pieces (rows of ``recents``, seat by seat:
    present, entry x and y, exit x and y in table coordinates, is a Launch Point) with their
    points in the observer's frame. (The caller then clips the whole vector to [-1, 1]:
    ``np.clip`` costs a microsecond a call, the loop here more than a tenth of this kernel's
    compile time.)"""
    fx = frame[0]
    fy = frame[1]
    fh = frame[2]
    k = frame[3]
    c, sn = math.cos(fh), math.sin(fh)
    for j in range(others.shape[0]):
        row = others[j]
        if row[0] > 0.0:
            b = others_at + j * others_stride
            dx, dy = row[1] - fx, row[2] - fy
            vec[b] = 1.0
            vec[b + 1] = (c * dx + sn * dy) * k
            vec[b + 2] = (-sn * dx + c * dy) * k
            vec[b + 3] = math.cos(row[3] - fh)
            vec[b + 4] = math.sin(row[3] - fh)
    for j in range(prizms.shape[0]):
        row = prizms[j]
        b = prizms_at + j * prizms_stride
        dx, dy = row[0] - fx, row[1] - fy
        x, y = (c * dx + sn * dy) * k, (-sn * dx + c * dy) * k
        vec[b], vec[b + 1], vec[b + 2] = 1.0, x, y
        d = c_hypot(x, y)
        if not d < 1.0:  # min(1.0, d), as numba's min
            d = 1.0
        vec[b + 3] = d
        vec[b + 4 + np.intp(row[2])] = 1.0  # (int() is an overload: a function to compile)
        vec[b + 5 + n] = row[3]
    # the move into the frame: (x, y, w) -> (x m00 + y m10 + w m20, x m01 + y m11 + w m21)
    m00 = c * k
    m01 = -sn * k
    m10 = sn * k
    m11 = c * k
    m20 = -(fx * c + fy * sn) * k
    m21 = (fx * sn - fy * c) * k
    i = recent_at
    for j in range(recents.shape[0]):
        row = recents[j]
        w = row[0]  # present: the move applies to the points of pieces there are
        vec[i] = w
        for end in range(2):
            x, y = row[1 + 2 * end], row[2 + 2 * end]
            vec[i + 1 + 2 * end] = x * m00 + y * m10 + w * m20
            vec[i + 2 + 2 * end] = x * m01 + y * m11 + w * m21
        vec[i + 5] = row[5]
        i += 6


@kernel
def extend_into(
    out: np.ndarray,
    rec: np.ndarray,
    chords: np.ndarray,
    recent: np.ndarray,
    local: np.ndarray,
    pts: np.ndarray,
    x: float,
    y: float,
    h: float,
    ex: float,
    ey: float,
    launch: bool,
) -> None:  # pragma: no cover
    """Write into ``out`` ((14, K0 + k)) and ``rec`` (``recent``'s shape) a Lazer's tables
    (capsules and recent rows: see ``encode.LazerTables``) with one more element at the front,
    placed at (``x``, ``y``, ``h``) with its exit at (``ex``, ``ey``): its capsules after the
    others (``chords``, (14, K0)), its row first (then ``recent``'s but its last).

    The element's capsules come from the table ``local`` of its shape's capsules in its own
    frame and their chords' points ``pts`` ((k + 1, 2)): normals and directions turned, the
    offsets moved, the ends at the world points."""
    c, s = math.cos(h), math.sin(h)
    k0 = chords.shape[1]
    k = local.shape[1]
    for row in range(14):
        for j in range(k0):
            out[row, j] = chords[row, j]
    for j in range(k):
        at = k0 + j
        nx = c * local[0, j] - s * local[2, j]
        ny = s * local[0, j] + c * local[2, j]
        ux = c * local[1, j] - s * local[3, j]
        uy = s * local[1, j] + c * local[3, j]
        out[0, at], out[1, at], out[2, at], out[3, at] = nx, ux, ny, uy
        out[4, at] = local[4, j] + (nx * x + ny * y)  # n.(R a + t) = n_local.a_local + n.t
        out[5, at] = local[5, j] + (ux * x + uy * y)
        out[6, at], out[7, at] = local[6, j], local[7, j]
        out[12, at], out[13, at] = local[12, j], local[13, j]
        for end in range(2):
            px, py = pts[j + end, 0], pts[j + end, 1]
            out[8 + end, at] = x + (c * px - s * py)
            out[10 + end, at] = y + (s * px + c * py)
    rec[0, 0], rec[0, 1], rec[0, 2], rec[0, 3], rec[0, 4] = 1.0, x, y, ex, ey
    rec[0, 5] = 1.0 if launch else 0.0
    for j in range(1, recent.shape[0]):
        for col in range(recent.shape[1]):
            rec[j, col] = recent[j - 1, col]


def extend(
    chords: np.ndarray,
    recent: np.ndarray,
    shape: tuple[np.ndarray, np.ndarray],
    pose: tuple[float, float, float],
    exit_at: tuple[float, float],
    launch: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """A Lazer's tables with one more element at the front, in new arrays
    (:func:`extend_into`): ``shape`` is its ``(local, pts)``, ``pose`` its (x, y, heading),
    ``exit_at`` its exit point. (The kernel allocates nothing: it compiles without numba's
    reference counting, and so faster on a cold start.)"""
    local, pts = shape
    out = np.empty((14, chords.shape[1] + local.shape[1]))
    rec = np.empty_like(recent)
    extend_into(out, rec, chords, recent, local, pts, *pose, *exit_at, launch)
    return out, rec


_NO_CHORDS = np.zeros((14, 0))
_NO_RECENT = np.zeros((1, 6))


def place(local: np.ndarray, pts: np.ndarray, x: float, y: float, h: float) -> np.ndarray:
    """The capsule table of a piece at pose (``x``, ``y``, ``h``), from the table ``local``
    of its capsules in its own frame and their chords' points ``pts`` ((k + 1, 2))
    (:func:`extend` from no capsules)."""
    return extend(_NO_CHORDS, _NO_RECENT, (local, pts), (x, y, h), (x, y), False)[0]
