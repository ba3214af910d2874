"""The one bot interface of both games, and the random bot.

A bot plays engine states through the engine protocol (``tabletop.protocol``): it is told
the state and the seat it plays, and returns an engine action that is legal for that seat
now. A bot decides only from what its seat may know: ``state.observation(seat)``,
``state.legal_actions(seat)``, the game's rules, and (for search) copies of the state whose
hidden parts were redrawn by ``state.resample_hidden(seat, rng)``. Every bot is seeded by
:meth:`Bot.reset`; the same seed and the same states give the same actions.
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tabletop.protocol import State

__all__ = ["Bot", "Evaluator", "MemoBot", "RandomBot", "Tunable"]


@runtime_checkable
class Bot(Protocol):
    """A seeded player of engine states: ``act(state, seat) -> engine action``."""

    #: a short name for tables (``random``, ``heuristic``, ``mcts:sims=400``)
    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new game) with its random draws seeded by ``seed``."""
        ...

    def act(self, state: State, seat: int) -> Any:
        """A legal engine action of ``seat`` at ``state`` (``seat`` is deciding now)."""
        ...


@dataclass(frozen=True)
class Tunable:
    """One adjustable number of a heuristic, its ``heuristic:KEY=VALUE`` spec option: a
    keyword of the heuristic's constructor, an ``int`` or a ``float`` in ``[low, high]``."""

    kind: type
    low: float
    high: float
    #: what it changes, for error messages and docs
    doc: str

    def check(self, key: str, value: float) -> int | float:
        """``value`` as this option takes it, or a ValueError saying what is allowed."""
        if not math.isfinite(value) or not self.low <= value <= self.high:
            raise ValueError(
                f"{key}={value:g} is outside [{self.low:g}, {self.high:g}] ({self.doc})"
            )
        if self.kind is int:
            if value != int(value):
                raise ValueError(f"{key}={value:g} must be a whole number ({self.doc})")
            return int(value)
        return float(value)


@runtime_checkable
class Evaluator(Protocol):
    """Estimates how good a state is for a seat, on the scale of ``state.returns()``
    (MCTS ends its rollouts with it). It may also have ``values(state)``, every seat's value
    at once (the same numbers, cheaper), which :func:`evaluate_all` uses."""

    def value(self, state: State, seat: int) -> float:
        """The expected return of ``seat`` from ``state`` (from what ``seat`` may know)."""
        ...


def evaluate_all(evaluator: Evaluator, state: State, n: int) -> list[float]:
    """``[evaluator.value(state, i) for i in range(n)]``, from the evaluator's own
    ``values(state)`` where it has one (the same numbers, computed once for every seat)."""
    batch = getattr(evaluator, "values", None)
    if batch is not None:
        return [float(v) for v in batch(state)]
    return [float(evaluator.value(state, i)) for i in range(n)]


class RandomBot:
    """Uniform over ``state.legal_actions(seat)``: one draw of its own generator a move."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, state: State, seat: int) -> Any:
        """A uniformly random legal action."""
        legal = state.legal_actions(seat)
        return legal[int(self.rng.integers(len(legal)))]


class MemoBot:
    """Remembers the moves of a bot that decides from ``state.observation(seat)`` and
    ``state.legal_actions(seat)`` alone (a class attribute ``decides_from_observation =
    True`` says so): a state whose observation for the seat was seen before gets the move
    played then, without asking the bot again (its tie-break draw included).

    A search asks its rollout policy about the same positions many times (simulations that
    follow the same moves and chance outcomes); MCTS clears the memo at each search
    (``MCTSBot(memo=True)``), which bounds its size. Keys are the pickled observation (the
    same dict built the same way pickles to the same bytes) and the seat.
    """

    def __init__(self, bot: Bot) -> None:
        if not getattr(bot, "decides_from_observation", False):
            raise ValueError(
                f"{getattr(bot, 'name', bot)!r} does not declare decides_from_observation: "
                "its moves cannot be remembered by observation"
            )
        self.bot = bot
        self.name = bot.name
        self.moves: dict[tuple[int, bytes], Any] = {}
        self.hits = 0

    def reset(self, seed: int | None = None) -> None:
        """Reset the bot and forget every move."""
        self.bot.reset(seed)
        self.clear()

    def clear(self) -> None:
        """Forget every move (the bot's own state is kept)."""
        self.moves.clear()
        self.hits = 0

    def act(self, state: State, seat: int) -> Any:
        """The bot's move, remembered by (seat, observation)."""
        key = (seat, pickle.dumps(state.observation(seat), protocol=pickle.HIGHEST_PROTOCOL))
        move = self.moves.get(key)
        if move is None:
            move = self.moves[key] = self.bot.act(state, seat)
        else:
            self.hits += 1
        return move
