"""Draw every Lazer Ryderz piece and the Launch Point to scale from the config.

    python scripts/draw_ryderz_pieces.py [--rules configs/ryderz/rules.yaml] [--out PNG]

Writes ``docs/img/ryderz_pieces.png``: one row per gear (straight, soft left, hard left), the
Launch Point and a Prizm, on a one-inch grid. Needs matplotlib (the ``train`` extra).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ryderz_env.rules import Game, PieceKind  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default=None, help="rules YAML (default: the standard game)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "img" / "ryderz_pieces.png"))
    args = ap.parse_args(argv)
    game = Game(args.rules)
    gears = len(game.pieces.gears)
    fig, ax = plt.subplots(figsize=(10, 1.9 * gears))
    for row, g in enumerate(game.pieces.gears):
        y0 = -row * 6.5
        x0 = 0.0
        for kind in (PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD):
            side = 0 if kind is PieceKind.STRAIGHT else 1
            shape = game.shapes.get((kind, g.gear, side))
            if shape is None:
                continue
            xy = shape.outline + np.array([x0, y0])
            ax.fill(xy[:, 0], xy[:, 1], alpha=0.35, color="tab:cyan", ec="tab:blue")
            cl = shape.centreline(32) + np.array([x0, y0])
            ax.plot(cl[:, 0], cl[:, 1], "k--", lw=0.6)
            label = kind.name.lower() if side == 0 else f"{kind.name.lower()} (left)"
            ax.text(
                x0, y0 - 1.2, f"gear {g.gear} {label}\nlength {shape.length:.2f} in", fontsize=7
            )
            x0 += float(np.ptp(shape.outline[:, 0])) + 4.0
    lp = game.launch_local + np.array([0.0, 4.0])
    ax.fill(lp[:, 0], lp[:, 1], alpha=0.35, color="tab:orange", ec="tab:red")
    ax.text(0.0, 5.2, "Launch Point (back on the edge)", fontsize=7)
    disc = game.disc_local + np.array([8.0, 4.5])
    ax.fill(disc[:, 0], disc[:, 1], alpha=0.35, color="tab:purple")
    ax.text(7.0, 5.6, f"Prizm r={game.rules.prizm_radius}", fontsize=7)
    ax.set_aspect("equal")
    ax.grid(True, lw=0.3)
    ax.set_title(
        f"Lazer Ryderz pieces to scale (inches; width {game.pieces.width}, "
        f"tip/notch {game.pieces.tip})",
        fontsize=9,
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    main()
