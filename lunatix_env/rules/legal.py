"""What a Lunatix Loop seat may do: the cards it may play, the board geometry those rules
read (squares ahead, ram targets, pit openings, Turn Around lanes) and the legal actions of
every decision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lunatix_env.rules.actions import (
    CARD_ACTIONS,
    ENTER_PIT_ACTIONS,
    RAM_ACTIONS,
    STEP_ACTIONS,
    Action,
    ActionKind,
    Card,
    ShopItem,
)
from lunatix_env.rules.config import GadgetEffect, Lunacy
from tabletop.errors import InvalidStateError

if TYPE_CHECKING:
    pass

from lunatix_env.rules.machine import Machine
from lunatix_env.rules.records import (
    DIR_SLOTS,
    FORWARD,
    Car,
    DecisionKind,
    RamCard,
)


class Legal(Machine):
    """Legal actions and the queries behind them."""

    # ------------------------------------------------------------------ card legality
    def _legal_cards(self, seat: int) -> list[Action]:
        car, g = self.cars[seat], self.game
        luns = self._lunacies(car)
        gadget_cards = []
        for gi in car.gadgets:
            eff = g.decks.gadgets[gi].effect
            if eff is GadgetEffect.ROCKET:
                gadget_cards.append(Action(ActionKind.PLAY_GADGET, gi))
            elif eff is GadgetEffect.CHARGER and self._charge_amounts(car, gi):
                gadget_cards.append(Action(ActionKind.PLAY_GADGET, gi))
            elif (
                eff is GadgetEffect.BATTERING_RAM
                and not car.in_pit
                and Lunacy.CHICKEN not in luns
                and self._ram_reachable(car, car.square, self._steps(car.speed))
            ):
                gadget_cards.append(Action(ActionKind.PLAY_GADGET, gi))
        if car.in_pit:
            return [CARD_ACTIONS[Card.ACCELERATE], *gadget_cards]
        out: list[Action] = []
        ram_ok = Lunacy.CHICKEN not in luns and self._ram_reachable(
            car, car.square, self._steps(car.speed)
        )
        if ram_ok:
            out.append(CARD_ACTIONS[Card.RAM])
        if ram_ok and Lunacy.ROAD_RAGE in luns:
            return out + [a for a in gadget_cards if self._is_battering(a)]
        if car.speed > 0 and Lunacy.LEAD_FOOT not in luns:
            out.append(CARD_ACTIONS[Card.BRAKE])
        if self._can_drop(car) and Lunacy.HOARDER not in luns:
            out.append(CARD_ACTIONS[Card.DROP])
        out.append(CARD_ACTIONS[Card.ACCELERATE])
        if g.rules.turn_around.enabled and self._turn_around_options(car, for_card=True):
            out.append(CARD_ACTIONS[Card.TURN_AROUND])
        return out + gadget_cards

    def _is_battering(self, a: Action) -> bool:
        return (
            a.kind is ActionKind.PLAY_GADGET
            and self.game.decks.gadgets[a.arg].effect is GadgetEffect.BATTERING_RAM
        )

    def _lunacies(self, car: Car) -> set[Lunacy]:
        hz = self.game.decks.hazard
        return {hz[i].lunacy for i in car.lunacies}  # type: ignore[misc]

    def _can_drop(self, car: Car) -> bool:
        """Drop can be carried out: a chip held, at least one square to move, not in the pit."""
        return (
            sum(car.chips) > 0 and not car.in_pit and car.speed >= self.game.rules.speed_per_square
        )

    def _steps(self, speed: int) -> int:
        return speed // self.game.rules.speed_per_square

    # ------------------------------------------------------------------ geometry helpers
    def _occupied(self) -> dict[int, int]:
        return {c.square: c.seat for c in self.cars if not c.in_pit and c.square >= 0}

    def _ahead(self, square: int, facing: int) -> tuple[int | None, int | None, int | None]:
        """(front-left, front, front-right) squares of a car on ``square``."""
        nb = self.game.track.neighbours[facing][square]
        sl = DIR_SLOTS[facing]
        return (nb[sl[0]], nb[sl[1]], nb[sl[2]])

    def _ram_targets(self, car: Car, square: int, occ: dict[int, int]) -> list[tuple[int, int]]:
        """(direction, target seat) of the eligible ram targets from ``square``."""
        out = []
        for d, sq in self.game.ahead[car.facing][square]:
            other = occ.get(sq)
            if other is not None and other != car.seat and not self.cars[other].out:
                out.append((d, other))
        return out

    def _moves_from(self, car: Car, square: int, occ: dict[int, int]) -> list[tuple[int, int]]:
        """(direction, square) of the free squares ahead, with Tunnel Vision applied."""
        free = [(d, sq) for d, sq in self.game.ahead[car.facing][square] if sq not in occ]
        return self._tunnel_vision(car, free, occ) if car.lunacies else free

    def _tunnel_vision(
        self, car: Car, moves: Sequence[tuple[int, int]], occ: dict[int, int]
    ) -> list[tuple[int, int]]:
        """Tunnel Vision: lane changes only when the square straight ahead is blocked."""
        if car.lunacies and Lunacy.TUNNEL_VISION in self._lunacies(car):
            straight = [(d, sq) for d, sq in moves if d == FORWARD and sq not in occ]
            if straight:
                return straight
        return list(moves)

    def _ram_reachable(self, car: Car, square: int, steps: int) -> bool:
        """Whether some square within ``steps`` free steps of ``square`` has a ram target."""
        tr = self.game.track
        reach = (steps + 1) * self.game.max_step_ds + 1e-6
        sign = 1.0 if car.facing == 0 else -1.0
        s0 = tr.s[square]
        if not any(
            0.0 < sign * tr.wrap(tr.s[c.square] - s0) <= reach
            for c in self.cars
            if c is not car and not c.out and not c.in_pit and c.square >= 0
        ):
            return False  # no live car close enough ahead: skip the search
        occ = self._occupied()
        occ.pop(car.square, None)
        frontier = {square}
        seen = set(frontier)
        for depth in range(steps + 1):
            for sq in frontier:
                if self._ram_targets(car, sq, occ):
                    return True
            if depth == steps:
                break
            nxt = set()
            for sq in frontier:
                for _, t in self._moves_from(car, sq, occ):
                    if t not in seen:
                        seen.add(t)
                        nxt.add(t)
            frontier = nxt
            if not frontier:
                break
        return False

    def _can_land(
        self,
        car: Car,
        square: int,
        remaining: int,
        occ: dict[int, int],
        memo: dict[tuple[int, int], bool],
    ) -> bool:
        """Rocket Booster: from ``square`` with ``remaining`` steps, can the car end free?"""
        key = (square, remaining)
        if key in memo:
            return memo[key]
        if remaining == 0:
            ok = square not in occ
        else:
            ok = self._pit_entry_allowed(car, square) or any(
                self._can_land(car, t, remaining - 1, occ, memo)
                for t in self._ahead(square, car.facing)
                if t is not None
            )
        memo[key] = ok
        return ok

    def _pit_entry_allowed(self, car: Car, square: int) -> bool:
        tr = self.game.track
        oi = tr.opening_at.get(square)
        if oi is None:
            return False
        op = tr.openings[oi]
        if self.game.rules.four_opening_pit:
            return op.side == ("A" if car.facing == 0 else "B")
        return car.facing == 0 and op.name == tr.spec.pit.basic_entry

    def _exit_openings(self, car: Car) -> list[int]:
        """Opening indices the pit car may leave by (free or not)."""
        tr = self.game.track
        if not self.game.rules.four_opening_pit:
            return [tr.opening_index[tr.spec.pit.basic_exit]]
        side = "B" if car.facing == 0 else "A"
        return [i for i, o in enumerate(tr.openings) if o.side == side]

    def _free_exits(self, car: Car) -> list[int]:
        occ = self._occupied()
        tr = self.game.track
        return [i for i in self._exit_openings(car) if tr.openings[i].square not in occ]

    def _turn_around_options(self, car: Car, for_card: bool = False) -> list[int]:
        """0 U-turn and/or 1 bootlegger, where possible now (card legality: conditions only)."""
        tr, ta = self.game.track, self.game.rules.turn_around
        if car.in_pit:
            return []
        occ = self._occupied()
        out = []
        lane = tr.lane[car.square]
        edge = tr.num_lanes - 1
        if lane in (0, edge):
            other = edge - lane
            path = [tr.parallel(car.square, ln) for ln in _between(lane, other)]
            if for_card or all(sq not in occ for sq in path):
                out.append(0)
        if car.speed >= ta.bootleg_min_speed:
            front = self._ahead(car.square, car.facing)[FORWARD]
            if for_card or (front is not None and front not in occ):
                out.append(1)
        return out

    def _charge_amounts(self, car: Car, gadget: int) -> list[int]:
        return [
            a for a in self.game.decks.gadgets[gadget].amounts if car.speed + a <= car.max_speed
        ]

    def _luck_available(self, car: Car) -> bool:
        return car.luck > 0 or self._holds(car, GadgetEffect.FUZZY_DICE) is not None

    def _holds(self, car: Car, effect: GadgetEffect) -> int | None:
        gi = self.game.gadget_index.get(effect)
        return gi if gi is not None and gi in car.gadgets else None

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self, seat: int) -> list[Action]:
        d = self.decision
        assert d is not None
        kind = d.kind
        car = self.cars[seat]
        r = self.game.rules
        A = Action
        if kind is DecisionKind.CHIP_MIX:
            cap = min(r.chips_per_player, min(r.chip_supply) // len(self.cars))
            return [
                A(ActionKind.CHIP_MIX, i)
                for i, m in enumerate(self.game.codec.chip_mixes)
                if max(m) <= cap
            ]
        if kind is DecisionKind.CARD:
            return self._legal_cards(seat)
        if kind is DecisionKind.BRAKE:
            return [A(ActionKind.BRAKE, a) for a in r.brake_amounts if a <= car.speed]
        if kind is DecisionKind.ACCELERATE:
            if Lunacy.SPEED_FREAK in self._lunacies(car):
                return [A(ActionKind.TURBO)]
            return [
                A(ActionKind.ACCELERATE, a)
                for a in r.accelerate_amounts
                if car.speed + a <= car.max_speed and (a > 0 or not car.in_pit)
            ] + [A(ActionKind.TURBO)]
        if kind is DecisionKind.CHARGE:
            return [A(ActionKind.CHARGE, a) for a in self._charge_amounts(car, d.gadget)]
        if kind is DecisionKind.DROP_KIND:
            return [A(ActionKind.DROP_KIND, k) for k in range(3) if car.chips[k] > 0]
        if kind is DecisionKind.STEP:
            return self._step_actions(car)
        if kind is DecisionKind.RAM:
            occ = self._occupied()
            return [RAM_ACTIONS[dd] for dd, _ in self._ram_targets(car, car.square, occ)]
        if kind is DecisionKind.LUCK:
            out = [A(ActionKind.LUCK, 0)]
            if car.luck > 0:
                out.append(A(ActionKind.LUCK, 1))
            fz = self._holds(car, GadgetEffect.FUZZY_DICE)
            if fz is not None:
                out.append(A(ActionKind.USE_GADGET, fz))
            return out
        if kind is DecisionKind.PROTECT:
            out = [A(ActionKind.DECLINE)]
            for eff in (GadgetEffect.ARMOR, GadgetEffect.ROLL_CAGE):
                gi = self._holds(car, eff)
                if gi is not None:
                    out.append(A(ActionKind.USE_GADGET, gi))
            return out
        if kind is DecisionKind.GADGET:
            return [A(ActionKind.DECLINE), A(ActionKind.USE_GADGET, d.gadget)]
        if kind is DecisionKind.KEEP_GADGET:
            return [A(ActionKind.KEEP_GADGET, gi) for gi in sorted(self.offer)]
        if kind is DecisionKind.DISCARD_GADGET:
            return [A(ActionKind.DISCARD_GADGET, gi) for gi in sorted(car.gadgets)]
        if kind is DecisionKind.SHOP:
            return self._shop_actions(car, d.points)
        if kind is DecisionKind.PIT_EXIT:
            return [A(ActionKind.EXIT_PIT, i) for i in self._free_exits(car)]
        if kind is DecisionKind.TURN_AROUND:
            return [A(ActionKind.TURN_AROUND, i) for i in self._turn_around_options(car)]
        raise InvalidStateError(f"unknown decision kind {kind}")

    def _step_actions(self, car: Car, remaining: int | None = None) -> list[Action]:
        """Steps (with drop variants), pit entry and rams available to the mover now
        (``remaining``: its steps left, when the caller has them)."""
        t = self.turn
        assert t is not None
        occ = self._occupied()
        if remaining is None:
            remaining = self._remaining(car)
        if t.rocket:
            memo: dict[tuple[int, int], bool] = {}
            occ_others = {sq: s for sq, s in occ.items() if s != car.seat}
            moves = [
                (dd, sq)
                for dd, sq in self._tunnel_vision(
                    car, self.game.ahead[car.facing][car.square], occ_others
                )
                if self._can_land(car, sq, remaining - 1, occ_others, memo)
            ]
        else:
            moves = self._moves_from(car, car.square, occ)
        pit = car.square in self.game.track.opening_at and self._pit_entry_allowed(car, car.square)
        rams: list[tuple[int, int]] = []
        if t.ram is RamCard.READY:
            rams = self._ram_targets(car, car.square, occ)
            # stay on course for the obligatory ram while that is still possible
            keep = [(dd, sq) for dd, sq in moves if self._ram_reachable(car, sq, remaining - 1)]
            if keep or rams:
                moves, pit = keep, False
        out: list[Action] = []
        drop_ok, must_drop = (
            self._drop_status(car, remaining) if t.drop_kind >= 0 else (False, False)
        )
        for dd, _sq in moves:
            if not must_drop:
                out.append(STEP_ACTIONS[dd * 2])
            if drop_ok:
                out.append(STEP_ACTIONS[dd * 2 + 1])
        if pit:
            if not must_drop:
                out.append(ENTER_PIT_ACTIONS[0])
            if drop_ok:
                out.append(ENTER_PIT_ACTIONS[1])
        if rams:
            out += [RAM_ACTIONS[dd] for dd, _ in rams]
        if not out:
            # blocked on every side: rear-end ram one of the blockers (involuntary ram)
            out = [
                RAM_ACTIONS[dd] for dd, sq in self.game.ahead[car.facing][car.square] if sq in occ
            ]
        return out

    def _drop_status(self, car: Car, remaining: int) -> tuple[bool, bool]:
        """(may drop into the square being left, must drop now)."""
        t = self.turn
        assert t is not None
        k = t.drop_kind
        if (
            k < 0
            or t.drops >= self.game.rules.max_drops
            or car.chips[k] <= 0
            or car.square in self.track_chips
        ):
            return False, False
        return True, t.drops == 0 and remaining <= 1

    def _shop_actions(self, car: Car, points: int) -> list[Action]:
        p, r = self.game.rules.pit, self.game.rules
        out = []
        if points >= p.repair_cost and car.max_speed + p.repair_amount <= r.max_speed:
            out.append(Action(ActionKind.SHOP, ShopItem.REPAIR))
        if points >= p.gadget_cost and (self.gadget_top or self.gadget_bottom):
            out.append(Action(ActionKind.SHOP, ShopItem.GADGET))
        if points >= p.chip_cost and sum(car.chips) < p.chip_cap:
            for k, item in enumerate((ShopItem.TACKS, ShopItem.OIL, ShopItem.GLUE)):
                if self.supply[k] > 0:
                    out.append(Action(ActionKind.SHOP, item))
        if points >= p.counseling_cost:
            out += [Action(ActionKind.COUNSEL, i) for i in sorted(car.lunacies)]
        out.append(Action(ActionKind.SHOP, ShopItem.DONE))
        return out

    # ------------------------------------------------------------------ a car's turn
    def _cards_over(self, speed: int, safe: int) -> int:
        per = self.game.rules.mph_per_hazard_card
        return max(0, -(-(speed - safe) // per))

    # ------------------------------------------------------------------ movement
    def _remaining(self, car: Car) -> int:
        t = self.turn
        assert t is not None
        rem: int = car.speed // self.game.rules.speed_per_square - t.steps
        if t.rocket and self.occupant_other(car) is not None:
            rem = max(rem, 1)  # a rocket car never stops on top of another car
        return rem

    def occupant_other(self, car: Car) -> int | None:
        """Another car sharing ``car``'s square (only while a rocket passes over it)."""
        for c in self.cars:
            if c is not car and not c.in_pit and c.square == car.square:
                return c.seat
        return None


def _between(a: int, b: int) -> list[int]:
    """Lanes strictly after ``a`` up to and including ``b``."""
    step = 1 if b > a else -1
    return list(range(a + step, b + step, step))


_DECISION_KINDS = {k.value: k for k in DecisionKind}
