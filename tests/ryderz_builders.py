"""Small builders for Lazer Ryderz scenario tests: set up a position, move, force chance.

A position set up before acting comes from the public ``PositionBuilder``
(``ryderz_env.rules.PositionBuilder``, docs/positions.md): ``position(g, mover, lazers=...,
prizms=...)`` is the start of ``mover``'s turn (at its first decision), with Lazers given as
elements (``chain``, ``straight_at``, ``launch_point``) that must form chains. A change after
some actions goes through the JSON round trip (``edited``, and ``with_lazer`` /
``with_prizms`` for the common ones), so every position a test plays from satisfies the
documented invariants (docs/state_invariants.md). No helper writes a state's fields
(``tests/shared/test_scenarios_use_public_api.py``); each player's supply stays consistent
with its pieces on the table (``supply + on table == owned``).

Turn ids: the position's current turn is ``NOW``; pieces the mover placed on its previous
turn carry ``PREV`` (scoring looks at this turn's and the previous turn's pieces together);
older pieces carry ``OLD``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from edit_state import edited

from ryderz_env.rules import (
    Action,
    ActionKind,
    ChanceKind,
    DecisionKind,
    Game,
    Move,
    PieceKind,
    Pose,
    PositionBuilder,
    Prizm,
    State,
)
from ryderz_env.rules import builder as rb
from ryderz_env.rules.geometry import Element, make_element
from ryderz_env.rules.serialize import element_to_dict

A = Action
K = ActionKind
S, SOFT, HARD, LAUNCH = PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD, PieceKind.LAUNCH
L, R = 1, -1  # curve sides: +1 turns left, -1 turns right
NOW, PREV, OLD = rb.NOW, rb.PREVIOUS, rb.OLDER  # this turn, the mover's previous one, older
UP = math.pi / 2  # heading +y
DOWN = -math.pi / 2
EAST = 0.0
WEST = math.pi

#: a piece spec: (kind, gear, side)
Spec = tuple[PieceKind, int, int]


def st(gear: int) -> Spec:
    """A straight of ``gear``."""
    return (S, gear, 0)


def soft(gear: int, side: int) -> Spec:
    """A soft turn of ``gear`` turning ``side`` (L or R)."""
    return (SOFT, gear, side)


def hard(gear: int, side: int) -> Spec:
    """A hard turn of ``gear`` turning ``side`` (L or R)."""
    return (HARD, gear, side)


def game(**overrides: object) -> Game:
    """A game with rule overrides; two players and no launch noise unless overridden."""
    overrides.setdefault("num_players", 2)
    overrides.setdefault("launch_noise_sigma", 0.0)
    return Game(**overrides)


def engines(
    g: Game, gears: Sequence[int], xs: Sequence[float] | None = None, seed: int = 0
) -> State:
    """A new game after one Start Your Engines: ``gears[seat]`` and ``xs[seat]`` (default 0)."""
    s = g.new_initial_state(seed)
    xs = [0.0] * g.num_players if xs is None else xs
    s.apply_actions(
        {seat: A.launch(gear, x) for seat, (gear, x) in enumerate(zip(gears, xs, strict=True))}
    )
    return s


def piece(g: Game, seat: int, spec: Spec, pose: Pose, turn: int = OLD) -> Element:
    """One piece of ``seat`` with its entry at ``pose``."""
    kind, gear, side = spec
    shape = g.shapes[(kind, gear, side)]
    return make_element(seat, kind, gear, side, pose, turn, shape.outline, shape.exit)


def chain(
    g: Game, seat: int, start: Pose, specs: Iterable[Spec], turn: int | Sequence[int] = OLD
) -> list[Element]:
    """Pieces nested one on the next from ``start``; ``turn`` is one id or one per piece."""
    specs = list(specs)
    turns = [turn] * len(specs) if isinstance(turn, int) else list(turn)
    out: list[Element] = []
    pose = start
    for spec, t in zip(specs, turns, strict=True):
        el = piece(g, seat, spec, pose, t)
        out.append(el)
        pose = el.exit
    return out


def straight_at(g: Game, seat: int, pose: Pose, gear: int = 1, turn: int = OLD) -> Element:
    """A straight of ``gear`` whose exit is ``pose`` (so a next piece starts at ``pose``)."""
    length = g.shapes[(S, gear, 0)].length
    c, sn = math.cos(pose.h), math.sin(pose.h)
    return piece(g, seat, st(gear), Pose(pose.x - length * c, pose.y - length * sn, pose.h), turn)


def launch_point(g: Game, seat: int, t: float, turn: int = 0) -> Element:
    """A Launch Point of ``seat`` at perimeter position ``t``."""
    return g.launch_element(seat, t, turn)


def first_mover_gears(g: Game, mover: int) -> list[int]:
    """Distinct starting gears that make ``mover`` first in round 1 (top gear to it)."""
    n = g.num_players
    gears = [0] * n
    gears[mover] = g.top_gear
    rest = [s for s in range(n) if s != mover]
    for i, seat in enumerate(rest):
        gears[seat] = g.top_gear - 1 - i
    return gears


def _chain_of(seat: int, elements: Sequence[Element]) -> dict[str, Any]:
    """``PositionBuilder.lazer`` arguments that lay ``elements`` again: a Launch Point (turn
    0) only first, each piece's entry on the exit before it, with its turn id. Anything else
    is no Lazer a state can hold: an AssertionError naming the element."""
    els = list(elements)
    start: Pose | float
    if els[0].is_launch:
        assert els[0].turn == 0, f"seat {seat}: a Launch Point of turn {els[0].turn}"
        start, pose, pieces = els[0].t, els[0].exit, els[1:]
    else:
        start = pose = els[0].pose
        pieces = els
    for i, e in enumerate(pieces):
        assert e.owner == seat and not e.is_launch, f"seat {seat}: element {i} is {e}"
        assert e.pose == pose, f"seat {seat}: element {i} does not start on the exit before it"
        pose = e.exit
    specs = [rb.Piece(e.kind, e.gear, e.side) for e in pieces]
    return {"pieces": specs, "start": start, "turns": [e.turn for e in pieces]}


def builder(
    g: Game,
    mover: int = 0,
    *,
    lazers: Mapping[int, Sequence[Element]] | None = None,
    prizms: Sequence[Prizm] | None = None,
    gears: Mapping[int, int] | None = None,
    power_ready: Mapping[int, bool] | None = None,
) -> PositionBuilder:
    """The ``PositionBuilder`` of ``position`` (not yet built)."""
    b = PositionBuilder(g, mover=mover)
    for seat, els in (lazers or {}).items():
        if not els:  # only a crasher whose respawn is pending is off the table
            raise ValueError(f"seat {seat}: a position at the start of a turn has every Lazer")
        b.lazer(seat, **_chain_of(seat, els))
    if prizms is not None:
        b.prizms(prizms)
    for seat, gear in (gears or {}).items():
        b.gear(seat, gear)
    for seat, ready in (power_ready or {}).items():
        b.power_ready(seat, ready)
    return b


def position(
    g: Game,
    mover: int = 0,
    *,
    lazers: Mapping[int, Sequence[Element]] | None = None,
    prizms: Sequence[Prizm] | None = None,
    gears: Mapping[int, int] | None = None,
    power_ready: Mapping[int, bool] | None = None,
) -> State:
    """A position where ``mover`` takes its turn ``NOW`` (at its first decision of the turn).

    ``lazers`` replace the given seats' Lazers (the others keep their Launch Points from Start
    Your Engines; an empty list takes a Lazer off the table, which a built position refuses:
    no placement is pending at the start of a turn); ``prizms`` replace every Prizm;
    ``gears`` set gears (the mover defaults to 3); ``power_ready`` sets powers (with powers
    on). Built by the public ``PositionBuilder``; each Lazer is laid exactly as given.
    """
    b = builder(g, mover, lazers=lazers, prizms=prizms, gears=gears, power_ready=power_ready)
    s = b.build()
    for seat, els in (lazers or {}).items():
        laid = [element_to_dict(e) for e in s.players[seat].lazer]
        assert laid == [element_to_dict(e) for e in els], f"seat {seat}'s Lazer was laid otherwise"
    return s


# ------------------------------------------------------------------ changes mid-scenario
def with_lazer(s: State, seat: int, elements: Sequence[Element]) -> State:
    """``s`` with ``seat``'s Lazer replaced (its head at the newest element's exit, None for
    no Lazer; the supply the owned pieces minus those on the table), through the JSON round
    trip: a change in the middle of a scenario."""
    els = list(elements)
    supply = owned(s.game)
    for e in els:
        if not e.is_launch:
            supply[e.gear - 1][e.kind] -= 1
    head = [els[-1].exit.x, els[-1].exit.y, els[-1].exit.h] if els else None
    lazer = [element_to_dict(e) for e in els]
    return edited(s, lambda d: d["players"][seat].update(lazer=lazer, head=head, supply=supply))


def with_prizms(s: State, prizms: Iterable[Prizm]) -> State:
    """``s`` with every Prizm replaced (``Prizm(x, y, owner)``), through the JSON round trip:
    a new game's Prizms before Start Your Engines, or a change in the middle of a scenario."""
    rows = [[p.x, p.y, p.owner] for p in prizms]
    return edited(s, lambda d: d.update(prizms=rows))


def move(s: State, shift: int, mv: Move, roll: int | None = None) -> None:
    """The mover's shift-and-move decision; a curve attempt's die shows ``roll``."""
    assert s.decision_kind() is DecisionKind.MOVE, f"expected a move decision: {s.decision}"
    s.apply_action(A.move(shift, mv))
    if roll is not None:
        assert s.chance_kind() is ChanceKind.DIE, f"expected the die: {s.chance}"
        s.apply_chance(roll)


def decline(s: State) -> None:
    """Decline a power or the large-table bonus."""
    s.apply_action(A(K.DECLINE))


def skip_to_move(s: State) -> None:
    """Decline pending power / bonus decisions up to the mover's move decision."""
    while s.decision_kind() in (DecisionKind.POWER, DecisionKind.BONUS):
        decline(s)


def toss(s: State, point: tuple[float, float]) -> None:
    """Land a fresh neutral Prizm at ``point``."""
    assert s.chance_kind() is ChanceKind.TOSS, f"expected a toss: {s.chance} {s.decision}"
    s.apply_chance(list(point))


def new_pieces(s: State, seat: int, turn: int = NOW) -> list[Element]:
    """``seat``'s pieces placed on turn ``turn``."""
    return [e for e in s.players[seat].lazer if e.turn == turn and not e.is_launch]


def specs_of(elements: Iterable[Element]) -> list[tuple]:
    """(kind, gear, side) of each element (LAUNCH for a Launch Point)."""
    return [(e.kind, e.gear, e.side) for e in elements]


def close_pose(a: Pose | None, b: Pose | None, tol: float = 1e-9) -> bool:
    """Poses equal within ``tol`` (heading compared modulo 2 pi)."""
    if a is None or b is None:
        return a is b
    dh = (a.h - b.h + math.pi) % (2 * math.pi) - math.pi
    return abs(a.x - b.x) <= tol and abs(a.y - b.y) <= tol and abs(dh) <= tol


def owned(g: Game) -> list[list[int]]:
    """The per-player supply the game deals (gear - 1, kind)."""
    return [list(row) for row in g.supply]
