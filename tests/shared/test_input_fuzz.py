"""Hypothesis-driven fuzzing of every input from outside but state dicts (those are
``test_state_fuzz.py``'s), for both games:

* position builders: random sequences of builder calls with random arguments (in and out of
  range, wrong types, unknown names, NaN and infinite poses and Prizms, random pieces);
* engine entry points at states of seeded random play: junk actions, joint actions, seats and
  chance outcomes to ``apply_action(s)``, ``apply_chance``, ``legal_actions``, ``is_legal``,
  ``legal_action_ints``, ``observation`` and the game's action codec;
* the AEC and parallel envs: junk to ``step`` and ``reset(seed, options)`` under each
  ``on_illegal`` (and each Lazer Ryderz action mode);
* game records: real records of seeded play, mutated, read and replayed.

Every input is either accepted (and what it made is valid: it round-trips through JSON and
plays on) or refused with a typed error of ``tabletop.errors`` that leaves the builder, state
or env exactly as it was; never another exception. The examples are derandomized
(reproducible) and sized by ``TABLETOP_SOAK_GAMES`` (300 in ``make test``, 2,000 in
``.ci/run``): per game, 2 builder sequences, 3 states, 3 env episodes and 2 records per soak
game. The defects the fuzzing found have plain regression tests at the end of the file."""

from __future__ import annotations

import builtins
import copy
import functools
import io
import json
import os
import warnings
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from json_mutation import change_one, leaves
from random_play import random_step, sampled_states

from tabletop import registry
from tabletop.config import load_yaml, shipped_configs
from tabletop.errors import (
    ConfigError,
    IllegalActionError,
    InvalidStateError,
    ResetNeededError,
    SeatError,
)
from tabletop.records import GameRecord, RecordingState, replay, state_digest
from tabletop.registry import UnknownGameError

SOAK = int(os.environ.get("TABLETOP_SOAK_GAMES", "300"))
GAMES = ("lunatix", "ryderz")
#: the shipped pieces file's data (a record may carry pieces by value)
SHIPPED_PIECES = load_yaml(shipped_configs("ryderz") / "pieces.yaml")
#: the shipped decks with a turbo card of ten million mph (by value, as a record may carry)
HUGE_TURBO_DECKS = load_yaml(shipped_configs("lunatix") / "decks.yaml")
HUGE_TURBO_DECKS["turbo"][1] = {**HUGE_TURBO_DECKS["turbo"][1], "amount": 10**7}
#: every typed error of ``tabletop.errors`` (SeatError and ResetNeededError are subclasses)
TYPED = (IllegalActionError, InvalidStateError, ConfigError)
assert issubclass(SeatError, IllegalActionError) and issubclass(ResetNeededError, TYPED)

NAN, INF = float("nan"), float("inf")
#: junk of every kind: other types, edge numbers, numpy scalars and arrays, containers
JUNK: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    3,
    7,
    99,
    10**9,
    -(10**9),
    2**63,
    2**70,
    -(2**70),
    0.0,
    0.5,
    -0.5,
    1.0,
    2.0,
    1e300,
    NAN,
    INF,
    -INF,
    "",
    "x",
    "0",
    "1",
    "nan",
    b"1",
    [],
    [0],
    [1, 2],
    [[0]],
    (),
    (1,),
    (1, 2),
    (1, 2, 3),
    ("x", "y"),
    (1, None),
    (1, NAN),
    (1, 1, NAN),
    {},
    {"a": 1},
    {0: 1},
    {1, 2},
    np.int64(1),
    np.int32(-1),
    np.uint8(2),
    np.float64(NAN),
    np.float32(0.5),
    np.float64(1.0),
    np.bool_(True),
    np.array(1),
    np.array([1]),
    np.array([1, 2]),
    np.array([[0]]),
    np.array([NAN]),
    np.array(["x"]),
    np.zeros(0),
    object(),
)


def fuzz(examples: int) -> settings:
    """Reproducible settings of a fuzz test: ``examples`` derandomized examples."""
    return settings(
        max_examples=max(1, examples),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def junk() -> st.SearchStrategy[Any]:
    """One junk value (a fresh copy: the code under test may keep or change it)."""
    return st.sampled_from(JUNK).map(copy.deepcopy)


def either(good: st.SearchStrategy[Any], bad_share: int = 1) -> st.SearchStrategy[Any]:
    """``good`` values (3 in 3 + bad_share) or junk."""
    return st.one_of(*([good] * 3), *([junk()] * bad_share))


def snap(s: Any) -> str:
    return json.dumps(s.to_dict(), sort_keys=True)


def check_valid_state(game: Any, s: Any, steps: int = 20) -> None:
    """``s`` round-trips through JSON exactly, gives every seat an observation, and plays
    ``steps`` random steps raising nothing but the engines' typed errors."""
    d = s.to_dict()
    assert game.state_from_dict(json.loads(json.dumps(d, allow_nan=False))).to_dict() == d
    rng = np.random.default_rng(0)
    try:
        for _ in range(steps):
            for seat in range(game.num_players):
                s.observation(seat)
            if s.is_terminal():
                break
            random_step(s, rng)
    except (IllegalActionError, InvalidStateError):
        pass  # typed: an engine refusing to go on


@functools.cache
def game(name: str, players: int) -> Any:
    return registry.get(name).game(num_players=players)


# ================================================================= 1. position builders
def lunatix_call(g: Any, draw: Any) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A random call of Lunatix Loop's ``PositionBuilder``: method, args, keyword args."""
    n = g.num_players
    tr = g.track
    seat = either(st.integers(-1, n))
    lanes = len(tr.spec.lanes)
    longest = max(len(lane) for lane in tr.spec.lanes)
    gadgets = [c.name for c in g.decks.gadgets] + ["No Such Gadget"]
    lunacies = sorted({h.name for h in g.decks.hazard if h.lunacy is not None})
    names = st.lists(st.sampled_from(gadgets), max_size=3)
    method = draw(
        st.sampled_from(("car", "car", "car", "pit", "chip", "round", "discard", "gadget_bottom"))
    )
    if method == "discard":
        deck = draw(either(st.sampled_from(("hazard", "turbo", "gadget"))))
        turbo = isinstance(deck, str) and deck == "turbo"
        cards = [c.name for c in (g.decks.turbo if turbo else g.decks.hazard)]
        args = (deck, draw(either(st.sampled_from([*cards, "No Such Card"]))))
        kw = {"count": draw(either(st.integers(-1, 4)))} if draw(st.booleans()) else {}
        return method, args, kw
    if method == "gadget_bottom":
        pair = st.tuples(st.sampled_from(gadgets), either(st.integers(-1, n)))
        return method, (draw(either(st.lists(st.one_of(pair, pair, junk()), max_size=4))),), {}
    if method == "round":
        return method, (draw(either(st.integers(-2, g.rules.round_limit + 2))),), {}
    if method == "chip":
        kw = {
            "lane": draw(either(st.integers(-1, lanes))),
            "row": draw(either(st.integers(-1, longest))),
            "kind": draw(either(st.sampled_from(("tacks", "oil", "glue", "sand")))),
        }
        return method, (), kw
    if method == "pit":
        openings = sorted(tr.opening_index) + ["Z9"]
        kw = {"lap": draw(either(st.integers(-1, g.rules.laps)))} if draw(st.booleans()) else {}
        return method, (draw(seat), draw(either(st.sampled_from(openings)))), kw
    speeds = st.sampled_from((0, 10, 20, 30, 40, 60, 80, 100, 120, 140, 15, -10))
    options: dict[str, st.SearchStrategy[Any]] = {
        "lap": either(st.integers(-1, g.rules.laps)),
        "facing": either(st.integers(-1, 2)),
        "speed": either(speeds),
        "max_speed": either(speeds),
        "luck": either(st.integers(-1, 4)),
        "chips": either(st.tuples(*[st.integers(-1, 5)] * 3)),
        "gadgets": either(names),
        "spent": either(names),
        "lunacies": either(st.lists(st.sampled_from([*lunacies, "Sanity"]), max_size=3)),
        "out": either(st.booleans()),
    }
    kw = {k: draw(v) for k, v in options.items() if draw(st.integers(0, 3)) == 0}
    if draw(st.booleans()):  # a place (sometimes half of one)
        if draw(st.integers(0, 5)):
            kw["lane"] = draw(either(st.integers(-1, lanes)))
        if draw(st.integers(0, 5)):
            kw["row"] = draw(either(st.integers(-1, longest)))
    return "car", (draw(seat),), kw


def floats_on_table() -> st.SearchStrategy[float]:
    """Coordinates: mostly on or near the table, sometimes huge, NaN or infinite."""
    return st.one_of(
        st.floats(-25.0, 25.0),
        st.floats(-25.0, 25.0),
        st.floats(-25.0, 25.0),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from((NAN, INF, -INF, 1e300, -1e300, 0.0)),
    )


def ryderz_call(g: Any, draw: Any) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A random call of Lazer Ryderz's ``PositionBuilder``: method, args, keyword args."""
    from ryderz_env.rules import PieceKind, Pose, Prizm
    from ryderz_env.rules.builder import Piece

    n = g.num_players
    seat = either(st.integers(-1, n))
    top = g.top_gear
    piece = st.builds(
        Piece,
        st.sampled_from(list(PieceKind)),
        either(st.integers(0, top + 1), 1),
        either(st.sampled_from((-1, 0, 1)), 1),
    )
    pieces = either(st.lists(st.one_of(piece, piece, piece, junk()), max_size=5))
    pose = st.builds(Pose, floats_on_table(), floats_on_table(), floats_on_table())
    t = st.one_of(st.floats(-10.0, 200.0), floats_on_table())
    method = draw(
        st.sampled_from(
            ("lazer", "lazer", "lazer", "launch_point", "prizms", "gear", "power_ready")
        )
    )
    if method == "lazer":
        from ryderz_env.rules.builder import NOW

        kw: dict[str, Any] = {"start": draw(either(st.one_of(pose, t)))}
        if draw(st.booleans()):
            kw["previous"] = draw(either(st.integers(-1, 4)))
        if draw(st.integers(0, 3)) == 0:
            turn_ids = st.lists(st.integers(0, NOW), max_size=5).map(sorted)
            kw["turns"] = draw(either(st.one_of(turn_ids, st.lists(st.integers(-1, NOW + 1)))))
        return method, (draw(seat), draw(pieces)), kw
    if method == "launch_point":
        return method, (draw(seat), draw(either(t))), {}
    if method == "prizms":
        prizm = st.one_of(
            st.builds(Prizm, floats_on_table(), floats_on_table(), either(st.integers(-2, n))),
            st.builds(Prizm, floats_on_table(), floats_on_table()),
            junk(),
        )
        return method, (draw(either(st.lists(prizm, max_size=6))),), {}
    if method == "gear":
        return method, (draw(seat), draw(either(st.integers(-1, top + 1)))), {}
    return method, (draw(seat), draw(either(st.booleans()))), {}


def kept(d: dict[str, Any]) -> str:
    """A builder's dict as text: a value kept as given until ``build()`` checks it (an array,
    an object) by its repr (an ``object()`` as such, its copies being equal)."""
    return json.dumps(
        d, sort_keys=True, default=lambda v: "<object>" if type(v) is object else repr(v)
    )


def new_builder(name: str, g: Any, draw: Any) -> Any:
    """A builder of ``g``, its constructor's arguments sometimes junk."""
    rules = registry.get(name).rules()
    seed = draw(st.one_of(st.just(0), st.integers(0, 3), junk()))
    if name == "lunatix":
        return rules.PositionBuilder(g, seed=seed)
    mover = draw(either(st.integers(-1, g.num_players), 1))
    return rules.PositionBuilder(g, mover=mover, seed=seed)


@pytest.mark.parametrize("name", GAMES)
def test_builder_call_sequences_build_valid_states_or_refuse(name: str) -> None:
    """Each call is accepted or refused with an ``InvalidStateError`` that leaves the builder
    as it was (the constructor's seed: a ``ConfigError``, as ``new_initial_state``'s); a
    build is refused the same way or gives a valid state, and a valid call after refused
    ones still works."""
    draw_call = lunatix_call if name == "lunatix" else ryderz_call
    seen = {"refused calls": 0, "built": 0, "refused builds": 0}

    @fuzz(2 * SOAK)
    @given(st.data())
    def check(data: Any) -> None:
        players = data.draw(st.sampled_from((2, 3)))
        g = game(name, players)
        try:
            b = new_builder(name, g, data.draw)
        except (InvalidStateError, ConfigError):
            seen["refused calls"] += 1
            return
        for _ in range(data.draw(st.integers(1, 6))):
            method, args, kw = draw_call(g, data.draw)
            note(f"{method}{args!r} {kw!r}")
            before = kept(b.to_dict())
            try:
                getattr(b, method)(*args, **kw)
            except InvalidStateError:
                seen["refused calls"] += 1
                assert kept(b.to_dict()) == before, f"a refused {method} changed the builder"
        if data.draw(st.booleans()):  # a valid call still works whatever was refused before
            if name == "lunatix":
                b.car(0, chips=(0, 0, 0))
            else:
                b.launch_point(0, 10.0)
        try:
            s = b.build()
        except InvalidStateError:
            seen["refused builds"] += 1
            return
        seen["built"] += 1
        check_valid_state(g, s)

    check()
    assert min(seen.values()) > 0, seen


# ================================================================= 2. engine entry points
@functools.cache
def base_states(name: str) -> tuple[Any, ...]:
    """States every 17 steps of seeded random games (2 and 3 players)."""
    out = []
    for players in (2, 3):
        g = game(name, players)
        for k in range(3):
            out += sampled_states(g, range(k, k + 1), 17, 300)
            last = g.new_initial_state(k)  # and the end (or the 300th step) of that game
            rng = np.random.default_rng(k)
            for _ in range(300):
                if last.is_terminal():
                    break
                random_step(last, rng)
            out.append(last)
    return tuple(out)


def action_like(s: Any, draw: Any) -> Any:
    """An action: legal, the int of one, an ``Action`` with fields out of range, or junk."""
    rules = registry.get(registry.of_state(s).name).rules()
    action_cls, kinds = rules.Action, rules.ActionKind
    legal = [a for p in s.current_players() for a in s.legal_actions(p)]
    g = s.game
    options = [junk(), st.integers(-3, len(g.codec) + 3)]
    if legal:
        options += [st.sampled_from(legal)] * 2
        options.append(st.sampled_from(legal).map(g.action_to_int))
    field = st.one_of(st.integers(-3, 40), st.sampled_from((10**9, -(10**9), 2**70)), junk())
    kind = st.one_of(st.sampled_from(list(kinds)), st.integers(-2, len(kinds) + 2), junk())
    if registry.of_state(s).name == "ryderz":
        x = st.one_of(st.floats(-1.5, 1.5), st.floats(allow_nan=True), junk())
        options.append(st.builds(action_cls, kind, field, x))
        if legal:  # a legal action with another position
            options.append(st.builds(lambda a, x: a._replace(x=x), st.sampled_from(legal), x))
    else:
        options.append(st.builds(action_cls, kind, field))
    return draw(st.one_of(*options))


def seat_like(s: Any, draw: Any) -> Any:
    n = s.game.num_players
    return draw(st.one_of(st.integers(-1, n), st.sampled_from(s.current_players() or (0,)), junk()))


def joint_like(s: Any, draw: Any) -> Any:
    """A joint action: every decider's (one of them perhaps junk), wrong seats, or no dict."""
    how = draw(st.integers(0, 5))
    if how == 0:
        return draw(junk())
    deciders = list(s.current_players())
    acts: dict[Any, Any] = {}
    for p in deciders:
        legal = s.legal_actions(p)
        acts[p] = draw(st.sampled_from(legal)) if legal else draw(junk())
    if how == 1 and deciders:
        acts[draw(st.sampled_from(deciders))] = action_like(s, draw)
    elif how == 2:
        seat = seat_like(s, draw)
        if isinstance(seat, Hashable):  # (a dict key)
            acts[seat] = action_like(s, draw)
    elif how == 3 and deciders:
        del acts[draw(st.sampled_from(deciders))]
    elif how == 4 and deciders:  # the same seat as a numpy int, or under another type
        p = draw(st.sampled_from(deciders))
        acts[draw(st.sampled_from((np.int64(p), float(p), str(p), bool(p))))] = acts.pop(p)
    return acts


def chance_like(s: Any, draw: Any) -> Any:
    """A chance outcome: a possible one, a neighbour, a point or an offset, or junk."""
    options = [junk(), st.integers(-3, 40)]
    if s.is_chance_node():
        try:
            outcomes = [o for o, p in s.chance_outcomes() if p > 0]
            options += [st.sampled_from(outcomes)] * 2
        except InvalidStateError:  # continuous (Lazer Ryderz's launch noise, tosses)
            rng = np.random.default_rng(draw(st.integers(0, 9)))
            options += [st.just(s.sample_chance(rng))] * 2
    coord = st.one_of(st.floats(-30, 30), st.floats(allow_nan=True, allow_infinity=True))
    options += [coord, st.lists(coord, min_size=1, max_size=3)]
    return draw(st.one_of(*options))


#: the calls thrown at a state: (method, whether it may change the state)
CALLS = (
    ("apply_action", True),
    ("apply_actions", True),
    ("apply_chance", True),
    ("legal_actions", False),
    ("legal_action_ints", False),
    ("observation", False),
    ("is_legal", False),
    ("int_to_action", False),
    ("action_to_int", False),
    ("action_to_json", False),
    ("action_from_json", False),
)


def entry_call(s: Any, method: str, draw: Any) -> Callable[[], Any]:
    """``method`` of the state (or of its game) with arguments drawn for it."""
    if method == "apply_actions":
        return functools.partial(s.apply_actions, joint_like(s, draw))
    if method == "apply_chance":
        return functools.partial(s.apply_chance, chance_like(s, draw))
    if method in ("legal_actions", "legal_action_ints", "observation"):
        return functools.partial(getattr(s, method), seat_like(s, draw))
    if method == "is_legal":
        return functools.partial(s.is_legal, seat_like(s, draw), action_like(s, draw))
    if method == "action_from_json":
        return functools.partial(
            s.game.action_from_json, draw(st.one_of(junk(), st.integers(-2, 50)))
        )
    target = s if method == "apply_action" else s.game
    return functools.partial(getattr(target, method), action_like(s, draw))


@pytest.mark.parametrize("name", GAMES)
def test_junk_at_engine_entry_points_is_refused_typed_and_changes_nothing(name: str) -> None:
    bases = base_states(name)
    seen = {"accepted": 0, "refused": 0}

    @fuzz(3 * SOAK)
    @given(st.data())
    def check(data: Any) -> None:
        s = bases[data.draw(st.integers(0, len(bases) - 1))].clone()
        g = s.game
        for _ in range(data.draw(st.integers(1, 4))):
            method, changes = data.draw(st.sampled_from(CALLS))
            call = entry_call(s, method, data.draw)
            before = snap(s)
            try:
                call()
            except TYPED:
                seen["refused"] += 1
                assert snap(s) == before, f"a refused {method} changed the state"
                continue
            seen["accepted"] += 1
            if not changes:
                assert snap(s) == before, f"{method} changed the state"
            else:  # applied: still a valid state
                d = s.to_dict()
                assert g.state_from_dict(json.loads(json.dumps(d, allow_nan=False))).to_dict() == d
        check_valid_state(g, s, steps=3)

    check()
    assert min(seen.values()) > 0, seen


# ================================================================= 3. the envs
#: (on_illegal, Lazer Ryderz action mode) of the envs fuzzed
ENV_VARIANTS = {
    "lunatix": [(mode, None) for mode in ("raise", "penalty", "random_legal")],
    "ryderz": [
        (mode, am)
        for mode in ("raise", "penalty", "random_legal")
        for am in ("hybrid", "box", "discrete")
    ],
}


@functools.cache
def fuzz_env(name: str, kind: str, on_illegal: str, action_mode: str | None) -> Any:
    """One env per variant, reused across examples (``reset(seed)`` makes each anew)."""
    options: dict[str, Any] = {"num_players": 2, "on_illegal": on_illegal, "max_rounds": 6}
    if action_mode is not None:
        options["action_mode"] = action_mode
    entry = registry.get(name)
    return entry.aec_env(**options) if kind == "aec" else entry.parallel_env(**options)


def env_action_like(adapter: Any, mask: np.ndarray, rng: np.random.Generator, draw: Any) -> Any:
    """An env action: a valid one of the mode, a near miss, or junk."""
    how = draw(st.integers(0, 5))
    if how == 0:
        return draw(junk())
    valid = adapter.random_env_action(mask, rng)
    if how <= 2:
        return valid
    space = adapter.action_space()
    if isinstance(valid, dict):  # Lazer Ryderz hybrid: {"discrete": i, "x": [x]}
        bad = dict(valid)
        part = draw(st.sampled_from(("discrete", "x", "keys")))
        if part == "keys":
            bad[draw(st.sampled_from(("y", "discrete ", 0)))] = 0
            if draw(st.booleans()):
                del bad[draw(st.sampled_from(("discrete", "x")))]
        else:
            bad[part] = draw(
                st.one_of(
                    junk(),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-2, len(mask) + 2),
                    st.just(np.array([NAN], dtype=np.float32)),
                    st.just(np.array([1.5], dtype=np.float32)),
                )
            )
        return bad
    if isinstance(valid, np.ndarray):  # Lazer Ryderz box: a score vector and x
        bad_vec = valid.copy()
        how_bad = draw(st.sampled_from(("nan", "big", "shape", "dtype")))
        if how_bad == "nan":
            bad_vec[draw(st.integers(0, len(bad_vec) - 1))] = draw(st.sampled_from((NAN, INF)))
        elif how_bad == "big":
            bad_vec[draw(st.integers(0, len(bad_vec) - 1))] = 1.5
        elif how_bad == "shape":
            return np.resize(bad_vec, draw(st.sampled_from(((0,), (1,), (len(bad_vec) + 1,)))))
        else:
            return bad_vec.astype(draw(st.sampled_from((np.int64, np.bool_, np.complex64))))
        return bad_vec
    n = getattr(space, "n", len(mask))
    return draw(
        st.one_of(
            st.integers(-2, int(n) + 2),
            st.sampled_from((float(valid), np.int64(valid), np.array([valid]), str(valid))),
            junk(),
        )
    )


def env_view(env: Any, kind: str) -> Any:
    """What an agent sees now (to compare before and after a refused input)."""
    raw = env.unwrapped
    session = raw.session
    obs = {
        seat: (session.observation(seat).tobytes(), session.mask(seat).tobytes())
        for seat in range(raw.adapter.num_players)
    }
    extra = (env.agent_selection, dict(env._cumulative_rewards)) if kind == "aec" else None
    return (
        snap(session.state),
        len(session.record.events),
        dict(session.buffer),
        list(raw.agents),
        obs,
        extra,
        session.rng.bit_generator.state,
    )


def masks_now(env: Any, kind: str) -> dict[str, np.ndarray]:
    session = env.unwrapped.session
    return {a: session.mask(env.unwrapped._index[a]) for a in env.unwrapped.agents}


def valid_env_step(env: Any, kind: str, rng: np.random.Generator) -> None:
    adapter = env.unwrapped.adapter
    if kind == "aec":
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(adapter.random_env_action(masks_now(env, kind)[agent], rng))
    else:
        env.step({a: adapter.random_env_action(m, rng) for a, m in masks_now(env, kind).items()})


def live(env: Any) -> bool:
    return bool(env.unwrapped.agents)


@pytest.mark.parametrize("name", GAMES)
def test_junk_env_steps_and_resets_are_refused_typed_or_handled(name: str) -> None:
    """``on_illegal="raise"``: a refused step raises a typed error and leaves the env as it
    was (state, record, buffer, observations, masks, the generator); ``penalty`` ends the
    game; ``random_legal`` plays on. A refused ``reset`` (bad seed) changes nothing; bad
    ``options`` are ignored. Afterwards a valid step still works."""
    seen = {"refused": 0, "accepted": 0, "penalty": 0, "reset refused": 0}

    @fuzz(3 * SOAK)
    @given(st.data())
    def check(data: Any) -> None:
        kind = data.draw(st.sampled_from(("aec", "parallel")))
        on_illegal, action_mode = data.draw(st.sampled_from(ENV_VARIANTS[name]))
        env = fuzz_env(name, kind, on_illegal, action_mode)
        seed = data.draw(st.integers(0, 50))
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(data.draw(st.integers(0, 25))):
            if not live(env):
                break
            valid_env_step(env, kind, rng)
        if not live(env):
            env.reset(seed=seed)
        adapter = env.unwrapped.adapter
        for _ in range(data.draw(st.integers(1, 5))):
            if not live(env):
                break
            before = env_view(env, kind)
            if data.draw(st.integers(0, 3)) == 0:  # a reset with junk
                bad_seed = data.draw(
                    st.one_of(junk(), st.integers(-(2**64), 2**65), st.sampled_from((None, 5)))
                )
                options = data.draw(st.one_of(st.none(), junk()))
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        env.reset(seed=bad_seed, options=options)
                except TYPED:
                    seen["reset refused"] += 1
                    assert env_view(env, kind) == before, "a refused reset changed the env"
                continue
            masks = masks_now(env, kind)
            if kind == "aec":
                agent = env.agent_selection
                action: Any = env_action_like(adapter, masks[agent], rng, data.draw)
            else:
                action = {a: env_action_like(adapter, m, rng, data.draw) for a, m in masks.items()}
                if data.draw(st.integers(0, 4)) == 0:
                    action = data.draw(
                        st.one_of(junk(), st.just({a: 0 for a in masks}), st.just({}))
                    )
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    env.step(action)
            except TYPED:
                seen["refused"] += 1
                assert env_view(env, kind) == before, "a refused step changed the env"
                continue
            seen["accepted"] += 1
            if env.unwrapped.session.forced_end:
                seen["penalty"] += 1
                assert on_illegal == "penalty"
        if live(env):
            valid_env_step(env, kind, rng)  # still works
        d = env.unwrapped.session.state.to_dict()
        g = env.unwrapped.adapter.game
        assert g.state_from_dict(json.loads(json.dumps(d))).to_dict() == d

    check()
    assert min(seen.values()) > 0, seen


# ================================================================= 4. records
@functools.cache
def real_records(name: str) -> tuple[str, ...]:
    """JSON texts of records of seeded random play (a few hundred events each, with a
    snapshot now and then), the digest of where each stopped included."""
    out = []
    for players, seed, steps in ((2, 1, 150), (3, 2, 120), (2, 3, 400)):
        g = game(name, players)
        record = GameRecord(registry.get(name).env_name, g.config_dict(), seed)
        rec = RecordingState(g, g.new_initial_state(seed), record)
        rng = np.random.default_rng(seed)
        for step in range(steps):
            if rec.state.is_terminal():
                break
            if step % 40 == 7:
                rec.snapshot()
            if rec.state.is_chance_node():
                rec.play_chance(rng)
            else:
                acts = {}
                for p in rec.state.current_players():
                    ints = rec.state.legal_action_ints(p)
                    acts[p] = ints[int(rng.integers(len(ints)))]
                    if name == "ryderz" and g.int_to_action(acts[p]).kind.name == "LAUNCH":
                        acts[p] = g.int_to_action(acts[p], float(rng.uniform(-1, 1)))
                rec.apply_actions(acts)
        out.append(json.dumps(record.to_dict()))
    return tuple(out)


RECORD_VALUES = (
    None,
    True,
    0,
    1,
    -1,
    2,
    7,
    99,
    10**6,
    -(10**6),
    2**63,
    2**64,
    0.5,
    1e9,
    "x",
    "",
    "0",
    "1",
    [],
    {},
    [0],
    [0, 0],
    [0.5, 0.5],
    {"0": 1},
    {"1": 1},
    {"0": [1, 0.5]},
    "lunatix_loop_v0",
    "lazer_ryderz_v0",
    "tabletop/record",
    "0123456789abcdef",
    "rules.yaml",
    "decks.yaml",
    "pieces.yaml",
    "tracks/the_loop.yaml",
    "tables/small.yaml",
    "../lunatix/decks.yaml",
    "/etc/passwd",
    "../../pyproject.toml",
)


def mutate_record(data: dict[str, Any], draw: Any) -> dict[str, Any]:
    """One to three changes: an event removed, repeated, swapped, changed, or the events cut
    off; a field of the config, the snapshots or the top replaced, removed or grown."""
    d = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 3))):
        events = d.get("events")
        area = draw(st.sampled_from(("events", "events", "event", "event", "any", "config")))
        if area == "events" and isinstance(events, list) and events:
            i = draw(st.integers(0, len(events) - 1))
            how = draw(st.sampled_from(("cut", "drop", "repeat", "swap", "other")))
            if how == "cut":
                del events[i:]
            elif how == "drop":
                del events[i]
            elif how == "repeat":
                events.insert(i, copy.deepcopy(events[i]))
            elif how == "swap":
                j = draw(st.integers(0, len(events) - 1))
                events[i], events[j] = events[j], events[i]
            else:  # an event's content for another event's
                j = draw(st.integers(0, len(events) - 1))
                events[i] = copy.deepcopy(events[j])
            continue
        root: Any = d
        if area in ("event", "config"):
            key = "events" if area == "event" else "config"
            if key not in d or not isinstance(d[key], dict | list) or not d[key]:
                continue
            root = d[key]
        paths = leaves(root)
        if not paths:
            continue
        nudge = st.sampled_from((-2, -1, 1, 2, 0.25))
        change_one(root, paths, draw, RECORD_VALUES, nudge, (int, float))
    return d


@contextmanager
def files_opened() -> Iterator[list[str]]:
    """The paths of the files opened inside the block (``open``, ``io.open``, ``Path.open``)."""
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    saved = builtins.open, io.open
    builtins.open = io.open = spy  # type: ignore[assignment]
    try:
        yield opened
    finally:
        builtins.open, io.open = saved


@pytest.mark.parametrize("name", GAMES)
def test_mutated_records_are_refused_typed_or_replay_to_their_digest(name: str) -> None:
    """A mutated record is refused (``GameRecord.from_dict``, the registry, the config,
    the replay: typed errors) or replays to its recorded final digest; no file is opened
    but the shipped configs' (a config dict carries its files by value or names a shipped
    preset)."""
    texts = real_records(name)
    shipped = shipped_configs().resolve()
    cached = {json.dumps(json.loads(t)["config"], sort_keys=True): None for t in texts}
    seen = {"refused": 0, "replayed": 0}

    def game_of(entry: Any, config: dict[str, Any]) -> Any:
        key = json.dumps(config, sort_keys=True)
        if key in cached and entry.name == name:
            if cached[key] is None:
                cached[key] = entry.game_from_config_dict(config)
            return cached[key]
        return entry.game_from_config_dict(config)

    @fuzz(2 * SOAK)
    @given(st.data())
    def check(data: Any) -> None:
        original = json.loads(texts[data.draw(st.integers(0, len(texts) - 1))])
        mutated = mutate_record(original, data.draw)
        with files_opened() as opened:
            try:
                record = GameRecord.from_dict(mutated)
                entry = registry.get(record.game)
                final = replay(game_of(entry, record.config), record)
            except (*TYPED, UnknownGameError):
                seen["refused"] += 1
                final = None
        strays = [p for p in opened if not Path(p).resolve().is_relative_to(shipped)]
        assert not strays, f"the record made the replay open {strays}"
        if final is not None:
            seen["replayed"] += 1
            if record.final_digest is not None:
                assert state_digest(final) == record.final_digest

    check()
    assert min(seen.values()) > 0, seen


def test_real_records_replay_to_their_digest() -> None:
    """(The fuzzed records are sound before they are mutated.)"""
    for name in GAMES:
        for text in real_records(name):
            record = GameRecord.from_dict(json.loads(text))
            g = registry.get(record.game).game_from_config_dict(record.config)
            assert state_digest(replay(g, record)) == record.final_digest


# ================================================================= regressions
# Each test below is an input the fuzzing found raising an untyped error or corrupting
# what it was given, now refused with a typed error naming what is allowed.
def chance_state(name: str, kinds: tuple[str, ...]) -> Any:
    """A two-player state of seeded random play at a chance event of one of ``kinds``."""
    g = game(name, 2)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        s = g.new_initial_state(seed)
        for _ in range(300):
            if s.is_terminal():
                break
            if s.is_chance_node() and s.chance.kind.value in kinds:
                return s
            random_step(s, rng)
    raise AssertionError(f"no {kinds} chance event in 20 games")


def sequential_state(name: str) -> Any:
    """A two-player state of seeded random play at a decision of one seat."""
    g = game(name, 2)
    rng = np.random.default_rng(3)
    s = g.new_initial_state(3)
    while s.is_chance_node() or len(s.current_players()) != 1:
        random_step(s, rng)
    return s


@pytest.mark.parametrize(
    "name,kinds", [("lunatix", ("start_dot", "dice")), ("ryderz", ("die", "deal_gears"))]
)
@pytest.mark.parametrize(
    "outcome", [np.array([1]), np.array([1, 2]), np.zeros(0), 1.5, "1", None], ids=repr
)
def test_a_chance_outcome_that_is_no_int_is_refused_and_leaves_the_state_as_it_was(
    name: str, kinds: tuple[str, ...], outcome: Any
) -> None:
    """Lunatix Loop took ``np.array([1])`` as outcome 1, cleared the chance event, then failed
    in ``int()`` (TypeError), leaving a state with nothing pending; ``np.array([1, 2])``
    raised numpy's ValueError (both games)."""
    s = chance_state(name, kinds)
    before = snap(s)
    with pytest.raises(IllegalActionError, match="int"):
        s.apply_chance(outcome)
    assert snap(s) == before
    s.apply_chance(s.sample_chance(np.random.default_rng(0)))  # plays on


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    "index", [None, "x", "3", 2.0, NAN, INF, b"1", True, np.array([1, 2]), [1]], ids=repr
)
def test_int_to_action_refuses_what_is_no_int(name: str, index: Any) -> None:
    """Lunatix Loop's ``int_to_action`` ran ``int(index)``: TypeError, ValueError or
    OverflowError for these, and "3" or 2.0 were coerced."""
    g = game(name, 2)
    with pytest.raises(IllegalActionError, match="out of range 0.."):
        g.int_to_action(index)
    assert g.int_to_action(np.int64(1)) == g.int_to_action(1)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("action", [[1, 2], {"a": 1}, np.array([1, 2]), "list-arg"], ids=repr)
def test_an_unhashable_action_is_no_action_of_the_game(name: str, action: Any) -> None:
    """``action_to_int`` (and Lunatix Loop's ``action_to_json``) raised TypeError
    (unhashable) for these; ``is_legal`` raised numpy's ValueError for an array."""
    rules = registry.get(name).rules()
    if isinstance(action, str):
        action = rules.Action(rules.ActionKind(1), [1])
    g = game(name, 2)
    with pytest.raises(IllegalActionError, match="not an action"):
        g.action_to_int(action)
    with pytest.raises(IllegalActionError):
        g.action_to_json(action)
    s = sequential_state(name)
    p = s.current_players()[0]
    before = snap(s)
    assert s.is_legal(p, action) is False
    with pytest.raises(IllegalActionError):
        s.apply_actions({p: action})
    assert snap(s) == before


@pytest.mark.parametrize(
    "action", [(6, "x"), (6, None), (6, NAN), (6, 2.5), (6, 1, "x"), (99, 0)], ids=repr
)
def test_ryderz_tuple_actions_without_an_int_argument_are_refused(action: Any) -> None:
    """Lazer Ryderz's ``as_action`` ran ``int(action[1])`` unguarded: ValueError or
    TypeError (and 2.5 was truncated to 2)."""
    s = sequential_state("ryderz")
    p = s.current_players()[0]
    before = snap(s)
    with pytest.raises(IllegalActionError, match="not an action"):
        s.apply_actions({p: action})
    assert s.is_legal(p, action) is False
    with pytest.raises(IllegalActionError):
        s.game.action_to_json(action)
    assert snap(s) == before


def test_ryderz_actions_of_no_kind_of_the_game_are_refused_with_their_text() -> None:
    """``Action(99, 0)`` and ``Action("x", 1)`` failed in ``Action.__str__`` (AttributeError)
    while the refusal was being written."""
    from ryderz_env.rules import Action, ActionKind

    s = sequential_state("ryderz")
    p = s.current_players()[0]
    before = snap(s)
    for action, indexed in (
        (Action(99, 0), False),  # type: ignore[arg-type]
        (Action("x", 1), False),  # type: ignore[arg-type]
        (Action(ActionKind.MOVE, "x"), False),  # type: ignore[arg-type]
        (Action(ActionKind.LAUNCH, 1, "x"), True),  # type: ignore[arg-type]  # (x: no index)
    ):
        assert str(action)
        with pytest.raises(IllegalActionError):
            s.apply_actions({p: action})
        assert s.is_legal(p, action) is False
        if not indexed:
            with pytest.raises(IllegalActionError):
                s.game.action_to_int(action)
    assert snap(s) == before


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("kind", ["aec", "parallel"])
@pytest.mark.parametrize("seed", [-1, 1.5, "x", NAN, 2**64, True, [1]], ids=repr)
def test_env_reset_with_a_bad_seed_is_a_config_error_that_changes_nothing(
    name: str, kind: str, seed: Any
) -> None:
    """Was numpy's ValueError or TypeError (-1, 1.5, "x", NaN); 2**64 was refused only after
    the env's generator and seed stream had been replaced, so later seedless resets
    differed from an env that was never sent it."""
    entry = registry.get(name)
    make = entry.aec_env if kind == "aec" else entry.parallel_env
    env, twin = make(num_players=2), make(num_players=2)
    env.reset(seed=3)
    twin.reset(seed=3)
    before = env_view(env, kind)
    with pytest.raises(ConfigError, match="seed"):
        env.reset(seed=seed)
    assert env_view(env, kind) == before
    env.reset()
    twin.reset()
    assert env.unwrapped.record.seed == twin.unwrapped.record.seed
    assert snap(env.unwrapped.session.state) == snap(twin.unwrapped.session.state)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("actions", [None, 3, [1], "x", ("player_0", 1)], ids=repr)
def test_parallel_env_step_of_no_dict_is_an_illegal_action_error(name: str, actions: Any) -> None:
    """Was AttributeError (``actions.items()``)."""
    env = registry.get(name).parallel_env(num_players=2)
    env.reset(seed=1)
    before = env_view(env, "parallel")
    with pytest.raises(IllegalActionError, match="actions must be a dict"):
        env.step(actions)
    assert env_view(env, "parallel") == before


@pytest.mark.parametrize("name", GAMES)
def test_aec_step_of_an_action_for_a_done_agent_is_an_illegal_action_error(name: str) -> None:
    """Was PettingZoo's bare ValueError (``_was_dead_step``); None still removes the agent."""
    env = registry.get(name).aec_env(num_players=2, on_illegal="penalty")
    env.reset(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step("junk")  # penalty: the game ends
    agent = env.agent_selection
    assert env.terminations[agent]
    before = env_view(env, "aec")
    for action in (1, 0, "x", np.int64(0)):
        with pytest.raises(IllegalActionError, match="only valid action is None"):
            env.step(action)
    assert env_view(env, "aec") == before
    env.step(None)
    assert agent not in env.agents


def lunatix_builder() -> Any:
    from lunatix_env.rules import PositionBuilder

    return PositionBuilder(game("lunatix", 2))


@pytest.mark.parametrize(
    "method,args,kw",
    [
        ("car", (0,), {"chips": True}),
        ("car", (0,), {"chips": 5}),
        ("car", (0,), {"gadgets": 5}),
        ("car", (0,), {"spent": np.array(1)}),
        ("car", (0,), {"gadgets": [np.array([1, 2])]}),
        ("car", (0,), {"lunacies": 5}),
        ("car", (0,), {"lunacies": [np.array([1, 2])]}),
        ("car", (0,), {"out": np.array([1, 2])}),
        ("car", (0,), {"out": 1}),
        ("car", (0,), {"facing": np.array([1, 2])}),
        ("chip", (), {"lane": 0, "row": 3, "kind": np.array([])}),
        ("chip", (), {"lane": 0, "row": 3, "kind": ["oil"]}),
        ("pit", (0, ["A1"]), {}),
    ],
    ids=repr,
)
def test_lunatix_builder_refuses_arguments_of_the_wrong_type(
    method: str, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    """Were TypeError (not iterable, unhashable) or numpy's ValueError (truth value)."""
    b = lunatix_builder()
    before = b.to_dict()
    with pytest.raises(InvalidStateError, match="position builder"):
        getattr(b, method)(*args, **kw)
    assert b.to_dict() == before
    b.build()


def test_lunatix_builder_call_refused_half_way_leaves_the_builder_as_it_was() -> None:
    """A refused ``car`` call kept what it had done before the bad argument: the car moved
    before ``facing=2`` was refused, the first of two copies of a gadget was taken."""
    b = lunatix_builder()
    gadget = game("lunatix", 2).decks.gadgets[0].name
    before = b.to_dict()
    for kw in (
        {"lane": 0, "row": 5, "facing": 2},
        {"spent": [gadget, gadget]},
        {"chips": (0, 0, 0), "lunacies": ["Sanity"]},
        {"speed": 40, "gadgets": [gadget], "out": "yes"},
    ):
        with pytest.raises(InvalidStateError):
            b.car(0, **kw)
        assert b.to_dict() == before, kw
    b.build()


def ryderz_builder() -> Any:
    from ryderz_env.rules import PositionBuilder

    return PositionBuilder(game("ryderz", 2))


def ryderz_bad_calls() -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    from ryderz_env.rules import PieceKind, Pose
    from ryderz_env.rules.builder import Piece, straight

    return [
        ("lazer", (0, None), {"start": 0.0}),
        ("lazer", (0, 5), {"start": 0.0}),
        ("lazer", (0, [Piece(PieceKind.STRAIGHT, 1, [])]), {"start": 0.0}),
        ("lazer", (0, [Piece(PieceKind.STRAIGHT, 1.0, 0)]), {"start": 0.0}),  # type: ignore[arg-type]
        ("lazer", (0, [Piece(0, 1, 0)]), {"start": 0.0}),  # type: ignore[arg-type]
        ("lazer", (0, [straight(1)]), {"start": Pose(0.0, 0.0, INF)}),
        ("lazer", (0, [straight(1)]), {"start": Pose(NAN, 0.0, 0.0)}),
        ("lazer", (0, [straight(1)]), {"start": Pose("x", 0.0, 0.0)}),  # type: ignore[arg-type]
        ("lazer", (0, []), {"start": INF}),
        ("launch_point", (0, NAN), {}),
        ("prizms", (None,), {}),
        ("prizms", ([1],), {}),
        ("prizms", ([(1.0,)],), {}),
    ]


@pytest.mark.parametrize("call", range(len(ryderz_bad_calls())))
def test_ryderz_builder_refuses_arguments_of_the_wrong_type(call: int) -> None:
    """Were TypeError (not iterable, unhashable, a Prizm of one number; a gear of 1.0 found
    gear 1's shape, then failed as a list index) or ValueError (math domain error: a pose
    heading of inf)."""
    method, args, kw = ryderz_bad_calls()[call]
    b = ryderz_builder()
    before = b.to_dict()
    with pytest.raises(InvalidStateError, match="position builder"):
        getattr(b, method)(*args, **kw)
    assert b.to_dict() == before
    b.build()


def test_ryderz_seat_off_the_table_without_a_pending_placement_is_refused() -> None:
    """A seat without a head and no respawn or launch pending was accepted (built by
    the builder's former ``no_lazer``, or loaded) and the game failed with AttributeError
    when its turn came."""
    g = game("ryderz", 2)
    d = ryderz_builder().to_dict()
    d["players"][1].update(lazer=[], head=None, supply=[list(r) for r in g.supply])
    with pytest.raises(InvalidStateError, match=r"players\[1\].head.*off the table"):
        g.state_from_dict(d)
    # a crasher off the table until its respawn is still accepted (seeded play has one)
    for seed in range(30):
        s, rng = g.new_initial_state(seed), np.random.default_rng(seed)
        while not s.is_terminal():
            random_step(s, rng)
            if s.decision is not None and s.decision.kind.value == "respawn":
                assert s.players[s.decision.seat].head is None
                assert g.state_from_dict(s.to_dict()).to_dict() == s.to_dict()
                return
    raise AssertionError("no respawn in 30 seeded games")


@pytest.mark.parametrize(
    "name,path,value,match",
    [
        ("lunatix", ("chips_per_player",), 10**6, "chips_per_player must be at most 100"),
        ("lunatix", ("chips_per_player",), 99, "every seat can take its chips"),
        ("lunatix", ("rams", "sideswipe", 0), 10**6, "damage dice"),
        ("lunatix", ("chips", "tacks_dice"), 2**63, "damage dice"),
        ("lunatix", ("chips", "oil_cards"), 2**63, "at most the deck's"),
        ("lunatix", ("curve_inward_cards",), 10**6, "at most the deck's"),
        ("lunatix", ("pit", "gadget_offer"), 99, "at most the deck's"),
        ("lunatix", ("brake_amounts", 0), 99, "brake_amounts"),
        ("lunatix", ("accelerate_amounts", 1), 7, "brake_amounts"),
        ("ryderz", ("prizm_radius",), 2**63, "a Prizm must fit on the table"),
        ("ryderz", ("prizm_radius",), 1e9, "a Prizm must fit on the table"),
        ("lunatix", ("turbo_speed_cap",), 10**9, "at most 200 squares a turn"),
        ("lunatix", ("mph_per_hazard_card",), 1, "mph_per_hazard_card must be at least 2"),
        ("ryderz", ("launch_search_step",), 1e-9, "launch_search_step 1e-09 cuts"),
        ("ryderz", ("joint_tolerance",), 1e300, "joint_tolerance <= 0.01"),
        ("ryderz", ("pieces",), {**SHIPPED_PIECES, "arc_max_sagitta": 1e-12}, "chords"),
        ("lunatix", ("decks",), HUGE_TURBO_DECKS, "a speed gain of 10000000 mph"),
    ],
    ids=repr,
)
def test_record_configs_that_exhausted_memory_or_hung_are_config_errors(
    name: str, path: tuple[Any, ...], value: Any, match: str
) -> None:
    """A record carries its config by value. Lunatix Loop: a million chips per player built a
    codec of 5e11 chip mixes (out of memory); 99 left no legal chip mix (a decision nobody
    could take); a million damage dice made the roll's distribution run for hours; an oil
    chip of 2**63 hazard cards pushed a task per card (out of memory); a smallest brake
    amount above the lowest speed a car can have (99 first, or an accelerate amount of 7)
    left a braking car no amount to choose; a speed cap of a billion moved a car a hundred
    million squares, and with 1 mph per hazard card drew as many cards. Lazer Ryderz: a Prizm
    radius of 2**63 failed in ``disc_coords`` (ZeroDivisionError), 1e9 made a disc of ~10**5
    vertices measured at every scoring step; a Launch Point search step of 1e-9 scanned the
    edge for hours, a joint tolerance of 1e300 made every contact a joint, and pieces by value
    with an ``arc_max_sagitta`` of 1e-12 made outlines of millions of vertices; a turbo card
    of ten million mph taken in a curve pushed a million hazard draws."""
    record = json.loads(real_records(name)[0])
    parent = record["config"]
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    with pytest.raises(ConfigError, match=match):
        registry.get(name).game_from_config_dict(record["config"])
    with pytest.raises(ConfigError, match=match):  # the replay of the record
        r = GameRecord.from_dict(record)
        replay(registry.get(r.game).game_from_config_dict(r.config), r)


@pytest.mark.parametrize("name", GAMES)
def test_an_action_holding_an_array_is_refused_on_every_path(name: str) -> None:
    """Lunatix Loop compared it with the legal actions (the fast path of ``apply_actions``
    once the legal actions were cached, and the checking path): numpy's ValueError (the
    truth value of an array)."""
    rules = registry.get(name).rules()
    s = sequential_state(name)
    p = s.current_players()[0]
    kind = s.legal_actions(p)[0].kind  # (the legal actions are cached: the fast path)
    before = snap(s)
    for action in (
        rules.Action(np.array([]), 0),
        rules.Action(np.array([1, 2]), 0),
        rules.Action(kind, np.array([1, 2])),
    ):
        for call in (lambda a=action: s.apply_action(a), lambda a=action: s.apply_actions({p: a})):
            with pytest.raises(IllegalActionError):
                call()
        assert s.is_legal(p, action) is False
    assert snap(s) == before
