"""Self-play league training: MaskablePPO in the single-agent view against opponents drawn
from a league (``train.league``), evaluated against the fixed heuristic and random bots
during training and at the end, with a report.

Run through ``python -m train.train`` with a config that has a ``league:`` section
(``configs/train/<game>_maskppo.yaml``). One seed writes ``runs/<name>/`` (``--seeds``:
``runs/<name>/seed<k>/`` each, plus a summary ``runs/<name>/report.md``):

=======================  ==================================================================
file                     what
=======================  ==================================================================
``model.zip``            the final MaskablePPO model
``policy.onnx``          the final policy (docs/policies.md), ``policy.json`` greedy play;
                         ``sampled/`` the same policy playing sampled actions
``league/``              the snapshots (``snap-NNNN/``: policy folders) and ``league.json``
``history.json``         per evaluation: timesteps, snapshot, scores against the heuristic
                         and random with 95% intervals
``checkpoint.zip``       the model at the last snapshot (resuming); removed at the end
``eval/<mode>/``         the final arena evaluation (``agents.evaluate``'s settings of the
                         policy's player count), greedy and sampled
``report.md``            learning curve, score against the heuristic over training, the
                         final table, ratings, the opponents' share of rollout time, a GIF
                         of one game against the heuristic
=======================  ==================================================================

A run interrupted after its first snapshot resumes from ``checkpoint.zip`` and
``league/league.json`` (same command); a finished run (``report.md`` and ``result.json``
present) is skipped. A resumed run is not bit-identical to an uninterrupted one (the envs
restart their games), every figure is still from its own seeded evaluation games.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from agents.arena import ArenaConfig, GameResult, load_results, run, summarize
from agents.evaluate import PROTOCOL, SEED, setting_folder
from agents.evaluate import evaluate as protocol_evaluate
from agents.onnx_policy import OnnxPolicy
from agents.policy_bot import ONNX_FILE, write_policy_json
from agents.ratings import rate
from tabletop import registry
from train.advice_imitation import AdviceImitation
from train.export import Parity, export_checked, export_onnx
from train.league import (
    CLOCK_KINDS,
    Clock,
    League,
    LeagueOpponents,
    LeagueResults,
    LeagueSync,
)
from train.table_distillation import report_lines as distillation_lines
from train.table_distillation import table_distillation
from train.value_shaping import shaped
from train.vec_env import GroupedVecEnv
from train.views import make_view
from train.warmstart import warm_start

#: seed of the evaluation games during training (the same games for every snapshot)
HISTORY_SEED = 31_337
CHECKPOINT = "checkpoint.zip"
HISTORY_JSON = "history.json"
RESULT_JSON = "result.json"


def opponent_sets(game: str, players: int) -> dict[str, tuple[str, ...]]:
    """The fixed opponents of the evaluations: ``heuristic`` and ``random`` in every other
    seat."""
    return {name: (name,) * (players - 1) for name in ("heuristic", "random")}


def make_league_env(
    cfg: Any,
    rank: int,
    league: League,
    monitor_dir: Path | None,
    part: int,
    clock: Any,
    defer: bool = False,
) -> Any:
    """A thunk building one monitored league env: the learner on a random seat (or the
    config's), opponents drawn from ``league`` at every reset (``defer``: its results are
    left to :class:`train.league.LeagueSync`)."""

    def thunk() -> Monitor:
        entry = registry.get(cfg.game)
        seat: int | str = (
            cfg.learner_seat if cfg.learner_seat == "random" else int(cfg.learner_seat)
        )
        opponents = LeagueOpponents(
            league, entry.name, cfg.num_players - 1, seed=cfg.seed * 1000 + rank, clock=clock
        )
        view = make_view(
            cfg,
            cfg.seed * 1000 + rank + 100 * part,
            num_players=cfg.num_players,
            learner_seat=seat,
            shaping=dict(cfg.shaping),
            opponent_sampler=opponents,
            **cfg.env_options,
        )
        view.reset(seed=cfg.seed * 1000 + rank + 100 * part)
        env = LeagueResults(shaped(cfg, view), opponents, defer=defer)
        filename = str(monitor_dir / f"env{rank}.part{part}") if monitor_dir else None
        return Monitor(env, filename=filename, info_keywords=("won",))

    return thunk


def score_games(
    spec: str, game: str, opponents: tuple[str, ...], games: int, seed: int, processes: int = 1
) -> tuple[ArenaConfig, list[GameResult], dict[str, Any]]:
    """Arena games of the policy ``spec`` in lineup slot 0 against ``opponents``; the
    config, the results and the candidate's summary row."""
    cfg = ArenaConfig(game=game, bots=(spec, *opponents), games=games, seed=seed)
    results = run(cfg, processes)
    row = next(b for b in summarize(cfg, results)["bots"] if b["bot"] == spec)
    return cfg, results, row


class LeagueCallback(BaseCallback):
    """Snapshots every ``snapshot_every`` rollouts, evaluations every ``eval_every``
    snapshots, a checkpoint at every snapshot; times rollouts against the opponents' clock."""

    def __init__(
        self,
        cfg: Any,
        run_dir: Path,
        league: League,
        clock: Any,
        history: list[dict[str, Any]],
        games: list[tuple[ArenaConfig, GameResult]],
        rollouts: int = 0,
        cloned: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.cloned = cloned
        self.cfg, self.run_dir, self.league, self.clock = cfg, run_dir, league, clock
        self.history = history
        self.games = games
        self.rollouts = rollouts
        self.rollout_seconds = 0.0
        #: opponents' seconds during rollouts by kind (snapshot, bot)
        self.opponent_seconds = dict.fromkeys(CLOCK_KINDS, 0.0)
        self._t0 = 0.0
        self._c0: dict[str, float] = {}
        #: training wall and CPU seconds of earlier parts of a resumed run, and when (wall,
        #: CPU) this part's training started (None before it starts): checkpoints save the sum
        self.train_before = (0.0, 0.0)
        self.part_start: tuple[float, float] | None = None

    def _on_rollout_start(self) -> None:
        self._t0, self._c0 = time.perf_counter(), dict(self.clock.seconds)

    def _on_rollout_end(self) -> None:
        self.rollout_seconds += time.perf_counter() - self._t0
        for k, v in self.clock.seconds.items():
            self.opponent_seconds[k] += v - self._c0.get(k, 0.0)
        self.rollouts += 1
        if self.rollouts % self.cfg.league.snapshot_every == 0:
            self.snapshot()

    def _on_step(self) -> bool:
        return True

    def train_seconds(self) -> tuple[float, float]:
        """Training wall and CPU seconds so far, earlier parts of a resumed run included
        (an interrupted part counts to its last checkpoint, where its steps resume)."""
        if self.part_start is None:
            return self.train_before
        return (
            self.train_before[0] + time.perf_counter() - self.part_start[0],
            self.train_before[1] + time.process_time() - self.part_start[1],
        )

    def log_evaluation(self, row: dict[str, Any]) -> None:
        """The evaluation's scores and the league's ratings so far, to TensorBoard."""
        if self.model is None or getattr(self.model, "_logger", None) is None:
            return  # before learn() (the warm-started first snapshot): no logger yet
        names = ["heuristic", "random", *self.league.snapshots]
        _log_row(
            self.model.logger, row, rate(self.games, names, aliases(self.run_dir, self.league))
        )

    def snapshot(self) -> None:
        """Freeze the learner into the league, evaluate it when due, checkpoint."""
        model = self.model
        sid = self.league.add_snapshot(lambda p: export_onnx(model, p), model.num_timesteps)
        every = self.cfg.league.eval_every
        if every and (len(self.league.snapshots) - 1) % every == 0:
            row = evaluate_snapshot(self.cfg, self.league, sid, self.games)
            self.history.append(row)
            self.log_evaluation(row)
        save_progress(
            self.run_dir,
            self.history,
            self.games,
            self.rollouts,
            self.rollout_seconds,
            self.opponent_seconds,
            self.cloned,
            self.train_seconds(),
        )
        model.save(self.run_dir / CHECKPOINT)


def _log_row(logger: Any, row: dict[str, Any], table: list[dict[str, Any]]) -> None:
    """TensorBoard scalars of one evaluation: the scores and the snapshot's rating."""
    for name in ("heuristic", "random"):
        logger.record(f"league/score_vs_{name}", row[name]["score"])
    me = next((t for t in table if t["bot"] == row["snapshot"]), None)
    if me is not None:
        logger.record("league/rating_mu", me["mu"])
        logger.record("league/rating_sigma", me["sigma"])


def evaluate_snapshot(
    cfg: Any, league: League, sid: str, games: list[tuple[ArenaConfig, GameResult]]
) -> dict[str, Any]:
    """The snapshot's scores against the fixed opponents (seeded, the same games for every
    snapshot); its games are appended to ``games`` (for the ratings)."""
    spec = f"policy:{league.eval_dir(sid)}"
    row: dict[str, Any] = {
        "snapshot": sid,
        "timesteps": league.taken_at[sid],
        "mode": cfg.league.eval_mode,
    }
    for name, opps in opponent_sets(cfg.game, cfg.num_players).items():
        acfg, results, me = score_games(spec, cfg.game, opps, cfg.league.eval_games, HISTORY_SEED)
        games.extend((acfg, r) for r in results)
        row[name] = {
            "score": me["score"],
            "ci": me["score_ci"],
            "wins": me["wins"],
            "draws": me["draws"],
            "games": me["games"],
        }
    return row


def save_progress(
    run_dir: Path,
    history: list[dict[str, Any]],
    games: list[tuple[ArenaConfig, GameResult]],
    rollouts: int,
    rollout_seconds: float,
    opponent_seconds: dict[str, float],
    cloned: dict[str, Any] | None = None,
    train_seconds: tuple[float, float] = (0.0, 0.0),
) -> None:
    """``history.json``: the evaluations so far and what resuming needs."""
    data = {
        "history": history,
        "rollouts": rollouts,
        "rollout_seconds": rollout_seconds,
        "opponent_seconds": opponent_seconds,
        "train_seconds": train_seconds[0],
        "train_cpu_seconds": train_seconds[1],
        "warm_start": cloned,
        "games": [[c.to_json(), r.__dict__] for c, r in games],
    }
    (run_dir / HISTORY_JSON).write_text(json.dumps(data))


def load_progress(run_dir: Path) -> dict[str, Any]:
    """``history.json`` as saved (games as ``(ArenaConfig, GameResult)``)."""
    from agents.arena import config_from_json

    data = json.loads((run_dir / HISTORY_JSON).read_text())
    data["games"] = [(config_from_json(c), GameResult(**r)) for c, r in data["games"]]
    return data


def train_league(cfg: Any, run_dir: Path, resume: bool = False) -> dict[str, Any]:
    """Train one seed of a league config into ``run_dir``; returns ``result.json``'s
    contents. ``resume``: a finished run there is kept and an interrupted one continues
    from its checkpoint; else whatever a former run left there is removed first."""
    from train.train import make_eval_env, new_model, plot_learning_curve, schedule_callbacks
    from train.train import policy_meta as learner_meta

    finished = (run_dir / RESULT_JSON).is_file() and (run_dir / "report.md").is_file()
    if resume and finished:
        return json.loads((run_dir / RESULT_JSON).read_text())
    resuming = resume and (run_dir / CHECKPOINT).is_file() and (run_dir / HISTORY_JSON).is_file()
    if not resuming:  # start afresh: nothing of a former run stays
        for name in (RESULT_JSON, CHECKPOINT, HISTORY_JSON):
            (run_dir / name).unlink(missing_ok=True)
        for name in ("league", "eval", "sampled"):
            shutil.rmtree(run_dir / name, ignore_errors=True)
    torch.set_num_threads(cfg.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)
    monitor_dir = run_dir / "monitor"
    monitor_dir.mkdir(parents=True, exist_ok=True)
    meta = learner_meta(cfg)
    league = League(cfg.league, run_dir / "league", meta)
    clock = Clock()
    history: list[dict[str, Any]] = []
    games: list[tuple[ArenaConfig, GameResult]] = []
    progress: dict[str, Any] = {
        "rollouts": 0,
        "rollout_seconds": 0.0,
        "opponent_seconds": dict.fromkeys(CLOCK_KINDS, 0.0),
    }
    part = 0
    if resuming:
        league.load()
        progress = load_progress(run_dir)
        history, games = progress["history"], progress["games"]
        part = 1 + max(
            (
                int(f.name.split(".part")[1].split(".")[0])
                for f in monitor_dir.glob("*.part*.monitor.csv")
            ),
            default=0,
        )
    else:
        for old in monitor_dir.glob("*.monitor.csv"):
            old.unlink()
    # several processes: one league copy each, kept in step by LeagueSync, which also
    # times the opponents (the mean of the processes' clocks)
    defer = cfg.env_processes > 1
    thunks = [
        make_league_env(cfg, i, league, monitor_dir, part, clock, defer) for i in range(cfg.n_envs)
    ]
    venv: VecEnv
    timer: Any = clock
    if defer:
        venv = timer = LeagueSync(GroupedVecEnv(thunks, cfg.env_processes), league)
    else:
        venv = DummyVecEnv(thunks)
    try:  # the worker processes (env_processes > 1) end whatever happens
        if resuming:
            model = MaskablePPO.load(
                run_dir / CHECKPOINT, env=venv, device="cpu", tensorboard_log=str(run_dir / "tb")
            )
        else:
            model = new_model(cfg, venv, run_dir)
        if not resuming and cfg.warm_start is not None:
            progress["warm_start"] = warm_start(model, cfg)
        cb = LeagueCallback(
            cfg,
            run_dir,
            league,
            timer,
            history,
            games,
            progress["rollouts"],
            progress.get("warm_start"),
        )
        cb.rollout_seconds = progress["rollout_seconds"]
        cb.opponent_seconds = dict(progress["opponent_seconds"])
        # a history.json of an older version has no training time: the rate is then this part's
        timed = "train_seconds" in progress or not resuming
        steps_before = 0 if timed else model.num_timesteps
        cb.train_before = (
            progress.get("train_seconds", 0.0),
            progress.get("train_cpu_seconds", 0.0),
        )
        if not league.snapshots:  # the untrained policy is the first snapshot
            cb.model = model
            cb.snapshot()
        cb.part_start = (time.perf_counter(), time.process_time())
        remaining = max(0, cfg.total_timesteps - model.num_timesteps)
        callbacks = [cb, *schedule_callbacks(cfg)]
        if cfg.advice_imitation is not None:
            callbacks.append(AdviceImitation(cfg.advice_imitation, seed=cfg.seed))
        if remaining:
            model.learn(
                total_timesteps=remaining,
                progress_bar=True,
                reset_num_timesteps=not resuming,
                tb_log_name="selfplay",
                callback=CallbackList(callbacks),
            )
        seconds, cpu_seconds = cb.train_seconds()
    finally:
        venv.close()
    torch.set_num_threads(cfg.torch_threads)
    distilled = table_distillation(model, cfg) if cfg.table_distillation is not None else None
    model.save(run_dir / "model.zip")
    check = export_checked(model, run_dir, make_eval_env(cfg), seed=cfg.eval_seed)
    write_policy_json(run_dir, replace(meta, mode="greedy", onnx=ONNX_FILE))
    sampled = run_dir / "sampled"
    sampled.mkdir(exist_ok=True)
    shutil.copyfile(run_dir / ONNX_FILE, sampled / ONNX_FILE)
    write_policy_json(sampled, replace(meta, mode="sampled", model="", onnx=ONNX_FILE))
    eval_start = time.perf_counter()
    final = final_evaluation(cfg, run_dir)
    eval_seconds = time.perf_counter() - eval_start
    ratings_games = list(games) + final.pop("games")
    names = ["heuristic", "random", *league.snapshots, "final greedy", "final sampled"]
    table = rate(ratings_games, names, aliases(run_dir, league))
    plot_learning_curve(
        monitor_dir,
        run_dir / "learning_curve.png",
        f"MaskablePPO self-play league on {registry.get(cfg.game).env_id}",
    )
    plot_history(history, run_dir / "score_vs_heuristic.png", cfg)
    gif = league_game_gif(cfg, run_dir, run_dir / "game.gif")
    result = {
        "seed": cfg.seed,
        "timesteps": model.num_timesteps,
        "train_seconds": seconds,
        "train_cpu_seconds": cpu_seconds,
        "steps_per_second": (model.num_timesteps - steps_before) / seconds if seconds else 0.0,
        "resumed": resuming,
        "eval_seconds": eval_seconds,
        "rollout_seconds": cb.rollout_seconds,
        "opponent_seconds": cb.opponent_seconds,
        "opponent_share": {
            k: v / cb.rollout_seconds if cb.rollout_seconds else 0.0
            for k, v in cb.opponent_seconds.items()
        },
        "snapshots": len(league.snapshots),
        "history": history,
        "final": final,
        "warm_start": cb.cloned,
        "table_distillation": distilled,
        "ratings": table,
        "gif": gif,
        "parity": {
            "observations": check.observations,
            "argmax_equal": check.argmax_equal,
            "max_logit_diff": check.max_logit_diff,
        },
        "league_records": {k: [r.games, r.score] for k, r in league.records.items()},
    }
    (run_dir / RESULT_JSON).write_text(json.dumps(result, indent=1))
    write_league_report(run_dir, cfg, result, check)
    (run_dir / CHECKPOINT).unlink(missing_ok=True)
    return result


def aliases(run_dir: Path, league: League) -> dict[str, str]:
    """Evaluation specs by their names in the ratings: snapshots by id, the final policy by
    its mode."""
    names = {f"policy:{league.eval_dir(s, create=False)}": s for s in league.snapshots}
    names[f"policy:{run_dir}"] = "final greedy"
    names[f"policy:{run_dir / 'sampled'}"] = "final sampled"
    return names


def final_evaluation(cfg: Any, run_dir: Path) -> dict[str, Any]:
    """``agents.evaluate``'s settings of the policy's player count, ``eval_games`` games
    each, greedy (``run_dir``) and sampled (``run_dir/sampled``); rows per mode, and the
    games (for the ratings)."""
    out: dict[str, Any] = {"modes": {}, "games": []}
    players = cfg.num_players
    for mode, folder in (("greedy", run_dir), ("sampled", run_dir / "sampled")):
        spec = f"policy:{folder}"
        res = protocol_evaluate(
            cfg.game,
            spec,
            games=cfg.eval_games,
            processes=cfg.eval_processes,
            out=run_dir / "eval" / mode,
        )
        out["modes"][mode] = res["rows"]
        for s in PROTOCOL[registry.get(cfg.game).name]:
            if s.players != players:
                continue
            acfg = ArenaConfig(
                game=cfg.game, bots=(spec, *s.opponents), games=cfg.eval_games, seed=SEED
            )
            folder_s = run_dir / "eval" / mode / setting_folder(s)
            out["games"] += [(acfg, r) for r in load_results(folder_s, acfg)]
    return out


def plot_history(history: list[dict[str, Any]], out: Path, cfg: Any) -> None:
    """Score of the snapshots against the heuristic and random over training, with 95%
    intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not history:
        return
    fig, ax = plt.subplots(figsize=(8, 4.5))
    t = [h["timesteps"] for h in history]
    for name, color in (("heuristic", "tab:red"), ("random", "tab:blue")):
        s = [h[name]["score"] for h in history]
        lo = [h[name]["ci"][0] for h in history]
        hi = [h[name]["ci"][1] for h in history]
        ax.plot(t, s, "o-", color=color, label=f"against {name}")
        ax.fill_between(t, lo, hi, color=color, alpha=0.15)
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel(f"score ({cfg.league.eval_games} games, 95% interval)")
    ax.set_title(f"Snapshots of {cfg.name} (seed {cfg.seed}), {cfg.num_players} players")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def league_game_gif(cfg: Any, run_dir: Path, path: Path) -> str:
    """``game.gif``: the final policy (greedy, seat 0) in one game against the heuristic in
    every other seat; returns a caption."""
    from agents.specs import make_bot
    from train.train import eval_options, record_gif

    entry = registry.get(cfg.game)
    env = make_view(
        cfg,
        num_players=cfg.num_players,
        learner_seat=0,
        opponents=[make_bot("heuristic", entry.name, seed=s) for s in range(cfg.num_players - 1)],
        **eval_options(cfg),
    )
    policy = OnnxPolicy(run_dir / ONNX_FILE)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=cfg.eval_seed)
    done, steps = False, 0
    while not done:
        action = policy.pick(obs, env.action_masks(), True, rng)
        obs, _, term, trunc, _ = env.step(action)
        done = term or trunc
        steps += 1
    st = env.session.state
    frames = record_gif(
        env.adapter.game, env.adapter, env.record, path, cfg.gif_size, cfg.gif_frames, cfg.gif_fps
    )
    outcome = st.outcome()
    result = (
        "won"
        if outcome.winner == 0
        else f"won by seat {outcome.winner}"
        if outcome.winner is not None
        else f"nobody won ({outcome.reason.value})"
    )
    return (
        f"One game (seed {cfg.eval_seed}) of the final policy (greedy, seat 0) against "
        f"the heuristic in every other seat: {result}, {steps} decisions of the "
        f"policy; {frames} states drawn."
    )


def warm_lines(w: dict[str, Any] | None) -> list[str]:
    """The report's rows of the behaviour cloning warm start (none without one)."""
    if not w:
        return []
    return [
        f"| warm start: teacher games (won) | {w['teacher_games']} ({w['teacher_wins']}), "
        f"{w['decisions']:,} decisions, {w['snapped']:,} moved to the nearest env action, "
        f"{w['seconds'] / 60:.1f} min |",
        f"| warm start: agreement with the teacher (held-out games) | "
        f"{w['agreement_before']:.1%} before, **{w['agreement_after']:.1%}** after |",
    ]


def _ci(row: dict[str, Any]) -> str:
    lo, hi = row["ci"]
    return f"{row['value']:.3f} ({lo:.3f}-{hi:.3f})"


def write_league_report(run_dir: Path, cfg: Any, result: dict[str, Any], check: Parity) -> None:
    """``report.md`` of one seed."""
    from train.train import _plain

    entry = registry.get(cfg.game)
    lines = [
        f"# {cfg.name} (seed {cfg.seed})",
        "",
        f"MaskablePPO self-play league on `{entry.env_id}`, {cfg.num_players} players: "
        "the learner against opponents drawn from its snapshots and the fixed bots "
        f"(mixture {dict(cfg.league.mixture)}, a snapshot every "
        f"{cfg.league.snapshot_every} updates, the latest {cfg.league.latest} for "
        "`latest`).",
        "",
        "| figure | value |",
        "|---|---|",
        f"| training timesteps | {result['timesteps']:,} |",
        f"| training time | {result['train_seconds'] / 60:.1f} min "
        f"({result['steps_per_second']:,.0f} steps/s"
        f"{', resumed' if result['resumed'] else ''}) |",
        "| opponents' share of rollout time | snapshots (ONNX forward passes) "
        f"{result['opponent_share']['snapshot']:.1%}, fixed bots "
        f"{result['opponent_share']['bot']:.1%} |",
        f"| snapshots | {result['snapshots']} |",
        *warm_lines(result.get("warm_start")),
        *distillation_lines(result.get("table_distillation")),
        f"| final evaluation time | {result['eval_seconds'] / 60:.1f} min |",
        f"| policy.onnx against torch | same argmax {check.argmax_equal:,} of "
        f"{check.observations:,}, logits within {check.max_logit_diff:.1e} |",
        "",
        "## Final evaluation",
        "",
        f"`agents.evaluate` settings for {cfg.num_players} players, {cfg.eval_games} "
        f"games each (seed {SEED}, seats rotated); 2 players: score (wins + draws / 2) / "
        "games, more: win rate; 95% Wilson intervals.",
        "",
        "| setting | greedy | sampled |",
        "|---|---|---|",
    ]
    greedy, sampled = result["final"]["modes"]["greedy"], result["final"]["modes"]["sampled"]
    for g, s in zip(greedy, sampled, strict=True):
        lines.append(f"| {g['setting']} ({g['figure']}) | {_ci(g)} | {_ci(s)} |")
    lines += [
        "",
        "## Over training",
        "",
        "![score against the heuristic](score_vs_heuristic.png)",
        "",
        "| snapshot | timesteps | vs heuristic | vs random |",
        "|---|---|---|---|",
    ]
    for h in result["history"]:
        cells = [
            f"{h[n]['score']:.3f} ({h[n]['ci'][0]:.3f}-{h[n]['ci'][1]:.3f})"
            for n in ("heuristic", "random")
        ]
        lines.append(f"| {h['snapshot']} | {h['timesteps']:,} | {cells[0]} | {cells[1]} |")
    lines += [
        "",
        "![learning curve](learning_curve.png)",
        "",
        "## Ratings",
        "",
        "openskill (Plackett-Luce) over every evaluation game above in order, a game "
        "nobody wins a tie.",
        "",
        "| member | mu ± sigma | mu - 3 sigma | games | wins | draws |",
        "|---|---|---|---|---|---|",
    ]
    for t in result["ratings"]:
        if t["games"]:
            lines.append(
                f"| {t['bot']} | {t['mu']:.1f} ± {t['sigma']:.1f} | "
                f"{t['ordinal']:.1f} | {t['games']} | {t['wins']} | {t['draws']} |"
            )
    lines += [
        "",
        "![a game against the heuristic](game.gif)",
        "",
        result["gif"],
        "",
        f"Config: `{json.dumps(_plain(cfg))}`",
        "",
    ]
    (run_dir / "report.md").write_text("\n".join(lines))


def summary_report(out: Path, cfg: Any, results: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """``runs/<name>/report.md`` over the seeds: each seed's final figures and their mean
    with the spread (sample standard deviation, min and max)."""
    seeds = sorted(results)
    modes = ("greedy", "sampled")
    rows = []
    first = results[seeds[0]]["final"]["modes"]["greedy"]
    for i, setting in enumerate(first):
        for mode in modes:
            vals = [results[s]["final"]["modes"][mode][i]["value"] for s in seeds]
            rows.append(
                {
                    "setting": setting["setting"],
                    "figure": setting["figure"],
                    "mode": mode,
                    "values": vals,
                    "mean": float(np.mean(vals)),
                    "std": float(np.std(vals, ddof=1)) if len(vals) > 1 else 0.0,
                    "min": min(vals),
                    "max": max(vals),
                }
            )
    minutes = [results[s]["train_seconds"] / 60 for s in seeds]
    data = {
        "name": cfg.name,
        "seeds": seeds,
        "rows": rows,
        "train_minutes": minutes,
        "steps_per_second": [results[s]["steps_per_second"] for s in seeds],
    }
    lines = [
        f"# {cfg.name}: {len(seeds)} seeds ({', '.join(map(str, seeds))})",
        "",
        f"Each seed's report: `seed<k>/report.md`. Final evaluation, {cfg.eval_games} "
        "games a setting; mean over the seeds, sample standard deviation, range.",
        "",
        "| setting | mode | per seed | mean ± sd | range |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        per = ", ".join(f"{v:.3f}" for v in r["values"])
        lines.append(
            f"| {r['setting']} ({r['figure']}) | {r['mode']} | {per} | "
            f"**{r['mean']:.3f}** ± {r['std']:.3f} | {r['min']:.3f}-{r['max']:.3f} |"
        )
    lines += [
        "",
        f"Training time per seed: {', '.join(f'{m:.1f}' for m in minutes)} min; "
        "steps/s: " + ", ".join(f"{v:,.0f}" for v in data["steps_per_second"]) + ".",
        "",
        "Seeds differ, and the same seed differs between machines (CPUs round "
        "differently and training amplifies it): quote the mean with its spread, "
        "never one run.",
        "",
    ]
    (out / "report.md").write_text("\n".join(lines))
    (out / "summary.json").write_text(json.dumps(data, indent=1))
    return data
