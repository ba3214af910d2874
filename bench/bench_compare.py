"""This checkout against another one (an older commit): engine and env speed, interleaved.

    git worktree add /tmp/old <commit>
    .venv/bin/python bench/bench_compare.py --against /tmp/old [--runs 3] [--seconds 3]

Each workload runs in a fresh process with the checkout's root first on ``sys.path``: random
play through each game's engine (decisions/s, chance events between them included) and
through each game's parallel env (steps/s; Lazer Ryderz with discrete actions), 2 players,
seeded. New and old processes alternate, ``--runs`` times each; the verdict compares medians
(new/old >= 0.95 is what a restructure or a new feature such as recorded events must keep).
Both checkouts use this virtualenv's packages, so only the project's code differs.

``--events`` records turn events on the new side (``state.record_events()`` in the engine
workloads, taken after each step; ``events=True`` in the env workloads): with ``--against .``
it measures what recording events costs against not recording them, in one checkout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ("lunatix-engine", "ryderz-engine", "lunatix-env", "ryderz-env")
TARGET = 0.95

#: the measuring program run in each process: argv = root, workload, seconds, seed
PROGRAM = r"""
import sys, time, json
root, workload, seconds, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
events = sys.argv[5] == "events"
sys.path.insert(0, root)
import numpy as np
from tabletop import registry
game_name, kind = workload.split("-")
entry = registry.get(game_name)
rng = np.random.default_rng(seed)
count = 0
if kind == "engine":
    from tabletop.protocol import random_legal_actions
    game = entry.game(num_players=2)
    start = time.perf_counter(); deadline = start + seconds; game_seed = seed
    now = start
    while now < deadline:
        s = game.new_initial_state(game_seed); game_seed += 1
        if events:
            s.record_events()
        while not s.is_terminal() and now < deadline:
            if s.is_chance_node():
                s.apply_chance(s.sample_chance(rng))
                continue
            s.apply_actions(random_legal_actions(s, rng)); count += 1
            if events:
                s.take_events()
            now = time.perf_counter()
else:
    options = {"num_players": 2}
    if game_name == "ryderz":
        options["action_mode"] = "discrete"
    if events:
        options["events"] = True
    env = entry.parallel_env(**options)
    obs, infos = env.reset(seed=seed)
    start = time.perf_counter(); deadline = start + seconds; episode = seed
    now = start
    while now < deadline:
        actions = {}
        for agent in env.agents:
            mask = infos[agent].get("action_mask")
            if mask is None:
                mask = obs[agent]["action_mask"]
            legal = np.flatnonzero(mask)
            actions[agent] = int(legal[rng.integers(len(legal))]) if len(legal) else 0
        obs, rewards, terms, truncs, infos = env.step(actions)
        count += 1
        if not env.agents:
            episode += 1
            obs, infos = env.reset(seed=episode)
        now = time.perf_counter()
print(json.dumps({"rate": count / (now - start)}))
"""


def measure(root: Path, workload: str, seconds: float, seed: int, events: bool = False) -> float:
    """The rate of ``workload`` in a fresh process running ``root``'s code (``events``:
    recording turn events)."""
    flag = "events" if events else "plain"
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(root), workload, str(seconds), str(seed), flag],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["rate"])


def main() -> None:
    """Measure both checkouts interleaved and print the new/old ratios."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--against", type=Path, required=True, help="the other (old) checkout")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--events", action="store_true", help="record turn events on the new side")
    args = ap.parse_args()
    old = args.against.resolve()
    results: dict[str, dict[str, float | list[float]]] = {}
    ok = True
    for workload in args.workloads.split(","):
        new_rates: list[float] = []
        old_rates: list[float] = []
        for run in range(args.runs):
            new_rates.append(measure(ROOT, workload, args.seconds, args.seed + run, args.events))
            old_rates.append(measure(old, workload, args.seconds, args.seed + run))
        ratio = statistics.median(new_rates) / statistics.median(old_rates)
        ok &= ratio >= TARGET
        results[workload] = {"new": new_rates, "old": old_rates, "new_over_old": ratio}
        print(
            f"{workload:16s} new {statistics.median(new_rates):10.1f}/s  "
            f"old {statistics.median(old_rates):10.1f}/s  new/old {ratio:.3f}"
            f"  ({'ok' if ratio >= TARGET else 'BELOW'} {TARGET})",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    print("verdict:", "every new/old >= 0.95" if ok else "some new/old below 0.95")


if __name__ == "__main__":
    main()
