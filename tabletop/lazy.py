"""Lazy attributes of a game package: its env names load the env module on first access, so
importing the rules engine alone never imports gymnasium or pettingzoo."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_getattr(package: str, module: str, names: tuple[str, ...]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that takes ``names`` from ``module``."""

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(module), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
