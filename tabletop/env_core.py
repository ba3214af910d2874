"""The game-independent core of the environments: one game in progress and its bookkeeping.

A :class:`GameAdapter` (one per game) says how to build the game, encode observations and
masks, and render. A :class:`GameSession` runs one game through the engine protocol of
``shared/DESIGN.md``: chance resolved with the session's seeded generator and logged,
simultaneous choices buffered until the last decider has acted, forced single-choice
decisions optionally auto-played, illegal actions handled per ``on_illegal``, rewards and
the game record kept. The AEC, parallel and single-agent envs are thin layers over it.
"""

from __future__ import annotations

import abc
import enum
import math
import pickle
import reprlib
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from gymnasium import spaces

from tabletop.errors import ConfigError, IllegalActionError
from tabletop.events import Event
from tabletop.gamebase import checked_seed
from tabletop.protocol import Game, State
from tabletop.records import GameRecord

if TYPE_CHECKING:
    from types import FrameType

#: legal sets whose masks a session keeps (all forgotten when it is full)
MASK_CACHE = 256
#: mixed with a game's seed into the seeds of its bot seats (apart from the chance draws)
BOT_SEED_KEY = 0xB07
#: mixed with the last ``reset(seed)`` into the stream of the seeds of seedless resets
SEED_STREAM_KEY = 0x5EED


def is_bot(obj: Any) -> bool:
    """Whether ``obj`` is a bot (``reset(seed)`` and ``act(state, seat)``), not a policy."""
    return callable(getattr(obj, "act", None)) and callable(getattr(obj, "reset", None))


def seat_of(key: int | str, num_players: int) -> int:
    """A seat from an int or an agent name ``player_i``; ValueError naming the valid ones."""
    seat: int | str = key
    if isinstance(key, str) and key.startswith("player_") and key[7:].isdigit():
        seat = int(key[7:])
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(
            f"no seat {key!r}: seats are 0..{num_players - 1} or player_0..player_{num_players - 1}"
        )
    return seat


def as_index(value: Any) -> int | None:
    """An integer action index, or None: one number (an int, a numpy integer, a whole
    float, a one-element array) whose value is a whole number; bools, fractions and strings
    are not indices."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if (
        arr.size != 1
        or not np.issubdtype(arr.dtype, np.number)
        or np.issubdtype(arr.dtype, np.complexfloating)
    ):
        return None
    f = float(arr.reshape(()))
    return int(f) if math.isfinite(f) and f == int(f) else None


#: folders whose frames a warning skips to name the caller's line (ours and the APIs')
_LIBRARY_DIRS = tuple(str(Path(cast(str, m.__file__)).parent) for m in (sys.modules[__name__],))


def _outside_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside this package (and PettingZoo's and
    Gymnasium's wrappers): where the user's code called the env."""
    dirs = _LIBRARY_DIRS + tuple(
        str(Path(m.__file__).parent)
        for name in ("pettingzoo", "gymnasium")
        if (m := sys.modules.get(name)) is not None and m.__file__
    )
    frame: FrameType | None
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(dirs):
        level += 1
        frame = frame.f_back
    return level


class SubstitutedActionWarning(UserWarning):
    """An env with ``on_illegal="random_legal"`` played a random legal action instead of the
    illegal one it was sent (warned once per env; ``infos["substituted"]`` marks each step)."""


class OnIllegal(enum.Enum):
    """What an env does with an illegal action."""

    RAISE = "raise"  # raise IllegalActionError, state unchanged
    PENALTY = "penalty"  # the game ends: the offender gets ``illegal_penalty``, others 0
    RANDOM_LEGAL = "random_legal"  # a uniformly random legal action is played instead


def on_illegal_option(value: str | OnIllegal) -> OnIllegal:
    """The ``on_illegal`` option, or a :class:`ConfigError` naming the allowed values."""
    if isinstance(value, OnIllegal):
        return value
    for member in OnIllegal:
        if value == member.value:
            return member
    allowed = ", ".join(repr(m.value) for m in OnIllegal)
    raise ConfigError(f"on_illegal must be one of {allowed}, got {value!r}")


def random_masked_index(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random index among the non-zero entries of ``mask`` (one draw)."""
    legal = np.flatnonzero(mask)
    if len(legal) == 0:
        raise ValueError("the action mask allows no action")
    return int(legal[int(rng.integers(len(legal)))])


class GameAdapter(abc.ABC):
    """What the generic envs need to know about one game."""

    #: versioned env name, e.g. ``lunatix_loop_v0``
    env_name: str
    game: Game

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.game.info.num_players

    @property
    def num_actions(self) -> int:
        """Size of the flat discrete action space (NOOP at 0)."""
        return self.game.info.num_distinct_actions

    @abc.abstractmethod
    def observation_size(self) -> int:
        """Length of the encoded observation vector."""

    @abc.abstractmethod
    def encode(self, state: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a float32 vector (no hidden information)."""

    @abc.abstractmethod
    def state_size(self) -> int:
        """Length of the global state vector."""

    @abc.abstractmethod
    def state_vector(self, state: State) -> np.ndarray:
        """The full global state as a float32 vector (for centralized critics)."""

    @abc.abstractmethod
    def legal_ints(self, state: State, seat: int) -> list[int]:
        """Legal actions of ``seat`` as ints (empty when it is not deciding)."""

    #: the observation key of the action mask (Lazer Ryderz's ``box`` mode: ``legal_mask``)
    mask_key: str = "action_mask"

    def observation_space(self) -> spaces.Dict:
        """One agent's observation space: ``{"observation": Box, mask_key: Box(int8)}``."""
        return spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.observation_size(),), np.float32),
                self.mask_key: spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )

    def action_space(self) -> spaces.Space[Any]:
        """One agent's action space: ``Discrete(num_actions)`` (NOOP at 0)."""
        return spaces.Discrete(self.num_actions)

    def decode_action(self, state: State, seat: int, index: int) -> Any:
        """The game's action for ``seat``'s ``index``, an int :meth:`legal_ints` gave (so no
        range check is needed; override with a cheaper lookup where there is one, or where
        the action depends on the position, as an aimed Launch Point does)."""
        return self.game.int_to_action(index)

    def to_engine(self, state: State, seat: int, action: Any, legal: list[int]) -> Any:
        """The game's action for the env action ``action`` of ``seat``, or None when it is
        not legal (``legal``: :meth:`legal_ints`, non-empty). Envs with richer actions than
        one int (a continuous part, a score vector) override this. An index is any one
        integral number (:func:`as_index`): not a bool, a fraction or a string."""
        index = as_index(action)
        return self.decode_action(state, seat, index) if index in legal else None

    def nearest_index(self, state: State, seat: int, action: Any, legal: list[int]) -> int:
        """The legal index (of :meth:`legal_ints`) that plays the game action ``action``:
        the label of an engine bot's move for behaviour cloning. Here an exact match
        (ValueError naming the action when none is); envs whose actions are coarser than
        the game's (a grid of Launch Points) override it with the nearest one."""
        for i in legal:
            if self.decode_action(state, seat, i) == action:
                return i
        raise ValueError(f"{action!r} is no legal env action of seat {seat}")

    def random_action(
        self, state: State, seat: int, legal: list[int], rng: np.random.Generator
    ) -> Any:
        """A uniformly random legal game action (``on_illegal="random_legal"``)."""
        return self.decode_action(state, seat, legal[int(rng.integers(len(legal)))])

    def forced_action(self, state: State, seat: int, legal: list[int]) -> Any:
        """The game action when ``seat`` has exactly one choice (``auto_play``), else None."""
        return self.decode_action(state, seat, legal[0]) if len(legal) == 1 else None

    def random_env_action(self, mask: np.ndarray, rng: np.random.Generator) -> Any:
        """A uniformly random env action among those ``mask`` allows (random opponents and
        the conformance kit's random play)."""
        return random_masked_index(mask, rng)

    def describe_illegal(self, state: State, seat: int, action: Any, legal: list[int]) -> str:
        """The error message for an illegal ``action``: what was wrong, what is allowed."""
        names = self.decode_action
        return f"action {action!r} is not legal for player_{seat}; legal: " + ", ".join(
            f"{i} ({names(state, seat, i)})" for i in legal
        )

    def new_game(self, seed: int) -> None:
        """Called by the single-agent view at every reset with the new game's seed: a hook
        for adapters that keep state of their own between games (``agents.advice`` reseeds
        its advisor, so a game's observations do not depend on the games before it)."""
        return  # the games' own adapters keep nothing between games

    def action_json(self, action: Any) -> Any:
        """A game action as recorded (``game.action_to_json``)."""
        return self.game.action_to_json(action)

    def shaping_enabled(self) -> bool:
        """Whether :meth:`shaping` gives anything (saves a clone per step when off)."""
        return False

    def shaping(self, before: State, after: State) -> np.ndarray | None:
        """Per-seat shaping rewards for the transition; None when shaping is off."""
        return None

    @abc.abstractmethod
    def render_ansi(self, state: State) -> str:
        """The state as text."""

    @abc.abstractmethod
    def render_rgb(self, state: State) -> np.ndarray:
        """The state as an RGB picture (H, W, 3) uint8, drawn off-screen."""


class GameSession:
    """One game in progress with its RNG, buffer of simultaneous choices and record."""

    def __init__(
        self,
        adapter: GameAdapter,
        on_illegal: str | OnIllegal = OnIllegal.RAISE,
        auto_play: bool = False,
        illegal_penalty: float = -1.0,
    ) -> None:
        self.adapter = adapter
        self.on_illegal = on_illegal_option(on_illegal)
        self.auto_play = auto_play
        self.illegal_penalty = illegal_penalty
        self.n = adapter.num_players
        self.state: State = adapter.game.new_initial_state(0)
        self.rng = np.random.default_rng(0)
        #: where ``reset(None)`` takes its game seeds (set by the last ``reset(seed)``)
        self._seed_stream: np.random.Generator | None = None
        self.record = GameRecord(game=adapter.env_name, config={}, seed=None)
        self.buffer: dict[int, Any] = {}
        self.forced_end = False
        self.illegal_by: int | None = None
        self.pending_rewards = np.zeros(self.n, dtype=np.float64)
        self._legal_cache: dict[int, list[int]] = {}
        self._obs_cache: dict[int, np.ndarray] = {}
        self._config_game: Game | None = None
        self._config_blob = b""
        self._no_mask = np.zeros(adapter.num_actions, dtype=np.int8)
        self._noop_mask = self._no_mask.copy()
        self._noop_mask[0] = 1
        #: masks by legal set (games ask the same few sets again and again), copied out
        self._masks: dict[tuple[int, ...], np.ndarray] = {}
        #: what :meth:`take_rewards` returns when no reward was earned (read-only)
        self.zero_rewards = np.zeros(self.n, dtype=np.float64)
        self.zero_rewards.flags.writeable = False
        # True once something was added to pending_rewards (whatever adds to it sets it)
        self._rewards_added = False
        #: seats whose illegal action the last act()/act_all() replaced by a random legal one
        self.substituted: tuple[int, ...] = ()
        self._warned_substitution = False
        #: seats played inside the session by bots (``agents.bot.Bot``: ``reset(seed)``,
        #: ``act(state, seat) -> engine action``); their engine actions apply unchanged
        self.bots: dict[int, Any] = {}
        #: whether turn events are recorded (:meth:`set_events`)
        self.events_on = False
        #: per seat, the events it may see since it last acted (while ``events_on``)
        self._events: list[list[Event]] = [[] for _ in range(self.n)]
        #: True: every seat's events are those of the last step (the parallel API), not
        #: those since the seat last acted (a bot seat's are not cleared when it acts)
        self.events_by_step = False

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: int | None) -> None:
        """Start a new game; ``seed`` fixes every chance outcome of the game. ``None`` draws
        the game's seed from the stream of the last seed given (Gymnasium's convention:
        ``reset(seed=s)`` then ``reset()``, ``reset()``, ... repeats exactly), or from OS
        entropy when no seed was ever given. A seed is None or an int in ``0 .. 2**63``
        (numpy ints accepted); anything else is a :class:`ConfigError`."""
        # checked before anything changes: a refused seed leaves the session as it was
        seed = checked_seed(seed)
        if seed is None:
            if self._seed_stream is None:
                # a fresh SeedSequence's entropy is an int (numpy types it more widely)
                entropy = cast(int, np.random.SeedSequence().entropy)
                self._seed_stream = np.random.default_rng([entropy, SEED_STREAM_KEY])
            seed = int(self._seed_stream.integers(2**63))
        else:
            self._seed_stream = np.random.default_rng([seed, SEED_STREAM_KEY])
        self.rng = np.random.default_rng(seed)
        game = self.adapter.game
        self.state = game.new_initial_state(seed)
        if self.events_on:
            self.state.record_events()
            self._events = [[] for _ in range(self.n)]
        self.record = GameRecord(game=self.adapter.env_name, config=self._config(game), seed=seed)
        self.record.follow(self.state)
        self.buffer = {}
        self.forced_end = False
        self.illegal_by = None
        self.pending_rewards = np.zeros(self.n, dtype=np.float64)
        self._rewards_added = False
        if self.bots:  # each bot seeded from the game's seed and its seat (not from self.rng)
            seeds = np.random.SeedSequence([seed, BOT_SEED_KEY]).generate_state(self.n, np.uint64)
            for seat, bot in self.bots.items():
                bot.reset(int(seeds[seat]))
        self._changed()
        self._advance(None)

    def set_bots(self, bots: Mapping[int | str, Any] | None) -> None:
        """Seats to be played by bots, ``{seat or "player_i": bot}`` (None: none). Applies
        from the next :meth:`reset`; every other seat is still driven from outside."""
        chosen: dict[int, Any] = {}
        for key, bot in (bots or {}).items():
            seat = seat_of(key, self.n)
            if not is_bot(bot):
                raise TypeError(
                    f"the bot of player_{seat} is {type(bot).__name__}, not a bot "
                    "(an object with reset(seed) and act(state, seat))"
                )
            chosen[seat] = bot
        self.bots = dict(sorted(chosen.items()))

    def set_events(self, on: bool) -> None:
        """Record turn events (:mod:`tabletop.events`) from the next :meth:`reset`, for
        :meth:`events_of`."""
        if type(on) is not bool:
            raise ConfigError(f"events is True or False, got {on!r}")
        self.events_on = on

    def events_of(self, seat: int) -> list[Event]:
        """The events ``seat`` may see that were resolved since it last acted (since the
        reset, before its first action), in order: a new list."""
        return list(self._events[seat])

    def _deliver_events(self) -> None:
        """Hand the state's new events to every seat that may see them."""
        new = self.state.take_events()
        if new:
            for seat, mine in enumerate(self._events):
                mine.extend(e for e in new if e.to is None or e.to == seat)

    def _config(self, game: Game) -> dict[str, Any]:
        """A new copy of ``game.config_dict()`` (pickled once per game: building it takes
        about 15 times longer than unpickling a copy)."""
        if self._config_game is not game:
            config = game.config_dict() if hasattr(game, "config_dict") else {}
            self._config_blob = pickle.dumps(config)
            self._config_game = game
        return cast("dict[str, Any]", pickle.loads(self._config_blob))

    @property
    def done(self) -> bool:
        """True once the game is over (terminal, truncated or ended by an illegal action)."""
        return self.forced_end or self.state.is_terminal()

    @property
    def truncated(self) -> bool:
        """True when the game hit its round limit."""
        return (
            not self.forced_end
            and self.state.is_terminal()
            and self.state.outcome().reason.value == "truncated"
        )

    # ------------------------------------------------------------------ queries
    def deciders(self) -> tuple[int, ...]:
        """Seats still to act at the current node (buffered seats excluded)."""
        if self.forced_end or self.state.is_terminal():
            return ()
        buffer = self.buffer
        if not buffer:
            return tuple(self.state.current_players())
        return tuple(p for p in self.state.current_players() if p not in buffer)

    def legal(self, seat: int) -> list[int]:
        """Legal action ints of ``seat`` now (empty if it has nothing to decide)."""
        if self.forced_end or seat in self.buffer or self.state.is_terminal():
            return []
        cache = self._legal_cache
        legal = cache.get(seat)
        if legal is None:
            legal = cache[seat] = self.adapter.legal_ints(self.state, seat)
        return legal

    def mask(self, seat: int) -> np.ndarray:
        """int8 mask over the action space: the legal actions, or NOOP alone if none."""
        legal = self.legal(seat)
        if not legal:
            return self._noop_mask.copy()
        key = tuple(legal)
        m = self._masks.get(key)
        if m is None:
            if len(self._masks) >= MASK_CACHE:
                self._masks.clear()
            m = self._masks[key] = self._no_mask.copy()
            m[legal] = 1
        return m.copy()

    def observation(self, seat: int) -> np.ndarray:
        """``adapter.encode(state, seat)``: a new array at every call (encoded once per
        node and seat, then copied)."""
        obs = self._obs_cache.get(seat)
        if obs is None:
            obs = self._obs_cache[seat] = self.adapter.encode(self.state, seat)
        return obs.copy()

    def _changed(self) -> None:
        """Forget what was computed for the previous node."""
        self._legal_cache = {}
        self._obs_cache = {}

    def take_rewards(self) -> np.ndarray:
        """Rewards earned since the last call (terminal returns and shaping); when there
        are none, the read-only array :attr:`zero_rewards` itself."""
        if not self._rewards_added:  # nothing was added to pending_rewards since last time
            return self.zero_rewards
        self._rewards_added = False
        r = self.pending_rewards
        if r.any():
            self.pending_rewards = np.zeros(self.n, dtype=np.float64)
            return r
        return self.zero_rewards

    # ------------------------------------------------------------------ acting
    def act(self, seat: int, action: Any) -> None:
        """``seat`` chooses ``action`` (an env action). Applies it once every decider has
        chosen."""
        self.substituted = ()
        deciders = self.deciders()
        if seat not in deciders:
            if self.done:
                raise IllegalActionError("the game is over; reset the env")
            raise IllegalActionError(
                f"player_{seat} has nothing to decide now; deciders: "
                f"{[f'player_{p}' for p in deciders]}"
            )
        action = self._checked(seat, action)
        if self.events_on:  # the seat has acted (legally, or ending the game: penalty)
            self._events[seat] = []
        if action is None:
            return
        self.buffer[seat] = action
        if len(deciders) == 1:  # ``seat`` was the last one to choose
            self._apply_buffer()

    def act_all(self, actions: Mapping[int, Any]) -> None:
        """Every current decider acts at once (the parallel API); others are ignored."""
        self.substituted = ()
        if self.done:
            raise IllegalActionError("the game is over; reset the env")
        chosen: dict[int, Any] = {}
        deciders = self.deciders()
        missing = [seat for seat in deciders if seat not in actions]
        if missing:  # before any action is checked (a substitution draws from self.rng)
            raise IllegalActionError(f"player_{missing[0]} must act now but sent no action")
        for seat in deciders:  # check every action before buffering any
            checked = self._checked(seat, actions[seat])
            if checked is None:
                if self.events_on:  # a step that ended the game (penalty): no events
                    self._events = [[] for _ in range(self.n)]
                return
            chosen[seat] = checked
        self.buffer.update(chosen)
        if self.events_on:  # a parallel step: every agent gets the step's events
            self._events = [[] for _ in range(self.n)]
        self._apply_buffer()

    def _checked(self, seat: int, action: Any) -> Any:
        """The game action for ``action``, per ``on_illegal``; None when the game was ended."""
        legal = self.legal(seat)
        adapter = self.adapter
        chosen = adapter.to_engine(self.state, seat, action, legal)
        if chosen is not None:
            return chosen
        if self.on_illegal is OnIllegal.RAISE:
            raise IllegalActionError(adapter.describe_illegal(self.state, seat, action, legal))
        if self.on_illegal is OnIllegal.RANDOM_LEGAL:
            self._note_substitution(seat, action, legal)
            return adapter.random_action(self.state, seat, legal, self.rng)
        self.forced_end = True
        self.illegal_by = seat
        self.pending_rewards[seat] += self.illegal_penalty
        self._rewards_added = True
        return None

    def _note_substitution(self, seat: int, action: Any, legal: list[int]) -> None:
        """Mark ``seat`` in :attr:`substituted`; warn the first time in this session."""
        self.substituted += (seat,)
        if self._warned_substitution:
            return
        self._warned_substitution = True
        warnings.warn(
            f"{self.adapter.env_name}: on_illegal='random_legal' played a random legal action "
            f"instead of player_{seat}'s illegal {reprlib.repr(action)} (legal: {legal[:8]}"
            f"{' ...' if len(legal) > 8 else ''}); infos['substituted'] marks every such "
            "step (warned once per env). Mask the policy's actions, or use "
            "on_illegal='raise' to find the cause",
            SubstitutedActionWarning,
            stacklevel=_outside_stacklevel(),
        )

    def _apply_buffer(self) -> None:
        acts, self.buffer = self.buffer, {}
        before = self.state.clone() if self._shaping_on() else None
        self._apply(acts)
        self._advance(before)

    def _apply(self, acts: dict[int, Any]) -> None:
        """Apply one game action per decider to the state and log them in the record."""
        self.state.apply_actions(acts)
        self._changed()
        self.record.log_actions(acts, self.adapter.action_json)

    def _shaping_on(self) -> bool:
        return self.adapter.shaping_enabled()

    def _bot_action(self, seat: int) -> Any:
        """The engine action of the bot playing ``seat`` (checked: a bot's illegal action is
        its bug, raised whatever ``on_illegal`` says)."""
        bot = self.bots[seat]
        action = bot.act(self.state, seat)
        if not self.state.is_legal(seat, action):
            raise IllegalActionError(
                f"bot {getattr(bot, 'name', type(bot).__name__)} of "
                f"player_{seat} chose an illegal action: {action}"
            )
        return action

    def _advance(self, before: State | None) -> None:
        """Resolve chance, bot seats and (with ``auto_play``) forced decisions up to the
        next choice from outside."""
        s = self.state
        bots = self.bots
        while not s.is_terminal():
            if s.is_chance_node():
                outcome = s.sample_chance(self.rng)
                s.apply_chance(outcome)
                self._changed()
                self.record.log_chance(outcome)
                continue
            if not self.auto_play and not bots:
                break
            forced = {}
            for p in s.current_players():
                if p in self.buffer:
                    continue
                if p in bots:  # sees the state without the buffered choices of others
                    forced[p] = self._bot_action(p)
                    if self.events_on and not self.events_by_step:
                        self._deliver_events()  # what happened before the bot acted, then none
                        self._events[p] = []
                    continue
                if not self.auto_play:
                    continue
                only = self.adapter.forced_action(s, p, self.legal(p))
                if only is not None:
                    forced[p] = only
            if not forced:
                break
            self.buffer.update(forced)
            if any(p not in self.buffer for p in s.current_players()):
                break
            acts, self.buffer = self.buffer, {}
            self._apply(acts)
        if self.events_on:
            self._deliver_events()
        if before is not None:
            shaped = self.adapter.shaping(before, s)
            if shaped is not None:
                self.pending_rewards += shaped
                self._rewards_added = True
        if s.is_terminal():
            self.pending_rewards += np.asarray(s.returns(), dtype=np.float64)
            self._rewards_added = True
