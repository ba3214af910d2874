"""Play in the terminal against our bots (or watch them play each other).

    python -m agents.play --human --game lunatix [--players 2] [--seat 0] [--bots heuristic]
    python -m agents.play --game ryderz --bots heuristic,mcts:sims=50 [--seed 3]

With ``--human`` one seat (``--seat``) is yours: at each of its decisions the state is printed
with its legal actions numbered, and you type a number (``q`` quits). The other seats are
played by ``--bots`` (one spec for all, or one per other seat, in seat order; bots.md lists
the specs), chance is drawn from ``--seed``. The game packages import no bots: this lives in
``agents/``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from agents.bot import Bot
from agents.specs import BotSpecError, make_bot, split_specs
from tabletop import registry
from tabletop.protocol import play_chance


class Quit(Exception):
    """The human asked to stop (``q`` or end of input)."""


def ask_human(state: Any, seat: int, read: Callable[[], str], out: TextIO) -> Any:
    """Print the state and ``seat``'s legal actions numbered; read until a valid number."""
    actions = state.legal_actions(seat)
    print(f"\n{state}\n", file=out)
    for i, a in enumerate(actions):
        print(f"  {i:3d}  {a}", file=out)
    while True:
        print(f"seat {seat}, your action (0..{len(actions) - 1}, q quits): ", end="", file=out)
        out.flush()
        answer = read()
        if answer == "" or answer.strip().lower() in ("q", "quit"):
            raise Quit
        text = answer.strip()
        if text.isdigit() and int(text) < len(actions):
            return actions[int(text)]
        print(f"  {text!r} is not one of 0..{len(actions) - 1}", file=out)


def play(
    game_name: str,
    players: int,
    bots: list[Bot],
    seed: int,
    human: int | None,
    read: Callable[[], str],
    out: TextIO,
) -> list[float] | None:
    """Play one game; ``bots[seat]`` plays each seat but ``human``. The returns, or None
    when the human quit."""
    game = registry.get(game_name).game(num_players=players)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for k, bot in enumerate(bots):
        bot.reset(seed + 1 + k)
    try:
        while not state.is_terminal():
            if state.is_chance_node():
                kind = state.chance_kind()
                outcome = play_chance(state, rng)
                print(f"  chance {kind.value}: {outcome}", file=out)
                continue
            joint = {}
            for seat in state.current_players():
                if seat == human:
                    joint[seat] = ask_human(state, seat, read, out)
                else:
                    joint[seat] = bots[seat].act(state, seat)
            for seat, action in joint.items():
                who = "you" if seat == human else bots[seat].name
                print(f"seat {seat} ({who}): {action}", file=out)
            state.apply_actions(joint)
    except Quit:
        print("\nquit", file=out)
        return None
    returns = [float(r) for r in state.returns()]
    print(f"\n{state}\n\ngame over: returns {returns}", file=out)
    return returns


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and play one game."""
    ap = argparse.ArgumentParser(
        prog="python -m agents.play",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--game", default="lunatix", choices=registry.names())
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--human", action="store_true", help="play one seat yourself")
    ap.add_argument("--seat", type=int, default=0, help="your seat (with --human)")
    ap.add_argument("--bots", default="heuristic", help="one spec, or one per other seat")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not 0 <= args.seat < args.players:
        ap.error(f"--seat must be in 0..{args.players - 1}")
    human = args.seat if args.human else None
    others = [s for s in range(args.players) if s != human]
    specs = split_specs(args.bots)
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        ap.error(f"--bots: one spec, or {len(others)} (one per seat played by a bot)")
    try:
        by_seat = dict(zip(others, specs, strict=True))
        bots = [
            make_bot(by_seat.get(s, "random"), args.game, seed=args.seed)
            for s in range(args.players)
        ]
        play(args.game, args.players, bots, args.seed, human, sys.stdin.readline, sys.stdout)
    except BotSpecError as exc:
        ap.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
