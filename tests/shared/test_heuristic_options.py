"""``heuristic:KEY=VALUE`` specs: a heuristic with some of its numbers changed (its class's
``tunables``), validated completely, its own track model, the plain heuristic unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import agents.heuristic_lunatix as hl
from agents.bot import Tunable
from agents.heuristic_ryderz import RyderzHeuristic
from agents.specs import BotSpecError, check_spec, make_bot, parse, split_specs
from tabletop import registry
from tabletop.protocol import play_chance

TUNED = "heuristic:hit_cost=3,out_risk=90,ram_chance=0.1"


def test_a_tuned_spec_round_trips_and_builds_the_bot_it_names() -> None:
    assert str(parse(TUNED)) == TUNED
    bot = make_bot(TUNED, "lunatix", seed=1)
    assert bot.name == TUNED
    assert (bot.hit_cost, bot.out_risk, bot.ram_chance) == (3.0, 90.0, 0.1)
    ryderz = make_bot("heuristic:opponent_weight=1.2,curve_gear=2", "ryderz", seed=1)
    assert isinstance(ryderz, RyderzHeuristic)
    assert (ryderz.opponent_weight, ryderz.curve_gear) == (1.2, 2)
    assert isinstance(ryderz.curve_gear, int)


def test_the_plain_heuristic_keeps_v1s_numbers() -> None:
    bot = make_bot("heuristic", "lunatix", seed=1)
    assert (bot.hit_cost, bot.out_risk, bot.ram_chance) == (hl.HIT_COST, hl.OUT_RISK, hl.RAM_CHANCE)


def test_split_specs_keeps_heuristic_options_together() -> None:
    assert split_specs(f"{TUNED},heuristic,random") == [TUNED, "heuristic", "random"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("heuristic:hit_cost", "expected key=number"),
        ("heuristic:=3", "expected key=number"),
        ("heuristic:hit_cost=", "expected key=number"),
        ("heuristic:hit_cost=cheap", "not a number"),
        ("heuristic:hit_cost=inf", "must be finite"),
        ("heuristic:hit_cost=1,hit_cost=2", "twice"),
    ],
)
def test_malformed_options_are_refused_when_parsed(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        parse(spec)


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        ("lunatix", "heuristic:speed=3", r"no option 'speed'; options: hit_cost \(float in"),
        ("lunatix", "heuristic:hit_cost=-1", r"outside \[0, 100\]"),
        ("lunatix", "heuristic:ram_chance=1.5", r"outside \[0, 1\]"),
        ("ryderz", "heuristic:hit_cost=3", "no option 'hit_cost'"),
        ("ryderz", "heuristic:curve_gear=2.5", "whole number"),
        ("ryderz", "heuristic:curve_gear=9", r"outside \[1, 4\]"),
    ],
)
def test_options_the_games_heuristic_lacks_are_refused_when_made(
    game: str, spec: str, message: str
) -> None:
    with pytest.raises(BotSpecError, match=message):
        make_bot(spec, game, seed=0)


@pytest.mark.parametrize("game", ["lunatix", "ryderz"])
def test_every_tunable_is_a_constructor_keyword_with_its_default_in_range(game: str) -> None:
    import inspect

    cls = registry.get(game).heuristic_class()
    params = inspect.signature(cls).parameters
    assert cls.tunables
    for key, tunable in cls.tunables.items():
        assert isinstance(tunable, Tunable)
        assert params[key].kind is inspect.Parameter.KEYWORD_ONLY
        default = params[key].default
        assert tunable.low <= default <= tunable.high, key
        assert isinstance(default, tunable.kind) or tunable.kind is float, key


def _play(bots: list, seed: int, decisions: int) -> list:
    """The first ``decisions`` actions of a seeded 4-player game of ``bots``."""
    game = registry.get("lunatix").game(num_players=4)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    moves: list = []
    while not state.is_terminal() and len(moves) < decisions:
        if state.is_chance_node():
            play_chance(state, rng)
            continue
        acts = {s: bots[s].act(state, s) for s in state.current_players()}
        moves += [acts[s] for s in sorted(acts)]
        state.apply_actions(acts)
    return moves


def test_a_tuned_heuristic_has_its_own_track_model() -> None:
    game = registry.get("lunatix").game(num_players=4)
    plain, tuned = hl.model_of(game), hl.model_of(game, 3.0, 90.0)
    assert plain is hl.model_of(game) and tuned is hl.model_of(game, 3.0, 90.0)
    assert tuned is not plain and (tuned.hit_cost, tuned.out_risk) == (3.0, 90.0)
    # cheaper hits: no position of a fast car is worth less, some more
    cheap, dear = tuned.table(140, True).v, plain.table(140, True).v
    assert (cheap >= dear - 1e-9).all() and (cheap > dear + 1e-6).any()
    # a fresh game's plain table is the plain table here: the tuned model left it alone
    fresh = hl.model_of(registry.get("lunatix").game(num_players=4)).table(140, True).v
    assert np.array_equal(fresh, dear)


def test_a_tuned_seat_changes_the_game() -> None:
    plain = [make_bot("heuristic", "lunatix", seed=s) for s in range(4)]
    mixed = [make_bot("heuristic", "lunatix", seed=s) for s in range(4)]
    mixed[1] = make_bot(TUNED, "lunatix", seed=1)
    assert _play(mixed, 7, 10**6) != _play(plain, 7, 10**6)


def test_the_tuned_bot_prices_rams_with_its_own_chance() -> None:
    """``_danger`` reads the bot's ``ram_chance``, not the module's RAM_CHANCE."""
    game = registry.get("lunatix").game(num_players=4)
    state = game.new_initial_state(3)
    rng = np.random.default_rng(3)
    while state.is_chance_node():
        play_chance(state, rng)
    seat = state.current_players()[0]
    low = make_bot("heuristic:ram_chance=0.1", "lunatix", seed=0)
    high = make_bot("heuristic:ram_chance=0.9", "lunatix", seed=0)
    prices = []
    for bot in (low, high):
        ctx = bot._ctx(state, seat)
        track = ctx.model.track
        ctx.hunters = [(track.wrap(track.s[5] - 1.0), 1e9)]  # one opponent just behind square 5
        prices.append(bot._danger(ctx, 5))
    assert prices[0] > 0 and prices[1] == pytest.approx(9 * prices[0])


def test_advice_and_teachers_with_options_the_game_lacks_are_config_errors() -> None:
    from agents.advice import check_advice
    from tabletop.errors import ConfigError
    from train.train import TrainConfig
    from train.warmstart import WarmStartConfig

    assert check_advice(TUNED, game="lunatix") == TUNED
    assert check_advice(TUNED) == TUNED  # no game: the options are checked when made
    with pytest.raises(ConfigError, match="advice: .*no option 'hit_cost'"):
        check_advice(TUNED, game="ryderz")
    with pytest.raises(ConfigError, match="advice: .*outside"):
        TrainConfig(name="x", advice="heuristic:hit_cost=1000")
    bad = WarmStartConfig(teacher="heuristic:opponent_weight=1")
    with pytest.raises(ConfigError, match="warm_start: .*no option 'opponent_weight'"):
        TrainConfig(name="x", warm_start=bad)
    cfg = TrainConfig(name="x", advice=TUNED, warm_start=WarmStartConfig(teacher=TUNED))
    assert cfg.advice == TUNED
    assert str(check_spec(TUNED, "lunatix")) == TUNED
    with pytest.raises(BotSpecError, match="no option 'hit_cost'"):
        check_spec(TUNED, "ryderz")
