"""The self-play league: snapshots are added on schedule and play their frozen weights, the
draw follows the configured mixture (and PFSP prefers the opponents the learner loses to),
results are recorded, configs are validated, and a tiny self-play run writes a complete
report and policy files, reproducibly for a seed, and resumes or skips with ``--seeds``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from agents.onnx_policy import OnnxPolicy
from agents.policy_bot import ONNX_FILE, PolicyBot
from tabletop import registry
from tabletop.config import load_config
from tabletop.errors import ConfigError
from train.export import export_onnx, sample_observations
from train.league import Clock, League, LeagueConfig, LeagueOpponents, LeagueSync
from train.selfplay import make_league_env
from train.train import TrainConfig, main, policy_meta
from train.vec_env import GroupedVecEnv

RYDERZ = TrainConfig(
    name="l",
    game="ryderz",
    num_players=2,
    env_options={"action_mode": "discrete", "obs_mode": "vector", "launch_positions": 8},
)


def _model(seed: int = 0) -> MaskablePPO:
    env = registry.get("ryderz").single_agent_env(num_players=2, **RYDERZ.env_options)
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        seed=seed,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )


def _league(tmp_path: Path, **kw) -> League:
    return League(LeagueConfig(**kw), tmp_path / "league", policy_meta(RYDERZ))


def test_the_draw_follows_the_mixture(tmp_path: Path) -> None:
    league = _league(tmp_path, mixture={"latest": 0.5, "heuristic": 0.3, "random": 0.2}, latest=2)
    # no snapshot yet: the snapshot entry is left out and the rest renormalised
    names, p = league.entry_weights()
    assert names == ["heuristic", "random"] and np.allclose(p, [0.6, 0.4])
    model = _model()
    for t in range(4):
        league.add_snapshot(lambda path: export_onnx(model, path), timesteps=100 * t)
    assert league.snapshots == [f"snap-{i:04d}" for i in range(4)]
    assert league.taken_at["snap-0003"] == 300
    rng = np.random.default_rng(0)
    draws = league.draw(rng, 6000)
    counts = {k: draws.count(k) for k in set(draws)}
    # latest 2 of 4 snapshots only, each half of the 0.5 share
    assert set(counts) == {"heuristic", "random", "snap-0002", "snap-0003"}
    for k, want in (("heuristic", 0.3), ("random", 0.2), ("snap-0002", 0.25), ("snap-0003", 0.25)):
        assert abs(counts[k] / 6000 - want) < 0.025, (k, counts)
    # the same generator seed draws the same opponents
    assert league.draw(np.random.default_rng(5), 50) == league.draw(np.random.default_rng(5), 50)


def test_whole_tables_draw_one_entry_for_every_opponent_seat(tmp_path: Path) -> None:
    mixture = {"latest": 0.5, "heuristic": 0.3, "random": 0.2}
    model = _model()

    def tables(whole_table: float, n: int) -> list[list[str]]:
        league = _league(tmp_path / str(whole_table), mixture=mixture, whole_table=whole_table)
        for t in range(3):
            league.add_snapshot(lambda path: export_onnx(model, path), timesteps=t)
        rng = np.random.default_rng(3)
        return [league.draw(rng, 3) for _ in range(n)]

    def kind(member: str) -> str:
        return "snapshot" if member.startswith("snap-") else member

    # every table is one entry's: three snapshots (any of the latest), three heuristics or
    # three random players, in the mixture's proportions
    whole = tables(1.0, 3000)
    assert all(len({kind(m) for m in t}) == 1 for t in whole)
    assert any(len(set(t)) > 1 for t in whole if kind(t[0]) == "snapshot")
    share = {
        k: sum(kind(t[0]) == k for t in whole) / 3000 for k in ("snapshot", "heuristic", "random")
    }
    for k, want in (("snapshot", 0.5), ("heuristic", 0.3), ("random", 0.2)):
        assert abs(share[k] - want) < 0.03, share
    # half whole tables: all-random tables come 0.5 * 0.2 + 0.5 * 0.2 ** 3 of the time
    half = tables(0.5, 4000)
    all_random = sum(t == ["random"] * 3 for t in half) / 4000
    assert abs(all_random - (0.5 * 0.2 + 0.5 * 0.2**3)) < 0.015
    # seat by seat the mixture still holds
    seats = [m for t in half for m in t]
    assert abs(seats.count("heuristic") / len(seats) - 0.3) < 0.02
    # no whole tables: seats draw independently, so a table of three random players is rare
    apart = tables(0.0, 4000)
    assert sum(t == ["random"] * 3 for t in apart) / 4000 < 0.02


def test_prioritized_draws_prefer_the_opponents_the_learner_loses_to(tmp_path: Path) -> None:
    league = _league(tmp_path, mixture={"prioritized": 1.0, "heuristic": 0.0, "random": 0.0})
    model = _model()
    league.add_snapshot(lambda path: export_onnx(model, path), timesteps=0)
    league.add_snapshot(lambda path: export_onnx(model, path), timesteps=1)
    for _ in range(20):
        league.record(["snap-0000"], 1.0)  # the learner beats snap-0000
        league.record(["snap-0001"], 0.0)  # and loses to snap-0001
    ids, w = league.pfsp_weights()
    assert ids == ["snap-0000", "snap-0001"]
    assert w[1] > 10 * w[0]
    draws = league.draw(np.random.default_rng(1), 400)
    assert draws.count("snap-0001") > 0.85 * 400


def test_a_snapshot_plays_its_frozen_weights_not_the_learners(tmp_path: Path) -> None:
    league = _league(tmp_path, mixture={"latest": 1.0})
    model = _model()
    sid = league.add_snapshot(lambda path: export_onnx(model, path), timesteps=0)
    env = registry.get("ryderz").single_agent_env(num_players=2, **RYDERZ.env_options)
    obs = sample_observations(env, 50, seed=2)
    before = league.session(sid).logits(obs)
    # the learner changes (as after a PPO update)
    import torch

    with torch.no_grad():
        for p in model.policy.parameters():
            p.add_(0.5)
    from train.export import torch_outputs

    learner_now = torch_outputs(model, obs)[0]
    assert not np.allclose(learner_now, before, atol=1e-3)
    fresh = OnnxPolicy(league.snapshot_dir(sid) / ONNX_FILE).logits(obs)
    assert np.array_equal(fresh, before)
    assert np.array_equal(league.session(sid).logits(obs), before)
    # and the snapshot is a policy folder: a policy bot plays it
    bot = PolicyBot.load(league.snapshot_dir(sid), game="ryderz")
    assert bot.meta.mode == "sampled" and bot.meta.model == ""
    # the evaluations play it greedy (eval_mode), from the same weights
    greedy = league.eval_dir(sid)
    assert PolicyBot.load(greedy).meta.mode == "greedy"
    assert np.array_equal(OnnxPolicy(greedy / ONNX_FILE).logits(obs), before)


def test_opponents_are_built_per_member_and_recorded(tmp_path: Path) -> None:
    league = _league(tmp_path, mixture={"latest": 0.5, "heuristic": 0.5})
    model = _model()
    league.add_snapshot(lambda path: export_onnx(model, path), timesteps=0)
    opp = LeagueOpponents(league, "ryderz", seats=1, seed=0)
    seen = set()
    rng = np.random.default_rng(3)
    for _ in range(20):
        (policy,) = opp(rng)
        seen.add(opp.current[0])
        if opp.current[0] == "heuristic":
            assert callable(policy.act) and callable(policy.reset)  # a bot
        else:
            assert callable(policy) and policy.needs_observation  # an ONNX policy
    assert seen == {"heuristic", "snap-0000"}
    league.record(["heuristic", "heuristic"], 0.5)
    assert (league.records["heuristic"].games, league.records["heuristic"].score) == (1, 0.5)
    league.save()
    again = _league(tmp_path, mixture={"latest": 0.5, "heuristic": 0.5})
    again.load()
    assert again.snapshots == league.snapshots and again.records["heuristic"].games == 1


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"mixture": {"self": 1.0}}, "unknown entries"),
        ({"mixture": {"latest": -1.0, "random": 1.0}}, "weights must be numbers >= 0"),
        ({"mixture": {"latest": 0.0}}, "at least one weight"),
        ({"snapshot_every": 0}, ">= 1"),
        ({"snapshot_mode": "best"}, "snapshot_mode"),
        ({"mixture": {"mcts": 1.0}}, "league.mcts"),
        ({"mixture": {"mcts": 1.0}, "mcts": "heuristic"}, "league.mcts"),
        ({"whole_table": 1.5}, "whole_table"),
        ({"whole_table": -0.1}, "whole_table"),
        ({"whole_table": True}, "whole_table"),
        ({"whole_table": "half"}, "whole_table"),
    ],
)
def test_league_configs_are_validated(kw: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        LeagueConfig(**kw)


@pytest.mark.parametrize(
    "path", sorted((Path(__file__).parents[2] / "configs" / "train").glob("*.yaml")), ids=str
)
def test_the_shipped_train_configs_load(path: Path) -> None:
    cfg = load_config(TrainConfig, path)
    # a config's runs go to runs/<its file name>/, and it names a registered game
    assert cfg.name == path.stem and cfg.total_timesteps > 0
    assert cfg.game in registry.names()


def test_a_league_in_several_processes_needs_envs_that_defer_their_results(
    tmp_path: Path,
) -> None:
    cfg = replace(RYDERZ, league=LeagueConfig(mixture={"random": 1.0}))
    league = _league(tmp_path, mixture={"random": 1.0})
    thunks = [make_league_env(cfg, i, league, None, 0, Clock(), defer=i != 1) for i in range(2)]
    vec = GroupedVecEnv(thunks, 2, start_method="fork")
    try:
        with pytest.raises(ValueError, match="defer"):
            LeagueSync(vec, league)
    finally:
        vec.close()


def test_envs_in_worker_processes_follow_the_training_processs_league(tmp_path: Path) -> None:
    cfg = replace(RYDERZ, league=LeagueConfig(mixture={"latest": 0.5, "random": 0.5}))
    league = _league(tmp_path, mixture={"latest": 0.5, "random": 0.5})
    thunks = [make_league_env(cfg, i, league, None, 0, Clock(), defer=True) for i in range(4)]
    venv = LeagueSync(GroupedVecEnv(thunks, 2, start_method="fork"), league)
    try:
        venv.reset()
        model = _model()
        # a snapshot added here, after the workers were started, reaches their draws
        league.add_snapshot(lambda path: export_onnx(model, path), timesteps=0)
        rng = np.random.default_rng(0)
        finished: list[list[str]] = []
        kinds_in_worker: set[str] = set()
        for step in range(3000):  # until a game ends after the 300th step
            sent = json.loads(json.dumps(league.to_json()))  # what this step sends the workers
            masks = venv.env_method("action_masks")
            _, _, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            finished += [info["opponents"] for info in infos if "opponents" in info]
            kinds_in_worker.update(k for info in infos[2:] for k in info["opponent_kinds"])
            assert all(
                ("league_score" in info) == done for info, done in zip(infos, dones, strict=True)
            )
            if step >= 300 and dones.any():
                break
        assert "snapshot" in kinds_in_worker
        # every finished game, worker's or not, is recorded once, in the training process
        games = {m: sum(m in opps for opps in finished) for m in league.members()}
        assert games["snap-0000"] > 0 and games["random"] > 0
        assert {m: league.records[m].games for m in league.members()} == games
        # the workers' copies hold the records up to the last step (this step's reach the
        # draws at the next)
        worker = venv.get_attr("opponents", indices=[3])[0].league
        assert json.loads(json.dumps(worker.to_json())) == sent != league.to_json()
        assert sum(venv.seconds.values()) > 0  # the opponents' clocks of both processes
    finally:
        venv.close()


TINY = """\
name: tiny_league
game: ryderz
env_options: {action_mode: discrete, obs_mode: vector, launch_positions: 8}
num_players: 2
total_timesteps: 1024
n_envs: 2
ppo: {n_steps: 128, batch_size: 128, n_epochs: 1, net_arch: [16]}
shaping: {prizms: 0.5, crash: 0.0}
eval_games: 2
gif_frames: 6
gif_size: 48
league:
  snapshot_every: 2
  latest: 2
  mixture: {latest: 0.4, prioritized: 0.2, heuristic: 0.2, random: 0.2}
  eval_every: 1
  eval_games: 2
"""


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs of the tiny league config with the same seed, and the config file."""
    d = tmp_path_factory.mktemp("league")
    config = d / "tiny.yaml"
    config.write_text(TINY)
    for runs in ("a", "b"):
        main(["--config", str(config), "--runs-dir", str(d / runs)])
    return d, config


def test_a_tiny_self_play_run_writes_a_complete_report(tiny_runs) -> None:
    d, _ = tiny_runs
    run = d / "a" / "tiny_league"
    for name in (
        "report.md",
        "result.json",
        "history.json",
        "model.zip",
        "policy.json",
        ONNX_FILE,
        "sampled/policy.json",
        f"sampled/{ONNX_FILE}",
        "game.gif",
        "learning_curve.png",
        "score_vs_heuristic.png",
        "league/league.json",
        "league/snap-0000/policy.onnx",
    ):
        assert (run / name).is_file(), name
    assert not (run / "checkpoint.zip").exists()
    result = json.loads((run / "result.json").read_text())
    # 4 rollouts of 2 x 128 steps: the untrained policy, then after rollouts 2 and 4
    assert result["timesteps"] == 1024 and result["snapshots"] == 3
    assert [h["snapshot"] for h in result["history"]] == [f"snap-{i:04d}" for i in range(3)]
    assert [h["timesteps"] for h in result["history"]] == [0, 512, 1024]
    modes = result["final"]["modes"]
    assert [r["setting"] for r in modes["greedy"]] == ["2p vs random", "2p vs heuristic"]
    assert all(r["games"] == 2 for r in modes["greedy"] + modes["sampled"])
    assert 0 <= result["opponent_share"]["bot"] < 1
    report = (run / "report.md").read_text()
    for text in (
        "## Final evaluation",
        "| 2p vs heuristic (score) |",
        "## Ratings",
        "| snap-0002 |",
        "| final greedy |",
        "same argmax 1,000 of 1,000",
        "opponents' share of rollout time",
        "![a game against the heuristic]",
    ):
        assert text in report, text
    assert PolicyBot.load(run).meta.mode == "greedy"
    assert PolicyBot.load(run / "sampled").meta.mode == "sampled"


def test_the_same_seed_reproduces_the_run(tiny_runs) -> None:
    d, _ = tiny_runs
    a, b = (json.loads((d / r / "tiny_league" / "result.json").read_text()) for r in ("a", "b"))
    assert a["league_records"] == b["league_records"]
    assert a["history"] == b["history"]

    def untimed(final: dict) -> dict:  # decision times are not reproducible
        return {
            m: [{k: v for k, v in r.items() if k != "ms_per_decision"} for r in rows]
            for m, rows in final["modes"].items()
        }

    assert untimed(a["final"]) == untimed(b["final"])
    la = OnnxPolicy(d / "a" / "tiny_league" / ONNX_FILE)
    lb = OnnxPolicy(d / "b" / "tiny_league" / ONNX_FILE)
    obs = np.random.default_rng(0).random((20, la.obs_size), dtype=np.float32)
    assert np.array_equal(la.logits(obs), lb.logits(obs))


def test_a_run_in_several_processes_does_not_depend_on_their_number(
    tmp_path: Path,
) -> None:
    runs = {}
    for processes in (2, 3):
        config = tmp_path / f"p{processes}.yaml"
        config.write_text(TINY.replace("n_envs: 2", f"n_envs: 4\nenv_processes: {processes}"))
        main(["--config", str(config), "--runs-dir", str(tmp_path / f"p{processes}")])
        runs[processes] = tmp_path / f"p{processes}" / "tiny_league"
    a, b = (json.loads((runs[p] / "result.json").read_text()) for p in (2, 3))
    assert sum(games for games, _ in a["league_records"].values()) > 0
    assert a["league_records"] == b["league_records"]
    assert a["history"] == b["history"]
    assert 0 < a["opponent_share"]["bot"] < 1  # the workers' opponents' time counts
    la, lb = (OnnxPolicy(runs[p] / ONNX_FILE) for p in (2, 3))
    obs = np.random.default_rng(0).random((20, la.obs_size), dtype=np.float32)
    assert np.array_equal(la.logits(obs), lb.logits(obs))


def test_seeds_skip_finished_runs_and_resume_interrupted_ones(tiny_runs) -> None:
    d, config = tiny_runs
    runs = d / "seeds"
    summary = main(["--config", str(config), "--runs-dir", str(runs), "--seeds", "0,1"])
    assert summary["seeds"] == [0, 1]
    for seed in (0, 1):
        assert (runs / "tiny_league" / f"seed{seed}" / "report.md").is_file()
    text = (runs / "tiny_league" / "report.md").read_text()
    assert "2 seeds (0, 1)" in text and "| 2p vs heuristic (score) | greedy |" in text
    # finished seeds are skipped: their results stay as they are
    seed0 = runs / "tiny_league" / "seed0"
    stamp = (seed0 / "result.json").stat().st_mtime_ns
    main(["--config", str(config), "--runs-dir", str(runs), "--seeds", "0"])
    assert (seed0 / "result.json").stat().st_mtime_ns == stamp
    # an interrupted seed (a checkpoint, no result) continues from the checkpoint
    seed1 = runs / "tiny_league" / "seed1"
    import shutil

    shutil.copyfile(seed1 / "model.zip", seed1 / "checkpoint.zip")
    (seed1 / "result.json").unlink()
    first_part = json.loads((seed1 / "history.json").read_text())["train_seconds"]
    assert first_part > 0
    bigger = d / "bigger.yaml"
    bigger.write_text(TINY.replace("total_timesteps: 1024", "total_timesteps: 1536"))
    main(["--config", str(bigger), "--runs-dir", str(runs), "--seeds", "1"])
    result = json.loads((seed1 / "result.json").read_text())
    assert result["resumed"] and result["timesteps"] == 1536
    assert result["snapshots"] == 3 + 1  # the earlier three, one more in the last 512 steps
    # the training time counts the earlier part too, and the rate is over all of it
    assert result["train_seconds"] > first_part
    assert result["steps_per_second"] == pytest.approx(1536 / result["train_seconds"])
    # a history.json of an older version (no training time), resumed with no steps left:
    # no rate made of all the run's steps over this part's few microseconds
    shutil.copyfile(seed1 / "model.zip", seed1 / "checkpoint.zip")
    (seed1 / "result.json").unlink()
    progress = json.loads((seed1 / "history.json").read_text())
    del progress["train_seconds"], progress["train_cpu_seconds"]
    (seed1 / "history.json").write_text(json.dumps(progress))
    main(["--config", str(bigger), "--runs-dir", str(runs), "--seeds", "1"])
    again = json.loads((seed1 / "result.json").read_text())
    assert again["timesteps"] == 1536 and again["steps_per_second"] == 0.0
