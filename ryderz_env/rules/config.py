"""Lazer Ryderz configs: rules, pieces and tables as frozen dataclasses loaded from YAML."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tabletop.config import from_mapping, load_config, load_yaml, shipped_configs
from tabletop.errors import ConfigError
from tabletop.gamebase import RulesFiles

CONFIG_DIR = shipped_configs("ryderz")
DEFAULT_RULES = CONFIG_DIR / "rules.yaml"


class Character(enum.Enum):
    """The four Ryderz; with Power Prizms on, each has its power."""

    LAZER_SHARK = "lazer_shark"
    SUPER_SHERIFF = "super_sheriff"
    GALACTIC_WAVERYDER = "galactic_waveryder"
    PHANTOM_COSMONAUT = "phantom_cosmonaut"


class PieceKind(enum.IntEnum):
    """A Lazer piece's shape (LAUNCH is a Launch Point token)."""

    STRAIGHT = 0
    SOFT = 1
    HARD = 2
    LAUNCH = 3


@dataclass(frozen=True)
class Turn:
    """A curve piece: its turn angle (degrees) and centreline radius (inches)."""

    angle: float
    radius: float


@dataclass(frozen=True)
class Supply:
    """Pieces of one gear each player owns."""

    straight: int
    soft: int
    hard: int


@dataclass(frozen=True)
class GearPieces:
    """The pieces of one gear."""

    gear: int
    straight: float
    soft: Turn | None
    hard: Turn | None
    supply: Supply

    def count(self, kind: PieceKind) -> int:
        """Pieces of ``kind`` in this gear's supply (0 where the gear has no such shape)."""
        if kind is PieceKind.STRAIGHT:
            return self.supply.straight
        turn = self.soft if kind is PieceKind.SOFT else self.hard
        return (
            0
            if turn is None
            else (self.supply.soft if kind is PieceKind.SOFT else self.supply.hard)
        )


@dataclass(frozen=True)
class PiecesConfig:
    """Every piece shape and the per-player supply (``configs/ryderz/pieces.yaml``)."""

    width: float
    tip: float
    arc_max_sagitta: float
    gears: tuple[GearPieces, ...]

    def __post_init__(self) -> None:
        if [g.gear for g in self.gears] != list(range(1, len(self.gears) + 1)):
            raise ValueError("gears must be listed in order 1, 2, 3, ...")
        for g in self.gears:
            for name, turn in (("soft", g.soft), ("hard", g.hard)):
                if turn is not None and not (0 < turn.angle < 180 and turn.radius > self.width / 2):
                    raise ValueError(
                        f"gear {g.gear} {name}: need 0 < angle < 180 and "
                        f"radius > width/2 = {self.width / 2}"
                    )
        if not (0 < self.tip and 0 < self.width and 0 < self.arc_max_sagitta):
            raise ValueError("width, tip and arc_max_sagitta must be positive")


#: the largest ``joint_tolerance`` (inches; pieces are an inch wide, the default is 1e-5)
MAX_JOINT_TOLERANCE = 0.01
#: the most steps of ``launch_search_step`` along the table's edge (the search for a clear
#: place to relaunch scans half the perimeter each way; a tiny step made it run for hours)
MAX_LAUNCH_SEARCH_STEPS = 20_000

#: the most evenly spaced Launch Points a launch decision may list per gear (a config with
#: millions made every launch decision, and so a replay, run for minutes)
MAX_LAUNCH_SPREAD = 1000


@dataclass(frozen=True)
class LaunchPointSize:
    """The Launch Point token: back corners on the edge, its front a point."""

    width: float
    depth: float


@dataclass(frozen=True)
class TableConfig:
    """A table: a circle (``diameter``) or a simple polygon (``polygon`` vertices)."""

    name: str
    shape: str
    diameter: float
    polygon: tuple[tuple[float, float], ...]
    first_seat: float
    reach: float
    launch_point: LaunchPointSize

    def __post_init__(self) -> None:
        if self.shape == "circle":
            if self.diameter <= 0:
                raise ValueError("a circle table needs a positive diameter")
        elif self.shape == "polygon":
            if len(self.polygon) < 3:
                raise ValueError("a polygon table needs at least 3 vertices")
        else:
            raise ValueError(f"shape must be 'circle' or 'polygon', got {self.shape!r}")
        if not 0 < self.reach <= 1:
            raise ValueError("reach is a fraction of the perimeter in (0, 1]")


@dataclass(frozen=True)
class OddTable:
    """The rulebook's options for oddly shaped tables (all off in the standard game)."""

    toss_start_prizms: bool  # each player tosses a starting Prizm instead of the central group
    start_far_sides: bool  # Launch Points only on the sides furthest from the centre
    large_far_sides: bool  # the large-table bonus, but only from those sides
    #: the small-table rule, and the 5th-gear straights laid as an edge that makes a long
    #: table square (``geometry.squared_table``); optional in files, for older records
    square_edge: bool = False


@dataclass(frozen=True)
class RulesConfig(RulesFiles):
    """Everything that parameterizes a Lazer Ryderz game (``configs/ryderz/rules.yaml``)."""

    config_dir: ClassVar[Path] = CONFIG_DIR

    num_players: int
    table: str
    pieces: str
    powers: bool
    characters: tuple[Character, ...]
    colours: tuple[str, ...]
    round_limit: int
    win_prizms: int
    win_reward: float
    prizm_radius: float
    start_prizm_radius: float
    slide_back: float
    nudge_clearance: float
    launch_noise_sigma: float
    launch_spread: int
    launch_search_step: float
    max_redos: int
    die_faces: tuple[int, ...]
    touch_tolerance: float
    joint_tolerance: float
    min_part_area: float
    small_table_below: float
    large_table_above: float
    odd_table: OddTable
    base_dir: str = ""

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 2-4, got {self.num_players}")
        if len(self.characters) < self.num_players or len(self.colours) < self.num_players:
            raise ValueError("characters and colours need an entry per seat")
        if len(set(self.characters[: self.num_players])) != self.num_players:
            raise ValueError("each seat needs its own character")
        if self.launch_spread < 1 or self.round_limit < 1 or self.win_prizms < 1:
            raise ValueError("launch_spread, round_limit and win_prizms must be positive")
        if self.launch_spread > MAX_LAUNCH_SPREAD:
            # every launch decision lists launch_spread Launch Points per gear
            raise ValueError(
                f"launch_spread must be at most {MAX_LAUNCH_SPREAD}, got {self.launch_spread}"
            )
        if self.launch_noise_sigma < 0 or self.launch_search_step <= 0:
            raise ValueError("launch_noise_sigma >= 0 and launch_search_step > 0 required")
        if not self.die_faces or any(f < 0 for f in self.die_faces):
            raise ValueError("die_faces: gear numbers, 0 for Spin Out")
        if not 0 < self.touch_tolerance < self.joint_tolerance <= MAX_JOINT_TOLERANCE:
            # (a huge joint tolerance made every contact a joint: its search ran forever)
            raise ValueError(
                f"need 0 < touch_tolerance < joint_tolerance <= {MAX_JOINT_TOLERANCE} in "
                f"(contact that near a joint is the joint itself), got {self.touch_tolerance} "
                f"and {self.joint_tolerance}"
            )


def load_rules(path: str | Path | None = None, **overrides: object) -> RulesConfig:
    """Load a rules YAML (default ``configs/ryderz/rules.yaml``) with top-level overrides.

    ``table`` may be a preset name (``"small"``, ``"large"``, ``"rectangle"``...) or a path.
    """
    p = Path(path) if path is not None else DEFAULT_RULES
    data = load_yaml(p)
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping at the top level")
    data = {**data, **overrides}
    table = data.get("table")
    if isinstance(table, str):
        data["table"] = table_path(table)
    data.setdefault("base_dir", str(p.resolve().parent))
    return from_mapping(RulesConfig, data, source=str(p))


def table_path(table: str) -> str:
    """A table preset name (``"small"``) as its path ``tables/small.yaml``; paths as given."""
    if "/" not in table and not table.endswith(".yaml"):
        return f"tables/{table}.yaml"
    return table


def load_pieces(rules: RulesConfig) -> PiecesConfig:
    """The pieces file named by ``rules.pieces``."""
    return load_config(PiecesConfig, rules.resolve(rules.pieces))


def pieces_from_data(data: Any, source: str) -> PiecesConfig:
    """The pieces of parsed YAML ``data`` (from ``source``, named in errors)."""
    return from_mapping(PiecesConfig, data, source=source)


def load_table(rules: RulesConfig) -> TableConfig:
    """The table file named by ``rules.table``."""
    return load_config(TableConfig, rules.resolve(rules.table))


def table_from_data(data: Any, source: str) -> TableConfig:
    """The table of parsed YAML ``data`` (from ``source``, named in errors)."""
    return from_mapping(TableConfig, data, source=source)


def turn_radians(turn: Turn) -> float:
    """A curve's turn angle in radians."""
    return math.radians(turn.angle)
