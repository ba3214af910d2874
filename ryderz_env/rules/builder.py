"""A public position builder for Lazer Ryderz: Lazers by pieces and poses, Prizms, gears.

A position is described part by part and built through ``state_from_dict``, so a built
position satisfies every invariant a loaded one must (docs/state_invariants.md)::

    from ryderz_env.rules import Game, Pose, PositionBuilder, Prizm
    from ryderz_env.rules.builder import LEFT, soft, straight

    game = Game(num_players=2)
    state = (
        PositionBuilder(game, mover=0)
        .lazer(0, [straight(3), soft(2, LEFT)], start=Pose(-10.0, -10.0, 0.0))
        .launch_point(1, 40.0)
        .prizms([Prizm(0.0, 4.5), Prizm(0.0, -4.5, owner=1)])
        .gear(0, 2)
        .build()
    )
    # state is at seat 0's first decision of its turn: a shift and a move

The position is the start of the mover's turn (its first decision: a power, the large-table
bonus, or the move); later decisions are reached by playing the engine from it. Pieces of a
Lazer are chained exit to entry; the last ``previous`` pieces of the mover count as placed on
its previous turn (scoring looks at this turn's and the previous turn's pieces together).
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ryderz_env.rules.actions import Action
from ryderz_env.rules.config import PieceKind
from ryderz_env.rules.geometry import Element, Pose, make_element
from ryderz_env.rules.records import ChanceKind, DecisionKind, Prizm
from ryderz_env.rules.serialize import element_to_dict
from tabletop.errors import InvalidStateError
from tabletop.jsoncheck import as_sequence

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game
    from ryderz_env.rules.state import State

#: curve sides: +1 turns left (counter-clockwise), -1 turns right
LEFT, RIGHT = 1, -1
#: turn ids of a built position: the mover's turn now, its previous turn, anything older
NOW, PREVIOUS, OLDER = 10, 9, 5


class Piece(NamedTuple):
    """A piece to lay: kind, gear (1 = shortest .. top gear) and side (curves: LEFT or RIGHT)."""

    kind: PieceKind
    gear: int
    side: int = 0


def straight(gear: int) -> Piece:
    """A straight of ``gear``."""
    return Piece(PieceKind.STRAIGHT, gear)


def soft(gear: int, side: int) -> Piece:
    """A soft turn of ``gear`` turning to ``side`` (LEFT or RIGHT)."""
    return Piece(PieceKind.SOFT, gear, side)


def hard(gear: int, side: int) -> Piece:
    """A hard turn of ``gear`` turning to ``side`` (LEFT or RIGHT)."""
    return Piece(PieceKind.HARD, gear, side)


def _bad(where: str, why: str) -> InvalidStateError:
    return InvalidStateError(f"position builder: {where}: {why}")


class PositionBuilder:
    """Describe a Lazer Ryderz position at the start of ``mover``'s turn, then ``build()`` it.

    It starts from a real game after Start Your Engines (launch noise resolved as 0), with
    starting gears that make ``mover`` the first to move; every seat holds its Launch Point
    until a method replaces its Lazer. Each method returns the builder; ``build()`` validates
    the whole position like ``state_from_dict`` (chains, heads, supply, the table) and returns
    a new ``State``. Each player's supply is what it owns minus its pieces on the table.
    """

    def __init__(self, game: Game, *, mover: int = 0, seed: int | None = 0) -> None:
        self.game = game
        self.mover = self._seat(mover, "mover")
        self._base = _first_turn(game, self.mover, seed).to_dict()
        self._lazers: dict[int, tuple[list[Element], Pose | None]] = {}
        self._prizms: list[Prizm] | None = None
        self._gears: dict[int, int] = {}
        self._power: dict[int, bool] = {}

    # ------------------------------------------------------------------ Lazers
    def lazer(
        self,
        seat: int,
        pieces: Sequence[Piece],
        *,
        start: Pose | float,
        previous: int = 0,
        turns: Sequence[int] | None = None,
    ) -> PositionBuilder:
        """Replace ``seat``'s Lazer with ``pieces`` chained from ``start``: a pose (a Lazer
        without its Launch Point, as after being hit) or a perimeter position in inches (a
        Launch Point there, the pieces from its exit). The last ``previous`` pieces were laid
        on the seat's previous turn; older pieces earlier. The head is the front exit.

        ``turns`` gives each piece the id of the turn it was laid on instead (``previous``
        then stays 0): ids 1 .. ``NOW - 1`` that never decrease along the Lazer, ``PREVIOUS``
        for the mover's previous turn and smaller ids for earlier turns (``OLDER`` is one)."""
        where = f"lazer({seat})"
        self._seat(seat, where)
        g = self.game
        elements: list[Element] = []
        if isinstance(start, Pose):
            if not all(_finite(v) for v in start):
                raise _bad(where, f"a start pose holds three finite numbers, got {start!r}")
            pose = Pose(*(float(v) for v in start))
        elif _finite(start):
            elements.append(g.launch_element(seat, float(start), 0))
            pose = elements[0].exit
        else:
            raise _bad(
                where, f"start is a Pose or a finite perimeter position (inches), got {start!r}"
            )
        pieces = _listed(pieces, f"{where}.pieces", "pieces")
        if isinstance(previous, bool) or not isinstance(previous, int):
            raise _bad(where, f"previous is a count of pieces, got {previous!r}")
        if not 0 <= previous <= len(pieces):
            raise _bad(where, f"previous={previous}: the Lazer has {len(pieces)} pieces")
        ids = [PREVIOUS if i >= len(pieces) - previous else OLDER for i in range(len(pieces))]
        if turns is not None:
            ids = self._turn_ids(turns, len(pieces), previous, f"{where}.turns")
        for i, p in enumerate(pieces):
            shape = None
            if (  # a PieceKind and plain ints (a float gear 1.0 found gear 1's shape)
                isinstance(p, Piece)
                and isinstance(p.kind, PieceKind)
                and type(p.gear) is int
                and type(p.side) is int
            ):
                shape = g.shapes.get((p.kind, p.gear, p.side))
            if shape is None or p.kind is PieceKind.LAUNCH:
                raise _bad(f"{where}.pieces[{i}]", f"no such piece {p!r}")
            el = make_element(seat, p.kind, p.gear, p.side, pose, ids[i], shape.outline, shape.exit)
            elements.append(el)
            pose = el.exit
        self._lazers[seat] = (elements, pose)
        return self

    def launch_point(self, seat: int, t: float) -> PositionBuilder:
        """Give ``seat`` only a Launch Point at perimeter position ``t`` (inches)."""
        return self.lazer(seat, [], start=t)

    # ------------------------------------------------------------------ the rest
    def prizms(self, prizms: Iterable[Prizm]) -> PositionBuilder:
        """Replace every Prizm (``Prizm(x, y, owner)``, owner -1 for neutral; the values are
        checked by ``build()``)."""
        new = []
        for i, p in enumerate(_listed(prizms, "prizms", "Prizms")):
            if not isinstance(p, tuple | list) or len(p) not in (2, 3):
                raise _bad(f"prizms[{i}]", f"a Prizm is Prizm(x, y, owner), got {p!r}")
            new.append(Prizm(*p))
        self._prizms = new
        return self

    def gear(self, seat: int, gear: int) -> PositionBuilder:
        """Set ``seat``'s gear (the mover's is 3 unless set)."""
        self._gears[self._seat(seat, f"gear({seat})")] = gear
        return self

    def power_ready(self, seat: int, ready: bool) -> PositionBuilder:
        """Set whether ``seat``'s power is ready (games with Power Prizms)."""
        self._power[self._seat(seat, f"power_ready({seat})")] = ready
        return self

    def to_dict(self) -> dict[str, Any]:
        """The position as the state JSON dict at the mover's move decision (not yet
        validated; ``build()`` then lets the engine ask a power or bonus decision first)."""
        d = copy.deepcopy(self._base)
        d["turn_id"] = NOW
        d["turn"]["id"] = NOW
        # the turn's first decisions are asked again by the engine in build()
        start = d["tasks"].index(["shark", self.mover])
        d["tasks"] = d["tasks"][: start + 1]
        d["decision"] = {"kind": DecisionKind.MOVE.value, "seat": self.mover}
        owned = self.game.supply
        for seat, p in enumerate(d["players"]):
            p["prev_turn"] = PREVIOUS if seat == self.mover else OLDER
            if seat in self._lazers:
                elements, head = self._lazers[seat]
                p["lazer"] = [element_to_dict(e) for e in elements]
                p["head"] = None if head is None else [head.x, head.y, head.h]
                p["supply"] = [list(row) for row in owned]
                for e in elements:
                    if not e.is_launch:
                        p["supply"][e.gear - 1][e.kind] -= 1
        gears = {self.mover: 3, **self._gears}
        for seat, gear in gears.items():
            d["players"][seat]["gear"] = gear
        for seat, ready in self._power.items():
            d["players"][seat]["power_ready"] = ready
        if self._prizms is not None:
            d["prizms"] = [[p.x, p.y, p.owner] for p in self._prizms]
        return d

    def build(self) -> State:
        """Validate the position and return it as a new state at the mover's first decision
        (``InvalidStateError`` naming the problem: more pieces than the supply holds, a Prizm
        off the table ...)."""
        d = self.to_dict()
        for seat, p in enumerate(d["players"]):
            for g, row in enumerate(p["supply"]):
                for k, count in enumerate(row):
                    if count < 0:
                        kind = PieceKind(k).name.lower()
                        raise _bad(
                            f"lazer({seat})",
                            f"{-count} more gear {g + 1} {kind} pieces than the player owns",
                        )
        s = self.game.state_from_dict(d)
        # the start of the turn as the engine plays it: a power, the large-table bonus, the move
        s.decision = None
        s._push(("power", self.mover), ("bonus", self.mover), ("move", self.mover))
        s._reset_caches()
        s._run()
        return s

    def _turn_ids(self, turns: Any, count: int, previous: int, where: str) -> list[int]:
        if previous:
            raise _bad(where, "give previous or turns, not both")
        ids = _listed(turns, where, "turn ids")
        if len(ids) != count:
            raise _bad(where, f"{len(ids)} turn ids for {count} pieces")
        for i, t in enumerate(ids):
            if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t < NOW:
                raise _bad(f"{where}[{i}]", f"expected a turn id 1..{NOW - 1}, got {t!r}")
            if i and t < ids[i - 1]:
                raise _bad(f"{where}[{i}]", f"turn {t} after turn {ids[i - 1]}: ids never decrease")
        return ids

    def _seat(self, seat: int, where: str) -> int:
        n = self.game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise _bad(where, f"expected a seat 0..{n - 1}, got {seat!r}")
        return seat


def _finite(v: Any) -> bool:
    """A finite real number (not a bool)."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def _listed(v: Any, where: str, what: str) -> list[Any]:
    """``v`` (a list, a tuple or another iterable that is no string or mapping) as a list."""
    items = as_sequence(v)
    if items is None:
        raise _bad(where, f"expected {what} (a list), got {v!r}")
    return items


def _first_turn(game: Game, mover: int, seed: int | None) -> State:
    """A real game after Start Your Engines at perimeter position 0, launch noise 0, with
    distinct starting gears that make ``mover`` first (the top gear to it)."""
    n = game.num_players
    gears = [0] * n
    gears[mover] = game.top_gear
    for i, seat in enumerate(s for s in range(n) if s != mover):
        gears[seat] = game.top_gear - 1 - i
    s = game.new_initial_state(seed)
    s.apply_actions({seat: Action.launch(gear, 0.0) for seat, gear in enumerate(gears)})
    while s.chance_kind() is ChanceKind.LAUNCH_NOISE:
        s.apply_chance(0.0)
    if s.turn is None or s.turn.seat != mover:
        raise AssertionError(f"expected seat {mover}'s first turn, got {s.turn}")
    return s
