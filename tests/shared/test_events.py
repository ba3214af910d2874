"""Turn events (tabletop.events) of both engines: scenario tests of event kinds, events
agreeing with the state over seeded random play, recording that changes nothing, and
private events seen only by their seat."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pytest

from lunatix_env.rules import Action, ActionKind, Card
from lunatix_env.rules import Game as LGame
from lunatix_env.rules import PositionBuilder as LBuilder
from lunatix_env.rules.events import LunatixEvent
from ryderz_env.rules import Game as RGame
from ryderz_env.rules import Pose
from ryderz_env.rules import PositionBuilder as RBuilder
from ryderz_env.rules.builder import straight
from ryderz_env.rules.events import RyderzEvent
from tabletop import registry
from tabletop.events import visible
from tabletop.protocol import play_chance, random_legal_actions


def kinds(events: list[Any]) -> list[str]:
    return [e.kind.value for e in events]


def random_game(name: str, players: int, seed: int, **rules: Any) -> list[tuple[Any, list[Any]]]:
    """(state after the step, its events) for each step of a seeded random game."""
    g = registry.get(name).game(num_players=players, **rules)
    s = g.new_initial_state(seed)
    s.record_events()
    rng = np.random.default_rng(seed)
    out = []
    while not s.is_terminal():
        if s.is_chance_node():
            play_chance(s, rng)
        else:
            s.apply_actions(random_legal_actions(s, rng))
        out.append((s.clone(), s.take_events()))
    return out


# ------------------------------------------------------------------ recording
@pytest.mark.parametrize("name", ["lunatix", "ryderz"])
def test_recording_is_off_by_default_and_changes_no_play(name: str) -> None:
    g = registry.get(name).game(num_players=2)
    quiet, loud = g.new_initial_state(5), g.new_initial_state(5)
    assert quiet.events is None and quiet.take_events() == []
    loud.record_events()
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    count = 0
    for _ in range(120):
        if quiet.is_terminal():
            break
        for s, r in ((quiet, r1), (loud, r2)):
            if s.is_chance_node():
                play_chance(s, r)
            else:
                s.apply_actions(random_legal_actions(s, r))
        assert quiet.to_dict() == loud.to_dict()  # events are not part of the state
        count += len(loud.take_events())
        assert loud.events == []
        assert loud.clone().events is None  # a clone (search) does not record
    assert count > 20 and quiet.events is None


@pytest.mark.parametrize("name", ["lunatix", "ryderz"])
def test_events_are_json_with_readable_text(name: str) -> None:
    seen: Counter[str] = Counter()
    for _, events in random_game(name, 3, 2):
        for e in events:
            seen[e.kind.value] += 1
            data = json.loads(json.dumps(e.to_json()))
            assert data["kind"] == e.kind.value and data["seat"] == e.seat
            text = str(e)
            assert text and "{" not in text and "}" not in text
    assert len(seen) >= 8, seen


# ------------------------------------------------------------------ Lunatix Loop
def test_lunatix_brake_and_moves_are_recorded_exactly() -> None:
    g = LGame(num_players=2)
    lanes = g.track.spec.lanes
    s = LBuilder(g).car(0, lane=1, row=10, speed=40).car(1, lane=2, row=40, speed=20).build()
    s.record_events()
    s.apply_actions(
        {0: Action(ActionKind.CARD, Card.BRAKE), 1: Action(ActionKind.CARD, Card.ACCELERATE)}
    )
    events = s.take_events()
    assert kinds(events) == ["card", "card", "order"]
    assert [e.get("card") for e in events[:2]] == ["card brake", "card accelerate"]
    assert events[2].get("order") == list(s.order)
    brake = next(a for a in s.legal_actions(0) if a.arg == 20)
    s.apply_action(brake)
    (speed,) = s.take_events()
    assert speed.kind is LunatixEvent.SPEED and speed.seat == 0
    assert (speed.get("before"), speed.get("after"), speed.get("why")) == (40, 20, "brake")
    step = next(a for a in s.legal_actions(0) if a.kind is ActionKind.STEP and a.arg == 2)
    s.apply_action(step)  # straight ahead, no drop
    moves = [e for e in s.take_events() if e.kind is LunatixEvent.MOVE]
    assert [(e.seat, e.get("src"), e.get("dst")) for e in moves] == [
        (0, lanes[1][10], s.cars[0].square)
    ]


def test_lunatix_event_squares_follow_the_cars() -> None:
    g = LGame(num_players=3)
    where: dict[int, int] = {}
    for state, events in random_game("lunatix", 3, 11):
        for e in events:
            if e.kind in (LunatixEvent.START_DOT,):
                where[e.seat] = e.get("square")
            elif e.kind is LunatixEvent.MOVE:
                assert where[e.seat] == e.get("src")
                where[e.seat] = e.get("dst")
            elif e.kind is LunatixEvent.PIT_OUT:
                opening = g.track.openings[g.track.opening_index[e.get("opening")]]
                where[e.seat] = opening.square
        for c in state.cars:
            if c.square >= 0 and not c.in_pit:
                assert where[c.seat] == c.square, (c.seat, events)


def test_lunatix_laps_are_recorded_as_the_cars_complete_them() -> None:
    """A ``lap`` event each time a car's completed laps go up (the winner's last included);
    none for a car driving over ground it has covered (they were never recorded before)."""
    g = LGame(num_players=2)
    bot = registry.get("lunatix").heuristic_class()()
    bot.reset(0)
    s = g.new_initial_state(2)
    s.record_events()
    rng = np.random.default_rng(2)
    recorded = {0: 0, 1: 0}
    while not s.is_terminal():
        if s.is_chance_node():
            play_chance(s, rng)
        else:
            s.apply_actions({p: bot.act(s, p) for p in s.current_players()})
        for e in s.take_events():
            if e.kind is LunatixEvent.LAP:
                assert e.get("lap") == recorded[e.seat] + 1
                recorded[e.seat] = e.get("lap")
        assert recorded == {0: s.laps(0), 1: s.laps(1)}
    winner = s.outcome().winner
    assert winner is not None and recorded[winner] == s.laps_required(winner)


def test_lunatix_gadgets_drawn_are_seen_by_their_owner_only() -> None:
    private = 0
    for seed in range(12):
        for _, events in random_game("lunatix", 2, seed):
            for e in events:
                if e.kind in (LunatixEvent.GADGET_DRAWN, LunatixEvent.GADGET_KEPT):
                    private += 1
                    assert e.to == e.seat
                    assert e.visible_to(e.seat) and not e.visible_to(1 - e.seat)
                    assert e in visible(events, e.seat) and e not in visible(events, 1 - e.seat)
                    assert e.visible_to(None)  # records and observers see everything
                else:
                    assert e.to is None
    assert private > 0


def test_lunatix_damage_and_out_match_the_cars() -> None:
    for seed in range(6):
        for state, events in random_game("lunatix", 2, seed):
            for e in events:
                if e.kind is LunatixEvent.DAMAGE:
                    car = state.cars[e.seat]
                    assert e.get("hits") > 0
                    assert e.get("max_speed") >= car.max_speed or car.out
                if e.kind is LunatixEvent.OUT:
                    assert state.cars[e.seat].out
            if state.is_terminal():
                assert events[-1].kind is LunatixEvent.END
                assert events[-1].get("outcome") == state.status.value


# ------------------------------------------------------------------ Lazer Ryderz
def test_ryderz_a_straight_is_recorded_with_its_pose() -> None:
    g = RGame(num_players=2, launch_noise_sigma=0.0)
    start = Pose(-10.0, -10.0, 0.0)
    s = RBuilder(g, mover=0).lazer(0, [straight(1)], start=start).gear(0, 2).build()
    s.record_events()
    move = next(a for a in s.legal_actions(0) if a.shift == 0 and str(a).endswith("straight"))
    s.apply_action(move)
    events = s.take_events()
    pieces = [e for e in events if e.kind is RyderzEvent.PIECE]
    assert len(pieces) == 1 and pieces[0].seat == 0
    head = s.players[0].lazer[-2].exit
    assert (pieces[0].get("gear"), pieces[0].get("piece")) == (2, "straight")
    assert (pieces[0].get("x"), pieces[0].get("y")) == (head.x, head.y)


def test_ryderz_pieces_on_the_table_follow_the_events() -> None:
    for seed in range(4):
        placed: Counter[int] = Counter()
        for state, events in random_game("ryderz", 3, seed, powers=True):
            for e in events:
                if e.kind is RyderzEvent.PIECE:
                    placed[e.seat] += 1
                elif e.kind in (RyderzEvent.CRASH, RyderzEvent.HIT):
                    placed[e.seat] -= e.get("pieces")
                elif e.kind is RyderzEvent.PULLED and not e.get("launch_point"):
                    placed[e.seat] -= 1
                elif e.kind is RyderzEvent.SCORE:
                    assert state.prizms[e.get("prizm")].owner == e.seat or state.is_terminal()
                assert e.to is None  # everything on the table is public
            for p in state.players:
                assert placed[p.seat] == sum(1 for el in p.lazer if not el.is_launch)


@pytest.mark.parametrize("name", ["lunatix", "ryderz"])
def test_records_give_back_every_event_by_replaying(name: str) -> None:
    from tabletop.play import play_random_game
    from tabletop.records import replay_events

    entry = registry.get(name)
    g = entry.game(num_players=2)
    _, record = play_random_game(g, 4, entry.env_name, out=None)
    live = [events for _, events in random_game(name, 2, 4)]
    replayed = replay_events(g, record)
    assert len(replayed) == len(record.events)
    assert [e for step in replayed for e in step] == [e for step in live for e in step]
