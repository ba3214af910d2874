"""The Lunatix Loop game definition: rules config, decks, track, action codec."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from lunatix_env.rules.actions import Action, ActionCodec
from lunatix_env.rules.config import (
    MAX_DICE,
    MAX_HAZARD_CARDS_PER_CHECK,
    GadgetEffect,
    RulesConfig,
    decks_from_data,
    load_rules,
)
from lunatix_env.rules.records import DIR_SLOTS
from lunatix_env.rules.state import State
from lunatix_env.rules.track import Track, track_from_data
from tabletop.errors import ConfigError, IllegalActionError
from tabletop.gamebase import GameBase, checked_seed
from tabletop.protocol import GameInfo

NAME = "lunatix_loop"
#: ``Game.ahead``: by facing, by square, the (direction, square) of each square ahead
Ahead = tuple[tuple[tuple[tuple[int, int], ...], ...], ...]


class Game(GameBase):
    """An immutable Lunatix Loop game. ``Game()`` is the standard four-player game.

    ``config`` is a :class:`RulesConfig`, a path to a rules YAML, or None for the default;
    keyword ``overrides`` replace top-level rules keys (``num_players=3``,
    ``turn_around=True``, ``four_opening_pit=True``, ``track="tracks/test_oval.yaml"``).
    """

    rules: RulesConfig
    codec: ActionCodec
    rules_class = RulesConfig
    serialize_module = "lunatix_env.rules.serialize"
    file_fields = ("decks", "track")

    def __init__(
        self,
        config: RulesConfig | str | Path | None = None,
        *,
        files: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> None:
        self.rules = rules = self.resolve_rules(config, overrides, load_rules)
        data = self.read_files(files)
        self.decks = decks_from_data(data["decks"], self._source("decks"))
        self.track: Track = track_from_data(data["track"], self._source("track"))
        if len(self.track.start_dots) < rules.num_players:
            raise ConfigError(
                f"track {self.track.name!r} has {len(self.track.start_dots)} start dots, "
                f"fewer than {rules.num_players} players"
            )
        if rules.four_opening_pit and {o.side for o in self.track.openings} != {"A", "B"}:
            raise ConfigError("the four-opening pit needs openings on both sides (A and B)")
        if self.max_dice > MAX_DICE:
            raise ConfigError(
                f"a roll of the config has {self.max_dice} damage dice; at most {MAX_DICE} "
                "(rams, tacks, skids and the hazard and turbo cards)"
            )
        # draws of several cards at once: more than the deck holds find none (an oil chip of
        # 2**63 cards in a record's config pushed a task per card: out of memory)
        hazards = sum(c.count for c in self.decks.hazard)
        for name, draws in (
            ("chips.oil_cards", rules.chips.oil_cards),
            ("curve_inward_cards", rules.curve_inward_cards),
        ):
            if draws > hazards:
                raise ConfigError(
                    f"{name} draws {draws} hazard cards at once; at most the deck's {hazards}"
                )
        per = rules.mph_per_hazard_card
        gains = [
            *(c.amount for c in self.decks.turbo),
            *(c.amount for c in self.decks.gadgets if c.effect is GadgetEffect.ROCKET),
            *(a for c in self.decks.gadgets if c.effect is GadgetEffect.CHARGER for a in c.amounts),
        ]
        for gain in gains:  # a gain taken in a curve draws ceil(gain / per) hazard cards
            if -(-gain // per) > MAX_HAZARD_CARDS_PER_CHECK:
                raise ConfigError(
                    f"a speed gain of {gain} mph (a turbo card, Rocket or Charger) would draw "
                    f"{-(-gain // per)} hazard cards in a curve; at most "
                    f"{MAX_HAZARD_CARDS_PER_CHECK} ({MAX_HAZARD_CARDS_PER_CHECK * per} mph)"
                )
        if min(rules.brake_amounts, default=math.inf) > self.speed_step:
            # (a moving car may play Brake, then must choose an amount it can brake by)
            raise ConfigError(
                f"brake_amounts {list(rules.brake_amounts)} need an amount of at most "
                f"{self.speed_step} mph, the lowest speed a moving car can have with these "
                "rules, so that a car braking always has one"
            )
        if rules.pit.gadget_offer > len(self.decks.gadgets):
            raise ConfigError(
                f"pit.gadget_offer offers {rules.pit.gadget_offer} gadgets at once; at most "
                f"the deck's {len(self.decks.gadgets)}"
            )
        self.codec = ActionCodec(rules, self.decks, len(self.track.openings))
        self.gadget_index = {g.effect: i for i, g in enumerate(self.decks.gadgets)}
        tr = self.track
        #: ahead[facing][square]: ((direction, square), ...) for the existing squares ahead
        self.ahead = cast(
            Ahead,
            tuple(
                tuple(
                    tuple(
                        (d, nb[slot])
                        for d, slot in enumerate(DIR_SLOTS[facing])
                        if nb[slot] is not None
                    )
                    for nb in tr.neighbours[facing]
                )
                for facing in (0, 1)
            ),
        )
        #: the largest along-track distance one step can cover (bounds ram searches)
        self.max_step_ds = max(
            abs(tr.wrap(tr.s[nb] - tr.s[sq]))
            for sq in range(tr.num_squares)
            for nbs in (tr.neighbours[0][sq], tr.neighbours[1][sq])
            for nb in nbs
            if nb is not None
        )
        n = rules.num_players
        per_turn = 4 * (rules.turbo_speed_cap // rules.speed_per_square) + 64
        self.info = GameInfo(
            name=NAME,
            num_players=n,
            num_distinct_actions=len(self.codec),
            max_game_length=rules.round_limit * (1 + n * per_turn) + 1,
            min_utility=-rules.win_reward / (n - 1),
            max_utility=rules.win_reward,
        )

    if TYPE_CHECKING:
        # GameBase.state_from_dict, with this game's State (declared for the type checker)
        def state_from_dict(self, data: Mapping[str, Any]) -> State: ...

    def new_initial_state(self, seed: int | None = None) -> State:
        """A new game, at its first chance event (dealing the start dots).

        The seed is stored in the state for records; chance is always resolved by the
        caller with its own ``numpy.random.Generator``.
        """
        return State(self, checked_seed(seed))

    def int_to_action(self, index: int) -> Action:
        """The action at flat ``index`` (an int, numpy ints accepted; bools, floats and
        strings are refused, never coerced)."""
        if (
            isinstance(index, bool)
            or not isinstance(index, numbers.Integral)
            or not 0 <= int(index) < len(self.codec)
        ):
            raise IllegalActionError(
                f"action index {index!r} out of range 0..{len(self.codec) - 1} "
                "(an action index is an int)"
            )
        return self.codec.decode(int(index))

    def as_action(self, action: Action | int) -> Action:
        """Accept an Action or its int."""
        if isinstance(action, Action):
            if action not in self.codec.index:
                raise IllegalActionError(f"{action} is not an action of this game")
            return action
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise IllegalActionError(f"expected an Action or an int, got {action!r}")
        return self.int_to_action(int(action))

    @functools.cached_property
    def speed_step(self) -> int:
        """The greatest common divisor of every speed a car can have: the start and maximum
        speeds, the caps, and every amount a rule adds or takes (config values); a state
        whose speeds are off this step is refused."""
        r, d = self.rules, self.decks
        t = r.turn_around
        values = [
            r.start_speed,
            r.max_speed,
            r.turbo_speed_cap,
            r.speed_per_square,
            r.speed_loss_per_hit,
            r.chips.glue_speed_loss,
            r.pit.repair_amount,
            t.uturn_curve_speed,
            t.uturn_speed,
            t.bootleg_min_speed,
            t.bootleg_curve_speed,
            t.bootleg_speed,
            *r.brake_amounts,
            *r.accelerate_amounts,
            *(c.amount for c in d.hazard),
            *(c.amount for c in d.turbo),
            *(c.amount for c in d.gadgets if c.effect is GadgetEffect.ROCKET),
            *(a for c in d.gadgets if c.effect is GadgetEffect.CHARGER for a in c.amounts),
            *(o.safe_speed for o in self.track.openings),
        ]
        return math.gcd(*values) or 1

    @functools.cached_property
    def max_dice(self) -> int:
        """The most damage dice one roll can have (every source in the config)."""
        r, d = self.rules, self.decks
        rams = r.rams
        pairs = (rams.involuntary, rams.sideswipe, rams.rear_end, rams.head_on)
        return max(
            [
                r.chips.tacks_dice,
                r.skid.wall_dice,
                r.skid.pit_wall_dice,
                *r.skid.car_dice,
                *(x for pair in pairs for x in pair),
                max(pair[1] for pair in pairs) + rams.battering_ram_extra,
                *(c.dice for c in d.hazard),
                *(c.dice for c in d.turbo),
                1,
            ]
        )

    def dice_distribution(self, n: int) -> tuple[tuple[int, float], ...]:
        """Exact distribution of the total hits of ``n`` damage dice (worked out once per
        game and ``n``, kept on the game: ``derived``)."""
        return self.derived(f"dice_distribution.{n}", lambda g: g._dice_total(n))

    def _dice_total(self, n: int) -> tuple[tuple[int, float], ...]:
        faces = self.rules.damage_die_faces
        dist = {0: 1.0}
        for _ in range(n):
            nxt: dict[int, float] = {}
            for total, p in dist.items():
                for f in faces:
                    nxt[total + f] = nxt.get(total + f, 0.0) + p / len(faces)
            dist = nxt
        return tuple(sorted(dist.items()))

    def gadget(self, effect: GadgetEffect) -> int:
        """Index of the gadget card with ``effect``."""
        return self.gadget_index[effect]
