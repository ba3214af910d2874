"""Imitating the advice at chosen tables (train.advice_imitation): the league tells each
member's kind and every step's info carries the game's opponent kinds; the callback keeps
only the positions played at the chosen tables and fitting them moves the greedy move to the
advice; configs are validated; a tiny advised self-play run imitates its random tables."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from advised import TINY_ADVISED, advised_positions
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger

from agents.torch_layers import AdvisedPolicy, advice_kl
from tabletop.errors import ConfigError
from train import advice_imitation
from train.advice_imitation import (
    AdviceImitation,
    AdviceImitationConfig,
    at_tables,
    imitation_loss,
)
from train.export import export_onnx
from train.league import League, LeagueConfig, LeagueOpponents, LeagueResults
from train.selfplay import make_league_env
from train.train import TrainConfig, main, make_view, policy_kwargs, policy_meta

ADVISED = TrainConfig(name="a", game="lunatix", num_players=2, advice="heuristic")
MCTS = "mcts:sims=8"


def _league(tmp_path: Path, mixture: dict[str, float], **kw: Any) -> League:
    cfg = LeagueConfig(mixture=mixture, **kw)
    return League(cfg, tmp_path / "league", policy_meta(ADVISED))


def _model(view: Any, advice_gain: float = 2.0) -> MaskablePPO:
    """An untrained small advised MaskablePPO on ``view`` (``advice_gain`` 0: the policy
    starts blind to the advice)."""
    ppo = replace(ADVISED.ppo, shared_trunk=16, net_arch=(16,))
    kwargs = {**policy_kwargs(ppo, advice=int(view.action_space.n)), "advice_gain": advice_gain}
    model = MaskablePPO(
        AdvisedPolicy, view, n_steps=64, batch_size=64, seed=0, device="cpu", policy_kwargs=kwargs
    )
    model.set_logger(Logger(None, []))  # no output: configure() would make a /tmp folder
    return model


def test_the_league_tells_each_members_kind(tmp_path: Path) -> None:
    league = _league(
        tmp_path, {"latest": 0.4, "heuristic": 0.2, "random": 0.2, "mcts": 0.2}, mcts=MCTS
    )
    view = make_view(ADVISED, num_players=2)
    model = _model(view)
    league.add_snapshot(lambda path: export_onnx(model, path), timesteps=0)
    kinds = {m: league.kind(m) for m in league.members()}
    assert kinds == {
        "random": "random",
        "heuristic": "heuristic",
        MCTS: "mcts",
        "snap-0000": "snapshot",
    }


def test_every_step_carries_the_games_opponent_kinds(tmp_path: Path) -> None:
    cfg = replace(
        ADVISED, num_players=3, league=LeagueConfig(mixture={"heuristic": 1, "random": 1})
    )
    league = League(cfg.league, tmp_path / "league", policy_meta(cfg))
    env = make_league_env(cfg, 0, league, None, 0, None)()
    results = env.env
    assert isinstance(results, LeagueResults)
    opponents: LeagueOpponents = results.opponents
    rng = np.random.default_rng(1)
    env.reset(seed=5)
    seen, games = set(), 0
    while games < 6:
        kinds = list(opponents.kinds)
        assert kinds == [league.kind(m) for m in opponents.current] and len(kinds) == 2
        mask = results.action_masks()
        _, _, done, cut, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert info["opponent_kinds"] == kinds  # the game the action was played in
        seen.add(tuple(kinds))
        if done or cut:
            assert info["opponents"] == opponents.current
            games += 1
            env.reset()
    assert len(seen) > 1  # the draw changed the table between games


def test_a_table_matches_when_every_opponent_is_of_a_chosen_kind() -> None:
    assert at_tables(["random", "random", "random"], ("random",))
    assert not at_tables(["random", "heuristic", "random"], ("random",))
    assert at_tables(["random", "snapshot"], ("random", "snapshot"))
    assert not at_tables([], ("random",))


def _step(
    cb: AdviceImitation, obs: torch.Tensor, masks: np.ndarray, kinds: list[list[str]]
) -> None:
    """One vec-env step as MaskablePPO's rollout shows it to its callbacks."""
    cb.locals = {
        "obs_tensor": obs,
        "action_masks": masks,
        "infos": [{"opponent_kinds": k} for k in kinds],
    }
    cb.on_step()


def test_only_positions_at_the_chosen_tables_are_kept() -> None:
    view = make_view(ADVISED, num_players=2)
    obs, masks = advised_positions(view, 4, advised_choices_only=True)
    cb = AdviceImitation(AdviceImitationConfig(tables=("random", "snapshot")))
    cb.init_callback(_model(view))
    kinds = [["random", "random"], ["heuristic", "random"], ["snapshot", "random"], []]
    _step(cb, obs, masks, kinds)
    assert len(cb._obs) == 2
    assert np.array_equal(cb._obs[0], obs[0].numpy()) and np.array_equal(cb._obs[1], obs[2].numpy())
    assert np.array_equal(cb._masks[1], masks[2])


def _setup(count: int, advice_gain: float) -> tuple[MaskablePPO, torch.Tensor, np.ndarray, int]:
    """A small advised model (``advice_gain`` as given), ``count`` of its view's positions
    with a choice and an advised move, their masks, and the number of actions."""
    view = make_view(ADVISED, num_players=2)
    obs, masks = advised_positions(view, count, advised_choices_only=True)
    return _model(view, advice_gain), obs, masks, int(view.action_space.n)


def test_fitting_the_kept_positions_moves_the_policy_to_the_advice() -> None:
    model, obs, masks, n = _setup(96, advice_gain=0.0)
    policy = model.policy

    def agreement_and_kl() -> tuple[float, float]:
        with torch.no_grad():
            logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
        agree = (logits.argmax(dim=1) == obs[:, -n:].argmax(dim=1)).float().mean()
        return float(agree), float(advice_kl(logits, obs[:, -n:]).mean())

    agree0, kl0 = agreement_and_kl()
    assert agree0 < 0.8  # blind to the advice, the untrained policy plays its own moves
    for group in policy.optimizer.param_groups:  # PPO's optimizer takes the fit's steps
        group["lr"] = 0.01
    cfg = AdviceImitationConfig(tables=("random",), epochs=30, batch_size=32)
    cb = AdviceImitation(cfg)
    cb.init_callback(model)
    _step(cb, obs, masks, [["random"]] * len(obs))
    cb.on_rollout_start()  # after PPO's update: the fit
    agree1, kl1 = agreement_and_kl()
    assert kl1 < 0.5 * kl0 and agree1 > 0.95
    assert cb._obs == [] and cb.positions == len(obs)
    # positions at other tables leave the policy alone
    before = [p.detach().clone() for p in policy.parameters()]
    _step(cb, obs, masks, [["heuristic"]] * len(obs))
    cb.on_rollout_start()
    assert all(torch.equal(a, b) for a, b in zip(before, policy.parameters(), strict=True))


def test_below_fits_only_the_positions_not_yet_played_as_advised() -> None:
    policy_model, obs, masks, n = _setup(64, advice_gain=2.0)
    policy = policy_model.policy
    m = torch.as_tensor(masks)
    with torch.no_grad():
        logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
        p = torch.exp(-advice_kl(logits, obs[:, -n:]))
        every = imitation_loss(policy, obs, m)
        half = imitation_loss(policy, obs, m, below=0.5)
    below = p < 0.5
    assert 0 < int(below.sum()) < len(p)  # some positions on each side
    assert torch.isclose(every, -torch.log(p).mean())
    assert torch.isclose(half, -torch.log(p[below]).sum() / len(p))
    # the positions already played as advised give no gradient, and the fit takes no step
    # on them, though PPO's optimizer has momentum from fitting the others
    loss = imitation_loss(policy, obs[~below], m[~below], below=0.5)
    assert float(loss) == 0.0
    cb = AdviceImitation(AdviceImitationConfig(below=0.5, epochs=1, batch_size=1024))
    cb.init_callback(policy_model)
    cb.fit(obs[below].numpy(), masks[below.numpy()])
    with torch.no_grad():
        logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
        played = torch.exp(-advice_kl(logits, obs[:, -n:])) >= 0.5
    assert played.any()
    before = [q.detach().clone() for q in policy.parameters()]
    cb.fit(obs[played].numpy(), masks[played.numpy()])
    assert all(torch.equal(a, b) for a, b in zip(before, policy.parameters(), strict=True))


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"tables": []}, "non-empty list"),
        ({"tables": "random"}, "non-empty list"),
        ({"tables": ["random", "self"]}, "unknown kinds"),
        ({"weight": 0.0}, "weight must be a finite number > 0"),
        ({"weight": float("nan")}, "weight must be a finite number > 0"),
        ({"weight": True}, "weight must be a finite number > 0"),
        ({"weight": "strong"}, "weight must be a finite number > 0"),
        ({"below": 0.0}, "a probability in"),
        ({"below": 1.5}, "a probability in"),
        ({"below": True}, "a probability in"),
        ({"epochs": 0}, "epochs must be an integer >= 1"),
        ({"batch_size": 2.5}, "batch_size must be an integer >= 1"),
        ({"batch_size": True}, "batch_size must be an integer >= 1"),
    ],
)
def test_bad_imitation_configs_are_refused(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AdviceImitationConfig(**kw)


def test_imitation_needs_advice_and_a_league() -> None:
    imitation = AdviceImitationConfig()
    with pytest.raises(ConfigError, match="needs advice"):
        TrainConfig(name="x", league=LeagueConfig(), advice_imitation=imitation)
    with pytest.raises(ConfigError, match="and a league"):
        TrainConfig(name="x", advice="heuristic", advice_imitation=imitation)
    cfg = TrainConfig(
        name="x", advice="heuristic", league=LeagueConfig(), advice_imitation=imitation
    )
    assert cfg.advice_imitation is not None and cfg.advice_imitation.tables == ("random",)


TINY = (
    TINY_ADVISED.replace("tiny_advised", "tiny_imitation")
    .replace("total_timesteps: 512", "total_timesteps: 768")
    .replace("heuristic: 0.5}", "random: 0.5}")
    .replace("eval_every: 1", "eval_every: 0")
    + "advice_imitation: {tables: [random], epochs: 1, batch_size: 64}\n"
)


def test_a_tiny_run_imitates_the_advice_at_its_random_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fits: list[dict[str, float]] = []
    original = advice_imitation.AdviceImitation.fit

    def recorded(self: AdviceImitation, obs: np.ndarray, masks: np.ndarray) -> dict[str, float]:
        out = original(self, obs, masks)
        fits.append(out)
        return out

    monkeypatch.setattr(advice_imitation.AdviceImitation, "fit", recorded)
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    main(["--config", str(config), "--runs-dir", str(tmp_path / "runs")])
    # 3 rollouts of 256 steps: the first two are fitted when the next starts
    assert len(fits) == 2
    assert all(0 < f["positions"] <= 256 and np.isfinite(f["loss"]) for f in fits)
    assert (tmp_path / "runs" / "tiny_imitation" / "policy.onnx").is_file()
