"""Small builders for Lazer Ryderz scenario tests: set up a position, move, force chance.

Positions are built by playing a real Start Your Engines with the launch noise off (so the
mover is the first seat of round 1, at its first decision), then overwriting Lazers, heads,
gears and Prizms directly. The builders keep each player's supply consistent with the pieces
on the table (``supply + on table == owned``, as ``state_from_dict`` checks).

Turn ids: the position's current turn is ``NOW``; pieces the mover placed on its previous
turn carry ``PREV`` (scoring looks at this turn's and the previous turn's pieces together);
older pieces carry ``OLD``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from ryderz_env.rules import (
    Action,
    ActionKind,
    ChanceKind,
    DecisionKind,
    Game,
    Move,
    PieceKind,
    Pose,
    Prizm,
    State,
)
from ryderz_env.rules.geometry import Element, make_element

A = Action
K = ActionKind
S, SOFT, HARD, LAUNCH = PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD, PieceKind.LAUNCH
L, R = 1, -1  # curve sides: +1 turns left, -1 turns right
NOW, PREV, OLD = 10, 9, 5  # turn ids: this turn, the mover's previous turn, older
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


def set_lazer(
    s: State, seat: int, elements: Sequence[Element], head: Pose | None | bool = True
) -> None:
    """Replace ``seat``'s Lazer; its head is the newest element's exit (``head=True``), a
    given pose, or None. The supply becomes the owned pieces minus those on the table."""
    g = s.game
    p = s.players[seat]
    p.lazer = list(elements)
    if head is True:
        p.head = p.lazer[-1].exit if p.lazer else None
    elif head is False:
        p.head = None
    else:
        p.head = head
    supply = [list(row) for row in g.supply]
    for e in p.lazer:
        if not e.is_launch:
            supply[e.gear - 1][e.kind] -= 1
            assert supply[e.gear - 1][e.kind] >= 0, f"seat {seat}: too many {e}"
    p.supply = supply
    s._reset_caches()


def position(
    g: Game,
    mover: int = 0,
    *,
    lazers: Mapping[int, Sequence[Element]] | None = None,
    heads: Mapping[int, Pose | None] | None = None,
    prizms: Sequence[Prizm] | None = None,
    gears: Mapping[int, int] | None = None,
    power_ready: Mapping[int, bool] | None = None,
) -> State:
    """A position where ``mover`` takes its turn ``NOW`` (at its first decision of the turn).

    ``lazers`` replace the given seats' Lazers (the others keep their Launch Points from Start
    Your Engines); ``heads`` override head poses; ``prizms`` replace every Prizm; ``gears``
    set gears (the mover defaults to 3); ``power_ready`` sets powers (with powers on).
    """
    s = engines(g, first_mover_gears(g, mover))
    assert s.turn is not None and s.turn["seat"] == mover
    if lazers and mover in lazers and s.decision_kind() is DecisionKind.BONUS:
        decline(s)  # the large-table bonus only exists while the Lazer is a Launch Point
    s.turn_id = NOW
    s.turn["id"] = NOW
    for p in s.players:
        p.prev_turn = OLD
    s.players[mover].prev_turn = PREV
    for seat, els in (lazers or {}).items():
        set_lazer(s, seat, els)
    for seat, head in (heads or {}).items():
        s.players[seat].head = head
    if prizms is not None:
        s.prizms = list(prizms)
    gears = {mover: 3, **(gears or {})}
    for seat, gear in gears.items():
        s.players[seat].gear = gear
    for seat, ready in (power_ready or {}).items():
        s.players[seat].power_ready = ready
    s._reset_caches()
    return s


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
