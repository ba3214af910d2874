"""Terminal play (python -m agents.play): a human seat answered by a scripted reader."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from agents.play import play
from agents.specs import make_bot

ROOT = Path(__file__).resolve().parents[2]


def reader(answers: list[str]):  # noqa: ANN201
    it = iter(answers)
    return lambda: next(it, "")


@pytest.mark.parametrize("game", ["lunatix", "ryderz"])
def test_the_human_seat_plays_what_it_types(game: str) -> None:
    bots = [make_bot("random", game), make_bot("heuristic", game)]
    out = io.StringIO()
    # nonsense first (re-asked), then always the second action (or the first where only one)
    answers = ["x", "-1", "9999"] + ["1"] * 400
    returns = play(game, 2, bots, 3, human=0, read=reader(answers), out=out)
    text = out.getvalue()
    assert "'x' is not one of" in text and "'-1' is not one of" in text
    assert "'9999' is not one of" in text
    # the first menu's option 1 is what seat 0 played first
    menu = text.split("seat 0, your action")[0]
    option_1 = next(line for line in menu.splitlines() if line.startswith("    1  "))[7:]
    # (the prompt has no newline: a terminal echoes the typed answer, a script does not)
    first = next(line for line in text.splitlines() if "seat 0 (you): " in line)
    assert first.split("seat 0 (you): ")[1] == option_1
    assert "seat 1 (heuristic): " in text
    if returns is not None:  # the game ended before the answers did
        assert len(returns) == 2 and "game over: returns" in text


def test_q_quits_and_bots_alone_finish_the_game() -> None:
    bots = [make_bot("random", "ryderz"), make_bot("heuristic", "ryderz")]
    out = io.StringIO()
    assert play("ryderz", 2, bots, 1, human=0, read=reader(["q"]), out=out) is None
    assert out.getvalue().rstrip().endswith("quit")
    out = io.StringIO()
    returns = play("ryderz", 2, bots, 1, human=None, read=reader([]), out=out)
    assert returns is not None and len(returns) == 2
    assert "game over: returns" in out.getvalue()


def test_command_line_refuses_bad_arguments() -> None:
    for args in (["--seat", "5"], ["--bots", "alphazero"], ["--bots", "random,random,random"]):
        r = subprocess.run(
            [sys.executable, "-m", "agents.play", "--human", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            input="q\n",
            timeout=120,
        )
        assert r.returncode == 2, (args, r.stderr)
        assert "error:" in r.stderr
