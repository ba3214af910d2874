"""A Lazer Ryderz game in progress: the decision/chance machine over the table geometry.

The machine is a stack of small tasks (plain tuples, so a state serializes to JSON). It runs
until a decision (``self.decision``) or a chance event (``self.chance``) is pending or the game
is over. Every rule of ``shared/rules/lazer_ryderz.md`` lives here once.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ryderz_env.rules.actions import NOOP, Action
from ryderz_env.rules.geometry import (
    Element,
)
from tabletop.errors import IllegalActionError, InvalidStateError
from tabletop.gamebase import joint_action, seat_index
from tabletop.protocol import check_rng, sample_discrete
from tabletop.tasks import task_table

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game
from ryderz_env.rules import tasks as T
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
from ryderz_env.rules.turn import Turn


class State(Turn):
    """A Lazer Ryderz game in progress. Build it with ``Game.new_initial_state``.

    Its data and task machine are :class:`~ryderz_env.rules.machine.Machine`'s, the rules of
    each phase come from the classes it derives from (:mod:`~ryderz_env.rules.turn`,
    :mod:`~ryderz_env.rules.crash`, :mod:`~ryderz_env.rules.launch`,
    :mod:`~ryderz_env.rules.legal`, :mod:`~ryderz_env.rules.scoring`,
    :mod:`~ryderz_env.rules.table_index`); this class adds the engine protocol, copying and
    JSON."""

    def __init__(self, game: Game, seed: int | None = None, *, _empty: bool = False) -> None:
        self.game = game
        self.seed = seed
        if _empty:
            return
        r = game.rules
        n = r.num_players
        self.players = [
            Player(seat=s, supply=[list(g) for g in game.supply], power_ready=r.powers)
            for s in range(n)
        ]
        self.prizms = [Prizm(x, y) for x, y in game.start_prizms]
        self.round = 0
        self.marker = 0  # the first seat clockwise from the Tie-Breaker Marker
        self.order: list[int] = []
        self.turn_id = 0
        self.tasks: list[T.Task] = []
        tosses = n if r.odd_table.toss_start_prizms else 0
        if tosses:  # each player tosses a starting Prizm (chance)
            self.prizms = []
        self._push(*[("toss",) for _ in range(tosses)], ("engines", 0), ("round_start",))
        self.decision: Decision | None = None
        self.chance: Chance | None = None
        self.turn: RiderTurn | None = None
        self.status = Outcome.IN_PROGRESS
        self.winner: int | None = None
        self._reset_caches()
        self._run()

    def _reset_caches(self) -> None:
        self._legal: dict[int, list[Action]] = {}
        self._index: tuple[list[Element], np.ndarray] | None = None
        self._boxes: tuple[tuple[list[Element], np.ndarray], np.ndarray] | None = None
        #: per Prizm (by index) whose colours are known, the owners of the Lazers touching
        #: its disc; kept up to date as pieces come and go (``_table_changed``), forgotten
        #: for a Prizm that changes
        self._touch: dict[int, frozenset[int]] = {}

    def clone(self) -> State:
        """An independent copy (pieces are immutable and shared)."""
        c = State(self.game, self.seed, _empty=True)
        c.players = [p.copy() for p in self.players]
        c.prizms = list(self.prizms)
        c.round, c.marker, c.order, c.turn_id = (
            self.round,
            self.marker,
            list(self.order),
            self.turn_id,
        )
        c.tasks = list(self.tasks)
        # decision and chance are replaced whole, never changed in place; only the turn
        # record's scored list grows
        c.decision = self.decision  # immutable: shared
        c.chance = self.chance  # immutable: shared
        c.turn = None if self.turn is None else self.turn.copy()
        c.status, c.winner = self.status, self.winner
        c._reset_caches()
        c._touch = dict(self._touch)  # (frozensets: shared)
        return c

    # ------------------------------------------------------------------ chance
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The pending discrete chance event's outcomes with exact probabilities."""
        ch = self.chance
        if ch is None:
            raise InvalidStateError("chance_outcomes called when no chance event is pending")
        if ch.kind is ChanceKind.DIE:
            return list(_die_outcomes(self.game.rules.die_faces))
        if ch.kind is ChanceKind.DEAL_GEARS:
            k = len(self.game.gear_deals)
            return [(i, 1.0 / k) for i in range(k)]
        raise InvalidStateError(
            f"the pending chance event ({ch.kind.value}) is continuous: draw it with sample_chance"
        )

    def sample_chance(self, rng: np.random.Generator) -> Any:
        """One outcome of the pending chance event, drawn with ``rng`` (not applied)."""
        check_rng(rng)
        ch = self.chance
        if ch is None:
            raise InvalidStateError("sample_chance called when no chance event is pending")
        kind = ch.kind
        if kind is ChanceKind.LAUNCH_NOISE:
            return float(rng.normal(0.0, self.game.rules.launch_noise_sigma))
        if kind is ChanceKind.TOSS:
            x, y = self.game.table.random_point(rng, self.game.rules.prizm_radius)
            return [float(x), float(y)]
        return sample_discrete(self.chance_outcomes(), rng)

    def apply_chance(self, outcome: Any) -> None:
        """Apply a chance outcome (a face, a deal index, an offset, or an (x, y) point)."""
        ch = self.chance
        if ch is None:
            raise IllegalActionError("apply_chance called when no chance event is pending")
        kind = ch.kind
        value = self._check_chance(kind, outcome)
        self.chance = None
        self._legal = {}
        _CHANCE[kind](self, ch, value)
        self._run()

    def _check_chance(self, kind: ChanceKind, outcome: Any) -> Any:
        if kind in (ChanceKind.DIE, ChanceKind.DEAL_GEARS):
            valid = (
                _die_faces(self.game.rules.die_faces)
                if kind is ChanceKind.DIE
                else [o for o, p in self.chance_outcomes() if p > 0]
            )
            if isinstance(outcome, bool) or not isinstance(outcome, int | np.integer):
                raise IllegalActionError(
                    f"chance outcome {outcome!r} is not possible for {kind.value}: outcomes "
                    f"are ints (numpy ints accepted), not {type(outcome).__name__}; "
                    f"possible: {list(valid)}"
                )
            if outcome not in valid:
                raise IllegalActionError(
                    f"chance outcome {outcome!r} is not possible for {kind.value}; "
                    f"possible: {list(valid)}"
                )
            return int(outcome)
        if kind is ChanceKind.LAUNCH_NOISE:
            if (
                isinstance(outcome, bool)
                or not isinstance(outcome, int | float)
                or not math.isfinite(outcome)
            ):
                raise IllegalActionError(
                    f"launch noise must be a finite number of inches, got {outcome!r}"
                )
            return float(outcome)
        try:
            x, y = (float(v) for v in outcome)
        except (TypeError, ValueError):
            raise IllegalActionError(f"a Prizm toss is a point [x, y], got {outcome!r}") from None
        r = self.game.rules.prizm_radius
        if not (
            math.isfinite(x) and math.isfinite(y) and self.game.table.contains_point(x, y, r - 1e-9)
        ):
            raise IllegalActionError(
                f"a tossed Prizm must lie wholly on the table; ({x}, {y}) does not"
            )
        return (x, y)

    # ------------------------------------------------------------------ decisions
    def legal_actions(self, seat: int) -> list[Action]:
        """Legal actions of ``seat`` now: every discrete choice, and at a launch decision a
        spread of ``launch_spread`` evenly spaced Launch Points per gear (empty if it is not
        deciding; a :class:`~tabletop.errors.SeatError` if it is no seat of this game)."""
        deciding = self._deciding(seat)
        if deciding is None:
            return []
        cached = self._legal.get(deciding)
        if cached is None:
            cached = self._legal[deciding] = self._compute_legal(deciding)
        return list(cached)

    def legal_action_ints(self, seat: int) -> list[int]:
        """The codec ints of the legal actions (each once)."""
        deciding = self._deciding(seat)
        if deciding is None:
            return []
        g = self.game
        key = self._legal_key(deciding)
        ints = None if key is None else g.action_ints.get(key)
        if ints is None:
            enc = g.codec.encode
            ints = sorted({enc(a) for a in self.legal_actions(deciding)})
            if key is not None:  # the same for every state of the game
                g.action_ints[key] = ints
        return list(ints)

    def is_legal(self, seat: int, action: Action) -> bool:
        """Whether ``action`` is legal for ``seat`` now (any Launch Point in range included)."""
        return self.illegal_reason(seat, action) is None

    def illegal_reason(self, seat: int, action: Any) -> str | None:
        """Why ``action`` is illegal for ``seat`` now, or None when it is legal."""
        deciding = self._deciding(seat)
        if deciding is None:
            return f"seat {seat} is not deciding now (deciders: {list(self.current_players())})"
        try:
            a = self.game.as_action(action)
        except IllegalActionError as exc:
            return str(exc)
        return self._why_illegal(deciding, a)

    def apply_action(self, action: Action | int) -> None:
        """Apply the only decider's action."""
        players = self.current_players()
        if len(players) != 1:
            raise IllegalActionError(
                self._no_decision_message()
                if not players
                else f"apply_action needs exactly one decider; deciders now: {list(players)} "
                "(Start Your Engines is simultaneous: use apply_actions)"
            )
        self.apply_actions({players[0]: action})

    def apply_actions(self, actions: Mapping[int, Action | int]) -> None:
        """Apply one action per decider (every seat at Start Your Engines)."""
        players = self.current_players()
        if not players:
            raise IllegalActionError(self._no_decision_message())
        joint = joint_action(actions, self.game.rules.num_players)
        given = sorted(joint)
        if given != sorted(players):
            raise IllegalActionError(
                f"actions given for seats {given}, but the deciders are {list(players)}"
            )
        acts: dict[int, Action] = {}
        for s, a in joint.items():
            act = self.game.as_action(a)  # raises IllegalActionError for a non-action
            why = self._why_illegal(s, act)
            if why is not None:
                raise IllegalActionError(why)
            acts[s] = act
        d, self.decision = cast(Decision, self.decision), None
        self._legal = {}
        _DECIDE[d.kind](self, d, acts)
        self._run()

    # ------------------------------------------------------------------ views
    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: everything on the table is public in Lazer Ryderz. The
        only secrets are the launch choices of Start Your Engines; the engine receives them
        together, and while the Launch Points are being placed the aimed positions (in the
        pending tasks and chance event) are left out of the observation."""
        from ryderz_env.rules.observe import public_view

        return public_view(self, seat_index(seat, self.game.rules.num_players))

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
        """A clone in which the other seats' aimed Launch Points are redrawn.

        Everything on the table is public. The only secret is where another seat aimed its
        blind Launch Point (Start Your Engines, or a respawn) while the placements are still
        pending: the ``x`` of its queued ``launch`` tasks, of a pending launch-noise event
        and of the spots held by a gear deal. Each such ``x`` of a seat other than ``seat``
        is drawn afresh, uniform on [-1, 1] with ``rng`` (in stack order, then the chance
        event); ``seat``'s own aims are its own earlier choices and stay. Simultaneous
        choices are applied all at once (none is ever stored half-made), so with no
        placement pending this is a plain clone (and ``rng`` is not drawn from).
        """
        seat = seat_index(seat, self.game.rules.num_players)
        s = self.clone()

        def aim() -> float:
            return float(rng.uniform(-1.0, 1.0))

        s.tasks = [
            ("launch", t[1], aim()) if t[0] == "launch" and t[1] != seat else t for t in s.tasks
        ]
        ch = s.chance
        if ch is not None:
            if ch.kind is ChanceKind.LAUNCH_NOISE and ch.seat != seat:
                s.chance = ch._replace(x=aim())
            elif ch.kind is ChanceKind.DEAL_GEARS:
                spots = tuple((o, x if o == seat else aim()) for o, x in ch.spots)
                s.chance = ch._replace(spots=spots)
        return s

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON snapshot with a schema version (``Game.state_from_dict`` reverses it)."""
        from ryderz_env.rules.serialize import state_to_dict

        return state_to_dict(self)

    def __str__(self) -> str:
        from ryderz_env.rules.text import describe

        return describe(self)


@functools.lru_cache(maxsize=16)
def _die_faces(faces: tuple[int, ...]) -> tuple[int, ...]:
    """The curve die's distinct faces, in order (those of :func:`_die_outcomes`)."""
    return tuple(f for f, _ in _die_outcomes(faces))


@functools.lru_cache(maxsize=16)
def _die_outcomes(faces: tuple[int, ...]) -> tuple[tuple[int, float], ...]:
    """The curve die's faces with their probabilities (worked out once per die)."""
    return tuple((f, faces.count(f) / len(faces)) for f in sorted(set(faces)))


def gear_deals(top_gear: int, num_players: int) -> tuple[tuple[int, ...], ...]:
    """Every assignment of distinct gears to the seats (the chance deal after the redos)."""
    return tuple(itertools.permutations(range(1, top_gear + 1), num_players))


_DECIDE: dict[DecisionKind, Callable[[State, Decision, dict[int, Action]], None]] = {
    DecisionKind.ENGINES: State._d_engines,
    DecisionKind.RESPAWN: State._d_respawn,
    DecisionKind.POWER: State._d_power,
    DecisionKind.BONUS: State._d_bonus,
    DecisionKind.MOVE: State._d_move,
    DecisionKind.SHARK: State._d_shark,
}
_CHANCE: dict[ChanceKind, Callable[[State, Chance, Any], None]] = {
    ChanceKind.DEAL_GEARS: State._c_deal_gears,
    ChanceKind.LAUNCH_NOISE: State._c_launch_noise,
    ChanceKind.DIE: State._c_die,
    ChanceKind.TOSS: State._c_toss,
}
#: the handlers and enum members by the values kept in ``decision`` and ``chance`` dicts

#: the task kinds: handlers, JSON names, field types (checked against the handlers here)
TASK_TABLE = task_table(T.TASKS, State)
State.task_handlers = TASK_TABLE.handlers

__all__ = ["NOOP", "ChanceKind", "DecisionKind", "Outcome", "Player", "Prizm", "State"]
