"""Scenario tests of shared/rules/lunatix_loop.md: rams, the Battering Ram, involuntary rams,
the pit (entry, shop, leaving, four openings), laps through the pit, and Turn Around.

Each test builds a position with the builders of ``lunatix_builders``, acts, forces the
chance outcomes and checks exact results. Positions use the back straight of The Loop
(lane 0 squares 20..31, lane 1 76..87, lane 2 140..151 line up square for square) and the
home straight with the pit openings A1 48, A2 49 (before the line), B1 0, B2 1 (after it).
"""

from __future__ import annotations

from lunatix_builders import (
    A,
    K,
    act,
    choose,
    force,
    gadget_index,
    game,
    give_gadget,
    hazard_index,
    lay_chip,
    moved,
    put,
    square_at,
    start,
    turbo_index,
)

from lunatix_env.rules import Card, DecisionKind, Game, PositionBuilder, ShopItem, State

RAM = Card.RAM
ACC = Card.ACCELERATE
BRAKE = Card.BRAKE
DROP = Card.DROP
TA = Card.TURN_AROUND

FL, FWD, FR = 0, 1, 2  # directions: front-left, front, front-right
A2, B1 = 49, 0  # basic pit entry and exit squares
A1_IDX, A2_IDX, B1_IDX, B2_IDX = 0, 1, 2, 3  # opening indices in the track file


def step(direction: int, drop: int = 0) -> A:
    return A(K.STEP, direction * 2 + drop)


def ram(direction: int) -> A:
    return A(K.RAM, direction)


def card(c: Card) -> A:
    return A(K.CARD, int(c))


def back(g: Game, lane: int, i: int) -> int:
    """Square ``i`` (0..11) of the back straight in ``lane``; lanes line up there."""
    return square_at(g, lane, (20, 24, 28)[lane] + i)


_GAMES: dict[tuple, Game] = {}


def setup(n: int = 2, **overrides: object) -> tuple[Game, PositionBuilder]:
    """A builder at round 1's card decision (games are immutable, so they are shared)."""
    key = (n, *sorted(overrides.items()))
    g = _GAMES.get(key)
    if g is None:
        g = _GAMES[key] = game(num_players=n, **overrides)
    return g, start(g)


def chance(s: State) -> tuple[str, int, int | None]:
    """(kind, seat, dice) of the pending chance event."""
    assert s.chance is not None, f"expected a chance event, decision is {s.decision}"
    return s.chance.kind.value, s.chance.seat, s.chance.n if s.chance.n >= 0 else None


def decision(s: State) -> tuple[DecisionKind | None, tuple[int, ...]]:
    return s.decision_kind(), s.current_players()


def roll_nothing(s: State, expected: list[tuple[int, int]]) -> None:
    """Expect dice rolls (seat, n) in this order and force 0 hits on each."""
    for seat, n in expected:
        assert chance(s) == ("dice", seat, n)
        force(s, [0])


def in_pit(
    b: PositionBuilder, seat: int, opening: int = A2_IDX, facing: int = 0, laps: int = 0
) -> PositionBuilder:
    """Place ``seat``'s car in the pit as if it had entered by ``opening`` (speed 0), after
    the cars put there before it."""
    name = b.game.track.openings[opening].name
    return b.car(seat, speed=0, facing=facing).pit(seat, name, lap=laps)


def cards_of(s: State, seat: int) -> set[A]:
    return set(s.legal_actions(seat))


def rams_in(actions: list[A]) -> list[A]:
    return [a for a in actions if a.kind is K.RAM]


def steps_in(actions: list[A]) -> list[A]:
    return [a for a in actions if a.kind is K.STEP]


# ====================================================================== the Ram card
def test_ram_actions_appear_among_step_actions_when_target_adjacent_ahead() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 0, 1), speed=40)  # front-left of the rammer
    s = b.build()
    choose(s, {0: RAM})
    assert decision(s) == (DecisionKind.STEP, (0,))
    assert ram(FL) in s.legal_actions(0)
    assert all(a.kind in (K.STEP, K.RAM) for a in s.legal_actions(0))


def test_ram_before_the_move_sideswipe_then_rammer_keeps_moving() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 2, 1), speed=40)  # front-right of the rammer
    s = b.build()
    choose(s, {0: RAM})
    act(s, ram(FR))
    roll_nothing(s, [(1, 2), (0, 1)])  # target's 2 dice first, then the rammer's 1
    assert decision(s) == (DecisionKind.STEP, (0,))
    assert s.cars[0].square == back(g, 1, 0)
    assert rams_in(s.legal_actions(0)) == []
    act(s, step(FWD), step(FWD), step(FWD))
    assert s.cars[0].square == back(g, 1, 3)
    assert s.cars[1].square == back(g, 2, 1)


def test_ram_during_the_move() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 0, 2), speed=40)
    s = b.build()
    choose(s, {0: RAM})
    assert rams_in(s.legal_actions(0)) == []
    act(s, step(FWD))
    assert ram(FL) in s.legal_actions(0)
    act(s, ram(FL))
    roll_nothing(s, [(1, 2), (0, 1)])
    act(s, step(FWD), step(FWD))
    assert s.cars[0].square == back(g, 1, 3)
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))


def test_ram_after_the_last_step_is_a_mandatory_ram_decision() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=10)
    put(b, 1, back(g, 0, 2), speed=40)
    s = b.build()
    choose(s, {0: RAM})
    act(s, step(FWD))
    assert s.cars[0].square == back(g, 1, 1)
    assert decision(s) == (DecisionKind.RAM, (0,))
    assert s.legal_actions(0) == [ram(FL)]
    act(s, ram(FL))
    roll_nothing(s, [(1, 2), (0, 1)])
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))


def test_sideswipe_rammer_one_die_target_two_dice_target_rolled_first() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=20, max_speed=140)
    put(b, 1, back(g, 0, 1), speed=40, max_speed=140)
    s = b.build()
    choose(s, {0: RAM})
    act(s, ram(FL))
    assert chance(s) == ("dice", 1, 2)
    force(s, [3])
    assert chance(s) == ("dice", 0, 1)
    force(s, [2])
    assert s.cars[1].max_speed == 110
    assert s.cars[0].max_speed == 120
    # the rammer keeps moving
    assert decision(s) == (DecisionKind.STEP, (0,))
    act(s, step(FWD), step(FWD))
    assert s.cars[0].square == back(g, 1, 2)


def test_rear_end_ram_one_and_two_dice_and_rammers_move_ends() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=50)
    put(b, 1, back(g, 1, 1), speed=40)
    s = b.build()
    choose(s, {0: RAM})
    act(s, ram(FWD))
    roll_nothing(s, [(1, 2), (0, 1)])
    assert s.cars[0].square == back(g, 1, 0)
    assert s.cars[0].speed == 50
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))


def test_head_on_ram_three_and_four_dice_both_cars_to_zero_and_move_ends() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 1, 0), speed=50)
    put(b, 1, back(g, 1, 1), speed=40, facing=1)  # facing the rammer
    s = b.build()
    choose(s, {0: RAM, 1: BRAKE})
    assert ram(FWD) in s.legal_actions(0)
    act(s, ram(FWD))
    roll_nothing(s, [(1, 4), (0, 3)])
    assert s.cars[0].speed == 0
    assert s.cars[1].speed == 0
    assert s.cars[0].square == back(g, 1, 0)
    # the rammer's move is over; the target, now at 0 mph, cannot brake
    assert s.decision_kind() is DecisionKind.CARD
    assert s.round == 2


def test_ram_never_rearward() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 1), speed=40)
    put(b, 1, back(g, 1, 0), speed=0)  # directly behind
    s = b.build()
    assert card(RAM) not in cards_of(s, 0)
    s = put(b, 0, back(g, 1, 1), speed=0).build()
    assert card(RAM) not in cards_of(s, 0)


def test_ram_never_a_car_beside() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 1), speed=0)
    put(b, 1, back(g, 0, 1), speed=0)  # beside, inside lane
    s = b.build()
    assert card(RAM) not in cards_of(s, 0)
    s = put(b, 1, back(g, 2, 1), speed=0).build()  # beside, outside lane
    assert card(RAM) not in cards_of(s, 0)
    s = put(b, 1, back(g, 2, 2), speed=0).build()  # front-right: now a target
    assert card(RAM) in cards_of(s, 0)


def test_ram_never_a_car_in_the_pit() -> None:
    g, b = setup()
    in_pit(b, 1)  # its entry opening A2 is square 49
    put(b, 0, 48, speed=10)  # A1: A2 is directly ahead
    s = b.build()
    assert s.occupant(A2) is None
    assert card(RAM) not in cards_of(s, 0)


def test_ram_never_a_wrecked_car() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 1, 2), speed=0)
    s = b.build()
    assert card(RAM) in cards_of(s, 0)
    s = b.car(1, out=True).build()
    assert card(RAM) not in cards_of(s, 0)


def test_ram_card_needs_an_eligible_target_reachable_at_current_speed() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=40)  # four steps
    put(b, 1, back(g, 1, 5), speed=0)  # adjacent after four steps
    s = b.build()
    assert card(RAM) in cards_of(s, 0)
    s = put(b, 1, back(g, 1, 6), speed=0).build()  # one square too far
    assert card(RAM) not in cards_of(s, 0)
    s = put(b, 0, back(g, 1, 0), speed=50).build()
    assert card(RAM) in cards_of(s, 0)


def test_pending_ram_masks_steps_that_make_it_unreachable() -> None:
    g, b = setup()
    put(b, 0, back(g, 1, 0), speed=10)
    put(b, 1, back(g, 0, 2), speed=0)
    s = b.build()
    choose(s, {0: RAM})
    # front-left (lane 0) and front (lane 1) keep the target in reach; front-right does not
    assert sorted(s.legal_actions(0)) == [step(FL), step(FWD)]


def test_pending_ram_masks_pit_entry() -> None:
    g, b = setup()
    put(b, 0, A2, speed=20)
    put(b, 1, 51, speed=0)  # two squares ahead: reachable after one step
    s = b.build()
    choose(s, {0: RAM})
    legal = s.legal_actions(0)
    assert A(K.ENTER_PIT, 0) not in legal
    assert step(FWD) in legal
    # without the Ram card the same car may enter the pit
    g, b = setup()
    put(b, 0, A2, speed=20)
    put(b, 1, 51, speed=0)
    s = b.build()
    choose(s, {0: BRAKE})
    act(s, A(K.BRAKE, 10))
    assert A(K.ENTER_PIT, 0) in s.legal_actions(0)


def test_ram_whose_target_moved_out_of_reach_degrades_to_a_normal_move() -> None:
    g, b = setup(n=3)
    put(b, 0, back(g, 1, 0), speed=10)  # rammer: its target is seat 1, one step away
    put(b, 1, back(g, 1, 2), speed=60)  # faster Ram: acts first and drives away
    put(b, 2, back(g, 2, 3), speed=0)  # seat 1's target
    s = b.build()
    assert card(RAM) in cards_of(s, 0)
    choose(s, {0: RAM, 1: RAM, 2: ACC})
    assert decision(s) == (DecisionKind.STEP, (1,))
    act(s, ram(FR))
    roll_nothing(s, [(2, 2), (1, 1)])
    for _ in range(6):
        act(s, step(FWD))
    assert s.cars[1].square == back(g, 1, 8)
    # seat 0's turn: no target in reach any more, so an ordinary move
    assert decision(s) == (DecisionKind.STEP, (0,))
    legal = s.legal_actions(0)
    assert rams_in(legal) == []
    assert sorted(steps_in(legal)) == [step(FL), step(FWD), step(FR)]
    act(s, step(FR))
    assert s.cars[0].square == back(g, 2, 1)
    assert s.decision_kind() is not DecisionKind.RAM
    assert 0 not in s.current_players()


# ====================================================================== Battering Ram
def test_battering_ram_rammer_rolls_no_dice_target_one_extra() -> None:
    g, b = setup()
    gi = give_gadget(b, 0, "Battering Ram")
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 0, 1), speed=40)
    s = b.build()
    assert A(K.PLAY_GADGET, gi) in cards_of(s, 0)
    choose(s, {0: A(K.PLAY_GADGET, gi)})
    act(s, ram(FL))  # a sideswipe: target 2 + 1 dice, rammer none
    roll_nothing(s, [(1, 3)])
    assert not s.is_chance_node()
    assert decision(s) == (DecisionKind.STEP, (0,))


def test_battering_ram_rear_end_target_three_dice_rammer_none() -> None:
    g, b = setup()
    gi = give_gadget(b, 0, "Battering Ram")
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 1, 1), speed=40)
    s = b.build()
    choose(s, {0: A(K.PLAY_GADGET, gi)})
    act(s, ram(FWD))
    roll_nothing(s, [(1, 3)])
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))
    assert s.cars[0].square == back(g, 1, 0)


def test_battering_ram_needs_a_reachable_target() -> None:
    g, b = setup()
    gi = give_gadget(b, 0, "Battering Ram")
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 1, 5), speed=40)  # out of reach at 30 mph
    s = b.build()
    assert A(K.PLAY_GADGET, gi) not in cards_of(s, 0)
    s = put(b, 1, back(g, 1, 4), speed=40).build()
    assert A(K.PLAY_GADGET, gi) in cards_of(s, 0)


def test_battering_ram_is_spent_when_played() -> None:
    g, b = setup()
    gi = give_gadget(b, 0, "Battering Ram")
    put(b, 0, back(g, 1, 0), speed=30)
    put(b, 1, back(g, 0, 1), speed=40)
    s = b.build()
    choose(s, {0: A(K.PLAY_GADGET, gi)})
    assert gi not in s.cars[0].gadgets
    assert gi in s.cars[0].spent
    assert gi not in s.gadget_top


# ====================================================================== involuntary ram
def test_blocked_car_must_rear_end_ram_a_blocker_two_dice_each_and_move_ends() -> None:
    g, b = setup(n=4)
    put(b, 0, back(g, 1, 0), speed=40)
    for seat, lane in ((1, 0), (2, 1), (3, 2)):
        put(b, seat, back(g, lane, 1), speed=0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC, 2: ACC, 3: ACC})
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))
    act(s, A(K.ACCELERATE, 0))
    assert decision(s) == (DecisionKind.STEP, (0,))
    assert s.legal_actions(0) == [ram(FL), ram(FWD), ram(FR)]
    act(s, ram(FWD))
    roll_nothing(s, [(2, 2), (0, 2)])
    assert s.cars[0].square == back(g, 1, 0)
    assert 0 not in s.current_players()


def test_involuntary_ram_of_a_wreck_wreck_takes_no_dice() -> None:
    g, b = setup(n=4)
    put(b, 0, back(g, 1, 0), speed=40)
    for seat, lane in ((1, 0), (2, 1), (3, 2)):
        put(b, seat, back(g, lane, 1), speed=0)
        b.car(seat, out=True)
    s = b.build()
    choose(s, {0: ACC})
    act(s, A(K.ACCELERATE, 0))
    assert s.legal_actions(0) == [ram(FL), ram(FWD), ram(FR)]
    act(s, ram(FWD))
    roll_nothing(s, [(0, 2)])
    assert not s.is_chance_node()
    assert s.cars[0].square == back(g, 1, 0)
    assert s.decision_kind() is DecisionKind.CARD  # the move ended; next round


def test_involuntary_ram_does_not_use_up_the_ram_card() -> None:
    """Blocked with a Ram card pending: both the card's ram and the forced ram happen."""
    g, b = setup(n=4)
    put(b, 0, back(g, 1, 0), speed=40)
    put(b, 1, back(g, 0, 1), speed=0)  # live, front-left: the Ram card's target
    put(b, 2, back(g, 1, 1), speed=0)
    put(b, 3, back(g, 2, 1), speed=0)
    s = b.car(2, out=True).car(3, out=True).build()
    choose(s, {0: RAM, 1: ACC})
    rolls: list[tuple[int, int]] = []
    for _ in range(6):
        while s.is_chance_node():
            rolls.append(chance(s)[1:])  # type: ignore[arg-type]
            force(s, [0])
        if 0 not in s.current_players():
            break
        legal = s.legal_actions(0)
        assert set(legal) <= {ram(FL), ram(FWD), ram(FR)}
        # take the forced rear-end ram of the wreck ahead when offered
        act(s, ram(FWD) if ram(FWD) in legal else ram(FL))
    # the card's sideswipe (target 2 dice, rammer 1) and the forced ram of a wreck (2, 0)
    assert sorted(rolls) == [(0, 1), (0, 2), (1, 2)]
    assert s.cars[0].square == back(g, 1, 0)


# ====================================================================== the pit: entry
def test_pit_entry_from_a2_is_a_forward_step_that_ends_the_move() -> None:
    g, b = setup()
    put(b, 0, 48, speed=40)  # A1: not an entry in the basic game
    put(b, 1, back(g, 1, 0), speed=40)
    s = b.build()
    choose(s, {0: BRAKE, 1: ACC})
    act(s, A(K.BRAKE, 10))
    assert A(K.ENTER_PIT, 0) not in s.legal_actions(0)
    act(s, step(FWD))
    assert s.cars[0].square == A2
    assert A(K.ENTER_PIT, 0) in s.legal_actions(0)
    act(s, A(K.ENTER_PIT, 0))
    assert s.cars[0].in_pit
    assert s.occupant(A2) is None
    assert decision(s) == (DecisionKind.SHOP, (0,))  # 30 mph at A2: no hazard card
    act(s, A(K.SHOP, ShopItem.DONE))
    assert s.cars[0].in_pit
    assert s.cars[0].speed == 0
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))  # seat 0's move ended


def test_pit_entry_above_safe_speed_draws_one_hazard_card_per_10_mph_over() -> None:
    g, b = setup()
    put(b, 0, 46, speed=50)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.car(0, luck=0).build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), step(FWD), step(FWD), step(FWD), A(K.ENTER_PIT, 0))
    cc, b10 = hazard_index(g, "Close Call"), hazard_index(g, "Brake 10")
    assert chance(s)[:2] == ("hazard", 0)
    force(s, [cc])
    assert chance(s)[:2] == ("hazard", 0)  # 50 mph at a 30 mph opening: two cards
    force(s, [b10])
    assert decision(s) == (DecisionKind.SHOP, (0,))
    assert s.hazard_discard[cc] == 1 and s.hazard_discard[b10] == 1


def test_skid_at_the_pit_entrance_hits_the_pit_wall_for_three_dice() -> None:
    g, b = setup()
    put(b, 0, 47, speed=40)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.car(0, luck=0).build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), step(FWD), step(FWD), A(K.ENTER_PIT, 0))
    force(s, [hazard_index(g, "Skid")])
    assert chance(s) == ("dice", 0, 3)
    force(s, [1])
    assert s.cars[0].max_speed == 130
    assert s.cars[0].in_pit
    assert decision(s) == (DecisionKind.SHOP, (0,))


# ====================================================================== the pit: the shop
def enter_and_shop(g: Game, b: PositionBuilder, max_speed: int = 140) -> State:
    """Seat 0 enters the pit at A2 at 30 mph; stops at its first shop decision."""
    put(b, 0, A2, speed=30, max_speed=max_speed)
    put(b, 1, back(g, 1, 0), speed=40)
    s = b.build()
    choose(s, {0: BRAKE, 1: ACC})
    act(s, A(K.BRAKE, 10))  # 20 mph: no hazard card at the 30 mph opening
    act(s, A(K.ENTER_PIT, 0))
    assert decision(s) == (DecisionKind.SHOP, (0,))
    return s


def test_pit_shop_fifteen_points_one_purchase_per_decision() -> None:
    g, b = setup()
    s = enter_and_shop(g, b, max_speed=100)
    assert s.decision.points == 15
    act(s, A(K.SHOP, ShopItem.REPAIR))
    assert decision(s) == (DecisionKind.SHOP, (0,))
    assert s.decision.points == 14
    assert s.cars[0].max_speed == 110


def test_pit_shop_spends_at_most_15_points() -> None:
    g, b = setup()
    chicken = hazard_index(g, "Chicken")
    b.car(0, lunacies=["Chicken"], chips=(1, 1, 1))
    s = enter_and_shop(g, b, max_speed=30)
    for _ in range(11):
        act(s, A(K.SHOP, ShopItem.REPAIR))
    assert s.cars[0].max_speed == 140
    assert s.decision.points == 4
    legal = s.legal_actions(0)
    assert A(K.SHOP, ShopItem.GADGET) not in legal  # costs 5
    assert A(K.COUNSEL, chicken) not in legal  # costs 5
    for _ in range(4):
        act(s, A(K.SHOP, ShopItem.OIL))
    assert s.cars[0].chips == [1, 5, 1]
    assert s.decision_kind() is not DecisionKind.SHOP  # all 15 points spent
    assert s.cars[0].lunacies == [chicken]


def test_pit_repair_adds_10_max_speed_for_1_point_never_above_140() -> None:
    g, b = setup()
    s = enter_and_shop(g, b, max_speed=120)
    act(s, A(K.SHOP, ShopItem.REPAIR), A(K.SHOP, ShopItem.REPAIR))
    assert s.cars[0].max_speed == 140
    assert s.decision.points == 13
    assert A(K.SHOP, ShopItem.REPAIR) not in s.legal_actions(0)


def test_pit_gadget_costs_5_draw_two_keep_one_other_to_bottom_queue() -> None:
    g, b = setup()
    s = enter_and_shop(g, b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    armor, tires = gadget_index(g, "Armor Plating"), gadget_index(g, "Racing Tires")
    assert chance(s)[:2] == ("gadget", 0)
    force(s, [armor])
    assert chance(s)[:2] == ("gadget", 0)
    force(s, [tires])
    assert decision(s) == (DecisionKind.KEEP_GADGET, (0,))
    assert sorted(s.legal_actions(0)) == [A(K.KEEP_GADGET, armor), A(K.KEEP_GADGET, tires)]
    act(s, A(K.KEEP_GADGET, tires))
    assert s.cars[0].gadgets == [tires]
    assert s.gadget_bottom == [[armor, 0]]
    assert decision(s) == (DecisionKind.SHOP, (0,))
    assert s.decision.points == 10


def test_pit_gadget_with_one_card_left_takes_it() -> None:
    g, b = setup()
    last = gadget_index(g, "Roll Cage")
    b.car(1, spent=[c.name for c in g.decks.gadgets if c.name != "Roll Cage"])
    assert b.to_dict()["gadget_top"] == [last]
    s = enter_and_shop(g, b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    force(s, [last])
    assert s.cars[0].gadgets == [last]
    assert s.gadget_top == [] and s.gadget_bottom == []
    assert decision(s) == (DecisionKind.SHOP, (0,))
    assert s.decision.points == 10


def test_pit_gadget_not_for_sale_when_none_left() -> None:
    g, b = setup()
    b.car(1, spent=[c.name for c in g.decks.gadgets])
    assert b.to_dict()["gadget_top"] == []
    s = enter_and_shop(g, b)
    assert A(K.SHOP, ShopItem.GADGET) not in s.legal_actions(0)
    assert A(K.SHOP, ShopItem.REPAIR) not in s.legal_actions(0)  # max already 140
    assert A(K.SHOP, ShopItem.DONE) in s.legal_actions(0)


def test_pit_chip_costs_1_never_above_8_held_only_while_supply_has_one() -> None:
    g, b = setup()
    b.car(0, chips=(3, 3, 1))
    d = b.to_dict()
    other = d["cars"][1]["chips"]
    b.car(1, chips=(other[0] + d["supply"][0], other[1], other[2]))  # no tacks left
    assert b.to_dict()["supply"][0] == 0
    s = enter_and_shop(g, b)
    legal = s.legal_actions(0)
    assert A(K.SHOP, ShopItem.TACKS) not in legal
    assert A(K.SHOP, ShopItem.OIL) in legal and A(K.SHOP, ShopItem.GLUE) in legal
    glue_supply = s.supply[2]
    act(s, A(K.SHOP, ShopItem.GLUE))
    assert s.cars[0].chips == [3, 3, 2]
    assert s.supply[2] == glue_supply - 1
    assert s.decision.points == 14
    legal = s.legal_actions(0)
    assert not {A(K.SHOP, ShopItem.TACKS), A(K.SHOP, ShopItem.OIL), A(K.SHOP, ShopItem.GLUE)} & set(
        legal
    )


def test_pit_counseling_costs_5_and_cures_a_kept_lunacy() -> None:
    g, b = setup()
    chicken = hazard_index(g, "Chicken")
    b.car(0, lunacies=["Chicken"])
    s = enter_and_shop(g, b)
    assert A(K.COUNSEL, chicken) in s.legal_actions(0)
    act(s, A(K.COUNSEL, chicken))
    assert s.cars[0].lunacies == []
    assert s.hazard_discard[chicken] == 1
    assert s.decision.points == 10


def test_pit_done_ends_shopping_unused_points_lost_speed_zero() -> None:
    g, b = setup()
    s = enter_and_shop(g, b, max_speed=100)
    act(s, A(K.SHOP, ShopItem.REPAIR), A(K.SHOP, ShopItem.DONE))
    assert s.decision_kind() is not DecisionKind.SHOP
    assert s.cars[0].speed == 0
    assert s.cars[0].max_speed == 110
    # finish the round: seat 1 moves; the next round has no shop for seat 0
    act(s, A(K.ACCELERATE, 0), step(FWD), step(FWD), step(FWD), step(FWD))
    assert s.decision_kind() is DecisionKind.CARD and s.round == 2
    choose(s, {0: ACC, 1: BRAKE})
    assert decision(s) == (DecisionKind.BRAKE, (1,))  # faster seat 1 first
    act(s, A(K.BRAKE, 10), step(FWD), step(FWD), step(FWD))
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))


def test_pit_speed_drops_to_zero_after_entering() -> None:
    g, b = setup()
    put(b, 0, 48, speed=40)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.car(0, luck=0).build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), step(FWD), A(K.ENTER_PIT, 0))
    force(s, [hazard_index(g, "Close Call")])
    act(s, A(K.SHOP, ShopItem.DONE))
    assert s.cars[0].speed == 0
    assert s.cars[0].in_pit


# ====================================================================== the pit: leaving
def test_no_rams_or_drops_in_the_pit() -> None:
    g, b = setup()
    in_pit(b, 0)
    put(b, 1, 50, speed=0)  # directly ahead of the entry opening A2
    s = b.build()
    legal = cards_of(s, 0)
    assert card(RAM) not in legal
    assert card(DROP) not in legal
    assert card(BRAKE) not in legal
    assert legal == {card(ACC)}


def test_pit_car_must_leave_playing_accelerate_charger_or_rocket() -> None:
    g, b = setup()
    charger = give_gadget(b, 0, "Charger")
    rocket = give_gadget(b, 0, "Rocket Booster")
    battering = give_gadget(b, 0, "Battering Ram")
    in_pit(b, 0)
    put(b, 1, B1 + 2, speed=0)
    s = b.build()
    assert cards_of(s, 0) == {card(ACC), A(K.PLAY_GADGET, charger), A(K.PLAY_GADGET, rocket)}
    assert A(K.PLAY_GADGET, battering) not in cards_of(s, 0)


def test_pit_accelerate_plus_zero_not_offered() -> None:
    g, b = setup()
    in_pit(b, 0)
    put(b, 1, back(g, 1, 0), speed=40)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), step(FWD), step(FWD), step(FWD), step(FWD))  # seat 1 first
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))
    legal = s.legal_actions(0)
    assert A(K.ACCELERATE, 0) not in legal
    assert A(K.ACCELERATE, 10) in legal and A(K.ACCELERATE, 20) in legal
    assert A(K.TURBO, 0) in legal


def test_leaving_the_pit_puts_the_car_on_b1_as_its_first_step() -> None:
    g, b = setup()
    in_pit(b, 0)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))
    act(s, A(K.ACCELERATE, 0))  # seat 1 stays put at 0 mph
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))
    act(s, A(K.ACCELERATE, 20))
    assert decision(s) == (DecisionKind.PIT_EXIT, (0,))
    assert s.legal_actions(0) == [A(K.EXIT_PIT, B1_IDX)]
    act(s, A(K.EXIT_PIT, B1_IDX))
    assert not s.cars[0].in_pit
    assert s.cars[0].square == B1
    assert decision(s) == (DecisionKind.STEP, (0,))  # one step left of two
    act(s, step(FWD))
    assert s.cars[0].square == 1
    assert s.decision_kind() is DecisionKind.CARD


def test_pit_car_with_exit_blocked_stays_at_zero_and_buys_nothing() -> None:
    g, b = setup()
    in_pit(b, 0)
    put(b, 1, B1, speed=0)
    s = b.car(1, out=True).build()  # a wreck on the exit square
    choose(s, {0: ACC})
    assert s.cars[0].in_pit
    assert s.cars[0].speed == 0
    assert s.decision_kind() is DecisionKind.CARD and s.round == 2
    assert cards_of(s, 0) == {card(ACC)}  # it must try again


def test_turbo_giving_plus_zero_leaves_the_car_in_the_pit() -> None:
    g, b = setup()
    in_pit(b, 0)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.car(0, luck=0).build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1
    act(s, A(K.TURBO, 0))
    assert chance(s)[:2] == ("turbo", 0)
    force(s, [turbo_index(g, "Click")])
    assert s.cars[0].in_pit
    assert s.cars[0].speed == 0
    assert s.decision_kind() is DecisionKind.CARD and s.round == 2


def test_cars_leave_the_pit_in_the_order_they_entered() -> None:
    g, b = setup()
    put(b, 0, 48, speed=20)  # slower: enters second
    put(b, 1, 108, speed=30)  # lane 1 beside A1: front-left is A2
    assert g.track.forward(108, 0)[0] == A2
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))
    act(s, A(K.ACCELERATE, 0), step(FL), A(K.ENTER_PIT, 0), A(K.SHOP, ShopItem.DONE))
    act(s, A(K.ACCELERATE, 0), step(FWD), A(K.ENTER_PIT, 0), A(K.SHOP, ShopItem.DONE))
    assert s.cars[0].in_pit and s.cars[1].in_pit
    assert s.cars[1].pit_order < s.cars[0].pit_order
    choose(s, {0: ACC, 1: ACC})
    assert s.order == [1, 0]
    # now the reverse entry order with seat numbers favouring seat 0
    g, b = setup()
    in_pit(b, 1)  # entered first
    in_pit(b, 0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    assert s.order == [1, 0]
    assert decision(s) == (DecisionKind.ACCELERATE, (1,))


def test_four_opening_pit_counter_clockwise_enters_by_a1_or_a2() -> None:
    g, b = setup(four_opening_pit=True)
    put(b, 1, back(g, 1, 0), speed=40)
    for sq, ok in ((48, True), (A2, True), (B1, False), (1, False)):
        put(b, 0, sq, speed=20)
        st = b.build()
        choose(st, {0: BRAKE, 1: ACC})
        act(st, A(K.BRAKE, 10))
        assert (A(K.ENTER_PIT, 0) in st.legal_actions(0)) is ok, sq


def test_four_opening_pit_counter_clockwise_leaves_by_b1_or_b2() -> None:
    g, b = setup(four_opening_pit=True)
    in_pit(b, 0, opening=A1_IDX)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), A(K.ACCELERATE, 10))
    assert decision(s) == (DecisionKind.PIT_EXIT, (0,))
    assert sorted(s.legal_actions(0)) == [A(K.EXIT_PIT, B1_IDX), A(K.EXIT_PIT, B2_IDX)]
    act(s, A(K.EXIT_PIT, B2_IDX))
    assert s.cars[0].square == 1 and not s.cars[0].in_pit


def test_four_opening_pit_blocked_exit_leaves_by_the_other() -> None:
    g, b = setup(n=3, four_opening_pit=True)
    in_pit(b, 0)
    put(b, 1, back(g, 1, 0), speed=0)
    put(b, 2, B1, speed=0)
    s = b.car(2, out=True).build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), A(K.ACCELERATE, 10))
    assert s.legal_actions(0) == [A(K.EXIT_PIT, B2_IDX)]


def test_four_opening_pit_only_clockwise_car_enters_on_b_side_and_leaves_on_a_side() -> None:
    g, b = setup(four_opening_pit=True)
    put(b, 1, back(g, 1, 0), speed=40)
    for sq, ok in ((1, True), (B1, True), (A2, False), (48, False)):
        put(b, 0, sq, speed=20, facing=1)
        s = b.build()
        st = s.clone()
        choose(st, {0: BRAKE, 1: ACC})
        act(st, A(K.BRAKE, 10))
        assert (A(K.ENTER_PIT, 0) in st.legal_actions(0)) is ok, sq
    g, b = setup(four_opening_pit=True)
    in_pit(b, 0, opening=B2_IDX, facing=1)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0))
    act(s, A(K.ACCELERATE, 10))
    assert decision(s) == (DecisionKind.PIT_EXIT, (0,))
    assert sorted(s.legal_actions(0)) == [A(K.EXIT_PIT, A1_IDX), A(K.EXIT_PIT, A2_IDX)]


def test_four_opening_pit_basic_game_has_one_entry_and_one_exit() -> None:
    g, b = setup()
    in_pit(b, 0, opening=A2_IDX)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    act(s, A(K.ACCELERATE, 0), A(K.ACCELERATE, 10))
    assert s.legal_actions(0) == [A(K.EXIT_PIT, B1_IDX)]


# ====================================================================== laps through the pit
def test_counter_clockwise_pass_through_the_pit_counts_as_crossing_the_line() -> None:
    g, b = setup()
    in_pit(b, 0, laps=1)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    assert s.laps(0) == 1
    choose(s, {0: ACC, 1: ACC})
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))  # further ahead: acts first
    act(s, A(K.ACCELERATE, 10), A(K.EXIT_PIT, B1_IDX))
    assert s.cars[0].square == B1
    assert s.laps(0) == 2
    assert s.laps_required(0) == 3
    assert not s.is_terminal()


def test_pit_pass_completing_last_lap_owes_one_more_lap_won_only_on_track() -> None:
    g, b = setup()
    in_pit(b, 0, laps=2)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    choose(s, {0: ACC, 1: ACC})
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))
    act(s, A(K.ACCELERATE, 10), A(K.EXIT_PIT, B1_IDX))
    assert s.laps(0) == 3
    assert s.laps_required(0) == 4
    assert not s.is_terminal()
    assert s.winner is None
    # next lap, crossing the line on the track wins
    act(s, A(K.ACCELERATE, 0))  # seat 1
    s2 = s.clone()
    assert s2.decision_kind() is DecisionKind.CARD
    s2 = moved(s2, 0, 51, speed=10, laps=3)
    choose(s2, {0: ACC, 1: ACC})
    act(s2, A(K.ACCELERATE, 0), step(FWD))
    assert s2.is_terminal()
    assert s2.winner == 0


def test_clockwise_pass_through_the_pit_counts_no_lap() -> None:
    g, b = setup(four_opening_pit=True)
    in_pit(b, 0, opening=B1_IDX, facing=1, laps=2)
    put(b, 1, back(g, 1, 0), speed=0)
    s = b.build()
    assert s.laps(0) == 2
    choose(s, {0: ACC, 1: ACC})
    assert decision(s) == (DecisionKind.ACCELERATE, (0,))
    act(s, A(K.ACCELERATE, 10), A(K.EXIT_PIT, A1_IDX))
    assert s.cars[0].square == 48
    assert s.laps(0) == 2
    assert s.laps_required(0) == 3


# ====================================================================== Turn Around
def test_turn_around_card_not_offered_without_the_option() -> None:
    g, b = setup()
    put(b, 0, back(g, 0, 3), speed=50)
    s = b.build()
    assert card(TA) not in cards_of(s, 0)
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 0, 3), speed=50)
    s = b.build()
    assert card(TA) in cards_of(s, 0)


def test_u_turn_goes_to_parallel_square_of_other_edge_lane_facing_flips_speed_10() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 0, 5), speed=40)
    put(b, 1, back(g, 1, 11), speed=0)
    s = b.car(0, luck=0).build()
    choose(s, {0: TA, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1 (Accelerate 4 acts before Turn Around 5)
    assert decision(s) == (DecisionKind.TURN_AROUND, (0,))
    assert A(K.TURN_AROUND, 0) in s.legal_actions(0)
    act(s, A(K.TURN_AROUND, 0))
    # a 10 mph curve taken at 40 mph: three hazard cards
    for name in ("Close Call", "Brake 10", "Brake 20"):
        assert chance(s)[:2] == ("hazard", 0)
        force(s, [hazard_index(g, name)])
    assert not s.is_chance_node()
    assert s.cars[0].square == back(g, 2, 5)
    assert s.cars[0].facing == 1
    assert s.cars[0].speed == 10
    assert s.decision_kind() is DecisionKind.CARD and s.round == 2  # it moves no further


def test_u_turn_from_outside_lane_to_inside_lane() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 2, 4), speed=10)
    put(b, 1, back(g, 1, 11), speed=0)
    s = b.build()
    choose(s, {0: TA, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1 (Accelerate 4 acts before Turn Around 5)
    act(s, A(K.TURN_AROUND, 0))
    assert not s.is_chance_node()  # 10 mph: no hazard card
    assert s.cars[0].square == back(g, 0, 4)
    assert s.cars[0].facing == 1
    assert s.cars[0].speed == 10


def test_bootlegger_at_40_plus_one_square_forward_40_mph_curve_speed_zero() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 1, 5), speed=60)  # middle lane: no U-turn, bootlegger only
    put(b, 1, back(g, 2, 11), speed=0)
    s = b.car(0, luck=0).build()
    choose(s, {0: TA, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1 (Accelerate 4 acts before Turn Around 5)
    assert s.legal_actions(0) == [A(K.TURN_AROUND, 1)]
    act(s, A(K.TURN_AROUND, 1))
    for _ in range(2):  # 60 mph on a 40 mph curve
        assert chance(s)[:2] == ("hazard", 0)
        force(s, [hazard_index(g, "Brake 10")])
    assert not s.is_chance_node()
    assert s.cars[0].square == back(g, 1, 6)
    assert s.cars[0].facing == 1
    assert s.cars[0].speed == 0
    assert s.decision_kind() is DecisionKind.CARD and s.round == 2


def test_bootlegger_needs_40_mph() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 1, 5), speed=30)
    s = b.build()
    assert card(TA) not in cards_of(s, 0)
    s = put(b, 0, back(g, 0, 5), speed=30).build()
    s = put(b, 1, back(g, 1, 11), speed=0).build()
    choose(s, {0: TA, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1 (Accelerate 4 acts before Turn Around 5)
    assert s.legal_actions(0) == [A(K.TURN_AROUND, 0)]


def test_turn_around_chips_met_apply_in_the_final_square() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 0, 5), speed=10)
    put(b, 1, back(g, 1, 11), speed=0)
    middle, final = back(g, 1, 5), back(g, 2, 5)
    s = lay_chip(b, middle, 0).build()  # tacks crossed on the way
    tacks_supply = s.supply[0]
    choose(s, {0: TA, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1 (Accelerate 4 acts before Turn Around 5)
    act(s, A(K.TURN_AROUND, 0))
    assert chance(s) == ("dice", 0, 1)
    assert s.cars[0].square == final
    assert middle not in s.track_chips
    assert s.supply[0] == tacks_supply + 1
    force(s, [2])
    assert s.cars[0].max_speed == 120
    assert s.cars[0].square == final


def test_turn_around_blocked_car_moves_normally() -> None:
    g, b = setup(turn_around=True)
    put(b, 0, back(g, 0, 5), speed=30)
    put(b, 1, back(g, 1, 5), speed=0)  # blocks the U-turn; 30 mph is too slow to bootleg
    s = b.build()
    assert card(TA) in cards_of(s, 0)
    choose(s, {0: TA, 1: ACC})
    act(s, A(K.ACCELERATE, 0))  # seat 1 (Accelerate 4 acts before Turn Around 5)
    assert decision(s) == (DecisionKind.STEP, (0,))
    act(s, step(FWD), step(FWD), step(FWD))
    assert s.cars[0].square == back(g, 0, 8)
    assert s.cars[0].facing == 0
    assert s.cars[0].speed == 30
