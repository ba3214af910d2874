"""Env constructors and options of both games refuse bad input with a ``ConfigError`` that
names the option and what is allowed (never a bare ``TypeError`` or ``ValueError``, never a
silent coercion), and the single-agent view refuses to be used before its first reset."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tabletop import registry
from tabletop.errors import ConfigError, ResetNeededError

GAMES = registry.names()
MAKERS = ("aec_env", "parallel_env", "single_agent_env")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize(
    "options,match",
    [
        ({"on_illegal": "bogus"}, "on_illegal must be one of 'raise', 'penalty', 'random_legal'"),
        ({"max_rounds": -1}, "round_limit"),  # was accepted by Lunatix Loop
        ({"max_rounds": 1.5}, "round_limit"),
        ({"num_players": "2"}, "num_players"),
        ({"bogus_option": 1}, "unknown env option.*bogus_option.*the options are"),  # TypeError
    ],
    ids=["on_illegal", "negative-rounds", "float-rounds", "string-players", "unknown-option"],
)
def test_bad_options_are_config_errors(name: str, maker: str, options: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ConfigError, match=match):
            getattr(registry.get(name), maker)(**options)


def test_non_finite_config_numbers_are_config_errors() -> None:
    # Lunatix Loop's shaping weights were taken as NaN
    with pytest.raises(ConfigError, match="finite"):
        registry.get("lunatix").parallel_env(shaping={"progress": float("nan")})


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seat", ["1", 1.0, True, -1, 99])
def test_learner_seat_is_a_seat_or_random(name: str, seat: Any) -> None:
    with pytest.raises(ConfigError, match="learner_seat"):
        registry.get(name).single_agent_env(learner_seat=seat)


@pytest.mark.parametrize("name", GAMES)
def test_wrong_number_of_opponents_is_a_config_error(name: str) -> None:
    env = registry.get(name).single_agent_env()
    n = env.adapter.num_players
    with pytest.raises(ConfigError, match=f"need {n - 1} opponent policies"):
        registry.get(name).single_agent_env(opponents=[None] * n)


@pytest.mark.parametrize("name", GAMES)
def test_single_agent_view_before_reset(name: str) -> None:
    env = registry.get(name).single_agent_env(render_mode="ansi")
    for call in (
        lambda: env.step(env.action_space.sample()),
        env.action_masks,
        env.render,
        lambda: env.record,
    ):
        with pytest.raises(ResetNeededError, match="call reset"):
            call()
    env.reset(seed=0)
    assert env.action_masks().any() and env.render()
