"""A rule-based heuristic bot for Lunatix Loop: :class:`LunatixHeuristic`.

The bot decides only from ``state.observation(seat)``, ``state.legal_actions(seat)``, the
public decision kind and the game's static rules (track, curve ratings, deck compositions).
It never reads another seat's gadgets, the gadget deck, or anything else hidden.

**Planning model.** Once per game (cached per :class:`Game` object) the bot builds a
*static value table* ``V_m(square, speed)`` for every maximum speed ``m``: the discounted
sum of along-track progress (middle-lane squares, the unit of race progress) a lone car can
expect from the start of a round, found by value iteration over every speed change a round
allows (Brake amounts, Accelerate amounts) and every lane path of ``speed / 10`` steps. A
path pays for the hazard cards it would draw (entering a curve above its rating, one card
per 10 mph over; moving inward in a curve above the new rating), priced in *hit
equivalents* from the hazard deck's composition (the mean damage dice of a card, plus the
wall hit of a Skid in the outside lane, plus a price for lunacies), times the price of a hit
at that maximum speed (higher when the car is close to going out). The pit is a state of
the table: entering from the entry opening (paying the pit's hazard cards, a Skid there hits
the pit wall), then leaving with the repaired maximum speed at 10 or 20 mph. On the final
lap the pit is left out (a pit pass there would owe a lap), with a second family of tables.
At every decision the bot looks one round ahead *online*: a memoised search over the lanes
of the remaining steps with the real chips on the track and the real cars as obstacles
(only wrecks at card time, since the others will move), valued at its end by the table.
Crossing the line on the last lap is worth far more than anything else.

**chip_mix.** As many tacks as allowed (one damage die to whoever drives over them), then
oil (one hazard card), then glue.

**card.** Every legal card is scored by the best one-round plan it allows: Accelerate by
its best amount (and, when far below the maximum, the expected value of a turbo over the
public turbo deck, explosions priced in hits), Brake by its best amount, Ram and Battering
Ram by an unchanged speed plus the worth of the best reachable ram, Drop by an unchanged
speed plus a bonus when a live opponent follows within range, Charger by its best amount,
Rocket Booster by its +60 plan (passing over cars and chips); gadget cards must beat the
plain cards by a margin, since they are spent. Turn Around is never chosen unless it is
the only card. This is where the bot brakes before a curve it would enter too fast: the
table makes a speed that cannot be shed before the next curve worth less.

**brake, accelerate, charge.** The amount whose one-round plan scores best.

**drop_kind.** Tacks, else oil, else glue.

**step.** Each legal step is scored by its immediate progress, the hazard cards and chip
it meets, and the best continuation of the remaining steps; pit entry by the pit's value
(plus a bonus per harmful lunacy the pit would cure); a ram by the damage it does to a
contender (more when it may knock the target out) less the rammer's own dice, and for a
rear-end ram the steps it gives up. With a Drop card the variant that drops is taken.

**ram.** The target whose ram is worth most.

**luck.** A hazard card is priced (damage dice, a Skid by where it would send the car,
Brake cards by the speed lost, lunacies by how much they hinder the bot) and compared with
the expected price of a fresh card from the public deck counts; a luck chip is spent when
the difference exceeds the worth of a chip. A turbo card is compared with the expected
turbo from the remaining deck in the same way. Fuzzy Dice is used before a luck chip.

**protect.** Armor Plating or Roll Cage when a roll does two hits or more, or would put
the car out; Roll Cage first when it cancels the roll fully.

**gadget.** Fire Extinguisher always; Shrink's Card against a harmful lunacy (Road Rage,
Lead Foot, Speed Freak, Tunnel Vision); Racing Tires when the Skid would hit a wall or a
car; Power Brakes against a Brake card of 20 mph or more.

**keep_gadget, discard_gadget.** A fixed preference: Armor Plating, Roll Cage, Charger,
Racing Tires, Fuzzy Dice, Shrink's Card, Power Brakes, Rocket Booster, Fire Extinguisher,
Battering Ram; keep the best, discard the worst.

**shop.** Counseling for Lead Foot or Speed Freak first, repairs up to the full maximum
speed, counseling for other harmful lunacies, a gadget, then chips (tacks first), then done.

**pit_exit.** The free exit whose plan for the remaining steps scores best.

**turn_around.** Never sought; if asked, the first legal kind.

**value(state, seat).** Terminal: the exact return. Otherwise each live car's rounds still
needed come from the value tables above (``TrackModel.rounds_to_finish``): its remaining
distance, less what its square, lane and speed are worth against a car in steady full flight,
over the pace its maximum speed allows. A softmax over those (``VALUE_TEMPERATURE``) gives
the seat's chance to win, with the round limit as one more competitor (if it "finishes"
first, nobody wins: a lone survivor is not a sure win while it still has laps to drive);
the expected return follows on the scale of ``state.returns()``, the win's share shaded by
``VALUE_TIEBREAK`` times the rounds still needed, so that a sooner finish is worth more.
(Until 2026-12-02 the pace was a fixed share of the maximum speed and there was no clock:
a lone survivor's value saturated at a sure win and MCTS stood still; the bot's own play
never calls ``value`` and is unchanged, still ``heuristic`` v1.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from agents.bot import Tunable
from lunatix_env.rules import (
    Action,
    ActionKind,
    Card,
    DecisionKind,
    GadgetEffect,
    Game,
    HazardEffect,
    Lunacy,
    ShopItem,
    State,
)

__all__ = ["LunatixHeuristic", "TrackModel"]

# ---------------------------------------------------------------- tuning constants
#: discount per round of the value tables (a horizon of about ten rounds: a lap or so)
GAMMA = 0.9
#: value-iteration sweeps (GAMMA ** 120 is below 1e-5)
VALUE_SWEEPS = 120
#: price of one damage hit (-10 max speed) in middle-lane squares of progress
HIT_COST = 6.0
#: risk of going out: a hit costs OUT_RISK / (max speed in tens of mph) squared more
OUT_RISK = 150.0
#: hit equivalents of drawing a lunacy (Lead Foot or Speed Freak can wreck a car's plans)
LUNACY_HITS = 0.8
#: worth of crossing the finish line now rather than a round later, in squares (on top of
#: the best value the table gives a car in full flight)
FINISH_MARGIN = 10.0
#: extra worth of finishing now when an opponent is within THREAT_RANGE of finishing
THREAT_MARGIN = 60.0
#: an opponent this close (squares) to its finish threatens to win first
THREAT_RANGE = 25.0
#: price in squares of a round spent standing still (the table would let it wait forever
#: in front of chips it does not know will stay)
STALL_PENALTY = 25.0
#: chance that a live opponent with us in its reach rams us (a random bot picks Ram about
#: one time in three or four when it is legal)
RAM_CHANCE = 0.3
#: steps an opponent may add to its reach by accelerating
ACCEL_REACH = 2
#: price in squares of ending a move where wrecks block every square ahead (a dead end:
#: wrecks never move)
DEAD_END = 200.0
#: the score of an action never to take while another exists
NEVER = -1e9
#: hit equivalents of being blocked into an involuntary ram (2 dice, move ends)
INVOLUNTARY_HITS = 2.5
#: price in squares of a glue chip per 10 mph it takes (steps lost now and re-acceleration)
GLUE_PER_10 = 1.5
#: a gadget card must beat the best plain card by this many squares (it is spent)
GADGET_MARGIN = 1.0
#: bonus in squares for a Drop card when a live opponent follows within DROP_RANGE
DROP_BONUS = 0.6
#: how far behind (middle-lane squares) an opponent may be for our chips to matter
DROP_RANGE = 14.0
#: worth of damage to an opponent who is a contender, per hit, in our squares
TARGET_HIT_VALUE = 1.5
#: an opponent more than this many squares behind is not a contender (its hits count less)
CONTENDER_BEHIND = 20.0
#: weight of hits on a non-contender
NON_CONTENDER_WEIGHT = 0.3
#: worth of knocking an opponent out of the race, in squares
KNOCKOUT_VALUE = 40.0
#: try a turbo only when at least this far (mph) below the max speed
TURBO_MIN_GAP = 40
#: worth of a luck chip in squares (spent only on a card this much worse than a redraw)
LUCK_VALUE = 2.0
#: pit bonus in squares per harmful lunacy the pit's counseling would cure
PIT_LUNACY_BONUS = 8.0
#: price in squares per 10 mph of a hazard Brake card (speed to win back)
BRAKE_CARD_PER_10 = 0.8
#: hits at or above which Armor Plating / Roll Cage are used
PROTECT_MIN_HITS = 2
#: hazard Brake amount (mph) at or above which Power Brakes are used
POWER_BRAKES_MIN = 20
#: value softmax temperature, in rounds still needed
VALUE_TEMPERATURE = 3.0
#: the least pace assumed for a live car (squares per round)
PACE_MIN = 1.0
#: weight of the tie-break in ``value``: sooner finishes are better even when the win is
#: sure (a lone survivor still has to finish before the round limit)
VALUE_TIEBREAK = 1e-3

#: lunacies that hinder the bot (Chicken and Hoarder barely do)
HARMFUL = (Lunacy.LEAD_FOOT, Lunacy.SPEED_FREAK, Lunacy.ROAD_RAGE, Lunacy.TUNNEL_VISION)
#: the lunacies worth counseling before repairs (they break speed control)
URGENT = (Lunacy.LEAD_FOOT, Lunacy.SPEED_FREAK)
#: price in squares of each lunacy when drawn (luck decisions)
LUNACY_PRICE = {
    Lunacy.LEAD_FOOT: 8.0,
    Lunacy.SPEED_FREAK: 6.0,
    Lunacy.ROAD_RAGE: 3.0,
    Lunacy.TUNNEL_VISION: 6.0,
    Lunacy.CHICKEN: 0.3,
    Lunacy.HOARDER: 0.3,
}
#: gadget preference, best first (keep the best offered, discard the worst held)
GADGET_RANK = (
    GadgetEffect.ARMOR,
    GadgetEffect.ROLL_CAGE,
    GadgetEffect.CHARGER,
    GadgetEffect.RACING_TIRES,
    GadgetEffect.FUZZY_DICE,
    GadgetEffect.SHRINKS_CARD,
    GadgetEffect.POWER_BRAKES,
    GadgetEffect.ROCKET,
    GadgetEffect.FIRE_EXTINGUISHER,
    GadgetEffect.BATTERING_RAM,
)
NEG_INF = float("-inf")


def hit_cost(
    max_speed: int, per_square: int, base: float = HIT_COST, out_risk: float = OUT_RISK
) -> float:
    """Price of one damage hit in squares for a car of ``max_speed`` (``base`` plus
    ``out_risk`` over its maximum speed in tens squared)."""
    tens = max(1.0, max_speed / per_square)
    return base + out_risk / (tens * tens)


# ---------------------------------------------------------------- the static track model
@dataclass
class _Table:
    """One value table: V[square, speed index] and the value of waiting in the pit."""

    v: np.ndarray
    pit: dict[int, float]
    #: ``v`` as nested Python lists (the planner reads single entries; the same floats)
    rows: list[list[float]] = field(init=False)
    #: the largest entry of ``v``
    top: float = field(init=False)

    def __post_init__(self) -> None:
        self.rows = self.v.tolist()
        self.top = float(self.v.max())


class TrackModel:
    """Static planning data of one game: hazard prices, lane paths and value tables."""

    def __init__(self, game: Game, hit_cost: float = HIT_COST, out_risk: float = OUT_RISK) -> None:
        self.game = game
        #: the hit prices the value tables are solved with (``hit_cost``)
        self.hit_cost, self.out_risk = hit_cost, out_risk
        r, tr = game.rules, game.track
        self.track = tr
        self.per = r.speed_per_square
        self.max_speed = r.max_speed
        self.speeds = list(range(0, r.max_speed + 1, self.per))
        self.nv = len(self.speeds)
        hz = game.decks.hazard
        total = sum(c.count for c in hz)
        dmg = sum(c.count * c.dice for c in hz if c.effect is HazardEffect.DAMAGE) / total
        skid = sum(c.count for c in hz if c.effect is HazardEffect.SKID) / total
        lun = sum(c.count for c in hz if c.effect is HazardEffect.LUNACY) / total
        die = float(np.mean(r.damage_die_faces))
        self.die = die
        base = dmg * die + lun * LUNACY_HITS
        #: hit equivalents of one hazard card by where it is drawn
        self.card_inner = base + skid * r.skid.car_dice[0] * die * 0.5
        self.card_outer = base + skid * r.skid.wall_dice * die
        self.card_pit = base + skid * r.skid.pit_wall_dice * die
        self.outer_lane = tr.num_lanes - 1
        four = r.four_opening_pit
        self.entries = [
            i
            for i, o in enumerate(tr.openings)
            if (o.side == "A" if four else o.name == tr.spec.pit.basic_entry)
        ]
        self.exits = [
            i
            for i, o in enumerate(tr.openings)
            if (o.side == "B" if four else o.name == tr.spec.pit.basic_exit)
        ]
        self.entry_squares = {tr.openings[i].square: i for i in self.entries}
        p = r.pit
        self.repair = p.points // p.repair_cost * p.repair_amount
        self._paths: dict[tuple[int, int, int], list[tuple[int, float, float, int]]] = {}
        self._tables: dict[tuple[int, bool], _Table] = {}
        self._paces: dict[tuple[int, bool], tuple[float, float]] = {}
        self._edges: dict[tuple[int, int], list[tuple[tuple[int, int, float, float], ...]]] = {}

    # -- hazard prices
    def cards_over(self, speed: int, safe: int) -> int:
        """Hazard cards for entering at ``speed`` a square rated ``safe``."""
        per = self.game.rules.mph_per_hazard_card
        return max(0, -(-(speed - safe) // per))

    def card_hits(self, square: int) -> float:
        """Hit equivalents of one hazard card drawn on ``square``."""
        return self.card_outer if self.track.lane[square] == self.outer_lane else self.card_inner

    def edge_hits(self, x: int, y: int, speed: int) -> float:
        """Hit equivalents of the curve hazards of one step x -> y at ``speed``."""
        tr = self.track
        cur = tr.curve[y]
        if cur is None:
            return 0.0
        rating = tr.rating[y]
        if tr.curve[x] != cur:
            return self.cards_over(speed, rating) * self.card_hits(y)
        if tr.lane[y] < tr.lane[x] and speed > rating:
            return self.game.rules.curve_inward_cards * self.card_hits(y)
        return 0.0

    def edges(self, facing: int, speed: int) -> list[tuple[tuple[int, int, float, float], ...]]:
        """Per square, the steps ahead for ``facing`` as (direction, square, progress, hit
        equivalents at ``speed``), in the engine's order (cached: the planner's inner loop)."""
        key = (facing, speed)
        got = self._edges.get(key)
        if got is None:
            tr = self.track
            sign = 1.0 if facing == 0 else -1.0
            got = self._edges[key] = [
                tuple(
                    (d, y, sign * tr.wrap(tr.s[y] - tr.s[x]), self.edge_hits(x, y, speed))
                    for d, y in self.game.ahead[facing][x]
                )
                for x in range(tr.num_squares)
            ]
        return got

    def pit_hits(self, entry_square: int, speed: int) -> float:
        """Hit equivalents of entering the pit at ``entry_square`` at ``speed``."""
        op = self.track.openings[self.track.opening_at[entry_square]]
        return self.cards_over(speed, op.safe_speed) * self.card_pit

    # -- static paths
    def paths(self, square: int, steps: int, speed: int) -> list[tuple[int, float, float, int]]:
        """(end square, progress, hit equivalents, pit entry or -1) of the cheapest lane
        path to each end square, facing the race direction, without other cars or chips."""
        key = (square, steps, speed)
        got = self._paths.get(key)
        if got is not None:
            return got
        tr, ahead = self.track, self.game.ahead[0]
        front = {square: (0.0, 0.0)}
        pit: dict[int, tuple[float, float]] = {}
        for _ in range(steps):
            nxt: dict[int, tuple[float, float]] = {}
            for x, (c, g) in front.items():
                ei = self.entry_squares.get(x)
                if ei is not None:
                    pc = c + self.pit_hits(x, speed)
                    if ei not in pit or pc < pit[ei][0]:
                        pit[ei] = (pc, g)
                for _d, y in ahead[x]:
                    cc = c + self.edge_hits(x, y, speed)
                    old = nxt.get(y)
                    if old is None or cc < old[0]:
                        nxt[y] = (cc, g + tr.wrap(tr.s[y] - tr.s[x]))
            front = nxt
        out = [(y, g, c, -1) for y, (c, g) in front.items()]
        out += [(tr.openings[ei].square, g, c, ei) for ei, (c, g) in pit.items()]
        self._paths[key] = out
        return out

    def speed_options(self, v: int, m: int) -> list[int]:
        """Speeds a round can start its move at from ``v`` (brakes and accelerations)."""
        r = self.game.rules
        opts = {v + a for a in r.accelerate_amounts if v + a <= m}
        if v > 0:
            opts |= {v - b for b in r.brake_amounts if b <= v}
        return sorted(opts)

    # -- value tables
    def table(self, m: int, allow_pit: bool) -> _Table:
        """The value table of max speed ``m`` (cached)."""
        m = max(self.per, min(self.max_speed, m - m % self.per))
        key = (m, allow_pit)
        got = self._tables.get(key)
        if got is None:
            got = self._tables[key] = self._solve(m, allow_pit)
        return got

    def _solve(self, m: int, allow_pit: bool) -> _Table:
        tr, per, nv = self.track, self.per, self.nv
        hc = hit_cost(m, per, self.hit_cost, self.out_risk)
        m_rep = min(self.max_speed, m + self.repair)
        npit = len(tr.openings)
        base = tr.num_squares * nv
        src: list[int] = []
        dst: list[int] = []
        rew: list[float] = []
        const_pit: dict[int, float] = {}
        if allow_pit and m_rep != m:
            const_pit = self.table(m_rep, allow_pit).pit
        for sq in range(tr.num_squares):
            for vi in range(m // per + 1):
                s_idx = sq * nv + vi
                for v2 in self.speed_options(vi * per, m):
                    accel = v2 - vi * per
                    extra = 0.0
                    if accel > 0 and tr.rating[sq] is not None and v2 > tr.rating[sq]:
                        extra = -(-accel // self.game.rules.mph_per_hazard_card) * self.card_hits(
                            sq
                        )
                    for end, g, c, ei in self.paths(sq, v2 // per, v2):
                        if ei >= 0 and not allow_pit:
                            continue
                        src.append(s_idx)
                        dst.append(base + ei if ei >= 0 else end * nv + v2 // per)
                        rew.append(g - (c + extra) * hc)
        if allow_pit and m_rep == m:
            for ei in self.entries:
                entry = tr.openings[ei].square
                for a in self.game.rules.accelerate_amounts:
                    if a <= 0 or a > m:
                        continue
                    for xi in self.exits:
                        x = tr.openings[xi].square
                        g0 = tr.wrap(tr.s[x] - tr.s[entry])
                        for end, g, c, pei in self.paths(x, a // per - 1, a):
                            src.append(base + ei)
                            dst.append(base + pei if pei >= 0 else end * nv + a // per)
                            rew.append(g0 + g - c * hc)
        order = np.argsort(np.asarray(src), kind="stable")
        s_arr = np.asarray(src)[order]
        d_arr = np.asarray(dst)[order]
        r_arr = np.asarray(rew)[order]
        groups, starts = np.unique(s_arr, return_index=True)
        val = np.zeros(base + npit)
        for ei, pv in const_pit.items():
            val[base + ei] = pv
        for _ in range(VALUE_SWEEPS):
            q = r_arr + GAMMA * val[d_arr]
            val[groups] = np.maximum.reduceat(q, starts)
        v = val[:base].reshape(tr.num_squares, nv)
        pit = {ei: float(val[base + ei]) for ei in self.entries} if allow_pit else {}
        return _Table(v, pit)

    # -- the evaluator's pace model
    def pace(self, m: int, allow_pit: bool) -> tuple[float, float]:
        """(squares per round, steady value) of a car of max speed ``m`` in full flight: the
        steady value is the table's best value per square averaged over the track, the pace
        its undiscounted equivalent (``V = pace / (1 - GAMMA)`` at a steady pace)."""
        key = (m, allow_pit)
        got = self._paces.get(key)
        if got is None:
            v = self.table(m, allow_pit).v[:, : m // self.per + 1]
            steady = float(v.max(axis=1).mean())
            got = self._paces[key] = (max(PACE_MIN, steady * (1 - GAMMA)), steady)
        return got

    def rounds_to_finish(self, car: dict[str, Any]) -> float | None:
        """Rounds a car (an observation's car entry) still needs, by the value tables: its
        remaining distance less what its square, lane and speed are worth against a car in
        steady full flight (the table's value there over the steady value: an inner lane or
        a good speed for the curve ahead is a lead, a speed too high for it a loss), over the
        pace of its max speed. None for a car that is out."""
        if car["out"]:
            return None
        m = max(self.per, car["max_speed"] - car["max_speed"] % self.per)
        allow_pit = car["laps"] < car["laps_required"] - 1
        pace, steady = self.pace(m, allow_pit)
        remaining = car["laps_required"] * self.track.length - car["progress"]
        sq = car["square"]
        if sq is not None and not car["in_pit"] and car["facing"] == 0:
            vi = min(car["speed"], m) // self.per
            remaining -= self.table(m, allow_pit).rows[sq][vi] - steady
        return max(0.0, remaining) / pace


def model_of(game: Game, hit_cost: float = HIT_COST, out_risk: float = OUT_RISK) -> TrackModel:
    """The static model of ``game`` for these hit prices, built once per game and prices
    and kept on the game (``Game.derived``)."""
    key = "lunatix.heuristic.track_model"
    if (hit_cost, out_risk) != (HIT_COST, OUT_RISK):
        key += f"(hit_cost={hit_cost!r},out_risk={out_risk!r})"
    return game.derived(key, lambda g: TrackModel(g, hit_cost, out_risk))


# ---------------------------------------------------------------- the online planner
@dataclass
class _Ctx:
    """What one decision knows about the seat's situation (from its observation)."""

    obs: dict[str, Any]
    seat: int
    me: dict[str, Any]
    model: TrackModel
    table: _Table
    hc: float
    allow_pit: bool
    to_win: float  # progress still needed to win
    wrecks: dict[int, int]
    occupied: dict[int, int]
    chips: dict[int, int]
    pit_bonus: float
    win_value: float
    hunters: list[tuple[float, float]] = field(default_factory=list)  # (s, reach) behind us
    danger: dict[int, float] = field(default_factory=dict)
    lunacies: set[Lunacy] = field(default_factory=set)
    #: speed -> square -> _terminal's value (pure for one decision)
    terminals: dict[int, dict[int, float]] = field(default_factory=dict)
    #: (speed, accel, rocket) -> _speed_q's value against the wrecks (pure for one decision)
    speed_qs: dict[tuple[int, int, bool], float] = field(default_factory=dict)


class LunatixHeuristic:
    """A rule-based Lunatix Loop bot that plans speed and lanes against the curves ahead."""

    name = "heuristic"
    version = 1
    #: its moves depend on ``state.observation(seat)`` and the legal actions alone (and its
    #: tie-break draws), so a search may remember them (``agents.bot.MemoBot``)
    decides_from_observation = True

    #: the ``heuristic:KEY=VALUE`` spec options (constructor keywords; defaults are v1's)
    tunables: ClassVar[dict[str, Tunable]] = {
        "hit_cost": Tunable(float, 0.0, 100.0, "price of a damage hit in squares, HIT_COST"),
        "out_risk": Tunable(
            float, 0.0, 10_000.0, "extra hit price over the max speed in tens squared, OUT_RISK"
        ),
        "ram_chance": Tunable(float, 0.0, 1.0, "chance a live opponent in reach rams, RAM_CHANCE"),
    }

    def __init__(
        self,
        seed: int | None = None,
        *,
        hit_cost: float = HIT_COST,
        out_risk: float = OUT_RISK,
        ram_chance: float = RAM_CHANCE,
    ) -> None:
        self.rng = np.random.default_rng(seed)
        #: price of one damage hit in squares (plus ``out_risk`` near going out)
        self.hit_cost = hit_cost
        self.out_risk = out_risk
        #: the chance it prices that an opponent with it in reach rams it
        self.ram_chance = ram_chance

    def reset(self, seed: int | None = None) -> None:
        """Reseed the tie-break generator."""
        self.rng = np.random.default_rng(seed)

    def model(self, game: Game) -> TrackModel:
        """The game's track model at this bot's hit prices."""
        return model_of(game, self.hit_cost, self.out_risk)

    # ------------------------------------------------------------ context
    def _ctx(self, state: State, seat: int) -> _Ctx:
        game = state.game
        model = self.model(game)
        obs = state.observation(seat)
        me = obs["cars"][seat]
        laps, req = me["laps"], me["laps_required"]
        allow_pit = laps < req - 1
        table = model.table(max(me["max_speed"], model.per), allow_pit)
        hz = game.decks.hazard
        luns = {hz[i].lunacy for i in me["lunacies"]}
        bonus = PIT_LUNACY_BONUS * sum(1 for lu in luns if lu in HARMFUL)
        occ: dict[int, int] = {}
        wrecks: dict[int, int] = {}
        for c in obs["cars"]:
            if c["seat"] != seat and c["square"] is not None:
                occ[c["square"]] = c["seat"]
                if c["out"]:
                    wrecks[c["square"]] = c["seat"]
        length = game.track.length
        threat = any(
            not c["out"]
            and c["seat"] != seat
            and c["laps_required"] * length - c["progress"] <= THREAT_RANGE
            for c in obs["cars"]
        )
        win = GAMMA * table.top + FINISH_MARGIN + (THREAT_MARGIN if threat else 0.0)
        hunters = []
        tr = game.track
        for c in obs["cars"]:
            if c["seat"] != seat and not c["out"] and c["square"] is not None and c["facing"] == 0:
                reach = (c["speed"] // model.per + ACCEL_REACH + 1) * game.max_step_ds
                hunters.append((tr.s[c["square"]], reach))
        return _Ctx(
            hunters=hunters,
            win_value=win,
            obs=obs,
            seat=seat,
            me=me,
            model=model,
            table=table,
            hc=hit_cost(me["max_speed"], model.per, self.hit_cost, self.out_risk),
            allow_pit=allow_pit,
            to_win=req * game.track.length - me["progress"],
            wrecks=wrecks,
            occupied=occ,
            chips=dict(obs["track_chips"]),
            pit_bonus=bonus,
            lunacies=luns,
        )

    def _chip_price(self, ctx: _Ctx, square: int) -> float:
        kind = ctx.chips.get(square)
        if kind is None:
            return 0.0
        ce = ctx.model.game.rules.chips
        if kind == 0:
            return ce.tacks_dice * ctx.model.die * ctx.hc
        if kind == 1:
            return ce.oil_cards * ctx.model.card_hits(square) * ctx.hc
        return ce.glue_speed_loss / ctx.model.per * GLUE_PER_10

    def _danger(self, ctx: _Ctx, square: int) -> float:
        """Expected price of being rammed at the end of our move on ``square``."""
        got = ctx.danger.get(square)
        if got is None:
            tr = ctx.model.track
            rd = ctx.model.game.rules.rams
            n = 0
            for s, reach in ctx.hunters:
                if 0.0 < tr.wrap(tr.s[square] - s) <= reach:
                    n += 1
            got = n * self.ram_chance * rd.sideswipe[1] * ctx.model.die * ctx.hc
            ctx.danger[square] = got
        return got

    def _terminal(self, ctx: _Ctx, square: int, speed: int) -> float:
        terms = ctx.terminals.get(speed)
        if terms is None:
            terms = ctx.terminals[speed] = {}
        got = terms.get(square)
        if got is None:
            got = terms[square] = self._terminal_value(ctx, square, speed)
        return got

    def _terminal_value(self, ctx: _Ctx, square: int, speed: int) -> float:
        m = ctx.me["max_speed"]
        vi = min(speed, m) // ctx.model.per
        if ctx.me["facing"] != 0:
            return 0.0
        value = GAMMA * ctx.table.rows[square][vi] - self._danger(ctx, square)
        if ctx.wrecks and all(y in ctx.wrecks for _d, y in ctx.model.game.ahead[0][square]):
            value -= DEAD_END
        return value

    def _pit_value(self, ctx: _Ctx, square: int, speed: int) -> float:
        ei = ctx.model.entry_squares.get(square)
        if ei is None:  # a car facing clockwise enters on the far side: value it as a stop
            return self._terminal(ctx, square, 0)
        return (
            -ctx.model.pit_hits(square, speed) * ctx.hc
            + GAMMA * ctx.table.pit.get(ei, 0.0)
            + ctx.pit_bonus
        )

    def _plan(
        self,
        ctx: _Ctx,
        square: int,
        steps: int,
        speed: int,
        occ: dict[int, int],
        gained: float = 0.0,
        rocket: bool = False,
    ) -> float:
        """Best value of ``steps`` more steps from ``square`` at ``speed`` (then the table).

        A memoised search over (square, steps left), the first progress to reach a node
        standing for all (paths to one square gain the same progress). The inner loop reads
        the model's cached step lists and the decision's cached end values, and looks up a
        child's value before calling for it; the arithmetic, and so every score, is the
        plain recursion's."""
        to_win = ctx.to_win - 1e-9
        if gained >= to_win:
            return ctx.win_value
        if steps <= 0:
            return self._terminal(ctx, square, speed)
        memo: dict[int, float] = {}
        stride = steps + 1  # k <= steps: one int key a node
        model = ctx.model
        facing = ctx.me["facing"]
        edges = model.edges(facing, speed)
        hc = ctx.hc
        chips = ctx.chips
        win_value = ctx.win_value
        entries = model.entry_squares if ctx.allow_pit and facing == 0 else {}
        terms = ctx.terminals.get(speed)
        if terms is None:
            terms = ctx.terminals[speed] = {}
        tunnel = Lunacy.TUNNEL_VISION in ctx.lunacies

        def f(sq: int, k: int, g: float) -> float:
            # k >= 1 and g < to_win here; memo keys are sq * stride + k
            best = NEG_INF
            if sq in entries:
                best = self._pit_value(ctx, sq, speed)
            moves = edges[sq]
            if tunnel:  # lane changes only when straight ahead is blocked
                straight = tuple(e for e in moves if e[0] == 1 and e[1] not in occ)
                moves = straight or moves
            k1 = k - 1
            for _d, y, gs, hits in moves:
                if y in occ and (not rocket or k == 1):
                    continue
                if rocket:
                    cost = 0.0
                elif y in chips:
                    cost = hits * hc + self._chip_price(ctx, y)
                else:
                    cost = hits * hc
                g2 = g + gs
                if g2 >= to_win:
                    v = win_value
                elif k1 <= 0:
                    v = terms.get(y)
                    if v is None:
                        v = self._terminal(ctx, y, speed)
                else:
                    v = memo.get(y * stride + k1)
                    if v is None:
                        v = f(y, k1, g2)
                val = gs - cost + v
                if val > best:
                    best = val
            if best == NEG_INF:  # blocked: an involuntary ram ends the move
                best = -INVOLUNTARY_HITS * hc + self._terminal(ctx, sq, speed)
            memo[sq * stride + k] = best
            return best

        return f(square, steps, gained)

    def _speed_q(
        self,
        ctx: _Ctx,
        speed: int,
        accel: int = 0,
        rocket: bool = False,
        occ: dict[int, int] | None = None,
    ) -> float:
        """Value of moving this round at ``speed`` from the car's square (card time)."""
        if occ is None:
            key = (speed, accel, rocket)
            got = ctx.speed_qs.get(key)
            if got is None:
                got = ctx.speed_qs[key] = self._speed_q(ctx, speed, accel, rocket, ctx.wrecks)
            return got
        me, model = ctx.me, ctx.model
        per = model.per
        if me["in_pit"]:
            return self._pit_exit_q(ctx, speed, occ)
        sq = me["square"]
        extra = 0.0
        rating = model.track.rating[sq]
        if accel > 0 and rating is not None and speed > rating and not rocket:
            extra = -(-accel // model.game.rules.mph_per_hazard_card) * model.card_hits(sq) * ctx.hc
        stall = STALL_PENALTY if speed < per else 0.0
        return self._plan(ctx, sq, speed // per, speed, occ, rocket=rocket) - extra - stall

    def _pit_exit_q(
        self, ctx: _Ctx, speed: int, occ: dict[int, int], steps_left: int | None = None
    ) -> float:
        model, tr = ctx.model, ctx.model.track
        entry = tr.openings[ctx.me["pit_opening"]].square
        exits = model.exits if ctx.me["facing"] == 0 else model.entries
        rem = speed // model.per - 1 if steps_left is None else steps_left
        best = NEG_INF
        for xi in exits:
            x = tr.openings[xi].square
            if x in ctx.occupied:
                continue
            g0 = tr.wrap(tr.s[x] - tr.s[entry])
            val = g0 - self._chip_price(ctx, x) + self._plan(ctx, x, rem, speed, occ, g0)
            best = max(best, val)
        if best == NEG_INF:  # every exit blocked: the round is spent in the pit
            best = GAMMA * max(ctx.table.pit.values(), default=0.0)
        return best

    def _turbo_q(self, ctx: _Ctx, speed: int) -> float:
        """Expected value of a turbo over the public turbo deck."""
        obs, g = ctx.obs, ctx.model.game
        deck = list(obs["turbo_deck"])
        if not any(deck):
            deck = [c.count for c in g.decks.turbo]
        total = sum(deck)
        cap = g.rules.turbo_speed_cap
        ev = 0.0
        for i, n in enumerate(deck):
            if n <= 0:
                continue
            card = g.decks.turbo[i]
            v2 = min(cap, speed + card.amount)
            ev += (
                n
                / total
                * (self._speed_q(ctx, v2, card.amount) - card.dice * ctx.model.die * ctx.hc)
            )
        return ev

    # ------------------------------------------------------------ rams and drops
    def _target_value(self, ctx: _Ctx, target: int, dice: int) -> float:
        """Worth in our squares of ``dice`` damage dice on car ``target``."""
        car = ctx.obs["cars"][target]
        if car["out"] or dice <= 0:
            return 0.0
        contender = car["progress"] >= ctx.me["progress"] - CONTENDER_BEHIND
        w = 1.0 if contender else NON_CONTENDER_WEIGHT
        dist = ctx.model.game.dice_distribution(dice)
        need = car["max_speed"] // ctx.model.per
        p_out = sum(p for h, p in dist if h >= need)
        return w * dice * ctx.model.die * TARGET_HIT_VALUE + w * p_out * KNOCKOUT_VALUE

    def _ram_dice(
        self, ctx: _Ctx, direction: int, target: int, battering: bool, card_ram: bool
    ) -> tuple[int, int, bool]:
        """(our dice, their dice, move ends) of a ram at ``direction``."""
        rd = ctx.model.game.rules.rams
        if not card_ram:
            return (*rd.involuntary, True)
        tcar = ctx.obs["cars"][target]
        if direction != 1:
            mine, theirs = rd.sideswipe
            ends = False
        elif tcar["facing"] == ctx.me["facing"]:
            mine, theirs = rd.rear_end
            ends = True
        else:
            mine, theirs = rd.head_on
            ends = True
        if battering:
            mine, theirs = 0, theirs + rd.battering_ram_extra
        return mine, theirs, ends

    def _ram_gain(
        self, ctx: _Ctx, direction: int, target: int, battering: bool, card_ram: bool
    ) -> float:
        mine, theirs, _ = self._ram_dice(ctx, direction, target, battering, card_ram)
        return self._target_value(ctx, target, theirs) - mine * ctx.model.die * ctx.hc

    def _best_reachable_ram(self, ctx: _Ctx, battering: bool) -> float:
        """Worth of the best ram reachable this round at the current speed (card time)."""
        model = ctx.model
        ahead = model.game.ahead[ctx.me["facing"]]
        occ = ctx.occupied
        steps = ctx.me["speed"] // model.per
        frontier = {ctx.me["square"]: 0}
        best = NEG_INF
        for depth in range(steps + 1):
            for sq in frontier:
                for d, y in ahead[sq]:
                    t = occ.get(y)
                    if t is None or ctx.obs["cars"][t]["out"]:
                        continue
                    _, _, ends = self._ram_dice(ctx, d, t, battering, True)
                    lost = (steps - depth) * 1.0 if ends else 0.0
                    best = max(best, self._ram_gain(ctx, d, t, battering, True) - lost)
            if depth == steps:
                break
            frontier = {y: 0 for sq in frontier for _d, y in ahead[sq] if y not in occ}
        return best

    def _followers(self, ctx: _Ctx) -> bool:
        """Whether a live opponent is behind us within DROP_RANGE (our chips may hit it)."""
        for c in ctx.obs["cars"]:
            if c["seat"] == ctx.seat or c["out"]:
                continue
            gap = ctx.me["progress"] - c["progress"]
            if 0.0 < gap <= DROP_RANGE:
                return True
        return False

    # ------------------------------------------------------------ the bot protocol
    def act(self, state: State, seat: int) -> Action:
        """A legal action of ``seat`` now, from its observation and legal actions."""
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        kind = state.decision_kind()
        ctx = self._ctx(state, seat)
        handler = _HANDLERS.get(kind)
        scores = handler(self, ctx, legal) if handler is not None else [0.0] * len(legal)
        best = max(scores)
        ties = [a for a, s in zip(legal, scores, strict=True) if s >= best - 1e-9]
        return ties[int(self.rng.integers(len(ties)))] if len(ties) > 1 else ties[0]

    def value(self, state: State, seat: int) -> float:
        """Expected return of ``seat`` (scale of ``state.returns()``) from what it knows."""
        if state.is_terminal():
            return float(state.returns()[seat])
        obs = state.observation(seat)
        g = state.game
        model = self.model(g)
        n = g.rules.num_players
        w = g.rules.win_reward
        rounds = [model.rounds_to_finish(c) for c in obs["cars"]]
        if rounds[seat] is None:
            return -w / (n - 1)
        # the round limit is one more competitor: if it "finishes" first nobody wins (0)
        clock = max(0.0, g.rules.round_limit - obs["round"])
        live = [(i, r) for i, r in enumerate(rounds) if r is not None]
        logits = [-r / VALUE_TEMPERATURE for _, r in live] + [-clock / VALUE_TEMPERATURE]
        top = max(logits)
        ex = [math.exp(x - top) for x in logits]
        total = sum(ex)
        # a win that comes sooner is worth a little more (the same shading for every seat,
        # so two-player values stay zero-sum): a sure win still has to be driven home
        mine = other = 0.0
        for (i, r), e in zip(live, ex, strict=False):
            share = e / total * (1.0 - VALUE_TIEBREAK * min(r, clock) / g.rules.round_limit)
            if i == seat:
                mine = share
            else:
                other += share
        return mine * w - other * w / (n - 1)

    # ------------------------------------------------------------ decision handlers
    def _h_chip_mix(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        mixes = ctx.model.game.codec.chip_mixes
        return [mixes[a.arg][0] * 100.0 + mixes[a.arg][1] for a in legal]

    def _h_card(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        me, g = ctx.me, ctx.model.game
        v, m = me["speed"], me["max_speed"]
        r = g.rules
        scores = []
        plain_best = NEG_INF
        q_cache: dict[tuple[int, int], float] = {}

        def q(speed: int, accel: int) -> float:
            key = (speed, accel)
            if key not in q_cache:
                q_cache[key] = self._speed_q(ctx, speed, accel)
            return q_cache[key]

        for a in legal:
            s = NEG_INF
            if a.kind is ActionKind.CARD:
                c = Card(a.arg)
                if c is Card.ACCELERATE:
                    if Lunacy.SPEED_FREAK in ctx.lunacies:
                        s = self._turbo_q(ctx, v)
                    else:
                        opts = [
                            q(v + x, x)
                            for x in r.accelerate_amounts
                            if v + x <= m and (x > 0 or not me["in_pit"])
                        ]
                        s = max(opts) if opts else NEG_INF
                        if m - v >= TURBO_MIN_GAP and not me["in_pit"]:
                            s = max(s, self._turbo_q(ctx, v))
                        if me["in_pit"] and s == NEG_INF:
                            s = self._turbo_q(ctx, v)
                elif c is Card.BRAKE:
                    s = max(q(v - b, 0) for b in r.brake_amounts if b <= v)
                elif c is Card.DROP:
                    s = q(v, 0) + (DROP_BONUS if self._followers(ctx) else 0.0)
                elif c is Card.RAM:
                    s = q(v, 0) + self._best_reachable_ram(ctx, battering=False)
                elif c is Card.TURN_AROUND:
                    s = NEVER
                plain_best = max(plain_best, s)
            scores.append(s)
        for i, a in enumerate(legal):
            if a.kind is not ActionKind.PLAY_GADGET:
                continue
            eff = g.decks.gadgets[a.arg].effect
            if eff is GadgetEffect.CHARGER:
                amts = [x for x in g.decks.gadgets[a.arg].amounts if v + x <= m]
                s = max((q(v + x, x) for x in amts), default=NEG_INF)
            elif eff is GadgetEffect.ROCKET:
                amt = g.decks.gadgets[a.arg].amount
                s = self._speed_q(ctx, min(r.turbo_speed_cap, v + amt), amt, rocket=True)
            else:  # Battering Ram
                s = q(v, 0) + self._best_reachable_ram(ctx, battering=True)
            scores[i] = s - (GADGET_MARGIN if plain_best > NEG_INF else 0.0)
        return scores

    def _h_brake(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        v = ctx.me["speed"]
        return [self._speed_q(ctx, v - a.arg) for a in legal]

    def _h_accelerate(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        v = ctx.me["speed"]
        return [
            self._turbo_q(ctx, v)
            if a.kind is ActionKind.TURBO
            else self._speed_q(ctx, v + a.arg, a.arg)
            for a in legal
        ]

    def _h_drop_kind(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        return [-float(a.arg) for a in legal]  # tacks (0), then oil, then glue

    def _remaining(self, ctx: _Ctx) -> int:
        t = ctx.obs["turn"] or {}
        return ctx.me["speed"] // ctx.model.per - t.get("steps", 0)

    def _h_step(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        me, model = ctx.me, ctx.model
        tr = model.track
        t = ctx.obs["turn"] or {}
        rocket = bool(t.get("rocket"))
        sq, v = me["square"], me["speed"]
        rem = max(1, self._remaining(ctx))
        occ = ctx.occupied
        ahead = model.game.ahead[me["facing"]]
        dest = dict(ahead[sq])
        sign = 1.0 if me["facing"] == 0 else -1.0
        card_ram = t.get("ram") == 1
        scores = []
        for a in legal:
            if a.kind is ActionKind.STEP:
                y = dest[a.arg // 2]
                gs = sign * tr.wrap(tr.s[y] - tr.s[sq])
                cost = (
                    0.0
                    if rocket
                    else (model.edge_hits(sq, y, v) * ctx.hc + self._chip_price(ctx, y))
                )
                if gs >= ctx.to_win - 1e-9:
                    s = ctx.win_value
                else:
                    s = gs - cost + self._plan(ctx, y, rem - 1, v, occ, gs, rocket)
                if a.arg % 2 == 1:  # the Drop card was chosen to drop: drop early
                    s += 1e-6
            elif a.kind is ActionKind.ENTER_PIT:
                s = self._pit_value(ctx, sq, v) if ctx.allow_pit else NEVER
                if a.arg == 1:
                    s += 1e-6
            elif a.kind is ActionKind.RAM:
                target = occ.get(dest[a.arg])
                if target is None:
                    s = NEG_INF
                else:
                    _, _, ends = self._ram_dice(
                        ctx, a.arg, target, bool(t.get("battering")), card_ram
                    )
                    s = self._ram_gain(ctx, a.arg, target, bool(t.get("battering")), card_ram)
                    s += (
                        self._terminal(ctx, sq, v)
                        if ends
                        else self._plan(ctx, sq, rem, v, occ, 0.0, rocket)
                    )
            else:
                s = 0.0
            scores.append(s)
        return scores

    def _h_ram(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        t = ctx.obs["turn"] or {}
        dest = dict(ctx.model.game.ahead[ctx.me["facing"]][ctx.me["square"]])
        out = []
        for a in legal:
            target = ctx.occupied.get(dest[a.arg])
            out.append(
                NEG_INF
                if target is None
                else self._ram_gain(ctx, a.arg, target, bool(t.get("battering")), True)
            )
        return out

    def _hazard_price(self, ctx: _Ctx, card: int) -> float:
        """Price in squares of hazard card ``card`` applied to our car now."""
        g, model, me = ctx.model.game, ctx.model, ctx.me
        spec = g.decks.hazard[card]
        die = model.die
        eff = spec.effect
        if eff is HazardEffect.DAMAGE:
            return spec.dice * die * ctx.hc
        if eff is HazardEffect.SKID:
            sk = g.rules.skid
            if me["in_pit"] or me["square"] is None:
                return sk.pit_wall_dice * die * ctx.hc
            lane = model.track.lane[me["square"]]
            if lane == model.outer_lane:
                return sk.wall_dice * die * ctx.hc
            dest = model.track.parallel(me["square"], lane + 1)
            if dest in ctx.occupied:
                return sk.car_dice[0] * die * ctx.hc
            return 0.5
        if eff is HazardEffect.BRAKE:
            return spec.amount / model.per * BRAKE_CARD_PER_10
        if eff is HazardEffect.LUNACY:
            if spec.lunacy in ctx.lunacies:
                return 0.0
            return LUNACY_PRICE.get(spec.lunacy, 1.0)  # type: ignore[arg-type]
        return 0.0

    def _h_luck(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        d = ctx.obs["decision"]
        g = ctx.model.game
        if d.get("deck") == "hazard":
            deck = list(ctx.obs["hazard_deck"])
            if not any(deck):
                deck = [a + b for a, b in zip(deck, ctx.obs["hazard_discard"], strict=True)]
            total = sum(deck) or 1
            redraw = sum(n / total * self._hazard_price(ctx, i) for i, n in enumerate(deck))
            gain = self._hazard_price(ctx, d["card"]) - redraw
        else:
            v = ctx.me["speed"]
            deck = list(ctx.obs["turbo_deck"])
            if not any(deck):
                deck = [c.count for c in g.decks.turbo]
            spec = g.decks.turbo[d["card"]]
            cap = g.rules.turbo_speed_cap

            def tq(i: int) -> float:
                c = g.decks.turbo[i]
                return (
                    self._speed_q(ctx, min(cap, v + c.amount), c.amount)
                    - c.dice * ctx.model.die * ctx.hc
                )

            total = sum(deck) or 1
            redraw = sum(n / total * tq(i) for i, n in enumerate(deck) if n > 0)
            gain = redraw - (
                self._speed_q(ctx, min(cap, v + spec.amount), spec.amount)
                - spec.dice * ctx.model.die * ctx.hc
            )
        spend = gain - LUCK_VALUE
        out = []
        for a in legal:
            if a.kind is ActionKind.LUCK and a.arg == 0:
                out.append(0.0)
            elif a.kind is ActionKind.USE_GADGET:
                out.append(spend + 0.01)  # Fuzzy Dice first: it also frees a hand slot
            else:
                out.append(spend)
        return out

    def _h_protect(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        hits = ctx.obs["decision"]["hits"]
        g = ctx.model.game
        lethal = hits * g.rules.speed_loss_per_hit >= ctx.me["max_speed"]
        out = []
        for a in legal:
            if a.kind is ActionKind.DECLINE:
                out.append(0.0)
                continue
            spec = g.decks.gadgets[a.arg]
            saved = hits if spec.effect is GadgetEffect.ARMOR else min(hits, spec.amount)
            useful = lethal or hits >= PROTECT_MIN_HITS
            # prefer the gadget that wastes the least protection
            waste = (hits if spec.effect is GadgetEffect.ARMOR else spec.amount) - saved
            out.append(saved * 10.0 - waste if useful else -1.0)
        return out

    def _h_gadget(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        d = ctx.obs["decision"]
        g = ctx.model.game
        use = True
        if "dice" not in d:
            spec = g.decks.hazard[d["card"]]
            if spec.effect is HazardEffect.LUNACY:
                use = spec.lunacy in HARMFUL and spec.lunacy not in ctx.lunacies
            elif spec.effect is HazardEffect.SKID:
                use = self._hazard_price(ctx, d["card"]) > 1.0
            elif spec.effect is HazardEffect.BRAKE:
                use = spec.amount >= POWER_BRAKES_MIN
        return [(1.0 if use else -1.0) if a.kind is ActionKind.USE_GADGET else 0.0 for a in legal]

    def _rank(self, ctx: _Ctx, gadget: int) -> int:
        eff = ctx.model.game.decks.gadgets[gadget].effect
        return GADGET_RANK.index(eff) if eff in GADGET_RANK else len(GADGET_RANK)

    def _h_keep_gadget(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        return [-float(self._rank(ctx, a.arg)) for a in legal]

    def _h_discard_gadget(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        return [float(self._rank(ctx, a.arg)) for a in legal]

    def _h_shop(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        g, me = ctx.model.game, ctx.me
        hz = g.decks.hazard
        out = []
        for a in legal:
            if a.kind is ActionKind.COUNSEL:
                lu = hz[a.arg].lunacy
                out.append(50.0 if lu in URGENT else 30.0 if lu in HARMFUL else 1.0)
                continue
            item = ShopItem(a.arg)
            if item is ShopItem.REPAIR:
                out.append(40.0)
            elif item is ShopItem.GADGET:
                out.append(20.0 if me["num_gadgets"] < g.rules.gadget_hand_limit else 2.0)
            elif item is ShopItem.TACKS:
                out.append(5.0)
            elif item is ShopItem.OIL:
                out.append(4.0)
            elif item is ShopItem.GLUE:
                out.append(3.0)
            else:
                out.append(0.0)
        return out

    def _h_pit_exit(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        model, tr = ctx.model, ctx.model.track
        t = ctx.obs["turn"] or {}
        rem = ctx.me["speed"] // model.per - t.get("steps", 0) - 1
        entry = tr.openings[ctx.me["pit_opening"]].square
        out = []
        for a in legal:
            x = tr.openings[a.arg].square
            g0 = tr.wrap(tr.s[x] - tr.s[entry])
            out.append(
                g0
                - self._chip_price(ctx, x)
                + self._plan(ctx, x, rem, ctx.me["speed"], ctx.occupied, g0)
            )
        return out

    def _h_turn_around(self, ctx: _Ctx, legal: list[Action]) -> list[float]:
        return [-float(a.arg) for a in legal]


_HANDLERS = {
    DecisionKind.CHIP_MIX: LunatixHeuristic._h_chip_mix,
    DecisionKind.CARD: LunatixHeuristic._h_card,
    DecisionKind.BRAKE: LunatixHeuristic._h_brake,
    DecisionKind.ACCELERATE: LunatixHeuristic._h_accelerate,
    DecisionKind.CHARGE: LunatixHeuristic._h_accelerate,
    DecisionKind.DROP_KIND: LunatixHeuristic._h_drop_kind,
    DecisionKind.STEP: LunatixHeuristic._h_step,
    DecisionKind.RAM: LunatixHeuristic._h_ram,
    DecisionKind.LUCK: LunatixHeuristic._h_luck,
    DecisionKind.PROTECT: LunatixHeuristic._h_protect,
    DecisionKind.GADGET: LunatixHeuristic._h_gadget,
    DecisionKind.KEEP_GADGET: LunatixHeuristic._h_keep_gadget,
    DecisionKind.DISCARD_GADGET: LunatixHeuristic._h_discard_gadget,
    DecisionKind.SHOP: LunatixHeuristic._h_shop,
    DecisionKind.PIT_EXIT: LunatixHeuristic._h_pit_exit,
    DecisionKind.TURN_AROUND: LunatixHeuristic._h_turn_around,
}


# ---------------------------------------------------------------- fitted value features
class OutcomeFeatures:
    """Features of a position for the fitted leaf value (:mod:`agents.fitted_value`).

    Per live car: the rounds it still needs (:meth:`TrackModel.rounds_to_finish`) over
    ``sqrt(1 + the leader's rounds)`` (a lead of a round weighs more near the end: the
    luck still to come grows with the time left), its harmful lunacies, whether it is in the
    pit, its luck chips and its maximum speed / 10. For "nobody wins": a constant, the rounds
    left before the round limit, and those less the leader's rounds, scaled alike. Public
    facts only, read from the seat's observation."""

    seat_names = ("rounds_scaled", "harmful_lunacies", "in_pit", "luck", "max_speed_10")
    none_names = ("bias", "clock", "clock_minus_lead_scaled")
    #: public facts only: the same features whatever seat observes
    public = True

    def __call__(self, state: State, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(alive seats, seat features, nobody's features)`` of the position ``seat``
        observes."""
        obs = state.observation(seat)
        game = state.game
        model = model_of(game)
        hazard = game.decks.hazard
        cars = obs["cars"]
        rounds = [model.rounds_to_finish(c) for c in cars]
        live = [r for r in rounds if r is not None]
        lead = min(live) if live else 0.0
        scale = 1.0 / math.sqrt(1.0 + lead)
        x = np.zeros((len(cars), len(self.seat_names)))
        for i, (c, r) in enumerate(zip(cars, rounds, strict=True)):
            if r is not None:
                harmful = sum(1 for j in set(c["lunacies"]) if hazard[j].lunacy in HARMFUL)
                x[i] = (r * scale, harmful, float(c["in_pit"]), c["luck"], c["max_speed"] / 10)
        clock = max(0.0, float(game.rules.round_limit - obs["round"]))
        c_row = np.array([1.0, clock, (clock - lead) * scale])
        return np.array([r is not None for r in rounds]), x, c_row


#: the registry's ``value_features`` of Lunatix Loop
VALUE_FEATURES = OutcomeFeatures()
