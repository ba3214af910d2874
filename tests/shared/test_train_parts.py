"""Pieces of the training script: the shared first layer, the grouped vec env, the seeded
evaluation games. Needs the ``train`` extra (skipped without torch)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from agents.torch_layers import SharedTrunk  # noqa: E402
from lunatix_env.envs import LunatixSingleAgentEnv  # noqa: E402
from tabletop.errors import ConfigError  # noqa: E402
from train.train import (  # noqa: E402
    PPOConfig,
    TrainConfig,
    evaluate,
    evaluate_parallel,
    make_eval_env,
    play_eval_games,
    policy_act,
    policy_kwargs,
)
from train.vec_env import GroupedVecEnv  # noqa: E402


def _model(env, trunk: int = 32) -> MaskablePPO:
    p = PPOConfig(net_arch=(16,), shared_trunk=trunk)
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=16,
        batch_size=16,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs(p),
    )


def test_shared_trunk_is_one_layer_for_pi_and_vf(tmp_path: Path) -> None:
    env = LunatixSingleAgentEnv(num_players=2)
    model = _model(env)
    pol = model.policy
    assert isinstance(pol.features_extractor, SharedTrunk)
    assert pol.pi_features_extractor is pol.vf_features_extractor is pol.features_extractor
    n_obs = env.observation_space.shape[0]
    assert pol.features_extractor.linear.weight.shape == (32, n_obs)
    obs, _ = env.reset(seed=1)
    batch = torch.as_tensor(np.stack([obs, obs]))
    assert pol.extract_features(batch).shape == (2, 32)
    # the trunk's weights appear once among the parameters (one layer, not a copy per head)
    big = [p for p in pol.parameters() if p.ndim == 2 and p.shape[1] == n_obs]
    assert len(big) == 1
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(loaded.policy.features_extractor, SharedTrunk)
    mask = env.action_masks()
    for a, b in zip(pol.state_dict().values(), loaded.policy.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    act, _ = loaded.predict(obs, action_masks=mask, deterministic=True)
    assert act == model.predict(obs, action_masks=mask, deterministic=True)[0]
    assert mask[int(act)]


def _thunk(rank: int):
    def make() -> LunatixSingleAgentEnv:
        return LunatixSingleAgentEnv(num_players=4, learner_seat="random")

    return make


def _play(vec, steps: int = 60) -> list:
    vec.seed(5)
    out = [vec.reset().copy()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = np.stack(vec.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, done, infos = vec.step(actions)
        out += [obs.copy(), rew.copy(), done.copy(), [i.get("won") for i in infos]]
    return out


def test_grouped_vec_env_steps_like_a_dummy_vec_env() -> None:
    fns = [_thunk(i) for i in range(3)]
    dummy = DummyVecEnv(fns)
    ref = _play(dummy)
    vec = GroupedVecEnv(fns, processes=2, start_method="fork")  # fork: a fast start
    try:
        got = _play(vec)
        assert vec.get_attr("learner", indices=[2, 0]) == dummy.get_attr("learner", indices=[2, 0])
        vec.set_attr("render_mode", "ansi", indices=[1, 2])
        assert vec.get_attr("render_mode") == [None, "ansi", "ansi"]
        masks = vec.env_method("action_masks", indices=[2])
        assert np.array_equal(masks[0], dummy.env_method("action_masks", indices=[2])[0])
        # one call per group (env 0 here, envs 1-2 in the worker: this process, which
        # also runs the policy, takes the smaller group), on its first env
        firsts = vec.group_method("action_masks")
        assert len(firsts) == vec.groups == 2
        for got_mask, want in zip(
            firsts, dummy.env_method("action_masks", indices=[0, 1]), strict=True
        ):
            assert np.array_equal(got_mask, want)
        assert vec.has_attr("action_masks") and not vec.has_attr("no_such_attribute")
    finally:
        vec.close()
    assert len(got) == len(ref)
    for a, b in zip(ref, got, strict=True):
        assert np.array_equal(
            np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True
        )


def test_evaluation_games_do_not_depend_on_order_or_split() -> None:
    cfg = TrainConfig(name="t", num_players=2)
    model = _model(LunatixSingleAgentEnv(num_players=2), trunk=16)
    for m in (None, model):  # the random policy; the model sampling its actions
        whole = play_eval_games(m, cfg, 100, [0, 1], deterministic=False)
        assert play_eval_games(m, cfg, 100, [1], deterministic=False) == whole[1:]
        assert play_eval_games(m, cfg, 100, [1, 0], deterministic=False) == whole[::-1]


def test_evaluation_split_over_worker_processes_equals_the_in_process_one(tmp_path: Path) -> None:
    cfg = TrainConfig(name="t", num_players=2)
    model = _model(LunatixSingleAgentEnv(num_players=2), trunk=16)
    path = tmp_path / "model.zip"
    model.save(path)
    split = evaluate_parallel(path, cfg, 4, 100, [False, None], processes=2, chunk=1)
    assert split == [evaluate(MaskablePPO.load(path), cfg, 4, 100), evaluate(None, cfg, 4, 100)]


def test_policy_act_picks_what_predict_picks() -> None:
    env = LunatixSingleAgentEnv(num_players=2)
    model = _model(env)
    act = policy_act(model)
    obs, _ = env.reset(seed=4)
    mask = env.action_masks()
    for det in (True, False):
        torch.manual_seed(7)
        ref = [int(model.predict(obs, action_masks=mask, deterministic=det)[0]) for _ in range(20)]
        torch.manual_seed(7)
        assert [act(obs, mask, det) for _ in range(20)] == ref
        assert all(mask[a] for a in ref)


def test_tiny_ryderz_training_runs_end_to_end(tmp_path: Path) -> None:
    """A tiny Lazer Ryderz config (discrete actions, two players) trains, evaluates and
    writes the report, the evaluation figures, the model and the GIF of one game."""
    from PIL import Image

    from train.train import main

    config = tmp_path / "tiny.yaml"
    config.write_text(
        "name: tiny_ryderz\n"
        "game: ryderz\n"
        "env_options: {action_mode: discrete, obs_mode: vector, launch_positions: 8}\n"
        "num_players: 2\n"
        "total_timesteps: 2048\n"
        "n_envs: 2\n"
        "ppo: {n_steps: 512, batch_size: 256, n_epochs: 1, net_arch: [32]}\n"
        "shaping: {prizms: 0.5, crash: 0.0}\n"
        "eval_games: 4\n"
        "gif: true\n"
        "gif_frames: 12\n"
        "gif_size: 96\n"
    )
    ev = main(["--config", str(config), "--runs-dir", str(tmp_path / "runs")])
    run = tmp_path / "runs" / "tiny_ryderz"
    for name in (
        "report.md",
        "eval.json",
        "model.zip",
        "policy.json",
        "policy.onnx",
        "game.gif",
        "learning_curve.png",
    ):
        assert (run / name).is_file(), name
    assert ev["games"] == 4 and "all_out" not in ev
    report = (run / "report.md").read_text()
    assert "`LazerRyderz-v0`, 2 players" in report and "1 uniformly random opponent." in report
    assert "![evaluation game](game.gif)" in report
    assert "policy.onnx against torch (1,000 observations) | same argmax 1,000" in report
    with Image.open(run / "game.gif") as gif:
        assert gif.size[1] == 96 and 1 < gif.n_frames <= 12
    MaskablePPO.load(run / "model.zip", device="cpu")
    from agents.policy_bot import PolicyBot

    bot = PolicyBot.load(run, game="ryderz")  # policy.json rebuilds the env it trained in
    assert bot.meta.env_options["launch_positions"] == 8 and bot.adapter.num_actions > 8
    assert bot.meta.onnx == "policy.onnx" and type(bot.model).__name__ == "OnnxPolicy"


def test_evaluation_leaves_out_training_only_env_options() -> None:
    cfg = TrainConfig(
        name="t",
        game="ryderz",
        num_players=2,
        env_options={"action_mode": "discrete", "max_rounds": 5},
    )
    env = make_eval_env(cfg)
    assert env.game.rules.round_limit == 60 and env.learner == 0
    with pytest.raises(ValueError, match="game"):
        TrainConfig(name="t", game="chess")


class _LearningRates(BaseCallback):
    """The optimizer's learning rate at the start of every rollout after the first (set by
    the update before it), and the step count then; stops the run at ``stop_at`` steps."""

    def __init__(self, stop_at: int | None = None) -> None:
        super().__init__()
        self.stop_at = stop_at
        self.seen: list[tuple[int, float]] = []

    def _on_rollout_start(self) -> None:
        if self.model.num_timesteps:
            self.seen.append(
                (self.model.num_timesteps, self.model.policy.optimizer.param_groups[0]["lr"])
            )

    def _on_step(self) -> bool:
        return self.stop_at is None or self.model.num_timesteps < self.stop_at


def test_a_linear_learning_rate_falls_to_zero_and_a_resumed_run_continues_it(
    tmp_path: Path,
) -> None:
    p = PPOConfig(learning_rate=1e-3, lr_schedule="linear", net_arch=(8,))

    def model(env) -> MaskablePPO:
        return MaskablePPO(
            "MlpPolicy",
            env,
            learning_rate=p.learning_rate_schedule(),
            n_steps=16,
            batch_size=16,
            n_epochs=1,
            seed=0,
            device="cpu",
            policy_kwargs=policy_kwargs(p),
        )

    env = LunatixSingleAgentEnv(num_players=2)
    first = model(env)
    cb = _LearningRates(stop_at=32)
    first.learn(total_timesteps=64, callback=cb)  # interrupted after 32 steps
    first.save(tmp_path / "m.zip")
    resumed = MaskablePPO.load(tmp_path / "m.zip", env=env, device="cpu")
    cb2 = _LearningRates()
    resumed.learn(
        total_timesteps=64 - resumed.num_timesteps, reset_num_timesteps=False, callback=cb2
    )
    # the update after step n runs at 1e-3 * (1 - n / 64), across the interruption
    assert cb.seen == [(16, pytest.approx(1e-3 * (1 - 16 / 64)))]
    # (the resumed part's first rollout starts with the loaded optimizer's rate)
    assert cb2.seen[-1] == (48, pytest.approx(1e-3 * (1 - 48 / 64)))
    assert resumed.policy.optimizer.param_groups[0]["lr"] == pytest.approx(0.0)
    constant = PPOConfig(learning_rate=1e-3)
    assert constant.learning_rate_schedule() == 1e-3


@pytest.mark.parametrize("value", ["cosine", "", 1, None])
def test_an_unknown_lr_schedule_is_a_config_error(value: object) -> None:
    with pytest.raises(ConfigError, match="ppo.lr_schedule: one of \\['constant', 'linear'\\]"):
        PPOConfig(lr_schedule=value)  # type: ignore[arg-type]
