"""Lunatix Loop: the rules engine (``lunatix_env.rules``) and its environments.

``lunatix_env.env()``, ``parallel_env()``, ``raw_env`` and ``single_agent_env()`` are
loaded lazily from :mod:`lunatix_env.envs`, so that importing the rules engine alone never
imports gymnasium or pettingzoo.
"""

from __future__ import annotations

from tabletop import registry as _registry
from tabletop.lazy import lazy_getattr

_ENV_NAMES = (
    "env",
    "parallel_env",
    "raw_env",
    "single_agent_env",
    "LunatixParallelEnv",
    "LunatixSingleAgentEnv",
    "register_envs",
    "ENV_ID",
    "ENV_NAME",
)

__all__ = list(_ENV_NAMES)

__getattr__ = lazy_getattr(__name__, "lunatix_env.envs", _ENV_NAMES)

_registry.get("lunatix").register_envs()
