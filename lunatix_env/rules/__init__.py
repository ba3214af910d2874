"""The Lunatix Loop rules engine: pure Python and numpy, no RL or drawing imports.

``Game()`` is the standard four-player game; ``game.new_initial_state(seed)`` starts one.
"""

from lunatix_env.rules.actions import NOOP, Action, ActionKind, Card, ShopItem
from lunatix_env.rules.builder import PositionBuilder
from lunatix_env.rules.config import (
    GadgetEffect,
    HazardEffect,
    Lunacy,
    RulesConfig,
    load_rules,
)
from lunatix_env.rules.game import Game
from lunatix_env.rules.records import (
    Car,
    CarTurn,
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Outcome,
    RamCard,
    RamKind,
)
from lunatix_env.rules.state import State
from tabletop.errors import IllegalActionError, InvalidStateError

__all__ = [
    "Action",
    "ActionKind",
    "Car",
    "CarTurn",
    "Card",
    "Chance",
    "ChanceKind",
    "Decision",
    "DecisionKind",
    "GadgetEffect",
    "Game",
    "HazardEffect",
    "IllegalActionError",
    "InvalidStateError",
    "Lunacy",
    "NOOP",
    "Outcome",
    "PositionBuilder",
    "RamCard",
    "RamKind",
    "RulesConfig",
    "ShopItem",
    "State",
    "load_rules",
]
