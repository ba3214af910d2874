"""Actions of Lunatix Loop and the bijective codec onto one flat discrete space.

Every decision of the game (chip mix, card choice, amounts, each step of a move, rams,
luck, gadgets, pit purchases, pit exit, Turn Around) is an :class:`Action`: a kind and a
small integer argument. :class:`ActionCodec` numbers all actions of a game, with NOOP at 0.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from lunatix_env.rules.config import NUMBERED_GADGETS, Decks, HazardEffect, RulesConfig

CHIP_NAMES = ("tacks", "oil", "glue")
DIR_NAMES = ("front-left", "front", "front-right")


class Card(enum.IntEnum):
    """The basic action cards (gadget cards are played with ``PLAY_GADGET``)."""

    RAM = 0
    BRAKE = 1
    DROP = 2
    ACCELERATE = 3
    TURN_AROUND = 4


class ShopItem(enum.IntEnum):
    """Pit purchases other than counseling (``COUNSEL`` carries the lunacy)."""

    REPAIR = 0
    GADGET = 1
    TACKS = 2
    OIL = 3
    GLUE = 4
    DONE = 5


class ActionKind(enum.IntEnum):
    """The kinds of action; ``Action.arg`` says which one of the kind."""

    NOOP = 0
    CHIP_MIX = 1  # arg: index into ActionCodec.chip_mixes
    CARD = 2  # arg: Card
    PLAY_GADGET = 3  # arg: gadget index (numbered gadgets only)
    BRAKE = 4  # arg: amount in mph
    ACCELERATE = 5  # arg: amount in mph
    TURBO = 6  # arg: 0
    CHARGE = 7  # arg: amount in mph (Charger)
    DROP_KIND = 8  # arg: chip kind 0 tacks, 1 oil, 2 glue
    STEP = 9  # arg: direction * 2 + drop (direction 0 front-left, 1 front, 2 front-right)
    ENTER_PIT = 10  # arg: drop (0/1) into the opening square being left
    EXIT_PIT = 11  # arg: opening index
    RAM = 12  # arg: direction of the target (0 front-left, 1 front, 2 front-right)
    LUCK = 13  # arg: 0 keep the card, 1 spend a luck chip
    USE_GADGET = 14  # arg: gadget index (a gray gadget used now)
    DECLINE = 15  # arg: 0 (do not use a protecting gadget)
    KEEP_GADGET = 16  # arg: gadget index
    DISCARD_GADGET = 17  # arg: gadget index
    SHOP = 18  # arg: ShopItem
    COUNSEL = 19  # arg: hazard card index of the lunacy cured
    TURN_AROUND = 20  # arg: 0 U-turn, 1 bootlegger


class Action(NamedTuple):
    """One action: a kind and its argument (a tuple, so hashing and equality run in C)."""

    kind: ActionKind
    arg: int = 0

    def __str__(self) -> str:
        try:
            return self._text()
        except (IndexError, ValueError, AttributeError, TypeError):  # not an action of ours
            return f"action(kind={self.kind!r}, arg={self.arg!r})"

    def _text(self) -> str:
        k, a = self.kind, self.arg
        if k is ActionKind.STEP:
            return f"step {DIR_NAMES[a // 2]}" + (" + drop" if a % 2 else "")
        if k is ActionKind.ENTER_PIT:
            return "enter pit" + (" + drop" if a else "")
        if k is ActionKind.RAM:
            return f"ram {DIR_NAMES[a]}"
        if k is ActionKind.CARD:
            return f"card {Card(a).name.lower()}"
        if k is ActionKind.DROP_KIND:
            return f"drop {CHIP_NAMES[a]}"
        if k is ActionKind.SHOP:
            return f"buy {ShopItem(a).name.lower()}"
        if k in (ActionKind.NOOP, ActionKind.TURBO, ActionKind.DECLINE):
            return k.name.lower()
        return f"{k.name.lower()} {a}"


NOOP = Action(ActionKind.NOOP)
#: prebuilt actions of the hot decisions (building a NamedTuple runs Python code)
STEP_ACTIONS = tuple(Action(ActionKind.STEP, i) for i in range(6))
ENTER_PIT_ACTIONS = (Action(ActionKind.ENTER_PIT, 0), Action(ActionKind.ENTER_PIT, 1))
RAM_ACTIONS = tuple(Action(ActionKind.RAM, d) for d in range(3))
CARD_ACTIONS = tuple(Action(ActionKind.CARD, int(c)) for c in Card)


def chip_mixes(rules: RulesConfig) -> tuple[tuple[int, int, int], ...]:
    """Every (tacks, oil, glue) mix summing to ``chips_per_player``, in lexicographic order."""
    n = rules.chips_per_player
    return tuple((t, o, n - t - o) for t in range(n + 1) for o in range(n + 1 - t))


class ActionCodec:
    """Numbers every action of a game: ``NOOP`` is 0, the rest in a fixed order."""

    def __init__(self, rules: RulesConfig, decks: Decks, num_openings: int) -> None:
        self.chip_mixes = chip_mixes(rules)
        acts: list[Action] = [NOOP]
        acts += [Action(ActionKind.CHIP_MIX, i) for i in range(len(self.chip_mixes))]
        acts += [Action(ActionKind.CARD, int(c)) for c in Card]
        acts += [
            Action(ActionKind.PLAY_GADGET, i)
            for i, g in enumerate(decks.gadgets)
            if g.effect in NUMBERED_GADGETS
        ]
        acts += [Action(ActionKind.BRAKE, a) for a in rules.brake_amounts]
        acts += [Action(ActionKind.ACCELERATE, a) for a in rules.accelerate_amounts]
        acts += [Action(ActionKind.TURBO)]
        charge = sorted({a for g in decks.gadgets for a in g.amounts})
        acts += [Action(ActionKind.CHARGE, a) for a in charge]
        acts += [Action(ActionKind.DROP_KIND, k) for k in range(3)]
        acts += [Action(ActionKind.STEP, a) for a in range(6)]
        acts += [Action(ActionKind.ENTER_PIT, d) for d in range(2)]
        acts += [Action(ActionKind.EXIT_PIT, i) for i in range(num_openings)]
        acts += [Action(ActionKind.RAM, d) for d in range(3)]
        acts += [Action(ActionKind.LUCK, i) for i in range(2)]
        acts += [Action(ActionKind.USE_GADGET, i) for i in range(len(decks.gadgets))]
        acts += [Action(ActionKind.DECLINE)]
        acts += [Action(ActionKind.KEEP_GADGET, i) for i in range(len(decks.gadgets))]
        acts += [Action(ActionKind.DISCARD_GADGET, i) for i in range(len(decks.gadgets))]
        acts += [Action(ActionKind.SHOP, int(s)) for s in ShopItem]
        acts += [
            Action(ActionKind.COUNSEL, i)
            for i, c in enumerate(decks.hazard)
            if c.effect is HazardEffect.LUNACY
        ]
        acts += [Action(ActionKind.TURN_AROUND, i) for i in range(2)]
        self.actions: tuple[Action, ...] = tuple(acts)
        self.index: dict[Action, int] = {a: i for i, a in enumerate(acts)}

    def __len__(self) -> int:
        return len(self.actions)

    def encode(self, action: Action) -> int:
        """The int of ``action``; raises KeyError for an action outside this game."""
        return self.index[action]

    def decode(self, index: int) -> Action:
        """The action numbered ``index``."""
        return self.actions[index]
