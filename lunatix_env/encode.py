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
from tabletop.errors import ConfigError

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
        if tr.num_lanes != 3:
            raise ConfigError(f"the observation encoder supports 3-lane tracks; track "
                              f"{tr.name!r} has {tr.num_lanes} lanes")
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
        g = game
        W, L = self.width, self.lanes
        self.plane_size = self.num_planes * L * W
        self.n_static = len(self.static) * L * W
        # static planes rolled for every shift (index by shift % W), clipped once
        st = np.clip(self.static, -1.0, 1.0)
        self.static_rolled = np.stack([np.roll(st, s, axis=2).ravel() for s in range(W)])
        self.sq_lane_off = [int(self.lane[sq]) * W for sq in range(tr.num_squares)]
        self.sq_col = [int(c) for c in self.col]
        self.beyond = tuple(
            tuple(next((b for dd, b in g.ahead[f][sq] if dd == 1), None)
                  for sq in range(tr.num_squares))
            for f in (0, 1))
        self.hz_total = sum(c.count for c in g.decks.hazard)
        self.tb_total = sum(c.count for c in g.decks.turbo)
        self.dec_index = {k.value: i for i, k in enumerate(DECISIONS)}
        self.lunacy_slot = {li: j for j, li in enumerate(self.lunacy_cards)}
        self.car_block = CAR_FEATURES + len(self.lunacy_cards) + len(self.card_actions)
        self.tail_size = self.size - self.plane_size

    # ------------------------------------------------------------------ helpers
    def _anchor(self, state: State, seat: int) -> int:
        car = state.cars[seat]
        if car.in_pit:
            return self.game.track.openings[car.pit_opening].square
        return car.square if car.square >= 0 else self.game.track.start_dots[0]

    def encode(self, state: State, seat: int) -> np.ndarray:  # noqa: C901 - one pass
        """The observation vector of ``seat`` (float32, values in [-1, 1]).

        Built in one pass for speed: the static planes come pre-rolled for every shift,
        the few dynamic plane entries are written at rotated flat indices, and the scalar
        tail is filled as a Python list and copied once.
        """
        g, tr = self.game, self.game.track
        r = g.rules
        n = self.n
        W = self.width
        LW = self.lanes * W
        cars = state.cars
        out = np.empty(self.size, dtype=np.float32)
        ps = self.plane_size
        ns = self.n_static
        # ------------------------------------------------------------ planes
        anchor = self._anchor(state, seat)
        shift = self.offset - self.sq_col[anchor]
        out[ps - ns:ps] = self.static_rolled[shift % W]
        out[:ps - ns] = 0.0
        col = self.sq_col
        lane_off = self.sq_lane_off
        order = [(seat + k) % n for k in range(n)]
        for rel, s in enumerate(order):
            c = cars[s]
            sq = c.square
            if c.in_pit or sq < 0:
                continue
            idx = lane_off[sq] + (col[sq] + shift) % W
            if c.out:
                out[n * LW + idx] = 1.0
            else:
                out[rel * LW + idx] = 1.0 if c.facing == 0 else -1
        chips = state.track_chips
        for sq, kind in chips.items():
            out[(n + 1 + kind) * LW + lane_off[sq] + (col[sq] + shift) % W] = 1.0

        v = [0.0] * self.tail_size
        # ------------------------------------------------------------ local view
        car = cars[seat]
        occ = {c.square: c for c in cars if not c.in_pit and c.square >= 0}
        if not car.in_pit and car.square >= 0 and not car.out:
            ahead = g.ahead[car.facing][car.square]
            beyond_of = self.beyond[car.facing]
            curve, rating = tr.curve, tr.rating
            cur_curve = curve[car.square]
            for d, sq in ahead:
                base = d * LOCAL_FEATURES
                other = occ.get(sq)
                v[base] = 1.0
                if other is not None:
                    if other.out:
                        v[base + 2] = 1.0
                    else:
                        v[base + 1] = 1.0
                chip = chips.get(sq)
                if chip is not None:
                    v[base + 3 + chip] = 1.0
                if curve[sq] is not None:
                    v[base + 6] = rating[sq] / 200.0
                    v[base + 7] = 1.0 if curve[sq] != cur_curve else 0.0
                    v[base + 8] = (car.speed - rating[sq]) / 100.0
                b = beyond_of[sq]
                if b is not None:
                    v[base + 9] = 1.0
                    v[base + 10] = 1.0 if b in occ else 0.0
                    v[base + 11] = 1.0 if b in chips else 0.0
        k = 3 * LOCAL_FEATURES

        # ------------------------------------------------------------ cars
        length = tr.length
        laps_to_win = r.laps
        lap_norm = laps_to_win + 1
        my_u = car.u
        speed_scale, max_scale = self.speed_scale, self.max_scale
        luck_norm = max(1, r.luck_chips)
        cap = r.pit.chip_cap
        hand_norm = r.gadget_hand_limit + 1
        state_order = state.order
        pos = {s: i for i, s in reversed(list(enumerate(state_order)))}
        turn = state.turn
        turn_seat = turn["seat"] if turn is not None else None
        cur = state.current_players()
        pit_counter = max(1, state.pit_counter)
        num_gadgets = self.num_gadgets
        lunacy_slot = self.lunacy_slot
        card_slot = self.card_slot
        lane_of, rating = tr.lane, tr.rating
        for rel, s in enumerate(order):
            c = cars[s]
            base = k
            v[base] = c.speed / speed_scale
            v[base + 1] = c.max_speed / max_scale
            laps = max(0, math.floor(c.best_u / length + 1e-9))
            v[base + 2] = laps / lap_norm
            v[base + 3] = c.owed / 2
            v[base + 4] = c.luck / luck_norm
            ch = c.chips
            v[base + 5] = ch[0] / cap
            v[base + 6] = ch[1] / cap
            v[base + 7] = ch[2] / cap
            v[base + 8] = len(c.gadgets) / hand_norm
            v[base + 9] = float(c.in_pit)
            v[base + 10] = float(c.out)
            v[base + 11] = float(c.facing)
            on_track = not c.in_pit and c.square >= 0
            if on_track:
                v[base + 12 + lane_of[c.square]] = 1.0
            v[base + 15] = (c.u - my_u) / length
            v[base + 16] = c.u / (length * lap_norm)
            if state_order and s in pos:
                v[base + 17] = (pos[s] + 1) / n
            v[base + 18] = float(turn is not None and turn_seat == s)
            v[base + 19] = c.pit_order / pit_counter if c.in_pit else 0
            v[base + 20] = len(c.spent) / num_gadgets
            if on_track and rating[c.square] is not None:
                v[base + 21] = (c.speed - rating[c.square]) / 100.0
            v[base + 22] = float(c.speed > c.max_speed)
            v[base + 23] = float(s in cur)
            v[base + 24] = (c.u - my_u) % length / length
            v[base + 25] = min(1.0, max(0.0, (laps_to_win + c.owed) * length - c.best_u)
                               / (lap_norm * length))
            v[base + 26] = float(c.speed == 0)
            v[base + 27] = c.speed / max(10, c.max_speed) if not c.out else 0.0
            v[base + 28] = float(rel == 0)
            v[base + 29] = float(c.luck == 0)
            card = state.cards[s]
            v[base + 30] = float(card is not None)
            base += CAR_FEATURES
            for li in c.lunacies:
                j = lunacy_slot.get(li)
                if j is not None:
                    v[base + j] = 1.0
            base += len(self.lunacy_cards)
            if card is not None:
                v[base + card_slot[card]] = 1.0
            k += self.car_block

        for gi in car.gadgets:
            v[k + gi] = 1.0
        for gi in car.spent:
            v[k + num_gadgets + gi] = 1.0
        k += 2 * num_gadgets

        d = state.decision
        mine = d is not None and seat in cur
        if mine:
            v[k + self.dec_index[d["kind"]]] = 1.0
        else:
            v[k + len(DECISIONS)] = 1.0
        k += len(DECISIONS) + 1
        if mine:
            deck = d.get("deck")
            v[k] = d.get("points", 0) / r.pit.points
            v[k + 1] = d.get("hits", 0) / 8.0
            v[k + 2] = float(deck == "hazard")
            v[k + 3] = float(deck == "turbo")
            if deck == "hazard" or ("card" in d and deck is None and "deck" not in d):
                v[k + 4 + d["card"]] = 1.0
            elif deck == "turbo":
                v[k + 4 + self.num_hazard + d["card"]] = 1.0
            offer_base = k + 4 + self.num_hazard + self.num_turbo
            for gi in state.offer:
                v[offer_base + gi] = 1.0
        k += 4 + self.num_hazard + self.num_turbo + num_gadgets

        if turn is not None:
            sps = r.speed_per_square
            mover = cars[turn_seat]
            v[k] = float(turn_seat == seat)
            v[k + 1] = turn["steps"] / 20.0
            v[k + 2] = max(0.0, min(1.0, (mover.speed // sps - turn["steps"]) / 20.0))
            v[k + 3] = float(turn["ram"] == 1)
            v[k + 4] = turn["drops"] / 2.0
            v[k + 5] = (turn["drop_kind"] + 1) / 3.0
            v[k + 6] = float(turn["ignore_max"])
            v[k + 7] = float(turn["rocket"])
        k += 8

        v[k] = state.round / r.round_limit
        v[k + 1] = len(state.gadget_top) / num_gadgets
        k += 2
        hd = state.hazard_deck
        for i, cnt in enumerate(hd):
            v[k + i] = cnt * 4.0 / self.hz_total
        k += self.num_hazard
        tb_total = self.tb_total
        for i, cnt in enumerate(state.turbo_deck):
            v[k + i] = cnt * 4.0 / tb_total
        k += self.num_turbo
        v[k] = sum(hd) / self.hz_total
        k += 1
        sup, sup0 = state.supply, r.chip_supply
        v[k] = sup[0] / max(1, sup0[0])
        v[k + 1] = sup[1] / max(1, sup0[1])
        v[k + 2] = sup[2] / max(1, sup0[2])
        tail = out[ps:]
        tail[:] = v  # clamped to [-1, 1] below, so the slots above need no clamping
        np.minimum(tail, 1.0, out=tail)
        np.maximum(tail, -1.0, out=tail)
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
