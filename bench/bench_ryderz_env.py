"""Throughput of the Lazer Ryderz envs, side by side with PettingZoo's classic envs.

Measurements 1-4, each for ``--seconds`` of wall-clock time, in one process run, interleaved:
``--slices`` rounds in which each env plays its share in turn (each goes on with the game it
left), after half a second of unmeasured warm-up each, so that a machine whose speed drifts
during the run (a shared machine's other loads) slows them alike and the ratios hold. Every
player
picks a uniformly random legal action of its action mode (``adapter.random_env_action`` on
the observation's mask: in the default ``hybrid`` mode a random legal discrete part and a
Launch Point position drawn uniformly in [-1, 1]).

1. **ryderz vector**: ``ryderz_env.env()`` (the standard four-player game, ``obs_mode=
   "vector"``, PettingZoo's call-order wrapper on) played the standard AEC way:
   ``env.agent_iter()``, ``env.last()``, ``env.step``. A *step* is one ``env.step`` with an
   action; the ``None`` steps of finished agents are timed but not counted.
2. **ryderz image**: the same with ``obs_mode="image"``.
3. **ryderz discrete**: the same with ``action_mode="discrete"`` (vector observations; the
   mode ``make train GAME=ryderz`` uses).
4. **connect_four_v3** and **chess_v6** (skipped, with a note, when the ``chess`` package is
   not installed): the same loop over ``observation["action_mask"]``.
5. **split**: one more vector-mode run with timers around the vector encoder, reported as
   microseconds per step: the encoder, everything else (engine, env, wrapper, loop), and the
   rays (the encoder casts them in its own compiled call, ``raycast.cast``; they are cast once
   more on their own after each encoding and timed there). The timers cost a little; the
   split is for proportions.

All envs are reset with seeds ``--seed``, ``--seed + 1``, ... and the random choices come from
``numpy.random.default_rng(--seed)``. Targets (from the issue): vector-mode steps/s at least
0.3x connect_four_v3's and 3x chess_v6's, ratios measured on the same machine in the same run.

Usage: ``python bench/bench_ryderz_env.py [--seconds 10] [--slices 20] [--seed 0]
[--json out.json]``
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from common import (  # noqa: E402
    AecRunner,
    Result,
    bench_aec,
    bench_interleaved,
    chess_env_factory,
    connect_four_env,
    header,
    parser,
    verdict,
    write_results,
)

import ryderz_env  # noqa: E402

C4_TARGET = 0.3  # vector-mode steps/s over connect_four_v3's, at least
CHESS_TARGET = 3.0  # vector-mode steps/s over chess_v6's, at least


def ryderz(**options: Any) -> tuple[Callable[[], Any], Callable[[Any, np.random.Generator], Any]]:
    """An env factory and its random-action picker for ``AecRunner`` / ``bench_aec``."""
    probe = ryderz_env.env(**options)
    adapter = probe.unwrapped.adapter
    key = adapter.mask_key

    def pick(observation: Any, rng: np.random.Generator) -> Any:
        return adapter.random_env_action(observation[key], rng)

    return (lambda: probe), pick


def split(seconds: float, seed: int) -> dict[str, float]:
    """Microseconds per vector-mode step: the encoder, and within it the rays, the rest.

    The rays are timed by casting them once more, on their own, right after each encoding
    (that second cast is not counted in the step time)."""
    make, pick = ryderz()
    env = make()
    vector = env.unwrapped.adapter.vector
    encode, rays = vector.encode, vector.rays
    spent = {"encode": 0.0, "rays": 0.0, "calls": 0}

    def timed_encode(state: Any, seat: int) -> Any:
        t0 = time.perf_counter()
        vec = encode(state, seat)
        t1 = time.perf_counter()
        rays(state, seat)
        spent["rays"] += time.perf_counter() - t1
        spent["encode"] += t1 - t0
        spent["calls"] += 1
        return vec

    vector.encode = timed_encode  # an instance attribute shadows the method
    try:
        res = bench_aec(make, seconds, seed, pick)
    finally:
        del vector.encode
    per = 1e6 / max(res.steps, 1)
    step_s = res.seconds - spent["rays"]
    return {
        "steps": res.steps,
        "encodes_per_step": spent["calls"] / max(res.steps, 1),
        "us_per_step": step_s * per,
        "encoder_us": spent["encode"] * per,
        "rays_us": spent["rays"] * per,
        "rest_us": (step_s - spent["encode"]) * per,
    }


def show(name: str, res: Result) -> None:
    """Print one measurement on one line."""
    print(
        f"{name:17}: {res.steps_per_s:10,.0f} steps/s {res.games_per_s:8,.2f} games/s  "
        f"({res.steps:,} steps, {res.games} games)"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the measurements, print them, optionally write JSON; returns the results."""
    ap = parser(__doc__, "wall time per measurement")
    ap.add_argument(
        "--slices",
        type=int,
        default=20,
        help="interleave the envs' measurements in this many rounds",
    )
    args = ap.parse_args(argv)
    header(args, "measurement")
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "seconds": args.seconds,
        "seed": args.seed,
    }
    runners = {}
    for name, options in (
        ("ryderz vector", {}),
        ("ryderz image", {"obs_mode": "image"}),
        ("ryderz discrete", {"action_mode": "discrete"}),
    ):
        make, pick = ryderz(**options)
        runners[name] = AecRunner(make, args.seed, pick)
    runners["connect_four_v3"] = AecRunner(connect_four_env, args.seed)
    chess_env = chess_env_factory()
    if chess_env is not None:
        runners["chess_v6"] = AecRunner(chess_env, args.seed)
    measured = bench_interleaved(runners, args.seconds, args.slices)
    for name, res in measured.items():
        show(name, res)
        results[name.replace(" ", "_")] = asdict(res)
    if chess_env is None:
        print(
            "chess_v6         : skipped: the 'chess' package is not installed (pip install chess)"
        )
        results["chess_v6"] = None
    c4, ch = measured["connect_four_v3"], measured.get("chess_v6")
    sp = split(args.seconds, args.seed)
    print(
        f"vector step split: {sp['us_per_step']:.0f} us = encoder {sp['encoder_us']:.0f} "
        f"+ engine/env/loop {sp['rest_us']:.0f} ({sp['encodes_per_step']:.2f} encodings a "
        f"step; timers on); the rays cast on their own: {sp['rays_us']:.0f} us a step"
    )
    results["split"] = sp

    vec = results["ryderz_vector"]["steps_per_s"]
    ratios = {
        "vector_over_connect_four": vec / c4.steps_per_s,
        "image_over_connect_four": results["ryderz_image"]["steps_per_s"] / c4.steps_per_s,
        "vector_over_chess": None if ch is None else vec / ch.steps_per_s,
    }
    ok_c4 = ratios["vector_over_connect_four"] >= C4_TARGET
    print(
        f"vector/connect_four: {ratios['vector_over_connect_four']:.2f}x  (target >= "
        f"{C4_TARGET:g}x: {verdict(ok_c4)})"
    )
    ok_chess = None
    if ch is not None:
        ok_chess = ratios["vector_over_chess"] >= CHESS_TARGET
        print(
            f"vector/chess:        {ratios['vector_over_chess']:.2f}x  (target >= "
            f"{CHESS_TARGET:g}x: {verdict(ok_chess)})"
        )
    print(f"image/connect_four:  {ratios['image_over_connect_four']:.2f}x  (no target)")
    results.update(
        {
            "ratios": ratios,
            "targets": {
                "vector_over_connect_four_min": C4_TARGET,
                "vector_over_chess_min": CHESS_TARGET,
                "connect_four_ok": ok_c4,
                "chess_ok": ok_chess,
            },
        }
    )
    return write_results(args.json, results)


if __name__ == "__main__":
    main()
