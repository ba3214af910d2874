"""What a Lazer Ryderz seat may do: the legal actions of every decision and why an action
is not legal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ryderz_env.rules.actions import Action, ActionKind, Move
from ryderz_env.rules.config import Character

if TYPE_CHECKING:
    pass
from ryderz_env.rules.records import (
    Decision,
    DecisionKind,
)
from ryderz_env.rules.scoring import Scoring


class Legal(Scoring):
    """Legal actions."""

    # ------------------------------------------------------------------ decisions
    def _legal_key(self, seat: int) -> Any:
        """The key of ``Game.action_lists`` that holds ``seat``'s legal actions now (launch
        and move decisions), or None."""
        kind = cast(Decision, self.decision).kind
        if kind is DecisionKind.ENGINES or kind is DecisionKind.RESPAWN:
            return "launch"
        if kind is DecisionKind.MOVE:
            return (
                "move",
                self.players[seat].gear,
                self._power_ready(seat, Character.GALACTIC_WAVERYDER),
            )
        return None

    def _why_illegal(self, seat: int, a: Action) -> str | None:
        """:meth:`illegal_reason` for a deciding seat and an action already converted."""
        kind = cast(Decision, self.decision).kind
        if kind is DecisionKind.ENGINES or kind is DecisionKind.RESPAWN:
            top = self.game.top_gear
            if a.kind is not ActionKind.LAUNCH or not 1 <= a.arg <= top:
                return f"{a} is not a launch; a launch is a gear 1-{top} and a position x"
            if not (isinstance(a.x, float) and -1.0 <= a.x <= 1.0):
                lo, hi = self.game.table.reach(seat, len(self.players))
                return (
                    f"Launch Point position {a.x!r} is outside reach: x must lie in "
                    f"[-1, 1] (the edge from {lo:.2f} to {hi:.2f} inches along the "
                    f"perimeter)"
                )
            return None
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._compute_legal(seat)
        if a in legal:
            return None
        return (
            f"{a} is not legal for seat {seat} at {kind}; legal: {', '.join(str(x) for x in legal)}"
        )

    def _compute_legal(self, seat: int) -> list[Action]:
        g = self.game
        key = self._legal_key(seat)
        if key is not None:  # launches and moves: the same lists for every state of the game
            cached = g.action_lists.get(key)
            if cached is None:
                cached = g.action_lists[key] = tuple(
                    (
                        Action(ActionKind.LAUNCH, gear, x)
                        for gear in range(1, g.top_gear + 1)
                        for x in g.launch_spread
                    )
                    if key == "launch"
                    else self._move_actions(key[1], key[2])
                )
            return list(cached)
        kind = cast(Decision, self.decision).kind
        if kind is DecisionKind.POWER:
            acts = [Action(ActionKind.DECLINE)]
            char = g.rules.characters[seat]
            if char is Character.PHANTOM_COSMONAUT:
                acts.append(Action(ActionKind.PHANTOM))
            elif char is Character.SUPER_SHERIFF:
                acts += [
                    Action.sheriff(o, top)
                    for o in range(len(self.players))
                    if o != seat
                    for top in (False, True)
                ]
            return acts
        yes = ActionKind.BONUS if kind is DecisionKind.BONUS else ActionKind.SHARK
        return [Action(yes), Action(ActionKind.DECLINE)]

    def _move_actions(self, gear_now: int, wave: bool) -> list[Action]:
        """The MOVE actions from ``gear_now`` (the same for every state of the game)."""
        g = self.game
        acts = []
        for shift in (-1, 0, 1):
            gear = gear_now + shift
            if not 1 <= gear <= g.top_gear:
                continue
            moves = [Move.STRAIGHT, Move.SOFT_LEFT, Move.SOFT_RIGHT]
            if g.has_hard[gear]:
                moves += [Move.HARD_LEFT, Move.HARD_RIGHT]
            if wave and gear in g.wave_gears:
                moves += [
                    Move.WAVE_LEFT_LEFT,
                    Move.WAVE_LEFT_RIGHT,
                    Move.WAVE_RIGHT_LEFT,
                    Move.WAVE_RIGHT_RIGHT,
                ]
            acts += [Action.move(shift, m) for m in moves]
        return acts

    def _power_ready(self, seat: int, character: Character) -> bool:
        r = self.game.rules
        return r.powers and r.characters[seat] is character and self.players[seat].power_ready
