"""The one bot interface of both games, and the random bot.

A bot plays engine states through the engine protocol (``tabletop.protocol``): it is told
the state and the seat it plays, and returns an engine action that is legal for that seat
now. A bot decides only from what its seat may know: ``state.observation(seat)``,
``state.legal_actions(seat)``, the game's rules, and (for search) copies of the state whose
hidden parts were redrawn by ``state.resample_hidden(seat, rng)``. Every bot is seeded by
:meth:`Bot.reset`; the same seed and the same states give the same actions.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from tabletop.protocol import State

__all__ = ["Bot", "Evaluator", "RandomBot"]


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


@runtime_checkable
class Evaluator(Protocol):
    """Estimates how good a state is for a seat, on the scale of ``state.returns()``
    (MCTS ends its rollouts with it)."""

    def value(self, state: State, seat: int) -> float:
        """The expected return of ``seat`` from ``state`` (from what ``seat`` may know)."""
        ...


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
