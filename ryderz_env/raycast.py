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
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: how near (inches; squared inches for the ends) the ray origin lies to a capsule's side
#: line or outline when the rounding of the cast may decide what a ray sees
GRAZE = 1e-9
#: added to a capsule's bounding radius (inches) when rays are screened against it
BOUND_MARGIN = 1e-7


@numba.njit(cache=True, error_model="numpy", nogil=True)
def cast(dirs: np.ndarray, ox: float, oy: float, tables: tuple[np.ndarray, ...], skip: int,
         edges: np.ndarray, circle: float, out: np.ndarray) -> None:  # pragma: no cover
    """For each unit direction (``dirs``, (2, R)), write to ``out`` (R,) the distance from
    the origin (``ox``, ``oy``) to the first capsule, ``inf`` where it meets none; all 0 when
    the origin lies inside a capsule. The capsules: those of ``tables`` (``chord_table``s;
    the first without its last ``skip``), and the segments (capsules of radius 0 without
    round ends, reaching ``GRAZE`` past their ends so that a ray through a corner meets the
    table there) of ``edges``, a convex polygon table's edges. ``circle`` > 0 is the radius of a
    round table centred on the origin of coordinates, whose edge the rays meet too (from
    inside it).

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
    """
    n_ends = 0
    for i in range(len(tables)):
        n_ends += tables[i].shape[1] - (skip if i == 0 else 0)
    chords = np.empty((14, n_ends + edges.shape[1]))
    at = 0
    for i in range(len(tables)):
        t = tables[i]
        w = t.shape[1] - (skip if i == 0 else 0)
        chords[:, at:at + w] = t[:, :w]
        at += w
    chords[:, at:] = edges
    n_ch = chords.shape[1]
    n_rays = dirs.shape[1]
    m0 = np.empty(n_ch)  # -n.(o - a)
    nsm = np.empty(n_ch)  # L/2 - u.(o - a)
    g = np.empty(n_ch)  # how far the origin lies outside the slab
    lined = np.empty(n_ch, dtype=np.bool_)
    near = False  # the origin within GRAZE of some capsule's outline (or inside one)
    for j in range(n_ch):
        m0[j] = chords[4, j] - (ox * chords[0, j] + oy * chords[2, j])
        nsm[j] = chords[5, j] - (ox * chords[1, j] + oy * chords[3, j])
        g[j] = abs(m0[j]) - chords[7, j]
        lined[j] = abs(g[j]) < GRAZE
        if max(abs(nsm[j]) - chords[6, j], g[j]) < GRAZE:
            near = True
    # the ends, a then b of each capsule: v - o and |v - o|^2 - r^2
    n_v = 2 * n_ends
    cx = np.empty(n_v)
    cy = np.empty(n_v)
    e = np.empty(n_v)
    for j in range(n_ends):
        for k in range(2):
            v = 2 * j + k
            cx[v] = chords[8 + k, j] - ox
            cy[v] = chords[10 + k, j] - oy
            e[v] = (cx[v] * cx[v] + cy[v] * cy[v]) - chords[12, j]
            if e[v] < GRAZE:
                near = True
    if near and _inside(ox, oy, chords):
        out[:] = 0.0
        return
    # each capsule's bounding circle, seen from the origin: a ray that passes it by, or
    # whose best hit so far is nearer than the circle, need not test the capsule (every
    # point a test can find lies on the capsule, so within the circle; the margin covers
    # rounding)
    wx = np.empty(n_ch)
    wy = np.empty(n_ch)
    rr = np.empty(n_ch)
    for j in range(n_ch):
        wx[j] = (chords[8, j] + chords[9, j]) * 0.5 - ox
        wy[j] = (chords[10, j] + chords[11, j]) * 0.5 - oy
        rr[j] = chords[6, j] + chords[7, j] + BOUND_MARGIN
    for k in range(n_rays):
        dx, dy = dirs[0, k], dirs[1, k]
        best = np.inf
        for j in range(n_ch):
            along = dx * wx[j] + dy * wy[j]
            if along < -rr[j] or along - rr[j] > best or abs(dx * wy[j] - dy * wx[j]) > rr[j]:
                continue
            if lined[j]:
                t = _sides_by_line(dx, dy, ox, oy, chords, j)
            else:
                dn = dx * chords[0, j] + dy * chords[2, j]
                du = dx * chords[1, j] + dy * chords[3, j]
                t = math.copysign(g[j], m0[j]) / dn  # where the ray enters the slab
                # (a table's edge reaches GRAZE past its corners: a ray through a corner
                # meets one of the two edges there, whatever the rounding)
                half = chords[6, j] if j < n_ends else chords[6, j] + GRAZE
                if not (t >= 0.0 and not abs(t * du - nsm[j]) > half):
                    t = np.inf
            if t < best:
                best = t
            if j >= n_ends:
                continue
            for v in range(2 * j, 2 * j + 2):
                bb = dx * cx[v] + dy * cy[v]
                if e[v] < GRAZE:  # |c - t d| = r from on (or in) the disc's outline
                    disc = bb * bb - e[v]
                    if disc >= 0.0:
                        t = bb - math.sqrt(disc)
                        if 0.0 <= t < best:
                            best = t
                elif bb > 0.0:  # a disc behind the origin is not met
                    disc = bb * bb - e[v]
                    if disc >= 0.0:
                        t = bb - math.sqrt(disc)
                        if t < best:
                            best = t
        if circle > 0.0:  # |o + t d| = R, the root ahead
            b = dx * ox + dy * oy
            root = b * b - ((ox * ox + oy * oy) - circle * circle)
            t = math.sqrt(max(root, 0.0)) - b
            if t < best:
                best = t
        out[k] = best


@numba.njit(cache=True, error_model="numpy", nogil=True)
def _sides_by_line(dx: float, dy: float, ox: float, oy: float, chords: np.ndarray,
                   j: int) -> float:  # pragma: no cover - compiled
    """The nearest hit of the ray on the two long sides of capsule ``j``, each side a
    segment the ray crosses; ``inf`` where none."""
    ax, ay = chords[8, j] - ox, chords[10, j] - oy
    ex, ey = (chords[9, j] - ox) - ax, (chords[11, j] - oy) - ay
    length = math.hypot(ex, ey)
    inv = 1.0 / max(length, 1e-12)
    ux, uy = ex * inv, ey * inv
    r = chords[7, j]
    denom = dx * uy - dy * ux
    best = np.inf
    for sign in (-1.0, 1.0):  # the sides p = a -+ r n, n = (-uy, ux)
        px = ax + sign * r * uy
        py = ay - sign * r * ux
        t = (px * uy - py * ux) / denom
        s = (px * dy - py * dx) / denom
        if t >= 0.0 and 0.0 <= s <= length and t < best:
            best = t
    return best


@numba.njit(cache=True, error_model="numpy", nogil=True)
def _inside(ox: float, oy: float, chords: np.ndarray) -> bool:  # pragma: no cover - compiled
    """Whether the origin lies within its radius of some capsule's chord."""
    for j in range(chords.shape[1]):
        ax, ay = chords[8, j] - ox, chords[10, j] - oy
        ex, ey = (chords[9, j] - ox) - ax, (chords[11, j] - oy) - ay
        length = math.hypot(ex, ey)
        inv = 1.0 / max(length, 1e-12)
        ux, uy = ex * inv, ey * inv
        proj = min(max(-(ax * ux + ay * uy), 0.0), length)
        if math.hypot(ax + proj * ux, ay + proj * uy) < chords[7, j]:
            return True
    return False


@numba.njit(cache=True, error_model="numpy", nogil=True)
def place(local: np.ndarray, pts: np.ndarray, x: float, y: float,
          h: float) -> np.ndarray:  # pragma: no cover - compiled (covered through the encoder)
    """The capsule table of a piece at pose (``x``, ``y``, ``h``), from the table ``local``
    of its capsules in its own frame and their chords' points ``pts`` ((k + 1, 2)): normals
    and directions turned, the offsets moved, the ends at the world points."""
    c, s = math.cos(h), math.sin(h)
    k = local.shape[1]
    out = np.empty((14, k))
    for j in range(k):
        nx = c * local[0, j] - s * local[2, j]
        ny = s * local[0, j] + c * local[2, j]
        ux = c * local[1, j] - s * local[3, j]
        uy = s * local[1, j] + c * local[3, j]
        out[0, j], out[1, j], out[2, j], out[3, j] = nx, ux, ny, uy
        out[4, j] = local[4, j] + (nx * x + ny * y)  # n.(R a + t) = n_local.a_local + n.t
        out[5, j] = local[5, j] + (ux * x + uy * y)
        for row in (6, 7, 12, 13):
            out[row, j] = local[row, j]
        for end in range(2):
            px, py = pts[j + end, 0], pts[j + end, 1]
            out[8 + end, j] = x + (c * px - s * py)
            out[10 + end, j] = y + (s * px + c * py)
    return out


@numba.njit(cache=True, error_model="numpy", nogil=True)
def directions(h: float, angles: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """The unit ray directions (2, R) at ``angles`` from heading ``h``."""
    dirs = np.empty((2, angles.shape[0]))
    for r in range(angles.shape[0]):
        a = h + angles[r]
        dirs[0, r], dirs[1, r] = math.cos(a), math.sin(a)
    return dirs


@numba.njit(cache=True, error_model="numpy", nogil=True)
def cast_into(out: np.ndarray, at: int, dirs: np.ndarray, ox: float, oy: float,
              tables: tuple[np.ndarray, ...], skip: int, edges: np.ndarray, circle: float,
              edge_dist: np.ndarray, ray_range: float) -> None:  # pragma: no cover - compiled
    """:func:`cast`, each distance also no further than ``edge_dist`` and ``ray_range``, written
    to ``out`` from ``at`` as fractions of ``ray_range`` (the observation's ray block)."""
    dist = np.empty(dirs.shape[1])
    cast(dirs, ox, oy, tables, skip, edges, circle, dist)
    for r in range(dirs.shape[1]):
        out[at + r] = min(min(dist[r], edge_dist[r]), ray_range) / ray_range


@numba.njit(cache=True, error_model="numpy", nogil=True)
def finish(vec: np.ndarray, frame: np.ndarray, others: np.ndarray, others_at: int,
           others_stride: int, prizms: np.ndarray, prizms_at: int, prizms_stride: int,
           n: int, rays_at: int, angles: np.ndarray, ox: float, oy: float,
           tables: tuple[np.ndarray, ...], skip: int, edges: np.ndarray, circle: float,
           edge_dist: np.ndarray, ray_range: float,
           recents: tuple[np.ndarray, ...]) -> None:  # pragma: no cover - compiled
    """The parts of an observation vector (float32) that are arithmetic, in the observer's
    ``frame`` (x, y, heading, scale): the other seats' head poses (rows of ``others``:
    present, x, y, heading; at ``others_at``, one block per ``others_stride``); the Prizms
    (rows of ``prizms``: x, y, owner slot, locked; at ``prizms_at`` by ``prizms_stride``;
    ``n`` seats); from ``rays_at`` the rays along ``angles`` from the frame's heading
    (:func:`cast_into`), then per seat its recent pieces (rows of ``recents``: present, entry x and
    y, exit x and y in table coordinates, is a Launch Point) with their points in the
    observer's frame; then the whole vector clipped to [-1, 1]."""
    fx, fy, fh, k = frame[0], frame[1], frame[2], frame[3]
    c, sn = math.cos(fh), math.sin(fh)
    for j in range(others.shape[0]):
        if others[j, 0] > 0.0:
            b = others_at + j * others_stride
            dx, dy = others[j, 1] - fx, others[j, 2] - fy
            vec[b] = 1.0
            vec[b + 1] = (c * dx + sn * dy) * k
            vec[b + 2] = (-sn * dx + c * dy) * k
            vec[b + 3] = math.cos(others[j, 3] - fh)
            vec[b + 4] = math.sin(others[j, 3] - fh)
    for j in range(prizms.shape[0]):
        b = prizms_at + j * prizms_stride
        dx, dy = prizms[j, 0] - fx, prizms[j, 1] - fy
        x, y = (c * dx + sn * dy) * k, (-sn * dx + c * dy) * k
        vec[b], vec[b + 1], vec[b + 2] = 1.0, x, y
        vec[b + 3] = min(1.0, math.hypot(x, y))
        vec[b + 4 + int(prizms[j, 2])] = 1.0
        vec[b + 5 + n] = prizms[j, 3]
    cast_into(vec, rays_at, directions(fh, angles), ox, oy, tables, skip, edges, circle,
              edge_dist, ray_range)
    m = np.array([[c * k, -sn * k], [sn * k, c * k],
                  [-(fx * c + fy * sn) * k, (fx * sn - fy * c) * k]])
    i = rays_at + angles.shape[0]
    for s in range(len(recents)):
        rec = recents[s]
        for j in range(rec.shape[0]):
            w = rec[j, 0]  # present: the move applies to the points of pieces there are
            vec[i] = w
            for end in range(2):
                x, y = rec[j, 1 + 2 * end], rec[j, 2 + 2 * end]
                vec[i + 1 + 2 * end] = x * m[0, 0] + y * m[1, 0] + w * m[2, 0]
                vec[i + 2 + 2 * end] = x * m[0, 1] + y * m[1, 1] + w * m[2, 1]
            vec[i + 5] = rec[j, 5]
            i += 6
    for i in range(vec.shape[0]):
        vec[i] = min(max(vec[i], -1.0), 1.0)


@numba.njit(cache=True, error_model="numpy", nogil=True)
def extend(chords: np.ndarray, recent: np.ndarray, local: np.ndarray, pts: np.ndarray,
           x: float, y: float, h: float, ex: float, ey: float,
           launch: bool) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """A Lazer's tables (capsules and recent rows: see ``encode.LazerTables``) with one more
    element at the front, placed at (``x``, ``y``, ``h``) with its exit at (``ex``, ``ey``):
    its capsules (:func:`place`) after the others, its row first."""
    new = place(local, pts, x, y, h)
    k = chords.shape[1]
    out = np.empty((14, k + new.shape[1]))
    out[:, :k] = chords
    out[:, k:] = new
    rec = np.empty_like(recent)
    rec[0, 0], rec[0, 1], rec[0, 2], rec[0, 3], rec[0, 4] = 1.0, x, y, ex, ey
    rec[0, 5] = 1.0 if launch else 0.0
    rec[1:] = recent[:-1]
    return out, rec
