"""Play one seeded Lunatix Loop game between random players and print it round by round.

Usage: ``python -m lunatix_env.play [--seed N] [--players N] [--turn-around] [--four-pit]``
"""

from __future__ import annotations

import argparse

import numpy as np

from lunatix_env.rules import Game, State
from tabletop.protocol import play_chance


def play_random_game(game: Game, seed: int, verbose: bool = True) -> State:
    """Play a game with uniformly random legal actions; print each round when verbose."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    shown_round = -1
    while not state.is_terminal():
        if state.is_chance_node():
            play_chance(state, rng)
            continue
        if verbose and state.round != shown_round and state.decision_kind() is not None:
            if state.decision["kind"] == "card":  # type: ignore[index]
                shown_round = state.round
                print(state, end="\n\n")
        actions = {}
        for seat in state.current_players():
            legal = state.legal_actions(seat)
            actions[seat] = legal[int(rng.integers(len(legal)))]
        if verbose and state.decision["kind"] == "card":  # type: ignore[index]
            print("  cards: " + ", ".join(f"player_{s} {a}" for s, a in actions.items()))
        state.apply_actions(actions)
    if verbose:
        print(state)
    return state


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--turn-around", action="store_true")
    ap.add_argument("--four-pit", action="store_true")
    args = ap.parse_args(argv)
    game = Game(num_players=args.players, turn_around=args.turn_around,
                four_opening_pit=args.four_pit)
    play_random_game(game, args.seed)


if __name__ == "__main__":
    main()
