"""A leaf value fitted to the outcomes of heuristic games: ``mcts:eval=fitted``.

The heuristics' ``value`` is hand-set (Lunatix Loop's: a softmax over the rounds each car
still needs, at a temperature of 3 rounds). This module fits the same shape of model to what
actually happens: a **conditional logit** over who wins. Every live seat ``i`` is an
alternative with the score ``theta . x_i`` (its features, the same weights for every seat),
and "nobody" (every car out, the round limit) one more with ``beta . c`` (features of the
position); the probability that seat ``i`` wins is the softmax of the scores. The value of a
seat is then ``P(win) * w - P(another seat wins) * w / (n - 1)``, the expected return on the
scale of ``state.returns()`` (zero-sum in two-player games, as the returns are).

- **Features** come from the game's registry entry (``value_features``: a function of a
  state and the seat that asks, reading only what that seat may know; Lunatix Loop's in
  :mod:`agents.heuristic_lunatix`, Lazer Ryderz's in :mod:`agents.heuristic_ryderz`).
- **Data**: the game's heuristic plays every seat of ``games`` seeded games; every
  ``stride``-th decision is a row (its features and the game's winner). Rows of the same
  game are correlated, so the held-out games (every fifth) give the honest figure.
- **Fit**: maximum likelihood by Newton's method (a concave problem: a few iterations),
  numpy only; a small ridge keeps it defined when a feature never varies.
- **Files**: ``agents/values/<game>_<N>p.json``, installed with the package: the features'
  names, the weights, and how they were fitted (games, seed, rows, log-losses of the fit and
  of the held-out games). ``python -m agents.fitted_value --game lunatix --players 2``
  regenerates one; the loader checks every field.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from tabletop import registry
from tabletop.errors import ConfigError, InvalidStateError
from tabletop.protocol import State

#: the folder of the shipped value models inside the installed ``agents`` package
SHIPPED = "values"
#: ridge penalty of the fit (per row), enough to keep a constant feature's weight at 0
RIDGE = 1e-6
#: rows of the held-out games: game index % HOLDOUT == 0
HOLDOUT = 5

#: ``(alive seats, seat features n x k, nobody's features m)`` of a position
Features = tuple[np.ndarray, np.ndarray, np.ndarray]


class FeatureFn(Protocol):
    """A game's features of a position for the fitted value (registry ``value_features``):
    called with a state and the seat that asks, it reads only what that seat may know; the
    names say what each column is. An optional ``public = True`` says it reads public facts
    only (the same features whatever seat asks), so :meth:`FittedValue.values` computes them
    once for every seat."""

    seat_names: tuple[str, ...]
    none_names: tuple[str, ...]

    def __call__(self, state: State, seat: int) -> Features:
        """``(alive seats, seat features, nobody's features)`` of the position."""
        ...


@dataclass(frozen=True)
class ValueModel:
    """A fitted conditional logit over the winner of a game (see the module's docstring)."""

    game: str
    players: int
    seat_features: tuple[str, ...]
    none_features: tuple[str, ...]
    seat_weights: tuple[float, ...]
    none_weights: tuple[float, ...]
    #: how it was fitted: games, seed, stride, rows, log-losses (``fit``, ``held_out``)
    fitted: dict[str, Any]

    def probabilities(self, feats: Features) -> tuple[np.ndarray, float]:
        """``(P(seat i wins) for every seat, P(nobody wins))``; 0 for a seat that is out."""
        alive, x, c = feats
        scores = np.where(alive, x @ np.asarray(self.seat_weights), -np.inf)
        none = float(c @ np.asarray(self.none_weights))
        top = max(float(scores.max()), none)
        ex = np.exp(scores - top)
        en = math.exp(none - top)
        total = float(ex.sum()) + en
        return ex / total, en / total

    def to_json(self) -> dict[str, Any]:
        """The model as the JSON object of its file."""
        data = asdict(self)
        for key in ("seat_features", "none_features", "seat_weights", "none_weights"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, data: Any, origin: str = "value model") -> ValueModel:
        """A model from its JSON object, every field checked (:class:`ConfigError`)."""
        if not isinstance(data, dict):
            raise ConfigError(f"{origin}: expected a JSON object, got {type(data).__name__}")
        want = {f: None for f in cls.__dataclass_fields__}
        extra = sorted(set(data) - set(want))
        missing = sorted(set(want) - set(data))
        if extra or missing:
            raise ConfigError(
                f"{origin}: unknown keys {extra} / missing keys {missing}; keys: {sorted(want)}"
            )
        game, players = data["game"], data["players"]
        if game not in registry.names():
            raise ConfigError(f"{origin}: game {game!r} is not one of {registry.names()}")
        if type(players) is not int or players < 2:
            raise ConfigError(f"{origin}: players must be an int >= 2, got {players!r}")
        names: dict[str, tuple[str, ...]] = {}
        for key in ("seat_features", "none_features"):
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{origin}: {key} must be a list of names, got {value!r}")
            names[key] = tuple(value)
        weights: dict[str, tuple[float, ...]] = {}
        for key, of in (("seat_weights", "seat_features"), ("none_weights", "none_features")):
            value = data[key]
            if (
                not isinstance(value, list)
                or len(value) != len(names[of])
                or not all(type(v) in (int, float) and math.isfinite(v) for v in value)
            ):
                raise ConfigError(
                    f"{origin}: {key} must be {len(names[of])} finite numbers (one per "
                    f"{of} entry), got {value!r}"
                )
            weights[key] = tuple(float(v) for v in value)
        if not isinstance(data["fitted"], dict):
            raise ConfigError(f"{origin}: fitted must be an object, got {data['fitted']!r}")
        return cls(
            game=game,
            players=players,
            seat_features=names["seat_features"],
            none_features=names["none_features"],
            seat_weights=weights["seat_weights"],
            none_weights=weights["none_weights"],
            fitted=dict(data["fitted"]),
        )


def shipped_path(game: str, players: int) -> Path:
    """``agents/values/<game>_<N>p.json`` inside the installed package."""
    return Path(str(resources.files("agents").joinpath(SHIPPED, f"{game}_{players}p.json")))


def load_model(game: str, players: int, path: str | Path | None = None) -> ValueModel:
    """The shipped model of ``game`` for ``players`` (or the file ``path``), checked against
    the features the game's registry entry computes now."""
    entry = registry.get(game)
    seat_names, none_names = feature_names(entry.name)
    file = Path(path) if path is not None else shipped_path(entry.name, players)
    if path is not None and not file.is_file():
        raise ConfigError(f"{file}: no such value model file")
    if not file.is_file():
        shipped = sorted(p.name for p in file.parent.glob(f"{entry.name}_*p.json"))
        raise InvalidStateError(
            f"no fitted value for {entry.name} with {players} players ({file.name}); "
            f"shipped: {shipped or 'none'}"
        )
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{file}: not a readable JSON file ({exc})") from None
    model = ValueModel.from_json(data, str(file))
    if model.game != entry.name or model.players != players:
        raise ConfigError(
            f"{file}: a model of {model.game} with {model.players} players, "
            f"wanted {entry.name} with {players}"
        )
    if (model.seat_features, model.none_features) != (seat_names, none_names):
        raise ConfigError(
            f"{file}: fitted on features {model.seat_features} / {model.none_features}, "
            f"the game computes {seat_names} / {none_names}: refit it"
        )
    return model


def feature_function(game: str) -> FeatureFn:
    """The game's feature function (its registry entry's ``value_features``)."""
    entry = registry.get(game)
    if not entry.value_features:
        raise InvalidStateError(f"{entry.name} has no features for a fitted value")
    fn: FeatureFn = registry.resolve(entry.value_features)
    return fn


def feature_names(game: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(seat feature names, nobody's feature names)`` of the game's feature function."""
    fn = feature_function(game)
    return fn.seat_names, fn.none_names


class FittedValue:
    """An :class:`~agents.bot.Evaluator` from the shipped fitted model of the state's game
    and player count (loaded at first use)."""

    name = "fitted"

    def __init__(self, game: str, path: str | Path | None = None) -> None:
        self.game = registry.get(game).name
        self.path = path
        self.features = feature_function(self.game)
        self._models: dict[int, ValueModel] = {}

    def model(self, players: int) -> ValueModel:
        """The model for ``players`` players."""
        got = self._models.get(players)
        if got is None:
            got = self._models[players] = load_model(self.game, players, self.path)
        return got

    def probabilities(self, state: State, seat: int) -> tuple[np.ndarray, float]:
        """``(P(seat i wins), P(nobody wins))`` from what ``seat`` may know."""
        model = self.model(cast(Any, state).game.info.num_players)
        return model.probabilities(self.features(state, seat))

    def value(self, state: State, seat: int) -> float:
        """The expected return of ``seat`` (scale of ``state.returns()``)."""
        if state.is_terminal():
            return float(state.returns()[seat])
        p, _ = self.probabilities(state, seat)
        return _expected_return(state, p, seat)

    def values(self, state: State) -> list[float]:
        """``[value(state, i) for every seat i]``: where the game's features read public
        facts only (``public`` on the feature function: the same whatever seat observes),
        the features and probabilities are computed once, not once per seat."""
        n = cast(Any, state).game.info.num_players
        if state.is_terminal():
            return [float(v) for v in state.returns()]
        if not getattr(self.features, "public", False):
            return [self.value(state, i) for i in range(n)]
        p, _ = self.probabilities(state, 0)
        return [_expected_return(state, p, i) for i in range(n)]


def _expected_return(state: State, p: np.ndarray, seat: int) -> float:
    """A seat's expected return from the win probabilities ``p`` (scale of
    ``state.returns()``): a seat that is out has P(win) = 0, and loses unless nobody wins."""
    w = float(cast(Any, state).game.info.max_utility)
    mine = float(p[seat])
    return mine * w - (float(p.sum()) - mine) * w / (len(p) - 1)


# ---------------------------------------------------------------------------- fitting
@dataclass
class Rows:
    """Training rows: alive masks (r x n), seat features (r x n x k), nobody's features
    (r x m), the winner (seat, or n for nobody) and the game of each row."""

    alive: np.ndarray
    x: np.ndarray
    c: np.ndarray
    winner: np.ndarray
    game: np.ndarray


#: (game, players) -> (game, bots) of this process
_TABLES: dict[tuple[str, int], tuple[Any, list[Any]]] = {}


def _play(args: tuple[str, int, int, int, int]) -> list[tuple[Features, int, int]]:
    """Heuristic self-play of game ``index``: its rows (features, winner or -1, index)."""
    game_name, players, seed, index, stride = args
    key = (game_name, players)
    if key not in _TABLES:  # one game and one set of bots a process: the heuristics' caches
        entry = registry.get(game_name)
        heuristic = entry.heuristic_class()
        _TABLES[key] = (entry.game(num_players=players), [heuristic() for _ in range(players)])
    game, bots = _TABLES[key]
    fn = feature_function(game_name)
    for bot, s in zip(bots, _seeds(seed, index, players), strict=True):
        bot.reset(int(s))
    state = game.new_initial_state(int(_seeds(seed, index, 1, key=1)[0] >> np.uint64(2)))
    rng = np.random.default_rng(np.random.SeedSequence([seed, index, 2]))
    rows: list[tuple[Features, int, int]] = []
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance(state.sample_chance(rng))
            continue
        deciders = state.current_players()
        if decisions % stride == 0:
            rows.append((fn(state, deciders[0]), -1, index))
        decisions += 1
        actions = {s: bots[s].act(state, s) for s in deciders}
        if len(deciders) == 1:
            state.apply_action(actions[deciders[0]])
        else:
            state.apply_actions(actions)
    winner = state.outcome().winner
    label = players if winner is None else int(winner)
    return [(f, label, i) for f, _, i in rows]


def _seeds(seed: int, index: int, count: int, key: int = 0) -> np.ndarray:
    return np.random.SeedSequence([seed, index, key]).generate_state(count, np.uint64)


def collect(
    game: str, players: int, games: int, seed: int, stride: int = 4, processes: int = 1
) -> Rows:
    """Rows of ``games`` heuristic self-play games (the same whatever ``processes``)."""
    jobs = [(registry.get(game).name, players, seed, i, stride) for i in range(games)]
    if processes > 1:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            parts = pool.map(_play, jobs, chunksize=max(1, games // (processes * 8)))
    else:
        parts = [_play(j) for j in jobs]
    flat = [row for part in parts for row in part]
    return Rows(
        alive=np.array([f[0] for f, _, _ in flat], dtype=bool),
        x=np.array([f[1] for f, _, _ in flat], dtype=np.float64),
        c=np.array([f[2] for f, _, _ in flat], dtype=np.float64),
        winner=np.array([w for _, w, _ in flat], dtype=np.int64),
        game=np.array([i for _, _, i in flat], dtype=np.int64),
    )


def _design(rows: Rows) -> tuple[np.ndarray, np.ndarray]:
    """Alternatives as vectors over ``[theta; beta]``: ``(r x (n+1) x (k+m), mask)``."""
    r, n, k = rows.x.shape
    m = rows.c.shape[1]
    z = np.zeros((r, n + 1, k + m))
    z[:, :n, :k] = rows.x
    z[:, n, k:] = rows.c
    mask = np.concatenate([rows.alive, np.ones((r, 1), dtype=bool)], axis=1)
    return z, mask


def log_loss(rows: Rows, weights: np.ndarray) -> float:
    """Mean negative log-likelihood of the winners under ``weights`` (``[theta; beta]``)."""
    z, mask = _design(rows)
    s = np.where(mask, z @ weights, -np.inf)
    top = s.max(axis=1, keepdims=True)
    lse = np.log(np.exp(s - top).sum(axis=1)) + top[:, 0]
    return float(np.mean(lse - s[np.arange(len(s)), rows.winner]))


def fit_logit(rows: Rows, iterations: int = 50, tol: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood weights ``[theta; beta]`` by Newton's method (with a small ridge
    and step halving, so every step lowers the loss)."""
    z, mask = _design(rows)
    r, _, d = z.shape
    chosen = z[np.arange(r), rows.winner]
    w = np.zeros(d)

    def loss(w: np.ndarray) -> float:
        return log_loss(rows, w) + RIDGE * float(w @ w)

    current = loss(w)
    for _ in range(iterations):
        s = np.where(mask, z @ w, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("ra,rad->rd", p, z)
        grad = (mean - chosen).mean(axis=0) + 2 * RIDGE * w
        second = np.einsum("ra,rad,rae->de", p, z, z) / r - mean.T @ mean / r
        hess = second + 2 * RIDGE * np.eye(d)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:
            trial = w - t * step
            got = loss(trial)
            if got <= current:
                break
            t /= 2
        else:
            break
        w, done = trial, current - got < tol
        current = got
        if done:
            break
    return w


def fit(
    game: str, players: int, games: int, seed: int, stride: int = 4, processes: int = 1
) -> ValueModel:
    """Play, fit on four games of five and measure on the fifth, then refit on all."""
    name = registry.get(game).name
    rows = collect(name, players, games, seed, stride, processes)
    held = rows.game % HOLDOUT == 0

    def part(sel: np.ndarray) -> Rows:
        return Rows(rows.alive[sel], rows.x[sel], rows.c[sel], rows.winner[sel], rows.game[sel])

    train, test = part(~held), part(held)
    w_train = fit_logit(train)
    w = fit_logit(rows)
    seat_names, none_names = feature_names(name)
    k = len(seat_names)
    return ValueModel(
        game=name,
        players=players,
        seat_features=seat_names,
        none_features=none_names,
        seat_weights=tuple(round(float(v), 6) for v in w[:k]),
        none_weights=tuple(round(float(v), 6) for v in w[k:]),
        fitted={
            "games": games,
            "seed": seed,
            "stride": stride,
            "rows": int(len(rows.winner)),
            "nobody_won": round(float(np.mean(rows.winner == players)), 4),
            "log_loss_fit_four_fifths": round(log_loss(train, w_train), 4),
            "log_loss_held_out_fifth": round(log_loss(test, w_train), 4),
            "log_loss_all": round(log_loss(rows, w), 4),
            "log_loss_uniform": round(float(np.mean(np.log(rows.alive.sum(axis=1) + 1.0))), 4),
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.fitted_value --game lunatix --players 2 --games 5000``."""
    ap = argparse.ArgumentParser(prog="python -m agents.fitted_value", description=__doc__)
    ap.add_argument("--game", required=True, choices=registry.names())
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stride", type=int, default=4, help="a row every STRIDE decisions")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--out", type=Path, help="default: the shipped agents/values/ file")
    args = ap.parse_args(argv)
    if args.games < HOLDOUT or args.stride < 1 or args.processes < 1 or args.players < 2:
        ap.error(f"--games >= {HOLDOUT}, --stride >= 1, --processes >= 1, --players >= 2")
    t0 = time.perf_counter()
    model = fit(args.game, args.players, args.games, args.seed, args.stride, args.processes)
    out = args.out or shipped_path(model.game, model.players)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model.to_json(), indent=2) + "\n", encoding="utf-8")
    print(json.dumps(model.to_json(), indent=2))
    print(f"wrote {out} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
