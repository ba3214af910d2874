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
import struct

import numpy as np

from lunatix_env.rules import Game, State
from lunatix_env.rules.config import HazardEffect
from lunatix_env.rules.records import Car, DecisionKind, RamCard, laps_done
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
            raise ConfigError(
                f"the observation encoder supports 3-lane tracks; track "
                f"{tr.name!r} has {tr.num_lanes} lanes"
            )
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
        self.lunacy_cards = [
            i for i, c in enumerate(game.decks.hazard) if c.effect is HazardEffect.LUNACY
        ]
        self.card_actions = [
            a for a in game.codec.actions if a.kind.name in ("CARD", "PLAY_GADGET")
        ]
        self.card_slot = {game.codec.encode(a): i for i, a in enumerate(self.card_actions)}
        r = game.rules
        self.speed_scale = float(r.turbo_speed_cap)
        self.max_scale = float(r.max_speed)
        self.size = (
            self.num_planes * self.lanes * self.width
            + 3 * LOCAL_FEATURES
            + self.n * (CAR_FEATURES + len(self.lunacy_cards) + len(self.card_actions))
            + self.num_gadgets * 2
            + len(DECISIONS)
            + 1
            + 4
            + self.num_hazard
            + self.num_turbo
            + self.num_gadgets
            + 8
            + 2
            + self.num_hazard
            + self.num_turbo
            + 1
            + 3
        )
        g = game
        W, L = self.width, self.lanes
        self.plane_size = self.num_planes * L * W
        self.n_static = len(self.static) * L * W
        # static planes rolled for every shift (index by shift % W), clipped once
        st = np.clip(self.static, -1.0, 1.0)
        static_rolled = np.stack([np.roll(st, s, axis=2).ravel() for s in range(W)])
        # per shift: the whole vector with the static planes rolled in, zeros elsewhere
        self.base = np.zeros((W, self.size), dtype=np.float32)
        self.base[:, self.plane_size - self.n_static : self.plane_size] = static_rolled
        self.base_rows = list(self.base)
        # per shift: every square's flat index within a plane after the rotation
        self.rot = [
            [
                int(self.lane[sq]) * W + (int(self.col[sq]) + shift) % W
                for sq in range(tr.num_squares)
            ]
            for shift in range(W)
        ]
        self.sq_col = [int(c) for c in self.col]
        self.pit_anchor = [o.square for o in tr.openings]
        self.start_anchor = tr.start_dots[0]
        #: per observer: the seats in observation order (the observer first)
        self.orders = [tuple((seat + k) % self.n for k in range(self.n)) for seat in range(self.n)]
        self.car_plane = [rel * L * W for rel in range(self.n)]
        self.wreck_plane = self.n * L * W
        self.chip_plane = [(self.n + 1 + kind) * L * W for kind in range(len(DYNAMIC_PLANES) - 1)]
        self.beyond = tuple(
            tuple(
                next((b for dd, b in g.ahead[f][sq] if dd == 1), None)
                for sq in range(tr.num_squares)
            )
            for f in (0, 1)
        )
        self.hz_total = sum(c.count for c in g.decks.hazard)
        self.tb_total = sum(c.count for c in g.decks.turbo)
        self.dec_index = {k.value: i for i, k in enumerate(DECISIONS)}
        self.lunacy_slot = {li: j for j, li in enumerate(self.lunacy_cards)}
        self.car_block = CAR_FEATURES + len(self.lunacy_cards) + len(self.card_actions)
        self.u_norm = tr.length * (game.rules.laps + 1)
        # the scalar tail as float32 bytes, section by section (struct packs a Python float
        # to float32 exactly as numpy casts it); each section's size in floats:
        self.mid_size = (
            2 * self.num_gadgets
            + len(DECISIONS)
            + 1
            + 4
            + self.num_hazard
            + self.num_turbo
            + self.num_gadgets
        )
        self.tables_size = 2 + self.num_hazard + self.num_turbo + 1 + 3
        self.tail_size = self.size - self.plane_size
        assert self.tail_size == (
            3 * LOCAL_FEATURES + self.n * self.car_block + self.mid_size + 8 + self.tables_size
        )
        self._car_struct = struct.Struct(f"={self.car_block}f")
        self._turn_struct = struct.Struct("=8f")
        self._tables_struct = struct.Struct(f"={self.tables_size}f")
        self._zero_local = bytes(4 * 3 * LOCAL_FEATURES)
        self._zero_turn = bytes(4 * 8)
        self._zero_mid = bytes(4 * self.mid_size)
        self.mid_off = 3 * LOCAL_FEATURES + self.n * self.car_block
        self._one = np.array(1.0, dtype=np.float32)
        self._minus_one = np.array(-1.0, dtype=np.float32)
        lap_norm = r.laps + 1
        self._car_consts = (
            tr.length,
            r.laps,
            lap_norm,
            lap_norm * tr.length,
            self.speed_scale,
            self.max_scale,
            max(1, r.luck_chips),
            r.pit.chip_cap,
            r.gadget_hand_limit + 1,
            self.num_gadgets,
            tr.lane,
            tr.rating,
        )
        self._car_zeros = (0.0,) * (self.car_block - CAR_FEATURES)
        # per seat: (key, bytes) of its car block; the tables: their inputs and bytes
        self._car_cache: list[tuple | None] = [None] * self.n
        self._tables_cache: tuple | None = None

    def __getstate__(self) -> dict:
        # everything else is derived from these (the struct packers cannot be pickled)
        return {"game": self.game, "offset": self.offset}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["game"], state["offset"])  # type: ignore[misc]

    def encode(self, state: State, seat: int) -> np.ndarray:  # noqa: C901, PLR0915 - one pass
        """The observation vector of ``seat`` (float32, values in [-1, 1]).

        Built for speed:

        * the planes: a copy of the static planes pre-rolled for the observer's shift
          (zeros elsewhere), then the few dynamic entries at pre-rotated flat indices;
        * the scalar tail: float32 bytes per section, joined and copied in at once. A car's
          block (less the slots that depend on the observer or on whose turn or decision it
          is) depends only on the car's own fields, its card and the pit counter, so it is
          packed again only when one of those changed since the last call for that seat
          (usually only the moving car's); likewise the tables. The local view, the hand
          and decision sections and those per-observation car slots start as zeros and
          only their non-zero slots are written;
        * every slot is written through a float32 memoryview (a Python float stored as
          numpy casts it), and the tail is clamped to [-1, 1] at the end, so no slot needs
          clamping on its own.
        """
        g = self.game
        n = self.n
        cars = state.cars
        car = cars[seat]
        # ------------------------------------------------------------ planes
        if car.in_pit:
            anchor = self.pit_anchor[car.pit_opening]
        else:
            anchor = car.square if car.square >= 0 else self.start_anchor
        shift = (self.offset - self.sq_col[anchor]) % self.width
        out = self.base_rows[shift].copy()
        planes = memoryview(out)  # float32 slots, written as numpy would cast them
        rot = self.rot[shift]
        chips = state.track_chips
        chip_plane = self.chip_plane
        for sq, kind in chips.items():
            planes[chip_plane[kind] + rot[sq]] = 1.0

        # ------------------------------------------------------------ cars
        # (the local view, first in the tail, is written further down)
        parts = [self._zero_local]
        order = self.orders[seat]
        car_plane = self.car_plane
        pit_counter = max(1, state.pit_counter)
        cards = state.cards
        car_cache = self._car_cache
        for rel, s in enumerate(order):
            c = cars[s]
            sq = c.square
            in_pit = c.in_pit
            if not in_pit and sq >= 0:  # its plane entry
                if c.out:
                    planes[self.wreck_plane + rot[sq]] = 1.0
                else:
                    planes[car_plane[rel] + rot[sq]] = 1.0 if c.facing == 0 else -1.0
            ch = c.chips
            card = cards[s]
            key = (
                c.speed,
                c.max_speed,
                c.best_u,
                c.luck,
                c.owed,
                ch[0],
                ch[1],
                ch[2],
                len(c.gadgets),
                len(c.spent),
                in_pit,
                c.out,
                c.facing,
                sq,
                c.pit_order,
                pit_counter,
                card,
                tuple(c.lunacies),
            )
            cached = car_cache[s]
            if cached is None or cached[0] != key:
                cached = car_cache[s] = (key, self._car_bytes(c, card, pit_counter))
            parts.append(cached[1])
        tr = g.track

        # ------------------------------------------------------------ hand and decision
        parts.append(self._zero_mid)  # its few non-zero slots are written below
        r = g.rules
        d = state.decision
        cur = state.current_players()

        turn = state.turn
        if turn is not None:
            turn_seat = turn.seat
            steps = turn.steps
            parts.append(
                self._turn_struct.pack(
                    float(turn_seat == seat),
                    steps / 20.0,
                    max(
                        0.0, min(1.0, (cars[turn_seat].speed // r.speed_per_square - steps) / 20.0)
                    ),
                    float(turn.ram is RamCard.READY),
                    turn.drops / 2.0,
                    (turn.drop_kind + 1) / 3.0,
                    float(turn.ignore_max),
                    float(turn.rocket),
                )
            )
        else:
            parts.append(self._zero_turn)

        # ------------------------------------------------------------ tables
        cached = self._tables_cache  # (round, gadget deck size, hazard, turbo, supply, bytes)
        if (
            cached is None
            or cached[0] != state.round
            or cached[1] != len(state.gadget_top)
            or cached[2] != state.hazard_deck
            or cached[3] != state.turbo_deck
            or cached[4] != state.supply
        ):
            cached = self._tables_cache = (
                state.round,
                len(state.gadget_top),
                list(state.hazard_deck),
                list(state.turbo_deck),
                list(state.supply),
                self._tables_bytes(state),
            )
        parts.append(cached[5])

        # ------------------------------------------------------------ tail
        ps = self.plane_size
        planes.cast("B")[4 * ps :] = b"".join(parts)
        t = planes[ps:]  # the tail's float32 slots
        # the car slots that depend on the observer, the turn or the decision
        length = tr.length
        u_norm = self.u_norm
        my_u = car.u
        car_block = self.car_block
        state_order = state.order
        k = 3 * LOCAL_FEATURES
        for s in order:
            u = cars[s].u
            if s != seat:  # (the observer's own: 0.0 relative to itself)
                du = u - my_u
                t[k + 15] = du / length
                t[k + 24] = du % length / length
            t[k + 16] = u / u_norm
            if s in state_order:  # rank: the first place the seat appears
                t[k + 17] = (state_order.index(s) + 1) / n
            k += car_block
        k = 3 * LOCAL_FEATURES
        if turn is not None:
            t[k + (turn_seat - seat) % n * car_block + 18] = 1.0
        for s in cur:
            t[k + (s - seat) % n * car_block + 23] = 1.0
        t[k + 28] = 1.0
        # local view
        if not car.in_pit and car.square >= 0 and not car.out:
            occ = {c.square: c for c in cars if not c.in_pit and c.square >= 0}
            beyond_of = self.beyond[car.facing]
            curve, rating = tr.curve, tr.rating
            cur_curve = curve[car.square]
            for dd, sq in g.ahead[car.facing][car.square]:
                base = dd * LOCAL_FEATURES
                t[base] = 1.0
                other = occ.get(sq)
                if other is not None:
                    t[base + 2 if other.out else base + 1] = 1.0
                chip = chips.get(sq)
                if chip is not None:
                    t[base + 3 + chip] = 1.0
                if curve[sq] is not None:
                    t[base + 6] = rating[sq] / 200.0
                    if curve[sq] != cur_curve:
                        t[base + 7] = 1.0
                    t[base + 8] = (car.speed - rating[sq]) / 100.0
                b = beyond_of[sq]
                if b is not None:
                    t[base + 9] = 1.0
                    if b in occ:
                        t[base + 10] = 1.0
                    if b in chips:
                        t[base + 11] = 1.0
        # hand and decision
        num_gadgets = self.num_gadgets
        k = self.mid_off
        for gi in car.gadgets:
            t[k + gi] = 1.0
        for gi in car.spent:
            t[k + num_gadgets + gi] = 1.0
        k += 2 * num_gadgets
        mine = d is not None and seat in cur
        if mine:
            t[k + self.dec_index[d.kind.value]] = 1.0
        else:
            t[k + len(DECISIONS)] = 1.0
        k += len(DECISIONS) + 1
        if mine:
            deck = d.deck  # "" when the decision has none
            t[k] = max(d.points, 0) / r.pit.points  # (-1: not set)
            t[k + 1] = max(d.hits, 0) / 8.0
            t[k + 2] = float(deck == "hazard")
            t[k + 3] = float(deck == "turbo")
            if deck == "hazard" or (d.card >= 0 and not deck):
                t[k + 4 + d.card] = 1.0
            elif deck == "turbo":
                t[k + 4 + self.num_hazard + d.card] = 1.0
            offer_base = k + 4 + self.num_hazard + self.num_turbo
            for gi in state.offer:
                t[offer_base + gi] = 1.0
        t.release()
        planes.release()
        # copied in clamped to [-1, 1]
        tail = out[ps:]
        np.minimum(tail, self._one, out=tail)
        np.maximum(tail, self._minus_one, out=tail)
        return out

    def _car_bytes(self, c: Car, card: int | None, pit_counter: int) -> bytes:
        """A car's block as float32 bytes, 0 in the slots :meth:`encode` writes later."""
        (
            length,
            laps_to_win,
            lap_norm,
            left_norm,
            speed_scale,
            max_scale,
            luck_norm,
            cap,
            hand_norm,
            num_gadgets,
            lane_of,
            rating,
        ) = self._car_consts
        speed, max_speed, luck, best_u, owed = c.speed, c.max_speed, c.luck, c.best_u, c.owed
        ch = c.chips
        sq = c.square
        in_pit = c.in_pit
        if not in_pit and sq >= 0:
            lane = lane_of[sq]
            rt = rating[sq]
        else:
            lane = rt = None
        block = [
            speed / speed_scale,
            max_speed / max_scale,
            laps_done(best_u, length) / lap_norm,
            owed / 2,
            luck / luck_norm,
            ch[0] / cap,
            ch[1] / cap,
            ch[2] / cap,
            len(c.gadgets) / hand_norm,
            float(in_pit),
            float(c.out),
            float(c.facing),
            1.0 if lane == 0 else 0.0,
            1.0 if lane == 1 else 0.0,
            1.0 if lane == 2 else 0.0,
            0.0,  # 15: progress relative to the observer's
            0.0,  # 16: progress
            0.0,  # 17: rank in the turn order
            0.0,  # 18: moving now
            c.pit_order / pit_counter if in_pit else 0,
            len(c.spent) / num_gadgets,
            (speed - rt) / 100.0 if rt is not None else 0.0,
            float(speed > max_speed),
            0.0,  # 23: deciding now
            0.0,  # 24: distance ahead of the observer
            min(1.0, max(0.0, (laps_to_win + owed) * length - best_u) / left_norm),
            float(speed == 0),
            speed / max(10, max_speed) if not c.out else 0.0,
            0.0,  # 28: the observer's own car
            float(luck == 0),
            float(card is not None),
            *self._car_zeros,
        ]
        for li in c.lunacies:
            j = self.lunacy_slot.get(li)
            if j is not None:
                block[CAR_FEATURES + j] = 1.0
        if card is not None:
            block[CAR_FEATURES + len(self.lunacy_cards) + self.card_slot[card]] = 1.0
        return self._car_struct.pack(*block)

    def _tables_bytes(self, state: State) -> bytes:
        """Round, gadget deck, hazard and turbo decks, chip supply as float32 bytes."""
        r = self.game.rules
        hd = state.hazard_deck
        hz_total, tb_total = self.hz_total, self.tb_total
        sup, sup0 = state.supply, r.chip_supply
        return self._tables_struct.pack(
            state.round / r.round_limit,
            len(state.gadget_top) / self.num_gadgets,
            *[cnt * 4.0 / hz_total for cnt in hd],
            *[cnt * 4.0 / tb_total for cnt in state.turbo_deck],
            sum(hd) / hz_total,
            sup[0] / max(1, sup0[0]),
            sup[1] / max(1, sup0[1]),
            sup[2] / max(1, sup0[2]),
        )

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
