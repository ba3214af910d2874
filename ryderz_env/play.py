"""Play one seeded Lazer Ryderz game between random players and print it round by round.

Usage: ``python -m ryderz_env.play [--seed N] [--players N] [--powers] [--table NAME|PATH]
[--record PATH] [--gif PATH]``
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ryderz_env.rules import Game, State
from tabletop import play
from tabletop.records import GameRecord

RECORD_NAME = "lazer_ryderz_v0"  # the env's name: python -m tabletop.replay finds the game


class _RoundShown:
    """``show`` for the shared player: the state at the first decision of each round."""

    def __init__(self) -> None:
        self.round = -1

    def __call__(self, state: State) -> bool:
        if state.round == self.round:
            return False
        self.round = state.round
        return True


def _actions(state: State, actions: Mapping[int, Any]) -> str:
    kind = state.decision_kind()
    return "\n".join(f"  seat {s} ({kind.value}): {a}" for s, a in actions.items())


def play_random_game(game: Game, seed: int, verbose: bool = True) -> tuple[State, GameRecord]:
    """Play a game with uniformly random legal actions; print the table at the start of each
    round and every decision when verbose. Returns the final state and the record."""
    return play.play_random_game(
        game,
        seed,
        RECORD_NAME,
        show=_RoundShown(),
        describe=_actions,
        out=print if verbose else None,
    )


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    ap = play.parser(__doc__)
    ap.add_argument("--powers", action="store_true", help="with Power Prizms")
    ap.add_argument(
        "--table",
        default="standard",
        help="a table preset (standard, small, large, rectangle, hexagon, long) "
        "or a table YAML path",
    )
    ap.add_argument(
        "--gif",
        type=Path,
        metavar="PATH",
        help="also draw the game as an animated GIF (needs Pillow)",
    )
    args = ap.parse_args(argv)
    game = Game(num_players=args.players, powers=args.powers, table=args.table)
    _, record = play_random_game(game, args.seed)
    play.save_record(record, args.record)
    if args.gif is not None:
        from ryderz_env.render import record_to_gif

        frames = record_to_gif(record, args.gif, every=max(1, len(record.events) // 120))
        print(f"gif: {args.gif} ({frames} frames)")


if __name__ == "__main__":
    main()
