"""Rules configuration of Lunatix Loop: frozen dataclasses loaded from YAML.

Every number of ``shared/rules/lunatix_loop.md`` lives in ``configs/lunatix/``; the engine
reads it from these dataclasses and never from constants in code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tabletop.config import from_mapping, load_yaml, shipped_configs
from tabletop.errors import ConfigError
from tabletop.gamebase import RulesFiles

#: Directory of the shipped Lunatix Loop configs.
CONFIG_DIR = shipped_configs("lunatix")
DEFAULT_RULES = CONFIG_DIR / "rules.yaml"
#: the most chips a player may take (the chip-mix decision lists every (tacks, oil, glue) mix
#: of that many: (n+1)(n+2)/2 actions; a record's config of a million chips ran out of memory)
MAX_CHIPS_PER_PLAYER = 100
#: the most squares a car may move in one turn (speed / speed_per_square; each square is a
#: step of the engine: a speed cap of a billion made one turn run for hours)
MAX_SQUARES_PER_TURN = 200
#: the most hazard cards one speed check may draw (ceil(turbo_speed_cap / mph_per_hazard_card);
#: a huge cap with 1 mph per card drew millions)
MAX_HAZARD_CARDS_PER_CHECK = 100
#: the most damage dice one roll may have (a roll's exact distribution takes ~dice^2 steps:
#: a million dice in a record's config made its replay hang)
MAX_DICE = 100


class HazardEffect(enum.Enum):
    """What a hazard card does when applied."""

    __hash__ = object.__hash__  # members are singletons; C-level hashing is faster

    DAMAGE = "damage"
    SKID = "skid"
    BRAKE = "brake"
    NONE = "none"
    LUNACY = "lunacy"
    LOSE_LUCK = "lose_luck"


class Lunacy(enum.Enum):
    """Kept lunacies and the card restriction each imposes."""

    __hash__ = object.__hash__  # members are singletons; C-level hashing is faster

    ROAD_RAGE = "road_rage"
    LEAD_FOOT = "lead_foot"
    SPEED_FREAK = "speed_freak"
    CHICKEN = "chicken"
    HOARDER = "hoarder"
    TUNNEL_VISION = "tunnel_vision"


class GadgetEffect(enum.Enum):
    """The ten gadget effects; numbered ones are played as action cards."""

    __hash__ = object.__hash__  # members are singletons; C-level hashing is faster

    CHARGER = "charger"
    ROCKET = "rocket"
    BATTERING_RAM = "battering_ram"
    ARMOR = "armor"
    ROLL_CAGE = "roll_cage"
    RACING_TIRES = "racing_tires"
    POWER_BRAKES = "power_brakes"
    FUZZY_DICE = "fuzzy_dice"
    SHRINKS_CARD = "shrinks_card"
    FIRE_EXTINGUISHER = "fire_extinguisher"


NUMBERED_GADGETS = (GadgetEffect.CHARGER, GadgetEffect.ROCKET, GadgetEffect.BATTERING_RAM)


@dataclass(frozen=True)
class HazardCard:
    """One kind of hazard card and how many the deck holds."""

    name: str
    count: int
    effect: HazardEffect
    dice: int = 0
    amount: int = 0
    lunacy: Lunacy | None = None


@dataclass(frozen=True)
class TurboCard:
    """One kind of turbo card: speed gained, explosion dice, whether it reshuffles the deck."""

    name: str
    count: int
    amount: int
    dice: int = 0
    reshuffle: bool = False


@dataclass(frozen=True)
class Gadget:
    """One gadget card (each is unique in the deck)."""

    name: str
    effect: GadgetEffect
    card_number: int | None = None
    amounts: tuple[int, ...] = ()
    amount: int = 0


@dataclass(frozen=True)
class Decks:
    """The three decks."""

    hazard: tuple[HazardCard, ...]
    turbo: tuple[TurboCard, ...]
    gadgets: tuple[Gadget, ...]


@dataclass(frozen=True)
class RamDice:
    """Damage dice (rammer, target) for each kind of ram."""

    sideswipe: tuple[int, int]
    rear_end: tuple[int, int]
    head_on: tuple[int, int]
    involuntary: tuple[int, int]
    battering_ram_extra: int


@dataclass(frozen=True)
class ChipEffects:
    """What entering a square with a chip does."""

    tacks_dice: int
    oil_cards: int
    glue_speed_loss: int


@dataclass(frozen=True)
class SkidRules:
    """Skid outcomes."""

    wall_dice: int
    car_dice: tuple[int, int]
    pit_wall_dice: int


@dataclass(frozen=True)
class PitRules:
    """The pit shop."""

    points: int
    repair_cost: int
    repair_amount: int
    gadget_cost: int
    gadget_offer: int
    chip_cost: int
    chip_cap: int
    counseling_cost: int


@dataclass(frozen=True)
class TurnAroundRules:
    """The optional Turn Around card."""

    enabled: bool
    uturn_curve_speed: int
    uturn_speed: int
    bootleg_min_speed: int
    bootleg_curve_speed: int
    bootleg_speed: int


@dataclass(frozen=True)
class CardNumbers:
    """Numbers printed on the action cards; they set the turn order."""

    ram: int
    brake: int
    drop: int
    accelerate: int
    turn_around: int


@dataclass(frozen=True)
class RulesConfig(RulesFiles):
    """Everything that parameterizes a Lunatix Loop game."""

    config_dir: ClassVar[Path] = CONFIG_DIR

    num_players: int
    track: str
    decks: str
    laps: int
    round_limit: int
    start_speed: int
    max_speed: int
    turbo_speed_cap: int
    speed_per_square: int
    luck_chips: int
    chips_per_player: int
    chip_supply: tuple[int, int, int]
    card_numbers: CardNumbers
    brake_amounts: tuple[int, ...]
    accelerate_amounts: tuple[int, ...]
    damage_die_faces: tuple[int, ...]
    speed_loss_per_hit: int
    gadget_hand_limit: int
    rams: RamDice
    chips: ChipEffects
    skid: SkidRules
    pit: PitRules
    turn_around: TurnAroundRules
    four_opening_pit: bool
    win_reward: float
    mph_per_hazard_card: int
    max_drops: int
    curve_inward_cards: int
    min_players: int = 2
    max_players: int = 6
    base_dir: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.min_players <= self.num_players <= self.max_players:
            raise ValueError(
                f"num_players must be in {self.min_players}..{self.max_players}, "
                f"got {self.num_players}"
            )
        if self.speed_per_square <= 0:
            raise ValueError("speed_per_square must be positive")
        for name in ("laps", "round_limit", "mph_per_hazard_card", "max_drops"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in (
            "luck_chips",
            "chips_per_player",
            "gadget_hand_limit",
            "curve_inward_cards",
            "speed_loss_per_hit",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0, got {getattr(self, name)}")
        if not self.win_reward > 0:
            raise ValueError(f"win_reward must be positive, got {self.win_reward}")
        if any(a < 0 for a in self.accelerate_amounts) or any(b <= 0 for b in self.brake_amounts):
            raise ValueError("brake amounts must be positive, accelerate amounts at least 0")
        for name in ("start_speed", "max_speed", "turbo_speed_cap"):
            if getattr(self, name) % self.speed_per_square:
                raise ValueError(f"{name} must be a multiple of speed_per_square")
            if getattr(self, name) > MAX_SQUARES_PER_TURN * self.speed_per_square:
                raise ValueError(
                    f"{name} must be at most {MAX_SQUARES_PER_TURN} squares a turn "
                    f"({MAX_SQUARES_PER_TURN * self.speed_per_square} mph), got "
                    f"{getattr(self, name)}"
                )
        top = max(self.turbo_speed_cap, self.max_speed)
        if -(-top // self.mph_per_hazard_card) > MAX_HAZARD_CARDS_PER_CHECK:
            raise ValueError(
                f"mph_per_hazard_card must be at least {-(-top // MAX_HAZARD_CARDS_PER_CHECK)} "
                f"with a top speed of {top}: one speed check draws at most "
                f"{MAX_HAZARD_CARDS_PER_CHECK} hazard cards; got {self.mph_per_hazard_card}"
            )
        share = 3 * (min(self.chip_supply) // self.num_players)  # no kind runs out
        if self.chips_per_player > min(share, MAX_CHIPS_PER_PLAYER):
            raise ValueError(
                f"chips_per_player must be at most {MAX_CHIPS_PER_PLAYER} and at most 3 x "
                f"(the smallest chip_supply // num_players) = {share}, so that every seat can "
                f"take its chips; got {self.chips_per_player}"
            )


def load_rules(path: str | Path | None = None, **overrides: object) -> RulesConfig:
    """Load a rules YAML (default ``configs/lunatix/rules.yaml``) with optional overrides.

    ``overrides`` replace top-level keys (e.g. ``num_players=3``, ``four_opening_pit=True``);
    an unknown override key is a ConfigError like an unknown file key.
    """
    p = Path(path) if path is not None else DEFAULT_RULES
    data = load_yaml(p)
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping at the top level")
    data = dict(data)
    for key, value in overrides.items():
        if key == "turn_around" and isinstance(value, bool):
            ta = dict(data.get("turn_around", {}))
            ta["enabled"] = value
            data[key] = ta
        else:
            data[key] = value
    data.setdefault("base_dir", str(p.resolve().parent))
    return from_mapping(RulesConfig, data, source=str(p))


def load_decks(rules: RulesConfig) -> Decks:
    """Load the deck file named by ``rules.decks`` and validate it."""
    p = rules.resolve(rules.decks)
    return decks_from_data(load_yaml(p), str(p))


def decks_from_data(data: Any, p: str) -> Decks:
    """The decks of parsed YAML ``data`` (from ``p``, named in errors), validated."""
    decks = from_mapping(Decks, data, source=p)
    effects = [g.effect for g in decks.gadgets]
    if len(set(effects)) != len(effects):
        raise ConfigError(f"{p}: each gadget effect may appear once")
    for card in decks.hazard:
        if card.effect is HazardEffect.LUNACY and card.lunacy is None:
            raise ConfigError(f"{p}: hazard card {card.name!r} is a lunacy without 'lunacy'")
    lunacies = [c.lunacy for c in decks.hazard if c.effect is HazardEffect.LUNACY]
    if len(set(lunacies)) != len(lunacies):
        raise ConfigError(f"{p}: each lunacy may appear once in the hazard deck")
    for g in decks.gadgets:
        if (g.effect in NUMBERED_GADGETS) != (g.card_number is not None):
            raise ConfigError(f"{p}: gadget {g.name!r}: numbered gadgets need card_number")
    return decks
