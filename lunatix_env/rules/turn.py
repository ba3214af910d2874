"""Setup, rounds and a car's turn: start dots, the chip mix, the card reveal and turn order,
braking, accelerating, dropping chips, Turn Around, moving square by square, rams, and the
end of the turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from lunatix_env.rules.actions import (
    CHIP_NAMES,
    Action,
    ActionKind,
    Card,
)
from lunatix_env.rules.config import GadgetEffect
from lunatix_env.rules.events import LunatixEvent as E

if TYPE_CHECKING:
    pass

from lunatix_env.rules.legal import _between
from lunatix_env.rules.pit import Pit
from lunatix_env.rules.records import (
    FORWARD,
    TRACK,
    Car,
    CarTurn,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    RamCard,
    RamKind,
)


class Turn(Pit):
    """Setup, rounds, a car's turn and its movement."""

    # ------------------------------------------------------------------ chance
    def _free_dots(self) -> list[int]:
        used = {c.square for c in self.cars}
        return [i for i, sq in enumerate(self.game.track.start_dots) if sq not in used]

    # ------------------------------------------------------------------ setup
    def _t_deal_dot(self, seat: int) -> None:
        self.chance = Chance(ChanceKind.START_DOT, seat)

    def _c_start_dot(self, ch: Chance, dot: int) -> None:
        car = self.cars[ch.seat]
        sq = self.game.track.start_dots[dot]
        car.square = sq
        car.u = car.best_u = self.game.track.wrap(self.game.track.s[sq])
        if self.events is not None:
            self._event(E.START_DOT, car.seat, square=sq)

    def _t_chip_mix(self) -> None:
        self.decision = Decision(DecisionKind.CHIP_MIX, seats=tuple(range(len(self.cars))))

    def _d_chip_mix(self, d: Decision, acts: dict[int, Action]) -> None:
        for seat in sorted(acts):
            mix = self.game.codec.chip_mixes[acts[seat].arg]
            for k in range(3):
                self.cars[seat].chips[k] += mix[k]
                self.supply[k] -= mix[k]
            if self.events is not None:
                self._event(E.CHIPS, seat, tacks=mix[0], oil=mix[1], glue=mix[2])

    # ------------------------------------------------------------------ rounds
    def _t_round_start(self) -> None:
        live = self._live_seats()
        if not live:
            self._end(Outcome.ALL_OUT)
            return
        if self.round >= self.game.rules.round_limit:
            self._end(Outcome.TRUNCATED)
            return
        self.round += 1
        if self.events is not None:
            self._event(E.ROUND, None, round=self.round)
        self.cards = [None] * len(self.cars)
        self.order = []
        self.decision = Decision(DecisionKind.CARD, seats=tuple(live))

    def _d_card(self, d: Decision, acts: dict[int, Action]) -> None:
        g = self.game
        for seat in sorted(acts):
            a = acts[seat]
            self.cards[seat] = g.codec.encode(a)
            if self.events is not None:
                played = a.kind is ActionKind.PLAY_GADGET
                card = f"gadget {g.decks.gadgets[a.arg].name}" if played else str(a)
                self._event(E.CARD, seat, card=card)
            if a.kind is ActionKind.PLAY_GADGET:
                car = self.cars[seat]
                car.gadgets.remove(a.arg)
                car.spent.append(a.arg)
        self.order = sorted(acts, key=self._order_key)
        if self.events is not None:
            self._event(E.ORDER, None, order=list(self.order))
        self._push(*[("turn", seat) for seat in self.order], ("round_end",))

    def card_number(self, action: Action) -> int:
        """The number printed on a played card (lower acts first)."""
        if action.kind is ActionKind.PLAY_GADGET:
            num = self.game.decks.gadgets[action.arg].card_number
            assert num is not None
            return num
        cn = self.game.rules.card_numbers
        return (cn.ram, cn.brake, cn.drop, cn.accelerate, cn.turn_around)[action.arg]

    def _order_key(self, seat: int) -> tuple[int, int, float, int, int, int]:
        car = self.cars[seat]
        card = self.game.codec.decode(self.cards[seat])  # type: ignore[arg-type]
        lane = 0 if car.in_pit else self.game.track.lane[car.square]
        pit = car.pit_order if car.in_pit else -1
        return (self.card_number(card), -car.speed, -round(car.u, 6), lane, pit, seat)

    def _t_round_end(self) -> None:
        self._push(("round_start",))

    # ------------------------------------------------------------------ a car's turn
    def _t_turn(self, seat: int) -> None:
        car = self.cars[seat]
        if car.out:
            return
        card = self.game.codec.decode(self.cards[seat])  # type: ignore[arg-type]
        self.turn = CarTurn(seat=seat)
        self._push(("move",), ("end_turn", seat))
        if car.in_pit:
            self._start_pit_turn(car, card)
            return
        steps = self._steps(car.speed)
        if card.kind is ActionKind.CARD:
            c = Card(card.arg)
            if c is Card.RAM and self._ram_reachable(car, car.square, steps):
                self.turn.ram = RamCard.READY
            elif c is Card.BRAKE and car.speed > 0:
                self._ask(DecisionKind.BRAKE, seat)
            elif c is Card.DROP and self._can_drop(car):
                self._ask(DecisionKind.DROP_KIND, seat)
            elif c is Card.ACCELERATE:
                self._ask(DecisionKind.ACCELERATE, seat)
            elif c is Card.TURN_AROUND and self._turn_around_options(car):
                self._ask(DecisionKind.TURN_AROUND, seat)
            return
        eff = self.game.decks.gadgets[card.arg].effect
        if eff is GadgetEffect.BATTERING_RAM and self._ram_reachable(car, car.square, steps):
            self.turn.ram = RamCard.READY
            self.turn.battering = True
        elif eff is GadgetEffect.CHARGER and self._charge_amounts(car, card.arg):
            self._ask(DecisionKind.CHARGE, seat, gadget=card.arg)
        elif eff is GadgetEffect.ROCKET:
            self._rocket(car, card.arg)

    def _start_pit_turn(self, car: Car, card: Action) -> None:
        if not self._free_exits(car):
            # exits blocked: the turn is wasted (self.turn is set: called from _t_turn)
            cast("CarTurn", self.turn).over = True
            return
        self._push(("pit_exit", car.seat))
        if card.kind is ActionKind.CARD:
            self._ask(DecisionKind.ACCELERATE, car.seat)
            return
        eff = self.game.decks.gadgets[card.arg].effect
        if eff is GadgetEffect.CHARGER and self._charge_amounts(car, card.arg):
            self._ask(DecisionKind.CHARGE, car.seat, gadget=card.arg)
        elif eff is GadgetEffect.ROCKET:
            self._rocket(car, card.arg)

    def _rocket(self, car: Car, gadget: int) -> None:
        amount = self.game.decks.gadgets[gadget].amount
        before = car.speed
        car.speed = min(self.game.rules.turbo_speed_cap, car.speed + amount)
        if self.events is not None:
            self._event(E.SPEED, car.seat, before=before, after=car.speed, why="rocket")
        assert self.turn is not None
        self.turn.ignore_max = True
        self.turn.rocket = True
        self._push(("curve_accel", car.seat, amount))

    def _d_brake(self, d: Decision, acts: dict[int, Action]) -> None:
        car = self.cars[d.seat]
        before = car.speed
        car.speed -= acts[d.seat].arg
        if self.events is not None:
            self._event(E.SPEED, car.seat, before=before, after=car.speed, why="brake")

    def _d_accelerate(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        a = acts[seat]
        if a.kind is ActionKind.TURBO:
            self._push(("turbo", seat))
            return
        before = self.cars[seat].speed
        self.cars[seat].speed += a.arg
        if self.events is not None:
            self._event(E.SPEED, seat, before=before, after=before + a.arg, why="accelerate")
        self._push(("curve_accel", seat, a.arg))

    def _d_charge(self, d: Decision, acts: dict[int, Action]) -> None:
        self._d_accelerate(d, acts)

    def _d_drop_kind(self, d: Decision, acts: dict[int, Action]) -> None:
        assert self.turn is not None
        self.turn.drop_kind = acts[d.seat].arg

    def _d_turn_around(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        car = self.cars[seat]
        tr, ta = self.game.track, self.game.rules.turn_around
        assert self.turn is not None
        self.turn.over = True
        if acts[seat].arg == 0:
            lane = tr.lane[car.square]
            other = tr.num_lanes - 1 - lane
            path = [tr.parallel(car.square, ln) for ln in _between(lane, other)]
            curve_speed, new_speed = ta.uturn_curve_speed, ta.uturn_speed
        else:
            path = [self._ahead(car.square, car.facing)[FORWARD]]  # type: ignore[list-item]
            curve_speed, new_speed = ta.bootleg_curve_speed, ta.bootleg_speed
        self._place(car, path[-1])
        if self.is_terminal():
            return
        car.facing ^= 1
        self._push(
            ("hazards", seat, self._cards_over(car.speed, curve_speed), TRACK),
            *[("chip", seat, sq) for sq in path],  # chips met on the way apply in the final square
            ("set_speed", seat, new_speed),
        )

    def _t_set_speed(self, seat: int, speed: int) -> None:
        car = self.cars[seat]
        if not car.out:
            before = car.speed
            car.speed = min(speed, car.max_speed)
            if car.speed != before:
                if self.events is not None:
                    self._event(E.SPEED, seat, before=before, after=car.speed, why="set")

    def _t_curve_accel(self, seat: int, amount: int) -> None:
        car = self.cars[seat]
        if car.out or car.in_pit or amount <= 0:
            return
        rating = self.game.track.rating[car.square]
        if rating is not None and car.speed > rating:
            per = self.game.rules.mph_per_hazard_card
            self._push(("hazards", seat, -(-amount // per), TRACK))

    # ------------------------------------------------------------------ movement
    def _t_move(self) -> None:
        t = self.turn
        assert t is not None
        car = self.cars[t.seat]
        if car.out or car.in_pit or t.over:
            return self._finish_move(car)
        remaining = self._remaining(car)
        if remaining <= 0:
            if t.ram is RamCard.READY and self._ram_targets(car, car.square, self._occupied()):
                self._push(("move",))
                self._ask(DecisionKind.RAM, car.seat)
                return
            return self._finish_move(car)
        self._push(("move",))
        actions = self._step_actions(car, remaining)
        if actions:
            self._ask(DecisionKind.STEP, car.seat)
            self._legal[car.seat] = actions
        else:
            self.tasks.pop()
            self._finish_move(car)

    def _finish_move(self, car: Car) -> None:
        t = self.turn
        assert t is not None
        t.over = True
        if t.rocket and not car.in_pit and not car.out:
            t.rocket = False
            self._push(("chip", car.seat, car.square))

    def _d_step(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        a = acts[seat]
        car = self.cars[seat]
        t = self.turn
        assert t is not None
        if a.kind is ActionKind.RAM:
            self._ram(car, a.arg)
            return
        old = car.square
        drop = a.arg % 2 == 1 if a.kind is ActionKind.STEP else a.arg == 1
        if drop:
            k = t.drop_kind
            self.track_chips[old] = k
            car.chips[k] -= 1
            t.drops += 1
            if self.events is not None:
                self._event(E.DROP, seat, chip=CHIP_NAMES[k], square=old)
        t.steps += 1
        if a.kind is ActionKind.ENTER_PIT:
            self._enter_pit(car)
            return
        new = self._ahead(old, car.facing)[a.arg // 2]
        assert new is not None
        self._place(car, new)
        if self.is_terminal():
            return
        # entering a square: curve hazards first (at the entry speed), then its chip
        if not t.rocket and new in self.track_chips:
            self._push(("chip", seat, new))
        tr = self.game.track
        cur = tr.curve[new]
        if cur is not None:
            if tr.curve[old] != cur:
                self._push(
                    ("hazards", seat, self._cards_over(car.speed, cast(int, tr.rating[new])), TRACK)
                )
            elif tr.lane[new] < tr.lane[old] and car.speed > cast(int, tr.rating[new]):
                self._push(("hazards", seat, self.game.rules.curve_inward_cards, TRACK))

    def _d_ram(self, d: Decision, acts: dict[int, Action]) -> None:
        self._ram(self.cars[d.seat], acts[d.seat].arg)

    def _ram(self, car: Car, direction: int) -> None:
        """Resolve a ram (card, Battering Ram or involuntary) at ``direction``."""
        t = self.turn
        assert t is not None
        rd = self.game.rules.rams
        target_sq = self._ahead(car.square, car.facing)[direction]
        target = self.cars[self.occupant(target_sq)]  # type: ignore[index,arg-type]
        card_ram = t.ram is RamCard.READY and not target.out
        if card_ram:
            t.ram = RamCard.MADE
            if direction != FORWARD:
                kind = RamKind.SIDESWIPE
            elif target.facing == car.facing:
                kind = RamKind.REAR_END
            else:
                kind = RamKind.HEAD_ON
            mine, theirs = getattr(rd, kind.value)
            if t.battering:
                mine, theirs = 0, theirs + rd.battering_ram_extra
        else:
            kind = RamKind.INVOLUNTARY
            mine, theirs = rd.involuntary
            if target.out:
                theirs = 0
        if self.events is not None:
            self._event(E.RAM, car.seat, target=target.seat, ram=kind.value)
        if kind is not RamKind.SIDESWIPE:
            t.over = True
        if kind is RamKind.HEAD_ON:
            self._lower_speed(car, 0, "slowed")
            self._lower_speed(target, 0, "slowed")
        self._push(("damage", car.seat, mine))
        self._push(("damage", target.seat, theirs))

    # ------------------------------------------------------------------ end of turn
    def _t_end_turn(self, seat: int) -> None:
        car = self.cars[seat]
        t = self.turn
        if t is not None and t.ignore_max:
            self._lower_speed(car, car.max_speed, "set")
        self.turn = None
