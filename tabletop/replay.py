"""Replay a saved game record: print its text rendering, or write PNG frames.

``python -m tabletop.replay RECORD.json [--every-step] [--render ansi|rgb_array --out DIR]``

The game is found by ``record.game`` (the env's versioned name) in the game registry
(``tabletop.registry``), which imports the game package at run time. Its replay factory
takes the record's ``config`` dict and returns ``(game, adapter)``; the adapter draws the
states (``render_ansi`` / ``render_rgb``). ``--game module:factory`` names a factory for a
game outside the registry.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from tabletop import registry
from tabletop.draw import png_bytes
from tabletop.errors import InvalidStateError
from tabletop.records import GameRecord, iter_replay
from tabletop.registry import resolve

EPILOG = """\
recording a game (every env keeps the record of its current episode):

  import lunatix_env
  env = lunatix_env.env(num_players=2)
  env.reset(seed=7)
  for agent in env.agent_iter():
      obs, reward, terminated, truncated, info = env.last()
      action = None if terminated or truncated else policy(obs)   # any policy
      env.step(action)
  env.unwrapped.record.save("game.json")    # tabletop.records.GameRecord.save

replaying it:

  python -m tabletop.replay game.json                  # text, once per round
  python -m tabletop.replay game.json --every-step     # text after every event
  python -m tabletop.replay game.json --render rgb_array --out frames/
"""


def load_game(record: GameRecord, factory: str | None = None) -> tuple[Any, Any]:
    """``(game, adapter)`` for ``record``: from ``factory`` or the game registry."""
    if factory is not None:
        return cast("tuple[Any, Any]", resolve(factory)(record.config))
    try:
        entry = registry.get(record.game)
    except registry.UnknownGameError as exc:
        raise InvalidStateError(f"record: {exc} (or pass --game module:factory)") from None
    return entry.replay_game(record.config)


def describe_event(game: Any, event: dict[str, Any]) -> str:
    """An event in words: ``chance 3`` or ``player_0: <action>, player_1: <action>``."""
    if "chance" in event:
        return f"chance {event['chance']}"
    parts = []
    for seat, a in sorted(event["actions"].items(), key=lambda kv: int(kv[0])):
        try:
            name = str(game.action_from_json(a))
        except (ValueError, KeyError, TypeError):
            name = f"#{a}"
        parts.append(f"player_{seat}: {name}")
    return ", ".join(parts)


def frames(
    game: Any, record: GameRecord, every_step: bool = False
) -> Iterator[tuple[int, str, Any]]:
    """``(event index, title, state)`` for each state to show.

    Without ``every_step``: the initial state, the first state of each new round (states
    with a ``round`` attribute) and the final state. With it: every state. The state object
    is reused by the replay; draw it before taking the next frame.
    """
    n = len(record.events)
    last_round: Any = object()
    for i, state in enumerate(iter_replay(game, record)):
        final = i == n
        rnd = getattr(state, "round", None)
        if every_step:
            what = "start" if i == 0 else describe_event(game, record.events[i - 1])
            title = f"event {i}/{n}: {what}"
        elif i == 0 or final or rnd != last_round:
            title = f"round {rnd} (event {i}/{n})" if rnd is not None else f"event {i}/{n}"
        else:
            continue
        last_round = rnd
        if final:
            title += "  [final]"
        yield i, title, state


def write_png(path: str | Path, rgb: np.ndarray) -> None:
    """Write an (H, W, 3) uint8 picture as a PNG file (zlib only, no imaging library)."""
    Path(path).write_bytes(png_bytes(rgb))


def one_line(exc: BaseException, limit: int = 300) -> str:
    """An error's message on one line, cut to ``limit`` characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tabletop.replay",
        description="Replay a game record (JSON written by GameRecord.save) and show it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("record", help="path of the record JSON")
    parser.add_argument(
        "--every-step",
        action="store_true",
        help="show the state after every event (default: once per round)",
    )
    parser.add_argument(
        "--render",
        choices=("ansi", "rgb_array"),
        default="ansi",
        help="ansi: print text (default); rgb_array: write PNG frames",
    )
    parser.add_argument("--out", help="folder for the PNG frames (with --render rgb_array)")
    parser.add_argument(
        "--game",
        metavar="MODULE:FACTORY",
        help="the game factory, for a game not in the known table",
    )
    args = parser.parse_args(argv)
    if args.render == "rgb_array" and not args.out:
        parser.error("--render rgb_array needs --out DIR")
    try:
        record = GameRecord.load(args.record)
        game, adapter = load_game(record, args.game)
    except (OSError, ValueError) as exc:  # every typed error is a ValueError
        print(f"error: {args.record}: {one_line(exc)}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    print(f"{record.game}: seed {record.seed}, {len(record.events)} events")
    count = 0
    state: Any = None
    try:
        for i, title, state in frames(game, record, args.every_step):
            if out is None:
                print(f"=== {title}")
                print(adapter.render_ansi(state), end="\n\n")
            else:
                write_png(out / f"frame_{count:05d}_event_{i:05d}.png", adapter.render_rgb(state))
            count += 1
    except ValueError as exc:  # IllegalActionError, InvalidStateError: a corrupt record
        print(
            f"error: {args.record}: replay failed after {count} frames: {one_line(exc)}",
            file=sys.stderr,
        )
        return 1
    if out is not None:
        print(f"wrote {count} frames to {out}")
    if hasattr(state, "outcome"):
        print(f"outcome: {state.outcome()}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into a pager or ``head`` that closed early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
