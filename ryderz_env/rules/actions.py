"""Actions of Lazer Ryderz and the bijective codec of their discrete part.

An :class:`Action` is a kind, a small integer argument and, for a Launch Point, a continuous
position ``x`` in [-1, 1] along the stretch within the player's reach (-1 its right end, +1
its left end, 0 straight in front of the seat). The codec numbers the discrete part (kind and
argument) with NOOP at 0; ``x`` travels beside it.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

SHIFTS = (-1, 0, 1)
SHIFT_NAMES = ("down", "stay", "up")


class ActionKind(enum.IntEnum):
    """The kinds of action; ``Action.arg`` says which one of the kind."""

    NOOP = 0
    LAUNCH = 1  # arg: gear; x: Launch Point position in [-1, 1]
    DECLINE = 2  # arg: 0 (decline a power or the large-table bonus)
    PHANTOM = 3  # arg: 0 (Phantom Cosmonaut: no crash step this turn)
    SHERIFF = 4  # arg: target seat * 2 + (0 to 1st gear, 1 to top gear)
    BONUS = 5  # arg: 0 (large table: a 5th-gear straight first)
    MOVE = 6  # arg: shift index * len(Move) + Move
    SHARK = 7  # arg: 0 (Lazer Shark: add the longest straight)


class Move(enum.IntEnum):
    """The move part of the shift-and-move decision (a curve attempt names kind and side)."""

    STRAIGHT = 0
    SOFT_LEFT = 1
    SOFT_RIGHT = 2
    HARD_LEFT = 3
    HARD_RIGHT = 4
    WAVE_LEFT_LEFT = 5  # Galactic Waveryder: two hard turns, a direction for each
    WAVE_LEFT_RIGHT = 6
    WAVE_RIGHT_LEFT = 7
    WAVE_RIGHT_RIGHT = 8

    @property
    def is_curve(self) -> bool:
        """A curve attempt (rolls the die)."""
        return Move.SOFT_LEFT <= self <= Move.HARD_RIGHT

    @property
    def is_wave(self) -> bool:
        """Waveryder's power move."""
        return self >= Move.WAVE_LEFT_LEFT

    @property
    def sides(self) -> tuple[int, ...]:
        """The turn direction of each curve (+1 left, -1 right)."""
        if self.is_curve:
            return (1 if self in (Move.SOFT_LEFT, Move.HARD_LEFT) else -1,)
        if self.is_wave:
            w = self - Move.WAVE_LEFT_LEFT
            return (1 if w < 2 else -1, 1 if w % 2 == 0 else -1)
        return ()


class Action(NamedTuple):
    """One action: kind, argument and (Launch Point only) position ``x`` in [-1, 1]."""

    kind: ActionKind
    arg: int = 0
    x: float = 0.0

    @staticmethod
    def move(shift: int, move: Move) -> Action:
        """A shift-and-move action; ``shift`` is -1, 0 or +1."""
        return Action(ActionKind.MOVE, SHIFTS.index(shift) * len(Move) + int(move))

    @staticmethod
    def launch(gear: int, x: float) -> Action:
        """A Launch Point at ``x`` in [-1, 1] with a starting ``gear``."""
        return Action(ActionKind.LAUNCH, gear, float(x))

    @staticmethod
    def sheriff(target: int, top: bool) -> Action:
        """Super Sheriff sends ``target`` to top gear (``top``) or to 1st."""
        return Action(ActionKind.SHERIFF, target * 2 + int(top))

    @property
    def shift(self) -> int:
        """A MOVE action's shift (-1, 0, +1)."""
        return SHIFTS[self.arg // len(Move)]

    @property
    def move_kind(self) -> Move:
        """A MOVE action's move."""
        return Move(self.arg % len(Move))

    def __str__(self) -> str:
        try:
            return self._text()
        except (IndexError, ValueError, AttributeError, TypeError):  # not an action of ours
            return f"action(kind={self.kind!r}, arg={self.arg!r}, x={self.x!r})"

    def _text(self) -> str:
        k, a = self.kind, self.arg
        if k is ActionKind.LAUNCH:
            return f"launch in gear {a} at {self.x:+.3f}"
        if k is ActionKind.MOVE and 0 <= a < len(SHIFTS) * len(Move):
            return f"shift {SHIFT_NAMES[a // len(Move)]}, {self.move_kind.name.lower()}"
        if k is ActionKind.SHERIFF and a >= 0:
            return f"sheriff: seat {a // 2} to {'top' if a % 2 else '1st'} gear"
        if a:
            return f"{k.name.lower()} {a}"
        return k.name.lower()


NOOP = Action(ActionKind.NOOP)


class ActionCodec:
    """Numbers every discrete action of a game; NOOP is 0. ``x`` is not part of the index."""

    def __init__(self, num_players: int, num_gears: int) -> None:
        acts = [NOOP]
        acts += [Action(ActionKind.LAUNCH, g) for g in range(1, num_gears + 1)]
        acts += [Action(ActionKind.DECLINE), Action(ActionKind.PHANTOM)]
        acts += [Action(ActionKind.SHERIFF, i) for i in range(2 * num_players)]
        acts += [Action(ActionKind.BONUS)]
        acts += [Action(ActionKind.MOVE, i) for i in range(len(SHIFTS) * len(Move))]
        acts += [Action(ActionKind.SHARK)]
        self.actions = tuple(acts)
        self.index = {(a.kind, a.arg): i for i, a in enumerate(acts)}

    def __len__(self) -> int:
        return len(self.actions)

    def encode(self, action: Action) -> int:
        """The index of ``action``'s discrete part (KeyError if it has none)."""
        return self.index[(action.kind, action.arg)]

    def decode(self, index: int, x: float = 0.0) -> Action:
        """The action at ``index`` (with position ``x`` for a Launch Point)."""
        a = self.actions[index]
        return a._replace(x=float(x)) if a.kind is ActionKind.LAUNCH else a
