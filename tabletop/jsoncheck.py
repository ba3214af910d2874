"""Checks for JSON data read back into engine states: each failure names the path of the bad
value and says what was expected (``InvalidStateError``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from tabletop.errors import InvalidStateError

#: the largest integer a state dict may hold (larger ones cannot be a count or an index, and
#: Python refuses to print ints of over 4,300 digits)
MAX_INT = 2**63
#: the longest string a state dict may hold (names of kinds and decks are far shorter)
MAX_STR = 256


def check_limits(
    data: Any,
    max_depth: int,
    max_values: int,
    what: str = "state dict",
    max_containers: int | None = None,
) -> None:
    """Size, depth and type limits of JSON data, checked before anything reads it, without
    recursion and in time bounded by the limits: at most ``max_values`` values (every
    object, list, key and leaf counts), of which at most ``max_containers`` objects and
    lists (each costs a Python step; default: no limit but ``max_values``), nested at most
    ``max_depth`` deep; only JSON types
    (objects with string keys, lists, strings up to ``MAX_STR`` characters, ints within
    +-``MAX_INT``, finite floats, booleans, null; numpy scalars count as numbers). Raises
    :class:`InvalidStateError` naming the path of the first offending value."""
    # containers only go on the stack, as (value, depth, parent entry, key): the path is
    # spelt out only for an error; leaves are checked in place (the cost of a large input)
    stack: list[tuple[Any, int, Any, Any]] = [(data, 1, None, None)]
    count = 0

    def fail(entry: tuple[Any, int, Any, Any] | None, key: Any, msg: str) -> InvalidStateError:
        parts = [] if key is None else [f"[{key}]" if isinstance(key, int) else f".{key}"]
        while entry is not None and entry[2] is not None:
            k = entry[3]
            parts.append(f"[{k}]" if isinstance(k, int) else f".{k}")
            entry = entry[2]
        path = "".join(reversed(parts)).lstrip(".") or "(top)"
        return InvalidStateError(f"{what}: {path}: {msg}")

    def leaf(x: Any) -> str | None:
        """What is wrong with a leaf value, or None."""
        t = type(x)
        if t is int:
            return (
                None
                if -MAX_INT <= x <= MAX_INT
                else f"an integer beyond +-2**63 ({x.bit_length()} bits)"
            )
        if t is str:
            return (
                None
                if len(x) <= MAX_STR
                else f"a string of {len(x)} characters (at most {MAX_STR})"
            )
        if t is float:
            return None if math.isfinite(x) else f"expected a finite number, got {x!r}"
        if x is None or t is bool:
            return None
        if isinstance(x, bool):
            return None
        if isinstance(x, int | np.integer):
            return leaf(int(x))
        if isinstance(x, float | np.floating):
            return leaf(float(x))
        if isinstance(x, str):
            return leaf(str(x))
        return f"{t.__name__} is not a JSON type"

    if not isinstance(data, dict | list | tuple):
        why = leaf(data)
        if why is not None:
            raise fail(None, None, why)
        return

    def scalars_ok(values: Any, types: set[type]) -> bool:
        """Whether a container's values, all of plain scalar ``types``, pass (checked at C
        speed: ``min``, ``max``, ``map``); False sends them through the slow loop."""
        if not types <= _PLAIN:
            return False
        if types & _NUMBERS:
            nums = (
                [x for x in values if type(x) is int or type(x) is float]
                if types - _NUMBERS
                else values
            )
            if nums and (min(nums) < -MAX_INT or max(nums) > MAX_INT):
                return False
            if float in types and not all(map(math.isfinite, nums)):
                return False
        if str in types:
            strs = [x for x in values if type(x) is str] if types - {str} else values
            if max(map(len, strs)) > MAX_STR:
                return False
        return True

    containers = 0
    most_containers = max_values if max_containers is None else max_containers
    while stack:
        entry = stack.pop()
        v, depth = entry[0], entry[1]
        count += 1
        containers += 1
        if containers > most_containers:
            raise fail(entry, None, f"more than {most_containers} objects and lists in all")
        if depth > max_depth:
            raise fail(entry, None, f"nested deeper than {max_depth} levels")
        is_dict = isinstance(v, dict)
        count += 2 * len(v) if is_dict else len(v)
        if count + len(stack) > max_values:
            raise fail(entry, None, f"more than {max_values} values in all")
        if is_dict:
            if set(map(type, v)) - {str}:
                bad_key = next(k for k in v if type(k) is not str)
                raise fail(entry, None, f"keys must be strings, got {type(bad_key).__name__}")
            if v and max(map(len, v)) > MAX_STR:
                k = max(v, key=len)
                raise fail(entry, None, f"a key of {len(k)} characters (at most {MAX_STR})")
            items: Any = v.items()
            values: Any = v.values()
        else:
            items = enumerate(v)
            values = v
        types = set(map(type, values))
        if scalars_ok(values, types):
            continue
        for k, x in items:
            if isinstance(x, dict | list | tuple):
                count -= 1  # counted again when popped
                stack.append((x, depth + 1, entry, k))
            else:
                why = leaf(x)
                if why is not None:
                    raise fail(entry, k, why)


#: plain JSON scalar types checked at C speed by ``check_limits``
_NUMBERS = frozenset({int, float})
_PLAIN = frozenset({int, float, str, bool, type(None)})


def bad(path: str, msg: str) -> InvalidStateError:
    """The error for a bad value at ``path``."""
    return InvalidStateError(f"state dict: {path}: {msg}")


def as_int(v: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer within [lo, hi]."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise bad(path, f"expected an integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise bad(path, f"{v} is outside {lo}..{hi}")
    n: int = v  # an int by now (mypy does not narrow Any through the `or` above)
    return n


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


def as_list(v: Any, path: str, length: int | None = None) -> list[Any]:
    """A list, optionally of a given length."""
    if not isinstance(v, list):
        raise bad(path, f"expected a list, got {type(v).__name__}")
    if length is not None and len(v) != length:
        raise bad(path, f"expected {length} items, got {len(v)}")
    return v


def as_ints(
    v: Any, path: str, length: int | None = None, lo: int | None = None, hi: int | None = None
) -> list[int]:
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
            raise bad(
                "decision",
                f"seat {p} has no legal action at this {state.decision.kind.value!r} decision",
            )


def as_sequence(v: Any) -> list[Any] | None:
    """``v`` as a list when it is a list, a tuple or another iterable that is no string or
    mapping (what builders accept for a list of things), else None."""
    if not isinstance(v, str | bytes | Mapping) and isinstance(v, Iterable):
        try:
            return list(v)
        except TypeError:  # (a 0-d array is Iterable but refuses to iterate)
            return None
    return None
