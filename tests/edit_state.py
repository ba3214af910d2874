"""Change a state in the middle of a scenario through the public JSON round trip.

Scenario tests never write a state's fields: a position set up before acting comes from the
games' ``PositionBuilder`` (docs/positions.md), and a change after some actions goes through
``edited``, which edits the state's JSON dict and loads it back with ``state_from_dict``, so
that the changed state satisfies every documented invariant (docs/state_invariants.md) or
the test fails with an ``InvalidStateError`` naming what is wrong::

    s = edited(s, lambda d: d["cars"][0].update(luck=2))

The original state is left as it was; the test goes on with the returned one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

S = TypeVar("S")


def edited(state: S, change: Callable[[dict[str, Any]], object]) -> S:
    """A new state: ``state``'s JSON dict changed in place by ``change``, then validated and
    loaded by the game's ``state_from_dict`` (``change``'s return value is ignored)."""
    d = state.to_dict()  # type: ignore[attr-defined]
    change(d)
    new: S = state.game.state_from_dict(d)  # type: ignore[attr-defined]
    return new
