"""Action-space pieces of the Lazer Ryderz envs (``ryderz_env/spaces.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from ryderz_builders import game, with_prizms

from ryderz_env.spaces import HybridActionSpace, masked_argmax


def test_hybrid_space_sample_takes_the_discrete_mask_vector() -> None:
    space = HybridActionSpace(5, seed=0)
    mask = np.array([0, 0, 1, 0, 1], dtype=np.int8)
    picks = {int(space.sample(mask)["discrete"]) for _ in range(50)}
    assert picks == {2, 4}
    a = space.sample(mask)
    assert space.contains(a) and -1.0 <= float(a["x"][0]) <= 1.0
    assert (
        int(
            space.sample({"discrete": np.array([1, 0, 0, 0, 0], dtype=np.int8), "x": None})[
                "discrete"
            ]
        )
        == 0
    )


def test_masked_argmax_picks_the_best_legal_option() -> None:
    assert masked_argmax(np.array([5.0, 1.0, 3.0]), np.array([0, 1, 1])) == 2
    assert masked_argmax(np.array([1.0, 1.0, 1.0]), np.array([0, 1, 1])) == 1
    with pytest.raises(ValueError):
        masked_argmax(np.array([1.0]), np.array([0]))


def test_discrete_layout_maps_moves_one_to_one_and_launches_to_grid_and_aims() -> None:
    from ryderz_env.rules import Action, ActionKind, Prizm
    from ryderz_env.spaces import DiscreteLayout

    g = game(num_players=2)
    lay = DiscreteLayout(g, k=36)
    assert lay.size == (len(g.codec) - g.top_gear) + g.top_gear * (36 + 2 * 3)
    # seat 0 faces the first, not the second
    s = with_prizms(g.new_initial_state(0), [Prizm(0.0, 5.0), Prizm(17.0, 0.0)])
    legal = lay.legal(s, 0)
    assert len(legal) == g.top_gear * (36 + 1)
    aim_index = lay.launch_base + 2 * lay.per_gear + 36  # gear 3, aim at Prizm 0
    assert aim_index in legal and aim_index + 1 not in legal
    a = lay.decode(s, 0, aim_index)
    assert a.kind is ActionKind.LAUNCH and a.arg == 3 and a.x == pytest.approx(0.0, abs=1e-9)
    assert lay.decode(s, 0, lay.launch_base) == Action.launch(1, -1.0)
    assert lay.decode(s, 0, 0) == Action(ActionKind.NOOP)
    s.apply_actions({0: Action.launch(3, 0.0), 1: Action.launch(2, 0.0)})
    moves = lay.legal(s, 0)
    assert all(lay.decode(s, 0, i).kind is ActionKind.MOVE for i in moves)
    assert {lay.decode(s, 0, i) for i in moves} == set(s.legal_actions(0))
