"""Observation encoding of Lunatix Loop: the rules state as float32 vectors.

Layer 2 of the design: no RL imports here. :class:`ObservationEncoder` turns
``state.observation(seat)``-level knowledge into one flat vector in [-1, 1]:

1. **Planes** ``(num_planes, num_lanes, W)``, ``W`` = middle-lane squares per lap, one
   column per square of along-track distance, rotated so the observer's car is always at
   column ``ahead_offset`` (a car in the pit counts at its entry opening).
2. **Local view**: the squares the observer's car could step to next (front-left, front,
   front-right) and the square beyond each.
3. **Cars**: per car, observer first then the others in seat order after it.
4. **Own hand, decision and turn**: gadgets held, the decision being asked (one-hot) and
   its public context, the current turn.
5. **Tables**: round, deck counts, chip supply.

See ``docs/lunatix_loop_env.md`` for the table of every slot.
"""

from __future__ import annotations

import math

import numpy as np

from lunatix_env.rules import Game, State
from lunatix_env.rules.config import HazardEffect
from lunatix_env.rules.state import DecisionKind

DECISIONS = tuple(DecisionKind)
#: planes after the per-car ones
STATIC_PLANES = ("square", "curve", "rating", "opening")
DYNAMIC_PLANES = ("wreck", "tacks", "oil", "glue")
CAR_FEATURES = 31
LOCAL_FEATURES = 12


class ObservationEncoder:
    """Encodes states of one :class:`Game` for any seat (precomputes the track tables)."""

    def __init__(self, game: Game, ahead_offset: int = 12) -> None:
        self.game = game
        tr = game.track
        self.n = game.num_players
        self.width = int(math.ceil(tr.length))
        self.lanes = tr.num_lanes
        self.offset = ahead_offset
        self.col = np.array([int(math.floor(s)) % self.width for s in tr.s], dtype=np.int64)
        self.lane = np.array(tr.lane, dtype=np.int64)
        self.num_planes = self.n + len(DYNAMIC_PLANES) + len(STATIC_PLANES)
        static = np.zeros((len(STATIC_PLANES), self.lanes, self.width), dtype=np.float32)
        for sq in range(tr.num_squares):
            lane, col = self.lane[sq], self.col[sq]
            static[0, lane, col] = 1.0
            if tr.curve[sq] is not None:
                static[1, lane, col] = 1.0
                static[2, lane, col] = tr.rating[sq] / 200.0
        for o in tr.openings:
            static[3, 0, self.col[o.square]] = o.safe_speed / 100.0
        self.static = static
        self.num_gadgets = len(game.decks.gadgets)
        self.num_hazard = len(game.decks.hazard)
        self.num_turbo = len(game.decks.turbo)
        self.lunacy_cards = [i for i, c in enumerate(game.decks.hazard)
                             if c.effect is HazardEffect.LUNACY]
        self.card_actions = [a for a in game.codec.actions if a.kind.name in
                             ("CARD", "PLAY_GADGET")]
        self.card_slot = {game.codec.encode(a): i for i, a in enumerate(self.card_actions)}
        r = game.rules
        self.speed_scale = float(r.turbo_speed_cap)
        self.max_scale = float(r.max_speed)
        self.size = (
            self.num_planes * self.lanes * self.width
            + 3 * LOCAL_FEATURES
            + self.n * (CAR_FEATURES + len(self.lunacy_cards) + len(self.card_actions))
            + self.num_gadgets * 2
            + len(DECISIONS) + 1
            + 4 + self.num_hazard + self.num_turbo + self.num_gadgets
            + 8
            + 2 + self.num_hazard + self.num_turbo + 1 + 3
        )

    # ------------------------------------------------------------------ helpers
    def _anchor(self, state: State, seat: int) -> int:
        car = state.cars[seat]
        if car.in_pit:
            return self.game.track.openings[car.pit_opening].square
        return car.square if car.square >= 0 else self.game.track.start_dots[0]

    def encode(self, state: State, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (float32, values in [-1, 1])."""
        g, tr = self.game, self.game.track
        n = self.n
        out = np.zeros(self.size, dtype=np.float32)
        anchor = self._anchor(state, seat)
        shift = self.offset - int(self.col[anchor])
        planes = np.zeros((self.num_planes, self.lanes, self.width), dtype=np.float32)
        order = [(seat + k) % n for k in range(n)]
        for rel, s in enumerate(order):
            c = state.cars[s]
            if c.in_pit or c.square < 0:
                continue
            if c.out:
                planes[n, self.lane[c.square], self.col[c.square]] = 1.0
            else:
                planes[rel, self.lane[c.square], self.col[c.square]] = 1.0 if c.facing == 0 else -1
        for sq, kind in state.track_chips.items():
            planes[n + 1 + kind, self.lane[sq], self.col[sq]] = 1.0
        planes[n + len(DYNAMIC_PLANES):] = self.static
        planes = np.roll(planes, shift, axis=2)
        k = planes.size
        out[:k] = planes.ravel()

        # local view: the squares ahead of the observer's car
        car = state.cars[seat]
        occ = {c.square: c for c in state.cars if not c.in_pit and c.square >= 0}
        if not car.in_pit and car.square >= 0 and not car.out:
            ahead = g.ahead[car.facing][car.square]
            cur_curve = tr.curve[car.square]
            for d, sq in ahead:
                base = k + d * LOCAL_FEATURES
                other = occ.get(sq)
                out[base] = 1.0
                out[base + 1] = 1.0 if other is not None and not other.out else 0.0
                out[base + 2] = 1.0 if other is not None and other.out else 0.0
                chip = state.track_chips.get(sq)
                if chip is not None:
                    out[base + 3 + chip] = 1.0
                if tr.curve[sq] is not None:
                    out[base + 6] = tr.rating[sq] / 200.0
                    out[base + 7] = 1.0 if tr.curve[sq] != cur_curve else 0.0
                    out[base + 8] = min(1.0, max(-1.0, (car.speed - tr.rating[sq]) / 100.0))
                nxt = g.ahead[car.facing][sq]
                beyond = [b for dd, b in nxt if dd == 1]
                if beyond:
                    b = beyond[0]
                    out[base + 9] = 1.0
                    out[base + 10] = 1.0 if b in occ else 0.0
                    out[base + 11] = 1.0 if b in state.track_chips else 0.0
        k += 3 * LOCAL_FEATURES

        # cars, observer first
        length = tr.length
        laps_to_win = g.rules.laps
        my_u = state.cars[seat].u
        for rel, s in enumerate(order):
            c = state.cars[s]
            base = k
            out[base + 0] = c.speed / self.speed_scale
            out[base + 1] = c.max_speed / self.max_scale
            out[base + 2] = min(1.0, state.laps(s) / (laps_to_win + 1))
            out[base + 3] = min(1.0, c.owed / 2)
            out[base + 4] = c.luck / max(1, g.rules.luck_chips)
            for j in range(3):
                out[base + 5 + j] = c.chips[j] / g.rules.pit.chip_cap
            out[base + 8] = len(c.gadgets) / (g.rules.gadget_hand_limit + 1)
            out[base + 9] = float(c.in_pit)
            out[base + 10] = float(c.out)
            out[base + 11] = float(c.facing)
            if not c.in_pit and c.square >= 0:
                out[base + 12 + tr.lane[c.square]] = 1.0
            out[base + 15] = max(-1.0, min(1.0, (c.u - my_u) / length))
            out[base + 16] = max(-1.0, min(1.0, c.u / (length * (laps_to_win + 1))))
            if state.order and s in state.order:
                out[base + 17] = (state.order.index(s) + 1) / n
            out[base + 18] = float(state.turn is not None and state.turn["seat"] == s)
            out[base + 19] = min(1.0, c.pit_order / max(1, state.pit_counter)) if c.in_pit else 0
            out[base + 20] = len(c.spent) / self.num_gadgets
            # distance to the next curve's rating in the car's lane (speed margin)
            if not c.in_pit and c.square >= 0 and tr.rating[c.square] is not None:
                out[base + 21] = max(-1.0, min(1.0, (c.speed - tr.rating[c.square]) / 100.0))
            out[base + 22] = float(c.speed > c.max_speed)
            out[base + 23] = float(s in state.current_players())
            dist = (c.u - my_u) % length / length
            out[base + 24] = dist
            out[base + 25] = min(1.0, max(0.0, (laps_to_win + c.owed) * length - c.best_u)
                                 / ((laps_to_win + 1) * length))
            out[base + 26] = float(c.speed == 0)
            out[base + 27] = min(1.0, c.speed / max(10, c.max_speed)) if not c.out else 0.0
            out[base + 28] = float(rel == 0)
            out[base + 29] = float(c.luck == 0)
            out[base + 30] = float(state.cards[s] is not None)
            base += CAR_FEATURES
            for j, li in enumerate(self.lunacy_cards):
                out[base + j] = float(li in c.lunacies)
            base += len(self.lunacy_cards)
            card = state.cards[s]
            if card is not None:
                out[base + self.card_slot[card]] = 1.0
            k += CAR_FEATURES + len(self.lunacy_cards) + len(self.card_actions)

        # own hand and spent gadgets
        for gi in car.gadgets:
            out[k + gi] = 1.0
        for gi in car.spent:
            out[k + self.num_gadgets + gi] = 1.0
        k += 2 * self.num_gadgets

        # the decision being asked (one-hot; last slot: nothing for this seat)
        d = state.decision
        mine = d is not None and seat in state.current_players()
        if mine:
            out[k + DECISIONS.index(DecisionKind(d["kind"]))] = 1.0
        else:
            out[k + len(DECISIONS)] = 1.0
        k += len(DECISIONS) + 1
        if mine:
            out[k] = d.get("points", 0) / g.rules.pit.points
            out[k + 1] = d.get("hits", 0) / 8.0
            out[k + 2] = float(d.get("deck") == "hazard")
            out[k + 3] = float(d.get("deck") == "turbo")
            if d.get("deck") == "hazard" or ("card" in d and "deck" not in d):
                out[k + 4 + d["card"]] = 1.0
            elif d.get("deck") == "turbo":
                out[k + 4 + self.num_hazard + d["card"]] = 1.0
            offer_base = k + 4 + self.num_hazard + self.num_turbo
            for gi in state.offer:
                out[offer_base + gi] = 1.0
        k += 4 + self.num_hazard + self.num_turbo + self.num_gadgets

        # the current turn
        t = state.turn
        if t is not None:
            sps = g.rules.speed_per_square
            mover = state.cars[t["seat"]]
            out[k] = float(t["seat"] == seat)
            out[k + 1] = t["steps"] / 20.0
            out[k + 2] = max(0.0, min(1.0, (mover.speed // sps - t["steps"]) / 20.0))
            out[k + 3] = float(t["ram"] == 1)
            out[k + 4] = t["drops"] / 2.0
            out[k + 5] = (t["drop_kind"] + 1) / 3.0
            out[k + 6] = float(t["ignore_max"])
            out[k + 7] = float(t["rocket"])
        k += 8

        # tables
        out[k] = state.round / g.rules.round_limit
        out[k + 1] = len(state.gadget_top) / self.num_gadgets
        k += 2
        hz_total = sum(c.count for c in g.decks.hazard)
        for i, cnt in enumerate(state.hazard_deck):
            out[k + i] = cnt * 4.0 / hz_total
        k += self.num_hazard
        tb_total = sum(c.count for c in g.decks.turbo)
        for i, cnt in enumerate(state.turbo_deck):
            out[k + i] = cnt * 4.0 / tb_total
        k += self.num_turbo
        out[k] = sum(state.hazard_deck) / hz_total
        k += 1
        for j in range(3):
            out[k + j] = state.supply[j] / max(1, g.rules.chip_supply[j])
        k += 3
        assert k == self.size
        np.clip(out, -1.0, 1.0, out=out)
        return out

    @property
    def state_size(self) -> int:
        """Length of :meth:`state_vector`."""
        return self.size + self.n * self.num_gadgets + self.num_gadgets

    def state_vector(self, state: State) -> np.ndarray:
        """The global state: seat 0's view plus every hand and the gadget deck's top."""
        out = np.zeros(self.state_size, dtype=np.float32)
        out[: self.size] = self.encode(state, 0)
        k = self.size
        for c in state.cars:
            for gi in c.gadgets:
                out[k + gi] = 1.0
            k += self.num_gadgets
        for gi in state.gadget_top:
            out[k + gi] = 1.0
        return out
