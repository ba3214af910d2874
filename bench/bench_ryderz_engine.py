"""Throughput of the Lazer Ryderz engine, side by side with PettingZoo's ``connect_four_v3``
and ``chess_v6``.

Four measurements in one process run (the first three for ``--seconds`` of wall time each):

1. **engine**: seeded random games of the standard four-player ``ryderz_env.rules.Game()``.
   Chance events are sampled with ``tabletop.protocol.play_chance`` and a seeded
   ``numpy.random.default_rng``; every deciding seat picks a uniformly random legal action
   from ``state.legal_actions(seat)``. A *decision* is one ``state.apply_actions`` call (one
   call covers all seats at Start Your Engines). Reported: decisions/s, chance events/s,
   games/s.
2. **connect_four**: ``pettingzoo.classic.connect_four_v3.env()`` played the standard AEC way
   with uniformly random actions from ``observation["action_mask"]`` (the loop of
   ``bench_lunatix_env.py``). A *step* is one ``env.step`` with a move.
3. **chess**: ``pettingzoo.classic.chess_v6.env()``, the same loop (skipped, with a note, when
   the ``chess`` package is not installed).
4. **placement**: the cost of one placement with few and with many pieces on the table. States
   at a MOVE decision with ``--few`` (5) and ``--many`` (60) pieces on the table (Launch Points
   not counted) come from seeded games of a four-player game on ``--placement-table`` (the
   72-inch ``large`` table by default: random play on the 36-inch table never gets 60 pieces
   down, it crashes long before) in which every MOVE takes the legal action that leaves the
   most pieces on the table (each tried on a clone, chance drawn from the game's rng), every
   other decision a random one. At each such state, for every legal MOVE action and, when it
   is a curve attempt, every die face: ``clone()``, ``apply_actions`` and ``apply_chance`` of
   the face (the machine runs on to the next decision, as in play), timed ``--repeats`` times.
   Reported: the mean over (action, face) pairs and states, and ``clone()`` alone.

Targets (from the issue): engine decisions/s >= 0.5x connect_four steps/s and >= 5x chess
steps/s; a placement with ``--many`` pieces about as costly as one with ``--few`` (reported,
not judged). All are ratios measured on the same machine in the same run.

Usage: ``python bench/bench_ryderz_engine.py [--seconds 10] [--seed 0] [--json out.json]``
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from common import (  # noqa: E402
    bench_engine,
    bench_openspiel,
    bench_pz,
    chess_env_factory,
    connect_four_env,
    engine_line,
    header,
    openspiel_report,
    parser,
    random_legal_actions,
    verdict,
    write_results,
)

from ryderz_env.rules import ChanceKind, DecisionKind, Game, State  # noqa: E402
from tabletop.protocol import play_chance  # noqa: E402

C4_TARGET_RATIO = 0.5  # engine decisions/s over connect_four steps/s, at least
CHESS_TARGET_RATIO = 5.0  # engine decisions/s over chess steps/s, at least


@dataclass
class PlacementResult:
    """Cost of one MOVE decision and its die roll at states with ``pieces`` on the table."""

    pieces: int  # pieces on the table (Launch Points not counted), the least over the states
    states: int
    pairs: int  # (action, die face) pairs timed over all states
    repeats: int
    mean_us: float  # clone + apply_actions + apply_chance, mean over pairs
    median_us: float
    p95_us: float
    clone_us: float  # clone() alone, mean over states
    rounds: list[int]  # the round of each state


def pieces_down(state: State) -> int:
    """Pieces on the table (Launch Points not counted)."""
    return sum(1 for p in state.players for e in p.lazer if not e.is_launch)


def grow_to(game: Game, seed: int, pieces: int) -> State | None:
    """A state at a MOVE decision with at least ``pieces`` on the table, from a seeded game
    whose MOVEs keep the most pieces down (see the module doc); None if the game ends first."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            play_chance(state, rng)
            continue
        if state.decision_kind() is not DecisionKind.MOVE:
            state.apply_actions(random_legal_actions(state, rng))
            continue
        if pieces_down(state) >= pieces:
            return state
        (seat,) = state.current_players()
        best, best_n = None, -1
        for a in state.legal_actions(seat):
            trial = state.clone()
            trial.apply_actions({seat: a})
            while trial.is_chance_node():
                play_chance(trial, rng)
            if pieces_down(trial) > best_n:
                best, best_n = trial, pieces_down(trial)
        state = best
    return None


def placement_states(game: Game, pieces: int, count: int, seed: int) -> list[State]:
    """``count`` states with at least ``pieces`` down, from seeds ``seed``, ``seed + 1``..."""
    out: list[State] = []
    s = seed
    while len(out) < count and s < seed + 20 * count:
        st = grow_to(game, s, pieces)
        if st is not None:
            out.append(st)
        s += 1
    if not out:
        raise RuntimeError(f"no seeded game got {pieces} pieces down on {game.table.name}")
    return out


def bench_placement(states: list[State], repeats: int) -> PlacementResult:
    """Time clone + MOVE + die roll for every legal MOVE and die face at each state."""
    faces = sorted(set(states[0].game.rules.die_faces))
    per_pair: list[float] = []
    clone_us: list[float] = []
    for state in states:
        (seat,) = state.current_players()
        t0 = time.perf_counter()
        for _ in range(repeats):
            state.clone()
        clone_us.append(1e6 * (time.perf_counter() - t0) / repeats)
        for a in state.legal_actions(seat):
            probe = state.clone()
            probe.apply_actions({seat: a})
            rolls = faces if probe.chance_kind() is ChanceKind.DIE else [None]
            for face in rolls:
                t0 = time.perf_counter()
                for _ in range(repeats):
                    s = state.clone()
                    s.apply_actions({seat: a})
                    if face is not None:
                        s.apply_chance(face)
                per_pair.append(1e6 * (time.perf_counter() - t0) / repeats)
    return PlacementResult(
        pieces=min(pieces_down(s) for s in states),
        states=len(states),
        pairs=len(per_pair),
        repeats=repeats,
        mean_us=statistics.fmean(per_pair),
        median_us=statistics.median(per_pair),
        p95_us=float(np.percentile(per_pair, 95)),
        clone_us=statistics.fmean(clone_us),
        rounds=[s.round for s in states],
    )


def main(argv: list[str] | None = None) -> dict:
    """Run the measurements, print them, optionally write JSON; returns the results."""
    ap = parser(__doc__, "wall time per throughput run")
    ap.add_argument(
        "--openspiel-seconds",
        type=float,
        default=3.0,
        help="wall time per OpenSpiel game (skipped without open_spiel)",
    )
    ap.add_argument("--few", type=int, default=5, help="pieces down, the small placement case")
    ap.add_argument("--many", type=int, default=60, help="pieces down, the large case")
    ap.add_argument("--placement-table", default="large", help="table of the placement states")
    ap.add_argument("--placement-states", type=int, default=3, help="states per case")
    ap.add_argument("--repeats", type=int, default=20, help="timings per (action, face) pair")
    args = ap.parse_args(argv)

    game = Game()
    header(args, "throughput run")

    eng = bench_engine(game, args.seconds, args.seed)
    print(engine_line("ryderz engine", eng))

    c4 = bench_pz(connect_four_env, args.seconds, args.seed)
    print(
        f"connect_four_v3: {c4.steps_per_s:10,.0f} steps/s      "
        f"{'':10}           {c4.games_per_s:8,.1f} games/s  "
        f"({c4.steps:,} steps, {c4.games} games)"
    )
    chess_env = chess_env_factory()
    ch = None
    if chess_env is None:
        print("chess_v6       : skipped: the 'chess' package is not installed (pip install chess)")
    else:
        ch = bench_pz(chess_env, args.seconds, args.seed)
        print(
            f"chess_v6       : {ch.steps_per_s:10,.0f} steps/s      "
            f"{'':10}           {ch.games_per_s:8,.1f} games/s  "
            f"({ch.steps:,} steps, {ch.games} games)"
        )

    c4_ratio = eng.decisions_per_s / c4.steps_per_s
    print(
        f"engine/connect_four: {c4_ratio:.2f}x  (target >= {C4_TARGET_RATIO:g}x: "
        f"{verdict(c4_ratio >= C4_TARGET_RATIO)})"
    )
    chess_ratio = None if ch is None else eng.decisions_per_s / ch.steps_per_s
    if chess_ratio is not None:
        print(
            f"engine/chess       : {chess_ratio:.2f}x  (target >= {CHESS_TARGET_RATIO:g}x: "
            f"{verdict(chess_ratio >= CHESS_TARGET_RATIO)})"
        )
    spiel = bench_openspiel(args.openspiel_seconds, args.seed)
    spiel_ratios = openspiel_report(eng, spiel, "engine")

    pgame = Game(table=args.placement_table)
    placement = {}
    for label, n in (("few", args.few), ("many", args.many)):
        states = placement_states(pgame, n, args.placement_states, args.seed)
        pl = bench_placement(states, args.repeats)
        placement[label] = pl
        print(
            f"placement, {pl.pieces:3d}+ pieces ({args.placement_table} table): "
            f"mean {pl.mean_us:8.1f} us, median {pl.median_us:8.1f} us, "
            f"p95 {pl.p95_us:8.1f} us over {pl.pairs} (action, face) pairs in "
            f"{pl.states} states; clone alone {pl.clone_us:.1f} us"
        )
    many_over_few = placement["many"].mean_us / placement["few"].mean_us
    print(f"placement {args.many} / {args.few} pieces: {many_over_few:.2f}x")

    results = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds": args.seconds,
        "seed": args.seed,
        "engine": asdict(eng),
        "openspiel": None if spiel is None else {k: asdict(v) for k, v in spiel.items()},
        "engine_over_openspiel": spiel_ratios,
        "connect_four_v3": asdict(c4),
        "chess_v6": None if ch is None else asdict(ch),
        "engine_over_connect_four": c4_ratio,
        "engine_over_chess": chess_ratio,
        "placement_table": args.placement_table,
        "placement": {k: asdict(v) for k, v in placement.items()},
        "placement_many_over_few": many_over_few,
        "targets": {
            "engine_over_connect_four_min": C4_TARGET_RATIO,
            "engine_over_chess_min": CHESS_TARGET_RATIO,
            "connect_four_ok": c4_ratio >= C4_TARGET_RATIO,
            "chess_ok": None if chess_ratio is None else chess_ratio >= CHESS_TARGET_RATIO,
        },
    }
    return write_results(args.json, results)


if __name__ == "__main__":
    main()
