"""Config loading: ``tabletop.config`` (YAML into frozen dataclasses) and the Lunatix Loop
rules file, checked against the numbers of ``shared/rules/lunatix_loop.md``."""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path

import pytest
import yaml

from lunatix_env.rules import Game, load_rules
from lunatix_env.rules.config import DEFAULT_RULES, RulesConfig, load_decks
from tabletop.config import from_mapping, load_config, to_mapping
from tabletop.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = Path("/work/shared/rules/lunatix_loop.md")
if not RULES_MD.exists():  # the rules also live beside the repo in some checkouts
    RULES_MD = ROOT.parent / "shared" / "rules" / "lunatix_loop.md"


# ---------------------------------------------------------------------------- a toy schema
class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True)
class Wheel:
    size: int
    pressure: float


@dataclasses.dataclass(frozen=True)
class Kart:
    name: str
    colour: Colour
    wheels: tuple[Wheel, ...]
    gears: tuple[int, int]
    turbo: bool
    tags: dict[str, int]
    driver: str | None = None
    laps: int = 3


GOOD = {
    "name": "zippy",
    "colour": "red",
    "wheels": [{"size": 10, "pressure": 2}, {"size": 11, "pressure": 2.5}],
    "gears": [1, 5],
    "turbo": True,
    "tags": {"a": 1},
}


def write(tmp_path: Path, data: object, name: str = "kart.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


def test_load_config_builds_the_frozen_dataclass(tmp_path: Path) -> None:
    kart = load_config(Kart, write(tmp_path, GOOD))
    assert kart == Kart(
        "zippy", Colour.RED, (Wheel(10, 2.0), Wheel(11, 2.5)), (1, 5), True, {"a": 1}
    )
    assert isinstance(kart.wheels[0].pressure, float)
    assert kart.driver is None and kart.laps == 3  # defaults
    with pytest.raises(dataclasses.FrozenInstanceError):
        kart.name = "x"  # type: ignore[misc]
    assert from_mapping(Kart, to_mapping(kart)) == kart
    assert from_mapping(Kart, {**GOOD, "colour": "BLUE"}).colour is Colour.BLUE  # by name


def test_unknown_key_is_an_error_naming_the_key_and_the_file(tmp_path: Path) -> None:
    p = write(tmp_path, {**GOOD, "spoiler": True})
    with pytest.raises(ConfigError) as info:
        load_config(Kart, p)
    assert "spoiler" in str(info.value) and str(p) in str(info.value)
    nested = {**GOOD, "wheels": [{"size": 10, "pressure": 2, "rim": "alloy"}]}
    p = write(tmp_path, nested, "nested.yaml")
    with pytest.raises(ConfigError) as info:
        load_config(Kart, p)
    msg = str(info.value)
    assert "rim" in msg and str(p) in msg and "wheels[0]" in msg


def test_missing_key_is_an_error_naming_the_key_and_the_file(tmp_path: Path) -> None:
    data = dict(GOOD)
    del data["turbo"]
    p = write(tmp_path, data)
    with pytest.raises(ConfigError) as info:
        load_config(Kart, p)
    assert "turbo" in str(info.value) and str(p) in str(info.value)
    with pytest.raises(ConfigError, match="size"):
        from_mapping(Kart, {**GOOD, "wheels": [{"pressure": 1.0}]}, source="inline")


@pytest.mark.parametrize(
    "key,value",
    [
        ("name", 7),
        ("colour", "green"),
        ("wheels", {"size": 1}),
        ("gears", [1, 2, 3]),
        ("gears", [1, "2"]),
        ("turbo", "yes"),
        ("turbo", 1),
        ("tags", ["a"]),
        ("laps", True),
        ("laps", 2.5),
        ("driver", 5),
    ],
)
def test_wrong_type_is_an_error_naming_the_field_and_the_file(
    tmp_path: Path, key: str, value: object
) -> None:
    p = write(tmp_path, {**GOOD, key: value})
    with pytest.raises(ConfigError) as info:
        load_config(Kart, p)
    assert key in str(info.value) and str(p) in str(info.value)


def test_unreadable_or_non_mapping_file_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match="nope.yaml"):
        load_config(Kart, missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load_config(Kart, bad)
    with pytest.raises(ConfigError, match="list.yaml"):
        load_config(Kart, write(tmp_path, [1, 2], "list.yaml"))
    assert issubclass(ConfigError, ValueError)


# ---------------------------------------------------------------------------- the rules file
def rules_copy(
    tmp_path: Path, edit: dict[str, object] | None = None, drop: str | None = None
) -> Path:
    data = yaml.safe_load(DEFAULT_RULES.read_text(encoding="utf-8"))
    data.update(edit or {})
    if drop:
        data.pop(drop)
    return write(tmp_path, data, "rules.yaml")


def test_rules_file_unknown_key_is_an_error_naming_the_key_and_the_file(tmp_path: Path) -> None:
    p = rules_copy(tmp_path, {"nitro_boost": 3})
    with pytest.raises(ConfigError) as info:
        load_rules(p)
    assert "nitro_boost" in str(info.value) and str(p) in str(info.value)
    data = yaml.safe_load(DEFAULT_RULES.read_text(encoding="utf-8"))
    data["pit"]["free_lunch"] = 1
    p = write(tmp_path, data, "rules2.yaml")
    with pytest.raises(ConfigError) as info:
        load_rules(p)
    assert "free_lunch" in str(info.value) and str(p) in str(info.value)


@pytest.mark.parametrize("key", ["laps", "chip_supply", "pit", "rams", "turbo_speed_cap"])
def test_rules_file_missing_key_is_an_error(tmp_path: Path, key: str) -> None:
    p = rules_copy(tmp_path, drop=key)
    with pytest.raises(ConfigError) as info:
        load_rules(p)
    assert key in str(info.value) and str(p) in str(info.value)


@pytest.mark.parametrize(
    "key,value",
    [
        ("laps", "three"),
        ("chip_supply", [24, 24]),
        ("four_opening_pit", "no"),
        ("brake_amounts", 10),
        ("pit", {"points": 15.5}),
        ("damage_die_faces", [0, "1"]),
    ],
)
def test_rules_file_wrong_type_is_an_error(tmp_path: Path, key: str, value: object) -> None:
    p = rules_copy(tmp_path, {key: value})
    with pytest.raises(ConfigError) as info:
        load_rules(p)
    assert key in str(info.value) and str(p) in str(info.value)


def test_rules_overrides_replace_top_level_keys() -> None:
    base = load_rules()
    three = load_rules(num_players=3)
    assert three == dataclasses.replace(base, num_players=3)
    assert Game(num_players=3).rules == three
    assert Game(num_players=3).info.num_players == 3 == Game(num_players=3).num_players
    ta = Game(turn_around=True).rules
    assert ta.turn_around == dataclasses.replace(base.turn_around, enabled=True)
    assert ta == dataclasses.replace(base, turn_around=ta.turn_around)
    assert Game(four_opening_pit=True).rules.four_opening_pit is True
    with pytest.raises(ConfigError, match="warp_drive"):
        load_rules(warp_drive=1)
    with pytest.raises(ConfigError, match="laps"):
        Game(laps="many")
    with pytest.raises(ConfigError):
        Game(load_rules(), num_players=3)  # overrides go with a path, not a config object


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_two_to_six_players_are_accepted(n: int) -> None:
    g = Game(num_players=n)
    assert g.info.num_players == n
    s = g.new_initial_state(0)
    assert len(s.cars) == n


@pytest.mark.parametrize("n", [-1, 0, 1, 7, 12])
def test_player_count_outside_two_to_six_is_rejected(n: int) -> None:
    with pytest.raises(ConfigError) as info:
        load_rules(num_players=n)
    assert "num_players" in str(info.value) and str(n) in str(info.value)
    with pytest.raises(ValueError):
        Game(num_players=n)


def test_default_game_is_the_standard_four_player_game() -> None:
    g = Game()
    assert g.num_players == 4 and g.info.num_players == 4
    assert g.rules == load_rules() == load_rules(DEFAULT_RULES)
    assert g.rules == Game(num_players=4).rules == Game(DEFAULT_RULES).rules
    assert g.rules.turn_around.enabled is False and g.rules.four_opening_pit is False
    assert g.info == Game(num_players=4).info
    assert g.new_initial_state(5).to_dict() == Game(num_players=4).new_initial_state(5).to_dict()
    assert g.track.name == "The Loop"
    assert DEFAULT_RULES == ROOT / "configs" / "lunatix" / "rules.yaml"


def test_a_rules_file_elsewhere_resolves_its_paths_relative_to_itself(tmp_path: Path) -> None:
    cfg = ROOT / "configs" / "lunatix"
    p = rules_copy(
        tmp_path,
        {
            "track": str(cfg / "tracks" / "the_loop.yaml"),
            "decks": str(cfg / "decks.yaml"),
            "laps": 2,
        },
    )
    g = Game(p)
    assert g.rules.laps == 2 and g.rules.base_dir == str(tmp_path.resolve())
    p2 = rules_copy(tmp_path, {"decks": "decks.yaml"})
    with pytest.raises(ConfigError, match="decks.yaml"):
        Game(p2)  # no decks.yaml beside the copied file


# ---------------------------------------------------------------------------- rules vs md
@pytest.fixture(scope="module")
def md() -> str:
    return " ".join(RULES_MD.read_text(encoding="utf-8").split())  # one line, single spaces


def grab(md: str, pattern: str) -> tuple[int, ...]:
    m = re.search(pattern, md)
    assert m, f"rules md no longer says {pattern!r}"
    return tuple(int(x) for x in m.groups())


def test_rules_file_has_the_numbers_of_the_rules_md(md: str) -> None:
    r = load_rules()
    assert grab(md, r"Each starts at (\d+) mph, maximum (\d+) mph") == (r.start_speed, r.max_speed)
    assert grab(md, r"with (\d+) luck chips") == (r.luck_chips,)
    assert grab(md, r"and (\d+) road-hazard chips") == (r.chips_per_player,)
    assert grab(md, r"chip supply is (\d+) of each kind") * 3 == r.chip_supply
    cn = r.card_numbers
    assert grab(md, r"Ram (\d), Brake (\d), Drop (\d), Accelerate (\d), Turn Around (\d)") == (
        cn.ram,
        cn.brake,
        cn.drop,
        cn.accelerate,
        cn.turn_around,
    )
    assert grab(md, r"Brake (\d+), (\d+), (\d+) or (\d+) mph") == r.brake_amounts
    assert grab(md, r"Accelerate \+(\d+), \+(\d+) or \+(\d+)") == r.accelerate_amounts
    assert grab(md, r"Drop (\d) or (\d) chips") == (1, r.max_drops)
    faces = re.search(r"Damage die faces: ([\d, ]+) hits", md)
    assert faces and tuple(int(x) for x in faces.group(1).split(", ")) == r.damage_die_faces
    assert grab(md, r"Each hit lowers max speed by (\d+)") == (r.speed_loss_per_hit,)
    assert grab(md, r"may exceed \d+, up to (\d+)") == (r.turbo_speed_cap,)
    assert grab(md, r"At most (\d+) held") == (r.gadget_hand_limit,)
    assert grab(md, r"Default round limit (\d+)") == (r.round_limit,)
    assert grab(md, r"one hazard card per (\d+) mph over") == (r.mph_per_hazard_card,)
    assert (
        grab(
            md,
            r"moves one lane inward while faster than the new square's rating "
            r"\(one card\)",
        )
        == ()
    )
    assert r.curve_inward_cards == 1
    assert grab(md, r"Reward \+(\d+) to the winner") == (r.win_reward,)
    assert r.laps == 3 and r.min_players == 2 and r.max_players == 6  # "2 to 6 players"
    assert grab(md, r"(\d+) to (\d+) players") == (r.min_players, r.max_players)


def test_rules_file_has_the_ram_chip_skid_pit_and_turn_around_numbers(md: str) -> None:
    r = load_rules()
    assert grab(md, r"sideswipe \(rammer (\d) damage die, target (\d)") == r.rams.sideswipe
    assert grab(md, r"rear-end ram \((\d) and (\d) dice") == r.rams.rear_end
    assert grab(md, r"head-on ram \((\d) and (\d) dice") == r.rams.head_on
    assert grab(md, r"rear-end ram one of the blockers \(fact\): (\d) dice each") * 2 == (
        r.rams.involuntary
    )
    assert grab(md, r"the target one extra") == () and r.rams.battering_ram_extra == 1
    ce = r.chips
    assert grab(md, r"tacks (\d) damage die, oil (\d) hazard card, glue -(\d+) mph") == (
        ce.tacks_dice,
        ce.oil_cards,
        ce.glue_speed_loss,
    )
    sk = r.skid
    assert grab(md, r"past the outside lane: wall, (\d) dice") == (sk.wall_dice,)
    assert grab(md, r"into a car: you (\d) die, it (\d)") == sk.car_dice
    assert grab(md, r"pit wall, (\d) dice") == (sk.pit_wall_dice,)
    p = r.pit
    assert grab(md, r"spends up to (\d+) points") == (p.points,)
    assert grab(md, r"repair \+(\d+) mph max for (\d+) point") == (p.repair_amount, p.repair_cost)
    assert grab(md, r"a gadget for (\d+) points \(draw two") == (p.gadget_cost,)
    assert p.gadget_offer == 2
    assert grab(md, r"road-hazard chip for (\d+) point \(never above (\d+) held") == (
        p.chip_cost,
        p.chip_cap,
    )
    assert grab(md, r"counseling for (\d+) points") == (p.counseling_cost,)
    ta = r.turn_around
    assert grab(
        md,
        r"treated as a (\d+) mph curve, speed becomes (\d+); or, at (\d+) mph or "
        r"more, a bootlegger",
    ) == (ta.uturn_curve_speed, ta.uturn_speed, ta.bootleg_min_speed)
    assert grab(md, r"face the other way, treated as a (\d+) mph curve, speed becomes (\d+)\.") == (
        ta.bootleg_curve_speed,
        ta.bootleg_speed,
    )


def test_decks_file_matches_the_rules_md_tables(md: str) -> None:
    decks = load_decks(load_rules())
    text = RULES_MD.read_text(encoding="utf-8")
    rows = re.findall(r"^\s*\| ([A-Z][^|]*?) \| ([\d / ]+) \|", text, flags=re.M)
    table: dict[str, int] = {}
    for name, count in rows:
        name = name.replace(" (kept)", "")
        if name.startswith("Brake 10 / 20 / 30"):
            for amount, n in zip((10, 20, 30), count.split(" / "), strict=True):
                table[f"Brake {amount}"] = int(n)
        else:
            table[name] = int(count)
    assert {c.name: c.count for c in decks.hazard} == table
    assert sum(c.count for c in decks.hazard) == 25 == grab(md, r"Hazard deck, (\d+) cards")[0]
    for c in decks.hazard:
        if c.effect.value == "damage":
            assert c.dice == {"Fender Bender": 1, "Blown Gasket": 2}[c.name]
        if c.effect.value == "brake":
            assert c.name == f"Brake {c.amount}"
    turbo = re.search(r"Turbo deck, 15 cards .*?: (Click.*?)\. A turbo turn", md)
    assert turbo, "turbo deck sentence not found"
    listed = []
    for part in turbo.group(1).split("; "):
        m = re.fullmatch(r"(Click|Boom|\+\d+(?: big bang| bang)?) (?:\(.*?\) )?(\d+)", part)
        assert m, f"cannot read turbo entry {part!r}"
        listed.append((m.group(1).lower(), int(m.group(2))))
    assert [(c.name.lower(), c.count) for c in decks.turbo] == listed
    assert sum(c.count for c in decks.turbo) == 15
    explode = {c.name: c.dice for c in decks.turbo if c.dice}
    assert explode == {
        "+40 Bang": 1,
        "+50 Bang": 1,
        "+50 Big Bang": 2,
        "+60 Big Bang": 2,
        "Boom": 2,
    }
    assert [c.amount for c in decks.turbo] == [0, 10, 20, 30, 40, 40, 50, 50, 50, 60, 60, 0]
    assert len(decks.gadgets) == 10 == grab(md, r"Gadget deck, (\d+) cards")[0]
    gadget_rows = re.findall(r"^\s*\| ([A-Z][^|]*?) \| (numbered \d|gray) \|", text, flags=re.M)
    assert [(g.name, g.card_number) for g in decks.gadgets] == [
        (name, int(kind.split()[1]) if kind.startswith("numbered") else None)
        for name, kind in gadget_rows
    ]
    by_name = {g.name: g for g in decks.gadgets}
    assert by_name["Charger"].amounts == (10, 20, 30, 40)
    assert by_name["Rocket Booster"].amount == 60
    assert by_name["Roll Cage"].amount == 2


def test_track_pit_openings_have_the_rules_md_safe_speeds(md: str) -> None:
    g = Game()
    m = re.search(r"each with a safe speed \(default ([^)]*)\)", md)
    assert m, "pit opening safe speeds not found in the rules md"
    want = {name: int(v) for name, v in re.findall(r"(A1|A2|B1|B2) (\d+)", m.group(1))}
    assert want == {"A1": 40, "A2": 30, "B1": 30, "B2": 40}
    assert {o.name: o.safe_speed for o in g.track.openings} == want
    assert g.track.spec.pit.basic_entry == "A2" and g.track.spec.pit.basic_exit == "B1"
    assert g.track.num_lanes == 3


def test_every_rules_dataclass_field_is_set_in_the_rules_file() -> None:
    data = yaml.safe_load(DEFAULT_RULES.read_text(encoding="utf-8"))
    optional = {"min_players", "max_players", "base_dir"}
    fields = {f.name for f in dataclasses.fields(RulesConfig)} - optional
    assert fields <= set(data), f"rules.yaml leaves {sorted(fields - set(data))} to code"
