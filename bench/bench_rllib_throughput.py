"""Training throughput of RLlib's PPO (new API stack, ``tabletop.env_rllib`` and
``train.rllib_module``) beside sb3-contrib's MaskablePPO on the same game, in one run.

``.venv-rllib/bin/python bench/bench_rllib_throughput.py [--game lunatix] [--players 2]
[--iterations 4] [--batch 1024] [--sb3-python .venv/bin/python] [--json out.json]``

Both train the same MLP (``--hiddens``, actor and critic apart, tanh) with the same rollout
size (``--batch`` env steps per update), minibatch, epochs and one torch thread, on CPU:

- RLlib: one module shared by every seat (the docs' recipe), 0 env runners and 0 learners
  (sampling and learning in this process, as SB3's), ``--env-runners N`` for remote
  sampling; counted: the multi-agent env's steps (one decision layer each) and the agent
  steps (the samples trained on) over ``--iterations`` timed iterations after one warm-up;
- SB3: MaskablePPO in the game's single-agent view (the other seats random, inside the env
  step), one env (``DummyVecEnv``); counted: the learner's steps (the samples trained on)
  over ``--iterations`` timed rollouts-and-updates after one warm-up.

The ratio reported is RLlib's samples/s over SB3's (samples = steps of the learning policy
that reach the update). Ray pins its own Gymnasium, so SB3 usually lives in another venv:
the SB3 side runs in ``--sb3-python`` (default ``.venv/bin/python`` when this interpreter has
no sb3_contrib) as a subprocess of this script, one after the other on the same machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def env_options(args: argparse.Namespace) -> dict[str, Any]:
    """The env keyword options of both sides (Lazer Ryderz in its discrete action mode)."""
    return {"action_mode": "discrete"} if args.game == "ryderz" else {}


def bench_rllib(args: argparse.Namespace) -> dict[str, Any]:
    """RLlib PPO's env steps/s and agent steps/s over ``args.iterations`` timed
    iterations."""
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from tabletop.env_rllib import RLlibMultiAgentEnv
    from train.rllib_module import ModuleConfig, module_spec
    from train.rllib_selfplay import connect_ray

    torch.set_num_threads(1)
    started = connect_ray("local", num_cpus=2)
    config = (
        PPOConfig()
        .environment(
            RLlibMultiAgentEnv,
            env_config={"game": args.game, "num_players": args.players, **env_options(args)},
        )
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=3e-4,
        )
        .multi_agent(
            policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared"
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={"shared": module_spec(ModuleConfig(hiddens=tuple(args.hiddens)))}
            )
        )
        .debugging(seed=args.seed, log_level="ERROR")
    )
    algo = config.build_algo()
    algo.train()  # warm-up
    env_steps = agent_steps = 0
    start = time.perf_counter()
    for _ in range(args.iterations):
        r = algo.train()["env_runners"]
        env_steps += int(r["num_env_steps_sampled"])
        agent_steps += agent_sample_count(r["num_agent_steps_sampled"])
    seconds = time.perf_counter() - start
    algo.stop()
    if started:
        ray.shutdown()
    return {
        "side": "rllib",
        "seconds": seconds,
        "env_steps": env_steps,
        "samples": agent_steps,
        "env_steps_per_s": env_steps / seconds,
        "samples_per_s": agent_steps / seconds,
        "env_runners": args.env_runners,
    }


def agent_sample_count(value: Any) -> int:
    """The agent steps of an RLlib result entry (a number or a dict per agent)."""
    if isinstance(value, dict):
        return int(sum(value.values()))
    return int(value)


def bench_sb3(args: argparse.Namespace) -> dict[str, Any]:
    """MaskablePPO's learner steps/s over ``args.iterations`` timed rollouts and updates."""
    import torch
    from sb3_contrib import MaskablePPO

    from tabletop import registry

    torch.set_num_threads(1)
    env = registry.get(args.game).single_agent_env(num_players=args.players, **env_options(args))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.batch,
        batch_size=args.minibatch,
        n_epochs=args.epochs,
        learning_rate=3e-4,
        seed=args.seed,
        device="cpu",
        verbose=0,
        policy_kwargs={
            "net_arch": {"pi": list(args.hiddens), "vf": list(args.hiddens)},
            "activation_fn": torch.nn.Tanh,
        },
    )
    model.learn(total_timesteps=args.batch)  # warm-up
    before = model.num_timesteps
    start = time.perf_counter()
    model.learn(total_timesteps=args.batch * args.iterations, reset_num_timesteps=False)
    seconds = time.perf_counter() - start
    samples = model.num_timesteps - before
    return {
        "side": "sb3",
        "seconds": seconds,
        "samples": samples,
        "samples_per_s": samples / seconds,
    }


def side_argv(args: argparse.Namespace) -> list[str]:
    """The flags of ``args`` for a subprocess running one side."""
    return [
        "--game",
        args.game,
        "--players",
        str(args.players),
        "--iterations",
        str(args.iterations),
        "--batch",
        str(args.batch),
        "--minibatch",
        str(args.minibatch),
        "--epochs",
        str(args.epochs),
        "--hiddens",
        ",".join(map(str, args.hiddens)),
        "--env-runners",
        str(args.env_runners),
        "--seed",
        str(args.seed),
    ]


def run_side(side: str, args: argparse.Namespace) -> dict[str, Any]:
    """One side in this process where its library imports, else in ``--sb3-python``."""
    module = "ray" if side == "rllib" else "sb3_contrib"
    if importlib.util.find_spec(module) is not None:
        return bench_rllib(args) if side == "rllib" else bench_sb3(args)
    python = args.sb3_python if side == "sb3" else args.rllib_python
    if not python or not Path(python).exists():
        raise SystemExit(
            f"{module} is not importable here and no interpreter for the {side} "
            f"side was found (--{side}-python)"
        )
    done = subprocess.run(
        [python, __file__, "--part", side, *side_argv(args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    if done.returncode != 0:
        raise SystemExit(f"the {side} side failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """The CLI."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="lunatix", choices=("lunatix", "ryderz"))
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--minibatch", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--hiddens", type=lambda s: [int(h) for h in s.split(",")], default=[64, 64])
    ap.add_argument("--env-runners", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sb3-python", default=str(ROOT / ".venv" / "bin" / "python"))
    ap.add_argument("--rllib-python", default="/tmp/vray/bin/python")
    ap.add_argument("--part", choices=("rllib", "sb3", "both"), default="both")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.part != "both":
        print(json.dumps(run_side(args.part, args)))
        return 0
    rllib = run_side("rllib", args)
    sb3 = run_side("sb3", args)
    result = {
        "game": args.game,
        "players": args.players,
        "batch": args.batch,
        "minibatch": args.minibatch,
        "epochs": args.epochs,
        "hiddens": args.hiddens,
        "iterations": args.iterations,
        "machine": platform.platform(),
        "rllib": rllib,
        "sb3": sb3,
        "ratio_samples_per_s": rllib["samples_per_s"] / sb3["samples_per_s"],
    }
    print(
        f"{args.game} {args.players}p, batch {args.batch}, minibatch {args.minibatch}, "
        f"{args.epochs} epochs, MLP {args.hiddens}:"
    )
    print(
        f"  RLlib PPO ({args.env_runners} env runners): {rllib['env_steps_per_s']:.0f} env "
        f"steps/s, {rllib['samples_per_s']:.0f} samples/s"
    )
    print(f"  SB3 MaskablePPO (single-agent view): {sb3['samples_per_s']:.0f} samples/s")
    print(f"  ratio RLlib / SB3 (samples/s): {result['ratio_samples_per_s']:.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
