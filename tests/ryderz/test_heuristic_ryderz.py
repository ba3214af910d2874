"""The Lazer Ryderz heuristic bot (``agents/heuristic_ryderz.py``): key decisions, legality
over random positions, determinism, the evaluator, and simultaneous-node information."""

from __future__ import annotations

import numpy as np
import pytest
from ryderz_builders import (
    DOWN,
    EAST,
    UP,
    chain,
    game,
    move,
    position,
    st,
    straight_at,
    with_prizms,
)

from agents.bot import Bot, Evaluator, RandomBot
from agents.heuristic_ryderz import RyderzHeuristic
from ryderz_env.rules import (
    Action,
    ActionKind,
    ChanceKind,
    DecisionKind,
    Move,
    Pose,
    Prizm,
    aim_launches,
)
from ryderz_env.rules.aim import LaunchAim
from tabletop.protocol import play_chance


def outcomes(s, seat: int, action: Action) -> list[tuple[bool, bool]]:
    """(scored, crashed) of ``action`` for every face of the die (one entry without a die)."""
    out = []
    faces = [None]
    c = s.clone()
    c.apply_action(action)
    if c.chance_kind() is ChanceKind.DIE:
        faces = [f for f, _ in c.chance_outcomes()]
    for f in faces:
        c = s.clone()
        before = c.score(seat)
        c.apply_action(action)
        if f is not None:
            c.apply_chance(f)
        out.append((c.score(seat) > before, c.players[seat].head is None))
    return out


def test_bot_and_evaluator_protocols() -> None:
    bot = RyderzHeuristic(seed=0)
    assert isinstance(bot, Bot) and isinstance(bot, Evaluator)
    assert bot.name == "heuristic" and RyderzHeuristic.version == 1


def test_takes_the_scoring_straight_over_crashing_curves() -> None:
    g = game(num_players=3)
    # seat 0 heads up the table in 3rd gear; a neutral Prizm lies 4 in ahead (a 3rd-gear
    # straight crosses it), and the Lazers of seats 1 and 2 run along both sides of the head
    # (one Lazer is one chain: a wall each), so every curve crashes into them
    head = Pose(0.0, -6.0, UP)
    wall_l = chain(g, 1, Pose(-1.2, -9.0, UP), [st(3)])
    wall_r = chain(g, 2, Pose(1.2, -9.0, UP), [st(3)])
    s = position(
        g,
        0,
        lazers={0: [straight_at(g, 0, head, 3)], 1: wall_l, 2: wall_r},
        prizms=[Prizm(0.0, -2.0), Prizm(0.0, 8.0)],
        gears={0: 3},
    )
    assert s.decision_kind() is DecisionKind.MOVE
    legal = s.legal_actions(0)
    crashing = [
        a for a in legal if a.move_kind.is_curve and any(crash for _, crash in outcomes(s, 0, a))
    ]
    assert crashing, "the scenario must offer crashing moves"
    a = RyderzHeuristic(seed=0).act(s, 0)
    res = outcomes(s, 0, a)
    assert all(scored and not crash for scored, crash in res), (str(a), res)


def test_launch_faces_a_prizm_in_reach() -> None:
    g = game(num_players=2)
    # the second is out of seat 0's aim
    s = with_prizms(g.new_initial_state(0), [Prizm(1.0, 3.0), Prizm(-14.0, 9.0)])
    bot = RyderzHeuristic(seed=1)
    a = bot.act(s, 0)
    aims = aim_launches(s, 0)
    assert aims[0] is not None and aims[1] is None
    assert a.kind is ActionKind.LAUNCH and a.x == pytest.approx(aims[0], abs=1e-12)
    assert a.arg >= g.top_gear - 1  # fast straights down the line
    assert s.is_legal(0, a)


def test_respawn_launch_faces_a_prizm() -> None:
    g = game(num_players=2)
    s = position(
        g,
        0,
        lazers={0: [straight_at(g, 0, Pose(0.0, 16.0, UP), 3)]},
        prizms=[Prizm(2.0, -3.0), Prizm(-6.0, 6.0, 1)],
        gears={0: 3},
    )
    # a straight off the far edge crashes; the respawn follows in the same turn
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.RESPAWN and s.current_players() == (0,)
    a = RyderzHeuristic(seed=0).act(s, 0)
    assert a.kind is ActionKind.LAUNCH and a.arg == g.top_gear
    # its line runs through a Prizm not of its colour (here the steal: worth more)
    aim = LaunchAim(g)
    offsets = [aim._offset(0, a.x, q.x, q.y) for q in s.prizms]
    assert any(abs(lat) < 0.3 and fwd > 0 for lat, fwd in offsets), offsets


def test_shark_adds_the_straight_only_when_it_scores() -> None:
    g = game(num_players=2, powers=True)  # seat 0 is Lazer Shark
    # 1st gear: its straight stops with the head inside the disc at (0, -1); the Shark's
    # 5th-gear straight completes the crossing
    s = position(
        g,
        0,
        lazers={0: [straight_at(g, 0, Pose(0.0, -3.0, UP), 1)]},
        prizms=[Prizm(0.0, -1.0), Prizm(9.0, 9.0)],
        gears={0: 1},
        power_ready={0: True},
    )
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.SHARK
    assert RyderzHeuristic(seed=0).act(s, 0).kind is ActionKind.SHARK
    # nothing to score ahead, nor to aim at after a crash: it keeps its power
    s = position(
        g,
        0,
        lazers={0: [straight_at(g, 0, Pose(0.0, -3.0, UP), 1)]},
        prizms=[Prizm(16.5, 0.0), Prizm(-16.5, 0.0)],
        gears={0: 1},
        power_ready={0: True},
    )
    move(s, 0, Move.STRAIGHT)
    assert s.decision_kind() is DecisionKind.SHARK
    assert RyderzHeuristic(seed=0).act(s, 0).kind is ActionKind.DECLINE


def test_avoids_a_crash_when_the_line_ahead_scores_later() -> None:
    g = game(num_players=3)
    # heading down the table in 2nd gear with a Prizm 5.5 in ahead on the line (no straight
    # crosses it this turn); a hard turn either way crashes into the Lazer beside it (seats 1
    # and 2: one Lazer is one chain) (then a relaunch from the rim, 18 in from the Prizm), the
    # straights do not
    head = Pose(0.0, 6.0, DOWN)
    wall_l = chain(g, 1, Pose(-1.5, 8.0, DOWN), [st(3)])
    wall_r = chain(g, 2, Pose(1.5, 8.0, DOWN), [st(3)])
    s = position(
        g,
        0,
        lazers={0: [straight_at(g, 0, head, 2)], 1: wall_l, 2: wall_r},
        prizms=[Prizm(0.0, 0.5), Prizm(12.0, -9.0, 1)],
        gears={0: 2},
    )
    hard_turns = [a for a in s.legal_actions(0) if a.move_kind in (Move.HARD_LEFT, Move.HARD_RIGHT)]
    assert hard_turns and all(any(crash for _, crash in outcomes(s, 0, a)) for a in hard_turns), (
        "the scenario must offer crashing moves"
    )
    a = RyderzHeuristic(seed=0).act(s, 0)
    assert not any(crash for _, crash in outcomes(s, 0, a)), str(a)
    assert a.move_kind is Move.STRAIGHT


def test_denial_cuts_the_line_an_opponent_has_to_a_prizm() -> None:
    g = game(num_players=2)
    # seat 1 heads up at (4, -8) with a clear line to seat 0's Prizm at (4, 0); seat 0 heads
    # east at (-0.5, -4) with nothing of its own to score: a straight in 3rd or 4th gear ends
    # across seat 1's line, one in 2nd stops short of it
    s = position(
        g,
        0,
        lazers={
            0: [straight_at(g, 0, Pose(-0.5, -4.0, EAST), 3)],
            1: [straight_at(g, 1, Pose(4.0, -8.0, UP), 3)],
        },
        prizms=[Prizm(4.0, 0.0, 0), Prizm(-12.0, 10.0)],
        gears={0: 3, 1: 3},
    )
    probe = RyderzHeuristic(seed=0)
    probe._bind(g)

    def open_line(a: Action) -> float:
        c = s.clone()
        c.apply_action(a)
        head = c.players[1].head
        return probe._line_value(c, 1, head, 3, probe._targets(c, 1))

    assert open_line(Action.move(-1, Move.STRAIGHT)) > 0  # the scenario: one straight misses
    assert open_line(Action.move(0, Move.STRAIGHT)) == 0
    v1 = RyderzHeuristic(seed=0).act(s, 0)
    denying = RyderzHeuristic(seed=0, denial=1.0).act(s, 0)
    assert open_line(v1) > 0  # v1 sees nothing to gain either way
    assert denying.move_kind is Move.STRAIGHT and open_line(denying) == 0
    # with the Lazers counted, seat 1's estimate after the cut is the crash's (nothing in
    # reach of a relaunch here); without them, next turn's straight still scores
    c = s.clone()
    c.apply_action(denying)
    assert probe._own_prospect(c, 1, walls=True)[1] == 0.0
    assert probe._own_prospect(c, 1)[1] > 0.0


def test_a_piece_that_scores_before_meeting_a_lazer_still_scores_in_the_walled_estimate() -> None:
    from ryderz_env.rules import PieceKind

    g = game(num_players=2)
    # seat 1 heads up at (4, -3) in 3rd gear: its next straight (4.5 in) crosses seat 0's
    # Prizm at (4, 0) and then meets seat 0's Lazer across its path at y = 1; the engine
    # scores a piece when it is placed and crashes it at the end of the turn
    s = position(
        g,
        1,
        lazers={
            0: [straight_at(g, 0, Pose(6.0, 1.0, EAST), 3)],
            1: [straight_at(g, 1, Pose(4.0, -3.0, UP), 3)],
        },
        prizms=[Prizm(4.0, 0.0, 0), Prizm(-12.0, 10.0)],
        gears={0: 3, 1: 3},
    )
    probe = RyderzHeuristic(seed=0)
    probe._bind(g)
    head = s.players[1].head
    targets = probe._targets(s, 1)
    steal = 1.0 + probe.opponent_weight

    def straight(walls: bool) -> float:
        return probe._piece_value(s, 1, head, PieceKind.STRAIGHT, 3, 0, targets, 0.0, walls)

    assert probe._meets_lazer(s, head, [head.ahead(d) for d in np.linspace(0.0, 4.5, 8)])
    assert straight(walls=False) == straight(walls=True) == steal
    c = s.clone()
    c.apply_action(Action.move(0, Move.STRAIGHT))
    assert c.score(1) == 1  # the engine agrees: the crossing scored


def _random_positions(num_players: int, powers: bool, seeds: range):
    """States reached by random play (a random number of steps from each seed)."""
    g = game(num_players=num_players, powers=powers, launch_noise_sigma=1.5)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        s = g.new_initial_state(seed)
        steps = int(rng.integers(0, 120))
        for _ in range(steps):
            if s.is_terminal():
                break
            if s.is_chance_node():
                play_chance(s, rng)
            else:
                s.apply_actions(
                    {
                        p: RandomBot(int(rng.integers(1 << 30))).act(s, p)
                        for p in s.current_players()
                    }
                )
        while s.is_chance_node():
            play_chance(s, rng)
        if not s.is_terminal():
            yield seed, s


@pytest.mark.parametrize("num_players,powers", [(2, False), (2, True), (4, False), (4, True)])
def test_never_returns_an_illegal_action(num_players: int, powers: bool) -> None:
    bot = RyderzHeuristic(seed=3)
    kinds = set()
    for seed, s in _random_positions(num_players, powers, range(14)):
        for seat in s.current_players():
            a = bot.act(s, seat)
            assert s.is_legal(seat, a), (seed, seat, str(a), s.decision)
            kinds.add(s.decision_kind())
    assert DecisionKind.MOVE in kinds


def _play(g, bots, seed: int, max_decisions: int = 10_000):
    s = g.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions = []
    while not s.is_terminal() and len(actions) < max_decisions:
        if s.is_chance_node():
            play_chance(s, rng)
            continue
        acts = {p: bots[p].act(s, p) for p in s.current_players()}
        actions.append(sorted(acts.items()))
        s.apply_actions(acts)
    return s, actions


def test_deterministic_for_a_seed() -> None:
    g = game(num_players=2, powers=True, launch_noise_sigma=1.5)
    runs = [
        _play(g, [RyderzHeuristic(seed=5), RyderzHeuristic(seed=6)], 11, 40)[1] for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(runs[0]) == 40
    b = RyderzHeuristic(seed=5)
    b.reset(5)
    assert _play(g, [b, RyderzHeuristic(seed=6)], 11, 40)[1] == runs[0]


def test_value_is_exact_at_the_end_and_in_range_before() -> None:
    g = game(num_players=2, launch_noise_sigma=1.5)
    bot = RyderzHeuristic(seed=0)
    s, _ = _play(g, [bot, RandomBot(1)], 2)
    assert s.is_terminal() and s.winner == 0  # it wins its games against random play
    assert [bot.value(s, p) for p in range(2)] == s.returns()
    lo, hi = g.info.min_utility, g.info.max_utility
    for _, pos in _random_positions(3, True, range(6)):
        for p in range(3):
            assert lo <= bot.value(pos, p) <= hi


def test_simultaneous_choice_ignores_the_others_submitted_choices() -> None:
    import ryderz_env.envs as envs

    env = envs.env(num_players=2)
    env.reset(seed=4)
    session = env.unwrapped.session
    state = session.state
    assert state.is_simultaneous_node()
    before = RyderzHeuristic(seed=9).act(state, 1)
    snapshot = state.to_dict()
    # seat 0 submits; the env buffers it outside the engine state until seat 1 has acted
    env.step({"discrete": 1 + 4, "x": np.array([0.25], dtype=np.float32)})
    assert session.buffer and session.state is state and state.to_dict() == snapshot
    assert RyderzHeuristic(seed=9).act(session.state, 1) == before


def test_uses_only_its_own_generator() -> None:
    g = game(num_players=2)
    s = g.new_initial_state(0)
    np.random.seed(0)
    a = RyderzHeuristic(seed=2).act(s, 0)
    np.random.seed(1)
    assert RyderzHeuristic(seed=2).act(s, 0) == a


def test_the_bot_loads_no_rl_library() -> None:
    import json
    import subprocess
    import sys

    code = (
        "import json, sys\nimport agents.heuristic_ryderz\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('gymnasium', 'gym', 'pettingzoo', 'torch'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


# ------------------------------------------------------------------ speed-ups change nothing
#: digests of heuristic v1's games in test_v1_plays_as_measured, computed with the code as
#: first measured (before the centreline disc test and the plain-float perimeter)
V1_GAMES = (
    (2, 1, {}, "8a1017a5001042c0"),
    (2, 9, {"powers": True}, "5e1539dd440b7200"),
    (3, 11, {"powers": True}, "f420cda70b7f41d7"),
    (2, 13, {"table": "hexagon"}, "4e565700822ff71a"),
    (2, 14, {"table": "rectangle"}, "d6ac5464151b608f"),
)


@pytest.mark.parametrize(
    "num_players,seed,rules,digest", V1_GAMES, ids=[f"{n}p-{k}" for n, k, _r, _d in V1_GAMES]
)
def test_v1_plays_as_measured(num_players: int, seed: int, rules: dict, digest: str) -> None:
    """Heuristic v1 is frozen (docs/bots.md): its moves in seeded games, on the round and
    polygon tables, are pinned, so a speed-up that changes one decision fails here."""
    import hashlib

    from ryderz_env.rules import Game

    g = Game(num_players=num_players, **rules)
    bots = [RyderzHeuristic(seed=seed * 10 + i) for i in range(num_players)]
    end, actions = _play(g, bots, seed)
    assert end.is_terminal()
    text = repr(actions) + repr(end.returns())
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest


def test_centreline_disc_skips_only_targets_off_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disc test in ``_piece_value`` only skips work: with discs too large to skip
    anything, every piece value over random positions, heads and pieces is the same (some
    of them a Prizm found on the centreline, so that the compared values use it)."""
    import agents.heuristic_ryderz as hr

    on_line = []
    plain = hr._polyline_distance
    tolerance = RyderzHeuristic().line_tolerance

    def counted(pts, x, y):  # noqa: ANN001, ANN202
        d = plain(pts, x, y)
        on_line.append(d <= tolerance)
        return d

    monkeypatch.setattr(hr, "_polyline_distance", counted)
    fast = RyderzHeuristic(seed=1)
    slow = RyderzHeuristic(seed=1)
    checked = 0
    for _seed, s in _random_positions(2, False, range(10)):
        fast._bind(s.game)
        slow._bind(s.game)
        slow._line_disc = {k: (x, y, 1e9) for k, (x, y, _r) in fast._line_disc.items()}
        for p in s.players:
            if p.head is None:
                continue
            targets = fast._targets(s, p.seat)
            for key in fast._local:
                kind, gear, side = key
                args = (s, p.seat, p.head, kind, gear, side, targets, 0.25)
                assert fast._piece_value(*args) == slow._piece_value(*args)
                checked += 1
    assert checked > 100 and any(on_line)
