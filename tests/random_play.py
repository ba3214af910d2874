"""Seeded random play through the engine protocol, shared by the property tests and the
golden playthroughs of both games: uniformly random legal actions and sampled chance
outcomes, each step returned as an event that ``replay`` applies again; and the protocol
properties both games' property tests check on such play (JSON round trip, clone)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop.errors import InvalidStateError
from tabletop.protocol import random_legal_actions

Event = tuple[str, Any]  # ("chance", outcome) or ("act", {seat: action})


def random_step(s: Any, rng: np.random.Generator) -> Event:
    """Apply one random chance outcome or random legal decision; return what was applied."""
    if s.is_chance_node():
        o = s.sample_chance(rng)
        s.apply_chance(o)
        return ("chance", o)
    acts = random_legal_actions(s, rng)
    s.apply_actions(acts)
    return ("act", acts)


def replay(s: Any, events: list[Event]) -> None:
    """Apply ``events`` (from :func:`random_step`) to ``s``."""
    for kind, what in events:
        if kind == "chance":
            s.apply_chance(what)
        else:
            s.apply_actions(what)


def random_state(game: Any, seed: int, steps: int) -> tuple[Any, np.random.Generator]:
    """A new game seeded ``seed`` after ``steps`` random steps (or its end), and the
    generator (``default_rng(seed)``) that chose them, to play on with."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state(seed)
    play_on(s, rng, steps)
    return s, rng


def play_on(s: Any, rng: np.random.Generator, steps: int) -> list[Event]:
    """Up to ``steps`` more random steps (fewer if the game ends); the events applied."""
    events = []
    for _ in range(steps):
        if s.is_terminal():
            break
        events.append(random_step(s, rng))
    return events


def pending(s: Any, continuous: bool = False) -> Any:
    """What the state offers next: deciders and their legal actions, or chance outcomes
    (with ``continuous``, ``"continuous"`` for a chance event that has no list of outcomes,
    as Lazer Ryderz's launch noise and tosses; without it, such an event is an error)."""
    if s.is_chance_node():
        try:
            return ("chance", s.chance_outcomes())
        except InvalidStateError:
            if not continuous:
                raise
            return ("chance", "continuous")
    return ("decide", {p: s.legal_actions(p) for p in s.current_players()})


def check_json_round_trip(
    game: Any,
    seed: int,
    prefix: int,
    more: int,
    view: Callable[[Any], Any] = lambda s: None,
    continuous: bool = False,
) -> None:
    """After ``prefix`` random steps, the state's ``to_dict()`` survives JSON exactly, the
    copy offers the same next step (and the same ``view``: a game may add what the state
    works out, not stores) and plays on (``more`` steps) to the same state. ``continuous``:
    the game has chance events without a list of outcomes (see :func:`pending`)."""
    s, rng = random_state(game, seed, prefix)
    d = s.to_dict()
    text = json.dumps(d)
    back = game.state_from_dict(json.loads(text))
    assert back.to_dict() == d
    assert json.dumps(back.to_dict()) == text
    assert pending(back, continuous) == pending(s, continuous) and view(back) == view(s)
    assert back.is_terminal() == s.is_terminal() and back.returns() == s.returns()
    replay(back, play_on(s, rng, more))
    assert back.to_dict() == s.to_dict() and view(back) == view(s)


def check_clone(
    game: Any,
    seed: int,
    prefix: int,
    more: int,
    view: Callable[[Any], Any] = lambda s: None,
    continuous: bool = False,
) -> None:
    """After ``prefix`` random steps, a clone plays on (``more`` steps) without touching the
    original, which replays the clone's steps to the same state (and ``view``); and playing
    the original on leaves a fresh clone alone."""
    s, rng = random_state(game, seed, prefix)
    before = s.to_dict()
    offered = pending(s, continuous)
    c = s.clone()
    assert c.to_dict() == before
    events = play_on(c, rng, more)
    assert s.to_dict() == before, "playing the clone changed the original"
    assert pending(s, continuous) == offered
    replay(s, events)
    assert s.to_dict() == c.to_dict()
    assert pending(s, continuous) == pending(c, continuous) and view(s) == view(c)
    c2 = s.clone()
    snap = c2.to_dict()
    play_on(s, np.random.default_rng(seed + 1), more)
    assert c2.to_dict() == snap


def sampled_states(game: Any, seeds: range, every: int, max_steps: int) -> list[Any]:
    """Clones of the states every ``every`` steps of seeded random games of ``game`` (one
    game per seed, at most ``max_steps`` steps each), for fuzz tests to start from."""
    out = []
    for k in seeds:
        rng = np.random.default_rng(k)
        s = game.new_initial_state(k)
        steps = 0
        while not s.is_terminal() and steps < max_steps:
            random_step(s, rng)
            steps += 1
            if steps % every == 0:
                out.append(s.clone())
    return out
