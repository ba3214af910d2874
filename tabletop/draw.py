"""Drawing helpers both games share: a 3x5 bitmap font for text in RGB frames, and GIF output.

Layer 4 of the design (rendering), numpy only at import time; Pillow is imported inside
:func:`frames_to_gif` alone. Text is written straight into an ``(H, W, 3)`` uint8 picture:
upper case, digits and a little punctuation (anything else draws as a space), each glyph
``3 * scale`` pixels wide (M and W ``5 * scale``) and ``5 * scale`` high, with ``scale``
pixels between glyphs.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np

Colour = tuple[int, int, int]

# A 3x5 pixel font (M and W 5 wide): rows top to bottom, "#" lit.
FONT_ROWS: dict[str, str] = {
    "0": "### #.# #.# #.# ###",
    "1": ".#. ##. .#. .#. ###",
    "2": "### ..# ### #.. ###",
    "3": "### ..# .## ..# ###",
    "4": "#.# #.# ### ..# ..#",
    "5": "### #.. ### ..# ###",
    "6": "### #.. ### #.# ###",
    "7": "### ..# .#. .#. .#.",
    "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ###",
    "A": ".#. #.# ### #.# #.#",
    "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##",
    "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..",
    "G": ".## #.. #.# #.# .##",
    "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###",
    "J": "..# ..# ..# #.# .#.",
    "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###",
    "M": "#...# ##.## #.#.# #...# #...#",
    "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.",
    "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#",
    "S": ".## #.. .#. ..# ##.",
    "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###",
    "V": "#.# #.# #.# #.# .#.",
    "W": "#...# #...# #.#.# ##.## #...#",
    "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.",
    "Z": "### ..# .#. #.. ###",
    "/": "..# ..# .#. #.. #..",
    "-": "... ... ### ... ...",
    ":": "... .#. ... .#. ...",
    ">": "#.. .#. ..# .#. #..",
    ".": "... ... ... ... .#.",
    " ": "... ... ... ... ...",
}
_FONT: dict[str, np.ndarray] = {
    ch: np.array([[c == "#" for c in row] for row in rows.split()], dtype=bool)
    for ch, rows in FONT_ROWS.items()
}
_GLYPHS: dict[tuple[str, int], np.ndarray] = {}


def glyph(ch: str, scale: int) -> np.ndarray:
    """The font's mask for ``ch`` blown up ``scale`` times (cached; unknown characters are
    blank)."""
    key = (ch, scale)
    g = _GLYPHS.get(key)
    if g is None:
        g = _FONT.get(ch, _FONT[" "])
        g = _GLYPHS[key] = np.kron(g, np.ones((scale, scale), dtype=bool))
    return g


def draw_text(img: np.ndarray, x: int, y: int, text: str, colour: Colour, scale: int = 2) -> int:
    """Write ``text`` (upper-cased) with its top-left at (x, y); returns the end x. A glyph
    that would not fit wholly inside the picture is skipped."""
    H, W = img.shape[:2]
    for ch in text.upper():
        g = glyph(ch, scale)
        gh, gw = g.shape
        if 0 <= x and x + gw <= W and 0 <= y and y + gh <= H:
            img[y : y + gh, x : x + gw][g] = colour
        x += gw + scale
    return x


def text_width(text: str, scale: int = 2) -> int:
    """Width in pixels of ``text`` as :func:`draw_text` writes it."""
    width: int = sum(glyph(ch, scale).shape[1] + scale for ch in text.upper()) - scale
    return width


def frames_to_gif(frames: Iterable[np.ndarray], path: str | Path, fps: float = 4.0) -> int:
    """Write ``(H, W, 3)`` uint8 frames (all one size) as an animated, looping GIF; returns
    the number of frames given.

    Pillow (imported here only) reduces each frame to a 256-colour palette (exact for drawings
    with fewer colours) and merges a frame identical to the one before it into that frame's
    duration, so such a file can hold fewer frames than were given.
    """
    from PIL import Image

    images: list[Image.Image] = []
    for f in frames:
        a = np.ascontiguousarray(f)
        if a.ndim != 3 or a.shape[2] != 3 or a.dtype != np.uint8:
            raise ValueError(f"expected (H, W, 3) uint8 frames, got {a.dtype} {a.shape}")
        if images and images[0].size != (a.shape[1], a.shape[0]):
            raise ValueError(
                f"frame {len(images)} is {a.shape[1]}x{a.shape[0]}, the first "
                f"{images[0].size[0]}x{images[0].size[1]}"
            )
        # to a palette at once: a quarter of the memory of RGB frames held until the end
        images.append(Image.fromarray(a, "RGB").convert("P", palette=Image.Palette.ADAPTIVE))
    if not images:
        raise ValueError("no frames to write")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    images[0].save(
        Path(path),
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=max(1, round(1000.0 / fps)),
        loop=0,
    )
    return len(images)


def png_bytes(rgb: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 picture as PNG bytes (zlib only, no imaging library)."""
    a = np.ascontiguousarray(rgb)
    if a.ndim != 3 or a.shape[2] != 3 or a.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 array, got {a.dtype} {a.shape}")
    h, w, _ = a.shape
    raw = np.concatenate([np.zeros((h, 1), np.uint8), a.reshape(h, w * 3)], axis=1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + tag + data + crc

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
        + chunk(b"IEND", b"")
    )
