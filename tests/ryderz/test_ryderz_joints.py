"""``geometry.clean_joints``: the shape pairs whose contact the crash step may take as the joint
without computing it. The check must agree with the exact contact test it replaces
(``contact_parts`` vertices within ``joint_tolerance`` of the joint), wherever the pair lies.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from ryderz_env.rules import Game, PieceKind, Pose
from ryderz_env.rules.geometry import (
    LAUNCH_KEY,
    clean_joints,
    contact_parts,
    joint_line,
    make_element,
)


def _outlines(g: Game) -> dict:
    out = {k: (s.outline, s.exit) for k, s in g.shapes.items()}
    out[LAUNCH_KEY] = (g.launch_local, g.launch_exit)
    return out


@pytest.mark.parametrize("table", ["standard", "rectangle"])
def test_every_standard_pair_nests_cleanly(table: str) -> None:
    g = Game(table=table)
    keys = list(_outlines(g))
    pieces = [k for k in keys if k[0] is not PieceKind.LAUNCH]
    assert g.clean_joints == {(p, s) for p in keys for s in pieces}


def test_clean_pairs_agree_with_the_exact_contact_test() -> None:
    """At random poses, each clean pair's contact regions, from either side, lie at the joint
    (so ``_contact_excused`` would excuse them), and the pieces do touch there."""
    g = Game()
    r, pcs = g.rules, g.pieces
    outlines = _outlines(g)
    rng = np.random.default_rng(7)
    pairs = sorted(g.clean_joints)
    for i in rng.permutation(len(pairs))[:120]:
        pk, sk = pairs[i]
        pose = Pose(
            float(rng.uniform(-12, 12)),
            float(rng.uniform(-12, 12)),
            float(rng.uniform(-math.pi, math.pi)),
        )
        local, ex = outlines[pk]
        pred = make_element(0, pk[0], pk[1], pk[2], pose, 1, local, ex)
        shape = g.shapes[sk]
        el = make_element(0, sk[0], sk[1], sk[2], pred.exit, 1, shape.outline, shape.exit)
        assert shapely.distance(el.poly, pred.poly) < r.touch_tolerance
        joint = shapely.linestrings(joint_line(pred.exit, pcs.width, pcs.tip))
        for a, b in ((el, pred), (pred, el)):  # the crash step looks from both sides
            for part in contact_parts(a.poly, b.poly, r.touch_tolerance):
                v = shapely.points(shapely.get_coordinates(part))
                assert float(np.max(shapely.distance(v, joint))) <= r.joint_tolerance


def test_a_loose_tolerance_leaves_every_pair_out() -> None:
    """Contact reaching beyond the joint zone (tolerance 1e-3 against a 1e-5 joint) fails the
    check, so the exact test runs."""
    g = Game()
    assert not clean_joints(g.pieces, g.table.cfg.launch_point, 1e-3, 1e-5)
    assert not clean_joints(g.pieces, g.table.cfg.launch_point, 1e-6, 1e-7)
