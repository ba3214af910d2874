"""Small builders for Lunatix Loop scenario tests: set up a position, act, force chance.

Positions are built by starting a real game (start dots and chip mixes resolved), then
placing cars directly; ``put`` keeps a car's race progress consistent with its square.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from lunatix_env.rules import Action, ActionKind, Card, Game, State

A = Action
K = ActionKind
#: squares within this many middle-lane squares before the line count as pre-start
BEHIND_LINE = 6.0


def game(**overrides: object) -> Game:
    """A game with rule overrides (``num_players=2``, ``turn_around=True`` ...)."""
    return Game(**overrides)


def first_round(g: Game, mixes: Sequence[int] | None = None) -> State:
    """A state at round 1's card decision: dots dealt in seat order, chip mixes chosen.

    ``mixes`` are indices into ``g.codec.chip_mixes`` (default: the first legal mix).
    """
    s = g.new_initial_state(0)
    dots = list(range(g.num_players))
    while s.is_chance_node():
        s.apply_chance(dots.pop(0) if s.chance["kind"] == "start_dot" else 0)
    acts = {}
    for seat in s.current_players():
        legal = s.legal_actions(seat)
        acts[seat] = legal[0] if mixes is None else A(K.CHIP_MIX, mixes[seat])
    s.apply_actions(acts)
    assert s.decision_kind() is not None and s.decision["kind"] == "card"
    return s


def mix_index(g: Game, tacks: int, oil: int, glue: int) -> int:
    """Index of a chip mix in the codec's list."""
    return g.codec.chip_mixes.index((tacks, oil, glue))


def put(
    s: State,
    seat: int,
    square: int,
    speed: int | None = None,
    max_speed: int | None = None,
    facing: int = 0,
    laps: int = 0,
) -> None:
    """Place ``seat``'s car on ``square``, optionally set speeds.

    Progress: ``laps`` whole laps plus the square's ``s``; with ``laps=0`` a square in the
    last ``BEHIND_LINE`` squares before the line counts as not yet across the start line.
    """
    car = s.cars[seat]
    tr = s.game.track
    car.square = square
    car.in_pit = False
    car.facing = facing
    # before the line's last rows a car counts as not having crossed the line yet
    behind_line = laps == 0 and tr.s[square] > tr.length - BEHIND_LINE
    car.u = tr.s[square] - tr.length if behind_line else tr.s[square] + laps * tr.length
    car.best_u = car.u
    if speed is not None:
        car.speed = speed
    if max_speed is not None:
        car.max_speed = max_speed
    touched(s)


def park(s: State, seat: int, square: int) -> None:
    """Move a car out of the way onto ``square`` without touching anything else."""
    put(s, seat, square)


def square_at(g: Game, lane: int, index: int) -> int:
    """The ``index``-th square of ``lane`` in race order from the finish line."""
    return g.track.spec.lanes[lane][index]


def choose(s: State, cards: dict[int, Action | Card]) -> None:
    """Reveal cards: a Card or an Action per live seat (missing seats play Accelerate)."""
    acts = {}
    for seat in s.current_players():
        c = cards.get(seat, Card.ACCELERATE)
        acts[seat] = A(K.CARD, int(c)) if isinstance(c, Card) else c
    s.apply_actions(acts)


def force(s: State, outcomes: Iterable[int]) -> None:
    """Apply chance outcomes in order (each must be possible)."""
    for o in outcomes:
        assert s.is_chance_node(), f"expected a chance node, decision is {s.decision}"
        s.apply_chance(o)


def act(s: State, *actions: Action) -> None:
    """Apply single-decider actions in order."""
    for a in actions:
        s.apply_action(a)


def hazard_index(g: Game, name: str) -> int:
    """Index of the hazard card named ``name``."""
    return [c.name for c in g.decks.hazard].index(name)


def turbo_index(g: Game, name: str) -> int:
    """Index of the turbo card named ``name``."""
    return [c.name for c in g.decks.turbo].index(name)


def gadget_index(g: Game, name: str) -> int:
    """Index of the gadget card named ``name``."""
    return [c.name for c in g.decks.gadgets].index(name)


def give_gadget(s: State, seat: int, name: str) -> int:
    """Move gadget ``name`` from the deck top into ``seat``'s hand; returns its index."""
    gi = gadget_index(s.game, name)
    s.gadget_top.remove(gi)
    s.cars[seat].gadgets.append(gi)
    s.cars[seat].gadgets.sort()
    touched(s)
    return gi


def touched(s: State) -> None:
    """Drop the state's caches after a test poked its fields directly."""
    s._legal = {}
    s._chance_cache = None


def hide_swap(state: State, viewer: int, rng: np.random.Generator) -> State:
    """A copy where every gadget ``viewer`` cannot see is dealt out again at random:
    the deck's top, other hands, others' bottom cards and another seat's offer."""
    t = state.clone()
    hidden = list(t.gadget_top)
    slots: list[tuple[str, int, int]] = [("top", i, -1) for i in range(len(t.gadget_top))]
    for c in t.cars:
        if c.seat != viewer:
            for i, g in enumerate(c.gadgets):
                hidden.append(g)
                slots.append(("hand", i, c.seat))
    for i, (g, owner) in enumerate(t.gadget_bottom):
        if owner != viewer:
            hidden.append(g)
            slots.append(("bottom", i, -1))
    if t.turn is None or t.turn["seat"] != viewer:
        for i, g in enumerate(t.offer):
            hidden.append(g)
            slots.append(("offer", i, -1))
    perm = [hidden[i] for i in rng.permutation(len(hidden))]
    for (where, i, seat), g in zip(slots, perm, strict=True):
        if where == "top":
            t.gadget_top[i] = g
        elif where == "hand":
            t.cars[seat].gadgets[i] = g
        elif where == "bottom":
            t.gadget_bottom[i][0] = g
        else:
            t.offer[i] = g
    for c in t.cars:
        c.gadgets.sort()
    t.gadget_top.sort()
    return t
