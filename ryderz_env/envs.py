"""Lazer Ryderz as PettingZoo AEC and parallel envs and a Gymnasium single-agent view.

``ryderz_env.env()``, ``ryderz_env.parallel_env()``, ``ryderz_env.raw_env`` and
``ryderz_env.single_agent_env()`` come from here (the package imports them lazily, so the
rules engine never pulls in gymnasium or pettingzoo). Importing this module registers
``LazerRyderz-v0`` with PettingZoo (aec and parallel) and with Gymnasium (the single-agent
view); ``gymnasium.make("ryderz_env.envs:LazerRyderz-v0")`` imports it on demand.

Three action modes (``shared/DESIGN.md``, "Lazer Ryderz specifics") and two observation
modes; the tables of every space are in :class:`raw_env`'s docstring.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pettingzoo
from gymnasium import spaces

from ryderz_env.encode import VectorEncoder
from ryderz_env.raster import ImageEncoder
from ryderz_env.rules import Action, ActionKind, Game, RulesConfig, State
from ryderz_env.rules.config import CONFIG_DIR, load_rules, table_path
from ryderz_env.spaces import DiscreteLayout, HybridActionSpace
from tabletop.config import from_mapping, load_yaml
from tabletop.env_aec import TabletopAECEnv
from tabletop.env_core import GameAdapter, as_index
from tabletop.env_options import AdapterOptions, wrap_aec
from tabletop.env_parallel import TabletopParallelEnv
from tabletop.env_single import SingleAgentView
from tabletop.errors import ConfigError
from tabletop.registry import GAMES

ENTRY = GAMES["ryderz"]  # the game registry's entry: names, modules, configs
ENV_NAME = ENTRY.env_name
IMAGE_CHANNELS = ImageEncoder.channels
ENV_ID = ENTRY.env_id
DEFAULT_ENV_CONFIG = CONFIG_DIR / "env.yaml"


class ActionMode(enum.Enum):
    """How an agent's action is given (``action_mode``)."""

    HYBRID = "hybrid"  # Dict(discrete: Discrete(A), x: Box(-1, 1, (1,)))
    BOX = "box"  # Box(-1, 1, (A + 1,)): a score per discrete option, then x
    DISCRETE = "discrete"  # Discrete(K): Launch Points snapped to a grid or aimed at Prizms


class ObsMode(enum.Enum):
    """What an agent observes (``obs_mode``)."""

    VECTOR = "vector"  # the table as a float vector (ryderz_env.encode)
    IMAGE = "image"  # a top-down raster around the observer's head (ryderz_env.raster)


@dataclass(frozen=True)
class Shaping:
    """Optional shaping weights (all 0 = zero-sum terminal rewards only)."""

    prizms: float = 0.0
    crash: float = 0.0


@dataclass(frozen=True)
class EnvConfig:
    """The env options of ``configs/ryderz/env.yaml``."""

    rules: str = "rules.yaml"
    action_mode: str = "hybrid"
    obs_mode: str = "vector"
    launch_positions: int = 36
    num_rays: int = 16
    recent_pieces: int = 6
    image_size: int = 64
    auto_play: bool = False
    on_illegal: str = "raise"
    illegal_penalty: float = -1.0
    shaping: Shaping = field(default_factory=Shaping)
    base_dir: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for name, enum_cls in (("action_mode", ActionMode), ("obs_mode", ObsMode)):
            value = getattr(self, name)
            if value not in {m.value for m in enum_cls}:
                raise ConfigError(f"{name} {value!r} is not one of {[m.value for m in enum_cls]}")
        if self.launch_positions < 2:
            raise ConfigError(f"launch_positions must be at least 2, got {self.launch_positions}")
        if self.image_size < 8:
            raise ConfigError(f"image_size must be at least 8, got {self.image_size}")


def load_env_config(path: str | Path | None = None) -> EnvConfig:
    """Load an env YAML (default ``configs/ryderz/env.yaml``)."""
    p = Path(path) if path is not None else DEFAULT_ENV_CONFIG
    data = load_yaml(p)
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping")
    return from_mapping(EnvConfig, {**data, "base_dir": str(p.resolve().parent)}, str(p))


class RyderzAdapter(GameAdapter):
    """Connects the Lazer Ryderz engine to the generic envs, in one action mode and one
    observation mode."""

    env_name = ENV_NAME

    def __init__(self, game: Game, env_config: EnvConfig) -> None:
        self.game = game
        self.env_config = env_config
        self.action_mode = ActionMode(env_config.action_mode)
        self.obs_mode = ObsMode(env_config.obs_mode)
        self._build_encoders()
        self.image_shape = (len(IMAGE_CHANNELS), env_config.image_size, env_config.image_size)
        self.codec = game.codec
        self.layout = (
            DiscreteLayout(game, env_config.launch_positions, self.vector.prizm_slots)
            if self.action_mode is ActionMode.DISCRETE
            else None
        )
        self.mask_key = "legal_mask" if self.action_mode is ActionMode.BOX else "action_mask"
        self._shaping = env_config.shaping

    def _build_encoders(self) -> None:
        cfg = self.env_config
        self.vector = VectorEncoder(self.game, cfg.num_rays, cfg.recent_pieces)
        self.image: Any = (
            ImageEncoder(self.game, cfg.image_size) if self.obs_mode is ObsMode.IMAGE else None
        )
        self._painter: Any = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the encoders and painter (caches, rebuilt on unpickling)."""
        data = dict(self.__dict__)
        for key in ("vector", "image", "_painter"):
            data.pop(key, None)
        return data

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__dict__.update(data)
        self._build_encoders()

    # ------------------------------------------------------------------ spaces
    @property
    def num_actions(self) -> int:
        """Length of the action mask: the codec's discrete actions (hybrid, box) or the
        discrete mode's flat index space."""
        return self.layout.size if self.layout is not None else len(self.codec)

    def observation_size(self) -> int:
        """Length of the observation (the vector; the raster's flattened size)."""
        if self.image is not None:
            return int(np.prod(self.image_shape))
        return self.vector.size

    def observation_space(self) -> spaces.Dict:
        """``{"observation": Box, mask_key: Box(int8)}``; the image mode's observation is a
        ``uint8`` raster (channels first)."""
        if self.image is None:
            return super().observation_space()
        return spaces.Dict(
            {
                "observation": spaces.Box(0, 255, self.image_shape, np.uint8),
                self.mask_key: spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )

    def action_space(self) -> spaces.Space:
        """The action space of the mode (see :class:`raw_env`)."""
        if self.action_mode is ActionMode.HYBRID:
            return HybridActionSpace(len(self.codec))
        if self.action_mode is ActionMode.BOX:
            return spaces.Box(-1.0, 1.0, (len(self.codec) + 1,), np.float32)
        return spaces.Discrete(self.num_actions)

    # ------------------------------------------------------------------ observations
    def encode(self, state: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` in the observation mode."""
        if self.image is not None:
            return self.image.encode(state, seat)
        return self.vector.encode(state, seat)

    def state_size(self) -> int:
        """Length of the global state vector."""
        return self.vector.size

    def state_vector(self, state: State) -> np.ndarray:
        """The global state: seat 0's vector view (everything on the table is public; a
        simultaneous launch not yet revealed is not part of the state)."""
        return self.vector.encode(state, 0)

    # ------------------------------------------------------------------ actions
    def legal_ints(self, state: State, seat: int) -> list[int]:
        """The legal mask indices of ``seat``."""
        if self.layout is not None:
            return self.layout.legal(state, seat)
        return state.legal_action_ints(seat)

    def decode_action(self, state: State, seat: int, index: int) -> Action:
        """The action of a legal index (hybrid and box: a Launch Point at x = 0)."""
        if self.layout is not None:
            return self.layout.decode(state, seat, index)
        return self.codec.actions[index]

    def nearest_index(self, state: State, seat: int, action: Any, legal: list[int]) -> int:
        """The legal index that plays ``action``; a Launch Point off the discrete mode's grid
        maps to the legal launch option of its gear nearest in position (grid or aim). In
        the other action modes an index does not place a Launch Point: launches have no
        index there (ValueError)."""
        if action.kind is not ActionKind.LAUNCH or self.layout is None:
            return super().nearest_index(state, seat, action, legal)
        best, best_d = None, math.inf
        for i in legal:
            if not self._is_launch(i):
                continue
            a = self.decode_action(state, seat, i)
            d = abs(a.x - action.x)
            if a.arg == action.arg and d < best_d:
                best, best_d = i, d
        if best is None:
            raise ValueError(f"{action!r}: no legal Launch Point of gear {action.arg}")
        return best

    def _is_launch(self, index: int) -> bool:
        if self.layout is not None:  # the discrete mode's launch indices come last
            return index >= self.layout.launch_base
        return self.codec.actions[index].kind is ActionKind.LAUNCH

    def to_engine(self, state: State, seat: int, action: Any, legal: list[int]) -> Any:
        """The game action of an env action in the mode, or None when it is illegal."""
        mode = self.action_mode
        if mode is ActionMode.DISCRETE:
            return super().to_engine(state, seat, action, legal)
        if mode is ActionMode.HYBRID:
            if not isinstance(action, Mapping) or set(action) != {"discrete", "x"}:
                return None
            index = as_index(action["discrete"])
            if index is None or index not in legal:
                return None
            a = self.codec.actions[index]
            if a.kind is not ActionKind.LAUNCH:  # x only places a Launch Point
                return a
            x = _as_position(action["x"])
        else:
            v = _as_vector(action, len(self.codec) + 1)
            if v is None or np.abs(v).max() > 1.0:
                return None
            scores = v[legal]
            index = legal[int(np.argmax(scores))]
            x = float(v[-1])
        a = self.codec.actions[index]
        if a.kind is not ActionKind.LAUNCH:
            return a
        if x is None or not -1.0 <= x <= 1.0:
            return None
        return Action.launch(a.arg, x)

    def random_action(
        self, state: State, seat: int, legal: list[int], rng: np.random.Generator
    ) -> Any:
        """A uniformly random legal action (a Launch Point anywhere in reach)."""
        if self.layout is not None:
            return super().random_action(state, seat, legal, rng)
        index = legal[int(rng.integers(len(legal)))]
        a = self.codec.actions[index]
        return (
            Action.launch(a.arg, float(rng.uniform(-1.0, 1.0)))
            if (a.kind is ActionKind.LAUNCH)
            else a
        )

    def forced_action(self, state: State, seat: int, legal: list[int]) -> Any:
        """The only legal action; a launch is never forced (its position is a choice)."""
        if len(legal) != 1 or self._is_launch(legal[0]):
            return None
        return self.decode_action(state, seat, legal[0])

    def random_env_action(self, mask: np.ndarray, rng: np.random.Generator) -> Any:
        """A uniformly random legal env action of the mode."""
        if self.action_mode is ActionMode.DISCRETE:
            return super().random_env_action(mask, rng)
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("the action mask allows no action")
        if self.action_mode is ActionMode.HYBRID:
            index = int(legal[int(rng.integers(len(legal)))])
            return {"discrete": index, "x": np.array([rng.uniform(-1.0, 1.0)], dtype=np.float32)}
        return rng.uniform(-1.0, 1.0, len(self.codec) + 1).astype(np.float32)

    def describe_illegal(self, state: State, seat: int, action: Any, legal: list[int]) -> str:
        """What was wrong with ``action`` and what the mode allows."""
        choices = ", ".join(f"{i} ({self.decode_action(state, seat, i)})" for i in legal)
        if self.action_mode is ActionMode.DISCRETE:
            return f"action {action!r} is not legal for player_{seat}; legal: {choices}"
        who = f"action {action!r} for player_{seat}"
        if self.action_mode is ActionMode.BOX:
            n = len(self.codec) + 1
            return (
                f"{who}: {_box_problem(action, n)}; it must be {n} finite scores in "
                f"[-1, 1] (one per discrete option, then the Launch Point position)"
            )
        if not isinstance(action, Mapping) or set(action) != {"discrete", "x"}:
            got = f" (got keys {sorted(map(str, action))})" if isinstance(action, Mapping) else ""
            return (
                f"{who} must be a dict with exactly the keys 'discrete' and 'x'{got}: "
                f"{{'discrete': index, 'x': [position in -1..1]}}"
            )
        index = as_index(action["discrete"])
        if index is None:
            return (
                f"{who}: 'discrete' must be an integer index (not a bool or a fraction), "
                f"got {action['discrete']!r}; legal indices: {choices}"
            )
        if index not in legal:
            return f"{who}: index {index} is not legal now; legal indices: {choices}"
        x = _as_position(action["x"])  # a launch (to_engine ignores x elsewhere)
        if x is None:
            return (
                f"{who}: 'x' must be one finite number in [-1, 1] (the Launch Point "
                f"position), got {action['x']!r}"
            )
        reason = state.illegal_reason(seat, Action.launch(self.codec.actions[index].arg, x))
        return f"{who}: {reason}"

    # ------------------------------------------------------------------ rewards
    def shaping_enabled(self) -> bool:
        """Whether any shaping weight is non-zero."""
        return self._shaping.prizms != 0.0 or self._shaping.crash != 0.0

    def shaping(self, before: State, after: State) -> np.ndarray | None:
        """Prizms of one's colour gained (lost: subtracted) and crashes caused, weighted.

        A crash is seen as a Lazer that was on the table before and is gone after (the
        crasher removes all of its pieces; a victim keeps its front piece).
        """
        out = np.zeros(self.num_players, dtype=np.float64)
        w = self._shaping
        for seat in range(self.num_players):
            gained = after.score(seat) - before.score(seat)
            crashed = before.players[seat].head is not None and after.players[seat].head is None
            out[seat] = w.prizms * gained - w.crash * crashed
        return out

    # ------------------------------------------------------------------ rendering
    def render_ansi(self, state: State) -> str:
        """The state in text."""
        from ryderz_env.render import render_ansi

        return render_ansi(state)

    def render_rgb(self, state: State) -> np.ndarray:
        """The table to scale as a picture."""
        if self._painter is None:
            from ryderz_env.render import TablePainter

            self._painter = TablePainter(self.game, panel=True)
        return self._painter.paint(state)

    def make_viewer(self) -> Any:
        """A window for ``render_mode="human"`` (headless machines get a silent one)."""
        from tabletop.viewer import HumanViewer

        return HumanViewer("Lazer Ryderz")


def _as_position(value: Any) -> float | None:
    """One finite number (a Launch Point position), or None."""
    v = _as_vector(value, 1)
    return None if v is None else float(v[0])


def _as_vector(value: Any, n: int) -> np.ndarray | None:
    """``n`` finite numbers (shape ``(n,)``; a bare number when ``n`` is 1) as float64, or
    None (strings, bools and other shapes are not accepted)."""
    if isinstance(value, str | bytes | Mapping):
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if arr.dtype.kind not in "iuf":  # integers or floats (not bools, complex or objects)
        return None
    if arr.shape != (n,) and not (n == 1 and arr.shape == ()):
        return None
    v = arr.astype(np.float64).reshape(-1)
    return v if np.isfinite(v).all() else None


def _box_problem(value: Any, n: int) -> str:
    """What keeps ``value`` from being a box-mode action of ``n`` entries."""
    try:
        arr = None if isinstance(value, str | bytes | Mapping) else np.asarray(value)
    except (TypeError, ValueError):
        arr = None
    if arr is None or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        return f"must be {n} numbers, not {type(value).__name__}"
    if arr.shape != (n,):
        return f"shape {arr.shape}, expected ({n},)"
    v = arr.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(v))
    if len(bad):
        return f"values not finite at {bad.tolist()}"
    return f"values outside [-1, 1] at {np.flatnonzero(np.abs(v) > 1.0).tolist()}"


def make_adapter(
    num_players: int | None = None,
    max_rounds: int | None = None,
    config: str | Path | EnvConfig | RulesConfig | None = None,
    table: str | None = None,
    powers: bool | None = None,
    action_mode: str | None = None,
    obs_mode: str | None = None,
    launch_positions: int | None = None,
    image_size: int | None = None,
    shaping: Mapping[str, float] | Shaping | None = None,
) -> RyderzAdapter:
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
        ("table", table),
        ("powers", powers),
    ):
        if value is not None:
            overrides[key] = value
    if isinstance(rules_source, RulesConfig):
        if "table" in overrides:
            overrides["table"] = table_path(overrides["table"])
        rules = replace(rules_source, **overrides) if overrides else rules_source
    else:
        rules = load_rules(rules_source, **overrides)
    env_overrides: dict[str, Any] = {}
    for key, value in (
        ("action_mode", action_mode),
        ("obs_mode", obs_mode),
        ("launch_positions", launch_positions),
        ("image_size", image_size),
    ):
        if value is not None:
            env_overrides[key] = value
    if shaping is not None:
        env_overrides["shaping"] = (
            shaping
            if isinstance(shaping, Shaping)
            else from_mapping(Shaping, dict(shaping), "<shaping>")
        )
    if env_overrides:
        env_config = replace(env_config, **env_overrides)
    return RyderzAdapter(Game(rules), env_config)


class _RyderzOptions(AdapterOptions):
    """Builds the Lazer Ryderz game and adapter from keyword options (see :class:`raw_env`)."""

    make_adapter = staticmethod(make_adapter)


_DOC_SYMBOLS = """

    D = {D}, A = {A}, K = {K}, C = {C} and S = {S} for the default four-player game
    (``docs/lazer_ryderz_env.md`` lists every slot and channel).
"""

_DOC_OBSERVATIONS = """
    **Observation** (``obs_mode="vector"``, the default): ``Dict``

    | key | space | content |
    |---|---|---|
    | ``observation`` | ``Box(-1, 1, (D,), float32)`` | decision, poses, Prizms, rays, pieces |
{masks}

    **Observation** (``obs_mode="image"``): ``Dict``

    | key | space | content |
    |---|---|---|
    | ``observation`` | ``Box(0, 255, (C, S, S), uint8)`` | raster around the head |
{masks}"""

_DOC_MASKS = """\
    | ``action_mask`` | ``Box(0, 1, (A,), int8)`` | 1 = legal (``action_mode="hybrid"``) |
    | ``legal_mask`` | ``Box(0, 1, (A,), int8)`` | 1 = legal (``action_mode="box"``) |
    | ``action_mask`` | ``Box(0, 1, (K,), int8)`` | 1 = legal (``action_mode="discrete"``) |
"""

_DOC_SINGLE_OBSERVATIONS = """
    **Observation** (``obs_mode="vector"``, the default): ``Box(-1, 1, (D,), float32)``, the
    learner's ``observation`` of the multi-agent envs.

    **Observation** (``obs_mode="image"``): ``Box(0, 255, (C, S, S), uint8)``.
"""

_DOC_ACTIONS = """
    **Action** (``action_mode="hybrid"``, the default): ``Dict``

    | key | space | meaning |
    |---|---|---|
    | ``discrete`` | ``Discrete(A)`` | the decision: ``game.int_to_action(i)``, NOOP at 0 |
    | ``x`` | ``Box(-1, 1, (1,), float32)`` | Launch Point position in reach |

    **Action** (``action_mode="box"``): ``Box(-1, 1, (A+1,), float32)``

    | index | meaning |
    |---|---|
    | 0..A-1 | a score per discrete option; the legal one scoring highest is played |
    | A | the Launch Point position (launches only) |

    **Action** (``action_mode="discrete"``): ``Discrete(K)``

    | index | meaning |
    |---|---|
    | 0 | NOOP (only legal for an agent that is not deciding) |
    | 1..K-1 | decisions, then per gear K grid + aim slots |
"""


class raw_env(_RyderzOptions, TabletopAECEnv):  # noqa: N801 - PettingZoo naming convention
    """Lazer Ryderz, AEC API (``lazer_ryderz_v0``).

    Keyword options: ``num_players`` (2-4), ``table`` (a preset: standard, small, large,
    rectangle, hexagon, long; or a table YAML path), ``powers`` (Power Prizms on or off),
    ``action_mode`` (hybrid, box, discrete), ``obs_mode`` (vector, image),
    ``launch_positions`` (discrete mode's grid, K >= 36 by default), ``image_size``,
    ``render_mode`` (ansi, rgb_array, human), ``on_illegal`` (raise, penalty,
    random_legal), ``max_rounds`` (round limit), ``shaping`` (``{"prizms": w, "crash": w}``),
    ``auto_play`` (auto-play decisions with one legal action), ``config`` (env YAML path,
    :class:`EnvConfig` or the engine's ``RulesConfig``), ``mask_in`` (``"observation"``: the
    Dict below; ``"info"``: the ``observation`` Box alone, the mask in ``infos[agent]``).
    """

    metadata = {**TabletopAECEnv.metadata, "name": ENV_NAME}


class RyderzParallelEnv(_RyderzOptions, TabletopParallelEnv):
    """Lazer Ryderz, parallel API (``lazer_ryderz_v0``); options as :class:`raw_env`.

    Start Your Engines is simultaneous (every seat sends its gear and Launch Point in one
    step); every other decision has one decider and NOOP for the rest.
    """

    metadata = {**TabletopParallelEnv.metadata, "name": ENV_NAME}


class RyderzSingleAgentEnv(_RyderzOptions, SingleAgentView):
    """Lazer Ryderz for one learner (``LazerRyderz-v0``): the other seats are bots.

    Options as :class:`raw_env` plus ``opponents`` (one policy or one per other seat;
    default random legal play in the same action mode), ``learner_seat`` (a seat or
    ``"random"``), ``opponent_sampler``. ``auto_play`` defaults to True here. The
    observation is the multi-agent envs' ``observation`` entry; ``action_masks()`` (and
    ``info[mask key]``) give the mask: of the whole action in ``discrete`` mode, of the
    discrete part in ``hybrid`` and ``box`` modes.
    """

    default_auto_play = True


def env(**kwargs: Any) -> pettingzoo.AECEnv:
    """The AEC env (:class:`raw_env`) with PettingZoo's call-order checks
    (:func:`tabletop.env_options.wrap_aec`)."""
    return wrap_aec(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> RyderzParallelEnv:
    """The parallel env."""
    return RyderzParallelEnv(**kwargs)


def single_agent_env(**kwargs: Any) -> RyderzSingleAgentEnv:
    """The Gymnasium single-agent view."""
    return RyderzSingleAgentEnv(**kwargs)


def doc_sizes() -> dict[str, int]:
    """The symbols of the docstring tables for the default four-player game."""
    default = make_adapter()
    discrete = make_adapter(action_mode="discrete")
    return {
        "D": default.observation_size(),
        "A": default.num_actions,
        "K": discrete.num_actions,
        "C": len(IMAGE_CHANNELS),
        "S": default.env_config.image_size,
    }


def _add_tables() -> None:
    symbols = _DOC_SYMBOLS.format(**doc_sizes())
    for cls in (raw_env, RyderzParallelEnv):
        cls.__doc__ = (
            (cls.__doc__ or "")
            + symbols
            + _DOC_OBSERVATIONS.format(masks=_DOC_MASKS)
            + _DOC_ACTIONS
        )
    RyderzSingleAgentEnv.__doc__ = (
        (RyderzSingleAgentEnv.__doc__ or "") + symbols + _DOC_SINGLE_OBSERVATIONS + _DOC_ACTIONS
    )


def register_envs() -> None:
    """Register ``LazerRyderz-v0`` with PettingZoo (aec, parallel) and Gymnasium."""
    ENTRY.register_envs()


_add_tables()
register_envs()


def replay_game(config: dict[str, Any]) -> tuple[Game, RyderzAdapter]:
    """The game and adapter of a record's ``config`` (for ``python -m tabletop.replay``)."""
    game = Game.from_config_dict(config) if config else Game()
    return game, RyderzAdapter(game, load_env_config())
