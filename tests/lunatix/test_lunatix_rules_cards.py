"""Scenario tests for Lunatix Loop: setup, cards, turn order, dice, decks, luck and gadgets.

Each test is named after a rule of ``shared/rules/lunatix_loop.md``: it builds a position,
acts, forces chance outcomes and checks exact results. Every scenario ends by checking that
the 25 hazard cards, 10 gadgets and 72 road-hazard chips are all accounted for.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from fractions import Fraction

import pytest
from lunatix_builders import (
    act,
    choose,
    first_round,
    force,
    gadget_index,
    give_gadget,
    give_lunacy,
    hazard_index,
    lay_chip,
    moved,
    put,
    square_at,
    start,
    turbo_index,
)

from lunatix_env.rules import (
    Action,
    ActionKind,
    Card,
    DecisionKind,
    Game,
    IllegalActionError,
    PositionBuilder,
    ShopItem,
    State,
)

A = Action
K = ActionKind
BACK = 20  # lane-0 index of the first square of the 12-square back straight
FRONT_LEFT, FRONT, FRONT_RIGHT = A(K.STEP, 0), A(K.STEP, 2), A(K.STEP, 4)
LUNACIES = ("Road Rage", "Lead Foot", "Speed Freak", "Chicken", "Hoarder", "Tunnel Vision")


# ---------------------------------------------------------------------------- helpers
def assert_conserved(s: State) -> None:
    """25 hazard cards, 10 gadgets (each exactly once) and 72 chips (24 of each kind)."""
    hazards = (
        sum(s.hazard_deck)
        + sum(s.hazard_discard)
        + sum(len(b) for b in s.batches)
        + sum(len(c.lunacies) for c in s.cars)
    )
    assert hazards == 25
    assert min(s.hazard_deck) >= 0 and min(s.hazard_discard) >= 0
    gadgets = list(s.gadget_top) + [e[0] for e in s.gadget_bottom] + list(s.offer)
    for c in s.cars:
        gadgets += c.gadgets + c.spent
    assert sorted(gadgets) == list(range(10))
    for k in range(3):
        held = sum(c.chips[k] for c in s.cars)
        on_track = sum(1 for v in s.track_chips.values() if v == k)
        assert s.supply[k] + held + on_track == 24, f"chip kind {k}"
        assert s.supply[k] >= 0
    assert sum(s.supply) + sum(sum(c.chips) for c in s.cars) + len(s.track_chips) == 72


@functools.cache
def new_game(n: int = 4, turn_around: bool = False) -> Game:
    """Games are immutable: build each configuration once (loading YAML is the slow part)."""
    return Game(num_players=n, turn_around=turn_around)


def sq(g: Game, lane: int, offset: int) -> int:
    """The square of ``lane`` ``offset`` rows into the back straight (0..11)."""
    return g.track.parallel(square_at(g, 0, BACK + offset), lane)


def setup(
    n: int = 2, speed: int = 40, luck: int = 3, lane: int = 1, turn_around: bool = False
) -> tuple[Game, PositionBuilder]:
    """Round 1: car 0 on the back straight (row 0), the others parked at their dots at 0 mph.

    Car 0 is faster than the parked cars, so with the same card it acts first.
    """
    g = new_game(n, turn_around)
    b = start(g)
    put(b, 0, sq(g, lane, 0), speed=speed)
    b.car(0, luck=luck)
    for seat in range(1, n):
        b.car(seat, speed=0)
    return g, b


def to_discard(b: PositionBuilder, name: str, count: int | None = None) -> None:
    """Move ``count`` (default all remaining) copies of hazard ``name`` to the discards."""
    b.discard("hazard", name, count)


def cards(s: State, seat: int = 0) -> set[Action]:
    return set(s.legal_actions(seat))


def card(c: Card) -> Action:
    return A(K.CARD, int(c))


def play(g: Game, name: str) -> Action:
    return A(K.PLAY_GADGET, gadget_index(g, name))


def dist(s: State) -> dict[int, float]:
    return dict(s.chance_outcomes())


def assert_dist(s: State, expected: dict[int, Fraction | float]) -> None:
    got = dist(s)
    assert sorted(got) == sorted(expected)
    for k, p in expected.items():
        assert got[k] == pytest.approx(float(p), abs=1e-12), k


def drive_onto_oil(b: PositionBuilder, luck: int = 0) -> State:
    """Car 0 (row 0, 40 mph) plays Accelerate +0 and steps onto an oil chip on row 1; the
    state at the hazard draw."""
    g = b.game
    lane = g.track.lane[b.to_dict()["cars"][0]["square"]]
    lay_chip(b, sq(g, lane, 1), 1)
    s = b.car(0, luck=luck).build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)
    assert s.chance is not None and s.chance.kind.value == "hazard" and s.chance.seat == 0
    return s


def draw_hazard(s: State, name: str) -> None:
    force(s, [hazard_index(s.game, name)])


# ---------------------------------------------------------------------------- setup
def test_game_default_is_four_player_standard_game():
    g = Game()
    assert g.num_players == 4
    assert g.rules.laps == 3
    assert not g.rules.turn_around.enabled
    assert not g.rules.four_opening_pit
    assert g.track.name == "The Loop"
    s = g.new_initial_state(0)
    assert len(s.cars) == 4
    assert s.chance.kind.value == "start_dot"
    assert_conserved(s)


def test_start_dots_dealt_by_chance_uniform_over_free_dots():
    g = Game()
    s = g.new_initial_state(0)
    dots = g.track.start_dots
    assert len(dots) == 6
    free = list(range(6))
    for seat, dot in enumerate((3, 0, 5, 1)):
        assert s.chance.kind.value == "start_dot" and s.chance.seat == seat
        assert_dist(s, {i: Fraction(1, len(free)) for i in free})
        s.apply_chance(dot)
        assert s.cars[seat].square == dots[dot]
        free.remove(dot)
        if free and s.is_chance_node():
            with pytest.raises(IllegalActionError):
                s.clone().apply_chance(dot)  # a dealt dot is no longer free
    assert not s.is_chance_node()
    assert s.decision_kind() is DecisionKind.CHIP_MIX
    assert len({c.square for c in s.cars}) == 4
    assert_conserved(s)


def test_cars_start_at_40_mph_max_140_with_3_luck_chips():
    g = Game()
    s = first_round(g)
    for c in s.cars:
        assert (c.speed, c.max_speed, c.luck) == (40, 140, 3)
        assert sum(c.chips) == 8
        assert c.gadgets == [] and c.spent == [] and c.lunacies == []
        assert not c.in_pit and not c.out
    assert_conserved(s)


@pytest.mark.parametrize("n", [2, 4, 6])
def test_chip_mix_is_secret_simultaneous_with_per_kind_cap(n):
    g = new_game(n)
    s = g.new_initial_state(0)
    force(s, range(n))
    assert s.decision_kind() is DecisionKind.CHIP_MIX
    assert s.is_simultaneous_node()
    assert sorted(s.current_players()) == list(range(n))
    cap = min(8, 24 // n)
    expected = {
        (t, o, 8 - t - o) for t in range(9) for o in range(9 - t) if max(t, o, 8 - t - o) <= cap
    }
    for seat in range(n):
        legal = s.legal_actions(seat)
        assert all(a.kind is K.CHIP_MIX for a in legal)
        assert {g.codec.chip_mixes[a.arg] for a in legal} == expected
        assert len(legal) == len(expected)
    with pytest.raises(IllegalActionError):
        s.clone().apply_action(s.legal_actions(0)[0])  # all choose at once
    heavy = g.codec.chip_mixes.index((cap, 8 - cap, 0))
    s.apply_actions({seat: A(K.CHIP_MIX, heavy) for seat in range(n)})
    for c in s.cars:
        assert c.chips == [cap, 8 - cap, 0]
    assert s.supply == [24 - n * cap, 24 - n * (8 - cap), 24]
    assert min(s.supply) >= 0
    assert s.decision_kind() is DecisionKind.CARD
    assert_conserved(s)


def test_chip_mix_takes_chips_from_the_supply():
    g = Game()
    s = g.new_initial_state(0)
    force(s, range(4))
    assert s.supply == [24, 24, 24]
    mixes = [(6, 2, 0), (0, 6, 2), (2, 0, 6), (3, 3, 2)]
    s.apply_actions({i: A(K.CHIP_MIX, g.codec.chip_mixes.index(m)) for i, m in enumerate(mixes)})
    for c, m in zip(s.cars, mixes, strict=True):
        assert tuple(c.chips) == m
    assert s.supply == [24 - 11, 24 - 11, 24 - 10]
    assert_conserved(s)


# ---------------------------------------------------------------------------- card legality
def test_ram_card_needs_a_reachable_eligible_target():
    g, b = setup(speed=40)
    s = put(b, 1, sq(g, 1, 6)).build()
    assert card(Card.RAM) not in cards(s)  # 4 steps reach row 4; row 6 is out of reach
    s = put(b, 1, sq(g, 1, 5)).build()
    assert card(Card.RAM) in cards(s)  # reachable after 4 steps
    s = put(b, 1, sq(g, 2, 0)).build()
    assert card(Card.RAM) not in cards(s)  # never a car beside
    s = put(b, 1, sq(g, 1, 1)).build()
    assert card(Card.RAM) in cards(s)
    s = b.car(1, out=True).build()
    assert card(Card.RAM) not in cards(s)  # never a wrecked car
    assert_conserved(s)


def test_brake_card_needs_speed_above_zero():
    g, b = setup(speed=0)
    s = b.build()
    assert card(Card.BRAKE) not in cards(s)
    s = put(b, 0, sq(g, 1, 0), speed=10).build()
    assert card(Card.BRAKE) in cards(s)
    assert_conserved(s)


def test_drop_card_needs_a_chip_speed_10_and_not_in_pit():
    g, b = setup(speed=10)
    s = b.build()
    car = s.cars[0]
    assert sum(car.chips) > 0
    assert card(Card.DROP) in cards(s)
    s = put(b, 0, sq(g, 1, 0), speed=0).build()
    assert card(Card.DROP) not in cards(s)
    put(b, 0, sq(g, 1, 0), speed=10)
    s = b.car(0, chips=(0, 0, 0)).build()  # give every chip back to the supply
    assert card(Card.DROP) not in cards(s)
    b.car(0, chips=(0, 0, 1))
    s = b.pit(0, "A2").build()
    assert s.cars[0].square == g.track.openings[g.track.opening_index["A2"]].square
    assert card(Card.DROP) not in cards(s)
    assert_conserved(s)


def test_accelerate_card_is_always_legal():
    g, b = setup(speed=0)
    s = b.car(0, chips=(0, 0, 0)).build()
    assert card(Card.ACCELERATE) in cards(s)
    s = put(b, 0, sq(g, 1, 0), speed=140, max_speed=140).build()
    assert card(Card.ACCELERATE) in cards(s)
    s = b.pit(0, "A2").car(0, speed=0).build()
    assert s.cars[0].square == g.track.openings[g.track.opening_index["A2"]].square
    assert cards(s) == {card(Card.ACCELERATE)}
    assert_conserved(s)


def test_turn_around_card_only_with_the_optional_rule():
    g, b = setup(speed=40, lane=0)
    s = b.build()
    assert card(Card.TURN_AROUND) not in cards(s)
    g2, b2 = setup(speed=40, lane=0, turn_around=True)
    s2 = b2.build()
    assert card(Card.TURN_AROUND) in cards(s2)
    assert_conserved(s)
    assert_conserved(s2)


def test_numbered_gadgets_playable_when_held():
    g, b = setup(speed=40)
    put(b, 1, sq(g, 1, 2))  # a reachable ram target
    names = ("Charger", "Rocket Booster", "Battering Ram")
    s = b.build()
    assert not {play(g, n) for n in names} & cards(s)
    for n in names:
        give_gadget(b, 0, n)
    s = b.build()
    assert {play(g, n) for n in names} <= cards(s)
    assert_conserved(s)


def test_charger_playable_only_if_speed_plus_10_within_max():
    g, b = setup(speed=100)
    give_gadget(b, 0, "Charger")
    put(b, 0, sq(g, 1, 0), speed=100, max_speed=100)
    s = b.build()
    assert play(g, "Charger") not in cards(s)
    s = put(b, 0, sq(g, 1, 0), speed=90, max_speed=100).build()
    assert play(g, "Charger") in cards(s)
    assert_conserved(s)


def test_battering_ram_needs_a_reachable_target_like_ram():
    g, b = setup(speed=40)
    give_gadget(b, 0, "Battering Ram")
    s = b.build()
    assert play(g, "Battering Ram") not in cards(s)  # car 1 is far away
    s = put(b, 1, sq(g, 0, 3)).build()
    assert play(g, "Battering Ram") in cards(s)
    assert_conserved(s)


def test_road_rage_forces_ram_whenever_ram_is_legal():
    g, b = setup(speed=40)
    give_lunacy(b, 0, "Road Rage")
    give_gadget(b, 0, "Rocket Booster")
    s = b.build()
    assert card(Card.RAM) not in cards(s)  # no target: any other card
    assert {
        card(Card.BRAKE),
        card(Card.DROP),
        card(Card.ACCELERATE),
        play(g, "Rocket Booster"),
    } <= cards(s)
    s = put(b, 1, sq(g, 1, 3)).build()
    assert cards(s) == {card(Card.RAM)}
    assert_conserved(s)


def test_chicken_forbids_ram_and_overrides_road_rage():
    g, b = setup(speed=40)
    put(b, 1, sq(g, 1, 3))
    s = b.build()
    assert card(Card.RAM) in cards(s)
    give_lunacy(b, 0, "Chicken")
    s = b.build()
    assert card(Card.RAM) not in cards(s)
    assert {card(Card.BRAKE), card(Card.DROP), card(Card.ACCELERATE)} <= cards(s)
    give_lunacy(b, 0, "Road Rage")
    s = b.build()
    assert card(Card.RAM) not in cards(s)
    assert {card(Card.BRAKE), card(Card.DROP), card(Card.ACCELERATE)} <= cards(s)
    assert_conserved(s)


def test_lead_foot_forbids_brake():
    g, b = setup(speed=40)
    s = b.build()
    assert card(Card.BRAKE) in cards(s)
    give_lunacy(b, 0, "Lead Foot")
    s = b.build()
    assert card(Card.BRAKE) not in cards(s)
    assert card(Card.ACCELERATE) in cards(s)
    assert_conserved(s)


def test_speed_freak_makes_accelerate_turbo_only():
    g, b = setup(speed=40)
    give_lunacy(b, 0, "Speed Freak")
    s = b.build()
    assert card(Card.ACCELERATE) in cards(s)
    choose(s, {0: Card.ACCELERATE})
    assert s.decision_kind() is DecisionKind.ACCELERATE and s.current_players() == (0,)
    assert s.legal_actions(0) == [A(K.TURBO)]
    assert_conserved(s)


def test_hoarder_forbids_drop():
    g, b = setup(speed=40)
    s = b.build()
    assert card(Card.DROP) in cards(s)
    give_lunacy(b, 0, "Hoarder")
    s = b.build()
    assert card(Card.DROP) not in cards(s)
    assert_conserved(s)


def test_tunnel_vision_changes_lanes_only_when_straight_ahead_is_blocked():
    g, b = setup(speed=10)
    s = b.build()
    plain = s.clone()
    choose(plain, {0: Card.ACCELERATE})
    act(plain, A(K.ACCELERATE, 0))
    assert set(plain.legal_actions(0)) == {FRONT_LEFT, FRONT, FRONT_RIGHT}

    give_lunacy(b, 0, "Tunnel Vision")
    s = b.build()
    free = s.clone()
    choose(free, {0: Card.ACCELERATE})
    act(free, A(K.ACCELERATE, 0))
    assert free.legal_actions(0) == [FRONT]

    s = put(b, 1, sq(g, 1, 1)).build()  # straight ahead blocked
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0))
    assert set(s.legal_actions(0)) == {FRONT_LEFT, FRONT_RIGHT}
    act(s, FRONT_LEFT)
    assert s.cars[0].square == sq(g, 0, 1)
    assert_conserved(s)


# ---------------------------------------------------------------------------- turn order
def test_turn_order_follows_card_numbers():
    g = new_game(5, turn_around=True)
    b = start(g)
    # seat: (lane, row, speed); card numbers beat speed: the slowest car rams first
    layout = {2: (1, 0, 10), 0: (1, 1, 40), 4: (1, 6, 20), 3: (2, 6, 30), 1: (0, 8, 50)}
    for seat, (lane, row, speed) in layout.items():
        put(b, seat, sq(g, lane, row), speed=speed)
    played = {2: Card.RAM, 4: Card.BRAKE, 3: Card.DROP, 0: Card.ACCELERATE, 1: Card.TURN_AROUND}
    s = b.build()
    for seat, c in played.items():
        assert card(c) in cards(s, seat)
    choose(s, played)
    assert s.order == [2, 4, 3, 0, 1]
    assert_conserved(s)


def test_turn_order_ties_faster_car_first():
    g = new_game(3)
    b = start(g)
    for seat, (row, speed) in enumerate(((6, 20), (0, 40), (3, 30))):
        put(b, seat, sq(g, 1, row), speed=speed)
    s = b.build()
    choose(s, {})
    assert s.order == [1, 2, 0]
    assert_conserved(s)


def test_turn_order_ties_same_speed_further_ahead_in_race_first():
    g = new_game(3)
    b = start(g)
    put(b, 0, sq(g, 1, 2), speed=30)
    put(b, 1, sq(g, 0, 5), speed=30)  # (put wraps lap-0 progress past mid-lap: keep < 6)
    put(b, 2, sq(g, 2, 0), speed=30, laps=1)  # behind on the board, a lap ahead in the race
    s = b.build()
    choose(s, {})
    assert s.order == [2, 1, 0]
    assert_conserved(s)


def test_turn_order_ties_same_speed_and_progress_inside_lane_first():
    g = new_game(3)
    b = start(g)
    for seat, lane in enumerate((2, 0, 1)):
        put(b, seat, sq(g, lane, 4), speed=30)
    s = b.build()
    assert len({round(c.u, 6) for c in s.cars}) == 1  # straights line up
    choose(s, {})
    assert s.order == [1, 2, 0]
    assert_conserved(s)


# ---------------------------------------------------------------------------- speed cards
def test_brake_10_to_40_before_moving_amounts_above_speed_not_offered():
    g, b = setup(speed=30)
    s = b.build()
    choose(s, {0: Card.BRAKE})
    assert s.decision_kind() is DecisionKind.BRAKE
    assert set(s.legal_actions(0)) == {A(K.BRAKE, a) for a in (10, 20, 30)}
    act(s, A(K.BRAKE, 20))
    assert s.cars[0].speed == 10
    act(s, FRONT)
    assert s.cars[0].square == sq(g, 1, 1)  # 10 mph: one square, then the turn ends
    assert s.current_players() == (1,) and s.decision_kind() is DecisionKind.ACCELERATE
    assert_conserved(s)


def test_brake_40_to_zero_does_not_move():
    g, b = setup(speed=40)
    s = b.build()
    choose(s, {0: Card.BRAKE})
    assert set(s.legal_actions(0)) == {A(K.BRAKE, a) for a in (10, 20, 30, 40)}
    act(s, A(K.BRAKE, 40))
    assert s.cars[0].speed == 0
    assert s.cars[0].square == sq(g, 1, 0)
    assert s.current_players() == (1,)
    assert_conserved(s)


@pytest.mark.parametrize(
    ("speed", "max_speed", "amounts"),
    [(40, 140, (0, 10, 20)), (130, 140, (0, 10)), (140, 140, (0,))],
)
def test_accelerate_0_10_20_not_above_max_or_turbo(speed, max_speed, amounts):
    g, b = setup(speed=speed)
    put(b, 0, sq(g, 1, 0), speed=speed, max_speed=max_speed)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    assert set(s.legal_actions(0)) == {A(K.ACCELERATE, a) for a in amounts} | {A(K.TURBO)}
    act(s, A(K.ACCELERATE, amounts[-1]))
    assert s.cars[0].speed == speed + amounts[-1]
    assert_conserved(s)


@pytest.mark.parametrize(("max_speed", "amounts"), [(140, (10, 20, 30, 40)), (60, (10, 20))])
def test_charger_adds_10_to_40_not_above_max(max_speed, amounts):
    g, b = setup(speed=40)
    put(b, 0, sq(g, 1, 0), speed=40, max_speed=max_speed)
    gi = give_gadget(b, 0, "Charger")
    s = b.build()
    choose(s, {0: play(g, "Charger")})
    assert s.decision_kind() is DecisionKind.CHARGE
    assert set(s.legal_actions(0)) == {A(K.CHARGE, a) for a in amounts}
    act(s, A(K.CHARGE, 20))
    assert s.cars[0].speed == 60
    assert gi not in s.cars[0].gadgets and gi in s.cars[0].spent
    assert_conserved(s)


def test_rocket_booster_plus_60_ignores_max_passes_over_cars_clamped_at_end():
    g, b = setup(speed=20)
    put(b, 0, sq(g, 1, 0), speed=20, max_speed=40)
    put(b, 1, sq(g, 1, 1), speed=0)  # directly ahead
    lay_chip(b, sq(g, 1, 3), 0)  # passed over: stays on the track
    lay_chip(b, sq(g, 1, 8), 0)  # the final square: applies there
    gi = give_gadget(b, 0, "Rocket Booster")
    s = b.build()
    choose(s, {0: play(g, "Rocket Booster")})
    assert not s.is_chance_node()  # no turbo card, no explosion
    assert s.cars[0].speed == 80  # above max 40 for this turn
    assert gi in s.cars[0].spent
    assert FRONT in s.legal_actions(0)
    act(s, FRONT)
    assert s.cars[0].square == s.cars[1].square  # passing over car 1
    for _ in range(7):
        assert s.current_players() == (0,) and not s.is_chance_node()
        act(s, FRONT)
    assert s.cars[0].square == sq(g, 1, 8)  # 8 squares at 80 mph
    assert s.chance.kind.value == "dice" and s.chance.n == 1  # tacks in the final square
    force(s, [0])
    assert s.track_chips == {sq(g, 1, 3): 0}
    assert s.cars[0].speed == 40  # clamped to max at the end of the turn
    assert s.current_players() == (1,)
    assert_conserved(s)


# ---------------------------------------------------------------------------- damage dice
def test_damage_dice_chance_outcomes_are_the_exact_convolution():
    g, b = setup(speed=40, luck=0)
    lay_chip(b, sq(g, 1, 1), 0)  # tacks: one die
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)
    assert s.chance.kind.value == "dice" and s.chance.n == 1 and s.chance.seat == 0
    assert_dist(s, {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)})
    force(s, [0])
    assert_conserved(s)

    g2, b2 = setup(speed=40)
    s2 = drive_onto_oil(b2)
    draw_hazard(s2, "Blown Gasket")
    assert s2.chance.kind.value == "dice" and s2.chance.n == 2
    assert_dist(
        s2,
        {
            0: Fraction(1, 9),
            1: Fraction(2, 9),
            2: Fraction(3, 9),
            3: Fraction(2, 9),
            4: Fraction(1, 9),
        },
    )
    assert_conserved(s2)

    for n in (3, 4):
        exact: Counter[int] = Counter()
        for roll in itertools.product((0, 0, 1, 1, 2, 2), repeat=n):
            exact[sum(roll)] += 1
        got = dict(g.dice_distribution(n))
        assert sorted(got) == sorted(exact)
        for k, c in exact.items():
            assert got[k] == pytest.approx(c / 6**n, abs=1e-12)


def test_each_hit_lowers_max_by_10_and_clamps_speed_at_once():
    g, b = setup(speed=40, luck=0)
    put(b, 0, sq(g, 1, 0), speed=40, max_speed=50)
    lay_chip(b, sq(g, 1, 1), 0)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)
    force(s, [2])
    assert s.cars[0].max_speed == 30
    assert s.cars[0].speed == 30
    # it finishes as if it had started at 30 mph: two more squares
    act(s, FRONT, FRONT)
    assert s.cars[0].square == sq(g, 1, 3)
    assert s.current_players() == (1,)
    assert_conserved(s)


def test_turbo_turn_damage_lowers_only_max_until_end_of_turn():
    g, b = setup(speed=40, luck=0)
    put(b, 0, sq(g, 1, 0), speed=40, max_speed=90)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    force(s, [turbo_index(g, "+40 Bang")])
    assert s.cars[0].speed == 80
    assert s.chance.kind.value == "dice" and s.chance.n == 1
    force(s, [2])
    assert s.cars[0].max_speed == 70
    assert s.cars[0].speed == 80  # not clamped during the turbo turn
    for _ in range(8):
        assert s.current_players() == (0,)
        act(s, FRONT)
    assert s.cars[0].square == sq(g, 1, 8)
    assert s.cars[0].speed == 70  # clamped at the end of the turn
    assert s.current_players() == (1,)
    assert_conserved(s)


def test_car_whose_max_reaches_zero_is_out_as_an_obstacle_at_speed_zero():
    g, b = setup(speed=20, luck=0)
    put(b, 0, sq(g, 1, 0), speed=20, max_speed=20)
    lay_chip(b, sq(g, 1, 1), 0)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)
    force(s, [2])
    car = s.cars[0]
    assert car.out and car.max_speed == 0 and car.speed == 0
    assert car.square == sq(g, 1, 1)
    assert s.current_players() == (1,)  # car 0's move ended
    act(s, A(K.ACCELERATE, 0))
    assert s.decision_kind() is DecisionKind.CARD and s.current_players() == (1,)
    s = moved(s, 1, sq(g, 1, 0), speed=10)  # right behind the wreck
    assert card(Card.RAM) not in cards(s, 1)  # a wreck is no ram target
    choose(s, {1: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0))
    assert set(s.legal_actions(1)) == {FRONT_LEFT, FRONT_RIGHT}  # the wreck blocks
    assert s.occupant(sq(g, 1, 1)) == 0
    assert_conserved(s)


# ---------------------------------------------------------------------------- decks
def test_hazard_draw_probabilities_are_remaining_counts_and_drawn_cards_leave_the_deck():
    g, b = setup(speed=40)
    to_discard(b, "Fender Bender")
    to_discard(b, "Skid")
    s = drive_onto_oil(b)
    total = sum(s.hazard_deck)
    assert total == 16
    assert_dist(s, {i: Fraction(n, 16) for i, n in enumerate(s.hazard_deck) if n})
    assert hazard_index(g, "Skid") not in dist(s)
    cc = hazard_index(g, "Close Call")
    force(s, [cc])
    assert s.hazard_deck[cc] == 0
    assert sum(s.hazard_deck) == 15
    assert s.hazard_discard[cc] == 1  # applied, then discarded
    assert s.batches == []
    assert_conserved(s)


def test_several_owed_hazard_cards_are_all_drawn_before_any_is_applied():
    g, b = setup(speed=80, luck=0)
    put(b, 0, sq(g, 1, 11), speed=80)  # next square: first square of a 60 mph curve
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)
    assert g.track.rating[s.cars[0].square] == 60
    b20, fb = hazard_index(g, "Brake 20"), hazard_index(g, "Fender Bender")
    draw_hazard(s, "Brake 20")
    assert s.chance.kind.value == "hazard"  # the second card is drawn first
    assert s.cars[0].speed == 80
    assert s.hazard_deck[b20] == 1
    draw_hazard(s, "Fender Bender")
    assert s.hazard_deck[fb] == 3
    assert s.chance.kind.value == "dice" and s.chance.n == 1
    force(s, [1])
    assert s.cars[0].speed == 60 and s.cars[0].max_speed == 130
    assert s.hazard_discard[b20] == 1 and s.hazard_discard[fb] == 1
    assert s.decision_kind() is DecisionKind.STEP
    assert_conserved(s)


def test_hazard_deck_reshuffles_its_discards_when_empty():
    g, b = setup(speed=80, luck=0)
    cc = hazard_index(g, "Close Call")
    for c in g.decks.hazard:
        if c.name != "Close Call":
            to_discard(b, c.name)
    s = b.build()
    assert sum(s.hazard_deck) == 1
    s = put(b, 0, sq(g, 1, 11), speed=80).build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)  # two cards owed
    assert_dist(s, {cc: 1})
    force(s, [cc])
    # the deck is empty: the 24 discards are shuffled back (the drawn Close Call is not)
    assert s.chance.kind.value == "hazard"
    assert_dist(
        s,
        {i: Fraction(c.count, 24) for i, c in enumerate(g.decks.hazard) if c.name != "Close Call"},
    )
    draw_hazard(s, "Brake 10")
    assert s.cars[0].speed == 70
    assert s.hazard_discard[cc] == 1
    assert s.hazard_discard[hazard_index(g, "Brake 10")] == 1
    assert sum(s.hazard_deck) == 23
    assert_conserved(s)


def test_turbo_draw_probabilities_and_click_reshuffles_every_turbo_card():
    g, b = setup(speed=40, luck=0)
    for name in ("+20", "+60"):
        b.discard("turbo", name)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    assert s.chance.kind.value == "turbo"
    assert_dist(s, {i: Fraction(n, 12) for i, n in enumerate(s.turbo_deck) if n})
    force(s, [turbo_index(g, "Click")])
    assert s.cars[0].speed == 40  # +0
    assert s.turbo_deck == [c.count for c in g.decks.turbo]
    assert s.turbo_discard == [0] * len(g.decks.turbo)
    assert sum(s.turbo_deck) == 15
    assert_conserved(s)


@pytest.mark.parametrize(
    ("name", "amount", "dice"),
    [
        ("+40 Bang", 40, 1),
        ("+50 Bang", 50, 1),
        ("+50 Big Bang", 50, 2),
        ("+60 Big Bang", 60, 2),
        ("Boom", 0, 2),
        ("+60", 60, 0),
    ],
)
def test_turbo_explosions_roll_their_dice(name, amount, dice):
    g, b = setup(speed=40, luck=0)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    ti = turbo_index(g, name)
    force(s, [ti])
    assert s.cars[0].speed == 40 + amount
    assert s.turbo_discard[ti] == 1
    if dice:
        assert s.chance.kind.value == "dice" and s.chance.n == dice
        assert s.chance.seat == 0
        force(s, [1])
        assert s.cars[0].max_speed == 130
    else:
        assert not s.is_chance_node()
        assert s.cars[0].max_speed == 140
    assert s.decision_kind() is DecisionKind.STEP
    assert_conserved(s)


# ---------------------------------------------------------------------------- luck
def test_luck_chip_cancels_a_hazard_card_and_draws_again():
    g, b = setup(speed=40)
    s = drive_onto_oil(b, luck=2)
    skid, bg, cc = (hazard_index(g, n) for n in ("Skid", "Blown Gasket", "Close Call"))
    draw_hazard(s, "Skid")
    assert s.decision_kind() is DecisionKind.LUCK
    assert set(s.legal_actions(0)) == {A(K.LUCK, 0), A(K.LUCK, 1)}
    act(s, A(K.LUCK, 1))
    assert s.cars[0].luck == 1
    assert s.hazard_discard[skid] == 1
    assert s.chance.kind.value == "hazard"
    assert dist(s)[skid] == pytest.approx(4 / 24)
    draw_hazard(s, "Blown Gasket")
    act(s, A(K.LUCK, 1))
    assert s.cars[0].luck == 0
    assert s.hazard_discard[bg] == 1
    draw_hazard(s, "Close Call")
    assert s.decision_kind() is DecisionKind.STEP  # no chips left: no more luck decision
    assert s.hazard_discard[cc] == 1
    assert s.cars[0].square == sq(g, 1, 1)  # no skid happened
    assert s.cars[0].max_speed == 140
    assert_conserved(s)


def test_luck_chip_cancels_a_turbo_card_and_draws_again():
    g, b = setup(speed=40, luck=1)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    p10 = turbo_index(g, "+10")
    force(s, [p10])
    assert s.decision_kind() is DecisionKind.LUCK
    assert s.cars[0].speed == 40  # not applied before the luck decision
    act(s, A(K.LUCK, 1))
    assert s.cars[0].luck == 0
    assert s.turbo_discard[p10] == 1
    assert s.chance.kind.value == "turbo"
    force(s, [turbo_index(g, "+60")])
    assert s.cars[0].speed == 100
    assert s.decision_kind() is DecisionKind.STEP
    assert_conserved(s)


def test_luck_decision_offered_only_with_luck_or_fuzzy_dice():
    g, b = setup(speed=40)
    s = drive_onto_oil(b, luck=0)
    draw_hazard(s, "Close Call")
    assert s.decision_kind() is DecisionKind.STEP

    g2, b2 = setup(speed=40, luck=0)
    s2 = b2.build()
    choose(s2, {0: Card.ACCELERATE})
    act(s2, A(K.TURBO))
    force(s2, [turbo_index(g2, "+10")])
    assert s2.decision_kind() is DecisionKind.STEP
    assert s2.cars[0].speed == 50

    g3, b3 = setup(speed=40)
    fz = give_gadget(b3, 0, "Fuzzy Dice")
    s3 = drive_onto_oil(b3, luck=0)
    draw_hazard(s3, "Close Call")
    assert s3.decision_kind() is DecisionKind.LUCK
    assert set(s3.legal_actions(0)) == {A(K.LUCK, 0), A(K.USE_GADGET, fz)}
    for st in (s, s2, s3):
        assert_conserved(st)


def test_fuzzy_dice_acts_as_one_luck_chip_and_is_spent_face_up():
    g, b = setup(speed=40)
    fz = give_gadget(b, 0, "Fuzzy Dice")
    s = drive_onto_oil(b, luck=0)
    bg = hazard_index(g, "Blown Gasket")
    draw_hazard(s, "Blown Gasket")
    act(s, A(K.USE_GADGET, fz))
    car = s.cars[0]
    assert fz not in car.gadgets and car.spent == [fz]
    assert s.hazard_discard[bg] == 1
    assert s.chance.kind.value == "hazard"
    draw_hazard(s, "Close Call")
    assert s.decision_kind() is DecisionKind.STEP
    assert car.max_speed == 140 and car.luck == 0
    assert s.observation(1)["cars"][0]["spent"] == [fz]  # face up: public
    assert_conserved(s)


# ---------------------------------------------------------------------------- hazard effects
@pytest.mark.parametrize(("name", "dice"), [("Fender Bender", 1), ("Blown Gasket", 2)])
def test_damage_hazard_cards_roll_their_dice(name, dice):
    g, b = setup(speed=40)
    s = drive_onto_oil(b)
    draw_hazard(s, name)
    assert s.chance.kind.value == "dice" and s.chance.n == dice and s.chance.seat == 0
    force(s, [2])
    assert s.cars[0].max_speed == 120
    assert s.hazard_discard[hazard_index(g, name)] == 1
    assert_conserved(s)


def test_skid_slides_one_lane_outward_using_no_movement():
    g, b = setup(speed=40)
    s = drive_onto_oil(b)
    draw_hazard(s, "Skid")
    assert s.cars[0].square == sq(g, 2, 1)
    assert s.decision_kind() is DecisionKind.STEP
    act(s, FRONT, FRONT, FRONT)  # still three of its four squares to go
    assert s.cars[0].square == sq(g, 2, 4)
    assert s.current_players() == (1,)
    assert s.hazard_discard[hazard_index(g, "Skid")] == 1
    assert_conserved(s)


def test_skid_past_the_outside_lane_hits_the_wall_3_dice_and_ends_the_move():
    g, b = setup(speed=40, lane=2)
    s = drive_onto_oil(b)
    draw_hazard(s, "Skid")
    assert s.chance.kind.value == "dice" and s.chance.n == 3 and s.chance.seat == 0
    force(s, [1])
    assert s.cars[0].max_speed == 130
    assert s.cars[0].square == sq(g, 2, 1)
    assert s.current_players() == (1,)  # the move ended
    assert_conserved(s)


def test_skid_into_a_car_you_1_die_it_2_you_stay():
    g, b = setup(speed=40)
    put(b, 1, sq(g, 2, 1), speed=0)
    s = drive_onto_oil(b)
    draw_hazard(s, "Skid")
    rolls = []
    for _ in range(2):
        assert s.chance.kind.value == "dice"
        rolls.append((s.chance.seat, s.chance.n))
        force(s, [1])
    assert sorted(rolls) == [(0, 1), (1, 2)]
    assert s.cars[0].square == sq(g, 1, 1)
    assert s.cars[1].square == sq(g, 2, 1)
    assert s.cars[0].max_speed == 130 and s.cars[1].max_speed == 130
    assert_conserved(s)


@pytest.mark.parametrize(
    ("name", "speed", "after"),
    [("Brake 10", 40, 30), ("Brake 20", 40, 20), ("Brake 30", 40, 10), ("Brake 30", 20, 0)],
)
def test_hazard_brake_loses_that_much_speed_never_below_zero(name, speed, after):
    g, b = setup(speed=speed)
    s = drive_onto_oil(b)
    draw_hazard(s, name)
    assert s.cars[0].speed == after
    assert s.hazard_discard[hazard_index(g, name)] == 1
    assert_conserved(s)


def test_close_call_does_nothing():
    g, b = setup(speed=40)
    s = drive_onto_oil(b)
    before = (s.cars[0].speed, s.cars[0].max_speed, s.cars[0].square, s.cars[0].luck)
    draw_hazard(s, "Close Call")
    assert (s.cars[0].speed, s.cars[0].max_speed, s.cars[0].square, s.cars[0].luck) == before
    assert s.cars[0].lunacies == []
    assert s.hazard_discard[hazard_index(g, "Close Call")] == 1
    assert s.decision_kind() is DecisionKind.STEP
    assert_conserved(s)


@pytest.mark.parametrize("name", LUNACIES)
def test_kept_lunacy_stays_with_the_player_face_up(name):
    g, b = setup(speed=40)
    s = drive_onto_oil(b)
    i = hazard_index(g, name)
    draw_hazard(s, name)
    assert s.cars[0].lunacies == [i]
    assert s.hazard_discard[i] == 0 and s.hazard_deck[i] == 0
    assert s.observation(1)["cars"][0]["lunacies"] == [i]  # public
    assert_conserved(s)


@pytest.mark.parametrize(("luck", "after"), [(2, 1), (0, 0)])
def test_panic_attack_loses_one_luck_chip(luck, after):
    g, b = setup(speed=40)
    s = drive_onto_oil(b, luck=luck)
    draw_hazard(s, "Panic Attack")
    if luck:
        act(s, A(K.LUCK, 0))  # keep the card
    assert s.cars[0].luck == after
    assert s.hazard_discard[hazard_index(g, "Panic Attack")] == 1
    assert s.cars[0].lunacies == []
    assert_conserved(s)


# ---------------------------------------------------------------------------- gray gadgets
@pytest.mark.parametrize("use", [True, False])
def test_armor_plating_cancels_one_damage_roll(use):
    g, b = setup(speed=40, luck=0)
    gi = give_gadget(b, 0, "Armor Plating")
    lay_chip(b, sq(g, 1, 1), 0)
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), FRONT)
    force(s, [2])
    assert s.decision_kind() is DecisionKind.PROTECT
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.USE_GADGET, gi)}
    act(s, A(K.USE_GADGET, gi) if use else A(K.DECLINE))
    car = s.cars[0]
    if use:
        assert car.max_speed == 140 and car.spent == [gi] and car.gadgets == []
    else:
        assert car.max_speed == 120 and car.gadgets == [gi] and car.spent == []
    assert_conserved(s)


@pytest.mark.parametrize("use", [True, False])
def test_roll_cage_reduces_one_damage_roll_by_2_hits(use):
    g, b = setup(speed=40)
    gi = give_gadget(b, 0, "Roll Cage")
    s = drive_onto_oil(b)
    draw_hazard(s, "Blown Gasket")
    force(s, [3])
    assert s.decision_kind() is DecisionKind.PROTECT
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.USE_GADGET, gi)}
    act(s, A(K.USE_GADGET, gi) if use else A(K.DECLINE))
    car = s.cars[0]
    if use:
        assert car.max_speed == 130 and car.spent == [gi] and car.gadgets == []
    else:
        assert car.max_speed == 110 and car.gadgets == [gi]
    assert_conserved(s)


@pytest.mark.parametrize("use", [True, False])
def test_racing_tires_cancel_a_skid(use):
    g, b = setup(speed=40)
    gi = give_gadget(b, 0, "Racing Tires")
    s = drive_onto_oil(b)
    draw_hazard(s, "Skid")
    assert s.decision_kind() is DecisionKind.GADGET
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.USE_GADGET, gi)}
    act(s, A(K.USE_GADGET, gi) if use else A(K.DECLINE))
    car = s.cars[0]
    if use:
        assert car.square == sq(g, 1, 1) and car.spent == [gi]
    else:
        assert car.square == sq(g, 2, 1) and car.gadgets == [gi]
    assert s.hazard_discard[hazard_index(g, "Skid")] == 1
    assert_conserved(s)


@pytest.mark.parametrize("use", [True, False])
def test_power_brakes_cancel_a_hazard_brake(use):
    g, b = setup(speed=40)
    gi = give_gadget(b, 0, "Power Brakes")
    s = drive_onto_oil(b)
    draw_hazard(s, "Brake 20")
    assert s.decision_kind() is DecisionKind.GADGET
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.USE_GADGET, gi)}
    act(s, A(K.USE_GADGET, gi) if use else A(K.DECLINE))
    car = s.cars[0]
    if use:
        assert car.speed == 40 and car.spent == [gi]
    else:
        assert car.speed == 20 and car.gadgets == [gi]
    assert s.hazard_discard[hazard_index(g, "Brake 20")] == 1
    assert_conserved(s)


@pytest.mark.parametrize("use", [True, False])
def test_shrinks_card_cancels_a_lunacy_as_it_is_drawn(use):
    g, b = setup(speed=40)
    gi = give_gadget(b, 0, "Shrink's Card")
    s = drive_onto_oil(b)
    ch = hazard_index(g, "Chicken")
    draw_hazard(s, "Chicken")
    assert s.decision_kind() is DecisionKind.GADGET
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.USE_GADGET, gi)}
    act(s, A(K.USE_GADGET, gi) if use else A(K.DECLINE))
    car = s.cars[0]
    if use:
        assert car.lunacies == [] and s.hazard_discard[ch] == 1 and car.spent == [gi]
    else:
        assert car.lunacies == [ch] and s.hazard_discard[ch] == 0 and car.gadgets == [gi]
    assert_conserved(s)


@pytest.mark.parametrize("use", [True, False])
def test_fire_extinguisher_cancels_a_turbo_explosions_damage(use):
    g, b = setup(speed=40, luck=0)
    gi = give_gadget(b, 0, "Fire Extinguisher")
    s = b.build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    force(s, [turbo_index(g, "+50 Big Bang")])
    assert s.cars[0].speed == 90
    assert s.decision_kind() is DecisionKind.GADGET
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.USE_GADGET, gi)}
    act(s, A(K.USE_GADGET, gi) if use else A(K.DECLINE))
    car = s.cars[0]
    if use:
        assert not s.is_chance_node() and car.spent == [gi]
        assert s.decision_kind() is DecisionKind.STEP
    else:
        assert s.chance.kind.value == "dice" and s.chance.n == 2 and car.gadgets == [gi]
        force(s, [2])
        assert car.max_speed == 120
    assert car.speed == 90
    assert_conserved(s)


# ---------------------------------------------------------------------------- gadget deck
def into_pit(g: Game, b: PositionBuilder) -> State:
    """Car 0 at opening A2 at 10 mph plays Accelerate +0 and steps into the pit."""
    a2 = g.track.openings[g.track.opening_index["A2"]].square
    s = put(b, 0, a2, speed=10).build()
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.ACCELERATE, 0), A(K.ENTER_PIT, 0))
    assert s.cars[0].in_pit and s.decision_kind() is DecisionKind.SHOP
    return s


def test_gadget_draw_is_uniform_over_the_unordered_top():
    g, b = setup(speed=10)
    s = into_pit(g, b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    assert s.chance.kind.value == "gadget"
    assert_dist(s, {i: Fraction(1, 10) for i in range(10)})
    force(s, [3])
    assert_dist(s, {i: Fraction(1, 9) for i in range(10) if i != 3})
    force(s, [7])
    assert s.decision_kind() is DecisionKind.KEEP_GADGET
    assert set(s.legal_actions(0)) == {A(K.KEEP_GADGET, 3), A(K.KEEP_GADGET, 7)}
    act(s, A(K.KEEP_GADGET, 3))
    assert s.cars[0].gadgets == [3]
    assert s.gadget_bottom == [[7, 0]]
    assert sorted(s.gadget_top) == [0, 1, 2, 4, 5, 6, 8, 9]
    assert s.decision_kind() is DecisionKind.SHOP and s.decision.points == 10
    assert_conserved(s)


def test_gadget_bottom_queue_used_only_when_the_top_is_empty():
    g, b = setup(speed=10)
    names = [c.name for c in g.decks.gadgets]
    b.car(1, spent=[names[i] for i in (0, 1, 2, 3, 5, 9)])
    b.gadget_bottom([(names[i], 1) for i in (6, 7, 8)])
    assert b.to_dict()["gadget_top"] == [4]
    s = into_pit(g, b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    assert s.chance.kind.value == "gadget"
    assert_dist(s, {4: 1})
    force(s, [4])
    assert not s.is_chance_node()  # the top is empty: the queue's first card, no chance
    assert s.decision_kind() is DecisionKind.KEEP_GADGET
    assert set(s.legal_actions(0)) == {A(K.KEEP_GADGET, 4), A(K.KEEP_GADGET, 6)}
    act(s, A(K.KEEP_GADGET, 6))
    assert s.gadget_bottom == [[7, 1], [8, 1], [4, 0]]
    act(s, A(K.SHOP, ShopItem.GADGET))
    assert not s.is_chance_node()
    assert set(s.legal_actions(0)) == {A(K.KEEP_GADGET, 7), A(K.KEEP_GADGET, 8)}
    act(s, A(K.KEEP_GADGET, 8))
    assert s.cars[0].gadgets == [6, 8]
    assert s.gadget_bottom == [[4, 0], [7, 0]]
    assert_conserved(s)


def test_fourth_gadget_forces_a_discard_to_the_bottom():
    g, b = setup(speed=10)
    held = [give_gadget(b, 0, n) for n in ("Charger", "Rocket Booster", "Battering Ram")]
    s = into_pit(g, b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    armor, cage = gadget_index(g, "Armor Plating"), gadget_index(g, "Roll Cage")
    force(s, [armor, cage])
    act(s, A(K.KEEP_GADGET, armor))
    assert s.decision_kind() is DecisionKind.DISCARD_GADGET
    assert set(s.legal_actions(0)) == {A(K.DISCARD_GADGET, i) for i in [*held, armor]}
    rocket = gadget_index(g, "Rocket Booster")
    act(s, A(K.DISCARD_GADGET, rocket))
    car = s.cars[0]
    assert len(car.gadgets) == 3
    assert sorted(car.gadgets) == sorted([held[0], held[2], armor])
    assert rocket not in car.gadgets
    assert [rocket, 0] in s.gadget_bottom and [cage, 0] in s.gadget_bottom
    assert s.gadget_bottom[-1] == [rocket, 0]
    assert s.decision_kind() is DecisionKind.SHOP
    assert_conserved(s)
