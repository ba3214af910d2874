"""Game records: a seeded random game is logged, saved as JSON, and replays identically."""

from __future__ import annotations

import copy
import importlib
import json
import pickle
from typing import Any

import numpy as np
import pytest

from lunatix_env.rules import Game
from tabletop.errors import InvalidStateError
from tabletop.records import (
    GameRecord,
    RecordingState,
    iter_replay,
    json_value,
    replay,
    state_digest,
)


def _record_game(game: Game, seed: int, snapshot_every: int = 0) -> tuple[GameRecord, dict]:
    rng = np.random.default_rng(seed)
    record = GameRecord(game="lunatix_loop", config=game.config_dict(), seed=seed)
    rec = RecordingState(game, game.new_initial_state(seed), record)
    step = 0
    while not rec.state.is_terminal():
        if snapshot_every and step % snapshot_every == 0:
            rec.snapshot()
        step += 1
        if rec.state.is_chance_node():
            rec.play_chance(rng)
            continue
        acts = {}
        for seat in rec.state.current_players():
            legal = rec.state.legal_action_ints(seat)
            acts[seat] = legal[int(rng.integers(len(legal)))]
        rec.apply_actions(acts)
    return record, rec.state.to_dict()


def test_record_replays_to_identical_final_state(tmp_path):
    game = Game(num_players=3)
    record, final = _record_game(game, seed=11, snapshot_every=50)
    path = tmp_path / "game.json"
    record.save(path)
    loaded = GameRecord.load(path)
    again = Game.from_config_dict(loaded.config)
    assert replay(again, loaded).to_dict() == final
    assert len(loaded.snapshots) > 1


def test_record_replay_checks_every_snapshot():
    game = Game()
    record, _ = _record_game(game, seed=3, snapshot_every=25)
    assert sum(1 for _ in iter_replay(game, record)) == len(record.events) + 1
    idx = max(record.snapshots)
    record.snapshots[idx] = dict(record.snapshots[idx], round=record.snapshots[idx]["round"] + 1)
    with pytest.raises(InvalidStateError, match=f"event {idx}"):
        replay(game, record)


def test_record_is_plain_json_with_schema_version():
    game = Game(num_players=2)
    record, _ = _record_game(game, seed=5)
    data = json.loads(json.dumps(record.to_dict()))
    assert data["schema"] == "tabletop/record" and data["version"] == 2
    assert all(set(e) <= {"chance", "actions"} for e in data["events"])


def test_malformed_record_is_rejected():
    with pytest.raises(InvalidStateError, match="schema"):
        GameRecord.from_dict({"schema": "other", "version": 1, "events": []})
    with pytest.raises(InvalidStateError, match="event 0"):
        GameRecord.from_dict(
            {
                "schema": "tabletop/record",
                "version": 1,
                "game": "g",
                "config": {},
                "events": [{"x": 1}],
            }
        )


def test_json_value_turns_numpy_and_nested_outcomes_into_plain_json() -> None:
    import json

    import numpy as np

    from tabletop.records import json_value

    v = json_value((np.int64(1), [np.float32(0.5), np.array([2, 3])], "x", 2.5))
    assert v == [1, [0.5, [2, 3]], "x", 2.5]
    assert type(v[0]) is int and type(v[1][0]) is float
    assert json.loads(json.dumps(v)) == v


@pytest.mark.parametrize("package", ["lunatix_env", "ryderz_env"])
def test_env_record_read_mid_game_holds_every_event_once_and_replays(package: str) -> None:
    """The env writes its record's events when the record is read: read at any point, it
    holds each event once, in order, and replays to the env's state."""
    mod = importlib.import_module(package)
    env = mod.env()
    env.reset(seed=4)
    adapter, session = env.unwrapped.adapter, env.unwrapped.session
    rng = np.random.default_rng(4)
    reads = []
    for i, _agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else adapter.random_env_action(obs[adapter.mask_key], rng))
        if i % 5 == 0 or session.done:
            record = env.unwrapped.record
            reads.append(len(record.events))
            again = GameRecord.from_dict(json.loads(json.dumps(record.to_dict())))
            assert replay(adapter.game, again).to_dict() == session.state.to_dict()
    assert reads == sorted(reads) and reads[-1] > reads[0]
    assert len(env.unwrapped.record.events) == reads[-1]  # reading again adds nothing


def test_env_record_kept_from_before_stays_complete_through_play_and_reset() -> None:
    """A record object taken from an env shows the events played since, and the finished
    game's record stays whole after the env is reset."""
    import ryderz_env

    env = ryderz_env.env()
    adapter = env.unwrapped.adapter
    env.reset(seed=2)
    kept = env.unwrapped.record
    rng = np.random.default_rng(2)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else adapter.random_env_action(obs[adapter.mask_key], rng))
        steps += 1
        if steps == 40:
            break
    n = len(kept.events)
    assert n > 0 and kept is env.unwrapped.record
    for _agent in env.agent_iter():  # on, without reading the record
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else adapter.random_env_action(obs[adapter.mask_key], rng))
        steps += 1
        if steps == 80:
            break
    state_before_reset = env.unwrapped.session.state.to_dict()
    env.reset(seed=3)
    assert env.unwrapped.record is not kept
    assert len(kept.events) > n
    assert replay(adapter.game, kept).to_dict() == state_before_reset  # every event, in order


def test_record_writes_pending_events_once_and_keeps_them_if_writing_fails() -> None:
    rec = GameRecord(game="g", config={}, seed=0)
    rec.log_chance(np.int64(3))
    calls = []

    def to_json(a: int) -> int:
        calls.append(a)
        if a < 0:
            raise ValueError("no")
        return a * 10

    rec.log_actions({1: 2, 0: 1}, to_json)
    assert rec.events == [{"chance": 3}, {"actions": {"0": 10, "1": 20}}]
    assert rec.events == [{"chance": 3}, {"actions": {"0": 10, "1": 20}}]  # written once
    assert calls == [1, 2]
    rec.log_actions({0: -1}, to_json)
    for _ in range(2):  # the failed event stays pending: every read fails the same way
        with pytest.raises(ValueError):
            rec.events  # noqa: B018
    assert rec._events == [{"chance": 3}, {"actions": {"0": 10, "1": 20}}]  # unchanged
    assert "3 events" in repr(rec)  # (without writing)
    shallow = copy.copy(GameRecord(game="g", config={}, seed=2))
    shallow.log_chance(1)
    twin = copy.copy(shallow)
    assert shallow.events == [{"chance": 1}] and twin.events == [{"chance": 1}]  # once
    fresh = GameRecord(game="g", config={}, seed=1)
    fresh.log_actions({0: 4}, to_json)  # (a local function: pickled only once written)
    clone = pickle.loads(pickle.dumps(fresh))
    assert clone == fresh and clone.events == [{"actions": {"0": 40}}]


# ------------------------------------------------------------------ records you can trust
def _saved(tmp_path, game: Game, seed: int = 5) -> tuple[Any, dict]:
    record, _ = _record_game(game, seed=seed)
    path = tmp_path / "game.json"
    record.save(path)
    return path, json.loads(path.read_text())


def test_a_record_stores_the_digest_of_its_final_state_and_replay_checks_it(tmp_path) -> None:
    game = Game(num_players=2)
    record, final = _record_game(game, seed=5)
    end = game.state_from_dict(final)
    assert record.to_dict()["final_digest"] == state_digest(end)
    path, data = _saved(tmp_path, game)
    assert replay(game, GameRecord.load(path)).to_dict() == final
    for cut in (data["events"][:-1], data["events"][:-7]):  # truncated
        with pytest.raises(InvalidStateError, match="another state than the one recorded"):
            replay(game, GameRecord.from_dict({**data, "events": cut}))
    # another chance outcome where an equally legal one exists: replays, as another game
    i = next(k for k, e in enumerate(data["events"]) if "chance" in e and k > 3)
    changed = [dict(e) for e in data["events"]]
    state = game.new_initial_state(data["seed"])
    for e in changed[:i]:
        if "chance" in e:
            state.apply_chance(e["chance"])
        else:
            state.apply_actions({int(k): game.action_from_json(a) for k, a in e["actions"].items()})
    others = [o for o, p in state.chance_outcomes() if p > 0 and o != changed[i]["chance"]]
    assert others
    changed[i] = {"chance": json_value(others[0])}
    with pytest.raises((InvalidStateError, ValueError)):
        replay(game, GameRecord.from_dict({**data, "events": changed}))


def test_a_record_names_no_file_of_this_machine(tmp_path) -> None:
    """Configs are carried by value: a record's config never holds a path, a custom deck
    file travels as its content, and a record naming a file is refused before any file is
    opened."""
    import shutil

    from tabletop.config import shipped_configs
    from tabletop.errors import ConfigError

    mine = tmp_path / "my_decks.yaml"
    shutil.copy(shipped_configs("lunatix") / "decks.yaml", mine)
    game = Game(num_players=2, decks=str(mine))
    path, data = _saved(tmp_path, game)
    assert isinstance(data["config"]["decks"], dict) and data["config"]["base_dir"] == ""
    assert str(tmp_path) not in path.read_text()
    mine.unlink()  # replays without the file
    back = Game.from_config_dict(data["config"])
    assert back.decks == game.decks
    assert (
        replay(back, GameRecord.load(path)).to_dict()
        == replay(game, GameRecord.load(path)).to_dict()
    )
    for bad in (
        "/etc/shadow",
        "../lunatix/decks.yaml",
        str(shipped_configs("lunatix") / "decks.yaml"),
    ):
        with pytest.raises(ConfigError, match="neither the file's content nor a shipped"):
            Game.from_config_dict({**data["config"], "decks": bad})
    with pytest.raises(ConfigError, match="base_dir must be empty"):
        Game.from_config_dict({**data["config"], "base_dir": "/etc"})


@pytest.mark.parametrize(
    "bad,match",
    [
        ([], "expected a JSON object"),
        (
            {"schema": "tabletop/record", "version": 2, "game": "g", "config": [], "events": []},
            "'config' must be an object",
        ),
        (
            {
                "schema": "tabletop/record",
                "version": 2,
                "game": "g",
                "config": {},
                "seed": 1.5,
                "events": [],
            },
            "'seed'",
        ),
        (
            {
                "schema": "tabletop/record",
                "version": 2,
                "game": "g",
                "config": {},
                "events": [],
                "final_digest": "x",
            },
            "final_digest",
        ),
        (
            {
                "schema": "tabletop/record",
                "version": 2,
                "game": "g",
                "config": {},
                "events": [],
                "extra": 1,
            },
            "unknown keys",
        ),
        (
            {
                "schema": "tabletop/record",
                "version": 2,
                "game": "g",
                "config": {},
                "events": [{"actions": 3}],
            },
            "actions must be an object",
        ),
    ],
)
def test_malformed_records_are_refused_naming_the_problem(bad: Any, match: str) -> None:
    with pytest.raises(InvalidStateError, match=match):
        GameRecord.from_dict(bad)
