"""The task machine of a Lazer Ryderz state: the stack of pending tasks (the typed tuples of
:mod:`~ryderz_env.rules.tasks`, run by their ``_t_<kind>`` handlers, queued with
:meth:`Machine._push`), the pending decision and chance
event, the end of the game, and the score. The phases build on it;
:class:`~ryderz_env.rules.state.State` is all of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ryderz_env.rules.actions import Action
from ryderz_env.rules.events import RyderzEvent as E
from ryderz_env.rules.geometry import (
    Element,
)
from ryderz_env.rules.tasks import Task
from tabletop.errors import InvalidStateError
from tabletop.gamebase import MachineQueries

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game
from ryderz_env.rules.records import (
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    Player,
    Prizm,
    RiderTurn,
)


class Machine(MachineQueries):
    """The state's data and its task machine (the phases' common base)."""

    game: Game
    seed: int | None
    players: list[Player]
    prizms: list[Prizm]
    round: int
    marker: int
    order: list[int]
    turn_id: int
    decision: Decision | None
    chance: Chance | None
    turn: RiderTurn | None
    status: Outcome
    _legal: dict[int, list[Action]]
    _index: tuple[list[Element], np.ndarray] | None
    _boxes: tuple[tuple[list[Element], np.ndarray], np.ndarray] | None
    _touch: dict[int, frozenset[int]]
    #: the pending tasks, the next last (shared by clones: tasks are immutable)
    tasks: list[Task]
    #: the ``_t_<kind>`` handler of each task kind (filled in by the state module)
    task_handlers: ClassVar[Mapping[str, Callable[..., None]]]
    decision_kinds = DecisionKind
    chance_kinds = ChanceKind
    in_progress = Outcome.IN_PROGRESS

    # ------------------------------------------------------------------ protocol: queries
    def score(self, seat: int) -> int:
        """Prizms of ``seat``'s colour on the table."""
        return sum(1 for p in self.prizms if p.owner == seat)

    @staticmethod
    def _locked_by(prizm: Prizm, colours: AbstractSet[int]) -> bool:
        """The lock rule: two or more colours touch it, or it lies on its own colour."""
        return len(colours) >= 2 or prizm.owner in colours

    # ------------------------------------------------------------------ the machine
    def _run(self) -> None:
        handlers = self.task_handlers
        while self.decision is None and self.chance is None and self.status is Outcome.IN_PROGRESS:
            if not self.tasks:
                raise InvalidStateError("the game has no pending work but is not over")
            task = self.tasks.pop()
            handlers[task[0]](self, *task[1:])

    def _push(self, *tasks: Task) -> None:
        """Queue ``tasks`` to run in the order given (before the tasks already queued)."""
        if len(tasks) == 1:
            self.tasks.append(tasks[0])
        else:
            self.tasks += tasks[::-1]

    def _end(self, outcome: Outcome, winner: int | None = None) -> None:
        self.status, self.winner = outcome, winner
        if self.events is not None:
            self._event(E.END, winner, outcome=outcome.value, winner=winner)
        self.tasks.clear()
        self.decision = self.chance = self.turn = None
        self._legal = {}
