"""The Lazer Ryderz vector encoder (``ryderz_env/encode.py``): sizes, ranges, the observer's
frame, ray distances against hand-computed geometry and against shapely, and its caches."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from ryderz_builders import EAST, game, piece, position, st, straight_at

from ryderz_env.encode import EDGE_INSET, RAY_SAGITTA, VectorEncoder, ray_distances
from ryderz_env.rules import Action, Game, Pose, Prizm
from ryderz_env.rules.geometry import arc_segments, to_world
from tabletop.protocol import play_chance


def launched(num_players: int = 2):
    g = game(num_players=num_players)
    s = g.new_initial_state(0)
    s.apply_actions({i: Action.launch(i + 1, 0.0) for i in range(num_players)})
    return g, s


def test_ray_against_a_capsule_across_it_stops_at_its_near_side() -> None:
    segs = np.array([[[5.0, -3.0], [5.0, 3.0]]])
    d = ray_distances(
        (0.0, 0.0), np.array([[1.0, 0.0], [0.0, 1.0]]), segs, np.array([0.375]), 100.0
    )
    assert d[0] == pytest.approx(5.0 - 0.375)
    assert d[1] == 100.0  # parallel to it and off to the side: no hit


def test_ray_hits_the_round_end_of_a_capsule() -> None:
    segs = np.array([[[5.0, 0.0], [9.0, 0.0]]])
    d = ray_distances((0.0, 0.0), np.array([[1.0, 0.0]]), segs, np.array([0.5]), 100.0)
    assert d[0] == pytest.approx(4.5)


def test_origin_inside_a_capsule_sees_it_at_zero() -> None:
    segs = np.array([[[-1.0, 0.0], [1.0, 0.0]]])
    d = ray_distances((0.0, 0.1), np.array([[0.0, 1.0]]), segs, np.array([0.375]), 100.0)
    assert d[0] == 0.0


def test_ray_along_a_side_line_away_from_a_capsule_behind_does_not_hit_it() -> None:
    # the origin lies on the line of a capsule's side, past its end, and the ray runs along
    # that line away from it: it never meets the capsule. The side crossing is 0/0 there, so
    # rounding decides it; these headings once gave a spurious hit at distance 0.
    for heading in (0.116082, 0.14386, 0.188451, 0.203802, 1.0, 2.5):
        u = np.array([math.cos(heading), math.sin(heading)])
        n = np.array([-u[1], u[0]])
        o = np.array([1.3, -2.1])
        segs = np.array([[o - 9.0 * u - 0.375 * n, o - 3.0 * u - 0.375 * n]])
        d = ray_distances(tuple(o), u[None], segs, np.array([0.375]), 100.0)
        assert d[0] == 100.0, heading
        # aimed at the centre of its near end instead, the ray meets that end's disc
        to_end = -3.0 * u - 0.375 * n
        back = ray_distances(
            tuple(o), (to_end / np.hypot(*to_end))[None], segs, np.array([0.375]), 100.0
        )
        assert back[0] == pytest.approx(math.hypot(3.0, 0.375) - 0.375), heading


def test_rays_from_a_fresh_launch_point_reach_the_far_edge_ahead() -> None:
    g, s = launched()
    enc = VectorEncoder(g)
    r = enc.rays(s, 0) * enc.ray_range
    # the Launch Points' back edges are chords of the 18-inch circle, 1.5 long; their points
    # lie 1.0 further in. Seat 0's ray ahead meets seat 1's Launch Point point opposite; the
    # one behind meets the edge.
    tip = 18.0 * math.cos(math.asin(0.75 / 18.0)) - 1.0
    assert r[0] == pytest.approx(2 * tip, abs=1e-9)
    assert r[len(r) // 2] == pytest.approx(18.0 - tip, abs=1e-9)


def test_an_observer_with_no_head_on_a_polygon_table_sees_across_it_and_the_edge_behind() -> None:
    """Seat 1 of the 60 x 40 table has its Launch Point frame in the middle of a long edge; with
    no head its rays start EDGE_INSET inside: ahead across the 40-inch width, along the edge to
    the corners 30 inches either side, behind onto the edge it stands on."""
    g = Game(num_players=4, table="rectangle")
    s = g.new_initial_state(0)
    enc = VectorEncoder(g)
    assert s.players[1].head is None
    r = enc.rays(s, 1) * enc.ray_range
    quarter = len(r) // 4
    assert r[0] == pytest.approx(40.0 - EDGE_INSET, abs=1e-9)
    assert r[quarter] == pytest.approx(30.0, abs=1e-6)
    assert r[3 * quarter] == pytest.approx(30.0, abs=1e-6)
    assert r[2 * quarter] == pytest.approx(EDGE_INSET, abs=1e-9)


def test_a_ray_through_a_corner_of_the_table_meets_it_there() -> None:
    """Seat 0 of the hexagon sits at a corner: its Launch Point's back corners lie on the two
    edges that meet there, and the ray straight behind runs through the corner itself."""
    g = Game(num_players=2, table="hexagon")
    s = g.new_initial_state(0)
    enc = VectorEncoder(g)
    fr = enc.frame(s, 0)
    corner = min(g.table.vertices.tolist(), key=lambda v: math.hypot(v[0] - fr.x, v[1] - fr.y))
    r = enc.rays(s, 0) * enc.ray_range
    assert r[len(r) // 2] == pytest.approx(
        math.hypot(corner[0] - fr.x, corner[1] - fr.y) + EDGE_INSET, abs=1e-6
    )


def test_a_piece_across_the_path_shortens_the_ray_ahead() -> None:
    g = game()
    other = piece(g, 1, st(3), Pose(3.0, -2.25, math.pi / 2))  # x = 3, y in [-2.25, 2.25]
    # seat 0's head at (-4, 0) heading east: the exit of its 1st-gear straight
    mine = straight_at(g, 0, Pose(-4.0, 0.0, EAST), 1)
    s = position(g, 0, lazers={0: [mine], 1: [other]}, prizms=[])
    enc = VectorEncoder(g)
    r = enc.rays(s, 0) * enc.ray_range
    tip = -4.0 + g.pieces.tip
    assert r[0] == pytest.approx(3.0 - 0.375 - tip, abs=1e-6)


def test_encoding_size_matches_the_blocks_and_stays_in_range() -> None:
    g, s = launched(4)
    enc = VectorEncoder(g)
    v = enc.encode(s, 2)
    assert v.shape == (sum(n for _, n in enc.blocks),) == (enc.size,)
    assert v.dtype == np.float32
    assert np.all(v >= -1) and np.all(v <= 1)


def test_prizms_are_given_in_the_observers_frame() -> None:
    g = game()
    # seat 0's head at the centre heading north: the exit of its 1st-gear straight
    mine = straight_at(g, 0, Pose(0.0, 0.0, math.pi / 2), 1)
    s = position(g, 0, lazers={0: [mine]}, prizms=[Prizm(0.0, 3.0)])
    enc = VectorEncoder(g)
    v = enc.encode(s, 0)
    start = sum(n for name, n in enc.blocks[: [b[0] for b in enc.blocks].index("prizms")])
    present, x, y = v[start : start + 3]
    assert present == 1.0
    assert x == pytest.approx(3.0 / (2 * enc.scale))  # straight ahead of a north-facing head
    assert y == pytest.approx(0.0, abs=1e-7)


def _random_step(s, rng: np.random.Generator) -> None:
    if s.is_chance_node():
        play_chance(s, rng)
    else:
        s.apply_actions(
            {
                p: (acts := s.legal_actions(p))[int(rng.integers(len(acts)))]
                for p in s.current_players()
            }
        )


@pytest.mark.parametrize("table", ["standard", "hexagon"])
def test_cached_encodings_equal_a_fresh_encoders_through_branches_and_crashes(table: str) -> None:
    # one encoder follows a seeded game that branches (a clone plays on, the parent goes back
    # to where it was), so its caches see Lazers grow, shrink and come back; every encoding
    # must equal that of an encoder seeing the state first
    g = Game(num_players=3, table=table, powers=True)
    enc = VectorEncoder(g)
    rng = np.random.default_rng(7)
    s = g.new_initial_state(7)
    crashes = branches = 0
    for step in range(400):
        if s.is_terminal():
            break
        before = [len(p.lazer) for p in s.players]
        if step % 5 == 0:
            branch = s.clone()
            for _ in range(3):
                if not branch.is_terminal():
                    _random_step(branch, rng)
            for seat in range(g.num_players):
                fresh = VectorEncoder(g).encode(branch, seat)
                assert np.array_equal(enc.encode(branch, seat), fresh)
            branches += 1
        _random_step(s, rng)
        crashes += any(len(p.lazer) < n - 1 for p, n in zip(s.players, before, strict=True))
        for seat in range(g.num_players):
            assert np.array_equal(enc.encode(s, seat), VectorEncoder(g).encode(s, seat))
            assert np.array_equal(enc.rays(s, seat), VectorEncoder(g).rays(s, seat))
    assert crashes and branches  # the caches did see pieces leave the table


def _shapely_rays(enc: VectorEncoder, s, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Ray distances from the capsules and the table outline by shapely (arcs as fine
    polygons), for comparison, and per ray whether turning it by 1e-7 either way changes what
    it sees (a ray grazing a capsule: pieces fit a lattice of sorts, so some do)."""
    g = enc.game
    fr = enc.frame(s, seat)
    me = s.players[seat]
    inset = 0.0 if g.table.is_circle else EDGE_INSET  # (no head: the seat's frame, on an edge)
    ox, oy = fr.ahead(g.pieces.tip if me.head is not None else inset)
    shapes = []
    for p in s.players:
        for el in p.lazer:
            if p is me and el is me.lazer[-1] and me.head == el.exit:
                continue
            if el.is_launch:
                r = enc.lp_depth / 2.0
                half = max(0.0, enc.lp_width / 2.0 - r)
                pts = to_world(np.array([[r, -half], [r, half]]), el.pose)
            else:
                r = enc.half_width
                shape = g.shapes[(el.kind, el.gear, el.side)]
                pts = to_world(
                    shape.centreline(
                        1
                        if shape.side == 0
                        else arc_segments(shape.angle, shape.radius, RAY_SAGITTA)
                    ),
                    el.pose,
                )
            shapes.append(shapely.LineString(pts).buffer(r, quad_segs=256))
    targets = [shapely.union_all(shapes)] if shapes else []
    tb = g.table
    targets.append(
        (
            shapely.Point(0.0, 0.0).buffer(tb.radius, quad_segs=1024)
            if tb.is_circle
            else tb.polygon
        ).exterior
    )

    def cast(a: float) -> float:
        ray = shapely.LineString([(ox, oy), (ox + 200 * math.cos(a), oy + 200 * math.sin(a))])
        hits = [ray.intersection(t) for t in targets if ray.intersects(t)]
        return min([enc.ray_range] + [shapely.Point(ox, oy).distance(h) for h in hits])

    dist, grazing = [], []
    for a in fr.h + enc.ray_angles:
        dist.append(cast(a) / enc.ray_range)
        grazing.append(abs(cast(a - 1e-7) - cast(a + 1e-7)) > 1e-5)
    return np.array(dist), np.array(grazing)


@pytest.mark.parametrize("table", ["standard", "rectangle", "hexagon", "long", "long squared"])
def test_rays_agree_with_shapely_on_played_positions(table: str) -> None:
    # the long table's perimeter starts at a vertex in the middle of a side, where seat 0's
    # headless observer sits; squared, seat 2 sits on the new edge
    square = table.endswith("squared")
    g = Game(
        num_players=4,
        table=table.split()[0],
        odd_table={
            "toss_start_prizms": False,
            "start_far_sides": False,
            "large_far_sides": False,
            "square_edge": square,
        },
    )
    enc = VectorEncoder(g)
    rng = np.random.default_rng(3)
    s = g.new_initial_state(3)
    checked = 0
    for step in range(150):
        if s.is_terminal():
            break
        if step % 6 == 0 and not s.is_chance_node():
            for seat in range(g.num_players):
                want, grazing = _shapely_rays(enc, s, seat)
                # the arcs of the round ends and of a round table are polygons to shapely
                got = enc.rays(s, seat)
                assert np.allclose(got[~grazing], want[~grazing], atol=2e-5)
                checked += int((~grazing).sum())
        _random_step(s, rng)
    assert checked >= 500


def test_rays_through_the_corners_of_a_non_convex_table_meet_it_there(tmp_path) -> None:
    """On a non-convex table (an L, its edges not folded into the compiled cast) a ray aimed
    through a convex corner stops there (or at an edge before it), whatever the rounding."""
    path = tmp_path / "ell.yaml"
    path.write_text(
        "name: ell\nshape: polygon\ndiameter: 0.0\n"
        "polygon: [[-20.0, -20.0], [20.0, -20.0], [20.0, 0.0], [0.0, 0.0], [0.0, 20.0],"
        " [-20.0, 20.0]]\nfirst_seat: 0.0\nreach: 0.25\n"
        "launch_point: {width: 1.5, depth: 1.0}\n",
        encoding="utf-8",
    )
    g = Game(num_players=2, table=str(path))
    enc = VectorEncoder(g)
    assert enc._edge_table is None  # (non-convex: distances by _edge_distances)
    corners = [(20.0, -20.0), (20.0, 0.0), (0.0, 20.0), (-20.0, 20.0), (-20.0, -20.0)]
    region = g.table.polygon
    rng = np.random.default_rng(12)
    checked = 0
    while checked < 3000:
        ox, oy = rng.uniform(-20.0, 20.0, 2)
        if not region.contains(shapely.Point(ox, oy)):
            continue
        cx, cy = corners[checked % len(corners)]
        d = math.hypot(cx - ox, cy - oy)
        dirs = np.array([[(cx - ox) / d], [(cy - oy) / d]])
        got = float(enc._edge_distances(dirs, ox, oy)[0])
        assert got <= d + 1e-9, (ox, oy, cx, cy, got, d)
        checked += 1
