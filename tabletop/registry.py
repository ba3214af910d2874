"""The game registry: the one place that names the games.

Every CLI, the arena, training, replay, the server and the shared tests find a game here by
its short name (``lunatix``, ``ryderz``) or by its env name (``lunatix_loop_v0``, the
``game`` of a record). An entry names its parts as ``"module:attr"`` strings imported on
first use, so this module imports no game package (and no RL library) at import time.
Adding a third game means one :class:`GameEntry` in :data:`GAMES`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from tabletop.config import shipped_configs


class UnknownGameError(ValueError):
    """A game name that is not in the registry (the message lists the known ones)."""


def resolve(spec: str) -> Any:
    """Import ``"module:attr"`` (``attr`` may be dotted) and return the attribute."""
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"expected 'module:attr', got {spec!r}")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class GameEntry:
    """Where one game's engine, envs, single-agent view, bots and default configs live."""

    name: str  # short name used by every CLI and the server
    title: str  # for people: "Lunatix Loop"
    env_name: str  # versioned PettingZoo name; a record's ``game``
    env_id: str  # PettingZoo and Gymnasium registry id
    package: str  # the game's package
    rules_module: str  # the engine (``Game``, ``State``); no RL imports
    envs_module: str  # env(), parallel_env(), raw_env, single_agent_env(), ...
    single_agent: str  # "module:Class" of the Gymnasium single-agent view
    replay_factory: str  # "module:fn": record config dict -> (game, adapter)
    heuristic: str  # "module:Class" of the game's heuristic bot
    train_config: str  # file of ``configs/train/`` that ``make train`` runs
    # outcome reasons (values of the engine's outcome enum) that reports count besides
    # wins and truncations, with their labels
    outcome_labels: dict[str, str] = field(default_factory=dict)
    # decision kinds (values of the engine's decision enum) that are many and each of little
    # consequence, which a search may give a share of its budget (``mcts:minor=``)
    minor_decisions: tuple[str, ...] = ()
    # "module:object" of the features of a position for the fitted leaf value
    # (``agents.fitted_value``, ``mcts:eval=fitted``); empty: the game has none
    value_features: str = ""

    # -- the engine ---------------------------------------------------------------------
    def rules(self) -> ModuleType:
        """The rules engine package."""
        return importlib.import_module(self.rules_module)

    def decision_kinds(self) -> tuple[str, ...]:
        """The names of the engine's decision kinds (``state.decision_kind()`` values)."""
        return tuple(str(k.value) for k in self.rules().DecisionKind)

    def game(self, config: Any = None, **overrides: Any) -> Any:
        """``Game(config, **overrides)`` of the engine (the standard game without arguments)."""
        return self.rules().Game(config, **overrides)

    def game_from_config_dict(self, data: dict[str, Any]) -> Any:
        """The game of a record's or a position's ``config`` dict (the default when empty)."""
        cls = self.rules().Game
        return cls.from_config_dict(data) if data else cls()

    # -- the envs -----------------------------------------------------------------------
    def envs(self) -> ModuleType:
        """The envs module (imports gymnasium and pettingzoo)."""
        return importlib.import_module(self.envs_module)

    def aec_env(self, **options: Any) -> Any:
        """The wrapped PettingZoo AEC env with ``options``."""
        return self.envs().env(**options)

    def parallel_env(self, **options: Any) -> Any:
        """The PettingZoo parallel env with ``options``."""
        return self.envs().parallel_env(**options)

    def single_agent_env(self, **options: Any) -> Any:
        """The Gymnasium single-agent view with ``options``."""
        return self.single_agent_class()(**options)

    def single_agent_class(self) -> type:
        """The Gymnasium single-agent view's class."""
        return cast(type, resolve(self.single_agent))

    def replay_game(self, config: dict[str, Any]) -> tuple[Any, Any]:
        """``(game, adapter)`` of a record's ``config`` (for drawing replayed states)."""
        return cast("tuple[Any, Any]", resolve(self.replay_factory)(config))

    def heuristic_class(self) -> type:
        """The class of the game's heuristic bot."""
        return cast(type, resolve(self.heuristic))

    # -- configs ------------------------------------------------------------------------
    def config_dir(self) -> Path:
        """The folder of the game's shipped configs."""
        return shipped_configs(self.name)

    def train_config_path(self) -> Path:
        """The training config that ``make train GAME=<name>`` runs."""
        return shipped_configs("train") / self.train_config

    def register_envs(self) -> None:
        """Register the env id with PettingZoo (aec, parallel) and Gymnasium (the single-agent
        view) by entry-point strings: now for a library already imported, right after its
        import otherwise (:mod:`tabletop.env_registration`; imports neither library, nor the
        game's env module); registering twice is harmless. ``import <game package>`` calls
        it."""
        from tabletop.env_registration import register_when_loaded

        register_when_loaded(self)


#: short name -> entry; the only list of the games
GAMES: dict[str, GameEntry] = {
    "lunatix": GameEntry(
        name="lunatix",
        title="Lunatix Loop",
        env_name="lunatix_loop_v0",
        env_id="LunatixLoop-v0",
        package="lunatix_env",
        rules_module="lunatix_env.rules",
        envs_module="lunatix_env.envs",
        single_agent="lunatix_env.envs:LunatixSingleAgentEnv",
        replay_factory="lunatix_env.envs:replay_game",
        heuristic="agents.heuristic_lunatix:LunatixHeuristic",
        train_config="lunatix_maskppo.yaml",
        outcome_labels={"all_out": "games ending with every car out"},
        minor_decisions=("step",),
        value_features="agents.heuristic_lunatix:VALUE_FEATURES",
    ),
    "ryderz": GameEntry(
        name="ryderz",
        title="Lazer Ryderz",
        env_name="lazer_ryderz_v0",
        env_id="LazerRyderz-v0",
        package="ryderz_env",
        rules_module="ryderz_env.rules",
        envs_module="ryderz_env.envs",
        single_agent="ryderz_env.envs:RyderzSingleAgentEnv",
        replay_factory="ryderz_env.envs:replay_game",
        heuristic="agents.heuristic_ryderz:RyderzHeuristic",
        train_config="ryderz_maskppo.yaml",
        value_features="agents.heuristic_ryderz:VALUE_FEATURES",
    ),
}


def names() -> tuple[str, ...]:
    """The games' short names, in registry order."""
    return tuple(GAMES)


def get(name: str) -> GameEntry:
    """The entry of a short name (``lunatix``) or an env name (``lunatix_loop_v0``)."""
    entry = GAMES.get(name)
    if entry is not None:
        return entry
    for e in GAMES.values():
        if name in (e.env_name, e.env_id):
            return e
    raise UnknownGameError(
        f"unknown game {name!r}; known: {', '.join(GAMES)} "
        f"(or their env names {', '.join(e.env_name for e in GAMES.values())})"
    )


def of_state(state: Any) -> GameEntry:
    """The entry of an engine state's (or game's) game, found by its rules package."""
    obj = getattr(state, "game", state)
    module = type(obj).__module__
    for e in GAMES.values():
        if module == e.rules_module or module.startswith(e.rules_module + "."):
            return e
    raise UnknownGameError(f"{type(obj).__name__} of {module} is no registered game's")


def register_all() -> None:
    """Register every game's env ids with PettingZoo and Gymnasium."""
    for e in GAMES.values():
        e.register_envs()
