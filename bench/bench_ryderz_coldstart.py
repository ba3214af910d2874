"""The cold start of Lazer Ryderz: the first env step of a new process whose numba cache is
empty, against the same with a warm cache.

Every measurement is a fresh interpreter (``sys.executable -c ...``, started in an empty
temporary directory, this checkout first on ``sys.path``) with ``NUMBA_CACHE_DIR`` set:

- **cold**: a new, empty directory; every compiled kernel the process calls is compiled;
- **warm**: a directory a previous (unmeasured) run filled; every kernel is loaded from it.

With ``NUMBA_CACHE_DIR`` set numba reads and writes its cache there only, never in the
``__pycache__`` folders beside the sources (their ``.nbi``/``.nbc`` files are not looked at);
each run checks that, from the dispatchers' own counts: a cold run must have had no cache hit
(and must have written its kernels under its directory), a warm run no compile.

Each process times, from its first line: ``import ryderz_env``, building
``ryderz_env.env(num_players=--num-players)``, ``reset(seed=--seed)`` and the first step
(``env.last()``, which encodes the first observation, and ``env.step`` with a random legal
action); then the rest of the first game (random legal actions, no target). Reported: the
medians over ``--repeats`` cold and warm runs, interleaved (cold, warm, warm, cold, ...), of
(a) the whole first step (import + env + reset + step) and (b) the first step alone, their
cold/warm ratios, and how long each kernel took to compile in the cold runs (numba's
``numba:compile`` events, outermost only).

Target (from the issue): (a) cold within 3x of warm.

``--against DIR`` measures another checkout of the project (a copy of it from before a
change) the same way, interleaved with this one, and then compares the two in the steady
state: ``--steady-rounds`` rounds in which each checkout, in a fresh process with a warm cache,
plays random games of the default ``ryderz_env.env()`` (four players, vector observations)
for ``--seconds`` after one unmeasured second; reported: the median steps/s of each and
their ratio this/against.

Usage: ``python bench/bench_ryderz_coldstart.py [--repeats 3] [--num-players 2] [--seed 0]
[--against DIR] [--seconds 3] [--steady-rounds 5] [--json out.json]``
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from common import header, parser, verdict, write_results  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RATIO_TARGET = 3.0  # cold first step (import + env + reset + step) over warm, at most

#: one measured process: argv[1] = checkout, argv[2] = JSON options; prints one JSON line
FIRST_STEP = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
sys.path.insert(0, sys.argv[1])
opts = json.loads(sys.argv[2])
from numba.core import event  # (ryderz_env imports numba anyway)

class Compiles(event.Listener):
    # seconds per kernel compiled, outermost compiles only (a kernel's own nested ones in it)
    def __init__(self):
        self.depth, self.start, self.seconds = 0, 0.0, {}

    def on_start(self, ev):
        if self.depth == 0:
            self.start = time.perf_counter()
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            f = ev.data["dispatcher"].py_func
            name = f"{f.__module__}.{f.__qualname__}"
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - self.start

compiles = Compiles()
event.register("numba:compile", compiles)
import ryderz_env
t1 = time.perf_counter()
env = ryderz_env.env(num_players=opts["num_players"])
t2 = time.perf_counter()
env.reset(seed=opts["seed"])
t3 = time.perf_counter()
import numpy as np
adapter = env.unwrapped.adapter
rng = np.random.default_rng(opts["seed"])
first = None
steps = 0
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    env.step(None if term or trunc else adapter.random_env_action(obs[adapter.mask_key], rng))
    steps += 1
    if first is None:
        t4, c4 = time.perf_counter(), time.process_time()
        first = t4 - t3
t5 = time.perf_counter()

import numba
from numba.core.registry import CPUDispatcher
hits = misses = 0
paths = set()
for name, mod in list(sys.modules.items()):
    if not name.startswith("ryderz_env"):
        continue
    for obj in vars(mod).values():
        if isinstance(obj, CPUDispatcher) and obj._cache is not None:
            st = obj.stats
            hits += sum(st.cache_hits.values())
            misses += sum(st.cache_misses.values())
            if st.cache_hits or st.cache_misses:
                paths.add(st.cache_path)
print(json.dumps({
    "import_s": t1 - t0, "env_s": t2 - t1, "reset_s": t3 - t2, "first_step_s": first,
    "total_s": t3 - t0 + first, "total_cpu_s": c4 - c0, "rest_of_game_s": t5 - t4,
    "game_steps": steps,
    "compile_s": compiles.seconds, "cache_hits": hits, "cache_misses": misses,
    "cache_paths": sorted(paths), "module": ryderz_env.__file__,
    "numba": numba.__version__}))
"""

#: one steady-state process: argv[1] = checkout, argv[2] = JSON options; prints one JSON line
STEADY = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
opts = json.loads(sys.argv[2])
import numpy as np
import ryderz_env
env = ryderz_env.env()
adapter = env.unwrapped.adapter
rng = np.random.default_rng(opts["seed"])
game_seed = opts["seed"]

def play(seconds):
    global game_seed
    steps = 0
    start = now = time.perf_counter()
    while now < start + seconds:
        env.reset(seed=game_seed)
        game_seed += 1
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(adapter.random_env_action(obs[adapter.mask_key], rng))
            steps += 1
            now = time.perf_counter()
            if now >= start + seconds:
                break
    return steps, time.perf_counter() - start

play(1.0)
steps, seconds = play(opts["seconds"])
print(json.dumps({"steps": steps, "seconds": seconds, "steps_per_s": steps / seconds,
                  "module": ryderz_env.__file__}))
"""


def run_child(code: str, checkout: Path, cache_dir: Path, opts: dict[str, Any]) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache_dir``, in an empty
    working directory; its last line of output, parsed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix="ryderz_cwd_") as cwd:
        res = subprocess.run(
            [sys.executable, "-c", code, str(checkout), json.dumps(opts)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=900,
        )
    if res.returncode != 0:
        raise RuntimeError(f"the measured process failed:\n{res.stderr}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not Path(out["module"]).resolve().is_relative_to(checkout.resolve()):
        raise RuntimeError(f"imported {out['module']}, not the checkout {checkout}")
    return out


def cache_files(cache_dir: Path) -> list[Path]:
    """numba's cache files (index and data) under ``cache_dir``."""
    return sorted(p for p in cache_dir.rglob("*") if p.suffix in (".nbi", ".nbc"))


def check_run(run: dict[str, Any], cache_dir: Path, cold: bool) -> None:
    """Raise unless the run used its cache directory as it should: a cold run no cache hit and
    its kernels written under ``cache_dir``, a warm run no compile."""
    inside = all(Path(p).resolve().is_relative_to(cache_dir.resolve()) for p in run["cache_paths"])
    if not inside:
        raise RuntimeError(f"numba used a cache outside {cache_dir}: {run['cache_paths']}")
    if cold and (run["cache_hits"] or not run["cache_misses"] or not cache_files(cache_dir)):
        raise RuntimeError(
            f"the cold run was not cold: {run['cache_hits']} cache hits, "
            f"{run['cache_misses']} misses"
        )
    if not cold and (run["cache_misses"] or run["compile_s"]):
        raise RuntimeError(
            f"the warm run compiled: {run['cache_misses']} cache misses, {sorted(run['compile_s'])}"
        )


def measure_first_steps(
    checkouts: dict[str, Path], repeats: int, opts: dict[str, Any]
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Per checkout, ``repeats`` cold and warm runs, interleaved over checkouts and kinds."""
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        name: {"cold": [], "warm": []} for name in checkouts
    }
    with tempfile.TemporaryDirectory(prefix="ryderz_numba_") as tmp:
        warm_dirs = {}
        for name, checkout in checkouts.items():  # fill the warm caches (not measured)
            warm_dirs[name] = Path(tmp) / f"warm_{name}"
            warm_dirs[name].mkdir()
            run_child(FIRST_STEP, checkout, warm_dirs[name], opts)
        for r in range(repeats):
            kinds = ("cold", "warm") if r % 2 == 0 else ("warm", "cold")
            for name, checkout in checkouts.items():
                for kind in kinds:
                    if kind == "cold":
                        cache_dir = Path(tmp) / f"cold_{name}_{r}"
                        cache_dir.mkdir()
                    else:
                        cache_dir = warm_dirs[name]
                    run = run_child(FIRST_STEP, checkout, cache_dir, opts)
                    check_run(run, cache_dir, kind == "cold")
                    if kind == "cold":
                        run["cache_files"] = len(cache_files(cache_dir))
                        shutil.rmtree(cache_dir)
                    runs[name][kind].append(run)
                    print(
                        f"  {name:8} {kind}: first step {run['total_s']:6.2f} s "
                        f"(of it the step {run['first_step_s']:5.2f} s)",
                        flush=True,
                    )
    return runs


def median(runs: list[dict[str, Any]], key: str) -> float:
    """The median of ``key`` over ``runs``."""
    return statistics.median(r[key] for r in runs)


def summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians and ratios of one checkout's cold and warm runs."""
    cold, warm = runs["cold"], runs["warm"]
    out: dict[str, Any] = {}
    for key in (
        "total_s",
        "total_cpu_s",
        "first_step_s",
        "import_s",
        "env_s",
        "reset_s",
        "rest_of_game_s",
    ):
        out[key] = {"cold": median(cold, key), "warm": median(warm, key)}
        out[key]["ratio"] = out[key]["cold"] / out[key]["warm"]
    names = sorted({n for r in cold for n in r["compile_s"]})
    out["compile_s"] = {
        n: statistics.median(r["compile_s"].get(n, 0.0) for r in cold) for n in names
    }
    out["cache_files"] = statistics.median(r["cache_files"] for r in cold)
    out["ok"] = out["total_s"]["ratio"] <= RATIO_TARGET
    return out


def report(name: str, s: dict[str, Any]) -> None:
    """Print one checkout's summary."""
    t, f, c = s["total_s"], s["first_step_s"], s["total_cpu_s"]
    print(
        f"{name}: first step (import + env + reset + step): cold {t['cold']:.2f} s, warm "
        f"{t['warm']:.2f} s, cold/warm {t['ratio']:.2f}x  (target <= {RATIO_TARGET:g}x: "
        f"{verdict(s['ok'])}); CPU time: cold {c['cold']:.2f} s, warm {c['warm']:.2f} s, "
        f"{c['ratio']:.2f}x"
    )
    print(
        f"{name}: the step alone: cold {f['cold']:.3f} s, warm {f['warm']:.3f} s; rest of "
        f"the first game: cold {s['rest_of_game_s']['cold']:.2f} s, warm "
        f"{s['rest_of_game_s']['warm']:.2f} s  (no targets)"
    )
    compiled = ", ".join(
        f"{n.removeprefix('ryderz_env.')} {v:.2f}"
        for n, v in sorted(s["compile_s"].items(), key=lambda kv: -kv[1])
    )
    print(
        f"{name}: compiled in a cold run (s, median; whole first game): {compiled}; "
        f"{s['cache_files']:g} cache files written"
    )


def steady(checkouts: dict[str, Path], rounds: int, opts: dict[str, Any]) -> dict[str, Any]:
    """Steady-state steps/s of each checkout, ``rounds`` interleaved rounds of fresh processes
    with warm caches."""
    rates: dict[str, list[float]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory(prefix="ryderz_numba_") as tmp:
        dirs = {}
        for name, checkout in checkouts.items():
            dirs[name] = Path(tmp) / name
            dirs[name].mkdir()
            run_child(STEADY, checkout, dirs[name], {**opts, "seconds": 0.5})  # fill the cache
        for r in range(rounds):
            order = list(checkouts) if r % 2 == 0 else list(reversed(checkouts))
            for name in order:
                res = run_child(STEADY, checkouts[name], dirs[name], opts)
                rates[name].append(res["steps_per_s"])
                print(f"  {name:8} steady: {res['steps_per_s']:8,.0f} steps/s", flush=True)
    return {name: {"steps_per_s": v, "median": statistics.median(v)} for name, v in rates.items()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the measurements, print them, optionally write JSON; returns the results."""
    ap = parser(
        __doc__, "steady state (with --against): wall time per process, after 1 s of warm-up"
    )
    ap.set_defaults(seconds=3.0)
    ap.add_argument("--repeats", type=int, default=3, help="cold and warm runs of each kind")
    ap.add_argument("--num-players", type=int, default=2, help="players of the measured env")
    ap.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another checkout to measure the same way (e.g. a copy from before a "
        "change), and to compare in the steady state",
    )
    ap.add_argument(
        "--steady-rounds",
        type=int,
        default=5,
        help="with --against: interleaved steady-state rounds",
    )
    args = ap.parse_args(argv)
    header(args, "steady-state process")
    checkouts = {"this": ROOT}
    if args.against is not None:
        checkouts["against"] = args.against.resolve()
    opts = {"num_players": args.num_players, "seed": args.seed}
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "repeats": args.repeats,
        "num_players": args.num_players,
        "seed": args.seed,
        "checkouts": {k: str(v) for k, v in checkouts.items()},
    }
    runs = measure_first_steps(checkouts, args.repeats, opts)
    for name in checkouts:
        results[name] = summary(runs[name])
        results[name]["runs"] = runs[name]
        report(name, results[name])
    if args.against is not None:
        st = steady(checkouts, args.steady_rounds, {"seed": args.seed, "seconds": args.seconds})
        ratio = st["this"]["median"] / st["against"]["median"]
        print(
            f"steady state (ryderz_env.env(), random play): this {st['this']['median']:,.0f} "
            f"steps/s, against {st['against']['median']:,.0f} steps/s, this/against "
            f"{ratio:.3f}"
        )
        results["steady"] = {**st, "this_over_against": ratio}
        results["first_step_this_over_against"] = {
            kind: results["this"]["total_s"][kind] / results["against"]["total_s"][kind]
            for kind in ("cold", "warm")
        }
    return write_results(args.json, results)


if __name__ == "__main__":
    main()
