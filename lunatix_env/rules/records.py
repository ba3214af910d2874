"""The records a Lunatix Loop state is made of: the kinds of decision, chance event and
ending, the rams, one car and its holdings, and the constants of the board's geometry."""

from __future__ import annotations

import enum
import math
from dataclasses import field
from typing import Any, NamedTuple

from tabletop.gamebase import record_to_dict
from tabletop.staterecord import StateRecord, state_record

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


class Decision(NamedTuple):
    """The pending decision: its kind, who decides (``seat``, or ``seats`` at a simultaneous
    node) and the context its kind carries (:data:`DECISION_CONTEXT`). Immutable: a state
    replaces it whole, so copies share it."""

    kind: DecisionKind
    seat: int = -1  # the sequential decider (-1: none, a simultaneous node)
    seats: tuple[int, ...] = ()  # the simultaneous deciders, in increasing order
    deck: str = ""  # luck: "hazard" or "turbo"
    gadget: int = -1  # charge, gadget: the gadget offered (deck index)
    card: int = -1  # luck, gadget: the card drawn (index in its deck)
    where: int = -1  # gadget against a hazard card: TRACK or PIT
    points: int = -1  # shop: points left to spend
    hits: int = -1  # protect: the hits rolled
    dice: int = -1  # gadget against a turbo explosion: its damage dice

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: ``kind``, ``seat`` or ``seats``, and the context that is set (a
        field at its default is not set)."""
        return record_to_dict(self, Decision._fields, Decision._field_defaults)


#: the context fields of each decision kind (besides ``kind`` and ``seat`` or ``seats``); a
#: gadget decision is offered against a hazard card (card, where) or a turbo's dice (dice)
DECISION_CONTEXT: dict[DecisionKind, tuple[frozenset[str], ...]] = {
    **{k: (frozenset(),) for k in DecisionKind},
    DecisionKind.CHARGE: (frozenset({"gadget"}),),
    DecisionKind.SHOP: (frozenset({"points"}),),
    DecisionKind.LUCK: (frozenset({"deck", "card"}),),
    DecisionKind.PROTECT: (frozenset({"hits"}),),
    DecisionKind.GADGET: (frozenset({"gadget", "card", "where"}), frozenset({"gadget", "dice"})),
}


class ChanceKind(enum.Enum):
    """Which chance event is pending."""

    START_DOT = "start_dot"
    DICE = "dice"
    HAZARD = "hazard"
    TURBO = "turbo"
    GADGET = "gadget"


class Chance(NamedTuple):
    """The pending chance event: its kind, the seat it happens to, and the number of damage
    dice of a roll. Immutable: a state replaces it whole, so copies share it."""

    kind: ChanceKind
    seat: int = -1
    n: int = -1  # dice: how many damage dice are rolled

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: ``kind``, ``seat``, and ``n`` for a dice roll."""
        return record_to_dict(self, Chance._fields, Chance._field_defaults)


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


@state_record()
class Car(StateRecord):
    """One car and its player's holdings (mutable; copied by ``State.clone``)."""

    seat: int
    square: int = -1  # -1 before the start dot is dealt; the square otherwise
    facing: int = 0  # 0 counter-clockwise (race direction), 1 clockwise
    speed: int = 0
    max_speed: int = 0
    luck: int = 0
    chips: list[int] = field(default_factory=lambda: [0, 0, 0])  # held, by chip kind
    gadgets: list[int] = field(default_factory=list)
    spent: list[int] = field(default_factory=list)
    lunacies: list[int] = field(default_factory=list)
    in_pit: bool = False
    pit_opening: int = -1
    pit_order: int = 0
    u: float = 0.0  # unwrapped progress in the race direction (middle-lane squares)
    best_u: float = 0.0  # high-water mark of u
    owed: int = 0  # extra laps owed after a pit pass completed the last lap
    out: bool = False


class RamCard(enum.Enum):
    """Where the turn's Ram card (or Battering Ram) stands: none played, its ram still to
    make (offered when the car reaches a target), or made."""

    NONE = 0
    READY = 1
    MADE = 2


@state_record()
class CarTurn(StateRecord):
    """The turn in progress: whose it is and what it has done (mutable; the move updates
    it step by step)."""

    seat: int
    steps: int = 0  # squares moved so far
    over: bool = False  # the move has ended (speed spent, a wall, a spin, a blocked exit)
    ram: RamCard = RamCard.NONE
    battering: bool = False  # the ram is Battering Ram's (a gadget, not the card)
    drop_kind: int = -1  # the chip kind the Drop card drops (-1: not dropping)
    drops: int = 0  # chips dropped so far
    ignore_max: bool = False  # a turbo turn: speed may exceed max until the turn ends
    rocket: bool = False  # a Rocket turn: flies over cars and chips


def laps_done(best_u: float, length: float) -> int:
    """Completed laps for a high-water mark ``best_u`` on a lap of ``length``."""
    return max(0, math.floor(best_u / length + 1e-9))
