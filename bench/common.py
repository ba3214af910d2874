"""What the engine benchmarks of both games share: the random-play engine run and its result,
and the verdict wording. Run the scripts from the repository root (``python bench/...``); they
find this module beside them."""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.env_core import random_masked_index
from tabletop.protocol import play_chance, random_legal_actions, sample_discrete


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


#: OpenSpiel games run beside our engines: two in C++ and two written in Python (dominoes
#: with a chance deal)
OPENSPIEL_GAMES = ("connect_four", "chess", "python_tic_tac_toe", "python_block_dominoes")
SPIEL_LABELS = {
    "connect_four": "os connect_four",
    "chess": "os chess",
    "python_tic_tac_toe": "os tic_tac_toe",
    "python_block_dominoes": "os dominoes",
}


class SpielState:
    """An OpenSpiel (``pyspiel``) state behind the engine protocol's random-play calls, so
    :func:`bench_engine` plays it with the same loop as our engines (sequential games: one
    player decides at a time)."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return self.state.is_chance_node()

    def current_players(self) -> tuple[int, ...]:
        return (self.state.current_player(),)

    def legal_actions(self, seat: int) -> list[int]:
        return self.state.legal_actions(seat)

    def apply_actions(self, actions: dict[int, Any]) -> None:
        (action,) = actions.values()
        self.state.apply_action(action)

    def sample_chance(self, rng: np.random.Generator) -> int:
        return sample_discrete(self.state.chance_outcomes(), rng)  # as our engines sample

    def apply_chance(self, outcome: int) -> None:
        self.state.apply_action(outcome)


class SpielGame:
    """A loaded OpenSpiel game whose states are :class:`SpielState`."""

    def __init__(self, name: str) -> None:
        import open_spiel.python.games  # noqa: F401 - registers the games written in Python
        import pyspiel

        self.game = pyspiel.load_game(name)

    def new_initial_state(self, seed: int) -> SpielState:
        return SpielState(self.game.new_initial_state())


def bench_openspiel(seconds: float, seed: int) -> dict[str, EngineResult] | None:
    """Random play through OpenSpiel's Python API (``OPENSPIEL_GAMES``, ``seconds`` each)
    with :func:`bench_engine`; None when ``open_spiel`` is not installed (it is in the
    ``bench`` extra)."""
    try:
        import open_spiel.python.games  # noqa: F401
        import pyspiel  # noqa: F401
    except ImportError:
        return None
    return {name: bench_engine(SpielGame(name), seconds, seed) for name in OPENSPIEL_GAMES}


def openspiel_report(
    eng: EngineResult, spiel: dict[str, EngineResult] | None, name: str
) -> dict[str, float] | None:
    """Print the OpenSpiel rows and our engine's ratio to each (no targets: for reference);
    return the ratios (None when OpenSpiel is missing)."""
    if spiel is None:
        print("openspiel      : skipped: open_spiel is not installed (pip install -e '.[bench]')")
        return None
    ratios = {}
    for game, res in spiel.items():
        print(engine_line(SPIEL_LABELS[game], res))
        ratios[game] = eng.decisions_per_s / res.decisions_per_s
    print(
        f"{name}/openspiel: "
        + ", ".join(f"{g} {r:.3f}x" for g, r in ratios.items())
        + "  (for reference, no target; each step of every game goes through the same\n"
        "  Python loop, about 2 us of it, so the C++ games' figures are mostly that loop)"
    )
    return ratios


def engine_line(name: str, eng: EngineResult) -> str:
    """One printed line of an engine run."""
    return (
        f"{name:<15}: {eng.decisions_per_s:10,.0f} decisions/s  "
        f"{eng.chance_per_s:10,.0f} chance/s  {eng.games_per_s:8,.1f} games/s  "
        f"({eng.decisions:,} decisions, {eng.chance_events:,} chance, {eng.games} games)"
    )


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
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{args.seconds:g} s per {per}, seed {args.seed}"
    )


@dataclass
class Result:
    """Counts and rates of one measurement."""

    seconds: float
    steps: int  # env.step calls with an action (parallel: step calls, single: learner steps)
    games: int  # games played to the end within the time budget
    steps_per_s: float
    games_per_s: float
    actions: int  # parallel only: deciders' actions (non-NOOP); else equal to steps
    actions_per_s: float


def make_result(seconds: float, steps: int, games: int, actions: int | None = None) -> Result:
    """A :class:`Result` with its rates."""
    actions = steps if actions is None else actions
    return Result(
        seconds=seconds,
        steps=steps,
        games=games,
        steps_per_s=steps / seconds,
        games_per_s=games / seconds,
        actions=actions,
        actions_per_s=actions / seconds,
    )


#: a uniformly random index among the non-zero entries of a mask (the envs' own draw)
random_masked = random_masked_index


class AecRunner:
    """Random masked play of one AEC env, games back to back, that can be paused: each
    :meth:`play` goes on with the game the last one left, so that several envs can be
    measured in interleaved slices (:func:`bench_interleaved`). ``pick(observation, rng)``
    chooses an action (default: a random index of ``observation["action_mask"]``)."""

    def __init__(
        self,
        make_env: Callable[[], Any],
        seed: int,
        pick: Callable[[Any, np.random.Generator], Any] | None = None,
    ) -> None:
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.pick = pick or (
            lambda observation, rng: random_masked(observation["action_mask"], rng)
        )
        self.game_seed = seed
        self.steps = self.games = 0
        self.seconds = 0.0
        self._agents: Any = None  # the agent iterator of the game in progress

    def play(self, seconds: float) -> None:
        """Play for ``seconds`` of wall-clock time (to the first step past it)."""
        env, pick, rng = self.env, self.pick, self.rng
        start = now = time.perf_counter()
        deadline = start + seconds
        while now < deadline:
            if self._agents is None:
                env.reset(seed=self.game_seed)
                self.game_seed += 1
                self._agents = iter(env.agent_iter())
            for _agent in self._agents:
                observation, _reward, termination, truncation, _info = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                env.step(pick(observation, rng))
                self.steps += 1
                now = time.perf_counter()
                if now >= deadline:
                    break
            else:  # the game is over
                self.games += 1
                self._agents = None
            now = time.perf_counter()
        self.seconds += now - start

    def result(self) -> Result:
        """What was measured so far."""
        return make_result(self.seconds, self.steps, self.games)


def bench_aec(
    make_env: Callable[[], Any],
    seconds: float,
    seed: int,
    pick: Callable[[Any, np.random.Generator], Any] | None = None,
) -> Result:
    """Play random masked games of an AEC env back to back for ``seconds`` (see
    :class:`AecRunner`)."""
    runner = AecRunner(make_env, seed, pick)
    runner.play(seconds)
    runner.env.close()
    return runner.result()


def bench_interleaved(
    runners: dict[str, AecRunner], seconds: float, slices: int, warmup: float = 0.5
) -> dict[str, Result]:
    """Measure several envs for ``seconds`` each, in ``slices`` rounds of a slice of each in
    turn, so that a machine whose speed drifts during the run (other loads, clock changes)
    slows them alike and their ratios hold. Each first plays ``warmup`` seconds unmeasured
    (first calls: imports, compiled code loaded from its cache)."""
    for runner in runners.values():
        runner.play(warmup)
        runner.steps = runner.games = 0
        runner.seconds = 0.0
    for _ in range(slices):
        for runner in runners.values():
            runner.play(seconds / slices)
    results = {}
    for name, runner in runners.items():
        runner.env.close()
        results[name] = runner.result()
    return results


def connect_four_env() -> Any:
    """``connect_four_v3.env()`` (imported on first use, like the chess env)."""
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def chess_env_factory() -> Callable[[], Any] | None:
    """``chess_v6.env`` if the ``chess`` package is installed, else None."""
    try:
        from pettingzoo.classic import chess_v6
    except ImportError:
        return None
    return chess_v6.env


@dataclass
class AecResult:
    """Counts and rates of a PettingZoo AEC run (connect_four_v3, chess_v6)."""

    seconds: float
    steps: int
    games: int
    steps_per_s: float
    games_per_s: float


def bench_pz(make_env: Callable[[], Any], seconds: float, seed: int) -> AecResult:
    """Random masked games of a PettingZoo AEC env (the loop of :func:`bench_aec`)."""
    r = bench_aec(make_env, seconds, seed)
    return AecResult(
        seconds=r.seconds,
        steps=r.steps,
        games=r.games,
        steps_per_s=r.steps / r.seconds,
        games_per_s=r.games / r.seconds,
    )
