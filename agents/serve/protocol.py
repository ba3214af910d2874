"""The bot server's commands, independent of the transport (docs/server.md).

A request is a JSON object ``{"id": ..., "cmd": ..., ...}``; :meth:`Service.handle` answers
``{"id": ..., "ok": true, ...}`` or ``{"id": ..., "ok": false, "error": {"code", "message",
"path"}}`` and never raises. Every field of a request is checked before it is used: a
position goes through the game's ``state_from_dict`` (size limits first), a config is taken
by value or as a shipped preset's name (no file a request names is ever opened), seats are
never coerced, a bot is one of the server's specs with its search bounded.

Commands: ``info``, ``new_game``, ``legal``, ``apply``, ``move``, ``render``, ``validate``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import platform
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any

import numpy as np

from agents import specs
from tabletop import registry
from tabletop.errors import ConfigError, IllegalActionError, InvalidStateError
from tabletop.jsoncheck import check_limits
from tabletop.protocol import play_chance

PROTOCOL = "tabletop-bot-server"
PROTOCOL_VERSION = 1
#: seeds are JSON ints in this range (numpy's generators take any of them)
MAX_SEED = 2**63


@dataclass(frozen=True)
class Limits:
    """What one request may ask. The HTTP transport adds its pool and body limits."""

    #: bytes of one request (a JSON line, an HTTP body)
    max_request_bytes: int = 512 * 1024
    #: JSON nesting, values and objects/lists of one request (positions are checked again by
    #: their game's own, tighter limits)
    max_depth: int = 16
    max_values: int = 20_000
    max_containers: int = 4_000
    #: an MCTS move's wall-clock budget: the default and the largest a request may ask
    default_move_ms: float = 1_000.0
    max_move_ms: float = 10_000.0
    #: an MCTS search's largest simulation count and rollout depth
    max_sims: int = 20_000
    max_depth_rollout: int = 64
    max_chance_children: int = 64
    #: games built from distinct configs kept ready (building one takes milliseconds)
    game_cache: int = 32
    #: rendered picture size bounds (pixels of the longer side)
    max_render_size: int = 1_024


class ServeError(Exception):
    """A request the server refuses: a code for programs, a message for people, the JSON
    path of the offending field, and the HTTP status the HTTP transport answers with."""

    def __init__(self, code: str, message: str, path: str = "", status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.status = status

    def to_json(self) -> dict[str, Any]:
        """The ``error`` member of a reply."""
        return {"code": self.code, "message": self.message, "path": self.path}


#: error codes and their HTTP status (docs/server.md lists them)
ERROR_STATUS = {
    "bad_request": 400,
    "too_large": 413,
    "unknown_command": 404,
    "unknown_game": 400,
    "bad_config": 400,
    "unsupported_bot": 400,
    "invalid_position": 422,
    "bad_seat": 422,
    "illegal_action": 422,
    "game_over": 422,
    "busy": 429,
    "internal": 500,
}


#: the fields each command takes besides ``id`` and ``cmd``
COMMAND_FIELDS: dict[str, frozenset[str]] = {
    "info": frozenset(),
    "new_game": frozenset({"game", "seed", "players", "options", "config"}),
    "legal": frozenset({"position", "seat"}),
    "apply": frozenset({"position", "actions", "seed", "seat"}),
    "move": frozenset({"position", "seat", "bot", "seed", "budget_ms"}),
    "render": frozenset({"position", "seat", "format"}),
    "validate": frozenset({"position"}),
}


def fail(code: str, message: str, path: str = "") -> ServeError:
    """A :class:`ServeError` with the status of ``code``."""
    return ServeError(code, message, path, ERROR_STATUS[code])


# ---------------------------------------------------------------------- field readers
def _field(req: Mapping[str, Any], name: str, required: bool = True) -> Any:
    if name not in req:
        if required:
            raise fail("bad_request", f"missing field {name!r}", name)
        return None
    return req[name]


def _int(v: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise fail("bad_request", f"expected an int in {lo}..{hi}, got {v!r}", path)
    return v


def _seed(req: Mapping[str, Any]) -> int:
    return _int(_field(req, "seed"), "seed", 0, MAX_SEED)


def _str(v: Any, path: str) -> str:
    if not isinstance(v, str):
        raise fail("bad_request", f"expected a string, got {type(v).__name__}", path)
    return v


def _object(v: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise fail("bad_request", f"expected an object, got {type(v).__name__}", path)
    return v


@dataclass
class Position:
    """A game, its state and the config the state belongs to, as a request carries them."""

    game_name: str
    config: dict[str, Any]
    game: Any
    state: Any

    def to_json(self) -> dict[str, Any]:
        """The position as a reply carries it (self-contained: send it back as is)."""
        return {"game": self.game_name, "config": self.config, "state": self.state.to_dict()}


class Service:
    """The server's commands over plain JSON values; thread-safe (games are cached under a
    lock, each request builds its own state and bot)."""

    COMMANDS = ("info", "new_game", "legal", "apply", "move", "render", "validate")

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._games: OrderedDict[tuple[str, str], Any] = OrderedDict()
        #: drawing adapters, keyed like the games (never by object id: an evicted game's id
        #: can be reused by another game)
        self._adapters: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._catalogue: list[dict[str, Any]] | None = None
        self._bots = BotPool()
        self._lock = threading.Lock()
        self._handlers: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
            "info": self.info,
            "new_game": self.new_game,
            "legal": self.legal,
            "apply": self.apply,
            "move": self.move,
            "render": self.render,
            "validate": self.validate,
        }

    def warm(self, players: tuple[int, ...] = (2, 4), copies: int = 4) -> None:
        """Build the default games of ``players`` seats, ``copies`` of each kept bot
        (heuristic, trained) and an MCTS move in each, so that the first requests do not pay
        for loading policies and building caches (``python -m agents.serve`` calls it with
        its worker count before serving)."""
        for name in registry.names():
            for n in players:
                r = self.handle({"cmd": "new_game", "game": name, "players": n, "seed": 0})
                if not r["ok"]:
                    continue
                req = {"position": r["position"], "seat": r["deciding"][0], "seed": 0}
                self.handle({"cmd": "move", **req, "bot": "mcts:sims=4,prior=heuristic"})
                pos = self._position(req)
                for kind in ("heuristic", "trained"):
                    spec = specs.parse(kind)
                    with contextlib.ExitStack() as stack:
                        try:
                            for _ in range(copies):
                                bot = stack.enter_context(self._bots.lend(spec, name))
                                bot.act(pos.state, req["seat"])
                        except (InvalidStateError, ConfigError):
                            pass  # no shipped policy for this player count

    # ------------------------------------------------------------------ entry points
    def handle_line(self, line: str | bytes, cmd: str | None = None) -> dict[str, Any]:
        """Answer one request given as JSON text (a JSON line, an HTTP body; ``cmd`` as in
        :meth:`handle`)."""
        try:
            req = self.parse_line(line)
        except ServeError as exc:
            return self._error(None, exc)
        return self.handle(req, cmd)

    def parse_line(self, line: str | bytes) -> Any:
        """The JSON value of a request's text, or ``ServeError`` (too large, not JSON); the
        value itself is checked by :meth:`handle`."""
        if len(line) > self.limits.max_request_bytes:
            raise fail(
                "too_large",
                f"a request is at most {self.limits.max_request_bytes} bytes, got {len(line)}",
            )
        try:
            return json.loads(line, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise fail("bad_request", f"not JSON: {exc}") from None

    @staticmethod
    def quick(req: Any, cmd: str | None = None) -> bool:
        """Whether a parsed request is cheap enough to answer without a worker thread: any
        command but ``new_game`` and ``render``, and a ``move`` only by a bot that does not
        search (no ``mcts``). Its cost is then a few milliseconds at most (a transport can
        answer it at once, sparing two thread hand-offs); malformed requests are quick too."""
        if not isinstance(req, dict):
            return True
        name = cmd if cmd is not None else req.get("cmd")
        if name in ("new_game", "render"):
            return False
        if name == "move":
            bot = req.get("bot")
            try:
                return not isinstance(bot, str) or specs.parse(bot).kind != "mcts"
            except specs.BotSpecError:  # refused at once
                return True
        return True

    def handle(self, req: Any, cmd: str | None = None) -> dict[str, Any]:
        """Answer one parsed request (``cmd`` overrides the request's, as HTTP routes do)."""
        rid = req.get("id") if isinstance(req, dict) else None
        if not _plain_id(rid):
            rid = None
        try:
            if not isinstance(req, dict):
                raise fail("bad_request", f"a request is a JSON object, got {type(req).__name__}")
            try:
                check_limits(
                    req,
                    self.limits.max_depth,
                    self.limits.max_values,
                    max_containers=self.limits.max_containers,
                )
            except InvalidStateError as exc:
                raise fail("too_large", str(exc).replace("state dict", "request")) from None
            if "id" in req and not _plain_id(req["id"]):
                raise fail("bad_request", "id is a string, an int or null", "id")
            name = cmd if cmd is not None else _str(_field(req, "cmd"), "cmd")
            handler = self._handlers.get(name)
            if handler is None:
                raise fail(
                    "unknown_command",
                    f"unknown command {name!r}; commands: {', '.join(self.COMMANDS)}",
                    "cmd",
                )
            extra = set(req) - {"id", "cmd"} - COMMAND_FIELDS[name]
            if extra:
                raise fail(
                    "bad_request",
                    f"unknown fields {sorted(extra)}; {name} takes "
                    f"{sorted(COMMAND_FIELDS[name]) or 'no fields'}",
                    sorted(extra)[0],
                )
            reply = handler(req)
        except ServeError as exc:
            return self._error(rid, exc)
        except Exception as exc:  # a bug: answered, never a dead server
            return self._error(rid, fail("internal", f"{type(exc).__name__}: {exc}"))
        return {"id": rid, "ok": True, **reply}

    @staticmethod
    def error_reply(exc: ServeError, rid: Any = None) -> dict[str, Any]:
        """The reply object of a refused request."""
        return Service._error(rid, exc)

    @staticmethod
    def _error(rid: Any, exc: ServeError) -> dict[str, Any]:
        return {"id": rid, "ok": False, "error": exc.to_json()}

    # ------------------------------------------------------------------ positions
    def _entry(self, v: Any, path: str) -> registry.GameEntry:
        try:
            return registry.get(_str(v, path))
        except registry.UnknownGameError as exc:
            raise fail("unknown_game", str(exc), path) from None

    def _game(self, entry: registry.GameEntry, config: Mapping[str, Any], path: str) -> Any:
        key = _cache_key(entry, config)
        with self._lock:
            game = self._games.get(key)
            if game is not None:
                self._games.move_to_end(key)
                return game
        try:
            game = entry.game_from_config_dict(dict(config))
        except (ConfigError, ValueError, TypeError) as exc:
            raise fail("bad_config", str(exc), path) from None
        with self._lock:
            self._games[key] = game
            while len(self._games) > self.limits.game_cache:
                self._games.popitem(last=False)
        return game

    def _position(self, req: Mapping[str, Any], path: str = "position") -> Position:
        pos = _object(_field(req, path), path)
        extra = set(pos) - {"game", "config", "state"}
        if extra:
            raise fail("bad_request", f"unknown keys {sorted(extra)}", path)
        entry = self._entry(_field(pos, "game"), f"{path}.game")
        config = dict(_object(_field(pos, "config"), f"{path}.config"))
        game = self._game(entry, config, f"{path}.config")
        try:
            state = game.state_from_dict(_object(_field(pos, "state"), f"{path}.state"))
        except InvalidStateError as exc:
            raise fail("invalid_position", str(exc), f"{path}.state") from None
        return Position(entry.name, game.config_dict(), game, state)

    def _seat(self, pos: Position, v: Any, path: str = "seat") -> int:
        n = pos.game.num_players
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
            raise fail("bad_seat", f"a seat is an int in 0..{n - 1}, got {v!r}", path)
        return v

    # ------------------------------------------------------------------ commands
    def info(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """The protocol, the games, the bots and their settings, versions and limits."""
        return {
            "protocol": PROTOCOL,
            "version": PROTOCOL_VERSION,
            "commands": list(self.COMMANDS),
            "games": self._game_catalogue(),
            "bots": bot_catalogue(self.limits),
            "versions": {
                "tabletop-racers": _version("tabletop-racers"),
                "python": platform.python_version(),
                "numpy": np.__version__,
                "onnxruntime": _version("onnxruntime"),
            },
            "limits": asdict(self.limits),
        }

    def new_game(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """A new game at its first decision: chance before it (start dots, launch noise)
        drawn from ``seed``; ``config`` (a config dict) or ``players`` and rule ``options``."""
        entry = self._entry(_field(req, "game"), "game")
        seed = _seed(req)
        config = _field(req, "config", required=False)
        options = _field(req, "options", required=False)
        players = _field(req, "players", required=False)
        if config is not None and (options is not None or players is not None):
            raise fail("bad_request", "give a config, or players and options, not both", "config")
        if config is None:
            overrides = dict(_object(options or {}, "options"))
            if players is not None:
                overrides["num_players"] = players
            try:
                config = entry.game(**overrides).config_dict()
            except (ConfigError, ValueError, TypeError) as exc:
                raise fail("bad_config", str(exc), "options") from None
        game = self._game(entry, _object(config, "config"), "config")
        state = game.new_initial_state(seed)
        state.record_events()
        pos = Position(entry.name, game.config_dict(), game, state)
        steps = self._settle(pos, np.random.default_rng(seed))
        events = [{**e.to_json(), "text": str(e)} for e in state.take_events()]
        return {"position": pos.to_json(), "steps": steps, "events": events, **self._summary(pos)}

    def legal(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """The legal actions of ``seat`` now: JSON (what ``apply`` takes), int and text."""
        pos = self._position(req)
        seat = self._seat(pos, _field(req, "seat"))
        actions = pos.state.legal_actions(seat)
        game = pos.game
        return {
            "seat": seat,
            "deciding": seat in pos.state.current_players(),
            "actions": [
                {"action": game.action_to_json(a), "int": game.action_to_int(a), "text": str(a)}
                for a in actions
            ],
        }

    def apply(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """Apply the deciding seats' actions (an object: seat number as a string -> action
        JSON), then draw every chance event up to the next decision from ``seed``."""
        pos = self._position(req)
        seed = _seed(req)
        viewer = req.get("seat")
        if viewer is not None:
            viewer = self._seat(pos, viewer)
        if pos.state.is_terminal():
            raise fail("game_over", "the game is over: nothing to apply", "position")
        if pos.state.is_chance_node():
            raise fail(
                "invalid_position",
                "the position waits for chance; positions from new_game and apply never do",
                "position",
            )
        actions = _object(_field(req, "actions"), "actions")
        deciding = pos.state.current_players()
        joint: dict[int, Any] = {}
        for key, value in actions.items():
            seat = _seat_key(key, pos.game.num_players)
            if seat not in deciding:
                raise fail(
                    "bad_seat",
                    f"seat {seat} is not deciding now; deciding: {list(deciding)}",
                    f"actions.{key}",
                )
            try:
                joint[seat] = pos.game.action_from_json(value)
            except IllegalActionError as exc:
                raise fail("illegal_action", str(exc), f"actions.{key}") from None
        missing = [s for s in deciding if s not in joint]
        if missing:
            raise fail("bad_request", f"actions missing for deciding seats {missing}", "actions")
        before = {str(s): pos.game.action_to_json(a) for s, a in sorted(joint.items())}
        pos.state.record_events()
        try:
            pos.state.apply_actions(joint)
        except IllegalActionError as exc:
            raise fail("illegal_action", str(exc), "actions") from None
        steps: list[dict[str, Any]] = [{"kind": "actions", "actions": before}]
        steps += self._settle(pos, np.random.default_rng(seed))
        events = [
            {**e.to_json(), "text": str(e)} for e in pos.state.take_events() if e.visible_to(viewer)
        ]
        return {"position": pos.to_json(), "steps": steps, "events": events, **self._summary(pos)}

    def move(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """The action ``bot`` chooses for ``seat`` (seeded by ``seed``; MCTS within
        ``budget_ms``)."""
        pos = self._position(req)
        seat = self._seat(pos, _field(req, "seat"))
        if seat not in pos.state.current_players():
            raise fail(
                "bad_seat",
                f"seat {seat} is not deciding now; deciding: {list(pos.state.current_players())}",
                "seat",
            )
        seed = _seed(req)
        budget = _field(req, "budget_ms", required=False)
        spec = self._bot_spec(_field(req, "bot"), budget)
        start = time.perf_counter()
        try:
            with self._bots.lend(spec, pos.game_name) as bot:
                bot.reset(seed)
                action = bot.act(pos.state, seat)
        except (InvalidStateError, ConfigError) as exc:  # e.g. no trained policy for n players
            raise fail("unsupported_bot", str(exc), "bot") from None
        ms = (time.perf_counter() - start) * 1000.0
        return {
            "seat": seat,
            "bot": str(spec),
            "action": pos.game.action_to_json(action),
            "text": str(action),
            "think_ms": round(ms, 3),
        }

    def render(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """The position as a PNG picture (base64): the board and its public information
        only, so every seat sees the same picture."""
        pos = self._position(req)
        if "seat" in req and req["seat"] is not None:
            self._seat(pos, req["seat"])
        fmt = _field(req, "format", required=False) or "png"
        if fmt != "png":
            raise fail("bad_request", f"format is 'png', got {fmt!r}", "format")
        from tabletop.draw import png_bytes

        rgb = self._adapter(pos).render_rgb(pos.state)
        return {
            "format": "png",
            "width": int(rgb.shape[1]),
            "height": int(rgb.shape[0]),
            "png_base64": base64.b64encode(png_bytes(rgb)).decode("ascii"),
        }

    def validate(self, req: Mapping[str, Any]) -> dict[str, Any]:
        """Whether the position is one the game's rules can reach (``valid``), and if not the
        first problem found, as an error object."""
        try:
            pos = self._position(req)
        except ServeError as exc:
            if exc.code not in ("invalid_position", "bad_config"):
                raise
            return {"valid": False, "problem": exc.to_json()}
        return {"valid": True, **self._summary(pos)}

    # ------------------------------------------------------------------ helpers
    def _game_catalogue(self) -> list[dict[str, Any]]:
        """Each game's name, title, player counts its rules accept, and default config."""
        with self._lock:
            cached = self._catalogue
        if cached is not None:
            return cached
        games = []
        for name in registry.names():
            entry = registry.get(name)
            players = []
            for n in range(1, 9):
                try:
                    entry.game(num_players=n)
                except (ConfigError, ValueError):
                    continue
                players.append(n)
            games.append(
                {
                    "name": name,
                    "title": entry.title,
                    "players": players,
                    "default_config": entry.game().config_dict(),
                }
            )
        with self._lock:
            self._catalogue = games
        return games

    def _settle(self, pos: Position, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Draw chance events up to the next decision (or the end); the outcomes drawn."""
        steps = []
        state = pos.state
        while state.is_chance_node() and not state.is_terminal():
            kind = state.chance_kind()
            outcome = play_chance(state, rng)
            steps.append({"kind": "chance", "chance": kind.value, "outcome": _jsonable(outcome)})
        return steps

    def _summary(self, pos: Position) -> dict[str, Any]:
        s = pos.state
        kind = s.decision_kind()
        return {
            "terminal": s.is_terminal(),
            "deciding": list(s.current_players()),
            "decision": None if kind is None else kind.value,
            "returns": [float(r) for r in s.returns()] if s.is_terminal() else None,
            "text": str(s),
        }

    def _adapter(self, pos: Position) -> Any:
        entry = registry.get(pos.game_name)
        key = _cache_key(entry, pos.config)
        with self._lock:
            adapter = self._adapters.get(key)
            if adapter is not None:
                self._adapters.move_to_end(key)
                return adapter
        _, adapter = entry.replay_game(pos.config)
        with self._lock:
            self._adapters[key] = adapter
            while len(self._adapters) > self.limits.game_cache:
                self._adapters.popitem(last=False)
        return adapter

    def _bot_spec(self, v: Any, budget: Any) -> specs.BotSpec:
        if not isinstance(v, str):
            raise fail("unsupported_bot", f"a bot is a spec string, got {v!r}", "bot")
        try:
            spec = specs.parse(v)
        except specs.BotSpecError as exc:
            raise fail("unsupported_bot", str(exc), "bot") from None
        if spec.kind == "policy":
            raise fail(
                "unsupported_bot",
                "policy:PATH is not served (a request names no file); bots: "
                + ", ".join(k for k in specs.KINDS if k != "policy"),
                "bot",
            )
        if spec.kind == "heuristic" and spec.options:
            raise fail(
                "unsupported_bot",
                "heuristic options are not served (each would be a bot of its own); "
                "bots: the plain heuristic, random, trained, mcts",
                "bot",
            )
        if budget is not None and spec.kind != "mcts":
            raise fail("unsupported_bot", f"{spec.kind} takes no budget_ms", "budget_ms")
        if spec.kind != "mcts":
            return spec
        lim = self.limits
        if budget is None:
            budget = lim.default_move_ms
        if (
            isinstance(budget, bool)
            or not isinstance(budget, int | float)
            or not (math.isfinite(budget) and 1 <= budget <= lim.max_move_ms)
        ):
            raise fail(
                "unsupported_bot",
                f"budget_ms is a number in 1..{lim.max_move_ms:g}, got {budget!r}",
                "budget_ms",
            )
        opts = dict(spec.options)
        bounds = {
            "sims": lim.max_sims,
            "depth": lim.max_depth_rollout,
            "chance": lim.max_chance_children,
            "pdepth": lim.max_depth_rollout,
            "ms": lim.max_move_ms,
            "c": 1e6,
            "scale": 1e6,
            "pw": 1e6,
        }
        for key, top in bounds.items():
            if key in opts and not float(opts[key]) <= top:
                raise fail(
                    "unsupported_bot",
                    f"mcts {key}={opts[key]} is above this server's limit {top:g}",
                    "bot",
                )
        opts["ms"] = f"{min(float(opts.get('ms', budget)), float(budget)):g}"
        return specs.BotSpec("mcts", tuple(sorted(opts.items())))


class BotPool:
    """Bots kept between requests: a bot that loads a policy or builds caches (``trained``,
    ``heuristic``) is made once per game and lent to one request at a time (reseeded by it);
    more are made while all are lent. MCTS bots, whose budget differs per request, are made
    for each request."""

    KEPT = frozenset({"trained", "heuristic", "random"})

    def __init__(self) -> None:
        self._idle: dict[tuple[str, str], list[Any]] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lend(self, spec: specs.BotSpec, game: str) -> Iterator[Any]:
        """A bot of ``spec`` for ``game``, returned to the pool after the block."""
        key = (game, str(spec))
        keep = spec.kind in self.KEPT
        bot = None
        if keep:
            with self._lock:
                idle = self._idle.get(key)
                if idle:
                    bot = idle.pop()
        if bot is None:
            bot = specs.make_bot(spec, game)
        try:
            yield bot
        finally:
            if keep:
                with self._lock:
                    self._idle.setdefault(key, []).append(bot)


def bot_catalogue(limits: Limits) -> list[dict[str, Any]]:
    """The bots a request may name, each with the settings it takes."""
    return [
        {"kind": "random", "settings": {}},
        {"kind": "heuristic", "settings": {}},
        {"kind": "trained", "settings": {}},
        {
            "kind": "mcts",
            "settings": {
                **{key: "number" for key in specs.mcts_number_keys()},
                **{key: list(choices) for key, choices in specs.mcts_choices().items()},
            },
            "budget_ms": {"default": limits.default_move_ms, "max": limits.max_move_ms},
            "max_sims": limits.max_sims,
        },
    ]


def _cache_key(entry: registry.GameEntry, config: Mapping[str, Any]) -> tuple[str, str]:
    """The key of a game (and its drawing adapter) in the service's caches."""
    return (entry.name, json.dumps(config, sort_keys=True))


def _seat_key(key: str, n: int) -> int:
    if not (key.isdigit() and (key == "0" or not key.startswith("0"))) or int(key) >= n:
        raise fail(
            "bad_seat", f"actions are keyed by seat numbers '0'..'{n - 1}', got {key!r}", "actions"
        )
    return int(key)


def _plain_id(v: Any) -> bool:
    return v is None or isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    return v


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None
