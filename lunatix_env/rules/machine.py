"""The task machine of a Lunatix Loop state: the stack of pending tasks (the typed tuples of
:mod:`~lunatix_env.rules.tasks`, run by their ``_t_<kind>`` handlers, queued with
:meth:`Machine._push`), the pending
decision and chance event, the end of the game, and the few moves every phase makes (placing
a car, slowing it, spending a gadget). The phases (:mod:`turn`, :mod:`pit`, :mod:`hazards`)
and :mod:`legal` build on it; :class:`~lunatix_env.rules.state.State` is all of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from lunatix_env.rules.actions import (
    Action,
)
from lunatix_env.rules.events import LunatixEvent as E
from lunatix_env.rules.tasks import Task
from tabletop.errors import InvalidStateError
from tabletop.gamebase import MachineQueries

if TYPE_CHECKING:
    from lunatix_env.rules.game import Game

from lunatix_env.rules.records import (
    Car,
    CarTurn,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    laps_done,
)


class Machine(MachineQueries):
    """The state's data and its task machine (the phases' common base)."""

    game: Game
    seed: int | None
    cars: list[Car]
    round: int
    cards: list[int | None]
    order: list[int]
    hazard_deck: list[int]
    hazard_discard: list[int]
    turbo_deck: list[int]
    turbo_discard: list[int]
    gadget_top: list[int]
    gadget_bottom: list[list[int]]
    offer: list[int]
    supply: list[int]
    track_chips: dict[int, int]
    pit_counter: int
    batches: list[list[int]]
    decision: Decision | None
    chance: Chance | None
    turn: CarTurn | None
    status: Outcome
    _legal: dict[int, list[Action]]
    _chance_cache: list[tuple[int, float]] | None
    #: the pending tasks, the next last (shared by clones: tasks are immutable)
    tasks: list[Task]
    #: the ``_t_<kind>`` handler of each task kind (filled in by the state module)
    task_handlers: ClassVar[Mapping[str, Callable[..., None]]]
    decision_kinds = DecisionKind
    chance_kinds = ChanceKind
    in_progress = Outcome.IN_PROGRESS

    # ------------------------------------------------------------------ protocol: queries
    def laps(self, seat: int) -> int:
        """Completed laps of ``seat`` (high-water mark; the start crossing is not one)."""
        return laps_done(self.cars[seat].best_u, self.game.track.length)

    def laps_required(self, seat: int) -> int:
        """Laps ``seat`` must complete to win, including laps owed after a pit pass."""
        return self.game.rules.laps + self.cars[seat].owed

    def occupant(self, square: int) -> int | None:
        """The seat of the car on ``square`` (wrecks included), or None."""
        for c in self.cars:
            if c.square == square and not c.in_pit:
                return c.seat
        return None

    # ------------------------------------------------------------------ the machine
    def _run(self) -> None:
        tasks = self.tasks
        handlers = self.task_handlers
        running = Outcome.IN_PROGRESS
        while self.decision is None and self.chance is None and self.status is running:
            if not tasks:
                raise InvalidStateError("the game has no pending work but is not over")
            task = tasks.pop()
            handlers[task[0]](self, *task[1:])

    def _push(self, *tasks: Task) -> None:
        """Queue ``tasks`` to run in the order given (before the tasks already queued)."""
        if len(tasks) == 1:
            self.tasks.append(tasks[0])
        else:
            self.tasks += tasks[::-1]

    def _ask(self, kind: DecisionKind, seat: int, **ctx: Any) -> None:
        # most decisions carry no context: building the record without ** is faster
        self.decision = Decision(kind, seat, **ctx) if ctx else Decision(kind, seat)

    def _end(self, outcome: Outcome, winner: int | None = None) -> None:
        t = self.turn
        if t is not None and t.ignore_max:  # the end-of-turn clamp of a turbo turn
            car = self.cars[t.seat]
            self._lower_speed(car, car.max_speed, "set")
        self.status = outcome
        self.winner = winner
        if self.events is not None:
            self._event(E.END, winner, outcome=outcome.value, winner=winner)
        self.tasks.clear()
        self.decision = None
        self.chance = None
        self.turn = None

    # ------------------------------------------------------------------ rounds
    def _live_seats(self) -> list[int]:
        return [c.seat for c in self.cars if not c.out]

    # ------------------------------------------------------------------ geometry helpers
    def _spend(self, car: Car, gadget: int) -> None:
        car.gadgets.remove(gadget)
        car.spent.append(gadget)
        if self.events is not None:
            self._event(E.GADGET, car.seat, gadget=self.game.decks.gadgets[gadget].name)

    # ------------------------------------------------------------------ movement
    def _place(self, car: Car, square: int) -> None:
        """Move ``car`` to a track square, update progress, and check for a win."""
        tr = self.game.track
        if self.events is not None:
            self._event(E.MOVE, car.seat, src=car.square, dst=square)
        car.u += tr.wrap(tr.s[square] - tr.s[car.square])
        car.square = square
        if car.u > car.best_u:
            if self.events is not None:  # a lap is complete when the high-water mark passes it
                lap = laps_done(car.u, tr.length)
                if lap > laps_done(car.best_u, tr.length):
                    self._event(E.LAP, car.seat, lap=lap)
            car.best_u = car.u
            # laps(seat) >= laps_required(seat), without the function calls (hot path)
            if car.u + 1e-9 >= (self.game.rules.laps + car.owed) * tr.length:
                self._end(Outcome.WIN, car.seat)

    # ------------------------------------------------------------------ chips, hazards, damage
    def _slow(self, car: Car, amount: int) -> None:
        before = car.speed
        car.speed = max(0, car.speed - amount)
        if self.events is not None:
            self._event(E.SPEED, car.seat, before=before, after=car.speed, why="slowed")

    def _lower_speed(self, car: Car, speed: int, why: str) -> None:
        """Set ``car``'s speed to ``speed`` if that is lower (a ``speed`` event if it is)."""
        if speed < car.speed:
            before, car.speed = car.speed, speed
            if self.events is not None:
                self._event(E.SPEED, car.seat, before=before, after=speed, why=why)
