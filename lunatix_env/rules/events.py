"""The Lunatix Loop event vocabulary (:mod:`tabletop.events`): what a step resolved."""

from __future__ import annotations

from tabletop.events import EventKind


class LunatixEvent(EventKind):
    """Each kind: its JSON name and its text (fields as the engine records them)."""

    START_DOT = ("start_dot", "{who} starts on square {square}")
    CHIPS = ("chips", "{who} takes {tacks} tacks, {oil} oil and {glue} glue chips")
    ROUND = ("round", "round {round}")
    CARD = ("card", "{who} plays {card}")
    ORDER = ("order", "turn order: seats {order}")
    SPEED = ("speed", "{who}: {before} -> {after} mph ({why})")
    MOVE = ("move", "{who} moves from square {src} to square {dst}")
    DROP = ("drop", "{who} drops {chip} on square {square}")
    CHIP = ("chip", "{who} runs over {chip} on square {square}")
    RAM = ("ram", "{who} rams seat {target} ({ram})")
    HAZARD = ("hazard", "{who} draws the hazard card {card}")
    LUCK = ("luck", "{who} cancels the {deck} card {card}")
    LUNACY = ("lunacy", "{who} goes mad: {card}")
    DICE = ("dice", "{who} rolls {dice} damage dice: {hits} hits")
    DAMAGE = ("damage", "{who} takes {hits} hits: max speed {max_speed} mph")
    OUT = ("out", "{who} is out of the race")
    PIT_IN = ("pit_in", "{who} enters the pit through {opening}")
    SHOP = ("shop", "{who} buys {item}")
    GADGET_DRAWN = ("gadget_drawn", "{who} draws the gadget {gadget}")
    GADGET_KEPT = ("gadget_kept", "{who} keeps the gadget {gadget}")
    GADGET = ("gadget", "{who} uses {gadget}")
    PIT_OUT = ("pit_out", "{who} leaves the pit through {opening}")
    LAP = ("lap", "{who} completes lap {lap}")
    TURBO = ("turbo", "{who} draws the turbo card {card}")
    END = ("end", "game over: {outcome}, winner {winner}")
