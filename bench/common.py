"""What the engine benchmarks of both games share: the random-play engine run and its result,
and the verdict wording. Run the scripts from the repository root (``python bench/...``); they
find this module beside them."""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.protocol import play_chance


@dataclass
class EngineResult:
    """Counts and rates of the random-play engine run."""

    seconds: float
    decisions: int
    chance_events: int
    games: int  # games played to the end within the time budget
    decisions_per_s: float
    chance_per_s: float
    games_per_s: float
    us_per_decision: float  # wall time per decision, chance events between decisions included


def random_legal_actions(state: Any, rng: np.random.Generator) -> dict[int, object]:
    """A uniformly random legal action for every seat deciding now."""
    actions = {}
    for seat in state.current_players():
        legal = state.legal_actions(seat)
        actions[seat] = legal[int(rng.integers(len(legal)))]
    return actions


def bench_engine(game: Any, seconds: float, seed: int) -> EngineResult:
    """Play seeded random games back to back for ``seconds``; count decisions and chance."""
    rng = np.random.default_rng(seed)
    decisions = chance = games = 0
    game_seed = seed
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        state = game.new_initial_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and now < deadline:
            if state.is_chance_node():
                play_chance(state, rng)
                chance += 1
                continue
            state.apply_actions(random_legal_actions(state, rng))
            decisions += 1
            now = time.perf_counter()
        games += state.is_terminal()
        now = time.perf_counter()
    elapsed = now - start
    return EngineResult(
        seconds=elapsed,
        decisions=decisions,
        chance_events=chance,
        games=games,
        decisions_per_s=decisions / elapsed,
        chance_per_s=chance / elapsed,
        games_per_s=games / elapsed,
        us_per_decision=1e6 * elapsed / max(decisions, 1),
    )


def verdict(ok: bool) -> str:
    """'ok' or 'BELOW TARGET'."""
    return "ok" if ok else "BELOW TARGET"


def engine_line(name: str, eng: EngineResult) -> str:
    """One printed line of an engine run."""
    return (f"{name:<15}: {eng.decisions_per_s:10,.0f} decisions/s  "
            f"{eng.chance_per_s:10,.0f} chance/s  {eng.games_per_s:8,.1f} games/s  "
            f"({eng.decisions:,} decisions, {eng.chance_events:,} chance, {eng.games} games)")


def write_results(path: Path | None, results: dict[str, Any]) -> dict[str, Any]:
    """Write ``results`` as JSON to ``path`` (when given); returns them."""
    if path is not None:
        path.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {path}")
    return results


def parser(doc: str | None, seconds_help: str) -> argparse.ArgumentParser:
    """The command line every benchmark shares: ``--seconds``, ``--seed`` and ``--json``."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help=seconds_help)
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game and the rngs")
    ap.add_argument("--json", type=Path, default=None, help="write the results here")
    return ap


def header(args: argparse.Namespace, per: str) -> None:
    """Print the Python version, the machine and the run's settings."""
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{args.seconds:g} s per {per}, seed {args.seed}")
