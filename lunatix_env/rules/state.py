"""The Lunatix Loop game state: every rule of ``shared/rules/lunatix_loop.md``.

The state is a small machine driven by a stack of pending *tasks* (plain tuples, so the
whole state is JSON data). :meth:`State._run` pops tasks until one needs a decision (then
``decision`` is set) or a chance event (then ``chance`` is set). Decisions and chance
outcomes are applied through the public protocol methods, which push further tasks and run
the machine again. Nothing here draws random numbers: chance is sampled by the caller with
an explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from lunatix_env.rules.actions import (
    Action,
)
from lunatix_env.rules.config import GadgetEffect
from tabletop.errors import IllegalActionError, InvalidStateError
from tabletop.gamebase import joint_action, seat_index
from tabletop.protocol import sample_discrete
from tabletop.tasks import task_table

if TYPE_CHECKING:
    from lunatix_env.rules.game import Game

from lunatix_env.rules import tasks as T
from lunatix_env.rules.records import (
    Car,
    CarTurn,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
)
from lunatix_env.rules.turn import Turn

SCHEMA_VERSION = 1


class State(Turn):
    """A Lunatix Loop game in progress. Build it with ``Game.new_initial_state``.

    Its data and task machine are :class:`~lunatix_env.rules.machine.Machine`'s, the rules of
    each phase come from the classes it derives from (:mod:`~lunatix_env.rules.turn`,
    :mod:`~lunatix_env.rules.pit`, :mod:`~lunatix_env.rules.hazards`,
    :mod:`~lunatix_env.rules.legal`); this class adds the engine protocol, copying and JSON."""

    def __init__(self, game: Game, seed: int | None = None) -> None:
        self.game = game
        r = game.rules
        n = r.num_players
        self.seed = seed
        self.cars = [
            Car(seat=i, speed=r.start_speed, max_speed=r.max_speed, luck=r.luck_chips)
            for i in range(n)
        ]
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
        self.tasks: list[T.Task] = []
        self._push(*[("deal_dot", s) for s in range(n)], ("chip_mix",), ("round_start",))
        self.decision: Decision | None = None
        self.chance: Chance | None = None
        self.turn: CarTurn | None = None
        self.status = Outcome.IN_PROGRESS
        self.winner: int | None = None
        self._legal: dict[int, list[Action]] = {}
        self._chance_cache: list[tuple[int, float]] | None = None
        self._run()

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
        kind = ch.kind
        if kind is ChanceKind.START_DOT:
            free = self._free_dots()
            return [(i, 1.0 / len(free)) for i in free]
        if kind is ChanceKind.DICE:
            return list(self.game.dice_distribution(ch.n))
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
                f"chance outcome {outcome!r} is not possible for {self.chance.kind.value}: "
                f"outcomes are ints (numpy ints accepted), not {type(outcome).__name__}; "
                f"possible: {valid}"
            )
        if outcome not in valid:
            raise IllegalActionError(
                f"chance outcome {outcome!r} is not possible for {self.chance.kind.value}; "
                f"possible: {valid}"
            )
        ch, self.chance = self.chance, None
        self._legal = {}
        self._chance_cache = None
        _CHANCE[ch.kind._value_](self, ch, int(outcome))
        self._run()

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
        if d is not None and type(actions) is dict and len(actions) == 1 and d.seat >= 0:
            # fast path: one sequential decider with a legal Action under an int seat
            seat = d.seat
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
                _DECIDE[d.kind._value_](self, d, {seat: a})
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
                    f"{cast(Decision, self.decision).kind.value}; "
                    f"legal: {', '.join(str(x) for x in legal)}"
                )
        d, self.decision = cast(Decision, self.decision), None
        self._legal = {}
        _DECIDE[d.kind._value_](self, d, acts)
        self._run()

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
        s.decision = self.decision  # immutable: shared
        s.chance = self.chance  # immutable: shared
        s.turn = None if self.turn is None else self.turn.copy()
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
            "decision": None if self.decision is None else self.decision.to_dict(),
            "chance": None if self.chance is None else self.chance.to_dict(),
            "turn": None if self.turn is None else self.turn.to_dict(),
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
        offer_hidden = bool(s.offer) and (s.turn is None or s.turn.seat != seat)
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
        if d is not None and d.seat >= 0 and d.seat != seat:
            decider = d.seat
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

    def _needed_gadgets(self, d: Decision) -> tuple[int, ...]:
        """The gadgets of which the decider of ``d`` must hold one for ``d`` to exist."""
        kind = d.kind
        gi = self.game.gadget_index
        if kind is DecisionKind.PROTECT:
            return tuple(gi[e] for e in (GadgetEffect.ARMOR, GadgetEffect.ROLL_CAGE) if e in gi)
        if kind is DecisionKind.GADGET:
            return (d.gadget,)
        if kind is DecisionKind.LUCK and self.cars[d.seat].luck == 0:
            fz = gi.get(GadgetEffect.FUZZY_DICE)
            return () if fz is None else (fz,)
        return ()

    def __str__(self) -> str:
        from lunatix_env.rules.text import state_to_text

        return state_to_text(self)


def _between(a: int, b: int) -> list[int]:
    """Lanes strictly after ``a`` up to and including ``b``."""
    step = 1 if b > a else -1
    return list(range(a + step, b + step, step))


def _counts_distribution(counts: list[int]) -> list[tuple[int, float]]:
    total = sum(counts)
    return [(i, n / total) for i, n in enumerate(counts) if n > 0]


#: every handler of the phases, by task, decision and chance kind
_HANDLERS = {name: fn for cls in reversed(State.__mro__) for name, fn in vars(cls).items()}
_DECIDE = {name[3:]: fn for name, fn in _HANDLERS.items() if name.startswith("_d_")}
_CHANCE = {name[3:]: fn for name, fn in _HANDLERS.items() if name.startswith("_c_")}
#: the task kinds: handlers, JSON names, field types (checked against the handlers here)
TASK_TABLE = task_table(T.TASKS, State)
State.task_handlers = TASK_TABLE.handlers
_DECISION_KINDS = {k.value: k for k in DecisionKind}
