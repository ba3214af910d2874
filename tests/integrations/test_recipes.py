"""Every ``python`` block of docs/integrations.md runs as written (the RLlib ones, fenced
``python rllib``, run in test_rllib_recipes.py); a block with a ``__main__`` guard (worker
processes) runs as a script of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from user_script import run_as_user

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "integrations.md"


def recipes(fence: str) -> list[str]:
    """The code blocks of the page fenced with ``fence`` (``python``, ``python rllib``)."""
    return re.findall(rf"```{fence}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def run_recipe(code: str, tmp_path: Path) -> None:
    """Run one block: in this process, or as a script where it has a ``__main__`` guard."""
    if 'if __name__ == "__main__":' not in code:
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__recipe__"})
        return
    script = tmp_path / "recipe.py"
    script.write_text(code, encoding="utf-8")
    done = run_as_user(script)
    assert done.returncode == 0, done.stderr[-3000:]


BLOCKS = recipes("python")


def test_the_page_has_a_recipe_per_tool() -> None:
    text = "\n".join(BLOCKS)
    for tool in (
        "gymnasium.make_vec",
        "MaskablePPO",
        "SubprocVecEnv",
        "supersuit",
        "tianshou",
        "torchrl",
    ):
        assert tool in text, f"docs/integrations.md has no recipe using {tool}"
    assert recipes("python rllib"), "docs/integrations.md has no RLlib recipe"


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_recipe_runs(code: str, tmp_path: Path) -> None:
    run_recipe(code, tmp_path)
