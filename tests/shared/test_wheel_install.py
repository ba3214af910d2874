"""The project installs and runs outside a checkout: a wheel built from a copy of the tree,
installed into a fresh venv, plays a game of each registered game through the engine and
the AEC env from a folder that is not the checkout (the default configs come with it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from tabletop import registry

ROOT = Path(__file__).resolve().parents[2]
#: the packages that ship their type information (PEP 561: a ``py.typed`` marker each)
TYPED_PACKAGES = ("tabletop", "lunatix_env", "ryderz_env")

SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    import tabletop
    from tabletop import registry
    from tabletop.config import shipped_configs
    from tabletop.protocol import play_chance, random_legal_actions

    prefix = Path(sys.prefix).resolve()
    where = {"tabletop": tabletop.__file__, "configs": str(shipped_configs())}
    played = {}
    for entry in registry.GAMES.values():
        where[entry.package] = __import__(entry.package).__file__
        game = entry.game(num_players=2)
        state = game.new_initial_state(3)
        rng = np.random.default_rng(3)
        decisions = 0
        while not state.is_terminal() and decisions < 300:
            if state.is_chance_node():
                play_chance(state, rng)
                continue
            acts = random_legal_actions(state, rng)
            decisions += 1
            if len(acts) == 1:
                state.apply_action(next(iter(acts.values())))
            else:
                state.apply_actions(acts)
        env = entry.aec_env(num_players=2)
        env.reset(seed=3)
        steps = 0
        for agent in env.agent_iter(max_iter=200):
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"]
                action = env.action_space(agent).sample(mask)
            env.step(action)
            steps += 1
        played[entry.name] = [decisions, steps]
    outside = all(Path(p).resolve().is_relative_to(prefix) for p in where.values())
    print(json.dumps({"where": where, "played": played, "outside": outside}))
""")


def _tree_files() -> list[str]:
    """The files a clean clone would have (tracked, and new files git does not ignore)."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(venv python, wheel)``: the wheel built from a copy of the tree, installed (without
    dependencies) into a fresh venv that sees this interpreter's site-packages for them."""
    if shutil.which("git") is None:
        pytest.fail("git is needed to list the tree's files")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    for f in _tree_files():
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    dist = tmp / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(dist),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    # the dependencies come from this interpreter's site-packages: a path line in a .pth
    # file adds the folder without running its .pth files (so not this checkout's editable
    # install)
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return py, wheel


def test_wheel_ships_every_config_file(installed: tuple[Path, Path]) -> None:
    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    configs = [f for f in _tree_files() if f.startswith("configs/") and f.endswith(".yaml")]
    assert configs
    missing = [f for f in configs if "tabletop_configs/" + f[len("configs/") :] not in names]
    assert not missing, f"configs left out of the wheel: {missing}"
    shipped = [
        f
        for f in _tree_files()
        if f.startswith("agents/trained/") and f.endswith((".onnx", ".json"))
    ]
    assert shipped, "no shipped trained policy in the tree"
    missing = [f for f in shipped if f not in names]
    assert not missing, f"shipped policies left out of the wheel: {missing}"
    values = [f for f in _tree_files() if f.startswith("agents/values/") and f.endswith(".json")]
    assert values, "no shipped fitted value in the tree"
    missing = [f for f in values if f not in names]
    assert not missing, f"fitted values (agents.fitted_value) left out of the wheel: {missing}"


def test_installed_packages_carry_py_typed(installed: tuple[Path, Path], tmp_path: Path) -> None:
    py, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [p for p in TYPED_PACKAGES if f"{p}/py.typed" not in names]
    assert not missing, f"py.typed left out of the wheel for {missing}"
    code = (
        "import importlib.util, json, sys\n"
        "from pathlib import Path\n"
        "found = {}\n"
        "for p in sys.argv[1:]:\n"
        "    marker = Path(importlib.util.find_spec(p).origin).parent / 'py.typed'\n"
        "    found[p] = [str(marker.resolve()), marker.is_file()]\n"
        "print(json.dumps({'prefix': str(Path(sys.prefix).resolve()), 'found': found}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        [str(py), "-c", code, *TYPED_PACKAGES],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    for package, (marker, is_file) in result["found"].items():
        assert is_file, f"the installed {package} has no py.typed ({marker})"
        assert Path(marker).is_relative_to(result["prefix"]), (package, marker)


def test_installed_wheel_plays_every_game_outside_the_checkout(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    py, _ = installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        [str(py), "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["outside"], result["where"]
    assert not any(str(ROOT) in p for p in result["where"].values()), result["where"]
    assert set(result["played"]) == set(registry.names())
    for name, (decisions, steps) in result["played"].items():
        assert decisions > 0 and steps > 0, name
