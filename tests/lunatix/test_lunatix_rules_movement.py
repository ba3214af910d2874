"""Scenario tests for movement, curves, chips, Drop, wrecks, laps and winning.

Each test is named after the rule of ``shared/rules/lunatix_loop.md`` it checks. Positions
are built on the default track "The Loop" unless a test says otherwise; luck chips are set
to 0 so that hazard draws follow each other without a luck decision.
"""

from __future__ import annotations

import numpy as np
import pytest
from lunatix_builders import (
    A,
    K,
    act,
    choose,
    edited,
    force,
    game,
    hazard_index,
    lay_chip,
    moved,
    put,
    square_at,
    start,
)

from lunatix_env.rules import Card, Game, Outcome, PositionBuilder, State

ACC = Card.ACCELERATE
FRONT_LEFT, FRONT, FRONT_RIGHT = 0, 1, 2
TACKS, OIL, GLUE = 0, 1, 2


# ---------------------------------------------------------------------------- helpers
def setup(n: int = 2, **overrides: object) -> tuple[Game, PositionBuilder]:
    """A game and a builder at round 1's card decision, every car without luck chips and at
    0 mph."""
    g = game(num_players=n, **overrides)
    b = start(g)
    for seat in range(n):
        b.car(seat, luck=0, speed=0)
    return g, b


def step(direction: int, drop: bool = False) -> A:
    return A(K.STEP, direction * 2 + int(drop))


def lane_sq(g: Game, lane: int, index: int) -> int:
    return square_at(g, lane, index)


def back_straight(g: Game, lane: int, k: int) -> int:
    """The ``k``-th square of the back straight in ``lane`` (the lanes line up there)."""
    first = {0: 20, 1: 24, 2: 28}[lane]
    return square_at(g, lane, first + k)


def start_move(s: State, seat: int = 0, card: Card = ACC, accel: int = 0) -> None:
    """Reveal cards (``seat`` plays ``card``, the others Accelerate) and start its turn."""
    choose(s, {seat: card})
    if card is ACC:
        assert s.decision.kind.value == "accelerate" and s.decision.seat == seat
        act(s, A(K.ACCELERATE, accel))


def step_decider(s: State) -> int | None:
    """The seat asked for a STEP now, or None."""
    if s.decision is not None and s.decision.kind.value == "step":
        return s.decision.seat
    return None


def drive_front(s: State, seat: int) -> int:
    """Step straight ahead while ``seat`` is asked to step; returns the number of steps."""
    n = 0
    while step_decider(s) == seat:
        act(s, step(FRONT))
        n += 1
    return n


def finish_round_at_zero(s: State) -> None:
    """Answer the remaining Accelerate decisions of the round with +0."""
    while s.decision is not None and s.decision.kind.value == "accelerate":
        act(s, A(K.ACCELERATE, 0))


def chip_total(s: State) -> list[int]:
    """Chips of each kind in the supply, held and on the track."""
    tot = list(s.supply)
    for c in s.cars:
        for k in range(3):
            tot[k] += c.chips[k]
    for k in s.track_chips.values():
        tot[k] += 1
    return tot


# ---------------------------------------------------------------------------- movement
def test_car_moves_speed_over_10_squares_with_one_step_decision_per_square():
    g, b = setup()
    start = back_straight(g, 1, 0)
    put(b, 0, start, speed=40)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    path = []
    while step_decider(s) == 0:
        act(s, step(FRONT))
        path.append(s.cars[0].square)
    assert path == [back_straight(g, 1, k) for k in range(1, 5)]
    assert s.cars[0].speed == 40
    # the move is over: the next decision is the other car's
    assert s.decision.kind.value == "accelerate" and s.decision.seat == 1


def test_legal_steps_are_the_existing_free_front_left_front_front_right_squares():
    g, b = setup(n=3)
    put(b, 0, back_straight(g, 1, 0), speed=30)
    put(b, 1, back_straight(g, 0, 0), speed=20)  # inside lane: no front-left square
    put(b, 2, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    choose(s, {})
    act(s, A(K.ACCELERATE, 0))
    # middle lane, nothing ahead: all three directions, no drop variants
    assert s.legal_actions(0) == [step(FRONT_LEFT), step(FRONT), step(FRONT_RIGHT)]
    # block the front-right square with another car
    s = moved(s, 2, back_straight(g, 2, 1), speed=0)
    assert s.legal_actions(0) == [step(FRONT_LEFT), step(FRONT)]
    s = moved(s, 2, lane_sq(g, 0, 2), speed=0)
    act(s, step(FRONT), step(FRONT), step(FRONT))
    # seat 1 on the inside lane: front-left does not exist
    act(s, A(K.ACCELERATE, 0))
    assert step_decider(s) == 1
    assert s.legal_actions(1) == [step(FRONT), step(FRONT_RIGHT)]


def test_legal_steps_on_the_outside_lane_have_no_front_right():
    g, b = setup()
    put(b, 0, back_straight(g, 2, 0), speed=20)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    assert s.legal_actions(0) == [step(FRONT_LEFT), step(FRONT)]


def test_legal_steps_of_a_car_facing_clockwise_are_its_own_left_front_and_right():
    # facing against the race direction, front-left is toward the outside
    g, b = setup()
    tr = g.track
    here = back_straight(g, 0, 5)
    put(b, 0, here, speed=20, facing=1)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    assert s.legal_actions(0) == [step(FRONT_LEFT), step(FRONT)]
    act(s, step(FRONT_LEFT))
    assert tr.lane[s.cars[0].square] == 1
    assert tr.s[s.cars[0].square] < tr.s[here]


def test_a_wrecked_car_blocks_its_square():
    g, b = setup()
    put(b, 0, back_straight(g, 1, 0), speed=20)
    put(b, 1, back_straight(g, 1, 1), speed=0, max_speed=0)
    b.car(1, out=True)
    s = b.build()
    start_move(s)
    assert step_decider(s) == 0
    assert step(FRONT) not in s.legal_actions(0)
    assert s.legal_actions(0) == [step(FRONT_LEFT), step(FRONT_RIGHT)]


def test_car_never_moves_back():
    g, b = setup()
    tr = g.track
    put(b, 0, back_straight(g, 1, 0), speed=50)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    while step_decider(s) == 0:
        here = s.cars[0].square
        for a in s.legal_actions(0):
            dest = tr.forward(here, 0)[a.arg // 2]
            assert dest is not None and tr.s[dest] > tr.s[here]
        u = s.cars[0].u
        act(s, s.legal_actions(0)[0])
        assert s.cars[0].u > u


def test_speed_zero_means_no_step():
    g, b = setup()
    start = back_straight(g, 1, 0)
    put(b, 0, start, speed=0)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    choose(s, {})
    for _ in range(2):
        assert s.decision.kind.value == "accelerate"
        act(s, A(K.ACCELERATE, 0))
        assert step_decider(s) is None
    assert s.decision.kind.value == "card" and s.round == 2
    assert s.cars[0].square == start


# ---------------------------------------------------------------------------- mid-move slowing
def test_glue_met_mid_move_shortens_the_move_as_if_started_at_the_new_speed():
    g, b = setup()
    put(b, 0, back_straight(g, 1, 0), speed=60)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    lay_chip(b, back_straight(g, 1, 2), GLUE)
    s = b.build()
    start_move(s)
    n = drive_front(s, 0)
    assert s.cars[0].speed == 40
    assert n == 4  # 40 mph: four squares in all, two of them before the glue
    assert s.cars[0].square == back_straight(g, 1, 4)


def test_glue_met_after_moving_that_far_ends_the_move_at_once():
    g, b = setup()
    put(b, 0, back_straight(g, 1, 0), speed=40)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    lay_chip(b, back_straight(g, 1, 3), GLUE)
    s = b.build()
    start_move(s)
    n = drive_front(s, 0)
    assert s.cars[0].speed == 20
    assert n == 3
    # the move ends on the glue square: no step back to where 20 mph would have ended
    assert s.cars[0].square == back_straight(g, 1, 3)


# ---------------------------------------------------------------------------- curves
def test_curve_entry_draws_one_hazard_card_per_10_mph_over_the_rating():
    g, b = setup()
    tr = g.track
    before, entry = lane_sq(g, 2, 5), lane_sq(g, 2, 6)
    assert tr.curve[before] is None and tr.curve[entry] == 0 and tr.rating[entry] == 80
    assert g.track.spec.curves[0].name == "Curve 1"
    put(b, 0, before, speed=100)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT))
    assert s.cars[0].square == entry
    close, panic = hazard_index(g, "Close Call"), hazard_index(g, "Panic Attack")
    assert s.chance is not None and s.chance.kind.value == "hazard" and s.chance.seat == 0
    force(s, [close])
    assert s.chance is not None and s.chance.kind.value == "hazard" and s.chance.seat == 0
    force(s, [panic])
    assert s.chance is None
    assert step_decider(s) == 0
    assert s.hazard_discard[close] == 1 and s.hazard_discard[panic] == 1
    assert sum(s.hazard_discard) == 2


@pytest.mark.parametrize("speed", [80, 70])
def test_curve_entry_at_or_below_the_rating_draws_no_card(speed):
    g, b = setup()
    put(b, 0, lane_sq(g, 2, 5), speed=speed)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT))
    assert s.cars[0].square == lane_sq(g, 2, 6)
    assert s.chance is None
    assert step_decider(s) == 0
    assert sum(s.hazard_discard) == 0


def test_moving_one_lane_inward_in_a_curve_faster_than_the_new_rating_draws_one_card():
    g, b = setup()
    tr = g.track
    here = lane_sq(g, 2, 8)  # Curve 1, outside lane, rating 80
    dest = tr.forward(here, 0)[0]
    assert tr.curve[here] == tr.curve[dest] == 0 and tr.rating[dest] == 60
    put(b, 0, here, speed=90)  # 30 mph over the new square's rating: still one card
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT_LEFT))
    assert s.cars[0].square == dest
    close = hazard_index(g, "Close Call")
    assert s.chance is not None and s.chance.kind.value == "hazard"
    force(s, [close])
    assert s.chance is None and step_decider(s) == 0
    assert sum(s.hazard_discard) == 1


def test_moving_straight_or_outward_inside_a_curve_draws_no_card():
    g, b = setup()
    tr = g.track
    here = lane_sq(g, 1, 7)  # Curve 1, middle lane, rating 60
    put(b, 0, here, speed=90)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT))
    mid = s.cars[0].square
    assert tr.curve[mid] == 0 and tr.lane[mid] == 1 and 90 > tr.rating[mid]
    assert s.chance is None and step_decider(s) == 0
    act(s, step(FRONT_RIGHT))
    out = s.cars[0].square
    assert tr.curve[out] == 0 and tr.lane[out] == 2 and 90 > tr.rating[out]
    assert s.chance is None and step_decider(s) == 0
    assert sum(s.hazard_discard) == 0


@pytest.mark.parametrize("amount,cards", [(10, 1), (20, 2)])
def test_accelerating_on_a_curve_square_above_its_rating_draws_one_card_per_10_mph(amount, cards):
    g, b = setup()
    here = lane_sq(g, 2, 7)  # Curve 1, outside lane, rating 80
    assert g.track.rating[here] == 80
    put(b, 0, here, speed=80)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s, accel=amount)
    assert s.cars[0].speed == 80 + amount
    close, panic = hazard_index(g, "Close Call"), hazard_index(g, "Panic Attack")
    for card in (close, panic)[:cards]:
        # drawn before moving
        assert s.chance is not None and s.chance.kind.value == "hazard"
        assert s.cars[0].square == here
        force(s, [card])
    assert s.chance is None and step_decider(s) == 0
    assert sum(s.hazard_discard) == cards


def test_accelerating_on_a_curve_square_to_at_most_its_rating_draws_no_card():
    g, b = setup()
    here = lane_sq(g, 2, 7)  # rating 80
    put(b, 0, here, speed=60)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s, accel=20)
    assert s.cars[0].speed == 80
    assert s.chance is None and step_decider(s) == 0


def test_every_curve_square_has_its_own_rating_entry_first_half_exit_second_half():
    g, _ = setup()
    tr = g.track
    for curve in tr.spec.curves:
        for lane, (entry, exit_) in enumerate(curve.lanes):
            squares = [sq for sq in tr.spec.lanes[lane] if tr.curve[sq] == curve.id]
            half = len(squares) // 2
            assert len(squares) == 2 * half
            assert [tr.rating[sq] for sq in squares] == [entry] * half + [exit_] * half


def test_inward_move_in_a_curve_is_judged_by_the_new_squares_own_rating():
    # the same speed and the same inward move draw a card into an entry-half square
    # (rating 60) and none into an exit-half square (rating 70)
    g, b = setup()
    tr = g.track
    early, late = lane_sq(g, 2, 8), lane_sq(g, 2, 10)
    to_early, to_late = tr.forward(early, 0)[0], tr.forward(late, 0)[0]
    assert tr.rating[to_early] == 60 and tr.rating[to_late] == 70
    put(b, 0, late, speed=70)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT_LEFT))
    assert s.cars[0].square == to_late
    assert s.chance is None and step_decider(s) == 0

    g, b = setup()
    put(b, 0, early, speed=70)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT_LEFT))
    assert s.cars[0].square == to_early
    assert s.chance is not None and s.chance.kind.value == "hazard"


# ---------------------------------------------------------------------------- chips on the track
def test_tacks_chip_rolls_one_damage_die_and_goes_back_to_the_supply():
    g, b = setup()
    sq = back_straight(g, 1, 1)
    put(b, 0, back_straight(g, 1, 0), speed=30)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    lay_chip(b, sq, TACKS)
    s = b.build()
    supply = list(s.supply)
    start_move(s)
    act(s, step(FRONT))
    assert sq not in s.track_chips
    assert s.supply == [supply[0] + 1, supply[1], supply[2]]
    assert s.chance is not None and s.chance.kind.value == "dice"
    assert s.chance.n == 1 and s.chance.seat == 0
    force(s, [1])
    assert s.cars[0].max_speed == 130
    assert s.chance is None and step_decider(s) == 0


def test_oil_chip_draws_one_hazard_card_and_goes_back_to_the_supply():
    g, b = setup()
    sq = back_straight(g, 1, 1)
    put(b, 0, back_straight(g, 1, 0), speed=30)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    lay_chip(b, sq, OIL)
    s = b.build()
    supply = list(s.supply)
    start_move(s)
    act(s, step(FRONT))
    assert sq not in s.track_chips
    assert s.supply == [supply[0], supply[1] + 1, supply[2]]
    assert s.chance is not None and s.chance.kind.value == "hazard" and s.chance.seat == 0
    force(s, [hazard_index(g, "Close Call")])
    assert s.chance is None and step_decider(s) == 0
    assert sum(s.hazard_discard) == 1


def test_glue_chip_costs_20_mph_and_goes_back_to_the_supply():
    g, b = setup()
    sq = back_straight(g, 1, 1)
    put(b, 0, back_straight(g, 1, 0), speed=60)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    lay_chip(b, sq, GLUE)
    s = b.build()
    supply = list(s.supply)
    start_move(s)
    act(s, step(FRONT))
    assert s.cars[0].speed == 40
    assert sq not in s.track_chips
    assert s.supply == [supply[0], supply[1], supply[2] + 1]
    assert s.chance is None and step_decider(s) == 0


# ---------------------------------------------------------------------------- the Drop card
def drop_setup(speed: int, chips: tuple[int, int, int] = (2, 2, 2)) -> tuple[Game, PositionBuilder]:
    g, b = setup()
    put(b, 0, back_straight(g, 1, 0), speed=speed)
    put(b, 1, lane_sq(g, 0, 2), speed=0)
    b.car(0, chips=chips)
    return g, b


def test_drop_kind_decision_offers_only_the_kinds_held():
    g, b = drop_setup(40, chips=(2, 0, 1))
    s = b.build()
    start_move(s, card=Card.DROP)
    assert s.decision.kind.value == "drop_kind" and s.decision.seat == 0
    assert s.legal_actions(0) == [A(K.DROP_KIND, TACKS), A(K.DROP_KIND, GLUE)]


def test_drop_puts_the_chip_into_the_square_being_left():
    g, b = drop_setup(40)
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, OIL))
    assert step_decider(s) == 0
    assert s.legal_actions(0) == [step(d, drop) for d in range(3) for drop in (False, True)]
    supply = list(s.supply)
    act(s, step(FRONT, drop=True))
    assert s.track_chips == {back_straight(g, 1, 0): OIL}
    assert s.cars[0].chips == [2, 1, 2]
    assert s.supply == supply
    assert s.cars[0].square == back_straight(g, 1, 1)
    assert chip_total(s) == list(g.rules.chip_supply)


def test_drop_mask_forces_a_drop_before_the_last_step():
    g, b = drop_setup(30)
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, TACKS))
    act(s, step(FRONT), step(FRONT))
    # the last step: only drop variants remain while nothing has been dropped
    assert s.legal_actions(0) == [step(d, True) for d in range(3)]
    act(s, step(FRONT, drop=True))
    assert s.track_chips == {back_straight(g, 1, 2): TACKS}
    assert s.cars[0].chips == [1, 2, 2]


def test_drop_never_into_the_final_square():
    g, b = drop_setup(20)
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, GLUE))
    act(s, step(FRONT, drop=True), step(FRONT, drop=True))
    final = back_straight(g, 1, 2)
    assert s.cars[0].square == final
    assert step_decider(s) is None  # no chance to drop on the square the move ends on
    assert final not in s.track_chips
    assert s.track_chips == {back_straight(g, 1, 0): GLUE, back_straight(g, 1, 1): GLUE}


def test_drop_at_most_two_chips_one_per_square():
    g, b = drop_setup(50, chips=(3, 2, 2))
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, TACKS))
    act(s, step(FRONT, drop=True), step(FRONT, drop=True))
    assert s.cars[0].chips == [1, 2, 2]
    # two dropped: no drop variant is offered any more, though a tack is still held
    assert s.legal_actions(0) == [step(d) for d in range(3)]
    act(s, step(FRONT), step(FRONT), step(FRONT))
    assert step_decider(s) is None
    assert s.track_chips == {back_straight(g, 1, 0): TACKS, back_straight(g, 1, 1): TACKS}
    assert chip_total(s) == list(g.rules.chip_supply)


def test_drop_never_into_a_square_already_holding_a_chip():
    g, b = drop_setup(30)
    here = back_straight(g, 1, 0)
    lay_chip(b, here, GLUE)
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, TACKS))
    assert s.legal_actions(0) == [step(d) for d in range(3)]
    act(s, step(FRONT))
    assert s.track_chips[here] == GLUE
    assert s.cars[0].chips[TACKS] == 2


def test_dropped_chips_leave_the_players_chips():
    g, b = drop_setup(40, chips=(3, 3, 2))
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, GLUE))
    act(s, step(FRONT, drop=True), step(FRONT), step(FRONT, drop=True), step(FRONT))
    assert s.cars[0].chips == [3, 3, 0]
    assert sorted(s.track_chips.items()) == [
        (back_straight(g, 1, 0), GLUE),
        (back_straight(g, 1, 2), GLUE),
    ]


def test_drop_card_needs_speed_10_a_chip_and_not_being_in_the_pit():
    g, b = drop_setup(10)
    drop = A(K.CARD, int(Card.DROP))
    s = b.build()
    assert drop in s.legal_actions(0)
    s = b.car(0, speed=0).build()
    assert drop not in s.legal_actions(0)
    s = b.car(0, speed=40, chips=(0, 0, 0)).build()
    assert drop not in s.legal_actions(0)
    s = b.car(0, chips=(1, 0, 0)).build()
    assert drop in s.legal_actions(0)
    s = b.pit(0, "A2").build()
    assert drop not in s.legal_actions(0)


def test_drop_move_cut_short_before_any_drop_is_a_normal_move():
    g, b = drop_setup(30)
    glue_sq = back_straight(g, 1, 1)
    lay_chip(b, glue_sq, GLUE)
    s = b.build()
    start_move(s, card=Card.DROP)
    act(s, A(K.DROP_KIND, TACKS))
    act(s, step(FRONT))  # into glue: 10 mph, one square moved, the move ends
    assert s.cars[0].speed == 10
    assert s.cars[0].square == glue_sq
    assert step_decider(s) is None
    assert s.decision.kind.value == "accelerate" and s.decision.seat == 1
    assert s.cars[0].chips == [2, 2, 2]
    assert s.track_chips == {}


# ---------------------------------------------------------------------------- wrecks
def test_car_out_of_the_race_stays_as_an_obstacle_and_never_decides_again():
    g, b = setup()
    put(b, 0, back_straight(g, 1, 0), speed=0)
    put(b, 1, back_straight(g, 1, 1), speed=20, max_speed=20)
    wreck_sq = back_straight(g, 1, 2)
    lay_chip(b, wreck_sq, TACKS)
    s = b.build()
    start_move(s, seat=1)
    act(s, step(FRONT))
    assert s.chance.kind.value == "dice" and s.chance.seat == 1
    force(s, [2])  # max speed 20 -> 0 with a step still to go
    car = s.cars[1]
    assert car.out and car.max_speed == 0 and car.speed == 0
    assert car.square == wreck_sq
    assert step_decider(s) is None
    finish_round_at_zero(s)
    assert s.decision.kind.value == "card" and s.current_players() == (0,)
    assert not s.is_terminal()
    # the wreck blocks the square ahead of the live car
    s = edited(s, lambda d: d["cars"][0].update(speed=20))
    choose(s, {0: ACC})
    assert s.current_players() == (0,)
    act(s, A(K.ACCELERATE, 0), step(FRONT))
    assert step_decider(s) == 0
    assert step(FRONT) not in s.legal_actions(0)
    act(s, step(FRONT_RIGHT))
    assert s.decision.kind.value == "card" and s.current_players() == (0,)
    assert s.cars[1].square == wreck_sq and s.cars[1].out


# ---------------------------------------------------------------------------- laps
def test_crossing_the_line_from_the_start_dot_does_not_count_a_lap():
    g, b = setup()
    s = b.car(0, speed=40).build()
    dot = s.cars[0].square
    assert dot in g.track.start_dots and g.track.lane[dot] == 0
    start_move(s)
    drive_front(s, 0)
    assert s.cars[0].square == lane_sq(g, 0, 2)  # two squares past the line
    assert s.laps(0) == 0


def test_lap_counts_when_the_car_crosses_the_line_after_a_full_lap():
    g, b = setup()
    put(b, 0, lane_sq(g, 0, -2), speed=40, laps=1)
    put(b, 1, lane_sq(g, 2, 10), speed=0)
    s = b.build()
    assert s.laps(0) == 1
    start_move(s)
    act(s, step(FRONT))
    assert s.laps(0) == 1
    act(s, step(FRONT))  # crosses the line
    assert s.laps(0) == 2


def test_driving_back_over_the_line_and_forward_again_earns_nothing_twice():
    g, b = setup()
    after_line = lane_sq(g, 0, 1)
    put(b, 0, after_line, speed=30, facing=1, laps=1)
    put(b, 1, lane_sq(g, 2, 10), speed=0)
    s = b.build()
    assert s.laps(0) == 1
    start_move(s)
    n = drive_front(s, 0)  # clockwise, back over the line
    assert n == 3 and s.cars[0].square == lane_sq(g, 0, -2)
    assert s.laps(0) == 1  # the high-water mark never decreases
    finish_round_at_zero(s)
    s = edited(s, lambda d: d["cars"][0].update(facing=0))
    start_move(s)
    drive_front(s, 0)  # forward over the line again
    assert s.cars[0].square == after_line
    assert s.laps(0) == 1
    assert not s.is_terminal()


# ---------------------------------------------------------------------------- winning
def test_car_wins_the_moment_its_move_completes_the_required_laps_mid_round():
    g, b = setup(n=3)
    laps = g.rules.laps
    put(b, 0, lane_sq(g, 0, -2), speed=40, laps=laps - 1)
    put(b, 1, lane_sq(g, 1, 10), speed=30)  # acts after seat 0 (slower)
    put(b, 2, lane_sq(g, 2, 20), speed=0)
    s = b.build()
    start_move(s)
    act(s, step(FRONT))
    assert not s.is_terminal()
    act(s, step(FRONT))  # crosses the line with two steps of speed left
    assert s.is_terminal()
    assert s.outcome().reason is Outcome.WIN and s.winner == 0
    assert s.returns() == [1.0, -0.5, -0.5]
    assert s.cars[1].square == lane_sq(g, 1, 10)  # the later car never acted
    assert s.current_players() == () and not s.is_chance_node()


def test_round_limit_truncates_the_game_with_zero_returns():
    g, b = setup(round_limit=2)
    s = b.build()
    choose(s, {})
    finish_round_at_zero(s)
    assert not s.is_terminal() and s.round == 2
    choose(s, {})
    finish_round_at_zero(s)
    assert s.is_terminal()
    assert s.outcome().reason is Outcome.TRUNCATED and s.winner is None
    assert s.returns() == [0.0, 0.0]


def test_game_ends_at_once_with_zero_returns_when_every_car_is_out():
    g, b = setup()
    put(b, 0, back_straight(g, 1, 0), speed=10, max_speed=10)
    put(b, 1, back_straight(g, 2, 0), speed=10, max_speed=10)
    lay_chip(b, back_straight(g, 1, 1), TACKS)
    lay_chip(b, back_straight(g, 2, 1), TACKS)
    s = b.build()
    choose(s, {})
    assert s.decision.seat == 0  # inside lane first on a tie
    act(s, A(K.ACCELERATE, 0), step(FRONT))
    force(s, [1])
    assert s.cars[0].out and not s.is_terminal()
    act(s, A(K.ACCELERATE, 0), step(FRONT))
    force(s, [1])
    assert s.is_terminal()
    assert s.outcome().reason is Outcome.ALL_OUT and s.winner is None
    assert s.returns() == [0.0, 0.0]
    assert s.round == 1


# ---------------------------------------------------------------------------- another track
def test_a_second_track_file_plays_without_code_changes():
    g = game(track="tracks/test_oval.yaml")
    assert g.track.name == "Test Oval"
    assert g.track.num_squares != Game().track.num_squares
    outcomes = set()
    for seed in range(4):
        s = g.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(20_000):
            if s.is_terminal():
                break
            if s.is_chance_node():
                s.apply_chance(s.sample_chance(rng))
            else:
                acts = {}
                for p in s.current_players():
                    legal = s.legal_actions(p)
                    assert legal
                    acts[p] = legal[int(rng.integers(len(legal)))]
                s.apply_actions(acts)
        assert s.is_terminal()
        assert s.round <= g.rules.round_limit
        assert chip_total(s) == list(g.rules.chip_supply)
        for c in s.cars:
            assert 0 <= c.square < g.track.num_squares
        outcomes.add(s.outcome().reason)
    assert outcomes <= {Outcome.WIN, Outcome.ALL_OUT, Outcome.TRUNCATED}
