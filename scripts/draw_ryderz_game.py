"""Draw the README's picture of a Lazer Ryderz game: a seeded four-player game between
random players on the standard table, stopped after ``--decisions`` decisions, rendered by the
env's ``rgb_array`` mode (the table to scale with the text panel).

Usage: ``python scripts/draw_ryderz_game.py [--seed 5] [--decisions 150] [--out PNG]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import ryderz_env
from tabletop.conformance import random_env_action


def main(argv: list[str] | None = None) -> None:
    """Play, render and save the picture."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--decisions", type=int, default=150)
    ap.add_argument("--out", default="docs/img/ryderz_game.png")
    args = ap.parse_args(argv)
    env = ryderz_env.env(render_mode="rgb_array")
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    for i, _agent in enumerate(env.agent_iter()):
        obs, _r, term, trunc, _ = env.last()
        if term or trunc or i >= args.decisions:
            break
        env.step(random_env_action(env, obs, rng))
    from PIL import Image

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(env.render()).save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
