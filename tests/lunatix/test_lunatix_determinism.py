"""Determinism across processes (shared/DESIGN.md, "Seeding"): the same seed and the same
random-policy actions give the same trajectory and the same final ``to_dict()`` in any
process, whatever its string-hash seed (no iteration over hash-ordered sets or dicts)."""

from __future__ import annotations

from determinism import assert_same_in_two_processes

# every player count, both options
CASES = [
    ({"num_players": n, "turn_around": ta, "four_opening_pit": four}, seed)
    for n, ta, four, seed in [
        (2, False, False, 1),
        (3, True, False, 2),
        (4, False, True, 3),
        (5, True, True, 4),
        (6, True, True, 5),
        (4, True, False, 6),
    ]
]


def test_same_seed_and_actions_give_identical_states_in_two_processes() -> None:
    results = assert_same_in_two_processes("lunatix_env.rules", CASES, min_steps=50)
    assert {r["status"] for r in results} <= {"win", "all_out", "truncated"}
