"""The fitted leaf value (``agents.fitted_value``, ``mcts:eval=fitted``): the Newton fit
recovers known weights, model files are checked field by field, the shipped Lunatix Loop
models load and give zero-sum, bounded, observation-only values, and the spec builds them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from random_play import random_state

from agents import fitted_value as fv
from agents.specs import BotSpecError, make_bot
from tabletop import registry
from tabletop.errors import ConfigError, InvalidStateError

#: the (game, players) of the shipped models
SHIPPED = (("lunatix", 2), ("lunatix", 4), ("ryderz", 2))


def _synthetic_rows(theta: np.ndarray, beta: np.ndarray, rows: int, seed: int) -> fv.Rows:
    """Rows drawn from a known conditional logit over 3 seats (one sometimes out) and
    nobody."""
    rng = np.random.default_rng(seed)
    n, k, m = 3, len(theta), len(beta)
    x = rng.normal(size=(rows, n, k))
    c = np.concatenate([np.ones((rows, 1)), rng.normal(size=(rows, m - 1))], axis=1)
    alive = np.ones((rows, n), dtype=bool)
    alive[rng.random(rows) < 0.3, 2] = False
    x[~alive] = 0.0
    s = np.concatenate([np.where(alive, x @ theta, -np.inf), (c @ beta)[:, None]], axis=1)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    winner = np.array([rng.choice(n + 1, p=row) for row in p])
    return fv.Rows(alive, x, c, winner, np.arange(rows))


def test_newton_fit_recovers_the_weights_of_a_known_logit() -> None:
    theta, beta = np.array([-1.5, 0.7]), np.array([-1.0, 0.4])
    rows = _synthetic_rows(theta, beta, 20_000, seed=3)
    w = fv.fit_logit(rows)
    assert np.allclose(w, np.concatenate([theta, beta]), atol=0.08), w
    # the fit is the maximum: the true weights and a perturbation both lose more
    assert fv.log_loss(rows, w) <= fv.log_loss(rows, np.concatenate([theta, beta]))
    assert fv.log_loss(rows, w) < fv.log_loss(rows, w + 0.05)


def test_a_feature_that_never_varies_keeps_the_fit_finite_and_the_same() -> None:
    """A feature equal for every live seat only shifts the seats against "nobody", as the
    bias does: the ridge keeps the Newton system solvable and the fit predicts the same."""
    rows = _synthetic_rows(np.array([-1.0, 0.5]), np.array([-2.0, 0.0]), 4000, seed=1)
    without = fv.fit_logit(rows)
    rows.x = np.concatenate([rows.x, rows.alive[:, :, None].astype(float)], axis=2)
    w = fv.fit_logit(rows)
    assert np.all(np.isfinite(w)) and w[2] != 0.0
    assert fv.log_loss(rows, w) == pytest.approx(
        fv.log_loss(rows, np.insert(without, 2, 0.0)), abs=1e-6
    )


def _shipped_json(players: int = 2) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(fv.shipped_path("lunatix", players).read_text())
    return data


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(extra=1), "unknown keys ['extra']"),
        (lambda d: d.pop("fitted"), "missing keys ['fitted']"),
        (lambda d: d.update(game="chess"), "game 'chess'"),
        (lambda d: d.update(players=True), "players must be an int"),
        (lambda d: d.update(players=1), "players must be an int"),
        (lambda d: d.update(seat_features="rounds"), "seat_features must be a list"),
        (lambda d: d["seat_weights"].pop(), "seat_weights must be 5 finite numbers"),
        (lambda d: d["none_weights"].__setitem__(0, float("nan")), "none_weights must be"),
        (lambda d: d["none_weights"].__setitem__(0, "1"), "none_weights must be"),
        (lambda d: d["seat_weights"].__setitem__(0, True), "seat_weights must be"),
        (lambda d: d.update(fitted=[]), "fitted must be an object"),
    ],
)
def test_a_model_file_is_checked_field_by_field(change: Any, words: str) -> None:
    data = _shipped_json()
    change(data)
    with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")):
        fv.ValueModel.from_json(data, "test")


def test_shipped_models_load_and_name_the_player_counts_they_cover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for game, players in SHIPPED:
        model = fv.load_model(game, players)
        assert (model.game, model.players) == (game, players)
        # a car with more rounds still to go is less likely to win; a rider with more Prizms
        # more likely
        if game == "lunatix":
            assert model.seat_weights[model.seat_features.index("rounds_scaled")] < 0
        else:
            assert model.seat_weights[model.seat_features.index("prizms")] > 0
        assert model.fitted["log_loss_held_out_fifth"] < model.fitted["log_loss_uniform"]
    with pytest.raises(InvalidStateError, match=r"no fitted value for lunatix with 3 players"):
        fv.load_model("lunatix", 3)
    entry = registry.get("ryderz")
    monkeypatch.setitem(registry.GAMES, "ryderz", dataclasses.replace(entry, value_features=""))
    with pytest.raises(InvalidStateError, match="ryderz has no features"):
        fv.load_model("ryderz", 2)
    with pytest.raises(BotSpecError, match="ryderz has no fitted value"):
        make_bot("mcts:sims=12,eval=fitted", "ryderz", seed=0)
    monkeypatch.undo()
    data = _shipped_json()
    data["seat_features"][0] = "rounds"
    bad = tmp_path / "lunatix_2p.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="refit it"):
        fv.load_model("lunatix", 2, bad)
    with pytest.raises(ConfigError, match="no such value model file"):
        fv.load_model("lunatix", 2, tmp_path / "missing.json")
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not a readable JSON file"):
        fv.load_model("lunatix", 2, bad)
    with pytest.raises(ConfigError, match="wanted lunatix with 4"):
        fv.load_model("lunatix", 4, fv.shipped_path("lunatix", 2))


@pytest.mark.parametrize(("name", "players"), SHIPPED)
def test_fitted_values_are_bounded_zero_sum_and_read_the_observation_only(
    name: str, players: int
) -> None:
    game = registry.get(name).game(num_players=players)
    ev = fv.FittedValue(name)
    info = game.info
    checked = 0
    for seed in range(12):
        state, rng = random_state(game, seed, (40 + 25 * seed) // (4 if name == "ryderz" else 1))
        if state.is_terminal():
            assert [ev.value(state, s) for s in range(players)] == list(state.returns())
            continue
        values = [ev.value(state, s) for s in range(players)]
        assert all(info.min_utility - 1e-9 <= v <= info.max_utility + 1e-9 for v in values)
        if players == 2:
            assert values[0] == pytest.approx(-values[1], abs=1e-12)
        for seat in range(players):
            # what the seat cannot see (others' gadgets, the deck) does not move its value
            other = state.resample_hidden(seat, np.random.default_rng(seed))
            assert ev.value(other, seat) == values[seat]
        checked += 1
    assert checked >= 6


@pytest.mark.parametrize(("name", "players"), (*SHIPPED, ("lunatix", 3), ("ryderz", 3)))
def test_feature_functions_that_say_public_give_every_seat_the_same_features(
    name: str, players: int
) -> None:
    """Both games' feature functions declare ``public``; whatever seat asks, they give the
    same features, over positions of random games (what ``values`` relies on)."""
    game = registry.get(name).game(num_players=players)
    feats = fv.feature_function(name)
    assert getattr(feats, "public", False)
    for seed in range(6):
        state, _ = random_state(game, seed, (30 + 20 * seed) // (4 if name == "ryderz" else 1))
        first = feats(state, 0)
        for seat in range(1, players):
            for a, b in zip(first, feats(state, seat), strict=True):
                assert np.array_equal(a, b)


@pytest.mark.parametrize(("name", "players"), SHIPPED)
def test_values_of_every_seat_at_once_are_each_seats_value(name: str, players: int) -> None:
    """``values(state)`` (features computed once) gives exactly ``value(state, i)`` of every
    seat, terminal positions included."""
    game = registry.get(name).game(num_players=players)
    ev = fv.FittedValue(name)
    checked = 0
    for seed in range(10):
        state, _ = random_state(game, seed, (30 + 20 * seed) // (4 if name == "ryderz" else 1))
        assert ev.values(state) == [ev.value(state, s) for s in range(players)]
        checked += not state.is_terminal()
    assert checked >= 5


def test_the_leader_is_valued_above_the_car_behind_it() -> None:
    game = registry.get("lunatix").game(num_players=2)
    model = fv.load_model("lunatix", 2)
    feats = fv.feature_function("lunatix")
    state, _ = random_state(game, 5, 300)
    assert not state.is_terminal()
    alive, x, c = feats(state, 0)
    alive[:] = True  # two live cars, the same in every feature
    x[0] = x[1] = (3.0, 0.0, 0.0, 2.0, 12.0)
    same, _ = model.probabilities((alive, x, c))
    assert same[0] == pytest.approx(same[1])
    x[1, 0] += 0.5  # seat 1 needs more rounds
    p, _ = model.probabilities((alive, x, c))
    assert p[0] > same[0] > p[1]


def test_collection_is_the_same_whatever_the_processes() -> None:
    one = fv.collect("lunatix", 2, games=3, seed=9, stride=16, processes=1)
    two = fv.collect("lunatix", 2, games=3, seed=9, stride=16, processes=2)
    for a, b in zip(vars(one).values(), vars(two).values(), strict=True):
        assert np.array_equal(a, b)
    assert set(one.game.tolist()) == {0, 1, 2} and one.x.shape[1:] == (2, 5)
    ryderz = fv.collect("ryderz", 2, games=2, seed=9, stride=4)
    assert set(ryderz.game.tolist()) == {0, 1} and ryderz.x.shape[1:] == (2, 3)


def test_the_command_writes_a_model_that_loads(tmp_path: Path) -> None:
    out = tmp_path / "lunatix_2p.json"
    assert fv.main(["--game", "lunatix", "--players", "2", "--games", "5", "--stride", "8",
                    "--out", str(out)]) == 0  # fmt: skip
    model = fv.load_model("lunatix", 2, out)
    assert model.fitted["games"] == 5 and model.fitted["rows"] > 0
    with pytest.raises(SystemExit):
        fv.main(["--game", "lunatix", "--players", "2", "--games", "2"])


def test_eval_fitted_spec_builds_a_search_on_the_fitted_value() -> None:
    bot = make_bot("mcts:sims=12,depth=2,eval=fitted", "lunatix", seed=0)
    assert isinstance(bot.evaluator, fv.FittedValue)  # type: ignore[attr-defined]
    game = registry.get("lunatix").game(num_players=2)
    state, _ = random_state(game, 2, 60)
    seat = state.current_players()[0]
    assert state.is_legal(seat, bot.act(state, seat))
    ryderz = registry.get("ryderz").game(num_players=2)
    state, rng = random_state(ryderz, 2, 12)
    while state.is_chance_node():
        state.apply_chance(state.sample_chance(rng))
    seat = state.current_players()[0]
    bot = make_bot("mcts:sims=6,depth=0,eval=fitted", "ryderz", seed=0)
    assert state.is_legal(seat, bot.act(state, seat))
