"""RLlib 2.60 (new API stack) on both games: the native multi-agent adapter
(``tabletop.env_rllib``), the masking RLModule (``train.rllib_module``) and the self-play
trainer (``train.rllib_selfplay``).

Adapter: spaces, only the deciders observed, rewards summed over played games equal to the
parallel env's, masks, errors with their real message, RLlib's env pre-check. Training: the
docs' recipe for two iterations on each game (envs with ``on_illegal="raise"``, so one
unmasked sample would raise) changes the weights; the self-play CLI writes a policy that the
policy bot and the ONNX policy load and play.

Ray and torch are imported inside the tests: the main test run collects this folder without
them (these tests are marked ``rllib`` and run in their own venv).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

#: env_configs of the adapter tests: both games, 2 and 4 players, shaping rewards (earned
#: by agents that are not acting), Lazer Ryderz's discrete, hybrid and box action modes
CONFIGS: dict[str, dict[str, Any]] = {
    "lunatix_2p": {"game": "lunatix", "num_players": 2},
    "lunatix_4p_shaped": {
        "game": "lunatix",
        "num_players": 4,
        "shaping": {"progress": 0.1, "damage": 0.2},
    },
    "ryderz_discrete": {"game": "ryderz", "num_players": 2, "action_mode": "discrete"},
    "ryderz_hybrid_shaped": {
        "game": "ryderz",
        "num_players": 3,
        "action_mode": "hybrid",
        "shaping": {"prizms": 0.1, "crash": 0.1},
    },
    "ryderz_box": {"game": "ryderz", "num_players": 2, "action_mode": "box"},
}


@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    """A local Ray instance (2 CPUs, no dashboard) for the module's training tests."""
    import ray
    import torch

    from train.rllib_selfplay import connect_ray

    torch.set_num_threads(1)
    started = connect_ray("local", num_cpus=2)
    yield
    if started:
        ray.shutdown()


def make_env(name: str, **extra: Any) -> Any:
    """The adapter over ``CONFIGS[name]`` (plus ``extra`` options)."""
    from tabletop.env_rllib import RLlibMultiAgentEnv

    return RLlibMultiAgentEnv({**CONFIGS[name], **extra})


def legal(env: Any, agent: str, action: Any) -> bool:
    """Whether the adapter's mask allows ``action`` (its discrete part) for ``agent``; a
    ``box``-mode vector is always legal (a masked argmax picks the move)."""
    if isinstance(action, np.ndarray) and action.ndim == 1:
        return True
    index = action["discrete"] if isinstance(action, dict) else action
    return bool(env.session.mask(int(agent.split("_")[1]))[int(index)])


# ---------------------------------------------------------------------- the adapter
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_spaces_are_rllib_multi_agent_spaces(name: str) -> None:
    from gymnasium import spaces
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    env = make_env(name)
    assert isinstance(env, MultiAgentEnv)
    n = CONFIGS[name]["num_players"]
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    assert env.agents == []
    assert set(env.observation_spaces) == set(env.action_spaces) == set(env.possible_agents)
    par = env.par_env
    for a in env.possible_agents:
        space = env.get_observation_space(a)
        assert isinstance(space, spaces.Dict) and set(space.spaces) == {
            "observations",
            "action_mask",
        }
        assert space["observations"] == par.observation_space(a)["observation"]
        mask = space["action_mask"]
        assert isinstance(mask, spaces.Box) and mask.dtype == np.float32
        assert (mask.low == 0).all() and (mask.high == 1).all()
        assert env.get_action_space(a) == par.action_space(a)
        # the spaces RLlib ships to learners are the plain ones
        plain = pickle.loads(pickle.dumps(env.get_action_space(a)))
        assert type(plain) is type(par.action_space(a)) and plain == par.action_space(a)
    obs, infos = env.reset(seed=0)
    assert env.agents == env.possible_agents
    for a, o in obs.items():
        assert env.observation_spaces[a].contains(o), a
        assert set(infos) <= set(obs)


def play(env: Any, seed: int, twin: Any | None = None) -> dict[str, Any]:
    """One game of seeded random legal play (``action_space.sample()``) in the adapter,
    checking every step; ``twin``: a parallel env of the same options fed the same actions
    (NOOP for the agents not acting). Returns the rewards delivered and the twin's."""
    obs, _ = env.reset(seed=seed)
    twin_obs = twin.reset(seed=seed)[0] if twin is not None else None
    got = dict.fromkeys(env.possible_agents, 0.0)
    want = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while True:
        deciders = [f"player_{s}" for s in env.session.deciders()]
        assert sorted(obs) == sorted(deciders), (steps, sorted(obs), deciders)
        for a, o in obs.items():  # the mask is the parallel env's, as float32
            np.testing.assert_array_equal(
                o["action_mask"], env.session.mask(int(a[7:])).astype(np.float32)
            )
            if twin_obs is not None:
                np.testing.assert_array_equal(o["observations"], twin_obs[a]["observation"])
        actions = {a: env.get_action_space(a).sample() for a in obs}
        assert all(legal(env, a, act) for a, act in actions.items())
        if twin is not None:
            noop = {a: env._noops[a] for a in twin.agents}
            twin_obs, rewards, *_ = twin.step({**noop, **actions})
            for a, r in rewards.items():
                want[a] += r
        obs, rewards, terms, truncs, infos = env.step(actions)
        steps += 1
        assert set(rewards) == set(obs) == set(infos)
        assert set(terms) == set(truncs) == set(obs) | {"__all__"}
        for a, r in rewards.items():
            assert isinstance(r, float)
            got[a] += r
        if terms["__all__"] or truncs["__all__"]:
            assert sorted(obs) == sorted(env.possible_agents)  # everyone's last observation
            assert terms["__all__"] != truncs["__all__"]
            assert env.agents == [] and env.pending_rewards() == dict.fromkeys(
                env.possible_agents, 0.0
            )
            break
        assert not any(terms.values()) and not any(truncs.values())
    return {
        "got": got,
        "want": want,
        "steps": steps,
        "returns": list(env.session.state.returns()),
        "truncated": truncs["__all__"],
    }


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_only_deciders_observe_and_rewards_sum_to_the_parallel_envs(name: str) -> None:
    from tabletop import registry

    env = make_env(name, on_illegal="raise")
    options = {k: v for k, v in CONFIGS[name].items() if k != "game"}
    twin = registry.get(CONFIGS[name]["game"]).parallel_env(on_illegal="raise", **options)
    shaped = "shaping" in CONFIGS[name]
    for seed in range(2):
        r = play(env, seed, twin)
        for a in env.possible_agents:
            assert r["got"][a] == pytest.approx(r["want"][a], abs=1e-9), (seed, a)
        if shaped:  # rewards were earned mid-game (by agents that were not acting, too)
            assert any(v != 0 for v in r["got"].values())


@pytest.mark.parametrize("name", ["lunatix_4p_shaped", "ryderz_hybrid_shaped"])
def test_events_reach_each_agent_with_its_next_observation(name: str) -> None:
    """With ``events=True`` an agent's infos hold the events it may see since its last
    observation: over a game they are exactly its share of what the record replays to."""
    from tabletop.records import replay_events

    env = make_env(name, events=True)
    obs, infos = env.reset(seed=4)
    got: dict[str, list[Any]] = {a: [] for a in env.possible_agents}
    while True:
        for a, info in infos.items():
            got[a].extend(info["events"])
        actions = {a: env.get_action_space(a).sample() for a in obs}
        obs, _, terms, truncs, infos = env.step(actions)
        if terms["__all__"] or truncs["__all__"]:
            for a, info in infos.items():
                got[a].extend(info["events"])
            break
    par = env.par_env.unwrapped
    every = [e for step in replay_events(par.adapter.game, par.record) for e in step]
    for seat, a in enumerate(env.possible_agents):
        assert got[a] == [e for e in every if e.visible_to(seat)], a
    assert sum(map(len, got.values())) > 100


@pytest.mark.parametrize("name", ["lunatix_2p", "ryderz_discrete"])
def test_terminal_rewards_equal_the_game_returns(name: str) -> None:
    """A game someone wins: the rewards delivered are the engine's returns (+1 / -1)."""
    env = make_env(name)
    for seed in range(80):
        r = play(env, seed)
        if any(r["returns"]):
            assert [r["got"][a] for a in env.possible_agents] == r["returns"]
            assert sorted(r["returns"]) == [-1.0, 1.0]
            return
        assert list(r["got"].values()) == [0.0, 0.0] == r["returns"]
    pytest.fail("no seed of 80 gave a game with a winner under random play")


def test_simultaneous_decisions_observe_every_decider() -> None:
    """Lazer Ryderz's Start Your Engines: every seat decides in one step."""
    env = make_env("ryderz_hybrid_shaped")
    obs, _ = env.reset(seed=3)
    assert sorted(obs) == env.possible_agents == [f"player_{s}" for s in env.session.deciders()]


def test_seeding_is_reproducible() -> None:
    """The same first seed gives the same games, later unseeded resets included."""
    runs = []
    for _ in range(2):
        env = make_env("lunatix_2p")
        runs.append([play(env, 5)["steps"], *(play_unseeded(env) for _ in range(2))])
    assert runs[0] == runs[1]
    assert runs[0][1][0] != runs[0][2][0] and 5 not in (runs[0][1][0], runs[0][2][0])


def play_unseeded(env: Any) -> tuple[int, int]:
    """The seed and length of one game started by ``reset()`` without a seed."""
    obs, _ = env.reset()
    steps = 0
    while True:
        obs, _, terms, truncs, _ = env.step({a: env.get_action_space(a).sample() for a in obs})
        steps += 1
        if terms["__all__"] or truncs["__all__"]:
            return env.game_seed, steps


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_rllib_env_pre_check_passes(name: str, caplog: pytest.LogCaptureFixture) -> None:
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = make_env(name, on_illegal="raise")  # its sampled actions must be legal
    with caplog.at_level("WARNING"):
        check_multiagent_environments(env)
    assert not [r for r in caplog.records if "MultiAgentEnv" in r.getMessage()]


def test_errors_surface_with_their_message() -> None:
    from tabletop.env_rllib import RLlibEnvError, RLlibMultiAgentEnv
    from tabletop.errors import ConfigError, IllegalActionError
    from tabletop.registry import UnknownGameError

    with pytest.raises(UnknownGameError, match="unknown game 'chess'; known: lunatix"):
        RLlibMultiAgentEnv({"game": "chess"})
    with pytest.raises(RLlibEnvError, match="needs 'game'"):
        RLlibMultiAgentEnv({"num_players": 2})
    with pytest.raises(RLlibEnvError, match="must be a dict"):
        RLlibMultiAgentEnv(["lunatix"])  # type: ignore[arg-type]
    with pytest.raises(RLlibEnvError, match="render_mode"):
        RLlibMultiAgentEnv({"game": "lunatix", "render_mode": "ansi"})
    with pytest.raises(ConfigError, match="nowhere"):
        RLlibMultiAgentEnv({"game": "lunatix", "track": "nowhere"})
    env = make_env("lunatix_2p", on_illegal="raise")
    with pytest.raises(RLlibEnvError, match="call reset"):
        env.step({"player_0": 1})
    obs, _ = env.reset(seed=0)
    while len(obs) != 1:  # to a decision of one agent
        obs, *_ = env.step({a: env.get_action_space(a).sample() for a in obs})
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} is not legal for {agent}"):
        env.step({agent: illegal})
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(RLlibEnvError, match=rf"not to act: \['{other}'\]"):
        env.step({agent: env.get_action_space(agent).sample(), other: 0})
    with pytest.raises(RLlibEnvError, match=rf"missing: \['{agent}'\]"):
        env.step({})


# ---------------------------------------------------------------------- the RLModule
@pytest.mark.parametrize("name", ["lunatix_2p", "ryderz_discrete", "ryderz_hybrid_shaped"])
def test_module_masks_logits_in_every_forward_pass(name: str) -> None:
    import torch
    from ray.rllib.core.columns import Columns

    from train.rllib_module import MASK_LOGIT, MaskedMLPModule

    env = make_env(name)
    obs, _ = env.reset(seed=1)
    a = next(iter(obs))
    module = MaskedMLPModule(
        observation_space=env.observation_spaces[a],
        action_space=env.par_env.action_space(a),
        model_config={"hiddens": [32]},
    )
    batch_obs = {
        k: torch.as_tensor(np.stack([o[k] for o in obs.values()]))
        for k in ("observations", "action_mask")
    }
    mask = batch_obs["action_mask"] > 0
    n = mask.shape[1]
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        inputs = forward({Columns.OBS: batch_obs})[Columns.ACTION_DIST_INPUTS]
        lo = module.layout.lo
        logits = inputs[:, lo : lo + n]
        assert (logits[~mask] == MASK_LOGIT).all() and (logits[mask] > MASK_LOGIT).all()
        dist = module.get_exploration_action_dist_cls().from_logits(inputs)
        for _ in range(20):
            sample = dist.sample()
            index = sample["discrete"] if isinstance(sample, dict) else sample
            assert mask[torch.arange(len(index)), index].all()
        assert torch.isfinite(dist.logp(dist.sample())).all()
        assert torch.isfinite(dist.entropy()).all()
    values = module.compute_values({Columns.OBS: batch_obs})
    assert values.shape == (len(obs),)


def test_rllibs_own_action_masking_example_module_reads_the_observations() -> None:
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    env = make_env("lunatix_2p")
    obs, _ = env.reset(seed=1)
    a = next(iter(obs))
    module = ActionMaskingTorchRLModule(
        observation_space=env.observation_spaces[a],
        action_space=env.par_env.action_space(a),
        model_config={"fcnet_hiddens": [16]},
    )
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs[a].items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
    assert obs[a]["action_mask"][int(torch.argmax(logits))] == 1


# ---------------------------------------------------------------------- training
RECIPE_CONFIGS = {
    "lunatix": {"game": "lunatix", "num_players": 2, "on_illegal": "raise"},
    "ryderz": {
        "game": "ryderz",
        "num_players": 2,
        "action_mode": "discrete",
        "on_illegal": "raise",
    },
    "ryderz_hybrid": {
        "game": "ryderz",
        "num_players": 2,
        "action_mode": "hybrid",
        "on_illegal": "raise",
    },
}


@pytest.mark.parametrize("name", sorted(RECIPE_CONFIGS))
def test_recipe_trains_two_iterations_without_an_illegal_action(name: str, ray_local: None) -> None:
    """The recipe of the docs (one module shared by every seat), for two iterations: an
    illegal action would raise inside the env; the weights change."""
    # --- the recipe of the docs (its env_config: RECIPE_CONFIGS["lunatix"]) ---
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from tabletop.env_rllib import RLlibMultiAgentEnv
    from train.rllib_module import ModuleConfig, module_spec

    env_config = RECIPE_CONFIGS[name]
    ray.init(address="local", num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    config = (
        PPOConfig()
        .environment(RLlibMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        .multi_agent(
            policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared"
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={"shared": module_spec(ModuleConfig(hiddens=(64, 64)))}
            )
        )
        .debugging(seed=0)
    )
    algo = config.build_algo()
    before = learner_weights(algo, "shared")
    results = [algo.train() for _ in range(2)]
    print(results[-1]["env_runners"]["num_env_steps_sampled_lifetime"])
    # --- end of the recipe (which ends with algo.stop()) ---
    after = learner_weights(algo, "shared")
    algo.stop()
    steps = sum(r["env_runners"]["num_env_steps_sampled"] for r in results)
    assert steps >= 512
    assert any(not np.array_equal(before[k], after[k]) for k in before)


def learner_weights(algo: Any, module_id: str) -> dict[str, np.ndarray]:
    """A copy of a module's weights as the learner holds them."""
    from train.rllib_selfplay import module_state

    return {k: np.array(v) for k, v in module_state(algo, module_id).items()}


def test_an_unmasked_policy_fails_with_the_envs_message(ray_local: None) -> None:
    """A module that ignores the mask plays an illegal action: RLlib's error carries the
    env's IllegalActionError (its message names the action and the legal ones)."""
    import torch

    from tabletop.errors import IllegalActionError
    from train.rllib_module import MaskedMLPModule
    from train.rllib_selfplay import SelfPlayConfig, build_config

    class Unmasked(MaskedMLPModule):
        def _masked_inputs(self, batch: dict[str, Any]) -> torch.Tensor:
            return self.pi(self._flat_obs(batch)) * 0.0  # uniform over every action

    cfg = SelfPlayConfig(
        game="lunatix",
        env_options={"on_illegal": "raise"},
        train_batch=64,
        minibatch=32,
        epochs=1,
        hiddens=(8,),
    )
    algo = build_config(cfg, module_class=Unmasked).build_algo()
    try:
        with pytest.raises(RuntimeError) as info:  # RLlib's, raised from the env's error
            algo.train()
    finally:
        algo.stop()
    chain, exc = [], info.value
    while exc is not None:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    errors = [e for e in chain if isinstance(e, IllegalActionError)]
    assert errors and "is not legal for player_" in str(errors[0])
    assert "; legal: " in str(errors[0])


def test_a_batch_without_the_learners_samples_changes_nothing(ray_local: None) -> None:
    """The learning seat can sit out a whole batch (its car out of the race): RLlib 2.60's
    Learner fails on such a batch; the self-play Learner skips it."""
    from train.rllib_selfplay import MAIN, SelfPlayConfig, build_config

    cfg = SelfPlayConfig(
        game="ryderz",
        env_options={"on_illegal": "raise"},
        train_batch=64,
        minibatch=32,
        epochs=1,
        hiddens=(8,),
    )
    config = build_config(cfg).multi_agent(
        policy_mapping_fn=lambda agent_id, episode, **kwargs: "snap_0"
    )  # main never plays
    algo = config.build_algo()
    before = learner_weights(algo, MAIN)
    try:
        result = algo.train()
        after = learner_weights(algo, MAIN)
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled"] >= 64
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_seat_mapping_puts_main_in_one_seat_and_snapshots_elsewhere() -> None:
    from train.rllib_selfplay import MAIN, SeatMapping

    class Episode:
        def __init__(self, i: int) -> None:
            self.id_ = f"ep{i}"

    np.random.seed(0)
    mapping = SeatMapping(seed=1, pool=["snap_0", "snap_1"], num_players=4)
    clone = pickle.loads(pickle.dumps(mapping))
    seats = []
    for i in range(40):
        ep = Episode(i)
        lineup = [mapping(f"player_{s}", ep) for s in (2, 0, 3, 1)]
        assert lineup == [mapping(f"player_{s}", ep) for s in (2, 0, 3, 1)]  # kept
        assert lineup.count(MAIN) == 1 and set(lineup) - {MAIN} <= {"snap_0", "snap_1"}
        seats.append(lineup.index(MAIN))
    assert len(set(seats)) == 4  # main plays every seat
    np.random.seed(0)
    assert [clone(f"player_{s}", Episode(i)) for i in range(40) for s in (2, 0, 3, 1)].count(
        MAIN
    ) == 40


def test_selfplay_cli_exports_a_policy_the_bots_load(tmp_path: Path, ray_local: None) -> None:
    import json

    from agents.onnx_policy import OnnxPolicy
    from agents.policy_bot import PolicyBot, find_policy
    from train.rllib_selfplay import main

    out = tmp_path / "run"
    status = main(
        [
            "--game",
            "lunatix",
            "--iterations",
            "2",
            "--seed",
            "0",
            "--out",
            str(out),
            "--env-runners",
            "1",
            "--batch",
            "256",
            "--minibatch",
            "64",
            "--epochs",
            "1",
            "--hiddens",
            "64,64",
            "--snapshot-every",
            "1",
            "--eval-games",
            "2",
            "--parity-observations",
            "200",
        ]
    )
    assert status == 0
    result = json.loads((out / "result.json").read_text())
    assert len(result["history"]) == 2 and result["pool"]["ids"] == ["snap_0", "snap_1"]
    assert result["parity"]["ok"] and result["evaluation"]["rows"]
    assert (out / "checkpoint" / "rllib_checkpoint.json").is_file()
    for folder, mode in ((out, "greedy"), (out / "sampled", "sampled")):
        meta, file = find_policy(folder)
        assert (meta.algorithm, meta.mode, meta.game, file.name) == (
            "RLlib-PPO",
            mode,
            "lunatix",
            "policy.onnx",
        )
        policy = OnnxPolicy(file)
        assert policy.outputs == ["logits", "value"]
        bot = PolicyBot.load(folder, game="lunatix", seed=0)
        state = bot.adapter.game.new_initial_state(0)
        rng = np.random.default_rng(0)
        for _ in range(30):  # the bot plays legal moves for whoever decides
            while state.is_chance_node():
                state.apply_chance(state.sample_chance(rng))
            if state.is_terminal():
                break
            seats = state.current_players()
            moves = {s: bot.act(state, s) for s in seats}
            assert all(state.is_legal(s, m) for s, m in moves.items())
            state.apply_actions(moves)


def test_selfplay_resumes_from_its_checkpoint_with_the_history_up_to_it(
    tmp_path: Path, ray_local: None
) -> None:
    import json

    from train.rllib_selfplay import SelfPlayConfig, train

    out = tmp_path / "run"
    base = dict(
        game="lunatix",
        out=str(out),
        train_batch=200,
        minibatch=64,
        epochs=1,
        hiddens=(32,),
        eval_games=0,
        parity_observations=50,
        checkpoint_every=1,
        snapshot_every=1,
        max_snapshots=2,
    )
    train(SelfPlayConfig(iterations=2, **base), progress=False)
    assert json.loads((out / "selfplay.json").read_text())["iteration"] == 2
    (out / "result.json").unlink()  # as a run stopped after its checkpoint, before the end
    result = train(SelfPlayConfig(iterations=3, resume=True, **base), progress=False)
    assert [r["iteration"] for r in result["history"]] == [1, 2, 3]
    assert result["env_steps"] == sum(r["env_steps"] for r in result["history"]) > 0
    assert result["pool"]["ids"] == ["snap_0", "snap_1"]  # the snapshot of iteration 1 kept
