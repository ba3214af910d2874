"""A ratings table of several bots: arena runs over every lineup of them, rated together.

``python -m agents.ratings --game ryderz --players 2 --bots random,heuristic,mcts:sims=100
--games 40 --out runs/ratings/ryderz_2p [--processes 2] [--resume]``

Two players: every pair of bots plays ``--games`` games (seats rotated over paired seeds).
More players: every choice of ``players`` distinct bots is a lineup (with fewer bots than
seats, each lineup is one bot against copies of ``--fill``). Each lineup is an arena run in
a folder of its own under ``--out`` (so the table resumes lineup by lineup and game by
game); then every game of every lineup, in a fixed order, updates one openskill
(Plackett-Luce) rating per bot: ranked first if one of its seats won, all tied when nobody
won. The table gives each bot's rating (mu ± sigma, sorted by mu - 3 sigma), games, wins,
draws and mean time per decision. ``make arena`` regenerates the tables of ``docs/bots.md``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.arena import RESULTS_JSON, ArenaConfig, GameResult, arena, load_results
from agents.specs import BotSpecError, parse, split_specs
from agents.stats import write_report
from tabletop import registry
from tabletop.errors import ConfigError


def lineups(bots: Sequence[str], players: int, fill: str | None = None) -> list[tuple[str, ...]]:
    """The lineups of a ratings run (see the module)."""
    if len(set(bots)) != len(bots):
        raise ConfigError(f"bots must be distinct: {list(bots)}")
    if players == 2 or len(bots) >= players:
        return [tuple(c) for c in itertools.combinations(bots, players)]
    if fill is None:
        raise ConfigError(f"{len(bots)} bots for {players} seats: give --fill SPEC")
    return [(b, *([fill] * (players - 1))) for b in bots if b != fill]


def folder_name(lineup: Sequence[str]) -> str:
    """A file-system-safe folder name for a lineup."""
    safe = "".join(ch if ch.isalnum() or ch in "-_=." else "_" for ch in "__".join(lineup))
    return safe[:150]


def ratings(
    game: str,
    players: int,
    bots: Sequence[str],
    games: int,
    out: Path,
    seed: int = 0,
    processes: int = 1,
    resume: bool = False,
    fill: str | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Play every lineup and rate every bot; returns the table as JSON data."""
    specs = [str(parse(b)) for b in bots]
    all_games: list[tuple[ArenaConfig, GameResult]] = []
    played = lineups(specs, players, fill)
    for lineup in played:
        cfg = ArenaConfig(game=game, bots=lineup, games=games, seed=seed)
        folder = out / folder_name(lineup)
        saved = resume and (folder / RESULTS_JSON).exists()
        if not saved or len(load_results(folder, cfg)) < cfg.total_games:
            arena(cfg, processes, folder, resume=saved, progress=progress)
        all_games += [(cfg, r) for r in load_results(folder, cfg)]
    names = list(dict.fromkeys(specs + ([fill] if fill else [])))
    table = rate(all_games, names)
    result = {
        "game": game,
        "players": players,
        "games_per_lineup": games,
        "seed": seed,
        "lineups": len(played),
        "table": table,
    }
    write_report(out, "ratings", result, to_markdown(result))
    return result


def rate(
    all_games: Sequence[tuple[ArenaConfig, GameResult]],
    names: Sequence[str],
    alias: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One openskill (Plackett-Luce) rating per bot of ``names`` over ``all_games`` in their
    order (a bot ranked first if one of its seats won, all tied when nobody won), with its
    games, wins, draws and time per decision; sorted by mu - 3 sigma. ``alias`` names a
    lineup's spec in ``names`` (say a snapshot's ``policy:PATH`` by its id)."""
    alias = alias or {}
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {b: model.rating(name=b) for b in names}
    rows = {
        b: {"bot": b, "games": 0, "wins": 0, "draws": 0, "decisions": 0, "seconds": 0.0}
        for b in names
    }
    for cfg, r in all_games:
        bots = [alias.get(b, b) for b in cfg.bots]
        present = list(dict.fromkeys(bots))
        winner = None if r.winner_slot is None else bots[r.winner_slot]
        for b in present:
            row = rows[b]
            row["games"] += 1
            row["wins"] += winner == b
            row["draws"] += winner is None
            slots = [i for i, s in enumerate(bots) if s == b]
            row["decisions"] += sum(r.decisions[i] for i in slots)
            row["seconds"] += sum(r.think_seconds[i] for i in slots)
        ranks = [0 if winner is None or winner == b else 1 for b in present]
        new = model.rate([[rating[b]] for b in present], ranks=ranks)
        for b, team in zip(present, new, strict=True):
            rating[b] = team[0]
    table = []
    for b in names:
        row = rows[b]
        table.append(
            {
                **row,
                "mu": rating[b].mu,
                "sigma": rating[b].sigma,
                "ordinal": rating[b].mu - 3 * rating[b].sigma,
                "ms_per_decision": 1000 * row["seconds"] / max(row["decisions"], 1),
            }
        )
    table.sort(key=lambda t: -t["ordinal"])
    return table


def to_markdown(result: dict[str, Any]) -> str:
    """The ratings table."""
    title = registry.get(result["game"]).title
    lines = [
        f"# Ratings: {title}, {result['players']} players",
        "",
        f"{result['lineups']} lineups x {result['games_per_lineup']} games (seats rotated "
        f"over paired seeds), seed {result['seed']}; openskill Plackett-Luce, a game "
        "nobody wins a tie.",
        "",
        "| bot | rating mu ± sigma | mu - 3 sigma | games | wins | draws | ms/decision |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in result["table"]:
        lines.append(
            f"| `{t['bot']}` | {t['mu']:.1f} ± {t['sigma']:.1f} | {t['ordinal']:.1f} "
            f"| {t['games']} | {t['wins']} | {t['draws']} | "
            f"{t['ms_per_decision']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI; returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m agents.ratings", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--game", required=True, choices=registry.names())
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--bots", required=True, help="comma-separated distinct bot specs")
    ap.add_argument("--fill", help="the bot of the other seats when bots < players")
    ap.add_argument("--games", type=int, default=40, help="games per lineup")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        result = ratings(
            args.game,
            args.players,
            split_specs(args.bots),
            args.games,
            args.out,
            args.seed,
            args.processes,
            args.resume,
            args.fill,
            not args.no_progress,
        )
    except (BotSpecError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(to_markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
