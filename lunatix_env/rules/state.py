"""The Lunatix Loop game state: every rule of ``shared/rules/lunatix_loop.md``.

The state is a small machine driven by a stack of pending *tasks* (plain tuples, so the
whole state is JSON data). :meth:`State._run` pops tasks until one needs a decision (then
``decision`` is set) or a chance event (then ``chance`` is set). Decisions and chance
outcomes are applied through the public protocol methods, which push further tasks and run
the machine again. Nothing here draws random numbers: chance is sampled by the caller with
an explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from lunatix_env.rules.actions import (
    CARD_ACTIONS,
    CHIP_NAMES,
    ENTER_PIT_ACTIONS,
    RAM_ACTIONS,
    STEP_ACTIONS,
    Action,
    ActionKind,
    Card,
    ShopItem,
)
from lunatix_env.rules.config import GadgetEffect, HazardEffect, Lunacy
from lunatix_env.rules.events import LunatixEvent as E
from tabletop.errors import IllegalActionError, InvalidStateError
from tabletop.gamebase import MachineQueries, joint_action, seat_index
from tabletop.protocol import sample_discrete

if TYPE_CHECKING:
    from lunatix_env.rules.game import Game

SCHEMA_VERSION = 1
FORWARD = 1  # direction index of "front" among (front-left, front, front-right)
# neighbour slot (inner, same, outer) of each direction, by facing (0 race direction, 1 against)
DIR_SLOTS = ((0, 1, 2), (2, 1, 0))
TRACK, PIT = 0, 1  # where hazard cards are being applied


class DecisionKind(enum.Enum):
    """Which decision is being asked."""

    CHIP_MIX = "chip_mix"
    CARD = "card"
    BRAKE = "brake"
    ACCELERATE = "accelerate"
    CHARGE = "charge"
    DROP_KIND = "drop_kind"
    STEP = "step"
    RAM = "ram"
    LUCK = "luck"
    PROTECT = "protect"
    GADGET = "gadget"
    KEEP_GADGET = "keep_gadget"
    DISCARD_GADGET = "discard_gadget"
    SHOP = "shop"
    PIT_EXIT = "pit_exit"
    TURN_AROUND = "turn_around"


SIMULTANEOUS = (DecisionKind.CHIP_MIX, DecisionKind.CARD)


class ChanceKind(enum.Enum):
    """Which chance event is pending."""

    START_DOT = "start_dot"
    DICE = "dice"
    HAZARD = "hazard"
    TURBO = "turbo"
    GADGET = "gadget"


class Outcome(enum.Enum):
    """Why the game ended (or that it has not)."""

    IN_PROGRESS = "in_progress"
    WIN = "win"
    ALL_OUT = "all_out"
    TRUNCATED = "truncated"


class RamKind(enum.Enum):
    """The kinds of ram."""

    SIDESWIPE = "sideswipe"
    REAR_END = "rear_end"
    HEAD_ON = "head_on"
    INVOLUNTARY = "involuntary"


class Car:
    """One car and its player's holdings (mutable; copied by ``State.clone``)."""

    __slots__ = (
        "seat",
        "square",
        "facing",
        "speed",
        "max_speed",
        "luck",
        "chips",
        "gadgets",
        "spent",
        "lunacies",
        "in_pit",
        "pit_opening",
        "pit_order",
        "u",
        "best_u",
        "owed",
        "out",
    )

    FIELDS = __slots__

    def __init__(self, seat: int, speed: int, max_speed: int, luck: int) -> None:
        self.seat = seat
        self.square = -1  # -1 before the start dot is dealt; the square otherwise
        self.facing = 0  # 0 counter-clockwise (race direction), 1 clockwise
        self.speed = speed
        self.max_speed = max_speed
        self.luck = luck
        self.chips = [0, 0, 0]
        self.gadgets: list[int] = []
        self.spent: list[int] = []
        self.lunacies: list[int] = []
        self.in_pit = False
        self.pit_opening = -1
        self.pit_order = 0
        self.u = 0.0  # unwrapped progress in the race direction (middle-lane squares)
        self.best_u = 0.0  # high-water mark of u
        self.owed = 0  # extra laps owed after a pit pass completed the last lap
        self.out = False

    def copy(self) -> Car:
        """An independent copy."""
        c = Car.__new__(Car)
        for f in Car.FIELDS:
            v = getattr(self, f)
            setattr(c, f, v.copy() if isinstance(v, list) else v)
        return c

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            f: (list(getattr(self, f)) if f in _LIST_FIELDS else getattr(self, f))
            for f in Car.FIELDS
        }


_LIST_FIELDS = ("chips", "gadgets", "spent", "lunacies")


def laps_done(best_u: float, length: float) -> int:
    """Completed laps for a high-water mark ``best_u`` on a lap of ``length``."""
    return max(0, math.floor(best_u / length + 1e-9))


class State(MachineQueries):
    """A Lunatix Loop game in progress. Build it with ``Game.new_initial_state``."""

    game: Game
    decision_kinds = DecisionKind
    chance_kinds = ChanceKind
    in_progress = Outcome.IN_PROGRESS

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        r = game.rules
        n = r.num_players
        self.seed = seed
        self.cars = [Car(i, r.start_speed, r.max_speed, r.luck_chips) for i in range(n)]
        self.round = 0
        self.cards: list[int | None] = [None] * n
        self.order: list[int] = []
        self.hazard_deck = [c.count for c in game.decks.hazard]
        self.hazard_discard = [0] * len(game.decks.hazard)
        self.turbo_deck = [c.count for c in game.decks.turbo]
        self.turbo_discard = [0] * len(game.decks.turbo)
        self.gadget_top = list(range(len(game.decks.gadgets)))
        self.gadget_bottom: list[list[int]] = []  # [gadget, seat that put it there]
        self.offer: list[int] = []
        self.supply = list(r.chip_supply)
        self.track_chips: dict[int, int] = {}
        self.pit_counter = 0
        self.batches: list[list[int]] = []
        self.tasks: list[tuple[Any, ...]] = [("round_start",), ("chip_mix",)]
        self.tasks += [("deal_dot", s) for s in reversed(range(n))]
        self.decision: dict[str, Any] | None = None
        self.chance: dict[str, Any] | None = None
        self.turn: dict[str, Any] | None = None
        self.status = Outcome.IN_PROGRESS
        self.winner: int | None = None
        self._legal: dict[int, list[Action]] = {}
        self._chance_cache: list[tuple[int, float]] | None = None
        self._run()

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

    # ------------------------------------------------------------------ chance
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The pending chance event's outcomes with their exact probabilities."""
        cached = self._chance_cache
        if cached is None:
            cached = self._chance_cache = self._compute_chance_outcomes()
        return list(cached)

    def _compute_chance_outcomes(self) -> list[tuple[int, float]]:
        ch = self.chance
        if ch is None:
            raise InvalidStateError("chance_outcomes called when no chance event is pending")
        kind = ChanceKind(ch["kind"])
        if kind is ChanceKind.START_DOT:
            free = self._free_dots()
            return [(i, 1.0 / len(free)) for i in free]
        if kind is ChanceKind.DICE:
            return list(self.game.dice_distribution(ch["n"]))
        if kind is ChanceKind.HAZARD:
            return _counts_distribution(self.hazard_deck)
        if kind is ChanceKind.TURBO:
            return _counts_distribution(self.turbo_deck)
        top = sorted(self.gadget_top)
        return [(g, 1.0 / len(top)) for g in top]

    def sample_chance(self, rng: np.random.Generator) -> int:
        """One outcome of the pending chance event, drawn with ``rng`` (not applied)."""
        if self._chance_cache is None:
            self._chance_cache = self._compute_chance_outcomes()
        return sample_discrete(self._chance_cache, rng)

    def apply_chance(self, outcome: int) -> None:
        """Apply a chance outcome (one of ``chance_outcomes()``)."""
        if self.chance is None:
            raise IllegalActionError("apply_chance called when no chance event is pending")
        valid = [o for o, p in self._compute_chance_outcomes() if p > 0]
        if type(outcome) is not int and (
            isinstance(outcome, bool) or not isinstance(outcome, int | np.integer)
        ):
            raise IllegalActionError(
                f"chance outcome {outcome!r} is not possible for {self.chance['kind']}: "
                f"outcomes are ints (numpy ints accepted), not {type(outcome).__name__}; "
                f"possible: {valid}"
            )
        if outcome not in valid:
            raise IllegalActionError(
                f"chance outcome {outcome!r} is not possible for {self.chance['kind']}; "
                f"possible: {valid}"
            )
        ch, self.chance = self.chance, None
        self._legal = {}
        self._chance_cache = None
        _CHANCE[ch["kind"]](self, ch, int(outcome))
        self._run()

    def _free_dots(self) -> list[int]:
        used = {c.square for c in self.cars}
        return [i for i, sq in enumerate(self.game.track.start_dots) if sq not in used]

    # ------------------------------------------------------------------ decisions
    def legal_actions(self, seat: int) -> list[Action]:
        """Legal actions of ``seat`` now (empty if it is not deciding; a
        :class:`~tabletop.errors.SeatError` if it is no seat of this game)."""
        deciding = self._deciding(seat)
        if deciding is None:
            return []
        cached = self._legal.get(deciding)
        if cached is None:
            cached = self._compute_legal(deciding)
            self._legal[deciding] = cached
        return list(cached)

    def is_legal(self, seat: int, action: Action) -> bool:
        """Whether ``action`` is legal for ``seat`` now (False for anything that is no
        ``Action`` of this game)."""
        legal = self.legal_actions(seat)
        if not isinstance(action, Action):
            return False
        try:
            return action in self.game.codec.index and action in legal
        except TypeError:  # an Action holding something unhashable (a list, an array)
            return False

    def legal_action_ints(self, seat: int) -> list[int]:
        """Legal actions of ``seat`` as codec ints."""
        enc = self.game.codec.encode
        return [enc(a) for a in self.legal_actions(seat)]

    def apply_action(self, action: Action | int) -> None:
        """Apply the only decider's action."""
        players = self.current_players()
        if not players:
            raise IllegalActionError(self._no_decision_message())
        if len(players) != 1:
            raise IllegalActionError(
                f"apply_action needs exactly one decider; deciders now: {list(players)} "
                "(a simultaneous node: use apply_actions)"
            )
        self.apply_actions({players[0]: action})

    def apply_actions(self, actions: Mapping[int, Action | int]) -> None:
        """Apply one action per decider (all deciders at a simultaneous node)."""
        d = self.decision
        if d is not None and type(actions) is dict and len(actions) == 1 and "seat" in d:
            # fast path: one sequential decider with a legal Action under an int seat
            seat = d["seat"]
            a = actions.get(seat)
            legal = self._legal.get(seat)
            try:
                fast = (
                    type(a) is Action
                    and legal is not None
                    and a in legal
                    and type(next(iter(actions))) is int
                )
            except ValueError:  # an Action holding an array: no truth value (the slow path says)
                fast = False
            if fast:
                self.decision = None
                self._legal = {}
                _DECIDE[d["kind"]](self, d, {seat: a})
                self._run()
                return
        players = self.current_players()
        if not players:
            raise IllegalActionError(self._no_decision_message())
        as_action = self.game.as_action
        joint = joint_action(actions, self.game.rules.num_players)
        try:
            acts = {s: (a if type(a) is Action else as_action(a)) for s, a in joint.items()}
        except IllegalActionError as exc:
            legal_now = "; ".join(
                f"seat {p}: " + ", ".join(str(x) for x in self.legal_actions(p)) for p in players
            )
            raise IllegalActionError(f"{exc}; legal now: {legal_now}") from None
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(f"actions must map seat ints to actions: {exc}") from None
        if (
            len(acts) != len(players)
            or (len(players) > 1 and sorted(acts) != sorted(players))
            or players[0] not in acts
        ):
            raise IllegalActionError(
                f"actions given for seats {sorted(acts)}, but the deciders are {list(players)}"
            )
        for seat, a in acts.items():
            legal = self._legal.get(seat)
            if legal is None:
                legal = self._legal[seat] = self._compute_legal(seat)
            try:
                known = a in legal
            except ValueError:  # an Action holding an array: its comparison has no truth value
                known = False
            if not known:
                raise IllegalActionError(
                    f"{a} is not legal for seat {seat} at "
                    f"{cast('dict[str, Any]', self.decision)['kind']}; "
                    f"legal: {', '.join(str(x) for x in legal)}"
                )
        d, self.decision = cast("dict[str, Any]", self.decision), None
        self._legal = {}
        _DECIDE[d["kind"]](self, d, acts)
        self._run()

    # ------------------------------------------------------------------ the machine
    def _run(self) -> None:
        tasks = self.tasks
        running = Outcome.IN_PROGRESS
        while self.decision is None and self.chance is None and self.status is running:
            if not tasks:
                raise InvalidStateError("the game has no pending work but is not over")
            task = tasks.pop()
            _TASKS[task[0]](self, *task[1:])

    def _push(self, *task: Any) -> None:
        self.tasks.append(task)

    def _ask(self, kind: DecisionKind, seat: int, **ctx: Any) -> None:
        self.decision = {"kind": kind._value_, "seat": seat, **ctx}

    def _end(self, outcome: Outcome, winner: int | None = None) -> None:
        t = self.turn
        if t is not None and t["ignore_max"]:  # the end-of-turn clamp of a turbo turn
            car = self.cars[t["seat"]]
            car.speed = min(car.speed, car.max_speed)
        self.status = outcome
        self.winner = winner
        if self.events is not None:
            self._event(E.END, winner, outcome=outcome.value, winner=winner)
        self.tasks.clear()
        self.decision = None
        self.chance = None
        self.turn = None

    # ------------------------------------------------------------------ setup
    def _t_deal_dot(self, seat: int) -> None:
        self.chance = {"kind": ChanceKind.START_DOT._value_, "seat": seat}

    def _c_start_dot(self, ch: dict[str, Any], dot: int) -> None:
        car = self.cars[ch["seat"]]
        sq = self.game.track.start_dots[dot]
        car.square = sq
        car.u = car.best_u = self.game.track.wrap(self.game.track.s[sq])
        if self.events is not None:
            self._event(E.START_DOT, car.seat, square=sq)

    def _t_chip_mix(self) -> None:
        self.decision = {"kind": "chip_mix", "seats": list(range(len(self.cars)))}

    def _d_chip_mix(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        for seat in sorted(acts):
            mix = self.game.codec.chip_mixes[acts[seat].arg]
            for k in range(3):
                self.cars[seat].chips[k] += mix[k]
                self.supply[k] -= mix[k]
            if self.events is not None:
                self._event(E.CHIPS, seat, tacks=mix[0], oil=mix[1], glue=mix[2])

    # ------------------------------------------------------------------ rounds
    def _live_seats(self) -> list[int]:
        return [c.seat for c in self.cars if not c.out]

    def _t_round_start(self) -> None:
        live = self._live_seats()
        if not live:
            self._end(Outcome.ALL_OUT)
            return
        if self.round >= self.game.rules.round_limit:
            self._end(Outcome.TRUNCATED)
            return
        self.round += 1
        if self.events is not None:
            self._event(E.ROUND, None, round=self.round)
        self.cards = [None] * len(self.cars)
        self.order = []
        self.decision = {"kind": DecisionKind.CARD._value_, "seats": live}

    def _d_card(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        g = self.game
        for seat in sorted(acts):
            a = acts[seat]
            self.cards[seat] = g.codec.encode(a)
            if self.events is not None:
                self._event(E.CARD, seat, card=str(a))
            if a.kind is ActionKind.PLAY_GADGET:
                car = self.cars[seat]
                car.gadgets.remove(a.arg)
                car.spent.append(a.arg)
        self.order = sorted(acts, key=self._order_key)
        if self.events is not None:
            self._event(E.ORDER, None, order=list(self.order))
        self._push("round_end")
        for seat in reversed(self.order):
            self._push("turn", seat)

    def card_number(self, action: Action) -> int:
        """The number printed on a played card (lower acts first)."""
        if action.kind is ActionKind.PLAY_GADGET:
            num = self.game.decks.gadgets[action.arg].card_number
            assert num is not None
            return num
        cn = self.game.rules.card_numbers
        return (cn.ram, cn.brake, cn.drop, cn.accelerate, cn.turn_around)[action.arg]

    def _order_key(self, seat: int) -> tuple[int, int, float, int, int, int]:
        car = self.cars[seat]
        card = self.game.codec.decode(self.cards[seat])  # type: ignore[arg-type]
        lane = 0 if car.in_pit else self.game.track.lane[car.square]
        pit = car.pit_order if car.in_pit else -1
        return (self.card_number(card), -car.speed, -round(car.u, 6), lane, pit, seat)

    def _t_round_end(self) -> None:
        self._push("round_start")

    # ------------------------------------------------------------------ card legality
    def _legal_cards(self, seat: int) -> list[Action]:
        car, g = self.cars[seat], self.game
        luns = self._lunacies(car)
        gadget_cards = []
        for gi in car.gadgets:
            eff = g.decks.gadgets[gi].effect
            if eff is GadgetEffect.ROCKET:
                gadget_cards.append(Action(ActionKind.PLAY_GADGET, gi))
            elif eff is GadgetEffect.CHARGER and self._charge_amounts(car, gi):
                gadget_cards.append(Action(ActionKind.PLAY_GADGET, gi))
            elif (
                eff is GadgetEffect.BATTERING_RAM
                and not car.in_pit
                and Lunacy.CHICKEN not in luns
                and self._ram_reachable(car, car.square, self._steps(car.speed))
            ):
                gadget_cards.append(Action(ActionKind.PLAY_GADGET, gi))
        if car.in_pit:
            return [CARD_ACTIONS[Card.ACCELERATE], *gadget_cards]
        out: list[Action] = []
        ram_ok = Lunacy.CHICKEN not in luns and self._ram_reachable(
            car, car.square, self._steps(car.speed)
        )
        if ram_ok:
            out.append(CARD_ACTIONS[Card.RAM])
        if ram_ok and Lunacy.ROAD_RAGE in luns:
            return out + [a for a in gadget_cards if self._is_battering(a)]
        if car.speed > 0 and Lunacy.LEAD_FOOT not in luns:
            out.append(CARD_ACTIONS[Card.BRAKE])
        if self._can_drop(car) and Lunacy.HOARDER not in luns:
            out.append(CARD_ACTIONS[Card.DROP])
        out.append(CARD_ACTIONS[Card.ACCELERATE])
        if g.rules.turn_around.enabled and self._turn_around_options(car, for_card=True):
            out.append(CARD_ACTIONS[Card.TURN_AROUND])
        return out + gadget_cards

    def _is_battering(self, a: Action) -> bool:
        return (
            a.kind is ActionKind.PLAY_GADGET
            and self.game.decks.gadgets[a.arg].effect is GadgetEffect.BATTERING_RAM
        )

    def _lunacies(self, car: Car) -> set[Lunacy]:
        hz = self.game.decks.hazard
        return {hz[i].lunacy for i in car.lunacies}  # type: ignore[misc]

    def _can_drop(self, car: Car) -> bool:
        """Drop can be carried out: a chip held, at least one square to move, not in the pit."""
        return (
            sum(car.chips) > 0 and not car.in_pit and car.speed >= self.game.rules.speed_per_square
        )

    def _steps(self, speed: int) -> int:
        return speed // self.game.rules.speed_per_square

    # ------------------------------------------------------------------ geometry helpers
    def _occupied(self) -> dict[int, int]:
        return {c.square: c.seat for c in self.cars if not c.in_pit and c.square >= 0}

    def _ahead(self, square: int, facing: int) -> tuple[int | None, int | None, int | None]:
        """(front-left, front, front-right) squares of a car on ``square``."""
        nb = self.game.track.neighbours[facing][square]
        sl = DIR_SLOTS[facing]
        return (nb[sl[0]], nb[sl[1]], nb[sl[2]])

    def _ram_targets(self, car: Car, square: int, occ: dict[int, int]) -> list[tuple[int, int]]:
        """(direction, target seat) of the eligible ram targets from ``square``."""
        out = []
        for d, sq in self.game.ahead[car.facing][square]:
            other = occ.get(sq)
            if other is not None and other != car.seat and not self.cars[other].out:
                out.append((d, other))
        return out

    def _moves_from(self, car: Car, square: int, occ: dict[int, int]) -> list[tuple[int, int]]:
        """(direction, square) of the free squares ahead, with Tunnel Vision applied."""
        free = [(d, sq) for d, sq in self.game.ahead[car.facing][square] if sq not in occ]
        return self._tunnel_vision(car, free, occ) if car.lunacies else free

    def _tunnel_vision(
        self, car: Car, moves: Sequence[tuple[int, int]], occ: dict[int, int]
    ) -> list[tuple[int, int]]:
        """Tunnel Vision: lane changes only when the square straight ahead is blocked."""
        if car.lunacies and Lunacy.TUNNEL_VISION in self._lunacies(car):
            straight = [(d, sq) for d, sq in moves if d == FORWARD and sq not in occ]
            if straight:
                return straight
        return list(moves)

    def _ram_reachable(self, car: Car, square: int, steps: int) -> bool:
        """Whether some square within ``steps`` free steps of ``square`` has a ram target."""
        tr = self.game.track
        reach = (steps + 1) * self.game.max_step_ds + 1e-6
        sign = 1.0 if car.facing == 0 else -1.0
        s0 = tr.s[square]
        if not any(
            0.0 < sign * tr.wrap(tr.s[c.square] - s0) <= reach
            for c in self.cars
            if c is not car and not c.out and not c.in_pit and c.square >= 0
        ):
            return False  # no live car close enough ahead: skip the search
        occ = self._occupied()
        occ.pop(car.square, None)
        frontier = {square}
        seen = set(frontier)
        for depth in range(steps + 1):
            for sq in frontier:
                if self._ram_targets(car, sq, occ):
                    return True
            if depth == steps:
                break
            nxt = set()
            for sq in frontier:
                for _, t in self._moves_from(car, sq, occ):
                    if t not in seen:
                        seen.add(t)
                        nxt.add(t)
            frontier = nxt
            if not frontier:
                break
        return False

    def _can_land(
        self,
        car: Car,
        square: int,
        remaining: int,
        occ: dict[int, int],
        memo: dict[tuple[int, int], bool],
    ) -> bool:
        """Rocket Booster: from ``square`` with ``remaining`` steps, can the car end free?"""
        key = (square, remaining)
        if key in memo:
            return memo[key]
        if remaining == 0:
            ok = square not in occ
        else:
            ok = self._pit_entry_allowed(car, square) or any(
                self._can_land(car, t, remaining - 1, occ, memo)
                for t in self._ahead(square, car.facing)
                if t is not None
            )
        memo[key] = ok
        return ok

    def _pit_entry_allowed(self, car: Car, square: int) -> bool:
        tr = self.game.track
        oi = tr.opening_at.get(square)
        if oi is None:
            return False
        op = tr.openings[oi]
        if self.game.rules.four_opening_pit:
            return op.side == ("A" if car.facing == 0 else "B")
        return car.facing == 0 and op.name == tr.spec.pit.basic_entry

    def _exit_openings(self, car: Car) -> list[int]:
        """Opening indices the pit car may leave by (free or not)."""
        tr = self.game.track
        if not self.game.rules.four_opening_pit:
            return [tr.opening_index[tr.spec.pit.basic_exit]]
        side = "B" if car.facing == 0 else "A"
        return [i for i, o in enumerate(tr.openings) if o.side == side]

    def _free_exits(self, car: Car) -> list[int]:
        occ = self._occupied()
        tr = self.game.track
        return [i for i in self._exit_openings(car) if tr.openings[i].square not in occ]

    def _turn_around_options(self, car: Car, for_card: bool = False) -> list[int]:
        """0 U-turn and/or 1 bootlegger, where possible now (card legality: conditions only)."""
        tr, ta = self.game.track, self.game.rules.turn_around
        if car.in_pit:
            return []
        occ = self._occupied()
        out = []
        lane = tr.lane[car.square]
        edge = tr.num_lanes - 1
        if lane in (0, edge):
            other = edge - lane
            path = [tr.parallel(car.square, ln) for ln in _between(lane, other)]
            if for_card or all(sq not in occ for sq in path):
                out.append(0)
        if car.speed >= ta.bootleg_min_speed:
            front = self._ahead(car.square, car.facing)[FORWARD]
            if for_card or (front is not None and front not in occ):
                out.append(1)
        return out

    def _charge_amounts(self, car: Car, gadget: int) -> list[int]:
        return [
            a for a in self.game.decks.gadgets[gadget].amounts if car.speed + a <= car.max_speed
        ]

    def _luck_available(self, car: Car) -> bool:
        return car.luck > 0 or self._holds(car, GadgetEffect.FUZZY_DICE) is not None

    def _holds(self, car: Car, effect: GadgetEffect) -> int | None:
        gi = self.game.gadget_index.get(effect)
        return gi if gi is not None and gi in car.gadgets else None

    def _spend(self, car: Car, gadget: int) -> None:
        car.gadgets.remove(gadget)
        car.spent.append(gadget)
        if self.events is not None:
            self._event(E.GADGET, car.seat, gadget=self.game.decks.gadgets[gadget].name)

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self, seat: int) -> list[Action]:
        d = self.decision
        assert d is not None
        kind = _DECISION_KINDS[d["kind"]]
        car = self.cars[seat]
        r = self.game.rules
        A = Action
        if kind is DecisionKind.CHIP_MIX:
            cap = min(r.chips_per_player, min(r.chip_supply) // len(self.cars))
            return [
                A(ActionKind.CHIP_MIX, i)
                for i, m in enumerate(self.game.codec.chip_mixes)
                if max(m) <= cap
            ]
        if kind is DecisionKind.CARD:
            return self._legal_cards(seat)
        if kind is DecisionKind.BRAKE:
            return [A(ActionKind.BRAKE, a) for a in r.brake_amounts if a <= car.speed]
        if kind is DecisionKind.ACCELERATE:
            if Lunacy.SPEED_FREAK in self._lunacies(car):
                return [A(ActionKind.TURBO)]
            return [
                A(ActionKind.ACCELERATE, a)
                for a in r.accelerate_amounts
                if car.speed + a <= car.max_speed and (a > 0 or not car.in_pit)
            ] + [A(ActionKind.TURBO)]
        if kind is DecisionKind.CHARGE:
            return [A(ActionKind.CHARGE, a) for a in self._charge_amounts(car, d["gadget"])]
        if kind is DecisionKind.DROP_KIND:
            return [A(ActionKind.DROP_KIND, k) for k in range(3) if car.chips[k] > 0]
        if kind is DecisionKind.STEP:
            return self._step_actions(car)
        if kind is DecisionKind.RAM:
            occ = self._occupied()
            return [RAM_ACTIONS[dd] for dd, _ in self._ram_targets(car, car.square, occ)]
        if kind is DecisionKind.LUCK:
            out = [A(ActionKind.LUCK, 0)]
            if car.luck > 0:
                out.append(A(ActionKind.LUCK, 1))
            fz = self._holds(car, GadgetEffect.FUZZY_DICE)
            if fz is not None:
                out.append(A(ActionKind.USE_GADGET, fz))
            return out
        if kind is DecisionKind.PROTECT:
            out = [A(ActionKind.DECLINE)]
            for eff in (GadgetEffect.ARMOR, GadgetEffect.ROLL_CAGE):
                gi = self._holds(car, eff)
                if gi is not None:
                    out.append(A(ActionKind.USE_GADGET, gi))
            return out
        if kind is DecisionKind.GADGET:
            return [A(ActionKind.DECLINE), A(ActionKind.USE_GADGET, d["gadget"])]
        if kind is DecisionKind.KEEP_GADGET:
            return [A(ActionKind.KEEP_GADGET, gi) for gi in sorted(self.offer)]
        if kind is DecisionKind.DISCARD_GADGET:
            return [A(ActionKind.DISCARD_GADGET, gi) for gi in sorted(car.gadgets)]
        if kind is DecisionKind.SHOP:
            return self._shop_actions(car, d["points"])
        if kind is DecisionKind.PIT_EXIT:
            return [A(ActionKind.EXIT_PIT, i) for i in self._free_exits(car)]
        if kind is DecisionKind.TURN_AROUND:
            return [A(ActionKind.TURN_AROUND, i) for i in self._turn_around_options(car)]
        raise InvalidStateError(f"unknown decision kind {kind}")

    def _step_actions(self, car: Car) -> list[Action]:
        """Steps (with drop variants), pit entry and rams available to the mover now."""
        t = self.turn
        assert t is not None
        occ = self._occupied()
        remaining = self._remaining(car)
        if t["rocket"]:
            memo: dict[tuple[int, int], bool] = {}
            occ_others = {sq: s for sq, s in occ.items() if s != car.seat}
            moves = [
                (dd, sq)
                for dd, sq in self._tunnel_vision(
                    car, self.game.ahead[car.facing][car.square], occ_others
                )
                if self._can_land(car, sq, remaining - 1, occ_others, memo)
            ]
        else:
            moves = self._moves_from(car, car.square, occ)
        pit = car.square in self.game.track.opening_at and self._pit_entry_allowed(car, car.square)
        rams: list[tuple[int, int]] = []
        if t["ram"] == 1:
            rams = self._ram_targets(car, car.square, occ)
            # stay on course for the obligatory ram while that is still possible
            keep = [(dd, sq) for dd, sq in moves if self._ram_reachable(car, sq, remaining - 1)]
            if keep or rams:
                moves, pit = keep, False
        out: list[Action] = []
        drop_ok, must_drop = (
            self._drop_status(car, remaining) if t["drop_kind"] >= 0 else (False, False)
        )
        for dd, _sq in moves:
            if not must_drop:
                out.append(STEP_ACTIONS[dd * 2])
            if drop_ok:
                out.append(STEP_ACTIONS[dd * 2 + 1])
        if pit:
            if not must_drop:
                out.append(ENTER_PIT_ACTIONS[0])
            if drop_ok:
                out.append(ENTER_PIT_ACTIONS[1])
        if rams:
            out += [RAM_ACTIONS[dd] for dd, _ in rams]
        if not out:
            # blocked on every side: rear-end ram one of the blockers (involuntary ram)
            out = [
                RAM_ACTIONS[dd] for dd, sq in self.game.ahead[car.facing][car.square] if sq in occ
            ]
        return out

    def _drop_status(self, car: Car, remaining: int) -> tuple[bool, bool]:
        """(may drop into the square being left, must drop now)."""
        t = self.turn
        assert t is not None
        k = t["drop_kind"]
        if (
            k < 0
            or t["drops"] >= self.game.rules.max_drops
            or car.chips[k] <= 0
            or car.square in self.track_chips
        ):
            return False, False
        return True, t["drops"] == 0 and remaining <= 1

    def _shop_actions(self, car: Car, points: int) -> list[Action]:
        p, r = self.game.rules.pit, self.game.rules
        out = []
        if points >= p.repair_cost and car.max_speed + p.repair_amount <= r.max_speed:
            out.append(Action(ActionKind.SHOP, ShopItem.REPAIR))
        if points >= p.gadget_cost and (self.gadget_top or self.gadget_bottom):
            out.append(Action(ActionKind.SHOP, ShopItem.GADGET))
        if points >= p.chip_cost and sum(car.chips) < p.chip_cap:
            for k, item in enumerate((ShopItem.TACKS, ShopItem.OIL, ShopItem.GLUE)):
                if self.supply[k] > 0:
                    out.append(Action(ActionKind.SHOP, item))
        if points >= p.counseling_cost:
            out += [Action(ActionKind.COUNSEL, i) for i in sorted(car.lunacies)]
        out.append(Action(ActionKind.SHOP, ShopItem.DONE))
        return out

    # ------------------------------------------------------------------ a car's turn
    def _t_turn(self, seat: int) -> None:
        car = self.cars[seat]
        if car.out:
            return
        card = self.game.codec.decode(self.cards[seat])  # type: ignore[arg-type]
        self.turn = {
            "seat": seat,
            "steps": 0,
            "over": False,
            "ram": 0,
            "battering": False,
            "drop_kind": -1,
            "drops": 0,
            "ignore_max": False,
            "rocket": False,
        }
        self._push("end_turn", seat)
        self._push("move")
        if car.in_pit:
            self._start_pit_turn(car, card)
            return
        steps = self._steps(car.speed)
        if card.kind is ActionKind.CARD:
            c = Card(card.arg)
            if c is Card.RAM and self._ram_reachable(car, car.square, steps):
                self.turn["ram"] = 1
            elif c is Card.BRAKE and car.speed > 0:
                self._ask(DecisionKind.BRAKE, seat)
            elif c is Card.DROP and self._can_drop(car):
                self._ask(DecisionKind.DROP_KIND, seat)
            elif c is Card.ACCELERATE:
                self._ask(DecisionKind.ACCELERATE, seat)
            elif c is Card.TURN_AROUND and self._turn_around_options(car):
                self._ask(DecisionKind.TURN_AROUND, seat)
            return
        eff = self.game.decks.gadgets[card.arg].effect
        if eff is GadgetEffect.BATTERING_RAM and self._ram_reachable(car, car.square, steps):
            self.turn["ram"] = 1
            self.turn["battering"] = True
        elif eff is GadgetEffect.CHARGER and self._charge_amounts(car, card.arg):
            self._ask(DecisionKind.CHARGE, seat, gadget=card.arg)
        elif eff is GadgetEffect.ROCKET:
            self._rocket(car, card.arg)

    def _start_pit_turn(self, car: Car, card: Action) -> None:
        if not self._free_exits(car):
            # exits blocked: the turn is wasted (self.turn is set: called from _t_turn)
            cast("dict[str, Any]", self.turn)["over"] = True
            return
        self._push("pit_exit", car.seat)
        if card.kind is ActionKind.CARD:
            self._ask(DecisionKind.ACCELERATE, car.seat)
            return
        eff = self.game.decks.gadgets[card.arg].effect
        if eff is GadgetEffect.CHARGER and self._charge_amounts(car, card.arg):
            self._ask(DecisionKind.CHARGE, car.seat, gadget=card.arg)
        elif eff is GadgetEffect.ROCKET:
            self._rocket(car, card.arg)

    def _rocket(self, car: Car, gadget: int) -> None:
        amount = self.game.decks.gadgets[gadget].amount
        before = car.speed
        car.speed = min(self.game.rules.turbo_speed_cap, car.speed + amount)
        if self.events is not None:
            self._event(E.SPEED, car.seat, before=before, after=car.speed, why="rocket")
        assert self.turn is not None
        self.turn["ignore_max"] = True
        self.turn["rocket"] = True
        self._push("curve_accel", car.seat, amount)

    def _d_brake(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        car = self.cars[d["seat"]]
        before = car.speed
        car.speed -= acts[d["seat"]].arg
        if self.events is not None:
            self._event(E.SPEED, car.seat, before=before, after=car.speed, why="brake")

    def _d_accelerate(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        a = acts[seat]
        if a.kind is ActionKind.TURBO:
            self._push("turbo", seat)
            return
        before = self.cars[seat].speed
        self.cars[seat].speed += a.arg
        if self.events is not None:
            self._event(E.SPEED, seat, before=before, after=before + a.arg, why="accelerate")
        self._push("curve_accel", seat, a.arg)

    def _d_charge(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        self._d_accelerate(d, acts)

    def _d_drop_kind(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        assert self.turn is not None
        self.turn["drop_kind"] = acts[d["seat"]].arg

    def _d_turn_around(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        car = self.cars[seat]
        tr, ta = self.game.track, self.game.rules.turn_around
        assert self.turn is not None
        self.turn["over"] = True
        if acts[seat].arg == 0:
            lane = tr.lane[car.square]
            other = tr.num_lanes - 1 - lane
            path = [tr.parallel(car.square, ln) for ln in _between(lane, other)]
            curve_speed, new_speed = ta.uturn_curve_speed, ta.uturn_speed
        else:
            path = [self._ahead(car.square, car.facing)[FORWARD]]  # type: ignore[list-item]
            curve_speed, new_speed = ta.bootleg_curve_speed, ta.bootleg_speed
        self._place(car, path[-1])
        if self.is_terminal():
            return
        car.facing ^= 1
        self._push("set_speed", seat, new_speed)
        for sq in reversed(path):  # chips met on the way apply in the final square
            self._push("chip", seat, sq)
        self._push("hazards", seat, self._cards_over(car.speed, curve_speed), TRACK)

    def _cards_over(self, speed: int, safe: int) -> int:
        per = self.game.rules.mph_per_hazard_card
        return max(0, -(-(speed - safe) // per))

    def _t_set_speed(self, seat: int, speed: int) -> None:
        car = self.cars[seat]
        if not car.out:
            before = car.speed
            car.speed = min(speed, car.max_speed)
            if car.speed != before:
                if self.events is not None:
                    self._event(E.SPEED, seat, before=before, after=car.speed, why="set")

    def _t_curve_accel(self, seat: int, amount: int) -> None:
        car = self.cars[seat]
        if car.out or car.in_pit or amount <= 0:
            return
        rating = self.game.track.rating[car.square]
        if rating is not None and car.speed > rating:
            per = self.game.rules.mph_per_hazard_card
            self._push("hazards", seat, -(-amount // per), TRACK)

    # ------------------------------------------------------------------ movement
    def _remaining(self, car: Car) -> int:
        t = self.turn
        assert t is not None
        rem: int = car.speed // self.game.rules.speed_per_square - t["steps"]
        if t["rocket"] and self.occupant_other(car) is not None:
            rem = max(rem, 1)  # a rocket car never stops on top of another car
        return rem

    def occupant_other(self, car: Car) -> int | None:
        """Another car sharing ``car``'s square (only while a rocket passes over it)."""
        for c in self.cars:
            if c is not car and not c.in_pit and c.square == car.square:
                return c.seat
        return None

    def _t_move(self) -> None:
        t = self.turn
        assert t is not None
        car = self.cars[t["seat"]]
        if car.out or car.in_pit or t["over"]:
            return self._finish_move(car)
        if self._remaining(car) <= 0:
            if t["ram"] == 1 and self._ram_targets(car, car.square, self._occupied()):
                self._push("move")
                self._ask(DecisionKind.RAM, car.seat)
                return
            return self._finish_move(car)
        self._push("move")
        actions = self._step_actions(car)
        if actions:
            self._ask(DecisionKind.STEP, car.seat)
            self._legal[car.seat] = actions
        else:
            self.tasks.pop()
            self._finish_move(car)

    def _finish_move(self, car: Car) -> None:
        t = self.turn
        assert t is not None
        t["over"] = True
        if t["rocket"] and not car.in_pit and not car.out:
            t["rocket"] = False
            self._push("chip", car.seat, car.square)

    def _d_step(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        a = acts[seat]
        car = self.cars[seat]
        t = self.turn
        assert t is not None
        if a.kind is ActionKind.RAM:
            self._ram(car, a.arg)
            return
        old = car.square
        drop = a.arg % 2 == 1 if a.kind is ActionKind.STEP else a.arg == 1
        if drop:
            k = t["drop_kind"]
            self.track_chips[old] = k
            car.chips[k] -= 1
            t["drops"] += 1
            if self.events is not None:
                self._event(E.DROP, seat, chip=CHIP_NAMES[k], square=old)
        t["steps"] += 1
        if a.kind is ActionKind.ENTER_PIT:
            self._enter_pit(car)
            return
        new = self._ahead(old, car.facing)[a.arg // 2]
        assert new is not None
        self._place(car, new)
        if self.is_terminal():
            return
        # entering a square: curve hazards first (at the entry speed), then its chip
        if not t["rocket"] and new in self.track_chips:
            self._push("chip", seat, new)
        tr = self.game.track
        cur = tr.curve[new]
        if cur is not None:
            if tr.curve[old] != cur:
                self._push(
                    "hazards", seat, self._cards_over(car.speed, cast(int, tr.rating[new])), TRACK
                )
            elif tr.lane[new] < tr.lane[old] and car.speed > tr.rating[new]:
                self._push("hazards", seat, self.game.rules.curve_inward_cards, TRACK)

    def _d_ram(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        self._ram(self.cars[d["seat"]], acts[d["seat"]].arg)

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

    def _ram(self, car: Car, direction: int) -> None:
        """Resolve a ram (card, Battering Ram or involuntary) at ``direction``."""
        t = self.turn
        assert t is not None
        rd = self.game.rules.rams
        target_sq = self._ahead(car.square, car.facing)[direction]
        target = self.cars[self.occupant(target_sq)]  # type: ignore[index,arg-type]
        card_ram = t["ram"] == 1 and not target.out
        if card_ram:
            t["ram"] = 2
            if direction != FORWARD:
                kind = RamKind.SIDESWIPE
            elif target.facing == car.facing:
                kind = RamKind.REAR_END
            else:
                kind = RamKind.HEAD_ON
            mine, theirs = getattr(rd, kind.value)
            if t["battering"]:
                mine, theirs = 0, theirs + rd.battering_ram_extra
        else:
            kind = RamKind.INVOLUNTARY
            mine, theirs = rd.involuntary
            if target.out:
                theirs = 0
        if self.events is not None:
            self._event(E.RAM, car.seat, target=target.seat, ram=kind.value)
        if kind is not RamKind.SIDESWIPE:
            t["over"] = True
        if kind is RamKind.HEAD_ON:
            car.speed = 0
            target.speed = 0
        self._push("damage", car.seat, mine)
        self._push("damage", target.seat, theirs)

    # ------------------------------------------------------------------ the pit
    def _enter_pit(self, car: Car) -> None:
        tr = self.game.track
        t = self.turn
        assert t is not None
        opening = tr.opening_at[car.square]
        car.in_pit = True
        car.pit_opening = opening
        if self.events is not None:
            self._event(E.PIT_IN, car.seat, opening=tr.openings[opening].name)
        self.pit_counter += 1
        car.pit_order = self.pit_counter
        t["over"] = True
        self._push("set_speed", car.seat, 0)
        self._push("shop", car.seat, self.game.rules.pit.points)
        safe = tr.openings[opening].safe_speed
        self._push("hazards", car.seat, self._cards_over(car.speed, safe), PIT)

    def _t_shop(self, seat: int, points: int) -> None:
        car = self.cars[seat]
        if car.out or points <= 0:
            return
        self._ask(DecisionKind.SHOP, seat, points=points)

    def _d_shop(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat, points = d["seat"], d["points"]
        car = self.cars[seat]
        a = acts[seat]
        p = self.game.rules.pit
        if self.events is not None:
            self._event(E.SHOP, seat, item=str(a))
        if a.kind is ActionKind.COUNSEL:
            car.lunacies.remove(a.arg)
            self.hazard_discard[a.arg] += 1
            self._push("shop", seat, points - p.counseling_cost)
            return
        item = ShopItem(a.arg)
        if item is ShopItem.DONE:
            return
        if item is ShopItem.REPAIR:
            car.max_speed += p.repair_amount
            self._push("shop", seat, points - p.repair_cost)
        elif item is ShopItem.GADGET:
            self._push("shop", seat, points - p.gadget_cost)
            self._push("gadget_choose", seat)
            for _ in range(p.gadget_offer):
                self._push("gadget_draw", seat)
        else:
            k = (ShopItem.TACKS, ShopItem.OIL, ShopItem.GLUE).index(item)
            car.chips[k] += 1
            self.supply[k] -= 1
            self._push("shop", seat, points - p.chip_cost)

    def _t_gadget_draw(self, seat: int) -> None:
        if self.gadget_top:
            self.chance = {"kind": ChanceKind.GADGET._value_, "seat": seat}
        elif self.gadget_bottom:
            self.offer.append(self.gadget_bottom.pop(0)[0])
            name = self.game.decks.gadgets[self.offer[-1]].name
            if self.events is not None:
                self._event(E.GADGET_DRAWN, seat, to=seat, gadget=name)

    def _c_gadget(self, ch: dict[str, Any], gadget: int) -> None:
        self.gadget_top.remove(gadget)
        self.offer.append(gadget)
        seat = ch["seat"]
        name = self.game.decks.gadgets[gadget].name
        if self.events is not None:
            self._event(E.GADGET_DRAWN, seat, to=seat, gadget=name)

    def _t_gadget_choose(self, seat: int) -> None:
        if len(self.offer) == 1:
            self.cars[seat].gadgets.append(self.offer.pop())
            name = self.game.decks.gadgets[self.cars[seat].gadgets[-1]].name
            if self.events is not None:
                self._event(E.GADGET_KEPT, seat, to=seat, gadget=name)
            self.cars[seat].gadgets.sort()
            self._push("hand_limit", seat)
        elif self.offer:
            self._ask(DecisionKind.KEEP_GADGET, seat)

    def _d_keep_gadget(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        keep = acts[seat].arg
        car = self.cars[seat]
        for g in self.offer:
            if g != keep:
                self.gadget_bottom.append([g, seat])
        self.offer = []
        car.gadgets.append(keep)
        if self.events is not None:
            self._event(E.GADGET_KEPT, seat, to=seat, gadget=self.game.decks.gadgets[keep].name)
        car.gadgets.sort()
        self._push("hand_limit", seat)

    def _t_hand_limit(self, seat: int) -> None:
        if len(self.cars[seat].gadgets) > self.game.rules.gadget_hand_limit:
            self._ask(DecisionKind.DISCARD_GADGET, seat)

    def _d_discard_gadget(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        g = acts[seat].arg
        self.cars[seat].gadgets.remove(g)
        self.gadget_bottom.append([g, seat])

    def _t_pit_exit(self, seat: int) -> None:
        car = self.cars[seat]
        if car.out or not car.in_pit:
            return
        if car.speed <= 0 or not self._free_exits(car):
            assert self.turn is not None
            self.turn["over"] = True  # a turbo of +0 (or blocked exits): stays in the pit
            car.speed = 0
            return
        self._ask(DecisionKind.PIT_EXIT, seat)

    def _d_pit_exit(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        car = self.cars[seat]
        tr = self.game.track
        t = self.turn
        assert t is not None
        entry = tr.openings[car.pit_opening].square
        dest = tr.openings[acts[seat].arg].square
        if self.events is not None:
            self._event(E.PIT_OUT, seat, opening=tr.openings[acts[seat].arg].name)
        car.in_pit = False
        car.square = entry
        car.pit_opening = -1
        car.pit_order = 0
        t["steps"] += 1
        # a pass through the pit counts as crossing the line but can never win the race
        laps_before = self.laps(seat)
        car.u += tr.wrap(tr.s[dest] - tr.s[entry])
        car.square = dest
        car.best_u = max(car.best_u, car.u)
        laps = self.laps(seat)
        if laps > laps_before:
            if self.events is not None:
                self._event(E.LAP, seat, lap=laps)
        if laps > laps_before and laps >= self.laps_required(seat):
            car.owed += laps - self.laps_required(seat) + 1
        self._push("chip", seat, dest)

    # ------------------------------------------------------------------ chips, hazards, damage
    def _t_chip(self, seat: int, square: int) -> None:
        car = self.cars[seat]
        kind = self.track_chips.get(square)
        if car.out or kind is None:
            return
        del self.track_chips[square]
        self.supply[kind] += 1
        if self.events is not None:
            self._event(E.CHIP, seat, chip=CHIP_NAMES[kind], square=square)
        ce = self.game.rules.chips
        if kind == 0:
            self._push("damage", seat, ce.tacks_dice)
        elif kind == 1:
            self._push("hazards", seat, ce.oil_cards, TRACK)
        else:
            self._slow(car, ce.glue_speed_loss)

    def _slow(self, car: Car, amount: int) -> None:
        before = car.speed
        car.speed = max(0, car.speed - amount)
        if self.events is not None:
            self._event(E.SPEED, car.seat, before=before, after=car.speed, why="slowed")

    def _t_hazards(self, seat: int, count: int, where: int) -> None:
        if count <= 0 or self.cars[seat].out:
            return
        self.batches.append([])
        self._push("apply_hazards", seat, where)
        for _ in range(count):
            self._push("draw_hazard", seat)

    def _t_draw_hazard(self, seat: int) -> None:
        if self.cars[seat].out:
            return
        if not any(self.hazard_deck):
            for i, n in enumerate(self.hazard_discard):  # reshuffle the discards
                self.hazard_deck[i] += n
                self.hazard_discard[i] = 0
        if any(self.hazard_deck):
            self.chance = {"kind": ChanceKind.HAZARD._value_, "seat": seat}

    def _c_hazard(self, ch: dict[str, Any], card: int) -> None:
        seat = ch["seat"]
        self.hazard_deck[card] -= 1
        self.batches[-1].append(card)
        if self.events is not None:
            self._event(E.HAZARD, seat, card=self.game.decks.hazard[card].name)
        if self._luck_available(self.cars[seat]):
            self._ask(DecisionKind.LUCK, seat, deck="hazard", card=card)

    def _d_luck(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat = d["seat"]
        car = self.cars[seat]
        a = acts[seat]
        hazard = d["deck"] == "hazard"
        if a.kind is ActionKind.LUCK and a.arg == 0:
            if not hazard:
                self._push("turbo_apply", seat, d["card"])
            return
        if a.kind is ActionKind.LUCK:
            car.luck -= 1
        else:
            self._spend(car, a.arg)
        deck = self.game.decks.hazard if hazard else self.game.decks.turbo
        if self.events is not None:
            self._event(E.LUCK, seat, deck=d["deck"], card=deck[d["card"]].name)
        if hazard:
            self.hazard_discard[self.batches[-1].pop()] += 1
            self._push("draw_hazard", seat)
        else:
            self.turbo_discard[d["card"]] += 1
            self._push("turbo", seat)

    def _t_apply_hazards(self, seat: int, where: int) -> None:
        batch = self.batches[-1]
        car = self.cars[seat]
        if not batch or car.out:
            for card in batch:
                self.hazard_discard[card] += 1
            self.batches.pop()
            return
        card = batch.pop(0)
        self._push("apply_hazards", seat, where)
        spec = self.game.decks.hazard[card]
        eff = spec.effect
        if eff is HazardEffect.LUNACY:
            gi = self._holds(car, GadgetEffect.SHRINKS_CARD)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, card=card, where=where)
            else:
                car.lunacies.append(card)
                car.lunacies.sort()
                if self.events is not None:
                    self._event(E.LUNACY, seat, card=spec.name)
            return
        self.hazard_discard[card] += 1
        if eff is HazardEffect.DAMAGE:
            self._push("damage", seat, spec.dice)
        elif eff is HazardEffect.SKID:
            gi = self._holds(car, GadgetEffect.RACING_TIRES)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, card=card, where=where)
            else:
                self._push("skid", seat, where)
        elif eff is HazardEffect.BRAKE:
            gi = self._holds(car, GadgetEffect.POWER_BRAKES)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, card=card, where=where)
            else:
                self._slow(car, spec.amount)
        elif eff is HazardEffect.LOSE_LUCK:
            car.luck = max(0, car.luck - 1)

    def _d_gadget(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        """A gray gadget offered against a hazard card or a turbo explosion."""
        seat = d["seat"]
        car = self.cars[seat]
        use = acts[seat].kind is ActionKind.USE_GADGET
        if use:
            self._spend(car, d["gadget"])
        if "dice" in d:  # Fire Extinguisher against a turbo explosion
            if not use:
                self._push("damage", seat, d["dice"])
            return
        spec = self.game.decks.hazard[d["card"]]
        if spec.effect is HazardEffect.LUNACY:
            if use:
                self.hazard_discard[d["card"]] += 1
            else:
                car.lunacies.append(d["card"])
                car.lunacies.sort()
        elif not use and spec.effect is HazardEffect.SKID:
            self._push("skid", seat, d["where"])
        elif not use and spec.effect is HazardEffect.BRAKE:
            self._slow(car, spec.amount)

    def _t_skid(self, seat: int, where: int) -> None:
        car = self.cars[seat]
        sk = self.game.rules.skid
        if car.out:
            return
        if where == PIT or car.in_pit:
            self._push("damage", seat, sk.pit_wall_dice)
            return
        tr = self.game.track
        lane = tr.lane[car.square]
        if lane == tr.num_lanes - 1:
            if self.turn is not None and self.turn["seat"] == seat:
                self.turn["over"] = True
            self._push("damage", seat, sk.wall_dice)
            return
        dest = tr.parallel(car.square, lane + 1)
        other = self.occupant(dest)
        if other is not None:
            self._push("damage", other, sk.car_dice[1])
            self._push("damage", seat, sk.car_dice[0])
            return
        self._place(car, dest)
        if not self.is_terminal():
            self._push("chip", seat, dest)

    def _t_damage(self, seat: int, dice: int) -> None:
        if dice > 0 and not self.cars[seat].out:
            self.chance = {"kind": ChanceKind.DICE._value_, "seat": seat, "n": dice}

    def _c_dice(self, ch: dict[str, Any], hits: int) -> None:
        seat = ch["seat"]
        car = self.cars[seat]
        if self.events is not None:
            self._event(E.DICE, seat, dice=ch["n"], hits=hits)
        if hits > 0 and (
            self._holds(car, GadgetEffect.ARMOR) is not None
            or self._holds(car, GadgetEffect.ROLL_CAGE) is not None
        ):
            self._ask(DecisionKind.PROTECT, seat, hits=hits)
            return
        self._hit(car, hits)

    def _d_protect(self, d: dict[str, Any], acts: dict[int, Action]) -> None:
        seat, hits = d["seat"], d["hits"]
        car = self.cars[seat]
        a = acts[seat]
        if a.kind is ActionKind.USE_GADGET:
            self._spend(car, a.arg)
            spec = self.game.decks.gadgets[a.arg]
            hits = 0 if spec.effect is GadgetEffect.ARMOR else max(0, hits - spec.amount)
        self._hit(car, hits)

    def _hit(self, car: Car, hits: int) -> None:
        """Each hit lowers max speed; speed clamps at once except during a turbo turn."""
        if hits <= 0:
            return
        car.max_speed = max(0, car.max_speed - hits * self.game.rules.speed_loss_per_hit)
        if self.events is not None:
            self._event(E.DAMAGE, car.seat, hits=hits, max_speed=car.max_speed)
        mover = self.turn is not None and self.turn["seat"] == car.seat
        if car.max_speed == 0:
            car.out = True
            car.speed = 0
            if self.events is not None:
                self._event(E.OUT, car.seat)
            if mover:
                self.turn["over"] = True  # type: ignore[index]
            if not self._live_seats():
                self._end(Outcome.ALL_OUT)
            return
        if not (mover and self.turn["ignore_max"]):  # type: ignore[index]
            car.speed = min(car.speed, car.max_speed)

    # ------------------------------------------------------------------ turbo
    def _t_turbo(self, seat: int) -> None:
        if self.cars[seat].out:
            return
        if not any(self.turbo_deck):
            for i, n in enumerate(self.turbo_discard):
                self.turbo_deck[i] += n
                self.turbo_discard[i] = 0
        self.chance = {"kind": ChanceKind.TURBO._value_, "seat": seat}

    def _c_turbo(self, ch: dict[str, Any], card: int) -> None:
        seat = ch["seat"]
        self.turbo_deck[card] -= 1
        if self.events is not None:
            self._event(E.TURBO, seat, card=self.game.decks.turbo[card].name)
        if self._luck_available(self.cars[seat]):
            self._ask(DecisionKind.LUCK, seat, deck="turbo", card=card)
        else:
            self._push("turbo_apply", seat, card)

    def _t_turbo_apply(self, seat: int, card: int) -> None:
        car = self.cars[seat]
        spec = self.game.decks.turbo[card]
        if spec.reshuffle:
            self.turbo_deck = [c.count for c in self.game.decks.turbo]
            self.turbo_discard = [0] * len(self.turbo_deck)
        else:
            self.turbo_discard[card] += 1
        assert self.turn is not None
        self.turn["ignore_max"] = True
        before = car.speed
        car.speed = min(self.game.rules.turbo_speed_cap, car.speed + spec.amount)
        if self.events is not None:
            self._event(E.SPEED, seat, before=before, after=car.speed, why="turbo")
        self._push("curve_accel", seat, spec.amount)
        if spec.dice:
            gi = self._holds(car, GadgetEffect.FIRE_EXTINGUISHER)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, dice=spec.dice)
            else:
                self._push("damage", seat, spec.dice)

    # ------------------------------------------------------------------ end of turn
    def _t_end_turn(self, seat: int) -> None:
        car = self.cars[seat]
        t = self.turn
        if t is not None and t["ignore_max"]:
            car.speed = min(car.speed, car.max_speed)
        self.turn = None

    # ------------------------------------------------------------------ copying and JSON
    def clone(self) -> State:
        """An independent copy (cheap: flat lists and small dicts only)."""
        s = State.__new__(State)
        s.game = self.game
        s.seed = self.seed
        s.cars = [c.copy() for c in self.cars]
        s.round = self.round
        s.cards = self.cards.copy()
        s.order = self.order.copy()
        s.hazard_deck = self.hazard_deck.copy()
        s.hazard_discard = self.hazard_discard.copy()
        s.turbo_deck = self.turbo_deck.copy()
        s.turbo_discard = self.turbo_discard.copy()
        s.gadget_top = self.gadget_top.copy()
        s.gadget_bottom = [e.copy() for e in self.gadget_bottom]
        s.offer = self.offer.copy()
        s.supply = self.supply.copy()
        s.track_chips = self.track_chips.copy()
        s.pit_counter = self.pit_counter
        s.batches = [b.copy() for b in self.batches]
        s.tasks = self.tasks.copy()
        s.decision = None if self.decision is None else dict(self.decision)
        if s.decision is not None and "seats" in s.decision:
            s.decision["seats"] = list(s.decision["seats"])
        s.chance = None if self.chance is None else dict(self.chance)
        s.turn = None if self.turn is None else dict(self.turn)
        s.status = self.status
        s.winner = self.winner
        s._legal = {}
        s._chance_cache = self._chance_cache
        return s

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain JSON data (see ``docs/lunatix_loop.md``)."""
        return {
            "schema": "lunatix_loop/state",
            "version": SCHEMA_VERSION,
            "seed": self.seed,
            "num_players": len(self.cars),
            "round": self.round,
            "cars": [c.to_dict() for c in self.cars],
            "cards": list(self.cards),
            "order": list(self.order),
            "hazard_deck": list(self.hazard_deck),
            "hazard_discard": list(self.hazard_discard),
            "turbo_deck": list(self.turbo_deck),
            "turbo_discard": list(self.turbo_discard),
            "gadget_top": list(self.gadget_top),
            "gadget_bottom": [list(e) for e in self.gadget_bottom],
            "offer": list(self.offer),
            "supply": list(self.supply),
            "track_chips": [[sq, k] for sq, k in sorted(self.track_chips.items())],
            "pit_counter": self.pit_counter,
            "batches": [list(b) for b in self.batches],
            "tasks": [list(t) for t in self.tasks],
            "decision": _plain(self.decision),
            "chance": _plain(self.chance),
            "turn": _plain(self.turn),
            "outcome": self.status.value,
            "winner": self.winner,
        }

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know, as structured data (no hidden information)."""
        from lunatix_env.rules.observe import observe

        return observe(self, seat_index(seat, self.game.rules.num_players))

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
        """A clone in which every gadget card ``seat`` cannot see is dealt out afresh.

        Known to ``seat``: its own hand, every spent (face-up) gadget, the cards it put at
        the bottom, and the offer of its own turn. The other gadgets (the pool) go back,
        uniformly at random with ``rng``, into the hidden places, each keeping its size:
        the other players' hands (kept sorted), another seat's offer, the bottom entries
        others put there (positions and owners kept: who put a card there is public) and
        the deck's unordered top (kept sorted). When another seat is at a decision that
        exists only because of a held gadget (a *private* decision: Armor or Roll Cage
        against hits, a gray gadget offered, Fuzzy Dice with no luck chip left), the deal
        is conditioned on that seat holding such a gadget; that a seat is deciding at that
        point of the public history is visible at the table. The deal is uniform over the
        deals consistent with the current observation; it draws no inference from history
        (say, a seat that took hits without being asked holds no Armor).

        Hazard and turbo decks are counts without order, and simultaneous choices (card
        reveal, chip mix) are applied all at once, so nothing else is hidden.
        """
        seat = seat_index(seat, self.game.rules.num_players)
        s = self.clone()
        s._legal = {}
        s._chance_cache = None
        offer_hidden = bool(s.offer) and (s.turn is None or s.turn["seat"] != seat)
        others = [c for c in s.cars if c.seat != seat]
        pool = list(s.gadget_top)
        for c in others:
            pool += c.gadgets
        bottom_slots = [i for i, (_, owner) in enumerate(s.gadget_bottom) if owner != seat]
        pool += [s.gadget_bottom[i][0] for i in bottom_slots]
        if offer_hidden:
            pool += s.offer
        pool.sort()
        if not pool:
            return s
        # a private decision of another seat: it holds one of these gadgets
        need: tuple[int, ...] = ()
        decider = -1
        d = s.decision
        if d is not None and "seat" in d and d["seat"] != seat:
            decider = d["seat"]
            need = tuple(g for g in self._needed_gadgets(d) if g in pool)
        sizes = [(c.seat, len(c.gadgets)) for c in others]
        n_offer = len(s.offer) if offer_hidden else 0

        def deal() -> list[int]:
            return [pool[i] for i in rng.permutation(len(pool))]

        def holds_needed(cards: list[int]) -> bool:
            start = 0
            for who, k in sizes:
                if who == decider:
                    return any(g in need for g in cards[start : start + k])
                start += k
            return True

        if len(need) == 1:
            # exact conditional deal: the needed card in the decider's hand, the rest at random
            rest = [g for g in pool if g != need[0]]
            perm = [rest[i] for i in rng.permutation(len(rest))]
            cards = []
            for who, k in sizes:
                if who == decider:
                    cards += [need[0], *perm[: k - 1]]
                    perm = perm[k - 1 :]
                else:
                    cards += perm[:k]
                    perm = perm[k:]
            cards += perm
        else:
            cards = deal()
            tries = 1
            while need and not holds_needed(cards) and tries < 1000:
                cards = deal()
                tries += 1
            if need and not holds_needed(cards):  # practically unreachable fallback
                i = cards.index(need[0])
                start = sum(k for who, k in sizes[: [w for w, _ in sizes].index(decider)])
                cards[i], cards[start] = cards[start], cards[i]
        at = 0
        for c in others:
            k = len(c.gadgets)
            c.gadgets = sorted(cards[at : at + k])
            at += k
        if n_offer:
            s.offer = cards[at : at + n_offer]
            at += n_offer
        for i in bottom_slots:
            s.gadget_bottom[i][0] = cards[at]
            at += 1
        s.gadget_top = sorted(cards[at:])
        return s

    def _needed_gadgets(self, d: dict[str, Any]) -> tuple[int, ...]:
        """The gadgets of which the decider of ``d`` must hold one for ``d`` to exist."""
        kind = d["kind"]
        gi = self.game.gadget_index
        if kind == DecisionKind.PROTECT._value_:
            return tuple(gi[e] for e in (GadgetEffect.ARMOR, GadgetEffect.ROLL_CAGE) if e in gi)
        if kind == DecisionKind.GADGET._value_:
            return (d["gadget"],)
        if kind == DecisionKind.LUCK._value_ and self.cars[d["seat"]].luck == 0:
            fz = gi.get(GadgetEffect.FUZZY_DICE)
            return () if fz is None else (fz,)
        return ()

    def __str__(self) -> str:
        from lunatix_env.rules.text import state_to_text

        return state_to_text(self)


def _plain(d: dict[str, Any] | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {k: (list(v) if isinstance(v, list) else v) for k, v in d.items()}


def _between(a: int, b: int) -> list[int]:
    """Lanes strictly after ``a`` up to and including ``b``."""
    step = 1 if b > a else -1
    return list(range(a + step, b + step, step))


def _counts_distribution(counts: list[int]) -> list[tuple[int, float]]:
    total = sum(counts)
    return [(i, n / total) for i, n in enumerate(counts) if n > 0]


_TASKS = {name[3:]: fn for name, fn in vars(State).items() if name.startswith("_t_")}
_DECIDE = {name[3:]: fn for name, fn in vars(State).items() if name.startswith("_d_")}
_CHANCE = {name[3:]: fn for name, fn in vars(State).items() if name.startswith("_c_")}
_DECISION_KINDS = {k.value: k for k in DecisionKind}
