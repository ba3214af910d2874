"""Imitating the advice at chosen tables: after each PPO update the learner is fitted, by
cross-entropy, to the advised move on its own positions of the last rollout that were played
at a table of the chosen opponents (``advice_imitation:`` in a train config).

Why: in 4-player Lunatix Loop the agent's gain against three heuristics and its all-out
losses against three random players come from the same departures from the advice (the
heuristic's move), so a pull towards the advice on every position (``ppo.advice_pull``)
either undoes the gain or does not stop the losses (docs/training.md). The position itself
tells the tables apart (a classifier on the observation, less the advice, told three random
players from three heuristics on 99% of held-out positions; 93% in the first two rounds), so
a pull on the positions of one kind of table only can teach the policy to play the advice
there and keep what PPO found elsewhere. The table kind is a training-time label, not an
input: the policy sees its observation and nothing else.

The labels are the advice already in the observation (``agents.advice``), so the positions
are the learner's own (DAgger's states, Ross et al. 2011) and nothing is played twice. A
table matches when every opponent seat holds a member of one of ``tables`` (``random``,
``heuristic``, ``mcts`` or ``snapshot``: any of the league's snapshots). The fit runs when
the next rollout starts, after PPO's update, so each rollout is collected on-policy and
PPO's ratios start at 1; the last rollout of a run is not imitated. The fit steps with PPO's
own Adam optimizer, whose moment estimates are PPO's gradients': a step then moves the policy
as a term ``weight * cross-entropy`` in PPO's loss would, and fades as the policy agrees with
the advice (an optimizer of its own would normalise the vanishing gradients of a policy that
already agrees into full steps). With ``below`` < 1 only the positions whose advised move is
less likely than that are fitted, so the fit corrects departures without making the policy
ever surer of the advice; a minibatch with nothing to fit takes no step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from agents.torch_layers import advice_kl
from tabletop.config import is_finite_number
from tabletop.errors import ConfigError

#: member kinds a table may be made of
TABLE_KINDS = ("random", "heuristic", "mcts", "snapshot")


@dataclass(frozen=True)
class AdviceImitationConfig:
    """``advice_imitation:`` in a train config (see the module)."""

    #: the tables whose positions are imitated: every opponent seat one of these kinds
    tables: tuple[str, ...] = ("random",)
    #: passes over a rollout's matching positions after each PPO update
    epochs: int = 2
    batch_size: int = 256
    #: the cross-entropy's weight, relative to PPO's loss (the fit uses PPO's optimizer)
    weight: float = 1.0
    #: fit only the positions where the policy gives the advised move a probability below
    #: this (1: every position; 0.6: the greedy move is the advice wherever none is fitted)
    below: float = 1.0

    def __post_init__(self) -> None:
        tables = self.tables
        if isinstance(tables, str) or not isinstance(tables, (list, tuple)) or not tables:
            raise ConfigError(
                f"advice_imitation.tables: a non-empty list of {TABLE_KINDS}, got {tables!r}"
            )
        unknown = [t for t in tables if t not in TABLE_KINDS]
        if unknown:
            raise ConfigError(
                f"advice_imitation.tables: unknown kinds {unknown} (known: {TABLE_KINDS})"
            )
        object.__setattr__(self, "tables", tuple(tables))
        w, b = self.weight, self.below
        if not (is_finite_number(w) and w > 0):
            raise ConfigError(f"advice_imitation.weight must be a finite number > 0, got {w!r}")
        if not (is_finite_number(b) and 0 < b <= 1):
            raise ConfigError(f"advice_imitation.below: a probability in (0, 1], got {b!r}")
        for name in ("epochs", "batch_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"advice_imitation.{name} must be an integer >= 1, got {v!r}")


def at_tables(kinds: list[str], tables: tuple[str, ...]) -> bool:
    """True when every opponent's kind is one of ``tables`` (and there is an opponent)."""
    return bool(kinds) and all(k in tables for k in kinds)


def imitation_loss(
    policy: Any, obs: torch.Tensor, masks: torch.Tensor, below: float = 1.0
) -> torch.Tensor:
    """``-log pi(advised action)`` of an advised policy
    (:class:`agents.torch_layers.AdvisedPolicy`) summed over the rows whose advised move has
    a probability below ``below``, divided by the rows with an advised legal move (0 with
    none): with ``below`` < 1 a position the policy already plays as advised adds nothing."""
    dist = policy.get_distribution(obs, action_masks=masks.numpy())
    kl = advice_kl(dist.distribution.logits, obs[:, -policy.advice :])
    advised = obs[:, -policy.advice :].sum(dim=1) > 0
    if not bool(advised.any()):
        return kl.sum() * 0.0
    fitted = advised & (kl > -math.log(below)) if below < 1.0 else advised
    return kl[fitted].sum() / advised.sum()


class AdviceImitation(BaseCallback):
    """Keeps the rollout's positions at the chosen tables (from ``info["opponent_kinds"]``,
    :class:`train.league.LeagueResults`) and fits the policy to their advice when the next
    rollout starts; logs ``imitation/loss``, ``imitation/agreement`` and
    ``imitation/positions``."""

    def __init__(self, cfg: AdviceImitationConfig, seed: int = 0) -> None:
        super().__init__()
        self.cfg = cfg
        self.rng = np.random.default_rng(seed)
        self._obs: list[np.ndarray] = []
        self._masks: list[np.ndarray] = []
        #: positions imitated so far
        self.positions = 0

    def _on_step(self) -> bool:
        infos = self.locals["infos"]
        obs = self.locals["obs_tensor"]
        masks = self.locals["action_masks"]
        for i, info in enumerate(infos):
            if at_tables(info.get("opponent_kinds", []), self.cfg.tables):
                self._obs.append(obs[i].cpu().numpy().copy())
                self._masks.append(np.asarray(masks[i], dtype=bool).copy())
        return True

    def _on_rollout_start(self) -> None:
        if self._obs:
            self.fit(np.stack(self._obs), np.stack(self._masks))
        self._obs, self._masks = [], []

    def fit(self, obs: np.ndarray, masks: np.ndarray) -> dict[str, float]:
        """``epochs`` passes of minibatch cross-entropy on these positions; the last pass's
        mean loss and the share of them whose greedy move is the advice, after the fit."""
        policy = self.model.policy
        optimizer = policy.optimizer
        policy.set_training_mode(True)
        x_all = torch.as_tensor(obs, dtype=torch.float32)
        m_all = torch.as_tensor(masks, dtype=torch.bool)
        losses: list[float] = []
        for _ in range(self.cfg.epochs):
            losses = []
            order = self.rng.permutation(len(obs))
            for start in range(0, len(order), self.cfg.batch_size):
                j = torch.as_tensor(order[start : start + self.cfg.batch_size])
                loss = self.cfg.weight * imitation_loss(policy, x_all[j], m_all[j], self.cfg.below)
                losses.append(float(loss.detach()))
                if losses[-1] == 0.0:
                    # nothing to fit: no step (Adam's would still move along its momentum)
                    continue
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), self.model.max_grad_norm)
                optimizer.step()
        policy.set_training_mode(False)
        with torch.no_grad():
            dist = policy.get_distribution(x_all, action_masks=masks)
            greedy = dist.distribution.logits.argmax(dim=1)
            advice = x_all[:, -policy.advice :]
            advised = advice.sum(dim=1) > 0
            agree = (greedy == advice.argmax(dim=1))[advised]
        out = {
            "loss": float(np.mean(losses)),
            "agreement": float(agree.float().mean()) if len(agree) else 1.0,
            "positions": float(len(obs)),
        }
        self.positions += len(obs)
        for k, v in out.items():
            self.logger.record(f"imitation/{k}", v)
        return out
