"""Value shaping (train.value_shaping): each step adds weight * (gamma * phi(s') - phi(s)) with
phi the fitted value of the learner's seat and 0 at the end, so an episode's terms add up to
-weight * phi(s0) when gamma is 1; the rewards are the view's plus the term; configs are
validated; the warm start's value targets are the shaped returns."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from agents.fitted_value import FittedValue
from tabletop import registry
from tabletop.errors import ConfigError
from train.train import TrainConfig
from train.value_shaping import ValueShaping, shaped
from train.warmstart import WarmStartConfig, collect


@pytest.mark.parametrize(("game", "gamma"), [("lunatix", 1.0), ("ryderz", 1.0), ("lunatix", 0.9)])
def test_the_terms_telescope_and_add_to_the_views_rewards(game: str, gamma: float) -> None:
    entry = registry.get(game)
    options = {"action_mode": "discrete"} if game == "ryderz" else {}
    plain = entry.single_agent_env(num_players=2, max_rounds=12, **options)
    env = ValueShaping(
        entry.single_agent_env(num_players=2, max_rounds=12, **options), game, 0.7, gamma
    )
    value = FittedValue(game)
    env.reset(seed=4)
    plain.reset(seed=4)
    view = env.unwrapped
    phi0 = value.value(view.session.state, view.learner)
    rng = np.random.default_rng(0)
    total, discounted, steps, moved, done = 0.0, 0.0, 0, 0, False
    while not done:
        phi = value.value(view.session.state, view.learner)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, term, trunc, info = env.step(action)
        _, base, *_ = plain.step(action)
        done = term or trunc
        after = 0.0 if done else value.value(view.session.state, view.learner)
        assert info["value_shaping"] == pytest.approx(0.7 * (gamma * after - phi), abs=1e-12)
        assert reward == pytest.approx(base + info["value_shaping"], abs=1e-12)
        total += info["value_shaping"]
        discounted += gamma**steps * info["value_shaping"]
        moved += info["value_shaping"] != 0.0
        steps += 1
    assert steps > 5 and moved > 2  # the potential moves during the game
    # the discounted sum telescopes to -weight * phi(s0) whatever the play
    assert discounted == pytest.approx(-0.7 * phi0, abs=1e-9)
    if gamma == 1.0:
        assert total == discounted


def test_no_weight_no_wrapper_and_bad_weights_are_refused() -> None:
    view = registry.get("lunatix").single_agent_env(num_players=2)
    assert shaped(TrainConfig(name="x"), view) is view
    assert isinstance(shaped(TrainConfig(name="x", value_shaping=0.5), view), ValueShaping)
    for weight in (-1.0, float("inf"), float("nan"), "1", True):
        with pytest.raises(ConfigError, match="value_shaping"):
            TrainConfig(name="x", value_shaping=weight)
    # a player count without a fitted value model is refused when the config is read
    with pytest.raises(ConfigError, match="no fitted value"):
        TrainConfig(name="x", num_players=3, value_shaping=1.0)


def test_the_warm_start_fits_the_value_head_to_the_shaped_returns(monkeypatch) -> None:
    """With value shaping, the teacher games' returns are PPO's: G'_t = G_t - w * phi(s_t)."""
    ws = WarmStartConfig(games=2, epochs=1, opponents=("random",))
    plain_cfg = TrainConfig(
        name="w", game="lunatix", num_players=2, env_options={"max_rounds": 8}, warm_start=ws
    )
    shaped_cfg = replace(plain_cfg, value_shaping=0.5)
    potentials: list[float] = []
    original = ValueShaping._potential

    def recorded(self) -> float:
        phi = original(self)
        potentials.append(phi)
        return phi

    monkeypatch.setattr(ValueShaping, "_potential", recorded)
    plain = collect(plain_cfg, ws)
    shaped_demos = collect(shaped_cfg, ws)
    assert np.array_equal(plain.actions, shaped_demos.actions)  # the same teacher games
    assert len(potentials) == len(plain.actions) and any(p != 0.0 for p in potentials)
    np.testing.assert_allclose(
        shaped_demos.returns - plain.returns, -0.5 * np.asarray(potentials), atol=1e-5
    )
