"""Rebuilding a :class:`State` from its JSON dict, with precise validation errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from lunatix_env.rules import tasks as T
from lunatix_env.rules.actions import ActionKind
from lunatix_env.rules.config import MAX_HAZARD_CARDS_PER_CHECK, MAX_SQUARES_PER_TURN
from lunatix_env.rules.records import (
    DECISION_CONTEXT,
    PIT,
    SIMULTANEOUS,
    TRACK,
    Car,
    CarTurn,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    RamCard,
)
from lunatix_env.rules.state import SCHEMA_VERSION, TASK_TABLE, State
from tabletop.errors import InvalidStateError
from tabletop.jsoncheck import as_bool as _bool
from tabletop.jsoncheck import as_int as _int
from tabletop.jsoncheck import as_ints as _ints
from tabletop.jsoncheck import as_list as _list
from tabletop.jsoncheck import as_num as _num
from tabletop.jsoncheck import bad as _err
from tabletop.jsoncheck import check_deciders, check_limits
from tabletop.jsoncheck import key as _get

if TYPE_CHECKING:
    from lunatix_env.rules.game import Game

#: limits checked before anything else (the largest states of 6-player random games have
#: ~470 values in ~80 objects and lists, 5 levels deep; the largest input they admit is
#: validated in a few dozen random-play decisions: bench/bench_validation.py)
MAX_DEPTH = 8
MAX_VALUES = 2_000
MAX_CONTAINERS = 400


def _car(game: Game, d: Any, seat: int) -> Car:
    path = f"cars[{seat}]"
    if not isinstance(d, Mapping):
        raise _err(path, "expected an object")
    extra = set(d) - set(Car.FIELDS)
    if extra:
        raise _err(path, f"unknown keys {sorted(extra)}")
    r, tr = game.rules, game.track
    ng = len(game.decks.gadgets)
    c = Car(seat=seat)
    if _int(_get(d, "seat", path), f"{path}.seat") != seat:
        raise _err(path, "seat does not match its position")
    c.square = _int(_get(d, "square", path), f"{path}.square", -1, tr.num_squares - 1)
    c.facing = _int(_get(d, "facing", path), f"{path}.facing", 0, 1)
    c.speed = _int(_get(d, "speed", path), f"{path}.speed", 0, r.turbo_speed_cap)
    c.max_speed = _int(_get(d, "max_speed", path), f"{path}.max_speed", 0, r.max_speed)
    c.luck = _int(_get(d, "luck", path), f"{path}.luck", 0, r.luck_chips)
    c.chips = _ints(_get(d, "chips", path), f"{path}.chips", 3, 0)
    c.gadgets = _ints(_get(d, "gadgets", path), f"{path}.gadgets", None, 0, ng - 1)
    c.spent = _ints(_get(d, "spent", path), f"{path}.spent", None, 0, ng - 1)
    c.lunacies = _ints(
        _get(d, "lunacies", path), f"{path}.lunacies", None, 0, len(game.decks.hazard) - 1
    )
    for li in c.lunacies:
        if game.decks.hazard[li].lunacy is None:
            raise _err(f"{path}.lunacies", f"hazard card {li} is not a lunacy")
    c.in_pit = _bool(_get(d, "in_pit", path), f"{path}.in_pit")
    c.pit_opening = _int(
        _get(d, "pit_opening", path), f"{path}.pit_opening", -1, len(tr.openings) - 1
    )
    c.pit_order = _int(_get(d, "pit_order", path), f"{path}.pit_order", 0)
    c.u = _num(_get(d, "u", path), f"{path}.u")
    c.best_u = _num(_get(d, "best_u", path), f"{path}.best_u")
    c.owed = _int(_get(d, "owed", path), f"{path}.owed", 0)
    c.out = _bool(_get(d, "out", path), f"{path}.out")
    if c.best_u < c.u - 1e-9:
        raise _err(path, "best_u is below u")
    if c.in_pit and c.pit_opening < 0:
        raise _err(path, "a car in the pit needs its entry opening")
    if len(c.gadgets) > r.gadget_hand_limit + 1:
        raise _err(path, f"holds {len(c.gadgets)} gadgets")
    return c


def state_from_dict(game: Game, data: Mapping[str, Any]) -> State:
    """Validate ``data`` against ``game`` and build the state it describes."""
    if not isinstance(data, Mapping):
        raise InvalidStateError("state dict: expected a JSON object")
    check_limits(data, MAX_DEPTH, MAX_VALUES, max_containers=MAX_CONTAINERS)
    if data.get("schema") != "lunatix_loop/state":
        raise _err("schema", f"expected 'lunatix_loop/state', got {data.get('schema')!r}")
    if data.get("version") != SCHEMA_VERSION:
        raise _err(
            "version",
            f"unsupported version {data.get('version')!r}; this engine reads {SCHEMA_VERSION}",
        )
    n = game.rules.num_players
    if _get(data, "num_players", "") != n:
        raise _err("num_players", f"{data['num_players']!r} does not match the game's {n}")
    known = {
        "schema",
        "version",
        "seed",
        "num_players",
        "round",
        "cars",
        "cards",
        "order",
        "hazard_deck",
        "hazard_discard",
        "turbo_deck",
        "turbo_discard",
        "gadget_top",
        "gadget_bottom",
        "offer",
        "supply",
        "track_chips",
        "pit_counter",
        "batches",
        "tasks",
        "decision",
        "chance",
        "turn",
        "outcome",
        "winner",
    }
    extra = set(data) - known
    if extra:
        raise _err("", f"unknown keys {sorted(extra)}")
    s = State.__new__(State)
    s.game = game
    s._legal = {}
    s._chance_cache = None
    seed = _get(data, "seed", "")
    if seed is not None:
        _int(seed, "seed")
    s.seed = seed
    s.round = _int(_get(data, "round", ""), "round", 0, game.rules.round_limit)
    cars = _get(data, "cars", "")
    if not isinstance(cars, list) or len(cars) != n:
        raise _err("cars", f"expected a list of {n} cars")
    s.cars = [_car(game, c, i) for i, c in enumerate(cars)]
    na = len(game.codec)
    cards = _get(data, "cards", "")
    if not isinstance(cards, list) or len(cards) != n:
        raise _err("cards", f"expected {n} entries")
    s.cards = [
        None if c is None else _int(c, f"cards[{i}]", 0, na - 1) for i, c in enumerate(cards)
    ]
    for i, card in enumerate(s.cards):
        if card is not None and game.codec.decode(card).kind not in (
            ActionKind.CARD,
            ActionKind.PLAY_GADGET,
        ):
            raise _err(f"cards[{i}]", f"action {card} ({game.codec.decode(card)}) is not a card")
    s.order = _ints(_get(data, "order", ""), "order", None, 0, n - 1)
    if len(set(s.order)) != len(s.order):
        raise _err("order", f"a seat moves once a round, got {s.order}")
    nh, nt, ng = len(game.decks.hazard), len(game.decks.turbo), len(game.decks.gadgets)
    s.hazard_deck = _ints(_get(data, "hazard_deck", ""), "hazard_deck", nh, 0)
    s.hazard_discard = _ints(_get(data, "hazard_discard", ""), "hazard_discard", nh, 0)
    s.turbo_deck = _ints(_get(data, "turbo_deck", ""), "turbo_deck", nt, 0)
    s.turbo_discard = _ints(_get(data, "turbo_discard", ""), "turbo_discard", nt, 0)
    s.gadget_top = _ints(_get(data, "gadget_top", ""), "gadget_top", None, 0, ng - 1)
    bottom = _get(data, "gadget_bottom", "")
    if not isinstance(bottom, list):
        raise _err("gadget_bottom", "expected a list")
    s.gadget_bottom = [_ints(e, f"gadget_bottom[{i}]", 2, 0) for i, e in enumerate(bottom)]
    for i, (gi, owner) in enumerate(s.gadget_bottom):
        if gi >= ng or owner >= n:
            raise _err(f"gadget_bottom[{i}]", f"gadget {gi} / seat {owner} out of range")
    s.offer = _ints(_get(data, "offer", ""), "offer", None, 0, ng - 1)
    s.supply = _ints(_get(data, "supply", ""), "supply", 3, 0)
    chips = _get(data, "track_chips", "")
    if not isinstance(chips, list):
        raise _err("track_chips", "expected a list of [square, kind]")
    s.track_chips = {}
    for i, e in enumerate(chips):
        sq, k = _ints(e, f"track_chips[{i}]", 2, 0)
        if sq >= game.track.num_squares or k > 2 or sq in s.track_chips:
            raise _err(f"track_chips[{i}]", f"bad or repeated entry {e!r}")
        s.track_chips[sq] = k
    s.pit_counter = _int(_get(data, "pit_counter", ""), "pit_counter", 0)
    batches = _get(data, "batches", "")
    if not isinstance(batches, list):
        raise _err("batches", "expected a list")
    s.batches = [_ints(b, f"batches[{i}]", None, 0, nh - 1) for i, b in enumerate(batches)]
    s.tasks = _tasks(game, _get(data, "tasks", ""))
    s.decision = _decision(game, _get(data, "decision", ""))
    s.chance = _chance(game, _get(data, "chance", ""))
    s.turn = _turn(game, _get(data, "turn", ""))
    outcome = _get(data, "outcome", "")
    try:
        s.status = Outcome(outcome)
    except (ValueError, TypeError):
        raise _err("outcome", f"unknown outcome {outcome!r}") from None
    winner = _get(data, "winner", "")
    s.winner = None if winner is None else _int(winner, "winner", 0, n - 1)
    if (s.status is Outcome.WIN) != (s.winner is not None):
        raise _err("winner", "a winner goes with outcome 'win' and only with it")
    undealt = {t[1] for t in s.tasks if t[0] == "deal_dot"}
    if s.chance is not None and s.chance.kind is ChanceKind.START_DOT:
        undealt.add(s.chance.seat)
    for c in s.cars:
        if (c.square < 0) != (c.seat in undealt):
            raise _err(
                f"cars[{c.seat}].square",
                "only a car whose start dot is still to be dealt has square -1",
            )
    step = game.speed_step
    for c in s.cars:
        for name in ("speed", "max_speed"):
            if getattr(c, name) % step:
                raise _err(
                    f"cars[{c.seat}].{name}",
                    f"{getattr(c, name)} is not a multiple of "
                    f"{step} mph, the step of every speed this game's rules can give",
                )
    for c in s.cars:
        turbo = s.turn is not None and s.turn.seat == c.seat and s.turn.ignore_max
        if c.speed > c.max_speed and not turbo:
            raise _err(
                f"cars[{c.seat}].speed",
                f"{c.speed} exceeds max speed {c.max_speed} outside a turbo or rocket turn",
            )
    _check_conservation(game, s)
    _check_positions(game, s)
    _check_out(s)
    pending = (s.decision is not None) + (s.chance is not None)
    if not s.is_terminal() and pending != 1:
        raise _err("decision", "a game in progress has exactly one pending decision or chance")
    _check_decision_phase(s)
    _check_hazard_batches(s)
    check_deciders(s)
    return s


#: decisions asked only of the seat whose turn it is; those asked only with the car on the
#: track; those asked only with it in the pit; those asked only between turns
_TURN_DECISIONS = frozenset(
    {"brake", "accelerate", "charge", "drop_kind", "step", "ram", "turn_around", "pit_exit", "shop"}
)
_TRACK_DECISIONS = frozenset({"step", "ram"})
_PIT_DECISIONS = frozenset({"pit_exit", "shop"})
_ROUND_DECISIONS = frozenset({"chip_mix", "card"})


def _check_hazard_batches(s: State) -> None:
    """Hazard cards are drawn into a batch that one pending ``apply_hazards`` task applies:
    as many batches as such tasks, a batch to draw into while a hazard card is being drawn,
    and a luck decision on a hazard card about the last card drawn (a game that ended
    mid-batch keeps its batches: the end clears only the pending work)."""
    if s.is_terminal():
        return
    applying = sum(1 for t in s.tasks if t[0] == "apply_hazards")
    if applying != len(s.batches):
        raise _err(
            "batches",
            f"{len(s.batches)} hazard batches for {applying} pending apply_hazards tasks "
            "(each task applies one batch)",
        )
    drawing = any(t[0] == "draw_hazard" for t in s.tasks) or (
        s.chance is not None and s.chance.kind is ChanceKind.HAZARD
    )
    if drawing and not s.batches:
        raise _err("batches", "a hazard card is being drawn with no batch to draw it into")
    d = s.decision
    if d is not None and d.kind is DecisionKind.LUCK and d.deck == "hazard":
        if not s.batches or not s.batches[-1] or s.batches[-1][-1] != d.card:
            raise _err(
                "decision.card",
                "a luck decision on a hazard card is about the last card drawn into the batch",
            )


def _check_decision_phase(s: State) -> None:
    """A pending decision belongs to its phase: the reveal between turns, a turn's decisions
    to the seat whose turn it is (a step or ram with its car on the track, a pit exit or the
    shop with it in the pit), the hazard and protection decisions inside a turn."""
    d, t = s.decision, s.turn
    if d is None:
        return
    kind = d.kind.value
    if kind in _ROUND_DECISIONS:
        if t is not None:
            raise _err(
                "decision",
                f"a {kind!r} decision comes between turns, not in seat {t.seat}'s turn",
            )
        return
    if t is None:
        raise _err("decision", f"a {kind!r} decision comes inside a turn (turn is null)")
    seat = d.seat
    if kind in _TURN_DECISIONS and seat != t.seat:
        raise _err(
            "decision.seat",
            f"a {kind!r} decision belongs to seat {t.seat}, whose turn it is, not to seat {seat}",
        )
    car = s.cars[seat]
    if kind in _TRACK_DECISIONS and (car.in_pit or car.square < 0):
        raise _err("decision", f"a {kind!r} decision needs seat {seat}'s car on the track")
    if kind in _PIT_DECISIONS and not car.in_pit:
        raise _err("decision", f"a {kind!r} decision needs seat {seat}'s car in the pit")


def _tasks(game: Game, v: Any) -> list[T.Task]:
    n = game.rules.num_players
    bounds = _task_bounds(game)

    def check(kind: str, field: str, x: int, path: str) -> int:
        lo, hi = (0, n - 1) if field == "seat" else bounds[kind, field]
        if not lo <= x <= hi:
            what = "a seat" if field == "seat" else "a count or amount beyond what the rules"
            raise _err(
                path,
                f"task {kind!r}: {field} takes {lo}..{hi} here, got {x} "
                + ("" if field == "seat" else f"({what} can make would run for hours)"),
            )
        return x

    tasks = _list(v, "tasks")
    return [
        cast("T.Task", TASK_TABLE.from_json(t, f"tasks[{i}]", check)) for i, t in enumerate(tasks)
    ]


def _task_bounds(game: Game) -> dict[tuple[str, str], tuple[int, int]]:
    """The range of each task field besides the seat (what the rules can push)."""
    r, d = game.rules, game.decks
    top = MAX_SQUARES_PER_TURN * r.speed_per_square
    where = (TRACK, PIT)
    return {
        ("curve_accel", "amount"): (0, top),
        ("set_speed", "speed"): (0, top),
        ("chip", "square"): (0, game.track.num_squares - 1),
        ("hazards", "cards"): (0, MAX_HAZARD_CARDS_PER_CHECK),
        ("hazards", "where"): where,
        ("apply_hazards", "where"): where,
        ("skid", "where"): where,
        ("damage", "dice"): (0, game.max_dice),
        ("turbo_apply", "card"): (0, len(d.turbo) - 1),
        ("shop", "points"): (0, r.pit.points),
    }


_SIMULTANEOUS = tuple(k.value for k in SIMULTANEOUS)


def _decision(game: Game, v: Any) -> Decision | None:
    if v is None:
        return None
    if not isinstance(v, Mapping):
        raise _err("decision", "expected an object or null")
    try:
        kind = DecisionKind(v.get("kind"))
    except (ValueError, TypeError):
        raise _err("decision.kind", f"unknown decision {v.get('kind')!r}") from None
    n = game.rules.num_players
    d = dict(v)
    who = {"seats"} if kind.value in _SIMULTANEOUS else {"seat"}
    shapes = DECISION_CONTEXT[kind]
    context = set(d) - {"kind"} - who
    if not who <= set(d) or context not in shapes:
        want = " or ".join(str(sorted({"kind"} | who | c)) for c in shapes)
        raise _err("decision", f"a {kind.value!r} decision has the keys {want}, got {sorted(d)}")
    if "seats" in d:
        d["seats"] = _ints(d["seats"], "decision.seats", None, 0, n - 1)
        if not d["seats"] or d["seats"] != sorted(set(d["seats"])):
            raise _err(
                "decision.seats", f"expected distinct seats in increasing order, got {d['seats']}"
            )
    else:
        _int(d["seat"], "decision.seat", 0, n - 1)
    decks = game.decks
    if "gadget" in d:
        _int(d["gadget"], "decision.gadget", 0, len(decks.gadgets) - 1)
    if "points" in d:
        _int(d["points"], "decision.points", 0, game.rules.pit.points)
    if "hits" in d:
        top = max(game.rules.damage_die_faces) * game.max_dice
        _int(d["hits"], "decision.hits", 1, top)
    if "dice" in d:
        _int(d["dice"], "decision.dice", 1, game.max_dice)
    if "where" in d:
        _int(d["where"], "decision.where", TRACK, PIT)
    if kind is DecisionKind.LUCK:
        if d["deck"] not in ("hazard", "turbo"):
            raise _err("decision.deck", f"expected 'hazard' or 'turbo', got {d['deck']!r}")
        size = len(decks.hazard if d["deck"] == "hazard" else decks.turbo)
        _int(d["card"], "decision.card", 0, size - 1)
    elif "card" in d:
        _int(d["card"], "decision.card", 0, len(decks.hazard) - 1)
    fields: dict[str, Any] = {k: x for k, x in d.items() if k != "kind"}
    if "seats" in fields:
        fields["seats"] = tuple(fields["seats"])
    return Decision(kind, **fields)


_CHANCE_KEYS = {
    "start_dot": frozenset({"kind", "seat"}),
    "gadget": frozenset({"kind", "seat"}),
    "hazard": frozenset({"kind", "seat"}),
    "turbo": frozenset({"kind", "seat"}),
    "dice": frozenset({"kind", "seat", "n"}),
}


def _chance(game: Game, v: Any) -> Chance | None:
    if v is None:
        return None
    if not isinstance(v, Mapping):
        raise _err("chance", "expected an object or null")
    try:
        kind = ChanceKind(v.get("kind"))
    except (ValueError, TypeError):
        raise _err("chance.kind", f"unknown chance event {v.get('kind')!r}") from None
    d = dict(v)
    if set(d) != _CHANCE_KEYS[kind.value]:
        raise _err(
            "chance",
            f"a {kind.value!r} event has the keys "
            f"{sorted(_CHANCE_KEYS[kind.value])}, got {sorted(d)}",
        )
    _int(d["seat"], "chance.seat", 0, game.rules.num_players - 1)
    if kind is ChanceKind.DICE:
        _int(d["n"], "chance.n", 1, game.max_dice)
    return Chance(kind, d["seat"], d.get("n", -1))


def _turn(game: Game, v: Any) -> CarTurn | None:
    if v is None:
        return None
    if not isinstance(v, Mapping) or set(v) != set(CarTurn.FIELDS):
        raise _err("turn", f"expected an object with keys {sorted(CarTurn.FIELDS)}")
    r = game.rules
    try:
        ram = RamCard(_int(v["ram"], "turn.ram"))
    except ValueError:
        raise _err("turn.ram", f"expected one of {[k.value for k in RamCard]}") from None
    return CarTurn(
        seat=_int(v["seat"], "turn.seat", 0, r.num_players - 1),
        steps=_int(v["steps"], "turn.steps", 0, r.turbo_speed_cap // r.speed_per_square),
        over=_bool(v["over"], "turn.over"),
        ram=ram,
        battering=_bool(v["battering"], "turn.battering"),
        drop_kind=_int(v["drop_kind"], "turn.drop_kind", -1, 2),
        drops=_int(v["drops"], "turn.drops", 0, r.max_drops),
        ignore_max=_bool(v["ignore_max"], "turn.ignore_max"),
        rocket=_bool(v["rocket"], "turn.rocket"),
    )


def _check_conservation(game: Game, s: State) -> None:
    for i, card in enumerate(game.decks.hazard):
        where = s.hazard_deck[i] + s.hazard_discard[i]
        where += sum(b.count(i) for b in s.batches)
        where += sum(c.lunacies.count(i) for c in s.cars)
        if (
            s.decision is not None
            and s.decision.kind is DecisionKind.GADGET
            and s.decision.card == i
            and card.lunacy is not None
        ):
            where += 1  # a drawn lunacy while Shrink's Card is being offered against it
        if where != card.count:
            raise _err(
                "hazard_deck",
                f"{card.name}: {where} cards accounted for, the deck has {card.count}",
            )
    held = [t[2] for t in s.tasks if t[0] == "turbo_apply"]  # (kind, seat, card)
    if s.decision is not None and s.decision.deck == "turbo":
        held.append(s.decision.card)
    for i, turbo in enumerate(game.decks.turbo):
        where = s.turbo_deck[i] + s.turbo_discard[i] + held.count(i)
        if where != turbo.count:
            raise _err(
                "turbo_deck",
                f"{turbo.name}: {where} cards accounted for, the deck has {turbo.count}",
            )
    seen = list(s.gadget_top) + [e[0] for e in s.gadget_bottom] + list(s.offer)
    for c in s.cars:
        seen += c.gadgets + c.spent
    if sorted(seen) != list(range(len(game.decks.gadgets))):
        raise _err("gadget_top", f"gadgets must each be in one place, found {sorted(seen)}")
    for k in range(3):
        total = s.supply[k] + sum(c.chips[k] for c in s.cars)
        total += sum(1 for kk in s.track_chips.values() if kk == k)
        if total != game.rules.chip_supply[k]:
            raise _err(
                "supply",
                f"chip kind {k}: {total} accounted for, expected {game.rules.chip_supply[k]}",
            )


def _check_out(s: State) -> None:
    """A car is out exactly when its max speed is 0 (its speed 0 too), and it decides no
    more: the rules skip an out car's turns, hazards and damage."""
    for c in s.cars:
        if c.out != (c.max_speed == 0) or (c.out and c.speed):
            raise _err(
                f"cars[{c.seat}].out",
                "a car is out of the race exactly when its max speed is 0 (and then its "
                f"speed is 0), got out={c.out}, max_speed={c.max_speed}, speed={c.speed}",
            )
    d = s.decision
    if d is not None:
        for seat in s.current_players():
            if s.cars[seat].out:
                raise _err("decision", f"seat {seat}'s car is out of the race: it decides no more")


def _check_positions(game: Game, s: State) -> None:
    seen: dict[int, int] = {}
    rocket = s.turn is not None and s.turn.rocket
    for c in s.cars:
        if c.in_pit or c.square < 0:
            continue
        if c.square in seen and not rocket:
            raise _err(
                f"cars[{c.seat}].square", f"square {c.square} also holds car {seen[c.square]}"
            )
        seen[c.square] = c.seat
    tr = game.track
    for c in s.cars:
        if c.square < 0:
            continue
        laps = (c.u - tr.s[c.square]) / tr.length
        if abs(laps - round(laps)) > 1e-9:
            raise _err(
                f"cars[{c.seat}].u",
                f"race progress {c.u} does not lie on square {c.square} (at {tr.s[c.square]} "
                f"of a {tr.length} lap): a car's progress is its square's plus whole laps",
            )
