"""The engine protocol both games implement (see ``shared/DESIGN.md``).

OpenSpiel-style: an immutable :class:`Game` builds mutable :class:`State` objects. Decisions
can be sequential (one seat in ``current_players()``) or simultaneous (several seats); chance
nodes expose their exact outcome distribution and are resolved by the caller with an
explicitly passed ``numpy.random.Generator``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

#: JSON-compatible value (what ``to_dict`` produces).
JSON = Any


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game, for agents and env builders."""

    name: str
    num_players: int
    num_distinct_actions: int
    max_game_length: int
    min_utility: float
    max_utility: float


class GameOutcome(NamedTuple):
    """How a game ended: a game-specific enum for why, and the winning seat (or None)."""

    reason: enum.Enum
    winner: int | None


@runtime_checkable
class State(Protocol):
    """A mutable game state; every method below exists in both games."""

    def current_players(self) -> tuple[int, ...]:
        """Seats that must decide now: one, several (simultaneous), or none."""
        ...

    def is_chance_node(self) -> bool:
        """True when the next event is a chance event."""
        ...

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The pending discrete chance event's outcomes with exact probabilities."""
        ...

    def sample_chance(self, rng: np.random.Generator) -> Any:
        """Draw one outcome of the pending chance event without applying it."""
        ...

    def apply_chance(self, outcome: Any) -> None:
        """Apply a chance outcome."""
        ...

    def decision_kind(self) -> enum.Enum | None:
        """The kind of the pending decision (a game-specific enum with ``str`` values, such
        as Lunatix Loop's ``step``), or None at a chance node or a terminal state."""
        ...

    def legal_actions(self, seat: int) -> list[Any]:
        """Legal actions of ``seat`` now; non-empty for a deciding seat."""
        ...

    def is_legal(self, seat: int, action: Any) -> bool:
        """Whether ``action`` is legal for ``seat`` now."""
        ...

    def apply_action(self, action: Any) -> None:
        """Apply the single decider's action."""
        ...

    def apply_actions(self, actions: Mapping[int, Any]) -> None:
        """Apply all deciders' actions at a simultaneous node."""
        ...

    def is_terminal(self) -> bool:
        """True when the game is over (won, ended or truncated)."""
        ...

    def returns(self) -> Sequence[float]:
        """Per-seat returns (zero until terminal)."""
        ...

    def outcome(self) -> GameOutcome:
        """Why the game ended (an enum) and the winner."""
        ...

    def clone(self) -> State:
        """An independent deep copy."""
        ...

    def to_dict(self) -> dict[str, JSON]:
        """Plain-JSON snapshot with a schema version."""
        ...

    def observation(self, seat: int) -> dict[str, JSON]:
        """What ``seat`` may know, as structured data."""
        ...

    def record_events(self, on: bool = True) -> None:
        """Start (or stop) recording turn events (:mod:`tabletop.events`); off by default
        and in clones."""
        ...

    def take_events(self) -> list[Any]:
        """The turn events recorded since the last call (and forget them)."""
        ...

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
        """A new state (a clone; this one is untouched) in which everything hidden from
        ``seat`` is redrawn with ``rng`` consistently with what ``seat`` observes (OpenSpiel's
        ``ResampleFromInfostate``, a determinization for search).

        The result depends only on ``observation(seat)``, the public game history it
        implies, ``seat``'s own earlier choices and ``rng``: two states that ``seat`` cannot
        tell apart give the same result for the same generator state. ``observation(seat)``
        and ``legal_actions(seat)`` are unchanged, and the result is a valid state
        (``to_dict`` / ``state_from_dict`` round trip). A game with nothing hidden returns
        a plain clone.
        """
        ...


@runtime_checkable
class Game(Protocol):
    """An immutable game definition (rules config) that builds states."""

    @property
    def info(self) -> GameInfo:
        """Static facts about the game."""
        ...

    def new_initial_state(self, seed: int | None = None) -> State:
        """A fresh state at the start of a game."""
        ...

    def state_from_dict(self, data: Mapping[str, JSON]) -> State:
        """Rebuild a state from ``State.to_dict()`` output, validating it."""
        ...

    def action_to_int(self, action: Any) -> int:
        """Encode the discrete part of an action."""
        ...

    def int_to_action(self, index: int) -> Any:
        """Decode an int from :meth:`action_to_int`."""
        ...

    def action_to_json(self, action: Any) -> JSON:
        """An action as JSON for game records (its int, or more for a continuous action)."""
        ...

    def action_from_json(self, value: JSON) -> Any:
        """Decode :meth:`action_to_json` output (``IllegalActionError`` if malformed)."""
        ...


def play_chance(state: State, rng: np.random.Generator) -> Any:
    """Sample and apply the pending chance outcome; returns the outcome applied."""
    outcome = state.sample_chance(rng)
    state.apply_chance(outcome)
    return outcome


def random_legal_actions(state: State, rng: np.random.Generator) -> dict[int, Any]:
    """A uniformly random legal action for every seat deciding now: one draw from ``rng``
    per seat, in ``current_players()`` order (random players, soaks, benchmarks)."""
    actions = {}
    for seat in state.current_players():
        legal = state.legal_actions(seat)
        actions[seat] = legal[int(rng.integers(len(legal)))]
    return actions


def check_rng(rng: Any) -> np.random.Generator:
    """``rng`` if it is a ``numpy.random.Generator``, else a ``TypeError`` saying so (every
    random draw comes from an explicitly passed, seeded generator)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def sample_discrete(outcomes: Sequence[tuple[int, float]], rng: np.random.Generator) -> int:
    """Sample from ``[(outcome, probability)]`` with one uniform draw (stable across runs)."""
    if type(rng) is not np.random.Generator:
        check_rng(rng)
    u = rng.random()
    acc = 0.0
    for outcome, p in outcomes:
        acc += p
        if u < acc:
            return outcome
    return outcomes[-1][0]
