"""Table distillation: after PPO, the policy is fitted to the advice at tables of some
opponents and to itself at tables of others (``table_distillation:`` in a train config).

Why: in 4-player Lunatix Loop the long config's agent wins its share against three heuristics
by departing from the advice (the heuristic's move), and loses to three random players
through the same departures (every car out), while imitating the advice at random tables
*during* PPO (``advice_imitation``) keeps it near the advice everywhere and costs the gain
(docs/training.md, Trials). The position tells the tables apart (a classifier on the
observation, less the advice, told three random players from three heuristics on 99% of
held-out positions), so once PPO is done the two behaviours can be put into one policy by
supervised learning (policy distillation, Rusu et al. 2015): at tables of ``advice_at`` the
target is the advised move (cross-entropy), at tables of ``keep_at`` the policy as PPO left
it (KL(PPO's policy || the fitted one), masked to the legal actions), each minibatch half
from either. The table is a training-time label, never an input.

The positions are the policy's own: it plays ``games`` greedy games at a table of each spec
(every opponent seat that bot; the learner's seat rotates), is fitted, and in each further
round plays as many again with the fitted policy, the fit then repeated on all positions so
far (DAgger, Ross et al. 2011), so it learns the states its new play reaches. The games are
the warm start's (:func:`train.warmstart.collect`: the training env, the label the advice the
observation carries), seeded from ``seed`` alone.
"""

from __future__ import annotations

import copy
import functools
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.specs import BotSpecError, parse
from tabletop.config import is_finite_number
from tabletop.errors import ConfigError
from train.warmstart import Demonstrations, WarmStartConfig, agreement, collect_games, merge


@dataclass(frozen=True)
class TableDistillationConfig:
    """``table_distillation:`` in a train config (see the module)."""

    #: bot specs: at a table of one of these in every opponent seat, fit the advice
    advice_at: tuple[str, ...] = ("random",)
    #: bot specs: at a table of one of these, keep the policy PPO trained
    keep_at: tuple[str, ...] = ("heuristic",)
    #: greedy games at a table of each spec, each round
    games: int = 150
    #: rounds of play-and-fit (the 2nd on: DAgger on all positions so far)
    rounds: int = 2
    #: passes over the larger set of positions in each fit
    epochs: int = 6
    #: positions of each kind of table in a minibatch
    batch_size: int = 512
    learning_rate: float = 3e-4
    seed: int = 54_321
    #: worker processes playing the games (each game is seeded alone: the same positions)
    processes: int = 1

    def __post_init__(self) -> None:
        for name in ("advice_at", "keep_at"):
            specs = getattr(self, name)
            if isinstance(specs, str) or not isinstance(specs, (list, tuple)):
                raise ConfigError(f"table_distillation.{name}: a list of bot specs, got {specs!r}")
            if not specs:
                raise ConfigError(f"table_distillation.{name}: at least one bot spec")
            for spec in specs:
                try:
                    parse(spec)
                except BotSpecError as exc:
                    raise ConfigError(f"table_distillation.{name}: {exc}") from None
            object.__setattr__(self, name, tuple(specs))
        both = sorted(set(self.advice_at) & set(self.keep_at))
        if both:
            raise ConfigError(
                f"table_distillation: {both} both in advice_at and keep_at (one target a table)"
            )
        for name in ("games", "rounds", "epochs", "batch_size", "processes"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"table_distillation.{name}: an integer >= 1, got {v!r}")
        lr = self.learning_rate
        if not (is_finite_number(lr) and lr > 0):
            raise ConfigError(
                f"table_distillation.learning_rate must be a finite number > 0, got {lr!r}"
            )


def masked_log_probs(policy: Any, obs: torch.Tensor, masks: np.ndarray) -> torch.Tensor:
    """The policy's log-probabilities over the actions, illegal ones at -inf-like values."""
    dist = policy.get_distribution(obs, action_masks=masks)
    return torch.log_softmax(dist.distribution.logits, dim=1)


def distillation_loss(
    log_p: torch.Tensor,
    advice: torch.Tensor,
    log_q: torch.Tensor,
    keep_log_p: torch.Tensor,
    keep_masks: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(cross-entropy of the advised actions under ``log_p``, mean KL(q || p) over the keep
    positions: ``log_q`` the kept policy's and ``keep_log_p`` the fitted one's, both masked)."""
    ce = -log_p.gather(1, advice[:, None]).mean()
    q = log_q.exp()
    kl = torch.where(keep_masks, q * (log_q - keep_log_p), torch.zeros_like(q)).sum(1).mean()
    return ce, kl


def fit(
    policy: Any,
    log_q: torch.Tensor,
    advise: Demonstrations,
    keep: Demonstrations,
    td: TableDistillationConfig,
    rng: np.random.Generator,
) -> dict[str, float]:
    """One fit of ``policy``: the advice on ``advise``'s positions, on ``keep``'s the
    distribution whose masked log-probabilities are ``log_q`` (the policy as PPO left it).
    Returns the last epoch's mean losses."""
    a_obs, k_obs = torch.as_tensor(advise.obs), torch.as_tensor(keep.obs)
    a_act = torch.as_tensor(advise.actions)
    k_masks_t = torch.as_tensor(keep.masks)
    opt = torch.optim.Adam(policy.parameters(), lr=td.learning_rate)
    na, nk, b = len(a_act), len(k_obs), td.batch_size
    steps = math.ceil(max(na, nk) / b)
    ce_sum = kl_sum = 0.0
    policy.set_training_mode(True)
    for _ in range(td.epochs):
        ia, ik = rng.permutation(na), rng.permutation(nk)
        ce_sum = kl_sum = 0.0
        for s in range(steps):
            # the smaller set wraps around: every minibatch holds b positions of each
            a = ia[np.arange(s * b, (s + 1) * b) % na]
            k = ik[np.arange(s * b, (s + 1) * b) % nk]
            log_p = masked_log_probs(policy, a_obs[a], advise.masks[a])
            keep_log_p = masked_log_probs(policy, k_obs[k], keep.masks[k])
            ce, kl = distillation_loss(log_p, a_act[a], log_q[k], keep_log_p, k_masks_t[k])
            opt.zero_grad()
            (ce + kl).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
            ce_sum, kl_sum = ce_sum + ce.item(), kl_sum + kl.item()
    policy.set_training_mode(False)
    return {"cross_entropy": ce_sum / steps, "kl": kl_sum / steps}


def frozen_copy(policy: Any) -> Any:
    """A copy of ``policy`` in evaluation mode (the distribution a forward pass leaves on
    its ``action_dist`` holds tensors of the graph, which ``deepcopy`` refuses: it is
    dropped from the copy; the next forward pass makes a new one)."""
    dist = policy.action_dist
    left = getattr(dist, "distribution", None)
    dist.distribution = None
    try:
        kept = copy.deepcopy(policy)
    finally:
        dist.distribution = left
    kept.set_training_mode(False)
    return kept


def table_distillation(model: Any, cfg: Any) -> dict[str, Any]:
    """Distil ``model``'s policy by table (``cfg.table_distillation``; ``cfg`` a TrainConfig
    with advice) in place; returns the figures of each round."""
    td: TableDistillationConfig = cfg.table_distillation
    t0 = time.perf_counter()
    policy = model.policy
    kept = frozen_copy(policy)
    rng = np.random.default_rng(td.seed)
    specs = (*td.advice_at, *td.keep_at)
    data: dict[str, Demonstrations] = {}
    rounds = []
    for r in range(td.rounds):
        new: dict[str, Demonstrations] = {}
        for j, spec in enumerate(specs):
            ws = WarmStartConfig(
                teacher=cfg.advice, games=td.games, opponents=(spec,), seed=td.seed
            )
            first = (r * len(specs) + j) * td.games
            new[spec] = collect_games(cfg, ws, first, td.games, td.processes, learner=policy)
            data[spec] = merge(data[spec], new[spec]) if spec in data else new[spec]
        advise = functools.reduce(merge, [data[s] for s in td.advice_at])
        keep = functools.reduce(merge, [data[s] for s in td.keep_at])
        with torch.no_grad():
            log_q = masked_log_probs(kept, torch.as_tensor(keep.obs), keep.masks)
        kept_greedy = log_q.argmax(1).numpy()
        before = agreement(policy, advise.obs, advise.masks, advise.actions)
        losses = fit(policy, log_q, advise, keep, td, rng)
        rounds.append(
            {
                "games": {s: new[s].games for s in specs},
                "wins": {s: new[s].wins for s in specs},
                "advice_positions": int(len(advise.actions)),
                "keep_positions": int(len(keep.actions)),
                "advice_agreement_before": before,
                "advice_agreement_after": agreement(
                    policy, advise.obs, advise.masks, advise.actions
                ),
                "kept_greedy_after": agreement(policy, keep.obs, keep.masks, kept_greedy),
                **losses,
            }
        )
    return {"rounds": rounds, "seconds": time.perf_counter() - t0}


def report_lines(figures: dict[str, Any] | None) -> list[str]:
    """The report's rows of the table distillation (none without one)."""
    if not figures:
        return []
    lines = []
    for i, r in enumerate(figures["rounds"], 1):
        lines.append(
            f"| table distillation, round {i}: positions at advice / keep tables "
            f"| {r['advice_positions']:,} / {r['keep_positions']:,}; the advised move "
            f"{r['advice_agreement_before']:.1%} -> **{r['advice_agreement_after']:.1%}**, "
            f"PPO's greedy move kept at **{r['kept_greedy_after']:.1%}** |"
        )
    lines.append(f"| table distillation time | {figures['seconds'] / 60:.1f} min |")
    return lines
