"""Bot specs: the strings the arena, the evaluation and the server name bots by.

========================  =====================================================================
spec                      bot
========================  =====================================================================
``random``                :class:`agents.bot.RandomBot`
``heuristic``             the game's heuristic (the registry's ``heuristic``), its current version
``heuristic:KEY=VALUE``   the heuristic with some of its numbers changed: the keys are its
                          class's ``tunables`` (Lunatix Loop: ``hit_cost``, ``out_risk``,
                          ``ram_chance``; Lazer Ryderz: ``discount``, ``opponent_weight``
                          ...), checked with their ranges when the bot is made
``mcts:sims=400``         :class:`agents.mcts.MCTSBot` with the heuristic's ``value`` at its
                          leaves; keys: ``sims`` (simulations), ``ms`` (milliseconds a move),
                          ``depth`` (rollout decisions), ``c`` (exploration), ``chance``
                          (sampled children of a continuous chance node), ``scale``
                          (the value scale UCT divides means by), ``rollout``
                          (``random`` or ``heuristic``), ``eval`` (``heuristic``,
                          ``zero``, or ``fitted``: :mod:`agents.fitted_value`),
                          ``prior`` (``heuristic``: PUCT priors from the heuristic's moves,
                          or ``none``), ``pw`` (prior weight), ``pmix`` (uniform share of
                          the prior, 0..1), ``pdepth`` (tree levels with priors, 0: root),
                          ``norm`` (``1``: min-max normalised values, or ``0``),
                          ``settle`` (``1``: pending chance sampled before a leaf
                          is evaluated, or ``0``), ``minor`` (share of the budget, 0..1,
                          of the game's minor decisions: Lunatix Loop's lane steps;
                          0 plays the heuristic's move there), ``memo`` (``1``: the
                          heuristic's moves remembered by observation within a search,
                          where it decides from the observation alone: Lunatix Loop),
                          ``crn`` (``1``: common random numbers across root actions),
                          ``until`` (a decision kind: rollouts go on after ``depth``
                          decisions to the next decision of that kind, e.g. Lunatix
                          Loop's ``card``, the start of a round)
``policy:PATH``           a trained policy (:mod:`agents.policy_bot`): a run folder, or a
                          ``model.zip`` or ``policy.onnx`` with ``policy.json`` beside it
``trained``               the shipped trained policy of the game for the state's player
                          count (:mod:`agents.trained_bot`, docs/bots.md)
========================  =====================================================================

A spec is validated completely: an unknown bot, key or a bad value is a :class:`BotSpecError`
naming what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.bot import Bot, RandomBot
from tabletop import registry


class BotSpecError(ValueError):
    """A bot spec that names no bot, or a key or value a bot does not take."""


@dataclass(frozen=True)
class BotSpec:
    """A parsed spec: the bot's kind and its ``key=value`` options (or the policy path)."""

    kind: str
    options: tuple[tuple[str, str], ...] = ()
    path: str = ""

    def __str__(self) -> str:
        if self.kind == "policy":
            return f"policy:{self.path}"
        if not self.options:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.options)


KINDS = ("random", "heuristic", "mcts", "policy", "trained")

#: the options of ``mcts:``: name -> (MCTSBot keyword, parser)
_MCTS_KEYS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "sims": ("sims", int),
    "ms": ("max_ms", float),
    "depth": ("rollout_depth", int),
    "c": ("exploration", float),
    "chance": ("chance_children", int),
    "scale": ("value_scale", float),
    "pw": ("prior_weight", float),
    "pmix": ("prior_mix", float),
    "pdepth": ("prior_depth", int),
    "minor": ("minor_share", float),
}
_MCTS_CHOICES = {
    "rollout": ("random", "heuristic"),
    "eval": ("heuristic", "zero", "fitted"),
    "prior": ("none", "heuristic"),
    "norm": ("0", "1"),
    "settle": ("0", "1"),
    "memo": ("0", "1"),
    "crn": ("0", "1"),
}
#: mcts options that name a decision kind of the game (checked when the bot is made)
_MCTS_KINDS = {"until": "rollout_until"}
#: numeric mcts options that may be 0
_MCTS_ZERO_OK = ("depth", "pdepth", "pmix", "minor")


def parse(spec: str) -> BotSpec:
    """Parse a spec string (see the module's table)."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError(
            f"a bot spec must be a non-empty string, got {spec!r}; bots: {', '.join(KINDS)}"
        )
    kind, _, rest = spec.strip().partition(":")
    if kind not in KINDS:
        raise BotSpecError(f"unknown bot {kind!r} in {spec!r}; bots: {', '.join(KINDS)}")
    if kind == "policy":
        if not rest:
            raise BotSpecError("policy: needs a path (policy:runs/NAME or policy:PATH/model.zip)")
        return BotSpec(kind, path=rest)
    if kind in ("random", "trained"):
        if rest:
            raise BotSpecError(f"{kind} takes no options, got {rest!r}")
        return BotSpec(kind)
    if kind == "heuristic":
        return BotSpec(kind, _heuristic_options(spec, rest))
    options = []
    allowed = sorted([*_MCTS_KEYS, *_MCTS_CHOICES, *_MCTS_KINDS])
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in allowed:
            raise BotSpecError(
                f"mcts option {item!r}: expected key=value with keys {', '.join(allowed)}"
            )
        if any(k == key for k, _ in options):
            raise BotSpecError(f"mcts option {key!r} given twice in {spec!r}")
        if key in _MCTS_KINDS:
            if not value.isidentifier():
                raise BotSpecError(f"mcts {key}={value!r}: expected a decision kind's name")
        elif key in _MCTS_CHOICES:
            if value not in _MCTS_CHOICES[key]:
                raise BotSpecError(f"mcts {key}={value!r}: one of {_MCTS_CHOICES[key]}")
        else:
            try:
                number = _MCTS_KEYS[key][1](value)
            except ValueError:
                raise BotSpecError(f"mcts {key}={value!r} is not a number") from None
            if not number > 0 and not (key in _MCTS_ZERO_OK and number == 0):
                raise BotSpecError(f"mcts {key}={value!r} must be positive")
            if key in ("pmix", "minor") and number > 1:
                raise BotSpecError(f"mcts {key}={value!r} must be between 0 and 1")
        options.append((key, value))
    return BotSpec(kind, tuple(options))


def _heuristic_options(spec: str, rest: str) -> tuple[tuple[str, str], ...]:
    """The ``key=number`` options of a ``heuristic:`` spec (the keys are the game's, checked
    by :func:`heuristic_kwargs` when the bot is made)."""
    options: list[tuple[str, str]] = []
    for item in filter(None, rest.split(",")):
        key, eq, value = (t.strip() for t in item.partition("="))
        if not eq or not key.isidentifier() or not value:
            raise BotSpecError(f"heuristic option {item!r} in {spec!r}: expected key=number")
        if any(k == key for k, _ in options):
            raise BotSpecError(f"heuristic option {key!r} given twice in {spec!r}")
        try:
            number = float(value)
        except ValueError:
            raise BotSpecError(f"heuristic {key}={value!r} is not a number") from None
        if not math.isfinite(number):
            raise BotSpecError(f"heuristic {key}={value!r} must be finite")
        options.append((key, value))
    return tuple(options)


def heuristic_kwargs(spec: BotSpec, heuristic: type) -> dict[str, int | float]:
    """The constructor keywords of a ``heuristic:`` spec for the game's ``heuristic`` class,
    checked against its ``tunables`` (a BotSpecError naming the keys and ranges allowed)."""
    tunables = getattr(heuristic, "tunables", {})
    kwargs: dict[str, int | float] = {}
    for key, value in spec.options:
        tunable = tunables.get(key)
        if tunable is None:
            allowed = ", ".join(
                f"{k} ({t.kind.__name__} in [{t.low:g}, {t.high:g}])" for k, t in tunables.items()
            )
            raise BotSpecError(
                f"{spec}: the {heuristic.__name__} has no option {key!r}; "
                f"options: {allowed or 'none'}"
            )
        try:
            kwargs[key] = tunable.check(key, float(value))
        except ValueError as exc:
            raise BotSpecError(f"{spec}: {exc}") from None
    return kwargs


def check_spec(spec: str, game: str) -> BotSpec:
    """``spec`` parsed and, where the game decides what it takes (a ``heuristic:`` spec's
    options), checked against ``game``'s bots; a BotSpecError naming the problem."""
    s = parse(spec)
    if s.kind == "heuristic":
        heuristic_kwargs(s, registry.get(game).heuristic_class())
    return s


def mcts_number_keys() -> tuple[str, ...]:
    """The numeric options of ``mcts:`` (``sims``, ``ms`` ...)."""
    return tuple(_MCTS_KEYS)


def mcts_choices() -> dict[str, tuple[str, ...]]:
    """The options of ``mcts:`` that take one of a few words, with those words."""
    return dict(_MCTS_CHOICES)


def split_specs(text: str) -> list[str]:
    """Comma-separated specs, where an item ``key=value`` with no ``:`` continues the spec
    before it: ``"heuristic,mcts:sims=400,depth=4,random"`` is three specs."""
    specs: list[str] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        if (
            "=" in item
            and ":" not in item.split("=", 1)[0]
            and specs
            and ":" in specs[-1]
            and not specs[-1].startswith("policy:")
        ):
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def make_bot(spec: str | BotSpec, game: str, seed: int | None = None) -> Bot:
    """The bot of ``spec`` for the registry game ``game`` (``lunatix``, ``ryderz``); its
    ``name`` is the spec as written canonically."""
    s = parse(spec) if isinstance(spec, str) else spec
    entry = registry.get(game)
    bot: Any
    if s.kind == "random":
        bot = RandomBot(seed)
    elif s.kind == "heuristic":
        heuristic = entry.heuristic_class()
        bot = heuristic(seed=seed, **heuristic_kwargs(s, heuristic))
    elif s.kind == "mcts":
        bot = _make_mcts(s, entry, seed)
    elif s.kind == "trained":
        from agents.trained_bot import TrainedBot

        bot = TrainedBot(entry.name, seed)
    else:
        from agents.policy_bot import PolicyBot

        bot = PolicyBot.load(s.path, game=entry.name, seed=seed)
    bot.name = str(s)
    return bot


def _evaluator(name: str, entry: registry.GameEntry, heuristic: type, seed: int | None) -> Any:
    """The leaf evaluator ``eval=name`` of an mcts spec."""
    from agents.mcts import ZeroEvaluator

    if name == "zero":
        return ZeroEvaluator()
    if name == "fitted":
        if not entry.value_features:
            raise BotSpecError(f"mcts eval=fitted: {entry.name} has no fitted value")
        from agents.fitted_value import FittedValue

        return FittedValue(entry.name)
    return heuristic(seed=seed)


def _make_mcts(s: BotSpec, entry: registry.GameEntry, seed: int | None) -> Bot:
    from agents.mcts import MCTSBot

    opts = dict(s.options)
    kwargs: dict[str, Any] = {
        k: _MCTS_KEYS[key][1](opts[key]) for key, (k, _) in _MCTS_KEYS.items() if key in opts
    }
    heuristic = entry.heuristic_class()
    kwargs["evaluator"] = _evaluator(opts.get("eval", "heuristic"), entry, heuristic, seed)
    if opts.get("rollout") == "heuristic":
        kwargs["rollout_policy"] = heuristic(seed=seed)
    if opts.get("prior") == "heuristic":
        kwargs["prior_policy"] = heuristic(seed=seed)
    kwargs["normalize"] = opts.get("norm") == "1"
    kwargs["settle_chance"] = opts.get("settle") == "1"
    kwargs["common_random"] = opts.get("crn") == "1"
    if opts.get("memo") == "1":
        if not getattr(heuristic, "decides_from_observation", False):
            raise BotSpecError(
                f"mcts memo=1: the {entry.name} heuristic does not decide from the "
                "observation alone, so its moves cannot be remembered by observation"
            )
        kwargs["memo"] = True
    for key, keyword in _MCTS_KINDS.items():
        if key in opts:
            kinds = entry.decision_kinds()
            if opts[key] not in kinds:
                raise BotSpecError(
                    f"mcts {key}={opts[key]!r}: not a decision kind of {entry.name}: "
                    f"{', '.join(kinds)}"
                )
            kwargs[keyword] = (opts[key],)
    if "minor" in opts:
        if kwargs["minor_share"] == 0 and not {"rollout_policy", "prior_policy"} & set(kwargs):
            raise BotSpecError(
                "mcts minor=0 plays the heuristic's move on minor decisions: it needs "
                "prior=heuristic or rollout=heuristic"
            )
        kwargs["minor_kinds"] = entry.minor_decisions
    extra = getattr(heuristic, "extra_actions", None)
    if extra is not None:  # candidate actions the engine's finite list leaves out (aims)
        kwargs["extra_actions"] = extra
    return MCTSBot(seed=seed, **kwargs)
