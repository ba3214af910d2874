"""Throughput of the Lunatix Loop engine, side by side with PettingZoo's ``connect_four_v3``.

Three measurements, each for ``--seconds`` of wall-clock time, in one process run:

1. **engine**: seeded random games of the standard four-player ``lunatix_env.rules.Game()``.
   Chance events are sampled with ``tabletop.protocol.play_chance`` and a seeded
   ``numpy.random.default_rng``; every deciding seat picks a uniformly random legal action
   from ``state.legal_actions(seat)``. A *decision* is one ``state.apply_actions`` call (one
   call covers all seats at a simultaneous node). Reported: decisions/s, chance events/s,
   games/s.
2. **connect_four**: ``pettingzoo.classic.connect_four_v3.env()`` played the standard AEC way
   (``env.agent_iter()``, ``env.last()``, ``env.step``) with uniformly random actions from
   ``observation["action_mask"]``. A *step* is one ``env.step`` with a move (the ``None``
   steps of finished agents are timed but not counted). Reported: steps/s, games/s.
3. **clone**: at every decision point of further seeded random games, the mean time of
   ``state.clone()`` (over ``--clone-repeats`` calls). Its mean is divided by the mean time of
   one engine decision from (1), chance events between decisions included.

Targets (from the issue): engine decisions/s >= 5x connect_four steps/s; a clone costs < 5
decisions. Both are ratios measured on the same machine in the same run.

Usage: ``python bench/bench_lunatix_engine.py [--seconds 10] [--seed 0] [--json out.json]``
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
    connect_four_env,
    engine_line,
    header,
    openspiel_report,
    parser,
    random_legal_actions,
    verdict,
    write_results,
)

from lunatix_env.rules import Game  # noqa: E402
from tabletop.protocol import play_chance  # noqa: E402

ENGINE_TARGET_RATIO = 5.0  # engine decisions/s over connect_four steps/s, at least
CLONE_TARGET_DECISIONS = 5.0  # clone time in mean decision times, less than


@dataclass
class CloneResult:
    """Cost of ``State.clone()`` at random mid-game states."""

    states: int  # decision points sampled
    repeats: int  # clones timed per state
    mean_us: float
    median_us: float
    p95_us: float
    decisions: float  # mean clone time / mean decision time


def bench_clone(
    game: Game, seconds: float, seed: int, repeats: int, us_per_decision: float
) -> CloneResult:
    """Time ``state.clone()`` at every decision point of random games for ``seconds``.

    Each sampled state is cloned ``repeats`` times in a row (the per-state mean is kept, so
    the timer's resolution does not matter); the random games go on from the original state.
    """
    rng = np.random.default_rng(seed)
    per_state_us: list[float] = []
    game_seed = seed
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and time.perf_counter() < deadline:
            if state.is_chance_node():
                play_chance(state, rng)
                continue
            t0 = time.perf_counter()
            for _ in range(repeats):
                state.clone()
            per_state_us.append(1e6 * (time.perf_counter() - t0) / repeats)
            state.apply_actions(random_legal_actions(state, rng))
    mean_us = statistics.fmean(per_state_us)
    return CloneResult(
        states=len(per_state_us),
        repeats=repeats,
        mean_us=mean_us,
        median_us=statistics.median(per_state_us),
        p95_us=float(np.percentile(per_state_us, 95)),
        decisions=mean_us / us_per_decision,
    )


def main(argv: list[str] | None = None) -> dict:
    """Run the three measurements, print them, optionally write JSON; returns the results."""
    ap = parser(__doc__, "wall time per measurement")
    ap.add_argument(
        "--openspiel-seconds",
        type=float,
        default=3.0,
        help="wall time per OpenSpiel game (skipped without open_spiel)",
    )
    ap.add_argument("--clone-repeats", type=int, default=20, help="clones timed per state")
    args = ap.parse_args(argv)

    game = Game()
    header(args, "measurement")

    eng = bench_engine(game, args.seconds, args.seed)
    print(engine_line("lunatix engine", eng))

    c4 = bench_pz(connect_four_env, args.seconds, args.seed)
    print(
        f"connect_four_v3: {c4.steps_per_s:10,.0f} steps/s      "
        f"{'':10}           {c4.games_per_s:8,.1f} games/s  "
        f"({c4.steps:,} steps, {c4.games} games)"
    )

    ratio = eng.decisions_per_s / c4.steps_per_s
    print(
        f"engine/connect_four: {ratio:.2f}x  (target >= {ENGINE_TARGET_RATIO:g}x: "
        f"{verdict(ratio >= ENGINE_TARGET_RATIO)})"
    )
    spiel = bench_openspiel(args.openspiel_seconds, args.seed)
    spiel_ratios = openspiel_report(eng, spiel, "engine")

    cl = bench_clone(game, args.seconds, args.seed, args.clone_repeats, eng.us_per_decision)
    print(
        f"clone: mean {cl.mean_us:.2f} us, median {cl.median_us:.2f} us, "
        f"p95 {cl.p95_us:.2f} us over {cl.states:,} states; "
        f"one decision {eng.us_per_decision:.2f} us"
    )
    print(
        f"clone costs {cl.decisions:.2f} decisions  (target < {CLONE_TARGET_DECISIONS:g}: "
        f"{verdict(cl.decisions < CLONE_TARGET_DECISIONS)})"
    )

    results = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds": args.seconds,
        "seed": args.seed,
        "engine": asdict(eng),
        "openspiel": None if spiel is None else {k: asdict(v) for k, v in spiel.items()},
        "engine_over_openspiel": spiel_ratios,
        "connect_four_v3": asdict(c4),
        "engine_over_connect_four": ratio,
        "clone": asdict(cl),
        "targets": {
            "engine_over_connect_four_min": ENGINE_TARGET_RATIO,
            "clone_decisions_max": CLONE_TARGET_DECISIONS,
            "engine_ok": ratio >= ENGINE_TARGET_RATIO,
            "clone_ok": cl.decisions < CLONE_TARGET_DECISIONS,
        },
    }
    return write_results(args.json, results)


if __name__ == "__main__":
    main()
