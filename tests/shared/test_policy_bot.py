"""The policy bot: policy.json written by training, loading a run folder or a model.zip,
the same actions as the model's own predict, refusing states of another game, players or
rules, and playing in the arena."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from agents import arena as ar
from agents.policy_bot import POLICY_JSON, PolicyBot, PolicyMeta, find_policy
from agents.specs import make_bot
from tabletop import registry
from tabletop.errors import ConfigError, InvalidStateError
from tabletop.protocol import play_chance, random_legal_actions
from train.train import TrainConfig, policy_meta, write_policy_json

CONFIGS = {
    "ryderz": TrainConfig(
        name="p",
        game="ryderz",
        num_players=2,
        env_options={
            "action_mode": "discrete",
            "obs_mode": "vector",
            "launch_positions": 8,
            "max_rounds": 30,
        },
        eval_deterministic=True,
    ),
    "lunatix": TrainConfig(name="p", game="lunatix", num_players=2, eval_deterministic=False),
}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def run_dir(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    """A run folder with an untrained (random-weight) model and its policy.json."""
    game = request.param
    cfg = CONFIGS[game]
    d = tmp_path_factory.mktemp(game)
    env = registry.get(game).single_agent_env(num_players=cfg.num_players, **cfg.env_options)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )
    model.save(d / "model.zip")
    write_policy_json(d, policy_meta(cfg))
    return game, d


def positions(game: str, n: int, seed: int = 0):
    """Seeded random positions with a deciding seat: ``(state, seat)``."""
    rng = np.random.default_rng(seed)
    g = registry.get(game).game(num_players=2)
    state = g.new_initial_state(seed)
    found = 0
    while found < n:
        if state.is_terminal():
            state = g.new_initial_state(int(rng.integers(1 << 30)))
        elif state.is_chance_node():
            play_chance(state, rng)
        else:
            seat = state.current_players()[0]
            yield state.clone(), seat
            found += 1
            acts = random_legal_actions(state, rng)
            if len(acts) == 1:
                state.apply_action(acts[seat])
            else:
                state.apply_actions(acts)


def test_training_writes_a_policy_json_that_rebuilds_the_env(run_dir: tuple[str, Path]) -> None:
    game, d = run_dir
    data = json.loads((d / POLICY_JSON).read_text())
    entry = registry.get(game)
    assert (data["game"], data["env_id"], data["env_name"]) == (game, entry.env_id, entry.env_name)
    assert data["num_players"] == 2 and "max_rounds" not in data["env_options"]
    assert data["mode"] == ("sampled" if game == "lunatix" else "greedy")
    assert data["rules"] == entry.game(num_players=2).config_dict()


def test_greedy_actions_are_the_models_own(run_dir: tuple[str, Path]) -> None:
    game, d = run_dir
    bot = PolicyBot.load(d, game=game)
    bot.greedy = True
    model = MaskablePPO.load(d / "model.zip", device="cpu")
    for state, seat in positions(game, 40):
        action = bot.act(state, seat)
        assert state.is_legal(seat, action)
        legal = bot.adapter.legal_ints(state, seat)
        mask = np.zeros(bot.adapter.num_actions, bool)
        mask[legal] = True
        index = int(
            model.predict(bot.adapter.encode(state, seat), action_masks=mask, deterministic=True)[0]
        )
        assert action == bot.adapter.to_engine(state, seat, index, legal)


def test_sampled_play_is_reproducible_for_a_seed(run_dir: tuple[str, Path]) -> None:
    game, d = run_dir
    a, b = PolicyBot.load(d, seed=3), PolicyBot.load(d / "model.zip", seed=3)
    a.greedy = b.greedy = False
    states = list(positions(game, 30, seed=1))
    assert [a.act(s, p) for s, p in states] == [b.act(s, p) for s, p in states]


def test_states_of_other_players_rules_or_games_are_refused(run_dir: tuple[str, Path]) -> None:
    game, d = run_dir
    bot = PolicyBot.load(d)
    entry = registry.get(game)
    three = entry.game(num_players=3).new_initial_state(0)
    with pytest.raises(InvalidStateError, match="trained for 2 players"):
        bot.act(three, 0)
    other = "lunatix" if game == "ryderz" else "ryderz"
    with pytest.raises(InvalidStateError, match=f"plays {game}"):
        bot.act(registry.get(other).game(num_players=2).new_initial_state(0), 0)
    changed = entry.game(num_players=2, round_limit=7).new_initial_state(0)
    with pytest.raises(InvalidStateError, match="round_limit"):
        bot.act(changed, 0)
    with pytest.raises(ConfigError, match=f"plays {game}"):
        PolicyBot.load(d, game=other)


def test_the_policy_spec_plays_arena_games(run_dir: tuple[str, Path]) -> None:
    game, d = run_dir
    assert make_bot(f"policy:{d}", game).name == f"policy:{d}"
    rules = {"round_limit": 6}
    cfg = ar.ArenaConfig(game=game, bots=(f"policy:{d}", "random"), games=2, rules=rules)
    # the arena's game has other rules than the policy's: refused by the bot
    with pytest.raises(InvalidStateError):
        ar.run(cfg)
    if game == "lunatix":
        cfg = ar.ArenaConfig(game=game, bots=(f"policy:{d}", "random"), games=2)
        results = ar.run(cfg)
        assert len(results) == 2 and all(r.decisions[0] > 0 for r in results)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": 1}, "unknown keys"),
        ({"num_players": 1}, "num_players"),
        ({"mode": "best"}, "mode"),
        ({"model": "../x.zip"}, "model"),
        ({"env_id": "LazerRyderz-v0"}, "is not lunatix"),
        ({"game": "chess"}, "unknown game"),
        ({"format": 4}, "format"),
        ({"advice": "policy:../x"}, "cannot advise"),
        ({"advice": "trained"}, "cannot advise"),
        ({"advice": "heuristic:x=1"}, "advice"),
        ({"advice": 1}, "advice must be a bot spec"),
        ({"onnx": "../p.onnx"}, "onnx"),
        ({"onnx": "policy.zip"}, "onnx"),
        ({"model": "", "onnx": ""}, "both empty"),
    ],
)
def test_policy_json_is_validated(tmp_path: Path, change: dict, message: str) -> None:
    meta = policy_meta(CONFIGS["lunatix"]).to_json()
    (tmp_path / "model.zip").write_bytes(b"")
    (tmp_path / POLICY_JSON).write_text(json.dumps({**meta, **change}))
    with pytest.raises(ValueError, match=message):
        find_policy(tmp_path)


def test_missing_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no policy.json"):
        find_policy(tmp_path)
    (tmp_path / POLICY_JSON).write_text(
        json.dumps(
            PolicyMeta(
                game="lunatix", env_id="LunatixLoop-v0", env_name="lunatix_loop_v0", num_players=2
            ).to_json()
        )
    )
    with pytest.raises(ConfigError, match="model.zip not found"):
        find_policy(tmp_path)
