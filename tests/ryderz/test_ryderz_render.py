"""Drawing Lazer Ryderz (``ryderz_env/render.py``): the table to scale, the side panel, the ansi
text and the GIF of a record."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ryderz_builders import game, with_prizms

from ryderz_env.render import (
    FLOOR,
    HIGHLIGHT,
    NEUTRAL,
    SEAT_COLOURS,
    TABLE,
    TEXT,
    TablePainter,
    record_to_gif,
    render_ansi,
)
from ryderz_env.rules import Action, ActionKind, Game, Move, Prizm, State
from tabletop.records import GameRecord, iter_replay, json_value


def test_picture_shows_table_launch_points_prizms_and_lazers_in_place() -> None:
    g = game(num_players=2)
    s = g.new_initial_state(0)
    s.apply_actions({0: Action.launch(2, 0.0), 1: Action.launch(1, 0.0)})
    s = with_prizms(s, [Prizm(s.prizms[0].x, s.prizms[0].y, 1), *s.prizms[1:]])
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


# ------------------------------------------------------------------------------ ansi
def test_ansi_names_round_decision_deciders_each_seat_and_every_prizm() -> None:
    g = game(num_players=2, powers=True)
    s = g.new_initial_state(0)
    text = render_ansi(s)
    assert text == str(s)
    assert "round 0/60" in text and "waiting for engines from seat(s) [0, 1]" in text
    for seat in (0, 1):
        line = next(x for x in text.splitlines() if x.startswith(f"  seat {seat} "))
        assert g.rules.colours[seat] in line and g.rules.characters[seat].value in line
        assert "gear 1" in line and "0 Prizm(s)" in line and "off the table" in line
        assert "power ready" in line
    assert "supply straight/soft/hard by gear: 2/2/2 2/2/2 2/2/2 2/2/0 2/0/0" in text
    s.apply_actions({0: Action.launch(2, 0.0), 1: Action.launch(1, 0.0)})
    s = with_prizms(s, [Prizm(s.prizms[0].x, s.prizms[0].y, 1), *s.prizms[1:]])
    text = render_ansi(s)
    head = s.players[0].head
    assert f"head {head}" in text and "waiting for" in text
    q = s.prizms[0]
    assert f"Prizm 0: {g.rules.colours[1]} at ({q.x:.2f}, {q.y:.2f})" in text


# ------------------------------------------------------------------------------ panel
def test_the_panel_sits_right_of_the_unchanged_table_and_lists_the_seats() -> None:
    g = game(num_players=3)
    s = g.new_initial_state(0)
    s.apply_actions({0: Action.launch(3, 0.0), 1: Action.launch(2, 0.0), 2: Action.launch(1, 0.0)})
    plain = TablePainter(g, size=300).paint(s)
    painter = TablePainter(g, size=300, panel=True)
    img = painter.paint(s, caption="EVENT 1/9")
    assert img.shape == (300, 300 + 136, 3) and painter.width == 436
    assert np.array_equal(img[:, :300], plain)  # the table part is as without a panel
    panel = img[:, 300:]
    for colour in (TEXT, SEAT_COLOURS[0], SEAT_COLOURS[1], SEAT_COLOURS[2]):
        assert (panel == colour).all(axis=2).any(), colour
    mover = s.current_players()
    assert len(mover) == 1 and (panel == HIGHLIGHT).all(axis=2).any()  # the decision, ">"
    # the caption changes only the panel's foot
    other = painter.paint(s, caption="EVENT 2/9")
    changed = np.nonzero((other != img).any(axis=2))
    assert changed[0].min() >= 300 - 16 and changed[1].min() >= 300
    small = TablePainter(g, size=128, panel=True).paint(s)
    assert small.shape == (128, 128 + 68, 3)


# ------------------------------------------------------------------------------ GIF
def recorded_game(g: Game, seed: int, max_events: int) -> tuple[GameRecord, State]:
    """A record of a random game, logged event by event as a recording env does (launches
    only at x = 0, so the record is exact however launch actions are written)."""
    record = GameRecord(game="lazer_ryderz_v0", config=g.config_dict(), seed=seed)
    s = g.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    to_json = getattr(g, "action_to_json", g.action_to_int)
    while not s.is_terminal() and len(record.events) < max_events:
        if s.is_chance_node():
            outcome = s.sample_chance(rng)
            s.apply_chance(outcome)
            record.events.append({"chance": json_value(outcome)})
            continue
        acts = {}
        for seat in s.current_players():
            legal = [
                a for a in s.legal_actions(seat) if a.kind is not ActionKind.LAUNCH or a.x == 0.0
            ]
            acts[seat] = legal[int(rng.integers(len(legal)))]
        s.apply_actions(acts)
        record.events.append({"actions": {str(p): to_json(a) for p, a in sorted(acts.items())}})
    return record, s


def test_record_to_gif_writes_a_frame_per_state_at_the_size_asked(tmp_path: Path) -> None:
    from PIL import Image

    g = game(num_players=3)
    record, final = recorded_game(g, seed=5, max_events=30)
    assert len(record.events) == 30
    states = sum(1 for _ in iter_replay(g, record))
    assert states == 31
    path = tmp_path / "game.gif"
    assert record_to_gif(record, path, size=200) == states
    with Image.open(path) as im:
        assert im.n_frames == states and im.size == (200 + 68, 200)
        im.seek(states - 1)
        last = np.asarray(im.convert("RGB"))
    expected = TablePainter(g, size=200, panel=True).paint(final, caption="EVENT 30/30")
    assert np.array_equal(last, expected)  # few colours: the palette is exact
    every = tmp_path / "every.gif"
    assert record_to_gif(record, every, size=200, every=7) == 6  # states 0, 7, ... 28, 30
    with Image.open(every) as im:
        assert im.n_frames == 6
