"""A public position builder for Lunatix Loop: cars by lane, row and lap, validated.

A position is described piece by piece and built through ``state_from_dict``, so a built
position satisfies every invariant a loaded one must (docs/state_invariants.md)::

    from lunatix_env.rules import Action, ActionKind, Card, Game, PositionBuilder

    game = Game(num_players=2)
    state = (
        PositionBuilder(game)
        .car(0, lane=1, row=4, speed=60, chips=(2, 1, 1), gadgets=["Rocket Booster"])
        .car(1, lane=0, row=9, lap=1, speed=40, lunacies=["Tunnel Vision"])
        .chip(lane=2, row=12, kind="oil")
        .build()
    )
    state.apply_actions(  # round 1's reveal
        {0: Action(ActionKind.CARD, Card.ACCELERATE), 1: Action(ActionKind.CARD, Card.BRAKE)}
    )

The position is the reveal of a round (every car still racing chooses a card), the one moment
between turns; decisions inside a turn are reached by playing the engine from it, which keeps
the task stack exactly what play would have made it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from lunatix_env.rules.actions import CHIP_NAMES
from lunatix_env.rules.records import ChanceKind, DecisionKind
from tabletop.errors import InvalidStateError
from tabletop.jsoncheck import as_sequence

if TYPE_CHECKING:
    from lunatix_env.rules.game import Game
    from lunatix_env.rules.state import State

#: a square within this many middle-lane squares before the line, on lap 0, is on the grid
#: (the race starts behind the line: such a car has not crossed it yet)
BEHIND_LINE = 6.0


def _bad(where: str, why: str) -> InvalidStateError:
    return InvalidStateError(f"position builder: {where}: {why}")


_Method = TypeVar("_Method", bound=Callable[..., "PositionBuilder"])


def _atomic(method: _Method) -> _Method:
    """A builder method that changes nothing when it refuses its arguments."""

    @functools.wraps(method)
    def run(self: PositionBuilder, *args: Any, **kwargs: Any) -> PositionBuilder:
        saved = copy.deepcopy(self._data)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self._data = saved
            raise

    return cast(_Method, run)


class PositionBuilder:
    """Describe a Lunatix Loop position at a round's card reveal, then ``build()`` it.

    It starts from round 1's reveal of a real game (start dots dealt in seat order, each car
    holding the first chip mix of the codec). Each method changes one part and returns the
    builder; ``build()`` validates the whole position like ``state_from_dict`` and returns a
    new ``State``. Chips, gadgets and lunacies move between the supply, the decks and the cars
    so that every count stays conserved; asking for more than exists is an error.
    """

    def __init__(self, game: Game, *, seed: int | None = 0) -> None:
        self.game = game
        self._data = _reveal_of_round_one(game, seed)

    # ------------------------------------------------------------------ cars
    @_atomic
    def car(
        self,
        seat: int,
        *,
        lane: int | None = None,
        row: int | None = None,
        lap: int = 0,
        facing: int | None = None,
        speed: int | None = None,
        max_speed: int | None = None,
        luck: int | None = None,
        chips: Sequence[int] | None = None,
        gadgets: Iterable[str] | None = None,
        spent: Iterable[str] | None = None,
        lunacies: Iterable[str] | None = None,
        out: bool | None = None,
    ) -> PositionBuilder:
        """Set ``seat``'s car; arguments left as None keep their value.

        ``lane`` (0 inside .. 2 outside) and ``row`` (the row-th square of that lane in race
        order from the finish line) place the car on the track with ``lap`` laps completed,
        facing the race direction unless ``facing`` is 1 (backwards). ``chips`` are (tacks,
        oil, glue) held, taken from or returned to the supply; ``gadgets`` (hand) and
        ``spent`` are gadget card names, taken from wherever they are not held; ``lunacies``
        are hazard card names taken from the hazard deck. ``out=True`` puts the car out of
        the race (max speed and speed 0).
        A refused argument (``InvalidStateError``) leaves the builder as it was.
        """
        c = self._car(seat)
        where = f"car({seat})"
        if (lane is None) != (row is None):
            raise _bad(where, "give lane and row together")
        if lane is not None and row is not None:
            square = self._square(lane, row, where)
            self._place(c, square, lap, 0 if facing is None else facing, where)
        elif facing is not None:
            c["facing"] = _in(facing, 0, 1, f"{where}.facing")
        if speed is not None:
            c["speed"] = speed
        if max_speed is not None:
            c["max_speed"] = max_speed
        if luck is not None:
            c["luck"] = luck
        if chips is not None:
            self._set_chips(c, _listed(chips, f"{where}.chips", "(tacks, oil, glue) counts"), where)
        if gadgets is not None:
            self._set_gadgets(c, "gadgets", gadgets, where)
        if spent is not None:
            self._set_gadgets(c, "spent", spent, where)
        if lunacies is not None:
            self._set_lunacies(c, lunacies, where)
        if out is not None:
            if not isinstance(out, bool):
                raise _bad(f"{where}.out", f"expected True or False, got {out!r}")
            c["out"] = out
            if out:
                c["speed"] = c["max_speed"] = 0
        return self

    @_atomic
    def pit(self, seat: int, opening: str, *, lap: int = 0) -> PositionBuilder:
        """Put ``seat``'s car in the pit, entered through ``opening`` (a name such as "A2")
        with ``lap`` laps completed; it leaves the pit after the cars that entered before it."""
        tr = self.game.track
        where = f"pit({seat})"
        if not isinstance(opening, str) or opening not in tr.opening_index:
            names = sorted(tr.opening_index)
            raise _bad(where, f"unknown opening {opening!r}; the track has {names}")
        c = self._car(seat)
        index = tr.opening_index[opening]
        self._place(c, tr.openings[index].square, lap, c["facing"], where)
        c["in_pit"] = True
        c["pit_opening"] = index
        self._data["pit_counter"] += 1
        c["pit_order"] = self._data["pit_counter"]
        return self

    # ------------------------------------------------------------------ the table
    @_atomic
    def chip(self, *, lane: int, row: int, kind: str) -> PositionBuilder:
        """Lay a chip of ``kind`` ("tacks", "oil" or "glue") from the supply on a square."""
        where = f"chip(lane={lane}, row={row})"
        k = self._chip_kind(kind, where)
        square = self._square(lane, row, where)
        chips = self._data["track_chips"]
        if any(sq == square for sq, _ in chips):
            raise _bad(where, f"square {square} already holds a chip")
        self._take_supply(k, 1, where)
        chips.append([square, k])
        chips.sort()
        return self

    # ------------------------------------------------------------------ the decks
    @_atomic
    def discard(self, deck: str, name: str, count: int | None = None) -> PositionBuilder:
        """Move ``count`` copies (all that are left unless given) of the card ``name`` from
        the ``deck`` ("hazard" or "turbo") to its discard pile, as if drawn earlier: they
        come back only when the deck runs out and its discards are shuffled in."""
        where = f"discard({deck!r}, {name!r})"
        if not isinstance(deck, str) or deck not in ("hazard", "turbo"):
            raise _bad(where, f"unknown deck {deck!r}; expected 'hazard' or 'turbo'")
        cards = self.game.decks.hazard if deck == "hazard" else self.game.decks.turbo
        names = [c.name for c in cards]
        if not isinstance(name, str) or name not in names:
            raise _bad(where, f"unknown {deck} card {name!r}; the deck has {names}")
        i = names.index(name)
        left = self._data[f"{deck}_deck"]
        n = left[i] if count is None else _in(count, 0, None, f"{where}.count")
        if n > left[i]:
            raise _bad(where, f"{left[i]} {name!r} cards are left in the {deck} deck, {n} asked")
        left[i] -= n
        self._data[f"{deck}_discard"][i] += n
        return self

    @_atomic
    def gadget_bottom(self, cards: Iterable[tuple[str, int]]) -> PositionBuilder:
        """Replace the queue under the gadget deck with ``cards``, ``(name, seat)`` pairs in
        queue order (``seat`` put the card there); they come from the deck's top, and the
        queue is drawn from only once the top is empty."""
        where = "gadget_bottom"
        d = self._data
        deck = [card.name for card in self.game.decks.gadgets]
        d["gadget_top"].extend(gi for gi, _ in d["gadget_bottom"])
        d["gadget_bottom"] = []
        n = self.game.num_players
        for k, pair in enumerate(_listed(cards, where, "(name, seat) pairs")):
            at = f"{where}[{k}]"
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise _bad(at, f"expected a (name, seat) pair, got {pair!r}")
            name, seat = pair
            if not isinstance(name, str) or name not in deck:
                raise _bad(at, f"unknown gadget {name!r}; the deck has {deck}")
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise _bad(at, f"expected a seat 0..{n - 1}, got {seat!r}")
            gi = deck.index(name)
            if gi not in d["gadget_top"]:
                raise _bad(at, f"gadget {name!r} is not on the deck's top (held or queued)")
            d["gadget_top"].remove(gi)
            d["gadget_bottom"].append([gi, seat])
        d["gadget_top"].sort()
        return self

    def round(self, number: int) -> PositionBuilder:
        """Set the round number (1 is the first round)."""
        self._data["round"] = number
        return self

    # ------------------------------------------------------------------ build
    def to_dict(self) -> dict[str, Any]:
        """The position as the state JSON dict (not yet validated): the cars still racing
        choose their cards."""
        d = copy.deepcopy(self._data)
        d["decision"]["seats"] = [c["seat"] for c in d["cars"] if not c["out"]]
        return d

    def build(self) -> State:
        """Validate the position and return it as a new state (``InvalidStateError`` if it
        breaks an invariant: two cars on one square, a speed above max speed ...)."""
        d = self.to_dict()
        if not d["decision"]["seats"]:
            raise _bad("build", "every car is out: the race is over")
        return self.game.state_from_dict(d)

    # ------------------------------------------------------------------ helpers
    def _car(self, seat: int) -> dict[str, Any]:
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise _bad(f"seat {seat!r}", f"expected a seat 0..{n - 1}")
        car: dict[str, Any] = self._data["cars"][seat]
        return car

    def _square(self, lane: int, row: int, where: str) -> int:
        lanes = self.game.track.spec.lanes
        _in(lane, 0, len(lanes) - 1, f"{where}.lane")
        _in(row, 0, len(lanes[lane]) - 1, f"{where}.row")
        return lanes[lane][row]

    def _place(self, c: dict[str, Any], square: int, lap: int, facing: int, where: str) -> None:
        tr = self.game.track
        _in(lap, 0, self.game.rules.laps - 1, f"{where}.lap")
        c["square"] = square
        c["facing"] = _in(facing, 0, 1, f"{where}.facing")
        c["in_pit"] = False
        c["pit_opening"] = -1
        c["pit_order"] = 0
        behind_line = lap == 0 and tr.s[square] > tr.length - BEHIND_LINE
        u = tr.s[square] - tr.length if behind_line else tr.s[square] + lap * tr.length
        c["u"] = c["best_u"] = u

    def _chip_kind(self, kind: str, where: str) -> int:
        if not isinstance(kind, str) or kind not in CHIP_NAMES:
            raise _bad(where, f"unknown chip kind {kind!r}; expected one of {list(CHIP_NAMES)}")
        return CHIP_NAMES.index(kind)

    def _take_supply(self, k: int, count: int, where: str) -> None:
        supply = self._data["supply"]
        if supply[k] < count:
            raise _bad(where, f"the supply has {supply[k]} {CHIP_NAMES[k]} chips, {count} needed")
        supply[k] -= count

    def _set_chips(self, c: dict[str, Any], chips: list[int], where: str) -> None:
        if len(chips) != 3 or any(isinstance(v, bool) or not isinstance(v, int) for v in chips):
            raise _bad(f"{where}.chips", f"expected (tacks, oil, glue) counts, got {chips!r}")
        for k in range(3):
            self._data["supply"][k] += c["chips"][k]
            c["chips"][k] = 0
        for k in range(3):
            self._take_supply(k, _in(chips[k], 0, None, f"{where}.chips[{k}]"), where)
            c["chips"][k] = chips[k]

    def _set_gadgets(self, c: dict[str, Any], field: str, names: Iterable[str], where: str) -> None:
        deck = [card.name for card in self.game.decks.gadgets]
        d = self._data
        d["gadget_top"].extend(c[field])
        c[field] = []
        wanted = []
        for name in _listed(names, f"{where}.{field}", "gadget names"):
            if not isinstance(name, str) or name not in deck:
                raise _bad(f"{where}.{field}", f"unknown gadget {name!r}; the deck has {deck}")
            gi = deck.index(name)
            if gi not in d["gadget_top"]:
                raise _bad(f"{where}.{field}", f"gadget {name!r} is already held")
            d["gadget_top"].remove(gi)
            wanted.append(gi)
        c[field] = sorted(wanted)
        d["gadget_top"].sort()

    def _set_lunacies(self, c: dict[str, Any], names: Iterable[str], where: str) -> None:
        hazards = self.game.decks.hazard
        deck = self._data["hazard_deck"]
        for i in c["lunacies"]:
            deck[i] += 1
        c["lunacies"] = []
        held = []
        for name in _listed(names, f"{where}.lunacies", "lunacy names"):
            if not isinstance(name, str):
                raise _bad(f"{where}.lunacies", f"a lunacy is named by a string, got {name!r}")
            index = [i for i, h in enumerate(hazards) if h.name == name and h.lunacy is not None]
            if not index:
                lunacies = sorted({h.name for h in hazards if h.lunacy is not None})
                raise _bad(f"{where}.lunacies", f"unknown lunacy {name!r}; lunacies: {lunacies}")
            if deck[index[0]] == 0:
                raise _bad(f"{where}.lunacies", f"no {name!r} card is left in the hazard deck")
            deck[index[0]] -= 1
            held.append(index[0])
        c["lunacies"] = sorted(held)


def _listed(v: Any, where: str, what: str) -> list[Any]:
    """``v`` (a list, a tuple or another iterable that is no string or mapping) as a list."""
    items = as_sequence(v)
    if items is None:
        raise _bad(where, f"expected {what} (a list), got {v!r}")
    return items


def _in(v: Any, lo: int, hi: int | None, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        span = f"{lo}.." if hi is None else f"{lo}..{hi}"
        raise _bad(where, f"expected an int in {span}, got {v!r}")
    n: int = v
    return n


def _reveal_of_round_one(game: Game, seed: int | None) -> dict[str, Any]:
    """Round 1's reveal of a real game: start dots dealt in seat order, the first chip mix."""
    s = game.new_initial_state(seed)
    dots = list(range(game.num_players))
    while s.is_chance_node():
        s.apply_chance(dots.pop(0) if s.chance_kind() is ChanceKind.START_DOT else 0)
    s.apply_actions({seat: s.legal_actions(seat)[0] for seat in s.current_players()})
    if s.decision_kind() is not DecisionKind.CARD:
        raise AssertionError(f"expected round 1's reveal, got {s.decision_kind()}")
    return s.to_dict()
