"""policy.onnx: the export matches torch (argmax and logits) on 1,000 positions of each game,
the ONNX policy bot plays the torch policy's moves without importing torch, and bad files are
refused with a ConfigError."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from test_policy_bot import CONFIGS, positions

from agents.onnx_policy import OnnxPolicy, masked_pick
from agents.policy_bot import ONNX_FILE, POLICY_JSON, PolicyBot, find_policy
from tabletop import registry
from tabletop.errors import ConfigError
from train.export import LOGIT_TOLERANCE, export_run, parity, sample_observations
from train.train import policy_kwargs, policy_meta, write_policy_json

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def exported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, MaskablePPO]:
    """A run folder with a random-weight model (Lunatix: the shared trunk of its config),
    exported by ``train.export.export_run``."""
    game = request.param
    cfg = CONFIGS[game]
    d = tmp_path_factory.mktemp(f"onnx_{game}")
    env = registry.get(game).single_agent_env(num_players=cfg.num_players, **cfg.env_options)
    ppo = replace(cfg.ppo, shared_trunk=32 if game == "lunatix" else 0, net_arch=(24, 16))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs(ppo),
    )
    model.save(d / "model.zip")
    write_policy_json(d, policy_meta(cfg))
    export_run(d, observations=1000)
    return game, d, model


def test_export_matches_torch_on_1000_positions(exported) -> None:
    game, d, model = exported
    meta = json.loads((d / POLICY_JSON).read_text())
    assert meta["onnx"] == ONNX_FILE and meta["format"] == 3
    cfg = CONFIGS[game]
    env = registry.get(game).single_agent_env(num_players=cfg.num_players, **cfg.env_options)
    obs = sample_observations(env, 1000, seed=5)
    assert len(np.unique(obs, axis=0)) > 100  # real, varied positions
    check = parity(model, d / ONNX_FILE, obs)
    assert check.ok and check.argmax_equal == 1000
    assert check.max_logit_diff <= LOGIT_TOLERANCE and check.max_value_diff <= 1e-4
    policy = OnnxPolicy(d / ONNX_FILE)
    assert policy.outputs == ["logits", "value"] and policy.obs_size == obs.shape[1]
    # one observation or a batch: the same numbers
    assert np.array_equal(policy.logits(obs[0]), policy.logits(obs[:3])[0])


def test_the_onnx_bot_plays_the_torch_policys_moves(exported) -> None:
    game, d, _ = exported
    meta, file = find_policy(d)
    assert file.name == ONNX_FILE
    fast = PolicyBot.load(d, seed=2)
    slow = PolicyBot.load(d / "model.zip", seed=2)
    assert isinstance(fast.model, OnnxPolicy) and not isinstance(slow.model, OnnxPolicy)
    for greedy in (True, False):
        fast.greedy = slow.greedy = greedy
        fast.reset(4)
        slow.reset(4)
        for state, seat in positions(game, 40, seed=3):
            assert fast.act(state, seat) == slow.act(state, seat)


def test_masked_pick_takes_only_legal_actions() -> None:
    logits = np.array([5.0, 1.0, 3.0, 3.0], np.float32)
    mask = np.array([0, 1, 1, 1], bool)
    assert masked_pick(logits, mask, True, np.random.default_rng(0)) == 2  # first of the tie
    rng = np.random.default_rng(0)
    draws = [masked_pick(logits, mask, False, rng) for _ in range(300)]
    assert set(draws) <= {1, 2, 3} and draws.count(1) < draws.count(2)
    with pytest.raises(ValueError, match="no legal action"):
        masked_pick(logits, np.zeros(4, bool), True, rng)


def test_bad_policy_files_are_refused(tmp_path: Path, exported) -> None:
    _, d, _ = exported
    with pytest.raises(ConfigError, match="not found"):
        OnnxPolicy(tmp_path / "none.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ConfigError, match="not a loadable ONNX model"):
        OnnxPolicy(junk)
    with pytest.raises(ValueError, match="the policy takes"):
        OnnxPolicy(d / ONNX_FILE).logits(np.zeros(3, np.float32))


def test_an_onnx_policy_plays_a_game_without_torch(exported) -> None:
    """In a fresh process, the ONNX policy bot plays an arena game and torch is never
    imported (the serve extra installs no torch)."""
    game, d, _ = exported
    code = f"""
import sys
import numpy as np
from agents.policy_bot import PolicyBot
from tabletop import registry
from tabletop.protocol import play_chance

bot = PolicyBot.load({str(d)!r}, seed=0)
s = registry.get({game!r}).game(num_players=2).new_initial_state(1)
rng = np.random.default_rng(1)
moves = 0
while not s.is_terminal() and moves < 400:
    if s.is_chance_node():
        play_chance(s, rng)
        continue
    acts = {{p: bot.act(s, p) for p in s.current_players()}}
    if len(acts) > 1:
        s.apply_actions(acts)
    else:
        s.apply_action(next(iter(acts.values())))
    moves += 1
assert moves > 5, moves
assert "torch" not in sys.modules, "torch was imported"
print("ok", moves)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok")


def test_the_parity_tolerance_scales_with_the_logits() -> None:
    from train.export import Parity

    assert not Parity(10, 10, 1.1e-5, 0.0, logit_scale=0.5).ok
    assert Parity(10, 10, 1.1e-5, 0.0, logit_scale=80.0).ok  # float32 at logits near 80
    assert not Parity(10, 10, 1e-3, 0.0, logit_scale=80.0).ok
    assert not Parity(10, 9, 0.0, 0.0).ok  # one argmax differs
