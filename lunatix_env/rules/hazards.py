"""Road-hazard chips run over, hazard cards drawn and applied (luck chips, gadgets against
them, skids), damage dice and hits, and the turbo deck."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lunatix_env.rules.actions import (
    CHIP_NAMES,
    Action,
    ActionKind,
)
from lunatix_env.rules.config import GadgetEffect, HazardEffect
from lunatix_env.rules.events import LunatixEvent as E

if TYPE_CHECKING:
    pass

from lunatix_env.rules.legal import Legal
from lunatix_env.rules.records import (
    PIT,
    TRACK,
    Car,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
)


class Hazards(Legal):
    """Chips, hazards, damage and turbo."""

    # ------------------------------------------------------------------ chips, hazards, damage
    def _t_chip(self, seat: int, square: int) -> None:
        car = self.cars[seat]
        kind = self.track_chips.get(square)
        if car.out or kind is None:
            return
        del self.track_chips[square]
        self.supply[kind] += 1
        if self.events is not None:
            self._event(E.CHIP, seat, chip=CHIP_NAMES[kind], square=square)
        ce = self.game.rules.chips
        if kind == 0:
            self._push(("damage", seat, ce.tacks_dice))
        elif kind == 1:
            self._push(("hazards", seat, ce.oil_cards, TRACK))
        else:
            self._slow(car, ce.glue_speed_loss)

    def _t_hazards(self, seat: int, cards: int, where: int) -> None:
        if cards <= 0 or self.cars[seat].out:
            return
        self.batches.append([])
        self._push(*[("draw_hazard", seat) for _ in range(cards)], ("apply_hazards", seat, where))

    def _t_draw_hazard(self, seat: int) -> None:
        if self.cars[seat].out:
            return
        if not any(self.hazard_deck):
            for i, n in enumerate(self.hazard_discard):  # reshuffle the discards
                self.hazard_deck[i] += n
                self.hazard_discard[i] = 0
        if any(self.hazard_deck):
            self.chance = Chance(ChanceKind.HAZARD, seat)

    def _c_hazard(self, ch: Chance, card: int) -> None:
        seat = ch.seat
        self.hazard_deck[card] -= 1
        self.batches[-1].append(card)
        if self.events is not None:
            self._event(E.HAZARD, seat, card=self.game.decks.hazard[card].name)
        if self._luck_available(self.cars[seat]):
            self._ask(DecisionKind.LUCK, seat, deck="hazard", card=card)

    def _d_luck(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        car = self.cars[seat]
        a = acts[seat]
        hazard = d.deck == "hazard"
        if a.kind is ActionKind.LUCK and a.arg == 0:
            if not hazard:
                self._push(("turbo_apply", seat, d.card))
            return
        if a.kind is ActionKind.LUCK:
            car.luck -= 1
        else:
            self._spend(car, a.arg)
        deck = self.game.decks.hazard if hazard else self.game.decks.turbo
        if self.events is not None:
            self._event(E.LUCK, seat, deck=d.deck, card=deck[d.card].name)
        if hazard:
            self.hazard_discard[self.batches[-1].pop()] += 1
            self._push(("draw_hazard", seat))
        else:
            self.turbo_discard[d.card] += 1
            self._push(("turbo", seat))

    def _t_apply_hazards(self, seat: int, where: int) -> None:
        batch = self.batches[-1]
        car = self.cars[seat]
        if not batch or car.out:
            for card in batch:
                self.hazard_discard[card] += 1
            self.batches.pop()
            return
        card = batch.pop(0)
        self._push(("apply_hazards", seat, where))
        spec = self.game.decks.hazard[card]
        eff = spec.effect
        if eff is HazardEffect.LUNACY:
            gi = self._holds(car, GadgetEffect.SHRINKS_CARD)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, card=card, where=where)
            else:
                car.lunacies.append(card)
                car.lunacies.sort()
                if self.events is not None:
                    self._event(E.LUNACY, seat, card=spec.name)
            return
        self.hazard_discard[card] += 1
        if eff is HazardEffect.DAMAGE:
            self._push(("damage", seat, spec.dice))
        elif eff is HazardEffect.SKID:
            gi = self._holds(car, GadgetEffect.RACING_TIRES)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, card=card, where=where)
            else:
                self._push(("skid", seat, where))
        elif eff is HazardEffect.BRAKE:
            gi = self._holds(car, GadgetEffect.POWER_BRAKES)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, card=card, where=where)
            else:
                self._slow(car, spec.amount)
        elif eff is HazardEffect.LOSE_LUCK:
            car.luck = max(0, car.luck - 1)

    def _d_gadget(self, d: Decision, acts: dict[int, Action]) -> None:
        """A gray gadget offered against a hazard card or a turbo explosion."""
        seat = d.seat
        car = self.cars[seat]
        use = acts[seat].kind is ActionKind.USE_GADGET
        if use:
            self._spend(car, d.gadget)
        if d.dice >= 0:  # Fire Extinguisher against a turbo explosion
            if not use:
                self._push(("damage", seat, d.dice))
            return
        spec = self.game.decks.hazard[d.card]
        if spec.effect is HazardEffect.LUNACY:
            if use:
                self.hazard_discard[d.card] += 1
            else:
                car.lunacies.append(d.card)
                car.lunacies.sort()
                if self.events is not None:
                    self._event(E.LUNACY, seat, card=spec.name)
        elif not use and spec.effect is HazardEffect.SKID:
            self._push(("skid", seat, d.where))
        elif not use and spec.effect is HazardEffect.BRAKE:
            self._slow(car, spec.amount)

    def _t_skid(self, seat: int, where: int) -> None:
        car = self.cars[seat]
        sk = self.game.rules.skid
        if car.out:
            return
        if where == PIT or car.in_pit:
            self._push(("damage", seat, sk.pit_wall_dice))
            return
        tr = self.game.track
        lane = tr.lane[car.square]
        if lane == tr.num_lanes - 1:
            if self.turn is not None and self.turn.seat == seat:
                self.turn.over = True
            self._push(("damage", seat, sk.wall_dice))
            return
        dest = tr.parallel(car.square, lane + 1)
        other = self.occupant(dest)
        if other is not None:
            self._push(("damage", seat, sk.car_dice[0]), ("damage", other, sk.car_dice[1]))
            return
        self._place(car, dest)
        if not self.is_terminal():
            self._push(("chip", seat, dest))

    def _t_damage(self, seat: int, dice: int) -> None:
        if dice > 0 and not self.cars[seat].out:
            self.chance = Chance(ChanceKind.DICE, seat, dice)

    def _c_dice(self, ch: Chance, hits: int) -> None:
        seat = ch.seat
        car = self.cars[seat]
        if self.events is not None:
            self._event(E.DICE, seat, dice=ch.n, hits=hits)
        if hits > 0 and (
            self._holds(car, GadgetEffect.ARMOR) is not None
            or self._holds(car, GadgetEffect.ROLL_CAGE) is not None
        ):
            self._ask(DecisionKind.PROTECT, seat, hits=hits)
            return
        self._hit(car, hits)

    def _d_protect(self, d: Decision, acts: dict[int, Action]) -> None:
        seat, hits = d.seat, d.hits
        car = self.cars[seat]
        a = acts[seat]
        if a.kind is ActionKind.USE_GADGET:
            self._spend(car, a.arg)
            spec = self.game.decks.gadgets[a.arg]
            hits = 0 if spec.effect is GadgetEffect.ARMOR else max(0, hits - spec.amount)
        self._hit(car, hits)

    def _hit(self, car: Car, hits: int) -> None:
        """Each hit lowers max speed; speed clamps at once except during a turbo turn."""
        if hits <= 0:
            return
        car.max_speed = max(0, car.max_speed - hits * self.game.rules.speed_loss_per_hit)
        if self.events is not None:
            self._event(E.DAMAGE, car.seat, hits=hits, max_speed=car.max_speed)
        mover = self.turn is not None and self.turn.seat == car.seat
        if car.max_speed == 0:
            car.out = True
            car.speed = 0
            if self.events is not None:
                self._event(E.OUT, car.seat)
            if mover:
                self.turn.over = True  # type: ignore[union-attr]
            if not self._live_seats():
                self._end(Outcome.ALL_OUT)
            return
        if not (mover and self.turn.ignore_max):  # type: ignore[union-attr]
            self._lower_speed(car, car.max_speed, "slowed")

    # ------------------------------------------------------------------ turbo
    def _t_turbo(self, seat: int) -> None:
        if self.cars[seat].out:
            return
        if not any(self.turbo_deck):
            for i, n in enumerate(self.turbo_discard):
                self.turbo_deck[i] += n
                self.turbo_discard[i] = 0
        self.chance = Chance(ChanceKind.TURBO, seat)

    def _c_turbo(self, ch: Chance, card: int) -> None:
        seat = ch.seat
        self.turbo_deck[card] -= 1
        if self.events is not None:
            self._event(E.TURBO, seat, card=self.game.decks.turbo[card].name)
        if self._luck_available(self.cars[seat]):
            self._ask(DecisionKind.LUCK, seat, deck="turbo", card=card)
        else:
            self._push(("turbo_apply", seat, card))

    def _t_turbo_apply(self, seat: int, card: int) -> None:
        car = self.cars[seat]
        spec = self.game.decks.turbo[card]
        if spec.reshuffle:
            self.turbo_deck = [c.count for c in self.game.decks.turbo]
            self.turbo_discard = [0] * len(self.turbo_deck)
        else:
            self.turbo_discard[card] += 1
        assert self.turn is not None
        self.turn.ignore_max = True
        before = car.speed
        car.speed = min(self.game.rules.turbo_speed_cap, car.speed + spec.amount)
        if self.events is not None:
            self._event(E.SPEED, seat, before=before, after=car.speed, why="turbo")
        self._push(("curve_accel", seat, spec.amount))
        if spec.dice:
            gi = self._holds(car, GadgetEffect.FIRE_EXTINGUISHER)
            if gi is not None:
                self._ask(DecisionKind.GADGET, seat, gadget=gi, dice=spec.dice)
            else:
                self._push(("damage", seat, spec.dice))
