"""Throughput of the Lunatix Loop envs, side by side with PettingZoo's classic envs.

Five measurements, each for ``--seconds`` of wall-clock time, in one process run. Every
player picks a uniformly random action among those its action mask allows.

1. **lunatix_aec**: ``lunatix_env.env()`` (PettingZoo's standard wrappers on) played the
   standard AEC way: ``env.agent_iter()``, ``env.last()``, ``env.step``. A *step* is one
   ``env.step`` with an action; the ``None`` steps of finished agents are timed but not
   counted.
2. **connect_four_v3**: ``pettingzoo.classic.connect_four_v3.env()``, the same loop.
3. **chess_v6**: ``pettingzoo.classic.chess_v6.env()``, the same loop (skipped, with a note,
   when the ``chess`` package is not installed).
4. **lunatix_parallel**: ``lunatix_env.parallel_env()``; a *step* is one ``env.step`` call
   (one decision layer). Every live agent sends an action drawn from its mask (NOOP for the
   seats that are not deciding); the deciders' actions are counted as well.
5. **lunatix_single**: ``lunatix_env.single_agent_env()`` (seat 0 learns, random bots play
   the other seats, ``auto_play`` on as by default there); a *step* is one gymnasium
   ``env.step`` of the learner, its action drawn from ``env.action_masks()``. The bots'
   decisions between two learner steps are part of the step's time.

All envs are reset with seeds ``--seed``, ``--seed + 1``, ... and the random choices come
from ``numpy.random.default_rng(--seed)``. Games cut off by the deadline count towards steps
but not games. Target (from the issue): Lunatix AEC steps/s >= 1.5x connect_four steps/s,
a ratio measured on the same machine in the same run.

Usage: ``python bench/bench_lunatix_env.py [--seconds 10] [--seed 0] [--json out.json]``
"""

from __future__ import annotations

import platform
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from common import (  # noqa: E402
    Result,
    bench_aec,
    chess_env_factory,
    connect_four_env,
    header,
    make_result,
    parser,
    random_masked,
    verdict,
    write_results,
)

import lunatix_env  # noqa: E402

AEC_TARGET_RATIO = 1.5  # Lunatix AEC steps/s over connect_four steps/s, at least


def bench_parallel(seconds: float, seed: int) -> Result:
    """Play random masked games of ``lunatix_env.parallel_env()`` for ``seconds``."""
    rng = np.random.default_rng(seed)
    env = lunatix_env.parallel_env()
    steps = actions = games = 0
    game_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        observations, _infos = env.reset(seed=game_seed)
        game_seed += 1
        while env.agents:
            chosen = {a: random_masked(observations[a]["action_mask"], rng) for a in env.agents}
            observations, _rewards, _terms, _truncs, _infos = env.step(chosen)
            steps += 1
            actions += sum(1 for a in chosen.values() if a != 0)  # NOOP is never legal to deciders
            now = time.perf_counter()
            if now >= deadline:
                break
        games += not env.agents
        now = time.perf_counter()
    env.close()
    return make_result(now - start, steps, games, actions)


def bench_single(seconds: float, seed: int) -> Result:
    """Play random masked games of ``lunatix_env.single_agent_env()`` for ``seconds``."""
    rng = np.random.default_rng(seed)
    env = lunatix_env.single_agent_env()
    steps = games = 0
    game_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        env.reset(seed=game_seed)
        game_seed += 1
        done = False
        while not done:
            _obs, _reward, terminated, truncated, _info = env.step(
                random_masked(env.action_masks(), rng)
            )
            done = terminated or truncated
            steps += 1
            now = time.perf_counter()
            if now >= deadline:
                break
        games += done
        now = time.perf_counter()
    env.close()
    return make_result(now - start, steps, games)


def show(name: str, res: Result, unit: str = "steps/s") -> None:
    """Print one measurement on one line."""
    extra = (
        f", {res.actions:,} deciders' actions = {res.actions_per_s:,.0f}/s"
        if res.actions != res.steps
        else ""
    )
    print(
        f"{name:17}: {res.steps_per_s:10,.0f} {unit:14} {res.games_per_s:8,.2f} games/s  "
        f"({res.steps:,} steps, {res.games} games{extra})"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the measurements, print them, optionally write JSON; returns the results."""
    ap = parser(__doc__, "wall time per measurement")
    args = ap.parse_args(argv)

    header(args, "measurement")
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds": args.seconds,
        "seed": args.seed,
    }

    lx = bench_aec(lunatix_env.env, args.seconds, args.seed)
    show("lunatix AEC", lx)
    c4 = bench_aec(connect_four_env, args.seconds, args.seed)
    show("connect_four_v3", c4)
    chess_env = chess_env_factory()
    if chess_env is None:
        print(
            "chess_v6         : skipped: the 'chess' package is not installed (pip install chess)"
        )
        results["chess_v6"] = None
    else:
        ch = bench_aec(chess_env, args.seconds, args.seed)
        show("chess_v6", ch)
        results["chess_v6"] = asdict(ch)
    par = bench_parallel(args.seconds, args.seed)
    show("lunatix parallel", par, "step calls/s")
    single = bench_single(args.seconds, args.seed)
    show("lunatix single", single, "learner steps/s")

    ratio = lx.steps_per_s / c4.steps_per_s
    ok = ratio >= AEC_TARGET_RATIO
    print(
        f"lunatix AEC/connect_four: {ratio:.2f}x  (target >= {AEC_TARGET_RATIO:g}x: {verdict(ok)})"
    )

    results.update(
        {
            "lunatix_aec": asdict(lx),
            "connect_four_v3": asdict(c4),
            "lunatix_parallel": asdict(par),
            "lunatix_single": asdict(single),
            "lunatix_aec_over_connect_four": ratio,
            "targets": {"lunatix_aec_over_connect_four_min": AEC_TARGET_RATIO, "aec_ok": ok},
        }
    )
    return write_results(args.json, results)


if __name__ == "__main__":
    main()
