"""Self-play with RLlib's PPO on the new API stack (RLModule, Learner, EnvRunner): the entry
for users who outgrow one machine.

``python -m train.rllib_selfplay --game lunatix --iterations 50 [--players 2] [--address
auto] [--seed 0] [--out runs/rllib_lunatix] [--env-runners N] [--envs-per-runner N]
[--learners N]`` (``--help`` lists every knob).

The envs are :class:`tabletop.env_rllib.RLlibMultiAgentEnv` (any registry game; Lazer
Ryderz in its ``discrete`` action mode by default, ``--action-mode hybrid`` trains the
native ``Dict`` action), the policy is :class:`train.rllib_module.MaskedMLPModule`. One
learning module, ``main``, plays one seat of every game (drawn per episode); every other
seat is played by a frozen snapshot of ``main`` drawn from the pool (``snap_0`` is the
untrained policy). Every ``--snapshot-every`` iterations the current ``main`` joins the pool
(``Algorithm.add_module`` and ``set_state``); once the pool holds ``--max-snapshots``, a new
snapshot overwrites the oldest (its weights replaced, so no ongoing episode loses the module
it plays with). Only ``main`` is trained (``policies_to_train``).

Seeds: ``--seed`` seeds RLlib (each EnvRunner gets ``seed + worker index``, which also
seeds its envs' first games and their seed streams, ``tabletop.env_rllib``) and the seat
draws (:class:`SeatMapping`, seeded per EnvRunner process from RLlib's seeded generator).
RLlib orders its training batches by iterating sets of agent ids, so a run is reproducible
only under one string hash seed: the CLI runs itself with ``PYTHONHASHSEED=0`` where it is
unset (and passes it to a cluster's workers); a caller of :func:`train` sets it itself.

Writes ``--out``:

=======================  ==================================================================
file                     what
=======================  ==================================================================
``policy.onnx``          the final ``main`` (docs/policies.md), checked against torch on
                         seeded random play; ``policy.json`` greedy play
                         (``algorithm: RLlib-PPO``); ``sampled/`` the same policy sampling
``checkpoint/``          the RLlib checkpoint (``Algorithm.save_to_path``; every
                         ``--checkpoint-every`` iterations and at the end)
``selfplay.json``        the pool and iteration count (``--resume`` continues from them)
``eval/``                ``agents.evaluate``'s settings of the player count (greedy play,
                         ``--eval-games`` games each; not for the ``hybrid`` action mode,
                         which the policy bot does not play)
``result.json``          per iteration: env steps, seconds, steps/s, ``main``'s mean return,
                         losses; the snapshots, the parity check, the evaluation
``report.md``            the same as tables
=======================  ==================================================================

Ray: ``--address local`` (the default) starts a fresh local instance (``num_cpus`` from
``--num-cpus``, no dashboard; the start is retried, as the raylet can time out on a loaded
machine); ``--address auto`` joins the running cluster (``ray start --head`` on one machine,
``ray start --address=HEAD:6379`` on the others, the project installed in the same
environment on each).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from tabletop import registry
from tabletop.env_rllib import OBS_KEY, RLlibMultiAgentEnv
from train.rllib_module import MaskedMLPModule, ModuleConfig, export_onnx, module_spec, parity

#: the learning module and the prefix of the snapshots' ids
MAIN = "main"
SNAPSHOT_PREFIX = "snap_"
STATE_JSON = "selfplay.json"
RESULT_JSON = "result.json"
CHECKPOINT_DIR = "checkpoint"
#: env options that only shape training (left out of policy.json's env_options)
TRAINING_ONLY_OPTIONS = ("max_rounds", "shaping", "on_illegal", "auto_play")
#: lineups a SeatMapping remembers (episodes in flight in one EnvRunner: far fewer)
LINEUP_CACHE = 4096


@dataclass(frozen=True)
class SelfPlayConfig:
    """Every knob of a run (the CLI's flags)."""

    game: str = "lunatix"
    num_players: int = 2
    #: env keyword options of the game (``action_mode``, ``max_rounds``, ``shaping``, ...)
    env_options: dict[str, Any] = field(default_factory=dict)
    iterations: int = 2
    seed: int = 0
    out: str = "runs/rllib_lunatix"
    address: str = "local"
    num_cpus: int = 2
    env_runners: int = 0
    envs_per_runner: int = 1
    learners: int = 0
    train_batch: int = 2000
    minibatch: int = 128
    epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.99
    lambda_: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    hiddens: tuple[int, ...] = (256, 256)
    snapshot_every: int = 5
    max_snapshots: int = 8
    checkpoint_every: int = 10
    eval_games: int = 40
    eval_processes: int = 1
    parity_observations: int = 1000
    torch_threads: int = 1
    resume: bool = False

    def __post_init__(self) -> None:
        entry = registry.get(self.game)  # UnknownGameError naming the games
        checks = [
            (self.iterations >= 0, "iterations must be >= 0"),
            (self.num_players >= 2, "num_players must be >= 2"),
            (self.env_runners >= 0 and self.learners >= 0, "env_runners and learners must be >= 0"),
            (self.envs_per_runner >= 1, "envs_per_runner must be >= 1"),
            (self.train_batch >= self.minibatch >= 1, "need train_batch >= minibatch >= 1"),
            (self.epochs >= 1, "epochs must be >= 1"),
            (
                self.snapshot_every >= 1 and self.max_snapshots >= 1,
                "snapshot_every and max_snapshots must be >= 1",
            ),
            (self.checkpoint_every >= 1, "checkpoint_every must be >= 1"),
            (
                self.eval_games >= 0 and self.parity_observations >= 1,
                "eval_games must be >= 0, parity_observations >= 1",
            ),
            (
                "num_players" not in self.env_options and "game" not in self.env_options,
                "num_players and game are fields of their own, not env options",
            ),
            (
                self.address != "local" or self.num_cpus >= self.env_runners + self.learners,
                f"a local Ray of {self.num_cpus} CPUs cannot hold {self.env_runners} env runners "
                f"and {self.learners} learners (one CPU each): raise --num-cpus or lower them",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(f"rllib self-play config: {message}")
        if entry.name != self.game:
            object.__setattr__(self, "game", entry.name)

    @property
    def options(self) -> dict[str, Any]:
        """The env options with the game's defaults for this trainer (Lazer Ryderz: the
        ``discrete`` action mode unless told)."""
        opts = dict(self.env_options)
        if self.game == "ryderz":
            opts.setdefault("action_mode", "discrete")
        return opts

    @property
    def hybrid(self) -> bool:
        """Whether the action is Lazer Ryderz's ``Dict`` (the policy bot plays no such
        policy: no evaluation)."""
        return self.options.get("action_mode") == "hybrid"


def env_config(cfg: SelfPlayConfig) -> dict[str, Any]:
    """The adapter's ``env_config`` of a run."""
    return {"game": cfg.game, "num_players": cfg.num_players, **cfg.options}


def eval_options(cfg: SelfPlayConfig) -> dict[str, Any]:
    """The env options of ``policy.json``: the adapter's keywords without the training-only
    ones."""
    return {k: v for k, v in cfg.options.items() if k not in TRAINING_ONLY_OPTIONS}


# ---------------------------------------------------------------------- ray
def connect_ray(
    address: str = "local", num_cpus: int = 2, attempts: int = 3, wait_s: float = 5.0
) -> bool:
    """``ray.init``: a fresh local instance (``address="local"``, ``num_cpus``, no
    dashboard) or the cluster at ``address`` (``"auto"``: the running one). Retries the
    start (the raylet can time out on a loaded machine). Returns whether it started Ray
    (False: it was already running in this process)."""
    if ray.is_initialized():
        return False
    last: Exception | None = None
    for attempt in range(attempts):
        try:
            if address == "local":
                ray.init(
                    address="local",
                    num_cpus=num_cpus,
                    include_dashboard=False,
                    object_store_memory=256 * 1024 * 1024,
                    configure_logging=True,
                    logging_level="warning",
                )
            else:  # the job's workers hash strings as this process does (see the module)
                ray.init(
                    address=address,
                    logging_level="warning",
                    runtime_env={
                        "env_vars": {"PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
                    },
                )
            return True
        except Exception as exc:  # ray raises untyped errors (timeouts, connection)
            last = exc
            ray.shutdown()
            time.sleep(wait_s * (attempt + 1))
    raise RuntimeError(
        f"ray.init(address={address!r}) failed {attempts} times; last error: "
        f"{type(last).__name__}: {last}"
    )


# ---------------------------------------------------------------------- self-play mapping
class SeatMapping:
    """RLlib's ``agent_to_module_mapping_fn`` for self-play: per episode, one seat (drawn)
    plays ``main`` and every other seat a snapshot drawn from ``pool``.

    The draws come from a generator made on first use in each EnvRunner process from
    ``(seed, version)`` and one draw of RLlib's seeded global generator (RLlib seeds each
    EnvRunner with ``seed + worker index``), so runs are reproducible and EnvRunners draw
    different lineups. An episode's lineup is kept until it is forgotten
    (:data:`LINEUP_CACHE` episodes later)."""

    def __init__(self, seed: int, pool: Sequence[str], num_players: int, version: int = 0) -> None:
        if not pool:
            raise ValueError("the snapshot pool is empty")
        self.seed = int(seed)
        self.pool = tuple(pool)
        self.num_players = int(num_players)
        self.version = int(version)
        self._rng: np.random.Generator | None = None
        self._lineups: OrderedDict[str, dict[str, str]] = OrderedDict()

    def __getstate__(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["_rng"], data["_lineups"] = None, OrderedDict()
        return data

    def lineup(self) -> dict[str, str]:
        """A new lineup: agent -> module id."""
        if self._rng is None:
            self._rng = np.random.default_rng(
                [self.seed, self.version, int(np.random.randint(2**31))]
            )
        rng = self._rng
        learner = int(rng.integers(self.num_players))
        return {
            f"player_{s}": MAIN if s == learner else self.pool[int(rng.integers(len(self.pool)))]
            for s in range(self.num_players)
        }

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = str(getattr(episode, "id_", id(episode)))
        lineup = self._lineups.get(key)
        if lineup is None:
            lineup = self._lineups[key] = self.lineup()
            while len(self._lineups) > LINEUP_CACHE:
                self._lineups.popitem(last=False)
        return lineup[agent_id]


# ---------------------------------------------------------------------- the algorithm
class _NoTrainedSamples(Exception):
    """Raised inside :class:`SelfPlayLearner` when a batch holds no sample of ``main``."""


class SelfPlayLearner(PPOTorchLearner):
    """PPO's torch Learner that skips an update whose batch holds no sample of a trained
    module (RLlib 2.60's Learner fails on one with an ``UnboundLocalError``). Self-play meets
    such batches: the learning seat may sit out a whole batch while the others play on (its
    car out of the Lunatix race, the other cars driving to the round limit)."""

    def _create_iterator_if_necessary(self, **kwargs: Any) -> Any:
        batch_iter = super()._create_iterator_if_necessary(**kwargs)
        if isinstance(batch_iter, dict) and not batch_iter:  # no trained module's samples
            raise _NoTrainedSamples
        return batch_iter

    def update(self, *args: Any, **kwargs: Any) -> Any:
        """``Learner.update``; a batch without a trained module's samples changes
        nothing (its metrics are the last ones)."""
        try:
            return super().update(*args, **kwargs)
        except _NoTrainedSamples:
            return None if kwargs.get("_no_metrics_reduce") else self.metrics.reduce()


def _set_torch_threads(n: int) -> Any:
    """An ``on_environment_created`` callback setting torch's threads in each EnvRunner
    (small MLPs run many times faster on one thread on a small machine)."""

    def callback(**kwargs: Any) -> None:
        torch.set_num_threads(n)

    return callback


def spaces_of(cfg: SelfPlayConfig) -> tuple[Any, Any]:
    """One agent's observation and (plain) action spaces of the run's env."""
    env = RLlibMultiAgentEnv(env_config(cfg))
    agent = env.possible_agents[0]
    spaces = env.observation_spaces[agent], env.par_env.action_space(agent)
    env.close()
    return spaces


def build_config(
    cfg: SelfPlayConfig,
    pool: Sequence[str] = (f"{SNAPSHOT_PREFIX}0",),
    version: int = 0,
    module_class: type | None = None,
) -> Any:
    """The ``PPOConfig`` of a run: the adapter's envs, ``main`` and the ``pool``'s
    snapshots (all :class:`~train.rllib_module.MaskedMLPModule`, or ``module_class``), only
    ``main`` trained."""
    spec = module_spec(ModuleConfig(hiddens=tuple(cfg.hiddens)), module_class)
    modules = [MAIN, *pool]
    return (
        PPOConfig()
        .environment(RLlibMultiAgentEnv, env_config=env_config(cfg))
        .framework("torch")
        .env_runners(
            num_env_runners=cfg.env_runners,
            num_envs_per_env_runner=cfg.envs_per_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=cfg.learners, learner_class=SelfPlayLearner)
        .training(
            train_batch_size_per_learner=cfg.train_batch,
            minibatch_size=cfg.minibatch,
            num_epochs=cfg.epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            clip_param=cfg.clip,
            entropy_coeff=cfg.entropy,
        )
        .multi_agent(
            policies=modules,
            policy_mapping_fn=SeatMapping(cfg.seed, pool, cfg.num_players, version),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in modules}))
        .callbacks(on_environment_created=_set_torch_threads(cfg.torch_threads))
        .debugging(seed=cfg.seed, log_level="WARN")
    )


def module_state(algo: Any, module_id: str = MAIN) -> dict[str, Any]:
    """The weights of a module as the learners hold them (remote learners included)."""
    path = f"learner_group/learner/rl_module/{module_id}"
    return algo.get_state(components=path)["learner_group"]["learner"]["rl_module"][module_id]


def set_module_state(algo: Any, module_id: str, state: dict[str, Any]) -> None:
    """Give ``module_id`` these weights on the learners and every EnvRunner."""
    algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: state}}}})


def local_module(cfg: SelfPlayConfig, state: dict[str, Any]) -> Any:
    """A :class:`~train.rllib_module.MaskedMLPModule` in this process with ``state``."""
    obs_space, act_space = spaces_of(cfg)
    module = MaskedMLPModule(
        observation_space=obs_space,
        action_space=act_space,
        model_config=ModuleConfig(hiddens=tuple(cfg.hiddens)).to_model_config(),
    )
    module.set_state(state)
    return module.eval()


@dataclass
class Pool:
    """The snapshot pool: module ids in order of creation, the slot the next snapshot
    overwrites once full, and the mapping version."""

    ids: list[str] = field(default_factory=lambda: [f"{SNAPSHOT_PREFIX}0"])
    next_slot: int = 0
    version: int = 0
    #: per snapshot id: the iteration whose ``main`` it holds
    taken_at: dict[str, int] = field(default_factory=lambda: {f"{SNAPSHOT_PREFIX}0": 0})


def add_snapshot(algo: Any, cfg: SelfPlayConfig, pool: Pool, iteration: int) -> str:
    """Freeze the current ``main`` into the pool (a new module while there is room, else
    over the oldest snapshot's weights); returns the snapshot's id."""
    state = module_state(algo)
    if len(pool.ids) < cfg.max_snapshots:
        mid = f"{SNAPSHOT_PREFIX}{len(pool.ids)}"
        pool.ids.append(mid)
        pool.version += 1
        obs_space, act_space = spaces_of(cfg)
        spec = RLModuleSpec(
            module_class=MaskedMLPModule,
            observation_space=obs_space,
            action_space=act_space,
            model_config=ModuleConfig(hiddens=tuple(cfg.hiddens)).to_model_config(),
        )
        algo.add_module(
            module_id=mid,
            module_spec=spec,
            new_agent_to_module_mapping_fn=SeatMapping(
                cfg.seed, pool.ids, cfg.num_players, pool.version
            ),
            new_should_module_be_updated=[MAIN],
        )
    else:
        mid = pool.ids[pool.next_slot]
        pool.next_slot = (pool.next_slot + 1) % len(pool.ids)
    set_module_state(algo, mid, state)
    pool.taken_at[mid] = iteration
    return mid


def iteration_row(result: dict[str, Any], iteration: int, seconds: float) -> dict[str, Any]:
    """The figures of one ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MAIN, {})
    returns = runners.get("module_episode_returns_mean", {}) or {}

    def num(x: Any) -> float | None:
        return None if x is None or not np.isfinite(float(x)) else float(x)

    steps = int(num(runners.get("num_env_steps_sampled")) or 0)
    return {
        "iteration": iteration,
        "env_steps": steps,
        "seconds": seconds,
        "steps_per_second": steps / seconds if seconds > 0 else 0.0,
        "episodes": int(num(runners.get("num_episodes")) or 0),
        "main_return_mean": num(returns.get(MAIN)),
        "episode_len_mean": num(runners.get("episode_len_mean")),
        "policy_loss": num(learner.get("policy_loss")),
        "vf_loss": num(learner.get("vf_loss")),
        "entropy": num(learner.get("entropy")),
    }


# ---------------------------------------------------------------------- export, evaluation
def parity_observations(cfg: SelfPlayConfig, n: int, seed: int) -> np.ndarray:
    """``n`` observations of seeded random legal play in the run's env (the parity
    check's inputs: positions of the game, not random vectors)."""
    env = RLlibMultiAgentEnv(env_config(cfg))
    out: list[np.ndarray] = []
    obs, _ = env.reset(seed=seed)
    while len(out) < n:
        out += [np.asarray(o[OBS_KEY], dtype=np.float32).reshape(-1) for o in obs.values()]
        obs, _, term, trunc, _ = env.step({a: env.action_spaces[a].sample() for a in obs})
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    env.close()
    return np.stack(out[:n])


def export_policy(cfg: SelfPlayConfig, state: dict[str, Any], out: Path) -> dict[str, Any]:
    """Write ``policy.onnx`` + ``policy.json`` (greedy) and ``sampled/`` from ``main``'s
    weights, after the parity check (ValueError and no file when it fails)."""
    from agents.policy_bot import ONNX_FILE, PolicyMeta, write_policy_json

    module = local_module(cfg, state)
    path = export_onnx(module, out / ONNX_FILE)
    check = parity(module, path, parity_observations(cfg, cfg.parity_observations, cfg.seed))
    if not check.ok:
        path.unlink()
        raise ValueError(f"{path}: the ONNX policy differs from torch's: {check}")
    entry = registry.get(cfg.game)
    options = eval_options(cfg)
    adapter = entry.envs().make_adapter(num_players=cfg.num_players, **options)
    meta = PolicyMeta(
        game=entry.name,
        env_id=entry.env_id,
        env_name=entry.env_name,
        num_players=cfg.num_players,
        env_options=options,
        rules=adapter.game.config_dict(),
        mode="greedy",
        algorithm="RLlib-PPO",
        model="",
        onnx=ONNX_FILE,
    )
    write_policy_json(out, meta)
    sampled = out / "sampled"
    sampled.mkdir(exist_ok=True)
    shutil.copyfile(path, sampled / ONNX_FILE)
    write_policy_json(sampled, replace(meta, mode="sampled"))
    return {
        "observations": check.observations,
        "argmax_equal": check.argmax_equal,
        "max_logit_diff": check.max_logit_diff,
        "max_value_diff": check.max_value_diff,
        "ok": check.ok,
    }


def evaluate_policy(cfg: SelfPlayConfig, out: Path) -> dict[str, Any] | None:
    """``agents.evaluate`` of the greedy policy (``eval_games`` games per setting of its
    player count); None without games or for a hybrid policy."""
    if cfg.eval_games == 0 or cfg.hybrid:
        return None
    from agents.evaluate import evaluate

    return evaluate(
        cfg.game,
        f"policy:{out}",
        games=cfg.eval_games,
        processes=cfg.eval_processes,
        out=out / "eval",
    )


# ---------------------------------------------------------------------- the run
def _save(algo: Any, out: Path, pool: Pool, iteration: int, history: list[dict[str, Any]]) -> None:
    """The checkpoint, and beside it the pool, the iteration and the history up to it (what
    ``--resume`` continues from)."""
    algo.save_to_path(str((out / CHECKPOINT_DIR).resolve()))
    (out / STATE_JSON).write_text(
        json.dumps(
            {"iteration": iteration, "pool": asdict(pool), "history": history},
            indent=1,
            default=str,
        )
    )


def train(cfg: SelfPlayConfig, progress: bool = True) -> dict[str, Any]:
    """Run ``cfg``: train, snapshot, checkpoint, export, evaluate; returns the result (also
    written to ``out/result.json`` and ``out/report.md``). Starts Ray when it is not
    running (and stops it afterwards)."""
    torch.set_num_threads(cfg.torch_threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    started = connect_ray(cfg.address, cfg.num_cpus)
    algo: Any = None
    try:
        state_file = out / STATE_JSON
        if cfg.resume and state_file.is_file() and (out / CHECKPOINT_DIR).is_dir():
            saved = json.loads(state_file.read_text())
            pool, done = Pool(**saved["pool"]), int(saved["iteration"])
            # the iterations up to the checkpoint (those after it are trained again)
            history: list[dict[str, Any]] = list(saved.get("history", []))[:done]
            algo = Algorithm.from_checkpoint(str((out / CHECKPOINT_DIR).resolve()))
        else:
            pool, done, history = Pool(), 0, []
            algo = build_config(cfg, pool.ids, pool.version).build_algo()
            set_module_state(algo, pool.ids[0], module_state(algo))  # snap_0: untrained
        for it in range(done + 1, cfg.iterations + 1):
            t0 = time.perf_counter()
            result = algo.train()
            row = iteration_row(result, it, time.perf_counter() - t0)
            history.append(row)
            if it % cfg.snapshot_every == 0 and it < cfg.iterations:
                row["snapshot"] = add_snapshot(algo, cfg, pool, it)
            if progress:
                print(
                    f"iteration {it}/{cfg.iterations}: {row['env_steps']} env steps in "
                    f"{row['seconds']:.1f} s ({row['steps_per_second']:.0f}/s), main's "
                    f"return {row['main_return_mean']}, pool {len(pool.ids)}",
                    flush=True,
                )
            if it % cfg.checkpoint_every == 0:
                _save(algo, out, pool, it, history)
        _save(algo, out, pool, max(done, cfg.iterations), history)
        state = module_state(algo)
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
    parity = export_policy(cfg, state, out)
    evaluation = evaluate_policy(cfg, out)
    steps = sum(r["env_steps"] for r in history)
    seconds = sum(r["seconds"] for r in history)
    result = {
        "config": {**asdict(cfg), "hiddens": list(cfg.hiddens)},
        "history": history,
        "pool": asdict(pool),
        "parity": parity,
        "env_steps": steps,
        "train_seconds": seconds,
        "steps_per_second": steps / seconds if seconds > 0 else 0.0,
        "evaluation": evaluation,
    }
    (out / RESULT_JSON).write_text(json.dumps(result, indent=1, default=str))
    (out / "report.md").write_text(to_markdown(result))
    return result


def to_markdown(result: dict[str, Any]) -> str:
    """The run's report."""
    cfg = result["config"]
    title = registry.get(cfg["game"]).title
    lines = [
        f"# RLlib PPO self-play on {title} ({cfg['num_players']} players)",
        "",
        f"Seed {cfg['seed']}; {result['env_steps']} env steps in "
        f"{result['train_seconds']:.1f} s ({result['steps_per_second']:.0f} steps/s) with "
        f"{cfg['env_runners']} env runners x {cfg['envs_per_runner']} envs and "
        f"{cfg['learners']} learners.",
        "",
        "| iteration | env steps | s | steps/s | main's mean return | policy loss | "
        "entropy | snapshot |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def f(x: Any, spec: str = ".3f") -> str:
        return "" if x is None else format(x, spec)

    for r in result["history"]:
        lines.append(
            f"| {r['iteration']} | {r['env_steps']} | {r['seconds']:.1f} | "
            f"{r['steps_per_second']:.0f} | {f(r['main_return_mean'])} | "
            f"{f(r['policy_loss'])} | {f(r['entropy'])} | {r.get('snapshot', '')} |"
        )
    p = result["parity"]
    lines += [
        "",
        f"`policy.onnx` against torch on {p['observations']} observations of seeded "
        f"random play: the same arg-max (float ties aside) on {p['argmax_equal']}, logits "
        f"within {p['max_logit_diff']:.2e}.",
        "",
    ]
    if result["evaluation"] is not None:
        from agents.evaluate import to_markdown as eval_markdown

        lines += [eval_markdown(result["evaluation"])]
    elif cfg["env_options"].get("action_mode") == "hybrid":
        lines += ["No evaluation: the policy bot plays no hybrid-action policy.", ""]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> SelfPlayConfig:
    """The CLI's config."""
    d = SelfPlayConfig()
    ap = argparse.ArgumentParser(
        prog="python -m train.rllib_selfplay", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--game", default=d.game, choices=registry.names())
    ap.add_argument("--players", type=int, default=d.num_players)
    ap.add_argument("--iterations", type=int, default=d.iterations)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--out", help="output folder (default runs/rllib_<game>)")
    ap.add_argument(
        "--address",
        default=d.address,
        help="'local' (a fresh local Ray), 'auto' (the running cluster) or host:port",
    )
    ap.add_argument("--num-cpus", type=int, default=d.num_cpus, help="local Ray's CPUs")
    ap.add_argument("--env-runners", type=int, default=d.env_runners)
    ap.add_argument("--envs-per-runner", type=int, default=d.envs_per_runner)
    ap.add_argument("--learners", type=int, default=d.learners)
    ap.add_argument(
        "--batch",
        type=int,
        default=d.train_batch,
        help="env steps per training iteration and learner",
    )
    ap.add_argument("--minibatch", type=int, default=d.minibatch)
    ap.add_argument("--epochs", type=int, default=d.epochs)
    ap.add_argument("--lr", type=float, default=d.lr)
    ap.add_argument("--entropy", type=float, default=d.entropy)
    ap.add_argument("--hiddens", default=",".join(map(str, d.hiddens)))
    ap.add_argument("--snapshot-every", type=int, default=d.snapshot_every)
    ap.add_argument("--max-snapshots", type=int, default=d.max_snapshots)
    ap.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every)
    ap.add_argument("--eval-games", type=int, default=d.eval_games)
    ap.add_argument("--eval-processes", type=int, default=d.eval_processes)
    ap.add_argument("--parity-observations", type=int, default=d.parity_observations)
    ap.add_argument("--action-mode", help="Lazer Ryderz: discrete (default) or hybrid")
    ap.add_argument("--max-rounds", type=int, help="round limit of the training games")
    ap.add_argument(
        "--resume", action="store_true", help="continue from --out's checkpoint and selfplay.json"
    )
    a = ap.parse_args(argv)
    options: dict[str, Any] = {}
    if a.action_mode is not None:
        options["action_mode"] = a.action_mode
    if a.max_rounds is not None:
        options["max_rounds"] = a.max_rounds
    return SelfPlayConfig(
        game=a.game,
        num_players=a.players,
        env_options=options,
        iterations=a.iterations,
        seed=a.seed,
        out=a.out or f"runs/rllib_{registry.get(a.game).name}",
        address=a.address,
        num_cpus=a.num_cpus,
        env_runners=a.env_runners,
        envs_per_runner=a.envs_per_runner,
        learners=a.learners,
        train_batch=a.batch,
        minibatch=a.minibatch,
        epochs=a.epochs,
        lr=a.lr,
        entropy=a.entropy,
        hiddens=tuple(int(h) for h in a.hiddens.split(",") if h),
        snapshot_every=a.snapshot_every,
        max_snapshots=a.max_snapshots,
        checkpoint_every=a.checkpoint_every,
        eval_games=a.eval_games,
        eval_processes=a.eval_processes,
        parity_observations=a.parity_observations,
        resume=a.resume,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI; returns the exit status."""
    try:
        cfg = parse_args(argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = train(cfg)
    print(to_markdown(result))
    return 0


def run_with_fixed_hash_seed() -> None:
    """Run this CLI again with ``PYTHONHASHSEED=0`` where it is unset (RLlib iterates sets
    of agent ids into its training batches, so the string hash seed decides the batches'
    order, and with it the weights); a local Ray started by the run inherits it."""
    if os.environ.get("PYTHONHASHSEED") is None:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        os.execve(
            sys.executable, [sys.executable, "-m", "train.rllib_selfplay", *sys.argv[1:]], env
        )


if __name__ == "__main__":
    run_with_fixed_hash_seed()
    sys.exit(main())
