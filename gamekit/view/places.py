"""Where a game's pieces can go, as every front end shows it (the window, the browser): no renderer."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Destination:
    """A place a selected piece can go: the action that takes it there and what to show."""

    action: object
    position: tuple[float, float, float]
    text: str
