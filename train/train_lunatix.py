"""Train MaskablePPO on LunatixLoop-v0 against random opponents, evaluate, write a report.

Usage: ``python -m train.train_lunatix [--config configs/train/lunatix_maskppo.yaml]
[--timesteps N] [--name NAME] [--eval-games N]``. Writes ``runs/<name>/``: ``model.zip``,
TensorBoard logs under ``tb/``, ``monitor/`` episode logs, ``learning_curve.png``,
``eval.json`` and ``report.md`` (win rate over seeded evaluation games with a 95% Wilson
interval; truncated games count as not won).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from lunatix_env.envs import LunatixSingleAgentEnv, Shaping
from tabletop.config import load_config

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = ROOT / "configs" / "train" / "lunatix_maskppo.yaml"


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyperparameters."""

    learning_rate: float = 3e-4
    n_steps: int = 512
    batch_size: int = 1024
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    net_arch: tuple[int, ...] = (256, 128)


@dataclass(frozen=True)
class TrainConfig:
    """One training run."""

    name: str
    seed: int = 0
    num_players: int = 4
    learner_seat: str = "random"
    total_timesteps: int = 600_000
    n_envs: int = 8
    torch_threads: int = 1
    ppo: PPOConfig = field(default_factory=PPOConfig)
    shaping: Shaping = field(default_factory=Shaping)  # training-time shaping weights
    eval_games: int = 200
    eval_seed: int = 10_000
    eval_deterministic: bool = False  # False: sample from the policy (seeded), as trained
    subprocess_envs: bool = False


def make_env(cfg: TrainConfig, rank: int, monitor_dir: Path | None):
    """A thunk building one monitored single-agent env (for the vec env)."""

    def thunk() -> Monitor:
        seat: int | str = cfg.learner_seat if cfg.learner_seat == "random" else int(
            cfg.learner_seat)
        env = LunatixSingleAgentEnv(
            num_players=cfg.num_players, learner_seat=seat,
            shaping=cfg.shaping,
        )
        env.reset(seed=cfg.seed * 1000 + rank)
        filename = str(monitor_dir / f"env{rank}") if monitor_dir else None
        return Monitor(env, filename=filename, info_keywords=("won",))

    return thunk


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(model: MaskablePPO | None, cfg: TrainConfig, games: int, seed: int,
             deterministic: bool = False) -> dict[str, float | int | list[int]]:
    """Play seeded games (learner seat rotating) against random opponents; None = random.

    With ``deterministic=False`` the policy samples its actions (torch seeded from ``seed``,
    so the evaluation is reproducible); True takes the most likely action.
    """
    torch.manual_seed(seed)
    env = LunatixSingleAgentEnv(num_players=cfg.num_players, learner_seat=0)
    wins = truncated = all_out = 0
    outcomes = []
    rng = np.random.default_rng(seed)
    for i in range(games):
        env.learner = i % cfg.num_players
        env._seat_option = env.learner  # noqa: SLF001 - fixed seat per evaluation game
        obs, _ = env.reset(seed=seed + i)
        done = False
        while not done:
            mask = env.action_masks()
            if model is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action, _ = model.predict(obs, action_masks=mask,
                                          deterministic=deterministic)
            obs, _, term, trunc, _ = env.step(int(action))
            done = term or trunc
        st = env.session.state
        won = st.winner == env.learner
        wins += won
        truncated += st.outcome().reason.value == "truncated"
        all_out += st.outcome().reason.value == "all_out"
        outcomes.append(int(won))
    lo, hi = wilson(wins, games)
    return {"games": games, "wins": wins, "win_rate": wins / games, "ci_low": lo,
            "ci_high": hi, "truncated": truncated, "all_out": all_out, "won": outcomes}


def plot_learning_curve(monitor_dir: Path, out: Path) -> None:
    """Rolling episode reward and win rate against timesteps, from the Monitor logs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for f in sorted(monitor_dir.glob("*.monitor.csv")):
        lines = f.read_text().splitlines()[2:]
        for line in lines:
            r, length, t, won = line.split(",")[:4]
            rows.append((float(t), float(r), int(length), float(won)))
    rows.sort()
    if not rows:
        return
    t, r, length, won = (np.array(c) for c in zip(*rows, strict=True))
    steps = np.cumsum(length)
    k = max(1, min(200, len(r) // 10))
    kernel = np.ones(k) / k
    fig, ax1 = plt.subplots(figsize=(8, 4.5))
    ax1.plot(steps[k - 1:], np.convolve(r, kernel, "valid"), color="tab:blue")
    ax1.set_xlabel("learner steps")
    ax1.set_ylabel(f"episode reward (mean of {k})", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(steps[k - 1:], np.convolve(won, kernel, "valid"), color="tab:red")
    ax2.set_ylabel("win rate (training games)", color="tab:red")
    ax2.set_ylim(0, 1)
    ax1.set_title("MaskablePPO on LunatixLoop-v0 vs three random players")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def write_report(run_dir: Path, cfg: TrainConfig, ev: dict, other: dict, baseline: dict,
                 seconds: float, timesteps: int) -> None:
    """``report.md`` with the figures of the run."""
    rate = (f"**{ev['win_rate']:.1%}** (95% Wilson interval {ev['ci_low']:.1%} - "
            f"{ev['ci_high']:.1%})")
    base = f"{baseline['win_rate']:.1%} ({baseline['wins']}/{baseline['games']})"
    mode = "deterministic (most likely action)" if cfg.eval_deterministic else "sampled"
    other_mode = "sampled" if cfg.eval_deterministic else "deterministic"
    alt = f"{other['win_rate']:.1%} ({other['truncated']} truncated)"
    text = f"""# {cfg.name}

MaskablePPO (sb3-contrib) on `LunatixLoop-v0`, {cfg.num_players} players: the learner
against {cfg.num_players - 1} uniformly random opponents.

| figure | value |
|---|---|
| training timesteps | {timesteps:,} |
| training time | {seconds / 60:.1f} min |
| evaluation games | {ev['games']} (seeded from {cfg.eval_seed}, learner seat rotating) |
| policy actions | {mode} |
| **win rate** | {rate} |
| games ending with every car out | {ev['all_out']} |
| truncated games (count as not won) | {ev['truncated']} |
| the same model, {other_mode} actions | {alt} |
| random policy in the same seats | {base} |

![learning curve](learning_curve.png)

Config: `{json.dumps(_plain(cfg))}`
"""
    (run_dir / "report.md").write_text(text)


def _plain(cfg: TrainConfig) -> dict:
    from tabletop.config import to_mapping

    return to_mapping(cfg)


def main(argv: list[str] | None = None) -> dict:
    """Train, evaluate, report; returns the evaluation figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default=str(DEFAULT_CONFIG))
    ap.add_argument("--timesteps", type=int, default=None)
    ap.add_argument("--name", default=None)
    ap.add_argument("--eval-games", type=int, default=None)
    ap.add_argument("--runs-dir", default=str(ROOT / "runs"))
    args = ap.parse_args(argv)
    cfg = load_config(TrainConfig, args.config)
    if args.timesteps is not None:
        cfg = replace(cfg, total_timesteps=args.timesteps)
    if args.name is not None:
        cfg = replace(cfg, name=args.name)
    if args.eval_games is not None:
        cfg = replace(cfg, eval_games=args.eval_games)
    torch.set_num_threads(cfg.torch_threads)
    run_dir = Path(args.runs_dir) / cfg.name
    monitor_dir = run_dir / "monitor"
    monitor_dir.mkdir(parents=True, exist_ok=True)
    for old in monitor_dir.glob("*.monitor.csv"):
        old.unlink()
    thunks = [make_env(cfg, i, monitor_dir) for i in range(cfg.n_envs)]
    venv: VecEnv = SubprocVecEnv(thunks) if cfg.subprocess_envs else DummyVecEnv(thunks)
    p = cfg.ppo
    model = MaskablePPO(
        "MlpPolicy", venv, learning_rate=p.learning_rate, n_steps=p.n_steps,
        batch_size=p.batch_size, n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda,
        ent_coef=p.ent_coef, clip_range=p.clip_range, seed=cfg.seed, verbose=0,
        policy_kwargs={"net_arch": list(p.net_arch)}, tensorboard_log=str(run_dir / "tb"),
        device="cpu",
    )
    start = time.perf_counter()
    model.learn(total_timesteps=cfg.total_timesteps, progress_bar=True)
    seconds = time.perf_counter() - start
    model.save(run_dir / "model.zip")
    venv.close()
    ev = evaluate(model, cfg, cfg.eval_games, cfg.eval_seed, cfg.eval_deterministic)
    other = evaluate(model, cfg, cfg.eval_games, cfg.eval_seed, not cfg.eval_deterministic)
    baseline = evaluate(None, cfg, cfg.eval_games, cfg.eval_seed)
    (run_dir / "eval.json").write_text(json.dumps(
        {"model": ev, "model_other_mode": other, "random": baseline}, indent=1))
    plot_learning_curve(monitor_dir, run_dir / "learning_curve.png")
    write_report(run_dir, cfg, ev, other, baseline, seconds, model.num_timesteps)
    print(f"win rate {ev['win_rate']:.1%} (95% CI {ev['ci_low']:.1%}-{ev['ci_high']:.1%}) over "
          f"{ev['games']} games; random {baseline['win_rate']:.1%}; report: "
          f"{run_dir / 'report.md'}")
    return ev


if __name__ == "__main__":
    main()
