"""``state.resample_hidden(seat, rng)`` in both games: a determinization for search that
keeps what ``seat`` sees (observation, legal actions), redraws what it cannot see, leaves
the original alone, is reproducible for a seed and yields a valid state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from edit_state import edited
from lunatix_builders import hide_swap
from random_play import random_step

from lunatix_env.rules import Game as LunatixGame
from lunatix_env.rules.state import State as LunatixState
from ryderz_env.rules import Game as RyderzGame
from ryderz_env.rules.state import State as RyderzState
from tabletop.protocol import State

PLAYERS = (2, 3, 4)


# ---------------------------------------------------------------------- positions
def lunatix_states(n: int, seed: int, steps: int = 300, every: int = 3) -> list[LunatixState]:
    """Seeded random mid-game positions with gadgets in play: at round 1's card reveal
    every car is dealt two gadgets and one card goes to the bottom under seat 1 (random
    play rarely buys any), then random play goes on; a copy every ``every`` steps."""
    g = LunatixGame(num_players=n)
    rng = np.random.default_rng(seed)
    s = g.new_initial_state(seed)
    while s.decision is None or s.decision.kind.value != "card":
        random_step(s, rng)

    def deal(d: dict[str, Any]) -> None:
        top = d["gadget_top"]
        for c in d["cars"]:
            for _ in range(2):
                c["gadgets"].append(top.pop(int(rng.integers(len(top)))))
            c["gadgets"].sort()
        d["gadget_bottom"].append([top.pop(int(rng.integers(len(top)))), 1])

    s = edited(s, deal)  # the dealt position is valid
    out = []
    for i in range(steps):
        if s.is_terminal():
            break
        if i % every == 0:
            out.append(s.clone())
        random_step(s, rng)
    return out


def ryderz_states(n: int, seed: int, steps: int = 60) -> list[RyderzState]:
    """Seeded random positions of a game with blind placement (launch noise on): every
    step of the first ``steps`` (the Launch Points of Start Your Engines are pending at
    the start; respawns later)."""
    g = RyderzGame(num_players=n)
    assert g.rules.launch_noise_sigma > 0
    rng = np.random.default_rng(seed)
    s = g.new_initial_state(seed)
    out = []
    for _ in range(steps):
        if s.is_terminal():
            break
        out.append(s.clone())
        random_step(s, rng)
    return out


def _both() -> Iterator[tuple[str, int, list[Any]]]:
    for n in PLAYERS:
        yield "lunatix", n, [st for seed in range(3) for st in lunatix_states(n, seed)]
        yield "ryderz", n, [st for seed in range(2) for st in ryderz_states(n, seed)]


CASES = list(_both())
IDS = [f"{name}-{n}p" for name, n, _ in CASES]


def _pending_view(s: State, seat: int) -> Any:
    """What the next step offers ``seat``: deciders, its legal actions, chance kind."""
    return (s.current_players(), s.is_chance_node(), s.is_terminal(), s.legal_actions(seat))


# ---------------------------------------------------------------------- both games
@pytest.mark.parametrize(("name", "n", "states"), CASES, ids=IDS)
def test_resample_keeps_what_the_seat_sees_and_the_original(
    name: str, n: int, states: list[Any]
) -> None:
    assert len(states) > 20
    for k, s in enumerate(states):
        before = s.to_dict()
        for seat in range(n):
            obs = s.observation(seat)
            pend = _pending_view(s, seat)
            r = s.resample_hidden(seat, np.random.default_rng(1000 + k))
            assert r is not s
            assert s.to_dict() == before, "resample_hidden changed the original"
            assert r.observation(seat) == obs
            assert _pending_view(r, seat) == pend
            d = r.to_dict()
            back = s.game.state_from_dict(d)  # valid: the engine's own validation
            assert back.to_dict() == d
            if r.is_chance_node():  # the redrawn chance event is still well formed
                r.clone().apply_chance(r.sample_chance(np.random.default_rng(k)))


@pytest.mark.parametrize(("name", "n", "states"), CASES, ids=IDS)
def test_resample_is_reproducible_for_a_seed(name: str, n: int, states: list[Any]) -> None:
    for k, s in enumerate(states[::3]):
        for seat in range(n):
            a = s.resample_hidden(seat, np.random.default_rng(k)).to_dict()
            b = s.resample_hidden(seat, np.random.default_rng(k)).to_dict()
            assert a == b


# ---------------------------------------------------------------------- Lunatix Loop
def _hidden_part(s: LunatixState, seat: int) -> Any:
    return (
        [c.gadgets for c in s.cars if c.seat != seat],
        sorted(s.gadget_top),
        [e for e in s.gadget_bottom if e[1] != seat],
        s.offer,
    )


@pytest.mark.parametrize("n", PLAYERS)
def test_lunatix_resample_redraws_other_hands_and_the_deck(n: int) -> None:
    states = lunatix_states(n, seed=7)
    varied = 0
    for s in states:
        for seat in range(n):
            own = (
                s.cars[seat].gadgets,
                [c.spent for c in s.cars],
                [e if e[1] == seat else e[1] for e in s.gadget_bottom],
            )
            results = []
            for k in range(6):
                r = s.resample_hidden(seat, np.random.default_rng(k))
                assert (
                    r.cars[seat].gadgets,
                    [c.spent for c in r.cars],
                    [e if e[1] == seat else e[1] for e in r.gadget_bottom],
                ) == own
                assert [len(c.gadgets) for c in r.cars] == [len(c.gadgets) for c in s.cars]
                assert len(r.gadget_top) == len(s.gadget_top)
                assert all(c.gadgets == sorted(c.gadgets) for c in r.cars)
                results.append(_hidden_part(r, seat))
            varied += any(x != results[0] for x in results)
    assert varied > len(states) * n // 2


@pytest.mark.parametrize("n", PLAYERS)
def test_lunatix_resample_depends_only_on_the_observation(n: int) -> None:
    """A state with the hidden gadgets dealt differently (same observation) resamples to
    the same state for the same seed."""
    rng = np.random.default_rng(n)
    for k, s in enumerate(lunatix_states(n, seed=11)[::2]):
        for seat in range(n):
            other = hide_swap(s, seat, rng)
            assert other.observation(seat) == s.observation(seat)
            a = s.resample_hidden(seat, np.random.default_rng(k)).to_dict()
            b = other.resample_hidden(seat, np.random.default_rng(k)).to_dict()
            assert a == b


def test_lunatix_private_decision_keeps_the_gadget_it_needs() -> None:
    """Another seat asked about Armor / Roll Cage, a gray gadget or Fuzzy Dice (with no
    luck chip) still holds such a gadget in every redraw, so its options stay real."""
    g = LunatixGame(num_players=3)
    armor, cage = g.gadget_index[_effect("ARMOR")], g.gadget_index[_effect("ROLL_CAGE")]
    fuzzy = g.gadget_index[_effect("FUZZY_DICE")]
    found = 0
    for n in PLAYERS:
        for seed in range(4):
            for s in lunatix_states(n, seed, every=1):
                d = None if s.decision is None else s.decision.to_dict()
                if d is None or "seat" not in d:
                    continue
                who = d["seat"]
                private = s.observation((who + 1) % n)["decision"]["kind"] == "private"
                if not private or d["kind"] not in ("protect", "gadget", "luck"):
                    continue
                found += 1
                for k in range(5):
                    seat = (who + 1 + k % (n - 1)) % n
                    r = s.resample_hidden(seat, np.random.default_rng(k))
                    hand = r.cars[who].gadgets
                    if d["kind"] == "protect":
                        assert armor in hand or cage in hand
                    elif d["kind"] == "gadget":
                        assert d["gadget"] in hand
                    else:
                        assert fuzzy in hand
                    assert len(r.legal_actions(who)) == len(s.legal_actions(who)) or (
                        d["kind"] == "protect"
                    )
    assert found > 10


def _effect(name: str) -> Any:
    from lunatix_env.rules.config import GadgetEffect

    return GadgetEffect[name]


# ---------------------------------------------------------------------- Lazer Ryderz
def _aims(s: RyderzState) -> list[Any]:
    out = [list(t[1:]) for t in s.tasks if t[0] == "launch"]
    if s.chance is not None and s.chance.x is not None:
        out.append([s.chance.seat, s.chance.x])
    if s.chance is not None and s.chance.spots:
        out += [list(spot) for spot in s.chance.spots]
    return out


def _perturb_aims(s: RyderzState, seat: int, rng: np.random.Generator) -> RyderzState:
    """A copy with the other seats' pending aims moved (what ``seat`` cannot see)."""

    def move(d: dict[str, Any]) -> None:
        d["tasks"] = [
            ["launch", x[1], float(rng.uniform(-1, 1))] if x[0] == "launch" and x[1] != seat else x
            for x in d["tasks"]
        ]
        ch = d["chance"]
        if ch is not None and "x" in ch and ch["seat"] != seat:
            d["chance"] = {**ch, "x": float(rng.uniform(-1, 1))}

    return edited(s, move)


@pytest.mark.parametrize("n", PLAYERS)
def test_ryderz_resample_redraws_other_seats_pending_aims_only(n: int) -> None:
    states = ryderz_states(n, seed=3)
    with_aims = 0
    for k, s in enumerate(states):
        for seat in range(n):
            r = s.resample_hidden(seat, np.random.default_rng(k))
            mine = [a for a in _aims(s) if a[0] == seat]
            assert [a for a in _aims(r) if a[0] == seat] == mine
            theirs, redrawn = ([a for a in _aims(x) if a[0] != seat] for x in (s, r))
            assert [a[0] for a in theirs] == [a[0] for a in redrawn]
            assert all(-1.0 <= a[1] <= 1.0 for a in redrawn)
            if theirs:
                with_aims += 1
                assert redrawn != theirs
            else:  # nothing hidden: a plain clone
                assert r.to_dict() == s.to_dict()
            other = _perturb_aims(s, seat, np.random.default_rng(k + 1))
            assert other.observation(seat) == s.observation(seat)
            assert other.resample_hidden(seat, np.random.default_rng(k)).to_dict() == r.to_dict()
    assert with_aims > 0
