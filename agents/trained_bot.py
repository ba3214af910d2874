"""The shipped trained opponents: ``trained``, a policy per game and player count installed
with the package (``agents/trained/<game>_<N>p/``: ``policy.onnx`` + ``policy.json``,
docs/policies.md), played under onnxruntime without torch.

:class:`TrainedBot` picks the policy of the state's player count at its first decision of a
game, so one ``trained`` spec serves every setting a policy ships for; a player count with
none is an :class:`~tabletop.errors.InvalidStateError` naming the ones shipped. docs/bots.md
rates them and says which training run each one is.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from agents.policy_bot import POLICY_JSON, PolicyBot
from tabletop import registry
from tabletop.errors import InvalidStateError
from tabletop.protocol import State

#: the folder of the shipped policies inside the installed ``agents`` package
SHIPPED = "trained"


def shipped_folder() -> Path:
    """``agents/trained`` (a real folder: the package is installed unzipped)."""
    return Path(str(resources.files("agents").joinpath(SHIPPED)))


def shipped_policies(game: str) -> dict[int, Path]:
    """Player count -> policy folder of the policies shipped for ``game``."""
    name = registry.get(game).name
    root = shipped_folder()
    out: dict[int, Path] = {}
    if root.is_dir():
        for d in sorted(root.iterdir()):
            head, _, tail = d.name.rpartition("_")
            if (
                head == name
                and tail.endswith("p")
                and tail[:-1].isdigit()
                and (d / POLICY_JSON).is_file()
            ):
                out[int(tail[:-1])] = d
    return out


class TrainedBot:
    """The shipped policy of the game for the state's player count (see the module)."""

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.game = registry.get(game).name
        self.name = "trained"
        self.folders = shipped_policies(self.game)
        self.seed = seed
        self._bots: dict[int, PolicyBot] = {}

    def reset(self, seed: int | None = None) -> None:
        """Reseed the loaded policies (greedy ones draw nothing)."""
        self.seed = seed
        for bot in self._bots.values():
            bot.reset(seed)

    def policy_for(self, players: int) -> PolicyBot:
        """The policy bot of ``players`` seats (loaded once)."""
        bot = self._bots.get(players)
        if bot is None:
            folder = self.folders.get(players)
            if folder is None:
                have = ", ".join(f"{n} players" for n in sorted(self.folders)) or "none"
                raise InvalidStateError(
                    f"no trained {self.game} policy for {players} "
                    f"players is shipped (shipped: {have})"
                )
            bot = self._bots[players] = PolicyBot.load(folder, game=self.game, seed=self.seed)
        return bot

    def act(self, state: State, seat: int) -> Any:
        """The shipped policy's move."""
        return self.policy_for(state.game.num_players).act(state, seat)  # type: ignore[attr-defined]
