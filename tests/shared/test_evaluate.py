"""The standard evaluation: the settings that apply, the figures, files and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import evaluate as ev


def test_a_bot_is_evaluated_in_every_setting_but_those_against_itself(tmp_path: Path) -> None:
    result = ev.evaluate("lunatix", "random", games=4, out=tmp_path)
    assert [r["setting"] for r in result["rows"]] == ["2p vs heuristic", "4p vs 3 heuristic"]
    two, four = result["rows"]
    assert two["figure"] == "score" and four["figure"] == "win rate"
    assert two["games"] == 4 and four["games"] == 4
    assert two["value"] == pytest.approx((two["wins"] + two["draws"] / 2) / 4)
    assert not result["standard"]
    saved = json.loads((tmp_path / "evaluation.json").read_text())
    assert saved == json.loads(json.dumps(result))
    md = (tmp_path / "evaluation.md").read_text()
    assert "Not the standard protocol" in md and "| 2p vs heuristic | 4 | score |" in md
    assert (tmp_path / "2p_vs_heuristic" / "results.json").is_file()


def test_the_protocol_is_fixed() -> None:
    assert ev.GAMES == 400
    assert [s.players for s in ev.PROTOCOL["lunatix"]] == [2, 2, 4, 4]
    assert [s.opponents for s in ev.PROTOCOL["ryderz"]] == [("random",), ("heuristic",)]


def test_cli_refuses_a_bad_spec(capsys: pytest.CaptureFixture) -> None:
    assert ev.main(["--game", "ryderz", "--bot", "nobody", "--no-progress"]) == 2
    assert "unknown bot" in capsys.readouterr().err
