"""The Lazer Ryderz state as JSON: ``state_to_dict``, ``state_from_dict`` (validated) and the
structured public view behind ``State.observation``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ryderz_env.rules.config import PieceKind
from ryderz_env.rules.geometry import Element, Pose, make_element
from ryderz_env.rules.state import (
    _DECIDE,
    _TASKS,
    ChanceKind,
    DecisionKind,
    Outcome,
    Player,
    Prizm,
    State,
)
from tabletop.errors import InvalidStateError
from tabletop.jsoncheck import as_bool, as_int, as_ints, as_list, as_num, bad, key

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game

SCHEMA = "lazer_ryderz/state"
SCHEMA_VERSION = 1
KIND_NAMES = {PieceKind.STRAIGHT: "straight", PieceKind.SOFT: "soft", PieceKind.HARD: "hard",
              PieceKind.LAUNCH: "launch"}
_KINDS = {v: k for k, v in KIND_NAMES.items()}
_TURN_KEYS = {"seat", "id", "phantom", "shark", "scored", "tosses", "roll"}


def _pose(p: Pose | None) -> list[float] | None:
    return None if p is None else [p.x, p.y, p.h]


def element_to_dict(e: Element) -> dict[str, Any]:
    """One piece or Launch Point as JSON."""
    if e.is_launch:
        return {"kind": "launch", "t": e.t, "turn": e.turn}
    return {"kind": KIND_NAMES[e.kind], "gear": e.gear, "side": e.side,
            "pose": _pose(e.pose), "turn": e.turn}


def state_to_dict(s: State) -> dict[str, Any]:
    """Plain-JSON snapshot of ``s``."""
    return {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "seed": s.seed,
        "round": s.round,
        "marker": s.marker,
        "order": list(s.order),
        "turn_id": s.turn_id,
        "players": [{
            "gear": p.gear, "stalled": p.stalled, "power_ready": p.power_ready,
            "supply": [list(g) for g in p.supply], "head": _pose(p.head),
            "prev_turn": p.prev_turn, "lazer": [element_to_dict(e) for e in p.lazer],
        } for p in s.players],
        "prizms": [[q.x, q.y, q.owner] for q in s.prizms],
        "tasks": [list(t) for t in s.tasks],
        "decision": s.decision,
        "chance": s.chance,
        "turn": s.turn,
        "status": s.status.value,
        "winner": s.winner,
    }


def public_view(s: State, seat: int) -> dict[str, Any]:
    """Everything on the table, from ``seat``'s chair (all of it is public)."""
    d = s.decision
    return {
        "seat": seat,
        "round": s.round,
        "marker": s.marker,
        "order": list(s.order),
        "turn_seat": None if s.turn is None else s.turn["seat"],
        "decision": None if d is None else d["kind"],
        "deciders": list(s.current_players()),
        "chance": None if s.chance is None else s.chance["kind"],
        "players": [{
            "gear": p.gear, "power_ready": p.power_ready, "score": s.score(p.seat),
            "supply": [list(g) for g in p.supply], "head": _pose(p.head),
            "lazer": [element_to_dict(e) for e in p.lazer],
        } for p in s.players],
        "prizms": [{"x": q.x, "y": q.y, "owner": q.owner, "locked": s.locked(j)}
                   for j, q in enumerate(s.prizms)],
        "status": s.status.value,
        "winner": s.winner,
    }


def _pose_in(v: Any, path: str) -> Pose:
    x, y, h = (as_num(c, f"{path}[{i}]") for i, c in enumerate(as_list(v, path, 3)))
    return Pose(x, y, h)


def _element(game: Game, d: Any, seat: int, path: str) -> Element:
    kind_name = key(d, "kind", path)
    if kind_name not in _KINDS:
        raise bad(f"{path}.kind", f"unknown piece kind {kind_name!r}; "
                  f"allowed: {', '.join(_KINDS)}")
    kind = _KINDS[kind_name]
    turn = as_int(key(d, "turn", path), f"{path}.turn", 0)
    if kind is PieceKind.LAUNCH:
        extra = set(d) - {"kind", "t", "turn"}
        if extra:
            raise bad(path, f"unknown keys {sorted(extra)}")
        return game.launch_element(seat, as_num(key(d, "t", path), f"{path}.t"), turn)
    extra = set(d) - {"kind", "gear", "side", "pose", "turn"}
    if extra:
        raise bad(path, f"unknown keys {sorted(extra)}")
    gear = as_int(key(d, "gear", path), f"{path}.gear", 1, game.top_gear)
    side = as_int(key(d, "side", path), f"{path}.side", -1, 1)
    shape = game.shapes.get((kind, gear, side))
    if shape is None:
        raise bad(path, f"there is no {kind_name} piece of gear {gear} with side {side}")
    pose = _pose_in(key(d, "pose", path), f"{path}.pose")
    return make_element(seat, kind, gear, side, pose, turn, shape.outline, shape.exit)


def _player(game: Game, d: Any, seat: int) -> Player:
    path = f"players[{seat}]"
    allowed = {"gear", "stalled", "power_ready", "supply", "head", "prev_turn", "lazer"}
    key(d, "gear", path)
    extra = set(d) - allowed
    if extra:
        raise bad(path, f"unknown keys {sorted(extra)}")
    supply = [as_ints(g, f"{path}.supply[{i}]", 3, 0)
              for i, g in enumerate(as_list(key(d, "supply", path), f"{path}.supply",
                                            game.top_gear))]
    p = Player(seat, supply, as_bool(key(d, "power_ready", path), f"{path}.power_ready"))
    p.gear = as_int(key(d, "gear", path), f"{path}.gear", 1, game.top_gear)
    p.stalled = as_bool(key(d, "stalled", path), f"{path}.stalled")
    p.prev_turn = as_int(key(d, "prev_turn", path), f"{path}.prev_turn", -1)
    head = key(d, "head", path)
    p.head = None if head is None else _pose_in(head, f"{path}.head")
    p.lazer = [_element(game, e, seat, f"{path}.lazer[{i}]")
               for i, e in enumerate(as_list(key(d, "lazer", path), f"{path}.lazer"))]
    if any(e.is_launch for e in p.lazer[1:]):
        raise bad(f"{path}.lazer", "a Launch Point can only be the oldest element")
    if p.lazer and p.head is None:
        raise bad(path, "a player with a Lazer on the table needs a head pose")
    for g in range(game.top_gear):
        for k in (PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD):
            on_table = sum(1 for e in p.lazer if e.gear == g + 1 and e.kind is k)
            if p.supply[g][k] + on_table != game.supply[g][k]:
                raise bad(f"{path}.supply", f"gear {g + 1} {KIND_NAMES[k]}: {p.supply[g][k]} "
                          f"in supply + {on_table} on the table != {game.supply[g][k]} owned")
    return p


def state_from_dict(game: Game, data: Mapping[str, Any]) -> State:
    """Validate ``data`` against ``game`` and build the state it describes."""
    if not isinstance(data, Mapping):
        raise InvalidStateError("state dict: expected a JSON object")
    if data.get("schema") != SCHEMA:
        raise bad("schema", f"expected {SCHEMA!r}, got {data.get('schema')!r}")
    if data.get("version") != SCHEMA_VERSION:
        raise bad("version", f"unsupported version {data.get('version')!r}; "
                  f"this engine reads {SCHEMA_VERSION}")
    n = game.num_players
    s = State(game, data.get("seed"), _empty=True)
    s.round = as_int(key(data, "round", ""), "round", 0, game.rules.round_limit)
    s.marker = as_int(key(data, "marker", ""), "marker", 0, n - 1)
    s.order = as_ints(key(data, "order", ""), "order", None, 0, n - 1)
    s.turn_id = as_int(key(data, "turn_id", ""), "turn_id", 0)
    s.players = [_player(game, d, i) for i, d in
                 enumerate(as_list(key(data, "players", ""), "players", n))]
    s.prizms = []
    for i, q in enumerate(as_list(key(data, "prizms", ""), "prizms")):
        path = f"prizms[{i}]"
        x, y, owner = as_list(q, path, 3)
        s.prizms.append(Prizm(as_num(x, f"{path}[0]"), as_num(y, f"{path}[1]"),
                              as_int(owner, f"{path}[2]", -1, n - 1)))
    s.tasks = [_task(t, i) for i, t in enumerate(as_list(key(data, "tasks", ""), "tasks"))]
    s.decision = _decision(key(data, "decision", ""), n)
    s.chance = _chance(key(data, "chance", ""))
    turn = key(data, "turn", "")
    if turn is not None and (not isinstance(turn, Mapping) or set(turn) != _TURN_KEYS):
        raise bad("turn", f"expected null or an object with keys {sorted(_TURN_KEYS)}")
    s.turn = None if turn is None else dict(turn)
    try:
        s.status = Outcome(key(data, "status", ""))
    except ValueError:
        raise bad("status", f"unknown status {data['status']!r}") from None
    winner = key(data, "winner", "")
    s.winner = None if winner is None else as_int(winner, "winner", 0, n - 1)
    if (s.status is Outcome.WIN) != (s.winner is not None):
        raise bad("winner", "a won game needs a winner, and only a won game has one")
    pending = (s.decision is not None) + (s.chance is not None)
    if s.status is Outcome.IN_PROGRESS and pending != 1:
        raise bad("decision", "a game in progress waits for exactly one decision or chance")
    for seat in range(n):
        if s.score(seat) >= game.rules.win_prizms and s.winner != seat:
            raise bad("prizms", f"seat {seat} has {s.score(seat)} Prizms but has not won")
    s._reset_caches()
    return s


def _task(v: Any, i: int) -> tuple:
    t = as_list(v, f"tasks[{i}]")
    if not t or t[0] not in _TASKS:
        raise bad(f"tasks[{i}]", f"unknown task {t[:1]!r}")
    return tuple(t)


def _decision(v: Any, n: int) -> dict | None:
    if v is None:
        return None
    kind = key(v, "kind", "decision")
    if kind not in {k.value for k in _DECIDE}:
        raise bad("decision.kind", f"unknown decision {kind!r}")
    if kind == DecisionKind.ENGINES.value:
        as_ints(key(v, "seats", "decision"), "decision.seats", n, 0, n - 1)
        as_int(key(v, "attempt", "decision"), "decision.attempt", 0)
    else:
        as_int(key(v, "seat", "decision"), "decision.seat", 0, n - 1)
    return dict(v)


def _chance(v: Any) -> dict | None:
    if v is None:
        return None
    kind = key(v, "kind", "chance")
    if kind not in {k.value for k in ChanceKind}:
        raise bad("chance.kind", f"unknown chance event {kind!r}")
    out = dict(v)
    if "spots" in out:
        out["spots"] = [list(x) for x in out["spots"]]
    if "x" in out and not math.isfinite(as_num(out["x"], "chance.x")):
        raise bad("chance.x", "not finite")
    return out
