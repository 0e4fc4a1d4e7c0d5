"""What every game's physical table shares: answering a chance event until the physics gives a label."""
from __future__ import annotations

from typing import Callable

from tabletop.sim.devices.base import Outcome, Status

MAX_RETRIES = 20


class EscapeError(RuntimeError):
    """A body left the model during a game: a defect in the geometry, never expected."""


def until_labelled(event: str, attempt: Callable[[], Outcome], retries: dict[str, int],
                   escape_message: str) -> Outcome:
    """Repeat a physical attempt (a tilt, a knock, a throw) until it gives a label.

    A player would tilt again, shake a lodged marble loose or throw again; each repeat is counted
    in `retries[event]`, never coerced to a label. An escape raises EscapeError.
    """
    for _ in range(MAX_RETRIES):
        outcome = attempt()
        if outcome.status is Status.ESCAPED:
            raise EscapeError(f"{escape_message}: {outcome.reading}")
        if outcome.status is Status.OK:
            return outcome
        retries[event] = retries.get(event, 0) + 1
    raise RuntimeError(f"the {event} gave no label in {MAX_RETRIES} attempts")
