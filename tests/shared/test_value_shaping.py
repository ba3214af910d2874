"""Value shaping (train.value_shaping): each step adds weight * (gamma * phi(s') - phi(s)) with
phi the fitted value of the learner's seat and 0 at the end, so an episode's terms add up to
-weight * phi(s0) when gamma is 1; the rewards are the view's plus the term; configs are
validated."""

from __future__ import annotations

import numpy as np
import pytest

from agents.fitted_value import FittedValue
from tabletop import registry
from tabletop.errors import ConfigError
from train.train import TrainConfig
from train.value_shaping import ValueShaping, shaped


@pytest.mark.parametrize("game", ["lunatix", "ryderz"])
def test_the_terms_telescope_and_add_to_the_views_rewards(game: str) -> None:
    entry = registry.get(game)
    options = {"action_mode": "discrete"} if game == "ryderz" else {}
    plain = entry.single_agent_env(num_players=2, max_rounds=12, **options)
    env = ValueShaping(
        entry.single_agent_env(num_players=2, max_rounds=12, **options), game, 0.7, 1.0
    )
    value = FittedValue(game)
    env.reset(seed=4)
    plain.reset(seed=4)
    view = env.unwrapped
    phi0 = value.value(view.session.state, view.learner)
    rng = np.random.default_rng(0)
    total, steps, moved, done = 0.0, 0, 0, False
    while not done:
        phi = value.value(view.session.state, view.learner)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, term, trunc, info = env.step(action)
        _, base, *_ = plain.step(action)
        done = term or trunc
        after = 0.0 if done else value.value(view.session.state, view.learner)
        assert info["value_shaping"] == pytest.approx(0.7 * (after - phi), abs=1e-12)
        assert reward == pytest.approx(base + info["value_shaping"], abs=1e-12)
        total += info["value_shaping"]
        moved += info["value_shaping"] != 0.0
        steps += 1
    assert steps > 5 and moved > 2  # the potential moves during the game
    assert total == pytest.approx(-0.7 * phi0, abs=1e-9)


def test_no_weight_no_wrapper_and_negative_weights_are_refused() -> None:
    view = registry.get("lunatix").single_agent_env(num_players=2)
    assert shaped(TrainConfig(name="x"), view) is view
    assert isinstance(shaped(TrainConfig(name="x", value_shaping=0.5), view), ValueShaping)
    with pytest.raises(ConfigError, match="value_shaping"):
        TrainConfig(name="x", value_shaping=-1.0)
