"""Scenario tests for the rules of Lazer Ryderz (``shared/rules/lazer_ryderz.md``).

Each test is named after the rule it checks: Start Your Engines, the round, the turn (shift,
move, the die), scoring, crashes, respawn, running out of pieces, table modifications,
winning, Power Prizms and illegal input. Positions are built with ``ryderz_builders`` on the
36-inch round table (radius 18: seat 0 at the bottom, and in a two-player game seat 1 at the
top; with four players seats 1, 2, 3 sit left, top, right) with the launch noise off unless a
test says otherwise. Expected values are computed by hand from the config numbers.
"""

from __future__ import annotations

import copy
import json
import math

import pytest
import shapely
from ryderz_builders import (
    EAST,
    HARD,
    LAUNCH,
    NOW,
    OLD,
    PREV,
    SOFT,
    UP,
    A,
    K,
    L,
    R,
    S,
    chain,
    close_pose,
    decline,
    edited,
    engines,
    game,
    hard,
    launch_point,
    move,
    new_pieces,
    piece,
    position,
    soft,
    specs_of,
    st,
    straight_at,
    toss,
    with_lazer,
    with_prizms,
)

from ryderz_env.rules import (
    ChanceKind,
    DecisionKind,
    Game,
    IllegalActionError,
    Move,
    Outcome,
    Pose,
    Prizm,
)
from tabletop.errors import ConfigError

TIP = 0.375
LP = (LAUNCH, 0, 0)  # a Launch Point in specs_of


def eastward(g, gear: int = 3, mover: int = 0, prizms=(), **kw):
    """``mover`` about to move from (-4, 0) heading east (its previous piece a 1st-gear
    straight ending there); a straight of ``gear`` covers x in [-4, -4 + 1.5 gear]."""
    pre = straight_at(g, mover, Pose(-4.0, 0.0, EAST), 1, PREV)
    lazers = {mover: [pre], **kw.pop("lazers", {})}
    gears = {mover: gear, **kw.pop("gears", {})}
    return position(g, mover, lazers=lazers, prizms=list(prizms), gears=gears, **kw)


def straights(s, n: int) -> None:
    """The next ``n`` movers each stay in gear and go straight."""
    for _ in range(n):
        move(s, 0, Move.STRAIGHT)


def snapshot(s) -> str:
    return json.dumps(s.to_dict(), sort_keys=True)


def powers_game(first: str, second: str = "lazer_shark", **kw) -> Game:
    """Two players with Power Prizms: seat 0 plays ``first``, seat 1 ``second``."""
    return game(powers=True, characters=[first, second], **kw)


# ---------------------------------------------------------------------------- Start Your Engines
def test_engines_players_with_the_same_gear_stall_out_to_first():
    g = game(num_players=3)
    s = engines(g, [3, 3, 2])
    assert [p.gear for p in s.players] == [1, 1, 2]
    assert [p.stalled for p in s.players] == [True, True, False]
    # marker left of seat 2 (the highest gear): the first seat clockwise from it is seat 0
    assert s.marker == 0
    assert s.order == [2, 0, 1]
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (2,)


def test_engines_launch_points_land_at_the_chosen_positions_within_reach():
    g = game(num_players=2)
    s = engines(g, [3, 2], [0.5, -1.0])
    for seat, x in enumerate([0.5, -1.0]):
        lo, hi = g.table.reach(seat, 2)
        assert hi - lo == pytest.approx(g.table.perimeter / 4)  # 1/4 of the perimeter
        lp = s.players[seat].lazer[0]
        assert lp.is_launch and lp.t == pytest.approx(lo + (x + 1) / 2 * (hi - lo))
        assert close_pose(s.players[seat].head, lp.exit)


def test_engines_all_stall_redo_then_deal_gears_after_max_redos():
    g = game(num_players=2)
    assert g.rules.max_redos == 3
    s = g.new_initial_state(0)
    for attempt in range(1, 4):  # three redos
        s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.0)})
        assert s.decision_kind() is DecisionKind.ENGINES
        assert s.current_players() == (0, 1)
        assert s.decision.attempt == attempt
        assert all(p.lazer == [] and p.head is None for p in s.players)  # nothing placed
    s.apply_actions({0: A.launch(4, 0.5), 1: A.launch(4, -0.5)})  # all stall a 4th time
    assert s.chance_kind() is ChanceKind.DEAL_GEARS
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 5 * 4  # ordered pairs of distinct gears out of 1..5
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert len({p for _, p in outcomes}) == 1
    i = next(i for i, _ in outcomes if g.gear_deals[i] == (2, 5))
    s.apply_chance(i)
    assert [p.gear for p in s.players] == [2, 5]
    assert not any(p.stalled for p in s.players)
    assert s.marker == 0  # left of seat 1 (gear 5)
    assert s.order == [1, 0]
    # the Launch Points go where the last attempt put them
    for seat, x in enumerate([0.5, -0.5]):
        lo, hi = g.table.reach(seat, 2)
        assert s.players[seat].lazer[0].t == pytest.approx(lo + (x + 1) / 2 * (hi - lo))


def test_engines_redo_only_when_all_stall():
    g = game(num_players=3)
    s = g.new_initial_state(0)
    s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.0), 2: A.launch(2, 0.0)})
    assert s.decision_kind() is DecisionKind.ENGINES and s.decision.attempt == 1
    s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.0), 2: A.launch(5, 0.0)})
    assert s.decision_kind() is DecisionKind.MOVE
    assert [p.gear for p in s.players] == [1, 1, 5]


def test_engines_two_pairs_all_stall():
    g = game(num_players=4)
    s = g.new_initial_state(0)
    s.apply_actions(
        {0: A.launch(2, 0.0), 1: A.launch(3, 0.0), 2: A.launch(2, 0.0), 3: A.launch(3, 0.0)}
    )
    assert s.decision_kind() is DecisionKind.ENGINES and s.decision.attempt == 1


def test_tie_breaker_marker_goes_left_of_the_non_stalled_player_in_the_highest_gear():
    g = game(num_players=3)
    # seats 0 and 2 stall out to 1st; seat 1 chose 1st: all in gear 1, seat 1 did not stall
    s = engines(g, [3, 1, 3])
    assert [p.gear for p in s.players] == [1, 1, 1]
    assert s.marker == 2
    assert s.order == [2, 0, 1]


def test_turn_order_highest_gear_first_ties_clockwise_from_the_marker():
    g = game(num_players=4)
    # seats 0 and 3 stall to 1st; seat 1 (5th) leads, so the marker sits before seat 2;
    # clockwise from it: 2, 3, 0, 1 - the tied seats 3 and 0 go in that order
    s = engines(g, [2, 5, 4, 2])
    assert [p.gear for p in s.players] == [1, 5, 4, 1]
    assert s.marker == 2
    assert s.order == [1, 2, 3, 0]


def test_later_gear_changes_do_not_reorder_the_round_and_the_marker_passes_left():
    g = game(num_players=4)
    s = with_prizms(engines(g, [2, 5, 4, 2]), [])
    seen = []
    for shift in (-1, -1, 1, 1):  # seat 1 -> 4, seat 2 -> 3, seat 3 -> 2, seat 0 -> 2
        seen.append(s.current_players()[0])
        move(s, shift, Move.STRAIGHT)
        assert s.order == [1, 2, 3, 0]
    assert seen == [1, 2, 3, 0]
    assert [p.gear for p in s.players] == [2, 4, 3, 2]
    # To Be Continued: the marker passes one seat to the left; round 2 is ordered anew,
    # ties (seats 0 and 3 in gear 2) clockwise from the marker (now before seat 3)
    assert s.round == 2
    assert s.marker == 3
    assert s.order == [1, 2, 3, 0]
    assert s.current_players() == (1,)
    straights(s, 4)
    assert s.round == 3 and s.marker == 0
    assert s.order == [1, 2, 0, 3]


# ---------------------------------------------------------------------------- shift, die
def legal_moves(s, seat):
    return {(a.shift, a.move_kind) for a in s.legal_actions(seat) if a.kind is K.MOVE}


def test_shift_limits_first_gear_cannot_shift_down():
    g = game()
    s = position(g, 0, gears={0: 1})
    shifts = {sh for sh, _ in legal_moves(s, 0)}
    assert shifts == {0, 1}
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="not legal"):
        s.apply_action(A.move(-1, Move.STRAIGHT))
    assert snapshot(s) == before


def test_shift_limits_top_gear_cannot_shift_up():
    g = game()
    s = position(g, 0, gears={0: 5})
    assert {sh for sh, _ in legal_moves(s, 0)} == {-1, 0}
    with pytest.raises(IllegalActionError):
        s.apply_action(A.move(1, Move.STRAIGHT))


def test_shift_and_move_choices_hard_only_in_gears_with_hard_pieces():
    g = game()
    s = position(g, 0, gears={0: 3})
    curves = [Move.STRAIGHT, Move.SOFT_LEFT, Move.SOFT_RIGHT]
    hards = [Move.HARD_LEFT, Move.HARD_RIGHT]
    expect = (
        {(-1, m) for m in curves + hards}
        | {(0, m) for m in curves + hards}
        | {(1, m) for m in curves}
    )
    assert legal_moves(s, 0) == expect  # no Power Prizms: no Waveryder moves
    with pytest.raises(IllegalActionError):
        s.apply_action(A.move(1, Move.HARD_LEFT))  # 4th gear has no hard turns


@pytest.mark.parametrize(
    "gear, mv, roll, placed, gear_after",
    [
        (3, Move.SOFT_LEFT, 3, soft(3, L), 3),  # roll = gear: the curve
        (3, Move.SOFT_LEFT, 5, soft(3, L), 3),  # roll > gear: the curve
        (3, Move.SOFT_RIGHT, 2, st(3), 3),  # roll < gear: a straight of the gear
        (3, Move.HARD_RIGHT, 1, st(3), 3),
        (3, Move.HARD_LEFT, 0, hard(3, L), 1),  # Spin Out: the curve, then down to 1st
        (2, Move.HARD_RIGHT, 2, hard(2, R), 2),
        (1, Move.HARD_LEFT, 1, hard(1, L), 1),  # in 1st every face turns
        (1, Move.SOFT_RIGHT, 0, soft(1, R), 1),
        (5, Move.SOFT_LEFT, 4, st(5), 5),
    ],
)
def test_curve_die(gear, mv, roll, placed, gear_after):
    g = game()
    s = position(g, 0, gears={0: gear})
    head = s.players[0].head
    s.apply_action(A.move(0, mv))
    assert s.chance_kind() is ChanceKind.DIE
    assert s.chance_outcomes() == [(f, pytest.approx(1 / 6)) for f in range(6)]
    s.apply_chance(roll)
    p = s.players[0]
    assert specs_of(p.lazer) == [LP, placed]
    assert close_pose(p.lazer[-1].pose, head)
    assert p.gear == gear_after
    assert close_pose(p.head, p.lazer[-1].exit)


def test_curve_die_compares_with_the_gear_after_the_shift():
    g = game()
    s = position(g, 0, gears={0: 2})
    move(s, 1, Move.SOFT_LEFT, roll=2)  # shifted up to 3rd: 2 < 3 fails
    assert specs_of(s.players[0].lazer) == [LP, st(3)]
    assert s.players[0].gear == 3


def test_straight_ahead_places_the_straight_of_the_gear_after_the_shift_without_a_roll():
    g = game()
    s = position(g, 0, gears={0: 4})
    s.apply_action(A.move(-1, Move.STRAIGHT))
    assert s.chance_kind() is None
    assert specs_of(s.players[0].lazer) == [LP, st(3)]
    assert s.players[0].supply[2][S] == 1


# ---------------------------------------------------------------------------- scoring
def test_scoring_a_neutral_recolours_slides_it_and_tosses_a_fresh_neutral():
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3), Prizm(9.0, -9.0, 1)])
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0] == Prizm(pytest.approx(0.5 - 0.75), pytest.approx(0.0, abs=1e-12), 0)
    assert s.score(0) == 1
    assert s.chance_kind() is ChanceKind.TOSS
    toss(s, (5.0, 6.0))  # clear of everything: it stays where it landed
    assert s.prizms[2] == Prizm(5.0, 6.0, -1)
    assert len(s.prizms) == 3
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (1,)


def test_scored_prizm_slides_along_a_curve_to_0_75_behind_its_exit():
    g = game()
    # a 3rd-gear soft left from (-4, 0) east: radius 4.5 / (pi / 4) = 5.7296, arc 4.5;
    # the Prizm sits on the centreline halfway (arc 2.25), the slide ends at arc 3.75
    rad = 4.5 / (math.pi / 4)

    def on_arc(d):
        return (-4.0 + rad * math.sin(d / rad), rad * (1 - math.cos(d / rad)))

    s = eastward(g, 3, prizms=[Prizm(*on_arc(2.25))])
    move(s, 0, Move.SOFT_LEFT, roll=4)
    assert specs_of(new_pieces(s, 0)) == [soft(3, L)]
    q = s.prizms[0]
    assert q.owner == 0
    assert (q.x, q.y) == pytest.approx(on_arc(3.75), abs=1e-9)


def test_scored_prizm_on_a_piece_leaving_the_table_stops_at_the_edge():
    # The rules file only says "slides ... until its centre is 0.75 behind that piece's
    # exit"; for a piece that leaves the table that spot (x = 18.25 here) is off the table.
    # The engine's stand-in: the furthest point forward that keeps the disc on the table
    # (centre within 18 - 0.75 = 17.25), found in steps of 1/256 of the piece.
    g = game()
    pre = straight_at(g, 0, Pose(13.0, 0.0, EAST), 1, PREV)
    s = position(g, 0, lazers={0: [pre]}, prizms=[Prizm(15.0, 0.0)], gears={0: 4})
    move(s, 0, Move.STRAIGHT)  # x 13 .. 19: scores, then crashes off the table
    q = s.prizms[0]
    assert q.owner == 0
    assert 17.25 - 6.0 / 256 <= q.x <= 17.25 and q.y == pytest.approx(0.0, abs=1e-12)
    assert s.players[0].lazer == []


def test_prizms_scored_by_one_piece_come_to_rest_touching_the_last_crossed_nearest_the_exit():
    # shared/rules/lazer_ryderz.md, Scoring: "Prizms scored by one piece are placed in
    # reverse order of crossing, so they lie 1.5 apart (touching), the last crossed nearest
    # the exit". The 3rd-gear straight runs x -4 .. 0.5 along y = 0 and crosses both.
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-3.0, 0.3), Prizm(-1.2, -0.3)])
    move(s, 0, Move.STRAIGHT)
    first, last = s.prizms[0], s.prizms[1]
    assert first.owner == last.owner == 0 and s.score(0) == 2
    assert (last.x, last.y) == pytest.approx((0.5 - 0.75, 0.0), abs=1e-9)
    assert (first.x, first.y) == pytest.approx((0.5 - 0.75 - 1.5, 0.0), abs=1e-6)
    assert math.hypot(last.x - first.x, last.y - first.y) >= 1.5


def test_sliding_prizm_stops_where_it_would_first_touch_another_prizm():
    # "A sliding Prizm never comes to rest overlapping another Prizm (stand-in): moving
    # along the scoring piece's centreline, it stops where it would first touch one." The
    # neutral at (-1, -1.2) lies clear of the piece (its disc ends at y = -0.45, the piece's
    # edge is y = -0.375) but within 1.5 of the centreline for x in (-1.9, -0.1).
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-3.0, 0.3), Prizm(-1.0, -1.2)])
    move(s, 0, Move.STRAIGHT)
    q, other = s.prizms[0], s.prizms[1]
    assert q.owner == 0 and other == Prizm(-1.0, -1.2, -1)  # not nudged: never touched
    assert (q.x, q.y) == pytest.approx((-1.9, 0.0), abs=1e-6)
    assert math.hypot(q.x - other.x, q.y - other.y) == pytest.approx(1.5, abs=1e-6)


def test_sliding_prizm_with_no_free_point_on_its_piece_stays_where_it_was():
    # "If no point of the piece is free, it stays where it was": neutrals 1.5 apart along
    # y = -1.2 (clear of the piece) leave every centreline point within 1.5 of one.
    g = game()
    row = [Prizm(x, -1.2) for x in (-4.0, -2.5, -1.0, 0.5)]
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3), *row])
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0] == Prizm(-1.75, 0.3, 0)
    assert s.prizms[1:5] == row


def test_seed_21_four_players_slides_no_prizm_onto_another():
    # The defect that brought in the stand-in: seeded random play (4 players, seed 21)
    # slid a Prizm scored in round 60 to 1.23 from an unscored one, discs overlapping.
    import numpy as np
    from random_play import random_step

    g = Game(num_players=4)  # the default rules, launch noise included
    rng = np.random.default_rng(21)
    s = g.new_initial_state(21)
    scored = 0
    while not s.is_terminal() and s.round <= 61:
        owners = [q.owner for q in s.prizms]
        random_step(s, rng)
        for j, q in enumerate(s.prizms[: len(owners)]):
            if q.owner != owners[j]:
                scored += 1
                for k, o in enumerate(s.prizms):
                    assert k == j or math.hypot(q.x - o.x, q.y - o.y) >= 1.5 - 1e-6, (s.round, j, k)
    assert s.round >= 60 and scored >= 5


def test_fresh_prizm_tossed_onto_a_lazer_is_nudged_clear():
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3)])
    move(s, 0, Move.STRAIGHT)
    toss(s, (-3.0, 0.2))  # on seat 0's new piece
    q = s.prizms[1]
    assert q.owner == -1
    # straight up from the piece: 0.375 + 0.75 + 0.75 = 1.875 from the centreline
    assert (q.x, q.y) == pytest.approx((-3.0, 1.875), abs=2e-3)


def test_stealing_recolours_and_recharges_the_victims_power():
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3, 1)], power_ready={0: False, 1: False})
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0] == Prizm(pytest.approx(-0.25), pytest.approx(0.0, abs=1e-12), 0)
    assert s.players[1].power_ready
    assert s.chance_kind() is None  # no neutral scored: nothing to toss
    assert s.decision_kind() is DecisionKind.POWER and s.current_players() == (1,)


def test_stealing_without_power_prizms_recharges_nothing():
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3, 1)])
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0].owner == 0
    assert not s.players[1].power_ready


def test_scored_prizm_touched_by_two_colours_stays_where_it_is():
    g = game()
    # seat 1's straight along y = 1.4 touches the disc (top at 1.05 > 1.025) and is 0.65 clear
    # of seat 0's new piece (top edge 0.375)
    other = piece(g, 1, st(5), Pose(-6.0, 1.4, EAST))
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3)], lazers={1: [other]})
    (other,) = s.players[1].lazer  # the piece as laid on the table
    assert s.locked(0) is False
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0] == Prizm(-1.75, 0.3, 0)
    assert s.locked(0)
    assert s.players[1].lazer == [other]  # no crash
    assert s.chance_kind() is ChanceKind.TOSS


# ---------------------------------------------------------------------------- crash
def victim_line(g, seat: int = 1):
    """Seat 1's Lazer along y = 0: its Launch Point on the west edge (its exit at x = -17.36,
    heading east), then A, B (2nd-gear straights x -17.36..-14.36, -14.36..-11.36) and C, D
    (3rd-gear straights x -11.36..-6.86, -6.86..-2.36); D is front-most."""
    lp = launch_point(g, seat, 0.25 * g.table.perimeter)
    return [lp, *chain(g, seat, lp.exit, [st(2), st(2), st(3), st(3)])]


def northward(g, x: float, victim, prizms=None):
    """Seat 0 about to go north from (x, -1) with a 3rd-gear straight (y -1 .. 3.5),
    crossing y = 0; it owns a Prizm far away (or ``prizms``)."""
    pre = straight_at(g, 0, Pose(x, -1.0, UP), 1, PREV)
    if prizms is None:
        prizms = [Prizm(10.0, -10.0, 0)]
    return position(g, 0, lazers={0: [pre], 1: victim}, prizms=prizms, gears={0: 3})


@pytest.mark.parametrize(
    "x, kept",
    [
        (-12.9, ["C", "D"]),  # hits B: B, A and the Launch Point go
        (-4.6, ["D"]),  # hits the front-most piece: it keeps just that
        (-11.36, ["D"]),  # hits B and C at their joint: the newest hit is C
        (-15.9, ["B", "C", "D"]),
    ],
)
def test_crash_victim_removes_newest_hit_piece_and_older_keeping_the_front(x, kept):
    g = game()
    s = northward(g, x, victim_line(g))
    victim = list(s.players[1].lazer)  # as laid on the table
    names = dict(zip("ABCD", victim[1:], strict=True))
    head1 = s.players[1].head
    move(s, 0, Move.STRAIGHT)
    v = s.players[1]
    assert v.lazer == [names[k] for k in kept]
    assert close_pose(v.head, head1)  # it plays on from its front
    removed = [e for e in victim if e not in v.lazer and not e.is_launch]
    for gear, kind in ((2, S), (3, S)):
        on_table = sum(1 for e in v.lazer if e.gear == gear and e.kind is kind)
        assert v.supply[gear - 1][kind] == 2 - on_table
    assert removed  # something went back
    # the crasher removes everything, its Launch Point too; its scored Prizm stays
    p = s.players[0]
    assert p.lazer == [] and p.head is None
    assert p.supply == [list(r) for r in g.supply]
    assert s.prizms == [Prizm(10.0, -10.0, 0)]
    assert s.decision_kind() is DecisionKind.RESPAWN and s.current_players() == (0,)


def test_crash_scored_prizm_on_the_crashers_removed_pieces_stays():
    g = game()
    victim = victim_line(g)
    # seat 0's Prizm lies on its previous piece (y -2.5 .. -1), clear of the new one
    s = northward(g, -4.6, victim, prizms=[Prizm(-4.6, -2.0, 0)])
    assert s.locked(0)
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer == []
    assert s.prizms == [Prizm(-4.6, -2.0, 0)]


def test_crash_hits_every_victim():
    g = game(num_players=3)
    one = chain(g, 1, Pose(-6.0, 2.0, EAST), [st(2), st(3)])
    two = chain(g, 2, Pose(-6.0, 4.0, EAST), [st(2), st(3)])
    pre = straight_at(g, 0, Pose(-4.5, -1.0, UP), 1, PREV)
    s = position(g, 0, lazers={0: [pre], 1: one, 2: two}, prizms=[], gears={0: 5})
    one, two = list(s.players[1].lazer), list(s.players[2].lazer)  # as laid on the table
    move(s, 0, Move.STRAIGHT)  # y -1 .. 6.5 along x = -4.5: hits both 2nd-gear straights
    assert s.players[0].lazer == []
    assert s.players[1].lazer == one[1:]
    assert s.players[2].lazer == two[1:]


@pytest.mark.parametrize("start, crash", [(12.0, False), (12.3, True)])
def test_launch_point_is_part_of_the_lazer_for_touching(start, crash):
    g = game()
    # seat 1's lone Launch Point on the east edge: back at x = 17.98, its point at 16.98
    lp = launch_point(g, 1, 0.75 * g.table.perimeter)
    assert lp.tip(0.0)[0] == pytest.approx(math.sqrt(18**2 - 0.75**2) - 1.0 + TIP)
    pre = straight_at(g, 0, Pose(start, 0.0, EAST), 1, PREV)
    s = position(g, 0, lazers={0: [pre], 1: [lp]}, prizms=[], gears={0: 3})
    (lp,) = s.players[1].lazer  # as laid on the table
    move(s, 0, Move.STRAIGHT)  # the tip reaches start + 4.875: 16.875 or 17.175
    assert (s.players[0].lazer == []) is crash
    assert s.players[1].lazer == [lp]  # hit, it is the front-most: it stays


@pytest.mark.parametrize("gap, crash", [(1e-5, False), (5e-7, True), (0.0, True), (-0.01, True)])
def test_touching_means_a_distance_below_1e_6(gap, crash):
    g = game()
    # seat 0's new piece has its left edge on y = 0.375; seat 1's straight runs alongside
    # with its right edge on y = 0.375 + gap
    other = piece(g, 1, st(3), Pose(-3.0, 0.75 + gap, EAST))
    s = eastward(g, 3, lazers={1: [other]})
    move(s, 0, Move.STRAIGHT)
    assert (s.players[0].lazer == []) is crash


def test_respawn_comes_before_the_fresh_prizm_lands():
    g = game()
    # seat 0's 4th-gear straight (x -4 .. 2) scores the Prizm at (-1.75, 0.3), which slides to
    # (1.25, 0); it also crosses seat 1's straight along x = -0.5 outside any disc
    other = piece(g, 1, st(3), Pose(-0.5, -2.25, UP))
    s = eastward(g, 4, prizms=[Prizm(-1.75, 0.3)], lazers={1: [other]})
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0] == Prizm(pytest.approx(1.25), pytest.approx(0.0, abs=1e-12), 0)
    assert s.decision_kind() is DecisionKind.RESPAWN
    s.apply_action(A.launch(1, 0.0))
    assert s.chance_kind() is ChanceKind.TOSS
    toss(s, (8.0, 8.0))
    assert s.prizms[1] == Prizm(8.0, 8.0, -1)
    assert s.current_players() == (1,)


def test_scored_prizm_sliding_onto_a_crossing_excuses_that_contact():
    # Our reading of the rules file (score, then crash; contact inside a Prizm's disc does
    # not count): the Prizm scored at (-1.75, 0.3) slides to (-0.25, 0), over the square
    # where seat 0's piece crosses seat 1's (|x|, |y| <= 0.375; corner 0.73 < 0.75 away):
    # the crash step then finds that contact inside a disc.
    g = game()
    other = piece(g, 1, st(3), Pose(0.0, -2.25, UP))
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3)], lazers={1: [other]})
    (other,) = s.players[1].lazer  # the piece as laid on the table
    move(s, 0, Move.STRAIGHT)
    assert s.prizms[0] == Prizm(pytest.approx(-0.25), pytest.approx(0.0, abs=1e-12), 0)
    assert specs_of(s.players[0].lazer) == [st(1), st(3)]  # no crash
    assert s.players[1].lazer == [other]


def test_locked_prizm_on_its_owners_lazer_can_be_stolen_and_stays():
    g = game()
    other = piece(g, 1, st(5), Pose(-6.0, 1.4, EAST))  # touches the disc's top
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3, 1)], lazers={1: [other]})
    assert s.locked(0)  # a scored Prizm on a Lazer of its own colour
    move(s, 0, Move.STRAIGHT)
    assert s.prizms == [Prizm(-1.75, 0.3, 0)]
    assert s.chance_kind() is None


def test_fresh_prizm_tossed_onto_another_prizm_is_nudged_clear():
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3), Prizm(6.0, 6.0, 1)])
    move(s, 0, Move.STRAIGHT)
    toss(s, (6.5, 6.0))
    q = s.prizms[2]
    assert math.hypot(q.x - 6.0, q.y - 6.0) == pytest.approx(2.25, abs=2e-3)
    assert q.x > 6.0  # pushed straight away, the least distance


def test_crasher_removes_its_launch_point_too_and_gets_every_piece_back():
    g = game()
    # from its Launch Point at (0, -17.98) seat 0 turned hard right (radius 2.865) to
    # (2.865, -14.5) heading east; a second hard right would end at (5.73, -17.36), 18.28
    # from the centre: off the table
    lazer = from_launch(g, 0, [hard(3, R)], [PREV])
    s = position(g, 0, lazers={0: lazer}, gears={0: 3})
    move(s, 0, Move.HARD_RIGHT, roll=3)
    p = s.players[0]
    assert p.lazer == [] and p.head is None
    assert p.supply == [list(r) for r in g.supply]
    assert s.decision_kind() is DecisionKind.RESPAWN


def test_respawn_any_gear_then_launch_point_and_the_turn_passes():
    g = game()
    s = position(
        g, 0, lazers={0: [straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)]}, gears={0: 3}
    )
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.RESPAWN
    gears = {a.arg for a in s.legal_actions(0)}
    assert gears == {1, 2, 3, 4, 5}
    assert all(a.kind is K.LAUNCH for a in s.legal_actions(0))
    s.apply_action(A.launch(5, 0.0))
    p = s.players[0]
    assert p.gear == 5
    assert specs_of(p.lazer) == [LP]
    assert p.lazer[0].t == pytest.approx(g.table.seat_position(0, 2))
    assert close_pose(p.head, p.lazer[0].exit)
    assert s.current_players() == (1,)  # it moves again next round
    move(s, 0, Move.STRAIGHT)
    assert s.round == 2 and s.order[0] == 0  # now in 5th gear, first


def test_respawn_is_blind_noise_along_the_edge_clipped_to_reach():
    g = game(launch_noise_sigma=1.5)
    s = g.new_initial_state(0)
    s.apply_actions({0: A.launch(3, 0.0), 1: A.launch(2, 0.0)})
    assert s.chance_kind() is ChanceKind.LAUNCH_NOISE
    s.apply_chance(2.0)  # seat 0: 2 inches along the edge
    assert s.chance_kind() is ChanceKind.LAUNCH_NOISE
    s.apply_chance(100.0)  # seat 1: clipped to the end of its reach
    assert s.players[0].lazer[0].t == pytest.approx(2.0)
    assert s.players[1].lazer[0].t == pytest.approx(g.table.reach(1, 2)[1])


def test_launch_point_overlapping_another_moves_along_the_edge_to_the_nearest_free_spot():
    g = game(num_players=4)
    p8 = g.table.perimeter / 8  # the reach stretches of seats 0 and 1 meet at p8
    lo1, hi1 = g.table.reach(1, 4)
    x1 = -1.0 + 2.0 * 0.5 / (hi1 - lo1)  # seat 1 aims 0.5 past seat 0's Launch Point
    s = engines(g, [5, 4, 3, 2], [1.0, x1, 0.0, 0.0])
    t0, t1 = s.players[0].lazer[0].t, s.players[1].lazer[0].t
    assert t0 == pytest.approx(p8)  # seat 0 places first (seat order from seat 0)
    # Two Launch Points (back corners on the circle, 1.5 wide, shoulders 0.625 deep) on a
    # radius-18 table first touch at the shoulders: angle 2 atan(0.75 / (b - 0.625)) with
    # b = sqrt(18^2 - 0.75^2), i.e. 1.55439 inches of edge; seat 1 moves on to there (the
    # other way would be 0.5 + 1.55 further)
    b = math.sqrt(18**2 - 0.75**2)
    gap = 2 * 18 * math.atan(0.75 / (b - 0.625))
    assert t1 - t0 == pytest.approx(gap, abs=1e-4)
    a, c = s.players[0].lazer[0], s.players[1].lazer[0]
    assert shapely.distance(a.poly, c.poly) >= g.rules.touch_tolerance
    closer = g.launch_element(1, t1 - 1e-3, 0)
    assert shapely.distance(a.poly, closer.poly) < g.rules.touch_tolerance


def test_respawned_launch_point_is_moved_clear_of_a_lazer():
    g = game()
    # seat 1's 3rd-gear straight along y = -17 (x -3 .. 1.5) covers the spot at the bottom
    blocker = piece(g, 1, st(3), Pose(-3.0, -17.0, EAST))
    s = position(
        g,
        0,
        lazers={0: [straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)], 1: [blocker]},
        gears={0: 3},
    )
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.RESPAWN
    s.apply_action(A.launch(2, 0.0))  # aims at t = 0, (0, -18)
    lp = s.players[0].lazer[0]
    tol = g.rules.touch_tolerance
    assert shapely.distance(lp.poly, blocker.poly) >= tol
    # the nearest free spot: clockwise (t > 0) the blocker reaches x = -3 (1.5 + 0.375 the
    # other way round), so the Launch Point moves to t < 0, just clear of the tip
    assert lp.t < 0
    nearer = g.launch_element(0, lp.t + 1e-3, 0)
    assert shapely.distance(nearer.poly, blocker.poly) < tol


# ---------------------------------------------------------------------------- running out
def from_launch(g, seat, specs, turns=None):
    lp = launch_point(g, seat, g.table.seat_position(seat, 2))
    return [lp] + chain(g, seat, lp.exit, specs, OLD if turns is None else turns)


@pytest.mark.parametrize(
    "used, placed",
    [
        ([st(3), st(3)], st(2)),
        ([st(3), st(3), st(2), st(2)], st(1)),
    ],
)
def test_running_out_straight_falls_to_the_next_lower_gear(used, placed):
    g = game()
    s = position(g, 0, lazers={0: from_launch(g, 0, used)}, prizms=[], gears={0: 3})
    move(s, 0, Move.STRAIGHT)
    assert specs_of(new_pieces(s, 0)) == [placed]
    assert s.players[0].gear == 3


def curls(g):
    """Seat 0's four 3rd-gear curves chained from (-8, -8) east: it ends near (5.8, 1.1)
    heading east with no 3rd-gear curve left."""
    return chain(g, 0, Pose(-8.0, -8.0, EAST), [hard(3, L), hard(3, R), soft(3, L), soft(3, R)])


def test_running_out_curve_uses_the_other_kind_of_the_same_gear_first():
    g = game()
    used = chain(g, 0, Pose(-8.0, -8.0, EAST), [hard(3, L), hard(3, R)])
    s = position(g, 0, lazers={0: used}, prizms=[], gears={0: 3})
    move(s, 0, Move.HARD_LEFT, roll=3)
    assert specs_of(new_pieces(s, 0)) == [soft(3, L)]


def test_running_out_curve_goes_down_a_gear_even_with_straights_of_the_gear_left():
    g = game()
    s = position(g, 0, lazers={0: curls(g)}, prizms=[], gears={0: 3})
    move(s, 0, Move.HARD_LEFT, roll=4)
    # the named kind in the lower gear (our reading: the same order applies there)
    assert specs_of(new_pieces(s, 0)) == [hard(2, L)]
    assert s.players[0].supply[2][S] == 2  # 3rd-gear straights were left
    assert s.players[0].gear == 3


def test_running_out_failed_roll_still_uses_a_straight_of_the_gear():
    g = game()
    s = position(g, 0, lazers={0: curls(g)}, prizms=[], gears={0: 3})
    move(s, 0, Move.SOFT_RIGHT, roll=2)
    assert specs_of(new_pieces(s, 0)) == [st(3)]


def test_running_out_pulls_the_oldest_pieces_launch_point_first_keeping_the_head():
    g = game()
    lazer = from_launch(g, 0, [st(1), st(1)])  # both 1st-gear straights on the table
    s = position(g, 0, lazers={0: lazer}, prizms=[], gears={0: 1})
    lazer = list(s.players[0].lazer)  # as laid on the table
    head = s.players[0].head
    move(s, 0, Move.STRAIGHT)
    p = s.players[0]
    # the Launch Point and the oldest straight came off; the newest stays, the new piece
    # goes on the head
    assert p.lazer[0] is lazer[2]
    assert specs_of(p.lazer) == [st(1), st(1)]
    assert close_pose(p.lazer[1].pose, head)
    assert p.supply[0][S] == 0


def test_running_out_pulls_until_a_piece_of_the_gear_or_lower_is_free():
    g = game()
    # in 2nd gear with every 1st- and 2nd-gear straight on the table: the Launch Point, the
    # two 2nd-gear softs and then the oldest 1st-gear straight come off; that one is used
    lazer = from_launch(g, 0, [soft(2, L), soft(2, R), st(1), st(2), st(1), st(2)])
    s = position(g, 0, lazers={0: lazer}, prizms=[], gears={0: 2})
    lazer = list(s.players[0].lazer)  # as laid on the table
    move(s, 0, Move.STRAIGHT)
    p = s.players[0]
    assert p.lazer[:-1] == lazer[4:]
    assert specs_of(new_pieces(s, 0)) == [st(1)]
    assert p.supply[1][SOFT] == 2 and p.supply[1][S] == 0 and p.supply[0][S] == 0


def test_running_out_front_pose_kept_when_the_front_piece_itself_is_pulled():
    # A game where each player owns a single 1st-gear straight, on the table as the front
    # piece: the only applicable piece is the front-most one; it is pulled and placed again
    # on the same front pose.
    pieces = copy.deepcopy(game().file_data["pieces"])
    pieces["gears"][0]["supply"]["straight"] = 1
    g = game(files={"pieces": pieces})
    lazer = from_launch(g, 0, [st(1)])
    s = position(g, 0, lazers={0: lazer}, prizms=[], gears={0: 1})
    assert s.players[0].supply[0][S] == 0
    head = s.players[0].head
    move(s, 0, Move.STRAIGHT)
    p = s.players[0]
    assert specs_of(p.lazer) == [st(1)]
    assert close_pose(p.lazer[0].pose, head)


# ---------------------------------------------------------------------------- tables
def test_small_table_rule_top_gear_4_without_5_straights_4_softs_3_hards():
    g = game(table="small")
    assert g.small_table and not g.large_table
    assert g.top_gear == 4
    assert [list(r) for r in g.supply] == [[2, 2, 2], [2, 2, 2], [2, 2, 0], [2, 0, 0]]
    s = g.new_initial_state(0)
    assert {a.arg for a in s.legal_actions(0)} == {1, 2, 3, 4}
    with pytest.raises(IllegalActionError, match="not an action"):
        s.apply_actions({0: A.launch(5, 0.0), 1: A.launch(2, 0.0)})
    s = position(g, 0, gears={0: 3})
    moves = legal_moves(s, 0)
    assert (0, Move.HARD_LEFT) not in moves and (-1, Move.HARD_LEFT) in moves
    assert (1, Move.STRAIGHT) in moves
    s = position(g, 0, gears={0: 4})
    assert {sh for sh, _ in legal_moves(s, 0)} == {-1, 0}
    # a successful soft attempt in 4th gear: no 4th-gear curve exists, a 3rd-gear soft goes
    move(s, 0, Move.SOFT_LEFT, roll=4)
    assert specs_of(new_pieces(s, 0)) == [soft(3, L)]


def test_standard_table_has_no_modification():
    g = game()
    assert not g.small_table and not g.large_table and g.top_gear == 5
    s = engines(g, [3, 2])
    assert s.decision_kind() is DecisionKind.MOVE


def test_large_table_bonus_fifth_gear_straight_before_connecting_to_the_launch_point():
    g = game(table="large")
    assert g.large_table and not g.small_table
    s = engines(g, [3, 2])
    assert s.decision_kind() is DecisionKind.BONUS and s.current_players() == (0,)
    assert set(s.legal_actions(0)) == {A(K.BONUS), A(K.DECLINE)}
    lp = s.players[0].lazer[0]
    s.apply_action(A(K.BONUS))
    p = s.players[0]
    assert specs_of(p.lazer) == [LP, st(5)]
    assert close_pose(p.lazer[1].pose, lp.exit)
    assert close_pose(p.head, p.lazer[1].exit)
    assert p.gear == 3  # without changing gear
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (0,)


def test_large_table_bonus_declined_and_not_offered_once_a_piece_is_on_the_launch_point():
    g = game(table="large")
    s = engines(g, [3, 2])
    decline(s)
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (0,)
    move(s, 0, Move.STRAIGHT)
    assert specs_of(s.players[0].lazer) == [LP, st(3)]
    assert s.decision_kind() is DecisionKind.BONUS and s.current_players() == (1,)
    decline(s)
    move(s, 0, Move.STRAIGHT)
    assert specs_of(s.players[1].lazer) == [LP, st(2)]
    # round 2: no piece connects to a Launch Point any more: no bonus decision
    assert s.round == 2
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (0,)
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (1,)


def test_large_table_bonus_piece_and_the_move_after_it_do_not_crash():
    g = game(table="large")  # radius 36: from (0, -35.37) north, 7.5 then 4.5 inches
    s = engines(g, [3, 2])
    s.apply_action(A(K.BONUS))
    move(s, 0, Move.STRAIGHT)
    p = s.players[0]
    assert specs_of(p.lazer) == [LP, st(5), st(3)]
    assert close_pose(p.lazer[2].pose, p.lazer[1].exit)
    assert s.current_players() == (1,)


# ---------------------------------------------------------------------------- winning
@pytest.mark.parametrize("n", [2, 3, 4])
def test_third_prizm_wins_at_once(n):
    g = game(num_players=n)
    s = eastward(
        g,
        3,
        prizms=[
            Prizm(10.0, 10.0, 0),
            Prizm(-1.75, 0.3),
            Prizm(-10.0, 10.0, 0),
            Prizm(0.0, -12.0, 1),
        ],
    )
    move(s, 0, Move.STRAIGHT)
    assert s.is_terminal()
    assert s.outcome().reason is Outcome.WIN and s.outcome().winner == 0
    assert s.returns() == pytest.approx([1.0] + [-1.0 / (n - 1)] * (n - 1))
    assert sum(s.returns()) == pytest.approx(0.0)
    assert s.decision is None and s.chance is None  # no toss, nothing more
    assert s.current_players() == ()


def test_third_prizm_wins_even_if_the_piece_then_would_crash():
    # Score comes before the crash step and the win is immediate (rules: "Score, then
    # crash"; "wins at once"): a piece that scores the third Prizm and then hits a Lazer
    # outside any disc wins.
    g = game()
    other = piece(g, 1, st(3), Pose(-0.5, -2.25, UP))  # as in the respawn test above
    s = eastward(
        g,
        4,
        lazers={1: [other]},
        prizms=[Prizm(10.0, 10.0, 0), Prizm(-10.0, 10.0, 0), Prizm(-1.75, 0.3)],
    )
    (other,) = s.players[1].lazer  # the piece as laid on the table
    move(s, 0, Move.STRAIGHT)
    assert s.outcome().reason is Outcome.WIN and s.outcome().winner == 0
    assert s.players[1].lazer == [other]


def test_two_prizms_scored_in_the_winning_turn_are_both_kept_and_not_replaced():
    # a 4th-gear straight from x = -4 to 2 crosses both neutral Prizms: 1 -> 3, a win at
    # once, and no fresh neutral Prizm is tossed for either
    g = game()
    s = eastward(
        g,
        4,
        prizms=[Prizm(10.0, 10.0, 0), Prizm(-2.0, 0.3), Prizm(0.5, -0.2), Prizm(0.0, -12.0, 1)],
    )
    move(s, 0, Move.STRAIGHT)
    assert s.outcome().reason is Outcome.WIN and s.outcome().winner == 0
    assert s.score(0) == 3 and [q.owner for q in s.prizms].count(-1) == 0
    assert s.chance is None and s.current_players() == ()


def test_round_limit_truncates_with_zero_returns():
    g = game(round_limit=2)
    s = with_prizms(engines(g, [3, 2]), [])
    straights(s, 2)
    assert not s.is_terminal() and s.round == 2
    straights(s, 2)
    assert s.is_terminal()
    assert s.outcome().reason is Outcome.TRUNCATED and s.outcome().winner is None
    assert s.returns() == [0.0, 0.0]
    with pytest.raises(IllegalActionError, match="game is over"):
        s.apply_action(A.move(0, Move.STRAIGHT))


# ---------------------------------------------------------------------------- powers
def test_waveryder_power_move_has_no_roll_and_rests_the_power():
    g = powers_game("galactic_waveryder")
    s = eastward(g, 2, power_ready={1: False})
    assert s.decision_kind() is DecisionKind.MOVE  # Waveryder decides with its move
    move(s, 0, Move.WAVE_LEFT_RIGHT)
    assert s.chance_kind() is not ChanceKind.DIE
    assert not s.players[0].power_ready
    assert s.players[0].gear == 2


def test_waveryder_places_two_hard_turns_without_rolling():
    g = powers_game("galactic_waveryder")
    s = eastward(g, 2, power_ready={1: False})
    move(s, 0, Move.WAVE_LEFT_RIGHT)
    assert s.chance_kind() is None
    assert specs_of(new_pieces(s, 0)) == [hard(2, L), hard(2, R)]
    a, b = new_pieces(s, 0)
    assert close_pose(b.pose, a.exit)
    assert s.current_players() == (1,)


def test_waveryder_only_in_gears_with_hard_pieces_and_only_when_ready():
    g = powers_game("galactic_waveryder")
    s = eastward(g, 3, power_ready={1: False})
    waves = {(sh, m) for sh, m in legal_moves(s, 0) if m.is_wave}
    assert waves == {(sh, m) for sh in (-1, 0) for m in Move if m.is_wave}  # not in 4th
    s = eastward(g, 4, power_ready={1: False})
    assert {sh for sh, m in legal_moves(s, 0) if m.is_wave} == {-1}
    s = eastward(g, 2, power_ready={0: False, 1: False})
    assert not any(m.is_wave for _, m in legal_moves(s, 0))
    with pytest.raises(IllegalActionError):
        s.apply_action(A.move(0, Move.WAVE_LEFT_LEFT))


def test_waveryder_on_a_small_table_may_use_its_power_in_third_gear_with_lower_hard_turns():
    # the rules: "a gear after the shift of 1-3"; the small table has no 3rd-gear hard turns,
    # so the two hard turns come from 2nd gear (running out: current gear, then lower)
    g = powers_game("galactic_waveryder", table="small")
    s = eastward(g, 3, power_ready={1: False})
    assert {sh for sh, m in legal_moves(s, 0) if m.is_wave} == {-1, 0}
    assert not any(
        m in (Move.HARD_LEFT, Move.HARD_RIGHT) for sh, m in legal_moves(s, 0) if sh == 0
    )  # no hard attempt in 3rd
    move(s, 0, Move.WAVE_LEFT_LEFT)
    assert specs_of(new_pieces(s, 0)) == [hard(2, L), hard(2, L)]


def test_waveryder_uses_lower_gear_hard_turns_when_the_gear_runs_out():
    g = powers_game("galactic_waveryder")
    # one 2nd-gear hard is already on the table
    old = chain(g, 0, Pose(-6.0, -2.0, EAST), [hard(2, L)], PREV)
    s = position(g, 0, lazers={0: old}, prizms=[], gears={0: 2}, power_ready={1: False})
    move(s, 0, Move.WAVE_RIGHT_RIGHT)
    assert specs_of(new_pieces(s, 0)) == [hard(2, R), hard(1, R)]


def test_shark_adds_the_longest_straight_and_crashes_without_a_score():
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.SHARK and s.current_players() == (0,)
    assert set(s.legal_actions(0)) == {A(K.SHARK), A(K.DECLINE)}
    lazer = list(s.players[0].lazer)
    s.apply_action(A(K.SHARK))
    # the extra 5th-gear straight (x 0.5 .. 8) scored nothing: the Shark crashes
    assert not s.players[0].power_ready
    assert s.players[0].lazer == [] and s.players[0].head is None
    assert s.decision_kind() is DecisionKind.RESPAWN and s.current_players() == (0,)
    assert len(lazer) == 2


def test_shark_adds_the_longest_straight_and_the_score_counts():
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, prizms=[Prizm(4.0, 0.0)], power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    s.apply_action(A(K.SHARK))
    # the extra piece is a 5th-gear straight from (0.5, 0) to (8, 0): the Prizm it crossed
    # slid to 0.75 behind its exit
    q = s.prizms[0]
    assert q.owner == 0
    assert (q.x, q.y) == pytest.approx((7.25, 0.0), abs=1e-9)
    assert not s.players[0].power_ready


def fifths_used(g):
    """Seat 0's Lazer with both 5th-gear straights: north from (-9.5, -9.9), a hard right of
    gear 3 (radius 2.865), east to a head at (0.865, 0.465)."""
    return chain(g, 0, Pose(-9.5, -9.9, UP), [st(5), hard(3, R), st(5)], [OLD, OLD, PREV])


def test_shark_takes_the_next_longest_straight_when_fifths_are_used():
    g = powers_game("lazer_shark", "super_sheriff")
    lazer = fifths_used(g)
    y = lazer[-1].exit.y
    assert close_pose(lazer[-1].exit, Pose(0.865, 0.465, EAST), 1e-3)
    s = position(
        g, 0, lazers={0: lazer}, prizms=[Prizm(7.5, y)], gears={0: 3}, power_ready={1: False}
    )
    move(s, 0, Move.STRAIGHT)  # to x = 5.365
    s.apply_action(A(K.SHARK))
    # a 4th-gear straight (6 long) to x = 11.365: the Prizm slid to 10.615
    q = s.prizms[0]
    assert q.owner == 0
    assert (q.x, q.y) == pytest.approx((lazer[-1].exit.x + 4.5 + 6.0 - 0.75, y), abs=1e-9)


def test_shark_that_scores_does_not_crash():
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, prizms=[Prizm(4.0, 0.0)], power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    s.apply_action(A(K.SHARK))
    p = s.players[0]
    assert specs_of(new_pieces(s, 0)) == [st(3), st(5)]
    assert close_pose(p.lazer[-1].pose, p.lazer[-2].exit)
    assert p.gear == 3  # the extra piece does not change gear
    assert s.chance_kind() is ChanceKind.TOSS


def test_shark_score_by_the_first_piece_counts():
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.0)], power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    s.apply_action(A(K.SHARK))
    assert specs_of(new_pieces(s, 0)) == [st(3), st(5)]
    assert s.chance_kind() is ChanceKind.TOSS  # no crash: it scored this turn


def test_shark_next_longest_straight_is_placed_without_a_crash():
    g = powers_game("lazer_shark", "super_sheriff")
    lazer = fifths_used(g)
    s = position(
        g,
        0,
        lazers={0: lazer},
        prizms=[Prizm(7.5, lazer[-1].exit.y)],
        gears={0: 3},
        power_ready={1: False},
    )
    move(s, 0, Move.STRAIGHT)
    s.apply_action(A(K.SHARK))
    assert specs_of(new_pieces(s, 0)) == [st(3), st(4)]


def test_shark_declined_keeps_the_power():
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    decline(s)
    assert s.players[0].power_ready
    assert specs_of(new_pieces(s, 0)) == [st(3)]
    assert s.current_players() == (1,)


@pytest.mark.parametrize("top, gear", [(True, 5), (False, 1)])
def test_sheriff_sends_an_opponent_to_top_or_first_gear(top, gear):
    g = powers_game("super_sheriff", "lazer_shark")
    s = position(g, 0, gears={1: 3}, power_ready={1: False})
    assert s.decision_kind() is DecisionKind.POWER and s.current_players() == (0,)
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A.sheriff(1, False), A.sheriff(1, True)}
    s.apply_action(A.sheriff(1, top))
    assert s.players[1].gear == gear
    assert not s.players[0].power_ready
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (0,)
    assert s.order == [0, 1]


def test_sheriff_top_gear_is_4_on_a_small_table():
    g = powers_game("super_sheriff", "lazer_shark", table="small")
    s = position(g, 0, gears={1: 2}, power_ready={1: False})
    s.apply_action(A.sheriff(1, True))
    assert s.players[1].gear == 4


def test_power_decision_only_while_the_power_is_ready():
    g = powers_game("super_sheriff", "lazer_shark")

    def no_prizms_seat_1_resting(d: dict) -> None:
        d["prizms"] = []
        d["players"][1]["power_ready"] = False

    s = edited(engines(g, [3, 2]), no_prizms_seat_1_resting)
    assert s.decision_kind() is DecisionKind.POWER and s.current_players() == (0,)
    s.apply_action(A.sheriff(1, False))
    move(s, 0, Move.STRAIGHT)
    move(s, 0, Move.STRAIGHT)  # seat 1 (now 1st gear)
    assert s.round == 2 and s.current_players() == (0,)
    assert s.decision_kind() is DecisionKind.MOVE  # resting: no power decision


def test_phantom_skips_the_crash_step():
    g = powers_game("phantom_cosmonaut")
    other = piece(g, 1, st(3), Pose(0.0, -2.25, UP))  # seat 1 along x = 0, y -2.25 .. 2.25
    s = eastward(g, 3, lazers={1: [other]}, power_ready={1: False})
    (other,) = s.players[1].lazer  # the piece as laid on the table
    assert s.decision_kind() is DecisionKind.POWER
    assert set(s.legal_actions(0)) == {A(K.DECLINE), A(K.PHANTOM)}
    s.apply_action(A(K.PHANTOM))
    assert not s.players[0].power_ready
    move(s, 0, Move.STRAIGHT)  # crosses seat 1's piece: no crash this turn
    assert specs_of(s.players[0].lazer) == [st(1), st(3)]
    assert s.players[1].lazer == [other]
    assert s.current_players() == (1,)


def test_phantom_piece_off_the_table_does_not_crash():
    g = powers_game("phantom_cosmonaut")
    pre = straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)
    s = position(g, 0, lazers={0: [pre]}, gears={0: 3}, power_ready={1: False})
    s.apply_action(A(K.PHANTOM))
    move(s, 0, Move.STRAIGHT)
    assert specs_of(s.players[0].lazer) == [st(1), st(3)]
    assert s.current_players() == (1,)


def test_phantom_point_still_in_a_lazer_crashes_on_the_next_turn():
    g = powers_game("phantom_cosmonaut")
    other = piece(g, 1, st(3), Pose(0.0, -2.25, UP))
    # seat 0's 3rd-gear straight from (-4.7, 0) ends at (-0.2, 0): its point (0.175, 0) lies
    # inside seat 1's piece (x -0.375 .. 0.375)
    pre = straight_at(g, 0, Pose(-4.7, 0.0, EAST), 1, PREV)
    s = position(
        g, 0, lazers={0: [pre], 1: [other]}, prizms=[], gears={0: 3, 1: 4}, power_ready={1: False}
    )
    s.apply_action(A(K.PHANTOM))
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer[-1].turn == NOW
    # seat 1 (4th gear, first in round 2 too) goes on north; then seat 0 plays on from its
    # point, still in seat 1's piece: it crashes now
    move(s, 0, Move.STRAIGHT)
    assert s.round == 2
    move(s, 0, Move.STRAIGHT)
    assert s.current_players() == (0,)
    assert s.decision_kind() is DecisionKind.MOVE  # power resting: no power decision
    move(s, 0, Move.STRAIGHT)
    assert s.players[0].lazer == []
    assert s.decision_kind() is DecisionKind.RESPAWN
    # the hit piece was not seat 1's front any more: it and older went, the newer stayed
    assert other not in s.players[1].lazer and len(s.players[1].lazer) == 2


# ---------------------------------------------------------------------------- players
@pytest.mark.parametrize("n", [2, 3, 4])
def test_two_to_four_players_start_with_a_prizm_facing_each_seat(n):
    g = game(num_players=n)
    s = g.new_initial_state(0)
    assert len(s.prizms) == n and all(q.owner == -1 for q in s.prizms)
    for i, q in enumerate(s.prizms):
        assert math.hypot(q.x, q.y) == pytest.approx(4.5)
        seat = g.table.point_at(g.table.seat_position(i, n))
        nearest = min(range(n), key=lambda j: math.dist(seat, (s.prizms[j].x, s.prizms[j].y)))
        assert nearest == i
    # no closer than a 3rd-gear straight (4.5)
    for a in range(n):
        for b in range(a + 1, n):
            assert math.dist(s.prizms[a][:2], s.prizms[b][:2]) >= 4.5 - 1e-9
    s = engines(g, list(range(n, 0, -1)))
    assert s.order == list(range(n))
    assert all(len(p.lazer) == 1 and p.lazer[0].is_launch for p in s.players)


@pytest.mark.parametrize("n", [1, 5])
def test_player_count_outside_two_to_four_is_a_config_error(n):
    with pytest.raises(ConfigError, match="2-4"):
        Game(num_players=n)


# ---------------------------------------------------------------------------- illegal input
def _engines_state():
    return game().new_initial_state(0)


def _move_state():
    return position(game(), 0, gears={0: 1})


def _die_state():
    s = position(game(), 0, gears={0: 3})
    s.apply_action(A.move(0, Move.SOFT_LEFT))
    return s


def _toss_state():
    s = eastward(game(), 3, prizms=[Prizm(-1.75, 0.3)])
    move(s, 0, Move.STRAIGHT)
    return s


@pytest.mark.parametrize(
    "build, do, message",
    [
        (_engines_state, lambda s: s.apply_actions({0: A.launch(3, 0.0)}), "deciders"),
        (
            _engines_state,
            lambda s: s.apply_actions({0: A.launch(6, 0.0), 1: A.launch(2, 0.0)}),
            "not an action",
        ),
        (
            _engines_state,
            lambda s: s.apply_actions({0: A.move(0, Move.STRAIGHT), 1: A.launch(2, 0.0)}),
            "not a launch",
        ),
        (_engines_state, lambda s: s.apply_action(A.launch(3, 0.0)), "simultaneous"),
        (
            _engines_state,
            lambda s: s.apply_actions({0: A.launch(3, float("nan")), 1: A.launch(2, 0.0)}),
            "finite",
        ),
        (_move_state, lambda s: s.apply_action(A.move(-1, Move.STRAIGHT)), "not legal"),
        (_move_state, lambda s: s.apply_action(A(K.NOOP)), "not legal"),
        (_move_state, lambda s: s.apply_action(A(K.DECLINE)), "not legal"),
        (_move_state, lambda s: s.apply_action(A.move(0, Move.WAVE_LEFT_LEFT)), "not legal"),
        (_move_state, lambda s: s.apply_actions({1: A.move(0, Move.STRAIGHT)}), "deciders"),
        (_move_state, lambda s: s.apply_chance(3), "no chance event"),
        (_move_state, lambda s: s.apply_action(A(K.MOVE, 0, 0.5)), "only a launch"),
        (_move_state, lambda s: s.apply_action(10_000), "out of range"),
        (_die_state, lambda s: s.apply_chance(6), "not possible"),
        (_die_state, lambda s: s.apply_chance(True), "not possible"),
        (_die_state, lambda s: s.apply_action(A.move(0, Move.STRAIGHT)), "chance event"),
        (_toss_state, lambda s: s.apply_chance([17.5, 0.0]), "wholly on the table"),
        (_toss_state, lambda s: s.apply_chance("here"), "point"),
    ],
)
def test_illegal_actions_raise_with_a_message_and_leave_the_state_unchanged(build, do, message):
    s = build()
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=message):
        do(s)
    assert snapshot(s) == before


@pytest.mark.parametrize("x", [1.5, -1.0001, 7.0])
def test_launch_point_outside_reach_is_illegal_with_the_range_in_the_message(x):
    g = game()
    s = g.new_initial_state(0)
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=r"\[-1, 1\]"):
        s.apply_actions({0: A.launch(3, x), 1: A.launch(2, 0.0)})
    assert snapshot(s) == before
    assert s.illegal_reason(0, A.launch(3, x)) is not None
    assert s.is_legal(0, A.launch(3, 1.0)) and s.is_legal(0, A.launch(3, -1.0))


def test_respawn_launch_point_outside_reach_is_illegal():
    g = game()
    s = position(g, 0, lazers={0: [straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)]})
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.RESPAWN
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=r"\[-1, 1\]"):
        s.apply_action(A.launch(2, -2.0))
    assert snapshot(s) == before


def test_set_lazer_builder_keeps_supply_consistent():
    # the builders' positions serialize and load back (supply + on table == owned): a
    # Lazer replaced mid-scenario (with_lazer) too
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3)])
    s = with_lazer(s, 1, from_launch(g, 1, [st(2), hard(1, L)]))
    assert s.players[1].supply[1][S] == 1 and s.players[1].supply[0][HARD] == 1
    t = g.state_from_dict(s.to_dict())
    assert snapshot(t) == snapshot(s)


# ---------------------------------------------------------------------------- odd tables
def odd(**flags: bool) -> dict[str, bool]:
    base = {
        "toss_start_prizms": False,
        "start_far_sides": False,
        "large_far_sides": False,
        "square_edge": False,
    }
    return {**base, **flags}


def test_odd_table_toss_start_prizms_each_player_tosses_one_instead_of_the_central_group():
    g = game(num_players=3, odd_table=odd(toss_start_prizms=True))
    s = g.new_initial_state(0)
    assert s.prizms == [] and s.chance_kind() is ChanceKind.TOSS
    for point in ((5.0, 5.0), (-6.0, 2.0), (0.0, -7.0)):
        toss(s, point)
    assert s.prizms == [Prizm(5.0, 5.0), Prizm(-6.0, 2.0), Prizm(0.0, -7.0)]
    assert s.decision_kind() is DecisionKind.ENGINES


def test_odd_table_tossed_start_prizm_landing_on_another_is_nudged_clear():
    g = game(num_players=2, odd_table=odd(toss_start_prizms=True))
    s = g.new_initial_state(0)
    toss(s, (0.0, 0.0))
    toss(s, (1.0, 0.0))
    a, b = s.prizms
    assert math.hypot(a.x - b.x, a.y - b.y) >= 3 * g.rules.prizm_radius - 1e-6


def test_odd_table_far_sides_of_a_rectangle_are_its_short_sides():
    g = game(table="rectangle")
    # perimeter clockwise from (-30, -20): left side 0-40, top 40-100, right 100-140, bottom
    assert g.table.far_sides() == ((0.0, 40.0), (100.0, 140.0))
    assert game().table.far_sides() is None  # a round table: the whole edge


def test_odd_table_start_far_sides_moves_launch_points_off_the_long_sides():
    g = game(num_players=4, table="rectangle", odd_table=odd(start_far_sides=True))
    s = g.new_initial_state(0)
    # seat 0 sits mid-left (t = 20, a far side); seat 1 mid-top (t = 70), whose whole reach
    # (45..95) lies on the long top side: its Launch Point at t = 45 goes to the nearest
    # place on a far side, 39.25 (the corner at 40 minus half the token's width)
    s.apply_actions(
        {0: A.launch(1, 0.0), 1: A.launch(2, -1.0), 2: A.launch(3, 0.0), 3: A.launch(4, 0.0)}
    )
    t = [p.lazer[0].t for p in s.players]
    assert t[0] == pytest.approx(20.0)
    assert t[1] == pytest.approx(39.25, abs=1e-6)
    assert t[2] == pytest.approx(120.0)
    assert all(g.table.on_far_side(x) for x in t)


def test_odd_table_large_far_sides_offers_the_bonus_only_from_a_far_side():
    g = game(num_players=4, table="rectangle", odd_table=odd(large_far_sides=True))
    assert not g.large_table
    s = g.new_initial_state(0)
    # seat 0 at t = 20 (left, a far side) moves first, then seat 1 at t = 70 (top, long side)
    s.apply_actions(
        {0: A.launch(4, 0.0), 1: A.launch(3, 0.0), 2: A.launch(2, 0.0), 3: A.launch(1, 0.0)}
    )
    assert s.order[:2] == [0, 1]
    assert s.current_players() == (0,) and s.decision_kind() is DecisionKind.BONUS
    s.apply_action(A(K.DECLINE))
    assert s.decision_kind() is DecisionKind.MOVE
    s.apply_action(A.move(0, Move.STRAIGHT))
    assert s.current_players() == (1,) and s.decision_kind() is DecisionKind.MOVE


def test_odd_table_square_edge_cuts_a_long_table_square_at_its_first_end():
    # the long table (72 x 30, first vertex mid-left at (-36, 0)) is cut across its long
    # axis 30 in from the left end, by an edge of four 5th-gear straights (2 x 2 x 7.5 in)
    g = game(table="long", odd_table=odd(square_edge=True))
    assert g.table.vertices.tolist() == [
        [-36.0, 0.0],
        [-36.0, 15.0],
        [-6.0, 15.0],
        [-6.0, -15.0],
        [-36.0, -15.0],
    ]
    assert g.table.perimeter == 120.0 and g.table.min_width == 30.0
    # seats spread along the new perimeter: mid-left end and the middle of the new edge
    assert g.table.point_at(g.table.seat_position(0, 2)) == (-36.0, 0.0)
    assert g.table.point_at(g.table.seat_position(1, 2)) == (-6.0, 0.0)
    assert g.table.centre == (-21.0, 0.0)
    assert game(table="long").table.perimeter == 204.0  # without the option: the whole table


@pytest.mark.parametrize("gear, crash", [(3, False), (4, True)])
def test_odd_table_square_edge_is_the_table_edge(gear, crash):
    g = game(table="long", odd_table=odd(square_edge=True))
    # from (-12, 0) heading east: a 3rd-gear straight's point reaches -7.125, a 4th-gear
    # one's -5.625, past the new edge at x = -6 (on the uncut table both would stay on)
    pre = straight_at(g, 0, Pose(-12.0, 0.0, EAST), 1, PREV)
    s = position(g, 0, lazers={0: [pre]}, prizms=[], gears={0: gear})
    move(s, 0, Move.STRAIGHT)
    assert (s.players[0].lazer == []) is crash


def test_odd_table_square_edge_plays_the_small_table_rule_on_any_table():
    # the 60 x 40 rectangle is not small (40 >= 36), but squared (cut at x = 10 by a 40-in
    # edge: three players' six 7.5-in straights cover 45 in) it plays the small-table rule
    plain = game(num_players=3, table="rectangle")
    g = game(num_players=3, table="rectangle", odd_table=odd(square_edge=True))
    assert not plain.small_table and plain.top_gear == 5
    assert g.small_table and not g.large_table and g.top_gear == 4
    assert g.supply == game(num_players=3, table="small").supply
    assert g.table.vertices.tolist() == [[-30.0, -20.0], [-30.0, 20.0], [10.0, 20.0], [10.0, -20.0]]


@pytest.mark.parametrize(
    "table, players, message",
    [
        ("rectangle", 2, "40 in long, but the pieces laid along it cover only 30 in"),
        ("standard", 4, "needs a polygon table"),
        ("small", 2, "needs a polygon table"),
    ],
)
def test_odd_table_square_edge_needs_a_long_polygon_table_and_enough_straights(
    table, players, message
):
    with pytest.raises(ConfigError, match=message):
        game(num_players=players, table=table, odd_table=odd(square_edge=True))


def test_odd_table_square_edge_refuses_a_table_no_longer_than_wide(tmp_path):
    square = tmp_path / "square.yaml"
    square.write_text(
        "name: square\nshape: polygon\ndiameter: 0.0\n"
        "polygon: [[0, 0], [0, 30], [30, 30], [30, 0]]\nfirst_seat: 0.0\n"
        "reach: 0.25\nlaunch_point: {width: 1.5, depth: 1.0}\n"
    )
    with pytest.raises(ConfigError, match="no longer"):
        game(table=str(square), odd_table=odd(square_edge=True))


def test_odd_table_far_side_split_by_a_vertex_is_one_side():
    # the long table's left end runs through the perimeter's start (a vertex at (-36, 0)):
    # one far side from t = 189 to 219 (= 15 on the next lap), so a Launch Point at t = 0
    # has both back corners on it
    g = game(table="long")
    assert g.table.far_sides() == ((87.0, 117.0), (189.0, 219.0))
    assert g.table.on_far_side(0.0) and g.table.on_far_side(14.25)
    assert not g.table.on_far_side(14.5) and not g.table.on_far_side(50.0)
