"""The compiled kernels of the Lazer Ryderz observation, as made cheap to compile
(``ryderz_env.raycast``; ``bench/bench_ryderz_coldstart.py`` measures the cold start):

- the observations are those of the kernels before that work (a digest of seeded games);
- the cast compiled for given ray directions agrees with the one for ray angles;
- the cast compiled for the common case declines exactly the origins on or near an outline
  or a side line, and otherwise writes what the full cast writes;
- a cold process compiles each kernel of a first step once, whatever the number of players.

After an intended change of the observation, print the new digests with
``.venv/bin/python tests/ryderz/test_ryderz_coldstart.py`` and review the change.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from random_play import random_step  # noqa: E402

import ryderz_env  # noqa: E402
from ryderz_env.encode import VectorEncoder, cast_into, chord_table  # noqa: E402
from ryderz_env.raycast import GRAZE, cast, directions  # noqa: E402
from ryderz_env.rules import Game  # noqa: E402

#: env options, seed and number of env steps of each digest: round, polygon (the rectangle's
#: edges line up with pieces: the rare cases of the cast) and powers
CASES = {
    "2p": ({"num_players": 2}, 1, 400),
    "3p_hexagon_powers": ({"num_players": 3, "table": "hexagon", "powers": True}, 2, 400),
    "4p_rectangle": ({"num_players": 4, "table": "rectangle"}, 3, 400),
}
#: digests of the vector observations (every one that ``env.last()`` gave, and every seat's
#: every 7 steps), values rounded to 6 decimals so that a last-bit difference of a C library
#: (``cos``, ``hypot``) does not fail them; the same before and after the compile-time work.
#: 2p changed once since, with the rules (2026-12-04: a sliding Prizm stops where it would
#: touch another, which that game meets; before: 46eb21e6d3bec26e590c)
DIGESTS = {
    "2p": "5a2d3cee7364f7bb4898",
    "3p_hexagon_powers": "47de5dfa370b4a6d8616",
    "4p_rectangle": "29634bea4757cdc6e574",
}


def observation_digest(options: dict[str, Any], seed: int, steps: int) -> str:
    """A digest of the observations of a seeded random game of ``ryderz_env.env(**options)``
    (games back to back until ``steps`` env steps)."""
    env = ryderz_env.env(**options)
    adapter = env.unwrapped.adapter
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()

    def feed(obs: dict[str, np.ndarray]) -> None:
        h.update(np.round(obs["observation"].astype(np.float64), 6).tobytes())
        h.update(np.ascontiguousarray(obs["action_mask"]).tobytes())

    n, game = 0, seed
    while n < steps:
        env.reset(seed=game)
        game += 1
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            feed(obs)
            n += 1
            if n % 7 == 0:
                for a in env.agents:
                    feed(env.observe(a))
            env.step(
                None if term or trunc else adapter.random_env_action(obs[adapter.mask_key], rng)
            )
            if n >= steps:
                break
    return h.hexdigest()[:20]


@pytest.mark.parametrize("name", sorted(CASES))
def test_observations_match_their_digest(name: str) -> None:
    assert observation_digest(*CASES[name]) == DIGESTS[name]


def test_a_cast_along_given_directions_equals_one_along_angles() -> None:
    """The cast compiled for given ray directions (a non-convex table, ``cast_rays``) and the
    one compiled for ray angles from the heading (the observation) agree, bit for bit, over
    positions of random games on the rectangle (whose edges pieces line up with: the rare
    grazing cases of the cast)."""
    g = Game(num_players=4, table="rectangle")
    enc = VectorEncoder(g)
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(3):
        s = g.new_initial_state(seed)
        while not s.is_terminal():
            if not s.is_chance_node():
                for seat in range(g.num_players):
                    tables = [enc._lazer_tables(s.players[q].lazer) for q in enc._seat_orders[seat]]
                    *head, dirs = enc._cast_args(s, seat, enc.frame(s, seat), tables)
                    assert dirs is None  # (a convex table)
                    by_angles = np.full(enc.num_rays, -2.0)
                    by_dirs = np.full(enc.num_rays, -3.0)
                    cast_into(by_angles, 0, (*head, None), enc.ray_range)
                    cast_into(by_dirs, 0, (*head, directions(head[1], head[0])), enc.ray_range)
                    assert np.array_equal(by_angles, by_dirs)
                    checked += 1
            random_step(s, rng)
    assert checked > 300


def test_the_common_case_cast_declines_only_origins_on_an_outline() -> None:
    """The cast compiled for the common case (``graze`` None) either writes what the cast that
    handles every origin (``graze`` True) writes, bit for bit, or declines (returns False,
    writes nothing), and declines exactly where the origin lies within ``GRAZE`` of a
    capsule's outline or of the line of its sides: over random capsules seen from random
    points and from points on their outlines (chord ends, side lines) and on a side line's
    extension beyond an end, with a ray along that line."""
    rng = np.random.default_rng(11)
    declined = agreed = 0
    for _ in range(600):
        k = int(rng.integers(1, 25))
        a = rng.normal(size=(k, 2)) * 4.0
        b = a + rng.normal(size=(k, 2))
        radii = np.abs(rng.normal(size=k)) * 0.3
        d = (b[0] - a[0]) / np.linalg.norm(b[0] - a[0])
        normal = np.array([-d[1], d[0]])
        angles = np.sort(rng.uniform(-np.pi, np.pi, 16))
        heading = 0.3
        pick = rng.random()
        if pick < 0.2:  # a chord end: on a capsule's end disc when its radius is 0
            radii[0] = 0.0
            o = a[0].copy()
        elif pick < 0.4:  # on a side line, beside the chord's middle
            o = (a[0] + b[0]) / 2 + radii[0] * normal
        elif pick < 0.6:  # on a side line beyond the far end, a ray back along it
            o = b[0] + rng.uniform(0.1, 2.0) * d + radii[0] * normal
            angles[0] = math.atan2(-d[1], -d[0]) - heading
        else:
            o = rng.normal(size=2) * 3.0
        chords = chord_table(a, b, radii)
        head = (angles, heading, float(o[0]), float(o[1]))
        rest = (chords, k, 0.0, np.full(16, np.inf), 2.0)
        cap, end = np.empty((6, k)), np.empty((3, 2 * k))
        fast, full = np.full(16, -5.0), np.full(16, -6.0)
        wrote = cast(fast, 0, *head, *rest, cap, end, None)
        assert cast(full, 0, *head, *rest, cap, end, None, True)
        m0 = chords[4] - (o[0] * chords[0] + o[1] * chords[2])
        nsm = chords[5] - (o[0] * chords[1] + o[1] * chords[3])
        g = np.abs(m0) - chords[7]
        outline = np.maximum(g, np.abs(nsm) - chords[6])
        ends = np.concatenate(
            [(chords[8 + i] - o[0]) ** 2 + (chords[10 + i] - o[1]) ** 2 for i in (0, 1)]
        )
        near = bool(
            (outline < GRAZE).any()
            or (np.abs(g) < GRAZE).any()
            or (ends - np.tile(chords[12], 2) < GRAZE).any()
        )
        assert wrote is not near
        if wrote:
            assert np.array_equal(fast, full)
            agreed += 1
        else:
            assert (fast == -5.0).all()
            declined += 1
    assert declined > 150 and agreed > 200


COMPILES = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from numba.core import event

class Compiles(event.Listener):
    def __init__(self):
        self.depth, self.names = 0, []

    def on_start(self, ev):
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            f = ev.data["dispatcher"].py_func
            self.names.append(f"{f.__module__}.{f.__qualname__}")

compiles = Compiles()
event.register("numba:compile", compiles)
import numpy as np
import ryderz_env
out = []
for n in (2, 3, 4):
    env = ryderz_env.env(num_players=n)
    env.reset(seed=n)
    adapter = env.unwrapped.adapter
    obs = env.last()[0]
    env.step(adapter.random_env_action(obs[adapter.mask_key], np.random.default_rng(n)))
    out.append(sorted(compiles.names))
    compiles.names = []
print(json.dumps(out))
"""


def test_a_cold_first_step_compiles_three_kernels_once_for_any_number_of_players(
    tmp_path: Path,
) -> None:
    """In a process with an empty numba cache, the first step of a two-player env compiles
    the placement of outlines, the cast and the rest of the observation, once each; the first
    steps of three- and four-player envs after it compile nothing more (one signature serves
    every number of players)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    res = subprocess.run(
        [sys.executable, "-c", COMPILES, str(ROOT)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    two, three, four = json.loads(res.stdout.strip().splitlines()[-1])
    assert two == [
        "ryderz_env.raycast.cast",
        "ryderz_env.raycast.finish",
        "ryderz_env.rules.kernels.place_into",
    ]
    assert three == four == []


if __name__ == "__main__":
    for case, args in sorted(CASES.items()):
        print(f'    "{case}": "{observation_digest(*args)}",')
