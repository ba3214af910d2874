"""Aiming a Launch Point (``ryderz_env/rules/aim.py``): the geometry of "aim at Prizm j"."""

from __future__ import annotations

import math

import pytest
from ryderz_builders import game, with_prizms

from ryderz_env.rules import Prizm, aim_launches, launch_aim
from ryderz_env.rules.aim import LaunchAim


def test_spaces_reexports_the_rules_launch_aim() -> None:
    from ryderz_env import spaces

    assert spaces.LaunchAim is LaunchAim


def test_aim_on_a_round_table_faces_the_point_through_the_centre() -> None:
    g = game(num_players=2)
    aim = LaunchAim(g)
    # seat 0 sits at the bottom (t = 0); a point straight up the table is faced from x = 0
    assert aim.aim(0, 0.0, 5.0) == pytest.approx(0.0, abs=1e-9)
    # a point at angle phi from the centre is faced from the rim point at phi + pi
    px, py = 3.0 * math.cos(math.radians(60)), 3.0 * math.sin(math.radians(60))
    x = aim.aim(0, px, py)
    lat, fwd = aim._offset(0, x, px, py)
    assert abs(lat) < 1e-9 and fwd > 0
    # nothing in seat 0's reach faces a point near the right edge of the table
    assert aim.aim(0, 17.0, 0.0) is None


def test_aim_is_cached_per_seat_and_point() -> None:
    aim = LaunchAim(game(num_players=2))
    points = [(0, 1.5, 4.0), (1, 1.5, 4.0), (0, 17.0, 0.0), (0, -2.0, -3.0)]
    first = [aim.aim(*p) for p in points]
    assert first == [aim._solve(*p) for p in points] == [aim.aim(*p) for p in points]
    assert first[0] is not None and first[2] is None and len(aim._cache) == 4
    solves = []
    aim._solve = lambda *p: solves.append(p)  # a second ask must not solve again
    assert [aim.aim(*p) for p in points] == first and solves == []
    aim.cache_size = 4  # full: the next new point empties the cache first
    aim.aim(1, -2.0, -3.0)
    assert solves == [(1, -2.0, -3.0)] and list(aim._cache) == [(1, -2.0, -3.0)]


def test_aim_on_a_rectangle_is_the_foot_of_the_perpendicular() -> None:
    g = game(num_players=4, table="rectangle")
    aim = LaunchAim(g)
    # seat 0 sits mid-left (x = -30, y = 0); its reach spans 50 inches of perimeter centred
    # there; a point at (0, 7) is faced from the left side at y = 7
    x = aim.aim(0, 0.0, 7.0)
    lo, hi = g.table.reach(0, 4)
    fr = g.table.launch_frame(lo + (x + 1) / 2 * (hi - lo))
    assert fr.y == pytest.approx(7.0, abs=1e-9) and fr.x == pytest.approx(-30.0)


def test_grid_positions_cover_the_reach_evenly() -> None:
    aim = LaunchAim(game(), k=36)
    assert len(aim.positions) == 36
    assert aim.positions[0] == -1.0 and aim.positions[-1] == 1.0


def test_aim_launches_gives_each_prizm_its_facing_position_or_none() -> None:
    g = game(num_players=2)
    s = with_prizms(
        g.new_initial_state(0), [Prizm(0.0, 5.0), Prizm(17.0, 0.0), Prizm(-1.0, -2.0, 1)]
    )
    xs = aim_launches(s, 0)
    assert xs[0] == pytest.approx(0.0, abs=1e-9) and xs[1] is None
    assert xs == [LaunchAim(g).aim(0, q.x, q.y) for q in s.prizms]
    assert launch_aim(g) is launch_aim(g)  # one shared, cached solver per game
    own = LaunchAim(g)
    assert aim_launches(s, 1, own) == [own.aim(1, q.x, q.y) for q in s.prizms]
