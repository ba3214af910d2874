"""Shared helper for the cross-process determinism tests of both engines: play seeded
random games in a fresh interpreter with a chosen string-hash seed and return hashes of the
trajectory, of mid-game snapshots and of the final ``to_dict()``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import hashlib, importlib, json, sys
import numpy as np

spec = json.loads(sys.argv[1])
Game = importlib.import_module(spec["module"]).Game

def h(x):
    return hashlib.sha256(json.dumps(x).encode()).hexdigest()

out = []
for kwargs, seed in spec["cases"]:
    s = Game(**kwargs).new_initial_state(seed)
    rng = np.random.default_rng(seed)
    trail = hashlib.sha256()
    checkpoints = []
    steps = 0
    while not s.is_terminal():
        steps += 1
        if s.is_chance_node():
            o = s.sample_chance(rng)
            s.apply_chance(o)
            trail.update(json.dumps(o).encode())
        else:
            acts = {}
            for p in s.current_players():
                legal = s.legal_actions(p)
                acts[p] = legal[int(rng.integers(len(legal)))]
            s.apply_actions(acts)
            trail.update(json.dumps(sorted(acts.items())).encode())
        if steps % 97 == 0:
            checkpoints.append(h(s.to_dict()))
    d = s.to_dict()
    out.append({"steps": steps, "trail": trail.hexdigest(), "checkpoints": checkpoints,
                "final": h(d), "status": s.outcome().reason.value})
print(json.dumps(out))
"""


def play_in_process(
    module: str, cases: list[tuple[dict[str, Any], int]], hash_seed: str
) -> list[dict[str, Any]]:
    """Play ``cases`` ((Game kwargs, seed) pairs) of ``module``'s Game in a new process."""
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    spec = json.dumps({"module": module, "cases": cases})
    res = subprocess.run(
        [sys.executable, "-c", SCRIPT, spec],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def assert_same_in_two_processes(
    module: str, cases: list[tuple[dict[str, Any], int]], min_steps: int
) -> list[dict[str, Any]]:
    """Both processes (different hash seeds) agree on every game, step by step."""
    a = play_in_process(module, cases, "0")
    b = play_in_process(module, cases, "4242")
    assert len(a) == len(b) == len(cases)
    for case, ra, rb in zip(cases, a, b, strict=True):
        assert ra["steps"] > min_steps, case
        assert ra["trail"] == rb["trail"], f"{case}: the trajectories differ"
        assert ra["checkpoints"] == rb["checkpoints"], f"{case}: a mid-game state differs"
        assert ra == rb, f"{case}: the final states differ"
    # different seeds do give different games (the hashes are not trivially equal)
    assert len({r["final"] for r in a}) == len(cases)
    return a
