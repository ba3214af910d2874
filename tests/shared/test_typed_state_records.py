"""The typed state records (cars, players, the turn in progress) and the typed tasks of both
engines: copies derived from the fields are independent, JSON derived from the fields is
what the state writes, every task kind round-trips through JSON, and the machinery refuses
a record or task table that does not hold together."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any, Literal, get_args

import numpy as np
import pytest

from lunatix_env.rules import Car, CarTurn, RamCard
from lunatix_env.rules import Game as LunatixGame
from lunatix_env.rules import tasks as lunatix_tasks
from lunatix_env.rules.state import TASK_TABLE as LUNATIX_TASKS
from ryderz_env.rules import Game as RyderzGame
from ryderz_env.rules import Player, RiderTurn
from ryderz_env.rules import tasks as ryderz_tasks
from ryderz_env.rules.state import TASK_TABLE as RYDERZ_TASKS
from tabletop.errors import InvalidStateError
from tabletop.staterecord import StateRecord, state_record
from tabletop.tasks import task_table

RECORDS: list[StateRecord] = [
    Car(seat=2, speed=30, max_speed=50, luck=3, gadgets=[4, 1], lunacies=[7]),
    CarTurn(seat=1, steps=3, ram=RamCard.READY, drop_kind=2),
    Player(seat=0, supply=[[1, 2, 3], [4, 5, 6]], power_ready=True),
    RiderTurn(seat=1, id=5, scored=[2, 0], roll=4),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_copy_equals_the_record_and_shares_no_list(record: StateRecord) -> None:
    copy = record.copy()
    assert copy == record and copy is not record
    assert type(copy).FIELDS == tuple(f.name for f in dataclasses.fields(copy))  # type: ignore[arg-type]
    for name in type(record).FIELDS:
        value = getattr(copy, name)
        if isinstance(value, list):
            value.append([] if value and isinstance(value[0], list) else 99)
            assert getattr(copy, name) != getattr(record, name), name
            if value and isinstance(value[0], list):  # inner lists are copied too
                value[0].append(99)
                assert getattr(record, name)[0] != value[0], name


@pytest.mark.parametrize("record", [r for r in RECORDS if not isinstance(r, Player)])
def test_json_has_every_field_in_order_and_is_plain(record: StateRecord) -> None:
    d = record.to_dict()
    assert tuple(d) == type(record).FIELDS
    assert json.loads(json.dumps(d)) == d  # enums as their values, no tuples
    if isinstance(record, CarTurn):
        assert d["ram"] == RamCard.READY.value


def test_a_player_has_no_json_of_its_own() -> None:
    with pytest.raises(TypeError, match="no JSON form"):
        RECORDS[2].to_dict()


def test_a_new_field_is_copied_and_written_without_more_code() -> None:
    @state_record()
    class Probe(StateRecord):
        a: int
        b: list[int] = dataclasses.field(default_factory=list)
        c: list[list[int]] = dataclasses.field(default_factory=list)
        d: RamCard = RamCard.MADE

    p = Probe(a=1, b=[2], c=[[3]])
    q = p.copy()
    q.b.append(5)
    q.c[0].append(5)
    assert p.b == [2] and p.c == [[3]]
    assert p.to_dict() == {"a": 1, "b": [2], "c": [[3]], "d": 2}


def test_a_dict_field_has_no_json_form() -> None:
    with pytest.raises(TypeError, match="no JSON form"):

        @state_record()
        class Bad(StateRecord):
            m: dict[int, int]


@pytest.mark.parametrize(
    "annotation",
    [set[int], list[int] | None, dict[int, list[int]], list[set[int]], bytearray],
    ids=["set", "optional-list", "dict-of-lists", "list-of-sets", "bytearray"],
)
def test_a_field_whose_copy_cannot_be_derived_is_refused(annotation: Any) -> None:
    bad = type("Bad", (StateRecord,), {"__annotations__": {"m": annotation}})
    with pytest.raises(TypeError, match="not a type a state record can copy"):
        state_record(json=False)(bad)


@pytest.mark.parametrize("annotation", [RamCard | None, list[RamCard]])
def test_enums_inside_containers_have_no_json_form(annotation: Any) -> None:
    with pytest.raises(TypeError, match="no JSON form"):
        state_record()(type("Bad", (StateRecord,), {"__annotations__": {"m": annotation}}))


def test_records_take_keywords_only() -> None:
    with pytest.raises(TypeError):
        Car(0, 50, 100, 3)  # type: ignore[misc]  # the old positional form is refused
    assert Car(seat=0, speed=50).speed == 50


def test_an_undecorated_record_says_so() -> None:
    class Plain(StateRecord):
        __slots__ = ()

    with pytest.raises(TypeError, match="not decorated"):
        Plain().copy()


# ---------------------------------------------------------------------------- tasks
TABLES = {"lunatix": (LUNATIX_TASKS, lunatix_tasks), "ryderz": (RYDERZ_TASKS, ryderz_tasks)}


def _accept(kind: str, field: str, x: Any, path: str) -> Any:
    return x


@pytest.mark.parametrize("name", TABLES)
def test_every_task_kind_round_trips_through_json(name: str) -> None:
    table, module = TABLES[name]
    declared = [get_args(get_args(kind)[0])[0] for kind in module.TASKS]
    assert list(table.fields) == declared  # every declared kind, in order, and no other
    for kind, types in table.types.items():
        task = (kind, *[0.5 if tp is float else 1 for tp in types])
        back = table.from_json(json.loads(json.dumps(list(task))), "tasks[0]", _accept)
        assert back == task and [type(x) for x in back[1:]] == list(types)


@pytest.mark.parametrize("name", TABLES)
def test_a_tasks_fields_are_named_by_its_handler(name: str) -> None:
    table, _ = TABLES[name]
    for kind, fields in table.fields.items():
        handler = table.handlers[kind]
        assert handler.__name__ == f"_t_{kind}"
        assert handler.__code__.co_varnames[1 : 1 + len(fields)] == fields


@pytest.mark.parametrize("name", TABLES)
def test_a_task_read_from_json_is_checked_kind_arity_and_type(name: str) -> None:
    table, _ = TABLES[name]
    with pytest.raises(InvalidStateError, match=r"tasks\[3\]: unknown task \['fly'\]"):
        table.from_json(["fly"], "tasks[3]", _accept)
    kind, fields = next((k, f) for k, f in table.fields.items() if f)
    with pytest.raises(InvalidStateError, match="argument"):
        table.from_json([kind], "tasks[0]", _accept)
    with pytest.raises(InvalidStateError, match=r"tasks\[0\]\[1\]"):
        table.from_json([kind, *["x"] * len(fields)], "tasks[0]", _accept)
    with pytest.raises(InvalidStateError, match=r"tasks\[0\]\[1\]"):
        table.from_json([kind, *[float("nan")] * len(fields)], "tasks[0]", _accept)
    with pytest.raises(InvalidStateError, match="tasks"):
        table.from_json({"kind": kind}, "tasks[0]", _accept)


def test_a_task_table_refuses_what_does_not_hold_together() -> None:
    go = tuple[Literal["go"], int]
    stop = tuple[Literal["stop"]]

    class Missing:
        def _t_go(self, seat: int) -> None: ...

    with pytest.raises(TypeError, match="no _t_stop"):
        task_table((go, stop), Missing)

    class Mismatched:
        def _t_go(self, seat: int, where: int) -> None: ...

    with pytest.raises(TypeError, match="field"):
        task_table((go,), Mismatched)

    class Extra:
        def _t_go(self, seat: int) -> None: ...

        def _t_jump(self) -> None: ...

    with pytest.raises(TypeError, match="jump"):
        task_table((go,), Extra)
    with pytest.raises(TypeError, match="Literal"):
        task_table((tuple[str, int],), Extra)
    with pytest.raises(TypeError, match="int or float"):
        task_table((tuple[Literal["go"], str],), Extra)


# ---------------------------------------------------------------- every field read from JSON
def _mid_game(game: Any, seed: int, in_turn: bool) -> Any:
    """A seeded random-play state, inside a turn when ``in_turn``."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state(seed)
    while not (s.turn is not None) == in_turn or s.round < 2:
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
            continue
        acts = {}
        for seat in s.current_players():
            legal = s.legal_actions(seat)
            acts[seat] = legal[int(rng.integers(len(legal)))]
        s.apply_actions(acts)
    return s


@pytest.mark.parametrize(
    ("game", "where", "fields"),
    [
        (LunatixGame(num_players=2), ("cars", 1), Car.FIELDS),
        (LunatixGame(num_players=2), ("turn",), CarTurn.FIELDS),
        (RyderzGame(num_players=2), ("players", 1), tuple(f for f in Player.FIELDS if f != "seat")),
        (RyderzGame(num_players=2), ("turn",), RiderTurn.FIELDS),
    ],
    ids=["lunatix-car", "lunatix-turn", "ryderz-player", "ryderz-turn"],
)
def test_every_field_of_a_record_is_written_and_required(
    game: Any, where: tuple[Any, ...], fields: tuple[str, ...]
) -> None:
    d = _mid_game(game, 3, in_turn=True).to_dict()
    part = d
    for k in where:
        part = part[k]
    assert set(part) == set(fields)  # the state writes every field, and nothing else
    for name in fields:
        broken = copy.deepcopy(d)
        target = broken
        for k in where:
            target = target[k]
        del target[name]
        with pytest.raises(InvalidStateError, match=where[0]):
            game.state_from_dict(broken)


def test_every_lunatix_task_field_besides_the_seat_has_a_range() -> None:
    from lunatix_env.rules.serialize import _task_bounds

    bounds = _task_bounds(LunatixGame(num_players=2))
    needed = {(k, f) for k, fields in LUNATIX_TASKS.fields.items() for f in fields if f != "seat"}
    assert needed == set(bounds)
