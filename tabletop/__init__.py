"""Machinery shared by both games: engine protocol, errors, configs, records."""

from tabletop.errors import ConfigError, IllegalActionError, InvalidStateError
from tabletop.protocol import Game, GameInfo, State, play_chance, sample_discrete

__all__ = [
    "ConfigError",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "InvalidStateError",
    "State",
    "play_chance",
    "sample_discrete",
]
