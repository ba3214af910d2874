"""Rendering of Lunatix Loop (``lunatix_env/render.py``): ansi text, the off-screen picture,
and the human viewer on a machine without a display.

The picture tests compare frames pixel by pixel around the painter's precomputed square
centres. ``test_mid_game_frame_is_saved_as_png`` writes ``/tmp/lunatix_frame.png`` for a look.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from lunatix_builders import choose, first_round, game, lay_chip, put, square_at, start

from lunatix_env.render import (
    CHIP_COLOURS,
    CW_MARK,
    FINISH_BLACK,
    FINISH_WHITE,
    PIT_FLOOR,
    SEAT_COLOURS,
    WRECK_CROSS,
    BoardPainter,
    HumanViewer,
    render_ansi,
)
from lunatix_env.rules import Card
from tabletop.protocol import random_legal_actions

ROOT = Path(__file__).resolve().parents[2]
FRAME_PNG = Path("/tmp/lunatix_frame.png")

LOOP = game()
LOOP_PAINTER = BoardPainter(LOOP)
LOOP6 = game(num_players=6)
LOOP6_PAINTER = BoardPainter(LOOP6)


# ------------------------------------------------------------------------------ helpers
def write_png(path: Path, img: np.ndarray) -> None:
    """A minimal PNG writer (8-bit RGB, no filtering)."""
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def read_png(path: Path) -> np.ndarray:
    """Read back a PNG written by :func:`write_png`."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        if tag == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    rows = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + 3 * w)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(h, w, 3)


def pixels_near(img: np.ndarray, xy: np.ndarray, r: float) -> np.ndarray:
    """The pixels of ``img`` within ``r`` of the pixel point ``xy``, as an (n, 3) array."""
    yy, xx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]]
    return img[np.hypot(xx - xy[0], yy - xy[1]) <= r]


def count_colour(px: np.ndarray, colour: tuple[int, int, int]) -> int:
    return int((px == np.array(colour, dtype=np.uint8)).all(axis=1).sum())


def changed_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a != b).any(axis=2)


def clear_track(pb, seats=None) -> None:
    """Park every car (or ``seats``) out of sight in the pit so a test sees only its pieces."""
    for seat in range(pb.game.num_players):
        if seats is None or seat in seats:
            pb.pit(seat, "A2")


def random_play(g, seed: int, steps: int):
    """A state after ``steps`` random legal moves and sampled chance events."""
    s = g.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
        elif s.is_simultaneous_node():
            s.apply_actions(random_legal_actions(s, rng))
        else:
            legal = s.legal_actions(s.current_players()[0])
            s.apply_action(legal[int(rng.integers(len(legal)))])
    return s


def lane_centres(p: BoardPainter, lane: int) -> np.ndarray:
    """Pixel centres of ``lane``'s squares in race order from the finish line."""
    return p.centres[list(p.game.track.spec.lanes[lane])]


# ------------------------------------------------------------------------------ ansi
def test_ansi_is_the_state_text_plus_a_line_naming_the_simultaneous_decision():
    s = first_round(LOOP)
    text = render_ansi(s)
    assert text.startswith(str(s))
    extra = text[len(str(s)) :].strip("\n").splitlines()
    assert extra == ["decision: card by player_0, player_1, player_2, player_3"]


def test_ansi_names_a_single_decider_and_says_nothing_extra_at_chance():
    g = game(num_players=2)
    pb = start(g)
    put(pb, 0, square_at(g, 1, 10), speed=40)
    put(pb, 1, square_at(g, 1, 30), speed=40)
    s = pb.build()
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})
    assert s.decision is not None and len(s.current_players()) == 1
    seat = s.current_players()[0]
    line = render_ansi(s).splitlines()[-1]
    assert line == f"decision: {s.decision.kind.value} by player_{seat}"
    chance = g.new_initial_state(0)
    assert chance.is_chance_node()
    assert render_ansi(chance) == str(chance)


# ------------------------------------------------------------------------------ picture
def test_paint_gives_an_rgb_uint8_picture_of_the_requested_size():
    s = first_round(LOOP)
    img = LOOP_PAINTER.paint(s)
    assert img.shape == (400, 640, 3) and img.dtype == np.uint8
    small = BoardPainter(LOOP, size=(320, 200))
    img2 = small.paint(s)
    assert img2.shape == (200, 320, 3) and img2.dtype == np.uint8


def test_paint_does_not_touch_the_cached_background():
    s = first_round(LOOP)
    before = LOOP_PAINTER.background.copy()
    a = LOOP_PAINTER.paint(s)
    b = LOOP_PAINTER.paint(s)
    assert np.array_equal(LOOP_PAINTER.background, before)
    assert np.array_equal(a, b)
    assert a is not LOOP_PAINTER.background


def test_background_is_not_uniform_and_squares_show_surface_and_curves():
    bg = LOOP_PAINTER.background
    assert len(np.unique(bg.reshape(-1, 3), axis=0)) > 20
    tr = LOOP.track
    cs = LOOP_PAINTER.centres.round().astype(int)

    def colour(sq: int) -> tuple[int, ...]:
        x, y = cs[sq]
        return tuple(int(v) for v in bg[y, x])

    straight_asphalt = [
        i for i in range(tr.num_squares) if tr.curve[i] is None and tr.surface[i] == "asphalt"
    ]
    straight_dirt = [
        i for i in range(tr.num_squares) if tr.curve[i] is None and tr.surface[i] == "dirt"
    ]
    curve_asphalt = [
        i for i in range(tr.num_squares) if tr.curve[i] is not None and tr.surface[i] == "asphalt"
    ]
    assert straight_asphalt and straight_dirt and curve_asphalt
    asphalt = {colour(i) for i in straight_asphalt}
    assert len(asphalt) == 1  # every plain asphalt square is the same grey
    (grey,) = asphalt
    assert max(grey) - min(grey) < 20  # grey
    dirt = colour(straight_dirt[0])
    assert dirt[0] > dirt[2] + 40  # brown: red well above blue
    assert all(colour(i) != grey for i in curve_asphalt)  # curves are tinted


def test_squares_have_distinct_centres_inside_the_board_area():
    for p in (LOOP_PAINTER, BoardPainter(game(track="tracks/test_oval.yaml"))):
        cs = p.centres
        assert cs.shape == (p.game.track.num_squares, 2)
        assert (cs[:, 0] > 0).all() and (cs[:, 0] < p.panel_x).all()
        assert (cs[:, 1] > 0).all() and (cs[:, 1] < p.height).all()
        d = np.hypot(*(cs[:, None, :] - cs[None, :, :]).transpose(2, 0, 1))
        np.fill_diagonal(d, np.inf)
        assert d.min() > 0.6 * p.scale  # no two squares drawn on top of each other


@pytest.mark.parametrize("track", [None, "tracks/test_oval.yaml"])
def test_loop_runs_counter_clockwise_with_the_finish_line_on_the_bottom_and_lane_0_inside(track):
    g = game() if track is None else game(track=track)
    p = LOOP_PAINTER if track is None else BoardPainter(g)
    mid = lane_centres(p, 1)
    x, y = mid[:, 0], -mid[:, 1]  # y up
    area = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    assert area > 0  # counter-clockwise as seen on screen
    centre = p.centres.mean(axis=0)
    # the squares just after and before the line: on the bottom half, the lane running right
    first = [lane_centres(p, ln)[0] for ln in range(3)]
    last = [lane_centres(p, ln)[-1] for ln in range(3)]
    for f, b in zip(first, last, strict=True):
        assert f[1] > centre[1] + p.scale and b[1] > centre[1] + p.scale
        assert f[0] > b[0]
    # lane 0 is the lane nearest the centre of the loop, lane 2 the farthest
    dist = [np.hypot(*(lane_centres(p, ln) - centre).T).mean() for ln in range(3)]
    assert dist[0] < dist[1] < dist[2]
    assert first[0][1] < first[1][1] < first[2][1]  # on the bottom straight: inside is higher


def test_finish_line_is_a_black_and_white_stripe_across_the_lanes():
    bg = LOOP_PAINTER.background
    for ln in range(3):
        a, b = lane_centres(LOOP_PAINTER, ln)[-1], lane_centres(LOOP_PAINTER, ln)[0]
        px = pixels_near(bg, (a + b) / 2, 0.3 * LOOP_PAINTER.scale)
        assert count_colour(px, FINISH_WHITE) > 3
        assert count_colour(px, FINISH_BLACK) > 3


def test_moving_a_car_changes_only_the_pixels_around_its_old_and_new_squares():
    g = game(num_players=2)
    p = BoardPainter(g)
    pb = start(g)
    put(pb, 1, square_at(g, 2, 40))
    a, b = square_at(g, 1, 10), square_at(g, 0, 25)
    img_a = p.paint(put(pb, 0, a).build())
    img_b = p.paint(put(pb, 0, b).build())
    changed = changed_mask(img_a, img_b)
    yy, xx = np.nonzero(changed)
    pts = np.stack([xx, yy], axis=1)
    near = np.full(len(pts), np.inf)
    for sq in (a, b):
        near = np.minimum(near, np.hypot(*(pts - p.centres[sq]).T))
    assert near.max() <= p.car_r * 1.5 + 3  # nothing changed far from the two squares
    for sq in (a, b):  # and both places did change
        d = np.hypot(*(pts - p.centres[sq]).T)
        assert (d < p.car_r).sum() > 20
    # the car's colour is at its new square and gone from the old one
    assert count_colour(pixels_near(img_b, p.centres[b], p.car_r), SEAT_COLOURS[0]) > 20
    assert count_colour(pixels_near(img_b, p.centres[a], p.car_r), SEAT_COLOURS[0]) == 0
    assert np.array_equal(
        pixels_near(img_b, p.centres[a], p.car_r), pixels_near(p.background, p.centres[a], p.car_r)
    )


def test_six_cars_are_drawn_in_six_distinct_seat_colours():
    assert len(set(SEAT_COLOURS)) == 6
    pb = start(LOOP6)
    squares = [square_at(LOOP6, ln, i) for ln in (0, 2) for i in (8, 20, 33)]
    for seat, sq in enumerate(squares):
        put(pb, seat, sq)
    img = LOOP6_PAINTER.paint(pb.build())
    for seat, sq in enumerate(squares):
        px = pixels_near(img, LOOP6_PAINTER.centres[sq], LOOP6_PAINTER.car_r)
        assert count_colour(px, SEAT_COLOURS[seat]) > 20
        for other in range(6):
            if other != seat:
                assert count_colour(px, SEAT_COLOURS[other]) == 0


@pytest.mark.parametrize("kind", [0, 1, 2], ids=["tacks", "oil", "glue"])
def test_a_chip_on_the_track_adds_its_colour_at_its_square(kind):
    pb = start(LOOP)
    clear_track(pb)
    pb.car(0, chips=(0, 0, 0))  # the chip mixes hold every glue chip: one back to the supply
    sq = square_at(LOOP, 1, 12)
    before = LOOP_PAINTER.paint(pb.build())
    after = LOOP_PAINTER.paint(lay_chip(pb, sq, kind).build())
    colour = CHIP_COLOURS[kind]
    c = LOOP_PAINTER.centres[sq]
    assert count_colour(pixels_near(before, c, 0.4 * LOOP_PAINTER.scale), colour) == 0
    assert count_colour(pixels_near(after, c, 0.4 * LOOP_PAINTER.scale), colour) >= 9
    yy, xx = np.nonzero(changed_mask(before, after))
    assert np.hypot(xx - c[0], yy - c[1]).max() < 0.4 * LOOP_PAINTER.scale
    assert CHIP_COLOURS[0][0] > 200 and CHIP_COLOURS[2][2] > 200 and max(CHIP_COLOURS[1]) < 30


def test_a_wreck_is_a_dark_cross_not_a_live_car():
    g = game(num_players=2)
    p = BoardPainter(g)
    pb = start(g)
    sq = square_at(g, 1, 27)
    put(pb, 0, sq)
    put(pb, 1, square_at(g, 2, 45))
    live = p.paint(pb.build())
    wreck = p.paint(pb.car(0, out=True).build())
    c = p.centres[sq]
    live_px = pixels_near(live, c, p.car_r)
    wreck_px = pixels_near(wreck, c, p.car_r)
    assert count_colour(live_px, SEAT_COLOURS[0]) > 20
    assert count_colour(wreck_px, SEAT_COLOURS[0]) == 0  # not drawn as a live car
    assert count_colour(wreck_px, WRECK_CROSS) > 10
    # the cross: dark on both diagonals, not on the axes away from the centre
    k = int(p.car_r * 0.5)
    cx, cy = (int(round(v)) for v in c)
    for dx, dy in ((k, k), (-k, k), (k, -k), (-k, -k)):
        assert tuple(wreck[cy + dy, cx + dx]) == WRECK_CROSS
    assert tuple(wreck[cy, cx + k]) != WRECK_CROSS


def test_a_car_in_the_pit_is_drawn_inside_the_pit_box_and_not_on_the_track():
    g = game(num_players=2)
    p = BoardPainter(g)
    pb = start(g)
    sq = g.track.openings[1].square  # A2, the basic entry
    put(pb, 0, sq)
    put(pb, 1, square_at(g, 2, 30))
    on_track = p.paint(pb.build())
    in_pit = p.paint(pb.pit(0, "A2").build())
    slot = p.pit_slots[0]
    sx, sy = (int(round(v)) for v in slot)
    assert tuple(p.background[sy, sx]) == PIT_FLOOR  # the slot is in the pit box
    assert count_colour(pixels_near(on_track, slot, p.car_r), SEAT_COLOURS[0]) == 0
    assert count_colour(pixels_near(in_pit, slot, p.car_r), SEAT_COLOURS[0]) > 20
    assert count_colour(pixels_near(in_pit, p.centres[sq], p.car_r), SEAT_COLOURS[0]) == 0
    # a second car in the pit queues in the next slot, in entry order
    both = p.paint(pb.pit(1, "A2").build())
    assert count_colour(pixels_near(both, p.pit_slots[0], p.car_r), SEAT_COLOURS[0]) > 20
    assert count_colour(pixels_near(both, p.pit_slots[1], p.car_r), SEAT_COLOURS[1]) > 20


def test_pit_box_lies_inside_the_loop_beside_the_finish_line():
    p = LOOP_PAINTER
    centre = p.centres.mean(axis=0)
    line = (lane_centres(p, 0)[0] + lane_centres(p, 0)[-1]) / 2
    for slot in p.pit_slots:
        assert abs(slot[0] - line[0]) < 4 * p.scale  # near the line along the straight
        assert centre[1] < slot[1] < line[1]  # between the loop's centre and the inside lane


def test_a_car_facing_clockwise_carries_a_marker():
    g = game(num_players=2)
    p = BoardPainter(g)
    pb = start(g)
    sq = square_at(g, 1, 27)
    put(pb, 0, sq)
    put(pb, 1, square_at(g, 2, 45))
    ccw = p.paint(pb.build())
    cw = p.paint(put(pb, 0, sq, facing=1).build())
    around = p.car_r * 1.6
    assert count_colour(pixels_near(ccw, p.centres[sq], around), CW_MARK) == 0
    assert count_colour(pixels_near(cw, p.centres[sq], around), CW_MARK) > 20
    assert count_colour(pixels_near(cw, p.centres[sq], p.car_r), SEAT_COLOURS[0]) > 20


def test_the_test_oval_renders_with_its_cars_chips_and_pit():
    g = game(track="tracks/test_oval.yaml", num_players=3)
    p = BoardPainter(g, size=(480, 300))
    pb = start(g)
    put(pb, 0, square_at(g, 0, 10))
    pb.car(1, out=True, chips=(0, 0, 0))  # its glue back to the supply (mixes hold it all)
    pb.pit(2, "A2")
    lay_chip(pb, square_at(g, 2, 20), 2)
    img = p.paint(pb.build())
    assert img.shape == (300, 480, 3) and img.dtype == np.uint8
    assert len(np.unique(p.background.reshape(-1, 3), axis=0)) > 20
    assert (
        count_colour(pixels_near(img, p.centres[square_at(g, 0, 10)], p.car_r), SEAT_COLOURS[0])
        > 10
    )
    assert (
        count_colour(pixels_near(img, p.centres[square_at(g, 2, 20)], p.car_r), CHIP_COLOURS[2]) > 4
    )
    assert count_colour(pixels_near(img, p.pit_slots[0], p.car_r), SEAT_COLOURS[2]) > 10


def test_mid_game_frame_is_saved_as_png():
    s = random_play(LOOP6, seed=4, steps=250)
    assert not s.is_terminal()
    img = LOOP6_PAINTER.paint(s)
    write_png(FRAME_PNG, img)
    assert np.array_equal(read_png(FRAME_PNG), img)


# ------------------------------------------------------------------------------ viewer
def test_human_viewer_is_a_silent_no_op_without_a_display(monkeypatch, capsys):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "LUNATIX_FORCE_WINDOW"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    viewer = HumanViewer()
    frame = LOOP_PAINTER.paint(first_round(LOOP))
    viewer.show(frame)
    viewer.show(frame)
    assert not viewer.is_open
    viewer.close()
    viewer.close()
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_importing_the_renderer_does_not_import_pygame():
    code = (
        "import sys; import lunatix_env.render as r; "
        "r.HumanViewer().close(); print('pygame' in sys.modules)"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert res.stdout.strip() == "False"


def test_human_viewer_blits_the_frame_into_a_forced_pygame_window(monkeypatch):
    import pygame  # the dev extra installs it; the renderer itself imports it lazily

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a window without a screen
    monkeypatch.delenv("LUNATIX_FORCE_WINDOW", raising=False)
    pb = start(LOOP)
    frame = LOOP_PAINTER.paint(pb.build())
    unforced = HumanViewer()
    unforced.show(frame)
    assert not unforced.is_open  # the dummy driver counts as headless unless forced
    viewer = HumanViewer(force=True)
    try:
        viewer.show(frame)
        assert viewer.is_open
        shown = pygame.surfarray.array3d(viewer._screen).transpose(1, 0, 2)
        assert np.array_equal(shown, frame)
        frame2 = LOOP_PAINTER.paint(put(pb, 0, square_at(LOOP, 1, 20)).build())
        viewer.show(frame2)
        shown = pygame.surfarray.array3d(viewer._screen).transpose(1, 0, 2)
        assert np.array_equal(shown, frame2)
    finally:
        viewer.close()
    assert not viewer.is_open
