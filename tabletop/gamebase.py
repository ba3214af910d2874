"""What both engines' ``Game`` and ``State`` classes share, written once.

``RulesFiles`` gives a rules config dataclass its path resolution; ``GameBase`` the config
round trip for records; ``MachineQueries`` the protocol queries of a task-machine state
(``decision``, ``chance``, ``status``, ``winner`` attributes).
"""

from __future__ import annotations

import copy
import enum
import functools
import importlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, cast

import numpy as np

from tabletop.config import from_mapping, load_yaml, to_mapping
from tabletop.errors import ConfigError, IllegalActionError, SeatError
from tabletop.events import Event, EventKind, from_records
from tabletop.protocol import GameOutcome
from tabletop.staterecord import StateRecord

#: the value a rules config holds for a file carried by value (its content is in
#: ``Game.file_data``)
INLINE_FILE = "<carried by value>"

_T = TypeVar("_T")


@functools.cache
def shipped_presets(config_dir: Path) -> frozenset[str]:
    """The YAML files of a game's shipped configs, as paths relative to its folder (the only
    files a config dict may name)."""
    return frozenset(
        p.relative_to(config_dir).as_posix() for p in config_dir.rglob("*.yaml") if p.is_file()
    )


def checked_seed(seed: Any) -> int | None:
    """A game seed: None or an int in ``0 .. 2**63`` (numpy ints accepted), else a
    :class:`ConfigError` (a seed is stored in the state and its records, as JSON)."""
    if seed is None:
        return None
    if (
        isinstance(seed, bool)
        or not isinstance(seed, int | np.integer)
        or not 0 <= int(seed) <= 2**63
    ):
        raise ConfigError(f"a game seed is None or an int in 0..2**63, got {seed!r}")
    return int(seed)


def seat_index(seat: Any, num_players: int) -> int:
    """``seat`` as a seat of a game of ``num_players``, or :class:`SeatError` naming what
    was wrong and what is allowed (an int, or a numpy int, in ``0 .. num_players - 1``)."""
    if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
        raise SeatError(
            f"a seat must be an int in 0..{num_players - 1}, got {seat!r} ({type(seat).__name__})"
        )
    s = int(seat)
    if not 0 <= s < num_players:
        raise SeatError(f"seat {s} does not exist: this game has seats 0..{num_players - 1}")
    return s


def joint_action(actions: Any, num_players: int) -> dict[int, Any]:
    """A joint action (``{seat: action}``) with its seats checked by :func:`seat_index`;
    anything but a mapping is an :class:`IllegalActionError`."""
    if not isinstance(actions, Mapping):
        raise IllegalActionError(
            f"actions must map each deciding seat to its action, got {type(actions).__name__}"
        )
    return {seat_index(s, num_players): a for s, a in actions.items()}


class RulesFiles:
    """Mixin for a rules config with a ``base_dir`` field: files it names resolve against
    the config's own directory (``config_dir`` when ``base_dir`` is empty)."""

    base_dir: str
    config_dir: ClassVar[Path]

    def resolve(self, relative: str) -> Path:
        """A path named in this config, relative to the config's own directory."""
        p = Path(relative)
        if p.is_absolute():
            return p
        return (Path(self.base_dir) if self.base_dir else self.config_dir) / p


class DerivedTables:
    """The derived tables (``GameBase.derived``) of every game of one config, kept with a
    game of their own: built from the config, so the games that ask are freed with their
    episodes (a table refers to the game it was built from). The most recently used
    ``KEEP`` configs are kept; a game holds on to its own config's tables."""

    #: configs whose tables are kept after their last game is dropped
    KEEP: ClassVar[int] = 16
    _kept: ClassVar[OrderedDict[tuple[type, str], DerivedTables]] = OrderedDict()
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, game: Any) -> None:
        self.game = game
        self.tables: dict[str, Any] = {}
        game.__dict__["_derived"] = self

    @classmethod
    def of(cls, game: GameBase) -> DerivedTables:
        """The tables of ``game``'s config (made, with a game of their own, on first use)."""
        key = (type(game), json.dumps(game.config_dict(), sort_keys=True))
        with cls._lock:
            got = cls._kept.get(key)
            if got is not None:
                cls._kept.move_to_end(key)
                return got
        # built outside the lock: a game of the same config, not the caller (it is freed)
        made = cls(type(game).from_config_dict(json.loads(key[1])))
        with cls._lock:
            got = cls._kept.setdefault(key, made)
            cls._kept.move_to_end(key)
            while len(cls._kept) > cls.KEEP:
                cls._kept.popitem(last=False)
        return got

    def get(self, key: str, build: Callable[[Any], _T]) -> _T:
        """The table ``key``, ``build(self.game)`` on first use (two threads may both build:
        the last one's is kept; a table is a pure function of the config)."""
        if key not in self.tables:
            self.tables[key] = build(self.game)
        return cast(_T, self.tables[key])


class GameBase:
    """Mixin for a game built from ``self.rules`` (a frozen config dataclass)."""

    rules: Any
    codec: Any
    rules_class: ClassVar[type[RulesFiles]]
    #: the rules fields that name a file of the game's configs (decks, track, table, ...)
    file_fields: ClassVar[tuple[str, ...]] = ()
    #: each file field's parsed YAML, as the game was built from it
    file_data: dict[str, Any]
    #: the module with ``state_from_dict(game, data)`` (imported on first use)
    serialize_module: ClassVar[str]

    if TYPE_CHECKING:
        # what every game defines (declared for the type checker only)
        def __init__(
            self, config: Any = None, *, files: Mapping[str, Any] | None = None, **overrides: Any
        ) -> None: ...

        def int_to_action(self, index: int) -> Any: ...

    @classmethod
    def resolve_rules(cls, config: Any, overrides: Mapping[str, Any], loader: Any) -> Any:
        """The rules: ``config`` itself when it is a rules object (no overrides allowed
        then), else ``loader(config, **overrides)`` (a path, or None for the default)."""
        if isinstance(config, cls.rules_class):
            if overrides:
                raise ConfigError("overrides go with a config path, not a RulesConfig object")
            return config
        return loader(config, **overrides)

    def read_files(self, files: Mapping[str, Any] | None) -> dict[str, Any]:
        """The parsed YAML of each of ``file_fields``: carried by value in ``files``, else
        read from the file the rules name; kept as ``file_data`` for :meth:`config_dict`."""
        self.file_data = {}
        for name in self.file_fields:
            if files is not None and name in files:
                self.file_data[name] = copy.deepcopy(files[name])
            else:
                self.file_data[name] = load_yaml(self.rules.resolve(getattr(self.rules, name)))
        return self.file_data

    def _source(self, name: str) -> str:
        """Where file field ``name`` came from, for error messages."""
        value = getattr(self.rules, name)
        if value == INLINE_FILE:
            return f"<config dict: {name}>"
        return str(self.rules.resolve(value))

    def config_dict(self) -> dict[str, Any]:
        """The rules config as plain JSON data (for records and positions), self-contained:
        a file the rules name is kept as its name when it is a shipped preset read from the
        shipped configs, else carried by value (its parsed YAML). Inverse of
        :meth:`from_config_dict`; never a path of this machine."""
        data: dict[str, Any] = to_mapping(self.rules)
        shipped = not data["base_dir"] or Path(data["base_dir"]) == self.rules_class.config_dir
        presets = shipped_presets(self.rules_class.config_dir)
        for name in self.file_fields:
            if not (shipped and data[name] in presets):
                data[name] = copy.deepcopy(self.file_data[name])
        data["base_dir"] = ""
        return data

    @classmethod
    def from_config_dict(cls, data: Mapping[str, Any]) -> Any:
        """A game from :meth:`config_dict` output. No file is opened because the dict names
        it: a file field is the file's content, or the name of a shipped preset (resolved
        inside the package only); anything else is a :class:`ConfigError`."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"config dict: expected an object, got {type(data).__name__}")
        data = dict(data)
        base = data.pop("base_dir", "")
        if base != "":
            raise ConfigError(
                f"config dict: base_dir must be empty (a config dict names no folder), got {base!r}"
            )
        presets = shipped_presets(cls.rules_class.config_dir)
        files: dict[str, Any] = {}
        for name in cls.file_fields:
            value = data.get(name)
            if isinstance(value, Mapping):
                files[name] = value
                data[name] = INLINE_FILE
            elif not (isinstance(value, str) and value in presets):
                raise ConfigError(
                    f"config dict: {name}: {value!r} is neither the file's content nor a "
                    f"shipped preset ({', '.join(sorted(presets))})"
                )
        data["base_dir"] = ""
        return cls(from_mapping(cls.rules_class, data, source="<config dict>"), files=files)

    def derived(self, key: str, build: Callable[[Any], _T]) -> _T:
        """``build(game)``, made on the first call with ``key`` and kept: a table that a bot or
        an encoder works out from the rules once (a planner's value tables, a launch aim).
        Equal games (the same :meth:`config_dict`) share their tables, so a run that makes a
        new game per episode builds each table once (:class:`DerivedTables`); ``build`` gets
        the tables' own game, equal to this one. Not pickled (found or built again)."""
        tables: DerivedTables | None = self.__dict__.get("_derived")
        if tables is None:
            tables = self.__dict__["_derived"] = DerivedTables.of(self)
        return tables.get(key, build)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_derived", None)  # found again on demand, and may hold what does not pickle
        return state

    @property
    def num_players(self) -> int:
        """Number of seats."""
        n: int = self.rules.num_players
        return n

    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Rebuild and validate a state from ``State.to_dict()`` output."""
        return importlib.import_module(self.serialize_module).state_from_dict(self, data)

    def action_to_int(self, action: Any) -> int:
        """The flat index of ``action`` (of its discrete part, for a continuous action)."""
        try:
            index: int = self.codec.encode(action)
            return index
        except (KeyError, AttributeError, TypeError):  # (TypeError: unhashable)
            raise IllegalActionError(f"{action} is not an action of this game") from None

    def action_to_json(self, action: Any) -> Any:
        """An action as JSON for records: its int (games with continuous actions extend it)."""
        return self.action_to_int(action)

    def action_from_json(self, value: Any) -> Any:
        """Decode :meth:`action_to_json` output (an int)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalActionError(f"a recorded action must be an int, got {value!r}")
        return self.int_to_action(value)


class PendingDecision(Protocol):
    """What every game's decision record has (each game's ``Decision`` named tuple): its
    kind, the sequential decider ``seat`` (-1 at a simultaneous node) or the simultaneous
    deciders ``seats`` (empty otherwise), and the context its kind carries."""

    @property
    def kind(self) -> enum.Enum: ...

    @property
    def seat(self) -> int: ...

    @property
    def seats(self) -> tuple[int, ...]: ...

    def to_dict(self) -> dict[str, Any]: ...


class PendingChance(Protocol):
    """What every game's chance record has (each game's ``Chance`` named tuple): its kind,
    and the details its kind carries."""

    @property
    def kind(self) -> enum.Enum: ...

    def to_dict(self) -> dict[str, Any]: ...


def _json_value(v: Any) -> Any:
    """A record field's value as JSON (tuples, nested too, become lists)."""
    return [_json_value(x) for x in v] if type(v) is tuple else v


def record_to_dict(
    record: tuple[Any, ...], fields: tuple[str, ...], unset: Mapping[str, Any]
) -> dict[str, Any]:
    """A decision or chance record (a named tuple: ``kind`` first, then fields whose default
    means "not set") as JSON: ``kind``'s value, then every field that is set, in field
    order; tuples become lists."""
    out: dict[str, Any] = {"kind": record[0]._value_}
    for name, v in zip(fields[1:], record[1:], strict=True):
        if v != unset[name]:
            out[name] = _json_value(v)
    return out


class MachineQueries:
    """Protocol queries of a state whose pending work is ``decision`` (a dict with ``seat``
    or, at a simultaneous node, ``seats``) or ``chance``, ended by ``status``."""

    #: the pending tasks, the next last (each game's typed task tuples, :mod:`tabletop.tasks`)
    tasks: Sequence[tuple[Any, ...]]
    decision: PendingDecision | None
    chance: PendingChance | None
    #: the turn in progress (None between turns; each game's turn record)
    turn: StateRecord | None
    status: enum.Enum
    winner: int | None
    game: Any
    decision_kinds: ClassVar[type[enum.Enum]]
    chance_kinds: ClassVar[type[enum.Enum]]
    #: what was recorded since the last :meth:`take_events`, as raw ``(kind, seat, fields,
    #: to)`` records (None: not recording; :meth:`take_events` gives the events)
    events: list[tuple[EventKind, int | None, dict[str, Any], int | None]] | None = None
    #: the ``status`` of a game in progress (an identity test: is_terminal runs very often)
    in_progress: ClassVar[enum.Enum]

    def current_players(self) -> tuple[int, ...]:
        """Seats deciding now (several at a simultaneous node)."""
        d = self.decision
        if d is None:
            return ()
        return d.seats or (d.seat,)

    def _deciding(self, seat: Any) -> int | None:
        """``seat`` as an int if it is deciding now, None if it is a seat not deciding;
        :class:`SeatError` if it is no seat of this game (never coerced)."""
        d = self.decision
        if type(seat) is int and d is not None and (seat == d.seat >= 0 or seat in d.seats):
            return seat  # the common case, without a call (legal_actions runs very often)
        n = self.game.rules.num_players
        if type(seat) is not int:
            seat = seat_index(seat, n)
        if seat in self.current_players():
            deciding: int = seat
            return deciding
        seat_index(seat, n)
        return None

    def record_events(self, on: bool = True) -> None:
        """Start (or stop) recording what each step resolves (:mod:`tabletop.events`)."""
        self.events = [] if on else None

    def take_events(self) -> list[Event]:
        """The events recorded since the last call, in order (and forget them)."""
        raw = self.events
        if not raw:
            return []
        self.events = []
        return from_records(raw)

    def _event(
        self, kind: EventKind, seat: int | None, to: int | None = None, **fields: Any
    ) -> None:
        """Record one event when recording (see :meth:`record_events`)."""
        if self.events is not None:
            self.events.append((kind, seat, fields, to))

    def decision_kind(self) -> Any:
        """The kind of the pending decision, or None."""
        return self.decision.kind if self.decision is not None else None

    def chance_kind(self) -> Any:
        """The kind of the pending chance event, or None."""
        return self.chance.kind if self.chance is not None else None

    def is_simultaneous_node(self) -> bool:
        """True at a simultaneous decision."""
        return self.decision is not None and bool(self.decision.seats)

    def is_chance_node(self) -> bool:
        """True when a chance event is pending."""
        return self.chance is not None

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.status is not self.in_progress

    def returns(self) -> list[float]:
        """Zero-sum: +win_reward to the winner, -win_reward/(n-1) to each other seat; zeros
        for a game in progress or ended without a winner."""
        r = self.game.rules
        n = r.num_players
        if self.status.value != "win":
            return [0.0] * n
        w = r.win_reward
        return [w if s == self.winner else -w / (n - 1) for s in range(n)]

    def _no_decision_message(self) -> str:
        """Why no action can be applied now (the game is over, or chance is pending)."""
        if self.is_terminal():
            return f"no decision is pending: the game is over ({self.status.value})"
        return (
            f"no decision is pending: a chance event "
            f"({cast(PendingChance, self.chance).kind.value}) is pending; "
            "use apply_chance"
        )

    def outcome(self) -> GameOutcome:
        """Why the game ended (``IN_PROGRESS`` while it goes on) and the winner."""
        return GameOutcome(self.status, self.winner)
