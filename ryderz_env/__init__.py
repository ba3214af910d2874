"""Lazer Ryderz: the rules engine (``ryderz_env.rules``) and its environments.

``ryderz_env.env()``, ``parallel_env()``, ``raw_env`` and ``single_agent_env()`` are loaded
lazily from :mod:`ryderz_env.envs`, so that importing the rules engine alone never imports
gymnasium or pettingzoo.
"""

from __future__ import annotations

from typing import Any

_ENV_NAMES = ("env", "parallel_env", "raw_env", "single_agent_env", "RyderzParallelEnv",
              "RyderzSingleAgentEnv", "register_envs", "ENV_ID", "ENV_NAME")

__all__ = list(_ENV_NAMES)


def __getattr__(name: str) -> Any:
    if name in _ENV_NAMES:
        from ryderz_env import envs

        return getattr(envs, name)
    raise AttributeError(f"module 'ryderz_env' has no attribute {name!r}")
