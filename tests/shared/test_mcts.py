"""MCTSBot (agents/mcts.py) over both engines: finds a win available now, never returns an
illegal action (sequential, simultaneous and after-chance nodes), is deterministic for a
seed with a simulation budget, stops on a time budget, and reads no hidden information."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from lunatix_builders import choose, edited, give_gadget, hide_swap, moved, put, square_at, start
from random_play import random_state
from ryderz_builders import PREV, position, skip_to_move, straight_at

from agents.bot import RandomBot
from agents.heuristic_lunatix import LunatixHeuristic
from agents.mcts import MCTSBot, MCTSStats, ZeroEvaluator
from agents.specs import BotSpecError, make_bot, parse
from lunatix_env.rules import Action as LAction
from lunatix_env.rules import ActionKind as LK
from lunatix_env.rules import Card
from lunatix_env.rules import Game as LunatixGame
from ryderz_env.rules import Action as RAction
from ryderz_env.rules import Game as RyderzGame
from ryderz_env.rules import Pose, Prizm

EAST = 0.0


def _settle(s: Any, rng: np.random.Generator) -> Any:
    """Resolve pending chance events (a decision then follows a chance outcome)."""
    while s.is_chance_node():
        s.apply_chance(s.sample_chance(rng))
    return s


def _stats_key(st: MCTSStats) -> tuple:
    return (
        st.simulations,
        st.tree_decisions,
        st.rollout_decisions,
        st.chance_events,
        st.evaluations,
        st.max_depth,
    )


# ---------------------------------------------------------------------- finding a win
def _lunatix_last_lap() -> Any:
    """Both cars one square before the line on their last lap at 0 mph, both played
    Accelerate; seat 0 moves first. Accelerating by 10 or 20 crosses the line and wins;
    accelerating by 0 stays put and seat 1 then wins the same way."""
    g = LunatixGame(num_players=2)
    laps = g.rules.laps
    b = start(g)
    for seat in range(2):
        b.car(seat, luck=0, speed=0)
    put(b, 0, square_at(g, 0, -1), speed=0, laps=laps - 1)
    put(b, 1, square_at(g, 1, -1), speed=0, laps=laps - 1)
    s = b.build()
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})
    assert s.decision is not None and s.decision.to_dict() == {"kind": "accelerate", "seat": 0}
    return s


def test_lunatix_mcts_takes_the_win_this_turn_and_avoids_the_losing_choice() -> None:
    s = _lunatix_last_lap()
    wins = {LAction(LK.ACCELERATE, 10), LAction(LK.ACCELERATE, 20)}
    # the wrong choice: seat 1 can then win at once
    t = s.clone()
    t.apply_action(LAction(LK.ACCELERATE, 0))
    assert t.decision is not None and t.decision.to_dict() == {"kind": "accelerate", "seat": 1}
    t.apply_action(LAction(LK.ACCELERATE, 10))
    t.apply_action(t.legal_actions(1)[0])
    assert t.is_terminal() and t.winner == 1
    bot = MCTSBot(ZeroEvaluator(), sims=300, seed=0)
    a = bot.act(s, 0)
    assert a in wins
    assert bot.last_stats.simulations == 300


def test_ryderz_mcts_scores_the_prizm_that_wins_the_game() -> None:
    g = RyderzGame(num_players=2, launch_noise_sigma=0.0)
    pre = straight_at(g, 0, Pose(-4.0, 0.0, EAST), 1, PREV)
    # seat 0 owns two Prizms; a straight from (-4, 0) east crosses the neutral one
    s = position(
        g,
        0,
        lazers={0: [pre]},
        gears={0: 3},
        prizms=[
            Prizm(10.0, 10.0, 0),
            Prizm(-1.75, 0.3),
            Prizm(-10.0, 10.0, 0),
            Prizm(0.0, -12.0, 1),
        ],
    )
    skip_to_move(s)
    legal = s.legal_actions(0)

    def wins_now(a: Any) -> bool:
        t = s.clone()
        t.apply_action(a)
        return t.is_terminal() and t.winner == 0

    winning = [a for a in legal if wins_now(a)]
    assert winning and len(winning) < len(legal)
    bot = MCTSBot(ZeroEvaluator(), sims=200, rollout_depth=4, seed=1)
    assert wins_now(bot.act(s, 0))


# ---------------------------------------------------------------------- legality
def _positions(game: Any, seeds: range, steps: tuple[int, ...]) -> list[Any]:
    out = []
    for seed in seeds:
        for k in steps:
            s, rng = random_state(game, seed, k)
            _settle(s, rng)
            if not s.is_terminal():
                out.append(s)
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_mcts_never_returns_an_illegal_action(n: int) -> None:
    simultaneous = 0
    cases = [
        (LunatixGame(num_players=n), 25, 6, (0, 15, 60, 150)),
        (RyderzGame(num_players=n), 12, 4, (0, 7, 25)),
    ]
    for game, sims, depth, steps in cases:
        for s in _positions(game, range(2), steps):
            players = s.current_players()
            simultaneous += len(players) > 1
            before = s.to_dict()
            for seat in players:
                bot = MCTSBot(ZeroEvaluator(), sims=sims, rollout_depth=depth, seed=seat)
                a = bot.act(s, seat)
                assert s.is_legal(seat, a), (type(game).__module__, s.decision, a)
            assert s.to_dict() == before, "the search changed the state it was given"
    assert simultaneous >= 2


# ---------------------------------------------------------------------- determinism, budgets
@pytest.mark.parametrize(
    "game", [LunatixGame(num_players=3), RyderzGame(num_players=2)], ids=["lunatix", "ryderz"]
)
def test_mcts_is_deterministic_for_a_seed(game: Any) -> None:
    for s in _positions(game, range(1), (5, 30)):
        seat = s.current_players()[0]
        runs = []
        for _ in range(2):
            bot = MCTSBot(ZeroEvaluator(), sims=40, rollout_depth=5, seed=11)
            runs.append((bot.act(s, seat), _stats_key(bot.last_stats)))
        assert runs[0] == runs[1]
        # reset(seed) restarts the same search, a rollout Bot included
        bot = MCTSBot(ZeroEvaluator(), sims=40, rollout_depth=5, rollout_policy=RandomBot(), seed=5)
        first = bot.act(s, seat), _stats_key(bot.last_stats)
        bot.reset(5)
        assert (bot.act(s, seat), _stats_key(bot.last_stats)) == first


def test_time_budget_stops_and_searches() -> None:
    s = _lunatix_last_lap()
    bot = MCTSBot(ZeroEvaluator(), max_ms=50, seed=0)
    assert bot.name == "mcts:ms=50"
    a = bot.act(s, 0)
    assert s.is_legal(0, a)
    st = bot.last_stats
    assert st.simulations >= 1 and 0 < st.seconds < 5.0
    assert MCTSBot(sims=400).name == "mcts:sims=400"


def test_a_single_legal_action_is_returned_without_search() -> None:
    s = _lunatix_last_lap()
    t = s.clone()
    t.apply_action(LAction(LK.ACCELERATE, 10))  # one step left, maybe one way only
    seat = t.current_players()[0]
    bot = MCTSBot(sims=50, seed=0)
    a = bot.act(t, seat)
    assert t.is_legal(seat, a)
    if len(t.legal_actions(seat)) == 1:
        assert bot.last_stats.simulations == 0


# ---------------------------------------------------------------------- hidden information
def test_determinized_search_does_not_read_hidden_gadgets() -> None:
    """Two states that differ only in seat 1's hidden gadgets (and the deck) give the same
    search for a fixed seed: every simulation starts from resample_hidden."""
    g = LunatixGame(num_players=3)
    b = start(g)
    give_gadget(b, 1, "Armor Plating")
    give_gadget(b, 1, "Rocket Booster")
    give_gadget(b, 2, "Battering Ram")
    give_gadget(b, 0, "Charger")
    s = b.build()
    rng = np.random.default_rng(4)
    other = hide_swap(s, 0, rng)
    while other.to_dict() == s.to_dict():
        other = hide_swap(s, 0, rng)
    assert other.observation(0) == s.observation(0)
    results = []
    for state in (s, other):
        bot = MCTSBot(ZeroEvaluator(), sims=60, rollout_depth=6, seed=9)
        results.append((bot.act(state, 0), _stats_key(bot.last_stats)))
    assert results[0] == results[1]


# ---------------------------------------------------------------------- hooks
def test_extra_actions_hook_adds_only_legal_candidates() -> None:
    g = RyderzGame(num_players=2)
    s = g.new_initial_state(0)
    assert len(s.current_players()) == 2  # Start Your Engines: simultaneous
    extra = RAction.launch(2, 0.123)
    bogus = RAction.launch(99, 0.5)

    def hook(state: Any, seat: int) -> list[Any]:
        return [extra, bogus, state.legal_actions(seat)[0]]

    bot = MCTSBot(ZeroEvaluator(), sims=30, rollout_depth=2, extra_actions=hook, seed=0)
    cands = bot._candidates(s, 0)
    assert cands[-1] == extra and bogus not in cands
    assert len(cands) == len(s.legal_actions(0)) + 1
    a = bot.act(s, 0)
    assert s.is_legal(0, a)
    assert math.isfinite(bot.last_stats.seconds)


# ---------------------------------------------------------------------- priors, normalisation
def _lunatix_rival_out() -> Any:
    """Seat 1 is out of the race, seat 0 stands at 0 mph far from the finish and must
    accelerate (the bug seen in the arena: the heuristic's value is a sure win for every
    move, so a plain search played the first listed action, Accelerate 0, for ever and the
    game was truncated)."""
    g = LunatixGame(num_players=2)
    b = start(g)
    for seat in range(2):
        b.car(seat, luck=0, speed=0)
    put(b, 0, square_at(g, 0, 8), speed=0)
    put(b, 1, square_at(g, 1, 5), speed=0)
    s = b.build()
    choose(s, {0: Card.ACCELERATE, 1: Card.ACCELERATE})
    s = edited(s, lambda d: d["cars"][1].update(out=True, max_speed=0, speed=0))
    assert s.decision is not None and s.decision.to_dict() == {"kind": "accelerate", "seat": 0}
    return s


class _SureWin:
    """An evaluator saturated at a sure win for seat 0 (what the heuristic's value was for
    a lone survivor until 2026-12-02)."""

    def value(self, state: Any, seat: int) -> float:
        return 1.0 if seat == 0 else -1.0


def test_saturated_values_follow_the_prior_policy_not_the_first_action() -> None:
    s = _lunatix_rival_out()
    h = LunatixHeuristic(seed=0)
    want = h.act(s, 0)
    assert want != s.legal_actions(0)[0]
    plain = MCTSBot(_SureWin(), sims=60, rollout_depth=4, seed=0).act(s, 0)
    assert plain == s.legal_actions(0)[0]  # what went wrong: the first listed (Accelerate 0)
    for normalize in (False, True):
        bot = MCTSBot(
            _SureWin(),
            sims=60,
            rollout_depth=4,
            seed=0,
            prior_policy=LunatixHeuristic(seed=1),
            normalize=normalize,
        )
        assert bot.act(s, 0) == want
        assert bot.last_stats.simulations == 60


def test_a_lone_survivor_is_not_a_sure_win_and_prefers_progress() -> None:
    """The heuristic's value of a lone survivor stays below the win (it must still finish
    before the round limit), and more progress is worth more, so that a search on it
    drives on (the plain search no longer stands still at 0 mph)."""
    s = _lunatix_rival_out()
    h = LunatixHeuristic(seed=0)
    v = h.value(s, 0)
    assert 0.0 < v < 1.0
    # 17 squares further on in the inside lane: about 20 squares of progress more
    ahead = moved(s, 0, square_at(s.game, 0, 8 + 17), speed=0)
    assert ahead.cars[0].u == pytest.approx(s.cars[0].u + 19.75)
    assert h.value(ahead, 0) > v
    g_limit = s.game.rules.round_limit - 2
    late = edited(s, lambda d: d.update(round=g_limit))
    assert h.value(late, 0) < v and g_limit > 0
    plain = MCTSBot(LunatixHeuristic(), sims=60, rollout_depth=4, seed=0).act(s, 0)
    assert plain != s.legal_actions(0)[0]


def test_the_prior_is_overruled_by_a_found_win() -> None:
    """A prior policy that always proposes Accelerate 0 (which loses) does not stop the
    search from taking the win."""

    class Stall:
        name = "stall"

        def reset(self, seed: int | None = None) -> None:
            pass

        def act(self, state: Any, seat: int) -> Any:
            legal = state.legal_actions(seat)
            return next((a for a in legal if a == LAction(LK.ACCELERATE, 0)), legal[0])

    s = _lunatix_last_lap()
    bot = MCTSBot(
        ZeroEvaluator(), sims=200, rollout_depth=0, prior_policy=Stall(), normalize=True, seed=0
    )
    a = bot.act(s, 0)
    assert a.kind is LK.ACCELERATE and a.arg > 0


def test_prior_search_is_deterministic_and_legal_in_both_games() -> None:
    for s, seat, bot in (
        (
            _lunatix_rival_out(),
            0,
            lambda: make_bot(
                "mcts:sims=30,depth=2,prior=heuristic,pdepth=2,norm=1", "lunatix", seed=3
            ),
        ),
        (
            _settle(RyderzGame(num_players=2).new_initial_state(4), np.random.default_rng(0)),
            None,
            lambda: make_bot("mcts:sims=20,depth=1,prior=heuristic,norm=1", "ryderz", seed=3),
        ),
    ):
        p = s.current_players()[0] if seat is None else seat
        first = bot().act(s, p)
        assert s.is_legal(p, first)
        assert bot().act(s, p) == first


def test_normalised_values_map_to_the_unit_interval() -> None:
    bot = MCTSBot(sims=1, normalize=True)
    bot._lo, bot._hi = [0.2, 0.0], [0.4, 0.0]
    assert bot._q(0.3, 0) == pytest.approx(0.5)
    assert bot._q(0.4, 0) == pytest.approx(1.0)
    assert bot._q(0.0, 1) == 0.5  # no spread yet
    assert MCTSBot(sims=1, value_scale=0.5)._q(0.3, 0) == pytest.approx(0.6)


def test_prior_spec_keys_are_parsed_and_validated() -> None:
    bot = make_bot("mcts:sims=10,prior=heuristic,pw=1.5,pmix=0,pdepth=0,norm=1", "lunatix", seed=0)
    assert isinstance(bot, MCTSBot)
    assert bot.prior_policy is not None and bot.normalize
    assert (bot.prior_weight, bot.prior_mix, bot.prior_depth) == (1.5, 0.0, 0)
    plain = make_bot("mcts:sims=10", "lunatix", seed=0)
    assert plain.prior_policy is None and not plain.normalize
    for bad in ("mcts:prior=smart", "mcts:pmix=2", "mcts:pw=0", "mcts:norm=yes", "mcts:pdepth=-1"):
        with pytest.raises(BotSpecError):
            parse(bad)
    with pytest.raises(ValueError):
        MCTSBot(sims=1, prior_mix=1.5)


class _Spy:
    """An evaluator that notes whether each state it is asked about waits for chance."""

    def __init__(self) -> None:
        self.at_chance: list[bool] = []

    def value(self, state: Any, seat: int) -> float:
        self.at_chance.append(state.is_chance_node())
        return 0.0


@pytest.mark.parametrize("settle", [False, True])
def test_settled_leaves_are_evaluated_after_their_chance_events(settle: bool) -> None:
    """A Lazer Ryderz move is only a placed piece after its die roll: with ``settle`` the
    evaluator never sees a leaf waiting for chance (without it, it does)."""
    g = RyderzGame(num_players=2)
    s, rng = random_state(g, 4, 12)
    _settle(s, rng)
    spy = _Spy()
    bot = MCTSBot(spy, sims=60, rollout_depth=0, settle_chance=settle, seed=1)
    seat = s.current_players()[0]
    assert s.is_legal(seat, bot.act(s, seat))
    assert spy.at_chance and any(spy.at_chance) is not settle
    spec = make_bot("mcts:sims=5,settle=1", "ryderz", seed=0)
    assert spec.settle_chance and not make_bot("mcts:sims=5", "ryderz", seed=0).settle_chance
    with pytest.raises(BotSpecError):
        parse("mcts:settle=yes")


# ---------------------------------------------------------------------- minor decisions
def _lunatix_at(kind: str, major: bool = False) -> Any:
    """A random-play Lunatix Loop state whose pending decision is of ``kind`` with more than
    one legal action."""
    g = LunatixGame(num_players=2)
    for seed in range(50):
        for steps in range(5, 80, 3):
            s, _ = random_state(g, seed, steps)
            kind_now = s.decision_kind()
            if kind_now is None or kind_now.value != kind:
                continue
            seat = s.current_players()[0]
            if len(s.legal_actions(seat)) > 1:
                return s
    raise AssertionError(f"no {kind} decision found")


def test_minor_decisions_get_their_share_of_the_budget() -> None:
    """Lunatix Loop's lane steps are minor (registry): with ``minor_share`` they get that
    share of the simulations, other kinds the whole budget; 0 plays the prior's move."""
    step, card = _lunatix_at("step"), _lunatix_at("card")
    for share, step_sims in ((1.0, 40), (0.25, 10), (0.01, 1)):
        bot = MCTSBot(sims=40, rollout_depth=2, minor_kinds=("step",), minor_share=share, seed=0)
        seat = step.current_players()[0]
        assert step.is_legal(seat, bot.act(step, seat))
        assert bot.last_stats.simulations == step_sims
        seat = card.current_players()[0]
        assert card.is_legal(seat, bot.act(card, seat))
        assert bot.last_stats.simulations == 40
    bot = MCTSBot(
        sims=40,
        prior_policy=LunatixHeuristic(seed=3),
        minor_kinds=("step",),
        minor_share=0.0,
        seed=0,
    )
    seat = step.current_players()[0]
    prior_seed = int(np.random.default_rng(0).integers(2**31))  # as reset(0) seeds it
    assert bot.act(step, seat) == LunatixHeuristic(seed=prior_seed).act(step, seat)
    assert bot.last_stats.simulations == 0
    with pytest.raises(ValueError, match="prior or rollout policy"):
        MCTSBot(sims=4, minor_kinds=("step",), minor_share=0.0)
    with pytest.raises(ValueError):
        MCTSBot(sims=4, minor_share=1.5)


def test_minor_spec_key_uses_the_registry_kinds() -> None:
    bot = make_bot("mcts:sims=10,prior=heuristic,minor=0", "lunatix", seed=0)
    assert isinstance(bot, MCTSBot)
    assert (bot.minor_kinds, bot.minor_share) == (("step",), 0.0)
    ryderz = make_bot("mcts:sims=10,minor=0.5", "ryderz", seed=0)
    assert ryderz.minor_kinds == () and ryderz.minor_share == 0.5
    assert make_bot("mcts:sims=10", "lunatix", seed=0).minor_kinds == ()
    for bad in ("mcts:minor=2", "mcts:minor=-0.5", "mcts:minor=half"):
        with pytest.raises(BotSpecError):
            parse(bad)
    with pytest.raises(BotSpecError, match="prior=heuristic"):
        make_bot("mcts:sims=10,minor=0", "lunatix", seed=0)


def test_registry_minor_decisions_are_decision_kinds_of_the_engine() -> None:
    from tabletop import registry

    for name in registry.names():
        entry = registry.get(name)
        s = entry.game(num_players=2).new_initial_state(seed=0)
        kinds = {k.value for k in type(_settle(s, np.random.default_rng(0)).decision_kind())}
        assert set(entry.minor_decisions) <= kinds, name
    assert registry.get("lunatix").minor_decisions == ("step",)


# ---------------------------------------------------------------------- memo
class _Counting:
    """A heuristic that counts how often it is asked."""

    decides_from_observation = True

    def __init__(self) -> None:
        self.inner = LunatixHeuristic(seed=0)
        self.name = "counting"
        self.calls = 0

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, state: Any, seat: int) -> Any:
        self.calls += 1
        return self.inner.act(state, seat)


def test_memo_remembers_moves_by_observation_only() -> None:
    """A state seen before, or one that differs only in what the seat cannot see, gets the
    remembered move without asking the bot; another observation asks it."""
    from agents.bot import MemoBot

    g = LunatixGame(num_players=3)
    b = start(g)
    give_gadget(b, 1, "Armor Plating")
    give_gadget(b, 2, "Battering Ram")
    s = b.build()
    _settle(s, np.random.default_rng(0))
    rng = np.random.default_rng(4)
    other = hide_swap(s, 0, rng)
    while other.to_dict() == s.to_dict():
        other = hide_swap(s, 0, rng)
    spy = _Counting()
    memo = MemoBot(spy)
    seat = 0
    assert seat in s.current_players()
    first = memo.act(s, seat)
    assert memo.act(s.clone(), seat) == first and memo.act(other, seat) == first
    assert (spy.calls, memo.hits) == (1, 2)
    later = _lunatix_at("card")  # another position: the bot is asked
    memo.act(later, later.current_players()[0])
    assert spy.calls == 2
    memo.clear()
    memo.act(s, seat)
    assert spy.calls == 3
    with pytest.raises(ValueError, match="decides_from_observation"):
        MemoBot(RandomBot())


def test_memo_search_is_legal_deterministic_and_remembers() -> None:
    card = _lunatix_at("card")
    seat = card.current_players()[0]
    spec = "mcts:sims=60,depth=6,rollout=heuristic,prior=heuristic,norm=1,memo=1"
    runs = []
    for _ in range(2):
        bot = make_bot(spec, "lunatix", seed=4)
        assert isinstance(bot, MCTSBot) and bot.memo
        runs.append((bot.act(card, seat), _stats_key(bot.last_stats)))
        assert card.is_legal(seat, runs[-1][0])
        rollout = bot.rollout_policy
        assert rollout is not None and rollout.hits > 0  # type: ignore[attr-defined]
    assert runs[0] == runs[1]
    with pytest.raises(BotSpecError, match="observation alone"):
        make_bot("mcts:sims=10,rollout=heuristic,memo=1", "ryderz", seed=0)
    with pytest.raises(BotSpecError):
        parse("mcts:memo=yes")


# ---------------------------------------------------------------------- common random numbers
class _StreamSpy:
    """A root state that notes the generator state each determinization starts from."""

    def __init__(self, state: Any) -> None:
        self._inner = state
        self.streams: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> Any:
        self.streams.append(int(rng.bit_generator.state["state"]["state"]))
        return self._inner.resample_hidden(seat, rng)


@pytest.mark.parametrize("crn", [False, True])
def test_common_random_numbers_match_the_trials_of_root_actions(crn: bool) -> None:
    """With ``common_random`` the n-th trial of every root action starts from the same
    stream (so the same determinization); without it every simulation draws afresh."""
    card = _lunatix_at("card")
    seat = card.current_players()[0]
    k = len(card.legal_actions(seat))
    spy = _StreamSpy(card)
    bot = MCTSBot(sims=4 * k, rollout_depth=3, common_random=crn, seed=2)
    assert card.is_legal(seat, bot.act(spy, seat))  # type: ignore[arg-type]
    assert len(spy.streams) == 4 * k
    distinct = len(set(spy.streams))
    if crn:
        assert distinct < 4 * k  # UCT tries every action once first: trial 0 is shared
        again = _StreamSpy(card)
        MCTSBot(sims=4 * k, rollout_depth=3, common_random=True, seed=2).act(again, seat)  # type: ignore[arg-type]
        assert again.streams == spy.streams
    else:
        assert distinct == 4 * k
    assert make_bot("mcts:sims=5,crn=1", "lunatix", seed=0).common_random
    with pytest.raises(BotSpecError):
        parse("mcts:crn=2")


def test_common_random_search_is_legal_in_both_games() -> None:
    for game in (LunatixGame(num_players=3), RyderzGame(num_players=2)):
        for s in _positions(game, range(2), (5, 30)):
            seat = s.current_players()[0]
            before = s.to_dict()
            bot = MCTSBot(ZeroEvaluator(), sims=24, rollout_depth=4, common_random=True, seed=1)
            assert s.is_legal(seat, bot.act(s, seat))
            assert s.to_dict() == before


# ---------------------------------------------------------------------- rollouts until
class _KindsSeen:
    """An evaluator that records the decision kind of every state it values."""

    def __init__(self) -> None:
        self.kinds: list[str | None] = []

    def value(self, state: Any, seat: int) -> float:
        kind = state.decision_kind()
        self.kinds.append(None if kind is None else kind.value)
        return 0.0


@pytest.mark.parametrize("depth", [0, 3])
def test_rollouts_until_a_kind_end_at_a_decision_of_that_kind(depth: int) -> None:
    """``rollout_until``: after ``rollout_depth`` decisions the rollout goes on to the next
    decision of the kind (a card: the start of a round), so every leaf is at the same phase
    of the game; without it, leaves fall wherever the depth ends."""
    step = _lunatix_at("step")
    seat = step.current_players()[0]
    seen = _KindsSeen()
    bot = MCTSBot(seen, sims=12, rollout_depth=depth, rollout_until=("card",), seed=0)
    assert step.is_legal(seat, bot.act(step, seat))
    assert seen.kinds and set(seen.kinds) == {"card"}
    assert bot.last_stats.rollout_decisions > 12 * depth  # it went on past the depth
    free = _KindsSeen()
    MCTSBot(free, sims=12, rollout_depth=depth + 1, seed=0).act(step, seat)
    assert set(free.kinds) != {"card"}
    capped = _KindsSeen()  # at most one rollout decision: a round is not over by then
    MCTSBot(capped, sims=12, rollout_depth=0, rollout_until=("card",), rollout_cap=1, seed=0).act(
        step, seat
    )
    assert set(capped.kinds) != {"card"}
    with pytest.raises(ValueError, match="rollout_cap"):
        MCTSBot(sims=4, rollout_depth=5, rollout_cap=4)


def test_until_spec_key_names_a_decision_kind_of_the_game() -> None:
    bot = make_bot("mcts:sims=10,depth=0,until=card", "lunatix", seed=0)
    assert bot.rollout_until == ("card",)  # type: ignore[attr-defined]
    assert make_bot("mcts:sims=10", "lunatix", seed=0).rollout_until == ()  # type: ignore[attr-defined]
    with pytest.raises(BotSpecError, match="not a decision kind of ryderz: engines"):
        make_bot("mcts:sims=10,until=card", "ryderz", seed=0)
    with pytest.raises(BotSpecError, match="expected a decision kind"):
        parse("mcts:until=2x")
