"""The tasks of the Lunatix Loop machine (:mod:`tabletop.tasks`): one typed tuple
``(kind, *fields)`` per kind, queued as a tuple literal (``("hazards", seat, cards, TRACK)``,
checked by mypy against ``Task``) and run by ``State._t_<kind>`` with the fields as its
arguments. Seats are seat indices; ``where`` is ``TRACK`` (0) or ``PIT`` (1), where hazard
cards are applied."""

from __future__ import annotations

from typing import Literal, get_args

#: Start a round (or end the game: every car out, or the round limit reached): ask every live seat
#: for its card (simultaneous).
RoundStart = tuple[Literal["round_start"]]

#: End a round: the next one starts.
RoundEnd = tuple[Literal["round_end"]]

#: Ask every seat for its starting chip mix (simultaneous).
ChipMix = tuple[Literal["chip_mix"]]

#: (seat): Deal ``seat`` its start dot (chance).
DealDot = tuple[Literal["deal_dot"], int]

#: (seat): ``seat``'s turn: act on its revealed card (a ram to make, a decision to ask, a gadget's
#: effect), then move.
Turn = tuple[Literal["turn"], int]

#: The mover's next step (repeated until its move is over).
Move = tuple[Literal["move"]]

#: (seat): End ``seat``'s turn (a turbo turn's speed is clamped to the max).
EndTurn = tuple[Literal["end_turn"], int]

#: (seat): ``seat`` leaves the pit by an exit it chooses (or stays: no speed, or every exit
#: blocked).
PitExit = tuple[Literal["pit_exit"], int]

#: (seat, amount): ``seat`` gained ``amount`` of speed: above its square's curve rating, it draws
#: hazard cards for the gain.
CurveAccel = tuple[Literal["curve_accel"], int, int]

#: (seat, speed): ``seat``'s speed becomes ``speed`` (at most its max).
SetSpeed = tuple[Literal["set_speed"], int, int]

#: (seat, square): ``seat``'s car meets the chip on ``square`` if one is still there (tacks: damage
#: dice; oil: hazard cards; glue: speed lost).
Chip = tuple[Literal["chip"], int, int]

#: (seat, cards, where): ``seat`` draws ``cards`` hazard cards into a new batch, then applies it on
#: the track or in the pit (``where``).
Hazards = tuple[Literal["hazards"], int, int, int]

#: (seat): Draw one hazard card into ``seat``'s batch (chance).
DrawHazard = tuple[Literal["draw_hazard"], int]

#: (seat, where): Apply the batch of hazard cards drawn for ``seat`` (``where``: track or pit).
ApplyHazards = tuple[Literal["apply_hazards"], int, int]

#: (seat, where): ``seat``'s car skids one lane outwards (into a wall or a car: damage instead).
Skid = tuple[Literal["skid"], int, int]

#: (seat, dice): Roll ``dice`` damage dice against ``seat``'s car.
Damage = tuple[Literal["damage"], int, int]

#: (seat): Draw a turbo card for ``seat`` (chance).
Turbo = tuple[Literal["turbo"], int]

#: (seat, card): Apply the turbo card ``card`` drawn for ``seat``.
TurboApply = tuple[Literal["turbo_apply"], int, int]

#: (seat, points): ``seat`` spends ``points`` in the pit shop, one item per decision.
Shop = tuple[Literal["shop"], int, int]

#: (seat): Draw a gadget into ``seat``'s offer (chance; from the bottom pile once the top is
#: empty).
GadgetDraw = tuple[Literal["gadget_draw"], int]

#: (seat): ``seat`` keeps a gadget of its offer (asked when there are several).
GadgetChoose = tuple[Literal["gadget_choose"], int]

#: (seat): ``seat`` discards a gadget when it holds more than the hand limit.
HandLimit = tuple[Literal["hand_limit"], int]

Task = (
    RoundStart
    | RoundEnd
    | ChipMix
    | DealDot
    | Turn
    | Move
    | EndTurn
    | PitExit
    | CurveAccel
    | SetSpeed
    | Chip
    | Hazards
    | DrawHazard
    | ApplyHazards
    | Skid
    | Damage
    | Turbo
    | TurboApply
    | Shop
    | GadgetDraw
    | GadgetChoose
    | HandLimit
)
#: every kind of task, in the order of ``Task``
TASKS: tuple[object, ...] = get_args(Task)
