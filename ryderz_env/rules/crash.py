"""The end of a turn: Prizms nudged, crashes (and what each player loses), respawns,
Prizm tosses."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np
import shapely

from ryderz_env.rules.actions import Action
from ryderz_env.rules.events import RyderzEvent as E
from ryderz_env.rules.geometry import (
    Element,
    contact_parts,
    joint_line,
    nudge_point,
)
from ryderz_env.rules.tasks import Task

if TYPE_CHECKING:
    pass
from ryderz_env.rules.launch import Launch
from ryderz_env.rules.records import (
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
    Prizm,
    RiderTurn,
)


class Crash(Launch):
    """Nudges, crashes, respawns and tosses."""

    # ------------------------------------------------------------------ end of the turn
    def _t_resolve(self, seat: int) -> None:
        """Nudges, then the crash, then respawn and reappearing Prizms."""
        self._nudge_passed_over(seat)
        respawn: list[Task] = [("respawn", seat)] if self._crash_step(seat) else []
        tosses = cast("RiderTurn", self.turn).tosses
        self._push(*respawn, *[("toss",) for _ in range(tosses)])

    def _nudge_passed_over(self, seat: int) -> None:
        r = self.game.rules
        p = self.players[seat]
        near: dict[int, list[Element]] = {}  # Prizm -> this turn's pieces near it
        for e in p.lazer:
            if e.turn == self.turn_id and not e.is_launch:
                for j in self._prizms_near(e.bbox):
                    near.setdefault(j, []).append(e)
        passed = []
        for j in sorted(near):
            if j in cast("RiderTurn", self.turn).scored or self._head_inside(seat, j):
                continue
            disc = self._disc(j)
            if sum(shapely.intersection(disc, e.poly).area for e in near[j]) >= r.min_part_area:
                passed.append(j)
        # a Nudge moves one Prizm and a lock depends on that Prizm and the Lazers only, so
        # the locks of all passed-over Prizms can be decided together
        for j, colours in zip(passed, self._colours_near(passed), strict=True):
            if not self._locked_by(self.prizms[j], colours):
                self._nudge(j)

    def _nudge(self, j: int) -> None:
        r = self.game.rules
        pz = self.prizms[j]
        others = [(q.x, q.y) for i, q in enumerate(self.prizms) if i != j]
        els, polys = self._table_index()
        target = nudge_point(
            (pz.x, pz.y),
            list(polys),
            others,
            self.game.table,
            r.prizm_radius,
            r.nudge_clearance,
            r.touch_tolerance,
            boxes=[e.bbox for e in els],
            grown=lambda near: self.game.nudge_obstacles_of([els[i] for i in near]),
        )
        if target is not None:
            self.prizms[j] = Prizm(target[0], target[1], pz.owner)
            self._touch.pop(j, None)
            if self.events is not None:
                self._event(E.NUDGE, None, prizm=j, x=float(target[0]), y=float(target[1]))

    def _crash_step(self, seat: int) -> bool:
        """Apply the crash rule to this turn's pieces; True when the mover crashed."""
        t = cast("RiderTurn", self.turn)
        if t.phantom:
            return False
        p = self.players[seat]
        crashed = t.shark and not t.scored
        hits: dict[int, int] = {}  # victim seat -> index of its newest hit element
        table, tol = self.game.table, self.game.rules.touch_tolerance
        for idx, el in enumerate(p.lazer):
            if el.turn != self.turn_id or el.is_launch:
                continue
            if not table.holds(el.coords, el.poly, tol, el.bbox):
                crashed = True
            # the elements it nests with: its predecessor and, in a turn of several pieces,
            # its successor (each joint is excused from both sides)
            joints = []
            if idx > 0 and p.lazer[idx - 1].exit == el.pose:
                joints.append(p.lazer[idx - 1])
            if idx + 1 < len(p.lazer) and p.lazer[idx + 1].pose == el.exit:
                joints.append(p.lazer[idx + 1])
            # a joint that can only touch at the joint is excused unmeasured
            skip = [j for j in joints if self._joint_only(el, j)]
            for other in self._touching(el, exclude=skip):
                if self._contact_excused(el, other, joints):
                    continue
                crashed = True
                if other.owner != seat:
                    lazer = self.players[other.owner].lazer
                    k = next(i for i, e in enumerate(lazer) if e is other)
                    hits[other.owner] = max(hits.get(other.owner, -1), k)
        if not crashed:
            return False
        removed = [p.lazer]
        if self.events is not None:
            self._event(E.CRASH, seat, pieces=sum(1 for e in p.lazer if not e.is_launch))
        for victim, k in sorted(hits.items()):
            v = self.players[victim]
            keep = v.lazer[-1:] if k == len(v.lazer) - 1 else v.lazer[k + 1 :]
            removed.append(v.lazer[: len(v.lazer) - len(keep)])
            lost = sum(1 for e in removed[-1] if not e.is_launch)
            if self.events is not None:
                self._event(E.HIT, victim, pieces=lost)
            for e in removed[-1]:
                if not e.is_launch:
                    v.supply[e.gear - 1][e.kind] += 1
            v.lazer = keep
        for e in p.lazer:
            if not e.is_launch:
                p.supply[e.gear - 1][e.kind] += 1
        p.lazer, p.head = [], None
        self._table_changed(removed=removed)
        return True

    def _joint_only(self, el: Element, other: Element) -> bool:
        """True when ``el`` and ``other``, nested, can touch only at their joint, a contact
        that ``_contact_excused`` always excuses: a shape pair of ``geometry.clean_joints``
        and no Prizm disc near both (so the crash step need not measure it)."""
        pred, piece = (other, el) if other.exit == el.pose else (el, other)
        if (
            (pred.kind, pred.gear, pred.side),
            (piece.kind, piece.gear, piece.side),
        ) not in self.game.clean_joints:
            return False
        return not self._prizms_near_both(el, other)

    def _prizms_near_both(self, a: Element, b: Element) -> list[int]:
        """Prizms whose disc's bounding box meets both elements' boxes (in one pass: a box
        meets both when it meets the box of their greater lower and lesser upper bounds)."""
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.bbox, b.bbox
        return self._prizms_near((max(ax0, bx0), max(ay0, by0), min(ax1, bx1), min(ay1, by1)))

    def _contact_excused(self, el: Element, other: Element, joints: list[Element]) -> bool:
        """Contact at the joint where ``el`` and ``other`` nest (``other`` in ``joints``),
        or wholly inside one Prizm disc."""
        r = self.game.rules
        tol = r.touch_tolerance
        joint = None
        if any(other is j for j in joints):
            at = other.exit if other.exit == el.pose else el.exit
            joint = shapely.linestrings(
                joint_line(at, self.game.pieces.width, self.game.pieces.tip)
            )
        discs = [(self.prizms[j].x, self.prizms[j].y) for j in self._prizms_near_both(el, other)]
        if joint is None and not discs:
            return False
        for part in contact_parts(el.poly, other.poly, tol):
            v = shapely.get_coordinates(part)
            if (
                joint is not None
                and float(np.max(shapely.distance(shapely.points(v), joint))) <= r.joint_tolerance
            ):
                continue
            if any(
                float(np.max(np.hypot(v[:, 0] - cx, v[:, 1] - cy))) <= r.prizm_radius + tol
                for cx, cy in discs
            ):
                continue
            return False
        return True

    def _t_respawn(self, seat: int) -> None:
        self.decision = Decision(DecisionKind.RESPAWN, seat)

    def _d_respawn(self, d: Decision, acts: dict[int, Action]) -> None:
        seat = d.seat
        a = acts[seat]
        p = self.players[seat]
        p.gear, p.stalled = a.arg, False
        if self.events is not None:
            self._event(E.RESPAWN, seat, gear=p.gear)
        self._push(("launch", seat, a.x))

    def _t_toss(self) -> None:
        self.chance = Chance(ChanceKind.TOSS)

    def _c_toss(self, ch: Chance, point: tuple[float, float]) -> None:
        self.prizms.append(Prizm(point[0], point[1]))
        j = len(self.prizms) - 1
        if self.events is not None:
            self._event(E.TOSS, None, prizm=j, x=float(point[0]), y=float(point[1]))
        r = self.game.rules
        reach = 2 * r.prizm_radius + r.touch_tolerance
        crowded = any(math.hypot(q.x - point[0], q.y - point[1]) < reach for q in self.prizms[:-1])
        if crowded or self._touching_colours(j):
            self._nudge(j)  # a fresh Prizm is never locked

    def _t_turn_end(self, seat: int) -> None:
        self.players[seat].prev_turn = self.turn_id
        self.turn = None
