"""Gymnasium's own vector envs (``gymnasium.make_vec``, sync and async) on the single-agent
views, with a CleanRL-style masked policy-gradient update: the recipe of
docs/integrations.md ("Gymnasium vector envs")."""

from __future__ import annotations

import gymnasium
import pytest
import torch

import lunatix_env  # noqa: F401  registers LunatixLoop-v0
import ryderz_env  # noqa: F401  registers LazerRyderz-v0

CASES = [
    ("LunatixLoop-v0", {"num_players": 2}, "sync"),
    ("lunatix_env:LunatixLoop-v0", {"num_players": 2}, "async"),
    ("LazerRyderz-v0", {"num_players": 2, "action_mode": "discrete"}, "async"),
    ("ryderz_env:LazerRyderz-v0", {"num_players": 2, "action_mode": "discrete"}, "sync"),
    # spawned workers import nothing of the parent's: the module-qualified id does it
    ("ryderz_env:LazerRyderz-v0", {"num_players": 2, "action_mode": "discrete"}, "spawn"),
]


def train_masked_policy_gradient(
    env_id: str, options: dict, mode: str, steps: int = 48
) -> tuple[int, float]:
    """The recipe: a linear softmax policy over ``make_vec``, actions sampled among the
    legal ones (``info["action_mask"]``), one REINFORCE step (with an entropy bonus) on the
    collected rewards. Returns (env steps, size of the parameter change)."""
    torch.manual_seed(0)
    vector_kwargs = {"context": "spawn"} if mode == "spawn" else {}
    envs = gymnasium.make_vec(
        env_id,
        num_envs=2,
        vector_kwargs=vector_kwargs,
        vectorization_mode="async" if mode == "spawn" else mode,
        **options,
    )
    n_obs = envs.single_observation_space.shape[0]
    n_act = envs.single_action_space.n
    policy = torch.nn.Linear(n_obs, n_act)
    before = policy.weight.detach().clone()
    optim = torch.optim.Adam(policy.parameters(), lr=1e-2)
    obs, info = envs.reset(seed=0)
    logps, rewards, entropies = [], [], []
    for _ in range(steps):
        logits = policy(torch.as_tensor(obs))
        mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
        dist = torch.distributions.Categorical(logits=logits.masked_fill(~mask, -1e9))
        action = dist.sample()
        obs, reward, term, trunc, info = envs.step(action.numpy())
        logps.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        rewards.append(torch.as_tensor(reward, dtype=torch.float32))
    returns = torch.stack(rewards).flip(0).cumsum(0).flip(0)  # undiscounted reward-to-go
    advantage = returns - returns.mean()
    loss = -(torch.stack(logps) * advantage).mean() - 0.01 * torch.stack(entropies).mean()
    optim.zero_grad()
    loss.backward()
    optim.step()
    envs.close()
    return steps * 2, float((policy.weight.detach() - before).abs().sum())


@pytest.mark.parametrize(
    ("env_id", "options", "mode"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES]
)
def test_make_vec_trains_with_masks(env_id: str, options: dict, mode: str) -> None:
    # on_illegal defaults to "raise": one unmasked action would fail the run
    steps, change = train_masked_policy_gradient(env_id, options, mode)
    assert steps == 96 and change > 0
