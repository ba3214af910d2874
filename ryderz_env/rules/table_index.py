"""The index of the table: every element on it (Launch Points and pieces) with their
bounding boxes, and which elements a new one touches."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import shapely

from ryderz_env.rules.geometry import (
    Element,
)

if TYPE_CHECKING:
    pass
from ryderz_env.rules.machine import Machine


class TableIndex(Machine):
    """The table's elements and contact queries."""

    # ------------------------------------------------------------------ protocol: queries
    def elements(self) -> list[Element]:
        """Every piece and Launch Point on the table, by seat then age."""
        return self._table_index()[0]

    # ------------------------------------------------------------------ the table index
    def _table_index(self) -> tuple[list[Element], np.ndarray]:
        """Every element on the table (by seat, then age) and their polygons as an array."""
        if self._index is None:
            els = [e for p in self.players for e in p.lazer]
            self._index = (els, np.fromiter((e.poly for e in els), dtype=object, count=len(els)))
        return self._index

    def _box_array(self) -> np.ndarray:
        """The table index's bounding boxes as rows (x0, y0, -x1, -y1), built when first
        asked for (the Prizm locks) and kept with the index."""
        index = self._table_index()
        if self._boxes is None or self._boxes[0] is not index:
            els = index[0]
            boxes = np.fromiter(
                itertools.chain.from_iterable(e.bbox for e in els), float, 4 * len(els)
            ).reshape(-1, 4)
            boxes[:, 2:] *= -1.0
            self._boxes = (index, boxes)
        return self._boxes[1]

    def lazers_in_box(self, x0: float, y0: float, x1: float, y1: float) -> list[Element]:
        """The Lazer elements on the table whose bounding boxes meet ``[x0, x1] x [y0, y1]``,
        in table order (a plain loop: most boxes asked about have few Lazers near)."""
        return [
            e
            for p in self.players
            for e in p.lazer
            if e.bbox[0] <= x1 and e.bbox[2] >= x0 and e.bbox[1] <= y1 and e.bbox[3] >= y0
        ]

    def _touching(self, el: Element, exclude: list[Element] | None) -> list[Element]:
        """Elements on the table within the touch tolerance of ``el`` (itself and those in
        ``exclude`` left out), in table order; bounding boxes first (a plain loop over the
        Lazers: most placements have nothing near, and then no table index is needed), then
        exact distances."""
        tol = self.game.rules.touch_tolerance
        x0, y0, x1, y1 = el.bbox
        near = [
            e for e in self.lazers_in_box(x0 - tol, y0 - tol, x1 + tol, y1 + tol) if e is not el
        ]
        if exclude:  # (elements compare by identity)
            near = [e for e in near if e not in exclude]
        if not near:
            return []
        d = shapely.distance(el.poly, [e.poly for e in near])
        return [e for e, di in zip(near, d.tolist(), strict=True) if di < tol]
