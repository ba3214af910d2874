"""A Lazer Ryderz game in progress: the decision/chance machine over the table geometry.

The machine is a stack of small tasks (plain tuples, so a state serializes to JSON). It runs
until a decision (``self.decision``) or a chance event (``self.chance``) is pending or the game
is over. Every rule of ``shared/rules/lazer_ryderz.md`` lives here once.
"""

from __future__ import annotations

import enum
import functools
import itertools
import math
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np
import shapely

from ryderz_env.rules.actions import NOOP, Action, ActionKind, Move
from ryderz_env.rules.config import Character, PieceKind
from ryderz_env.rules.events import RyderzEvent as E
from ryderz_env.rules.geometry import (
    Element,
    Pose,
    contact_parts,
    crossing_parts,
    joint_line,
    make_element,
    nudge_point,
    polygon,
)
from tabletop.errors import IllegalActionError, InvalidStateError
from tabletop.gamebase import MachineQueries, joint_action, seat_index
from tabletop.protocol import check_rng, sample_discrete

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game

STRAIGHT, SOFT, HARD = PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD
#: a scored Prizm's slide is checked at this many even steps of its piece's centreline
SLIDE_STEPS = 256
#: halvings of a step that find where a sliding Prizm touches a Prizm or the table's edge
SLIDE_BISECTIONS = 40


class DecisionKind(enum.Enum):
    """What a deciding seat is asked."""

    ENGINES = "engines"  # simultaneous: starting gear and Launch Point
    RESPAWN = "respawn"  # after a crash: any gear and a Launch Point
    POWER = "power"  # start of turn: Super Sheriff / Phantom Cosmonaut, or decline
    BONUS = "bonus"  # large table: a 5th-gear straight before the first piece, or not
    MOVE = "move"  # shift and move
    SHARK = "shark"  # Lazer Shark: the extra longest straight, or not


class ChanceKind(enum.Enum):
    """The chance events; DIE and DEAL_GEARS are discrete, the others continuous."""

    DEAL_GEARS = "deal_gears"  # after the last all-stall redo: distinct gears at random
    LAUNCH_NOISE = "launch_noise"  # blind placement: offset along the edge (inches)
    DIE = "die"  # the curve die: a face value, 0 for Spin Out
    TOSS = "toss"  # a fresh neutral Prizm lands at (x, y)


class Outcome(enum.Enum):
    """How a game ended."""

    IN_PROGRESS = "in_progress"
    WIN = "win"
    TRUNCATED = "truncated"


class Prizm(NamedTuple):
    """A Prizm disc: centre and owner seat (-1 neutral)."""

    x: float
    y: float
    owner: int = -1


class Player:
    """One Ryder: gear, supply, power, and its Lazer (oldest element first)."""

    __slots__ = ("seat", "gear", "stalled", "power_ready", "supply", "lazer", "head", "prev_turn")

    def __init__(self, seat: int, supply: list[list[int]], power_ready: bool) -> None:
        self.seat = seat
        self.gear = 1
        self.stalled = False
        self.power_ready = power_ready
        self.supply = supply  # supply[gear - 1][kind]: pieces off the table
        self.lazer: list[Element] = []
        self.head: Pose | None = None  # the front pose; None with no Lazer on the table
        self.prev_turn = -1  # the id of this player's previous turn

    def copy(self) -> Player:
        """An independent copy (elements are immutable and shared)."""
        p = Player(self.seat, [list(g) for g in self.supply], self.power_ready)
        p.gear, p.stalled, p.lazer = self.gear, self.stalled, list(self.lazer)
        p.head, p.prev_turn = self.head, self.prev_turn
        return p


class State(MachineQueries):
    """A Lazer Ryderz game in progress. Build it with ``Game.new_initial_state``."""

    game: Game
    decision_kinds = DecisionKind
    chance_kinds = ChanceKind
    in_progress = Outcome.IN_PROGRESS

    def __init__(self, game: Game, seed: int | None = None, *, _empty: bool = False) -> None:
        self.game = game
        self.seed = seed
        if _empty:
            return
        r = game.rules
        n = r.num_players
        self.players = [Player(s, [list(g) for g in game.supply], r.powers) for s in range(n)]
        self.prizms = [Prizm(x, y) for x, y in game.start_prizms]
        self.round = 0
        self.marker = 0  # the first seat clockwise from the Tie-Breaker Marker
        self.order: list[int] = []
        self.turn_id = 0
        self.tasks: list[tuple[Any, ...]] = [("round_start",), ("engines", 0)]
        if r.odd_table.toss_start_prizms:  # each player tosses a starting Prizm (chance)
            self.prizms = []
            self.tasks += [("toss",)] * n
        self.decision: dict[str, Any] | None = None
        self.chance: dict[str, Any] | None = None
        self.turn: dict[str, Any] | None = None
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
        c.decision = None if self.decision is None else dict(self.decision)
        c.chance = None if self.chance is None else dict(self.chance)
        c.turn = None if self.turn is None else {**self.turn, "scored": list(self.turn["scored"])}
        c.status, c.winner = self.status, self.winner
        c._reset_caches()
        c._touch = dict(self._touch)  # (frozensets: shared)
        return c

    # ------------------------------------------------------------------ protocol: queries
    def score(self, seat: int) -> int:
        """Prizms of ``seat``'s colour on the table."""
        return sum(1 for p in self.prizms if p.owner == seat)

    def elements(self) -> list[Element]:
        """Every piece and Launch Point on the table, by seat then age."""
        return self._table_index()[0]

    def locked(self, j: int) -> bool:
        """Whether Prizm ``j`` is locked (computed from the table, never stored)."""
        return self._locked_by(self.prizms[j], self._touching_colours(j))

    @staticmethod
    def _locked_by(prizm: Prizm, colours: AbstractSet[int]) -> bool:
        """The lock rule: two or more colours touch it, or it lies on its own colour."""
        return len(colours) >= 2 or prizm.owner in colours

    # ------------------------------------------------------------------ chance
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The pending discrete chance event's outcomes with exact probabilities."""
        ch = self.chance
        if ch is None:
            raise InvalidStateError("chance_outcomes called when no chance event is pending")
        if ch["kind"] == ChanceKind.DIE._value_:
            return list(_die_outcomes(self.game.rules.die_faces))
        if ch["kind"] == ChanceKind.DEAL_GEARS._value_:
            k = len(self.game.gear_deals)
            return [(i, 1.0 / k) for i in range(k)]
        raise InvalidStateError(
            f"the pending chance event ({ch['kind']}) is continuous: draw it with sample_chance"
        )

    def sample_chance(self, rng: np.random.Generator) -> Any:
        """One outcome of the pending chance event, drawn with ``rng`` (not applied)."""
        check_rng(rng)
        ch = self.chance
        if ch is None:
            raise InvalidStateError("sample_chance called when no chance event is pending")
        kind = ch["kind"]
        if kind == ChanceKind.LAUNCH_NOISE._value_:
            return float(rng.normal(0.0, self.game.rules.launch_noise_sigma))
        if kind == ChanceKind.TOSS._value_:
            x, y = self.game.table.random_point(rng, self.game.rules.prizm_radius)
            return [float(x), float(y)]
        return sample_discrete(self.chance_outcomes(), rng)

    def apply_chance(self, outcome: Any) -> None:
        """Apply a chance outcome (a face, a deal index, an offset, or an (x, y) point)."""
        ch = self.chance
        if ch is None:
            raise IllegalActionError("apply_chance called when no chance event is pending")
        kind = _CHANCE_KINDS[ch["kind"]]
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

    def _legal_key(self, seat: int) -> Any:
        """The key of ``Game.action_lists`` that holds ``seat``'s legal actions now (launch
        and move decisions), or None."""
        kind = cast("dict[str, Any]", self.decision)["kind"]
        if kind in (DecisionKind.ENGINES._value_, DecisionKind.RESPAWN._value_):
            return "launch"
        if kind == DecisionKind.MOVE._value_:
            return (
                "move",
                self.players[seat].gear,
                self._power_ready(seat, Character.GALACTIC_WAVERYDER),
            )
        return None

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

    def _why_illegal(self, seat: int, a: Action) -> str | None:
        """:meth:`illegal_reason` for a deciding seat and an action already converted."""
        kind = cast("dict[str, Any]", self.decision)["kind"]
        if kind in (DecisionKind.ENGINES._value_, DecisionKind.RESPAWN._value_):
            top = self.game.top_gear
            if a.kind is not ActionKind.LAUNCH or not 1 <= a.arg <= top:
                return f"{a} is not a launch; a launch is a gear 1-{top} and a position x"
            if not (isinstance(a.x, float) and -1.0 <= a.x <= 1.0):
                lo, hi = self.game.table.reach(seat, len(self.players))
                return (
                    f"Launch Point position {a.x!r} is outside reach: x must lie in "
                    f"[-1, 1] (the edge from {lo:.2f} to {hi:.2f} inches along the "
                    f"perimeter)"
                )
            return None
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._compute_legal(seat)
        if a in legal:
            return None
        return (
            f"{a} is not legal for seat {seat} at {kind}; legal: {', '.join(str(x) for x in legal)}"
        )

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
        d, self.decision = cast("dict[str, Any]", self.decision), None
        self._legal = {}
        _DECIDE_BY_VALUE[d["kind"]](self, d, acts)
        self._run()

    def _compute_legal(self, seat: int) -> list[Action]:
        g = self.game
        key = self._legal_key(seat)
        if key is not None:  # launches and moves: the same lists for every state of the game
            cached = g.action_lists.get(key)
            if cached is None:
                cached = g.action_lists[key] = tuple(
                    (
                        Action(ActionKind.LAUNCH, gear, x)
                        for gear in range(1, g.top_gear + 1)
                        for x in g.launch_spread
                    )
                    if key == "launch"
                    else self._move_actions(key[1], key[2])
                )
            return list(cached)
        kind = DecisionKind(cast("dict[str, Any]", self.decision)["kind"])
        if kind is DecisionKind.POWER:
            acts = [Action(ActionKind.DECLINE)]
            char = g.rules.characters[seat]
            if char is Character.PHANTOM_COSMONAUT:
                acts.append(Action(ActionKind.PHANTOM))
            elif char is Character.SUPER_SHERIFF:
                acts += [
                    Action.sheriff(o, top)
                    for o in range(len(self.players))
                    if o != seat
                    for top in (False, True)
                ]
            return acts
        yes = ActionKind.BONUS if kind is DecisionKind.BONUS else ActionKind.SHARK
        return [Action(yes), Action(ActionKind.DECLINE)]

    def _move_actions(self, gear_now: int, wave: bool) -> list[Action]:
        """The MOVE actions from ``gear_now`` (the same for every state of the game)."""
        g = self.game
        acts = []
        for shift in (-1, 0, 1):
            gear = gear_now + shift
            if not 1 <= gear <= g.top_gear:
                continue
            moves = [Move.STRAIGHT, Move.SOFT_LEFT, Move.SOFT_RIGHT]
            if g.has_hard[gear]:
                moves += [Move.HARD_LEFT, Move.HARD_RIGHT]
            if wave and gear in g.wave_gears:
                moves += [
                    Move.WAVE_LEFT_LEFT,
                    Move.WAVE_LEFT_RIGHT,
                    Move.WAVE_RIGHT_LEFT,
                    Move.WAVE_RIGHT_RIGHT,
                ]
            acts += [Action.move(shift, m) for m in moves]
        return acts

    def _power_ready(self, seat: int, character: Character) -> bool:
        r = self.game.rules
        return r.powers and r.characters[seat] is character and self.players[seat].power_ready

    # ------------------------------------------------------------------ the machine
    def _run(self) -> None:
        while self.decision is None and self.chance is None and self.status is Outcome.IN_PROGRESS:
            if not self.tasks:
                raise InvalidStateError("the game has no pending work but is not over")
            task = self.tasks.pop()
            _TASKS[task[0]](self, *task[1:])

    def _push(self, *tasks: tuple[Any, ...]) -> None:
        """Queue tasks to run in the order given."""
        self.tasks.extend(reversed(tasks))

    def _end(self, outcome: Outcome, winner: int | None = None) -> None:
        self.status, self.winner = outcome, winner
        if self.events is not None:
            self._event(E.END, winner, outcome=outcome.value, winner=winner)
        self.tasks.clear()
        self.decision = self.chance = self.turn = None
        self._legal = {}

    # ------------------------------------------------------------------ Start Your Engines
    def _t_engines(self, attempt: int) -> None:
        self.decision = {
            "kind": DecisionKind.ENGINES._value_,
            "seats": list(range(len(self.players))),
            "attempt": attempt,
        }

    def _d_engines(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        gears = {s: a.arg for s, a in acts.items()}
        counts = {g: list(gears.values()).count(g) for g in gears.values()}
        stalled = {s for s, g in gears.items() if counts[g] > 1}
        spots = [[s, acts[s].x] for s in sorted(acts)]
        for s in sorted(gears):
            if self.events is not None:
                self._event(
                    E.ENGINES, s, gear=gears[s], stalled=" (stalled)" if s in stalled else ""
                )
        if len(stalled) == len(self.players):
            if self.events is not None:
                self._event(E.REDO, None)
            if d["attempt"] < self.game.rules.max_redos:
                self._push(("engines", d["attempt"] + 1))
            else:
                self.chance = {"kind": ChanceKind.DEAL_GEARS._value_, "spots": spots}
            return
        for s, g in gears.items():
            p = self.players[s]
            p.stalled = s in stalled
            p.gear = 1 if p.stalled else g
        self._set_marker_and_launch(spots)

    def _c_deal_gears(self, ch: dict[str, Any], index: int) -> None:
        for s, g in enumerate(self.game.gear_deals[index]):
            self.players[s].gear, self.players[s].stalled = g, False
        self._set_marker_and_launch(ch["spots"])

    def _set_marker_and_launch(self, spots: list[list[Any]]) -> None:
        top = max(p.gear for p in self.players)
        leader = next(p.seat for p in self.players if p.gear == top and not p.stalled)
        self.marker = (leader + 1) % len(self.players)
        # blind placement in seat order clockwise from seat 0 (the rules' start order)
        self._push(*[("launch", s, x) for s, x in spots])

    def _t_launch(self, seat: int, x: float) -> None:
        if self.game.rules.launch_noise_sigma > 0:
            self.chance = {"kind": ChanceKind.LAUNCH_NOISE._value_, "seat": seat, "x": x}
        else:
            self._place_launch(seat, x, 0.0)

    def _c_launch_noise(self, ch: dict[str, Any], offset: float) -> None:
        self._place_launch(ch["seat"], ch["x"], offset)

    def _place_launch(self, seat: int, x: float, offset: float) -> None:
        """Blind placement: the chosen spot plus noise, clipped to reach, then moved along the
        edge to the nearest position clear of every Launch Point and Lazer."""
        lo, hi = self.game.table.reach(seat, len(self.players))
        t = min(hi, max(lo, lo + (x + 1.0) / 2.0 * (hi - lo) + offset))
        el = self._free_launch(seat, t)
        p = self.players[seat]
        if p.lazer:
            old, p.lazer = p.lazer, []
            self._table_changed(removed=[old])
        p.lazer = [el]
        p.head = el.exit
        self._table_changed(el)
        if self.events is not None:
            self._event(E.LAUNCH, seat, t=el.t)

    def _launch_clear(self, seat: int, t: float) -> Element | None:
        """The Launch Point at ``t`` when that place is allowed and clear, else None."""
        if self.game.rules.odd_table.start_far_sides and not self.game.table.on_far_side(t):
            return None
        el = self.game.launch_element(seat, t, self.turn_id)
        return None if self._touching(el, exclude=None) else el

    def _free_launch(self, seat: int, t: float) -> Element:
        """The Launch Point at the nearest clear place along the edge from ``t``."""
        el = self._launch_clear(seat, t)
        if el is not None:
            return el
        step = self.game.rules.launch_search_step
        half = self.game.table.perimeter / 2.0
        k = 1
        while k * step <= half:
            found: list[Element] = []
            for sign in (1.0, -1.0):
                cand = t + sign * k * step
                clear = self._launch_clear(seat, cand)
                if clear is not None:
                    blocked = cand - sign * step
                    for _ in range(40):  # bisect to the edge of the free stretch
                        mid = (blocked + cand) / 2.0
                        at_mid = self._launch_clear(seat, mid)
                        if at_mid is not None:
                            cand, clear = mid, at_mid
                        else:
                            blocked = mid
                    found.append(clear)
            if found:
                return min(found, key=lambda e: (abs(e.t - t), -e.t))  # ties: clockwise
            k += 1
        # nowhere free on the whole edge: it stays where it landed
        return self.game.launch_element(seat, t, self.turn_id)

    # ------------------------------------------------------------------ rounds
    def _t_round_start(self) -> None:
        r = self.game.rules
        if self.round >= r.round_limit:
            self._end(Outcome.TRUNCATED)
            return
        self.round += 1
        n = len(self.players)
        self.order = sorted(range(n), key=lambda s: (-self.players[s].gear, (s - self.marker) % n))
        if self.events is not None:
            self._event(E.ROUND, None, round=self.round, order=list(self.order))
        self._push(*[("turn", s) for s in self.order], ("round_end",))

    def _t_round_end(self) -> None:
        self.marker = (self.marker + 1) % len(self.players)
        self._push(("round_start",))

    def _t_turn(self, seat: int) -> None:
        self.turn_id += 1
        self.turn = {
            "seat": seat,
            "id": self.turn_id,
            "phantom": False,
            "shark": False,
            "scored": [],
            "tosses": 0,
            "roll": None,
        }
        self._push(
            ("power", seat),
            ("bonus", seat),
            ("move", seat),
            ("shark", seat),
            ("resolve", seat),
            ("turn_end", seat),
        )

    def _t_power(self, seat: int) -> None:
        if self._power_ready(seat, Character.SUPER_SHERIFF) or self._power_ready(
            seat, Character.PHANTOM_COSMONAUT
        ):
            self.decision = {"kind": DecisionKind.POWER._value_, "seat": seat}

    def _d_power(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        a = acts[seat]
        if a.kind is ActionKind.DECLINE:
            return
        self.players[seat].power_ready = False
        if a.kind is ActionKind.PHANTOM:
            cast("dict[str, Any]", self.turn)["phantom"] = True
            if self.events is not None:
                self._event(E.POWER, seat, power="Phantom Cosmonaut")
        else:
            target = self.players[a.arg // 2]
            target.gear = self.game.top_gear if a.arg % 2 else 1
            if self.events is not None:
                self._event(
                    E.POWER, seat, power=f"Super Sheriff: seat {target.seat} to gear {target.gear}"
                )

    def _t_bonus(self, seat: int) -> None:
        p = self.players[seat]
        g = self.game
        lp = p.lazer[0] if len(p.lazer) == 1 and p.lazer[0].is_launch else None
        if lp is None or p.head != lp.exit or p.supply[g.top_gear - 1][STRAIGHT] == 0:
            return
        far = g.rules.odd_table.large_far_sides
        if (g.large_table and not far) or (far and g.table.on_far_side(lp.t)):
            self.decision = {"kind": DecisionKind.BONUS._value_, "seat": seat}

    def _d_bonus(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        if acts[seat].kind is ActionKind.BONUS:
            self._place(seat, STRAIGHT, self.game.top_gear, 0)

    def _t_move(self, seat: int) -> None:
        self.decision = {"kind": DecisionKind.MOVE._value_, "seat": seat}

    def _d_move(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        a = acts[seat]
        p = self.players[seat]
        p.gear += a.shift
        if a.shift:
            if self.events is not None:
                self._event(E.SHIFT, seat, gear=p.gear)
        move = a.move_kind
        if move is Move.STRAIGHT:
            self._place_straight(seat, p.gear)
        elif move.is_wave:
            p.power_ready = False
            for side in move.sides:
                self._place_curve(seat, p.gear, HARD, side, hard_only=True)
        else:
            kind = SOFT if move in (Move.SOFT_LEFT, Move.SOFT_RIGHT) else HARD
            self.chance = {
                "kind": ChanceKind.DIE._value_,
                "seat": seat,
                "curve": int(kind),
                "side": move.sides[0],
            }

    def _c_die(self, ch: dict[str, Any], roll: int) -> None:
        seat = ch["seat"]
        p = self.players[seat]
        cast("dict[str, Any]", self.turn)["roll"] = roll
        if self.events is not None:
            self._event(E.DIE, seat, roll=roll, spin=": Spin Out" if roll == 0 else "")
        if roll == 0 or roll >= p.gear:
            self._place_curve(seat, p.gear, _PIECE_KINDS[ch["curve"]], ch["side"])
            if roll == 0:
                p.gear = 1  # Spin Out
        else:
            self._place_straight(seat, p.gear)

    def _t_shark(self, seat: int) -> None:
        if self.status is Outcome.IN_PROGRESS and self._power_ready(seat, Character.LAZER_SHARK):
            self.decision = {"kind": DecisionKind.SHARK._value_, "seat": seat}

    def _d_shark(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        if acts[seat].kind is not ActionKind.SHARK:
            return
        p = self.players[seat]
        p.power_ready = False
        cast("dict[str, Any]", self.turn)["shark"] = True
        if self.events is not None:
            self._event(E.POWER, seat, power="Lazer Shark")
        gear = self._pick(seat, self.game.top_gear, (STRAIGHT,))  # the longest there is
        self._place(seat, STRAIGHT, gear, 0)

    # ------------------------------------------------------------------ pieces
    def _pick(self, seat: int, gear: int, kinds: tuple[PieceKind, ...]) -> int:
        """The gear of the piece to use, pulling the oldest pieces off the Lazer until one
        is free: ``kinds`` in order within a gear, from ``gear`` down to 1 (the FAQ)."""
        p = self.players[seat]
        while True:
            for g in range(gear, 0, -1):
                for k in kinds:
                    if p.supply[g - 1][k] > 0:
                        return g
            if not p.lazer:
                raise InvalidStateError(f"seat {seat} has no piece of {kinds} at all")
            self._pull_oldest(seat)

    def _pick_kind(
        self, seat: int, gear: int, kinds: tuple[PieceKind, ...]
    ) -> tuple[int, PieceKind]:
        p = self.players[seat]
        g = self._pick(seat, gear, kinds)
        return g, next(k for k in kinds if p.supply[g - 1][k] > 0)

    def _pull_oldest(self, seat: int) -> None:
        p = self.players[seat]
        el = p.lazer.pop(0)
        if self.events is not None:
            self._event(E.PULLED, seat, launch_point=el.is_launch)
        if not el.is_launch:
            p.supply[el.gear - 1][el.kind] += 1
        self._table_changed(removed=[[el]])

    def _place_straight(self, seat: int, gear: int) -> None:
        if self.status is not Outcome.IN_PROGRESS:
            return
        self._place(seat, STRAIGHT, self._pick(seat, gear, (STRAIGHT,)), 0)

    def _place_curve(
        self, seat: int, gear: int, kind: PieceKind, side: int, hard_only: bool = False
    ) -> None:
        if self.status is not Outcome.IN_PROGRESS:
            return
        kinds = (HARD,) if hard_only else (kind, SOFT if kind is HARD else HARD)
        g, k = self._pick_kind(seat, gear, kinds)
        self._place(seat, k, g, side)

    def _place(self, seat: int, kind: PieceKind, gear: int, side: int) -> None:
        """Put a piece from the supply on the head; then check it for scoring."""
        if self.status is not Outcome.IN_PROGRESS:
            return
        p = self.players[seat]
        shape = self.game.shapes[(kind, gear, side)]
        head = cast(Pose, p.head)  # a piece goes on a Lazer that has a head
        el = make_element(seat, kind, gear, side, head, self.turn_id, shape.outline, shape.exit)
        p.supply[gear - 1][kind] -= 1
        p.lazer.append(el)
        p.head = el.exit
        self._table_changed(el)
        if self.events is not None:
            side_name = "" if not side else (" left" if side > 0 else " right")
            if self.events is not None:
                self._event(
                    E.PIECE,
                    seat,
                    gear=gear,
                    piece=kind.name.lower() + side_name,
                    x=head.x,
                    y=head.y,
                    heading=head.h,
                )
        self._score_piece(seat, el)

    # ------------------------------------------------------------------ scoring
    def _disc(self, j: int) -> shapely.Polygon:
        pz = self.prizms[j]
        return polygon(self.game.disc_local + np.array([pz.x, pz.y]))

    def _prizms_near(self, bbox: tuple[float, float, float, float]) -> list[int]:
        """Indices of the Prizms whose disc's bounding box meets ``bbox``."""
        r = self.game.rules.prizm_radius
        x0, y0, x1, y1 = bbox
        return [
            j
            for j, q in enumerate(self.prizms)
            if x0 <= q.x + r and x1 >= q.x - r and y0 <= q.y + r and y1 >= q.y - r
        ]

    def _head_inside(self, seat: int, j: int) -> bool:
        head = self.players[seat].head
        if head is None:
            return False
        tx, ty = head.ahead(self.game.pieces.tip)
        pz = self.prizms[j]
        return math.hypot(tx - pz.x, ty - pz.y) < self.game.rules.prizm_radius

    def _score_piece(self, seat: int, el: Element) -> None:
        """Score every Prizm the Lazer has now crossed completely (this turn's and the
        previous turn's pieces together), ``el`` being the newest piece; then the
        free-floating ones among them slide along ``el`` (``_slide_scored``)."""
        r = self.game.rules
        p = self.players[seat]
        sliding: list[int] = []
        for j in self._prizms_near(el.bbox):
            if self.prizms[j].owner == seat:
                continue
            disc = self._disc(j)
            if not shapely.intersects(disc, el.poly) or self._head_inside(seat, j):
                continue
            recent = [
                e.poly for e in p.lazer if not e.is_launch and e.turn in (self.turn_id, p.prev_turn)
            ]
            if crossing_parts(disc, recent, r.min_part_area, r.joint_tolerance) >= 2:
                if len(self._touching_colours(j)) < 2:  # decided before recolouring
                    sliding.append(j)
                self._take_prizm(seat, j)
                if self.status is not Outcome.IN_PROGRESS:
                    break
        if sliding:
            self._slide_scored(el, sliding)

    def _take_prizm(self, seat: int, j: int) -> None:
        r = self.game.rules
        pz = self.prizms[j]
        self.prizms[j] = Prizm(pz.x, pz.y, seat)
        self._touch.pop(j, None)
        stolen = f" from seat {pz.owner}" if pz.owner >= 0 else ""
        if self.events is not None:
            self._event(E.SCORE, seat, prizm=j, stolen=stolen, owner=pz.owner)
        cast("dict[str, Any]", self.turn)["scored"].append(j)
        if pz.owner < 0:
            cast("dict[str, Any]", self.turn)["tosses"] += 1
        elif r.powers:
            self.players[pz.owner].power_ready = True  # theft recharges the victim's power
        if self.score(seat) >= r.win_prizms:
            self._end(Outcome.WIN, seat)

    def _slide_scored(self, el: Element, js: list[int]) -> None:
        """Slide the free-floating Prizms ``js`` just scored by piece ``el``, the last
        crossed (furthest along the piece) first, each coming to rest before the next
        moves (``_slide_target``): Prizms scored by one piece end up touching in a row."""
        shape = self.game.shapes[(el.kind, el.gear, el.side)]
        start = {j: self._centreline_at(el, shape, self.prizms[j]) for j in js}
        for j in sorted(js, key=lambda k: (-start[k], k)):
            pz = self.prizms[j]
            x, y = self._slide_target(el, shape, j, start[j])
            if (x, y) != (pz.x, pz.y):
                self.prizms[j] = Prizm(x, y, pz.owner)
                self._touch.pop(j, None)
                if self.events is not None:
                    self._event(E.SLIDE, None, prizm=j, x=x, y=y)

    @staticmethod
    def _centreline_at(el: Element, shape: Any, pz: Prizm) -> float:
        """The arc length along ``el``'s centreline nearest the Prizm's centre (where the
        Lazer crossed it), to a step of ``SLIDE_STEPS``."""
        n = SLIDE_STEPS
        best, best_d = math.inf, 0.0
        for k in range(n + 1):
            d = shape.length * k / n
            lx, ly = shape.point_at(d)
            w = el.pose.compose(Pose(lx, ly, 0.0))
            dist = math.hypot(w.x - pz.x, w.y - pz.y)
            if dist < best:
                best, best_d = dist, d
        return best_d

    def _slide_target(self, el: Element, shape: Any, j: int, d0: float) -> tuple[float, float]:
        """Where scored Prizm ``j`` comes to rest on its scoring piece ``el``: it moves along
        the centreline from ``d0`` (where it was crossed) towards ``slide_back`` behind the
        exit, and stops where its disc would first touch another Prizm or leave the table
        (the last free point, found to ``SLIDE_BISECTIONS`` halvings of a step of
        ``SLIDE_STEPS``). If its disc is not free at ``d0`` it rests at the free point of
        the centreline nearest the slide's end; if the piece has none, it stays put."""
        r = self.game.rules
        end = max(0.0, shape.length - r.slide_back)
        step = shape.length / SLIDE_STEPS

        def free_at(d: float) -> tuple[float, float] | None:
            lx, ly = shape.point_at(d)
            w = el.pose.compose(Pose(lx, ly, 0.0))
            if not self.game.table.contains_point(w.x, w.y, r.prizm_radius):
                return None
            apart = 2.0 * r.prizm_radius
            for k, q in enumerate(self.prizms):
                if k != j and math.hypot(w.x - q.x, w.y - q.y) < apart:
                    return None
            return (w.x, w.y)

        here = free_at(d0)
        if here is None:
            points = [k * step for k in range(SLIDE_STEPS + 1)] + [end]
            for d in sorted(points, key=lambda d: (abs(d - end), -d)):
                got = free_at(d)
                if got is not None:
                    return got
            pz = self.prizms[j]
            return (pz.x, pz.y)
        sign = 1.0 if end >= d0 else -1.0
        last, last_xy = d0, here
        count = math.ceil(abs(end - d0) / step)
        for k in range(1, count + 1):
            d = end if k == count else d0 + sign * k * step
            got = free_at(d)
            if got is None:  # blocked between last and d: halve towards the touch
                lo, hi = last, d
                for _ in range(SLIDE_BISECTIONS):
                    mid = (lo + hi) / 2.0
                    got = free_at(mid)
                    if got is None:
                        hi = mid
                    else:
                        lo, last_xy = mid, got
                return last_xy
            last, last_xy = d, got
        return last_xy

    def _colours_near(self, js: list[int]) -> list[frozenset[int]]:
        """For each Prizm in ``js``, the owners of the Lazers touching its disc (known ones
        from ``_touch``, the others found and kept there)."""
        touch = self._touch
        missing = [j for j in js if j not in touch]
        if missing:
            for j, owners in zip(missing, self._find_colours(missing), strict=True):
                touch[j] = frozenset(owners)
        return [touch[j] for j in js]

    def _find_colours(self, js: list[int]) -> list[set[int]]:
        """:meth:`_colours_near` from the table: bounding boxes of all pairs in one numpy
        pass, exact distances of the near pairs in one shapely call."""
        r = self.game.rules
        reach = r.prizm_radius + r.touch_tolerance
        owners: list[set[int]] = [set() for _ in js]
        if not js:
            return owners
        els, polys = self._table_index()
        if not els:
            return owners
        pz = [self.prizms[j] for j in js]
        # x0 <= x + reach, y0 <= y + reach, x1 >= x - reach, y1 >= y - reach, the last two
        # negated (exactly) so that one comparison tests all four
        c = [(q.x + reach, q.y + reach, reach - q.x, reach - q.y) for q in pz]
        if len(js) == 1:  # (one Prizm, the usual case once colours are kept: a plain loop)
            cx0, cy0, cx1, cy1 = c[0]
            ei = np.array(
                [
                    i
                    for i, e in enumerate(els)
                    if e.bbox[0] <= cx0
                    and e.bbox[1] <= cy0
                    and -e.bbox[2] <= cx1
                    and -e.bbox[3] <= cy1
                ],
                dtype=np.intp,
            )
            pk = np.zeros(len(ei), dtype=np.intp)
        else:
            # (the four booleans of a pair read as one 4-byte word: all true is 0x01010101)
            pk, ei = np.nonzero(
                (self._box_array()[None] <= np.array(c)[:, None]).view(np.uint32)[..., 0]
                == 0x01010101
            )
        if len(pk):
            pts = shapely.points([(pz[k].x, pz[k].y) for k in pk.tolist()])
            d = shapely.distance(pts, polys[ei])
            for k, i, di in zip(pk.tolist(), ei.tolist(), d.tolist(), strict=True):
                if di < reach:
                    owners[k].add(els[i].owner)
        return owners

    def _table_changed(
        self, added: Element | None = None, removed: list[list[Element]] | None = None
    ) -> None:
        """The table's pieces changed: by ``added`` alone, or by the groups of pieces
        ``removed`` alone (one of the two is given). An added piece adds its owner to the
        known colours of the Prizms it touches (the same box and distance tests as
        ``_find_colours``, so the same answer as finding them again); a Prizm within reach of
        a removed group's bounding box has its colours found again when next asked."""
        self._index = None
        touch = self._touch
        if not touch:
            return
        r = self.game.rules
        reach = r.prizm_radius + r.touch_tolerance
        if removed is not None:
            reach += 1e-9  # (a box test for sure, whatever the rounding)
            for group in removed:
                if not group:
                    continue
                x0 = min(e.bbox[0] for e in group) - reach
                y0 = min(e.bbox[1] for e in group) - reach
                x1 = max(e.bbox[2] for e in group) + reach
                y1 = max(e.bbox[3] for e in group) + reach
                for j in [
                    j for j in touch if x0 <= (q := self.prizms[j]).x <= x1 and y0 <= q.y <= y1
                ]:
                    del touch[j]
            return
        added = cast(Element, added)  # given when removed is not
        x0, y0, x1, y1 = added.bbox
        near = [
            j
            for j, owners in touch.items()
            if added.owner not in owners
            and x0 <= (q := self.prizms[j]).x + reach
            and y0 <= q.y + reach
            and -x1 <= reach - q.x
            and -y1 <= reach - q.y
        ]
        if near:
            pts = shapely.points([(self.prizms[j].x, self.prizms[j].y) for j in near])
            for j, d in zip(near, shapely.distance(pts, added.poly).tolist(), strict=True):
                if d < reach:
                    touch[j] = touch[j] | {added.owner}

    def _touching_colours(self, j: int) -> frozenset[int]:
        return self._colours_near([j])[0]

    def locks(self) -> list[bool]:
        """:meth:`locked` for every Prizm at once."""
        colours = self._colours_near(list(range(len(self.prizms))))
        if not any(colours):  # no Lazer touches a Prizm (no colour: not locked)
            return [False] * len(colours)
        return [self._locked_by(q, o) for q, o in zip(self.prizms, colours, strict=True)]

    # ------------------------------------------------------------------ the table index
    def _table_index(self) -> tuple[list[Element], np.ndarray]:
        """Every element on the table (by seat, then age) and their polygons as an array."""
        if self._index is None:
            els = [e for p in self.players for e in p.lazer]
            self._index = (els, np.fromiter((e.poly for e in els), dtype=object, count=len(els)))
        return self._index

    def _box_array(self) -> np.ndarray:
        """The table index's bounding boxes as rows (x0, y0, -x1, -y1), built when first
        asked for (the Prizm locks) and kept with the index."""
        index = self._table_index()
        if self._boxes is None or self._boxes[0] is not index:
            els = index[0]
            boxes = np.fromiter(
                itertools.chain.from_iterable(e.bbox for e in els), float, 4 * len(els)
            ).reshape(-1, 4)
            boxes[:, 2:] *= -1.0
            self._boxes = (index, boxes)
        return self._boxes[1]

    def _touching(self, el: Element, exclude: list[Element] | None) -> list[Element]:
        """Elements on the table within the touch tolerance of ``el`` (itself and those in
        ``exclude`` left out), in table order; bounding boxes first (a plain loop over the
        Lazers: most placements have nothing near, and then no table index is needed), then
        exact distances."""
        tol = self.game.rules.touch_tolerance
        x0, y0, x1, y1 = el.bbox
        x0, y0, x1, y1 = x0 - tol, y0 - tol, x1 + tol, y1 + tol
        near = [
            e
            for p in self.players
            for e in p.lazer
            if e.bbox[0] <= x1
            and e.bbox[2] >= x0
            and e.bbox[1] <= y1
            and e.bbox[3] >= y0
            and e is not el
        ]
        if exclude:  # (elements compare by identity)
            near = [e for e in near if e not in exclude]
        if not near:
            return []
        d = shapely.distance(el.poly, [e.poly for e in near])
        return [e for e, di in zip(near, d.tolist(), strict=True) if di < tol]

    # ------------------------------------------------------------------ end of the turn
    def _t_resolve(self, seat: int) -> None:
        """Nudges, then the crash, then respawn and reappearing Prizms."""
        self._nudge_passed_over(seat)
        respawn = [("respawn", seat)] if self._crash_step(seat) else []
        self._push(*respawn, *[("toss",)] * cast("dict[str, Any]", self.turn)["tosses"])

    def _nudge_passed_over(self, seat: int) -> None:
        r = self.game.rules
        p = self.players[seat]
        near: dict[int, list[Element]] = {}  # Prizm -> this turn's pieces near it
        for e in p.lazer:
            if e.turn == self.turn_id and not e.is_launch:
                for j in self._prizms_near(e.bbox):
                    near.setdefault(j, []).append(e)
        passed = []
        for j in sorted(near):
            if j in cast("dict[str, Any]", self.turn)["scored"] or self._head_inside(seat, j):
                continue
            disc = self._disc(j)
            if sum(shapely.intersection(disc, e.poly).area for e in near[j]) >= r.min_part_area:
                passed.append(j)
        # a Nudge moves one Prizm and a lock depends on that Prizm and the Lazers only, so
        # the locks of all passed-over Prizms can be decided together
        for j, colours in zip(passed, self._colours_near(passed), strict=True):
            if not self._locked_by(self.prizms[j], colours):
                self._nudge(j)

    def _nudge(self, j: int) -> None:
        r = self.game.rules
        pz = self.prizms[j]
        others = [(q.x, q.y) for i, q in enumerate(self.prizms) if i != j]
        els, polys = self._table_index()
        target = nudge_point(
            (pz.x, pz.y),
            list(polys),
            others,
            self.game.table,
            r.prizm_radius,
            r.nudge_clearance,
            r.touch_tolerance,
            boxes=[e.bbox for e in els],
            grown=lambda near: self.game.nudge_obstacles_of([els[i] for i in near]),
        )
        if target is not None:
            self.prizms[j] = Prizm(target[0], target[1], pz.owner)
            self._touch.pop(j, None)
            if self.events is not None:
                self._event(E.NUDGE, None, prizm=j, x=float(target[0]), y=float(target[1]))

    def _crash_step(self, seat: int) -> bool:
        """Apply the crash rule to this turn's pieces; True when the mover crashed."""
        t = cast("dict[str, Any]", self.turn)
        if t["phantom"]:
            return False
        p = self.players[seat]
        crashed = t["shark"] and not t["scored"]
        hits: dict[int, int] = {}  # victim seat -> index of its newest hit element
        table, tol = self.game.table, self.game.rules.touch_tolerance
        for idx, el in enumerate(p.lazer):
            if el.turn != self.turn_id or el.is_launch:
                continue
            if not table.holds(el.coords, el.poly, tol, el.bbox):
                crashed = True
            # the elements it nests with: its predecessor and, in a turn of several pieces,
            # its successor (each joint is excused from both sides)
            joints = []
            if idx > 0 and p.lazer[idx - 1].exit == el.pose:
                joints.append(p.lazer[idx - 1])
            if idx + 1 < len(p.lazer) and p.lazer[idx + 1].pose == el.exit:
                joints.append(p.lazer[idx + 1])
            # a joint that can only touch at the joint is excused unmeasured
            skip = [j for j in joints if self._joint_only(el, j)]
            for other in self._touching(el, exclude=skip):
                if self._contact_excused(el, other, joints):
                    continue
                crashed = True
                if other.owner != seat:
                    lazer = self.players[other.owner].lazer
                    k = next(i for i, e in enumerate(lazer) if e is other)
                    hits[other.owner] = max(hits.get(other.owner, -1), k)
        if not crashed:
            return False
        removed = [p.lazer]
        if self.events is not None:
            self._event(E.CRASH, seat, pieces=sum(1 for e in p.lazer if not e.is_launch))
        for victim, k in sorted(hits.items()):
            v = self.players[victim]
            keep = v.lazer[-1:] if k == len(v.lazer) - 1 else v.lazer[k + 1 :]
            removed.append(v.lazer[: len(v.lazer) - len(keep)])
            lost = sum(1 for e in removed[-1] if not e.is_launch)
            if self.events is not None:
                self._event(E.HIT, victim, pieces=lost)
            for e in removed[-1]:
                if not e.is_launch:
                    v.supply[e.gear - 1][e.kind] += 1
            v.lazer = keep
        for e in p.lazer:
            if not e.is_launch:
                p.supply[e.gear - 1][e.kind] += 1
        p.lazer, p.head = [], None
        self._table_changed(removed=removed)
        return True

    def _joint_only(self, el: Element, other: Element) -> bool:
        """True when ``el`` and ``other``, nested, can touch only at their joint, a contact
        that ``_contact_excused`` always excuses: a shape pair of ``geometry.clean_joints``
        and no Prizm disc near both (so the crash step need not measure it)."""
        pred, piece = (other, el) if other.exit == el.pose else (el, other)
        if (
            (pred.kind, pred.gear, pred.side),
            (piece.kind, piece.gear, piece.side),
        ) not in self.game.clean_joints:
            return False
        return not self._prizms_near_both(el, other)

    def _prizms_near_both(self, a: Element, b: Element) -> list[int]:
        """Prizms whose disc's bounding box meets both elements' boxes (in one pass: a box
        meets both when it meets the box of their greater lower and lesser upper bounds)."""
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.bbox, b.bbox
        return self._prizms_near((max(ax0, bx0), max(ay0, by0), min(ax1, bx1), min(ay1, by1)))

    def _contact_excused(self, el: Element, other: Element, joints: list[Element]) -> bool:
        """Contact at the joint where ``el`` and ``other`` nest (``other`` in ``joints``),
        or wholly inside one Prizm disc."""
        r = self.game.rules
        tol = r.touch_tolerance
        joint = None
        if any(other is j for j in joints):
            at = other.exit if other.exit == el.pose else el.exit
            joint = shapely.linestrings(
                joint_line(at, self.game.pieces.width, self.game.pieces.tip)
            )
        discs = [(self.prizms[j].x, self.prizms[j].y) for j in self._prizms_near_both(el, other)]
        if joint is None and not discs:
            return False
        for part in contact_parts(el.poly, other.poly, tol):
            v = shapely.get_coordinates(part)
            if (
                joint is not None
                and float(np.max(shapely.distance(shapely.points(v), joint))) <= r.joint_tolerance
            ):
                continue
            if any(
                float(np.max(np.hypot(v[:, 0] - cx, v[:, 1] - cy))) <= r.prizm_radius + tol
                for cx, cy in discs
            ):
                continue
            return False
        return True

    def _t_respawn(self, seat: int) -> None:
        self.decision = {"kind": DecisionKind.RESPAWN._value_, "seat": seat}

    def _d_respawn(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        a = acts[seat]
        p = self.players[seat]
        p.gear, p.stalled = a.arg, False
        self._push(("launch", seat, a.x))

    def _t_toss(self) -> None:
        self.chance = {"kind": ChanceKind.TOSS._value_}

    def _c_toss(self, ch: dict[str, Any], point: tuple[float, float]) -> None:
        self.prizms.append(Prizm(point[0], point[1]))
        j = len(self.prizms) - 1
        if self.events is not None:
            self._event(E.TOSS, None, prizm=j, x=float(point[0]), y=float(point[1]))
        r = self.game.rules
        reach = 2 * r.prizm_radius + r.touch_tolerance
        crowded = any(math.hypot(q.x - point[0], q.y - point[1]) < reach for q in self.prizms[:-1])
        if crowded or self._touching_colours(j):
            self._nudge(j)  # a fresh Prizm is never locked

    def _t_turn_end(self, seat: int) -> None:
        self.players[seat].prev_turn = self.turn_id
        self.turn = None

    # ------------------------------------------------------------------ views
    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: everything on the table is public in Lazer Ryderz. The
        only secrets are the launch choices of Start Your Engines; the engine receives them
        together, and while the Launch Points are being placed the aimed positions (in the
        pending tasks and chance event) are left out of the observation."""
        from ryderz_env.rules.serialize import public_view

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
            if ch["kind"] == ChanceKind.LAUNCH_NOISE._value_ and ch["seat"] != seat:
                s.chance = {**ch, "x": aim()}
            elif ch["kind"] == ChanceKind.DEAL_GEARS._value_:
                s.chance = {**ch, "spots": [[o, x if o == seat else aim()] for o, x in ch["spots"]]}
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


_TASKS: dict[str, Callable[..., None]] = {
    "engines": State._t_engines,
    "launch": State._t_launch,
    "round_start": State._t_round_start,
    "round_end": State._t_round_end,
    "turn": State._t_turn,
    "power": State._t_power,
    "bonus": State._t_bonus,
    "move": State._t_move,
    "shark": State._t_shark,
    "resolve": State._t_resolve,
    "respawn": State._t_respawn,
    "toss": State._t_toss,
    "turn_end": State._t_turn_end,
}
_DECIDE: dict[DecisionKind, Callable[[State, dict[str, Any], dict[int, Action]], None]] = {
    DecisionKind.ENGINES: State._d_engines,
    DecisionKind.RESPAWN: State._d_respawn,
    DecisionKind.POWER: State._d_power,
    DecisionKind.BONUS: State._d_bonus,
    DecisionKind.MOVE: State._d_move,
    DecisionKind.SHARK: State._d_shark,
}
_CHANCE: dict[ChanceKind, Callable[[State, dict[str, Any], Any], None]] = {
    ChanceKind.DEAL_GEARS: State._c_deal_gears,
    ChanceKind.LAUNCH_NOISE: State._c_launch_noise,
    ChanceKind.DIE: State._c_die,
    ChanceKind.TOSS: State._c_toss,
}
#: the handlers and enum members by the values kept in ``decision`` and ``chance`` dicts
_DECIDE_BY_VALUE = {k._value_: f for k, f in _DECIDE.items()}
_CHANCE_KINDS = {k._value_: k for k in ChanceKind}
_PIECE_KINDS = tuple(sorted(PieceKind))  # by value (0, 1, 2, ...)

__all__ = ["NOOP", "ChanceKind", "DecisionKind", "Outcome", "Player", "Prizm", "State"]
