"""The RLlib recipes of docs/integrations.md (fenced ``python rllib``) run as written (in
``.venv-rllib``: ``make test-rllib``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_recipes import recipes, run_recipe

BLOCKS = recipes("python rllib")


def test_the_page_has_an_rllib_recipe() -> None:
    assert BLOCKS and all("RLlibMultiAgentEnv" in b or "rllib" in b for b in BLOCKS)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"rllib{i}" for i in range(len(BLOCKS))])
def test_rllib_recipe_runs(code: str, tmp_path: Path) -> None:
    run_recipe(code, tmp_path)
