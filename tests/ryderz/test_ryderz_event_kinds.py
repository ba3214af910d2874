"""Scenario tests of every Lazer Ryderz turn-event kind (``ryderz_env/rules/events.py``).

Each test sets up a position with the public ``PositionBuilder`` (through
``tests/ryderz_builders.py``), acts, resolves chance with chosen outcomes and asserts the
exact events recorded (kind, seat, every field in order, visibility) against the table in
``docs/events.md`` and against the state they leave: a ``piece`` is laid at the head the
Lazer had, a ``score`` names the Prizm the seat now holds, a ``crash`` counts what went back
to the supply, and so on. Everything on the Lazer Ryderz table is public: every event is
seen by every seat.

The table is the standard 36-inch round one (two players: seat 0 at the bottom, seat 1 at
the top), launch noise off unless a test says otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from ryderz_builders import (
    EAST,
    HARD,
    NOW,
    PREV,
    SOFT,
    UP,
    A,
    K,
    L,
    R,
    S,
    chain,
    engines,
    game,
    launch_point,
    move,
    new_pieces,
    position,
    specs_of,
    st,
    straight_at,
    toss,
    with_prizms,
)

from ryderz_env.rules import ChanceKind, DecisionKind, Game, Move, Outcome, Pose, Prizm, State
from ryderz_env.rules.events import RyderzEvent as E
from tabletop.events import Event

NUDGE_TOL = 2e-3  # polygonal discs and buffers: a Nudge lands within this of the exact spot
HEAD = Pose(-4.0, 0.0, EAST)  # where ``eastward``'s mover plays on from


def ev(kind: E, seat: int | None, **fields: Any) -> Event:
    """The public event ``kind`` about ``seat`` with ``fields`` in the order given."""
    return Event(kind, seat, tuple(fields.items()))


def near(value: float, tol: float = 1e-9) -> Any:
    """A geometry value, to ``tol``."""
    return pytest.approx(value, abs=tol)


def taken(s: State) -> list[Event]:
    """The events since the last take, each checked to be public: seen by every seat and by
    an observer of the whole game, with no ``to`` in its JSON."""
    events = s.take_events()
    for e in events:
        assert e.to is None, e
        assert all(e.visible_to(seat) for seat in [None, *range(len(s.players))]), e
        assert "to" not in e.to_json(), e
    return events


def recording(s: State) -> State:
    """``s`` with recording switched on (nothing recorded yet)."""
    s.record_events()
    return s


def eastward(g: Game, gear: int = 3, prizms: list[Prizm] | None = None, **kw: Any) -> State:
    """Seat 0 about to move from ``HEAD`` (its previous piece a 1st-gear straight ending
    there) in ``gear``: a straight of gear k covers x in [-4, -4 + 1.5 k] along y = 0."""
    pre = straight_at(g, 0, HEAD, 1, PREV)
    lazers = {0: [pre], **kw.pop("lazers", {})}
    return recording(position(g, 0, lazers=lazers, prizms=prizms or [], gears={0: gear}, **kw))


def powers_game(first: str, second: str = "lazer_shark") -> Game:
    """Two players with Power Prizms: seat 0 plays ``first``, seat 1 ``second``."""
    return game(powers=True, characters=[first, second])


# ------------------------------------------------------------------ Start Your Engines
def test_engines_every_choice_with_its_stall_once_all_have_chosen() -> None:
    """Three seats pick gears 3, 3 and 2: the two 3s stall out to 1st."""
    g = game(num_players=3)
    s = recording(g.new_initial_state(0))
    assert s.take_events() == []  # nothing before the choices are made
    s.apply_actions({0: A.launch(3, 0.0), 1: A.launch(3, 0.5), 2: A.launch(2, 0.0)})
    events = taken(s)
    assert events[:3] == [
        ev(E.ENGINES, 0, gear=3, stalled=" (stalled)"),
        ev(E.ENGINES, 1, gear=3, stalled=" (stalled)"),
        ev(E.ENGINES, 2, gear=2, stalled=""),
    ]
    assert [e.kind for e in events[3:]] == [E.LAUNCH, E.LAUNCH, E.LAUNCH, E.ROUND]
    # the events name the gears picked; the state holds the gears after stalling
    assert [p.stalled for p in s.players] == [True, True, False]
    assert [p.gear for p in s.players] == [1, 1, 2]
    assert str(events[0]) == "seat 0 picks gear 3 (stalled)"
    assert str(events[2]) == "seat 2 picks gear 2"
    assert events[2].to_json() == {"kind": "engines", "seat": 2, "gear": 2, "stalled": ""}


def test_redo_when_every_gear_stalled() -> None:
    """Both seats pick 2nd gear: all stall, and Start Your Engines is played again."""
    g = game()
    s = recording(g.new_initial_state(0))
    s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.5)})
    events = taken(s)
    assert events == [
        ev(E.ENGINES, 0, gear=2, stalled=" (stalled)"),
        ev(E.ENGINES, 1, gear=2, stalled=" (stalled)"),
        ev(E.REDO, None),
    ]
    assert str(events[-1]) == "every gear stalled: Start Your Engines again"
    assert events[-1].to_json() == {"kind": "redo", "seat": None}
    assert s.decision_kind() is DecisionKind.ENGINES and s.decision.attempt == 1
    assert all(p.lazer == [] for p in s.players)  # nothing placed


def test_redo_not_recorded_when_the_gears_are_dealt_instead() -> None:
    """After max_redos redos every gear stalls again: the gears are dealt, not chosen again."""
    g = game()
    s = recording(g.new_initial_state(0))
    for _ in range(g.rules.max_redos):
        s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.5)})
    assert [e.kind for e in taken(s)].count(E.REDO) == g.rules.max_redos
    s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.5)})
    assert s.chance_kind() is ChanceKind.DEAL_GEARS  # no redo: the gears are dealt
    assert taken(s) == [
        ev(E.ENGINES, 0, gear=2, stalled=" (stalled)"),
        ev(E.ENGINES, 1, gear=2, stalled=" (stalled)"),
    ]


def test_dealt_gears_after_the_last_redo() -> None:
    """Every gear stalls once more after the last redo: chance deals distinct gears."""
    g = game()
    s = recording(g.new_initial_state(0))
    for _ in range(g.rules.max_redos + 1):
        s.apply_actions({0: A.launch(2, 0.0), 1: A.launch(2, 0.5)})
    taken(s)
    deal = g.gear_deals.index((4, 1))
    s.apply_chance(deal)
    events = taken(s)
    assert events[:2] == [ev(E.DEALT, 0, gear=4), ev(E.DEALT, 1, gear=1)]
    assert str(events[0]) == "seat 0 is dealt gear 4 (every gear stalled too often)"
    assert [p.gear for p in s.players] == [4, 1]
    assert all(not p.stalled for p in s.players)


def test_launch_points_placed_blind_with_their_noise() -> None:
    """Start Your Engines with launch noise: each Launch Point lands at its aim plus noise."""
    g = game(launch_noise_sigma=1.5)
    s = recording(g.new_initial_state(0))
    s.apply_actions({0: A.launch(3, 0.0), 1: A.launch(2, 0.0)})
    assert [e.kind for e in taken(s)] == [E.ENGINES, E.ENGINES]  # placement still pending
    assert s.chance_kind() is ChanceKind.LAUNCH_NOISE
    s.apply_chance(2.0)  # seat 0: 2 inches clockwise of its seat (t = 0)
    events = taken(s)
    assert events == [ev(E.LAUNCH, 0, t=near(2.0))]
    assert events[0].get("t") == s.players[0].lazer[0].t
    assert str(events[0]) == "seat 0 places a Launch Point at 2.00 in along the edge"
    s.apply_chance(-1.0)  # seat 1: an inch back from its seat, half the perimeter round
    t1 = g.table.seat_position(1, 2) - 1.0
    assert t1 == pytest.approx(18.0 * math.pi - 1.0)
    assert taken(s) == [
        ev(E.LAUNCH, 1, t=near(t1)),
        ev(E.ROUND, None, round=1, order=[0, 1]),
    ]
    assert s.players[1].lazer[0].t == pytest.approx(t1, abs=1e-9)


def test_respawn_in_the_gear_chosen_after_a_crash() -> None:
    """Seat 0 crashes and respawns in 4th gear: the gear is recorded before the placement."""
    g = game()
    pre = straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)
    s = recording(position(g, 0, lazers={0: [pre]}, prizms=[], gears={0: 3}))
    move(s, 0, Move.STRAIGHT)
    taken(s)
    s.apply_action(A.launch(4, 0.0))
    events = taken(s)
    assert events[0] == ev(E.RESPAWN, 0, gear=4)
    assert str(events[0]) == "seat 0 respawns in gear 4"
    assert s.players[0].gear == 4 and not s.players[0].stalled


def test_launch_of_a_respawn_after_a_crash() -> None:
    """Seat 0 runs off the table, crashes and respawns in 2nd gear aiming at its seat."""
    g = game()
    pre = straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)
    s = recording(position(g, 0, lazers={0: [pre]}, prizms=[], gears={0: 3}))
    move(s, 0, Move.STRAIGHT)
    assert [e.kind for e in taken(s)] == [E.PIECE, E.CRASH]
    assert s.decision_kind() is DecisionKind.RESPAWN
    s.apply_action(A.launch(2, 0.0))
    assert taken(s) == [ev(E.RESPAWN, 0, gear=2), ev(E.LAUNCH, 0, t=near(0.0))]
    p = s.players[0]
    assert p.gear == 2 and len(p.lazer) == 1 and p.lazer[0].is_launch
    assert p.lazer[0].t == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------ the round
def test_round_with_its_turn_order() -> None:
    """Round 1 orders the seats by gear; seat 1 shifting above seat 0 leads round 2."""
    g = game()
    s = recording(g.new_initial_state(0))
    s.apply_actions({0: A.launch(3, 0.0), 1: A.launch(2, 0.0)})
    events = taken(s)
    assert events[-1] == ev(E.ROUND, None, round=1, order=[0, 1])
    assert str(events[-1]) == "round 1: turn order [0, 1]"
    s = recording(with_prizms(s, []))
    move(s, -1, Move.STRAIGHT)  # seat 0 to 2nd gear
    assert E.ROUND not in [e.kind for e in taken(s)]  # the round is not over
    move(s, 1, Move.STRAIGHT)  # seat 1 to 3rd gear: the last turn of round 1
    events = taken(s)
    assert [e.kind for e in events] == [E.SHIFT, E.PIECE, E.ROUND]
    assert events[-1] == ev(E.ROUND, None, round=2, order=[1, 0])
    assert (s.round, s.order) == (2, [1, 0])
    assert s.current_players() == (1,)


# ------------------------------------------------------------------ powers
@pytest.mark.parametrize("top, gear", [(True, 5), (False, 1)])
def test_power_super_sheriff_names_its_target_and_gear(top: bool, gear: int) -> None:
    """Super Sheriff sends seat 1 (3rd gear) to top or 1st gear at the start of its turn."""
    g = powers_game("super_sheriff")
    s = recording(position(g, 0, gears={1: 3}, power_ready={1: False}))
    assert s.decision_kind() is DecisionKind.POWER
    s.apply_action(A.sheriff(1, top))
    events = taken(s)
    assert events == [ev(E.POWER, 0, power=f"Super Sheriff: seat 1 to gear {gear}")]
    assert str(events[0]) == f"seat 0 uses Super Sheriff: seat 1 to gear {gear}"
    assert s.players[1].gear == gear
    assert not s.players[0].power_ready


def test_power_phantom_cosmonaut_declared() -> None:
    """Phantom Cosmonaut declares its power before moving."""
    g = powers_game("phantom_cosmonaut")
    s = eastward(g, 3, power_ready={1: False})
    assert s.decision_kind() is DecisionKind.POWER
    s.apply_action(A(K.PHANTOM))
    assert taken(s) == [ev(E.POWER, 0, power="Phantom Cosmonaut")]
    assert not s.players[0].power_ready
    assert s.decision_kind() is DecisionKind.MOVE and s.current_players() == (0,)


def test_power_lazer_shark_before_its_extra_straight() -> None:
    """Lazer Shark adds the 5th-gear straight after its 3rd-gear one and scores with it."""
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, prizms=[Prizm(4.0, 0.0)], power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    assert taken(s) == [ev(E.PIECE, 0, gear=3, piece="straight", x=-4.0, y=0.0, heading=0.0)]
    assert s.decision_kind() is DecisionKind.SHARK
    s.apply_action(A(K.SHARK))
    assert taken(s) == [
        ev(E.POWER, 0, power="Lazer Shark"),
        ev(E.PIECE, 0, gear=5, piece="straight", x=near(0.5), y=near(0.0), heading=near(0.0)),
        ev(E.SCORE, 0, prizm=0, stolen="", owner=-1),
        ev(E.SLIDE, None, prizm=0, x=near(8.0 - 0.75), y=near(0.0)),
    ]
    assert not s.players[0].power_ready
    assert specs_of(new_pieces(s, 0)) == [st(3), st(5)]


def test_power_galactic_waveryder_before_its_two_hard_turns() -> None:
    """Galactic Waveryder uses its power: two 2nd-gear hard turns without a roll."""
    g = powers_game("galactic_waveryder")
    s = eastward(g, 2, power_ready={1: False})
    move(s, 0, Move.WAVE_LEFT_RIGHT)
    assert not s.players[0].power_ready  # the power was used
    assert [e.kind for e in taken(s)] == [E.POWER, E.PIECE, E.PIECE]


def test_power_galactic_waveryder_lays_its_two_hard_turns() -> None:
    """Galactic Waveryder's two 2nd-gear hard turns are laid one on the other."""
    g = powers_game("galactic_waveryder")
    s = eastward(g, 2, power_ready={1: False})
    move(s, 0, Move.WAVE_LEFT_RIGHT)
    first, second = new_pieces(s, 0)
    pieces = [e for e in taken(s) if e.kind is E.PIECE]
    # a hard left of radius 1.9099 from (-4, 0) east ends at (-2.0901, 1.9099) heading north
    assert pieces == [
        ev(E.PIECE, 0, gear=2, piece="hard left", x=-4.0, y=0.0, heading=0.0),
        ev(
            E.PIECE,
            0,
            gear=2,
            piece="hard right",
            x=near(-4.0 + 3.0 / (math.pi / 2)),
            y=near(3.0 / (math.pi / 2)),
            heading=near(UP),
        ),
    ]
    assert (pieces[1].get("x"), pieces[1].get("y"), pieces[1].get("heading")) == tuple(second.pose)
    assert second.pose == first.exit


# ------------------------------------------------------------------ shift and move
@pytest.mark.parametrize("shift, gear", [(-1, 2), (1, 4)])
def test_shift_to_the_new_gear(shift: int, gear: int) -> None:
    """Seat 0 in 3rd gear shifts down or up, then goes straight in the new gear."""
    g = game()
    s = eastward(g, 3)
    move(s, shift, Move.STRAIGHT)
    events = taken(s)
    assert events == [
        ev(E.SHIFT, 0, gear=gear),
        ev(E.PIECE, 0, gear=gear, piece="straight", x=-4.0, y=0.0, heading=0.0),
    ]
    assert str(events[0]) == f"seat 0 shifts to gear {gear}"
    assert s.players[0].gear == gear
    assert specs_of(new_pieces(s, 0)) == [st(gear)]


def test_shift_not_recorded_when_staying_in_gear() -> None:
    """Seat 0 stays in 3rd gear: no shift event."""
    g = game()
    s = eastward(g, 3)
    move(s, 0, Move.STRAIGHT)
    assert [e.kind for e in taken(s)] == [E.PIECE]
    assert s.players[0].gear == 3


@pytest.mark.parametrize(
    "mv, roll, piece, spec, gear_after",
    [
        (Move.SOFT_LEFT, 4, "soft left", (SOFT, 3, L), 3),  # roll >= gear: the curve
        (Move.HARD_RIGHT, 3, "hard right", (HARD, 3, R), 3),  # roll == gear: the curve
        (Move.HARD_RIGHT, 2, "straight", (S, 3, 0), 3),  # roll < gear: a straight
        (Move.SOFT_LEFT, 0, "soft left", (SOFT, 3, L), 1),  # Spin Out: the curve, then 1st
    ],
)
def test_die_is_the_rolled_face(
    mv: Move, roll: int, piece: str, spec: tuple[Any, ...], gear_after: int
) -> None:
    """Seat 0 in 3rd gear attempts a curve; the die shows ``roll``."""
    g = game()
    s = eastward(g, 3)
    s.apply_action(A.move(0, mv))
    assert taken(s) == []  # the move waits for the die
    assert s.chance_kind() is ChanceKind.DIE
    s.apply_chance(roll)
    events = taken(s)
    spin = ": Spin Out" if roll == 0 else ""
    assert events == [
        ev(E.DIE, 0, roll=roll, spin=spin),
        ev(E.PIECE, 0, gear=3, piece=piece, x=-4.0, y=0.0, heading=0.0),
    ]
    assert str(events[0]) == f"seat 0 rolls {roll}{spin}"
    assert specs_of(new_pieces(s, 0)) == [spec]
    assert s.players[0].gear == gear_after


# ------------------------------------------------------------------ pieces
@pytest.mark.parametrize(
    "shift, mv, roll, gear, piece, spec",
    [
        (0, Move.STRAIGHT, None, 3, "straight", (S, 3, 0)),
        (-1, Move.SOFT_RIGHT, 5, 2, "soft right", (SOFT, 2, R)),
        (0, Move.HARD_LEFT, 4, 3, "hard left", (HARD, 3, L)),
    ],
)
def test_piece_laid_at_the_head_the_lazer_had(
    shift: int, mv: Move, roll: int | None, gear: int, piece: str, spec: tuple[Any, ...]
) -> None:
    """Seat 0 lays one piece on its head at (-4, 0) heading east."""
    g = game()
    s = eastward(g, 3)
    head = s.players[0].head
    assert head is not None
    move(s, shift, mv, roll)
    pieces = [e for e in taken(s) if e.kind is E.PIECE]
    # the piece's entry pose: the head before, exactly
    assert pieces == [ev(E.PIECE, 0, gear=gear, piece=piece, x=head.x, y=head.y, heading=head.h)]
    (el,) = new_pieces(s, 0)
    assert (el.kind, el.gear, el.side) == spec and el.turn == NOW
    assert (pieces[0].get("x"), pieces[0].get("y"), pieces[0].get("heading")) == tuple(el.pose)
    assert s.players[0].head == el.exit  # the Lazer's new head is the piece's exit
    assert str(pieces[0]) == f"seat 0 lays a gear {gear} {piece} at (-4.00, 0.00)"
    assert pieces[0].to_json() == {
        "kind": "piece",
        "seat": 0,
        "gear": gear,
        "piece": piece,
        "x": -4.0,
        "y": 0.0,
        "heading": 0.0,
    }


def test_piece_of_the_large_table_bonus() -> None:
    """On the large table seat 0 takes the bonus: a 5th-gear straight on its Launch Point."""
    g = game(table="large")
    s = engines(g, [3, 2])
    assert s.decision_kind() is DecisionKind.BONUS
    lp = s.players[0].lazer[0]
    s = recording(s)
    s.apply_action(A(K.BONUS))
    # seat 0's Launch Point at the bottom of the 72-inch table: back corners 0.75 either
    # side of x = 0 on the circle, its point 1 inch in front, its exit a tip (0.375) behind
    y = -(math.sqrt(36.0**2 - 0.75**2) - (1.0 - 0.375))
    assert taken(s) == [
        ev(E.PIECE, 0, gear=5, piece="straight", x=near(0.0), y=near(y), heading=near(UP))
    ]
    assert (lp.exit.x, lp.exit.y) == (near(0.0), near(y))
    assert s.players[0].lazer[1].pose == lp.exit
    assert s.players[0].gear == 3  # the bonus changes no gear: no shift event either


# ------------------------------------------------------------------ running out
def test_pulled_oldest_elements_until_a_piece_is_free() -> None:
    """Seat 0 in 1st gear has both 1st-gear straights on its Lazer: its Launch Point and
    then its oldest straight come off, and that straight is laid on the head."""
    g = game()
    lp = launch_point(g, 0, 0.0)
    lazer = [lp, *chain(g, 0, lp.exit, [st(1), st(1)])]
    s = recording(position(g, 0, lazers={0: lazer}, prizms=[], gears={0: 1}))
    before = list(s.players[0].lazer)
    head = s.players[0].head
    assert head is not None
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    assert events == [
        ev(E.PULLED, 0, launch_point=True),
        ev(E.PULLED, 0, launch_point=False),
        ev(E.PIECE, 0, gear=1, piece="straight", x=head.x, y=head.y, heading=head.h),
    ]
    assert str(events[0]) == "seat 0 pulls its oldest piece off the table (Launch Point: True)"
    p = s.players[0]
    assert p.lazer[0] is before[2]  # the Launch Point and the oldest straight are gone
    assert specs_of(p.lazer) == [st(1), st(1)]
    assert p.supply[0][S] == 0


# ------------------------------------------------------------------ scoring
@pytest.mark.parametrize("owner, stolen", [(-1, ""), (1, " from seat 1")])
def test_score_names_the_prizm_and_its_owner_before(owner: int, stolen: str) -> None:
    """Seat 0's 3rd-gear straight crosses a neutral Prizm, or seat 1's."""
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3, owner), Prizm(9.0, -9.0, 1)])
    held = s.score(1)
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    assert events == [
        ev(E.PIECE, 0, gear=3, piece="straight", x=-4.0, y=0.0, heading=0.0),
        ev(E.SCORE, 0, prizm=0, stolen=stolen, owner=owner),
        ev(E.SLIDE, None, prizm=0, x=near(0.5 - 0.75), y=near(0.0)),
    ]
    assert str(events[1]) == f"seat 0 scores Prizm 0{stolen}"
    assert s.prizms[events[1].get("prizm")].owner == 0  # now held by the scorer
    assert s.score(0) == 1 and s.score(1) == held - (owner == 1)
    # a neutral scored is replaced by a fresh one; a stolen Prizm is not
    assert (s.chance_kind() is ChanceKind.TOSS) is (owner == -1)


def test_score_of_two_prizms_by_one_piece() -> None:
    """Seat 0's straight crosses two neutrals: both score, then slide into a touching row."""
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-3.0, 0.3), Prizm(-1.2, -0.3)])
    move(s, 0, Move.STRAIGHT)
    assert taken(s) == [
        ev(E.PIECE, 0, gear=3, piece="straight", x=-4.0, y=0.0, heading=0.0),
        ev(E.SCORE, 0, prizm=0, stolen="", owner=-1),
        ev(E.SCORE, 0, prizm=1, stolen="", owner=-1),
        # the last crossed first, to 0.75 behind the exit; the other comes to touch it
        ev(E.SLIDE, None, prizm=1, x=near(-0.25), y=near(0.0)),
        ev(E.SLIDE, None, prizm=0, x=near(-1.75, 1e-6), y=near(0.0)),
    ]
    assert [q.owner for q in s.prizms] == [0, 0]


# ------------------------------------------------------------------ slides
def test_slide_along_a_straight_to_behind_its_exit() -> None:
    """A 4th-gear straight (x -4 .. 2) scores a Prizm that slides to 0.75 behind its exit."""
    g = game()
    s = eastward(g, 4, prizms=[Prizm(-1.75, 0.3)])
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    assert events[1:] == [
        ev(E.SCORE, 0, prizm=0, stolen="", owner=-1),
        ev(E.SLIDE, None, prizm=0, x=near(1.25), y=near(0.0)),
    ]
    q = s.prizms[0]
    assert (events[-1].get("x"), events[-1].get("y")) == (q.x, q.y)  # where it lies now
    assert str(events[-1]) == "Prizm 0 slides to (1.25, 0.00)"


def test_slide_along_a_curve_to_behind_its_exit() -> None:
    """A 3rd-gear soft left scores a Prizm on its centreline halfway (arc 2.25): it slides
    to arc 3.75, 0.75 behind the exit."""
    g = game()
    rad = 4.5 / (math.pi / 4)

    def on_arc(d: float) -> tuple[float, float]:
        return (-4.0 + rad * math.sin(d / rad), rad * (1 - math.cos(d / rad)))

    s = eastward(g, 3, prizms=[Prizm(*on_arc(2.25))])
    move(s, 0, Move.SOFT_LEFT, roll=4)
    events = taken(s)
    x, y = on_arc(3.75)
    assert events[2:] == [
        ev(E.SCORE, 0, prizm=0, stolen="", owner=-1),
        ev(E.SLIDE, None, prizm=0, x=near(x), y=near(y)),
    ]
    assert (events[-1].get("x"), events[-1].get("y")) == (s.prizms[0].x, s.prizms[0].y)


def test_slide_not_recorded_for_a_prizm_touched_by_two_colours() -> None:
    """A Prizm touched by seat 1's Lazer is scored by seat 0 but stays where it is."""
    g = game()
    # seat 1's straight along y = 1.4 touches the disc's top, 0.65 clear of seat 0's piece
    other = chain(g, 1, Pose(-6.0, 1.4, EAST), [st(5)])
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3)], lazers={1: other})
    move(s, 0, Move.STRAIGHT)
    assert [e.kind for e in taken(s)] == [E.PIECE, E.SCORE]
    assert s.prizms[0] == Prizm(-1.75, 0.3, 0)


# ------------------------------------------------------------------ Nudges
def test_nudge_of_a_prizm_passed_over_without_scoring() -> None:
    """Seat 0's straight passes over a neutral 0.45 off its centreline without crossing it."""
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.45)])
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    # straight up: 0.375 (half-width) + 0.75 (clearance) + 0.75 (radius) off the centreline
    assert events == [
        ev(E.PIECE, 0, gear=3, piece="straight", x=-4.0, y=0.0, heading=0.0),
        ev(E.NUDGE, None, prizm=0, x=near(-1.75, NUDGE_TOL), y=near(1.875, NUDGE_TOL)),
    ]
    q = s.prizms[0]
    assert q.owner == -1
    assert (events[-1].get("x"), events[-1].get("y")) == (q.x, q.y)
    assert str(events[-1]) == "Prizm 0 is nudged to (-1.75, 1.88)"


def test_nudge_of_a_fresh_prizm_tossed_onto_a_lazer() -> None:
    """The fresh neutral lands on seat 0's new piece and is Nudged clear of it."""
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3)])
    move(s, 0, Move.STRAIGHT)
    taken(s)
    toss(s, (-3.0, 0.2))
    events = taken(s)
    assert events == [
        ev(E.TOSS, None, prizm=1, x=-3.0, y=0.2),
        ev(E.NUDGE, None, prizm=1, x=near(-3.0, NUDGE_TOL), y=near(1.875, NUDGE_TOL)),
    ]
    assert s.prizms[1] == Prizm(events[-1].get("x"), events[-1].get("y"), -1)


def test_nudge_not_recorded_for_a_locked_prizm() -> None:
    """Seat 0 passes over its own Prizm: it is locked and stays."""
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.45, 0)])
    move(s, 0, Move.STRAIGHT)
    assert [e.kind for e in taken(s)] == [E.PIECE]
    assert s.prizms == [Prizm(-1.75, 0.45, 0)]


# ------------------------------------------------------------------ crashes
def test_crash_off_the_table_returns_every_piece() -> None:
    """Seat 0's 3rd-gear straight from (14, 0) east leaves the table (radius 18)."""
    g = game()
    pre = straight_at(g, 0, Pose(14.0, 0.0, EAST), 1, PREV)
    s = recording(position(g, 0, lazers={0: [pre]}, prizms=[], gears={0: 3}))
    on_table = sum(1 for e in s.players[0].lazer if not e.is_launch)
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    assert events == [
        ev(E.PIECE, 0, gear=3, piece="straight", x=14.0, y=0.0, heading=0.0),
        ev(E.CRASH, 0, pieces=2),
    ]
    assert on_table + 1 == events[-1].get("pieces")
    assert str(events[-1]) == "seat 0 crashes and loses 2 pieces"
    p = s.players[0]
    assert p.lazer == [] and p.head is None
    assert p.supply == [list(row) for row in g.supply]  # every piece back in the supply
    assert s.decision_kind() is DecisionKind.RESPAWN


def test_crash_of_a_lazer_shark_that_did_not_score() -> None:
    """Lazer Shark adds its straight and scores nothing this turn: it crashes."""
    g = powers_game("lazer_shark", "super_sheriff")
    s = eastward(g, 3, power_ready={1: False})
    move(s, 0, Move.STRAIGHT)
    s.apply_action(A(K.SHARK))
    events = taken(s)
    assert [e.kind for e in events] == [E.PIECE, E.POWER, E.PIECE, E.CRASH]
    assert events[-1] == ev(E.CRASH, 0, pieces=3)  # the previous piece and both new ones
    assert s.players[0].lazer == []
    assert s.players[0].supply == [list(row) for row in g.supply]


def victim_line(g: Game) -> list[Any]:
    """Seat 1's Lazer along y = 0: its Launch Point on the west edge (exit at x = -17.36),
    then 2nd-gear straights to x = -14.36 and -11.36 and 3rd-gear ones to -6.86 and -2.36."""
    lp = launch_point(g, 1, 0.25 * g.table.perimeter)
    return [lp, *chain(g, 1, lp.exit, [st(2), st(2), st(3), st(3)])]


def test_hit_victim_loses_its_newest_hit_piece_and_older() -> None:
    """Seat 0 goes north across seat 1's second piece: seat 0 crashes, seat 1 loses its two
    2nd-gear straights (and its Launch Point)."""
    g = game()
    pre = straight_at(g, 0, Pose(-12.9, -1.0, UP), 1, PREV)
    lazers = {0: [pre], 1: victim_line(g)}
    s = recording(position(g, 0, lazers=lazers, prizms=[Prizm(10.0, -10.0, 0)], gears={0: 3}))
    before = list(s.players[1].lazer)
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    assert events == [
        ev(E.PIECE, 0, gear=3, piece="straight", x=-12.9, y=-1.0, heading=near(UP)),
        ev(E.CRASH, 0, pieces=2),
        ev(E.HIT, 1, pieces=2),
    ]
    assert str(events[-1]) == "seat 1 is hit and loses 2 pieces"
    v = s.players[1]
    assert v.lazer == before[3:]  # the two 3rd-gear straights stay
    assert v.supply[1][S] == 2  # the two 2nd-gear straights went back
    assert s.players[0].lazer == []
    assert s.prizms == [Prizm(10.0, -10.0, 0)]  # the crasher's Prizm stays


def test_hit_every_victim_in_seat_order() -> None:
    """Seat 0's 5th-gear straight north along x = -4.5 crosses seats 1 and 2's first pieces."""
    g = game(num_players=3)
    one = chain(g, 1, Pose(-6.0, 2.0, EAST), [st(2), st(3)])
    two = chain(g, 2, Pose(-6.0, 4.0, EAST), [st(2), st(3)])
    pre = straight_at(g, 0, Pose(-4.5, -1.0, UP), 1, PREV)
    lazers = {0: [pre], 1: one, 2: two}
    s = recording(position(g, 0, lazers=lazers, prizms=[], gears={0: 5}))
    move(s, 0, Move.STRAIGHT)
    assert taken(s) == [
        ev(E.PIECE, 0, gear=5, piece="straight", x=-4.5, y=-1.0, heading=near(UP)),
        ev(E.CRASH, 0, pieces=2),
        ev(E.HIT, 1, pieces=1),
        ev(E.HIT, 2, pieces=1),
    ]
    for seat in (1, 2):
        assert specs_of(s.players[seat].lazer) == [st(3)]
        assert s.players[seat].supply[1][S] == 2  # its 2nd-gear straight went back


# ------------------------------------------------------------------ Prizms reappear
def test_toss_of_a_fresh_neutral_after_a_neutral_scored() -> None:
    """Seat 0 scores a neutral; the fresh one lands clear of everything."""
    g = game()
    s = eastward(g, 3, prizms=[Prizm(-1.75, 0.3), Prizm(9.0, -9.0, 1)])
    move(s, 0, Move.STRAIGHT)
    assert [e.kind for e in taken(s)] == [E.PIECE, E.SCORE, E.SLIDE]
    toss(s, (5.0, 6.0))
    events = taken(s)
    assert events == [ev(E.TOSS, None, prizm=2, x=5.0, y=6.0)]
    assert str(events[0]) == "a fresh Prizm 2 lands at (5.00, 6.00)"
    assert events[0].to_json() == {"kind": "toss", "seat": None, "prizm": 2, "x": 5.0, "y": 6.0}
    assert s.prizms[2] == Prizm(5.0, 6.0, -1)
    assert s.current_players() == (1,)


def test_toss_of_the_starting_prizms_on_an_odd_table() -> None:
    """With toss_start_prizms each player tosses a starting Prizm; the second lands on the
    first and is Nudged clear of it."""
    odd = {"toss_start_prizms": True, "start_far_sides": False, "large_far_sides": False}
    g = game(odd_table=odd)
    s = recording(g.new_initial_state(0))
    assert s.prizms == [] and s.chance_kind() is ChanceKind.TOSS
    toss(s, (1.0, 1.0))
    assert taken(s) == [ev(E.TOSS, None, prizm=0, x=1.0, y=1.0)]
    toss(s, (1.5, 1.0))
    events = taken(s)
    assert [e for e in events if e.kind is E.TOSS] == [ev(E.TOSS, None, prizm=1, x=1.5, y=1.0)]
    assert [e.kind for e in events] == [E.TOSS, E.NUDGE]
    q = s.prizms[1]
    assert (events[-1].get("x"), events[-1].get("y")) == (q.x, q.y)
    assert math.hypot(q.x - 1.0, q.y - 1.0) == pytest.approx(2.25, abs=NUDGE_TOL)
    assert s.decision_kind() is DecisionKind.ENGINES


# ------------------------------------------------------------------ the end
def _winning_move() -> tuple[State, list[Event]]:
    """Seat 0 holds two Prizms and scores a third with a 3rd-gear straight."""
    g = game()
    prizms = [Prizm(10.0, 10.0, 0), Prizm(-1.75, 0.3), Prizm(-10.0, 10.0, 0)]
    s = eastward(g, 3, prizms=prizms)
    move(s, 0, Move.STRAIGHT)
    return s, taken(s)


def test_end_on_a_third_prizm_names_the_winner() -> None:
    """Seat 0 scores its third Prizm: it wins at once."""
    s, events = _winning_move()
    ends = [e for e in events if e.kind is E.END]
    assert ends == [ev(E.END, 0, outcome="win", winner=0)]
    assert str(ends[0]) == "game over: win, winner 0"
    assert ev(E.SCORE, 0, prizm=1, stolen="", owner=-1) in events
    assert s.outcome().reason is Outcome.WIN and s.outcome().winner == 0
    assert ends[0].get("outcome") == s.outcome().reason.value
    assert s.is_terminal() and s.chance is None  # no toss for the winning Prizm


def test_end_is_the_last_event_of_the_game() -> None:
    """Seat 0's winning piece: nothing is recorded after the game is over."""
    _, events = _winning_move()
    assert events[-1] == ev(E.END, 0, outcome="win", winner=0)


def test_end_on_the_round_limit_has_no_winner() -> None:
    """A one-round game: after both turns the game is truncated."""
    g = game(round_limit=1)
    s = recording(with_prizms(engines(g, [3, 2]), []))
    move(s, 0, Move.STRAIGHT)
    assert E.END not in [e.kind for e in taken(s)]
    move(s, 0, Move.STRAIGHT)
    events = taken(s)
    assert [e.kind for e in events] == [E.PIECE, E.END]
    assert events[-1] == ev(E.END, None, outcome="truncated", winner=None)
    assert str(events[-1]) == "game over: truncated, winner None"
    assert events[-1].to_json() == {
        "kind": "end",
        "seat": None,
        "outcome": "truncated",
        "winner": None,
    }
    assert s.outcome().reason is Outcome.TRUNCATED and s.outcome().winner is None


# ------------------------------------------------------------------ the vocabulary
def test_every_kind_of_the_vocabulary_is_tested_here() -> None:
    """The 18 kinds of ``RyderzEvent``, each with a test named after it in this file."""
    names = {e.value for e in E}
    assert len(names) == 18
    tests = {name for name in globals() if name.startswith("test_")}
    assert {n for n in names if not any(t.startswith(f"test_{n}_") for t in tests)} == set()
