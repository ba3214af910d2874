"""The Lazer Ryderz game definition: rules, pieces, table, action codec."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely import Polygon

from ryderz_env.rules.actions import Action, ActionCodec, ActionKind
from ryderz_env.rules.config import (
    MAX_LAUNCH_SEARCH_STEPS,
    PieceKind,
    RulesConfig,
    load_rules,
    pieces_from_data,
    table_from_data,
)
from ryderz_env.rules.geometry import (
    LAUNCH_KEY,
    Element,
    PieceShape,
    ShapeKey,
    Table,
    build_shapes,
    clean_joints,
    disc_coords,
    launch_exit,
    launch_outline,
    make_element,
    nudge_obstacles,
    polygon,
    squared_table,
    to_world,
)
from ryderz_env.rules.state import State, gear_deals
from tabletop.errors import ConfigError, IllegalActionError
from tabletop.gamebase import GameBase, checked_seed
from tabletop.protocol import GameInfo

NAME = "lazer_ryderz"
# decisions a turn can ask: power, bonus, move, shark, respawn
_DECISIONS_PER_TURN = 5
#: pieces whose Nudge obstacles a game keeps (all forgotten when it is full)
NUDGE_CACHE = 1024


class Game(GameBase):
    """An immutable Lazer Ryderz game. ``Game()`` is the standard four-player game on the
    36-inch round table without Power Prizms.

    ``config`` is a :class:`RulesConfig`, a path to a rules YAML, or None for the default;
    keyword ``overrides`` replace top-level rules keys (``num_players=2``, ``powers=True``,
    ``table="small"`` or a table file path).
    """

    rules: RulesConfig
    codec: ActionCodec
    rules_class = RulesConfig
    serialize_module = "ryderz_env.rules.serialize"
    file_fields = ("pieces", "table")

    def __init__(
        self,
        config: RulesConfig | str | Path | None = None,
        *,
        files: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> None:
        self.rules = rules = self.resolve_rules(config, overrides, load_rules)
        data = self.read_files(files)
        self.pieces = pieces_from_data(data["pieces"], self._source("pieces"))
        square = rules.odd_table.square_edge
        try:
            table = table_from_data(data["table"], self._source("table"))
            if square:  # the fence: every player's straights of the top gear, end to end
                top = self.pieces.gears[-1]
                table = squared_table(table, top.straight * top.supply.straight * rules.num_players)
            self.table = Table(table, self.pieces.arc_max_sagitta)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if self.table.perimeter / rules.launch_search_step > MAX_LAUNCH_SEARCH_STEPS:
            raise ConfigError(
                f"launch_search_step {rules.launch_search_step} cuts this table's edge "
                f"({self.table.perimeter:.1f} in) into more than {MAX_LAUNCH_SEARCH_STEPS} "
                f"steps: give at least {self.table.perimeter / MAX_LAUNCH_SEARCH_STEPS:.4f}"
            )
        #: the table modifications follow the shortest surface dimension (fact); a squared
        #: table plays the small-table rule whatever its size (the rulebook's option)
        self.small_table = square or self.table.min_width < rules.small_table_below
        self.large_table = not square and self.table.min_width > rules.large_table_above
        if not 0 < 2 * rules.prizm_radius < self.table.min_width:
            # (a Prizm of a huge radius failed in disc_coords, or made a disc of millions of
            # vertices that every scoring step measured)
            raise ConfigError(
                f"prizm_radius must be positive and a Prizm must fit on the table (diameter "
                f"below its narrowest width, {self.table.min_width:.2f} in); got "
                f"{rules.prizm_radius}"
            )
        gears = self.pieces.gears
        supply = [
            [g.count(PieceKind.STRAIGHT), g.count(PieceKind.SOFT), g.count(PieceKind.HARD)]
            for g in gears
        ]
        self.top_gear = len(gears)
        if self.small_table:  # no 5th straights, 4th soft turns or 3rd hard turns
            if len(gears) < 5:
                raise ConfigError("the small-table rule needs the five standard gears")
            supply[4][PieceKind.STRAIGHT] = 0
            supply[3][PieceKind.SOFT] = 0
            supply[2][PieceKind.HARD] = 0
            self.top_gear = 4
        self.supply = tuple(tuple(g) for g in supply[: self.top_gear])
        #: has_hard[gear]: the gear's piece set has hard turns (curve attempts may name hard)
        self.has_hard = {
            g: self.supply[g - 1][PieceKind.HARD] > 0 for g in range(1, self.top_gear + 1)
        }
        #: Galactic Waveryder's gears: those with hard turns in the full piece set (1-3 by
        #: the rules, on a small table too, where 3rd gear then uses lower hard turns)
        self.wave_gears = frozenset(
            g.gear for g in gears if g.hard is not None and g.gear <= self.top_gear
        )
        self.shapes: dict[tuple[PieceKind, int, int], PieceShape] = build_shapes(self.pieces)
        #: (predecessor, piece) shape pairs that can only touch at the joint
        self.clean_joints = clean_joints(
            self.pieces, self.table.cfg.launch_point, rules.touch_tolerance, rules.joint_tolerance
        )
        lp = self.table.cfg.launch_point
        self.launch_local = launch_outline(lp.width, lp.depth, self.pieces.width, self.pieces.tip)
        self.launch_exit = launch_exit(lp.depth, self.pieces.tip)
        self.disc_local = disc_coords(rules.prizm_radius, self.pieces.arc_max_sagitta)
        n = rules.num_players
        #: each seat's Launch Point frame straight in front of it (the observers' frame
        #: before a launch or after a crash)
        self.seat_frames = tuple(
            self.table.launch_frame(self.table.seat_position(s, n)) for s in range(n)
        )
        self.start_prizms = self._start_prizms()
        self.gear_deals = gear_deals(self.top_gear, n)
        if not self.gear_deals:
            raise ConfigError(f"{n} players cannot get distinct gears out of {self.top_gear}")
        #: legal action lists that depend on the game only, filled by State as they come up:
        #: "launch" (every gear and spread position), ("move", gear, Waveryder power ready)
        self.action_lists: dict[Any, tuple[Action, ...]] = {}
        #: their codec ints, sorted, per key of ``action_lists``
        self.action_ints: dict[Any, list[int]] = {}
        #: per piece on some table, where a nudged Prizm may not lie because of it
        #: (``geometry.nudge_obstacles``; pieces are immutable and shared between states);
        #: emptied when full, and not pickled
        self.nudge_obstacles: dict[Element, Polygon] = {}
        #: per shape (``ShapeKey``), the outline of its Nudge obstacle in the piece's frame
        #: (a buffer, costly: worked out once per shape, then placed like the piece)
        self._nudge_outlines: dict[ShapeKey, np.ndarray | None] = {}
        k = rules.launch_spread
        self.launch_spread = tuple(0.0 if k == 1 else -1.0 + 2.0 * i / (k - 1) for i in range(k))
        self.codec = ActionCodec(n, self.top_gear)
        self.info = GameInfo(
            name=NAME,
            num_players=n,
            num_distinct_actions=len(self.codec),
            max_game_length=rules.round_limit * n * _DECISIONS_PER_TURN + rules.max_redos + 1,
            min_utility=-rules.win_reward / (n - 1),
            max_utility=rules.win_reward,
        )

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["nudge_obstacles"] = {}  # a cache of costly buffers, found again when asked
        return state

    def nudge_obstacles_of(self, els: list[Element]) -> list[Polygon]:
        """``geometry.nudge_obstacles`` of pieces on the table, kept (pieces are immutable).

        Growing a shape by a distance commutes with turning and moving it, so a piece's
        obstacle is its shape's obstacle (:meth:`nudge_outline`) placed at the piece's pose:
        the same polygon up to the rounding of the placement (~1e-14 in; the obstacles are
        grown 1e-9 in more than the clearance, ``geometry.inflate``)."""
        cache = self.nudge_obstacles
        out = []
        for el in els:  # read once per element: another thread may clear the cache meanwhile
            grown = cache.get(el)
            if grown is None:
                local = self.nudge_outline((el.kind, el.gear, el.side))
                grown = (
                    polygon(to_world(local, el.pose)) if local is not None else self._grow(el.poly)
                )
                if len(cache) >= NUDGE_CACHE:
                    cache.clear()
                cache[el] = grown
            out.append(grown)
        return out

    def nudge_outline(self, key: ShapeKey) -> np.ndarray | None:
        """The outline ((N, 2), not closed) of the Nudge obstacle of shape ``key`` in the
        piece's frame; None for a shape whose obstacle has holes (then grown where placed)."""
        if key not in self._nudge_outlines:
            local = self.launch_local if key == LAUNCH_KEY else self.shapes[key].outline
            grown = self._grow(polygon(local))
            self._nudge_outlines[key] = (
                None
                if grown.geom_type != "Polygon" or grown.interiors
                else shapely.get_coordinates(grown.exterior)[:-1]
            )
        return self._nudge_outlines[key]

    def _grow(self, poly: Polygon) -> Polygon:
        r = self.rules
        return nudge_obstacles([poly], r.prizm_radius, r.nudge_clearance)[0]

    def _start_prizms(self) -> list[tuple[float, float]]:
        """A regular polygon around the table's centre, its vertices facing the seats."""
        n = self.rules.num_players
        cx, cy = self.table.centre
        sx, sy = self.table.point_at(self.table.seat_position(0, n))
        a0 = math.atan2(sy - cy, sx - cx)
        rad = self.rules.start_prizm_radius
        return [
            (
                cx + rad * math.cos(a0 - 2 * math.pi * i / n),
                cy + rad * math.sin(a0 - 2 * math.pi * i / n),
            )
            for i in range(n)
        ]

    # ------------------------------------------------------------------ construction
    def launch_element(self, seat: int, t: float, turn: int) -> Element:
        """A Launch Point of ``seat`` at perimeter position ``t``."""
        frame = self.table.launch_frame(t)
        return make_element(
            seat,
            PieceKind.LAUNCH,
            0,
            0,
            frame,
            turn,
            self.launch_local,
            self.launch_exit,
            t=float(t),
        )

    if TYPE_CHECKING:
        # GameBase.state_from_dict, with this game's State (declared for the type checker)
        def state_from_dict(self, data: Mapping[str, Any]) -> State: ...

    def new_initial_state(self, seed: int | None = None) -> State:
        """A new game at Start Your Engines. The seed is stored for records; chance is
        always resolved by the caller with its own ``numpy.random.Generator``."""
        return State(self, checked_seed(seed))

    # ------------------------------------------------------------------ actions
    def int_to_action(self, index: int, x: float = 0.0) -> Action:
        """The action at flat ``index`` (a Launch Point gets position ``x``)."""
        if (
            isinstance(index, bool)
            or not isinstance(index, numbers.Integral | np.integer)
            or not 0 <= int(index) < len(self.codec)
        ):
            raise IllegalActionError(
                f"action index {index!r} out of range 0..{len(self.codec) - 1}"
            )
        return self.codec.decode(int(index), x)

    def action_to_json(self, action: Action | int) -> int | list[float]:
        """An action for records: its int, or ``[int, x]`` for a Launch Point."""
        a = self.as_action(action)
        i = self.codec.encode(a)
        return [i, a.x] if a.kind is ActionKind.LAUNCH else i

    def action_from_json(self, value: Any) -> Action:
        """Decode :meth:`action_to_json` output (``IllegalActionError`` if malformed)."""
        if isinstance(value, list) and len(value) == 2:
            x = value[1]
            if (
                isinstance(x, bool)
                or not isinstance(x, int | float)
                or not (math.isfinite(x) and -1.0 <= x <= 1.0)
            ):
                raise IllegalActionError(
                    f"a launch's position must be a number in [-1, 1], got {x!r}"
                )
            a = self.int_to_action(value[0], float(x))
            if a.kind is not ActionKind.LAUNCH:
                raise IllegalActionError(f"[{value[0]}, x]: only a launch has a position")
            return a
        return self.int_to_action(value)

    def as_action(self, action: Action | int) -> Action:
        """Accept an Action (or a plain (kind, arg, x) tuple) or the int of a non-launch."""
        if isinstance(action, Action):
            try:
                known = (action.kind, action.arg) in self.codec.index
            except TypeError:  # an unhashable field (a list, an array)
                known = False
            if not known:
                raise IllegalActionError(f"{action} is not an action of this game")
            if not isinstance(action.x, float) or not math.isfinite(action.x):
                raise IllegalActionError(f"position x must be a finite float, got {action.x!r}")
            if action.kind is not ActionKind.LAUNCH and action.x != 0.0:
                raise IllegalActionError(f"only a launch has a position; got x={action.x}")
            return action
        if isinstance(action, tuple) and len(action) in (2, 3):
            arg = action[1]
            if isinstance(arg, bool) or not isinstance(arg, numbers.Integral):
                raise IllegalActionError(
                    f"not an action: {action!r} (a (kind, arg, x) tuple's arg is an int, "
                    f"got {arg!r})"
                )
            try:
                kind = ActionKind(action[0])
                x = float(action[2]) if len(action) == 3 else 0.0
            except (TypeError, ValueError) as exc:
                raise IllegalActionError(f"not an action: {action!r} ({exc})") from None
            return self.as_action(Action(kind, int(arg), x))
        return self.int_to_action(action)
