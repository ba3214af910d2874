"""MCTS efficiency: engine decisions per second of the whole search against the engine's
random-play rate, on 2-player games of both engines, at the budget and rollout depth of the
strength figure (``docs/bots.md``), beside OpenSpiel's ``MCTSBot`` on its C++ connect_four.

For each game, ``--positions`` positions are taken from seeded heuristic-vs-heuristic games
(every ``--every``-th decision); the MCTS bot (the game's heuristic ``value`` at the leaves)
searches each (``--spec``, by default the strength figure's spec of the game). All of the
search's time counts (selection, clones, ``resample_hidden``, rollouts, ``value``, backup).
Reported: simulations/s, the search's engine decisions/s (tree and rollout decisions, the
tree's own shown apart) and its ratio to random play of the same engine measured in the same
run (target >= 0.5x). ``--profile`` adds a cProfile of the searches (top functions by own
time). Run from the repository root: ``python bench/bench_mcts.py``.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bench_engine, parser, verdict, write_results  # noqa: E402

from agents.mcts import MCTSBot  # noqa: E402
from agents.specs import make_bot  # noqa: E402
from tabletop import registry  # noqa: E402

TARGET = 0.5


def sample_positions(game_name: str, count: int, every: int, seed: int) -> list[tuple[Any, int]]:
    """``(state, seat)`` at every ``every``-th decision of seeded heuristic games (decisions
    with one legal action skipped: the bot does not search them)."""
    entry = registry.get(game_name)
    game = entry.game(num_players=2)
    bots = [make_bot("heuristic", game_name, seed=seed + i) for i in range(2)]
    rng = np.random.default_rng(seed)
    out: list[tuple[Any, int]] = []
    k = 0
    game_seed = seed
    while len(out) < count:
        state = game.new_initial_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                state.apply_chance(state.sample_chance(rng))
                continue
            deciders = state.current_players()
            for seat in deciders:
                if len(state.legal_actions(seat)) > 1:
                    k += 1
                    if k % every == 0:
                        out.append((state.clone(), seat))
            acts = {s: bots[s].act(state, s) for s in deciders}
            if len(acts) == 1:
                state.apply_action(acts[deciders[0]])
            else:
                state.apply_actions(acts)
    return out


def bench_search(
    game_name: str, positions: list[tuple[Any, int]], spec: str, seed: int
) -> dict[str, float]:
    """Search every position with the MCTS bot of ``spec``; the counts and rates of all
    searches together."""
    bot = make_bot(spec, game_name, seed=seed)
    assert isinstance(bot, MCTSBot)
    totals = {"simulations": 0, "tree_decisions": 0, "rollout_decisions": 0, "searches": 0}
    seconds = 0.0
    for state, seat in positions:
        t0 = time.perf_counter()
        bot.act(state, seat)
        seconds += time.perf_counter() - t0
        st = bot.last_stats
        totals["simulations"] += st.simulations
        totals["tree_decisions"] += st.tree_decisions
        totals["rollout_decisions"] += st.rollout_decisions
        totals["searches"] += 1
    decisions = totals["tree_decisions"] + totals["rollout_decisions"]
    return {
        **totals,
        "seconds": seconds,
        "s_per_move": seconds / max(totals["searches"], 1),
        "sims_per_s": totals["simulations"] / seconds,
        "decisions_per_s": decisions / seconds,
        "tree_decisions_per_s": totals["tree_decisions"] / seconds,
    }


def bench_openspiel_mcts(sims: int, moves: int, seed: int) -> dict[str, float] | None:
    """OpenSpiel's Python ``MCTSBot`` (random rollouts to the end, its default evaluator) on
    its C++ connect_four: simulations/s over ``moves`` searches of random positions."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=sims,
        evaluator=mcts.RandomRolloutEvaluator(1, rng),
        random_state=rng,
    )
    done = 0
    seconds = 0.0
    while done < moves:
        state = game.new_initial_state()
        for _ in range(int(rng.randint(0, 12))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        t0 = time.perf_counter()
        bot.step(state)
        seconds += time.perf_counter() - t0
        done += 1
    return {
        "searches": done,
        "simulations": done * sims,
        "seconds": seconds,
        "sims_per_s": done * sims / seconds,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; print and return the figures."""
    ap = parser(__doc__, "seconds of random play per engine (the reference rate)")
    ap.add_argument(
        "--games", default=",".join(registry.names()), help="comma-separated registry games"
    )
    ap.add_argument(
        "--spec", default=None, help="the MCTS spec (default: each game's STRENGTH_SPEC)"
    )
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--every", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    results: dict[str, Any] = {}
    for name in args.games.split(","):
        spec = args.spec or STRENGTH_SPEC[name]
        positions = sample_positions(name, args.positions, args.every, args.seed)
        random_play = bench_engine(registry.get(name).game(num_players=2), args.seconds, args.seed)
        profiler = cProfile.Profile() if args.profile else None
        if profiler is not None:
            profiler.enable()
        search = bench_search(name, positions, spec, args.seed)
        if profiler is not None:
            profiler.disable()
        ratio = search["decisions_per_s"] / random_play.decisions_per_s
        print(
            f"{name}: {spec} over {search['searches']} positions: "
            f"{search['s_per_move']:.3f} s a move, {search['sims_per_s']:,.0f} sims/s, "
            f"{search['decisions_per_s']:,.0f} engine decisions/s (tree "
            f"{search['tree_decisions_per_s']:,.0f}/s); random play "
            f"{random_play.decisions_per_s:,.0f} decisions/s; ratio {ratio:.2f}x "
            f"(target >= {TARGET}x: {verdict(ratio >= TARGET)})"
        )
        results[name] = {
            "spec": spec,
            **search,
            "random_play_decisions_per_s": random_play.decisions_per_s,
            "ratio": ratio,
        }
        if profiler is not None:
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(18)
            print(out.getvalue())
    spiel_sims = 400
    spiel = bench_openspiel_mcts(spiel_sims, 20, args.seed)
    if spiel is None:
        print("openspiel MCTSBot: skipped: open_spiel is not installed (pip install -e '.[bench]')")
    else:
        print(
            f"openspiel MCTSBot on connect_four (C++ game, Python search, random rollouts "
            f"to the end), {spiel_sims} sims: {spiel['sims_per_s']:,.0f} sims/s "
            "(for reference)"
        )
        results["openspiel_connect_four"] = spiel
    return write_results(args.json, results)


#: game -> the MCTS spec of the 200-game strength figure in docs/bots.md (Lunatix Loop: 0.723
#: against the heuristic at 107 ms a move, with the fitted value)
STRENGTH_SPEC = {
    "lunatix": (
        "mcts:sims=400,depth=8,rollout=heuristic,prior=heuristic,norm=1,minor=0,memo=1,crn=1,"
        "eval=fitted"
    ),
    "ryderz": "mcts:sims=100,depth=0,prior=heuristic,norm=1",
}


if __name__ == "__main__":
    main()
