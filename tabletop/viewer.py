"""A ``human`` render-mode window both games share: frames blitted into a pygame window.

Layer 4 of the design. pygame is imported lazily, on the first frame that can open a window,
so importing this module (or a game's renderer) never loads it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

#: environment variables that force a window even where no display is detected
FORCE_WINDOW_VARS = ("TABLETOP_FORCE_WINDOW", "LUNATIX_FORCE_WINDOW")


def display_available() -> bool:
    """Whether a pygame window can plausibly open here."""
    if any(os.environ.get(v, "") not in ("", "0") for v in FORCE_WINDOW_VARS):
        return True
    if os.environ.get("SDL_VIDEODRIVER", "") in ("dummy", "offscreen"):
        return False
    if sys.platform in ("darwin", "win32", "cygwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class HumanViewer:
    """Shows frames in a pygame window titled ``title`` when a display exists; otherwise does
    nothing.

    Headless machines (Linux without ``DISPLAY`` or ``WAYLAND_DISPLAY``, or
    ``SDL_VIDEODRIVER=dummy``) get a silent no-op, so ``render_mode="human"`` never raises
    there; a missing pygame or a window that fails to open is also a silent no-op. pygame is
    imported lazily, on the first :meth:`show` that can open a window.

    To force a window (e.g. a display the checks do not see), pass ``force=True`` or set the
    environment variable ``TABLETOP_FORCE_WINDOW=1`` (``LUNATIX_FORCE_WINDOW=1`` works too).
    """

    def __init__(self, title: str = "Tabletop Racers", force: bool = False) -> None:
        self.title = title
        self.force = force
        self._pygame: Any = None
        self._screen: Any = None
        self._disabled = False

    @property
    def is_open(self) -> bool:
        """Whether a window is open."""
        return self._screen is not None

    def show(self, frame: np.ndarray) -> None:
        """Blit an ``(H, W, 3)`` uint8 frame into the window (opening it if needed)."""
        if self._disabled:
            return
        if self._screen is None and not self._open(frame.shape[1], frame.shape[0]):
            self._disabled = True
            return
        pg = self._pygame
        try:
            for event in pg.event.get():
                if event.type == pg.QUIT:
                    self.close()
                    self._disabled = True
                    return
            h, w = frame.shape[:2]
            if self._screen.get_size() != (w, h):
                self._screen = pg.display.set_mode((w, h))
            surf = pg.image.frombuffer(
                np.ascontiguousarray(frame, dtype=np.uint8).tobytes(), (w, h), "RGB"
            )
            self._screen.blit(surf, (0, 0))
            pg.display.flip()
        except Exception:  # a window that goes away must not break the environment
            self.close()
            self._disabled = True

    def _open(self, width: int, height: int) -> bool:
        if not (self.force or display_available()):
            return False
        try:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            import pygame

            pygame.display.init()
            self._screen = pygame.display.set_mode((width, height))
            pygame.display.set_caption(self.title)
            self._pygame = pygame
            return True
        except Exception:
            self._screen = None
            return False

    def close(self) -> None:
        """Close the window, if one is open."""
        if self._pygame is not None and self._screen is not None:
            try:
                self._pygame.display.quit()
            except Exception:
                pass
        self._screen = None
