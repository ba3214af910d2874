"""The Python examples in README.md and docs/ run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# docs/integrations.md needs the integrations extras: tests/integrations/test_recipes.py runs it
DOCS = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "integrations.md"),
]
BLOCKS = [
    pytest.param(code, id=f"{path.name}#{i}")
    for path in DOCS
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))
]


@pytest.mark.parametrize("code", BLOCKS)
def test_documented_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(code, "<doc example>", "exec"), {"__name__": "__doc_example__"})


def test_docs_have_examples() -> None:
    assert len(BLOCKS) >= 2
