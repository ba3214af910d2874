"""Train MaskablePPO on a game's single-agent env against random opponents, evaluate,
write a report.

Usage: ``python -m train.train [--config configs/train/lunatix_maskppo.yaml]
[--timesteps N] [--name NAME] [--eval-games N]``. The config's ``game`` picks the env
(a name of the game registry, ``tabletop.registry``: ``lunatix`` for ``LunatixLoop-v0``,
``ryderz`` for ``LazerRyderz-v0``);
``env_options`` are passed to its single-agent env. Writes ``runs/<name>/``: ``model.zip``,
TensorBoard logs under ``tb/``, ``monitor/`` episode logs, ``learning_curve.png``,
``policy.json`` (``agents.policy_bot``: what the policy bot needs), ``policy.onnx``
(the policy without torch, docs/policies.md, checked against torch on 1,000 positions),
``eval.json``, ``report.md`` (win rate over seeded evaluation games with a 95% Wilson
interval; truncated games count as not won) and, with ``gif: true``, ``game.gif`` (one
evaluation game replayed from its record).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.type_aliases import Schedule
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from agents.advice import check_advice
from agents.fitted_value import load_model
from agents.policy_bot import ONNX_FILE, PolicyMeta, write_policy_json
from agents.specs import BotSpecError, check_spec
from agents.stats import wilson
from agents.torch_layers import AdvisedPolicy, AdvisedTrunk, SharedTrunk
from tabletop import registry
from tabletop.config import is_finite_number, load_config
from tabletop.draw import frames_to_gif
from tabletop.env_core import random_masked_index
from tabletop.errors import ConfigError, InvalidStateError
from tabletop.records import GameRecord, iter_replay
from train.advice_imitation import AdviceImitationConfig
from train.export import Parity, export_checked
from train.league import LeagueConfig
from train.table_distillation import TableDistillationConfig, table_distillation
from train.value_shaping import shaped
from train.vec_env import GroupedVecEnv, worker_start_method
from train.views import make_view
from train.warmstart import WarmStartConfig, warm_start

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = registry.get("lunatix").train_config_path()


#: env options that apply to the training games only (evaluation uses the game's default)
TRAINING_ONLY_OPTIONS = ("max_rounds",)


#: the values of ``ppo.lr_schedule``
LR_SCHEDULES = ("constant", "linear")


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
    # > 0: a first layer of this width shared by pi and vf (agents.torch_layers.SharedTrunk),
    # net_arch then gives the separate layers after it; 0: separate pi and vf MLPs
    shared_trunk: int = 0
    # > 0 (with advice): PPO's loss gains ent_coef * advice_pull * KL(advice || policy), a
    # pull towards the advised move in units of the entropy bonus (AdvisedPolicy)
    advice_pull: float = 0.0
    # the learning rate over training: ``constant``, or ``linear`` from learning_rate at the
    # first update to 0 at total_timesteps (CleanRL's anneal_lr; a resumed run continues it)
    lr_schedule: str = "constant"
    # 0: the advice pull stays advice_pull all run; f in (0, 1]: it falls in a straight line
    # from advice_pull to 0 at f * total_timesteps and stays 0 after (AdvicePullFade)
    advice_pull_fade: float = 0.0

    def __post_init__(self) -> None:
        if self.lr_schedule not in LR_SCHEDULES:
            raise ConfigError(
                f"ppo.lr_schedule: one of {list(LR_SCHEDULES)}, got {self.lr_schedule!r}"
            )
        fade = self.advice_pull_fade
        if not (is_finite_number(fade) and 0.0 <= fade <= 1.0):
            raise ConfigError(f"ppo.advice_pull_fade must be a number in [0, 1], got {fade!r}")
        if fade > 0 and not (is_finite_number(self.advice_pull) and self.advice_pull > 0):
            raise ConfigError(
                f"ppo.advice_pull_fade fades the advice pull: it needs ppo.advice_pull > 0 "
                f"(got {self.advice_pull!r})"
            )

    def advice_pull_at(self, steps: int, total_timesteps: int) -> float:
        """The advice pull of the update after ``steps`` env steps of ``total_timesteps``."""
        if self.advice_pull_fade <= 0:
            return self.advice_pull
        end = self.advice_pull_fade * total_timesteps
        if end <= 0:  # a run of no steps has faded already
            return 0.0
        return self.advice_pull * max(0.0, 1.0 - steps / end)

    def learning_rate_schedule(self) -> float | Schedule:
        """SB3's ``learning_rate``: the number, or a schedule of the remaining progress."""
        if self.lr_schedule == "linear":
            return LinearSchedule(self.learning_rate, 0.0, 1.0)
        return self.learning_rate


@dataclass(frozen=True)
class TrainConfig:
    """One training run."""

    name: str
    game: str = "lunatix"  # a game of the registry (tabletop.registry)
    # keyword options of the game's single-agent env (action_mode, table, max_rounds, ...);
    # the TRAINING_ONLY_OPTIONS among them are left out of the evaluation games
    env_options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    num_players: int = 4
    learner_seat: str = "random"
    total_timesteps: int = 600_000
    n_envs: int = 8
    torch_threads: int = 1  # torch threads while collecting rollouts (batch = n_envs)
    update_threads: int = 1  # torch threads during the gradient updates
    ppo: PPOConfig = field(default_factory=PPOConfig)
    # training-time shaping weights of the game's env (lunatix: progress, damage; ryderz:
    # prizms, crash); the evaluation games have none
    shaping: dict[str, float] = field(default_factory=dict)
    eval_games: int = 200
    eval_seed: int = 10_000
    eval_deterministic: bool = False  # False: sample from the policy (seeded), as trained
    env_processes: int = 1  # processes stepping the envs, this one included (GroupedVecEnv)
    eval_processes: int = 1  # processes playing the evaluation games (1: in this process)
    gif: bool = False  # game.gif: one evaluation game (the first won, else the first)
    gif_size: int = 320  # pixels high (the width in proportion)
    gif_frames: int = 90  # at most this many frames (every k-th state of the game)
    gif_fps: float = 6.0
    # a self-play league (train.league, train.selfplay): opponents drawn from the learner's
    # snapshots and the fixed bots; None trains against random opponents (as before)
    league: LeagueConfig | None = None
    # behaviour cloning of a teacher bot before PPO (train.warmstart); None: none
    warm_start: WarmStartConfig | None = None
    # a bot spec whose move the policy sees beside its observation (agents.advice: a
    # one-hot over the env actions; the policy is agents.torch_layers.AdvisedPolicy), or ""
    advice: str = ""
    # weight of potential-based shaping with the fitted value (train.value_shaping); 0: none
    value_shaping: float = 0.0
    # after each PPO update, imitate the advice on the learner's positions at the chosen
    # tables of the league (train.advice_imitation); None: none
    advice_imitation: AdviceImitationConfig | None = None
    # after PPO, fit the policy to the advice at tables of some opponents and to itself at
    # tables of others (train.table_distillation); None: none
    table_distillation: TableDistillationConfig | None = None

    def __post_init__(self) -> None:
        registry.get(self.game)  # UnknownGameError (a ValueError) naming the known games
        check_advice(self.advice, "advice", game=self.game)
        if self.warm_start is not None:
            for spec in (self.warm_start.teacher, *self.warm_start.opponents):
                try:
                    check_spec(spec, self.game)
                except BotSpecError as exc:
                    raise ConfigError(f"warm_start: {exc}") from None
        if not (is_finite_number(self.value_shaping) and self.value_shaping >= 0):
            raise ConfigError(
                f"value_shaping must be a finite number >= 0, got {self.value_shaping}"
            )
        if self.value_shaping > 0.0:
            try:
                load_model(self.game, self.num_players)
            except (ConfigError, InvalidStateError, OSError) as exc:
                raise ConfigError(
                    f"value_shaping: no fitted value for {self.game} with "
                    f"{self.num_players} players ({exc}); python -m agents.fitted_value fits one"
                ) from None
        pull = self.ppo.advice_pull
        if not (is_finite_number(pull) and pull >= 0):
            raise ConfigError(f"ppo.advice_pull must be a finite number >= 0, got {pull}")
        if pull > 0 and not (self.advice and self.ppo.ent_coef > 0):
            raise ConfigError(
                "ppo.advice_pull pulls towards the advice in units of the entropy bonus: it "
                f"needs advice (got {self.advice!r}) and ppo.ent_coef > 0 "
                f"(got {self.ppo.ent_coef})"
            )
        if self.advice_imitation is not None and not (self.advice and self.league is not None):
            raise ConfigError(
                "advice_imitation imitates the advice at tables of the league: it needs "
                f"advice (got {self.advice!r}) and a league (got "
                f"{'one' if self.league is not None else 'none'})"
            )
        if self.table_distillation is not None and not self.advice:
            raise ConfigError(
                "table_distillation fits the policy to the advice at some tables: it needs "
                "advice (got '')"
            )


def game_spec(cfg: TrainConfig) -> registry.GameEntry:
    """The registry entry of the config's game."""
    return registry.get(cfg.game)


def make_eval_env(cfg: TrainConfig) -> Any:
    """A single-agent env for evaluation games: the config's env options without the
    training-only ones, no shaping, learner on seat 0."""
    return make_view(cfg, num_players=cfg.num_players, learner_seat=0, **eval_options(cfg))


def eval_options(cfg: TrainConfig) -> dict[str, Any]:
    """The config's env options without the training-only ones."""
    return {k: v for k, v in cfg.env_options.items() if k not in TRAINING_ONLY_OPTIONS}


def policy_meta(cfg: TrainConfig) -> PolicyMeta:
    """The ``policy.json`` of a run: what the policy bot needs to rebuild its env."""
    entry = game_spec(cfg)
    options = eval_options(cfg)
    adapter = entry.envs().make_adapter(num_players=cfg.num_players, **options)
    return PolicyMeta(
        game=entry.name,
        env_id=entry.env_id,
        env_name=entry.env_name,
        num_players=cfg.num_players,
        env_options=options,
        rules=adapter.game.config_dict(),
        mode="greedy" if cfg.eval_deterministic else "sampled",
        advice=cfg.advice,
    )


def make_env(cfg: TrainConfig, rank: int, monitor_dir: Path | None):
    """A thunk building one monitored single-agent env (for the vec env)."""

    def thunk() -> Monitor:
        seat: int | str = (
            cfg.learner_seat if cfg.learner_seat == "random" else int(cfg.learner_seat)
        )
        env = make_view(
            cfg,
            cfg.seed * 1000 + rank,
            num_players=cfg.num_players,
            learner_seat=seat,
            shaping=dict(cfg.shaping),
            **cfg.env_options,
        )
        env = shaped(cfg, env)
        env.reset(seed=cfg.seed * 1000 + rank)
        filename = str(monitor_dir / f"env{rank}") if monitor_dir else None
        return Monitor(env, filename=filename, info_keywords=("won",))

    return thunk


def policy_act(model: MaskablePPO) -> Callable[[np.ndarray, np.ndarray, bool], int]:
    """``act(obs, mask, deterministic) -> action`` for one observation: the same action
    (the same draw from torch's generator when sampling) as ``model.predict(obs,
    action_masks=mask, deterministic=...)``, without its per-call checks and wrapping, in
    less than half the time (evaluation games spend most of their time here)."""
    pol = model.policy
    pol.set_training_mode(False)

    def act(obs: np.ndarray, mask: np.ndarray, deterministic: bool) -> int:
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
            latent = pol.mlp_extractor.forward_actor(pol.pi_features_extractor(x))
            logits = pol.action_net(latent)[0]
            logits = logits.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), -torch.inf)
            if deterministic:
                return int(logits.argmax())
            return int(torch.multinomial(torch.softmax(logits, 0), 1))

    return act


def play_eval_games(
    model: MaskablePPO | None,
    cfg: TrainConfig,
    seed: int,
    indices: list[int],
    deterministic: bool = False,
    records: list[GameRecord] | None = None,
) -> list[tuple[int, str, int]]:
    """Play the evaluation games ``indices`` (game ``i``: env seed ``seed + i``, learner on
    seat ``i % num_players``) against random opponents; ``model=None`` plays randomly.

    Returns ``(won, outcome reason, learner steps)`` per game; ``records`` (a list) gets
    each game's record. Every game seeds its own randomness (torch for sampled policy
    actions, numpy for the random policy) from ``seed + i``, so a game's result does not
    depend on which process plays it or in what order.
    """
    env = make_eval_env(cfg)
    act = None if model is None else policy_act(model)
    out = []
    for i in indices:
        torch.manual_seed(seed + i)
        rng = np.random.default_rng(seed + i)
        env.learner = i % cfg.num_players
        env._seat_option = env.learner  # noqa: SLF001 - fixed seat per evaluation game
        obs, _ = env.reset(seed=seed + i)
        done = False
        steps = 0
        while not done:
            steps += 1
            mask = env.action_masks()
            if act is None:
                action = random_masked_index(mask, rng)
            else:
                action = act(obs, mask, deterministic)
            obs, _, term, trunc, _ = env.step(action)
            done = term or trunc
        st = env.session.state
        out.append((int(st.winner == env.learner), st.outcome().reason.value, steps))
        if records is not None:
            records.append(env.record)  # (each reset starts a new record)
    return out


def _summary(results: list[tuple[int, str, int]], cfg: TrainConfig) -> dict[str, Any]:
    games = len(results)
    wins = sum(w for w, _, _ in results)
    lo, hi = wilson(wins, games)
    out: dict[str, Any] = {
        "games": games,
        "wins": wins,
        "win_rate": wins / max(games, 1),
        "ci_low": lo,
        "ci_high": hi,
        "truncated": sum(r == "truncated" for _, r, _ in results),
    }
    for reason in game_spec(cfg).outcome_labels:
        out[reason] = sum(r == reason for _, r, _ in results)
    out["mean_learner_steps"] = sum(n for _, _, n in results) / max(games, 1)
    out["won"] = [w for w, _, _ in results]
    return out


def evaluate(
    model: MaskablePPO | None, cfg: TrainConfig, games: int, seed: int, deterministic: bool = False
) -> dict[str, Any]:
    """Play ``games`` seeded games in this process (see :func:`play_eval_games`); the win
    rate with its 95% Wilson interval, the counts of truncated games and of the game's
    ``GameEntry.outcome_labels``, per-game wins.

    With ``deterministic=False`` the policy samples its actions (reproducibly: torch is
    seeded per game); True takes the most likely action.
    """
    return _summary(play_eval_games(model, cfg, seed, list(range(games)), deterministic), cfg)


_EVAL_MODEL: dict[str, Any] = {}


def _eval_chunk(
    model_path: str | None, cfg: TrainConfig, seed: int, indices: list[int], deterministic: bool
) -> list[tuple[int, str, int]]:
    """One evaluation task in a worker process (the model is loaded once per process)."""
    model = None
    if model_path is not None:
        if model_path not in _EVAL_MODEL:
            torch.set_num_threads(1)
            torch.distributions.Distribution.set_default_validate_args(False)
            _EVAL_MODEL[model_path] = MaskablePPO.load(model_path, device="cpu")
        model = _EVAL_MODEL[model_path]
    return play_eval_games(model, cfg, seed, indices, deterministic)


def evaluate_parallel(
    model_path: str | Path,
    cfg: TrainConfig,
    games: int,
    seed: int,
    modes: list[bool | None],
    processes: int,
    chunk: int = 10,
) -> list[dict[str, Any]]:
    """The evaluations of :func:`evaluate` for several modes at once, in ``processes``
    worker processes. A mode is ``deterministic`` (False or True) for the saved model at
    ``model_path``, or None for the random policy. The figures equal :func:`evaluate`'s."""
    tasks = [
        (mode, list(range(a, min(a + chunk, games))))
        for mode in modes
        for a in range(0, games, chunk)
    ]
    ctx = mp.get_context(worker_start_method())
    with ProcessPoolExecutor(max_workers=processes, mp_context=ctx) as pool:
        futures = [
            pool.submit(
                _eval_chunk, None if mode is None else str(model_path), cfg, seed, idx, bool(mode)
            )
            for mode, idx in tasks
        ]
        results = [f.result() for f in futures]
    per_mode: dict[int, list[tuple[int, str, int]]] = {k: [] for k in range(len(modes))}
    for (mode, _), res in zip(tasks, results, strict=True):
        per_mode[modes.index(mode)] += res
    return [_summary(per_mode[k], cfg) for k in range(len(modes))]


class AdvicePullFade(BaseCallback):
    """Sets the policy's ``advice_pull`` before each PPO update from the steps done so far
    (:meth:`PPOConfig.advice_pull_at`; a resumed run continues the line), and logs it as
    ``train/advice_pull``."""

    def __init__(self, ppo: PPOConfig, total_timesteps: int) -> None:
        super().__init__()
        self.ppo, self.total_timesteps = ppo, total_timesteps

    def _on_rollout_end(self) -> None:
        pull = self.ppo.advice_pull_at(self.model.num_timesteps, self.total_timesteps)
        cast(AdvisedPolicy, self.model.policy).advice_pull = pull
        self.logger.record("train/advice_pull", pull)

    def _on_step(self) -> bool:
        return True


class TorchThreads(BaseCallback):
    """``rollout`` torch threads while collecting rollouts, ``update`` during the updates."""

    def __init__(self, rollout: int, update: int) -> None:
        super().__init__()
        self.rollout, self.update = rollout, update

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(self.rollout)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.update)

    def _on_step(self) -> bool:
        return True


def schedule_callbacks(cfg: TrainConfig) -> list[BaseCallback]:
    """The callbacks every PPO run of ``cfg`` needs: torch's threads, and the advice pull's
    fade where the config has one."""
    callbacks: list[BaseCallback] = [TorchThreads(cfg.torch_threads, cfg.update_threads)]
    if cfg.ppo.advice_pull_fade > 0:
        callbacks.append(AdvicePullFade(cfg.ppo, cfg.total_timesteps))
    return callbacks


def policy_kwargs(p: PPOConfig, advice: int = 0) -> dict[str, Any]:
    """MaskablePPO ``policy_kwargs`` for the network of the config (``advice``: the length
    of the advice block that ends the observation, for :class:`AdvisedPolicy`)."""
    if advice:
        return {
            "features_extractor_class": AdvisedTrunk,
            "features_extractor_kwargs": {"features_dim": p.shared_trunk, "advice": advice},
            "share_features_extractor": True,
            "net_arch": list(p.net_arch),
            "advice": advice,
            "advice_pull": p.advice_pull,
        }
    if p.shared_trunk > 0:
        return {
            "features_extractor_class": SharedTrunk,
            "features_extractor_kwargs": {"features_dim": p.shared_trunk},
            "share_features_extractor": True,
            "net_arch": list(p.net_arch),
        }
    return {"net_arch": list(p.net_arch)}


def new_model(cfg: TrainConfig, venv: VecEnv, run_dir: Path) -> MaskablePPO:
    """A fresh MaskablePPO of the config's hyperparameters on ``venv`` (TensorBoard logs in
    ``run_dir/tb``)."""
    p = cfg.ppo
    advice = int(venv.action_space.n) if cfg.advice else 0
    return MaskablePPO(
        AdvisedPolicy if advice else "MlpPolicy",
        venv,
        learning_rate=p.learning_rate_schedule(),
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        ent_coef=p.ent_coef,
        clip_range=p.clip_range,
        seed=cfg.seed,
        verbose=0,
        policy_kwargs=policy_kwargs(p, advice),
        tensorboard_log=str(run_dir / "tb"),
        device="cpu",
    )


_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def opponents_text(cfg: TrainConfig, kind: str = "random player", words: bool = True) -> str:
    """ "three random players", "one random player" (of ``kind``; ``words=False``: "3 ...")."""
    n = cfg.num_players - 1
    count = _NUMBERS.get(n, str(n)) if words else str(n)
    return f"{count} {kind}{'s' if n != 1 else ''}"


def plot_learning_curve(monitor_dir: Path, out: Path, title: str) -> None:
    """Rolling episode reward and win rate against timesteps, from the Monitor logs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for f in sorted(monitor_dir.glob("*.monitor.csv")):
        text = f.read_text().splitlines()
        # the first line is Monitor's JSON header: episode times count from its t_start
        # (a resumed run's later part files start later)
        t_start = float(json.loads(text[0].lstrip("#")).get("t_start", 0.0)) if text else 0.0
        for line in text[2:]:
            r, length, t, won = line.split(",")[:4]
            rows.append((t_start + float(t), float(r), int(length), float(won)))
    rows.sort()
    if not rows:
        return
    t, r, length, won = (np.array(c) for c in zip(*rows, strict=True))
    steps = np.cumsum(length)
    k = max(1, min(200, len(r) // 10))
    kernel = np.ones(k) / k
    fig, ax1 = plt.subplots(figsize=(8, 4.5))
    ax1.plot(steps[k - 1 :], np.convolve(r, kernel, "valid"), color="tab:blue")
    ax1.set_xlabel("learner steps")
    ax1.set_ylabel(f"episode reward (mean of {k})", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(steps[k - 1 :], np.convolve(won, kernel, "valid"), color="tab:red")
    ax2.set_ylabel("win rate (training games)", color="tab:red")
    ax2.set_ylim(0, 1)
    ax1.set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def write_report(
    run_dir: Path,
    cfg: TrainConfig,
    ev: dict,
    other: dict,
    baseline: dict,
    seconds: float,
    timesteps: int,
    eval_seconds: float = 0.0,
    cpu_seconds: float = 0.0,
    gif: str | None = None,
    check: Parity | None = None,
) -> None:
    """``report.md`` with the figures of the run (``gif``: a caption for ``game.gif``)."""
    rate = (
        f"**{ev['win_rate']:.1%}** (95% Wilson interval {ev['ci_low']:.1%} - {ev['ci_high']:.1%})"
    )
    base = f"{baseline['win_rate']:.1%} ({baseline['wins']}/{baseline['games']})"
    mode = "deterministic (most likely action)" if cfg.eval_deterministic else "sampled"
    other_mode = "sampled" if cfg.eval_deterministic else "deterministic"
    alt = f"{other['win_rate']:.1%} ({other['truncated']} truncated)"
    opp = opponents_text(cfg, "uniformly random opponent", words=False)
    outcomes = "".join(
        f"| {label} | {ev[reason]} |\n" for reason, label in game_spec(cfg).outcome_labels.items()
    )
    picture = f"\n![evaluation game](game.gif)\n\n{gif}\n" if gif else ""
    onnx = (
        ""
        if check is None
        else (
            f"| policy.onnx against torch ({check.observations:,} observations) | same argmax "
            f"{check.argmax_equal:,}, logits within {check.max_logit_diff:.1e} |\n"
        )
    )
    text = f"""# {cfg.name}

MaskablePPO (sb3-contrib) on `{game_spec(cfg).env_id}`, {cfg.num_players} players: the learner
against {opp}.

| figure | value |
|---|---|
| training timesteps | {timesteps:,} |
| training time | {seconds / 60:.1f} min ({timesteps / seconds:,.0f} steps/s) |
| training CPU time (this process, env workers not counted) | {cpu_seconds / 60:.1f} min |
| evaluation time (all three evaluations) | {eval_seconds / 60:.1f} min |
| evaluation games | {ev["games"]} (seeded from {cfg.eval_seed}, learner seat rotating) |
| policy actions | {mode} |
| **win rate** | {rate} |
{outcomes}| truncated games (count as not won) | {ev["truncated"]} |
| the same model, {other_mode} actions | {alt} |
| random policy in the same seats | {base} |
{onnx}
![learning curve](learning_curve.png)
{picture}
Config: `{json.dumps(_plain(cfg))}`
"""
    (run_dir / "report.md").write_text(text)


def record_gif(
    game: Any,
    adapter: Any,
    record: GameRecord,
    path: str | Path,
    size: int = 320,
    max_frames: int = 90,
    fps: float = 6.0,
    hold_last: float = 2.0,
) -> int:
    """Replay ``record`` on ``game`` (:func:`tabletop.records.iter_replay`), draw every k-th
    state (k chosen for at most ``max_frames`` frames, the last state always) with
    ``adapter.render_rgb``, scaled to ``size`` pixels high, and write an animated GIF with
    :func:`tabletop.draw.frames_to_gif`; the last frame shows for about ``hold_last``
    seconds. Returns the number of frames drawn.
    """
    from PIL import Image

    n_states = len(record.events) + 1
    stride = max(1, math.ceil(n_states / max(1, max_frames - 1)))
    keep = set(range(0, n_states, stride)) | {n_states - 1}
    frames = []
    for i, state in enumerate(iter_replay(game, record)):
        if i in keep:
            img = Image.fromarray(np.asarray(adapter.render_rgb(state), dtype=np.uint8))
            if img.height != size:  # the height to size, the width in proportion
                width = max(1, round(img.width * size / img.height))
                img = img.resize((width, size), Image.Resampling.BILINEAR)
            frames.append(np.asarray(img))
    drawn = len(frames)
    # identical frames merge into one longer frame: the last one is held
    frames += [frames[-1]] * max(0, round(hold_last * fps) - 1)
    frames_to_gif(frames, path, fps)
    return drawn


def eval_game_gif(model: MaskablePPO, cfg: TrainConfig, won: list[int], path: Path) -> str:
    """``game.gif``: replay the first evaluation game the model won (else game 0) in this
    process (games are seeded, so it is the same game) and draw it; returns a caption."""
    i = next((k for k, w in enumerate(won) if w), 0)
    records: list[GameRecord] = []
    (res,) = play_eval_games(
        model, cfg, cfg.eval_seed, [i], cfg.eval_deterministic, records=records
    )
    env = make_eval_env(cfg)
    frames = record_gif(
        env.adapter.game, env.adapter, records[0], path, cfg.gif_size, cfg.gif_frames, cfg.gif_fps
    )
    seat = i % cfg.num_players
    result = "won" if res[0] else f"not won ({res[1]})"
    return (
        f"Evaluation game {i} (seed {cfg.eval_seed + i}), the learner on seat {seat}: "
        f"{result}, {res[2]} learner decisions; {frames} states drawn."
    )


def _plain(cfg: TrainConfig) -> dict:
    from tabletop.config import to_mapping

    return to_mapping(cfg)


def parse_seeds(text: str) -> list[int]:
    """``0,1,2`` -> [0, 1, 2] (distinct non-negative ints)."""
    try:
        seeds = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--seeds: comma-separated integers, got {text!r}") from None
    if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0:
        raise SystemExit(f"--seeds: distinct non-negative integers, got {text!r}")
    return seeds


def main(argv: list[str] | None = None) -> dict:
    """Train, evaluate, report; returns the evaluation figures (with ``--seeds``: the
    summary over the seeds)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default=str(DEFAULT_CONFIG))
    ap.add_argument("--timesteps", type=int, default=None)
    ap.add_argument("--name", default=None)
    ap.add_argument("--eval-games", type=int, default=None)
    ap.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats (the run is named <name>_<N>p when it differs)",
    )
    ap.add_argument(
        "--seeds",
        default=None,
        help="comma-separated seeds: runs/<name>/seed<k>/ each and a summary "
        "report; a rerun skips finished seeds and resumes an interrupted "
        "one (league configs) from its last checkpoint",
    )
    ap.add_argument("--runs-dir", default=str(ROOT / "runs"))
    args = ap.parse_args(argv)
    cfg = load_config(TrainConfig, args.config)
    if args.timesteps is not None:
        cfg = replace(cfg, total_timesteps=args.timesteps)
    if args.players is not None and args.players != cfg.num_players:
        cfg = replace(cfg, num_players=args.players, name=f"{cfg.name}_{args.players}p")
    if args.name is not None:
        cfg = replace(cfg, name=args.name)
    if args.eval_games is not None:
        cfg = replace(cfg, eval_games=args.eval_games)
    out = Path(args.runs_dir) / cfg.name
    if args.seeds is None:
        return train_one(cfg, out, resume=False)
    results = {}
    for seed in parse_seeds(args.seeds):
        d = out / f"seed{seed}"
        results[seed] = train_one(replace(cfg, seed=seed), d, resume=True)
    if cfg.league is None:
        return summary_vs_random(out, cfg, results)
    from train.selfplay import summary_report

    summary = summary_report(out, cfg, results)
    print(f"summary of {len(results)} seeds: {out / 'report.md'}")
    return summary


def train_one(cfg: TrainConfig, run_dir: Path, resume: bool) -> dict:
    """One seed: the league's self-play (:func:`train.selfplay.train_league`) or training
    against random opponents. ``resume``: keep a finished run in ``run_dir`` and continue
    an interrupted league run from its checkpoint (else start afresh)."""
    if cfg.league is not None:
        from train.selfplay import train_league

        run_dir.mkdir(parents=True, exist_ok=True)
        result = train_league(cfg, run_dir, resume)
        print(f"{cfg.name} seed {cfg.seed}: report {run_dir / 'report.md'}")
        return result
    return train_vs_random(cfg, run_dir, resume)


def summary_vs_random(out: Path, cfg: TrainConfig, results: dict[int, dict]) -> dict:
    """``runs/<name>/report.md`` over the seeds of a config against random opponents."""
    seeds = sorted(results)
    rates = [results[s]["win_rate"] for s in seeds]
    sd = float(np.std(rates, ddof=1)) if len(rates) > 1 else 0.0
    data = {
        "name": cfg.name,
        "seeds": seeds,
        "win_rates": rates,
        "mean": float(np.mean(rates)),
        "std": sd,
    }
    text = (
        f"# {cfg.name}: {len(seeds)} seeds\n\n| seed | win rate (95% CI) |\n|---|---|\n"
        + "".join(
            f"| {s} | {results[s]['win_rate']:.1%} ({results[s]['ci_low']:.1%}-"
            f"{results[s]['ci_high']:.1%}) |\n"
            for s in seeds
        )
        + f"\nMean **{data['mean']:.1%}** ± {sd:.1%} (sample standard deviation).\n"
    )
    (out / "report.md").write_text(text)
    (out / "summary.json").write_text(json.dumps(data, indent=1))
    return data


def train_vs_random(cfg: TrainConfig, run_dir: Path, resume: bool = False) -> dict:
    """Train against random opponents into ``run_dir``, evaluate, report; returns the
    evaluation figures (``resume``: a finished run there is kept)."""
    if resume and (run_dir / "eval.json").is_file() and (run_dir / "report.md").is_file():
        return json.loads((run_dir / "eval.json").read_text())["model"]
    torch.set_num_threads(cfg.torch_threads)
    # the masked Categorical checks its arguments on every forward pass; skipping the
    # checks changes no number and saves about a tenth of a millisecond per call
    torch.distributions.Distribution.set_default_validate_args(False)
    monitor_dir = run_dir / "monitor"
    monitor_dir.mkdir(parents=True, exist_ok=True)
    for old in monitor_dir.glob("*.monitor.csv"):
        old.unlink()
    thunks = [make_env(cfg, i, monitor_dir) for i in range(cfg.n_envs)]
    venv: VecEnv = (
        GroupedVecEnv(thunks, cfg.env_processes) if cfg.env_processes > 1 else DummyVecEnv(thunks)
    )
    model = new_model(cfg, venv, run_dir)
    cloned = warm_start(model, cfg) if cfg.warm_start is not None else None
    start, cpu_start = time.perf_counter(), time.process_time()
    model.learn(
        total_timesteps=cfg.total_timesteps,
        progress_bar=True,
        callback=CallbackList(schedule_callbacks(cfg)),
    )
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    torch.set_num_threads(cfg.torch_threads)
    distilled = table_distillation(model, cfg) if cfg.table_distillation is not None else None
    model.save(run_dir / "model.zip")
    check = export_checked(model, run_dir, make_eval_env(cfg), seed=cfg.eval_seed)
    write_policy_json(run_dir, replace(policy_meta(cfg), onnx=ONNX_FILE))
    venv.close()
    eval_start = time.perf_counter()
    modes = [cfg.eval_deterministic, not cfg.eval_deterministic, None]
    if cfg.eval_processes > 1:
        ev, other, baseline = evaluate_parallel(
            run_dir / "model.zip", cfg, cfg.eval_games, cfg.eval_seed, modes, cfg.eval_processes
        )
    else:
        ev, other, baseline = (
            evaluate(None if m is None else model, cfg, cfg.eval_games, cfg.eval_seed, bool(m))
            for m in modes
        )
    eval_seconds = time.perf_counter() - eval_start
    (run_dir / "eval.json").write_text(
        json.dumps(
            {
                "model": ev,
                "model_other_mode": other,
                "random": baseline,
                "warm_start": cloned,
                "table_distillation": distilled,
            },
            indent=1,
        )
    )
    plot_learning_curve(
        monitor_dir,
        run_dir / "learning_curve.png",
        f"MaskablePPO on {game_spec(cfg).env_id} vs {opponents_text(cfg)}",
    )
    gif = eval_game_gif(model, cfg, ev["won"], run_dir / "game.gif") if cfg.gif else None
    write_report(
        run_dir,
        cfg,
        ev,
        other,
        baseline,
        seconds,
        model.num_timesteps,
        eval_seconds,
        cpu_seconds,
        gif,
        check,
    )
    print(
        f"win rate {ev['win_rate']:.1%} (95% CI {ev['ci_low']:.1%}-{ev['ci_high']:.1%}) over "
        f"{ev['games']} games; random {baseline['win_rate']:.1%}; report: "
        f"{run_dir / 'report.md'}"
    )
    return ev


if __name__ == "__main__":
    main()
