"""TorchRL on the parallel envs: ``PettingZooWrapper(use_mask=True)``, a shared masked
categorical policy and critic for the group ``player`` (both seats), a ``Collector`` and
``ClipPPOLoss`` updates, on Lunatix Loop and Lazer Ryderz (the recipe of
docs/integrations.md, "TorchRL").

The wrapper reads our ``{"observation", "action_mask"}`` dicts as they are: it moves the mask
to ``("player", "action_mask")`` (bool, one row per agent) and leaves the observation at
``("player", "observation", "observation")``; ``MaskedCategorical`` samples from it. In the
parallel env every live agent acts at every step, non-deciders with NOOP (their only unmasked
action), so no glue is needed. One seeded reset makes a run reproducible: the collector's
later seedless resets continue that seed's stream (Gymnasium's convention). Every env raises
on an illegal action (``on_illegal="raise"``), so one unmasked action fails the test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from pettingzoo import ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper
from tensordict import TensorDictBase
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss, ValueEstimators

import lunatix_env
import ryderz_env

# ---- recipe (docs/integrations.md, "TorchRL") -------------------------------------------------


def build(
    make_game: Callable[[], ParallelEnv],
    seed: int = 0,
    frames_per_batch: int = 64,
    total_frames: int = 128,
) -> tuple[ClipPPOLoss, Collector]:
    """PPO with one policy and one critic shared by both seats, and its collector."""
    torch.manual_seed(seed)
    game = make_game()
    game.reset(seed=seed)  # the collector's seedless resets continue this seed's stream
    env = PettingZooWrapper(game, use_mask=True)
    # player_0 and player_1 form the group "player": every tensor has an agent dim of 2
    obs_key = ("player", "observation", "observation")  # the Dict observation, less its mask
    n_obs = env.observation_spec[obs_key].shape[-1]
    n_actions = env.full_action_spec["player", "action"].space.n

    logits = TensorDictModule(
        nn.Sequential(nn.Linear(n_obs, 64), nn.Tanh(), nn.Linear(64, n_actions)),
        in_keys=[obs_key],
        out_keys=[("player", "logits")],
    )
    policy = ProbabilisticActor(
        logits,
        in_keys={"logits": ("player", "logits"), "mask": ("player", "action_mask")},
        out_keys=[("player", "action")],
        distribution_class=MaskedCategorical,  # samples only unmasked actions
        return_log_prob=True,
        log_prob_key=("player", "action_log_prob"),
    )
    critic = TensorDictModule(
        nn.Sequential(nn.Linear(n_obs, 64), nn.Tanh(), nn.Linear(64, 1)),
        in_keys=[obs_key],
        out_keys=[("player", "state_value")],
    )

    loss = ClipPPOLoss(policy, critic, normalize_advantage=False)
    loss.set_keys(
        action=("player", "action"),
        sample_log_prob=("player", "action_log_prob"),
        value=("player", "state_value"),
        reward=("player", "reward"),
        done=("player", "done"),
        terminated=("player", "terminated"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
    collector = Collector(env, policy, frames_per_batch=frames_per_batch, total_frames=total_frames)
    return loss, collector


def learn(loss: ClipPPOLoss, collector: Collector) -> list[TensorDictBase]:
    """One PPO gradient step per collected batch (the loss computes GAE); the batches."""
    optim = torch.optim.Adam(loss.parameters(), lr=1e-3)
    batches = []
    for data in collector:
        losses = loss(data)
        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
        optim.zero_grad()
        total.backward()
        optim.step()
        collector.update_policy_weights_()
        batches.append(data)
    collector.shutdown()
    return batches


# ---- the checks -------------------------------------------------------------------------------


class InfoSpy(BaseParallelWrapper):
    """Counts the steps."""

    def __init__(self, env: ParallelEnv) -> None:
        super().__init__(env)
        self.steps = 0

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        out = super().step(actions)
        self.steps += 1
        return out


def parameters(module: nn.Module) -> torch.Tensor:
    """Every parameter of ``module``, flattened into one new tensor."""
    return torch.cat([p.detach().flatten().clone() for p in module.parameters()])


GAMES = {
    # short games (round limits: truncation) so that a few end and restart within the run
    "lunatix": lambda: lunatix_env.parallel_env(num_players=2, max_rounds=5, on_illegal="raise"),
    "ryderz": lambda: ryderz_env.parallel_env(
        num_players=2, action_mode="discrete", max_rounds=20, on_illegal="raise"
    ),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_ppo_self_play_plays_only_legal_actions(game: str) -> None:
    spy = InfoSpy(GAMES[game]())
    loss, collector = build(lambda: spy)
    before = parameters(loss)
    batches = learn(loss, collector)  # an illegal action would raise here

    assert not torch.equal(before, parameters(loss))
    assert len(batches) == 2 and spy.steps == sum(b.numel() for b in batches) == 128
    data = torch.cat(batches)
    assert data["next", "done"].any()  # a game ended and the collector started another
    actions = data["player", "action"]  # (128, 2): both seats at every step
    masks = data["player", "action_mask"]  # (128, 2, A)
    # every action was unmasked in the observation it was chosen from; some were not NOOP
    assert masks.gather(-1, actions.unsqueeze(-1)).all()
    assert (actions != 0).any(dim=0).all()
