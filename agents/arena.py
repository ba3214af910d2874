"""The arena: seeded games between bots, seats rotated, results that do not depend on the
number of worker processes, win rates and scores with Wilson intervals, openskill ratings.

``python -m agents.arena --game lunatix --players 4 --bots heuristic,random,random,random
--games 400 --seed 0 --processes 2 [--out DIR [--resume]]``

The lineup (``--bots``, one spec a seat, see :mod:`agents.specs`) is played in each of its
``n`` cyclic seat orders on the same game seed (paired seeds), so every lineup slot sits in
every seat equally often; ``--games`` is rounded up to a multiple of ``n``. Game ``g`` uses
seed number ``g // n`` and seat order ``g % n``; its chance draws, bot seeds and seats come
from ``(seed, g // n, g % n)`` alone, so a game is the same whichever process plays it.

Scoring: a game that nobody wins (every car out, truncated at the round limit) is a draw.
Per bot (lineup slots with the same spec pooled): games, wins, draws, losses, win rate and
score ``(wins + draws / 2) / games`` with 95% Wilson intervals, mean return, openskill
(Plackett-Luce) rating with its uncertainty, and mean time per decision. Ratings rate the
distinct bots of a game as one player each, ranked first if one of its seats won, all tied
when nobody won; games are rated in index order, so the ratings are reproducible.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.bot import Bot
from agents.specs import BotSpecError, make_bot, parse, split_specs
from agents.stats import wilson
from tabletop import registry
from tabletop.errors import ConfigError

RESULTS_JSON = "results.json"
RESULTS_MD = "results.md"
#: results.json format version
FORMAT = 1
#: keys mixed into a game's seed sequence: chance draws and each slot's bot
CHANCE_KEY, BOT_KEY = 1, 2
#: games between two saves of results.json (an interrupted run loses at most these)
SAVE_EVERY = 10


@dataclass(frozen=True)
class ArenaConfig:
    """One arena run: the game, the lineup (a spec per seat), the games and the seed."""

    game: str
    bots: tuple[str, ...]
    games: int
    seed: int = 0
    #: rules overrides of the game (``Game(**rules)``), e.g. ``{"table": "large"}``
    rules: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        registry.get(self.game)
        if len(self.bots) < 2:
            raise ConfigError("the arena needs at least two seats (--bots a,b)")
        for b in self.bots:
            parse(b)
        if self.games < 1:
            raise ConfigError(f"games must be at least 1, got {self.games}")

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.bots)

    @property
    def total_games(self) -> int:
        """``games`` rounded up to a multiple of the seat count (each seat order once)."""
        n = self.players
        return -(-self.games // n) * n

    def to_json(self) -> dict[str, Any]:
        """The config as JSON (``results.json``)."""
        return {
            "game": self.game,
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
            "rules": dict(self.rules),
        }


@dataclass
class GameResult:
    """One arena game, by lineup slot (slot ``i`` played spec ``bots[i]``)."""

    index: int
    seat_of_slot: list[int]
    reason: str
    winner_slot: int | None
    returns: list[float]
    decisions: list[int]
    think_seconds: list[float]
    rounds: int | None


def game_seeds(cfg: ArenaConfig, index: int) -> tuple[int, np.random.SeedSequence]:
    """``(seed order, seed sequence)`` of game ``index``: the seat order ``index % n`` and
    the sequence of seed number ``index // n`` (the same for every seat order)."""
    n = cfg.players
    return index % n, np.random.SeedSequence([cfg.seed, index // n])


class Table:
    """The bots of one process, built once and reset before each game."""

    def __init__(self, cfg: ArenaConfig) -> None:
        self.cfg = cfg
        self.entry = registry.get(cfg.game)
        self.game = self.entry.game(num_players=cfg.players, **cfg.rules)
        self.bots: list[Bot] = [make_bot(spec, cfg.game) for spec in cfg.bots]

    def play(self, index: int) -> GameResult:
        """Play game ``index`` of the run."""
        cfg, n = self.cfg, self.cfg.players
        rotation, seq = game_seeds(cfg, index)
        game_seed = int(seq.generate_state(1, np.uint64)[0] >> np.uint64(2))
        chance_rng = np.random.default_rng(
            np.random.SeedSequence([cfg.seed, index // n, CHANCE_KEY])
        )
        seat_of_slot = [(slot + rotation) % n for slot in range(n)]
        bot_at = {seat_of_slot[slot]: self.bots[slot] for slot in range(n)}
        bot_seeds = np.random.SeedSequence(
            [cfg.seed, index // n, BOT_KEY, rotation]
        ).generate_state(n, np.uint64)
        for slot, bot in enumerate(self.bots):
            bot.reset(int(bot_seeds[slot]))
        state = self.game.new_initial_state(game_seed)
        decisions = [0] * n
        think = [0.0] * n
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_chance(state.sample_chance(chance_rng))
                continue
            deciders = state.current_players()
            actions = {}
            for seat in deciders:
                t0 = time.perf_counter()
                actions[seat] = bot_at[seat].act(state, seat)
                think[seat] += time.perf_counter() - t0
                decisions[seat] += 1
            if len(deciders) == 1:
                state.apply_action(actions[deciders[0]])
            else:
                state.apply_actions(actions)
        out = state.outcome()
        returns = state.returns()
        winner = out.winner
        return GameResult(
            index=index,
            seat_of_slot=seat_of_slot,
            reason=out.reason.value,
            winner_slot=None if winner is None else seat_of_slot.index(winner),
            returns=[float(returns[seat_of_slot[s]]) for s in range(n)],
            decisions=[decisions[seat_of_slot[s]] for s in range(n)],
            think_seconds=[think[seat_of_slot[s]] for s in range(n)],
            rounds=getattr(state, "round", None),
        )


_TABLE: Table | None = None


def _init_worker(cfg_json: dict[str, Any]) -> None:
    global _TABLE
    _TABLE = Table(config_from_json(cfg_json))


def _play_in_worker(index: int) -> GameResult:
    assert _TABLE is not None
    return _TABLE.play(index)


def config_from_json(data: dict[str, Any]) -> ArenaConfig:
    """An :class:`ArenaConfig` from its JSON (``results.json``), validated."""
    if not isinstance(data, dict) or set(data) != {"game", "bots", "games", "seed", "rules"}:
        raise ConfigError(
            f"arena config: expected keys game, bots, games, seed, rules; got "
            f"{sorted(data) if isinstance(data, dict) else type(data).__name__}"
        )
    if not (isinstance(data["bots"], list) and all(isinstance(b, str) for b in data["bots"])):
        raise ConfigError("arena config: bots must be a list of spec strings")
    for key in ("games", "seed"):
        if isinstance(data[key], bool) or not isinstance(data[key], int):
            raise ConfigError(f"arena config: {key} must be an int")
    if not isinstance(data["rules"], dict) or not isinstance(data["game"], str):
        raise ConfigError("arena config: game must be a string and rules a mapping")
    return ArenaConfig(
        game=data["game"],
        bots=tuple(data["bots"]),
        games=data["games"],
        seed=data["seed"],
        rules=dict(data["rules"]),
    )


def run(
    cfg: ArenaConfig,
    processes: int = 1,
    done: Sequence[GameResult] = (),
    on_result: Callable[[GameResult], None] | None = None,
    progress: bool = False,
) -> list[GameResult]:
    """Play every game of ``cfg`` not in ``done``; returns all results in index order."""
    have = {r.index: r for r in done}
    todo = [i for i in range(cfg.total_games) if i not in have]
    bar = _Progress(cfg.total_games, len(have)) if progress else None
    results: Iterable[GameResult]
    if processes <= 1 or len(todo) <= 1:
        table = Table(cfg)
        results = (table.play(i) for i in todo)
        pool = None
    else:
        ctx = multiprocessing.get_context("spawn")  # no state inherited from this process
        pool = ctx.Pool(processes, initializer=_init_worker, initargs=(cfg.to_json(),))
        results = pool.imap(_play_in_worker, todo, chunksize=1)
    try:
        for r in results:
            have[r.index] = r
            if on_result is not None:
                on_result(r)
            if bar is not None:
                bar.step()
    finally:
        if pool is not None:
            pool.terminate()
        if bar is not None:
            bar.close()
    return [have[i] for i in sorted(have)]


class _Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, done: int) -> None:
        self.total, self.done, self.t0 = total, done, time.perf_counter()
        self.start = done
        self.step(0)

    def step(self, k: int = 1) -> None:
        self.done += k
        frac = self.done / self.total if self.total else 1.0
        played = self.done - self.start
        rate = played / max(time.perf_counter() - self.t0, 1e-9)
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        bar = "#" * int(30 * frac)
        sys.stderr.write(
            f"\r[{bar:<30}] {self.done}/{self.total} games"
            + (f", {eta:.0f} s left" if math.isfinite(eta) else "")
        )
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


# ---------------------------------------------------------------------------- summary
@dataclass
class BotRow:
    """The summary of one bot (its lineup slots pooled)."""

    bot: str
    seats: int
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    total_return: float = 0.0
    decisions: int = 0
    think_seconds: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0

    @property
    def score(self) -> float:
        """``(wins + draws / 2) / games``."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        """The row with its rates and intervals."""
        wl, wh = wilson(self.wins, self.games)
        sl, sh = wilson(self.wins + self.draws / 2, self.games)
        return {
            **asdict(self),
            "win_rate": self.wins / self.games if self.games else 0.0,
            "win_ci": [wl, wh],
            "score": self.score,
            "score_ci": [sl, sh],
            "mean_return": self.total_return / self.games if self.games else 0.0,
            "ms_per_decision": 1000 * self.think_seconds / max(self.decisions, 1),
            "rating": self.mu - 3 * self.sigma,
        }


def summarize(cfg: ArenaConfig, results: Sequence[GameResult]) -> dict[str, Any]:
    """Per-bot rows, outcome counts and ratings of ``results`` (in index order)."""
    from openskill.models import PlackettLuce

    names = list(dict.fromkeys(cfg.bots))
    rows = {b: BotRow(b, seats=cfg.bots.count(b)) for b in names}
    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in names}
    reasons: dict[str, int] = {}
    for r in sorted(results, key=lambda r: r.index):
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
        winner = None if r.winner_slot is None else cfg.bots[r.winner_slot]
        for b in names:
            row = rows[b]
            slots = [i for i, s in enumerate(cfg.bots) if s == b]
            row.games += 1
            if winner is None:
                row.draws += 1
            elif winner == b:
                row.wins += 1
            else:
                row.losses += 1
            row.total_return += sum(r.returns[i] for i in slots) / len(slots)
            row.decisions += sum(r.decisions[i] for i in slots)
            row.think_seconds += sum(r.think_seconds[i] for i in slots)
        if len(names) > 1:
            ranks = [0 if winner is None or winner == b else 1 for b in names]
            teams = model.rate([[ratings[b]] for b in names], ranks=ranks)
            ratings = {b: t[0] for b, t in zip(names, teams, strict=True)}
    for b in names:
        rows[b].mu, rows[b].sigma = ratings[b].mu, ratings[b].sigma
    return {
        "config": cfg.to_json(),
        "games": len(results),
        "outcomes": reasons,
        "bots": [rows[b].to_json() for b in names],
    }


def to_markdown(summary: dict[str, Any]) -> str:
    """The summary as a Markdown table with the outcomes."""
    c = summary["config"]
    n = len(c["bots"])
    lines = [
        f"# Arena: {registry.get(c['game']).title}, {n} players",
        "",
        f"Lineup `{','.join(c['bots'])}`, {summary['games']} games (seat orders rotated "
        f"over paired seeds), seed {c['seed']}"
        + (f", rules {json.dumps(c['rules'], sort_keys=True)}" if c["rules"] else "")
        + ".",
        "",
        "| bot | seats | games | wins | draws | losses | win rate (95% CI) | "
        "score (95% CI) | mean return | rating (mu ± sigma) | ms/decision |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for b in summary["bots"]:
        lines.append(
            f"| `{b['bot']}` | {b['seats']} | {b['games']} | {b['wins']} | {b['draws']} | "
            f"{b['losses']} | {b['win_rate']:.3f} ({b['win_ci'][0]:.3f}-{b['win_ci'][1]:.3f}) "
            f"| {b['score']:.3f} ({b['score_ci'][0]:.3f}-{b['score_ci'][1]:.3f}) | "
            f"{b['mean_return']:+.3f} | {b['mu']:.1f} ± {b['sigma']:.1f} | "
            f"{b['ms_per_decision']:.2f} |"
        )
    outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(summary["outcomes"].items()))
    lines += [
        "",
        f"Outcomes: {outcomes}. A game nobody wins (truncated at the round limit, "
        "every car out) is a draw for every bot; score = (wins + draws / 2) / games.",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- files
def load_results(out: Path, cfg: ArenaConfig) -> list[GameResult]:
    """The results saved in ``out/results.json`` for the same config (ConfigError if the
    file is of another run or malformed)."""
    path = out / RESULTS_JSON
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot resume from {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(f"{path}: not an arena results file of format {FORMAT}")
    if data.get("config") != cfg.to_json():
        raise ConfigError(
            f"{path} is of another run: {data.get('config')} (this run: {cfg.to_json()})"
        )
    results = []
    names = {f.name for f in GameResult.__dataclass_fields__.values()}
    for item in data.get("results", []):
        if not isinstance(item, dict) or set(item) != names:
            raise ConfigError(f"{path}: malformed game result {item!r}")
        r = GameResult(**item)
        if not (isinstance(r.index, int) and 0 <= r.index < cfg.total_games):
            raise ConfigError(f"{path}: game index {r.index!r} out of range")
        results.append(r)
    return results


def save(out: Path, cfg: ArenaConfig, results: Sequence[GameResult], final: bool) -> None:
    """Write ``results.json`` (config and every game so far) and, when ``final``, the
    summary in it and ``results.md``; the JSON is replaced atomically."""
    out.mkdir(parents=True, exist_ok=True)
    ordered = sorted(results, key=lambda r: r.index)
    data: dict[str, Any] = {
        "format": FORMAT,
        "config": cfg.to_json(),
        "results": [asdict(r) for r in ordered],
    }
    if final:
        summary = summarize(cfg, ordered)
        data["summary"] = summary
        (out / RESULTS_MD).write_text(to_markdown(summary))
    tmp = out / (RESULTS_JSON + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(out / RESULTS_JSON)


def arena(
    cfg: ArenaConfig,
    processes: int = 1,
    out: Path | None = None,
    resume: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Run ``cfg`` (continuing ``out``'s saved games with ``resume``); returns the summary."""
    done: list[GameResult] = []
    if resume:
        if out is None:
            raise ConfigError("--resume needs --out DIR")
        if (out / RESULTS_JSON).exists():
            done = load_results(out, cfg)
    collected = list(done)

    def keep(r: GameResult) -> None:
        collected.append(r)
        if out is not None and len(collected) % SAVE_EVERY == 0:
            save(out, cfg, collected, final=False)

    results = run(cfg, processes, done, keep, progress)
    if out is not None:
        save(out, cfg, results, final=True)
    return summarize(cfg, results)


def parse_rules(items: Sequence[str]) -> dict[str, Any]:
    """``key=value`` rules overrides; values parsed as JSON where they are JSON (numbers,
    true/false), else kept as strings."""
    rules: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ConfigError(f"--rules {item!r}: expected key=value")
        try:
            rules[key] = json.loads(value)
        except json.JSONDecodeError:
            rules[key] = value
    return rules


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI; returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m agents.arena",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--game", required=True, choices=registry.names())
    ap.add_argument("--players", type=int, help="seats (default: the number of --bots)")
    ap.add_argument(
        "--bots",
        required=True,
        help="comma-separated bot specs, one a seat (random, heuristic, "
        "mcts:sims=400, policy:PATH); with --players and fewer specs, the "
        "last one fills the remaining seats",
    )
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="rules overrides of the game, e.g. table=large powers=true",
    )
    ap.add_argument("--out", type=Path, help="folder for results.md and results.json")
    ap.add_argument(
        "--resume", action="store_true", help="continue the run saved in --out (same config)"
    )
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    bots = split_specs(args.bots)
    try:
        if args.players is not None:
            if args.players < len(bots):
                raise ConfigError(f"--players {args.players} but {len(bots)} bots given")
            bots += [bots[-1]] * (args.players - len(bots))
        cfg = ArenaConfig(
            game=args.game,
            bots=tuple(bots),
            games=args.games,
            seed=args.seed,
            rules=parse_rules(args.rules),
        )
        if cfg.total_games != cfg.games:
            print(
                f"{cfg.games} games rounded up to {cfg.total_games} (every seat order "
                "equally often)",
                file=sys.stderr,
            )
        summary = arena(cfg, args.processes, args.out, args.resume, progress=not args.no_progress)
    except (BotSpecError, ConfigError, registry.UnknownGameError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(to_markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
