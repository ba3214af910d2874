"""The play commands (``python -m lunatix_env.play``, ``python -m ryderz_env.play``, ``make
play``): a seeded random game printed round by round, its record replayable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lunatix_env import play as lunatix_play
from lunatix_env.rules import Game as LunatixGame
from ryderz_env import play as ryderz_play
from ryderz_env.rules import DecisionKind
from ryderz_env.rules import Game as RyderzGame
from tabletop import replay
from tabletop.records import GameRecord, iter_replay


@pytest.mark.parametrize(
    ("module", "game"),
    [(lunatix_play, LunatixGame(num_players=2)), (ryderz_play, RyderzGame(num_players=2))],
    ids=["lunatix", "ryderz"],
)
def test_random_game_ends_and_its_record_replays_to_the_final_state(module, game) -> None:
    state, record = module.play_random_game(game, 3, verbose=False)
    assert state.is_terminal()
    assert record.game == module.RECORD_NAME and record.seed == 3
    *_, last = iter_replay(game, record)
    assert last.to_dict() == state.to_dict()
    again, _ = module.play_random_game(game, 3, verbose=False)  # seeded: the same game
    assert again.to_dict() == state.to_dict()


def test_lunatix_play_prints_every_round_with_the_cards(capsys) -> None:
    state, _ = lunatix_play.play_random_game(LunatixGame(num_players=2), 5)
    out = capsys.readouterr().out
    assert out.count("  cards: ") == out.count("The Loop  round ") - 1  # + the final state
    assert out.rstrip().endswith(str(state).rstrip())


def test_ryderz_play_prints_each_round_and_every_decision(capsys) -> None:
    state, record = ryderz_play.play_random_game(RyderzGame(num_players=3), 2)
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("Lazer Ryderz on the")]
    assert len(headers) == state.round + 2  # rounds 0 (Start Your Engines) to the last, the end
    decisions = sum(len(e["actions"]) for e in record.events if "actions" in e)
    kinds = "|".join(k.value for k in DecisionKind)
    decision_line = re.compile(rf"  seat \d \(({kinds})\): ")
    assert sum(1 for line in out.splitlines() if decision_line.match(line)) == decisions


def test_play_commands_write_a_record_the_replay_command_reads(tmp_path: Path, capsys) -> None:
    lunatix_path, ryderz_path = tmp_path / "l.json", tmp_path / "r.json"
    lunatix_play.main(["--seed", "1", "--players", "3", "--record", str(lunatix_path)])
    ryderz_play.main(
        [
            "--seed",
            "1",
            "--players",
            "2",
            "--table",
            "small",
            "--powers",
            "--record",
            str(ryderz_path),
            "--gif",
            str(tmp_path / "r.gif"),
        ]
    )
    out = capsys.readouterr().out
    assert f"record: {ryderz_path}" in out and "gif: " in out
    assert (tmp_path / "r.gif").read_bytes()[:6] == b"GIF89a"
    for path, players in ((lunatix_path, 3), (ryderz_path, 2)):
        record = GameRecord.load(path)
        assert record.config["num_players"] == players
        assert json.loads(path.read_text())["seed"] == 1
        assert replay.main([str(path)]) == 0
