"""Tianshou 2 on the AEC envs: one DQN per seat under ``MultiAgentOffPolicyAlgorithm``, a short
``run_training`` (collector steps and gradient updates) on Lunatix Loop and Lazer Ryderz (the
recipe of docs/integrations.md, "Tianshou").

``tianshou.env.PettingZooEnv`` reads our ``{"observation", "action_mask"}`` dicts as they are:
it passes ``obs.mask`` to the policy, and ``DiscreteQLearningPolicy`` masks both its greedy
action and its epsilon-greedy exploration with it, so no glue is needed. One seeded reset
makes a run reproducible: the collector's later seedless resets continue that seed's stream
(Gymnasium's convention). Every env raises on an illegal action (``on_illegal="raise"``), so
one unmasked action fails the test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.data.stats import InfoStats
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import lunatix_env
import ryderz_env

# ---- recipe (docs/integrations.md, "Tianshou") ------------------------------------------------


def build(
    make_game: Callable[[], AECEnv], seed: int = 0
) -> tuple[MultiAgentOffPolicyAlgorithm, Collector]:
    """Self-play DQN, one network per seat, and the collector that feeds its replay buffer."""
    torch.manual_seed(seed)
    np.random.seed(seed)  # Tianshou's epsilon-greedy draws from numpy's global generator

    def make_env() -> PettingZooEnv:
        game = make_game()
        game.reset(seed=seed)  # the collector's seedless resets continue this seed's stream
        return PettingZooEnv(game)

    env = make_env()
    obs_shape = env.observation_space["observation"].shape  # a Dict: observation, action_mask
    n_actions = int(env.action_space.n)

    def make_dqn() -> DQN:
        net = Net(state_shape=obs_shape, action_shape=n_actions, hidden_sizes=[64])
        policy = DiscreteQLearningPolicy(
            model=net, action_space=env.action_space, eps_training=0.2
        )  # masked greedy and masked random
        return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99)

    # one algorithm per agent, in the order of env.agents (player_0, player_1)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[make_dqn(), make_dqn()], env=env)
    collector = Collector[CollectStats](
        algorithm, DummyVectorEnv([make_env]), VectorReplayBuffer(1000, 1), exploration_noise=True
    )
    collector.reset()
    return algorithm, collector


def learn(
    algorithm: MultiAgentOffPolicyAlgorithm, collector: Collector, steps: int = 100
) -> InfoStats:
    """Train for ``steps`` env steps (one agent's move each), 2 gradient steps per 20."""
    return algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=steps,
            collection_step_num_env_steps=20,
            batch_size=16,
            update_step_num_gradient_steps_per_sample=0.1,
            verbose=False,
            show_progress=False,
        )
    )


# ---- the checks -------------------------------------------------------------------------------


class InfoSpy(BaseWrapper):
    """Counts the actions played (one per env step)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self.actions = 0

    def step(self, action: Any) -> None:
        super().step(action)
        if action is not None:
            self.actions += 1


def parameters(algorithm: torch.nn.Module) -> torch.Tensor:
    """Every parameter of ``algorithm``, flattened into one new tensor."""
    return torch.cat([p.detach().flatten().clone() for p in algorithm.parameters()])


GAMES = {
    # short games (round limits: truncation) so that a few end and restart within the run
    "lunatix": lambda: lunatix_env.env(num_players=2, max_rounds=5, on_illegal="raise"),
    "ryderz": lambda: ryderz_env.env(
        num_players=2, action_mode="discrete", max_rounds=20, on_illegal="raise"
    ),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_dqn_self_play_plays_only_legal_actions(game: str) -> None:
    spies: list[InfoSpy] = []

    def make_game() -> AECEnv:
        spies.append(InfoSpy(GAMES[game]()))
        return spies[-1]

    algorithm, collector = build(make_game)
    before = parameters(algorithm)
    result = learn(algorithm, collector)  # an illegal action would raise here

    assert result.train_step == 100 and result.update_step > 0
    assert not torch.equal(before, parameters(algorithm))
    assert len(spies) == 2
    trainer_env = spies[1]  # spies[0] is the env build() reads the spaces from
    assert trainer_env.actions == 100 and result.train_episode >= 1
    buffer = collector.buffer
    assert len(buffer) == 100
    # every recorded action was unmasked in the observation it was chosen from
    assert buffer.obs.mask[np.arange(len(buffer)), buffer.act[: len(buffer)]].all()
    assert set(buffer.obs.agent_id[: len(buffer)]) == {"player_0", "player_1"}
