"""What each device's outcome labels mean (a table's footnote, a plot's axis) and its fair odds."""
from __future__ import annotations

#: per device: (what a label is: the plot's x-axis, what the labels mean, what a lodged trial is; None
#: where the device has none). The meanings are the devices' own (their module docstrings).
OUTCOME_NOTES = {
    "tipper": ("slot where the ball stops",
               "1-6: the slot the ball stops in, the spaces a marble moves; J: jump, a marble moves 1-10 "
               "spaces of its player's choice (J also ranks above 6 for who starts)",
               "the ball came to rest outside every slot"),
    "crater": ("cave and seat the marble reaches",
               "caveN/seatM: the cave (1-3) and the seat in it (seat1 or seat2) where the knocked-in marble stops",
               "the marble came to rest outside every cave seat"),
    "sticks": ("the sticks' throw",
               "1: both round sides up; 2: one round side and one flat side up; 3: both flat sides up",
               "every throw settled, but the re-throws allowed (reading.max_rethrows) still left a stick "
               "unreadable (on an edge or end, or resting on the other stick)"),
    "die": ("face on top", "1-6: the face on top",
            "cocked: the die came to rest leaning on a wall, no face flat up (a player would throw again)"),
    "spinner": ("outer-circle sector where the pointer stops",
                "the outer circle's twist: L1, L2 left (counter-clockwise) 1 or 2 notches; R1, R2 right; LR1, "
                "LR2 1 or 2 notches, the spinner's choice of direction; UP return to up; the inner circle's "
                "climb is the JSON's circles block", None),
    "kong-knockover": ("the pawn's fate when Kong moves",
                       "standing: the pawn stays up in its space; knocked: knocked over; pushed: pushed out "
                       "of its space",
                       "the pawn came to rest upright off the board (on the figure or on another pawn)"),
    "throw": ("side the body rests on",
              "the body's rest state: for a cuboid the body axis (+x ... -z) pointing up, for a cylinder "
              "top, bottom or side, for a half-cylinder flat or round (assets/throw.toml)",
              "the body rests in no rest state (leaning on a rim, balanced on an edge or a corner)"),
}


def outcome_notes(device: str) -> list[str]:
    """What an estimate table's labels and statuses mean: the footnote under it."""
    _, labels, lodged = OUTCOME_NOTES.get(device, ("outcome", None, "settled where no label is read"))
    return ([f"labels: {labels}"] if labels else []) + [
        "p is among the labelled trials; unsettled: still moving when the settle cap ran out; escaped: a body "
        "left the model (a defect); lodged: " + (lodged or "never, for this device (every reading has a label)")]


def fair_odds(device: str, labels) -> tuple[dict[str, float], str] | None:
    """The device's fair odds where it has a notion of them ({label: p}, the legend's text): the
    idealised chance `analyze --outcomes fair` plays with (a die's faces 1/6, the Tipper's slots
    1/7, the cave seats 1/6, the sticks as two fair coins, the spinner's sectors by their share of
    the card); None for the knock-overs and the generic throw, which have none."""
    from tabletop.gamekit.analyze import measured_files
    from tabletop.gamekit.chance import table_dicts
    from tabletop.games.registry import GAMES

    for spec in GAMES.values():
        if device not in spec.devices:
            continue
        analysis = spec.analysis()
        if device in analysis.fair_measured:
            return None
        for table in table_dicts(analysis.source("fair", measured_files(analysis.fair_measured))).values():
            if set(table) == set(labels):
                values = sorted(set(round(v, 9) for v in table.values()))
                how = (f"each 1/{round(1 / values[0])}" if len(values) == 1 else
                       "two fair coins" if device == "sticks" else "each label by its sectors' share")
                return dict(table), f"fair odds: {how} (analyze --outcomes fair)"
    return None
