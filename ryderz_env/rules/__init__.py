"""The Lazer Ryderz rules engine: pure Python, numpy and shapely; no RL or drawing imports.

``Game()`` is the standard four-player game; ``game.new_initial_state(seed)`` starts one.
"""

from ryderz_env.rules.actions import NOOP, Action, ActionKind, Move
from ryderz_env.rules.aim import LaunchAim, aim_launches, launch_aim
from ryderz_env.rules.builder import PositionBuilder
from ryderz_env.rules.config import Character, PieceKind, RulesConfig, load_rules
from ryderz_env.rules.game import Game
from ryderz_env.rules.geometry import Element, Pose, Table
from ryderz_env.rules.records import (
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    Player,
    Prizm,
    RiderTurn,
)
from ryderz_env.rules.state import State
from tabletop.errors import IllegalActionError, InvalidStateError

__all__ = [
    "Action",
    "ActionKind",
    "Chance",
    "ChanceKind",
    "Character",
    "Decision",
    "DecisionKind",
    "Element",
    "Game",
    "IllegalActionError",
    "InvalidStateError",
    "LaunchAim",
    "Move",
    "NOOP",
    "Outcome",
    "PieceKind",
    "Player",
    "Pose",
    "PositionBuilder",
    "Prizm",
    "RiderTurn",
    "RulesConfig",
    "State",
    "Table",
    "aim_launches",
    "launch_aim",
    "load_rules",
]
