"""The standard evaluation: any policy or bot against the fixed built-in bots, with fixed
opponents, game counts and seeds, so that two training algorithms are compared on equal
terms (the benchmark protocol of ``docs/bots.md``).

``python -m agents.evaluate --game G --policy PATH`` (a run folder or ``model.zip`` with its
``policy.json``) or ``--bot SPEC`` (any bot spec), ``[--processes 2] [--out DIR [--resume]]``.

Each setting of :data:`PROTOCOL` whose player count the candidate plays (a policy: the
players of its ``policy.json``; a bot: every setting but those against itself) is an
arena run of the candidate in seat 0 of the lineup against the fixed opponents, seats
rotated over paired seeds, with
:data:`GAMES` games and seed :data:`SEED`. The figure of a 2-player setting is the
candidate's score (wins + draws / 2) / games; of a multi-player setting its win rate; both
with 95% Wilson intervals. ``--games`` changes the count for a quick look; such a table is
marked as not the standard protocol.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena import ArenaConfig, arena
from agents.specs import BotSpecError, parse
from agents.stats import write_report
from tabletop import registry
from tabletop.errors import ConfigError

#: games per setting and the seed of every setting: fixed by the protocol
GAMES = 400
SEED = 20_261_201


@dataclass(frozen=True)
class Setting:
    """One row of the protocol: players and the fixed opponents of the candidate."""

    name: str
    opponents: tuple[str, ...]

    @property
    def players(self) -> int:
        """Seats: the candidate and its opponents."""
        return 1 + len(self.opponents)


#: registry game -> its settings (opponents are the built-in bots, frozen versions)
PROTOCOL: dict[str, tuple[Setting, ...]] = {
    "lunatix": (
        Setting("2p vs random", ("random",)),
        Setting("2p vs heuristic", ("heuristic",)),
        Setting("4p vs 3 random", ("random",) * 3),
        Setting("4p vs 3 heuristic", ("heuristic",) * 3),
    ),
    "ryderz": (
        Setting("2p vs random", ("random",)),
        Setting("2p vs heuristic", ("heuristic",)),
    ),
}


def setting_folder(setting: Setting) -> str:
    """The folder name of a setting's arena run under ``--out``."""
    return setting.name.replace(" ", "_")


def candidate_players(spec: str) -> int | None:
    """The player count a candidate plays (a policy's), or None for any."""
    s = parse(spec)
    if s.kind != "policy":
        return None
    from agents.policy_bot import find_policy

    return find_policy(s.path)[0].num_players


def evaluate(
    game: str,
    spec: str,
    games: int = GAMES,
    processes: int = 1,
    out: Path | None = None,
    resume: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Run every setting that applies; returns ``{"rows": [...], ...}``."""
    entry = registry.get(game)
    players = candidate_players(spec)
    canonical = str(parse(spec))
    # a setting whose opponents are the candidate itself says nothing (and would pool them)
    settings = [
        s
        for s in PROTOCOL[entry.name]
        if players in (None, s.players) and canonical not in s.opponents
    ]
    if not settings:
        raise ConfigError(
            f"no setting of the {entry.name} protocol applies to {canonical} "
            f"(settings: {[s.name for s in PROTOCOL[entry.name]]})"
        )
    rows = []
    for s in settings:
        cfg = ArenaConfig(game=entry.name, bots=(canonical, *s.opponents), games=games, seed=SEED)
        folder = None if out is None else out / setting_folder(s)
        summary = arena(
            cfg, processes, folder, resume and folder is not None and folder.exists(), progress
        )
        me = next(b for b in summary["bots"] if b["bot"] == canonical)
        two = s.players == 2
        rows.append(
            {
                "setting": s.name,
                "players": s.players,
                "games": summary["games"],
                "figure": "score" if two else "win rate",
                "value": me["score"] if two else me["win_rate"],
                "ci": me["score_ci"] if two else me["win_ci"],
                "wins": me["wins"],
                "draws": me["draws"],
                "losses": me["losses"],
                "outcomes": summary["outcomes"],
                "ms_per_decision": me["ms_per_decision"],
            }
        )
    result = {
        "game": entry.name,
        "candidate": canonical,
        "standard": games == GAMES,
        "seed": SEED,
        "rows": rows,
    }
    if out is not None:
        write_report(out, "evaluation", result, to_markdown(result))
    return result


def to_markdown(result: dict[str, Any]) -> str:
    """The evaluation table."""
    title = registry.get(result["game"]).title
    lines = [f"# Evaluation of `{result['candidate']}` ({title})", ""]
    if not result["standard"]:
        lines += ["**Not the standard protocol** (another game count).", ""]
    lines += [
        "| setting | games | figure | value (95% CI) | wins | draws | losses | "
        "outcomes | ms/decision |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
        lines.append(
            f"| {r['setting']} | {r['games']} | {r['figure']} | {r['value']:.3f} "
            f"({r['ci'][0]:.3f}-{r['ci'][1]:.3f}) | {r['wins']} | {r['draws']} | "
            f"{r['losses']} | {outcomes} | {r['ms_per_decision']:.2f} |"
        )
    lines += [
        "",
        f"Seed {result['seed']}; seats rotated over paired seeds; a game nobody wins is a draw.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI; returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m agents.evaluate", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--game", required=True, choices=registry.names())
    who = ap.add_mutually_exclusive_group(required=True)
    who.add_argument("--policy", help="a run folder or model.zip with policy.json beside it")
    who.add_argument("--bot", help="a bot spec (heuristic, mcts:sims=400, ...)")
    ap.add_argument(
        "--games", type=int, default=GAMES, help=f"games per setting (the protocol: {GAMES})"
    )
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    spec = f"policy:{args.policy}" if args.policy else args.bot
    try:
        result = evaluate(
            args.game, spec, args.games, args.processes, args.out, args.resume, not args.no_progress
        )
    except (BotSpecError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(to_markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
