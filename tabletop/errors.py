"""Typed errors shared by both games' engines and environments."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is left unchanged."""


class InvalidStateError(ValueError):
    """A state dict (or a state) that violates the schema or the game's invariants."""


class ConfigError(ValueError):
    """A configuration file or object that does not match its dataclass schema."""


class SeatError(IllegalActionError):
    """A seat argument that is not a seat of the game: seats are ints in ``range(num
    players)`` (numpy ints accepted); bools, strings and floats are refused, never coerced.
    An :class:`IllegalActionError`, so that callers of ``apply_actions`` catch it as before."""


class ResetNeededError(InvalidStateError):
    """An env used before its first ``reset()`` (step, masks, render, record)."""
