"""Monte Carlo tree search written once over the engine protocol (both games).

Modelled on OpenSpiel's ``open_spiel/python/algorithms/mcts.py`` (our own code), extended to
what the two games need:

- **UCT** with a configurable exploration constant: at a node, an action not tried yet is
  tried first (a random one of them); else the action maximising
  ``mean / value_scale + c * sqrt(ln(available) / visits)`` for the *mover*, where
  ``available`` counts the visits in which the action was legal (ISMCTS availability
  counts: under determinization an action of another seat is not legal in every sample).
- **Multi-player returns**: every node keeps the sum of the return vectors backed up through
  it; a seat chooses by its own entry of that vector.
- **Chance**: where ``state.chance_outcomes()`` gives a discrete distribution, one outcome is
  sampled by its exact probability each visit (``sample_chance``) and keyed by its value, so
  the children converge to the true distribution. A continuous event (Lazer Ryderz's launch
  noise and Prizm tosses: ``chance_outcomes`` raises ``InvalidStateError``) gets a *capped*
  number of sampled children (``chance_children``, default 4): a new sample while fewer exist,
  then one of the stored samples uniformly. Progressive widening would need tuning per game
  and grows the tree where it matters least; a small fixed cap keeps the tree's branching
  bounded and deterministic per seed, and continuous noise rarely changes which move is best.
- **Simultaneous nodes** (``len(current_players()) > 1``: card reveal, chip mix, Start Your
  Engines): *decoupled UCT* - each deciding seat keeps its own statistics per action at the
  node and selects by UCB over them, ignoring the others' choices; the joint action is applied
  with ``apply_actions``. Decoupled UCT is sound in practice for simultaneous-move games
  (Lanctot et al. 2013, Tak, Lanctot & Winands 2014 found it competitive with the exact
  alternatives at a fraction of the cost). Known limitation: it need not converge to a Nash
  equilibrium (it can cycle, and its final most-visited choice is a pure action where the
  equilibrium may be mixed); Exp3 or regret matching selection would fix that at the price
  of slower learning.
- **Hidden information by determinization**: every simulation starts from
  ``root.resample_hidden(seat, rng)`` - what the searching seat cannot see is redrawn
  consistently with its observation - and descends *one shared tree* keyed by action
  histories (single-observer determinized UCT with a shared tree, "ISMCTS-lite", as in
  Cowling et al.'s SO-ISMCTS without information-set keys for the other seats). A node's
  children are the actions legal in the current determinization only; at the root these are
  the searching seat's own legal actions, the same in every sample, so the search reads
  nothing hidden.
- **Leaves**: a depth-limited rollout (``rollout_depth`` decision layers of the rollout policy,
  uniformly random legal actions by default, any :class:`~agents.bot.Bot` otherwise; chance
  events on the way are sampled and do not count), then ``evaluator.value(state, seat)`` for
  every seat (``returns()`` at a terminal state), not random play to the end.
- **Settled leaves** (``settle_chance=True``): chance events pending at a leaf are sampled
  before the evaluator is asked, so that it sees the outcome of the last action (a Lazer
  Ryderz move is only a placed piece after its die roll); off by default.
- **Budgets**: ``sims`` simulations (reproducible for a seed), or ``max_ms`` of wall time (for
  serving; at least one simulation, and no new one started that the longest so far says
  would not end in time: the clock starts when ``act`` is called), or both (the first
  reached stops).
- **Continuous actions**: the engine's ``legal_actions`` is a finite spread (Launch Points);
  an optional ``extra_actions(state, seat)`` hook adds game-specific candidates (say, launch
  positions aimed at Prizms), each checked with ``state.is_legal``.
- **Determinism**: actions are hashable frozen dataclasses used as dict keys; every iteration
  follows the engine's list orders (never a set); every draw comes from the bot's generator.
- **Heuristic priors (PUCT)**: an optional ``prior_policy`` (any :class:`~agents.bot.Bot`,
  e.g. the game's heuristic) gives action priors at the nodes of the top ``prior_depth``
  tree levels (0: the root only): ``P(a) = (1 - prior_mix) [a = policy.act(s)] +
  prior_mix / |A|``, computed once per node (and seat) from the determinization that
  first selects from it, so it reads nothing hidden. There the selection is PUCT
  (AlphaZero's rule, Silver et al. 2017): ``Q(a) + prior_weight * P(a) * sqrt(N) / (1 +
  n(a))``, an unvisited action valued at its parent's mean (first-play urgency), so the
  search starts from the policy's move and leaves it only for one it finds better, instead
  of spending a visit on every action first. Deeper nodes keep UCT. A policy the search
  cannot improve on is then followed, and a search whose values are all equal (an
  evaluator saturated at a sure win, say) plays the policy's move rather than the first
  listed one.
- **Normalised values** (``normalize=True``): the mean returns in the selection rules are
  mapped to [0, 1] by the lowest and highest value backed up for that seat in this search
  (MuZero's min-max normalisation), so the small differences an evaluator makes between
  sibling moves are not drowned by the exploration term; ``value_scale`` is then unused.
- **Minor decisions** (``minor_kinds``, ``minor_share``): decisions of the kinds the game's
  registry entry lists as minor (``state.decision_kind()``: Lunatix Loop's lane steps, about
  three of every four of a car's decisions, each a choice between neighbouring lanes) get
  ``minor_share`` of the budget (simulations and milliseconds alike, at least one
  simulation); a share of 0 plays the prior policy's move (the rollout policy's without
  one) without searching. Time management as in game engines: with the budget spent where
  the choice matters (cards, speeds), a search with the same mean time a move searches each
  major decision several times longer. Inside the tree every kind is searched alike.
- **Memo** (``memo=True``): the rollout and prior policies are wrapped in
  :class:`~agents.bot.MemoBot`, which remembers their moves by (seat, observation) for the
  length of one search; valid for policies that decide from the observation alone (the
  Lunatix Loop heuristic). Simulations pass the same positions again and again until their
  chance draws part (in Lunatix Loop a third of the rollout policy's calls at a card
  decision), and a remembered move costs an observation and its pickle (~20 us) against
  ~200-800 us for the heuristic's planning.
- **Common random numbers** (``common_random=True``): the searching seat's root action is
  chosen before the simulation is determinized, and the simulation's draws (the
  determinization, chance outcomes, random picks and rollouts) come from a stream numbered
  by how often that action was tried before: the n-th trial of every root action sees the
  same hidden cards and, as long as the games run alike, the same chance outcomes. Root
  actions are then compared on matched samples, a variance reduction for games whose
  outcomes are mostly luck (Lunatix Loop's hazard cards and dice).
- **Final move**: the root action with the most visits, ties broken by mean value for the
  seat, then by the prior, then by the first in the legal list.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.bot import Bot, Evaluator, MemoBot, evaluate_all
from tabletop.errors import IllegalActionError, InvalidStateError
from tabletop.protocol import State, sample_discrete

__all__ = ["MCTSBot", "MCTSStats", "ZeroEvaluator"]

ExtraActions = Callable[[State, int], Sequence[Any]]


class ZeroEvaluator:
    """The trivial evaluator: 0 for every seat (terminal states use ``returns()`` anyway)."""

    def value(self, state: State, seat: int) -> float:
        """Always 0.0."""
        return 0.0


@dataclass
class MCTSStats:
    """What the last search did (``MCTSBot.last_stats``), for benchmarks and logs."""

    simulations: int = 0
    #: decisions taken inside the tree (selection), one per deciding seat
    tree_decisions: int = 0
    #: decisions taken by the rollout policy
    rollout_decisions: int = 0
    #: chance events sampled (tree and rollouts)
    chance_events: int = 0
    #: evaluator calls
    evaluations: int = 0
    #: deepest selection path (nodes below the root)
    max_depth: int = 0
    seconds: float = 0.0

    @property
    def sims_per_second(self) -> float:
        """Simulations per second of wall time."""
        return self.simulations / self.seconds if self.seconds > 0 else 0.0


class _Edge:
    """Decoupled statistics of one seat's action at a simultaneous node."""

    __slots__ = ("visits", "total", "avail")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.avail = 0


class _Node:
    """A node of the shared tree: the state after an action history (its kind can differ
    between determinizations; children are keyed by kind-tagged keys)."""

    __slots__ = ("visits", "avail", "total", "children", "seat_edges", "samples", "priors")

    def __init__(self, num_players: int) -> None:
        self.visits = 0
        self.avail = 0  # visits of the parent in which this child's action was legal
        self.total = [0.0] * num_players  # summed return vectors
        self.children: dict[Hashable, _Node] = {}
        self.seat_edges: dict[int, dict[Any, _Edge]] | None = None  # simultaneous nodes
        self.samples: list[Any] | None = None  # continuous chance: stored outcomes
        self.priors: dict[int, dict[Any, float]] | None = None  # per seat: action -> prior

    def child(self, key: Hashable, num_players: int) -> _Node:
        """The child under ``key``, created if missing."""
        c = self.children.get(key)
        if c is None:
            c = self.children[key] = _Node(num_players)
        return c

    def mean(self, seat: int) -> float:
        """Mean backed-up return of ``seat`` (0 when unvisited)."""
        return self.total[seat] / self.visits if self.visits else 0.0


def _kind(kind: enum.Enum | None) -> str | None:
    """The name (``str`` value) of a decision kind."""
    return None if kind is None else str(kind.value)


class MCTSBot:
    """UCT search over the engine protocol; see the module docstring for the design.

    ``evaluator`` ends rollouts (value of a non-terminal state per seat); ``sims`` and/or
    ``max_ms`` bound the search (``sims`` defaults to 400 when neither is given);
    ``exploration`` is the UCT constant ``c``; ``value_scale`` divides mean returns before
    the exploration term (1 for returns in [-1, 1]); ``rollout_depth`` decision layers of
    ``rollout_policy`` (None: uniformly random legal actions) follow each expansion;
    ``chance_children`` caps the sampled children of a continuous chance node;
    ``extra_actions(state, seat)`` adds candidate actions; ``determinize=False`` searches
    the true state (a cheating baseline, for tests and comparisons only);
    ``prior_policy`` (a Bot) gives PUCT priors at the top ``prior_depth`` levels (weight
    ``prior_weight``, uniform share ``prior_mix``); ``normalize`` min-max normalises values.
    Decisions whose kind is in ``minor_kinds`` get ``minor_share`` of the budget (0: the
    prior or rollout policy's move, no search). ``memo`` remembers the policies' moves by
    observation within a search (:class:`~agents.bot.MemoBot`); ``common_random`` draws
    each simulation from the stream of its root action's trial number.
    """

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        sims: int | None = None,
        *,
        max_ms: float | None = None,
        exploration: float = 1.4,
        value_scale: float = 1.0,
        rollout_depth: int = 10,
        rollout_policy: Bot | None = None,
        chance_children: int = 4,
        extra_actions: ExtraActions | None = None,
        determinize: bool = True,
        prior_policy: Bot | None = None,
        prior_weight: float = 2.0,
        prior_mix: float = 0.25,
        prior_depth: int = 1,
        normalize: bool = False,
        settle_chance: bool = False,
        minor_kinds: Sequence[str] = (),
        minor_share: float = 1.0,
        memo: bool = False,
        common_random: bool = False,
        rollout_until: Sequence[str] = (),
        rollout_cap: int = 400,
        seed: int | None = None,
    ) -> None:
        if sims is None and max_ms is None:
            sims = 400
        if sims is not None and sims < 1:
            raise ValueError("sims must be at least 1")
        if max_ms is not None and max_ms <= 0:
            raise ValueError("max_ms must be positive")
        if rollout_depth < 0 or chance_children < 1 or value_scale <= 0:
            raise ValueError("rollout_depth >= 0, chance_children >= 1, value_scale > 0")
        if rollout_cap < rollout_depth:
            raise ValueError("rollout_cap >= rollout_depth")
        if prior_weight <= 0 or not 0.0 <= prior_mix <= 1.0 or prior_depth < 0:
            raise ValueError("prior_weight > 0, 0 <= prior_mix <= 1, prior_depth >= 0")
        if not 0.0 <= minor_share <= 1.0:
            raise ValueError("0 <= minor_share <= 1")
        if minor_kinds and minor_share == 0.0 and prior_policy is None and rollout_policy is None:
            raise ValueError("minor_share=0 plays the prior or rollout policy's move: give one")
        self.evaluator: Evaluator = evaluator if evaluator is not None else ZeroEvaluator()
        self.sims = sims
        self.max_ms = max_ms
        self.exploration = exploration
        self.value_scale = value_scale
        self.rollout_depth = rollout_depth
        self.rollout_until = tuple(rollout_until)
        self.rollout_cap = rollout_cap
        if memo and rollout_policy is not None:
            rollout_policy = MemoBot(rollout_policy)
        if memo and prior_policy is not None:
            prior_policy = MemoBot(prior_policy)
        self.memo = memo
        self.common_random = common_random
        self._crn_base = 0
        self.rollout_policy = rollout_policy
        self.chance_children = chance_children
        self.extra_actions = extra_actions
        self.determinize = determinize
        self.prior_policy = prior_policy
        self.prior_weight = prior_weight
        self.prior_mix = prior_mix
        self.prior_depth = prior_depth
        self.normalize = normalize
        self.settle_chance = settle_chance
        self.minor_kinds = tuple(minor_kinds)
        self.minor_share = minor_share
        self._lo: list[float] = []
        self._hi: list[float] = []
        budget = [] if sims is None else [f"sims={sims}"]
        budget += [] if max_ms is None else [f"ms={max_ms:g}"]
        self.name = "mcts:" + ",".join(budget)
        self.last_stats = MCTSStats()
        self.reset(seed)

    # ------------------------------------------------------------------ Bot protocol
    def reset(self, seed: int | None = None) -> None:
        """Reseed the search (and the rollout policy, with a seed drawn from this one)."""
        self.rng = np.random.default_rng(seed)
        if self.rollout_policy is not None:
            self.rollout_policy.reset(int(self.rng.integers(2**31)))
        if self.prior_policy is not None and self.prior_policy is not self.rollout_policy:
            self.prior_policy.reset(int(self.rng.integers(2**31)))

    def act(self, state: State, seat: int) -> Any:
        """The most visited root action after the search (a legal action of ``seat``)."""
        t0 = time.perf_counter()
        if seat not in state.current_players():
            raise IllegalActionError(f"seat {seat} is not deciding now")
        share = self._share(state)
        self.last_stats = stats = MCTSStats()
        if share == 0.0:
            policy = self.prior_policy if self.prior_policy is not None else self.rollout_policy
            assert policy is not None  # checked in __init__
            if isinstance(policy, MemoBot):  # one position, asked once: nothing to remember
                policy = policy.bot
            return policy.act(state, seat)
        for memo in (self.rollout_policy, self.prior_policy):
            if isinstance(memo, MemoBot):
                memo.clear()  # one search's positions: the memo stays small
        root_actions = self._candidates(state, seat)
        if len(root_actions) == 1:
            return root_actions[0]
        sims = None if self.sims is None else max(1, round(self.sims * share))
        deadline = None if self.max_ms is None else t0 + self.max_ms * share / 1000.0
        if self.common_random:
            self._crn_base = int(self.rng.integers(2**63))
        n = len(state.returns())
        root = _Node(n)
        self._lo, self._hi = [math.inf] * n, [-math.inf] * n
        longest = 0.0  # the longest simulation so far: one more must still fit the budget
        while True:
            start = time.perf_counter()
            forced, main = None, self.rng
            if self.common_random:  # this simulation draws from its root action's stream
                forced, trial = self._root_choice(state, seat, root, root_actions)
                self.rng = np.random.default_rng([self._crn_base, trial])
            try:
                self._simulate(state, seat, root, root_actions, n, stats, forced)
            finally:
                self.rng = main
            stats.simulations += 1
            if sims is not None and stats.simulations >= sims:
                break
            if deadline is not None:
                now = time.perf_counter()
                longest = max(longest, now - start)
                if now + longest >= deadline:
                    break
        stats.seconds = time.perf_counter() - t0
        return self._best(root, seat, root_actions, simultaneous=len(state.current_players()) > 1)

    def _share(self, state: State) -> float:
        """The share of the budget the pending decision gets (``minor_share`` for a minor
        kind, else 1)."""
        if not self.minor_kinds:
            return 1.0
        return self.minor_share if _kind(state.decision_kind()) in self.minor_kinds else 1.0

    # ------------------------------------------------------------------ search
    def _candidates(self, state: State, seat: int) -> list[Any]:
        """Legal actions of ``seat``, then the hook's extra legal ones (deduplicated)."""
        acts = state.legal_actions(seat)
        if self.extra_actions is not None:
            seen = set(acts)
            for a in self.extra_actions(state, seat):
                if a not in seen and state.is_legal(seat, a):
                    seen.add(a)
                    acts.append(a)
        return acts

    def _q(self, mean: float, p: int) -> float:
        """A mean return of seat ``p`` as the selection rules use it (normalised or scaled)."""
        if not self.normalize:
            return mean / self.value_scale
        lo, hi = self._lo[p], self._hi[p]
        return (mean - lo) / (hi - lo) if hi > lo else 0.5

    def _priors(
        self, state: State, node: _Node, p: int, acts: list[Any], depth: int
    ) -> dict[Any, float] | None:
        """The prior of seat ``p``'s actions at ``node`` (None: no prior there, UCT)."""
        if self.prior_policy is None or depth > self.prior_depth:
            return None
        if node.priors is None:
            node.priors = {}
        pri = node.priors.get(p)
        if pri is None:
            choice = self.prior_policy.act(state, p)
            k = len(acts)
            base = self.prior_mix / k
            pri = {a: base for a in acts}
            pri[choice] = pri.get(choice, 0.0) + 1.0 - self.prior_mix
            node.priors[p] = pri
        return pri

    def _ucb_pick(
        self,
        options: list[tuple[Any, int, float, int]],
        p: int,
        priors: dict[Any, float] | None = None,
        parent_visits: int = 0,
        parent_mean: float = 0.0,
    ) -> int:
        """Index of the option to try for seat ``p``. ``options`` are (action, visits, mean,
        available). Without priors UCT: an untried one at random, else the best UCB score.
        With priors PUCT, an unvisited action valued at ``parent_mean``."""
        if priors is not None:
            cp = self.prior_weight * math.sqrt(max(parent_visits, 1))
            fpu = self._q(parent_mean, p)
            best, best_i = -math.inf, 0
            for i, (a, v, mean, _) in enumerate(options):
                q = self._q(mean, p) if v else fpu
                score = q + cp * priors.get(a, 0.0) / (1 + v)
                if score > best:
                    best, best_i = score, i
            return best_i
        untried = [i for i, (_, v, _, _) in enumerate(options) if v == 0]
        if untried:
            return untried[int(self.rng.integers(len(untried)))]
        c = self.exploration
        best, best_i = -math.inf, 0
        for i, (_, v, mean, avail) in enumerate(options):
            score = self._q(mean, p) + c * math.sqrt(math.log(max(avail, 1)) / v)
            if score > best:
                best, best_i = score, i
        return best_i

    def _root_choice(
        self, root_state: State, seat: int, root: _Node, root_actions: list[Any]
    ) -> tuple[Any, int]:
        """The searching seat's root action for the next simulation, chosen before the
        determinization (it depends only on the root's statistics and priors: the prior
        policy reads the seat's observation, the same in every determinization), and how
        often it was tried before. The availability counts are those the selection inside
        the simulation will see."""
        pri = self._priors(root_state, root, seat, root_actions, 0)
        options = []
        if len(root_state.current_players()) > 1:
            edges = (root.seat_edges or {}).get(seat, {})
            seen = 0
            for a in root_actions:
                e = edges.get(a)
                if e is None:
                    options.append((a, 0, 0.0, 1))
                else:
                    seen += e.visits
                    mean = e.total / e.visits if e.visits else 0.0
                    options.append((a, e.visits, mean, e.avail + 1))
            i = self._ucb_pick(options, seat, pri, seen, root.mean(seat))
        else:
            for a in root_actions:
                ch = root.children.get((seat, a))
                if ch is None:
                    options.append((a, 0, 0.0, 0))
                else:
                    options.append((a, ch.visits, ch.mean(seat), ch.avail + 1))
            i = self._ucb_pick(options, seat, pri, root.visits, root.mean(seat))
        return root_actions[i], options[i][1]

    def _simulate(
        self,
        root_state: State,
        seat: int,
        root: _Node,
        root_actions: list[Any],
        n: int,
        stats: MCTSStats,
        forced: Any,
    ) -> None:
        """One simulation: determinize, select/expand, roll out, back up. ``forced`` (not
        None) is the searching seat's root action, chosen beforehand."""
        state = (
            root_state.resample_hidden(seat, self.rng) if self.determinize else root_state.clone()
        )
        node = root
        path: list[_Node] = [root]
        # (node, {seat: action}) of the simultaneous nodes passed, for decoupled backup
        joint: list[tuple[_Node, dict[int, Any]]] = []
        expanded = False
        depth = 0
        tree_depth = 0  # decision layers passed (the root is 0)
        while not state.is_terminal() and not expanded:
            if state.is_chance_node():
                node = self._chance_step(state, node, n)
                stats.chance_events += 1
            else:
                players = state.current_players()
                if len(players) == 1:
                    p = players[0]
                    acts = root_actions if node is root else self._candidates(state, p)
                    options = []
                    for a in acts:
                        ch = node.children.get((p, a))
                        if ch is None:
                            options.append((a, 0, 0.0, 0))
                        else:
                            ch.avail += 1
                            options.append((a, ch.visits, ch.mean(p), ch.avail))
                    if forced is not None and node is root:
                        a = forced
                    else:
                        pri = self._priors(state, node, p, acts, tree_depth)
                        a = acts[self._ucb_pick(options, p, pri, node.visits, node.mean(p))]
                    child = node.child((p, a), n)
                    if child.visits == 0:
                        child.avail = max(child.avail, 1)
                        expanded = True
                    state.apply_action(a)
                    node = child
                    stats.tree_decisions += 1
                else:
                    choice, fresh = self._decoupled(
                        state,
                        node,
                        players,
                        (seat, root_actions) if node is root else None,
                        tree_depth,
                        forced if node is root else None,
                    )
                    joint.append((node, choice))
                    key = ("joint", tuple(choice[p] for p in players))
                    child = node.child(key, n)
                    expanded = fresh or child.visits == 0
                    state.apply_actions(choice)
                    node = child
                    stats.tree_decisions += len(players)
                tree_depth += 1
            path.append(node)
            depth += 1
        stats.max_depth = max(stats.max_depth, depth)
        values = self._rollout(state, n, stats)
        lo, hi = self._lo, self._hi
        for i in range(n):
            if values[i] < lo[i]:
                lo[i] = values[i]
            if values[i] > hi[i]:
                hi[i] = values[i]
        for nd in path:
            nd.visits += 1
            tot = nd.total
            for i in range(n):
                tot[i] += values[i]
        for nd, choice in joint:
            edges = nd.seat_edges
            assert edges is not None
            for p, a in choice.items():
                e = edges[p][a]
                e.visits += 1
                e.total += values[p]

    def _decoupled(
        self,
        state: State,
        node: _Node,
        players: Sequence[int],
        root: tuple[int, list[Any]] | None,
        tree_depth: int = 0,
        forced: Any = None,
    ) -> tuple[dict[int, Any], bool]:
        """Decoupled UCT at a simultaneous node: each seat picks by its own statistics.
        ``root`` is (searching seat, its root actions) at the root, ``forced`` that seat's
        action there when chosen beforehand. Returns the joint choice and whether some seat
        tried an action for the first time."""
        if node.seat_edges is None:
            node.seat_edges = {}
        choice: dict[int, Any] = {}
        fresh = False
        for p in players:
            edges = node.seat_edges.setdefault(p, {})
            acts = root[1] if root is not None and p == root[0] else self._candidates(state, p)
            options = []
            seen = 0
            for a in acts:
                e = edges.get(a)
                if e is None:
                    e = edges[a] = _Edge()
                e.avail += 1
                seen += e.visits
                options.append((a, e.visits, e.total / e.visits if e.visits else 0.0, e.avail))
            if forced is not None and root is not None and p == root[0]:
                i = acts.index(forced)
            else:
                pri = self._priors(state, node, p, acts, tree_depth)
                i = self._ucb_pick(options, p, pri, seen, node.mean(p))
            fresh = fresh or options[i][1] == 0
            choice[p] = acts[i]
        return choice, fresh

    def _chance_step(self, state: State, node: _Node, n: int) -> _Node:
        """Sample and apply the pending chance event; the child node it leads to."""
        try:
            outcomes = state.chance_outcomes()
        except InvalidStateError:
            outcomes = None
        if outcomes is not None:
            o = sample_discrete(outcomes, self.rng)
            state.apply_chance(o)
            return node.child(("chance", o), n)
        # continuous: at most ``chance_children`` stored samples
        if node.samples is None:
            node.samples = []
        samples = node.samples
        if len(samples) < self.chance_children:
            o = state.sample_chance(self.rng)
            samples.append(o)
            i = len(samples) - 1
            state.apply_chance(o)
        else:
            i = int(self.rng.integers(len(samples)))
            try:
                state.apply_chance(samples[i])
            except IllegalActionError:  # not possible in this determinization: fresh draw
                state.apply_chance(state.sample_chance(self.rng))
        return node.child(("sample", i), n)

    def _rollout(self, state: State, n: int, stats: MCTSStats) -> list[float]:
        """``rollout_depth`` decision layers of the rollout policy (then on to a decision of
        a ``rollout_until`` kind, at most ``rollout_cap`` in all), then the evaluator."""
        rng = self.rng
        policy = self.rollout_policy
        decisions = 0
        guard = 0
        until = self.rollout_until
        while not state.is_terminal() and decisions < self.rollout_cap:
            if decisions >= self.rollout_depth and (
                not until or (not state.is_chance_node() and _kind(state.decision_kind()) in until)
            ):
                break
            if state.is_chance_node():
                state.apply_chance(state.sample_chance(rng))
                stats.chance_events += 1
                guard += 1
                if guard > 1000:
                    break
                continue
            players = state.current_players()
            acts = {}
            for p in players:
                if policy is not None:
                    acts[p] = policy.act(state, p)
                else:
                    legal = state.legal_actions(p)
                    acts[p] = legal[int(rng.integers(len(legal)))]
            state.apply_actions(acts)
            decisions += 1
            stats.rollout_decisions += len(players)
        while self.settle_chance and state.is_chance_node() and guard <= 1000:
            state.apply_chance(state.sample_chance(rng))  # the evaluator sees the outcome
            stats.chance_events += 1
            guard += 1
        if state.is_terminal():
            return [float(v) for v in state.returns()]
        stats.evaluations += n
        return evaluate_all(self.evaluator, state, n)

    def _best(self, root: _Node, seat: int, actions: list[Any], simultaneous: bool) -> Any:
        """Most visited root action; ties by mean value, then the first listed."""
        best, best_key = actions[0], (-1, -math.inf, -math.inf)
        edges = (root.seat_edges or {}).get(seat, {}) if simultaneous else None
        pri = (root.priors or {}).get(seat, {})
        for a in actions:
            prior = pri.get(a, 0.0)
            if edges is not None:
                e = edges.get(a)
                key = (
                    (0, -math.inf, prior)
                    if e is None or not e.visits
                    else (e.visits, e.total / e.visits, prior)
                )
            else:
                ch = root.children.get((seat, a))
                key = (
                    (0, -math.inf, prior)
                    if ch is None or not ch.visits
                    else (ch.visits, ch.mean(seat), prior)
                )
            if key > best_key:
                best, best_key = a, key
        return best
