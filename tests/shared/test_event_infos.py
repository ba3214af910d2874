"""Turn events in the envs' infos (``events=True``): each agent gets exactly the events it
may see, in order, in the AEC env (since it last acted), the parallel env (each step) and
the single-agent view (since the learner's last step); nothing is lost, repeated or leaked
(checked against the events the game's record replays to); off by default."""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import numpy as np
import pytest

from tabletop import conformance as kit
from tabletop import registry
from tabletop.env_core import GameSession
from tabletop.errors import ConfigError
from tabletop.events import Event

GAMES = registry.names()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_every_api_delivers_exactly_the_visible_events(name: str, players: int) -> None:
    entry = registry.get(name)
    counts = kit.check_event_infos(
        partial(entry.aec_env, num_players=players),
        partial(entry.parallel_env, num_players=players),
        partial(entry.single_agent_env, num_players=players),
        seed=players,
    )
    assert counts["aec"] > 0 and counts["parallel"] > 0 and counts["single"] > 0


def test_private_events_reach_their_owner_only_through_the_infos() -> None:
    entry = registry.get("lunatix")
    private = 0
    for seed in range(12):  # random play buys a gadget in some of these games
        counts = kit.check_event_infos(
            partial(entry.aec_env, num_players=2),
            partial(entry.parallel_env, num_players=2),
            seed=seed,
        )
        private += counts["private"]
    assert private > 0


def test_bot_seats_get_their_events_too() -> None:
    entry = registry.get("lunatix")
    bots = {1: entry.heuristic_class()(), 3: entry.heuristic_class()()}
    counts = kit.check_event_infos(
        partial(entry.aec_env, num_players=4, bots=bots),
        partial(entry.parallel_env, num_players=4, bots=bots),
        seed=1,
    )
    assert counts["parallel"] > counts["aec"]  # the bots' seats are counted in the parallel env


def test_the_check_finds_a_lost_event(monkeypatch: pytest.MonkeyPatch) -> None:
    deliver = GameSession.events_of

    def lossy(self: GameSession, seat: int) -> list[Event]:
        return deliver(self, seat)[1:]

    monkeypatch.setattr(GameSession, "events_of", lossy)
    entry = registry.get("ryderz")
    with pytest.raises(AssertionError, match="infos events differ"):
        kit.check_event_infos(entry.aec_env, entry.parallel_env, seed=0)


@pytest.mark.parametrize("name", GAMES)
def test_events_are_off_by_default(name: str) -> None:
    entry = registry.get(name)
    par = entry.parallel_env()
    _, infos = par.reset(seed=0)
    assert all("events" not in info for info in infos.values())
    assert par.unwrapped.session.state.events is None  # nothing recorded either
    aec = entry.aec_env()
    aec.reset(seed=0)
    assert "events" not in aec.last()[4]
    single = entry.single_agent_env()
    assert "events" not in single.reset(seed=0)[1]


@pytest.mark.parametrize("maker", ["aec_env", "parallel_env", "single_agent_env"])
@pytest.mark.parametrize("value", ["yes", 1, None])
def test_events_option_is_a_bool(maker: str, value: Any) -> None:
    with warnings.catch_warnings(), pytest.raises(ConfigError, match="events is True or False"):
        warnings.simplefilter("ignore")
        getattr(registry.get("lunatix"), maker)(events=value)


def test_an_agent_that_chooses_first_sees_the_outcome_once_the_last_one_has() -> None:
    """Lunatix Loop's simultaneous chip mix: the first chooser's events wait for the last
    choice, then both see the same events."""
    env = registry.get("lunatix").aec_env(num_players=2, events=True)
    env.reset(seed=5)
    first = env.agent_selection
    obs = env.last()[0]
    env.step(int(obs["action_mask"].nonzero()[0][0]))
    assert env.infos[first]["events"] == []  # chosen, nothing resolved yet
    second = env.agent_selection
    assert second != first
    obs = env.last()[0]
    env.step(int(obs["action_mask"].nonzero()[0][0]))
    kinds = [e.kind.value for e in env.infos[first]["events"]]
    assert kinds.count("chips") == 2
    assert kinds == [e.kind.value for e in env.infos[second]["events"]]


def test_a_step_that_ends_the_game_by_penalty_repeats_no_events() -> None:
    """``on_illegal="penalty"`` ends the game without resolving anything: the last step's
    infos hold no events (they repeated the step before's), in both multi-agent APIs."""
    entry = registry.get("lunatix")
    par = entry.parallel_env(num_players=2, events=True, on_illegal="penalty")
    obs, infos = par.reset(seed=0)
    assert infos["player_0"]["events"]  # the setup's events
    illegal = int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[-1])
    _, _, terms, _, infos = par.step({"player_0": illegal, "player_1": 0})
    assert all(terms.values())
    assert all(info["events"] == [] for info in infos.values())
    aec = entry.aec_env(num_players=2, events=True, on_illegal="penalty")
    aec.reset(seed=0)
    agent = aec.agent_selection
    assert aec.infos[agent]["events"]
    aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"] == 0)[-1]))
    assert aec.infos[agent]["events"] == []  # it acted: what it saw before is gone
