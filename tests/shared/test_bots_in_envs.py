"""Bots as opponents: the AEC, parallel and single-agent envs of every game accept a bot
(``agents.bot``) for any seat; it gets the engine state and its engine action is applied
unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from agents.bot import RandomBot
from ryderz_env.rules import Action, ActionKind
from tabletop import registry
from tabletop.errors import IllegalActionError
from tabletop.records import replay

GAMES = registry.names()


def play_aec(env: Any, seed: int) -> list[str]:
    """Random masked actions for the selected agents; returns the agents that acted."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    acted = []
    for agent in env.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        acted.append(agent)
        env.step(int(rng.choice(legal)))
    return acted


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_seat_is_never_selected_and_the_record_replays(game: str) -> None:
    e = registry.get(game)
    env = (
        e.aec_env(num_players=2, action_mode="discrete", bots={"player_1": RandomBot()})
        if game == "ryderz"
        else e.aec_env(num_players=2, bots={1: RandomBot()})
    )
    acted = play_aec(env, seed=4)
    assert acted and set(acted) == {"player_0"}
    raw = env.unwrapped
    assert raw.session.done
    final = replay(raw.game, raw.record)
    assert final.to_dict() == raw.session.state.to_dict()
    seats = {int(s) for ev in raw.record.events if "actions" in ev for s in ev["actions"]}
    assert seats == {0, 1}  # the bot's actions are in the record


@pytest.mark.parametrize("game", GAMES)
def test_bot_seats_are_seeded_from_the_game_seed(game: str) -> None:
    e = registry.get(game)
    kw = {"action_mode": "discrete"} if game == "ryderz" else {}
    runs = []
    for _ in range(2):
        env = e.aec_env(num_players=2, bots={1: RandomBot(seed=99)}, **kw)
        play_aec(env, seed=8)
        runs.append(env.unwrapped.record.events)
    assert runs[0] == runs[1]
    env = e.aec_env(num_players=2, bots={1: RandomBot()}, **kw)
    play_aec(env, seed=9)
    assert env.unwrapped.record.events != runs[0]


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_tests_pass_with_a_bot_seat(game: str) -> None:
    e = registry.get(game)
    api_test(e.aec_env(num_players=3, bots={2: RandomBot()}), num_cycles=300)
    parallel_api_test(e.parallel_env(num_players=2, bots={0: RandomBot()}), num_cycles=300)


class OffGridLauncher(RandomBot):
    """Launches at x = 0.123456789 whenever that is legal (not on the discrete grid)."""

    name = "off-grid"
    X = 0.123456789

    def act(self, state: Any, seat: int) -> Any:
        legal = state.legal_actions(seat)
        if legal[0].kind is ActionKind.LAUNCH:
            a = Action.launch(legal[0].arg, self.X)
            if state.is_legal(seat, a):
                return a
        return super().act(state, seat)


def test_a_ryderz_bot_launch_point_is_applied_unchanged_in_discrete_mode() -> None:
    e = registry.get("ryderz")
    env = e.single_agent_env(num_players=2, action_mode="discrete", opponents=[OffGridLauncher()])
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(400):
        legal = np.flatnonzero(env.action_masks())
        _, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            break
    bot_seat = 1 - env.learner
    launches = [
        ev["actions"][str(bot_seat)]
        for ev in env.record.events
        if "actions" in ev
        and str(bot_seat) in ev["actions"]
        and isinstance(ev["actions"][str(bot_seat)], list)
    ]
    assert launches and all(x == OffGridLauncher.X for _, x in launches)


@pytest.mark.parametrize("game", GAMES)
def test_single_agent_view_plays_against_bots(game: str) -> None:
    e = registry.get(game)
    kw = {"action_mode": "discrete"} if game == "ryderz" else {}
    env = e.single_agent_env(num_players=3, opponents=RandomBot(), learner_seat="random", **kw)
    rng = np.random.default_rng(0)
    for episode in range(2):
        env.reset(seed=episode)
        for _ in range(3000):
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(rng.choice(legal)))
            if term or trunc:
                break
        assert term or trunc
        assert set(env.session.bots) == {s for s in range(3) if s != env.learner}


class IllegalBot(RandomBot):
    """Returns an action of the wrong seat's kind: never legal."""

    name = "illegal"

    def act(self, state: Any, seat: int) -> Any:
        return "not an action"


def test_a_bot_illegal_action_raises_naming_the_bot() -> None:
    env = registry.get("lunatix").aec_env(
        num_players=2, bots={0: IllegalBot()}, on_illegal="random_legal"
    )
    with pytest.raises(IllegalActionError, match="bot illegal of player_0"):
        env.reset(seed=0)


def test_bots_option_rejects_bad_seats_and_non_bots() -> None:
    e = registry.get("lunatix")
    with pytest.raises(ValueError, match="seats are 0..1"):
        e.aec_env(num_players=2, bots={"player_2": RandomBot()})
    with pytest.raises(TypeError, match="not a bot"):
        e.aec_env(num_players=2, bots={1: lambda *a: 0})
    with pytest.raises(TypeError, match="opponents"):
        e.single_agent_env(num_players=2, bots={1: RandomBot()})
