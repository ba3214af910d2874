"""Seeded random-play soak of the Lazer Ryderz engine.

Complete games between uniformly random legal players over 2-4 seats, with and without Power
Prizms, on every table preset, every seventh game with the odd-table options (``square_edge``
on the long table only; cycled by game index), with the invariants of
``shared/rules/lazer_ryderz.md`` checked along the way: every piece is in its owner's supply
or on the table; each Lazer is a chain (every element starts at the previous one's exit) with
the Launch Point only as its oldest element and the head at its front; every Prizm lies wholly
on the table, there are always as many neutral Prizms as players (fewer after the winning
turn, by those it scored) and no colour has more Prizms than a win needs; scores match the
colours; at every round end no two Lazers overlap outside Prizm discs (except pieces laid in a
Phantom Cosmonaut turn); every decider has legal actions; NOOP is never legal; the game ends
by a win or at the round limit; a JSON round trip reproduces the state.

``TABLETOP_SOAK_GAMES`` sets the number of games (default 300; CI runs 2000), split into
chunks so that ``pytest -n 2`` spreads them over both cores.
"""

from __future__ import annotations

import functools
import json
import math
import os

import numpy as np
import pytest
import shapely

from ryderz_env.rules import NOOP, ActionKind, Game, Outcome, PieceKind, State

SOAK_GAMES = int(os.environ.get("TABLETOP_SOAK_GAMES", "300"))
CHUNKS = 8
TABLES = ("standard", "small", "large", "rectangle", "hexagon", "long")
KINDS = (PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD)


def game_variant(index: int) -> tuple[int, bool, str, bool]:
    """(num_players, powers, table, odd-table options on) of soak game ``index``."""
    return (
        2 + index % 3,
        (index // 3) % 2 == 1,
        TABLES[(index // 6) % len(TABLES)],
        index % 7 == 6,
    )


@functools.cache
def soak_game(num_players: int, powers: bool, table: str, odd: bool) -> Game:
    flags = ("toss_start_prizms", "start_far_sides", "large_far_sides")
    # square_edge needs a table longer than wide: the long one (cut to 30 x 30)
    return Game(
        num_players=num_players,
        powers=powers,
        table=table,
        odd_table={**dict.fromkeys(flags, odd), "square_edge": odd and table == "long"},
    )


def check_pieces(s: State) -> None:
    g = s.game
    for p in s.players:
        for gear in range(1, g.top_gear + 1):
            for k in KINDS:
                on_table = sum(1 for e in p.lazer if e.gear == gear and e.kind is k)
                assert p.supply[gear - 1][k] + on_table == g.supply[gear - 1][k], (
                    f"seat {p.seat}: gear {gear} {k.name} not conserved"
                )
        assert all(not e.is_launch for e in p.lazer[1:])
        for a, b in zip(p.lazer, p.lazer[1:], strict=False):
            assert b.pose == a.exit, f"seat {p.seat}: the Lazer is not a chain"
        if p.lazer:
            assert p.head == p.lazer[-1].exit


def check_prizms(s: State, scores_at_turn_start: list[int]) -> None:
    """Prizms on the table, as many neutral ones as players, scores under a win; after a win,
    ``scores_at_turn_start`` (the scores when the winning turn began) give the neutral
    Prizms it scored, which no fresh Prizm replaces (the game ends at once)."""
    r = s.game.rules
    n = len(s.players)
    neutral = sum(1 for q in s.prizms if q.owner < 0)
    if s.status is Outcome.WIN:
        gained = s.score(s.winner) - scores_at_turn_start[s.winner]
        stolen = sum(scores_at_turn_start[i] - s.score(i) for i in range(n) if i != s.winner)
        assert neutral == n - (gained - stolen)
    else:
        assert neutral == n
    for q in s.prizms:
        assert s.game.table.contains_point(q.x, q.y, r.prizm_radius - 1e-6)
    for seat in range(n):
        cap = r.win_prizms if s.winner == seat else r.win_prizms - 1
        assert s.score(seat) <= cap


def check_colours(s: State) -> None:
    """The colours touching each Prizm, kept up to date by the state as pieces come and go
    (asked at every step, so kept ones are used and updated), match the table's."""
    js = list(range(len(s.prizms)))
    kept = s._colours_near(js)
    assert kept == [frozenset(c) for c in s._find_colours(js)], "kept Prizm colours are stale"


def check_no_overlap(s: State, phantom_turns: set[int]) -> None:
    """Lazers of different players never overlap outside the Prizm discs."""
    els = [e for e in s.elements() if e.turn not in phantom_turns or e.is_launch]
    if len(els) < 2:
        return
    polys = np.array([e.poly for e in els], dtype=object)
    tree = shapely.STRtree(polys)
    left, right = tree.query(polys, predicate="intersects")
    discs = shapely.union_all([s._disc(j) for j in range(len(s.prizms))])
    for i, j in zip(left, right, strict=True):
        if i >= j or els[i].owner == els[j].owner:
            continue
        overlap = shapely.difference(shapely.intersection(polys[i], polys[j]), discs)
        assert overlap.area < 1e-9, (
            f"seat {els[i].owner}'s {els[i]} overlaps seat {els[j].owner}'s {els[j]} "
            f"outside the Prizm discs ({overlap.area:.3g} sq in)"
        )


def play_soak_game(index: int) -> State:
    g = soak_game(*game_variant(index))
    n = g.num_players
    s = g.new_initial_state(index)
    rng = np.random.default_rng(10_000 + index)
    phantom_turns: set[int] = set()
    round_seen = s.round
    turn_seen, turn_scores = None, [0] * n
    steps = 0
    while not s.is_terminal():
        steps += 1
        if s.turn_id != turn_seen:  # a turn begins: nothing has been scored in it yet
            turn_seen, turn_scores = s.turn_id, [s.score(i) for i in range(n)]
        assert steps < 20 * g.info.max_game_length, "the game does not end"
        if s.is_chance_node():
            s.apply_chance(s.sample_chance(rng))
        else:
            acts = {}
            for seat in s.current_players():
                legal = s.legal_actions(seat)
                assert legal, f"seat {seat} has no legal action at {s.decision_kind()}"
                assert NOOP not in legal
                assert s.legal_action_ints(seat) == sorted({g.codec.encode(a) for a in legal})
                acts[seat] = legal[int(rng.integers(len(legal)))]
                if acts[seat].kind is ActionKind.PHANTOM:
                    phantom_turns.add(s.turn_id)
            s.apply_actions(acts)
        check_colours(s)
        if s.round != round_seen:
            round_seen = s.round
            check_pieces(s)
            check_prizms(s, turn_scores)
            check_no_overlap(s, phantom_turns)
    assert s.status in (Outcome.WIN, Outcome.TRUNCATED)
    assert s.round <= g.rules.round_limit
    if s.status is Outcome.WIN:
        assert s.score(s.winner) == g.rules.win_prizms
        assert math.isclose(sum(s.returns()), 0.0, abs_tol=1e-9)
    else:
        assert s.returns() == [0.0] * n
    check_pieces(s)
    check_prizms(s, turn_scores)
    # a winning score ends the game at once: the winning turn has no crash step
    check_no_overlap(s, phantom_turns | ({s.turn_id} if s.status is Outcome.WIN else set()))
    d = s.to_dict()
    assert g.state_from_dict(json.loads(json.dumps(d))).to_dict() == d
    return s


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_play_soak_keeps_invariants(chunk: int) -> None:
    for i in range(chunk, SOAK_GAMES, CHUNKS):
        play_soak_game(i)  # the invariants are asserted along the way


def test_soak_covers_every_variant() -> None:
    first = min(SOAK_GAMES, 3 * 2 * len(TABLES))
    variants = {game_variant(i)[:3] for i in range(first)}
    assert len(variants) == 3 * 2 * len(TABLES)
    assert any(game_variant(i)[3] for i in range(first))
    assert any(game_variant(i)[2:] == ("long", True) for i in range(first))  # square_edge
