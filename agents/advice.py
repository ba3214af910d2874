"""Advice: a bot's move as part of a trained policy's observation.

A policy trained with ``advice: heuristic`` (a train config key, ``policy.json``'s ``advice``)
sees, after the env's own observation, one more block of ``num_actions`` floats: a one-hot
of the env action the advisor bot would play now (all zeros when the seat has nothing to
decide). The advisor decides from the engine state through the bot protocol, as any bot
does, so it knows what the seat may know and nothing more (docs/policies.md).

Why: a network that imitates the heuristic from the raw observation alone agrees with it on
about 70% of Lunatix Loop's decisions, and a race is lost on the few speed decisions it gets
wrong (docs/training.md). With the advice as an input the network can start from the
advisor's play exactly and learn where to leave it (``agents.torch_layers.AdvisedPolicy``
gives the advice a direct path to the logits). The advisor is a bot spec; only the heuristic may
advise: it opens no file (a ``policy.json`` never makes a consumer open another file) and
costs a bounded time (a search would let a policy file set the time of every decision).

``AdvisedAdapter`` wraps a game's env adapter (the encoding grows, everything else is the
game's); :func:`advise` puts one into a single-agent view.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.spaces import Box, Discrete

from agents.specs import BotSpecError, check_spec, make_bot, parse
from tabletop.errors import ConfigError
from tabletop.protocol import State

__all__ = ["ADVISOR_KINDS", "AdvisedAdapter", "advise", "advisor_seed", "check_advice"]

#: the bot kinds that may advise (no file behind them, a bounded time a decision)
ADVISOR_KINDS = ("heuristic",)


def advisor_seed(seed: int | None) -> int | None:
    """The advisor's seed derived from a bot's or env's ``seed`` (a stream of its own)."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, 0xAD]).generate_state(1)[0])


def check_advice(spec: object, where: str = "advice", game: str | None = None) -> str:
    """``spec`` if it is ``""`` (no advice) or a valid advisor spec (with ``game``, its
    options checked against that game's heuristic too), else a ConfigError naming the
    problem."""
    if not isinstance(spec, str):
        raise ConfigError(f"{where} must be a bot spec string, got {type(spec).__name__}")
    if spec == "":
        return spec
    try:
        kind = parse(spec).kind
    except BotSpecError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if kind not in ADVISOR_KINDS:
        raise ConfigError(f"{where}: {spec!r} cannot advise (advisors: {', '.join(ADVISOR_KINDS)})")
    if game is not None:
        try:
            check_spec(spec, game)
        except BotSpecError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return spec


class AdvisedAdapter:
    """A game's env adapter whose encoding ends with the advisor's move as a one-hot over
    the env actions; every other attribute is the wrapped adapter's."""

    def __init__(self, inner: Any, spec: str, game: str, seed: int | None = 0) -> None:
        check_advice(spec, game=game)
        if not spec:
            raise ConfigError("AdvisedAdapter needs an advisor spec")
        obs = inner.observation_space()["observation"]
        if not (isinstance(obs, Box) and len(obs.shape) == 1) or not isinstance(
            inner.action_space(), Discrete
        ):
            raise ConfigError(
                "advice needs a flat vector observation and one Discrete action space "
                f"(here {obs} and {inner.action_space()}): Lazer Ryderz with "
                "obs_mode=vector and action_mode=discrete"
            )
        self.inner = inner
        self.spec = spec
        self.advisor = make_bot(spec, game, seed=advisor_seed(seed))
        #: seat -> the advisor's last engine move for it (before snapping to an env action)
        self.last_move: dict[int, Any] = {}

    def __getattr__(self, name: str) -> Any:
        # only for attributes of its own that are missing: the wrapped adapter's; never
        # while unpickling, before ``inner`` exists (that would recurse)
        if name.startswith("__") or "inner" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def advice_size(self) -> int:
        """Floats the advice adds (one per env action)."""
        return int(self.inner.num_actions)

    def observation_size(self) -> int:
        """The game's observation length plus the advice."""
        return int(self.inner.observation_size()) + self.advice_size

    def observation_space(self) -> spaces.Dict:
        """The game's observation space with the longer ``observation`` Box."""
        inner = self.inner.observation_space()
        parts = dict(inner.spaces)
        parts["observation"] = spaces.Box(-1.0, 1.0, (self.observation_size(),), np.float32)
        return spaces.Dict(parts)

    def new_game(self, seed: int | None) -> None:
        """Reseed the advisor for a new game (the view calls this at every reset, the policy
        bot at its own)."""
        self.advisor.reset(advisor_seed(seed))

    def advice(self, state: State, seat: int) -> np.ndarray:
        """The one-hot of the env action the advisor plays for ``seat`` (zeros when it has
        nothing to decide)."""
        out = np.zeros(self.advice_size, np.float32)
        legal = self.inner.legal_ints(state, seat)
        if legal:
            move = self.advisor.act(state, seat)
            self.last_move[seat] = move
            out[self.inner.nearest_index(state, seat, move, legal)] = 1.0
        return out

    def encode(self, state: State, seat: int) -> np.ndarray:
        """The game's encoding of ``seat``'s observation, then the advice."""
        return np.concatenate([self.inner.encode(state, seat), self.advice(state, seat)])


def advise(view: Any, spec: str, game: str, seed: int | None = 0) -> Any:
    """``view`` (a single-agent view) observing through an :class:`AdvisedAdapter` of
    ``spec``; unchanged when ``spec`` is ``""``."""
    if not check_advice(spec):
        return view
    view.adapter = AdvisedAdapter(view.adapter, spec, game, seed)
    view.observation_space = view.adapter.observation_space()["observation"]
    return view
