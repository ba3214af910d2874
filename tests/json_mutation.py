"""Random changes to JSON data for the fuzz tests (state dicts, records): every path into
the data, and one change at a drawn path, drawn with Hypothesis's ``draw``."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st


def leaves(v: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into JSON data (objects and lists)."""
    out = []
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        out.append((*prefix, k))
        out += leaves(x, (*prefix, k))
    return out


def change_one(
    root: Any,
    paths: Sequence[tuple[Any, ...]],
    draw: Any,
    values: Sequence[Any],
    nudge: st.SearchStrategy[Any],
    nudgeable: type | tuple[type, ...],
) -> None:
    """Change ``root`` in place at one of ``paths``: a value from ``values``, a number
    nudged by a draw of ``nudge`` (numbers of the types ``nudgeable``, never bools), a key
    removed, or a list grown by a copy of its first item. A path an earlier change removed
    or replaced is skipped."""
    path = paths[draw(st.integers(0, len(paths) - 1))]
    parent: Any = root
    try:
        for k in path[:-1]:
            parent = parent[k]
        old = parent[path[-1]]
    except (KeyError, IndexError, TypeError):
        return  # an earlier change removed or replaced it
    if not isinstance(parent, dict | list):
        return  # (a string put there by an earlier change)
    how = draw(st.sampled_from(("value", "value", "nudge", "remove", "grow")))
    if how == "nudge" and isinstance(old, nudgeable) and not isinstance(old, bool):
        parent[path[-1]] = old + draw(nudge)
    elif how == "remove" and isinstance(parent, dict):
        del parent[path[-1]]
    elif how == "grow" and isinstance(old, list):
        old.append(copy.deepcopy(old[0]) if old else 0)
    else:
        parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(values)))
