"""The cost of validating a state dict (``game.state_from_dict``) against the engine's
random-play rate, both games, one run (issue 15's target: at most 50 mean random-play
decisions of that game).

For each game: random play of the engine for ``--seconds`` (the mean decision, chance events
between decisions included); then every state of ``--games`` seeded random games (2 players)
is read back from its ``to_dict()`` (only ``state_from_dict`` is timed, the least of 3 calls);
the 20 slowest are timed again (the least of 7) and the slowest of those is the figure. Then
the largest inputs the limits admit (a state dict padded under an extra key with scalars to
the limit of values, with empty lists to the limit of objects and lists, and nested to the
depth limit), each refused after the walk, timed the same way. Run from the repository root:
``python bench/bench_validation.py [--games 200]``.
"""

from __future__ import annotations

import sys
import time
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bench_engine, parser, verdict, write_results  # noqa: E402

from tabletop import registry  # noqa: E402
from tabletop.errors import InvalidStateError  # noqa: E402
from tabletop.protocol import play_chance, random_legal_actions  # noqa: E402

TARGET = 50.0


def timed(game: Any, data: dict, repeats: int = 3) -> float:
    """The least seconds of ``repeats`` calls of ``game.state_from_dict(data)`` (refusals
    count as well; the least, since other processes only ever add time)."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            game.state_from_dict(data)
        except InvalidStateError:
            pass
        out.append(time.perf_counter() - t0)
    return min(out)


def states_of_play(game: Any, games: int, seed: int) -> tuple[float, float, int, list[dict]]:
    """(mean s, slowest median s, states, slowest dicts) over every state of ``games``."""
    times: list[tuple[float, int, dict]] = []
    total = 0.0
    count = 0
    for k in range(games):
        rng = np.random.default_rng(seed + k)
        s = game.new_initial_state(seed + k)
        while True:
            d = s.to_dict()
            t = timed(game, d)
            total += t
            count += 1
            times.append((t, count, d))
            if len(times) > 40:
                times.sort(key=lambda x: -x[0])
                del times[20:]
            if s.is_terminal():
                break
            if s.is_chance_node():
                play_chance(s, rng)
            else:
                s.apply_actions(random_legal_actions(s, rng))
    slow = max(timed(game, d, 7) for _t, _i, d in sorted(times, key=lambda x: -x[0])[:20])
    return total / count, slow, count, [d for _t, _i, d in times]


def largest_inputs(game: Any, module: Any, example: dict) -> dict[str, float]:
    """Median seconds of the largest inputs the limits admit, each refused after the walk:
    a state padded with scalars to the value limit, one padded with empty lists to the limit
    of objects and lists, and one nested to the depth limit."""
    from tabletop.jsoncheck import check_limits

    used = containers = 0
    stack: list[Any] = [example]
    while stack:  # count as check_limits does
        v = stack.pop()
        used += 1
        if isinstance(v, dict | list):
            containers += 1
            used += len(v) if isinstance(v, dict) else 0
            stack.extend(v.values() if isinstance(v, dict) else v)
    limits = (module.MAX_DEPTH, module.MAX_VALUES)
    cap = module.MAX_CONTAINERS
    scalars = dict(example, padding=[0] * (module.MAX_VALUES - used - 3))
    lists = dict(example, padding=[[] for _ in range(cap - containers - 1)])
    deep: Any = 0
    for _ in range(module.MAX_DEPTH - 2):
        deep = [deep]
    nested = dict(example, padding=deep)
    for data in (scalars, lists, nested):
        check_limits(data, *limits, max_containers=cap)  # admitted by the walk
    return {
        "scalars": timed(game, scalars, 7),
        "lists": timed(game, lists, 7),
        "nested": timed(game, nested, 7),
    }


def main() -> None:
    ap = parser(__doc__, "seconds of random play per engine (the reference rate)")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--only", default=",".join(registry.names()))
    args = ap.parse_args()
    results: dict[str, Any] = {}
    for name in args.only.split(","):
        entry = registry.get(name)
        game = entry.game(num_players=2)
        module = import_module(game.serialize_module)
        eng = bench_engine(game, args.seconds, args.seed)
        decision = eng.us_per_decision / 1e6
        mean, slow, count, slowest = states_of_play(game, args.games, args.seed)
        big = largest_inputs(game, module, slowest[0])
        worst = max(slow, *big.values())
        ratio = worst / decision
        results[name] = {
            "decision_us": decision * 1e6,
            "states": count,
            "mean_us": mean * 1e6,
            "slowest_state_us": slow * 1e6,
            "largest_input_us": {k: v * 1e6 for k, v in big.items()},
            "worst_in_decisions": ratio,
        }
        print(
            f"{name}: {count:,} states of {args.games} games; validation mean "
            f"{mean * 1e6:,.0f} us, slowest {slow * 1e6:,.0f} us; largest inputs: scalars "
            f"{big['scalars'] * 1e6:,.0f} us, lists {big['lists'] * 1e6:,.0f} us, nested "
            f"{big['nested'] * 1e6:,.0f} us; one "
            f"random-play decision {decision * 1e6:,.1f} us; worst = {ratio:.1f} decisions "
            f"(target <= {TARGET:g}: {verdict(ratio <= TARGET)})"
        )
    write_results(args.json, results)


if __name__ == "__main__":
    main()
