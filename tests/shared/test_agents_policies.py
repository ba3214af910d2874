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
        assert obs is not None and obs.shape == (
            lunatix_env.envs.make_adapter(num_players=2).observation_size(),
        )
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


class _ScoresFirstLegalHighest:
    """A stand-in SB3 model over Lazer Ryderz's box mode (no masks): scores that put the
    highest value on the last option, whatever is legal."""

    def __init__(self, size: int) -> None:
        self.size, self.calls = size, 0

    def predict(self, obs, deterministic=True):  # noqa: ANN001, ANN201
        self.calls += 1
        scores = np.linspace(-1.0, 1.0, self.size, dtype=np.float32)
        return scores, None


def test_frozen_unmasked_policy_plays_a_box_mode_ryderz_opponent() -> None:
    import ryderz_env

    env = ryderz_env.single_agent_env(
        num_players=2,
        action_mode="box",
        max_rounds=3,
        opponents=frozen_policy(_ScoresFirstLegalHighest(42), masked=False),
    )
    env.reset(seed=1)
    opponent = env._policies[1 - env.learner]  # noqa: SLF001
    done, steps = False, 0
    while not done:
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        done, steps = term or trunc, steps + 1
    assert opponent != env._random_opponent  # noqa: SLF001 - the frozen policy, not the default
    events = [e["actions"] for e in env.record.events if "actions" in e]
    opp = str(1 - env.learner)
    launches = [a[opp] for a in events if opp in a and isinstance(a[opp], list)]
    assert launches and all(x == 1.0 for _, x in launches)  # x: the last score, 1.0
