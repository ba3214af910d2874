"""A game is freed once nothing uses it, with everything worked out for it.

Bots and envs derive tables from a game (the Lunatix heuristic's track model, the Lazer
Ryderz launch aim) and the engine caches results per game. Training plays thousands of
games, each with a new ``Game`` (the warm start, table distillation), and the bot server
makes one per new game: a cache that holds games (a ``functools.cache`` on a method, or a
``WeakKeyDictionary`` whose values refer to their key) grows without bound. It once took a
distillation run to 8 GB.
"""

from __future__ import annotations

import gc
import pickle
import weakref

import numpy as np
import pytest

from agents.specs import make_bot
from tabletop import registry
from tabletop.protocol import play_chance


def _play(name: str, game, decisions: int, seed: int = 0):
    """A state of ``game`` (of game ``name``) after up to ``decisions`` heuristic decisions
    from a fresh deal."""
    bots = [make_bot("heuristic", name, seed=seed + s) for s in range(2)]
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        if state.is_chance_node():
            play_chance(state, rng)
        else:
            state.apply_actions({s: bots[s].act(state, s) for s in state.current_players()})
    return state


@pytest.mark.parametrize("name", registry.names())
def test_a_game_played_by_the_heuristics_is_freed_once_dropped(name):
    game = registry.get(name).game(num_players=2)
    state = _play(name, game, 40)
    assert game.__dict__.get("_derived"), "the heuristic derived nothing: the test tests nothing"
    ref = weakref.ref(game)
    del game, state
    gc.collect()
    assert ref() is None, [type(r).__name__ for r in gc.get_referrers(ref())]


@pytest.mark.parametrize("name", registry.names())
def test_games_of_the_single_agent_env_are_freed_between_episodes(name):
    entry = registry.get(name)
    options = {"action_mode": "discrete"} if name == "ryderz" else {}  # one int an action
    env = entry.single_agent_env(
        num_players=2, opponents=[make_bot("heuristic", name, seed=1)], **options
    )
    refs = []
    for episode in range(3):
        env.reset(seed=episode)
        refs.append(weakref.ref(env.unwrapped.session.state.game))
        for _ in range(20):
            mask = env.action_masks()
            _, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
            if term or trunc:
                break
    env.close()
    del env
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


def test_derived_builds_once_per_config_and_key():
    game = registry.get("lunatix").game(num_players=2, laps=2)
    calls = []

    def build(g):
        calls.append(g)
        return {"built": len(calls)}

    first = game.derived("test.table", build)
    assert game.derived("test.table", build) is first
    assert game.derived("test.other", build) == {"built": 2}
    # built from a game of the same config, not the caller (which is freed with its episode)
    assert len(calls) == 2 and calls[0] is calls[1] and calls[0] is not game
    assert calls[0].config_dict() == game.config_dict()
    equal = registry.get("lunatix").game(num_players=2, laps=2)
    assert equal.derived("test.table", build) is first  # an equal game shares the table
    other = registry.get("lunatix").game(num_players=3, laps=2)
    assert other.derived("test.table", build) == {"built": 3}
    assert calls[2].num_players == 3


def test_derived_tables_keep_a_bounded_number_of_configs():
    from tabletop.gamebase import DerivedTables

    entry = registry.get("lunatix")
    first = entry.game(num_players=2, laps=5)
    kept = first.derived("test.kept", lambda g: object())
    for laps in range(6, 6 + DerivedTables.KEEP):  # as many other configs as are kept
        entry.game(num_players=2, laps=laps).derived("test.kept", lambda g: object())
    assert first.derived("test.kept", lambda g: object()) is kept  # its game holds them
    again = entry.game(num_players=2, laps=5)  # the config's tables were dropped: built anew
    assert again.derived("test.kept", lambda g: object()) is not kept
    assert len(DerivedTables._kept) == DerivedTables.KEEP


@pytest.mark.parametrize("name", registry.names())
def test_derived_tables_are_not_pickled_and_are_built_again(name):
    game = registry.get(name).game(num_players=2)
    _play(name, game, 20)
    assert game.__dict__.get("_derived")
    copy = pickle.loads(pickle.dumps(game))
    assert "_derived" not in copy.__dict__
    state = _play(name, copy, 20)  # the heuristic works out its tables for the copy
    assert copy.__dict__.get("_derived")
    assert state.game is copy
