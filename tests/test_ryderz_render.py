"""The Lazer Ryderz off-screen picture (``ryderz_env/render.py``): the table to scale."""

from __future__ import annotations

import numpy as np
from ryderz_builders import game

from ryderz_env.render import FLOOR, NEUTRAL, SEAT_COLOURS, TABLE, TablePainter
from ryderz_env.rules import Action, Move, Prizm


def test_picture_shows_table_launch_points_prizms_and_lazers_in_place() -> None:
    g = game(num_players=2)
    s = g.new_initial_state(0)
    s.apply_actions({0: Action.launch(2, 0.0), 1: Action.launch(1, 0.0)})
    s.prizms[0] = Prizm(s.prizms[0].x, s.prizms[0].y, 1)
    s._reset_caches()
    s.apply_action(Action.move(0, Move.STRAIGHT))  # seat 0 (gear 2) lays a 3-inch straight
    painter = TablePainter(g, size=360)
    img = painter.paint(s)
    assert img.shape == (360, 360, 3) and img.dtype == np.uint8
    assert tuple(img[painter.pixel(0.0, 0.0)]) == TABLE  # the centre, clear of the Prizms
    assert tuple(img[2, 2]) == FLOOR  # a corner of the picture, off the round table
    seat0 = s.players[0]
    mid = seat0.lazer[1].pose.ahead(1.5)  # the middle of seat 0's straight
    assert tuple(img[painter.pixel(*mid)]) == SEAT_COLOURS[0]
    lp1 = s.players[1].lazer[0].pose.ahead(0.3)  # inside seat 1's Launch Point
    assert tuple(img[painter.pixel(*lp1)]) == SEAT_COLOURS[1]
    q0, q1 = s.prizms[0], s.prizms[1]
    assert tuple(img[painter.pixel(q0.x, q0.y)]) == SEAT_COLOURS[1]  # seat 1's Prizm
    assert tuple(img[painter.pixel(q1.x, q1.y)]) == NEUTRAL


def test_painting_never_changes_the_base_picture() -> None:
    g = game()
    painter = TablePainter(g, size=128)
    before = painter.base.copy()
    painter.paint(g.new_initial_state(0))
    assert np.array_equal(painter.base, before)
