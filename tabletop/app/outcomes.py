"""What each device's outcome labels mean (a table's footnote, a plot's axis), as each device
module declares it (OUTCOME_AXIS, OUTCOME_LABELS, OUTCOME_LODGED, OUTCOME_FAIR: tabletop.gamekit.devices), and its
fair odds."""
from __future__ import annotations


def outcome_axis(device: str) -> str:
    """What a label is: the plot's x-axis."""
    from tabletop.gamekit.devices import entry

    return entry(device).axis


def outcome_notes(device: str) -> list[str]:
    """What an estimate table's labels and statuses mean: the footnote under it."""
    from tabletop.gamekit.devices import entry

    e = entry(device)
    return ([f"labels: {e.labels}"] if e.labels else []) + [
        "p is among the labelled trials; unsettled: still moving when the settle cap ran out; escaped: a body "
        "left the model (a defect); lodged: " + (e.lodged or "never, for this device (every reading has a label)")]


def fair_odds(device: str, labels) -> tuple[dict[str, float], str] | None:
    """The device's fair odds where it has a notion of them ({label: p}, the legend's text): the
    idealised chance `analyze --outcomes fair` plays with, the fair table (a game's `fair_tables`)
    of a game that uses the device whose labels are the device's (a die's faces 1/6, the Tipper's
    slots 1/7, the cave seats 1/6, the sticks as two fair coins, the spinner's sectors by their
    share of the card); None for the knock-overs and the generic throw, which have none."""
    from tabletop.gamekit.devices import entry
    from tabletop.gamekit.errors import GameError
    from tabletop.gamekit.registry import GAMES

    for spec in GAMES.values():
        if device not in spec.devices:
            continue
        try:
            tables = spec.fair_tables()
        except GameError:
            continue
        for table in tables.values():
            if set(table) == set(labels):
                values = sorted(set(round(v, 9) for v in table.values()))
                how = (f"each 1/{round(1 / values[0])}" if len(values) == 1 else
                       entry(device).fair or f"{spec.title}'s fair table")
                return dict(table), f"fair odds: {how} (analyze --outcomes fair)"
    return None
