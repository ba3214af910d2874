"""Play one seeded game between uniformly random players, print it and keep its record:
the machinery behind ``python -m lunatix_env.play`` and ``python -m ryderz_env.play``."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from tabletop.protocol import random_legal_actions
from tabletop.records import GameRecord, RecordingState


def play_random_game(
    game: Any,
    seed: int,
    record_name: str,
    *,
    show: Callable[[Any], bool] = lambda state: False,
    describe: Callable[[Any, Mapping[int, Any]], str | None] = (lambda state, actions: None),
    out: Callable[[str], None] | None = print,
) -> tuple[Any, GameRecord]:
    """Play ``game`` from ``new_initial_state(seed)`` with uniformly random legal actions and
    chance outcomes drawn from ``numpy.random.default_rng(seed)``; return the final state and
    the game's record (``record_name``: the env's versioned name, so that ``python -m
    tabletop.replay`` finds the game).

    With ``out`` (None: silent), before a decision where ``show(state)`` is true the state's
    text is printed, then ``describe(state, actions)`` (if not None) for the actions chosen;
    the final state at the end.
    """
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    record = GameRecord(record_name, game.config_dict(), seed)
    recorder = RecordingState(game, state, record)
    while not state.is_terminal():
        if state.is_chance_node():
            recorder.play_chance(rng)
            continue
        if out is not None and show(state):
            out(f"{state}\n")
        actions = random_legal_actions(state, rng)
        if out is not None:
            line = describe(state, actions)
            if line is not None:
                out(line)
        recorder.apply_actions(actions)
    if out is not None:
        out(str(state))
    return state, record


def parser(doc: str | None) -> argparse.ArgumentParser:
    """The options both games' play commands share: ``--seed``, ``--players``, ``--record``."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--seed", type=int, default=0, help="seeds the game and the players")
    ap.add_argument("--players", type=int, default=4, help="number of players")
    ap.add_argument(
        "--record",
        type=Path,
        metavar="PATH",
        help="also write the game's record (JSON; python -m tabletop.replay PATH)",
    )
    return ap


def save_record(record: GameRecord, path: Path | None) -> None:
    """Write ``record`` to ``path`` when given, and say where."""
    if path is not None:
        record.save(path)
        print(f"record: {path} ({len(record.events)} events)")
