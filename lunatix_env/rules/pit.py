"""The pit: entering it, the shop, gadgets drawn, kept and discarded, and leaving it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lunatix_env.rules.actions import (
    Action,
    ActionKind,
    ShopItem,
)
from lunatix_env.rules.events import LunatixEvent as E

if TYPE_CHECKING:
    pass

from lunatix_env.rules.hazards import Hazards
from lunatix_env.rules.records import (
    PIT,
    Car,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
)


class Pit(Hazards):
    """The pit's tasks and decisions."""

    # ------------------------------------------------------------------ the pit
    def _enter_pit(self, car: Car) -> None:
        tr = self.game.track
        t = self.turn
        assert t is not None
        opening = tr.opening_at[car.square]
        car.in_pit = True
        car.pit_opening = opening
        if self.events is not None:
            self._event(E.PIT_IN, car.seat, opening=tr.openings[opening].name)
        self.pit_counter += 1
        car.pit_order = self.pit_counter
        t.over = True
        safe = tr.openings[opening].safe_speed
        self._push(
            ("hazards", car.seat, self._cards_over(car.speed, safe), PIT),
            ("shop", car.seat, self.game.rules.pit.points),
            ("set_speed", car.seat, 0),
        )

    def _t_shop(self, seat: int, points: int) -> None:
        car = self.cars[seat]
        if car.out or points <= 0:
            return
        self._ask(DecisionKind.SHOP, seat, points=points)

    def _d_shop(self, d: Decision, acts: dict[int, Action]) -> None:
        seat, points = d.seat, d.points
        car = self.cars[seat]
        a = acts[seat]
        p = self.game.rules.pit
        if self.events is not None:
            counsel = a.kind is ActionKind.COUNSEL
            bought = f"counsel against {self.game.decks.hazard[a.arg].name}" if counsel else str(a)
            self._event(E.SHOP, seat, item=bought)
        if a.kind is ActionKind.COUNSEL:
            car.lunacies.remove(a.arg)
            self.hazard_discard[a.arg] += 1
            self._push(("shop", seat, points - p.counseling_cost))
            return
        item = ShopItem(a.arg)
        if item is ShopItem.DONE:
            return
        if item is ShopItem.REPAIR:
            car.max_speed += p.repair_amount
            self._push(("shop", seat, points - p.repair_cost))
        elif item is ShopItem.GADGET:
            self._push(
                *[("gadget_draw", seat) for _ in range(p.gadget_offer)],
                ("gadget_choose", seat),
                ("shop", seat, points - p.gadget_cost),
            )
        else:
            k = (ShopItem.TACKS, ShopItem.OIL, ShopItem.GLUE).index(item)
            car.chips[k] += 1
            self.supply[k] -= 1
            self._push(("shop", seat, points - p.chip_cost))

    def _t_gadget_draw(self, seat: int) -> None:
        if self.gadget_top:
            self.chance = Chance(ChanceKind.GADGET, seat)
        elif self.gadget_bottom:
            self.offer.append(self.gadget_bottom.pop(0)[0])
            name = self.game.decks.gadgets[self.offer[-1]].name
            if self.events is not None:
                self._event(E.GADGET_DRAWN, seat, to=seat, gadget=name)

    def _c_gadget(self, ch: Chance, gadget: int) -> None:
        self.gadget_top.remove(gadget)
        self.offer.append(gadget)
        seat = ch.seat
        name = self.game.decks.gadgets[gadget].name
        if self.events is not None:
            self._event(E.GADGET_DRAWN, seat, to=seat, gadget=name)

    def _t_gadget_choose(self, seat: int) -> None:
        if len(self.offer) == 1:
            self.cars[seat].gadgets.append(self.offer.pop())
            name = self.game.decks.gadgets[self.cars[seat].gadgets[-1]].name
            if self.events is not None:
                self._event(E.GADGET_KEPT, seat, to=seat, gadget=name)
            self.cars[seat].gadgets.sort()
            self._push(("hand_limit", seat))
        elif self.offer:
            self._ask(DecisionKind.KEEP_GADGET, seat)

    def _d_keep_gadget(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        keep = acts[seat].arg
        car = self.cars[seat]
        for g in self.offer:
            if g != keep:
                self.gadget_bottom.append([g, seat])
        self.offer = []
        car.gadgets.append(keep)
        if self.events is not None:
            self._event(E.GADGET_KEPT, seat, to=seat, gadget=self.game.decks.gadgets[keep].name)
        car.gadgets.sort()
        self._push(("hand_limit", seat))

    def _t_hand_limit(self, seat: int) -> None:
        if len(self.cars[seat].gadgets) > self.game.rules.gadget_hand_limit:
            self._ask(DecisionKind.DISCARD_GADGET, seat)

    def _d_discard_gadget(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        g = acts[seat].arg
        self.cars[seat].gadgets.remove(g)
        self.gadget_bottom.append([g, seat])

    def _t_pit_exit(self, seat: int) -> None:
        car = self.cars[seat]
        if car.out or not car.in_pit:
            return
        if car.speed <= 0 or not self._free_exits(car):
            assert self.turn is not None
            self.turn.over = True  # a turbo of +0 (or blocked exits): stays in the pit
            car.speed = 0
            return
        self._ask(DecisionKind.PIT_EXIT, seat)

    def _d_pit_exit(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        car = self.cars[seat]
        tr = self.game.track
        t = self.turn
        assert t is not None
        entry = tr.openings[car.pit_opening].square
        dest = tr.openings[acts[seat].arg].square
        if self.events is not None:
            self._event(E.PIT_OUT, seat, opening=tr.openings[acts[seat].arg].name)
        car.in_pit = False
        car.square = entry
        car.pit_opening = -1
        car.pit_order = 0
        t.steps += 1
        # a pass through the pit counts as crossing the line but can never win the race
        laps_before = self.laps(seat)
        car.u += tr.wrap(tr.s[dest] - tr.s[entry])
        car.square = dest
        car.best_u = max(car.best_u, car.u)
        laps = self.laps(seat)
        if laps > laps_before:
            if self.events is not None:
                self._event(E.LAP, seat, lap=laps)
        if laps > laps_before and laps >= self.laps_required(seat):
            car.owed += laps - self.laps_required(seat) + 1
        self._push(("chip", seat, dest))
