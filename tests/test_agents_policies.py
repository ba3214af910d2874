"""Opponent policies plug into the single-agent view."""

from __future__ import annotations

import numpy as np

import lunatix_env
from agents.policies import frozen_policy, random_policy


class _FirstLegal:
    """A stand-in model with MaskablePPO's predict signature: the first legal action."""

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, obs, action_masks, deterministic=True):  # noqa: ANN001, ANN201
        assert obs is not None and obs.shape == (lunatix_env.envs.make_adapter(
            num_players=2).observation_size(),)
        self.calls += 1
        return int(np.flatnonzero(action_masks)[0]), None


def test_frozen_policy_plays_the_other_seats_with_masks() -> None:
    model = _FirstLegal()
    env = lunatix_env.single_agent_env(num_players=2, opponents=frozen_policy(model))
    obs, info = env.reset(seed=3)
    for _ in range(40):
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            break
    assert model.calls > 0


def test_random_policy_needs_no_observation() -> None:
    mask = np.zeros(10, dtype=np.int8)
    mask[[3, 7]] = 1
    rng = np.random.default_rng(0)
    picks = {random_policy(None, mask, 0, rng) for _ in range(50)}
    assert picks == {3, 7}
