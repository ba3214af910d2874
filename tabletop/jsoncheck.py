"""Checks for JSON data read back into engine states: each failure names the path of the bad
value and says what was expected (``InvalidStateError``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop.errors import InvalidStateError

#: the largest integer a state dict may hold (larger ones cannot be a count or an index, and
#: Python refuses to print ints of over 4,300 digits)
MAX_INT = 2**63
#: the longest string a state dict may hold (names of kinds and decks are far shorter)
MAX_STR = 256


def check_limits(data: Any, max_depth: int, max_values: int, what: str = "state dict") -> None:
    """Size, depth and type limits of JSON data, checked before anything reads it, without
    recursion and in time bounded by ``max_values``: at most ``max_values`` values (every
    object, list, key and leaf counts), nested at most ``max_depth`` deep; only JSON types
    (objects with string keys, lists, strings up to ``MAX_STR`` characters, ints within
    +-``MAX_INT``, finite floats, booleans, null; numpy scalars count as numbers). Raises
    :class:`InvalidStateError` naming the path of the first offending value."""
    # (value, depth, parent entry, key): the path is spelt out only for an error
    stack: list[tuple[Any, int, Any, Any]] = [(data, 1, None, None)]
    count = 0

    def fail(entry: tuple[Any, int, Any, Any], msg: str) -> InvalidStateError:
        parts = []
        while entry is not None and entry[2] is not None:
            key = entry[3]
            parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
            entry = entry[2]
        path = "".join(reversed(parts)).lstrip(".") or "(top)"
        return InvalidStateError(f"{what}: {path}: {msg}")

    while stack:
        entry = stack.pop()
        v, depth = entry[0], entry[1]
        count += 1
        if depth > max_depth:
            raise fail(entry, f"nested deeper than {max_depth} levels")
        if isinstance(v, dict):
            if count + len(stack) + 2 * len(v) > max_values:
                raise fail(entry, f"more than {max_values} values in all")
            for k, x in v.items():
                if not isinstance(k, str):
                    raise fail(entry, f"keys must be strings, got {type(k).__name__}")
                if len(k) > MAX_STR:
                    raise fail(entry, f"a key of {len(k)} characters (at most {MAX_STR})")
                count += 1
                stack.append((x, depth + 1, entry, k))
        elif isinstance(v, list | tuple):
            if count + len(stack) + len(v) > max_values:
                raise fail(entry, f"more than {max_values} values in all")
            stack.extend((x, depth + 1, entry, i) for i, x in enumerate(v))
        elif isinstance(v, str):
            if len(v) > MAX_STR:
                raise fail(entry, f"a string of {len(v)} characters (at most {MAX_STR})")
        elif isinstance(v, bool) or v is None:
            pass
        elif isinstance(v, int | np.integer):
            if not -MAX_INT <= v <= MAX_INT:
                raise fail(entry, f"an integer beyond +-2**63 ({int(v).bit_length()} bits)")
        elif isinstance(v, float | np.floating):
            if not math.isfinite(v):
                raise fail(entry, f"expected a finite number, got {v!r}")
        else:
            raise fail(entry, f"{type(v).__name__} is not a JSON type")


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


def check_deciders(state: Any) -> None:
    """Every seat deciding at a state read back has a legal action (the engines' invariant;
    a state dict whose fields disagree can break it)."""
    for p in state.current_players():
        try:
            options = state.legal_actions(p)
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise bad("decision", f"seat {p} cannot decide at this state: {exc!r}") from None
        if not options:
            raise bad("decision", f"seat {p} has no legal action at this "
                      f"{state.decision['kind']!r} decision")
