"""Action-space pieces of the Lazer Ryderz envs (``ryderz_env/spaces.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ryderz_builders import game

from ryderz_env.spaces import HybridActionSpace, LaunchAim, masked_argmax


def test_hybrid_space_sample_takes_the_discrete_mask_vector() -> None:
    space = HybridActionSpace(5, seed=0)
    mask = np.array([0, 0, 1, 0, 1], dtype=np.int8)
    picks = {int(space.sample(mask)["discrete"]) for _ in range(50)}
    assert picks == {2, 4}
    a = space.sample(mask)
    assert space.contains(a) and -1.0 <= float(a["x"][0]) <= 1.0
    assert int(space.sample({"discrete": np.array([1, 0, 0, 0, 0], dtype=np.int8),
                             "x": None})["discrete"]) == 0


def test_masked_argmax_picks_the_best_legal_option() -> None:
    assert masked_argmax(np.array([5.0, 1.0, 3.0]), np.array([0, 1, 1])) == 2
    assert masked_argmax(np.array([1.0, 1.0, 1.0]), np.array([0, 1, 1])) == 1
    with pytest.raises(ValueError):
        masked_argmax(np.array([1.0]), np.array([0]))


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


def test_discrete_layout_maps_moves_one_to_one_and_launches_to_grid_and_aims() -> None:
    from ryderz_env.rules import Action, ActionKind, Prizm
    from ryderz_env.spaces import DiscreteLayout

    g = game(num_players=2)
    lay = DiscreteLayout(g, k=36)
    assert lay.size == (len(g.codec) - g.top_gear) + g.top_gear * (36 + 2 * 3)
    s = g.new_initial_state(0)
    s.prizms = [Prizm(0.0, 5.0), Prizm(17.0, 0.0)]  # seat 0 faces the first, not the second
    s._reset_caches()
    legal = lay.legal(s, 0)
    assert len(legal) == g.top_gear * (36 + 1)
    aim_index = lay.launch_base + 2 * lay.per_gear + 36  # gear 3, aim at Prizm 0
    assert aim_index in legal and aim_index + 1 not in legal
    a = lay.decode(s, 0, aim_index)
    assert a.kind is ActionKind.LAUNCH and a.arg == 3 and a.x == pytest.approx(0.0, abs=1e-9)
    assert lay.decode(s, 0, lay.launch_base) == Action.launch(1, -1.0)
    assert lay.decode(s, 0, 0) == Action(ActionKind.NOOP)
    s.apply_actions({0: Action.launch(3, 0.0), 1: Action.launch(2, 0.0)})
    moves = lay.legal(s, 0)
    assert all(lay.decode(s, 0, i).kind is ActionKind.MOVE for i in moves)
    assert {lay.decode(s, 0, i) for i in moves} == set(s.legal_actions(0))
