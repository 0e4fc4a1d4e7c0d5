"""What the command line, replays and the window know of one game: its GameSpec.

Each game package exports one (`tabletop.games.<game>.SPEC`); tabletop.games.registry lists them.
Everything heavy (rules, physics, Panda3D) is reached through the spec's functions, imported
only when called.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class GameSpec:
    name: str                              # as the command line writes it: "king-of-the-hill"
    title: str                             # "King of the Hill"
    colours: tuple[str, ...]               # the seats' colours, in seat order
    seats: tuple[int, int]                 # fewest and most seats
    variants: tuple[str, ...]              # rule variants (--variant), the first the default
    chance_events: tuple[str, ...]         # the devices that answer its chance events
    actions: Callable[[], dict]            # replay tag -> action class
    make_game: Callable[[dict], object]    # a replay's config -> Game
    physics: Callable[[], object]          # a fresh physics outcome source (with table_for)
    # (seats, seed, outcomes, record, variant, games_to_win, emit) -> the final state: `play --headless`
    play_headless: Callable[..., object]
    # (seats, variant, games_to_win, scene) -> the window's adapter (a replay's RecordedScene: for playback)
    window_adapter: Callable[..., object]
    analysis: Callable[[], object]         # () -> its GameAnalysis (tabletop.games.analyze): `tabletop analyze`
    seat_kinds: tuple[str, ...] = ("ai", "random", "human")
    # the estimate devices whose measured tables answer its chance events (assets/measured)
    devices: tuple[str, ...] = ()
    # an --outcomes text ("physics", "table:FILE.json,...") -> the outcome source
    make_source: Callable[[str], object] | None = None
    # Game -> its agents' action catalogue and observations (tabletop.games.codec)
    codec: Callable[[object], object] | None = None
