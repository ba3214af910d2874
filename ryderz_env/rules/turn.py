"""Rounds and a rider's turn: powers, the large-table bonus, shifting and moving, the curve
die, Lazer Shark's straight, and pieces laid and pulled."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ryderz_env.rules.actions import Action, ActionKind, Move
from ryderz_env.rules.config import Character, PieceKind
from ryderz_env.rules.events import RyderzEvent as E
from ryderz_env.rules.geometry import (
    Pose,
    make_element,
)
from tabletop.errors import InvalidStateError

if TYPE_CHECKING:
    pass
from ryderz_env.rules.crash import Crash
from ryderz_env.rules.records import (
    _PIECE_KINDS,
    HARD,
    SOFT,
    STRAIGHT,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    RiderTurn,
)


class Turn(Crash):
    """Rounds, turns and pieces."""

    # ------------------------------------------------------------------ rounds
    def _t_round_start(self) -> None:
        r = self.game.rules
        if self.round >= r.round_limit:
            self._end(Outcome.TRUNCATED)
            return
        self.round += 1
        n = len(self.players)
        self.order = sorted(range(n), key=lambda s: (-self.players[s].gear, (s - self.marker) % n))
        if self.events is not None:
            self._event(E.ROUND, None, round=self.round, order=list(self.order))
        self._push(*[("turn", s) for s in self.order], ("round_end",))

    def _t_round_end(self) -> None:
        self.marker = (self.marker + 1) % len(self.players)
        self._push(("round_start",))

    def _t_turn(self, seat: int) -> None:
        self.turn_id += 1
        self.turn = RiderTurn(seat=seat, id=self.turn_id)
        self._push(
            ("power", seat),
            ("bonus", seat),
            ("move", seat),
            ("shark", seat),
            ("resolve", seat),
            ("turn_end", seat),
        )

    def _t_power(self, seat: int) -> None:
        if self._power_ready(seat, Character.SUPER_SHERIFF) or self._power_ready(
            seat, Character.PHANTOM_COSMONAUT
        ):
            self.decision = Decision(DecisionKind.POWER, seat)

    def _d_power(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        a = acts[seat]
        if a.kind is ActionKind.DECLINE:
            return
        self.players[seat].power_ready = False
        if a.kind is ActionKind.PHANTOM:
            cast("RiderTurn", self.turn).phantom = True
            if self.events is not None:
                self._event(E.POWER, seat, power="Phantom Cosmonaut")
        else:
            target = self.players[a.arg // 2]
            target.gear = self.game.top_gear if a.arg % 2 else 1
            if self.events is not None:
                self._event(
                    E.POWER, seat, power=f"Super Sheriff: seat {target.seat} to gear {target.gear}"
                )

    def _t_bonus(self, seat: int) -> None:
        p = self.players[seat]
        g = self.game
        lp = p.lazer[0] if len(p.lazer) == 1 and p.lazer[0].is_launch else None
        if lp is None or p.head != lp.exit or p.supply[g.top_gear - 1][STRAIGHT] == 0:
            return
        far = g.rules.odd_table.large_far_sides
        if (g.large_table and not far) or (far and g.table.on_far_side(lp.t)):
            self.decision = Decision(DecisionKind.BONUS, seat)

    def _d_bonus(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        if acts[seat].kind is ActionKind.BONUS:
            self._place(seat, STRAIGHT, self.game.top_gear, 0)

    def _t_move(self, seat: int) -> None:
        self.decision = Decision(DecisionKind.MOVE, seat)

    def _d_move(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        a = acts[seat]
        p = self.players[seat]
        p.gear += a.shift
        if a.shift:
            if self.events is not None:
                self._event(E.SHIFT, seat, gear=p.gear)
        move = a.move_kind
        if move is Move.STRAIGHT:
            self._place_straight(seat, p.gear)
        elif move.is_wave:
            p.power_ready = False
            if self.events is not None:
                self._event(E.POWER, seat, power="Galactic Waveryder")
            for side in move.sides:
                self._place_curve(seat, p.gear, HARD, side, hard_only=True)
        else:
            kind = SOFT if move in (Move.SOFT_LEFT, Move.SOFT_RIGHT) else HARD
            self.chance = Chance(ChanceKind.DIE, seat, curve=int(kind), side=move.sides[0])

    def _c_die(self, ch: Chance, roll: int) -> None:
        seat = ch.seat
        p = self.players[seat]
        cast("RiderTurn", self.turn).roll = roll
        if self.events is not None:
            self._event(E.DIE, seat, roll=roll, spin=": Spin Out" if roll == 0 else "")
        if roll == 0 or roll >= p.gear:
            self._place_curve(seat, p.gear, _PIECE_KINDS[ch.curve], ch.side)
            if roll == 0:
                p.gear = 1  # Spin Out
        else:
            self._place_straight(seat, p.gear)

    def _t_shark(self, seat: int) -> None:
        if self.status is Outcome.IN_PROGRESS and self._power_ready(seat, Character.LAZER_SHARK):
            self.decision = Decision(DecisionKind.SHARK, seat)

    def _d_shark(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        if acts[seat].kind is not ActionKind.SHARK:
            return
        p = self.players[seat]
        p.power_ready = False
        cast("RiderTurn", self.turn).shark = True
        if self.events is not None:
            self._event(E.POWER, seat, power="Lazer Shark")
        gear = self._pick(seat, self.game.top_gear, (STRAIGHT,))  # the longest there is
        self._place(seat, STRAIGHT, gear, 0)

    # ------------------------------------------------------------------ pieces
    def _pick(self, seat: int, gear: int, kinds: tuple[PieceKind, ...]) -> int:
        """The gear of the piece to use, pulling the oldest pieces off the Lazer until one
        is free: ``kinds`` in order within a gear, from ``gear`` down to 1 (the FAQ)."""
        p = self.players[seat]
        while True:
            for g in range(gear, 0, -1):
                for k in kinds:
                    if p.supply[g - 1][k] > 0:
                        return g
            if not p.lazer:
                raise InvalidStateError(f"seat {seat} has no piece of {kinds} at all")
            self._pull_oldest(seat)

    def _pick_kind(
        self, seat: int, gear: int, kinds: tuple[PieceKind, ...]
    ) -> tuple[int, PieceKind]:
        p = self.players[seat]
        g = self._pick(seat, gear, kinds)
        return g, next(k for k in kinds if p.supply[g - 1][k] > 0)

    def _pull_oldest(self, seat: int) -> None:
        p = self.players[seat]
        el = p.lazer.pop(0)
        if self.events is not None:
            self._event(E.PULLED, seat, launch_point=el.is_launch)
        if not el.is_launch:
            p.supply[el.gear - 1][el.kind] += 1
        self._table_changed(removed=[[el]])

    def _place_straight(self, seat: int, gear: int) -> None:
        if self.status is not Outcome.IN_PROGRESS:
            return
        self._place(seat, STRAIGHT, self._pick(seat, gear, (STRAIGHT,)), 0)

    def _place_curve(
        self, seat: int, gear: int, kind: PieceKind, side: int, hard_only: bool = False
    ) -> None:
        if self.status is not Outcome.IN_PROGRESS:
            return
        kinds = (HARD,) if hard_only else (kind, SOFT if kind is HARD else HARD)
        g, k = self._pick_kind(seat, gear, kinds)
        self._place(seat, k, g, side)

    def _place(self, seat: int, kind: PieceKind, gear: int, side: int) -> None:
        """Put a piece from the supply on the head; then check it for scoring."""
        if self.status is not Outcome.IN_PROGRESS:
            return
        p = self.players[seat]
        shape = self.game.shapes[(kind, gear, side)]
        head = cast(Pose, p.head)  # a piece goes on a Lazer that has a head
        el = make_element(seat, kind, gear, side, head, self.turn_id, shape.outline, shape.exit)
        p.supply[gear - 1][kind] -= 1
        p.lazer.append(el)
        p.head = el.exit
        self._table_changed(el)
        if self.events is not None:
            side_name = "" if not side else (" left" if side > 0 else " right")
            if self.events is not None:
                self._event(
                    E.PIECE,
                    seat,
                    gear=gear,
                    piece=kind.name.lower() + side_name,
                    x=head.x,
                    y=head.y,
                    heading=head.h,
                )
        self._score_piece(seat, el)
