"""Advice (agents.advice): the observation ends with the advisor's move as a one-hot over the
env actions (zeros when the seat has nothing to decide); an untrained AdvisedPolicy plays the
advisor's moves, from policy.onnx and from model.zip alike; only bots that open no file may
advise; a tiny advised self-play run writes a policy that plays; the advice pull (ppo.advice_pull)
adds its KL term to the entropy PPO maximises and pulls the policy to the advice; a faded pull
(ppo.advice_pull_fade) falls to 0 in a straight line, across a resumed run too."""

from __future__ import annotations

import copy
import json
import math
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
import torch
from advised import TINY_ADVISED, advised_positions
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from agents.advice import AdvisedAdapter, advise, advisor_seed, check_advice
from agents.onnx_policy import OnnxPolicy
from agents.policy_bot import POLICY_JSON, PolicyBot
from agents.specs import make_bot
from agents.torch_layers import AdvisedPolicy, advice_kl
from tabletop import registry
from tabletop.errors import ConfigError
from tabletop.protocol import play_chance, random_legal_actions
from train.export import export_run
from train.train import (
    AdvicePullFade,
    TrainConfig,
    main,
    make_view,
    policy_kwargs,
    policy_meta,
    schedule_callbacks,
    write_policy_json,
)

RYDERZ_OPTIONS = {"action_mode": "discrete", "obs_mode": "vector", "launch_positions": 8}
CONFIGS = {
    "lunatix": TrainConfig(name="a", game="lunatix", num_players=2, advice="heuristic"),
    "ryderz": TrainConfig(
        name="a", game="ryderz", num_players=2, advice="heuristic", env_options=RYDERZ_OPTIONS
    ),
}


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_observation_ends_with_the_advisors_move(game: str) -> None:
    cfg = CONFIGS[game]
    view = make_view(cfg, advice_seed=7, num_players=2, learner_seat=0, **cfg.env_options)
    inner = view.adapter.inner
    n = inner.num_actions
    assert view.observation_space.shape == (inner.observation_size() + n,)
    twin = make_bot("heuristic", game)  # the advisor's twin: the same draws
    reseed = view.adapter.new_game
    seeds: list[int] = []

    def spy(seed: int) -> None:
        reseed(seed)
        twin.reset(advisor_seed(seed))
        seeds.append(seed)

    view.adapter.new_game = spy
    rng = np.random.default_rng(0)
    obs, _ = view.reset(seed=3)
    assert len(seeds) == 1  # every reset reseeds the advisor
    decisions, done = 0, False
    while not done and decisions < 40:
        state = view.session.state
        legal = inner.legal_ints(state, 0)
        assert np.array_equal(obs[:-n], inner.encode(state, 0))
        expected = np.zeros(n, np.float32)
        expected[inner.nearest_index(state, 0, twin.act(state, 0), legal)] = 1.0
        assert np.array_equal(obs[-n:], expected)
        assert view.action_masks()[int(np.argmax(obs[-n:]))]  # advice is legal
        obs, _, term, trunc, _ = view.step(int(rng.choice(np.flatnonzero(view.action_masks()))))
        done = term or trunc
        decisions += 1
    assert decisions == 40 or done


def test_an_opponent_policy_gets_the_advice_for_its_own_seat() -> None:
    seen: list[int] = []

    def opponent(obs, mask, seat, rng) -> int:
        inner = view.adapter.inner
        n = inner.num_actions
        state = view.session.state
        assert np.array_equal(obs[:-n], inner.encode(state, seat))
        advised = int(np.argmax(obs[-n:]))
        assert obs[-n:].sum() == 1.0 and mask[advised]
        seen.append(seat)
        return advised

    view = make_view(CONFIGS["lunatix"], num_players=2, learner_seat=0, opponents=opponent)
    view.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        _, _, term, trunc, _ = view.step(int(rng.choice(np.flatnonzero(view.action_masks()))))
        if term or trunc:
            break
    assert seen and set(seen) == {1}


def test_a_seat_with_nothing_to_decide_gets_no_advice() -> None:
    entry = registry.get("lunatix")
    adapter = AdvisedAdapter(entry.envs().make_adapter(num_players=2), "heuristic", "lunatix")
    state = entry.game(num_players=2).new_initial_state(0)
    rng = np.random.default_rng(1)
    # play on to a position where one seat decides and the other waits
    while state.is_chance_node() or len(state.current_players()) != 1:
        if state.is_chance_node():
            play_chance(state, rng)
        else:
            state.apply_actions(random_legal_actions(state, rng))
    (deciding,) = state.current_players()
    idle = 1 - deciding
    assert adapter.advice(state, deciding).sum() == 1.0
    assert not adapter.advice(state, idle).any()


def _advised_model(view: Any, pull: float = 0.0) -> MaskablePPO:
    """An untrained MaskablePPO of a small AdvisedPolicy on ``view`` (``pull``: its
    ``advice_pull``)."""
    ppo = replace(CONFIGS["lunatix"].ppo, shared_trunk=16, net_arch=(16,), advice_pull=pull)
    return MaskablePPO(
        AdvisedPolicy,
        view,
        n_steps=64,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs(ppo, advice=int(view.action_space.n)),
    )


@pytest.fixture(scope="module")
def untrained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder with an untrained AdvisedPolicy (Lunatix Loop, 2 players), exported."""
    cfg = replace(CONFIGS["lunatix"], eval_deterministic=True)
    d = tmp_path_factory.mktemp("advised")
    model = _advised_model(make_view(cfg, num_players=2))
    model.save(d / "model.zip")
    write_policy_json(d, policy_meta(cfg))
    export_run(d, observations=200)
    return d


def test_an_untrained_advised_policy_plays_the_advisors_moves(untrained: Path) -> None:
    meta = json.loads((untrained / POLICY_JSON).read_text())
    assert meta["advice"] == "heuristic" and meta["format"] == 3
    fast = PolicyBot.load(untrained, seed=5)
    slow = PolicyBot.load(untrained / "model.zip", seed=5)
    assert isinstance(fast.model, OnnxPolicy) and not isinstance(slow.model, OnnxPolicy)
    assert isinstance(fast.adapter, AdvisedAdapter) and fast.greedy
    twin = make_bot("heuristic", "lunatix", seed=advisor_seed(5))
    game = registry.get("lunatix").game(num_players=2)
    state = game.new_initial_state(11)
    rng = np.random.default_rng(2)
    other = make_bot("random", "lunatix", seed=1)
    moves = 0
    while not state.is_terminal() and moves < 150:
        if state.is_chance_node():
            play_chance(state, rng)
            continue
        seats = state.current_players()
        acts = {}
        for seat in seats:
            if seat == 0:
                mine = fast.act(state, 0)
                assert mine == twin.act(state, 0) == slow.act(state, 0)
                acts[0] = mine
                moves += 1
            else:
                acts[seat] = other.act(state, seat)
        if len(seats) == 1:
            state.apply_action(acts[seats[0]])
        else:
            state.apply_actions(acts)
    assert moves > 20


@pytest.mark.parametrize("spec", ["", "heuristic"])
def test_bots_that_open_no_file_may_advise(spec: str) -> None:
    assert check_advice(spec) == spec


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("policy:../runs/x", "cannot advise"),
        ("trained", "cannot advise"),
        ("random", "cannot advise"),
        ("mcts:sims=1000000000", "cannot advise"),
        ("heuristik", "advice"),
        (3, "must be a bot spec"),
    ],
)
def test_other_advisors_are_refused(spec, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_advice(spec)
    with pytest.raises(ConfigError, match=message):
        TrainConfig(name="x", advice=spec)


def test_an_advised_adapter_copies_and_pickles() -> None:
    entry = registry.get("lunatix")
    adapter = AdvisedAdapter(entry.envs().make_adapter(num_players=2), "heuristic", "lunatix")
    state = entry.game(num_players=2).new_initial_state(0)
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        play_chance(state, rng)
    seat = state.current_players()[0]
    for twin in (copy.deepcopy(adapter), pickle.loads(pickle.dumps(adapter))):
        assert twin.num_actions == adapter.num_actions
        assert np.array_equal(twin.encode(state, seat), adapter.encode(state, seat))


def test_no_advice_leaves_the_view_alone() -> None:
    view = registry.get("lunatix").single_agent_env(num_players=2)
    adapter = view.adapter
    assert advise(view, "", "lunatix") is view and view.adapter is adapter


def test_with_advice_the_warm_starts_labels_are_the_advice() -> None:
    from train.warmstart import WarmStartConfig, collect

    ws = WarmStartConfig(games=2, epochs=1, opponents=("random",))
    cfg = replace(CONFIGS["lunatix"], env_options={"max_rounds": 6}, warm_start=ws)
    demos = collect(cfg, ws)
    n = demos.masks.shape[1]
    assert len(demos.actions) > 20
    assert np.array_equal(demos.actions, np.argmax(demos.obs[:, -n:], axis=1))
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()


def test_a_tiny_advised_self_play_run_writes_a_policy_that_plays(tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY_ADVISED)
    main(["--config", str(config), "--runs-dir", str(tmp_path / "runs")])
    run = tmp_path / "runs" / "tiny_advised"
    meta = json.loads((run / POLICY_JSON).read_text())
    assert meta["advice"] == "heuristic"
    assert json.loads((run / "sampled" / POLICY_JSON).read_text())["advice"] == "heuristic"
    assert "same argmax 1,000 of 1,000" in (run / "report.md").read_text()
    snapshot = PolicyBot.load(run / "league" / "snap-0000")
    assert snapshot.meta.advice == "heuristic"
    bot = PolicyBot.load(run)
    assert bot.adapter.observation_size() == OnnxPolicy(run / "policy.onnx").obs_size


def _advised_policy(view: Any, pull: float) -> AdvisedPolicy:
    return cast(AdvisedPolicy, _advised_model(view, pull).policy)


def test_advice_kl_is_minus_the_log_probability_of_the_advised_action() -> None:
    log_probs = torch.log(torch.tensor([[0.5, 0.25, 0.25], [0.1, 0.9, 0.0], [0.2, 0.3, 0.5]]))
    log_probs[1, 2] = -1e8  # masked, as MaskableCategorical writes it
    advice = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    kl = advice_kl(log_probs, advice)
    assert torch.allclose(kl, torch.tensor([math.log(4.0), 0.0, 0.0]))


def test_the_advice_pull_lowers_the_entropy_by_the_pull_times_the_kl() -> None:
    view = make_view(CONFIGS["lunatix"], num_players=2)
    plain, pulled = _advised_policy(view, 0.0), _advised_policy(view, 3.0)
    pulled.load_state_dict(plain.state_dict())
    obs, masks = advised_positions(view, 64)
    actions = torch.as_tensor([int(np.flatnonzero(m)[0]) for m in masks])
    with torch.no_grad():
        v0, lp0, h0 = plain.evaluate_actions(obs, actions, action_masks=masks)
        v1, lp1, h1 = pulled.evaluate_actions(obs, actions, action_masks=masks)
        dist = plain.get_distribution(obs, action_masks=masks)
        kl = advice_kl(dist.distribution.logits, obs[:, -view.action_space.n :])
    assert h0 is not None and h1 is not None
    assert torch.equal(v0, v1) and torch.equal(lp0, lp1)
    assert kl.max() > 0.01  # the untrained policy is not sure of the advice
    assert torch.allclose(h1, h0 - 3.0 * kl, atol=1e-6)


@pytest.mark.parametrize("pull", [0.0, 50.0])
def test_minimising_the_entropy_loss_with_the_pull_moves_the_policy_to_the_advice(
    pull: float,
) -> None:
    view = make_view(CONFIGS["lunatix"], num_players=2)
    policy = _advised_policy(view, pull)
    obs, masks = advised_positions(view, 128)
    actions = torch.zeros(len(obs), dtype=torch.long)
    n = int(view.action_space.n)

    def mean_kl() -> float:
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=masks)
            return float(advice_kl(dist.distribution.logits, obs[:, -n:]).mean())

    before = mean_kl()
    optimiser = torch.optim.SGD(policy.parameters(), lr=0.01)
    for _ in range(20):  # PPO's entropy term alone: loss = -entropy
        _, _, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
        assert entropy is not None
        optimiser.zero_grad()
        (-entropy.mean()).backward()
        optimiser.step()
    if pull:  # towards the advice
        assert mean_kl() < 0.75 * before
    else:  # the entropy bonus alone spreads the policy away from it
        assert mean_kl() > before


def test_a_saved_model_keeps_its_advice_pull(tmp_path: Path) -> None:
    model = _advised_model(make_view(CONFIGS["lunatix"], num_players=2), 2.5)
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert cast(AdvisedPolicy, loaded.policy).advice_pull == 2.5


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"advice_pull": -1.0}, "finite number >= 0"),
        ({"advice_pull": float("nan")}, "finite number >= 0"),
        ({"advice_pull": True}, "finite number >= 0"),
        ({"advice_pull": "2"}, "finite number >= 0"),
        ({"advice_pull": 1.0, "ent_coef": 0.0}, "ent_coef > 0"),
    ],
)
def test_a_bad_advice_pull_is_refused(changes: dict[str, Any], message: str) -> None:
    ppo = replace(CONFIGS["lunatix"].ppo, **changes)
    with pytest.raises(ConfigError, match=message):
        TrainConfig(name="x", advice="heuristic", ppo=ppo)


def test_the_advice_pull_needs_advice() -> None:
    ppo = replace(CONFIGS["lunatix"].ppo, advice_pull=1.0)
    with pytest.raises(ConfigError, match="needs advice"):
        TrainConfig(name="x", ppo=ppo)
    assert TrainConfig(name="x", advice="heuristic", ppo=ppo).ppo.advice_pull == 1.0


def test_the_faded_advice_pull_falls_in_a_straight_line_to_zero() -> None:
    ppo = replace(CONFIGS["lunatix"].ppo, advice_pull=3.0, advice_pull_fade=0.5)
    assert [ppo.advice_pull_at(s, 1000) for s in (0, 100, 250, 500, 501, 1000)] == [
        pytest.approx(v) for v in (3.0, 2.4, 1.5, 0.0, 0.0, 0.0)
    ]
    assert ppo.advice_pull_at(0, 0) == 0.0  # no steps to fade over
    constant = replace(ppo, advice_pull_fade=0.0)
    assert [constant.advice_pull_at(s, 1000) for s in (0, 1000)] == [3.0, 3.0]


def test_a_run_fades_the_pull_only_where_its_config_says_so() -> None:
    pulled = replace(CONFIGS["lunatix"].ppo, advice_pull=3.0)
    constant = replace(CONFIGS["lunatix"], ppo=pulled)
    faded = replace(constant, ppo=replace(pulled, advice_pull_fade=0.5), total_timesteps=4096)
    assert not any(isinstance(c, AdvicePullFade) for c in schedule_callbacks(constant))
    (fade,) = [c for c in schedule_callbacks(faded) if isinstance(c, AdvicePullFade)]
    assert (fade.ppo, fade.total_timesteps) == (faded.ppo, 4096)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"advice_pull_fade": -0.1}, "a number in \\[0, 1\\], got -0.1"),
        ({"advice_pull_fade": 1.5}, "a number in \\[0, 1\\], got 1.5"),
        ({"advice_pull_fade": float("nan")}, "a number in \\[0, 1\\], got nan"),
        ({"advice_pull_fade": True}, "a number in \\[0, 1\\], got True"),
        ({"advice_pull_fade": "0.5"}, "a number in \\[0, 1\\], got '0.5'"),
        ({"advice_pull_fade": 0.5, "advice_pull": 0.0}, "needs ppo.advice_pull > 0"),
    ],
)
def test_a_bad_advice_pull_fade_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        replace(CONFIGS["lunatix"].ppo, **{"advice_pull": 1.0, **changes})


class _Pulls(BaseCallback):
    """Records the policy's advice pull at each update (after the fade callback has set it);
    stops the run at ``stop_at`` steps."""

    def __init__(self, stop_at: int | None = None) -> None:
        super().__init__()
        self.stop_at, self.seen = stop_at, []  # type: ignore[var-annotated]

    def _on_rollout_end(self) -> None:
        self.seen.append((self.model.num_timesteps, self.model.policy.advice_pull))

    def _on_step(self) -> bool:
        return self.stop_at is None or self.model.num_timesteps < self.stop_at


def test_the_fade_sets_the_pull_of_every_update_and_a_resumed_run_continues_it(
    tmp_path: Path,
) -> None:
    view = make_view(CONFIGS["lunatix"], num_players=2)
    ppo = replace(CONFIGS["lunatix"].ppo, advice_pull=3.0, advice_pull_fade=1.0)
    first = _advised_model(view, 3.0)
    cb = _Pulls(stop_at=128)
    first.learn(total_timesteps=256, callback=CallbackList([AdvicePullFade(ppo, 256), cb]))
    first.save(tmp_path / "m.zip")  # interrupted after 128 of 256 steps
    resumed = MaskablePPO.load(tmp_path / "m.zip", env=view, device="cpu")
    cb2 = _Pulls()
    resumed.learn(
        total_timesteps=128,
        reset_num_timesteps=False,
        callback=CallbackList([AdvicePullFade(ppo, 256), cb2]),
    )
    # the update after step n pulls with 3 * (1 - n / 256), across the interruption
    # (the interrupted rollout of steps 65-128 is not trained on)
    assert cb.seen == [(64, pytest.approx(2.25))]
    assert cb2.seen == [(192, pytest.approx(0.75)), (256, pytest.approx(0.0))]
