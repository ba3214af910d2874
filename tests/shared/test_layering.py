"""Layering (shared/DESIGN.md, "Layers"): the rules engines and the shared core never import
RL, rendering or plotting libraries; imports point down only."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("gymnasium", "gym", "pettingzoo", "torch", "pygame", "matplotlib")
# modules of tabletop/ that are env layers by design (AEC/parallel adapters, the conformance
# kit, rendering helpers: the bitmap font and GIF writer, the pygame window): they may use
# gymnasium/pettingzoo/pygame and are not checked here
ENV_MODULE_PREFIXES = (
    "env",
    "aec",
    "parallel",
    "adapter",
    "conformance",
    "render",
    "wrappers",
    "draw",
    "viewer",
)
ENGINE_DIRS = (ROOT / "lunatix_env" / "rules", ROOT / "tabletop", ROOT / "ryderz_env" / "rules")


def engine_modules() -> list[Path]:
    out = []
    for d in ENGINE_DIRS:
        if not d.is_dir():
            continue
        for p in sorted(d.rglob("*.py")):
            rel = p.relative_to(d)
            if d.name == "tabletop" and rel.parts[0].startswith(ENV_MODULE_PREFIXES):
                continue
            out.append(p)
    return out


def imported_names(path: Path) -> list[tuple[int, str]]:
    """Every module name imported anywhere in the file (top level, functions, try blocks)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.append((node.lineno, node.args[0].value))
    return names


def is_forbidden(module: str) -> bool:
    return module.split(".")[0] in FORBIDDEN


def test_engine_modules_are_found() -> None:
    mods = engine_modules()
    names = {p.relative_to(ROOT).as_posix() for p in mods}
    assert "lunatix_env/rules/state.py" in names and "tabletop/protocol.py" in names
    assert len(mods) >= 10


def test_import_scanner_sees_every_import_form(tmp_path: Path) -> None:
    p = tmp_path / "m.py"
    p.write_text(
        "import os, torch.nn\n"
        "from matplotlib import pyplot\n"
        "def f():\n"
        "    import pygame\n"
        "    return importlib.import_module('gymnasium.spaces')\n"
        "try:\n"
        "    from pettingzoo.utils import agent_selector\n"
        "except ImportError:\n"
        "    pass\n"
        "from . import sibling\n",
        encoding="utf-8",
    )
    found = sorted(m for _, m in imported_names(p) if is_forbidden(m))
    assert found == ["gymnasium.spaces", "matplotlib", "pettingzoo.utils", "pygame", "torch.nn"]


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_engine_module_imports_no_rl_or_drawing_library(path: Path) -> None:
    bad = [f"line {ln}: {m}" for ln, m in imported_names(path) if is_forbidden(m)]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


#: each engine's game for the check (Lunatix: three players, the optional Turn Around card)
GAME_OPTIONS = {"lunatix": {"num_players": 3, "turn_around": True}, "ryderz": {"num_players": 2}}


@pytest.mark.parametrize("name", sorted(GAME_OPTIONS))
def test_importing_and_playing_the_rules_engine_loads_no_rl_or_drawing_library(name: str) -> None:
    # ``import <game>.rules`` runs the game package's __init__ first, which registers the env
    # ids (tabletop.env_registration): that must still load no RL library
    code = (
        "import json, sys\n"
        "import numpy as np\n"
        "from tabletop import registry\n"
        "import tabletop, tabletop.config, tabletop.protocol, tabletop.errors\n"
        f"e = registry.get({name!r})\n"
        "R = e.rules()\n"
        f"g = R.Game(**{GAME_OPTIONS[name]!r})\n"
        "s = g.new_initial_state(0)\n"
        "rng = np.random.default_rng(0)\n"
        "for _ in range(400):\n"
        "    if s.is_terminal():\n"
        "        break\n"
        "    if s.is_chance_node():\n"
        "        s.apply_chance(s.sample_chance(rng))\n"
        "    else:\n"
        "        s.apply_actions({p: s.legal_actions(p)[0] for p in s.current_players()})\n"
        "str(s); s.observation(0); g.state_from_dict(s.to_dict()); s.clone()\n"
        "assert e.package in sys.modules\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(json.dumps(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == [], f"importing the rules engine loaded {loaded}"
