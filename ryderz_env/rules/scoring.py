"""Scoring: Prizms a piece passes over or ends in, taken and stolen, slid back along the
piece, and the locks (a Prizm touched by Lazers of its owner's colour)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import shapely

from ryderz_env.rules.events import RyderzEvent as E
from ryderz_env.rules.geometry import (
    Element,
    Pose,
    crossing_parts,
    polygon,
)

if TYPE_CHECKING:
    pass
from ryderz_env.rules.records import (
    SLIDE_BISECTIONS,
    SLIDE_STEPS,
    Outcome,
    Prizm,
    RiderTurn,
)
from ryderz_env.rules.table_index import TableIndex


class Scoring(TableIndex):
    """Scoring, slides and locks."""

    # ------------------------------------------------------------------ protocol: queries
    def locked(self, j: int) -> bool:
        """Whether Prizm ``j`` is locked (computed from the table, never stored)."""
        return self._locked_by(self.prizms[j], self._touching_colours(j))

    # ------------------------------------------------------------------ scoring
    def _disc(self, j: int) -> shapely.Polygon:
        pz = self.prizms[j]
        return polygon(self.game.disc_local + np.array([pz.x, pz.y]))

    def _prizms_near(self, bbox: tuple[float, float, float, float]) -> list[int]:
        """Indices of the Prizms whose disc's bounding box meets ``bbox``."""
        r = self.game.rules.prizm_radius
        x0, y0, x1, y1 = bbox
        return [
            j
            for j, q in enumerate(self.prizms)
            if x0 <= q.x + r and x1 >= q.x - r and y0 <= q.y + r and y1 >= q.y - r
        ]

    def _head_inside(self, seat: int, j: int) -> bool:
        head = self.players[seat].head
        if head is None:
            return False
        tx, ty = head.ahead(self.game.pieces.tip)
        pz = self.prizms[j]
        return math.hypot(tx - pz.x, ty - pz.y) < self.game.rules.prizm_radius

    def _score_piece(self, seat: int, el: Element) -> None:
        """Score every Prizm the Lazer has now crossed completely (this turn's and the
        previous turn's pieces together), ``el`` being the newest piece; then the
        free-floating ones among them slide along ``el`` (``_slide_scored``)."""
        r = self.game.rules
        p = self.players[seat]
        sliding: list[int] = []
        for j in self._prizms_near(el.bbox):
            if self.prizms[j].owner == seat:
                continue
            disc = self._disc(j)
            if not shapely.intersects(disc, el.poly) or self._head_inside(seat, j):
                continue
            recent = [
                e.poly for e in p.lazer if not e.is_launch and e.turn in (self.turn_id, p.prev_turn)
            ]
            if crossing_parts(disc, recent, r.min_part_area, r.joint_tolerance) >= 2:
                if len(self._touching_colours(j)) < 2:  # decided before recolouring
                    sliding.append(j)
                self._take_prizm(seat, j)
                if self.score(seat) >= r.win_prizms:
                    break
        if sliding:
            self._slide_scored(el, sliding)
        if self.score(seat) >= r.win_prizms:  # after the slides: the game's last step
            self._end(Outcome.WIN, seat)

    def _take_prizm(self, seat: int, j: int) -> None:
        r = self.game.rules
        pz = self.prizms[j]
        self.prizms[j] = Prizm(pz.x, pz.y, seat)
        self._touch.pop(j, None)
        stolen = f" from seat {pz.owner}" if pz.owner >= 0 else ""
        if self.events is not None:
            self._event(E.SCORE, seat, prizm=j, stolen=stolen, owner=pz.owner)
        cast("RiderTurn", self.turn).scored.append(j)
        if pz.owner < 0:
            cast("RiderTurn", self.turn).tosses += 1
        elif r.powers:
            self.players[pz.owner].power_ready = True  # theft recharges the victim's power

    def _slide_scored(self, el: Element, js: list[int]) -> None:
        """Slide the free-floating Prizms ``js`` just scored by piece ``el``, the last
        crossed (furthest along the piece) first, each coming to rest before the next
        moves (``_slide_target``): Prizms scored by one piece end up touching in a row."""
        shape = self.game.shapes[(el.kind, el.gear, el.side)]
        start = {j: self._centreline_at(el, shape, self.prizms[j]) for j in js}
        for j in sorted(js, key=lambda k: (-start[k], k)):
            pz = self.prizms[j]
            x, y = self._slide_target(el, shape, j, start[j])
            if (x, y) != (pz.x, pz.y):
                self.prizms[j] = Prizm(x, y, pz.owner)
                self._touch.pop(j, None)
                if self.events is not None:
                    self._event(E.SLIDE, None, prizm=j, x=x, y=y)

    @staticmethod
    def _centreline_at(el: Element, shape: Any, pz: Prizm) -> float:
        """The arc length along ``el``'s centreline nearest the Prizm's centre (where the
        Lazer crossed it), to a step of ``SLIDE_STEPS``."""
        pose = el.pose
        c, s = math.cos(pose.h), math.sin(pose.h)
        best, best_d = math.inf, 0.0
        for d, lx, ly in shape.samples(SLIDE_STEPS):
            # Pose.compose's arithmetic, written out (the same floats, a third of the time)
            wx = pose.x + c * lx - s * ly
            wy = pose.y + s * lx + c * ly
            dist = math.hypot(wx - pz.x, wy - pz.y)
            if dist < best:
                best, best_d = dist, d
        return best_d

    def _slide_target(self, el: Element, shape: Any, j: int, d0: float) -> tuple[float, float]:
        """Where scored Prizm ``j`` comes to rest on its scoring piece ``el``: it moves along
        the centreline from ``d0`` (where it was crossed) towards ``slide_back`` behind the
        exit, and stops where its disc would first touch another Prizm or leave the table
        (the last free point, found to ``SLIDE_BISECTIONS`` halvings of a step of
        ``SLIDE_STEPS``). If its disc is not free at ``d0`` it rests at the free point of
        the centreline nearest the slide's end; if the piece has none, it stays put."""
        r = self.game.rules
        end = max(0.0, shape.length - r.slide_back)
        step = shape.length / SLIDE_STEPS

        def free_at(d: float) -> tuple[float, float] | None:
            lx, ly = shape.point_at(d)
            w = el.pose.compose(Pose(lx, ly, 0.0))
            if not self.game.table.contains_point(w.x, w.y, r.prizm_radius):
                return None
            apart = 2.0 * r.prizm_radius
            for k, q in enumerate(self.prizms):
                if k != j and math.hypot(w.x - q.x, w.y - q.y) < apart:
                    return None
            return (w.x, w.y)

        here = free_at(d0)
        if here is None:
            points = [k * step for k in range(SLIDE_STEPS + 1)] + [end]
            for d in sorted(points, key=lambda d: (abs(d - end), -d)):
                got = free_at(d)
                if got is not None:
                    return got
            pz = self.prizms[j]
            return (pz.x, pz.y)
        sign = 1.0 if end >= d0 else -1.0
        last, last_xy = d0, here
        count = math.ceil(abs(end - d0) / step)
        for k in range(1, count + 1):
            d = end if k == count else d0 + sign * k * step
            got = free_at(d)
            if got is None:  # blocked between last and d: halve towards the touch
                lo, hi = last, d
                for _ in range(SLIDE_BISECTIONS):
                    mid = (lo + hi) / 2.0
                    got = free_at(mid)
                    if got is None:
                        hi = mid
                    else:
                        lo, last_xy = mid, got
                return last_xy
            last, last_xy = d, got
        return last_xy

    def _colours_near(self, js: list[int]) -> list[frozenset[int]]:
        """For each Prizm in ``js``, the owners of the Lazers touching its disc (known ones
        from ``_touch``, the others found and kept there)."""
        touch = self._touch
        missing = [j for j in js if j not in touch]
        if missing:
            for j, owners in zip(missing, self._find_colours(missing), strict=True):
                touch[j] = frozenset(owners)
        return [touch[j] for j in js]

    def _find_colours(self, js: list[int]) -> list[set[int]]:
        """:meth:`_colours_near` from the table: bounding boxes of all pairs in one numpy
        pass, exact distances of the near pairs in one shapely call."""
        r = self.game.rules
        reach = r.prizm_radius + r.touch_tolerance
        owners: list[set[int]] = [set() for _ in js]
        if not js:
            return owners
        els, polys = self._table_index()
        if not els:
            return owners
        pz = [self.prizms[j] for j in js]
        # x0 <= x + reach, y0 <= y + reach, x1 >= x - reach, y1 >= y - reach, the last two
        # negated (exactly) so that one comparison tests all four
        c = [(q.x + reach, q.y + reach, reach - q.x, reach - q.y) for q in pz]
        if len(js) == 1:  # (one Prizm, the usual case once colours are kept: a plain loop)
            cx0, cy0, cx1, cy1 = c[0]
            ei = np.array(
                [
                    i
                    for i, e in enumerate(els)
                    if e.bbox[0] <= cx0
                    and e.bbox[1] <= cy0
                    and -e.bbox[2] <= cx1
                    and -e.bbox[3] <= cy1
                ],
                dtype=np.intp,
            )
            pk = np.zeros(len(ei), dtype=np.intp)
        else:
            # (the four booleans of a pair read as one 4-byte word: all true is 0x01010101)
            pk, ei = np.nonzero(
                (self._box_array()[None] <= np.array(c)[:, None]).view(np.uint32)[..., 0]
                == 0x01010101
            )
        if len(pk):
            pts = shapely.points([(pz[k].x, pz[k].y) for k in pk.tolist()])
            d = shapely.distance(pts, polys[ei])
            for k, i, di in zip(pk.tolist(), ei.tolist(), d.tolist(), strict=True):
                if di < reach:
                    owners[k].add(els[i].owner)
        return owners

    def _table_changed(
        self, added: Element | None = None, removed: list[list[Element]] | None = None
    ) -> None:
        """The table's pieces changed: by ``added`` alone, or by the groups of pieces
        ``removed`` alone (one of the two is given). An added piece adds its owner to the
        known colours of the Prizms it touches (the same box and distance tests as
        ``_find_colours``, so the same answer as finding them again); a Prizm within reach of
        a removed group's bounding box has its colours found again when next asked."""
        self._index = None
        touch = self._touch
        if not touch:
            return
        r = self.game.rules
        reach = r.prizm_radius + r.touch_tolerance
        if removed is not None:
            reach += 1e-9  # (a box test for sure, whatever the rounding)
            for group in removed:
                if not group:
                    continue
                x0 = min(e.bbox[0] for e in group) - reach
                y0 = min(e.bbox[1] for e in group) - reach
                x1 = max(e.bbox[2] for e in group) + reach
                y1 = max(e.bbox[3] for e in group) + reach
                for j in [
                    j for j in touch if x0 <= (q := self.prizms[j]).x <= x1 and y0 <= q.y <= y1
                ]:
                    del touch[j]
            return
        added = cast(Element, added)  # given when removed is not
        x0, y0, x1, y1 = added.bbox
        near = [
            j
            for j, owners in touch.items()
            if added.owner not in owners
            and x0 <= (q := self.prizms[j]).x + reach
            and y0 <= q.y + reach
            and -x1 <= reach - q.x
            and -y1 <= reach - q.y
        ]
        if near:
            pts = shapely.points([(self.prizms[j].x, self.prizms[j].y) for j in near])
            for j, d in zip(near, shapely.distance(pts, added.poly).tolist(), strict=True):
                if d < reach:
                    touch[j] = touch[j] | {added.owner}

    def _touching_colours(self, j: int) -> frozenset[int]:
        return self._colours_near([j])[0]

    def locks(self) -> list[bool]:
        """:meth:`locked` for every Prizm at once."""
        colours = self._colours_near(list(range(len(self.prizms))))
        if not any(colours):  # no Lazer touches a Prizm (no colour: not locked)
            return [False] * len(colours)
        return [self._locked_by(q, o) for q, o in zip(self.prizms, colours, strict=True)]
