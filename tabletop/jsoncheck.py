"""Checks for JSON data read back into engine states: each failure names the path of the bad
value and says what was expected (``InvalidStateError``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tabletop.errors import InvalidStateError


def bad(path: str, msg: str) -> InvalidStateError:
    """The error for a bad value at ``path``."""
    return InvalidStateError(f"state dict: {path}: {msg}")


def as_int(v: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer within [lo, hi]."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise bad(path, f"expected an integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise bad(path, f"{v} is outside {lo}..{hi}")
    return v


def as_num(v: Any, path: str) -> float:
    """A finite number."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise bad(path, f"expected a finite number, got {v!r}")
    return float(v)


def as_bool(v: Any, path: str) -> bool:
    """true or false."""
    if not isinstance(v, bool):
        raise bad(path, f"expected true/false, got {v!r}")
    return v


def as_list(v: Any, path: str, length: int | None = None) -> list:
    """A list, optionally of a given length."""
    if not isinstance(v, list):
        raise bad(path, f"expected a list, got {type(v).__name__}")
    if length is not None and len(v) != length:
        raise bad(path, f"expected {length} items, got {len(v)}")
    return v


def as_ints(v: Any, path: str, length: int | None = None, lo: int | None = None,
            hi: int | None = None) -> list[int]:
    """A list of integers within [lo, hi]."""
    return [as_int(x, f"{path}[{i}]", lo, hi) for i, x in enumerate(as_list(v, path, length))]


def key(d: Mapping[str, Any], name: str, path: str) -> Any:
    """``d[name]``, or an error naming the missing key."""
    if not isinstance(d, Mapping):
        raise bad(path, "expected an object")
    if name not in d:
        raise bad(path, f"missing key {name!r}")
    return d[name]
