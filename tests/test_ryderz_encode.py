"""The Lazer Ryderz vector encoder (``ryderz_env/encode.py``): sizes, ranges, the observer's
frame, and ray distances against hand-computed geometry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ryderz_builders import EAST, game, piece, position, st

from ryderz_env.encode import VectorEncoder, ray_distances
from ryderz_env.rules import Action, Pose, Prizm


def launched(num_players: int = 2):
    g = game(num_players=num_players)
    s = g.new_initial_state(0)
    s.apply_actions({i: Action.launch(i + 1, 0.0) for i in range(num_players)})
    return g, s


def test_ray_against_a_capsule_across_it_stops_at_its_near_side() -> None:
    segs = np.array([[[5.0, -3.0], [5.0, 3.0]]])
    d = ray_distances((0.0, 0.0), np.array([[1.0, 0.0], [0.0, 1.0]]), segs,
                      np.array([0.375]), 100.0)
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


def test_a_piece_across_the_path_shortens_the_ray_ahead() -> None:
    g = game()
    other = piece(g, 1, st(3), Pose(3.0, -2.25, math.pi / 2))  # x = 3, y in [-2.25, 2.25]
    s = position(g, 0, lazers={1: [other]}, heads={0: Pose(-4.0, 0.0, EAST)}, prizms=[])
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
    s = position(g, 0, heads={0: Pose(0.0, 0.0, math.pi / 2)}, prizms=[Prizm(0.0, 3.0)])
    enc = VectorEncoder(g)
    v = enc.encode(s, 0)
    start = sum(n for name, n in enc.blocks[: [b[0] for b in enc.blocks].index("prizms")])
    present, x, y = v[start:start + 3]
    assert present == 1.0
    assert x == pytest.approx(3.0 / (2 * enc.scale))  # straight ahead of a north-facing head
    assert y == pytest.approx(0.0, abs=1e-7)
