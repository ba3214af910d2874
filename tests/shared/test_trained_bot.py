"""The ``trained`` bot: the shipped policy of the state's player count, found in the
installed package, played without torch; a player count with none shipped is refused,
naming the ones that are. The shipped policies themselves load and play a game of each."""

from __future__ import annotations

import numpy as np
import pytest

from agents import trained_bot as trained
from agents.specs import make_bot, parse
from tabletop import registry
from tabletop.errors import InvalidStateError
from tabletop.protocol import play_chance


def _play(game: str, players: int, bot, moves: int = 400) -> int:
    """A game where ``bot`` plays every seat (at most ``moves`` decisions); returns them."""
    s = registry.get(game).game(num_players=players).new_initial_state(3)
    rng = np.random.default_rng(3)
    n = 0
    while not s.is_terminal() and n < moves:
        if s.is_chance_node():
            play_chance(s, rng)
            continue
        acts = {p: bot.act(s, p) for p in s.current_players()}
        for p, a in acts.items():
            assert s.is_legal(p, a)
        if len(acts) > 1:
            s.apply_actions(acts)
        else:
            s.apply_action(next(iter(acts.values())))
        n += 1
    return n


def test_the_spec_is_a_bot_kind_without_options() -> None:
    assert str(parse("trained")) == "trained"
    with pytest.raises(ValueError, match="takes no options"):
        parse("trained:x=1")


@pytest.mark.parametrize(("game", "players"), [("lunatix", 4), ("lunatix", 2), ("ryderz", 2)])
def test_the_shipped_policies_load_and_play(game: str, players: int) -> None:
    shipped = trained.shipped_policies(game)
    assert players in shipped, f"no shipped {game} {players}p policy in {trained.shipped_folder()}"
    bot = make_bot("trained", game, seed=0)
    assert bot.name == "trained"
    assert _play(game, players, bot) > 5
    assert bot.policy_for(players).meta.num_players == players


def test_a_player_count_with_no_policy_is_refused() -> None:
    bot = make_bot("trained", "ryderz", seed=0)
    state = registry.get("ryderz").game(num_players=3).new_initial_state(0)
    with pytest.raises(InvalidStateError, match="no trained ryderz policy for 3 players"):
        bot.act(state, state.current_players()[0])


def test_ship_writes_a_policy_folder_without_a_checkpoint(tmp_path) -> None:
    from sb3_contrib import MaskablePPO
    from test_onnx_policy import CONFIGS  # noqa: F401 - the same tiny run configs

    from agents.policy_bot import PolicyBot
    from train.export import export_run
    from train.ship import ship
    from train.train import policy_meta, write_policy_json

    cfg = CONFIGS["ryderz"]
    run = tmp_path / "run"
    run.mkdir()
    env = registry.get("ryderz").single_agent_env(num_players=2, **cfg.env_options)
    MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [8]}).save(
        run / "model.zip"
    )
    write_policy_json(run, policy_meta(cfg))
    export_run(run, observations=50)
    folder = ship(run, mode="sampled", dest=tmp_path / "shipped")
    assert folder.name == "ryderz_2p" and sorted(p.name for p in folder.iterdir()) == [
        "policy.json",
        "policy.onnx",
    ]
    bot = PolicyBot.load(folder)
    assert bot.meta.model == "" and bot.meta.mode == "sampled"
    assert type(bot.model).__name__ == "OnnxPolicy"
