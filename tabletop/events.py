"""Turn events: what each step of a game resolved, typed, with who may see it.

Both engines record events while a state's ``events`` list is switched on
(``state.record_events()``; off by default and in clones, so search and benchmarks pay
one attribute test per event). Each
:class:`Event` has a kind from its game's small vocabulary (an enum whose values are the
JSON names and whose members carry a text template), the seat it is about, a few JSON-able
fields, and its visibility: everyone, or one seat only (a gadget drawn is seen by its owner).
Envs put in each agent's ``infos["events"]`` only what it may see; records keep them all; the
server filters them by seat.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple


class EventKind(enum.Enum):
    """Base of the games' event vocabularies: ``value`` is the JSON name; ``template`` (given
    as a second member value) is the text, formatted with the event's fields and ``seat``."""

    def __new__(cls, value: str, template: str) -> EventKind:
        obj = object.__new__(cls)
        obj._value_ = value
        obj.template = template  # type: ignore[attr-defined]
        return obj


class Event(NamedTuple):
    """One thing that happened: ``kind``, the ``seat`` it is about (None: the table),
    ``fields`` (name, JSON value) in order, and ``to``: None when every seat sees it, else the
    only seat that does. Immutable (a named tuple: the cheapest object to build, which is
    what recording costs)."""

    kind: EventKind
    seat: int | None
    fields: tuple[tuple[str, Any], ...] = ()
    to: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see it (None: an observer of the whole game, as records)."""
        return self.to is None or seat is None or self.to == seat

    def get(self, name: str, default: Any = None) -> Any:
        """One field's value."""
        for k, v in self.fields:
            if k == name:
                return v
        return default

    def to_json(self) -> dict[str, Any]:
        """``{"kind": ..., "seat": ..., <fields>, "to": ...}`` (``to`` only when private)."""
        out: dict[str, Any] = {"kind": self.kind.value, "seat": self.seat, **dict(self.fields)}
        if self.to is not None:
            out["to"] = self.to
        return out

    def __str__(self) -> str:
        template: str = self.kind.template  # type: ignore[attr-defined]
        who = "the table" if self.seat is None else f"seat {self.seat}"
        return template.format(who=who, **dict(self.fields))


def from_records(
    records: Iterable[tuple[EventKind, int | None, Mapping[str, Any], int | None]],
) -> list[Event]:
    """Events of the engines' raw records ``(kind, seat, fields, to)``: a state records these
    as it plays (a tuple costs less than an :class:`Event`) and builds the events when they
    are taken."""
    new = tuple.__new__
    return [new(Event, (k, s, tuple(f.items()), t)) for k, s, f, t in records]


def visible(events: list[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see, in order."""
    return [e for e in events if e.visible_to(seat)]
