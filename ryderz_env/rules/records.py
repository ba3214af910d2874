"""The records a Lazer Ryderz state is made of: the kinds of decision, chance event and
ending, a Prizm, a player and its Lazer, and the constants of the scoring geometry."""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any, NamedTuple

from ryderz_env.rules.config import PieceKind
from ryderz_env.rules.geometry import (
    Element,
    Pose,
)
from tabletop.gamebase import record_to_dict
from tabletop.staterecord import StateRecord, state_record

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


class Decision(NamedTuple):
    """The pending decision: its kind and who decides (``seat``, or ``seats`` at Start Your
    Engines, with its ``attempt``). Immutable: a state replaces it whole, so copies share
    it."""

    kind: DecisionKind
    seat: int = -1  # the sequential decider (-1: none, a simultaneous node)
    seats: tuple[int, ...] = ()  # the simultaneous deciders, in increasing order
    attempt: int = -1  # engines: how many redos came before (0 the first time)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: ``kind``, ``seat`` or ``seats``, and ``attempt`` when set."""
        return record_to_dict(self, Decision._fields, Decision._field_defaults)


class ChanceKind(enum.Enum):
    """The chance events; DIE and DEAL_GEARS are discrete, the others continuous."""

    DEAL_GEARS = "deal_gears"  # after the last all-stall redo: distinct gears at random
    LAUNCH_NOISE = "launch_noise"  # blind placement: offset along the edge (inches)
    DIE = "die"  # the curve die: a face value, 0 for Spin Out
    TOSS = "toss"  # a fresh neutral Prizm lands at (x, y)


class Chance(NamedTuple):
    """The pending chance event: its kind and what its kind carries (a field at its default
    is not set). Immutable: a state replaces it whole, so copies share it."""

    kind: ChanceKind
    seat: int = -1  # die, launch noise: the seat it happens to
    x: float | None = None  # launch noise: the aimed position along the seat's reach, -1..1
    curve: int = -1  # die: the curve attempted (a PieceKind value)
    side: int = 0  # die: 1 left, -1 right
    spots: tuple[tuple[int, float], ...] = ()  # gear deal: (seat, aimed x) in seat order

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: ``kind`` and the fields of its kind."""
        return record_to_dict(self, Chance._fields, Chance._field_defaults)


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


@state_record(json=False)
class Player(StateRecord):
    """One Ryder: gear, supply, power, and its Lazer (oldest element first; elements are
    immutable, so copies share them). Its JSON form is the serializer's (poses and pieces)."""

    seat: int
    supply: list[list[int]]  # supply[gear - 1][kind]: pieces off the table
    power_ready: bool
    gear: int = 1
    stalled: bool = False
    lazer: list[Element] = field(default_factory=list)
    head: Pose | None = None  # the front pose; None with no Lazer on the table
    prev_turn: int = -1  # the id of this player's previous turn


@state_record()
class RiderTurn(StateRecord):
    """The turn in progress: whose it is, its id, and what has happened in it (mutable)."""

    seat: int
    id: int  # turns are numbered from 1 in the order they start (the state's turn_id)
    phantom: bool = False  # Phantom Cosmonaut's power is used: no crash this turn
    shark: bool = False  # Lazer Shark's extra straight was placed
    scored: list[int] = field(default_factory=list)  # Prizms scored this turn, in order
    tosses: int = 0  # fresh Prizms to toss once the turn's crashes are resolved
    roll: int | None = None  # the curve die's face this turn (0 Spin Out; None: no roll)


_PIECE_KINDS = tuple(sorted(PieceKind))  # by value (0, 1, 2, ...)
