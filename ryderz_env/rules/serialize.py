"""The Lazer Ryderz state as JSON: ``state_to_dict``, ``state_from_dict`` (validated) and the
structured public view behind ``State.observation``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from ryderz_env.rules import tasks as T
from ryderz_env.rules.config import Character, PieceKind
from ryderz_env.rules.geometry import Element, Pose, make_element
from ryderz_env.rules.records import (
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    Player,
    Prizm,
    RiderTurn,
)
from ryderz_env.rules.state import _DECIDE, TASK_TABLE, State
from tabletop.errors import InvalidStateError
from tabletop.jsoncheck import (
    as_bool,
    as_int,
    as_ints,
    as_list,
    as_num,
    bad,
    check_deciders,
    check_limits,
    key,
)

if TYPE_CHECKING:
    from ryderz_env.rules.game import Game

SCHEMA = "lazer_ryderz/state"
SCHEMA_VERSION = 1
KIND_NAMES = {
    PieceKind.STRAIGHT: "straight",
    PieceKind.SOFT: "soft",
    PieceKind.HARD: "hard",
    PieceKind.LAUNCH: "launch",
}
_KINDS = {v: k for k, v in KIND_NAMES.items()}
_TOP_KEYS = {
    "schema",
    "version",
    "seed",
    "round",
    "marker",
    "order",
    "players",
    "prizms",
    "turn_id",
    "turn",
    "tasks",
    "decision",
    "chance",
    "status",
    "winner",
}
#: how far (inches) a Prizm's disc may seem to pass the table's edge (rounding of a Prizm
#: placed right at it; the soak's own check allows the same)
PRIZM_EDGE_SLACK = 1e-6
#: limits checked before anything else (the largest states of 4-player random games have
#: ~710 values in ~120 objects and lists, 7 levels deep; all 96 pieces of four players on the
#: table would make ~1,700 values in ~300; bench/bench_validation.py times the largest)
MAX_DEPTH = 10
MAX_VALUES = 4_000
MAX_CONTAINERS = 800


def _copy_json(v: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, tuples as lists)."""
    if isinstance(v, dict):
        return {k: _copy_json(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_copy_json(x) for x in v]
    return v


def pose_to_list(p: Pose | None) -> list[float] | None:
    """A pose as JSON, ``[x, y, heading]`` (None stays None)."""
    return None if p is None else [p.x, p.y, p.h]


def element_to_dict(e: Element) -> dict[str, Any]:
    """One piece or Launch Point as JSON."""
    if e.is_launch:
        return {"kind": "launch", "t": e.t, "turn": e.turn}
    return {
        "kind": KIND_NAMES[e.kind],
        "gear": e.gear,
        "side": e.side,
        "pose": pose_to_list(e.pose),
        "turn": e.turn,
    }


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
        "players": [
            {
                "gear": p.gear,
                "stalled": p.stalled,
                "power_ready": p.power_ready,
                "supply": [list(g) for g in p.supply],
                "head": pose_to_list(p.head),
                "prev_turn": p.prev_turn,
                "lazer": [element_to_dict(e) for e in p.lazer],
            }
            for p in s.players
        ],
        "prizms": [[q.x, q.y, q.owner] for q in s.prizms],
        "tasks": [list(t) for t in s.tasks],
        "decision": None if s.decision is None else s.decision.to_dict(),
        "chance": None if s.chance is None else s.chance.to_dict(),
        "turn": None if s.turn is None else s.turn.to_dict(),
        "status": s.status.value,
        "winner": s.winner,
    }


def _pose_in(v: Any, path: str) -> Pose:
    x, y, h = (as_num(c, f"{path}[{i}]") for i, c in enumerate(as_list(v, path, 3)))
    return Pose(x, y, h)


def _element(game: Game, d: Any, seat: int, path: str) -> Element:
    kind_name = key(d, "kind", path)
    if not isinstance(kind_name, str) or kind_name not in _KINDS:
        raise bad(f"{path}.kind", f"unknown piece kind {kind_name!r}; allowed: {', '.join(_KINDS)}")
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
    allowed = set(Player.FIELDS) - {"seat"}  # a player's seat is its place in the list
    key(d, "gear", path)
    extra = set(d) - allowed
    if extra:
        raise bad(path, f"unknown keys {sorted(extra)}")
    supply = [
        as_ints(g, f"{path}.supply[{i}]", 3, 0)
        for i, g in enumerate(as_list(key(d, "supply", path), f"{path}.supply", game.top_gear))
    ]
    ready = as_bool(key(d, "power_ready", path), f"{path}.power_ready")
    p = Player(seat=seat, supply=supply, power_ready=ready)
    p.gear = as_int(key(d, "gear", path), f"{path}.gear", 1, game.top_gear)
    p.stalled = as_bool(key(d, "stalled", path), f"{path}.stalled")
    p.prev_turn = as_int(key(d, "prev_turn", path), f"{path}.prev_turn", -1)
    head = key(d, "head", path)
    p.head = None if head is None else _pose_in(head, f"{path}.head")
    p.lazer = [
        _element(game, e, seat, f"{path}.lazer[{i}]")
        for i, e in enumerate(as_list(key(d, "lazer", path), f"{path}.lazer"))
    ]
    if any(e.is_launch for e in p.lazer[1:]):
        raise bad(f"{path}.lazer", "a Launch Point can only be the oldest element")
    if p.lazer and p.head is None:
        raise bad(path, "a player with a Lazer on the table needs a head pose")
    for i, (a, b) in enumerate(zip(p.lazer, p.lazer[1:], strict=False)):
        if b.pose != a.exit:
            raise bad(
                f"{path}.lazer[{i + 1}].pose",
                "a Lazer is a chain: each piece starts at the exit pose of the one before "
                f"({pose_to_list(a.exit)}), got {pose_to_list(b.pose)}",
            )
    if p.lazer and p.head != p.lazer[-1].exit:
        raise bad(
            f"{path}.head",
            "the head is the exit pose of the front piece "
            f"({pose_to_list(p.lazer[-1].exit)}), got {pose_to_list(p.head)}",
        )
    for g in range(game.top_gear):
        for k in (PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD):
            on_table = sum(1 for e in p.lazer if e.gear == g + 1 and e.kind is k)
            if p.supply[g][k] + on_table != game.supply[g][k]:
                raise bad(
                    f"{path}.supply",
                    f"gear {g + 1} {KIND_NAMES[k]}: {p.supply[g][k]} "
                    f"in supply + {on_table} on the table != {game.supply[g][k]} owned",
                )
    return p


def state_from_dict(game: Game, data: Mapping[str, Any]) -> State:
    """Validate ``data`` against ``game`` and build the state it describes."""
    if not isinstance(data, Mapping):
        raise InvalidStateError("state dict: expected a JSON object")
    check_limits(data, MAX_DEPTH, MAX_VALUES, max_containers=MAX_CONTAINERS)
    if data.get("schema") != SCHEMA:
        raise bad("schema", f"expected {SCHEMA!r}, got {data.get('schema')!r}")
    if data.get("version") != SCHEMA_VERSION:
        raise bad(
            "version",
            f"unsupported version {data.get('version')!r}; this engine reads {SCHEMA_VERSION}",
        )
    extra = set(data) - _TOP_KEYS
    if extra:
        raise bad("", f"unknown keys {sorted(extra)}; a state has {sorted(_TOP_KEYS)}")
    n = game.num_players
    seed = key(data, "seed", "")
    if seed is not None:
        as_int(seed, "seed")
    s = State(game, seed, _empty=True)
    s.round = as_int(key(data, "round", ""), "round", 0, game.rules.round_limit)
    s.marker = as_int(key(data, "marker", ""), "marker", 0, n - 1)
    s.order = as_ints(key(data, "order", ""), "order", None, 0, n - 1)
    if s.order and sorted(s.order) != list(range(n)):
        raise bad("order", f"the turn order must list each seat once, got {s.order}")
    s.turn_id = as_int(key(data, "turn_id", ""), "turn_id", 0)
    s.players = [
        _player(game, d, i) for i, d in enumerate(as_list(key(data, "players", ""), "players", n))
    ]
    s.prizms = []
    for i, q in enumerate(as_list(key(data, "prizms", ""), "prizms")):
        path = f"prizms[{i}]"
        x, y, owner = as_list(q, path, 3)
        s.prizms.append(
            Prizm(
                as_num(x, f"{path}[0]"),
                as_num(y, f"{path}[1]"),
                as_int(owner, f"{path}[2]", -1, n - 1),
            )
        )
        if not game.table.contains_point(
            s.prizms[-1].x, s.prizms[-1].y, game.rules.prizm_radius - PRIZM_EDGE_SLACK
        ):
            raise bad(path, "a Prizm lies wholly on the table")
    _check_pieces_on_table(game, s)
    s.tasks = _tasks(game, key(data, "tasks", ""))
    s.decision = _decision(key(data, "decision", ""), n)
    s.chance = _chance(key(data, "chance", ""), n)
    s.turn = _turn(key(data, "turn", ""), n, len(s.prizms), game.rules.die_faces)
    _check_turn_consistency(s)
    status = key(data, "status", "")
    try:
        s.status = Outcome(status)
    except (ValueError, TypeError):
        raise bad("status", f"unknown status {status!r}") from None
    winner = key(data, "winner", "")
    s.winner = None if winner is None else as_int(winner, "winner", 0, n - 1)
    if (s.status is Outcome.WIN) != (s.winner is not None):
        raise bad("winner", "a won game needs a winner, and only a won game has one")
    pending = (s.decision is not None) + (s.chance is not None)
    if s.status is Outcome.IN_PROGRESS and pending != 1:
        raise bad("decision", "a game in progress waits for exactly one decision or chance")
    _check_heads(s)
    for seat in range(n):
        if s.score(seat) >= game.rules.win_prizms and s.winner != seat:
            raise bad("prizms", f"seat {seat} has {s.score(seat)} Prizms but has not won")
    s._reset_caches()
    check_deciders(s)
    return s


def _arg(kind: str, v: Any, path: str, n: int) -> Any:
    if kind == "seat":
        return as_int(v, path, 0, n - 1)
    if kind == "x":
        x = as_num(v, path)
        if not -1.0 <= x <= 1.0:
            raise bad(path, f"a launch position lies in [-1, 1], got {x}")
        return x
    return as_int(v, path, 0)


def _tasks(game: Game, v: Any) -> list[T.Task]:
    n, redos = game.rules.num_players, game.rules.max_redos

    def check(kind: str, field: str, x: Any, path: str) -> Any:
        if field == "attempt":
            return as_int(x, path, 0, redos)  # the redos of Start Your Engines
        return _arg(field, x, path, n)

    tasks = as_list(v, "tasks")
    return [
        cast("T.Task", TASK_TABLE.from_json(t, f"tasks[{i}]", check)) for i, t in enumerate(tasks)
    ]


def _decision(v: Any, n: int) -> Decision | None:
    if v is None:
        return None
    kind = key(v, "kind", "decision")
    if not isinstance(kind, str) or kind not in {k.value for k in _DECIDE}:
        raise bad("decision.kind", f"unknown decision {kind!r}")
    if kind == DecisionKind.ENGINES.value:
        seats = as_ints(key(v, "seats", "decision"), "decision.seats", n, 0, n - 1)
        if seats != list(range(n)):
            raise bad("decision.seats", "every seat decides at Start Your Engines")
        as_int(key(v, "attempt", "decision"), "decision.attempt", 0)
        allowed = {"kind", "seats", "attempt"}
    else:
        as_int(key(v, "seat", "decision"), "decision.seat", 0, n - 1)
        allowed = {"kind", "seat"}
    if set(v) - allowed:
        raise bad("decision", f"unknown keys {sorted(set(v) - allowed)}")
    if "seats" in v:
        return Decision(DecisionKind(kind), seats=tuple(v["seats"]), attempt=v["attempt"])
    return Decision(DecisionKind(kind), v["seat"])


#: chance kind -> its keys besides "kind"
_CHANCE_KEYS = {
    ChanceKind.DIE.value: {"seat", "curve", "side"},
    ChanceKind.LAUNCH_NOISE.value: {"seat", "x"},
    ChanceKind.DEAL_GEARS.value: {"spots"},
    ChanceKind.TOSS.value: set(),
}


def _chance(v: Any, n: int) -> Chance | None:
    if v is None:
        return None
    kind = key(v, "kind", "chance")
    if not isinstance(kind, str) or kind not in _CHANCE_KEYS:
        raise bad("chance.kind", f"unknown chance event {kind!r}")
    if set(v) != {"kind"} | _CHANCE_KEYS[kind]:
        raise bad("chance", f"a {kind} event has keys {sorted(_CHANCE_KEYS[kind])}")
    if "seat" in v:
        _arg("seat", v["seat"], "chance.seat", n)
    if "x" in v:
        _arg("x", v["x"], "chance.x", n)
    if kind == ChanceKind.DIE.value:
        as_int(v["curve"], "chance.curve", int(PieceKind.SOFT), int(PieceKind.HARD))
        if as_int(v["side"], "chance.side", -1, 1) == 0:
            raise bad("chance.side", "a curve turns left (1) or right (-1)")
    if kind == ChanceKind.DEAL_GEARS.value:
        spots = as_list(v["spots"], "chance.spots", n)
        for i, spot in enumerate(spots):
            seat, x = as_list(spot, f"chance.spots[{i}]", 2)
            if _arg("seat", seat, f"chance.spots[{i}][0]", n) != i:
                raise bad(f"chance.spots[{i}]", "spots are listed in seat order")
            _arg("x", x, f"chance.spots[{i}][1]", n)
    fields: dict[str, Any] = {k: x for k, x in v.items() if k != "kind"}
    if "spots" in fields:
        fields["spots"] = tuple((seat, x) for seat, x in fields["spots"])
    return Chance(ChanceKind(kind), **fields)


def _turn(v: Any, n: int, num_prizms: int, faces: tuple[int, ...]) -> RiderTurn | None:
    if v is None:
        return None
    if not isinstance(v, Mapping) or set(v) != set(RiderTurn.FIELDS):
        raise bad("turn", f"expected null or an object with keys {sorted(RiderTurn.FIELDS)}")
    roll = v["roll"]
    if roll is not None and (type(roll) is not int or roll not in faces):
        raise bad("turn.roll", f"{roll!r} is not a face of the die {list(faces)}")
    return RiderTurn(
        seat=as_int(v["seat"], "turn.seat", 0, n - 1),
        id=as_int(v["id"], "turn.id", 1),
        phantom=as_bool(v["phantom"], "turn.phantom"),
        shark=as_bool(v["shark"], "turn.shark"),
        scored=as_ints(v["scored"], "turn.scored", None, 0, num_prizms - 1),
        tosses=as_int(v["tosses"], "turn.tosses", 0),
        roll=roll,
    )


def _check_pieces_on_table(game: Game, s: State) -> None:
    """A piece placed on an earlier turn lies wholly on the table: the crash rule removed any
    that did not, unless a Phantom Cosmonaut turn (which skips the crash step) can have kept
    it, so games where that power is in play are exempt."""
    r = game.rules
    if r.powers and Character.PHANTOM_COSMONAUT in r.characters[: game.num_players]:
        return
    table, tol = game.table, r.touch_tolerance
    for seat, p in enumerate(s.players):
        for i, e in enumerate(p.lazer):
            if (
                not e.is_launch
                and e.turn < s.turn_id
                and not table.holds(e.coords, e.poly, tol, e.bbox)
            ):
                raise bad(
                    f"players[{seat}].lazer[{i}]",
                    f"a piece placed on an earlier turn ({e.turn}) must lie wholly on the "
                    "table (the crash rule removes one that does not); this one does not",
                )


def _check_heads(s: State) -> None:
    """In a game in progress, only a seat being placed is off the table (no head): every
    seat at Start Your Engines, or one whose Launch Point is pending (its respawn after a
    crash, its launch, its launch noise). Any other seat without a head could not take its
    next turn."""
    d, c = s.decision, s.chance
    if (
        s.status is not Outcome.IN_PROGRESS
        or (d is not None and d.kind is DecisionKind.ENGINES)
        or (c is not None and c.kind is ChanceKind.DEAL_GEARS)
        or any(t[0] == "engines" for t in s.tasks)
    ):
        return
    placing = {t[1] for t in s.tasks if t[0] in ("launch", "respawn")}  # (kind, seat, ...)
    if d is not None and d.kind is DecisionKind.RESPAWN:
        placing.add(d.seat)
    if c is not None and c.kind is ChanceKind.LAUNCH_NOISE:
        placing.add(c.seat)
    for seat, p in enumerate(s.players):
        if p.head is None and seat not in placing:
            raise bad(
                f"players[{seat}].head",
                "a seat is off the table (no head) only at Start Your Engines or while its "
                "Launch Point is pending (a respawn, launch or launch noise of that seat); "
                f"seat {seat} has none and no placement pending",
            )


def _check_turn_consistency(s: State) -> None:
    """A decision inside a turn belongs to the mover, who has a head to move from."""
    d, t = s.decision, s.turn
    if t is not None and t.id != s.turn_id:
        raise bad("turn.id", f"{t.id} is not the current turn {s.turn_id}")
    c = s.chance
    if c is not None and c.kind is ChanceKind.DIE:
        if t is None or c.seat != t.seat:
            raise bad(
                "chance.seat",
                "the curve die is rolled in the turn of the seat rolling "
                "it (turn is null or another seat's)",
            )
        if s.players[c.seat].head is None:
            raise bad(
                f"players[{c.seat}].head",
                "the seat rolling the curve die needs a head pose to place the piece from",
            )
    if d is None or d.seat < 0 or d.kind is DecisionKind.RESPAWN:
        return
    if t is None or d.seat != t.seat:
        raise bad("decision.seat", "a turn decision belongs to the seat whose turn it is")
    if (
        d.kind in (DecisionKind.MOVE, DecisionKind.BONUS, DecisionKind.SHARK)
        and s.players[d.seat].head is None
    ):
        raise bad(f"players[{d.seat}].head", "the mover needs a head pose to move from")
    seat = d.seat
    rules, p = s.game.rules, s.players[seat]
    if d.kind is DecisionKind.POWER and not (
        rules.powers
        and p.power_ready
        and rules.characters[seat] in (Character.SUPER_SHERIFF, Character.PHANTOM_COSMONAUT)
    ):
        raise bad(
            "decision",
            f"a power decision needs seat {seat}'s start-of-turn power (Super Sheriff or "
            "Phantom Cosmonaut) ready in a game with powers",
        )
    if d.kind is DecisionKind.BONUS and not (len(p.lazer) == 1 and p.lazer[0].is_launch):
        raise bad(
            "decision",
            f"the large-table bonus is offered only while seat {seat}'s Lazer is its Launch Point",
        )
