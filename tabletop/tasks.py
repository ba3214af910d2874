"""The tasks of a game's machine: typed tuples ``(kind, *fields)``, one type per kind, run
by the state's ``_t_<kind>`` handler with the fields as its arguments, written to JSON as the
list ``[kind, *fields]``.

A game declares each kind once, as ``tuple[Literal["kind"], <field types>]`` in its
``rules/tasks.py`` (mypy checks every task a handler queues against the union of them);
:func:`task_table` derives the handlers and the field types from those declarations and the
field names from the handlers' parameters, and refuses at import a kind without a handler, a
handler without a kind, or a handler whose parameters do not match the fields.

Plain tuples rather than named tuples or dataclasses: the machine builds a task or two at
every decision, and building a named tuple costs ~7x a tuple (the Lunatix Loop engine ran
4.5% slower with them, measured interleaved; ``docs/README.md``). Tasks are immutable, so
clones share them.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tabletop.jsoncheck import as_int, as_list, as_num, bad

#: checks one field of a task read from JSON: (task kind, field, value, JSON path) -> value
FieldCheck = Callable[[str, str, Any, str], Any]


@dataclass(frozen=True)
class TaskTable:
    """The task kinds of one game: each kind's handler, field names and field types
    (``int`` or ``float``), in declaration order."""

    handlers: Mapping[str, Callable[..., None]]
    fields: Mapping[str, tuple[str, ...]]
    types: Mapping[str, tuple[type, ...]]

    def from_json(self, v: Any, path: str, check: FieldCheck) -> tuple[Any, ...]:
        """The task ``v`` (``[kind, *fields]``) names, each field's type checked, then its
        value by ``check``; :class:`InvalidStateError` naming the path otherwise."""
        t = as_list(v, path)
        if not t or not isinstance(t[0], str) or t[0] not in self.fields:
            raise bad(path, f"unknown task {t[:1]!r}; known: {', '.join(self.fields)}")
        kind, names = t[0], self.fields[t[0]]
        if len(t) != 1 + len(names):
            raise bad(
                path,
                f"task {kind!r} takes {len(names)} argument(s) "
                f"({', '.join(names) or 'none'}), got {len(t) - 1}",
            )
        values: list[Any] = [kind]
        for j, (name, tp, x) in enumerate(zip(names, self.types[kind], t[1:], strict=True)):
            where = f"{path}[{j + 1}]"
            x = as_int(x, where) if tp is int else as_num(x, where)
            values.append(check(kind, name, x, where))
        return tuple(values)


def task_table(kinds: tuple[Any, ...], state: type) -> TaskTable:
    """The table of the task ``kinds`` (``tuple[Literal["kind"], int | float, ...]`` types)
    run by ``state``'s ``_t_<kind>`` methods; ``TypeError`` where they do not match."""
    handlers, fields, types = {}, {}, {}
    for spec in kinds:
        args = typing.get_args(spec)
        if typing.get_origin(spec) is not tuple or typing.get_origin(args[0]) is not Literal:
            raise TypeError(f"a task kind is tuple[Literal[name], ...], got {spec}")
        (kind,) = typing.get_args(args[0])
        tps = args[1:]
        if any(tp not in (int, float) for tp in tps):
            raise TypeError(f"task {kind!r}: fields are int or float, got {tps}")
        fn = getattr(state, f"_t_{kind}", None)
        if fn is None:
            raise TypeError(f"task {kind!r}: {state.__name__} has no _t_{kind}")
        params = tuple(inspect.signature(fn).parameters)[1:]
        if len(params) != len(tps):
            raise TypeError(f"task {kind!r} has {len(tps)} field(s), _t_{kind} takes {params}")
        handlers[kind], fields[kind], types[kind] = fn, params, tps
    extra = sorted(n[3:] for n in dir(state) if n.startswith("_t_") and n[3:] not in fields)
    if extra:
        raise TypeError(f"{state.__name__} has handlers of no task kind: {extra}")
    return TaskTable(handlers, fields, types)
