"""Golden playthroughs of both engines: seeded random games dumped as text, kept in
``tests/golden/`` and diffed by ``tests/shared/test_golden_playthroughs.py``.

Each file holds one game: every step (the chance outcome drawn, or each decider's action,
both as text and in the record's JSON form), the state's text (``str(state)``) every
``CHECKPOINT`` steps and at the end, and a digest of ``state.to_dict()`` there. Floats enter
the digest rounded to ``tabletop.records.DIGEST_DIGITS`` (9) decimals, so that a last-bit
difference of a geometry library release (GEOS behind shapely) does not fail it while any
change of behaviour does.

After an intended rules change, regenerate the files and review their diff::

    .venv/bin/python tests/golden.py --update
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# run as a script, import this checkout's engines (not whatever the venv's install points at)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from random_play import random_step  # noqa: E402

from tabletop import registry  # noqa: E402
from tabletop.records import json_value, rounded, state_digest  # noqa: E402

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
CHECKPOINT = 100


@dataclass(frozen=True)
class Playthrough:
    """One golden game: the game's registry name, its rules overrides, the seed (of the game
    and of the random players' generator)."""

    name: str
    game: str
    overrides: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.txt"


ODD_OFF = {"toss_start_prizms": False, "start_far_sides": False, "large_far_sides": False}
PLAYTHROUGHS = (
    Playthrough("lunatix_4p", "lunatix", {"num_players": 4}, seed=13),  # a win
    Playthrough(
        "lunatix_3p_turn_around", "lunatix", {"num_players": 3, "turn_around": True}, seed=2
    ),
    Playthrough("ryderz_2p_standard", "ryderz", {"num_players": 2}, seed=1),
    Playthrough(
        "ryderz_4p_powers_large",
        "ryderz",
        {"num_players": 4, "powers": True, "table": "large"},
        seed=3,
    ),  # a win
    Playthrough(
        "ryderz_3p_powers_long_squared",
        "ryderz",
        {
            "num_players": 3,
            "powers": True,
            "table": "long",
            "odd_table": {
                **ODD_OFF,
                "toss_start_prizms": True,
                "start_far_sides": True,
                "square_edge": True,
            },
        },
        seed=3,
    ),
)


def digest(state: Any) -> str:
    """A short hash of the state's ``to_dict()`` with floats rounded (see the module):
    ``tabletop.records.state_digest``, the digest records store."""
    return state_digest(state)


def play(p: Playthrough) -> str:
    """The text of playthrough ``p``: play it and write down every step."""
    entry = registry.get(p.game)
    game = entry.game(**p.overrides)
    state = game.new_initial_state(p.seed)
    rng = np.random.default_rng(p.seed)
    lines = [
        f"# golden playthrough {p.name}: {entry.rules_module}, overrides "
        f"{json.dumps(p.overrides, sort_keys=True)}, seed {p.seed}; uniformly random "
        "legal actions from numpy's default_rng(seed)",
        "# regenerate after an intended rules change: .venv/bin/python tests/golden.py "
        "--update (see tests/golden.py)",
    ]
    step = 0
    while not state.is_terminal():
        step += 1
        kind, what = random_step(state, rng)
        if kind == "chance":
            lines.append(f"{step:5d} chance {json.dumps(rounded(json_value(what)))}")
        else:
            for seat, a in what.items():
                lines.append(
                    f"{step:5d} seat {seat}: {a}  {json.dumps(rounded(game.action_to_json(a)))}"
                )
        if step % CHECKPOINT == 0:
            lines += [f"== after step {step}: digest {digest(state)} ==", str(state)]
    out = state.outcome()
    lines += [
        f"== end after step {step}: {out.reason.value}, winner {out.winner}, returns "
        f"{[round(r, 6) for r in state.returns()]}, digest {digest(state)} ==",
        str(state),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``--update`` rewrites every golden file; without it, lists those that differ."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="rewrite the golden files")
    args = ap.parse_args(argv)
    GOLDEN_DIR.mkdir(exist_ok=True)
    differ = 0
    for p in PLAYTHROUGHS:
        text = play(p)
        if args.update:
            p.path.write_text(text)
            print(f"wrote {p.path} ({len(text.splitlines())} lines)")
        elif not p.path.exists() or p.path.read_text() != text:
            differ += 1
            print(f"differs: {p.path}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
