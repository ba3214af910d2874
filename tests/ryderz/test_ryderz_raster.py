"""The Lazer Ryderz image observation (``ryderz_env/raster.py``): a top-down raster centred on
the observer's head, its heading up.

Pixels are checked against the definition: pixel (i, j) of an ``ImageEncoder(size, extent,
supersample=m)`` takes ``m x m`` samples, sample (a, b) at ``u = (j m + b + 1/2) step - extent``
to the right of the observer and ``v = extent - (i m + a + 1/2) step`` ahead of it
(``step = 2 extent / (size m)``); its value is the share of samples inside, as 0..255. The
encoder samples a table-frame raster of cells ``world_res`` wide, so a sample within
``world_res`` of a shape's edge may fall either way; the checks skip pixels with such samples.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from ryderz_builders import (
    EAST,
    L,
    R,
    chain,
    edited,
    game,
    move,
    piece,
    position,
    skip_to_move,
    soft,
    st,
    straight_at,
)

from ryderz_env.raster import ImageEncoder, table_diameter
from ryderz_env.rules import DecisionKind, Move, Pose, Prizm, State
from ryderz_env.rules.serialize import element_to_dict

OWN, OTHERS, NEUTRAL, OWN_P, OTHER_P, TABLE = range(6)


def samples(enc: ImageEncoder, frame: Pose) -> tuple[np.ndarray, np.ndarray]:
    """Table-frame x and y of every sample, shaped (size, size, m * m)."""
    k, m = enc.size, enc.supersample
    step = 2.0 * enc.extent / (k * m)
    idx = (np.arange(k * m) + 0.5) * step
    u = (idx - enc.extent)[None, :]  # right, by sample column
    v = (enc.extent - idx)[:, None]  # ahead, by sample row
    c, s = math.cos(frame.h), math.sin(frame.h)
    x = frame.x + v * c + u * s
    y = frame.y + v * s - u * c

    def per_pixel(a: np.ndarray) -> np.ndarray:
        return a.reshape(k, m, k, m).transpose(0, 2, 1, 3).reshape(k, k, m * m)

    return per_pixel(x), per_pixel(y)


def check_disc(
    enc: ImageEncoder, img: np.ndarray, frame: Pose, centre: tuple[float, float], radius: float
) -> int:
    """Every pixel whose samples all lie clearly in or out of the disc has exactly the
    expected value; returns how many pixels were checked inside or on the disc's edge."""
    x, y = samples(enc, frame)
    d = np.hypot(x - centre[0], y - centre[1])
    margin = enc.world_res
    sure = (np.abs(d - radius) > margin).all(axis=2)
    count = (d <= radius).sum(axis=2)
    m2 = enc.supersample**2
    expected = ((count * 255 + m2 // 2) // m2).astype(np.uint8)
    assert np.array_equal(img[sure], expected[sure])
    return int((sure & (count > 0)).sum())


def rotate(s: State, theta: float) -> State:
    """The whole position turned by ``theta`` about the round table's centre (the origin):
    every piece, Launch Point, head and Prizm (each Lazer laid again as a chain from its
    turned start, so that the turned state is valid)."""
    g = s.game
    c, sn = math.cos(theta), math.sin(theta)

    def turn(p: Pose) -> Pose:
        return Pose(c * p.x - sn * p.y, sn * p.x + c * p.y, p.h + theta)

    def change(d: dict) -> None:
        for player, p in zip(d["players"], s.players, strict=True):
            els = []
            for e in p.lazer:
                if e.is_launch:  # perimeter position t runs clockwise
                    els.append(g.launch_element(e.owner, e.t - theta * g.table.radius, e.turn))
                else:
                    pose = els[-1].exit if els else turn(e.pose)
                    els.append(piece(g, e.owner, (e.kind, e.gear, e.side), pose, e.turn))
            player["lazer"] = [element_to_dict(e) for e in els]
            player["head"] = [els[-1].exit.x, els[-1].exit.y, els[-1].exit.h] if els else None
        d["prizms"] = [[c * q.x - sn * q.y, sn * q.x + c * q.y, q.owner] for q in s.prizms]

    return edited(s, change)


def midgame(num_players: int = 2, prizms: list[Prizm] | None = None, extra: tuple = ()) -> State:
    """Seat 0 (to move) with a Lazer out from its Launch Point ending in a 4.5-inch straight
    (then the ``extra`` pieces), seat 1 with a short Lazer; Prizms neutral, seat 0's and seat
    1's (or ``prizms``)."""
    g = game(num_players=num_players)
    s = position(g, 0)
    lp0, lp1 = s.players[0].lazer[0], s.players[1].lazer[0]
    laz = {
        0: [lp0, *chain(g, 0, lp0.exit, [st(2), soft(2, L), soft(1, R), st(3), *extra])],
        1: [lp1, *chain(g, 1, lp1.exit, [st(1), soft(2, R)])],
    }
    if prizms is None:
        prizms = [Prizm(-6.0, 3.0), Prizm(5.0, -8.0, 0), Prizm(2.0, 9.0, 1)]
    return position(g, 0, lazers=laz, prizms=prizms)


def test_image_shape_type_channels_and_levels() -> None:
    s = midgame()
    enc = ImageEncoder(s.game)
    img = enc.encode(s, 0)
    assert img.shape == (6, 64, 64) and img.dtype == np.uint8
    assert enc.channels == (
        "own_lazer",
        "other_lazers",
        "neutral",
        "own_prizms",
        "other_prizms",
        "table",
    )
    assert set(np.unique(img)) <= {0, 64, 128, 191, 255}  # 2 x 2 samples a pixel
    assert enc.extent == table_diameter(s.game) == 36.0  # the whole table in view
    binary = ImageEncoder(s.game, size=32, supersample=1).encode(s, 1)
    assert binary.shape == (6, 32, 32) and set(np.unique(binary)) == {0, 255}


def test_a_prizm_straight_ahead_of_the_head_appears_above_the_centre() -> None:
    s = midgame()
    head = s.players[0].head
    assert head is not None
    x, y = head.ahead(3.0)
    s = midgame(prizms=[Prizm(x, y)])
    enc = ImageEncoder(s.game, size=64, extent=8.0)  # a quarter inch a pixel
    img = enc.encode(s, 0)
    disc = img[NEUTRAL]
    # 3 inches ahead = 12 pixels above the centre (rows 31 | 32), across columns 31 | 32
    assert disc[20, 31] == disc[20, 32] == 255
    assert disc[32:].max() == 0  # nothing level with or behind the head
    rows, cols = np.nonzero(disc)
    assert rows.min() >= 20 - 4 and rows.max() <= 20 + 3 and set(cols) == set(range(29, 35))
    assert check_disc(enc, disc, head, (x, y), s.game.rules.prizm_radius) >= 12
    assert img[OWN_P].max() == img[OTHER_P].max() == 0


def test_own_lazer_lies_under_the_centre_and_the_others_elsewhere() -> None:
    s = midgame()
    enc = ImageEncoder(s.game, size=64, extent=8.0)
    img = enc.encode(s, 0)
    # the newest piece, a 4.5-inch straight, 0.75 wide, runs from the head straight back
    # (down): 18 pixels long, 3 wide, centred on the line between columns 31 and 32
    assert (img[OWN, 33:50, 31:33] == 255).all()
    assert (img[OWN, 33:50, [29, 34]] == 0).all()
    assert img[OWN, :30, 28:36].max() == 0  # ahead of the point (3/8 in = 1.5 px): clear
    assert img[OTHERS, 28:64, 26:38].max() == 0
    # from seat 1's point of view, its own Lazer is under the centre and seat 0's is another's
    theirs = enc.encode(s, 1)
    assert (theirs[OWN, 33:37, 31:33] == 255).all()
    whole = ImageEncoder(s.game)  # the whole table: every Prizm in view
    mine, theirs = whole.encode(s, 0), whole.encode(s, 1)
    assert mine[OTHERS].max() > 0 and theirs[OTHERS].max() > 0
    assert mine[OWN_P].max() > 0 and theirs[OTHER_P].max() > 0  # seat 0's Prizm
    assert mine[OTHER_P].max() > 0 and theirs[OWN_P].max() > 0  # seat 1's


def test_turning_the_whole_position_gives_the_same_image() -> None:
    s = midgame(num_players=3)
    enc = ImageEncoder(s.game)
    for seat in range(3):
        base = enc.encode(s, seat)
        for theta in (math.pi / 2, math.pi, -math.pi / 2):  # the table raster turns onto itself
            assert np.array_equal(enc.encode(rotate(s, theta), seat), base), (seat, theta)
        for theta in (1.0, -2.5):
            img = enc.encode(rotate(s, theta), seat)
            diff = np.abs(img.astype(int) - base.astype(int))
            # equal but for the rasterization at shape edges: a few pixels a sample or two
            # apart (of 4 a pixel)
            assert diff.max() <= 128 and (diff > 0).mean() < 0.01, (seat, theta)


def test_off_the_table_is_zero_in_the_table_channel_at_the_rim() -> None:
    g = game(num_players=2)
    s = g.new_initial_state(0)  # before the launch: the seat's Launch Point frame
    enc = ImageEncoder(g)
    fr = enc.frame(s, 0)
    assert math.hypot(fr.x, fr.y) > g.table.radius - 0.1  # at the rim, facing inward
    img = enc.encode(s, 0)
    table = img[TABLE]
    assert table[33:].max() == 0  # everything behind the seat is off the table
    assert table[8:25, 24:40].min() == 255
    x, y = samples(enc, fr)
    d = np.hypot(x, y)
    sure = (np.abs(d - g.table.radius) > 2 * enc.world_res).all(axis=2)
    inside = (d <= g.table.radius).sum(axis=2)
    assert np.array_equal(table[sure], (inside[sure] * 255 + 2) // 4)
    assert (table == 0).sum() > 64 * 32 and (table == 255).sum() > 700


def test_before_launch_and_after_a_crash_the_frame_is_the_seats_launch_frame() -> None:
    s = midgame()
    enc = ImageEncoder(s.game)
    tb = s.game.table
    seat_frame = tb.launch_frame(tb.seat_position(1, 2))
    # seat 1 crashes (its straight runs off the table): no head until its respawn
    g = s.game
    laz = {0: s.players[0].lazer, 1: [straight_at(g, 1, Pose(17.0, 0.0, EAST), 1)]}
    s = position(g, 1, lazers=laz, prizms=s.prizms)
    skip_to_move(s)
    move(s, 0, Move.STRAIGHT)
    assert s.players[1].head is None and s.decision_kind() is DecisionKind.RESPAWN
    assert enc.frame(s, 1) == seat_frame
    assert enc.frame(s, 0) == s.players[0].head


def test_encoding_is_deterministic_and_independent_of_what_was_encoded_before() -> None:
    s = midgame()
    g = s.game
    t = midgame(extra=(st(1),))  # one more piece on seat 0's Lazer
    fresh = {
        (key, seat): ImageEncoder(g).encode(state, seat)
        for key, state in (("s", s), ("t", t))
        for seat in (0, 1)
    }
    enc = ImageEncoder(g)
    for key, state in (("s", s), ("t", t), ("s", s), ("t", t), ("t", t)):
        for seat in (0, 1):
            assert np.array_equal(enc.encode(state, seat), fresh[(key, seat)])
    assert not np.array_equal(fresh[("s", 0)], fresh[("t", 0)])


@pytest.mark.parametrize("table", ["rectangle", "hexagon"])
def test_polygon_tables_fit_whole_at_the_default_extent(table: str) -> None:
    g = game(num_players=2, table=table)
    s = g.new_initial_state(0)
    enc = ImageEncoder(g)
    v = g.table.vertices
    assert enc.extent == pytest.approx(max(math.dist(a, b) for a in v for b in v))
    img = enc.encode(s, 0)
    covered = img[TABLE].sum() / 255 * enc.pixel**2
    assert covered == pytest.approx(g.table.polygon.area, rel=0.03)


def test_an_encoder_pickles_without_its_caches_and_encodes_the_same() -> None:
    s = midgame()
    enc = ImageEncoder(s.game)
    before = enc.encode(s, 0)
    copy = pickle.loads(pickle.dumps(enc))
    assert np.array_equal(copy.encode(s, 0), before)
