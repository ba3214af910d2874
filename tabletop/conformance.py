"""The conformance kit every registered game runs (``shared/DESIGN.md``, "Testing").

An env layer module (it imports gymnasium and pettingzoo). Every check is a plain function
that raises ``AssertionError`` with a precise message on failure, parameterized by env
factories, so a game's test file only supplies its factories:

- PettingZoo: :func:`run_pettingzoo_suite` (``api_test``, ``parallel_api_test``,
  ``seed_test``, ``parallel_seed_test``, ``render_test``); the tests that send unmasked
  actions build their envs with ``on_illegal="random_legal"``.
- Gymnasium: :func:`check_single_agent_env` (``check_env`` on the single-agent view).
- Our own: :func:`check_determinism_across_processes`,
  :func:`check_json_round_trip_mid_episode`, :func:`check_pickle_mid_game`,
  :func:`check_no_leak`, :func:`check_docstring_tables`, :func:`check_record_replay`.

Factories are callables taking keyword options (``render_mode``, ``on_illegal``) and
returning an env whose ``unwrapped`` carries ``adapter`` (a
:class:`~tabletop.env_core.GameAdapter`), ``session`` (a
:class:`~tabletop.env_core.GameSession`) and ``record``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from tabletop.env_core import SubstitutedActionWarning, random_masked_index
from tabletop.records import GameRecord, replay

EnvFn = Callable[..., Any]
#: ``perturb_hidden(state, viewer, rng) -> state``: a changed copy; only what viewer may not know
Perturb = Callable[[Any, int, np.random.Generator], Any]


# ---------------------------------------------------------------------- helpers
def masked_random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random action among the ones ``mask`` allows."""
    try:
        return random_masked_index(mask, rng)
    except ValueError as exc:  # (a failed check of the env under test, not a bad call)
        raise AssertionError("an action mask allows no action at all") from exc


def random_env_action(env: Any, obs: Mapping[str, Any], rng: np.random.Generator) -> Any:
    """A uniformly random legal env action for ``obs`` (the mask under the adapter's
    ``mask_key``; an int for ``Discrete`` spaces, else the adapter's own kind of action)."""
    adapter = _adapter(env)
    mask = np.asarray(obs[adapter.mask_key])
    if not mask.any():
        raise AssertionError("an action mask allows no action at all")
    return adapter.random_env_action(mask, rng)


def _aec_play(env: AECEnv, rng: np.random.Generator, max_steps: int) -> Iterator[tuple[Any, ...]]:
    """Play masked random actions; yields ``(agent, obs, reward, term, trunc, action)``.

    Done agents step with None. Stops when every agent is gone or after ``max_steps``
    decisions (dead steps not counted).
    """
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        else:
            if steps >= max_steps:
                return
            action = random_env_action(env, obs, rng)
            steps += 1
        yield agent, obs, reward, term, trunc, action
        env.step(action)


def _parallel_play(
    env: ParallelEnv, rng: np.random.Generator, obs: Mapping[str, Any], max_steps: int
) -> Iterator[tuple[Any, ...]]:
    """Play masked random actions; yields ``(actions, obs, rewards, terms, truncs)``."""
    steps = 0
    while env.agents and steps < max_steps:
        actions = {a: random_env_action(env, obs[a], rng) for a in env.agents}
        obs, rewards, terms, truncs, _ = env.step(actions)
        steps += 1
        yield actions, obs, rewards, terms, truncs


def _import_by_string(path: str) -> Any:
    """``"package.module:attr"`` -> the attribute (imported at call time)."""
    if ":" not in path:
        raise ValueError(f"expected 'module:attr', got {path!r}")
    module, attr = path.split(":", 1)
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _adapter(env: Any) -> Any:
    return env.unwrapped.adapter


def _session(env: Any) -> Any:
    return env.unwrapped.session


def _run_each(checks: Mapping[str, Callable[[], None]]) -> None:
    """Run every check; raise one AssertionError naming each that failed (with tracebacks)."""
    failed = []
    for name, fn in checks.items():
        try:
            fn()
        except Exception:  # noqa: BLE001 - collected and re-raised below
            failed.append(f"--- {name} failed:\n{traceback.format_exc()}")
    if failed:
        raise AssertionError(f"{len(failed)} of {len(checks)} checks failed:\n" + "\n".join(failed))


# ---------------------------------------------------------------------- PettingZoo
def run_api_test(aec_fn: EnvFn, num_cycles: int = 100) -> None:
    """PettingZoo ``api_test`` (masked random actions) on ``aec_fn()``."""
    api_test(aec_fn(), num_cycles=num_cycles)


def run_parallel_api_test(parallel_fn: EnvFn, num_cycles: int = 100) -> None:
    """PettingZoo ``parallel_api_test`` (masked random actions) on ``parallel_fn()``."""
    parallel_api_test(parallel_fn(), num_cycles=num_cycles)


def run_seed_test(aec_fn: EnvFn, num_cycles: int = 100) -> None:
    """PettingZoo ``seed_test``: two envs reset with one seed play identically."""
    seed_test(aec_fn, num_cycles=num_cycles)


@contextmanager
def _substitution_expected() -> Iterator[None]:
    """Silence :class:`SubstitutedActionWarning`: a checker sending unmasked actions to a
    ``random_legal`` env is what that option is for."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SubstitutedActionWarning)
        yield


def run_parallel_seed_test(parallel_fn: EnvFn, num_cycles: int = 100) -> None:
    """PettingZoo ``parallel_seed_test``; it sends unmasked actions, so random_legal."""
    with _substitution_expected():
        parallel_seed_test(lambda: parallel_fn(on_illegal="random_legal"), num_cycles=num_cycles)


def run_render_test(aec_fn: EnvFn) -> None:
    """PettingZoo ``render_test`` over every declared mode (human included, headless)."""
    render_test(
        aec_fn,
        custom_tests={
            "ansi": lambda res: isinstance(res, str) and res.strip() != "",
            "rgb_array": lambda res: res.size > 0 and int(res.max()) > int(res.min()),
        },
    )


def run_pettingzoo_suite(
    aec_fn: EnvFn, parallel_fn: EnvFn, num_cycles: int = 100, render: bool = True
) -> None:
    """``api_test``, ``parallel_api_test``, ``seed_test``, ``parallel_seed_test`` and
    (with ``render``) ``render_test``; all run, and one AssertionError lists the failures.

    ``aec_fn(**kw)`` and ``parallel_fn(**kw)`` must accept ``render_mode`` and
    ``on_illegal``. ``max_cycles_test`` does not apply (one seat decides many times in a
    row), see ``shared/DESIGN.md``.
    """
    checks: dict[str, Callable[[], None]] = {
        "api_test": lambda: run_api_test(aec_fn, num_cycles),
        "parallel_api_test": lambda: run_parallel_api_test(parallel_fn, num_cycles),
        "seed_test": lambda: run_seed_test(aec_fn, num_cycles),
        "parallel_seed_test": lambda: run_parallel_seed_test(parallel_fn, num_cycles),
    }
    if render:
        checks["render_test"] = lambda: run_render_test(aec_fn)
    _run_each(checks)


# ---------------------------------------------------------------------- Gymnasium
def check_single_agent_env(
    single_fn: EnvFn | None = None,
    env_id: str | None = None,
    skip_render_check: bool = False,
    steps: int = 300,
    **kwargs: Any,
) -> None:
    """Gymnasium ``check_env`` on the single-agent view, built with ``random_legal``.

    With ``env_id`` the env comes from ``gymnasium.make`` (so ``check_env`` also opens
    every declared render mode through the spec); else from ``single_fn``. Then a masked
    random episode checks ``action_masks()`` against the observation space and the info.
    """
    opts = {"on_illegal": "random_legal", **kwargs}
    env: Any  # a SingleAgentView (with adapter and action_masks), made either way
    if env_id is not None:
        wrapped = gymnasium.make(env_id, **opts)
        env = wrapped.unwrapped
    else:
        assert single_fn is not None, "give single_fn or env_id"
        env = single_fn(**opts)
    if not skip_render_check and env.render_mode is None and env.metadata.get("render_modes"):
        mode = env.metadata["render_modes"][0]
        if env_id is not None:
            env = gymnasium.make(env_id, render_mode=mode, **opts).unwrapped
        else:
            env = single_fn(render_mode=mode, **opts)  # type: ignore[misc]
    with _substitution_expected():
        check_env(env, skip_render_check=skip_render_check)

    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    adapter = env.adapter
    n, key = adapter.num_actions, adapter.mask_key
    for _ in range(steps):
        assert env.observation_space.contains(obs), "observation out of its space"
        mask = np.asarray(env.action_masks())
        assert mask.shape == (n,) and mask.dtype == bool, (
            f"action_masks() must be a bool vector of length {n}, got {mask.dtype} {mask.shape}"
        )
        assert np.array_equal(mask, np.asarray(info[key]).astype(bool)), (
            f"action_masks() differs from info[{key!r}]"
        )
        action = adapter.random_env_action(mask, rng)
        assert env.action_space.contains(action), f"{action!r} is not in the action space"
        obs, reward, term, trunc, info = env.step(action)
        assert isinstance(reward, float), f"reward must be a float, got {type(reward)}"
        if term or trunc:
            obs, info = env.reset()
    env.close()


# ---------------------------------------------------------------------- determinism
def play_digest(
    module_fn_path: str, kwargs: Mapping[str, Any], seed: int, max_steps: int = 5000
) -> dict[str, Any]:
    """Build ``module:factory(**kwargs)``, reset with ``seed`` and play masked random
    actions (drawn from a generator seeded with ``seed``); returns a digest of every
    observation, mask, reward, termination and truncation, and the final record JSON.
    """
    env = _import_by_string(module_fn_path)(**kwargs)
    h = hashlib.sha256()
    rng = np.random.default_rng(seed)
    steps = 0

    def feed(agent: str, obs: Mapping[str, Any], reward: float, term: bool, trunc: bool) -> None:
        h.update(agent.encode())
        for key in sorted(obs):
            arr = np.ascontiguousarray(obs[key])
            h.update(key.encode() + str(arr.dtype).encode() + arr.tobytes())
        h.update(repr((float(reward), bool(term), bool(trunc))).encode())

    if isinstance(env.unwrapped, AECEnv):
        env.reset(seed=seed)
        for agent, obs, reward, term, trunc, action in _aec_play(env, rng, max_steps):
            feed(agent, obs, reward, term, trunc)
            h.update(repr(action).encode())
            steps += 1
    else:
        first, _ = env.reset(seed=seed)
        for agent in sorted(first):
            feed(agent, first[agent], 0.0, False, False)
        for actions, obs, rewards, terms, truncs in _parallel_play(env, rng, first, max_steps):
            h.update(repr(sorted(actions.items())).encode())
            for agent in sorted(obs):
                feed(agent, obs[agent], rewards[agent], terms[agent], truncs[agent])
            steps += 1
    state = env.unwrapped.session.state
    h.update(json.dumps(state.to_dict(), sort_keys=True).encode())
    return {"digest": h.hexdigest(), "steps": steps, "record": env.unwrapped.record.to_dict()}


_DIGEST_CODE = (
    "import json, sys\n"
    "from tabletop.conformance import play_digest\n"
    "out = play_digest(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), "
    "int(sys.argv[4]))\n"
    "print(json.dumps(out, sort_keys=True))\n"
)


def _package_root(module: str) -> str:
    spec = importlib.util.find_spec(module.split(".")[0])
    if spec is None or spec.origin is None:
        raise ValueError(f"cannot find the package of {module!r}")
    return str(Path(spec.origin).resolve().parent.parent)


def check_determinism_across_processes(
    module_fn_path: str,
    kwargs: Mapping[str, Any],
    seed: int,
    max_steps: int = 5000,
    hash_seeds: tuple[str, str] = ("1", "2718"),
) -> dict[str, Any]:
    """Play one seeded masked-random episode in two fresh interpreters with different
    ``PYTHONHASHSEED`` (and in this process); digests and final records must be equal.

    ``module_fn_path`` is ``"package.module:factory"`` (AEC or parallel), ``kwargs`` its
    JSON-able options. Returns the result of this process's run.
    """
    roots = [_package_root(module_fn_path.split(":")[0]), _package_root(__name__)]
    results = []
    for hs in hash_seeds:
        env = dict(
            os.environ,
            PYTHONHASHSEED=hs,
            PYTHONPATH=os.pathsep.join(
                dict.fromkeys([*roots, *filter(None, [os.environ.get("PYTHONPATH")])])
            ),
        )
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                _DIGEST_CODE,
                module_fn_path,
                json.dumps(dict(kwargs)),
                str(seed),
                str(max_steps),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        assert out.returncode == 0, (
            f"PYTHONHASHSEED={hs}: the subprocess failed:\n{out.stderr[-4000:]}"
        )
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    here = play_digest(module_fn_path, kwargs, seed, max_steps)
    here = cast("dict[str, Any]", json.loads(json.dumps(here, sort_keys=True)))
    a, b = results
    assert a["steps"] > 0, "the episode made no decision"
    assert a["steps"] == b["steps"] == here["steps"], (
        f"episode lengths differ: {a['steps']}, {b['steps']} (subprocesses), {here['steps']} (here)"
    )
    _assert_same_records(a["record"], b["record"], "PYTHONHASHSEED " + " vs ".join(hash_seeds))
    _assert_same_records(a["record"], here["record"], "subprocess vs this process")
    assert a["digest"] == b["digest"], (
        f"observations/rewards differ between PYTHONHASHSEED={hash_seeds[0]} and {hash_seeds[1]}"
    )
    assert a["digest"] == here["digest"], "observations/rewards differ from this process"
    assert any("chance" in e for e in a["record"]["events"]), "the record holds no chance"
    return here


def _assert_same_records(r1: Mapping[str, Any], r2: Mapping[str, Any], what: str) -> None:
    if r1 == r2:
        return
    e1, e2 = r1.get("events", []), r2.get("events", [])
    first = next(
        (i for i, (x, y) in enumerate(zip(e1, e2, strict=False)) if x != y), min(len(e1), len(e2))
    )
    other = sorted(k for k in set(r1) | set(r2) if k != "events" and r1.get(k) != r2.get(k))
    raise AssertionError(
        f"records differ ({what}): first differing event {first} "
        f"({e1[first] if first < len(e1) else None} vs "
        f"{e2[first] if first < len(e2) else None}); other differing keys: {other}"
    )


# ---------------------------------------------------------------------- JSON round trip
def _play_state(
    state: Any, rng: np.random.Generator, act_rng: np.random.Generator, adapter: Any
) -> dict[int, int] | None:
    """One event on a bare state: a chance outcome or one action per decider (a random
    index of ``adapter.legal_ints``, decoded); returns the indices."""
    if state.is_chance_node():
        state.apply_chance(state.sample_chance(rng))
        return None
    acts = {}
    for p in state.current_players():
        legal = adapter.legal_ints(state, p)
        acts[p] = legal[int(act_rng.integers(len(legal)))]
    state.apply_actions({p: adapter.decode_action(state, p, a) for p, a in acts.items()})
    return acts


def check_json_round_trip_mid_episode(
    env_fn: EnvFn,
    seed: int = 0,
    checkpoints: tuple[int, ...] = (1, 25, 120),
    continue_events: int = 150,
) -> None:
    """Mid-episode ``state.to_dict()`` is plain JSON, ``game.state_from_dict`` rebuilds an
    equal state, and both continue identically under the same actions and chance draws
    (every seat's encoded observation and mask equal after every event).

    ``env_fn()`` gives an AEC env; each checkpoint is a number of masked random decisions
    after ``reset(seed)``.
    """
    for k in checkpoints:
        env = env_fn()
        env.reset(seed=seed)
        for _ in _aec_play(env, np.random.default_rng(seed + 1), k):
            pass
        adapter, sess = _adapter(env), _session(env)
        original = sess.state
        data = original.to_dict()
        text = json.dumps(data, sort_keys=True, allow_nan=False)
        assert json.loads(text) == data, (
            f"after {k} decisions: to_dict() is not plain JSON (tuples, numpy or non-str "
            "keys change in a JSON round trip)"
        )
        restored = adapter.game.state_from_dict(json.loads(text))
        assert restored.to_dict() == data, (
            f"after {k} decisions: state_from_dict(to_dict()) gives a different state:\n"
            + _dict_diff(data, restored.to_dict())
        )
        ca, cb = np.random.default_rng(seed + k), np.random.default_rng(seed + k)
        aa, ab = np.random.default_rng(seed + 2 * k), np.random.default_rng(seed + 2 * k)
        n = adapter.num_players
        for event in range(continue_events):
            for seat in range(n):
                oa, ob = adapter.encode(original, seat), adapter.encode(restored, seat)
                assert np.array_equal(oa, ob), (
                    f"after {k} decisions + {event} events: player_{seat}'s observation "
                    f"differs between the original and the restored state at slots "
                    f"{np.flatnonzero(oa != ob)[:20].tolist()}"
                )
                assert adapter.legal_ints(original, seat) == adapter.legal_ints(restored, seat)
            if original.is_terminal() or restored.is_terminal():
                assert original.is_terminal() and restored.is_terminal()
                break
            acts_a = _play_state(original, ca, aa, adapter)
            acts_b = _play_state(restored, cb, ab, adapter)
            assert acts_a == acts_b
        assert original.to_dict() == restored.to_dict(), _dict_diff(
            original.to_dict(), restored.to_dict()
        )
        env.close()


def _dict_diff(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return _dict_diff(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _dict_diff(x, y, f"{path}[{i}]")
    return f"  at {path or '<root>'}: {a!r} != {b!r}"


# ---------------------------------------------------------------------- pickling
def check_pickle_mid_game(
    env_fn: EnvFn, seed: int = 0, pickle_after: int = 40, continue_steps: int = 400
) -> None:
    """Pickle an AEC env mid-game (its generator and any buffered simultaneous choice
    included), load it, and continue both with the same actions: agent selections,
    observations, rewards, flags, later chance outcomes and records must all be equal.
    """
    env = env_fn()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1)
    for _ in _aec_play(env, rng, pickle_after):
        pass
    # prefer a moment with a half-collected simultaneous decision (best effort)
    for _ in range(60):
        if _session(env).buffer or _session(env).done:
            break
        obs, *_ = env.last()
        env.step(random_env_action(env, obs, rng))
    assert not _session(env).done, (
        f"the game ended before the pickling point; lower pickle_after ({pickle_after})"
    )
    events_before = len(env.unwrapped.record.events)
    blob = pickle.dumps(env)
    twin = pickle.loads(blob)
    assert twin.unwrapped.session.state.to_dict() == env.unwrapped.session.state.to_dict()
    assert twin.unwrapped.session.buffer == env.unwrapped.session.buffer
    r1, r2 = np.random.default_rng(seed + 2), np.random.default_rng(seed + 2)
    steps = 0
    while env.agents and steps < continue_steps:
        assert twin.agents == env.agents
        assert twin.agent_selection == env.agent_selection, (
            f"step {steps} after unpickling: agent {twin.agent_selection} != {env.agent_selection}"
        )
        o1, rw1, te1, tr1, _ = env.last()
        o2, rw2, te2, tr2, _ = twin.last()
        for key in o1:
            assert np.array_equal(o1[key], o2[key]), (
                f"step {steps} after unpickling: {key} of {env.agent_selection} differs"
            )
        assert (rw1, te1, tr1) == (rw2, te2, tr2)
        if te1 or tr1:
            env.step(None)
            twin.step(None)
            continue
        env.step(random_env_action(env, o1, r1))
        twin.step(random_env_action(twin, o2, r2))
        steps += 1
    assert twin.agents == env.agents
    rec1, rec2 = env.unwrapped.record.to_dict(), twin.unwrapped.record.to_dict()
    _assert_same_records(rec1, rec2, "original vs unpickled")
    later_chance = [e for e in rec1["events"][events_before:] if "chance" in e]
    assert later_chance, (
        f"no chance outcome was drawn in {continue_steps} steps after unpickling; the "
        "check did not exercise the generator (raise continue_steps)"
    )
    assert twin.unwrapped.session.state.to_dict() == env.unwrapped.session.state.to_dict()
    env.close()
    twin.close()


# ---------------------------------------------------------------------- no leak
def check_no_leak(
    env_fn: EnvFn,
    perturb_hidden: Perturb,
    seed: int = 0,
    every: int = 5,
    max_steps: int = 600,
    min_changed: int = 1,
    prepare: Callable[[Any, np.random.Generator], Any] | None = None,
    min_events: int = 1,
) -> int:
    """Changing only what a seat may not know leaves its encoded observation, its mask and
    the turn events it may see unchanged.

    Plays a masked random AEC episode; every ``every`` decisions, for every viewer,
    ``perturb_hidden(state, viewer, rng)`` must return a changed *copy* (the env's state is
    left untouched) whose ``adapter.encode(copy, viewer)`` and legal actions equal the
    original's; then the same joint action (random, legal in both) is applied to both, up
    to the next chance node, and the events the viewer may see (:mod:`tabletop.events`)
    must be equal. ``prepare(state, rng)``, if given, returns a copy of each visited state
    with more hidden information in it (say, cards dealt into hands), which is then checked
    instead. At least ``min_changed`` perturbations must actually change the state (so the
    check is not vacuous), and at least ``min_events`` changed ones must have given their
    viewer events to compare. Returns how many perturbations changed the state.
    """
    env = env_fn()
    env.reset(seed=seed)
    adapter, sess = _adapter(env), _session(env)
    rng = np.random.default_rng(seed + 3)
    changed = checked = events_compared = 0
    for i, _ in enumerate(_aec_play(env, np.random.default_rng(seed + 1), max_steps)):
        if i % every or sess.done:
            continue
        state = sess.state
        if prepare is not None:
            state = prepare(state, rng)
            assert state is not sess.state, "prepare must return a copy"
        before = state.to_dict()
        for viewer in range(adapter.num_players):
            other = perturb_hidden(state, viewer, rng)
            assert other is not state, "perturb_hidden must return a copy"
            assert state.to_dict() == before, "perturb_hidden changed the original state"
            differs = other.to_dict() != before
            changed += differs
            checked += 1
            o1, o2 = adapter.encode(state, viewer), adapter.encode(other, viewer)
            assert np.array_equal(o1, o2), (
                f"hidden information leaks into player_{viewer}'s observation (decision "
                f"{i}): slots {np.flatnonzero(o1 != o2)[:20].tolist()} change when only "
                f"what it may not know changes:\n{_dict_diff(before, other.to_dict())}"
            )
            l1, l2 = adapter.legal_ints(state, viewer), adapter.legal_ints(other, viewer)
            assert l1 == l2, (
                f"hidden information leaks into player_{viewer}'s legal actions (decision "
                f"{i}): {l1} != {l2}"
            )
            seen = _events_after_same_actions(adapter, state, other, viewer, rng)
            if seen is not None and differs:
                e1, e2 = seen
                assert e1 == e2, (
                    f"hidden information leaks into player_{viewer}'s turn events (decision "
                    f"{i}): {e1} != {e2} when only what it may not know changes"
                )
                events_compared += bool(e1)
    assert checked > 0, "no state was checked"
    assert changed >= min_changed, (
        f"only {changed} of {checked} perturbations changed anything; the check is vacuous"
    )
    assert events_compared >= min_events, (
        f"only {events_compared} perturbed states gave their viewer events to compare"
    )
    env.close()
    return changed


def _events_after_same_actions(
    adapter: Any, state: Any, other: Any, viewer: int, rng: np.random.Generator
) -> tuple[list[Any], list[Any]] | None:
    """The events ``viewer`` may see (as JSON) when one joint action, random among those
    legal in both states, is applied to copies of each (up to the next chance node). None
    when some decider has no action legal in both, or when the viewer's observations after
    differ: what it may not know can change what happens in the open (a hidden Power
    Brakes card turns a Brake hazard into a decision), and then the events may differ too;
    where everything the viewer observes is the same, its events must be."""
    if state.is_chance_node() or other.is_chance_node() or not state.current_players():
        return None
    joint: dict[int, Any] = {}
    for seat in state.current_players():
        theirs = {json.dumps(other.game.action_to_json(a)) for a in other.legal_actions(seat)}
        common = [
            a
            for a in state.legal_actions(seat)
            if json.dumps(state.game.action_to_json(a)) in theirs
        ]
        if not common:
            return None
        joint[seat] = common[int(rng.integers(len(common)))]
    out, seen = [], []
    for s in (state, other):
        copy = s.clone()
        copy.record_events()
        to_json, from_json = s.game.action_to_json, copy.game.action_from_json
        copy.apply_actions({seat: from_json(to_json(a)) for seat, a in joint.items()})
        out.append([e.to_json() for e in copy.take_events() if e.visible_to(viewer)])
        seen.append(adapter.encode(copy, viewer))
    if not np.array_equal(seen[0], seen[1]):
        return None
    return out[0], out[1]


# ---------------------------------------------------------------------- events in infos
def check_event_infos(
    aec_fn: EnvFn,
    parallel_fn: EnvFn,
    single_fn: EnvFn | None = None,
    seed: int = 0,
    max_steps: int = 5000,
) -> dict[str, int]:
    """With ``events=True`` every agent's ``infos[agent]["events"]``, gathered over a masked
    random game, are exactly the events it may see of all those the game's record replays
    to (:func:`tabletop.records.replay_events`), in order: nothing lost, repeated or leaked.
    The AEC env gives each agent those since it last acted, the parallel env those of each
    step, the single-agent view (if given) those since the learner's last step; seats
    played by ``bots`` are checked in the parallel env. Returns the number of events each
    API delivered and of those private to one seat."""
    from tabletop.records import replay_events

    counts: dict[str, int] = {}

    def expected(env: Any, seat: int) -> list[Any]:
        game, record = env.unwrapped.adapter.game, env.unwrapped.record
        every = [e for step in replay_events(game, record) for e in step]
        return [e for e in every if e.visible_to(seat)]

    def same(api: str, got: list[Any], want: list[Any], who: str) -> None:
        pairs = enumerate(zip(got, want, strict=False))
        first = next((i for i, (a, b) in pairs if a != b), min(len(got), len(want)))
        assert got == want, (
            f"{api}: {who}'s infos events differ from what the record replays to (first "
            f"difference at {first}: {len(got)} delivered, {len(want)} expected)"
        )
        counts[api] = counts.get(api, 0) + len(got)
        counts["private"] = counts.get("private", 0) + sum(e.to is not None for e in got)

    rng = np.random.default_rng(seed + 1)
    env = aec_fn(events=True)
    env.reset(seed=seed)
    got: dict[str, list[Any]] = {a: [] for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        got[agent].extend(info["events"])
        assert all(e.visible_to(env.possible_agents.index(agent)) for e in info["events"])
        if term or trunc:
            env.step(None)
            continue
        assert steps < max_steps, f"the AEC game did not end in {max_steps} steps"
        env.step(random_env_action(env, obs, rng))
        steps += 1
    bots = _session(env).bots  # read only at the end: since the bot last acted
    for seat, a in enumerate(env.possible_agents):
        want = expected(env, seat)
        if seat not in bots:
            same("aec", got[a], want, a)
        else:
            assert len(got[a]) < len(want) and want[len(want) - len(got[a]) :] == got[a], (
                f"aec: bot seat {a}'s last infos events are not what followed its last action"
            )

    env = parallel_fn(events=True)
    obs, infos = env.reset(seed=seed)
    got = {a: list(infos[a]["events"]) for a in env.possible_agents}
    steps = 0
    while env.agents:
        assert steps < max_steps, f"the parallel game did not end in {max_steps} steps"
        obs, _, _, _, infos = env.step({a: random_env_action(env, obs[a], rng) for a in obs})
        for a, info in infos.items():
            got[a].extend(info["events"])
        steps += 1
    for seat, a in enumerate(env.possible_agents):
        same("parallel", got[a], expected(env, seat), a)

    if single_fn is not None:
        single = single_fn(events=True)
        _, info = single.reset(seed=seed)
        mine = list(info["events"])
        done = False
        while not done:
            mask = np.asarray(info[single.adapter.mask_key])
            action = single.adapter.random_env_action(mask, rng)
            _, _, term, trunc, info = single.step(action)
            mine.extend(info["events"])
            done = term or trunc
        same("single", mine, expected(single, single.learner), "the learner")
    return counts


# ---------------------------------------------------------------------- docstring tables
_BOX = re.compile(r"Box\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*,\s*\(([^()]*)\)\s*(?:,\s*(\w+)\s*)?\)")
_DISCRETE = re.compile(r"Discrete\(\s*(\w+)\s*\)")
_KEY_CELL = re.compile(r"^``(\w+)``$")


def _number(token: str, symbols: Mapping[str, int]) -> float:
    token = token.strip()
    m = re.fullmatch(r"(\w+)\s*([+-])\s*(\d+)", token)
    if m and m.group(1) in symbols:
        base = symbols[m.group(1)]
        return base + int(m.group(3)) * (1 if m.group(2) == "+" else -1)
    if token in symbols:
        return symbols[token]
    try:
        return float(token)
    except ValueError:
        raise AssertionError(f"cannot read {token!r} in a docstring space") from None


def _parse_box(text: str, symbols: Mapping[str, int]) -> dict[str, Any]:
    m = _BOX.search(text)
    assert m is not None
    shape = tuple(int(_number(t, symbols)) for t in m.group(3).split(",") if t.strip())
    return {
        "low": _number(m.group(1), symbols),
        "high": _number(m.group(2), symbols),
        "shape": shape,
        "dtype": m.group(4),
    }


def _box_matches(doc: Mapping[str, Any], box: spaces.Space[Any], where: str) -> list[str]:
    if not isinstance(box, spaces.Box):
        return [f"{where}: the docstring says Box, the space is {box}"]
    errs = []
    if tuple(box.shape) != doc["shape"]:
        errs.append(f"{where}: shape {doc['shape']} in the docstring, {box.shape} real")
    if not (np.all(box.low == doc["low"]) and np.all(box.high == doc["high"])):
        errs.append(
            f"{where}: bounds [{doc['low']}, {doc['high']}] in the docstring, "
            f"[{box.low.min()}, {box.high.max()}] real"
        )
    if doc["dtype"] is not None and np.dtype(doc["dtype"]) != box.dtype:
        errs.append(f"{where}: dtype {doc['dtype']} in the docstring, {box.dtype} real")
    return errs


def _table_rows(doc: str) -> list[list[str]]:
    rows = []
    for line in doc.splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and not re.fullmatch(r"[|\-: ]+", line):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


_SECTION = re.compile(r"^\s*\*\*(Observation|Action)\*\*")


def select_sections(doc: str, observation: str | None = None, action: str | None = None) -> str:
    """``doc`` keeping, of its ``**Observation**`` and ``**Action**`` sections (each from its
    heading line to the next heading), only those whose heading contains ``observation`` /
    ``action`` (e.g. ``'obs_mode="image"'``); None keeps every section of that kind. Text
    before the first section is kept. A table row naming the same option with another value
    (a row for ``action_mode="box"`` only, when ``action_mode="hybrid"`` is selected) is
    dropped."""
    others = []
    for want in (observation, action):
        m = re.fullmatch(r'(\w+)="([^"]*)"', want or "")
        if m:
            others.append((re.compile(rf'\b{m.group(1)}="([^"]*)"'), m.group(2)))
    keep, out = True, []
    for line in doc.splitlines():
        m = _SECTION.match(line)
        if m:
            want = observation if m.group(1) == "Observation" else action
            keep = want is None or want in line
        elif line.lstrip().startswith("|") and any(
            v != value for rx, value in others for v in rx.findall(line)
        ):
            continue
        if keep:
            out.append(line)
    return "\n".join(out)


def _split_doc(doc: str) -> tuple[str, str]:
    """(text before the first ``**Action**`` heading, the rest)."""
    m = re.search(r"^\s*\*\*Action\*\*", doc, flags=re.M)
    return (doc, "") if m is None else (doc[: m.start()], doc[m.start() :])


def _check_declared_observation(
    name: str, doc: str, space: spaces.Space[Any], symbols: Mapping[str, int]
) -> list[str]:
    errs: list[str] = []
    pattern = r"\bObservation\b\W*(?:\([^)]*\)\s*:?\s*)?``(Dict|Box\([^`]*\))``"
    decl = re.search(pattern, doc)
    if decl is None:
        return [f"{name}: no declared observation space (**Observation** ``...``)"]
    kind = "Dict" if decl.group(1) == "Dict" else "Box"
    if not isinstance(space, getattr(spaces, kind)):
        errs.append(
            f"{name}: the docstring declares a {kind} observation, the real space is {space}"
        )
    elif kind == "Box":
        errs += _box_matches(_parse_box(decl.group(1), symbols), space, f"{name} observation")
    others = [m.group(1) for m in re.finditer(pattern, doc)]
    if len({o.split("(")[0] for o in others}) > 1:
        errs.append(f"{name}: the docstring declares conflicting observation spaces {others}")
    if isinstance(space, spaces.Dict):
        errs += _check_key_rows(name, _table_rows(doc), space, symbols)
    return errs


def _check_key_rows(
    name: str, rows: list[list[str]], space: spaces.Dict, symbols: Mapping[str, int]
) -> list[str]:
    """Each row naming a key of a ``Dict`` space matches that key's Box or Discrete."""
    errs, seen = [], set()
    for row in rows:
        key = _KEY_CELL.match(row[0])
        if not key or len(row) < 2:
            continue
        box, disc = _BOX.search(row[1]), _DISCRETE.search(row[1])
        if not box and not disc:
            continue
        k = key.group(1)
        seen.add(k)
        if k not in space.spaces:
            errs.append(f"{name}: docstring row {k!r} is not a key of the space")
            continue
        sub = space.spaces[k]
        if box:
            errs += _box_matches(_parse_box(row[1], symbols), sub, f"{name} {k!r}")
        elif not isinstance(sub, spaces.Discrete):
            errs.append(f"{name} {k!r}: the docstring says Discrete, the space is {sub}")
        else:
            d = cast("re.Match[str]", disc)  # not a Box row: a Discrete one
            if int(_number(d.group(1), symbols)) != int(sub.n):
                errs.append(f"{name} {k!r}: Discrete({d.group(1)}) in the docstring, {sub} real")
    missing = set(space.spaces) - seen
    if missing:
        errs.append(f"{name}: no docstring row for keys {sorted(missing)}")
    return errs


def _check_declared_action(
    name: str, doc: str, space: spaces.Space[Any], symbols: Mapping[str, int]
) -> list[str]:
    errs: list[str] = []
    decl = re.search(
        r"\bAction\b\W*(?:\([^)]*\)\s*:?\s*)?``(Dict|Box\([^`]*\)|"
        r"Discrete\([^`]*\))``",
        doc,
    )
    if decl is None:
        return [f"{name}: no declared action space (**Action** ``...``)"]
    kind = decl.group(1).split("(")[0]
    if not isinstance(space, getattr(spaces, kind)):
        return [f"{name}: the docstring declares a {kind} action, the real space is {space}"]
    rows = _table_rows(doc)
    size = None
    if isinstance(space, spaces.Discrete):
        m = _DISCRETE.search(decl.group(1))
        assert m is not None
        if int(_number(m.group(1), symbols)) != int(space.n):
            errs.append(
                f"{name}: docstring Discrete({m.group(1)}) = "
                f"{int(_number(m.group(1), symbols))}, real {space.n}"
            )
        size = int(space.n)
    elif isinstance(space, spaces.Box):
        errs += _box_matches(_parse_box(decl.group(1), symbols), space, f"{name} action")
        size = int(space.shape[0])
    elif isinstance(space, spaces.Dict):
        errs += _check_key_rows(f"{name} action", rows, space, symbols)
    if size is not None:
        covered: list[int] = []
        for row in rows:
            r = re.fullmatch(r"(\w+)(?:\s*\.\.\s*([\w+-]+))?", row[0].strip("` "))
            if r and (r.group(1).isdigit() or r.group(1) in symbols):
                lo = int(_number(r.group(1), symbols))
                hi = int(_number(r.group(2), symbols)) if r.group(2) else lo
                covered += range(lo, hi + 1)
        if covered and sorted(covered) != list(range(size)):
            errs.append(
                f"{name}: the action table's index rows cover {len(covered)} "
                f"indices (0..{max(covered)}), not each of 0..{size - 1} once"
            )
    return errs


def check_docstring_tables(
    env_cls: type,
    obs_size: int,
    num_actions: int,
    observation_space: spaces.Space[Any] | None = None,
    action_space: spaces.Space[Any] | None = None,
    doc: str | None = None,
    symbols: Mapping[str, int] | None = None,
) -> None:
    """The class docstring's tables match the real spaces.

    Reads ``D = <n>`` and ``A = <n>`` (the observation length and the number of actions
    of the documented default game) and compares them with ``obs_size`` and
    ``num_actions`` (and each other name of ``symbols`` with its value); with the real
    spaces given, also compares the declared observation (``**Observation**`` followed by
    ``Dict`` or a ``Box(...)``, each table row naming a ``Dict`` key with its space) and the
    declared action (``**Action**`` followed by ``Discrete(...)``, ``Box(...)`` or ``Dict``
    with key rows); a ``Discrete`` or ``Box`` action's index column (``0``, ``1..A-1``)
    must cover every index exactly once. ``doc`` replaces the class docstring (say, one
    mode's sections picked by :func:`select_sections`).
    """
    doc = doc if doc is not None else inspect.getdoc(env_cls) or ""
    name = env_cls.__name__
    errs: list[str] = []
    stated = {"D": obs_size, "A": num_actions, **(symbols or {})}
    for sym, value in stated.items():
        m = re.search(rf"\b{sym}\s*=\s*(\d+)", doc)
        if m is None:
            raise AssertionError(f"{name}: the docstring does not state '{sym} = <n>'")
        if int(m.group(1)) != value:
            errs.append(f"{name}: docstring {sym} = {m.group(1)}, real {value}")
    obs_doc, act_doc = _split_doc(doc)
    if observation_space is not None:
        errs += _check_declared_observation(name, obs_doc, observation_space, stated)
    if action_space is not None:
        errs += _check_declared_action(name, act_doc or doc, action_space, stated)
    if errs:
        raise AssertionError("\n".join(errs))


# ---------------------------------------------------------------------- records
def check_record_replay(
    env_fn: EnvFn,
    seed: int = 0,
    max_steps: int = 5000,
    game_factory: Callable[[dict[str, Any]], Any] | None = None,
    directory: str | Path | None = None,
) -> GameRecord:
    """Play an episode, save ``env.unwrapped.record`` as JSON, load it, rebuild the game from
    the record's config (``game_factory(config)`` or the replay CLI's table of known games)
    and replay it with :func:`tabletop.records.replay`: the final ``to_dict`` must equal the
    env's. Works for AEC and parallel envs. Returns the loaded record.
    """
    env = env_fn()
    rng = np.random.default_rng(seed + 1)
    if isinstance(env.unwrapped, AECEnv):
        env.reset(seed=seed)
        for _ in _aec_play(env, rng, max_steps):
            pass
    else:
        obs, _ = env.reset(seed=seed)
        for _ in _parallel_play(env, rng, obs, max_steps):
            pass
    record = env.unwrapped.record
    assert record.seed == seed, f"record seed {record.seed}, reset seed {seed}"
    assert record.events, "the record holds no event"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(directory or tmp) / "record.json"
        record.save(path)
        loaded = GameRecord.load(path)
    assert loaded.to_dict() == json.loads(json.dumps(record.to_dict())), (
        "the record changes in a save/load round trip"
    )
    if game_factory is not None:
        game = game_factory(loaded.config)
        game = game[0] if isinstance(game, tuple) else game
    else:
        from tabletop.replay import load_game

        game, _ = load_game(loaded)
    final = replay(game, loaded)
    expected = env.unwrapped.session.state.to_dict()
    assert final.to_dict() == expected, (
        "the replayed record ends in a different state:\n" + _dict_diff(expected, final.to_dict())
    )
    env.close()
    return loaded
