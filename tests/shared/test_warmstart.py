"""Behaviour cloning warm start: the teacher's engine moves map to the env actions that play
them (exactly in Lunatix Loop, to the nearest Launch Point of the gear in Lazer Ryderz's
discrete mode), the demonstrations are legal and consistent, and cloning raises the policy's
agreement with the teacher on held-out games."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from test_policy_bot import positions

from agents.specs import make_bot
from ryderz_env.rules import Action, ActionKind
from tabletop import registry
from tabletop.errors import ConfigError
from train.train import TrainConfig
from train.warmstart import WarmStartConfig, clone, collect

RYDERZ_OPTIONS = {"action_mode": "discrete", "obs_mode": "vector", "launch_positions": 8}


def test_lunatix_moves_map_exactly() -> None:
    adapter = registry.get("lunatix").envs().make_adapter(num_players=2)
    bot = make_bot("heuristic", "lunatix", seed=0)
    for state, seat in positions("lunatix", 60, seed=4):
        move = bot.act(state, seat)
        legal = adapter.legal_ints(state, seat)
        assert (
            adapter.decode_action(state, seat, adapter.nearest_index(state, seat, move, legal))
            == move
        )


def test_an_off_grid_launch_maps_to_the_nearest_launch_point_of_its_gear() -> None:
    adapter = registry.get("ryderz").envs().make_adapter(num_players=2, **RYDERZ_OPTIONS)
    state = registry.get("ryderz").game(num_players=2).new_initial_state(0)
    seat = state.current_players()[0]
    legal = adapter.legal_ints(state, seat)
    launches = [i for i in legal if adapter.decode_action(state, seat, i).kind is ActionKind.LAUNCH]
    assert launches, "the first decision of a game is a launch"
    for gear in (1, 2):
        for x in (-0.93, -0.31, 0.0, 0.47, 0.99):
            move = Action.launch(gear, x)
            got = adapter.decode_action(
                state, seat, adapter.nearest_index(state, seat, move, legal)
            )
            assert got.kind is ActionKind.LAUNCH and got.arg == gear
            nearest = min(
                abs(adapter.decode_action(state, seat, i).x - x)
                for i in launches
                if adapter.decode_action(state, seat, i).arg == gear
            )
            assert abs(got.x - x) == pytest.approx(nearest)
    with pytest.raises(ValueError, match="no legal env action"):
        adapter.nearest_index(state, seat, Action(ActionKind.SHERIFF, 0), legal)


def test_cloning_raises_the_agreement_with_the_teacher() -> None:
    cfg = TrainConfig(
        name="w", game="ryderz", num_players=2, env_options=RYDERZ_OPTIONS, shaping={"prizms": 0.5}
    )
    ws = WarmStartConfig(games=20, epochs=8, opponents=("random",))
    demos = collect(cfg, ws)
    assert demos.games == 20 and len(demos.actions) == len(demos.obs) == len(demos.returns)
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()  # legal labels
    assert set(np.unique(demos.game)) == set(range(20))
    assert demos.wins >= 10  # the mapped heuristic still beats a random player
    env = registry.get("ryderz").single_agent_env(num_players=2, **RYDERZ_OPTIONS)
    model = MaskablePPO(
        "MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [64, 64]}
    )
    figures = clone(model, demos, ws)
    assert figures["held_out"] > 0
    assert figures["agreement_after"] > figures["agreement_before"] + 0.2
    assert figures["losses"][-1] < figures["losses"][0]
    # the same config collects the same games
    again = collect(cfg, ws)
    assert np.array_equal(again.actions, demos.actions)
    assert np.array_equal(again.obs, demos.obs)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"teacher": "nobody"}, "unknown bot"),
        ({"opponents": ()}, "at least one"),
        ({"games": 1}, "games >= 2"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"processes": 0}, "processes"),
        ({"processes": True}, "processes"),
        ({"processes": 1.5}, "processes"),
    ],
)
def test_warm_start_configs_are_validated(kw: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        WarmStartConfig(**kw)


def test_teacher_games_in_worker_processes_are_the_games_of_one_process() -> None:
    from train.warmstart import collect_teacher_games

    cfg = TrainConfig(name="w", game="lunatix", num_players=4, advice="heuristic")
    ws = WarmStartConfig(games=7, opponents=("random", "heuristic"))
    one = collect(cfg, ws)
    two = collect_teacher_games(cfg, replace(ws, processes=2), chunk=3)
    for field_name in ("obs", "masks", "actions", "returns", "game"):
        assert np.array_equal(getattr(one, field_name), getattr(two, field_name)), field_name
    assert (one.wins, one.games, one.snapped) == (two.wins, two.games, two.snapped)
    assert list(np.unique(two.game)) == list(range(7))


def test_dagger_rounds_add_the_states_the_cloned_policy_reaches() -> None:
    from train.warmstart import warm_start

    cfg = TrainConfig(
        name="w",
        game="lunatix",
        num_players=2,
        warm_start=WarmStartConfig(
            games=10, epochs=2, opponents=("random",), dagger_rounds=2, dagger_games=5
        ),
    )
    env = registry.get("lunatix").single_agent_env(num_players=2)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
    first = collect(cfg, cfg.warm_start)
    figures = warm_start(model, cfg)
    rounds = figures["dagger"]
    assert [r["games"] for r in rounds] == [5, 5]
    assert len(first.actions) < rounds[0]["decisions"] < rounds[1]["decisions"]
    assert figures["decisions"] == rounds[1]["decisions"]
    assert all(0 <= r["learner_wins"] <= 5 for r in rounds)
