"""The drawing helpers both games share: the bitmap font and GIF writer (``tabletop/draw.py``)
and the human viewer (``tabletop/viewer.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.draw import draw_text, frames_to_gif, glyph, text_width
from tabletop.viewer import HumanViewer, display_available


def test_text_is_drawn_glyph_by_glyph_and_measured_alike() -> None:
    img = np.zeros((20, 60, 3), dtype=np.uint8)
    end = draw_text(img, 2, 3, "a1:", (255, 0, 0), scale=2)
    assert end == 2 + text_width("A1:", 2) + 2  # the end x includes the gap after
    assert text_width("MW", 1) == 5 + 1 + 5
    lit = (img == (255, 0, 0)).all(axis=2)
    assert np.array_equal(lit[3:13, 2:8], glyph("A", 2))  # lower case drawn as upper
    assert not lit[:3].any() and not lit[13:].any()
    assert np.array_equal(glyph("?", 1), glyph(" ", 1))  # unknown: blank
    draw_text(img, 58, 0, "X", (0, 255, 0))  # would not fit: skipped, no error
    assert not (img == (0, 255, 0)).all(axis=2).any()


def test_frames_to_gif_keeps_frames_size_and_colours(tmp_path: Path) -> None:
    from PIL import Image

    rng = np.random.default_rng(0)
    palette = rng.integers(0, 256, size=(40, 3), dtype=np.uint8)
    frames = [palette[rng.integers(0, 40, size=(24, 32))] for _ in range(5)]
    path = tmp_path / "a.gif"
    assert frames_to_gif(iter(frames), path, fps=10) == 5
    with Image.open(path) as im:
        assert im.n_frames == 5 and im.size == (32, 24)
        for k, f in enumerate(frames):
            im.seek(k)
            assert np.array_equal(np.asarray(im.convert("RGB")), f)
            assert im.info["duration"] == 100
    with pytest.raises(ValueError, match="no frames"):
        frames_to_gif([], tmp_path / "b.gif")
    with pytest.raises(ValueError, match="uint8"):
        frames_to_gif([np.zeros((4, 4, 3))], tmp_path / "c.gif")
    with pytest.raises(ValueError, match="first"):
        frames_to_gif([frames[0], frames[1][:10]], tmp_path / "d.gif")


def test_display_detection_and_the_force_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "TABLETOP_FORCE_WINDOW",
        "LUNATIX_FORCE_WINDOW",
        "SDL_VIDEODRIVER",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert not display_available()
    monkeypatch.setenv("DISPLAY", ":0")
    assert display_available()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    assert not display_available()
    for var in ("TABLETOP_FORCE_WINDOW", "LUNATIX_FORCE_WINDOW"):
        monkeypatch.setenv(var, "1")
        assert display_available()
        monkeypatch.setenv(var, "0")
        assert not display_available()


def test_the_viewer_takes_a_title_and_is_silent_when_headless(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "TABLETOP_FORCE_WINDOW", "LUNATIX_FORCE_WINDOW"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    viewer = HumanViewer(title="Lazer Ryderz")
    assert viewer.title == "Lazer Ryderz"
    viewer.show(np.zeros((8, 8, 3), dtype=np.uint8))
    assert not viewer.is_open
    viewer.close()


def test_the_viewer_opens_a_titled_window_when_forced_by_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("TABLETOP_FORCE_WINDOW", "1")
    viewer = HumanViewer(title="Lazer Ryderz")
    frame = np.zeros((10, 12, 3), dtype=np.uint8)
    frame[2:5, 3:7] = (250, 204, 40)
    try:
        viewer.show(frame)
        assert viewer.is_open and pygame.display.get_caption()[0] == "Lazer Ryderz"
        shown = pygame.surfarray.array3d(viewer._screen).transpose(1, 0, 2)
        assert np.array_equal(shown, frame)
    finally:
        viewer.close()
