"""Game records: config, seed, and the log of actions and chance outcomes, as JSON.

A record replays to identical states: ``replay(game, record)`` rebuilds the state by
applying the logged events in order. ``RecordingState`` wraps a state and logs as it goes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np

from tabletop.errors import InvalidStateError
from tabletop.jsoncheck import check_limits
from tabletop.protocol import Game, State

RECORD_SCHEMA = "tabletop/record"
#: 2 (2026-12-04): ``final_digest``, and configs carried by value (no machine's paths);
#: version 1 records are read too (without a digest to check)
RECORD_VERSION = 2
READ_VERSIONS = (1, 2)
#: digits floats are rounded to in ``state_digest`` (as the golden playthroughs: a last-bit
#: difference between CPUs or GEOS builds does not change a digest, any change of play does)
DIGEST_DIGITS = 9
#: limits of a record read from outside (checked before anything else)
MAX_RECORD_DEPTH = 16
MAX_RECORD_VALUES = 5_000_000
MAX_RECORD_EVENTS = 500_000


def rounded(value: Any) -> Any:
    """``value`` (plain JSON) with every float rounded to ``DIGEST_DIGITS`` decimals."""
    if isinstance(value, float):
        return round(value, DIGEST_DIGITS) + 0.0  # + 0.0: no "-0.0"
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def state_digest(state: State) -> str:
    """A short hash of ``state.to_dict()`` with floats rounded (an integrity check against
    accidents and truncation, not a signature)."""
    text = json.dumps(rounded(state.to_dict()), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class GameRecord:
    """One game: which game and config, the seed, and every event in order.

    Events are ``{"chance": outcome}`` or ``{"actions": {seat: action}}`` (each action as
    ``game.action_to_json`` gives it: an int, or e.g. ``[int, x]`` for a launch); optional
    ``snapshots`` map an event index to ``state.to_dict()`` taken before that event.

    A logger that plays many games whose records are seldom read (an env) hands events over as
    they are (:meth:`log_chance`, :meth:`log_actions`); they are written as JSON data when
    :attr:`events` is next read, so the record is complete whenever it is looked at. Events
    appended directly go through ``record.events.append`` each time (a list kept from an
    earlier read would miss the events logged since, and take its appends before them).
    """

    def __init__(
        self,
        game: str,
        config: dict[str, Any],
        seed: int | None,
        events: list[dict[str, Any]] | None = None,
        snapshots: dict[int, dict[str, Any]] | None = None,
        final_digest: str | None = None,
    ) -> None:
        self.game = game
        self.config = config
        self.seed = seed
        #: ``state_digest`` of the state after the last event, as recorded (None: unknown)
        self.final_digest = final_digest
        self._state: State | None = None  # the live state of a record being written
        self._events: list[dict[str, Any]] = [] if events is None else events
        self.snapshots: dict[int, dict[str, Any]] = {} if snapshots is None else snapshots
        # events handed over as they are: (chance outcome, None) or (actions, to_json)
        self._pending: list[tuple[Any, Callable[[Any], Any] | None]] = []

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event so far, as JSON data."""
        if self._pending:
            self._write_pending()
        return self._events

    def _write_pending(self) -> None:
        written = [
            {"chance": json_value(what)}
            if to_json is None
            else {"actions": {str(k): to_json(a) for k, a in sorted(what.items())}}
            for what, to_json in self._pending
        ]
        self._events.extend(written)  # (nothing changes if writing one fails)
        self._pending.clear()  # (in place: a shallow copy shares it, and the events)

    def follow(self, state: State) -> None:
        """Follow the live ``state`` this record logs: :meth:`to_dict` stores the digest of
        the state it has then as ``final_digest``."""
        self._state = state

    def log_chance(self, outcome: Any) -> None:
        """Append ``{"chance": json_value(outcome)}``, written when the events are read
        (``outcome`` must not change until then)."""
        self._pending.append((outcome, None))

    def log_actions(self, actions: Mapping[int, Any], to_json: Callable[[Any], Any]) -> None:
        """Append ``{"actions": {str(seat): to_json(action)}}`` (seats in order), written
        when the events are read (``actions`` must not change until then)."""
        self._pending.append((actions, to_json))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameRecord):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (
            f"GameRecord(game={self.game!r}, seed={self.seed!r}, "
            f"{len(self._events) + len(self._pending)} events, "
            f"{len(self.snapshots)} snapshots)"
        )

    def __getstate__(self) -> dict[str, Any]:
        # (pending actions hold their writer, a bound method; the followed state travels
        # with the record, as the same object as the env's when both are pickled together)
        self._write_pending()
        return dict(self.__dict__)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (with the digest of the followed state, if any)."""
        digest = state_digest(self._state) if self._state is not None else self.final_digest
        return {
            "schema": RECORD_SCHEMA,
            "version": RECORD_VERSION,
            "game": self.game,
            "config": self.config,
            "seed": self.seed,
            "events": self.events,
            "snapshots": {str(k): v for k, v in sorted(self.snapshots.items())},
            "final_digest": digest,
        }

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Parse and validate a record dict: its size and types first, then every key
        (``InvalidStateError`` naming the problem; the events themselves are checked by the
        engine when replayed)."""
        if not isinstance(data, Mapping):
            raise InvalidStateError(f"record: expected a JSON object, got {type(data).__name__}")
        check_limits(data, MAX_RECORD_DEPTH, MAX_RECORD_VALUES, what="record")
        if data.get("schema") != RECORD_SCHEMA or data.get("version") not in READ_VERSIONS:
            raise InvalidStateError(
                f"record: expected schema {RECORD_SCHEMA!r} version 1 or {RECORD_VERSION}, got "
                f"{data.get('schema')!r} version {data.get('version')!r}"
            )
        known = {
            "schema",
            "version",
            "game",
            "config",
            "seed",
            "events",
            "snapshots",
            "final_digest",
        }
        if set(data) - known:
            raise InvalidStateError(f"record: unknown keys {sorted(set(data) - known)}")
        game, config, seed = data.get("game"), data.get("config"), data.get("seed")
        if not isinstance(game, str):
            raise InvalidStateError(f"record: 'game' must be a game's name, got {game!r}")
        if not isinstance(config, Mapping):
            raise InvalidStateError("record: 'config' must be an object")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidStateError(f"record: 'seed' must be an integer or null, got {seed!r}")
        events = data.get("events")
        if not isinstance(events, list):
            raise InvalidStateError("record: 'events' must be a list")
        if len(events) > MAX_RECORD_EVENTS:
            raise InvalidStateError(f"record: {len(events)} events (at most {MAX_RECORD_EVENTS})")
        for i, e in enumerate(events):
            if (
                not isinstance(e, Mapping)
                or len(e) != 1
                or next(iter(e))
                not in (
                    "chance",
                    "actions",
                )
            ):
                raise InvalidStateError(f"record: event {i} must be {{chance}} or {{actions}}")
            if "actions" in e and not isinstance(e["actions"], Mapping):
                raise InvalidStateError(f"record: event {i}: actions must be an object")
        snaps = data.get("snapshots") or {}
        if not isinstance(snaps, Mapping) or not all(
            isinstance(k, str) and k.isdigit() and int(k) <= len(events) for k in snaps
        ):
            raise InvalidStateError("record: 'snapshots' must map event indices to states")
        digest = data.get("final_digest")
        if digest is not None and not (isinstance(digest, str) and len(digest) == 16):
            raise InvalidStateError(f"record: 'final_digest' must be 16 hex digits, got {digest!r}")
        return cls(
            game=game,
            config=dict(config),
            seed=seed,
            events=[dict(e) for e in events],
            snapshots={int(k): v for k, v in snaps.items()},
            final_digest=digest,
        )

    def save(self, path: str | Path) -> None:
        """Write the record as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record written by :meth:`save` (``InvalidStateError`` for a file that is
        not one; ``OSError`` when it cannot be read)."""
        text = Path(path).read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InvalidStateError(f"record: not JSON ({str(exc)[:80]})") from None
        return cls.from_dict(data)


class RecordingState:
    """Applies actions and chance to a state while appending them to a record."""

    def __init__(self, game: Game, state: State, record: GameRecord) -> None:
        self.game = game
        self.state = state
        self.record = record
        record.follow(state)

    def apply_chance(self, outcome: Any) -> None:
        """Apply and log a chance outcome."""
        self.state.apply_chance(outcome)
        self.record.events.append({"chance": json_value(outcome)})

    def play_chance(self, rng: np.random.Generator) -> Any:
        """Sample, apply and log the pending chance outcome."""
        outcome = self.state.sample_chance(rng)
        self.apply_chance(outcome)
        return outcome

    def apply_actions(self, actions: Mapping[int, Any]) -> None:
        """Apply and log one action per decider."""
        to_json = self.game.action_to_json
        logged = {int(s): to_json(self.game_action(a)) for s, a in actions.items()}
        self.state.apply_actions(actions)
        self.record.events.append({"actions": {str(s): a for s, a in sorted(logged.items())}})

    def game_action(self, a: Any) -> Any:
        """An action object for ``a`` (ints are decoded)."""
        # a numpy int too: both games' int_to_action take one (the protocol says int)
        return self.game.int_to_action(cast(int, a)) if isinstance(a, int | np.integer) else a

    def snapshot(self) -> None:
        """Store the current state in the record before the next event."""
        self.record.snapshots[len(self.record.events)] = self.state.to_dict()


def replay_events(game: Game, record: GameRecord) -> list[list[Any]]:
    """The turn events (:mod:`tabletop.events`) of each of the record's steps, every seat's
    included: a record keeps them by replaying exactly (events are no part of the file, as
    they follow from its steps and the rules)."""
    out: list[list[Any]] = []
    states = iter_replay(game, record)
    first = next(states)
    first.record_events()
    for _ in states:  # each yield comes after one more step is applied
        out.append(first.take_events())
    return out


def iter_replay(game: Game, record: GameRecord) -> Iterator[State]:
    """Yield the state before each event and after the last, checking snapshots and, at the
    end, the recorded ``final_digest`` (an ``InvalidStateError`` when the replay ends in
    another state: events removed, changed or truncated)."""
    state = game.new_initial_state(record.seed)
    for i, event in enumerate(record.events):
        snap = record.snapshots.get(i)
        if snap is not None and snap != state.to_dict():
            raise InvalidStateError(f"record: replay diverges from the snapshot at event {i}")
        yield state
        if "chance" in event:
            state.apply_chance(event["chance"])
        else:
            decode = game.action_from_json
            try:
                acts = {int(s): decode(a) for s, a in event["actions"].items()}
            except (TypeError, ValueError) as exc:
                raise InvalidStateError(f"record: event {i}: {exc}") from None
            state.apply_actions(acts)
    snap = record.snapshots.get(len(record.events))
    if snap is not None and snap != state.to_dict():
        raise InvalidStateError("record: replay diverges from the final snapshot")
    if record.final_digest is not None and state_digest(state) != record.final_digest:
        raise InvalidStateError(
            f"record: the replay ends in another state than the one recorded (digest "
            f"{state_digest(state)}, recorded {record.final_digest}): events were removed, "
            "changed or cut off"
        )
    yield state


def replay(
    game: Game, record: GameRecord, on_state: Callable[[State], None] | None = None
) -> State:
    """Replay ``record`` on ``game``; returns the final state."""
    state = None
    for state in iter_replay(game, record):
        if on_state is not None:
            on_state(state)
    assert state is not None
    return state


def json_value(v: Any) -> Any:
    """A chance outcome or action as plain JSON: numpy scalars to Python numbers, sequences
    to lists (continuous outcomes, such as a point, are recorded exactly)."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, list | tuple | np.ndarray):
        return [json_value(x) for x in v]
    return v
