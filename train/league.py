"""The self-play league: the opponents a learner trains against, drawn from frozen snapshots
of itself and the fixed bots, with the results that steer the draw.

**Members.** The fixed bots named in the mixture (``random``, ``heuristic`` and optionally
``mcts``, any bot spec of ``agents.specs``) and the learner's **snapshots**: every
``snapshot_every`` PPO updates (and once before the first) the learner's current weights
are exported to ``<run>/league/snap-NNNN/`` as ``policy.onnx`` + ``policy.json``
(docs/policies.md). A snapshot plays from that file under onnxruntime, so it keeps the
weights it was frozen with whatever the learner does next, and it is a ``policy:PATH`` bot
for the arena as it is.

**Drawing opponents.** At every episode each opponent seat draws a mixture entry with the
configured weights (entries with nothing to draw from are left out and the rest
renormalised), then a member of that entry. With ``whole_table`` > 0 that share of the
games draws one entry for all the opponent seats instead: a table of three heuristics, of
three random players or of three snapshots, the tables the learner is measured against,
which independent draws seldom make (three random players with weight 0.2: 0.8% of games).
The entries:

- ``latest``: uniform over the latest ``latest`` snapshots;
- ``prioritized``: prioritised fictitious self-play (AlphaStar's PFSP, Vinyals et al. 2019)
  over every snapshot and fixed bot of the league, weight ``(1 - s) ** pfsp_power`` where
  ``s`` is the learner's score against the member so far (wins + draws / 2 over games, with
  one pseudo-win and one pseudo-loss so that a new member starts at 0.5): the opponents it
  loses to come more often;
- ``random``, ``heuristic``, ``mcts``: that bot.

Draws come from the view's opponent generator, itself seeded from the env's seed, so a
training run is reproducible for a seed on one machine.

**Results.** Every finished training game adds the learner's score (1 won, 0 lost, 1/2 when
nobody won) against each opponent it faced; that is what ``prioritized`` reads. The league's
ratings come from its evaluation games instead (``train.selfplay``): the learner's
training games would rate an opponent against a moving target.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs, VecEnvStepReturn

from agents.onnx_policy import OnnxPolicy
from agents.policy_bot import MODES, ONNX_FILE, POLICY_JSON, PolicyMeta, write_policy_json
from agents.specs import BotSpecError, make_bot, parse
from tabletop.env_single import random_policy
from tabletop.errors import ConfigError
from train.vec_env import GroupedVecEnv

#: mixture entries that draw a snapshot
SNAPSHOT_ENTRIES = ("latest", "prioritized")
#: mixture entries that are a fixed bot
BOT_ENTRIES = ("random", "heuristic", "mcts")
LEAGUE_JSON = "league.json"
#: the ``info`` key of a finished game's deferred score (:class:`LeagueResults`)
LEAGUE_SCORE = "league_score"
#: the kinds of opponent time a :class:`Clock` keeps
CLOCK_KINDS = ("snapshot", "bot")


@dataclass(frozen=True)
class LeagueConfig:
    """How a self-play league adds snapshots and draws opponents (see the module)."""

    #: PPO updates (rollouts) between two snapshots
    snapshot_every: int = 10
    #: the ``latest`` entry draws among this many newest snapshots
    latest: int = 5
    #: entry -> weight (``latest``, ``prioritized``, ``random``, ``heuristic``, ``mcts``)
    mixture: dict[str, float] = field(
        default_factory=lambda: {"latest": 0.5, "heuristic": 0.3, "random": 0.2}
    )
    #: exponent of the PFSP weight ``(1 - score) ** pfsp_power``
    pfsp_power: float = 2.0
    #: share of games whose opponent seats all draw from one mixture entry (a whole table of
    #: heuristics, of random players, of snapshots); the others draw an entry per seat
    whole_table: float = 0.0
    #: how snapshots play: ``sampled`` (from their masked distribution) or ``greedy``
    snapshot_mode: str = "sampled"
    #: the bot spec of the ``mcts`` entry (required when its weight is positive)
    mcts: str = ""
    #: evaluate every this many snapshots (``train.selfplay``), 0: never during training
    eval_every: int = 2
    #: how a snapshot plays in those evaluations (``greedy``: its most likely action)
    eval_mode: str = "greedy"
    #: games per evaluation against each fixed opponent set (the heuristic, random)
    eval_games: int = 40

    def __post_init__(self) -> None:
        known = SNAPSHOT_ENTRIES + BOT_ENTRIES
        unknown = sorted(set(self.mixture) - set(known))
        if unknown:
            raise ConfigError(f"league.mixture: unknown entries {unknown} (known: {known})")
        if any(not isinstance(w, (int, float)) or w < 0 for w in self.mixture.values()):
            raise ConfigError(f"league.mixture: weights must be numbers >= 0: {self.mixture}")
        if sum(self.mixture.values()) <= 0:
            raise ConfigError("league.mixture: at least one weight must be positive")
        if self.snapshot_every < 1 or self.latest < 1 or self.eval_games < 1:
            raise ConfigError("league: snapshot_every, latest and eval_games must be >= 1")
        if self.eval_every < 0 or self.pfsp_power < 0:
            raise ConfigError("league: eval_every and pfsp_power must be >= 0")
        share = self.whole_table
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
            raise ConfigError(f"league.whole_table: a share in [0, 1], got {self.whole_table!r}")
        if self.snapshot_mode not in MODES or self.eval_mode not in MODES:
            raise ConfigError(f"league.snapshot_mode and eval_mode must be one of {MODES}")
        if self.mixture.get("mcts", 0) > 0:
            try:
                kind = parse(self.mcts).kind if self.mcts else ""
            except BotSpecError as exc:
                raise ConfigError(f"league.mcts: {exc}") from None
            if kind != "mcts":
                raise ConfigError("league.mcts: an mcts:... bot spec for the mcts entry")

    def bot_spec(self, entry: str) -> str:
        """The bot spec of a fixed-bot entry."""
        return self.mcts if entry == "mcts" else entry


@dataclass
class Record:
    """The learner's results against one member."""

    games: int = 0
    score: float = 0.0

    def pfsp_score(self) -> float:
        """The score with one pseudo-win and one pseudo-loss (0.5 before any game)."""
        return (self.score + 1.0) / (self.games + 2.0)


class League:
    """The members, their results and the draw (see the module). ``folder`` holds the
    snapshots and ``league.json``; ``meta`` is the learner's ``policy.json`` contents."""

    def __init__(self, cfg: LeagueConfig, folder: Path, meta: PolicyMeta) -> None:
        self.cfg = cfg
        self.folder = Path(folder)
        self.meta = replace(meta, mode=cfg.snapshot_mode, model="", onnx=ONNX_FILE)
        self.snapshots: list[str] = []
        #: snapshot id -> learner timesteps when it was taken
        self.taken_at: dict[str, int] = {}
        self.bots = [e for e in BOT_ENTRIES if cfg.mixture.get(e, 0) > 0]
        self.records: dict[str, Record] = {cfg.bot_spec(e): Record() for e in self.bots}
        self._sessions: dict[str, OnnxPolicy] = {}
        #: counts the changes of the state (snapshots and records), for :class:`LeagueSync`
        self.version = 0

    def __getstate__(self) -> dict[str, Any]:
        """The league without its onnxruntime sessions (a cache; they cannot be pickled):
        a worker process's copy opens its own. A copy's version is -1, which no league
        state has, so that :class:`LeagueSync`'s first sending always replaces it."""
        return {**self.__dict__, "_sessions": {}, "version": -1}

    # -- members
    def snapshot_dir(self, sid: str) -> Path:
        """The folder of a snapshot (a policy folder)."""
        return self.folder / sid

    def eval_dir(self, sid: str, create: bool = True) -> Path:
        """The snapshot as the evaluations play it: a policy folder of its ``policy.onnx``
        in ``eval_mode`` (the snapshot's own folder when the modes agree), written on first
        use unless ``create`` is False."""
        if self.cfg.eval_mode == self.cfg.snapshot_mode:
            return self.snapshot_dir(sid)
        d = self.snapshot_dir(sid) / self.cfg.eval_mode
        if create and not (d / POLICY_JSON).is_file():
            d.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.snapshot_dir(sid) / ONNX_FILE, d / ONNX_FILE)
            write_policy_json(d, replace(self.meta, mode=self.cfg.eval_mode))
        return d

    def add_snapshot(self, export: Callable[[Path], Any], timesteps: int) -> str:
        """Freeze the learner: ``export(path)`` writes its ``policy.onnx`` at ``path``;
        the snapshot's ``policy.json`` is written beside it. Returns its id."""
        sid = f"snap-{len(self.snapshots):04d}"
        d = self.snapshot_dir(sid)
        d.mkdir(parents=True, exist_ok=True)
        export(d / ONNX_FILE)
        write_policy_json(d, self.meta)
        self.snapshots.append(sid)
        self.taken_at[sid] = timesteps
        self.records[sid] = Record()
        self.version += 1
        self.save()
        return sid

    def members(self) -> list[str]:
        """Every member id: the fixed bots' specs, then the snapshots in order."""
        return [self.cfg.bot_spec(e) for e in self.bots] + list(self.snapshots)

    def kind(self, member: str) -> str:
        """A member's kind: ``snapshot`` for a snapshot, else its fixed-bot entry
        (``random``, ``heuristic``, ``mcts``)."""
        if member in self.taken_at:
            return "snapshot"
        return next((e for e in self.bots if self.cfg.bot_spec(e) == member), member)

    def session(self, sid: str) -> OnnxPolicy:
        """The snapshot's policy (one onnxruntime session per snapshot, shared by all envs:
        it holds no state, the caller passes the generator)."""
        pol = self._sessions.get(sid)
        if pol is None:
            pol = self._sessions[sid] = OnnxPolicy(
                self.snapshot_dir(sid) / ONNX_FILE, greedy=self.cfg.snapshot_mode == "greedy"
            )
        return pol

    # -- the draw
    def entry_weights(self) -> tuple[list[str], np.ndarray]:
        """The mixture entries that can draw now and their normalised weights."""
        names, w = [], []
        for e, weight in self.cfg.mixture.items():
            if weight > 0 and (e not in SNAPSHOT_ENTRIES or self.snapshots):
                names.append(e)
                w.append(float(weight))
        if not names:
            raise ConfigError("league: nothing to draw (snapshot entries only, no snapshot)")
        p = np.array(w)
        return names, p / p.sum()

    def pfsp_weights(self) -> tuple[list[str], np.ndarray]:
        """PFSP weights over every member (normalised; uniform if all are zero)."""
        ids = self.members()
        w = np.array([(1.0 - self.records[i].pfsp_score()) ** self.cfg.pfsp_power for i in ids])
        if w.sum() <= 0:
            w = np.ones(len(ids))
        return ids, w / w.sum()

    def draw(self, rng: np.random.Generator, seats: int) -> list[str]:
        """Member ids for ``seats`` opponent seats: with probability ``whole_table`` one
        mixture entry for all of them, otherwise an entry per seat; then a member of each
        seat's entry."""
        names, p = self.entry_weights()
        if self.cfg.whole_table > 0 and rng.random() < self.cfg.whole_table:
            entry = names[int(rng.choice(len(names), p=p))]
            return [self._member(entry, rng) for _ in range(seats)]
        return [self._member(names[int(rng.choice(len(names), p=p))], rng) for _ in range(seats)]

    def _member(self, entry: str, rng: np.random.Generator) -> str:
        """A member of one mixture entry."""
        if entry == "latest":
            pool = self.snapshots[-self.cfg.latest :]
            return pool[int(rng.integers(len(pool)))]
        if entry == "prioritized":
            ids, w = self.pfsp_weights()
            return ids[int(rng.choice(len(ids), p=w))]
        return self.cfg.bot_spec(entry)

    def record(self, opponents: Sequence[str], score: float) -> None:
        """The learner scored ``score`` (1, 1/2 or 0) in a game against ``opponents``."""
        for o in dict.fromkeys(opponents):
            r = self.records[o]
            r.games += 1
            r.score += score
        self.version += 1

    # -- persistence (checkpoints)
    def to_json(self) -> dict[str, Any]:
        """The league's state: snapshots, when they were taken, the records."""
        return {
            "snapshots": self.snapshots,
            "taken_at": self.taken_at,
            "records": {k: [r.games, r.score] for k, r in self.records.items()},
        }

    def save(self) -> None:
        """Write ``league.json``."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / LEAGUE_JSON).write_text(json.dumps(self.to_json(), indent=1))

    def set_state(self, data: dict[str, Any]) -> None:
        """Take the state of :meth:`to_json` (a worker process's copy of the league, kept
        in step with the training process's by :class:`LeagueSync`)."""
        self.snapshots = list(data["snapshots"])
        self.taken_at = {k: int(v) for k, v in data["taken_at"].items()}
        for k, (games, score) in data["records"].items():
            self.records[k] = Record(int(games), float(score))
        self.version += 1

    def load(self) -> None:
        """Restore the state of ``league.json`` (resuming a run)."""
        self.set_state(json.loads((self.folder / LEAGUE_JSON).read_text()))
        missing = [s for s in self.snapshots if not (self.snapshot_dir(s) / ONNX_FILE).is_file()]
        if missing:
            raise ConfigError(f"{self.folder}: snapshots {missing} have no {ONNX_FILE}")


class Clock:
    """Seconds spent in opponents' decisions by kind (``snapshot``: ONNX forward passes,
    ``bot``: the fixed bots), for the league's share of rollout time."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(CLOCK_KINDS, 0.0)

    @property
    def total(self) -> float:
        """All opponents' seconds."""
        return sum(self.seconds.values())


class _TimedPolicy:
    """An opponent policy whose calls add their time to a :class:`Clock`."""

    def __init__(self, policy: Any, clock: Clock, kind: str) -> None:
        self.policy = policy
        self.clock = clock
        self.kind = kind
        self.needs_observation = getattr(policy, "needs_observation", True)

    def __call__(self, obs: Any, mask: np.ndarray, seat: int, rng: np.random.Generator) -> Any:
        t = time.perf_counter()
        try:
            return self.policy(obs, mask, seat, rng)
        finally:
            self.clock.seconds[self.kind] += time.perf_counter() - t


class _TimedBot:
    """A bot whose decisions add their time to a :class:`Clock`."""

    def __init__(self, bot: Any, clock: Clock) -> None:
        self.bot = bot
        self.clock = clock
        self.name = getattr(bot, "name", type(bot).__name__)

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, state: Any, seat: int) -> Any:
        t = time.perf_counter()
        try:
            return self.bot.act(state, seat)
        finally:
            self.clock.seconds["bot"] += time.perf_counter() - t


class LeagueOpponents:
    """The opponent sampler of one env (``SingleAgentView(opponent_sampler=...)``): draws
    members from the league at each reset and remembers them for :class:`LeagueResults`.
    Fixed bots are built once per env (a bot keeps per-game state); every opponent's
    decisions are timed on ``clock``."""

    def __init__(
        self, league: League, game: str, seats: int, seed: int, clock: Clock | None = None
    ) -> None:
        self.league = league
        self.game = game
        self.seats = seats
        self.seed = seed
        self.clock = clock if clock is not None else Clock()
        self.current: list[str] = []
        #: the kinds of ``current`` (:meth:`League.kind`)
        self.kinds: list[str] = []
        self._bots: dict[str, Any] = {}

    def policy(self, member: str) -> Any:
        """The opponent policy or bot of a member id."""
        if member in self.league.snapshots:
            return _TimedPolicy(self.league.session(member), self.clock, "snapshot")
        if member == "random":
            return _TimedPolicy(random_policy, self.clock, "bot")
        bot = self._bots.get(member)
        if bot is None:
            bot = self._bots[member] = _TimedBot(
                make_bot(member, self.game, seed=self.seed), self.clock
            )
        return bot

    def __call__(self, rng: np.random.Generator) -> list[Any]:
        self.current = self.league.draw(rng, self.seats)
        self.kinds = [self.league.kind(m) for m in self.current]
        return [self.policy(m) for m in self.current]


class LeagueResults(gymnasium.Wrapper):
    """Reports each finished game's learner score against the opponents drawn for it, and
    puts them in ``info["opponents"]`` at the game's end; every step's ``info`` carries the
    game's opponent kinds in ``info["opponent_kinds"]`` (:meth:`League.kind`, what
    :mod:`train.advice_imitation` selects positions by). With ``defer`` the score goes to
    ``info["league_score"]`` instead, for :class:`LeagueSync` to record."""

    def __init__(self, env: gymnasium.Env, opponents: LeagueOpponents, defer: bool = False) -> None:
        super().__init__(env)
        self.opponents = opponents
        self.defer = defer

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, reward, term, trunc, info = self.env.step(action)
        info = {**info, "opponent_kinds": self.opponents.kinds}
        if term or trunc:
            view = self.env.unwrapped
            winner = view.session.state.outcome().winner
            score = 0.5 if winner is None else float(winner == view.learner)
            if self.defer:
                info[LEAGUE_SCORE] = score
            else:
                self.opponents.league.record(self.opponents.current, score)
            info["opponents"] = list(self.opponents.current)
        return obs, reward, term, trunc, info

    def action_masks(self) -> np.ndarray:
        """The learner's mask (for MaskablePPO through the wrapper)."""
        return self.env.unwrapped.action_masks()

    def set_league_state(self, version: int, data: dict[str, Any]) -> None:
        """Make this process's league copy the training process's ``version`` (a no-op
        where it already is: in the training process itself)."""
        league = self.opponents.league
        if league.version != version:
            league.set_state(data)
            league.version = version

    def opponent_seconds(self) -> dict[str, float]:
        """This process's opponents' seconds by kind (its :class:`Clock`)."""
        return dict(self.opponents.clock.seconds)


class LeagueSync(VecEnvWrapper):
    """The league of envs stepped in several processes (:class:`train.vec_env.GroupedVecEnv`,
    ``env_processes`` > 1): each process draws its envs' opponents from a copy of the league;
    the training process's is the league (the snapshots are added to it) and the others
    follow it. Every env defers its results (:class:`LeagueResults` with ``defer``; checked):
    after each step this wrapper records the finished games in env order, and before the next,
    when the league changed, it sends its state to every process (the training process's
    envs, which hold the league itself, ignore it). A game's result thus reaches the draws at
    the next step (with ``env_processes: 1`` at once), the same for every count of 2 or more,
    so the trajectories do not depend on the count. Each process's envs share one league copy
    and one :class:`Clock`; ``seconds`` is the mean of the processes' clocks."""

    def __init__(self, venv: GroupedVecEnv, league: League) -> None:
        super().__init__(venv)
        self.grouped = venv
        if not all(venv.get_attr("defer")):
            raise ValueError("LeagueSync needs envs whose LeagueResults defer their results")
        self.league = league
        self._sent = -2  # the version the other processes have (a copy's is -1)

    def _send(self) -> None:
        if self._sent != self.league.version:
            version = self.league.version
            self.grouped.group_method("set_league_state", version, self.league.to_json())
            self._sent = version

    def reset(self) -> VecEnvObs:
        self._send()
        return self.venv.reset()

    def step_async(self, actions: np.ndarray) -> None:
        self._send()
        self.venv.step_async(actions)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if LEAGUE_SCORE in info:
                self.league.record(info["opponents"], info[LEAGUE_SCORE])
        return obs, rewards, dones, infos

    @property
    def seconds(self) -> dict[str, float]:
        """The opponents' seconds by kind, the mean over the processes: each steps for the
        rollout's wall time, so over that time it is the share of the processes' time."""
        total = dict.fromkeys(CLOCK_KINDS, 0.0)
        for part in self.grouped.group_method("opponent_seconds"):
            for k, v in part.items():
                total[k] += v / self.grouped.groups
        return total
