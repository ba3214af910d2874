"""What every game's env module shares: building the adapter from keyword options, and the
``env()`` wrapper.

A game's env module defines ``make_adapter(**options) -> GameAdapter`` (its adapter carries
an ``env_config`` with the defaults of ``on_illegal``, ``illegal_penalty`` and
``auto_play``), then its classes as ``class raw_env(AdapterOptions, TabletopAECEnv)`` with
``make_adapter = staticmethod(make_adapter)``; the game registry
(``tabletop.registry``) registers the env ids.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

import pettingzoo

from tabletop.env_aec import FastOrderEnforcingWrapper
from tabletop.env_core import GameAdapter
from tabletop.errors import ConfigError


class SessionDefaults(Protocol):
    """The env-config fields the shared options read."""

    on_illegal: str
    illegal_penalty: float
    auto_play: bool


class AdapterOptions:
    """Builds the adapter from keyword options for an AEC, parallel or single-agent env.

    ``on_illegal`` and ``auto_play`` left as None take the game's env config defaults;
    ``illegal_penalty`` always comes from the env config. ``bots`` (``{seat or "player_i":
    bot}``, AEC and parallel envs) plays those seats inside the env with bots of
    ``agents.bot`` (their engine actions applied unchanged); they stay agents, never
    selected to act, and get their rewards. ``events=True`` puts in each agent's infos, as
    ``infos[agent]["events"]``, the turn events (:mod:`tabletop.events`) it may see: in the
    AEC env those since the agent last acted, in the parallel env those of the step, in the
    single-agent view those since the learner's last step. Every other keyword goes to
    ``make_adapter``.
    """

    make_adapter: ClassVar[Callable[..., GameAdapter]]
    #: ``auto_play`` when neither the caller nor the env config says (None: the config's)
    default_auto_play: ClassVar[bool | None] = None
    #: keywords of the env class itself, passed to it rather than to ``make_adapter``
    #: (declared by the env class, e.g. ``SingleAgentView``; none when absent)
    view_options: ClassVar[tuple[str, ...]]
    adapter: GameAdapter
    session: Any

    def __init__(
        self,
        *args: Any,
        render_mode: str | None = None,
        on_illegal: str | None = None,
        auto_play: bool | None = None,
        bots: Mapping[int | str, Any] | None = None,
        events: bool = False,
        **options: Any,
    ) -> None:
        if bots is not None and "opponents" in getattr(self, "view_options", ()):
            raise TypeError("the single-agent view takes its bots as opponents=[...]")
        if "mask_in" in options and "mask_in" not in getattr(self, "view_options", ()):
            raise TypeError(
                "mask_in is an option of the AEC and parallel envs; the "
                "single-agent view's observation is the Box already, its mask "
                "in info and action_masks()"
            )
        adapter_options = {
            k: options.pop(k) for k in list(options) if k not in getattr(self, "view_options", ())
        }
        known = inspect.signature(type(self).make_adapter).parameters
        unknown = sorted(set(adapter_options) - set(known))
        if unknown:
            allowed = sorted(
                {
                    *known,
                    *getattr(self, "view_options", ()),
                    "render_mode",
                    "on_illegal",
                    "auto_play",
                    "bots",
                    "events",
                }
            )
            raise ConfigError(
                f"unknown env option(s) {', '.join(unknown)}; the options are {', '.join(allowed)}"
            )
        if type(events) is not bool:
            raise ConfigError(f"events is True or False, got {events!r}")
        adapter = type(self).make_adapter(**adapter_options)
        cfg: SessionDefaults = adapter.env_config  # type: ignore[attr-defined]
        if auto_play is None:
            auto_play = cfg.auto_play if self.default_auto_play is None else self.default_auto_play
        super().__init__(
            adapter,
            *args,
            render_mode=render_mode,  # type: ignore[call-arg]
            on_illegal=on_illegal or cfg.on_illegal,
            auto_play=auto_play,
            **options,
        )
        self.session.illegal_penalty = cfg.illegal_penalty
        if bots is not None:
            self.session.set_bots(bots)
        self.session.set_events(events)

    @property
    def game(self) -> Any:
        """The rules engine's game."""
        return self.adapter.game


def wrap_aec(env: pettingzoo.AECEnv) -> pettingzoo.AECEnv:
    """The AEC env with PettingZoo's call-order checks
    (:class:`~tabletop.env_aec.FastOrderEnforcingWrapper`: the same checks, a cheaper
    ``last``/``step``).

    PettingZoo's ``AssertOutOfBoundsWrapper`` is left out on purpose: the env itself checks
    every action (including out-of-range ones) and applies ``on_illegal`` to it, where the
    wrapper would raise a bare AssertionError first.
    """
    return FastOrderEnforcingWrapper(env)
