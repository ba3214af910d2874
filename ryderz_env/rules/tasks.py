"""The tasks of the Lazer Ryderz machine (:mod:`tabletop.tasks`): one typed tuple
``(kind, *fields)`` per kind, queued as a tuple literal (``("launch", seat, x)``, checked by
mypy against ``Task``) and run by ``State._t_<kind>`` with the fields as its arguments."""

from __future__ import annotations

from typing import Literal, get_args

#: (attempt): Start Your Engines: every seat chooses a gear and a Launch Point (simultaneous);
#: ``attempt`` counts the redos before it (0 the first time).
Engines = tuple[Literal["engines"], int]

#: (seat, x): Place ``seat``'s Launch Point aimed at ``x`` (-1..1 along its reach; a blind
#: placement draws its offset first, a chance event).
Launch = tuple[Literal["launch"], int, float]

#: Start a round (or end the game at the round limit): queue the turns from the seat after the
#: Tie-Breaker Marker.
RoundStart = tuple[Literal["round_start"]]

#: End a round: the marker passes on and the next round starts.
RoundEnd = tuple[Literal["round_end"]]

#: (seat): Start ``seat``'s turn (a new turn record) and queue its steps.
Turn = tuple[Literal["turn"], int]

#: (seat): Ask ``seat`` whether to use Super Sheriff or Phantom Cosmonaut, when ready.
Power = tuple[Literal["power"], int]

#: (seat): Large table: offer ``seat`` the longest straight before its first piece.
Bonus = tuple[Literal["bonus"], int]

#: (seat): Ask ``seat`` for its shift and move.
Move = tuple[Literal["move"], int]

#: (seat): Ask ``seat`` whether to place Lazer Shark's extra straight, when ready.
Shark = tuple[Literal["shark"], int]

#: (seat): After ``seat``'s move: nudges, the crash rule, a respawn and the Prizm tosses.
Resolve = tuple[Literal["resolve"], int]

#: (seat): Ask ``seat``, who crashed, for a gear and a Launch Point.
Respawn = tuple[Literal["respawn"], int]

#: Toss a fresh neutral Prizm onto the table (chance).
Toss = tuple[Literal["toss"]]

#: (seat): End ``seat``'s turn.
TurnEnd = tuple[Literal["turn_end"], int]

Task = (
    Engines
    | Launch
    | RoundStart
    | RoundEnd
    | Turn
    | Power
    | Bonus
    | Move
    | Shark
    | Resolve
    | Respawn
    | Toss
    | TurnEnd
)
#: every kind of task, in the order of ``Task``
TASKS: tuple[object, ...] = get_args(Task)
