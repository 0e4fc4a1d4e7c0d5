"""Where a game's pieces can go and what its table says, as every front end shows them (the window,
the browser): no renderer."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Destination:
    """A place a selected piece can go: the action that takes it there and what to show."""

    action: object
    position: tuple[float, float, float]
    text: str


@dataclass(frozen=True)
class Label:
    """Words on the table: `text` centred on `at` (the table's frame, metres), its letters `size`
    metres tall (the window's text scale), in `color` (RGBA); lying `flat` on the surface, turned
    `heading` degrees about the vertical (0: read from the -Y side), or else always facing the
    viewer; on a plaque of colour `plate` (None: a shadow behind the letters); moving with the track
    `parent` (None: the table), `at` then in that track's frame; `key` names it (a game's own use)."""

    text: str
    at: tuple[float, float, float]
    size: float
    color: tuple = (1.0, 1.0, 1.0, 1.0)
    flat: bool = True
    heading: float = 0.0
    plate: tuple | None = None
    parent: str | None = None
    key: str = ""

    def to_dict(self) -> dict:
        """As table.json carries it (tabletop.net.browser)."""
        return {"text": self.text, "at": [float(v) for v in self.at], "size": float(self.size),
                "color": [float(v) for v in self.color], "flat": bool(self.flat), "heading": float(self.heading),
                "plate": None if self.plate is None else [float(v) for v in self.plate], "parent": self.parent}
