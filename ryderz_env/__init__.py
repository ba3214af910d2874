"""Lazer Ryderz: the rules engine (``ryderz_env.rules``) and its environments.

``ryderz_env.env()``, ``parallel_env()``, ``raw_env`` and ``single_agent_env()`` are loaded
lazily from :mod:`ryderz_env.envs`, so that importing the rules engine alone never imports
gymnasium or pettingzoo.
"""

from __future__ import annotations

from tabletop import registry as _registry
from tabletop.lazy import lazy_getattr

_ENV_NAMES = (
    "env",
    "parallel_env",
    "raw_env",
    "single_agent_env",
    "RyderzParallelEnv",
    "RyderzSingleAgentEnv",
    "register_envs",
    "ENV_ID",
    "ENV_NAME",
)

__all__ = list(_ENV_NAMES)

__getattr__ = lazy_getattr(__name__, "ryderz_env.envs", _ENV_NAMES)

_registry.get("ryderz").register_envs()
