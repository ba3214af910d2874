"""The ratings table: its lineups, rating every game together, files and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import ratings as rt
from tabletop.errors import ConfigError


def test_lineups_pairs_subsets_and_fill() -> None:
    assert rt.lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(rt.lineups(["a", "b", "c", "d", "e"], 4)) == 5
    assert rt.lineups(["h", "r", "m"], 4, fill="r") == [("h", "r", "r", "r"), ("m", "r", "r", "r")]
    with pytest.raises(ConfigError, match="--fill"):
        rt.lineups(["a", "b"], 4)
    with pytest.raises(ConfigError, match="distinct"):
        rt.lineups(["a", "a"], 2)


def test_a_ratings_run_rates_every_lineup_and_resumes_to_the_same_table(tmp_path: Path) -> None:
    bots = ["random", "heuristic", "mcts:sims=4,depth=2"]
    first = rt.ratings("lunatix", 2, bots, games=2, out=tmp_path / "a", seed=3)
    assert first["lineups"] == 3
    table = {t["bot"]: t for t in first["table"]}
    assert set(table) == set(bots) and all(t["games"] == 4 for t in table.values())
    assert first["table"][0]["ordinal"] >= first["table"][-1]["ordinal"]
    assert table["heuristic"]["wins"] >= table["random"]["wins"]
    again = rt.ratings("lunatix", 2, bots, games=2, out=tmp_path / "a", seed=3, resume=True)
    drop = ("seconds", "ms_per_decision")
    assert [{k: v for k, v in t.items() if k not in drop} for t in again["table"]] == [
        {k: v for k, v in t.items() if k not in drop} for t in first["table"]
    ]
    saved = json.loads((tmp_path / "a" / "ratings.json").read_text())
    assert saved["table"][0]["bot"] == again["table"][0]["bot"]
    assert "| `heuristic` |" in (tmp_path / "a" / "ratings.md").read_text()


def test_cli_refuses_bad_bots(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert (
        rt.main(
            ["--game", "ryderz", "--bots", "random,zzz", "--out", str(tmp_path), "--no-progress"]
        )
        == 2
    )
    assert "unknown bot" in capsys.readouterr().err
