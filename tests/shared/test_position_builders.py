"""The public position builders of both games: each part lands where asked, counts stay
conserved, and a position that breaks an invariant is refused with a typed error."""

from __future__ import annotations

import json
import math

import pytest

from lunatix_env.rules import Action, ActionKind, Card, DecisionKind
from lunatix_env.rules import Game as LGame
from lunatix_env.rules import PositionBuilder as LBuilder
from ryderz_env.rules import Character, PieceKind, Pose, Prizm
from ryderz_env.rules import DecisionKind as RDecision
from ryderz_env.rules import Game as RGame
from ryderz_env.rules import PositionBuilder as RBuilder
from ryderz_env.rules.builder import LEFT, NOW, OLDER, PREVIOUS, RIGHT, hard, soft, straight
from tabletop.errors import InvalidStateError


# ------------------------------------------------------------------ Lunatix Loop
@pytest.fixture(scope="module")
def lgame() -> LGame:
    return LGame(num_players=3)


def test_lunatix_car_by_lane_row_and_lap(lgame: LGame) -> None:
    tr = lgame.track
    s = LBuilder(lgame).car(1, lane=2, row=10, lap=2, speed=60, facing=1).build()
    car = s.cars[1]
    assert car.square == tr.spec.lanes[2][10]
    assert car.u == car.best_u == tr.s[car.square] + 2 * tr.length
    assert s.laps(1) == 2 and car.facing == 1 and car.speed == 60


def test_lunatix_a_car_on_the_grid_has_not_crossed_the_line(lgame: LGame) -> None:
    tr = lgame.track
    last = len(tr.spec.lanes[1]) - 1
    s = LBuilder(lgame).car(0, lane=1, row=last).build()
    assert s.cars[0].u == tr.s[s.cars[0].square] - tr.length < 0
    assert s.laps(0) == 0


def test_lunatix_the_position_is_a_round_reveal(lgame: LGame) -> None:
    s = LBuilder(lgame).round(7).build()
    assert s.round == 7 and s.decision_kind() is DecisionKind.CARD
    assert s.current_players() == (0, 1, 2)
    card = Action(ActionKind.CARD, Card.ACCELERATE)
    s.apply_actions(dict.fromkeys(range(3), card))
    assert s.decision_kind() is not DecisionKind.CARD  # the engine plays on from it


def test_lunatix_chips_come_from_the_supply(lgame: LGame) -> None:
    before = LBuilder(lgame).build()
    b = LBuilder(lgame).car(0, chips=(3, 2, 1)).chip(lane=0, row=5, kind="glue")
    s = b.build()
    assert s.cars[0].chips == [3, 2, 1]
    square = lgame.track.spec.lanes[0][5]
    assert s.track_chips == {square: 2}
    held_before = sum(before.cars[0].chips[k] for k in range(3))
    assert sum(s.supply) == sum(before.supply) + held_before - 6 - 1
    with pytest.raises(InvalidStateError, match="the supply has"):
        LBuilder(lgame).car(0, chips=(99, 0, 0))
    with pytest.raises(InvalidStateError, match="already holds a chip"):
        b.chip(lane=0, row=5, kind="oil")
    with pytest.raises(InvalidStateError, match="unknown chip kind"):
        b.chip(lane=0, row=6, kind="sand")


def test_lunatix_gadgets_by_name_move_out_of_the_deck(lgame: LGame) -> None:
    names = [c.name for c in lgame.decks.gadgets]
    b = LBuilder(lgame).car(0, gadgets=["Rocket Booster", "Charger"], spent=["Roll Cage"])
    s = b.build()
    assert s.cars[0].gadgets == sorted([names.index("Rocket Booster"), names.index("Charger")])
    assert s.cars[0].spent == [names.index("Roll Cage")]
    assert names.index("Charger") not in s.gadget_top
    with pytest.raises(InvalidStateError, match="already held"):
        b.car(1, gadgets=["Charger"])
    b.car(0, gadgets=[])  # returned to the deck: another car may hold it now
    assert b.car(1, gadgets=["Charger"]).build().cars[1].gadgets == [names.index("Charger")]
    with pytest.raises(InvalidStateError, match="unknown gadget"):
        b.car(1, gadgets=["Jetpack"])


def test_lunatix_lunacies_come_from_the_hazard_deck(lgame: LGame) -> None:
    hazards = [h.name for h in lgame.decks.hazard]
    i = hazards.index("Tunnel Vision")
    s = LBuilder(lgame).car(2, lunacies=["Tunnel Vision"]).build()
    assert s.cars[2].lunacies == [i] and s.hazard_deck[i] == lgame.decks.hazard[i].count - 1
    with pytest.raises(InvalidStateError, match="unknown lunacy 'Skid'"):
        LBuilder(lgame).car(2, lunacies=["Skid"])
    with pytest.raises(InvalidStateError, match="no 'Tunnel Vision' card is left"):
        LBuilder(lgame).car(0, lunacies=["Tunnel Vision"]).car(1, lunacies=["Tunnel Vision"])


def test_lunatix_cars_in_the_pit_leave_in_order(lgame: LGame) -> None:
    tr = lgame.track
    s = LBuilder(lgame).pit(2, "B1").pit(0, "A2", lap=1).build()
    assert s.cars[2].in_pit and s.cars[0].in_pit and not s.cars[1].in_pit
    assert s.cars[2].pit_opening == tr.opening_index["B1"]
    assert (s.cars[2].pit_order, s.cars[0].pit_order, s.pit_counter) == (1, 2, 2)
    assert s.laps(0) == 1
    with pytest.raises(InvalidStateError, match="unknown opening 'Z9'"):
        LBuilder(lgame).pit(0, "Z9")


def test_lunatix_discard_moves_cards_from_the_deck_to_its_discard(lgame: LGame) -> None:
    hazards = [h.name for h in lgame.decks.hazard]
    skid, cc = hazards.index("Skid"), hazards.index("Close Call")
    s = LBuilder(lgame).discard("hazard", "Skid").discard("hazard", "Close Call", 1).build()
    assert s.hazard_deck[skid] == 0 and s.hazard_discard[skid] == lgame.decks.hazard[skid].count
    assert s.hazard_discard[cc] == 1 and s.hazard_deck[cc] == lgame.decks.hazard[cc].count - 1
    assert sum(s.hazard_deck) + sum(s.hazard_discard) == sum(c.count for c in lgame.decks.hazard)
    turbos = [t.name for t in lgame.decks.turbo]
    s = LBuilder(lgame).discard("turbo", "+20").build()
    assert s.turbo_deck[turbos.index("+20")] == 0 and s.turbo_discard[turbos.index("+20")] > 0
    s.apply_actions({seat: Action(ActionKind.CARD, Card.ACCELERATE) for seat in range(3)})
    assert s.decision_kind() is not DecisionKind.CARD  # the engine plays on from it
    b = LBuilder(lgame)
    with pytest.raises(InvalidStateError, match="unknown deck 'gadget'"):
        b.discard("gadget", "Charger")
    with pytest.raises(InvalidStateError, match="unknown hazard card 'Jetpack'"):
        b.discard("hazard", "Jetpack")
    with pytest.raises(InvalidStateError, match=r"discard\('hazard', 'Skid'\).count"):
        b.discard("hazard", "Skid", -1)
    with pytest.raises(InvalidStateError, match="cards are left in the hazard deck, 99 asked"):
        b.discard("hazard", "Skid", 99)
    assert b.build().hazard_discard == [0] * len(hazards)  # a refused call changed nothing


def test_lunatix_gadget_bottom_queues_cards_from_the_top(lgame: LGame) -> None:
    names = [c.name for c in lgame.decks.gadgets]
    b = LBuilder(lgame).gadget_bottom([("Roll Cage", 1), ("Charger", 0)])
    s = b.build()
    assert s.gadget_bottom == [[names.index("Roll Cage"), 1], [names.index("Charger"), 0]]
    assert names.index("Roll Cage") not in s.gadget_top and len(s.gadget_top) == len(names) - 2
    # a new queue replaces the old one; its cards go back to the top
    s = b.gadget_bottom([("Fuzzy Dice", 2)]).build()
    assert s.gadget_bottom == [[names.index("Fuzzy Dice"), 2]]
    assert names.index("Roll Cage") in s.gadget_top
    with pytest.raises(InvalidStateError, match="already held"):
        b.car(0, gadgets=["Fuzzy Dice"])  # queued, not on the top
    with pytest.raises(InvalidStateError, match=r"gadget_bottom\[0\]: gadget 'Charger' is not"):
        LBuilder(lgame).car(0, gadgets=["Charger"]).gadget_bottom([("Charger", 1)])
    with pytest.raises(InvalidStateError, match=r"gadget_bottom\[1\]: expected a seat 0..2"):
        LBuilder(lgame).gadget_bottom([("Charger", 1), ("Roll Cage", 3)])
    with pytest.raises(InvalidStateError, match=r"gadget_bottom\[0\]: unknown gadget"):
        LBuilder(lgame).gadget_bottom([("Jetpack", 0)])
    with pytest.raises(InvalidStateError, match=r"gadget_bottom\[0\]: expected a \(name, seat\)"):
        LBuilder(lgame).gadget_bottom(["Charger"])


def test_lunatix_an_out_car_chooses_no_card(lgame: LGame) -> None:
    s = LBuilder(lgame).car(1, out=True).build()
    assert s.cars[1].out and s.cars[1].max_speed == 0 and s.current_players() == (0, 2)
    b = LBuilder(lgame)
    for seat in range(3):
        b.car(seat, out=True)
    with pytest.raises(InvalidStateError, match="every car is out"):
        b.build()


@pytest.mark.parametrize(
    "build,match",
    [
        (lambda b: b.car(0, lane=0, row=3).car(1, lane=0, row=3), r"cars\[1\].square"),
        (lambda b: b.car(0, speed=200, max_speed=100), r"cars\[0\].speed"),
        (lambda b: b.car(0, speed=35), "multiple"),
        (lambda b: b.car(0, lane=1, row=999), r"car\(0\).row"),
        (lambda b: b.car(0, lane=1), "give lane and row together"),
        (lambda b: b.car(0, lane=1, row=2, lap=99), r"car\(0\).lap"),
        (lambda b: b.car(7), "expected a seat"),
        (lambda b: b.car(True), "expected a seat"),
        (lambda b: b.car(0, chips=(1, 2)), r"car\(0\).chips"),
        (lambda b: b.round(-1), "round"),
    ],
    ids=["two-cars-one-square", "over-max", "off-step", "row", "lane-alone", "lap", "seat",
         "bool-seat", "chips-shape", "round"],
)  # fmt: skip
def test_lunatix_bad_positions_are_typed_errors(lgame: LGame, build, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        build(LBuilder(lgame)).build()


def test_lunatix_built_positions_round_trip(lgame: LGame) -> None:
    b = LBuilder(lgame, seed=5).car(0, lane=1, row=3, speed=30, gadgets=["Fuzzy Dice"])
    s = b.build()
    again = lgame.state_from_dict(json.loads(json.dumps(s.to_dict())))
    assert again.to_dict() == s.to_dict() == b.build().to_dict()
    s.cars[0].speed = 0  # a built state is a state of its own
    assert b.build().cars[0].speed == 30


# ------------------------------------------------------------------ Lazer Ryderz
@pytest.fixture(scope="module")
def rgame() -> RGame:
    return RGame(num_players=2)


def test_ryderz_lazer_from_a_pose_is_a_chain(rgame: RGame) -> None:
    start = Pose(-10.0, -10.0, 0.0)
    s = RBuilder(rgame).lazer(0, [straight(3), soft(2, LEFT), hard(1, RIGHT)], start=start).build()
    p = s.players[0]
    assert [(e.kind, e.gear, e.side) for e in p.lazer] == [
        (PieceKind.STRAIGHT, 3, 0),
        (PieceKind.SOFT, 2, LEFT),
        (PieceKind.HARD, 1, RIGHT),
    ]
    assert p.lazer[0].pose == start
    assert all(b.pose == a.exit for a, b in zip(p.lazer, p.lazer[1:], strict=False))
    assert p.head == p.lazer[-1].exit
    owned = rgame.supply
    assert p.supply[2][PieceKind.STRAIGHT] == owned[2][PieceKind.STRAIGHT] - 1
    assert p.supply[0][PieceKind.HARD] == owned[0][PieceKind.HARD] - 1


def test_ryderz_lazer_from_a_launch_point(rgame: RGame) -> None:
    s = RBuilder(rgame).lazer(1, [straight(2)], start=40.0, previous=1).build()
    lazer = s.players[1].lazer
    assert lazer[0].is_launch and lazer[0].t == 40.0
    assert lazer[1].pose == lazer[0].exit and lazer[1].turn == PREVIOUS
    s = RBuilder(rgame).launch_point(1, 12.5).build()
    assert [e.is_launch for e in s.players[1].lazer] == [True]


def test_ryderz_previous_marks_the_newest_pieces(rgame: RGame) -> None:
    s = (
        RBuilder(rgame)
        .lazer(0, [straight(g) for g in (1, 2, 3)], start=Pose(-9, -9, 0), previous=2)
        .build()
    )
    assert [e.turn for e in s.players[0].lazer] == [OLDER, PREVIOUS, PREVIOUS]
    assert s.players[0].prev_turn == PREVIOUS and s.turn.id == s.turn_id


def test_ryderz_the_position_is_the_movers_first_decision(rgame: RGame) -> None:
    s = RBuilder(rgame, mover=1).gear(1, 4).build()
    assert s.turn.seat == 1 and s.decision_kind() is RDecision.MOVE
    assert s.players[1].gear == 4
    assert RBuilder(rgame, mover=0).build().players[0].gear == 3  # the mover's default


def test_ryderz_lazer_with_a_turn_id_per_piece(rgame: RGame) -> None:
    pieces = [straight(1), hard(2, LEFT), hard(1, LEFT)]
    s = RBuilder(rgame).lazer(0, pieces, start=Pose(-3, -1, 0), turns=[5, 7, PREVIOUS]).build()
    assert [e.turn for e in s.players[0].lazer] == [5, 7, PREVIOUS]
    s = RBuilder(rgame).lazer(1, [straight(2)] * 2, start=40.0, turns=[1, 1]).build()
    assert [e.turn for e in s.players[1].lazer] == [0, 1, 1]  # the Launch Point is turn 0
    b = RBuilder(rgame)
    with pytest.raises(InvalidStateError, match="previous or turns, not both"):
        b.lazer(0, pieces, start=Pose(0, 0, 0), previous=1, turns=[5, 6, 7])
    with pytest.raises(InvalidStateError, match="2 turn ids for 3 pieces"):
        b.lazer(0, pieces, start=Pose(0, 0, 0), turns=[5, 6])
    with pytest.raises(InvalidStateError, match=r"turns\[2\]: turn 6 after turn 7"):
        b.lazer(0, pieces, start=Pose(0, 0, 0), turns=[5, 7, 6])
    with pytest.raises(InvalidStateError, match=r"turns\[0\]: expected a turn id 1..9"):
        b.lazer(0, pieces, start=Pose(0, 0, 0), turns=[0, 7, 8])
    with pytest.raises(InvalidStateError, match=r"turns\[2\]: expected a turn id 1..9"):
        b.lazer(0, pieces, start=Pose(0, 0, 0), turns=[5, 7, NOW])
    with pytest.raises(InvalidStateError, match=r"lazer\(0\).turns: expected turn ids"):
        b.lazer(0, pieces, start=Pose(0, 0, 0), turns=7)


def test_ryderz_prizms(rgame: RGame) -> None:
    prizms = [Prizm(1.0, 2.0), Prizm(-3.0, 0.5, owner=1)]
    s = RBuilder(rgame, mover=0).prizms(prizms).build()
    assert s.prizms == prizms and s.score(1) == 1


def test_ryderz_large_table_bonus_only_while_a_launch_point() -> None:
    g = RGame(num_players=2, table="large")
    assert RBuilder(g).build().decision_kind() is RDecision.BONUS
    s = RBuilder(g).lazer(0, [straight(2)], start=10.0).build()
    assert s.decision_kind() is RDecision.MOVE


def test_ryderz_powers(rgame: RGame) -> None:
    g = RGame(num_players=2, powers=True)
    sheriff = g.rules.characters.index(Character.SUPER_SHERIFF)
    assert RBuilder(g, mover=sheriff).build().decision_kind() is RDecision.POWER
    s = RBuilder(g, mover=sheriff).power_ready(sheriff, False).build()
    assert s.decision_kind() is RDecision.MOVE and not s.players[sheriff].power_ready


@pytest.mark.parametrize(
    "build,match",
    [
        (lambda b: b.lazer(0, [straight(1)] * 9, start=Pose(0, 0, 0)), "more gear 1 straight"),
        (lambda b: b.lazer(0, [("straight", 1, 0)], start=Pose(0, 0, 0)), "no such piece"),
        (lambda b: b.lazer(0, [soft(1, 0)], start=Pose(0, 0, 0)), "no such piece"),
        (lambda b: b.lazer(0, [], start="edge"), "start is a Pose"),
        (lambda b: b.lazer(0, [straight(1)], start=Pose(0, 0, 0), previous=2), "previous=2"),
        (lambda b: b.lazer(5, [], start=1.0), "expected a seat"),
        (lambda b: b.prizms([Prizm(500.0, 0.0)]), "wholly on the table"),
        (lambda b: b.gear(0, 9), r"players\[0\].gear"),
        (lambda b: b.prizms([Prizm(0, 0, 1)] * 3), "has not won"),
        (lambda b: b.lazer(0, [straight(3)], start=Pose(16, 0, 0)), "wholly on the table"),
    ],
    ids=["supply", "tuple-piece", "curve-side", "start", "previous", "seat", "prizm-off",
         "gear", "won", "piece-off"],
)  # fmt: skip
def test_ryderz_bad_positions_are_typed_errors(rgame: RGame, build, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        build(RBuilder(rgame)).build()


def test_ryderz_pieces_off_the_table_only_where_a_phantom_turn_could_keep_them() -> None:
    g = RGame(num_players=4, powers=True)  # seat 3 is the Phantom Cosmonaut
    s = RBuilder(g).lazer(0, [straight(3)], start=Pose(16, 0, 0)).build()
    assert not g.table.holds(*_shape(s.players[0].lazer[0]), 1e-6)
    two = RGame(num_players=2, powers=True)  # no Phantom Cosmonaut seated
    with pytest.raises(InvalidStateError, match="wholly on the table"):
        RBuilder(two).lazer(0, [straight(3)], start=Pose(16, 0, 0)).build()


def _shape(e):  # noqa: ANN001, ANN202
    return e.coords, e.poly


def test_ryderz_built_positions_round_trip(rgame: RGame) -> None:
    b = RBuilder(rgame).lazer(0, [hard(2, LEFT)], start=Pose(5.0, -3.0, math.pi / 3))
    s = b.build()
    again = rgame.state_from_dict(json.loads(json.dumps(s.to_dict())))
    assert again.to_dict() == s.to_dict() == b.build().to_dict()
