"""The game registry: the one list of the games, and every part an entry names resolves."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import pettingzoo
import pytest

from tabletop import registry
from tabletop.config import shipped_configs
from tabletop.protocol import Game, State
from tabletop.records import GameRecord


@pytest.mark.parametrize("name", registry.names())
def test_every_part_of_an_entry_resolves(name: str) -> None:
    e = registry.get(name)
    game = e.game()
    assert isinstance(game, Game)
    assert isinstance(game.new_initial_state(0), State)
    envs = e.envs()
    assert envs.ENV_NAME == e.env_name and envs.ENV_ID == e.env_id
    assert envs.raw_env.metadata["name"] == e.env_name
    assert issubclass(e.single_agent_class(), gymnasium.Env)
    assert e.config_dir() == shipped_configs(name) and (e.config_dir() / "rules.yaml").is_file()
    assert e.train_config_path().is_file()
    assert __import__(e.package).__name__ == e.package


@pytest.mark.parametrize("name", registry.names())
def test_entry_found_by_short_name_env_name_and_env_id(name: str) -> None:
    e = registry.get(name)
    assert registry.get(e.env_name) is e and registry.get(e.env_id) is e


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(registry.UnknownGameError, match="lunatix, ryderz"):
        registry.get("chess")


@pytest.mark.parametrize("name", registry.names())
def test_of_state_finds_the_entry_of_a_state_and_of_a_game(name: str) -> None:
    e = registry.get(name)
    game = e.game(num_players=2)
    assert registry.of_state(game.new_initial_state(1)) is e
    assert registry.of_state(game) is e


def test_of_state_rejects_a_foreign_object() -> None:
    with pytest.raises(registry.UnknownGameError):
        registry.of_state(object())


@pytest.mark.parametrize("name", registry.names())
def test_game_from_config_dict_round_trips_and_defaults(name: str) -> None:
    e = registry.get(name)
    game = e.game(num_players=3)
    assert e.game_from_config_dict(game.config_dict()).config_dict() == game.config_dict()
    assert e.game_from_config_dict({}).config_dict() == e.game().config_dict()


@pytest.mark.parametrize("name", registry.names())
def test_replay_factory_draws_a_record_of_the_game(name: str) -> None:
    e = registry.get(name)
    env = e.aec_env(num_players=2)
    env.reset(seed=0)
    record: GameRecord = env.unwrapped.record
    assert record.game == e.env_name
    game, adapter = e.replay_game(record.config)
    assert game.config_dict() == env.unwrapped.game.config_dict()
    assert adapter.render_ansi(game.new_initial_state(0))


def test_register_all_registers_every_env_id_without_importing_the_games() -> None:
    code = (
        "import sys, pettingzoo, gymnasium\n"
        "from tabletop import registry\n"
        "registry.register_all()\n"
        "ids = [e.env_id for e in registry.GAMES.values()]\n"
        "assert all(i in pettingzoo.aec_registry and i in pettingzoo.parallel_registry "
        "and i in gymnasium.registry for i in ids), ids\n"
        "assert not any(e.package in sys.modules for e in registry.GAMES.values())\n"
        'env = pettingzoo.make("aec", ids[0])\n'
        "print(type(env.unwrapped).__module__)\n"
    )
    assert run_python(code).strip() == registry.get(registry.names()[0]).envs_module


@pytest.mark.parametrize("name", registry.names())
def test_importing_a_game_package_registers_its_envs(name: str) -> None:
    e = registry.get(name)
    e.envs()
    assert e.env_id in pettingzoo.aec_registry and e.env_id in gymnasium.registry
    env = pettingzoo.make("parallel", e.env_id, num_players=2)
    assert env.unwrapped.metadata["name"] == e.env_name


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its stdout (a failure shows its stderr)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("name", registry.names())
@pytest.mark.parametrize("order", ["game first", "library first"])
def test_import_of_the_game_package_registers_with_gymnasium_and_pettingzoo(
    name: str, order: str
) -> None:
    e = registry.get(name)
    imports = (
        f"import {e.package}\nimport gymnasium, pettingzoo\n"
        if order == "game first"
        else f"import gymnasium, pettingzoo\nimport {e.package}\n"
    )
    out = run_python(
        imports + f"env = gymnasium.make({e.env_id!r}, num_players=2)\n"
        "obs, info = env.reset(seed=0)\n"
        "print(type(env.unwrapped).__module__)\n"
        f"aec = pettingzoo.make('aec', {e.env_id!r}, num_players=2)\n"
        f"par = pettingzoo.make('parallel', {e.env_id!r}, num_players=2)\n"
        "print(aec.unwrapped.metadata['name'], par.unwrapped.metadata['name'])\n"
    )
    assert out.split() == [e.envs_module, e.env_name, e.env_name]


@pytest.mark.parametrize("name", registry.names())
def test_import_of_the_game_package_alone_loads_no_rl_library(name: str) -> None:
    e = registry.get(name)
    out = run_python(
        f"import sys, {e.package}\n"
        "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'torch', "
        f"'{e.envs_module}') if m in sys.modules))\n"
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize("name", registry.names())
def test_module_qualified_gymnasium_id_needs_no_import(name: str) -> None:
    e = registry.get(name)
    out = run_python(
        "import gymnasium\n"
        f"env = gymnasium.make('{e.package}:{e.env_id}', num_players=2)\n"
        "env.reset(seed=0)\n"
        "print(env.spec.id)\n"
    )
    assert out.strip() == e.env_id


def test_the_import_hook_hands_the_library_its_own_loader_back() -> None:
    out = run_python(
        "import sys, lunatix_env\n"
        "from tabletop.env_registration import AfterImportFinder, "
        "_RegisteringLoader\n"
        "assert any(isinstance(f, AfterImportFinder) for f in sys.meta_path)\n"
        "import pettingzoo\n"  # imports gymnasium inside its own import
        "import gymnasium\n"
        "for m in (gymnasium, pettingzoo):\n"
        "    assert not isinstance(m.__loader__, _RegisteringLoader), m\n"
        "    assert m.__spec__.loader is m.__loader__\n"
        "assert not any(isinstance(f, AfterImportFinder) for f in sys.meta_path)\n"
        "import ryderz_env\n"  # both libraries there: registered at once
        "print('LazerRyderz-v0' in gymnasium.registry,"
        " 'LazerRyderz-v0' in pettingzoo.aec_registry)\n"
    )
    assert out.split() == ["True", "True"]


def test_a_failing_registration_only_warns_and_the_library_still_imports() -> None:
    out = run_python(
        "import warnings\n"
        "from tabletop import env_registration as R\n"
        "def broken(module, entry):\n"
        "    raise RuntimeError('boom')\n"
        "R.REGISTRARS['gymnasium'] = broken\n"
        "import lunatix_env\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import gymnasium\n"
        "print(gymnasium.__name__, [str(w.message) for w in caught])\n"
    )
    assert (
        out.startswith("gymnasium [")
        and "LunatixLoop-v0 with gymnasium failed" in out
        and "boom" in out
    )
