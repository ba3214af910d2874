"""The training view of a config: the game's single-agent view, observing through the
config's advisor (:mod:`agents.advice`); the value shaping (:mod:`train.value_shaping`) wraps
it where rewards matter. One place builds it for training, the warm start, the league and
the evaluation."""

from __future__ import annotations

from typing import Any

from agents.advice import advise
from tabletop import registry

__all__ = ["make_view"]


def make_view(cfg: Any, advice_seed: int | None = 0, **options: Any) -> Any:
    """The config's single-agent view with ``options``, observing through the config's
    advisor (``cfg.advice``) where it has one (``advice_seed``: its first seed; the view
    reseeds it at every reset)."""
    entry = registry.get(cfg.game)
    return advise(entry.single_agent_env(**options), cfg.advice, entry.name, advice_seed)
