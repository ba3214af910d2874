"""Scenario tests set up positions through public APIs, never by writing a state's fields.

A position set up before acting comes from the games' ``PositionBuilder`` (docs/positions.md),
directly or through the helpers of ``tests/*_builders.py``; a change in the middle of a
scenario goes through the JSON round trip (``tests/edit_state.py``: ``edited(state, change)``),
so every position a test plays from satisfies the documented invariants
(docs/state_invariants.md). This guard parses every module under ``tests/`` and fails, naming
file:line, on

* an assignment, augmented assignment or ``del`` whose target is an attribute or subscript
  chain reaching a state field (``s.cars[0].luck = 2``, ``s.track_chips[sq] = 1``) or an
  attribute starting with ``_`` (``s._legal = {}``), on anything but ``self``/``cls``;
* a mutating method call on such a chain (``s.gadget_top.remove(g)``, ``car.chips.append``);
* ``setattr(x, "field", v)`` with such a field name;
* a call of a private method of a state (a ``_name`` that the engines' State, Car or Player
  classes define: ``s._reset_caches()``, ``s._run()``), on anything but ``self``/``cls``/a
  module,

outside ``ALLOWED``: the tests that write a state on purpose (to check that a change is
detected, or that a copy is independent) and white-box tests of objects that are no state,
each listed with its reason. The guard cannot know types: a field name written on another
kind of object counts too (rename the attribute, or list the test).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lunatix_env.rules import Game as LGame
from lunatix_env.rules.records import Car
from lunatix_env.rules.state import State as LState
from ryderz_env.rules import Game as RGame
from ryderz_env.rules.records import Player
from ryderz_env.rules.state import State as RState

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

#: the fields of the engines' states (State, Lunatix Car, Lazer Ryderz Player): writing one of
#: them from a test bypasses validation. ``test_field_names_cover_the_engines`` keeps the list
#: complete.
STATE_FIELDS = frozenset(
    {
        # both States
        "game", "seed", "round", "order", "tasks", "decision", "chance", "turn", "status",
        "winner", "supply",
        # Lunatix Loop State
        "cars", "cards", "hazard_deck", "hazard_discard", "turbo_deck", "turbo_discard",
        "gadget_top", "gadget_bottom", "offer", "track_chips", "pit_counter", "batches",
        # Lunatix Loop Car
        "seat", "square", "facing", "speed", "max_speed", "luck", "chips", "gadgets", "spent",
        "lunacies", "in_pit", "pit_opening", "pit_order", "u", "best_u", "owed", "out",
        # Lazer Ryderz State
        "players", "prizms", "marker", "turn_id",
        # Lazer Ryderz Player
        "gear", "stalled", "power_ready", "lazer", "head", "prev_turn",
    }
)  # fmt: skip
#: methods that change a list, dict or set in place
MUTATORS = frozenset(
    {"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "update",
     "setdefault", "popitem", "add", "discard", "__setitem__", "__delitem__"}
)  # fmt: skip
#: receivers that are never a state
SELF = frozenset({"self", "cls"})

#: tests (``path`` for a whole module, ``path::function`` for one test or helper) that write a
#: state's fields or call its private methods on purpose, or reach private parts of objects
#: that are no state (white-box tests of a bot, a solver, a game's cache), each with its reason
ALLOWED: dict[str, str] = {
    "tests/shared/test_position_builders.py::test_lunatix_built_positions_round_trip": (
        "checks that a built state is a state of its own: changes the built state's speed, "
        "then builds again"
    ),
    "tests/ryderz/test_ryderz_soak.py::check_colours": (
        "soak invariant: the state's kept Prizm colours (a private cache) equal a fresh "
        "computation; read-only queries"
    ),
    "tests/ryderz/test_ryderz_soak.py::check_no_overlap": (
        "soak invariant: Lazers overlap only inside the Prizm discs the state computes "
        "(a private read-only query)"
    ),
    "tests/shared/test_mcts.py::test_normalised_values_map_to_the_unit_interval": (
        "white-box test of MCTSBot's value normalisation: sets the bot's private bounds "
        "(a bot, not a state)"
    ),
    "tests/ryderz/test_ryderz_aim.py::test_aim_is_cached_per_seat_and_point": (
        "white-box test of LaunchAim's cache: replaces the solver of an aim (not a state) to "
        "count the solves"
    ),
    "tests/ryderz/test_heuristic_ryderz.py::test_centreline_disc_skips_only_targets_off_the_line": (
        "white-box test of the heuristic's disc test: widens a bot's private discs (a bot, "
        "not a state)"
    ),
    "tests/ryderz/test_ryderz_geometry.py::"
    "test_nudge_obstacle_of_a_shape_grown_with_holes_is_grown_where_placed": (
        "puts a game's private outline cache (a game, not a state) in the case of a shape "
        "grown with holes, which no shape of the rules reaches"
    ),
}


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    scope: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.scope}): {self.what}"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _state_private_methods() -> frozenset[str]:
    names = set()
    for cls in (LState, RState, Car, Player):
        for klass in cls.__mro__:
            if klass.__module__.split(".")[0] in ("lunatix_env", "ryderz_env", "tabletop"):
                names |= {n for n, v in vars(klass).items() if _private(n) and callable(v)}
    return frozenset(names)


STATE_PRIVATE_METHODS = _state_private_methods()


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _attrs(node: ast.expr) -> list[str]:
    """The attribute names along an attribute/subscript chain, outermost first."""
    out = []
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        if isinstance(node, ast.Attribute):
            out.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            node = node.func
    return out


def _is_self(node: ast.expr) -> bool:
    root = _root(node)
    return isinstance(root, ast.Name) and root.id in SELF


def _reaches_state(target: ast.expr) -> str | None:
    """The field or private name a written chain reaches, or None."""
    if not isinstance(target, ast.Attribute | ast.Subscript) or _is_self(target):
        return None
    for name in _attrs(target):
        if name in STATE_FIELDS or _private(name):
            return name
    return None


def _targets(node: ast.AST) -> Iterator[ast.expr]:
    if isinstance(node, ast.Assign):
        stack = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        stack = [node.target]
    elif isinstance(node, ast.Delete):
        stack = list(node.targets)
    elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        stack = [node.target]
    elif isinstance(node, ast.With | ast.AsyncWith):
        stack = [i.optional_vars for i in node.items if i.optional_vars is not None]
    elif isinstance(node, ast.NamedExpr):
        stack = []
    else:
        stack = []
    while stack:
        t = stack.pop()
        if isinstance(t, ast.Tuple | ast.List):
            stack += t.elts
        elif isinstance(t, ast.Starred):
            stack.append(t.value)
        else:
            yield t


def _module_names(tree: ast.Module) -> set[str]:
    """Names bound by ``import`` anywhere in the module (module receivers are no state)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
    return names


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, modules: set[str]) -> None:
        self.path = path
        self.modules = modules
        self.scope: list[str] = []
        self.hits: list[Hit] = []

    def _hit(self, node: ast.AST, what: str) -> None:
        scope = ".".join(self.scope) or "<module>"
        self.hits.append(Hit(self.path, getattr(node, "lineno", 0), scope, what))

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def generic_visit(self, node: ast.AST) -> None:
        for t in _targets(node):
            name = _reaches_state(t)
            if name is not None:
                self._hit(t, f"writes .{name}: {ast.unparse(t)}")
        super().generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute):
            receiver = f.value
            if f.attr in MUTATORS:
                name = _reaches_state(receiver)
                if name is not None:
                    self._hit(node, f"mutates .{name}: {ast.unparse(f)}(...)")
            elif f.attr in STATE_PRIVATE_METHODS and not self._no_state(receiver):
                self._hit(node, f"calls a state's private method: {ast.unparse(f)}(...)")
        elif (
            isinstance(f, ast.Name)
            and f.id in ("setattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and (node.args[1].value in STATE_FIELDS or _private(node.args[1].value))
            and not _is_self(node.args[0])
        ):
            self._hit(node, f"{f.id} .{node.args[1].value}: {ast.unparse(node)}")
        self.generic_visit(node)

    def _no_state(self, receiver: ast.expr) -> bool:
        if isinstance(receiver, ast.Name):
            return receiver.id in SELF or receiver.id in self.modules
        return isinstance(receiver, ast.Call) and (
            isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
        )


def scan_source(source: str, path: str = "<test>") -> list[Hit]:
    """Every write to a state's fields and private call on a state in ``source``."""
    tree = ast.parse(source, filename=path)
    scanner = _Scanner(path, _module_names(tree))
    scanner.visit(tree)
    return scanner.hits


def modules() -> list[Path]:
    """Every test and helper module under tests/."""
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _allowed(hit: Hit) -> str | None:
    top = hit.scope.split(".")[0]
    for key in (hit.path, f"{hit.path}::{top}", f"{hit.path}::{hit.scope}"):
        if key in ALLOWED:
            return key
    return None


def all_hits() -> list[Hit]:
    hits = []
    for p in modules():
        rel = p.relative_to(ROOT).as_posix()
        hits += scan_source(p.read_text(encoding="utf-8"), rel)
    return hits


# ------------------------------------------------------------------ the guard
def test_scenarios_write_no_state_fields() -> None:
    bad = [h for h in all_hits() if _allowed(h) is None]
    assert not bad, (
        f"{len(bad)} writes to a state's fields or private calls on a state in tests/ "
        "(set positions up with the games' PositionBuilder, change a state mid-scenario with "
        "tests/edit_state.py's edited(), or list a test that corrupts states on purpose in "
        "ALLOWED with its reason):\n" + "\n".join(map(str, bad))
    )


def test_the_allowlist_names_real_hits() -> None:
    used = {_allowed(h) for h in all_hits()}
    stale = sorted(set(ALLOWED) - used)
    assert not stale, f"ALLOWED entries with nothing left to allow (remove them): {stale}"


# ------------------------------------------------------------------ the scanner itself
def test_field_names_cover_the_engines() -> None:
    ls = LGame(num_players=2).new_initial_state(0)
    rs = RGame(num_players=2).new_initial_state(0)
    fields = {n for st in (ls, rs) for n in vars(st) if not n.startswith("_")}
    fields |= set(Car.__slots__) | set(Player.__slots__)
    assert fields <= STATE_FIELDS, sorted(fields - STATE_FIELDS)
    assert {"_reset_caches", "_run", "_push"} <= STATE_PRIVATE_METHODS


@pytest.mark.parametrize(
    "source",
    [
        "s.cars[0].luck = 2",
        "car.in_pit = True",
        "s.track_chips[sq] = 1",
        "s.players[i].head = pose",
        "s.prizms = []",
        's.turn["id"] = 3',
        "s.turn.over = True",
        "s.turn_id += 1",
        "s._legal = {}",
        "env._cache[0] = 1",
        "s._reset_caches()",
        "t.game._run()",
        "s.gadget_top.remove(g)",
        "s.cars[1].gadgets.append(g)",
        "del s.track_chips[sq]",
        "s.cars[0].speed, s.cars[1].speed = 1, 2",
        'setattr(car, "luck", 3)',
        "for s.round in range(3): pass",
        "with f() as s.decision: pass",
        "def f(p):\n    p.lazer = []",
    ],
)
def test_the_scanner_catches(source: str) -> None:
    assert scan_source(source), source


@pytest.mark.parametrize(
    "source",
    [
        "class A:\n    def f(self):\n        self.cars = []\n        self._legal = {}",
        "class A:\n    def f(self):\n        self._run()",
        'd["cars"][0]["luck"] = 2',
        'edited(s, lambda d: d["cars"][0].update(luck=2))',
        "x = s.cars[0].luck",
        "assert s.players[0].head == pose",
        "import numpy as np\nnp._reset_caches()",
        "from ryderz_env.rules import aim\naim._run()",
        "bot._plan(s)",
        "class A(B):\n    def f(self):\n        super()._run()",
        "cars = [1]\ncars[0] = 2",
        "lst.append(s.cars)",
    ],
)
def test_the_scanner_lets_pass(source: str) -> None:
    assert scan_source(source) == []


def test_hits_are_scoped_to_their_test() -> None:
    (hit,) = scan_source("def test_a():\n    def inner():\n        s.round = 2\n", "t.py")
    assert (hit.line, hit.scope, str(hit)) == (
        3,
        "test_a.inner",
        f"t.py:3 (test_a.inner): {hit.what}",
    )
    assert "writes .round" in hit.what
    assert len(scan_source("s.cars[0].speed, s.cars[1].speed = 1, 2")) == 2
