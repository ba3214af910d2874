"""YAML configs loaded into frozen dataclasses; unknown keys are an error.

``load_config(Cls, path)`` reads a YAML file; ``from_mapping(Cls, data, source)`` converts an
already-parsed mapping. Supported field types: ``int``, ``float``, ``str``, ``bool``, enums
(by value or by name), ``X | None``, ``tuple[X, ...]``, fixed ``tuple[X, Y]``,
``dict[K, V]`` and nested dataclasses. ``to_mapping`` is the inverse (plain JSON types).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib.resources
import math
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import yaml

from tabletop.errors import ConfigError

T = TypeVar("T")
#: libyaml's safe loader when PyYAML was built with it (several times faster), else Python's
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def is_finite_number(value: object) -> bool:
    """True for an int or float that is finite (a bool is not a number here: YAML's ``true``
    must not pass for 1)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def shipped_configs(name: str = "") -> Path:
    """The folder of the shipped configs, ``configs/<name>`` of the repository: installed
    with the project as the package ``tabletop_configs``, so found in a checkout (editable
    install) and in an installed wheel alike."""
    root = Path(str(importlib.resources.files("tabletop_configs")))
    path = root / name if name else root
    if not path.is_dir():
        raise ConfigError(
            f"the shipped configs folder {path} is missing: is the project "
            "installed (pip install -e . or a wheel)?"
        )
    return path


def load_yaml(path: str | Path) -> Any:
    """Parse a YAML file, raising ConfigError with the file name on failure."""
    p = Path(path)
    try:
        with p.open("r", encoding="utf-8") as fh:
            return yaml.load(fh, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader
    except OSError as exc:
        raise ConfigError(f"cannot read config file {p}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: invalid YAML: {exc}") from exc


def load_config(cls: type[T], path: str | Path) -> T:
    """Load ``path`` (YAML) into dataclass ``cls``; unknown or missing keys raise ConfigError."""
    return from_mapping(cls, load_yaml(path), source=str(path))


def from_mapping(cls: type[T], data: Any, source: str = "<config>", where: str = "") -> T:
    """Convert a parsed mapping into the frozen dataclass ``cls`` (recursively)."""
    return cast(T, _convert(cls, data, source, where or cls.__name__))


def to_mapping(obj: Any) -> Any:
    """Inverse of :func:`from_mapping`: dataclasses and enums to plain JSON types."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_mapping(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, tuple | list):
        return [to_mapping(v) for v in obj]
    if isinstance(obj, Mapping):
        return {to_mapping(k): to_mapping(v) for k, v in obj.items()}
    return obj


def _fail(source: str, where: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {where}: {msg}")


def _convert(tp: Any, value: Any, source: str, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(arg, value, source, where)
            except ConfigError as exc:
                errors.append(str(exc))
        raise _fail(source, where, f"value {value!r} matches none of {tp}: {'; '.join(errors)}")
    if dataclasses.is_dataclass(tp):
        return _convert_dataclass(tp, value, source, where)
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, list | tuple):
            raise _fail(source, where, f"expected a list, got {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, source, f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise _fail(source, where, f"expected {len(args)} items, got {len(value)}")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(_convert(a, v, source, f"{where}[{i}]") for i, (a, v) in pairs)
    if origin is dict:
        kt, vt = typing.get_args(tp)
        if not isinstance(value, Mapping):
            raise _fail(source, where, f"expected a mapping, got {type(value).__name__}")
        return {
            _convert(kt, k, source, f"{where}.{k}"): _convert(vt, v, source, f"{where}.{k}")
            for k, v in value.items()
        }
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        for member in tp:
            if value == member.value or value == member.name:
                return member
        allowed = ", ".join(str(m.value) for m in tp)
        raise _fail(source, where, f"unknown value {value!r}; allowed: {allowed}")
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(source, where, f"expected true/false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(source, where, f"expected an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(source, where, f"expected a number, got {value!r}")
        if not math.isfinite(value):
            raise _fail(source, where, f"expected a finite number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _fail(source, where, f"expected a string, got {value!r}")
        return value
    raise _fail(source, where, f"unsupported field type {tp!r}")


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    """A dataclass's resolved field types (worked out once per class: a game is built per
    episode in some runs, and resolving them was most of building its config)."""
    return typing.get_type_hints(cls)


def _convert_dataclass(cls: Any, value: Any, source: str, where: str) -> Any:
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise _fail(source, where, f"expected a mapping for {cls.__name__}, got {value!r}")
    hints = _type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = [k for k in value if k not in fields]
    if unknown:
        raise _fail(
            source,
            where,
            f"unknown key {unknown[0]!r} for {cls.__name__}; allowed keys: {', '.join(fields)}",
        )
    kwargs = {}
    for name, f in fields.items():
        if name in value:
            kwargs[name] = _convert(hints[name], value[name], source, f"{where}.{name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _fail(source, where, f"missing required key {name!r} for {cls.__name__}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise _fail(source, where, str(exc)) from exc
