"""Golden playthroughs (``tests/golden.py``): seeded random games of both engines, dumped as
text, must replay to the same text. A difference is shown as a diff of the first lines that
changed; after an intended rules change, regenerate with ``tests/golden.py --update`` and
review the files' diff."""

from __future__ import annotations

import difflib
import json

import pytest
from golden import PLAYTHROUGHS, Playthrough, digest, play, rounded

from tabletop import registry


@pytest.mark.parametrize("p", PLAYTHROUGHS, ids=lambda p: p.name)
def test_golden_playthrough_replays_to_the_same_text(p: Playthrough) -> None:
    want = p.path.read_text()
    got = play(p)
    if got != want:
        diff = difflib.unified_diff(
            want.splitlines(), got.splitlines(), str(p.path), "now", n=2, lineterm=""
        )
        pytest.fail(
            f"{p.name} plays differently now (regenerate with tests/golden.py "
            "--update if the change is intended):\n" + "\n".join(list(diff)[:60])
        )


def test_golden_playthroughs_cover_both_engines_to_their_end() -> None:
    ends: dict[str, list[str]] = {}
    for p in PLAYTHROUGHS:
        lines = p.path.read_text().splitlines()
        end = [line for line in lines if line.startswith("== end after step")]
        assert len(end) == 1, p.name
        assert any(" chance " in line for line in lines), p.name
        ends.setdefault(p.game, []).append(end[0])
    assert set(ends) == set(registry.names())  # every registered game has golden games
    for game, found in ends.items():  # each engine: a won game and one that is not
        assert any(": win, winner " in e for e in found), game
        assert any(": win, " not in e for e in found), game


def test_digest_ignores_rounding_but_not_a_change() -> None:
    class Stub:
        def __init__(self, x: float) -> None:
            self.x = x

        def to_dict(self) -> dict:
            return {"pose": [self.x, -0.0], "n": 3}

    assert digest(Stub(0.1 + 0.2)) == digest(Stub(0.3))  # 4e-17 apart
    assert digest(Stub(0.3)) != digest(Stub(0.3 + 1e-6))
    assert json.dumps(rounded({"a": [-1e-12, 2.5]})) == '{"a": [0.0, 2.5]}'  # not -0.0
