"""Scenario tests of every Lunatix Loop turn-event kind (``lunatix_env/rules/events.py``).

Each test sets up a position with the public ``PositionBuilder`` (through
``tests/lunatix_builders.py``), switches recording on, acts, resolves chance with chosen
outcomes and asserts the exact events recorded (kind, seat, every field in order, ``to``)
against the table in ``docs/events.md`` and against the state they leave: a ``move`` ends on
the car's square, ``damage`` names the car's new max speed, ``lap`` is ``state.laps(seat)``,
``out`` leaves the car out, and ``gadget_drawn`` / ``gadget_kept`` reach their seat only.

Positions use two cars on The Loop: the back straight (lanes line up square for square there,
``back(lane, i)``) and the home straight with the basic pit (enter at A2, square 49; leave at
B1, square 0). Seat 1 is parked at 0 mph out of the way unless a test says otherwise; luck
chips are 0 so that cards follow each other without a luck decision.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from lunatix_builders import (
    A,
    K,
    act,
    choose,
    force,
    gadget_index,
    give_gadget,
    hazard_index,
    lay_chip,
    put,
    square_at,
    start,
    turbo_index,
)

from lunatix_env.rules import (
    Action,
    Card,
    ChanceKind,
    DecisionKind,
    Game,
    Outcome,
    PositionBuilder,
    ShopItem,
    State,
)
from lunatix_env.rules.events import LunatixEvent as E
from tabletop.events import Event, visible

FL, FWD, FR = 0, 1, 2  # step / ram directions: front-left, front, front-right
TACKS, OIL, GLUE = 0, 1, 2
A2, B1 = 49, 0  # the basic pit's entry and exit squares
LAP_LINE_BEFORE = 51  # lane 0's last square before the finish line (square 0 is after it)


# ---------------------------------------------------------------------------- helpers
@functools.cache
def game_of(n: int = 2, **overrides: Any) -> Game:
    """A game (immutable, so shared between tests)."""
    return Game(num_players=n, **overrides)


def back(lane: int, i: int) -> int:
    """Square ``i`` (0..11) of The Loop's back straight in ``lane``; the lanes line up there."""
    return square_at(game_of(), lane, (20, 24, 28)[lane] + i)


PARK = back(2, 10)  # where seat 1 waits at 0 mph


def ev(kind: E, seat: int | None, *, to: int | None = None, **fields: Any) -> Event:
    """The event ``kind`` about ``seat`` with ``fields`` in the order given, seen by ``to``
    only (None: by everyone)."""
    return Event(kind, seat, tuple(fields.items()), to)


def setup(g: Game | None = None) -> PositionBuilder:
    """Round 1's reveal: seat 1 parked at 0 mph on ``PARK``, no luck chips on either car."""
    b = start(g or game_of())
    put(b, 1, PARK, speed=0)
    return b.car(0, luck=0).car(1, luck=0)


def recording(b: PositionBuilder) -> State:
    """The built position, recording events."""
    s = b.build()
    s.record_events()
    return s


def step(direction: int, drop: bool = False) -> Action:
    return A(K.STEP, direction * 2 + int(drop))


def only(s: State, kind: str, seat: int) -> None:
    """The pending chance event is ``kind`` for ``seat``."""
    assert s.chance is not None and (s.chance.kind.value, s.chance.seat) == (kind, seat)


def onto_chip(kind: int, speed: int = 30, b: PositionBuilder | None = None) -> State:
    """Seat 0 on ``back(1, 0)`` brakes 10 and steps onto a ``kind`` chip on ``back(1, 1)``;
    the events up to the step are taken."""
    b = b or setup()
    put(b, 0, back(1, 0), speed=speed)
    lay_chip(b, back(1, 1), kind)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10), step(FWD))
    s.take_events()
    return s


def hazard_drawn(name: str, b: PositionBuilder | None = None) -> State:
    """Seat 0 runs over oil and draws the hazard card ``name``; the events up to the draw are
    taken."""
    s = onto_chip(OIL, b=b)
    only(s, "hazard", 0)
    force(s, [hazard_index(s.game, name)])
    s.take_events()
    return s


def turbo_drawn(name: str, b: PositionBuilder | None = None) -> State:
    """Seat 0 at 40 mph on ``back(1, 0)`` plays Accelerate, turbos and draws ``name``; the
    events up to the draw are taken."""
    b = b or setup()
    put(b, 0, back(1, 0), speed=40)
    s = recording(b)
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    only(s, "turbo", 0)
    force(s, [turbo_index(s.game, name)])
    s.take_events()
    return s


def at_shop(b: PositionBuilder | None = None, max_speed: int = 140) -> State:
    """Seat 0 brakes from 30 to 20 mph on A2 and enters the pit (no hazard card at the 30 mph
    opening): the state at its first shop decision, events taken."""
    b = b or setup()
    put(b, 0, A2, speed=30, max_speed=max_speed)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10), A(K.ENTER_PIT, 0))
    assert s.decision_kind() is DecisionKind.SHOP and s.cars[0].in_pit
    s.take_events()
    return s


def in_pit(b: PositionBuilder, laps: int = 0) -> State:
    """Seat 0 in the pit (entered at A2) with ``laps`` laps; seat 1 at 10 mph brakes to 0 first.
    The state at seat 0's Accelerate decision, events taken."""
    b.car(0, speed=0).pit(0, "A2", lap=laps)
    put(b, 1, PARK, speed=10)
    s = recording(b)
    choose(s, {0: Card.ACCELERATE, 1: Card.BRAKE})
    act(s, A(K.BRAKE, 10))  # seat 1 (Brake acts before Accelerate)
    assert s.decision_kind() is DecisionKind.ACCELERATE and s.current_players() == (0,)
    s.take_events()
    return s


# ---------------------------------------------------------------------------- setup
def test_start_dot() -> None:
    """Setup: each start dot dealt by chance is recorded with its square, in seat order."""
    g = game_of()
    s = g.new_initial_state(0)
    s.record_events()
    assert s.take_events() == []
    dots = g.track.start_dots
    assert s.chance_kind() is ChanceKind.START_DOT
    s.apply_chance(2)
    assert s.take_events() == [ev(E.START_DOT, 0, square=dots[2])]
    s.apply_chance(5)
    (e,) = s.take_events()
    assert e == ev(E.START_DOT, 1, square=dots[5])
    assert (s.cars[0].square, s.cars[1].square) == (dots[2], e.get("square"))
    assert str(e) == f"seat 1 starts on square {dots[5]}"
    assert e.to_json() == {"kind": "start_dot", "seat": 1, "square": dots[5]}


def test_chips() -> None:
    """Setup: the simultaneous chip-mix choice records each seat's mix, then round 1 starts."""
    g = game_of()
    s = g.new_initial_state(0)
    force(s, [0, 1])
    s.record_events()
    mixes = g.codec.chip_mixes
    s.apply_actions(
        {0: A(K.CHIP_MIX, mixes.index((2, 3, 3))), 1: A(K.CHIP_MIX, mixes.index((8, 0, 0)))}
    )
    events = s.take_events()
    assert events == [
        ev(E.CHIPS, 0, tacks=2, oil=3, glue=3),
        ev(E.CHIPS, 1, tacks=8, oil=0, glue=0),
        ev(E.ROUND, None, round=1),
    ]
    for e in events[:2]:
        assert s.cars[e.seat].chips == [e.get("tacks"), e.get("oil"), e.get("glue")]
    assert str(events[0]) == "seat 0 takes 2 tacks, 3 oil and 3 glue chips"


# ---------------------------------------------------------------------------- rounds
def test_round() -> None:
    """Both cars brake to 0 mph: the round ends and round 2 starts with a table event."""
    b = setup()
    put(b, 0, back(1, 0), speed=10)
    put(b, 1, PARK, speed=10)
    s = recording(b)
    choose(s, {0: Card.BRAKE, 1: Card.BRAKE})
    act(s, A(K.BRAKE, 10), A(K.BRAKE, 10))
    assert s.take_events() == [
        ev(E.CARD, 0, card="card brake"),
        ev(E.CARD, 1, card="card brake"),
        ev(E.ORDER, None, order=[1, 0]),  # same card and speed: seat 1 is further ahead
        ev(E.SPEED, 1, before=10, after=0, why="brake"),
        ev(E.SPEED, 0, before=10, after=0, why="brake"),
        ev(E.ROUND, None, round=2),
    ]
    assert s.round == 2 and s.decision_kind() is DecisionKind.CARD
    assert str(ev(E.ROUND, None, round=2)) == "round 2"


def test_card() -> None:
    """The reveal records each seat's card as revealed (a numbered gadget included)."""
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    put(b, 1, PARK, speed=40)
    rocket = give_gadget(b, 1, "Rocket Booster")
    s = recording(b)
    drop, gadget = A(K.CARD, int(Card.DROP)), A(K.PLAY_GADGET, rocket)
    s.apply_actions({0: drop, 1: gadget})
    events = s.take_events()
    assert events == [
        ev(E.CARD, 0, card="card drop"),
        ev(E.CARD, 1, card="gadget Rocket Booster"),
        ev(E.ORDER, None, order=[0, 1]),  # Drop (3) before the Rocket Booster (4)
    ]
    assert s.cards == [s.game.codec.encode(drop), s.game.codec.encode(gadget)]
    assert rocket in s.cars[1].spent and s.decision_kind() is DecisionKind.DROP_KIND
    assert str(events[0]) == "seat 0 plays card drop"


def test_order() -> None:
    """Both play Accelerate: the faster seat 1 goes first, and the order event says so."""
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    put(b, 1, PARK, speed=50)
    s = recording(b)
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})
    events = s.take_events()
    assert events[2:] == [ev(E.ORDER, None, order=[1, 0])]
    assert s.order == events[2].get("order") and s.current_players() == (1,)
    assert str(events[2]) == "turn order: seats [1, 0]"


# ---------------------------------------------------------------------------- speed
def test_speed_brake() -> None:
    """A Brake card: seat 0 brakes 30 from 40 mph before moving."""
    b = setup()
    put(b, 0, back(1, 0), speed=40)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    s.take_events()
    act(s, A(K.BRAKE, 30))
    (e,) = s.take_events()
    assert e == ev(E.SPEED, 0, before=40, after=10, why="brake")
    assert s.cars[0].speed == e.get("after") and s.decision_kind() is DecisionKind.STEP
    assert str(e) == "seat 0: 40 -> 10 mph (brake)"


@pytest.mark.parametrize(
    ("played", "gain"),
    [(None, A(K.ACCELERATE, 20)), ("Charger", A(K.CHARGE, 30))],
    ids=["accelerate_card", "charger"],
)
def test_speed_accelerate(played: str | None, gain: Action) -> None:
    """An Accelerate card (+20) or a Charger (+30) on a straight: one accelerate event."""
    b = setup()
    put(b, 0, back(1, 0), speed=40)
    card: Action | Card = Card.ACCELERATE
    if played is not None:
        card = A(K.PLAY_GADGET, give_gadget(b, 0, played))
    s = recording(b)
    choose(s, {0: card})
    s.take_events()
    act(s, gain)
    assert s.take_events() == [ev(E.SPEED, 0, before=40, after=40 + gain.arg, why="accelerate")]
    assert s.cars[0].speed == 40 + gain.arg and s.decision_kind() is DecisionKind.STEP


def test_speed_turbo() -> None:
    """Accelerate with turbo: the +30 card drawn, then the speed it gives."""
    b = setup()
    put(b, 0, back(1, 0), speed=40)
    s = recording(b)
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    s.take_events()
    force(s, [turbo_index(s.game, "+30")])
    assert s.take_events() == [
        ev(E.TURBO, 0, card="+30"),
        ev(E.SPEED, 0, before=40, after=70, why="turbo"),
    ]
    assert s.cars[0].speed == 70 and s.decision_kind() is DecisionKind.STEP


def test_speed_rocket() -> None:
    """A Rocket Booster played as the card: +60 mph at the start of the car's turn."""
    b = setup()
    put(b, 0, back(1, 0), speed=40)
    rocket = give_gadget(b, 0, "Rocket Booster")
    s = recording(b)
    choose(s, {0: A(K.PLAY_GADGET, rocket)})
    assert s.take_events() == [
        ev(E.CARD, 0, card="gadget Rocket Booster"),
        ev(E.CARD, 1, card="card accelerate"),
        ev(E.ORDER, None, order=[0, 1]),
        ev(E.SPEED, 0, before=40, after=100, why="rocket"),
    ]
    assert s.cars[0].speed == 100 and s.decision_kind() is DecisionKind.STEP


def test_speed_slowed() -> None:
    """Oil draws the hazard card Brake 20: the car at 20 mph is slowed to 0."""
    s = onto_chip(OIL)
    force(s, [hazard_index(s.game, "Brake 20")])
    assert s.take_events() == [
        ev(E.HAZARD, 0, card="Brake 20"),
        ev(E.SPEED, 0, before=20, after=0, why="slowed"),
    ]
    assert s.cars[0].speed == 0 and s.current_players() == (1,)  # its move is over


def test_speed_set() -> None:
    """After shopping, a car that entered the pit at 20 mph has its speed set to 0."""
    s = at_shop()
    act(s, A(K.SHOP, ShopItem.DONE))
    assert s.take_events() == [
        ev(E.SHOP, 0, item="buy done"),
        ev(E.SPEED, 0, before=20, after=0, why="set"),
    ]
    assert s.cars[0].speed == 0 and s.cars[0].in_pit


def _damage_clamp() -> tuple[State, list[Event], list[tuple[int, int, int]]]:
    b = setup()
    put(b, 0, back(1, 0), speed=30, max_speed=30)
    s = onto_chip(TACKS, b=b)  # 20 mph on the tacks
    force(s, [2])  # 2 hits: max speed 10, speed clamped at once
    return s, s.take_events(), [(0, 20, 10)]


def _head_on() -> tuple[State, list[Event], list[tuple[int, int, int]]]:
    b = setup(game_of(turn_around=True))
    put(b, 0, back(1, 0), speed=50)
    put(b, 1, back(1, 1), speed=40, facing=1)
    s = recording(b)
    choose(s, {0: Card.RAM, 1: Card.BRAKE})
    s.take_events()
    act(s, A(K.RAM, FWD))
    force(s, [0, 0])
    return s, s.take_events(), [(0, 50, 0), (1, 40, 0)]


def _turbo_turn_end() -> tuple[State, list[Event], list[tuple[int, int, int]]]:
    b = setup()
    put(b, 0, back(1, 0), speed=40, max_speed=120)
    s = turbo_drawn("+60 Big Bang", b)  # 100 mph, 2 dice
    force(s, [4])  # max speed 80; the speed stays 100 until the end of the turn
    assert (s.cars[0].speed, s.cars[0].max_speed) == (100, 80)
    act(s, *[step(FWD)] * 9)
    s.take_events()
    act(s, step(FWD))  # the last step: the turn ends and the speed is clamped
    return s, s.take_events(), [(0, 100, 80)]


@pytest.mark.parametrize(
    "scenario", [_damage_clamp, _head_on, _turbo_turn_end], ids=["damage", "head_on", "turbo_end"]
)
def test_speed_event_for_every_speed_change(
    scenario: Callable[[], tuple[State, list[Event], list[tuple[int, int, int]]]],
) -> None:
    """Damage, a head-on ram, a turbo turn's end lower a speed: a speed event, as glue's is."""
    s, events, changes = scenario()
    for seat, before, after in changes:
        assert s.cars[seat].speed == after
        speeds = [e for e in events if e.kind is E.SPEED and e.seat == seat]
        assert [(e.get("before"), e.get("after")) for e in speeds] == [(before, after)]
        assert speeds[0].get("why") in ("slowed", "set") and speeds[0].to is None


# ---------------------------------------------------------------------------- the move
def test_move() -> None:
    """Each step is one move event from the square left to the square entered."""
    g = game_of()
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10))
    s.take_events()
    act(s, step(FWD))
    assert s.take_events() == [ev(E.MOVE, 0, src=back(1, 0), dst=back(1, 1))]
    assert s.cars[0].square == back(1, 1)
    act(s, step(FL))
    (e,) = s.take_events()
    assert e == ev(E.MOVE, 0, src=back(1, 1), dst=g.track.forward(back(1, 1), 0)[FL])
    assert s.cars[0].square == e.get("dst") and g.track.lane[e.get("dst")] == 0
    assert str(e) == f"seat 0 moves from square {back(1, 1)} to square {e.get('dst')}"


def test_drop() -> None:
    """A Drop card: the chip goes onto the square being left, before the move."""
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    b.car(0, chips=(1, 0, 2))
    s = recording(b)
    choose(s, {0: Card.DROP})
    act(s, A(K.DROP_KIND, GLUE))
    s.take_events()
    act(s, step(FWD, drop=True))
    events = s.take_events()
    assert events == [
        ev(E.DROP, 0, chip="glue", square=back(1, 0)),
        ev(E.MOVE, 0, src=back(1, 0), dst=back(1, 1)),
    ]
    assert s.track_chips == {back(1, 0): GLUE} and s.cars[0].chips == [1, 0, 1]
    assert str(events[0]) == f"seat 0 drops glue on square {back(1, 0)}"


@pytest.mark.parametrize(
    ("kind", "then"),
    [
        (TACKS, []),
        (OIL, []),
        (GLUE, [ev(E.SPEED, 0, before=20, after=0, why="slowed")]),
    ],
    ids=["tacks", "oil", "glue"],
)
def test_chip(kind: int, then: list[Event]) -> None:
    """A car runs over a chip: the chip event, then its effect (a die, a card, -20 mph)."""
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    lay_chip(b, back(1, 1), kind)
    s = recording(b)
    supply = list(s.supply)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10))
    s.take_events()
    act(s, step(FWD))
    name = ("tacks", "oil", "glue")[kind]
    assert s.take_events() == [
        ev(E.MOVE, 0, src=back(1, 0), dst=back(1, 1)),
        ev(E.CHIP, 0, chip=name, square=back(1, 1)),
        *then,
    ]
    assert back(1, 1) not in s.track_chips and s.supply[kind] == supply[kind] + 1
    if kind == TACKS:
        assert s.chance is not None and s.chance.to_dict() == {"kind": "dice", "seat": 0, "n": 1}
    elif kind == OIL:
        only(s, "hazard", 0)
    else:
        assert s.cars[0].speed == 0


# ---------------------------------------------------------------------------- rams
def _sideswipe() -> tuple[State, int]:
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    put(b, 1, back(2, 1), speed=40)
    s = recording(b)
    choose(s, {0: Card.RAM})
    return s, FR


def _rear_end() -> tuple[State, int]:
    b = setup()
    put(b, 0, back(1, 0), speed=30)
    put(b, 1, back(1, 1), speed=40)
    s = recording(b)
    choose(s, {0: Card.RAM})
    return s, FWD


def _head_on_ram() -> tuple[State, int]:
    b = setup(game_of(turn_around=True))
    put(b, 0, back(1, 0), speed=50)
    put(b, 1, back(1, 1), speed=40, facing=1)
    s = recording(b)
    choose(s, {0: Card.RAM, 1: Card.BRAKE})
    return s, FWD


def _involuntary() -> tuple[State, int]:
    b = start(game_of(4))
    put(b, 0, back(1, 0), speed=40)
    for seat, lane in ((1, 0), (2, 1), (3, 2)):
        put(b, seat, back(lane, 1), speed=0)
    s = recording(b)
    choose(s, {})
    act(s, A(K.ACCELERATE, 0))
    assert s.legal_actions(0) == [A(K.RAM, d) for d in (FL, FWD, FR)]  # boxed in
    return s, FWD


@pytest.mark.parametrize(
    ("scenario", "target", "ram", "dice"),
    [
        (_sideswipe, 1, "sideswipe", 2),
        (_rear_end, 1, "rear_end", 2),
        (_head_on_ram, 1, "head_on", 4),
        (_involuntary, 2, "involuntary", 2),
    ],
    ids=["sideswipe", "rear_end", "head_on", "involuntary"],
)
def test_ram(scenario: Callable[[], tuple[State, int]], target: int, ram: str, dice: int) -> None:
    """Seat 0 rams the car ahead in each geometry: one ram event, then the target's dice."""
    s, direction = scenario()
    s.take_events()
    act(s, A(K.RAM, direction))
    events = s.take_events()
    assert events[0] == ev(E.RAM, 0, target=target, ram=ram)
    if ram == "head_on":  # both cars to 0 mph: see test_speed_event_for_every_speed_change
        assert s.cars[0].speed == s.cars[1].speed == 0
        assert all(e.kind is E.SPEED for e in events[1:])
    else:
        assert events == [ev(E.RAM, 0, target=target, ram=ram)]
    assert s.occupant(s.game.track.forward(s.cars[0].square, 0)[direction]) == target
    assert s.chance is not None and s.chance.to_dict() == {
        "kind": "dice",
        "seat": target,
        "n": dice,
    }
    assert str(events[0]) == f"seat 0 rams seat {target} ({ram})"


# ---------------------------------------------------------------------------- cards drawn
@pytest.mark.parametrize("card", ["Close Call", "Skid"])
def test_hazard(card: str) -> None:
    """Oil draws one hazard card: Close Call does nothing, a Skid slides the car outward."""
    s = onto_chip(OIL)
    i = hazard_index(s.game, card)
    force(s, [i])
    then = [ev(E.MOVE, 0, src=back(1, 1), dst=back(2, 1))] if card == "Skid" else []
    events = s.take_events()
    assert events == [ev(E.HAZARD, 0, card=card), *then]
    assert s.hazard_discard[i] == 1
    assert s.cars[0].square == (back(2, 1) if card == "Skid" else back(1, 1))
    assert str(events[0]) == f"seat 0 draws the hazard card {card}"


def test_turbo() -> None:
    """A turbo draw of +40 Bang: the card, the speed it gives, then its explosion die."""
    b = setup()
    put(b, 0, back(1, 0), speed=40)
    s = recording(b)
    choose(s, {0: Card.ACCELERATE})
    act(s, A(K.TURBO))
    s.take_events()
    bang = turbo_index(s.game, "+40 Bang")
    force(s, [bang])
    events = s.take_events()
    assert events == [
        ev(E.TURBO, 0, card="+40 Bang"),
        ev(E.SPEED, 0, before=40, after=80, why="turbo"),
    ]
    assert s.turbo_discard[bang] == 1 and s.turbo_deck[bang] == 0
    assert s.chance is not None and s.chance.to_dict() == {"kind": "dice", "seat": 0, "n": 1}
    assert str(events[0]) == "seat 0 draws the turbo card +40 Bang"


def test_luck_chip_cancels_a_hazard_card() -> None:
    """A luck chip spent on a Blown Gasket: the luck event, the card discarded, a new draw."""
    b = setup().car(0, luck=1)
    s = onto_chip(OIL, b=b)
    gasket = hazard_index(s.game, "Blown Gasket")
    force(s, [gasket])
    assert s.take_events() == [ev(E.HAZARD, 0, card="Blown Gasket")]
    assert s.decision_kind() is DecisionKind.LUCK
    act(s, A(K.LUCK, 1))
    events = s.take_events()
    assert events == [ev(E.LUCK, 0, deck="hazard", card="Blown Gasket")]
    assert s.cars[0].luck == 0 and s.hazard_discard[gasket] == 1
    only(s, "hazard", 0)
    assert str(events[0]) == "seat 0 cancels the hazard card Blown Gasket"


def test_luck_fuzzy_dice_cancel_a_turbo_card() -> None:
    """Fuzzy Dice (no luck chip) cancel a Boom: the gadget used, the luck event, a new draw."""
    b = setup()
    fuzzy = give_gadget(b, 0, "Fuzzy Dice")
    s = turbo_drawn("Boom", b)
    assert s.decision_kind() is DecisionKind.LUCK
    act(s, A(K.USE_GADGET, fuzzy))
    assert s.take_events() == [
        ev(E.GADGET, 0, gadget="Fuzzy Dice"),
        ev(E.LUCK, 0, deck="turbo", card="Boom"),
    ]
    assert s.cars[0].spent == [fuzzy] and s.cars[0].speed == 40
    only(s, "turbo", 0)


@pytest.mark.parametrize("card", ["Chicken", "Tunnel Vision"])
def test_lunacy(card: str) -> None:
    """A kept lunacy drawn from the hazard deck: the car goes mad and keeps the card."""
    s = onto_chip(OIL)
    force(s, [hazard_index(s.game, card)])
    events = s.take_events()
    assert events == [ev(E.HAZARD, 0, card=card), ev(E.LUNACY, 0, card=card)]
    assert s.cars[0].lunacies == [hazard_index(s.game, card)]
    assert str(events[1]) == f"seat 0 goes mad: {card}"


def test_lunacy_kept_after_declining_shrinks_card() -> None:
    """Seat 0 holds Shrink's Card, draws Chicken and declines the gadget: it goes mad."""
    b = setup()
    give_gadget(b, 0, "Shrink's Card")
    s = hazard_drawn("Chicken", b)
    assert s.decision_kind() is DecisionKind.GADGET
    act(s, A(K.DECLINE))
    chicken = hazard_index(s.game, "Chicken")
    assert s.cars[0].lunacies == [chicken]
    assert s.take_events() == [ev(E.LUNACY, 0, card="Chicken")]


# ---------------------------------------------------------------------------- dice, damage, out
def test_dice() -> None:
    """Tacks roll one damage die; a roll of 0 hits is recorded and does no damage."""
    s = onto_chip(TACKS)
    force(s, [0])
    events = s.take_events()
    assert events == [ev(E.DICE, 0, dice=1, hits=0)]
    assert s.cars[0].max_speed == 140
    assert str(events[0]) == "seat 0 rolls 1 damage dice: 0 hits"


def test_damage() -> None:
    """Tacks roll 2 hits: max speed 140 -> 120, and the damage event names the new max."""
    s = onto_chip(TACKS)
    force(s, [2])
    events = s.take_events()
    assert events == [ev(E.DICE, 0, dice=1, hits=2), ev(E.DAMAGE, 0, hits=2, max_speed=120)]
    assert s.cars[0].max_speed == events[1].get("max_speed") == 120
    assert str(events[1]) == "seat 0 takes 2 hits: max speed 120 mph"


def test_out() -> None:
    """A car with max speed 20 takes 2 hits from tacks: it is out, the race goes on."""
    b = setup()
    put(b, 0, back(1, 0), speed=20, max_speed=20)
    s = onto_chip(TACKS, speed=20, b=b)
    force(s, [2])
    events = s.take_events()
    assert events == [
        ev(E.DICE, 0, dice=1, hits=2),
        ev(E.DAMAGE, 0, hits=2, max_speed=0),
        ev(E.OUT, 0),
    ]
    assert s.cars[0].out and s.cars[0].speed == 0 and s.cars[0].max_speed == 0
    assert not s.is_terminal() and s.current_players() == (1,)
    assert str(events[2]) == "seat 0 is out of the race"
    assert events[2].to_json() == {"kind": "out", "seat": 0}


# ---------------------------------------------------------------------------- the pit
def test_pit_in() -> None:
    """Seat 0 steps into the pit from A2 at 20 mph (under the safe speed): pit_in, then shop."""
    g = game_of()
    b = setup()
    put(b, 0, A2, speed=30)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10))
    s.take_events()
    act(s, A(K.ENTER_PIT, 0))
    events = s.take_events()
    assert events == [ev(E.PIT_IN, 0, opening="A2")]
    car = s.cars[0]
    assert car.in_pit and car.pit_opening == g.track.opening_index["A2"]
    assert s.decision_kind() is DecisionKind.SHOP
    assert str(events[0]) == "seat 0 enters the pit through A2"


@pytest.mark.parametrize(
    ("item", "text"),
    [
        (A(K.SHOP, ShopItem.REPAIR), "buy repair"),
        (A(K.SHOP, ShopItem.TACKS), "buy tacks"),
        (A(K.COUNSEL, 10), "counsel against Chicken"),  # hazard card 10 is Chicken
    ],
    ids=["repair", "tacks", "counsel"],
)
def test_shop(item: Action, text: str) -> None:
    """Each purchase in the pit is a public shop event naming the item."""
    b = setup()
    b.car(0, lunacies=["Chicken"], chips=(0, 0, 0))
    assert hazard_index(b.game, "Chicken") == 10
    s = at_shop(b, max_speed=100)
    act(s, item)
    assert s.take_events() == [ev(E.SHOP, 0, item=text)]
    car = s.cars[0]
    assert (car.max_speed, car.chips, car.lunacies) == {
        "buy repair": (110, [0, 0, 0], [10]),
        "buy tacks": (100, [1, 0, 0], [10]),
        "counsel against Chicken": (100, [0, 0, 0], []),
    }[text]
    assert s.decision_kind() is DecisionKind.SHOP


def test_gadget_drawn_from_the_top() -> None:
    """A gadget bought in the pit: the card drawn by chance is seen by its seat only."""
    s = at_shop()
    act(s, A(K.SHOP, ShopItem.GADGET))
    assert s.take_events() == [ev(E.SHOP, 0, item="buy gadget")]
    armor = gadget_index(s.game, "Armor Plating")
    force(s, [armor])
    events = s.take_events()
    assert events == [ev(E.GADGET_DRAWN, 0, to=0, gadget="Armor Plating")]
    assert s.offer == [armor]
    (e,) = events
    assert e.visible_to(0) and not e.visible_to(1) and e.visible_to(None)
    assert visible(events, 1) == [] and visible(events, 0) == events
    assert e.to_json() == {"kind": "gadget_drawn", "seat": 0, "gadget": "Armor Plating", "to": 0}
    assert str(e) == "seat 0 draws the gadget Armor Plating"


def test_gadget_drawn_from_the_bottom_queue() -> None:
    """The deck's top is empty: both cards of the offer come from the queue, no chance."""
    g = game_of()
    names = [c.name for c in g.decks.gadgets]
    b = setup()
    b.car(1, spent=names[:7])
    b.gadget_bottom([(names[8], 1), (names[7], 1), (names[9], 1)])
    s = at_shop(b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    assert not s.is_chance_node() and s.decision_kind() is DecisionKind.KEEP_GADGET
    assert s.take_events() == [
        ev(E.SHOP, 0, item="buy gadget"),
        ev(E.GADGET_DRAWN, 0, to=0, gadget=names[8]),
        ev(E.GADGET_DRAWN, 0, to=0, gadget=names[7]),
    ]
    assert s.offer == [8, 7]


def test_gadget_kept_one_of_two() -> None:
    """Two gadgets drawn, Roll Cage kept: private to its seat, now in hand; the other queued."""
    s = at_shop()
    act(s, A(K.SHOP, ShopItem.GADGET))
    armor, cage = gadget_index(s.game, "Armor Plating"), gadget_index(s.game, "Roll Cage")
    force(s, [armor, cage])
    s.take_events()
    act(s, A(K.KEEP_GADGET, cage))
    events = s.take_events()
    assert events == [ev(E.GADGET_KEPT, 0, to=0, gadget="Roll Cage")]
    assert s.cars[0].gadgets == [cage] and s.gadget_bottom == [[armor, 0]]
    assert visible(events, 1) == [] and visible(events, 0) == events
    assert str(events[0]) == "seat 0 keeps the gadget Roll Cage"


def test_gadget_kept_the_last_card() -> None:
    """One gadget left in the deck: drawn and kept at once, both events private."""
    g = game_of()
    names = [c.name for c in g.decks.gadgets]
    b = setup()
    b.car(1, spent=[n for n in names if n != "Charger"])
    s = at_shop(b)
    act(s, A(K.SHOP, ShopItem.GADGET))
    s.take_events()
    force(s, [gadget_index(g, "Charger")])
    events = s.take_events()
    assert events == [
        ev(E.GADGET_DRAWN, 0, to=0, gadget="Charger"),
        ev(E.GADGET_KEPT, 0, to=0, gadget="Charger"),
    ]
    assert s.cars[0].gadgets == [gadget_index(g, "Charger")] and s.offer == []
    assert visible(events, 1) == []


def _armor() -> State:
    b = setup()
    give_gadget(b, 0, "Armor Plating")
    s = onto_chip(TACKS, b=b)
    force(s, [2])
    s.take_events()
    return s


def _roll_cage() -> State:
    b = setup()
    give_gadget(b, 0, "Roll Cage")
    s = hazard_drawn("Blown Gasket", b)
    force(s, [3])  # 3 hits, 1 after the cage
    s.take_events()
    return s


def _racing_tires() -> State:
    b = setup()
    give_gadget(b, 0, "Racing Tires")
    return hazard_drawn("Skid", b)


def _power_brakes() -> State:
    b = setup()
    give_gadget(b, 0, "Power Brakes")
    return hazard_drawn("Brake 20", b)


def _shrinks_card() -> State:
    b = setup()
    give_gadget(b, 0, "Shrink's Card")
    return hazard_drawn("Chicken", b)


def _fire_extinguisher() -> State:
    b = setup()
    give_gadget(b, 0, "Fire Extinguisher")
    return turbo_drawn("+50 Big Bang", b)


@pytest.mark.parametrize(
    ("scenario", "name", "then"),
    [
        (_armor, "Armor Plating", []),
        (_roll_cage, "Roll Cage", [ev(E.DAMAGE, 0, hits=1, max_speed=130)]),
        (_racing_tires, "Racing Tires", []),
        (_power_brakes, "Power Brakes", []),
        (_shrinks_card, "Shrink's Card", []),
        (_fire_extinguisher, "Fire Extinguisher", []),
    ],
    ids=["armor", "roll_cage", "racing_tires", "power_brakes", "shrinks_card", "extinguisher"],
)
def test_gadget(scenario: Callable[[], State], name: str, then: list[Event]) -> None:
    """A gray gadget used against its harm: a public gadget event, then what harm is left."""
    s = scenario()
    assert s.decision_kind() in (DecisionKind.PROTECT, DecisionKind.GADGET)
    gi = gadget_index(s.game, name)
    square, speed, max_speed = s.cars[0].square, s.cars[0].speed, s.cars[0].max_speed
    act(s, A(K.USE_GADGET, gi))
    events = s.take_events()
    assert events == [ev(E.GADGET, 0, gadget=name), *then]
    car = s.cars[0]
    assert car.spent == [gi] and car.gadgets == [] and car.lunacies == []
    assert (car.square, car.speed) == (square, speed) and not s.is_chance_node()
    assert car.max_speed == (130 if name == "Roll Cage" else max_speed)
    assert str(events[0]) == f"seat 0 uses {name}"


@pytest.mark.parametrize(("laps", "then"), [(0, []), (1, [ev(E.LAP, 0, lap=2)])])
def test_pit_out(laps: int, then: list[Event]) -> None:
    """Seat 0 leaves the pit through B1; with a lap done, the pass completes another lap."""
    s = in_pit(setup(), laps=laps)
    act(s, A(K.ACCELERATE, 20))
    s.take_events()
    b1 = s.game.track.opening_index["B1"]
    act(s, A(K.EXIT_PIT, b1))
    events = s.take_events()
    assert events == [ev(E.PIT_OUT, 0, opening="B1"), *then]
    assert not s.cars[0].in_pit and s.cars[0].square == B1 and s.laps(0) == laps + (laps > 0)
    assert s.decision_kind() is DecisionKind.STEP  # one step left of two
    assert str(events[0]) == "seat 0 leaves the pit through B1"


# ---------------------------------------------------------------------------- laps and the end
@pytest.mark.parametrize(("laps", "then"), [(0, []), (1, [ev(E.LAP, 0, lap=2)])])
def test_lap(laps: int, then: list[Event]) -> None:
    """Crossing the line: no lap from the grid, lap 2 for a car that has done one."""
    b = setup()
    put(b, 0, LAP_LINE_BEFORE, speed=20, laps=laps)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10))
    s.take_events()
    act(s, step(FWD))
    events = s.take_events()
    assert events == [ev(E.MOVE, 0, src=LAP_LINE_BEFORE, dst=0), *then]
    assert s.laps(0) == (then[0].get("lap") if then else 0)
    if then:
        assert str(events[1]) == "seat 0 completes lap 2"


def _win() -> tuple[State, list[Event]]:
    b = setup()
    put(b, 0, LAP_LINE_BEFORE, speed=20, laps=2)
    s = recording(b)
    choose(s, {0: Card.BRAKE})
    act(s, A(K.BRAKE, 10))
    s.take_events()
    act(s, step(FWD))
    lead = [ev(E.MOVE, 0, src=LAP_LINE_BEFORE, dst=0), ev(E.LAP, 0, lap=3)]
    return s, lead


def _all_out() -> tuple[State, list[Event]]:
    b = setup()
    put(b, 0, back(1, 0), speed=20, max_speed=20)
    put(b, 1, back(2, 0), speed=20, max_speed=20)
    lay_chip(b, back(1, 1), TACKS)
    lay_chip(b, back(2, 1), TACKS)
    s = recording(b)
    choose(s, {0: Card.BRAKE, 1: Card.BRAKE})  # same speed and progress: lane 1 first
    act(s, A(K.BRAKE, 10), step(FWD))
    force(s, [2])
    act(s, A(K.BRAKE, 10), step(FWD))
    s.take_events()
    force(s, [2])
    lead = [
        ev(E.DICE, 1, dice=1, hits=2),
        ev(E.DAMAGE, 1, hits=2, max_speed=0),
        ev(E.OUT, 1),
    ]
    return s, lead


def _truncated() -> tuple[State, list[Event]]:
    b = setup(game_of(round_limit=1))
    put(b, 0, back(1, 0), speed=10)
    put(b, 1, PARK, speed=10)
    s = recording(b)
    choose(s, {0: Card.BRAKE, 1: Card.BRAKE})
    act(s, A(K.BRAKE, 10))  # seat 1, further ahead
    s.take_events()
    act(s, A(K.BRAKE, 10))  # seat 0: the last turn of the last round
    return s, [ev(E.SPEED, 0, before=10, after=0, why="brake")]


@pytest.mark.parametrize(
    ("scenario", "outcome", "winner"),
    [
        (_win, Outcome.WIN, 0),
        (_all_out, Outcome.ALL_OUT, None),
        (_truncated, Outcome.TRUNCATED, None),
    ],
    ids=["win", "all_out", "truncated"],
)
def test_end(
    scenario: Callable[[], tuple[State, list[Event]]], outcome: Outcome, winner: int | None
) -> None:
    """A win on the last lap, every car out, the round limit: one end event, last of all."""
    s, lead = scenario()
    events = s.take_events()
    end = ev(E.END, winner, outcome=outcome.value, winner=winner)
    assert events == [*lead, end]
    assert s.is_terminal() and s.outcome().reason is outcome and s.outcome().winner == winner
    assert s.round == 1  # no round event after the end
    assert str(end) == f"game over: {outcome.value}, winner {winner}"


# ---------------------------------------------------------------------------- coverage
def test_every_kind_and_speed_why_has_a_test_here() -> None:
    """Each of the 25 ``LunatixEvent`` kinds and 6 ``speed`` whys has a test named after it."""
    kinds = {e.value for e in E}
    whys = {"brake", "accelerate", "turbo", "rocket", "slowed", "set"}
    assert len(kinds) == 25
    tests = {name for name in globals() if name.startswith("test_")}

    def untested(names: set[str], prefix: str) -> set[str]:
        named = {n for n in names for t in tests if f"{t}_".startswith(f"{prefix}{n}_")}
        return names - named

    assert untested(kinds, "test_") == set()
    assert untested(whys, "test_speed_") == set()
