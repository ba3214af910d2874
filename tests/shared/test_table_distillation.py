"""Table distillation (train.table_distillation): the loss is the cross-entropy of the
advised moves plus KL(kept || fitted) over the legal moves; a distillation moves a policy
blind to the advice onto it at the advice tables and keeps its moves at the keep tables;
it is seeded (the same weights twice) and plays its games alike in 1 or 2 processes;
configs are validated; a tiny advised self-play run distils and reports it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from advised import TINY_ADVISED
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger

from agents.torch_layers import AdvisedPolicy
from tabletop.errors import ConfigError
from train.table_distillation import (
    TableDistillationConfig,
    distillation_loss,
    fit,
    masked_log_probs,
    report_lines,
    table_distillation,
)
from train.train import TrainConfig, main, make_view, policy_kwargs
from train.warmstart import WarmStartConfig, collect_games

DISTIL = TableDistillationConfig(
    advice_at=("random",),
    keep_at=("heuristic",),
    games=3,
    rounds=2,
    epochs=20,
    batch_size=64,
    learning_rate=0.01,
)
CFG = TrainConfig(
    name="d", game="lunatix", num_players=2, advice="heuristic", table_distillation=DISTIL
)


def _model(seed: int = 0) -> MaskablePPO:
    """An untrained small advised MaskablePPO blind to the advice (its moves its own)."""
    view = make_view(CFG, num_players=2)
    ppo = replace(CFG.ppo, shared_trunk=16, net_arch=(16,))
    kwargs = {**policy_kwargs(ppo, advice=int(view.action_space.n)), "advice_gain": 0.0}
    model = MaskablePPO(
        AdvisedPolicy,
        view,
        n_steps=64,
        batch_size=64,
        seed=seed,
        device="cpu",
        policy_kwargs=kwargs,
    )
    model.set_logger(Logger(None, []))  # no output: configure() would make a /tmp folder
    return model


def test_the_loss_is_the_advices_cross_entropy_and_the_kl_from_the_kept_policy() -> None:
    legal = torch.tensor([[True, True, False], [True, True, True]])
    p = torch.tensor([[0.7, 0.3, 0.0], [0.2, 0.5, 0.3]])
    q = torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.5, 0.3]])
    log_p = torch.log(p.clamp_min(1e-30)).masked_fill(~legal, -1e8)
    log_q = torch.log(q.clamp_min(1e-30)).masked_fill(~legal, -1e8)
    advice = torch.tensor([0, 2])
    ce, kl = distillation_loss(log_p, advice, log_q, log_p, legal)
    assert ce.item() == pytest.approx(-(np.log(0.7) + np.log(0.3)) / 2, rel=1e-6)
    # the second row is the same distribution: KL 0; the first 0.5 ln(0.5/0.7) + 0.5 ln(0.5/0.3)
    expected = (0.5 * np.log(0.5 / 0.7) + 0.5 * np.log(0.5 / 0.3)) / 2
    assert kl.item() == pytest.approx(expected, rel=1e-6)
    _, same = distillation_loss(log_p, advice, log_p, log_p, legal)
    assert same.item() == pytest.approx(0.0, abs=1e-9)


def test_distillation_plays_the_advice_at_random_tables_and_keeps_itself_elsewhere() -> None:
    model = _model()
    figures = table_distillation(model, CFG)
    rounds = figures["rounds"]
    assert len(rounds) == 2
    first, last = rounds
    assert first["games"] == {"random": 3, "heuristic": 3}
    assert 0 < first["advice_positions"] < last["advice_positions"]  # DAgger adds positions
    assert 0 < first["keep_positions"] < last["keep_positions"]
    # blind to the advice, the untrained policy rarely plays it; after the fit it does
    assert first["advice_agreement_before"] < 0.6
    assert last["advice_agreement_after"] > 0.9
    assert 0.0 <= last["kept_greedy_after"] <= 1.0
    assert np.isfinite(last["cross_entropy"]) and np.isfinite(last["kl"])
    assert any("round 2" in line for line in report_lines(figures))


def test_the_fit_pulls_the_keep_positions_to_the_kept_policy() -> None:
    """At the keep tables the fit's target is the kept policy: fitted towards another
    network there, the policy comes near it (the advice elsewhere as ever)."""
    model, other = _model(0), _model(1)
    with torch.no_grad():  # a kept policy far from the untrained one's near-uniform moves
        other.policy.action_net.weight.mul_(3000.0)
    ws = WarmStartConfig(teacher="heuristic", games=3, opponents=("random",), seed=5)
    advise = collect_games(CFG, ws, 0, 3, 1, learner=model.policy)
    keep = collect_games(CFG, replace(ws, opponents=("heuristic",)), 3, 3, 1, learner=model.policy)
    obs, masks = torch.as_tensor(keep.obs), torch.as_tensor(keep.masks)
    advice = torch.as_tensor(keep.actions)
    with torch.no_grad():
        log_q = masked_log_probs(other.policy, obs, keep.masks)

    def kl_from_other() -> float:
        with torch.no_grad():
            log_p = masked_log_probs(model.policy, obs, keep.masks)
            return float(distillation_loss(log_p, advice, log_q, log_p, masks)[1])

    before = kl_from_other()
    fit(model.policy, log_q, advise, keep, DISTIL, np.random.default_rng(0))
    assert before > 0.05 and kl_from_other() < 0.6 * before


def test_the_same_seed_gives_the_same_weights() -> None:
    one, two = _model(), _model()
    start = [p.detach().clone() for p in one.policy.parameters()]
    cfg = replace(CFG, table_distillation=replace(DISTIL, rounds=1, epochs=2))
    table_distillation(one, cfg)
    table_distillation(two, cfg)
    for a, b in zip(one.policy.parameters(), two.policy.parameters(), strict=True):
        assert torch.equal(a, b)
    # and the distillation moved them
    assert any(not torch.equal(a, b) for a, b in zip(start, one.policy.parameters(), strict=True))


def test_the_learners_games_are_the_same_in_one_or_two_processes() -> None:
    model = _model()
    ws = WarmStartConfig(teacher="heuristic", games=4, opponents=("random",), seed=5)
    one = collect_games(CFG, ws, 6, 4, 1, learner=model.policy)
    two = collect_games(CFG, ws, 6, 4, 2, learner=model.policy, chunk=2)
    assert len(one.obs) > 0
    assert np.array_equal(one.obs, two.obs) and np.array_equal(one.actions, two.actions)
    assert np.array_equal(one.game, two.game) and one.game.min() == 6


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"advice_at": []}, "advice_at: at least one bot spec"),
        ({"keep_at": []}, "keep_at: at least one bot spec"),
        ({"advice_at": "random"}, "advice_at: a list of bot specs"),
        ({"keep_at": ["nobody"]}, "keep_at"),
        ({"advice_at": ["random"], "keep_at": ["random"]}, "both in advice_at and keep_at"),
        ({"games": 0}, "games: an integer >= 1"),
        ({"rounds": True}, "rounds: an integer >= 1"),
        ({"epochs": 1.5}, "epochs: an integer >= 1"),
        ({"batch_size": 0}, "batch_size: an integer >= 1"),
        ({"processes": 0}, "processes: an integer >= 1"),
        ({"learning_rate": 0.0}, "learning_rate must be a finite number > 0"),
        ({"learning_rate": float("inf")}, "learning_rate must be a finite number > 0"),
        ({"learning_rate": "fast"}, "learning_rate must be a finite number > 0"),
    ],
)
def test_bad_distillation_configs_are_refused(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TableDistillationConfig(**kw)


def test_distillation_needs_advice() -> None:
    with pytest.raises(ConfigError, match="table_distillation .* needs advice"):
        TrainConfig(name="x", table_distillation=TableDistillationConfig())


TINY = (
    TINY_ADVISED.replace("tiny_advised", "tiny_distillation")
    + "table_distillation: {advice_at: [random], keep_at: [heuristic], games: 2, rounds: 1,"
    " epochs: 1, batch_size: 32}\n"
)


def test_a_tiny_run_distils_its_policy_and_reports_it(tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    main(["--config", str(config), "--runs-dir", str(tmp_path / "runs")])
    run = tmp_path / "runs" / "tiny_distillation"
    result = json.loads((run / "result.json").read_text())
    rounds = result["table_distillation"]["rounds"]
    assert len(rounds) == 1 and rounds[0]["games"] == {"random": 2, "heuristic": 2}
    assert "table distillation, round 1" in (run / "report.md").read_text()
    assert (run / "policy.onnx").is_file()
