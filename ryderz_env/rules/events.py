"""The Lazer Ryderz event vocabulary (:mod:`tabletop.events`): what a step resolved."""

from __future__ import annotations

from tabletop.events import EventKind


class RyderzEvent(EventKind):
    """Each kind: its JSON name and its text (fields as the engine records them)."""

    ENGINES = ("engines", "{who} picks gear {gear}{stalled}")
    REDO = ("redo", "every gear stalled: Start Your Engines again")
    DEALT = ("dealt", "{who} is dealt gear {gear} (every gear stalled too often)")
    RESPAWN = ("respawn", "{who} respawns in gear {gear}")
    LAUNCH = ("launch", "{who} places a Launch Point at {t:.2f} in along the edge")
    ROUND = ("round", "round {round}: turn order {order}")
    POWER = ("power", "{who} uses {power}")
    SHIFT = ("shift", "{who} shifts to gear {gear}")
    DIE = ("die", "{who} rolls {roll}{spin}")
    PIECE = ("piece", "{who} lays a gear {gear} {piece} at ({x:.2f}, {y:.2f})")
    PULLED = ("pulled", "{who} pulls its oldest piece off the table (Launch Point: {launch_point})")
    SCORE = ("score", "{who} scores Prizm {prizm}{stolen}")
    SLIDE = ("slide", "Prizm {prizm} slides to ({x:.2f}, {y:.2f})")
    NUDGE = ("nudge", "Prizm {prizm} is nudged to ({x:.2f}, {y:.2f})")
    CRASH = ("crash", "{who} crashes and loses {pieces} pieces")
    HIT = ("hit", "{who} is hit and loses {pieces} pieces")
    TOSS = ("toss", "a fresh Prizm {prizm} lands at ({x:.2f}, {y:.2f})")
    END = ("end", "game over: {outcome}, winner {winner}")
