"""Registering a game's env ids on ``import <game package>`` without importing any RL
library.

``import lunatix_env`` (or ``ryderz_env``) registers the game's ids with Gymnasium (the
single-agent view) and PettingZoo (aec and parallel), so that ``gymnasium.make(
"LunatixLoop-v0")`` and the module-qualified ``gymnasium.make("lunatix_env:LunatixLoop-v0")``
work in any process, vector-env workers included. Gymnasium 1.x and PettingZoo 1.27 load no
plugin entry points, so the package has to do it, as ale_py and highway_env do; but
``import lunatix_env.rules`` runs ``lunatix_env/__init__.py`` first and must still load
neither library.

So registration is done per library, at the moment that library is there:

- a library already imported (``sys.modules``) gets the ids at once;
- a library not yet imported (or still importing) gets them right after its own ``import``
  finishes: a finder on ``sys.meta_path`` (:class:`AfterImportFinder`) wraps that one
  module's loader, runs its ``exec_module`` unchanged, puts the original loader back on the
  module, then registers (and leaves ``sys.meta_path`` once nothing waits). A registration
  that fails only warns: the library's import never fails for it.

Registration uses entry-point strings only (``"lunatix_env.envs:env"``), so it imports no
env module either; registering twice is harmless.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop.registry import GameEntry

#: library -> what registers one entry's ids with it (the loaded library module passed in)
Registrar = Callable[[ModuleType, "GameEntry"], None]


def _register_gymnasium(gymnasium: ModuleType, entry: GameEntry) -> None:
    if entry.env_id not in gymnasium.registry:
        gymnasium.register(entry.env_id, entry_point=entry.single_agent)


def _register_pettingzoo(pettingzoo: ModuleType, entry: GameEntry) -> None:
    if entry.env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", entry.env_id, entry_point=f"{entry.envs_module}:env")
    if entry.env_id not in pettingzoo.parallel_registry:
        pettingzoo.register(
            "parallel", entry.env_id, entry_point=f"{entry.envs_module}:parallel_env"
        )


REGISTRARS: dict[str, Registrar] = {
    "gymnasium": _register_gymnasium,
    "pettingzoo": _register_pettingzoo,
}

#: library -> the entries waiting for that library's import
_pending: dict[str, list[GameEntry]] = {}
#: guards ``_pending`` and the finder's place on ``sys.meta_path``
_lock = threading.RLock()
#: names :meth:`AfterImportFinder.find_spec` is resolving now (no re-entry into itself)
_resolving: set[str] = set()


def _register(library: str, module: ModuleType, entry: GameEntry) -> None:
    """Register ``entry`` with ``library``; a failure warns (a registration bug must never
    make the library's own import fail)."""
    try:
        REGISTRARS[library](module, entry)
    except Exception as err:  # noqa: BLE001 - any failure of a registrar is only warned
        warnings.warn(
            f"registering {entry.env_id} with {library} failed: {err!r}",
            RuntimeWarning,
            stacklevel=2,
        )


def _loaded(module: ModuleType | None) -> bool:
    """Whether ``module`` is there and done (not still running its own import)."""
    if module is None:
        return False
    spec = getattr(module, "__spec__", None)
    return not getattr(spec, "_initializing", False)


class _RegisteringLoader(importlib.abc.Loader):
    """A library's own loader, which registers the waiting entries once the library has
    loaded (and then gives the module its own loader back)."""

    def __init__(self, loader: Any, library: str) -> None:
        self.loader = loader
        self.library = library

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        with _lock:
            waiting = _pending.pop(self.library, [])
            if not _pending and _FINDER in sys.meta_path:
                sys.meta_path.remove(_FINDER)
        for entry in waiting:
            _register(self.library, module, entry)

    def __getattr__(self, name: str) -> Any:  # resource readers, get_source, ...
        if name == "loader":  # not set yet (a copy, an unpickled one): no recursion
            raise AttributeError(name)
        return getattr(self.loader, name)


class AfterImportFinder(importlib.abc.MetaPathFinder):
    """Finds a waiting library with the other finders and wraps its loader so that the
    library's import ends by registering the waiting entries; other names are not its."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _pending or fullname in _resolving:
            return None
        _resolving.add(fullname)
        try:
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None  # not installed: nothing to register with
        finally:
            _resolving.discard(fullname)
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisteringLoader(spec.loader, fullname)
        return spec


_FINDER = AfterImportFinder()


def register_when_loaded(entry: GameEntry) -> None:
    """Register ``entry``'s env ids with Gymnasium and PettingZoo now for each one already
    imported, and right after its import for each one not yet imported; imports neither."""
    for library in REGISTRARS:
        with _lock:
            module = sys.modules.get(library)
            if not _loaded(module):  # not imported, or its import still running
                waiting = _pending.setdefault(library, [])
                if entry not in waiting:
                    waiting.append(entry)
                if _FINDER not in sys.meta_path:
                    sys.meta_path.insert(0, _FINDER)
                continue
        _register(library, module, entry)  # type: ignore[arg-type]
