"""Behaviour cloning warm start: the learner first imitates a teacher bot (the heuristic),
then PPO trains on from there.

The teacher plays the learner's seat of the training env (its shaping included) against
opponents drawn in turn from ``opponents``; at every decision its engine action is mapped to
the env action that plays it (``adapter.nearest_index``: exact for Lunatix Loop; for Lazer
Ryderz's discrete mode the nearest Launch Point of the same gear, grid or aim) and *that*
action is played, so the data shows what the env executes. With ``dagger_rounds``
(DAgger, Ross et al. 2011) the cloned policy then plays games itself, the teacher labels every
state it reaches, and the policy is fitted again on all the data, so it learns to recover from
its own mistakes rather than only to follow states the teacher reaches. The policy is fitted by
cross-entropy on the teacher's indices (masked, as PPO's policy is) and the value head on
the discounted shaped returns of the teacher's games (PPO's ``gamma``; the env's shaping and
the config's ``value_shaping``, as PPO's rewards), so that PPO's first
updates start from a critic that knows the teacher's play instead of one that would tear the
cloned policy down. A held-out tenth of the games gives the agreement with the teacher.

With advice (``advice:`` naming the teacher's spec, :mod:`agents.advice`) the teacher *is*
the advisor: each label is the move the observation's advice names, so labels and advice
never disagree (a second heuristic would break ties its own way).
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from agents.specs import BotSpecError, make_bot, parse
from tabletop import registry
from tabletop.errors import ConfigError
from train.value_shaping import shaped
from train.vec_env import worker_start_method
from train.views import make_view


@dataclass(frozen=True)
class WarmStartConfig:
    """Behaviour cloning before PPO (``warm_start:`` in a train config)."""

    #: the teacher's bot spec
    teacher: str = "heuristic"
    #: games the teacher plays in the learner's seat
    games: int = 200
    #: the opponents' bot specs, game ``i`` takes ``opponents[i % len]`` in every other seat
    opponents: tuple[str, ...] = ("random", "heuristic")
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3
    #: weight of the value loss against the cross-entropy
    value_weight: float = 0.5
    #: DAgger rounds after the first fit: the cloned policy plays ``dagger_games`` games,
    #: the teacher labels every state it reaches, the policy is fitted again on all data
    dagger_rounds: int = 0
    dagger_games: int = 100
    seed: int = 12_345
    #: worker processes that play the teacher's games (each game is seeded alone, so the
    #: demonstrations do not depend on it; DAgger's games stay in the training process)
    processes: int = 1

    def __post_init__(self) -> None:
        for spec in (self.teacher, *self.opponents):
            try:
                parse(spec)
            except BotSpecError as exc:
                raise ConfigError(f"warm_start: {exc}") from None
        if not self.opponents:
            raise ConfigError("warm_start.opponents: at least one bot spec")
        if self.games < 2 or self.epochs < 1 or self.batch_size < 1:
            raise ConfigError("warm_start: games >= 2, epochs >= 1, batch_size >= 1")
        if self.learning_rate <= 0 or self.value_weight < 0:
            raise ConfigError("warm_start: learning_rate > 0, value_weight >= 0")
        if self.dagger_rounds < 0 or self.dagger_games < 1:
            raise ConfigError("warm_start: dagger_rounds >= 0, dagger_games >= 1")
        p = self.processes
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ConfigError(f"warm_start.processes: an integer >= 1, got {p!r}")


@dataclass
class Demonstrations:
    """The teacher's decisions: observations, masks, chosen indices, returns, game ids."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    game: np.ndarray
    #: teacher moves the env could not play exactly (a Launch Point off the grid)
    snapped: int = 0
    seconds: float = 0.0
    wins: int = 0
    games: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def collect(
    cfg: Any, ws: WarmStartConfig, first: int = 0, games: int | None = None, learner: Any = None
) -> Demonstrations:
    """Play games ``first .. first + games`` (default ``ws.games`` of them) in the training
    env of ``cfg`` (a TrainConfig), the teacher labelling every decision of the learner's
    seat. The teacher's move is played, or with ``learner`` (a MaskablePPO model's policy,
    DAgger) the learner's most likely legal action."""
    entry = registry.get(cfg.game)
    t0 = time.perf_counter()
    obs_l, mask_l, act_l, ret_l, game_l = [], [], [], [], []
    snapped = wins = 0
    gamma = cfg.ppo.gamma
    n = cfg.num_players
    games = ws.games if games is None else games
    for g in range(first, first + games):
        spec = ws.opponents[g % len(ws.opponents)]
        opponents = [make_bot(spec, entry.name, seed=ws.seed + 1000 * g + s) for s in range(n - 1)]
        view = make_view(
            cfg,
            ws.seed + g,
            num_players=n,
            learner_seat=g % n,
            shaping=dict(cfg.shaping),
            opponents=opponents,
            **cfg.env_options,
        )
        env = shaped(cfg, view)  # the rewards PPO will see: its value targets are these
        # the teacher is the advisor: its label is the advice the observation carries (a
        # second heuristic would break ties otherwise, and the labels would contradict it)
        advised = bool(cfg.advice) and cfg.advice == ws.teacher
        teacher = None if advised else make_bot(ws.teacher, entry.name, seed=ws.seed + g)
        obs, _ = env.reset(seed=ws.seed + g)
        rewards = []
        done = False
        while not done:
            state, seat = view.session.state, view.learner
            legal = view.adapter.legal_ints(state, seat)
            if advised:
                move = view.adapter.last_move[seat]
                index = int(np.argmax(obs[-view.adapter.advice_size :]))
            else:
                assert teacher is not None
                move = teacher.act(state, seat)
                index = view.adapter.nearest_index(state, seat, move, legal)
            if view.adapter.decode_action(state, seat, index) != move:
                snapped += 1
            mask = env.action_masks()
            obs_l.append(obs)
            mask_l.append(mask)
            act_l.append(index)
            game_l.append(g)
            played = index if learner is None else greedy_index(learner, obs, mask)
            obs, reward, term, trunc, info = env.step(played)
            rewards.append(reward)
            done = term or trunc
        wins += int(info.get("won", 0.0) == 1.0)
        ret, acc = [], 0.0
        for r in reversed(rewards):
            acc = r + gamma * acc
            ret.append(acc)
        ret_l += ret[::-1]
    return Demonstrations(
        np.asarray(obs_l, np.float32),
        np.asarray(mask_l, bool),
        np.asarray(act_l, np.int64),
        np.asarray(ret_l, np.float32),
        np.asarray(game_l, np.int64),
        snapped,
        time.perf_counter() - t0,
        wins,
        games,
    )


def collect_teacher_games(cfg: Any, ws: WarmStartConfig, chunk: int = 10) -> Demonstrations:
    """The teacher's ``ws.games`` games of :func:`collect`, played in ``ws.processes`` worker
    processes ``chunk`` games at a time; the same demonstrations, in the same order, as one
    process collects (``seconds`` is the wall time)."""
    return collect_games(cfg, ws, 0, ws.games, ws.processes, chunk=chunk)


def collect_games(
    cfg: Any,
    ws: WarmStartConfig,
    first: int,
    games: int,
    processes: int,
    learner: Any = None,
    chunk: int = 10,
) -> Demonstrations:
    """:func:`collect`'s games ``first .. first + games`` in ``processes`` worker processes,
    ``chunk`` games at a time (``learner``, a policy, is sent to each); the same decisions,
    in the same order, as one process collects (``seconds`` is the wall time)."""
    if processes <= 1:
        return collect(cfg, ws, first=first, games=games, learner=learner)
    t0 = time.perf_counter()
    ctx = mp.get_context(worker_start_method())
    starts = range(first, first + games, chunk)
    end = first + games
    with ProcessPoolExecutor(max_workers=processes, mp_context=ctx) as pool:
        futures = [
            pool.submit(collect, cfg, ws, first=a, games=min(chunk, end - a), learner=learner)
            for a in starts
        ]
        parts = [f.result() for f in futures]
    demos = functools.reduce(merge, parts)
    demos.seconds = time.perf_counter() - t0
    return demos


def greedy_index(policy: Any, obs: np.ndarray, mask: np.ndarray) -> int:
    """The policy's most likely legal action for one observation."""
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
        return int(dist.distribution.probs.argmax(1)[0])


def merge(a: Demonstrations, b: Demonstrations) -> Demonstrations:
    """Both sets of decisions (DAgger's aggregate)."""
    return Demonstrations(
        np.concatenate([a.obs, b.obs]),
        np.concatenate([a.masks, b.masks]),
        np.concatenate([a.actions, b.actions]),
        np.concatenate([a.returns, b.returns]),
        np.concatenate([a.game, b.game]),
        a.snapped + b.snapped,
        a.seconds + b.seconds,
        a.wins + b.wins,
        a.games + b.games,
    )


def agreement(policy: Any, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray) -> float:
    """The share of decisions where the policy's most likely legal action is the label."""
    if not len(obs):
        return 0.0
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        best = dist.distribution.probs.argmax(1).numpy()
    return float((best == actions).mean())


def clone(model: Any, demos: Demonstrations, ws: WarmStartConfig) -> dict[str, Any]:
    """Fit ``model``'s policy (cross-entropy) and value head (squared error) to ``demos``;
    a tenth of the games held out. Returns the figures."""
    pol = model.policy
    held = demos.game % 10 == 9
    train, test = ~held, held
    rng = np.random.default_rng(ws.seed)
    opt = torch.optim.Adam(pol.parameters(), lr=ws.learning_rate)
    obs = torch.as_tensor(demos.obs[train])
    acts = torch.as_tensor(demos.actions[train])
    rets = torch.as_tensor(demos.returns[train])
    masks = demos.masks[train]
    before = agreement(pol, demos.obs[test], demos.masks[test], demos.actions[test])
    pol.set_training_mode(True)
    losses = []
    for _ in range(ws.epochs):
        order = rng.permutation(len(acts))
        total = 0.0
        for a in range(0, len(order), ws.batch_size):
            idx = order[a : a + ws.batch_size]
            values, log_prob, _ = pol.evaluate_actions(obs[idx], acts[idx], action_masks=masks[idx])
            loss = -log_prob.mean() + ws.value_weight * torch.mean(
                (values.flatten() - rets[idx]) ** 2
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(pol.parameters(), 0.5)
            opt.step()
            total += loss.item() * len(idx)
        losses.append(total / max(len(order), 1))
    pol.set_training_mode(False)
    after = agreement(pol, demos.obs[test], demos.masks[test], demos.actions[test])
    return {
        "decisions": int(len(demos.actions)),
        "held_out": int(held.sum()),
        "teacher_games": demos.games,
        "teacher_wins": demos.wins,
        "snapped": demos.snapped,
        "collect_seconds": demos.seconds,
        "agreement_before": before,
        "agreement_after": after,
        "losses": losses,
    }


def warm_start(model: Any, cfg: Any) -> dict[str, Any]:
    """Collect the teacher's games and clone them into ``model`` (``cfg.warm_start``), then
    the DAgger rounds; the figures of the first fit, with one row per DAgger round (the
    cloned policy's wins in the games it played, the agreement after the refit)."""
    ws = cfg.warm_start
    t0 = time.perf_counter()
    demos = collect_teacher_games(cfg, ws)
    figures = clone(model, demos, ws)
    rounds = []
    for r in range(ws.dagger_rounds):
        new = collect(
            cfg,
            ws,
            first=ws.games + r * ws.dagger_games,
            games=ws.dagger_games,
            learner=model.policy,
        )
        demos = merge(demos, new)
        refit = clone(model, demos, ws)
        rounds.append(
            {
                "games": new.games,
                "learner_wins": new.wins,
                "decisions": int(len(demos.actions)),
                "agreement_after": refit["agreement_after"],
            }
        )
    if rounds:
        figures["dagger"] = rounds
        figures["agreement_after"] = rounds[-1]["agreement_after"]
        figures["decisions"] = rounds[-1]["decisions"]
    figures["seconds"] = time.perf_counter() - t0
    return figures
