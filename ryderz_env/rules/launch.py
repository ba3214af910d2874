"""Start Your Engines and relaunches: gears chosen, dealt after the redos, blind Launch
Points placed with their noise, and the search for a clear place on the edge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ryderz_env.rules.actions import Action
from ryderz_env.rules.events import RyderzEvent as E
from ryderz_env.rules.geometry import (
    Element,
)

if TYPE_CHECKING:
    pass
from ryderz_env.rules.legal import Legal
from ryderz_env.rules.records import (
    Chance,
    ChanceKind,
    Decision,
    DecisionKind,
)


class Launch(Legal):
    """Start Your Engines and Launch Points."""

    # ------------------------------------------------------------------ Start Your Engines
    def _t_engines(self, attempt: int) -> None:
        self.decision = Decision(
            DecisionKind.ENGINES, seats=tuple(range(len(self.players))), attempt=attempt
        )

    def _d_engines(self, d: Decision, acts: dict[int, Action]) -> None:
        gears = {s: a.arg for s, a in acts.items()}
        counts = {g: list(gears.values()).count(g) for g in gears.values()}
        stalled = {s for s, g in gears.items() if counts[g] > 1}
        spots = [(s, acts[s].x) for s in sorted(acts)]
        for s in sorted(gears):
            if self.events is not None:
                self._event(
                    E.ENGINES, s, gear=gears[s], stalled=" (stalled)" if s in stalled else ""
                )
        if len(stalled) == len(self.players):
            if d.attempt < self.game.rules.max_redos:
                if self.events is not None:
                    self._event(E.REDO, None)
                self._push(("engines", d.attempt + 1))
            else:  # no more redos: the gears are dealt
                self.chance = Chance(ChanceKind.DEAL_GEARS, spots=tuple(spots))
            return
        for s, g in gears.items():
            p = self.players[s]
            p.stalled = s in stalled
            p.gear = 1 if p.stalled else g
        self._set_marker_and_launch(spots)

    def _c_deal_gears(self, ch: Chance, index: int) -> None:
        for s, g in enumerate(self.game.gear_deals[index]):
            self.players[s].gear, self.players[s].stalled = g, False
            if self.events is not None:
                self._event(E.DEALT, s, gear=g)
        self._set_marker_and_launch(ch.spots)

    def _set_marker_and_launch(self, spots: Sequence[Sequence[Any]]) -> None:
        top = max(p.gear for p in self.players)
        leader = next(p.seat for p in self.players if p.gear == top and not p.stalled)
        self.marker = (leader + 1) % len(self.players)
        # blind placement in seat order clockwise from seat 0 (the rules' start order)
        self._push(*[("launch", s, x) for s, x in spots])

    def _t_launch(self, seat: int, x: float) -> None:
        if self.game.rules.launch_noise_sigma > 0:
            self.chance = Chance(ChanceKind.LAUNCH_NOISE, seat, x)
        else:
            self._place_launch(seat, x, 0.0)

    def _c_launch_noise(self, ch: Chance, offset: float) -> None:
        self._place_launch(ch.seat, cast(float, ch.x), offset)

    def _place_launch(self, seat: int, x: float, offset: float) -> None:
        """Blind placement: the chosen spot plus noise, clipped to reach, then moved along the
        edge to the nearest position clear of every Launch Point and Lazer."""
        lo, hi = self.game.table.reach(seat, len(self.players))
        t = min(hi, max(lo, lo + (x + 1.0) / 2.0 * (hi - lo) + offset))
        el = self._free_launch(seat, t)
        p = self.players[seat]
        if p.lazer:
            old, p.lazer = p.lazer, []
            self._table_changed(removed=[old])
        p.lazer = [el]
        p.head = el.exit
        self._table_changed(el)
        if self.events is not None:
            self._event(E.LAUNCH, seat, t=el.t)

    def _launch_clear(self, seat: int, t: float) -> Element | None:
        """The Launch Point at ``t`` when that place is allowed and clear, else None."""
        if self.game.rules.odd_table.start_far_sides and not self.game.table.on_far_side(t):
            return None
        el = self.game.launch_element(seat, t, self.turn_id)
        return None if self._touching(el, exclude=None) else el

    def _free_launch(self, seat: int, t: float) -> Element:
        """The Launch Point at the nearest clear place along the edge from ``t``."""
        el = self._launch_clear(seat, t)
        if el is not None:
            return el
        step = self.game.rules.launch_search_step
        half = self.game.table.perimeter / 2.0
        k = 1
        while k * step <= half:
            found: list[Element] = []
            for sign in (1.0, -1.0):
                cand = t + sign * k * step
                clear = self._launch_clear(seat, cand)
                if clear is not None:
                    blocked = cand - sign * step
                    for _ in range(40):  # bisect to the edge of the free stretch
                        mid = (blocked + cand) / 2.0
                        at_mid = self._launch_clear(seat, mid)
                        if at_mid is not None:
                            cand, clear = mid, at_mid
                        else:
                            blocked = mid
                    found.append(clear)
            if found:
                return min(found, key=lambda e: (abs(e.t - t), -e.t))  # ties: clockwise
            k += 1
        # nowhere free on the whole edge: it stays where it landed
        return self.game.launch_element(seat, t, self.turn_id)
