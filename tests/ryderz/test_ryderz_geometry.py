"""Scenario tests for the geometric rules of Lazer Ryderz and the predicates behind them.

Each test is named after the rule of ``shared/rules/lazer_ryderz.md`` ("Geometry", "Scoring",
"Locked", "Nudge", "Crash") or the predicate of ``ryderz_env/rules/geometry.py`` it checks.
Expected values are computed by hand from the config numbers: piece width 0.75 (half-width
0.375), tip / notch 0.375, straight length 1.5 x gear, soft 45 deg, hard 90 deg, curve arc as
long as the gear's straight, Prizm radius 0.75, touching = distance < 1e-6.

Positions are built in the middle of the 36-inch round table (radius 18), away from both
players' seats (seat 0 at the bottom, seat 1 at the top in a two-player game).
"""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
import shapely
from ryderz_builders import (
    DOWN,
    EAST,
    HARD,
    NOW,
    PREV,
    SOFT,
    UP,
    L,
    R,
    S,
    chain,
    close_pose,
    game,
    hard,
    move,
    piece,
    position,
    skip_to_move,
    specs_of,
    st,
    straight_at,
)

from ryderz_env.rules import ChanceKind, DecisionKind, Game, Move, PieceKind, Pose, Prizm
from ryderz_env.rules.config import LaunchPointSize, TableConfig
from ryderz_env.rules.geometry import (
    NUDGE_QUAD_SEGS,
    Table,
    contact_parts,
    crossing_parts,
    joint_line,
    make_element,
    nudge_obstacles,
    nudge_point,
    polygon,
    search_disc,
    squared_table,
)
from ryderz_env.rules.kernels import place_outline

HALF = 0.375  # half a piece width
TIP = 0.375
RADIUS = 0.75  # Prizm radius
CLEAR = 0.75  # Nudge clearance: one Lazer width
NUDGE_TOL = 2e-3  # polygonal discs and buffers: results hold to about this


def segment_area(h: float, r: float = RADIUS) -> float:
    """Area of the circular segment of height ``h`` cut off a disc of radius ``r``."""
    return r * r * math.acos((r - h) / r) - (r - h) * math.sqrt(2 * r * h - h * h)


def disc(g, x: float, y: float) -> shapely.Polygon:
    """A Prizm disc as the engine builds it."""
    return shapely.polygons(g.disc_local + np.array([x, y]))


def eastward(g, gear: int = 3, prizm: Prizm | None = None, **kw):
    """Seat 0 about to place a straight of ``gear`` eastward from (-4, 0) (its previous
    piece a 1st-gear straight ending there); the new straight covers x in [-4, -4 + 1.5 gear]
    and its tip reaches 0.375 further. Only ``prizm`` is on the table."""
    pre = straight_at(g, 0, Pose(-4.0, 0.0, EAST), 1)
    lazers = {0: [pre], **kw.pop("lazers", {})}
    prizms = kw.pop("prizms", [prizm] if prizm is not None else [])
    return position(g, 0, lazers=lazers, prizms=prizms, gears={0: gear}, **kw)


def all_shapes(g):
    return sorted(g.shapes)


def front_v(el) -> np.ndarray:
    """The V at a piece's front: left shoulder, point, right shoulder (world)."""
    return joint_line(el.exit, 0.75, TIP)


def back_v(el) -> np.ndarray:
    """The notch at a piece's back: left corner, notch point, right corner (world)."""
    p = el.pose
    loc = [(0.0, HALF), (TIP, 0.0), (0.0, -HALF)]
    return np.array([[q.x, q.y] for q in (p.compose(Pose(a, b, 0.0)) for a, b in loc)])


def has_vertex(coords: np.ndarray, pt: np.ndarray, tol: float = 1e-9) -> bool:
    return bool(np.min(np.hypot(coords[:, 0] - pt[0], coords[:, 1] - pt[1])) <= tol)


# ---------------------------------------------------------------------------- scoring
def test_polygon_is_shapelys_polygon_of_the_same_ring():
    rng = np.random.default_rng(3)
    for coords in (
        np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.5]]),
        rng.normal(size=(80, 2)),  # (self-crossing rings too: the same geometry)
        game().shapes[(HARD, 2, 1)].outline + 5.0,
    ):
        made = polygon(coords)
        assert made.geom_type == "Polygon"
        assert made.wkb == shapely.polygons(coords).wkb
        assert shapely.get_coordinates(made)[:-1].tolist() == coords.tolist()


def test_crossing_parts_centreline_0_3_from_centre_leaves_two_parts():
    # The strip covers offsets [0.3 - 0.375, 0.3 + 0.375] = [-0.075, 0.675] across a disc
    # spanning [-0.75, 0.75]: a big part below and a segment 0.75 - 0.675 = 0.075 high above,
    # of area r^2 acos((r-h)/r) - (r-h) sqrt(2rh - h^2) = 0.0330 > 1e-3: two parts.
    g = game()
    strip = piece(g, 0, st(3), Pose(-2.25, -0.3, EAST)).poly  # centreline y = -0.3
    assert crossing_parts(disc(g, 0.0, 0.0), [strip], 1e-3, 1e-5) == 2
    rest = shapely.difference(disc(g, 0.0, 0.0), strip)
    areas = sorted(p.area for p in shapely.get_parts(rest))
    # the disc is a polygon whose chords lie at most 5e-4 inside the circle
    assert areas[0] == pytest.approx(segment_area(0.075), abs=5e-4)
    assert segment_area(0.075) == pytest.approx(0.0330, abs=1e-4)


def test_crossing_parts_centreline_0_45_from_centre_leaves_one_part():
    # 0.45 + 0.375 = 0.825 > 0.75: the strip covers the far side of the disc entirely and the
    # disc minus the Lazer is a single part (on one side only): no complete crossing.
    g = game()
    strip = piece(g, 0, st(3), Pose(-2.25, -0.45, EAST)).poly
    assert crossing_parts(disc(g, 0.0, 0.0), [strip], 1e-3, 1e-5) == 1


def test_crossing_parts_ignores_slivers_below_min_area():
    # offset 0.374: the strip covers [-0.001, 0.749] and leaves a 0.001-high segment
    # (area ~ 4.6e-5 on the true circle, less on the polygon): below 1e-3, not a part.
    g = game()
    strip = piece(g, 0, st(3), Pose(-2.25, -0.374, EAST)).poly
    assert segment_area(0.001) < 1e-3
    assert crossing_parts(disc(g, 0.0, 0.0), [strip], 1e-3, 1e-5) == 1


def test_straight_with_centreline_0_3_from_prizm_centre_scores_it():
    g = game()
    s = eastward(g, 3, Prizm(-1.75, 0.3))  # the piece runs x -4 .. 0.5 along y = 0
    move(s, 0, Move.STRAIGHT)
    q = s.prizms[0]
    assert q.owner == 0
    # free floating: it slides to 0.75 behind the scoring piece's exit (0.5, 0)
    assert (q.x, q.y) == pytest.approx((0.5 - 0.75, 0.0), abs=1e-9)
    assert s.chance_kind() is ChanceKind.TOSS  # a neutral was scored: a fresh one lands


def test_straight_with_centreline_0_45_from_prizm_centre_does_not_score_and_nudges_it():
    g = game()
    s = eastward(g, 3, Prizm(-1.75, 0.45))
    move(s, 0, Move.STRAIGHT)
    q = s.prizms[0]
    assert q.owner == -1
    assert s.chance_kind() is None and s.decision_kind() is DecisionKind.MOVE
    assert s.current_players() == (1,)
    # Nudged the least distance: straight up, to 0.375 (half-width) + 0.75 (clearance)
    # + 0.75 (radius) = 1.875 from the centreline (moving down would take 2.325).
    assert q.x == pytest.approx(-1.75, abs=NUDGE_TOL)
    assert q.y == pytest.approx(1.875, abs=NUDGE_TOL)


@pytest.mark.parametrize("offset, scores", [(0.35, True), (0.372, False)])
def test_crossing_needs_parts_of_at_least_1e_3_on_both_sides(offset, scores):
    # the thin side is a segment 0.375 - offset high: 0.025 high has area 0.0063 (a part);
    # 0.003 high has area 0.00026 < 1e-3 (a sliver): no score, and the Prizm is Nudged
    assert segment_area(0.025) > 1e-3 > segment_area(0.003)
    g = game()
    s = eastward(g, 3, Prizm(-1.75, offset))
    move(s, 0, Move.STRAIGHT)
    q = s.prizms[0]
    assert (q.owner == 0) is scores
    if not scores:
        assert (q.x, q.y) == pytest.approx((-1.75, 1.875), abs=NUDGE_TOL)


def test_head_stopping_inside_disc_neither_scores_nor_nudges_and_leaving_next_turn_scores():
    g = game()
    pre = straight_at(g, 0, Pose(-4.0, 0.0, EAST), 1)
    # the 2nd-gear straight ends at (-1, 0): its tip (-0.625, 0) lies inside the disc
    # centred at (-0.5, 0) (x from -1.25 to 0.25)
    s = position(g, 0, lazers={0: [pre]}, prizms=[Prizm(-0.5, 0.0)], gears={0: 2})
    move(s, 0, Move.STRAIGHT)
    assert s.prizms == [Prizm(-0.5, 0.0, -1)]  # not scored, not Nudged: crossing in progress
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (1,)
    first = s.players[0].lazer[-1]
    # seat 1 (4th gear, higher) plays straights from the top; seat 0 comes back in round 2
    move(s, 0, Move.STRAIGHT)
    assert s.round == 2 and s.current_players() == (1,)
    move(s, 0, Move.STRAIGHT)
    assert s.current_players() == (0,)
    move(s, 0, Move.STRAIGHT)  # from (-1, 0) to (2, 0): leaves the disc
    second = s.players[0].lazer[-1]
    # this piece alone does not split the disc (it starts inside it); both turns together do
    assert crossing_parts(disc(g, -0.5, 0.0), [second.poly], 1e-3, 1e-5) == 1
    assert crossing_parts(disc(g, -0.5, 0.0), [first.poly, second.poly], 1e-3, 1e-5) == 2
    q = s.prizms[0]
    assert q.owner == 0
    assert (q.x, q.y) == pytest.approx((2.0 - 0.75, 0.0), abs=1e-9)  # on the scoring piece


def test_recrossing_own_prizm_scores_nothing_and_does_not_move_it():
    g = game()
    s = eastward(g, 3, Prizm(-1.75, 0.3, 0))
    move(s, 0, Move.STRAIGHT)
    assert s.prizms == [Prizm(-1.75, 0.3, 0)]
    assert s.score(0) == 1
    assert s.chance_kind() is None and s.current_players() == (1,)  # no toss, turn over


# ---------------------------------------------------------------------------- locked, nudge
def test_prizm_touched_by_two_colours_is_locked_and_not_nudged():
    g = game()
    # seat 1's straight along y = 1.5 touches the top of the disc (y up to 1.2 > 1.125) and
    # stays 0.75 clear of seat 0's new piece (top edge 0.375)
    other = piece(g, 1, st(5), Pose(-6.0, 1.5, EAST))
    s = eastward(g, 3, Prizm(-1.75, 0.45), lazers={1: [other]})
    assert not s.locked(0)  # one colour touching a neutral: free floating
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer[-1].turn == NOW  # no crash
    assert s.prizms == [Prizm(-1.75, 0.45, -1)]
    assert s.locked(0)


def test_scored_prizm_on_its_own_colour_is_locked_and_not_nudged():
    g = game()
    s = eastward(g, 3, Prizm(-1.75, 0.45, 0))  # seat 0 passes over its own Prizm
    move(s, 0, Move.STRAIGHT)
    assert s.prizms == [Prizm(-1.75, 0.45, 0)]
    assert s.locked(0)


def test_opponents_prizm_off_its_colour_passed_over_is_nudged():
    g = game()
    s = eastward(g, 3, Prizm(-1.75, 0.45, 1))  # seat 1's Prizm, not on seat 1's Lazer
    move(s, 0, Move.STRAIGHT)
    q = s.prizms[0]
    assert q.owner == 1
    assert (q.x, q.y) == pytest.approx((-1.75, 1.875), abs=NUDGE_TOL)


def assert_nudge_clear(s, j: int) -> None:
    """Prizm ``j`` lies >= 0.75 from every Lazer piece, Launch Point and other Prizm (centre
    >= 1.5 from pieces, >= 2.25 from other centres) and wholly on the table."""
    q = s.prizms[j]
    c = shapely.Point(q.x, q.y)
    for e in s.elements():
        assert shapely.distance(c, e.poly) >= RADIUS + CLEAR - NUDGE_TOL, str(e)
    for i, o in enumerate(s.prizms):
        if i != j:
            assert math.hypot(o.x - q.x, o.y - q.y) >= 2 * RADIUS + CLEAR - NUDGE_TOL
    assert s.game.table.contains_point(q.x, q.y, RADIUS - 1e-9)


def test_nudge_moves_the_least_distance_clear_of_every_lazer():
    g = game()
    s = eastward(g, 3, Prizm(-1.75, 0.45))
    move(s, 0, Move.STRAIGHT)
    assert_nudge_clear(s, 0)
    q = s.prizms[0]
    assert math.hypot(q.x + 1.75, q.y - 0.45) == pytest.approx(1.875 - 0.45, abs=NUDGE_TOL)


def test_nudge_goes_to_the_other_side_when_another_lazer_blocks_the_near_side():
    g = game()
    # seat 1's straight along y = 3.5: above seat 0's piece, centres may only lie in
    # y >= 1.875 and y <= 3.5 - 1.875 = 1.625: empty. Below: y <= -1.875 (2.325 away);
    # round the tip (x >= ~2.3) is farther (about 4).
    other = piece(g, 1, st(5), Pose(-6.0, 3.5, EAST))
    s = eastward(g, 3, Prizm(-1.75, 0.45), lazers={1: [other]})
    move(s, 0, Move.STRAIGHT)
    assert_nudge_clear(s, 0)
    q = s.prizms[0]
    assert (q.x, q.y) == pytest.approx((-1.75, -1.875), abs=NUDGE_TOL)


def test_nudge_keeps_clear_of_other_prizms():
    g = game()
    # another Prizm at (-1.75, 3): above, the centre must be 2.25 from it, so the nearest
    # spot above lies sqrt(1.9486^2 + 1.425^2) = 2.414 away; below is 2.325 away
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.45), Prizm(-1.75, 3.0)])
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[1] == Prizm(-1.75, 3.0, -1)  # not passed over: stays
    assert_nudge_clear(s, 0)
    q = s.prizms[0]
    assert (q.x, q.y) == pytest.approx((-1.75, -1.875), abs=NUDGE_TOL)


def test_nudge_keeps_the_prizm_wholly_on_the_table():
    g = game()
    # a straight northward along x = 15.6 near the east edge (radius 18); the Prizm at
    # x = 16.05 would go to x = 17.475, beyond 18 - 0.75 = 17.25: it goes west instead, to
    # 15.6 - 1.875 = 13.725
    pre = straight_at(g, 0, Pose(15.6, -4.0, UP), 1)
    s = position(g, 0, lazers={0: [pre]}, prizms=[Prizm(16.05, -1.75)], gears={0: 3})
    move(s, 0, Move.STRAIGHT)
    assert_nudge_clear(s, 0)
    q = s.prizms[0]
    assert (q.x, q.y) == pytest.approx((13.725, -1.75), abs=NUDGE_TOL)


def test_nudge_point_stays_when_free_and_is_none_when_nowhere_is_free():
    g = game()
    table = g.table
    strip = piece(g, 0, st(3), Pose(-2.25, 0.0, EAST)).poly
    # already clear: the centre itself
    far = (0.0, 5.0)
    assert nudge_point(far, [strip], [], table, RADIUS, CLEAR, 1e-6) == far
    # a 3-inch table: discs fit only within 0.75 of the centre; a piece there blocks it all
    tiny = Table(TableConfig("tiny", "circle", 3.0, (), 0.0, 0.25, table.cfg.launch_point), 5e-4)
    assert nudge_point((0.0, 0.0), [strip], [], tiny, RADIUS, CLEAR, 1e-6) is None


# ---------------------------------------------------------------------------- crashes
def test_consecutive_pieces_touch_only_at_their_joint():
    # every ordered pair of piece shapes, the second nested on the first's point: they
    # overlap in no area and every contact lies on the joint V (within joint_tolerance)
    g = game()
    jt = g.rules.joint_tolerance
    for a, b in itertools.product(all_shapes(g), repeat=2):
        ea = piece(g, 0, a, Pose(0.3, -0.2, 0.7))
        eb = piece(g, 0, b, ea.exit)
        assert shapely.intersection(ea.poly, eb.poly).area < 1e-9, (a, b)
        joint = shapely.linestrings(joint_line(ea.exit, 0.75, TIP))
        for part in contact_parts(eb.poly, ea.poly, 1e-6):
            d = shapely.distance(shapely.points(shapely.get_coordinates(part)), joint)
            assert float(np.max(d)) <= jt, (a, b)


def test_first_piece_on_a_launch_point_touches_it_only_at_the_joint():
    g = game()
    jt = g.rules.joint_tolerance
    lp = g.launch_element(0, 3.0, 0)
    for b in all_shapes(g):
        eb = piece(g, 0, b, lp.exit)
        assert shapely.intersection(lp.poly, eb.poly).area < 1e-9, b
        joint = shapely.linestrings(joint_line(lp.exit, 0.75, TIP))
        for part in contact_parts(eb.poly, lp.poly, 1e-6):
            d = shapely.distance(shapely.points(shapely.get_coordinates(part)), joint)
            assert float(np.max(d)) <= jt, b


@pytest.mark.parametrize(
    "spec",
    [
        st(1),
        st(2),
        st(3),
        st(4),
        st(5),
        (SOFT, 1, L),
        (SOFT, 2, R),
        (SOFT, 3, L),
        (SOFT, 4, R),
        (HARD, 1, R),
        (HARD, 2, L),
        (HARD, 3, R),
    ],
)
def test_first_piece_placed_on_a_launch_point_does_not_crash(spec):
    kind, gear, side = spec
    g = game()
    s = position(g, 0, gears={0: gear})  # seat 0 on its Launch Point at the bottom
    mv = (
        Move.STRAIGHT
        if kind is S
        else {
            (SOFT, L): Move.SOFT_LEFT,
            (SOFT, R): Move.SOFT_RIGHT,
            (HARD, L): Move.HARD_LEFT,
            (HARD, R): Move.HARD_RIGHT,
        }[(kind, side)]
    )
    move(s, 0, mv, roll=None if kind is S else 5)
    lz = s.players[0].lazer
    assert specs_of(lz) == [(PieceKind.LAUNCH, 0, 0), spec]
    assert close_pose(lz[1].pose, lz[0].exit)


@pytest.mark.parametrize(
    "second", [st(1), st(3), (SOFT, 2, L), (SOFT, 4, R), (HARD, 1, L), (HARD, 3, R)]
)
@pytest.mark.parametrize("first", [st(2), (SOFT, 1, R), (HARD, 1, L), (HARD, 2, R)])
def test_piece_nested_on_previous_piece_does_not_crash(first, second):
    g = game()
    old = piece(g, 0, first, Pose(-2.0, -1.0, 0.3), PREV)
    kind, gear, side = second
    s = position(g, 0, lazers={0: [old]}, prizms=[], gears={0: gear})
    mv = (
        Move.STRAIGHT
        if kind is S
        else {
            (SOFT, L): Move.SOFT_LEFT,
            (SOFT, R): Move.SOFT_RIGHT,
            (HARD, L): Move.HARD_LEFT,
            (HARD, R): Move.HARD_RIGHT,
        }[(kind, side)]
    )
    move(s, 0, mv, roll=None if kind is S else 5)
    assert specs_of(s.players[0].lazer) == [first, second]


def test_lazer_curling_back_into_its_own_older_piece_crashes():
    g = game()
    # a 2nd-gear straight from (-3, -1) east to (0, -1), then left hard turns of gear 2
    # (radius 1.910), gear 2 and gear 1 (radius 0.955) come round to (-0.955, 1.865) heading
    # south; a 2nd-gear straight south reaches y = -1.135 and crosses the first straight
    # (x from -3 to 0, y from -1.375 to -0.625)
    old = chain(
        g,
        0,
        Pose(-3.0, -1.0, EAST),
        [st(2), hard(2, L), hard(2, L), hard(1, L)],
        turn=[5, 6, 7, PREV],
    )
    r1, r2 = 1.5 / (math.pi / 2), 3.0 / (math.pi / 2)
    assert close_pose(old[-1].exit, Pose(-r1, 2 * r2 - 1 - r1, DOWN), 1e-9)
    s = position(g, 0, lazers={0: old}, prizms=[], gears={0: 2})
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer == [] and s.players[0].head is None
    assert s.decision_kind() is DecisionKind.RESPAWN and s.current_players() == (0,)


def _crossing_opponent(g, prizms):
    """Seat 0 goes east along y = 0 from (-4, 0) (3rd-gear straight, x -4 .. 0.5); seat 1's
    straight runs north along x = 0 from (0, -2.25) to (0, 2.25): the two overlap in the
    square |x|, |y| <= 0.375 (corners 0.53 from the origin)."""
    other = piece(g, 1, st(3), Pose(0.0, -2.25, UP))
    s = eastward(g, 3, prizms=prizms, lazers={1: [other]})
    return s, s.players[1].lazer[0]  # the piece as laid on the table


def test_contact_with_opponent_only_inside_a_prizm_disc_does_not_crash():
    g = game()
    s, other = _crossing_opponent(g, [Prizm(0.0, 0.0, 0)])  # seat 0's own: no scoring
    move(s, 0, Move.STRAIGHT)
    assert specs_of(s.players[0].lazer) == [st(1), st(3)]
    assert s.players[1].lazer == [other]
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (1,)
    assert s.prizms == [Prizm(0.0, 0.0, 0)]  # two colours touch it: locked, not Nudged


def test_same_contact_outside_any_prizm_disc_crashes():
    g = game()
    s, other = _crossing_opponent(g, [])
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer == [] and s.players[0].head is None
    assert s.players[1].lazer == [other]  # its front-most piece was hit: it keeps just that
    assert s.decision_kind() is DecisionKind.RESPAWN and s.current_players() == (0,)


def test_contact_partly_outside_the_prizm_disc_crashes():
    g = game()
    # disc centred (0, 0.5): the contact square's corner (0.375, -0.375) is 0.95 > 0.75 away
    s, _ = _crossing_opponent(g, [Prizm(0.0, 0.5, 0)])
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer == []
    assert s.decision_kind() is DecisionKind.RESPAWN


@pytest.mark.parametrize("with_disc", [True, False])
def test_point_grazing_an_opponent_only_inside_a_prizm_disc_does_not_crash(with_disc):
    g = game()
    # seat 1's straight runs north along x = 1 (x 0.625 .. 1.375); seat 0's new straight
    # ends at (0.5, 0) and its point (0.875, 0) pokes 0.25 into seat 1's side: the contact is
    # a small triangle within 0.28 of (0.75, 0), where seat 0's own Prizm lies
    other = piece(g, 1, st(3), Pose(1.0, -2.25, UP))
    prizms = [Prizm(0.75, 0.0, 0)] if with_disc else []
    s = eastward(g, 3, prizms=prizms, lazers={1: [other]})
    (other,) = s.players[1].lazer  # the piece as laid on the table
    move(s, 0, Move.STRAIGHT)
    crashed = s.players[0].lazer == []
    assert crashed is not with_disc
    assert s.players[1].lazer == [other]
    if with_disc:
        assert s.prizms == [Prizm(0.75, 0.0, 0)]


@pytest.mark.parametrize("overshoot, crash", [(-1e-5, False), (1e-3, True)])
def test_piece_leaving_the_round_table_crashes(overshoot, crash):
    g = game()  # radius 18; the piece runs east along y = 0 and its tip is its farthest
    # vertex (tip at x, corners at sqrt((x - 0.375)^2 + 0.375^2) < x)
    tip_x = 18.0 + overshoot
    head = Pose(tip_x - TIP - 4.5, 0.0, EAST)
    s = position(g, 0, lazers={0: [straight_at(g, 0, head, 1)]}, gears={0: 3})
    move(s, 0, Move.STRAIGHT)
    assert (s.players[0].lazer == []) is crash
    assert (s.decision_kind() is DecisionKind.RESPAWN) is crash


@pytest.mark.parametrize("overshoot, crash", [(-1e-5, False), (1e-3, True)])
def test_piece_leaving_a_polygon_table_crashes(overshoot, crash):
    g = game(table="rectangle")  # x from -30 to 30, y from -20 to 20; seats at (-30, 5), (30, -5)
    tip_y = -20.0 - overshoot
    head = Pose(0.0, tip_y + TIP + 4.5, DOWN)
    s = position(g, 0, lazers={0: [straight_at(g, 0, head, 1)]}, gears={0: 3})
    move(s, 0, Move.STRAIGHT)
    assert (s.players[0].lazer == []) is crash
    assert (s.decision_kind() is DecisionKind.RESPAWN) is crash


def test_table_holds_round_table_exactly_at_the_vertices():
    g = game()
    tol = g.rules.touch_tolerance
    inside = piece(g, 0, st(3), Pose(18.0 - 1e-5 - TIP - 4.5, 0.0, EAST))
    outside = piece(g, 0, st(3), Pose(18.0 + 1e-5 - TIP - 4.5, 0.0, EAST))
    assert g.table.holds(inside.coords, inside.poly, tol)
    assert not g.table.holds(outside.coords, outside.poly, tol)


# ---------------------------------------------------------------------------- launch frames
def _back_corners(frame: Pose, width: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    a = frame.compose(Pose(0.0, width / 2, 0.0))
    b = frame.compose(Pose(0.0, -width / 2, 0.0))
    return np.array([a.x, a.y]), np.array([b.x, b.y])


@pytest.mark.parametrize("t", [0.0, 7.3, 30.0, 100.0])
def test_launch_frame_on_round_table_has_back_corners_on_the_edge_1_5_apart(t):
    g = game()
    f = g.table.launch_frame(t)
    a, b = _back_corners(f)
    assert math.hypot(*a) == pytest.approx(18.0, abs=1e-9)
    assert math.hypot(*b) == pytest.approx(18.0, abs=1e-9)
    assert math.dist(a, b) == pytest.approx(1.5, abs=1e-9)
    # heading along the inward normal: towards the centre
    assert math.cos(f.h - math.atan2(-f.y, -f.x)) == pytest.approx(1.0, abs=1e-12)
    # the back midpoint is the perimeter point at t moved in by the sagitta of the chord
    px, py = g.table.point_at(t)
    assert math.hypot(f.x - px, f.y - py) == pytest.approx(18 - math.sqrt(18**2 - 0.75**2))


@pytest.mark.parametrize("t, inward", [(10.0, EAST), (70.0, DOWN), (125.0, math.pi), (180.0, UP)])
def test_launch_frame_on_rectangle_mid_side(t, inward):
    g = game(table="rectangle")
    f = g.table.launch_frame(t)
    a, b = _back_corners(f)
    boundary = g.table.polygon.exterior
    assert shapely.distance(shapely.Point(*a), boundary) < 1e-9
    assert shapely.distance(shapely.Point(*b), boundary) < 1e-9
    assert math.dist(a, b) == pytest.approx(1.5, abs=1e-9)
    assert (f.x, f.y) == pytest.approx(g.table.point_at(t), abs=1e-9)
    assert math.cos(f.h - inward) == pytest.approx(1.0, abs=1e-12)


def test_launch_frame_across_a_rectangle_corner_keeps_both_back_corners_on_the_edge():
    g = game(table="rectangle")
    f = g.table.launch_frame(40.2)  # 0.2 past the corner (-30, 20)
    a, b = _back_corners(f)
    boundary = g.table.polygon.exterior
    assert shapely.distance(shapely.Point(*a), boundary) < 1e-9
    assert shapely.distance(shapely.Point(*b), boundary) < 1e-9
    assert math.dist(a, b) == pytest.approx(1.5, abs=1e-9)
    # one corner on each side of the table's corner
    assert {round(float(a[0]), 9) == -30.0, round(float(b[0]), 9) == -30.0} == {True, False}
    lp = g.launch_element(0, 40.2, 0)
    assert g.table.holds(lp.coords, lp.poly, 0.0) or shapely.covers(g.table.polygon, lp.poly)


# ---------------------------------------------------------------------------- piece outlines
def test_piece_exits_lengths_and_turns_follow_the_config():
    g = game()
    for (kind, gear, side), shape in g.shapes.items():
        length = 1.5 * gear
        assert shape.length == pytest.approx(length, abs=1e-12)
        if kind is S:
            assert close_pose(shape.exit, Pose(length, 0.0, 0.0))
            continue
        angle = math.radians(45 if kind is SOFT else 90)
        rad = length / angle
        assert shape.exit.h == pytest.approx(side * angle, abs=1e-12)
        assert (shape.exit.x, shape.exit.y) == pytest.approx(
            (rad * math.sin(angle), side * rad * (1 - math.cos(angle))), abs=1e-12
        )


def test_piece_outline_has_its_point_and_notch():
    g = game()
    for key, shape in g.shapes.items():
        el = piece(g, 0, key, Pose(1.0, 2.0, 0.4))
        for pt in front_v(el):
            assert has_vertex(el.coords, pt), key
        for pt in back_v(el):
            assert has_vertex(el.coords, pt), key
        assert el.poly.is_valid and shapely.is_ccw(el.poly.exterior), key
        # the strip is 0.75 wide: area = length x width (+ point - notch = 0)
        assert el.poly.area == pytest.approx(shape.length * 0.75, rel=2e-3), key


def test_piece_outline_joints_coincide():
    # along a chain, each piece's entry is its predecessor's exit and its notch is exactly the
    # predecessor's point
    g = game()
    specs = [st(2), (SOFT, 1, L), (HARD, 3, R), st(5), (SOFT, 4, L), (HARD, 1, L), st(1)]
    els = chain(g, 0, Pose(-5.0, 3.0, -0.2), specs)
    for a, b in itertools.pairwise(els):
        assert close_pose(b.pose, a.exit)
        assert np.allclose(back_v(b), front_v(a), atol=1e-9)
    lp = g.launch_element(0, 5.0, 0)
    first = piece(g, 0, st(1), lp.exit)
    for pt in front_v(lp):
        assert has_vertex(lp.coords, pt)
    assert np.allclose(back_v(first), front_v(lp), atol=1e-9)


def test_crossing_through_a_joint_inside_the_disc_scores_despite_rounding():
    # Two nested straights meet along their V only up to rounding; here their union is a
    # MultiPolygon with a hairline between them. The crossing must still cut the disc in two:
    # the centreline passes 0.12 from the centre, through the joint (found by the review).
    g = game()
    a = piece(
        g, 0, st(4), Pose(-2.407808374315775, -0.027034337239279616, 2.4981273469635568), PREV
    )
    off = 0.11952630373853929
    c = (a.exit.x - off * math.sin(a.exit.h), a.exit.y + off * math.cos(a.exit.h))
    s = position(g, 0, lazers={0: [a]}, prizms=[Prizm(*c)], gears={0: 3})
    skip_to_move(s)
    move(s, 0, Move.STRAIGHT)
    b = s.players[0].lazer[-1]
    assert crossing_parts(disc(g, *c), [a.poly, b.poly], 1e-3, 1e-5) == 2
    assert s.prizms[0].owner == 0


def test_game_keeps_nudge_obstacles_of_pieces_and_does_not_pickle_them() -> None:
    g = Game()
    s = g.new_initial_state(0)
    el = g.launch_element(0, 0.5, 0)
    (got,) = g.nudge_obstacles_of([el])
    r = g.rules
    (want,) = nudge_obstacles([el.poly], r.prizm_radius, r.nudge_clearance)
    assert shapely.hausdorff_distance(got, want) < 1e-12
    assert g.nudge_obstacles_of([el])[0] is got  # kept
    assert el in g.nudge_obstacles
    copy = pickle.loads(pickle.dumps(s))
    assert copy.game.nudge_obstacles == {}


def test_nudge_obstacle_of_every_shape_is_its_placed_shape_grown_up_to_rounding() -> None:
    """A piece's Nudge obstacle is its shape's obstacle placed at its pose: the polygon that
    growing the placed piece gives, to 1e-12 in (its vertices, from another start)."""
    g = Game(num_players=2)
    r = g.rules
    rng = np.random.default_rng(5)
    els = [g.launch_element(0, 3.0, 0)]
    for (kind, gear, side), shape in sorted(g.shapes.items()):
        pose = Pose(
            float(rng.uniform(-9, 9)),
            float(rng.uniform(-9, 9)),
            float(rng.uniform(-math.pi, math.pi)),
        )
        els.append(make_element(0, kind, gear, side, pose, 1, shape.outline, shape.exit))
    got = g.nudge_obstacles_of(els)
    want = nudge_obstacles([el.poly for el in els], r.prizm_radius, r.nudge_clearance)
    for el, a, b in zip(els, got, want, strict=True):
        assert shapely.get_num_coordinates(a) == shapely.get_num_coordinates(b), el
        assert shapely.hausdorff_distance(a, b) < 1e-12, el


def test_nudge_obstacle_of_a_shape_grown_with_holes_is_grown_where_placed() -> None:
    """A shape whose grown obstacle is not one simple polygon has no kept outline: its pieces'
    obstacles are grown where they lie."""
    g = Game(num_players=2)
    r = g.rules
    key = (HARD, 1, 1)
    g._nudge_outlines[key] = None  # as for a shape grown with holes
    shape = g.shapes[key]
    el = make_element(0, HARD, 1, 1, Pose(2.0, -3.0, 0.4), 1, shape.outline, shape.exit)
    (got,) = g.nudge_obstacles_of([el])
    (want,) = nudge_obstacles([el.poly], r.prizm_radius, r.nudge_clearance)
    assert got.wkb == want.wkb


def test_search_disc_is_shapelys_buffer_of_the_point() -> None:
    rng = np.random.default_rng(8)
    for _ in range(200):
        x, y = rng.normal(size=2) * 10
        rho = float(rng.uniform(0.1, 40.0))
        assert (
            search_disc(x, y, rho).wkb
            == shapely.Point(x, y).buffer(rho, quad_segs=NUDGE_QUAD_SEGS).wkb
        )


@pytest.mark.parametrize("table", ["standard", "hexagon"])
def test_inset_holds_a_disc_only_when_the_inset_does(table: str) -> None:
    """``Table.inset_holds`` never says yes for a disc the inset does not hold (checked
    with shapely), and says yes for discs clear of the inset's edge."""
    t = Game(table=table).table
    d = RADIUS + 1e-6
    region = t.inset(d)
    rng = np.random.default_rng(9)
    # random discs, and discs reaching just short of a round inset's circumcircle towards the
    # middle of one of its edges (where the polygon lies inside the circle)
    discs = [(*rng.uniform(-20, 20, 2), float(rng.uniform(0.5, 6.0))) for _ in range(300)]
    if t.is_circle:
        corners = shapely.get_coordinates(region)[:-1]
        outer = t.radius - d
        for k in range(0, len(corners), 7):
            mx, my = (corners[k] + corners[(k + 1) % len(corners)]) / 2.0
            u = np.array([mx, my]) / math.hypot(mx, my)
            rho = float(rng.uniform(0.5, 3.0))
            reach = outer - rho - float(rng.uniform(0.0, 2e-4))
            discs.append((*(u * reach), rho))
    yes = 0
    for x, y, rho in discs:
        if t.inset_holds(d, x, y, rho):
            yes += 1
            assert shapely.contains(region, search_disc(x, y, rho))
        elif shapely.contains_xy(region, x, y):
            edge = shapely.distance(region.boundary, shapely.Point(x, y))
            assert edge < rho + 1e-6  # no: only where the disc comes near the edge
    assert yes > 30


def test_outline_placement_rounds_each_fused_product_once_on_every_cpu():
    """World outlines are ``fma(y, -s, x c) + px`` and ``fma(y, c, x s) + py`` per point,
    each fused product rounded once (checked against exact rational arithmetic), so a game
    places its pieces identically whatever the CPU; the bounds are the coordinates' extremes."""
    rng = np.random.default_rng(11)
    for n in (1, 3, 8, 17, 80):
        local = rng.normal(size=(n, 2)) * 5.0
        px, py, h = float(rng.normal() * 9), float(rng.normal() * 9), float(rng.uniform(-4, 4))
        c, s = math.cos(h), math.sin(h)
        out, x0, y0, x1, y1 = place_outline(local, px, py, c, s)
        for (lx, ly), (wx, wy) in zip(local.tolist(), out.tolist(), strict=True):
            fx = float(Fraction(ly) * Fraction(-s) + Fraction(lx * c))
            fy = float(Fraction(ly) * Fraction(c) + Fraction(lx * s))
            assert (wx, wy) == (fx + px, fy + py)
        assert (x0, y0, x1, y1) == (
            out[:, 0].min(),
            out[:, 1].min(),
            out[:, 0].max(),
            out[:, 1].max(),
        )
    ints = place_outline(np.array([[1, 0], [0, 2]]), 0.5, 0.0, 1.0, 0.0)[0]
    assert ints.dtype == np.float64 and ints.tolist() == [[1.5, 0.0], [0.5, 2.0]]


# ------------------------------------------------------- the squared table (square_edge)
def _table(poly: list[list[float]]) -> TableConfig:
    return TableConfig(
        "t", "polygon", 0.0, tuple(map(tuple, poly)), 0.0, 0.25, LaunchPointSize(1.5, 1.0)
    )


@pytest.mark.parametrize(
    "poly, want",
    [
        # 72 x 30 listed from the right end, clockwise or counter-clockwise: that end is kept
        ([[36, 15], [36, -15], [-36, -15], [-36, 15]], [(36, 15), (36, -15), (6, -15), (6, 15)]),
        ([[36, -15], [36, 15], [-36, 15], [-36, -15]], [(36, -15), (36, 15), (6, 15), (6, -15)]),
        # far from the origin
        (
            [[-36, 300], [-36, 315], [36, 315], [36, 285], [-36, 285]],
            [(-36, 300), (-36, 315), (-6, 315), (-6, 285), (-36, 285)],
        ),
        # a closed ring (its first vertex repeated last) keeps its start
        (
            [[-36, 0], [-36, 15], [36, 15], [36, -15], [-36, -15], [-36, 0]],
            [(-36, 0), (-36, 15), (-6, 15), (-6, -15), (-36, -15)],
        ),
    ],
)
def test_squared_table_keeps_the_first_vertex_end_and_order(poly, want) -> None:
    assert squared_table(_table(poly), 30.0).polygon == tuple((float(x), float(y)) for x, y in want)


def test_squared_table_cuts_across_a_tilted_table() -> None:
    c = math.sqrt(0.5)
    w = 30 * c  # the 72 x 30 table turned 45 degrees: the cut is 30 along the long side
    poly = [[0, 0], [w, w], [w + 72 * c, w - 72 * c], [72 * c, -72 * c]]
    got = squared_table(_table(poly), 30.0).polygon
    assert np.allclose(got, [(0, 0), (w, w), (2 * w, 0), (w, -w)], atol=1e-12)


def test_squared_table_fence_leaves_out_table_sides_on_the_new_edge() -> None:
    # a 50 x 30 fork whose notch bottom (x = 30, y 10 .. 20) lies on the cut: the new edge is
    # the 10 in above and the 10 in below it
    fork = [[0, 0], [0, 30], [50, 30], [50, 20], [30, 20], [30, 10], [50, 10], [50, 0]]
    assert squared_table(_table(fork), 20.0).polygon == (
        (0.0, 0.0),
        (0.0, 30.0),
        (30.0, 30.0),
        (30.0, 20.0),
        (30.0, 10.0),
        (30.0, 0.0),
    )
    with pytest.raises(
        ValueError, match="20 in long, but the pieces laid along it cover only 19.9 in"
    ):
        squared_table(_table(fork), 19.9)


@pytest.mark.parametrize(
    "poly, message",
    [
        ([[-3, 15], [36, 15], [36, -15], [-36, -15], [-36, 15]], "first vertex .* lies 33 in"),
        ([[90, 15], [0, 0], [0, 30]], "9.597 in wide, narrower than before"),  # apex first
        (
            [[0, 0], [0, 10], [40, 10], [40, 20], [0, 20], [0, 30], [60, 30], [60, 0]],
            "splits table",
        ),  # two prongs towards the kept end
        ([[0, 0], [0, 30], [30, 30], [30, 0]], "no longer"),
    ],
)
def test_squared_table_refuses_what_it_cannot_square(poly, message) -> None:
    with pytest.raises(ValueError, match=message):
        squared_table(_table(poly), 100.0)
