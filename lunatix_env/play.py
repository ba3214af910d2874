"""Play one seeded Lunatix Loop game between random players and print it round by round.

Usage: ``python -m lunatix_env.play [--seed N] [--players N] [--turn-around] [--four-pit]
[--record PATH]``
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lunatix_env.rules import Game, State
from tabletop import play
from tabletop.records import GameRecord

RECORD_NAME = "lunatix_loop_v0"  # the env's name: python -m tabletop.replay finds the game


def _card_choice(state: State) -> bool:
    return state.decision is not None and state.decision.kind.value == "card"


def _cards(state: State, actions: Mapping[int, Any]) -> str | None:
    if not _card_choice(state):
        return None
    return "  cards: " + ", ".join(f"player_{s} {a}" for s, a in actions.items())


def play_random_game(game: Game, seed: int, verbose: bool = True) -> tuple[State, GameRecord]:
    """Play a game with uniformly random legal actions; print each round (the track when the
    cards are chosen, then the cards) when verbose. Returns the final state and the record."""
    return play.play_random_game(
        game, seed, RECORD_NAME, show=_card_choice, describe=_cards, out=print if verbose else None
    )


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    ap = play.parser(__doc__)
    ap.add_argument("--turn-around", action="store_true")
    ap.add_argument("--four-pit", action="store_true")
    args = ap.parse_args(argv)
    game = Game(
        num_players=args.players, turn_around=args.turn_around, four_opening_pit=args.four_pit
    )
    _, record = play_random_game(game, args.seed)
    play.save_record(record, args.record)


if __name__ == "__main__":
    main()
