"""Ship a trained policy as the package's ``trained`` bot (``agents/trained/<game>_<N>p/``).

``python -m train.ship runs/<name>[/seed<k>] [--mode greedy|sampled]`` copies the run's
``policy.onnx`` and writes its ``policy.json`` with the chosen mode and no ``model.zip``
(the package carries no torch checkpoint). The folder name comes from the policy's game and
player count, so a newer run of the same setting replaces the older one. Record which run it
was and its figures in docs/bots.md ("Shipped policies").
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import replace
from pathlib import Path

from agents.policy_bot import MODES, ONNX_FILE, find_policy, write_policy_json
from agents.trained_bot import shipped_folder
from tabletop.errors import ConfigError


def ship(run_dir: str | Path, mode: str = "greedy", dest: Path | None = None) -> Path:
    """Copy the run's policy into ``dest`` (default: the package's ``agents/trained``);
    returns the policy folder written."""
    if mode not in MODES:
        raise ConfigError(f"mode must be one of {MODES}")
    meta, _ = find_policy(run_dir)
    if not meta.onnx:
        raise ConfigError(f"{run_dir}: no {ONNX_FILE} to ship (python -m train.export first)")
    folder = (dest or shipped_folder()) / f"{meta.game}_{meta.num_players}p"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(run_dir) / meta.onnx, folder / ONNX_FILE)
    write_policy_json(folder, replace(meta, mode=mode, model="", onnx=ONNX_FILE))
    return folder


def main(argv: list[str] | None = None) -> None:
    """The CLI."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--mode", default="greedy", choices=MODES)
    args = ap.parse_args(argv)
    print(ship(args.run_dir, args.mode))


if __name__ == "__main__":
    main()
