"""A rule-based Lazer Ryderz bot: an exact one-turn lookahead over clones of the state, with a
geometric estimate of the turns after it.

Scoring a Prizm means crossing its disc completely with a strip 0.75 wide: the centre line of
the Lazer has to pass within about 0.37 in of the Prizm's centre. From the rim that is a
bearing within a degree or two, so the bot plays in *shots*: a line from a Launch Point aimed
at a Prizm (``ryderz_env.rules.aim``), or from the head of its Lazer after a curve, along
which straights will score. Every decision compares options by one figure, the bot's
*prospect* in Prizm units: its Prizms, less ``opponent_weight`` times the best opponent's,
plus the discounted chance of its next score (``discount`` per turn, the estimate below),
plus ``power_value`` while its power is ready. A win is worth ``WIN_UNITS``. With ``denial``
(0 in v1) the best opponent's estimated next score, its next turn's pieces tested against the
Lazers too, counts ``denial`` times against it: cutting a shot is then worth something.

**The estimate of the next score** (no engine calls, plain geometry). From a head pose, a
*target* (a Prizm not of the bot's colour; an opponent's counts ``1 + opponent_weight``) is on
the line when it lies ahead within ``line_tolerance`` of the heading, the corridor to it (a
Lazer wide) is clear of every Lazer and it is on the table; it is then scored in as many
turns as straights of the present gear take to get past it. One turn further, every curve and
straight the next move may place (the die's odds of a curve in that gear, the supply's
fall-backs) is placed in thought: a piece crossing a target, or a line from its exit, counts
one turn later (these next-turn pieces are tested against the table only, not against Lazers:
this turn's lookahead is exact, the estimate is not). A piece that would leave the table ends
in a crash, after which the bot
relaunches: the *relaunch value* is the best aimed Launch Point's chance of lining up a target
(the launch noise along the edge averaged over a few quadrature points), so driving to the
edge is always a fall-back, discounted by the turns to get there. The best of these is the
estimate. One Prizm short of the win, every target is worth a quarter of a win.

**Start Your Engines and respawn (ENGINES, RESPAWN).** Candidate Launch Points: for every
Prizm the position facing it (``aim_launches``), and ``launch_spread`` positions evenly along
the reach; each is rated by the targets on its straight line (all of them count; no corridor
test), averaged over the launch noise (a five-point Gauss-Hermite rule over the edge offset,
so a Prizm near the centre of a round table, whose line barely moves with the noise, is
preferred to one near the rim). It launches in top gear (longest straights, and first in the
round) on the best such line. When no candidate has a target on its line, each is rated by
the full estimate (curves next turn included) and it launches in ``curve_gear`` (3rd: hard
turns, and four chances in six of the curve) to steer. At Start Your Engines, a simultaneous
decision, it decides from the public table only (nothing of the others' choices is stored by
the engine, and it reads nothing pending) and draws its gear from its own generator among the
top ``engine_gears`` gears, so that two copies of it do not always stall each other out.

**Shift and move (MOVE).** Every legal shift-and-move action (Galactic Waveryder's double hard
turns included) is played on a clone to the end of the bot's turn: the curve die branches over
its three distinct effects (the curve, a straight, Spin Out) with their exact probabilities;
Lazer Shark's choice is taken as the better of its two branches; a Prizm toss or a respawn
ends the branch. Each end is rated by the prospect: its Prizms scored or stolen are exact, as
are a crash (it then relaunches: the relaunch value), the pieces it cut off an opponent, the
Prizms it Nudged (locked Prizms stay, and the engine decides which), and the win. The action
with the best expected prospect is played (the first in legal order among equals). A crash is
thus avoided whenever going on is worth more than relaunching, and sought when the line is
empty.

**Powers (POWER) and the large-table bonus (BONUS).** Phantom Cosmonaut and the bonus are
rated like a move: each option is applied on a clone and followed by the best move; the power
is spent only when it beats keeping it (worth ``power_value``). Super Sheriff targets the
opponent whose next score is nearest (its estimate above ``sheriff_threat``, or any opponent
one Prizm from winning): to 1st gear when that opponent has a straight line to a target (its
straights shrink to 1.5 in), to top gear when it has to steer (curves then rarely come).

**Lazer Shark (SHARK).** Both branches are played on clones to the end of the turn and rated
by the prospect: the extra straight is taken when it scores (else the Shark crashes, which the
rating sees) and declined otherwise.

**``value(state, seat)``**, for MCTS leaves. A terminal state gives its exact return.
Otherwise each seat's strength is its own prospect: its Prizms, plus ``estimate_weight``
times the estimate of its next score above (from its head, or its relaunch value when it has
none), plus its ready power; the chance that ``seat`` wins is a softmax of the strengths
(``value_temperature``), scaled by the chance that anyone wins before the round limit (the
Prizms still missing against the rounds left). The expected return follows on the scale of
``state.returns()``. (Until 2026-12-02 the strength counted only whether a head had a
straight line to a target; the estimate made MCTS's leaves see curves and relaunches. The
bot's play, which never calls ``value``, is unchanged: it is still ``heuristic`` v1.)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import shapely

from agents.bot import Tunable
from ryderz_env.rules import (
    Action,
    ActionKind,
    ChanceKind,
    Character,
    DecisionKind,
    PieceKind,
    Pose,
    State,
    aim_launches,
    launch_aim,
)

__all__ = ["RyderzHeuristic"]

#: a win (or an opponent's win, negated) in Prizm units: above anything a position can hold
WIN_UNITS = 100.0
#: Gauss-Hermite nodes and weights (probabilists', normalised) for the launch noise: five
#: points integrate a normal's effect on the line exactly up to degree 9 polynomials
_GH_NODES, _GH_WEIGHTS = np.polynomial.hermite_e.hermegauss(5)
_GH_WEIGHTS = _GH_WEIGHTS / _GH_WEIGHTS.sum()
#: perimeter positions of rated Launch Points are rounded to this (inches): a lateral error
#: of ~1e-3 in is nothing beside the 0.3 in of a shot, and the poses can then be kept
_T_QUANTUM = 2e-3
#: centre-line samples per piece when testing whether a piece crosses a Prizm
_CENTRELINE_SAMPLES = 8
#: a head inside a disc this far behind the Prizm's centre still completes the crossing
#: with its next piece (a crossing in progress: the disc radius)
_BEHIND_OK = 0.75


class RyderzHeuristic:
    """A strong rule-based Lazer Ryderz bot (``act``) and evaluator (``value``); see the
    module docstring for the reasoning per decision."""

    name = "heuristic"
    version = 1
    #: the ``heuristic:KEY=VALUE`` spec options (constructor keywords; defaults are v1's)
    tunables: ClassVar[dict[str, Tunable]] = {
        "discount": Tunable(float, 0.0, 1.0, "per-turn discount of a future score"),
        "opponent_weight": Tunable(float, 0.0, 10.0, "an opponent's Prizm against one's own"),
        "line_tolerance": Tunable(float, 0.01, 2.0, "inches off a Prizm's centre a shot may pass"),
        "power_value": Tunable(float, 0.0, 10.0, "a ready power in Prizm units"),
        "curve_gear": Tunable(int, 1, 4, "the launch gear when no line has a target"),
        "engine_gears": Tunable(int, 1, 4, "top gears drawn among at Start Your Engines"),
        "launch_spread": Tunable(int, 0, 72, "launch positions tried besides the aims"),
        "sheriff_threat": Tunable(float, 0.0, 10.0, "the threat Super Sheriff acts on"),
        "denial": Tunable(float, 0.0, 10.0, "the best opponent's estimated next score, against"),
    }

    def __init__(
        self,
        seed: int | None = None,
        *,
        discount: float = 0.8,
        opponent_weight: float = 0.7,
        line_tolerance: float = 0.3,
        power_value: float = 0.15,
        curve_gear: int = 3,
        engine_gears: int = 2,
        launch_spread: int = 9,
        sheriff_threat: float = 0.5,
        denial: float = 0.0,
        estimate_weight: float = 1.0,
        value_temperature: float = 1.5,
        rounds_per_prizm: float = 6.0,
    ) -> None:
        #: per-turn discount of a future score
        self.discount = discount
        #: an opponent's Prizm against one of ours (a steal is worth 1 + this)
        self.opponent_weight = opponent_weight
        #: how close to a Prizm's centre a line must pass to count as a shot (the disc is
        #: cut in two below about 0.37 in; a margin for rounding of the estimate)
        self.line_tolerance = line_tolerance
        #: a ready power, in Prizm units (spent only for more than this)
        self.power_value = power_value
        #: the launch gear when the line has no target (hard turns, 4/6 chance of a curve)
        self.curve_gear = curve_gear
        #: at Start Your Engines, the gear is drawn among this many top gears
        self.engine_gears = engine_gears
        #: launch positions tried besides the aims
        self.launch_spread = launch_spread
        #: an opponent's estimated next score above which Super Sheriff acts on it
        self.sheriff_threat = sheriff_threat
        #: the best opponent's estimated next score counts this much against the prospect
        #: (0 in v1: a move that cuts an opponent's line is then worth nothing extra)
        self.denial = denial
        #: ``value``: weight of the estimated next score against a Prizm held
        self.estimate_weight = estimate_weight
        #: ``value``: softmax temperature over the seats' strengths
        self.value_temperature = value_temperature
        #: ``value``: rounds one Prizm takes, to guess whether anyone wins before the limit
        self.rounds_per_prizm = rounds_per_prizm
        self.rng = np.random.default_rng(seed)
        self._game: Any = None
        self._relaunch_cache: dict[Any, float] = {}

    # ------------------------------------------------------------------ protocol
    def reset(self, seed: int | None = None) -> None:
        """Start afresh with the generator seeded by ``seed``."""
        self.rng = np.random.default_rng(seed)
        self._relaunch_cache = {}

    def act(self, state: State, seat: int) -> Action:
        """A legal action of ``seat`` at ``state`` (see the module docstring)."""
        self._bind(state.game)
        kind = state.decision_kind()
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        if kind in (DecisionKind.ENGINES, DecisionKind.RESPAWN):
            return self._launch(state, seat, engines=kind is DecisionKind.ENGINES)
        if kind is DecisionKind.MOVE:
            return self._best_move(state, seat, legal)[0]
        if kind is DecisionKind.SHARK:
            return max(legal, key=lambda a: self._after(state, seat, a))
        if kind is DecisionKind.POWER:
            return self._power(state, seat, legal)
        if kind is DecisionKind.BONUS:
            return max(legal, key=lambda a: self._after(state, seat, a))
        return legal[0]

    @staticmethod
    def extra_actions(state: State, seat: int) -> list[Action]:
        """Launches the engine's evenly spaced list leaves out: at a launch decision, one per
        legal gear and Prizm in reach, the Launch Point facing that Prizm (MCTS adds these
        to its candidates, ``agents.specs``)."""
        legal = state.legal_actions(seat)
        gears = sorted({a.arg for a in legal if a.kind is ActionKind.LAUNCH})
        if not gears:
            return []
        xs = [x for x in aim_launches(state, seat) if x is not None]
        return [Action.launch(g, x) for x in xs for g in gears]

    def value(self, state: State, seat: int) -> float:
        """Expected return of ``seat`` on the scale of ``state.returns()`` (exact when the
        game is over)."""
        if state.is_terminal():
            return state.returns()[seat]
        self._bind(state.game)
        g = state.game
        r = g.rules
        n = r.num_players
        z = np.array([self._strength(state, s) for s in range(n)]) * self.value_temperature
        z = np.exp(z - z.max())
        p_me = float(z[seat] / z.sum())
        missing = r.win_prizms - max(state.score(s) for s in range(n))
        rounds_left = max(0, r.round_limit - state.round)
        p_end = 1.0 - math.exp(-rounds_left / (self.rounds_per_prizm * max(1, missing)))
        w = r.win_reward
        return p_end * (p_me * w - (1.0 - p_me) * w / (n - 1))

    def prospect_parts(self, state: State, seat: int) -> tuple[int, float, float]:
        """``(Prizms held, estimate of the next score in Prizms, worth of a ready power)`` of
        ``seat``: the parts of its prospect (public facts only)."""
        self._bind(state.game)
        return self._own_prospect(state, seat)

    def _strength(self, state: State, seat: int) -> float:
        """A seat's own prospect: its Prizms, its estimated next score (``estimate_weight``
        times the prospect's estimate) and its ready power, in Prizm units."""
        mine, est, power = self._own_prospect(state, seat)
        return mine + self.estimate_weight * est + power

    # ------------------------------------------------------------------ set-up per game
    def _bind(self, game: Any) -> None:
        """Work out the per-game tables (piece poses, centre lines) once per game."""
        if game is self._game:
            return
        self._game = game
        self._relaunch_cache = {}
        self._aim = launch_aim(game)
        #: head poses of Launch Points by perimeter position (in ``_T_QUANTUM`` steps)
        self._launch_poses: dict[int, Pose] = {}
        self._tip = game.pieces.tip
        self._radius = game.rules.prizm_radius
        self._half_width = game.pieces.width / 2.0
        faces = game.rules.die_faces
        top = game.top_gear
        #: the chance that a curve attempt in gear g places the curve (roll >= g or Spin Out)
        self._p_curve = {
            gear: sum(1 for f in faces if f == 0 or f >= gear) / len(faces)
            for gear in range(1, top + 1)
        }
        #: per shape: the exit pose and centre-line samples in the piece's frame
        self._local = {
            key: (sh.exit, sh.centreline(_CENTRELINE_SAMPLES)) for key, sh in game.shapes.items()
        }
        #: per shape, a disc holding its centreline: (centre x, centre y, radius), local
        self._line_disc = {key: _disc_around(line) for key, (_e, line) in self._local.items()}
        self._straight_len = {
            gear: game.shapes[(PieceKind.STRAIGHT, gear, 0)].length
            for gear in range(1, top + 1)
            if (PieceKind.STRAIGHT, gear, 0) in game.shapes
        }

    # ------------------------------------------------------------------ launches
    def _targets(self, state: State, seat: int) -> list[tuple[float, float, float]]:
        """(x, y, weight) of every Prizm not of ``seat``'s colour; a steal is worth more,
        and every target is the win when ``seat`` is one short."""
        out = []
        for q in state.prizms:
            if q.owner == seat:
                continue
            out.append((q.x, q.y, 1.0 if q.owner < 0 else 1.0 + self.opponent_weight))
        return out

    def _launch_candidates(self, state: State, seat: int) -> list[float]:
        xs = [x for x in self._aim_xs(state, seat) if x is not None]
        k = self.launch_spread
        xs += [-1.0 + 2.0 * i / (k - 1) for i in range(k)] if k > 1 else [0.0]
        return xs

    def _aim_xs(self, state: State, seat: int, fast: bool = False) -> list[float | None]:
        """Per Prizm, the launch position facing it (None for its own or out of reach);
        ``fast``: the interpolated aim (ratings of simulated positions)."""
        aim = self._aim.aim_fast if fast else self._aim.aim
        return [aim(seat, q.x, q.y) if q.owner != seat else None for q in state.prizms]

    def _launch_pose(self, seat: int, x: float, offset: float = 0.0) -> Pose:
        """The head pose of a Launch Point asked for at ``x`` that lands ``offset`` inches
        along the edge from there (clipped to reach, as the engine does)."""
        g = self._game
        lo, hi = g.table.reach(seat, g.num_players)
        t = min(hi, max(lo, lo + (x + 1.0) / 2.0 * (hi - lo) + offset))
        key = round(t / _T_QUANTUM)
        pose = self._launch_poses.get(key)
        if pose is None:  # (a polygon table's frame is a bisection: kept per quantum)
            pose = self._launch_poses[key] = g.table.launch_frame(key * _T_QUANTUM).compose(
                g.launch_exit
            )
        return pose

    def _launch_rating(
        self,
        state: State,
        seat: int,
        x: float,
        gear: int,
        targets: list[tuple[float, float, float]],
        exact: bool,
    ) -> float:
        """The expected estimate of launching at ``x`` in ``gear``, over the launch noise."""
        sigma = self._game.rules.launch_noise_sigma
        nodes = (
            [(0.0, 1.0)]
            if sigma <= 0
            else list(zip((_GH_NODES * sigma).tolist(), _GH_WEIGHTS.tolist(), strict=True))
        )
        total = 0.0
        for off, w in nodes:
            pose = self._launch_pose(seat, x, off)
            if exact:
                total += w * self._estimate(state, seat, pose, gear, targets, relaunch=False)
            else:
                total += w * self._line_value(state, seat, pose, gear, targets, check=False)
        return total

    def _relaunch_value(
        self, state: State, seat: int, targets: list[tuple[float, float, float]]
    ) -> float:
        """The best launch's expected line value (a crashed player's prospect)."""
        key = (seat, tuple(state.prizms))
        v = self._relaunch_cache.get(key)
        if v is None:
            if len(self._relaunch_cache) > 256:
                self._relaunch_cache.clear()
            top = self._game.top_gear
            xs = [x for x in self._aim_xs(state, seat, fast=True) if x is not None]
            v = max(
                (self._launch_rating(state, seat, x, top, targets, exact=False) for x in xs),
                default=0.0,
            )
            self._relaunch_cache[key] = v
        return v

    def _launch(self, state: State, seat: int, engines: bool) -> Action:
        g = self._game
        top = g.top_gear
        targets = self._targets(state, seat)
        best_x, best_v, best_gear = 0.0, -1.0, min(self.curve_gear, top)
        for x in self._launch_candidates(state, seat):
            line = self._launch_rating(state, seat, x, top, targets, exact=False)
            if line > best_v + 1e-12:
                best_x, best_v, best_gear = x, line, top
        if best_v <= 1e-9:  # no line to a target: steer from a spot that offers curves
            gear = min(self.curve_gear, top)
            best_v = -1.0
            for x in self._launch_candidates(state, seat):
                v = self._launch_rating(state, seat, x, gear, targets, exact=True)
                if v > best_v + 1e-12:
                    best_x, best_v, best_gear = x, v, gear
        gear = best_gear
        if engines and gear == top:  # a mixed gear: two copies should not always stall
            k = max(1, min(self.engine_gears, top))
            gear = top - int(self.rng.integers(k))
        return Action.launch(gear, float(min(1.0, max(-1.0, best_x))))

    # ------------------------------------------------------------------ the estimate
    def _corridor_clear(
        self, state: State, seat: int, pose: Pose, fx: float, fy: float, length: float
    ) -> bool:
        """Whether a strip a Lazer wide from ``pose`` ``length`` ahead touches no Lazer
        (its own newest piece, which it nests on, excepted)."""
        c, s = math.cos(pose.h), math.sin(pose.h)
        w = self._half_width
        x0, y0 = pose.x + c * 1e-3, pose.y + s * 1e-3
        x1, y1 = pose.x + c * length, pose.y + s * length
        px, py = -s * w, c * w
        xs = (x0 + px, x1 + px, x1 - px, x0 - px)
        ys = (y0 + py, y1 + py, y1 - py, y0 - py)
        bx0, bx1, by0, by1 = min(xs), max(xs), min(ys), max(ys)
        near = _lazers_in_box(state, pose, bx0, bx1, by0, by1)
        if not near:
            return True
        strip = shapely.Polygon(list(zip(xs, ys, strict=True)))
        # contact inside the target's disc does not crash: stop the strip short of it
        return not bool(np.any(shapely.intersects(strip, near)))

    def _line_value(
        self,
        state: State,
        seat: int,
        pose: Pose,
        gear: int,
        targets: list[tuple[float, float, float]],
        check: bool = True,
    ) -> float:
        """Targets on the straight line from ``pose``, each discounted by the straights of
        ``gear`` it takes to get past it; the sum (several on one line all count)."""
        c, s = math.cos(pose.h), math.sin(pose.h)
        step = self._straight_len.get(gear) or max(self._straight_len.values())
        tol = self.line_tolerance
        total = 0.0
        for tx, ty, w in targets:
            dx, dy = tx - pose.x, ty - pose.y
            f = c * dx + s * dy
            if f < -_BEHIND_OK or abs(-s * dx + c * dy) > tol:
                continue
            if check:
                reach = max(0.0, f - self._radius)
                if reach > 0 and not self._corridor_clear(state, seat, pose, tx, ty, reach):
                    continue
            turns = max(1, math.ceil((f + self._radius + self._tip) / step))
            total += w * self.discount ** (turns - 1)
        return total

    def _piece_for(
        self, supply: list[list[int]], gear: int, kinds: tuple[PieceKind, ...]
    ) -> tuple[PieceKind, int]:
        """The piece the engine would take (the running-out rule, without pulling)."""
        for gg in range(gear, 0, -1):
            for k in kinds:
                if supply[gg - 1][k] > 0:
                    return k, gg
        for gg in range(gear, 0, -1):  # pulled off the Lazer: any of the kind that exists
            for k in kinds:
                if (k, gg, 0 if k is PieceKind.STRAIGHT else 1) in self._game.shapes:
                    return k, gg
        return PieceKind.STRAIGHT, 1

    def _piece_value(
        self,
        state: State,
        seat: int,
        pose: Pose,
        kind: PieceKind,
        gear: int,
        side: int,
        targets: list[tuple[float, float, float]],
        relaunch: float,
        walls: bool = False,
    ) -> float:
        """Rating of placing one piece at ``pose`` next turn: a target it crosses (scored
        then), else the line from its exit one turn later; a piece off the table crashes
        (then the relaunch value), and with ``walls`` so does one that meets a Lazer (after
        scoring what it crosses)."""
        key = (kind, gear, side if kind is not PieceKind.STRAIGHT else 0)
        exit_local, line = self._local[key]
        ex = pose.compose(exit_local)
        tipx, tipy = ex.ahead(self._tip)
        table = self._game.table
        if not table.contains_point(tipx, tipy, 0.0) or not table.contains_point(
            ex.x, ex.y, self._half_width
        ):
            return relaunch
        c, s = math.cos(pose.h), math.sin(pose.h)
        lx0, ly0, reach = self._line_disc[key]
        cx, cy = pose.x + c * lx0 - s * ly0, pose.y + s * lx0 + c * ly0
        reach += self.line_tolerance + _DISC_SLACK
        pts: list[tuple[float, float]] | None = None
        best = 0.0
        tol = self.line_tolerance
        for tx, ty, w in targets:
            if math.hypot(tipx - tx, tipy - ty) <= self._radius:
                continue
            # the centreline lies in its disc: a target farther than the tolerance from
            # the disc is farther from the line too (no distance to compute)
            if math.hypot(tx - cx, ty - cy) > reach:
                continue
            if pts is None:
                pts = _placed(pose, c, s, line)
            if _polyline_distance(pts, tx, ty) <= tol:
                best = max(best, w)
        if walls:
            # a piece scores when placed and crashes only at the end of the turn: a Lazer it
            # meets takes the line from its exit, not a target it crosses
            if pts is None:
                pts = _placed(pose, c, s, line)
            if self._meets_lazer(state, pose, pts):
                return max(best, relaunch)
        later = self.discount * self._line_value(state, seat, ex, gear, targets, check=walls)
        return max(best, later)

    def _meets_lazer(self, state: State, pose: Pose, pts: list[tuple[float, float]]) -> bool:
        """Whether a piece a Lazer wide along the centreline ``pts`` from ``pose`` touches
        a Lazer (the newest piece at ``pose``, which it nests on, excepted)."""
        xs = [x for x, _ in pts]
        ys = [y for _, y in pts]
        w = self._half_width
        bx0, bx1, by0, by1 = min(xs) - w, max(xs) + w, min(ys) - w, max(ys) + w
        near = _lazers_in_box(state, pose, bx0, bx1, by0, by1)
        if not near:
            return False
        # the first sample sits on the head (on the piece it nests on): start just past it
        c, s = math.cos(pose.h), math.sin(pose.h)
        start = (pose.x + c * 1e-3, pose.y + s * 1e-3)
        centre = shapely.LineString([start, *pts[1:]])
        return bool(np.any(shapely.dwithin(centre, near, w)))

    def _estimate(
        self,
        state: State,
        seat: int,
        pose: Pose,
        gear: int,
        targets: list[tuple[float, float, float]],
        relaunch: bool = True,
        walls: bool = False,
    ) -> float:
        """The discounted chance of the next score from a head at ``pose`` in ``gear``
        (the module docstring's estimate); ``walls``: next turn's pieces and the lines from
        their exits are tested against the Lazers too (a piece that meets one crashes)."""
        if not targets:
            return 0.0
        g = self._game
        relaunch_v = self._relaunch_value(state, seat, targets) if relaunch else 0.0
        best = self._line_value(state, seat, pose, gear, targets)
        supply = state.players[seat].supply
        S, SOFT, HARD = PieceKind.STRAIGHT, PieceKind.SOFT, PieceKind.HARD
        d = self.discount
        for shift in (-1, 0, 1):
            gg = gear + shift
            if not 1 <= gg <= g.top_gear:
                continue
            k, sg = self._piece_for(supply, gg, (S,))
            straight = self._piece_value(state, seat, pose, k, sg, 0, targets, relaunch_v, walls)
            best = max(best, d * straight)
            p = self._p_curve[gg]
            kinds = [(SOFT, HARD)] + ([(HARD, SOFT)] if g.has_hard[gg] else [])
            for pair in kinds:
                k, cg = self._piece_for(supply, gg, pair)
                for side in (1, -1):
                    curve = self._piece_value(
                        state, seat, pose, k, cg, side, targets, relaunch_v, walls
                    )
                    best = max(best, d * (p * curve + (1.0 - p) * straight))
        if relaunch_v > 0.0:  # straight on to the edge, crash, relaunch
            edge = self._edge_distance(pose)
            step = self._straight_len.get(gear) or max(self._straight_len.values())
            best = max(best, d ** max(1, math.ceil(edge / step)) * relaunch_v)
        return best

    def _edge_distance(self, pose: Pose) -> float:
        """How far ahead the table's edge is from ``pose`` (a ray to the boundary)."""
        table = self._game.table
        c, s = math.cos(pose.h), math.sin(pose.h)
        if table.is_circle:
            cx, cy = pose.x, pose.y
            b = cx * c + cy * s
            disc = b * b - (cx * cx + cy * cy - table.radius**2)
            return max(0.0, -b + math.sqrt(max(0.0, disc)))
        far = 4.0 * table.search_limit
        ray = shapely.LineString([(pose.x, pose.y), (pose.x + c * far, pose.y + s * far)])
        hit = shapely.intersection(ray, table.boundary)
        if hit.is_empty:
            return 0.0
        pts = shapely.get_coordinates(hit)
        return float(np.min(np.hypot(pts[:, 0] - pose.x, pts[:, 1] - pose.y)))

    # ------------------------------------------------------------------ the prospect
    def _prospect(self, state: State, seat: int) -> float:
        """Prizm units for ``seat`` (the module docstring's prospect)."""
        if state.is_terminal():
            if state.winner is None:
                return 0.0
            return WIN_UNITS if state.winner == seat else -WIN_UNITS
        n = len(state.players)
        other = max(state.score(s) for s in range(n) if s != seat)
        mine, est, power = self._own_prospect(state, seat)
        prospect = mine - self.opponent_weight * other + est + power
        if self.denial:
            prospect -= self.denial * max(
                self._own_prospect(state, s, walls=True)[1] for s in range(n) if s != seat
            )
        return prospect

    def _own_prospect(
        self, state: State, seat: int, walls: bool = False
    ) -> tuple[int, float, float]:
        """(Prizms held, estimate of the next score, worth of a ready power) of ``seat``
        (``walls``: the estimate tests next turn's pieces against the Lazers)."""
        mine = state.score(seat)
        p = state.players[seat]
        targets = self._targets(state, seat)
        if mine == state.game.rules.win_prizms - 1:  # any target is the win
            targets = [(x, y, WIN_UNITS / 4.0) for x, y, _ in targets]
        if not targets:
            est = 0.0
        elif p.head is None:
            est = self._relaunch_value(state, seat, targets)
        else:
            est = self._estimate(state, seat, p.head, p.gear, targets, walls=walls)
        power = self.power_value if (state.game.rules.powers and p.power_ready) else 0.0
        return mine, est, power

    # ------------------------------------------------------------------ lookahead
    def _finish_turn(self, state: State, seat: int, turn_id: int) -> float:
        """The expected prospect once ``seat``'s turn (already acted on) is played out:
        the die branches by its distinct effects, Shark takes its better branch."""
        if state.is_terminal():
            return self._prospect(state, seat)
        ck = state.chance_kind()
        if ck is ChanceKind.DIE and state.turn is not None and state.turn.id == turn_id:
            gear = state.players[seat].gear
            groups: dict[int, tuple[int, float]] = {}
            for face, prob in state.chance_outcomes():
                effect = 0 if face == 0 else (1 if face >= gear else 2)
                f0, p0 = groups.get(effect, (face, 0.0))
                groups[effect] = (f0, p0 + prob)
            total = 0.0
            for face, prob in groups.values():
                c = state.clone()
                c.apply_chance(face)
                total += prob * self._finish_turn(c, seat, turn_id)
            return total
        dk = state.decision_kind()
        if dk is DecisionKind.SHARK and state.current_players() == (seat,):
            best = -math.inf
            for a in state.legal_actions(seat):
                c = state.clone()
                c.apply_action(a)
                best = max(best, self._finish_turn(c, seat, turn_id))
            return best
        return self._prospect(state, seat)

    def _after(self, state: State, seat: int, action: Action) -> float:
        """The prospect of ``action`` (POWER, BONUS, SHARK): applied on a clone, then the
        rest of the turn (the best move where one follows)."""
        turn_id = state.turn.id if state.turn is not None else -1
        c = state.clone()
        c.apply_action(action)
        while (
            not c.is_terminal()
            and c.current_players() == (seat,)
            and c.decision_kind() in (DecisionKind.POWER, DecisionKind.BONUS)
        ):
            legal = c.legal_actions(seat)
            best = max(legal, key=lambda a: self._after(c, seat, a))
            c.apply_action(best)
        if c.decision_kind() is DecisionKind.MOVE and c.current_players() == (seat,):
            return self._best_move(c, seat, c.legal_actions(seat))[1]
        return self._finish_turn(c, seat, turn_id)

    def _best_move(self, state: State, seat: int, legal: list[Action]) -> tuple[Action, float]:
        """The shift-and-move action with the best expected prospect, and that prospect."""
        turn_id = state.turn.id if state.turn is not None else -1
        best_a, best_v = legal[0], -math.inf
        for a in legal:
            c = state.clone()
            c.apply_action(a)
            v = self._finish_turn(c, seat, turn_id)
            if v > best_v + 1e-9:
                best_a, best_v = a, v
        return best_a, best_v

    # ------------------------------------------------------------------ powers
    def _power(self, state: State, seat: int, legal: list[Action]) -> Action:
        decline = next(a for a in legal if a.kind is ActionKind.DECLINE)
        char = state.game.rules.characters[seat]
        if char is Character.SUPER_SHERIFF:
            return self._sheriff(state, seat, legal) or decline
        return max(legal, key=lambda a: (self._after(state, seat, a), a.kind is ActionKind.DECLINE))

    def _sheriff(self, state: State, seat: int, legal: list[Action]) -> Action | None:
        """Super Sheriff on the most threatening opponent, or None (keep the power)."""
        win = state.game.rules.win_prizms
        best: tuple[float, int] | None = None
        for p in state.players:
            if p.seat == seat or p.head is None:
                continue
            targets = self._targets(state, p.seat)
            line = self._line_value(state, p.seat, p.head, p.gear, targets)
            threat = (
                line
                if line > 0
                else 0.5 * self._estimate(state, p.seat, p.head, p.gear, targets, relaunch=False)
            )
            if state.score(p.seat) >= win - 1:
                threat += 1.0
            if threat >= self.sheriff_threat and (best is None or threat > best[0]):
                best = (threat, p.seat)
        if best is None:
            return None
        target = best[1]
        victim = state.players[target]
        straight = (
            self._line_value(state, target, victim.head, victim.gear, self._targets(state, target))
            > 0
        )
        a = Action.sheriff(target, top=not straight)
        return a if a in legal else None


def _placed(
    pose: Pose, c: float, s: float, line: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Points of a piece's frame (``line``) placed at ``pose`` (``c``, ``s``: its heading's
    cosine and sine)."""
    return [(pose.x + c * lx - s * ly, pose.y + s * lx + c * ly) for lx, ly in line]


def _lazers_in_box(
    state: State, pose: Pose, bx0: float, bx1: float, by0: float, by1: float
) -> list[Any]:
    """The polygons of the Lazer pieces whose boxes meet ``[bx0, bx1] x [by0, by1]``, less
    the piece ending at ``pose`` (the head's own, which a next piece nests on)."""
    return [e.poly for e in state.lazers_in_box(bx0, by0, bx1, by1) if not (e.exit == pose)]


#: slack (inches) on the disc test of ``_piece_value``, far above rounding, far below a Prizm
_DISC_SLACK = 1e-6


def _disc_around(line: list[tuple[float, float]]) -> tuple[float, float, float]:
    """A disc holding every point of a polyline: its vertices' box centre and the largest
    distance from it to a vertex (segments stay inside: a disc is convex)."""
    xs, ys = [p[0] for p in line], [p[1] for p in line]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return cx, cy, max(math.hypot(x - cx, y - cy) for x, y in line)


def _polyline_distance(pts: list[tuple[float, float]], x: float, y: float) -> float:
    """The distance from (x, y) to a polyline."""
    best = math.inf
    for (ax, ay), (bx, by) in zip(pts[:-1], pts[1:], strict=True):
        dx, dy = bx - ax, by - ay
        L2 = dx * dx + dy * dy
        t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / L2))
        best = min(best, math.hypot(ax + t * dx - x, ay + t * dy - y))
    return best


class OutcomeFeatures:
    """Features of a position for the fitted leaf value (:mod:`agents.fitted_value`).

    Per rider: its Prizms, the heuristic's estimate of its next score (in Prizms) and
    whether its power is ready (the three parts of :meth:`RyderzHeuristic.value`'s strength,
    weighed by the fit instead of by hand). For "nobody wins" (the round limit): a constant,
    the rounds left over the Prizms the leader still needs, and those Prizms. Public facts
    only (the others' pending blind aims are not read)."""

    seat_names = ("prizms", "next_score_estimate", "power_ready")
    none_names = ("bias", "rounds_left_per_missing_prizm", "leader_missing_prizms")
    #: public facts only: the same features whatever seat observes
    public = True

    def __init__(self) -> None:
        self._bot = RyderzHeuristic()

    def __call__(self, state: State, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(alive seats, seat features, nobody's features)`` of the position."""
        r = state.game.rules
        n = r.num_players
        x = np.zeros((n, len(self.seat_names)))
        for s in range(n):
            mine, est, power = self._bot.prospect_parts(state, s)
            x[s] = (mine, est, 1.0 if power else 0.0)
        missing = max(1, r.win_prizms - max(state.score(s) for s in range(n)))
        rounds_left = max(0, r.round_limit - state.round)
        c = np.array([1.0, rounds_left / missing, float(missing)])
        return np.ones(n, dtype=bool), x, c


#: the registry's ``value_features`` of Lazer Ryderz
VALUE_FEATURES = OutcomeFeatures()
