"""Lunatix Loop as PettingZoo AEC and parallel envs and a Gymnasium single-agent view.

``lunatix_env.env()``, ``lunatix_env.parallel_env()``, ``lunatix_env.raw_env`` and
``lunatix_env.single_agent_env()`` come from here (the package imports them lazily, so the
rules engine never pulls in gymnasium or pettingzoo). Importing this module registers
``LunatixLoop-v0`` with PettingZoo (aec and parallel) and with Gymnasium (the single-agent
view); ``gymnasium.make("lunatix_env.envs:LunatixLoop-v0")`` imports it on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pettingzoo

from lunatix_env.encode import ObservationEncoder
from lunatix_env.rules import Game, RulesConfig, State
from lunatix_env.rules.config import CONFIG_DIR, load_rules
from tabletop.config import from_mapping, load_yaml
from tabletop.env_aec import TabletopAECEnv
from tabletop.env_core import GameAdapter
from tabletop.env_options import AdapterOptions, wrap_aec
from tabletop.env_parallel import TabletopParallelEnv
from tabletop.env_single import SingleAgentView
from tabletop.errors import ConfigError
from tabletop.registry import GAMES

ENTRY = GAMES["lunatix"]  # the game registry's entry: names, modules, configs
ENV_NAME = ENTRY.env_name
ENV_ID = ENTRY.env_id
DEFAULT_ENV_CONFIG = CONFIG_DIR / "env.yaml"


@dataclass(frozen=True)
class Shaping:
    """Optional shaping weights (all 0 = zero-sum terminal rewards only)."""

    progress: float = 0.0
    damage: float = 0.0


@dataclass(frozen=True)
class EnvConfig:
    """The env options of ``configs/lunatix/env.yaml``."""

    rules: str = "rules.yaml"
    auto_play: bool = False
    on_illegal: str = "raise"
    illegal_penalty: float = -1.0
    ahead_offset: int = 12
    shaping: Shaping = field(default_factory=Shaping)
    base_dir: str = field(default="", compare=False)


def load_env_config(path: str | Path | None = None) -> EnvConfig:
    """Load an env YAML (default ``configs/lunatix/env.yaml``)."""
    p = Path(path) if path is not None else DEFAULT_ENV_CONFIG
    data = load_yaml(p)
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping")
    return from_mapping(EnvConfig, {**data, "base_dir": str(p.resolve().parent)}, str(p))


class LunatixAdapter(GameAdapter):
    """Connects the Lunatix Loop engine to the generic envs."""

    env_name = ENV_NAME

    def __init__(self, game: Game, env_config: EnvConfig) -> None:
        self.game = game
        self.env_config = env_config
        self.encoder = ObservationEncoder(game, env_config.ahead_offset)
        self._int_of = game.codec.index  # Action -> int (codec.encode without the call)
        self._action_of = game.codec.actions  # int -> Action
        self._painter: Any = None
        self._shaping = env_config.shaping

    def shaping_enabled(self) -> bool:
        """Whether any shaping weight is non-zero."""
        return self._shaping.progress != 0.0 or self._shaping.damage != 0.0

    def observation_size(self) -> int:
        """Length of the observation vector."""
        return self.encoder.size

    def encode(self, state: State, seat: int) -> np.ndarray:
        """The encoded observation of ``seat``."""
        return self.encoder.encode(state, seat)

    def state_size(self) -> int:
        """Length of the global state vector."""
        return self.encoder.state_size

    def state_vector(self, state: State) -> np.ndarray:
        """The global state vector."""
        return self.encoder.state_vector(state)

    def legal_ints(self, state: State, seat: int) -> list[int]:
        """Legal action ints of ``seat`` (``state.legal_action_ints``, one call less per
        action)."""
        int_of = self._int_of
        return [int_of[a] for a in state.legal_actions(seat)]

    def decode_action(self, state: State, seat: int, index: int) -> Any:
        """The action numbered ``index`` (a legal int, so in range; the same in any state)."""
        return self._action_of[index]

    def action_json(self, action: Any) -> int:
        """The action's int, as recorded."""
        return self._int_of[action]

    def shaping(self, before: State, after: State) -> np.ndarray | None:
        """Progress toward the win (in laps) and max speed lost (per hit), weighted.

        Progress is the change of ``best_u / length - owed``: a pit pass that completes the
        last lap (and so makes one more lap owed) gives that lap back.
        """
        length = self.game.track.length
        loss = self.game.rules.speed_loss_per_hit
        out = np.zeros(self.num_players, dtype=np.float64)
        for b, a in zip(before.cars, after.cars, strict=True):
            progress = (a.best_u - b.best_u) / length - (a.owed - b.owed)
            out[a.seat] = (
                self._shaping.progress * progress
                - self._shaping.damage * (b.max_speed - a.max_speed) / loss
            )
        return out

    def render_ansi(self, state: State) -> str:
        """The state in text."""
        from lunatix_env.render import render_ansi

        return render_ansi(state)

    def render_rgb(self, state: State) -> np.ndarray:
        """The table as a picture."""
        if self._painter is None:
            from lunatix_env.render import BoardPainter

            self._painter = BoardPainter(self.game)
        return self._painter.paint(state)

    def make_viewer(self) -> Any:
        """A window for ``render_mode="human"`` (headless machines get a silent one)."""
        from lunatix_env.render import HumanViewer

        return HumanViewer("Lunatix Loop")


def make_adapter(
    num_players: int | None = None,
    max_rounds: int | None = None,
    config: str | Path | EnvConfig | RulesConfig | None = None,
    turn_around: bool | None = None,
    four_opening_pit: bool | None = None,
    track: str | None = None,
    decks: str | None = None,
    shaping: dict[str, float] | Shaping | None = None,
) -> LunatixAdapter:
    """Build the game and adapter from env keyword options (see :class:`raw_env`)."""
    if isinstance(config, RulesConfig):
        env_config, rules_source = EnvConfig(), config
    else:
        env_config = config if isinstance(config, EnvConfig) else load_env_config(config)
        base = Path(env_config.base_dir) if env_config.base_dir else CONFIG_DIR
        rules_source = base / env_config.rules
    overrides: dict[str, Any] = {}
    for key, value in (
        ("num_players", num_players),
        ("round_limit", max_rounds),
        ("turn_around", turn_around),
        ("four_opening_pit", four_opening_pit),
        ("track", track),
        ("decks", decks),
    ):
        if value is not None:
            overrides[key] = value
    if isinstance(rules_source, RulesConfig):
        rules = rules_source
        if overrides:
            ta = overrides.pop("turn_around", None)
            if ta is not None:
                overrides["turn_around"] = replace(rules.turn_around, enabled=ta)
            rules = replace(rules, **overrides)
    else:
        rules = load_rules(rules_source, **overrides)
    if shaping is not None:
        sh = (
            shaping
            if isinstance(shaping, Shaping)
            else from_mapping(Shaping, dict(shaping), "<shaping>")
        )
        env_config = replace(env_config, shaping=sh)
    return LunatixAdapter(Game(rules), env_config)


_DOC_TABLES = """

    **Observation** (per agent): ``Dict``

    | key | space | content |
    |---|---|---|
    | ``observation`` | ``Box(-1, 1, (D,), float32)`` | planes, local view, cars, decision |
    | ``action_mask`` | ``Box(0, 1, (A,), int8)`` | 1 = legal now; NOOP alone otherwise |

    D = {D} and A = {A} for the default four-player game (``docs/lunatix_loop_env.md`` lists
    every slot of ``observation``).

    **Action**: ``Discrete(A)``

    | index | meaning |
    |---|---|
    | 0 | NOOP (only legal for an agent that is not deciding) |
    | 1..A-1 | ``game.int_to_action(i)``: every decision of the game (list in the docs) |
"""


class _LunatixOptions(AdapterOptions):
    """Builds the Lunatix game and adapter from keyword options (see :class:`raw_env`)."""

    make_adapter = staticmethod(make_adapter)


class raw_env(_LunatixOptions, TabletopAECEnv):  # noqa: N801 - PettingZoo naming convention
    """Lunatix Loop, AEC API (``lunatix_loop_v0``).

    Keyword options: ``num_players`` (2-6), ``render_mode`` (ansi, rgb_array, human),
    ``on_illegal`` (raise, penalty, random_legal), ``max_rounds`` (round limit),
    ``config`` (env YAML path, :class:`EnvConfig` or :class:`RulesConfig`), ``turn_around``,
    ``four_opening_pit``, ``track`` and ``decks`` (paths relative to ``configs/lunatix``),
    ``auto_play`` (auto-play decisions with one legal action), ``shaping``
    (``{"progress": w, "damage": w}``), ``mask_in`` (``"observation"``: the Dict below;
    ``"info"``: the ``observation`` Box alone, the mask in ``infos[agent]["action_mask"]``).
    """

    metadata = {**TabletopAECEnv.metadata, "name": ENV_NAME}


class LunatixParallelEnv(_LunatixOptions, TabletopParallelEnv):
    """Lunatix Loop, parallel API (``lunatix_loop_v0``); options as :class:`raw_env`."""

    metadata = {**TabletopParallelEnv.metadata, "name": ENV_NAME}


class LunatixSingleAgentEnv(_LunatixOptions, SingleAgentView):
    """Lunatix Loop for one learner (``LunatixLoop-v0``): the other seats are bots.

    Options as :class:`raw_env` plus ``opponents`` (one policy or one per other seat;
    default random), ``learner_seat`` (a seat or ``"random"``), ``opponent_sampler``.
    ``auto_play`` defaults to True here. Observation ``Box(-1, 1, (D,))``, action
    ``Discrete(A)``; ``action_masks()`` gives the legal actions.
    """

    default_auto_play = True


def env(**kwargs: Any) -> pettingzoo.AECEnv:
    """The AEC env (:class:`raw_env`) with PettingZoo's call-order checks
    (:func:`tabletop.env_options.wrap_aec`)."""
    return wrap_aec(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> LunatixParallelEnv:
    """The parallel env."""
    return LunatixParallelEnv(**kwargs)


def single_agent_env(**kwargs: Any) -> LunatixSingleAgentEnv:
    """The Gymnasium single-agent view."""
    return LunatixSingleAgentEnv(**kwargs)


_SINGLE_DOC_TABLES = """

    **Observation**: ``Box(-1, 1, (D,), float32)``, the learner's view (the same vector as
    the multi-agent envs' ``observation``); the mask comes from ``action_masks()`` and
    ``info["action_mask"]``. D = {D} and A = {A} for the default four-player game.

    **Action**: ``Discrete(A)``

    | index | meaning |
    |---|---|
    | 0 | NOOP (never legal for the learner: it is only asked when it decides) |
    | 1..A-1 | ``game.int_to_action(i)``: every decision of the game (list in the docs) |
"""


def _add_tables() -> None:
    adapter = make_adapter()
    sizes = {"D": adapter.observation_size(), "A": adapter.num_actions}
    for cls in (raw_env, LunatixParallelEnv):
        cls.__doc__ = (cls.__doc__ or "") + _DOC_TABLES.format(**sizes)
    LunatixSingleAgentEnv.__doc__ = (LunatixSingleAgentEnv.__doc__ or "") + (
        _SINGLE_DOC_TABLES.format(**sizes)
    )


def register_envs() -> None:
    """Register ``LunatixLoop-v0`` with PettingZoo (aec, parallel) and Gymnasium."""
    ENTRY.register_envs()


_add_tables()
register_envs()


def replay_game(config: dict[str, Any]) -> tuple[Game, LunatixAdapter]:
    """The game and adapter of a record's ``config`` (for ``python -m tabletop.replay``)."""
    game = Game.from_config_dict(config) if config else Game()
    return game, LunatixAdapter(game, load_env_config())
