"""`tabletop plugins`: the games and devices installed (tabletop's own and every other
distribution's, found through the entry-point groups tabletop.games and tabletop.devices), where
each comes from, and the one line that says why one that is declared cannot be registered."""
from __future__ import annotations

from tabletop.app.requests import PluginsRequest


def plugins(request: PluginsRequest | None = None) -> dict:
    """{"games": [{name, title, seats, chance_events, window, solved, origin}], "devices": [{name,
    summary, origin}], "problems": {name: the line}} of every installed game and device."""
    from tabletop.gamekit import devices
    from tabletop.gamekit.definition import GameDefinition
    from tabletop.gamekit.registry import GAMES

    games = []
    for name in GAMES:
        d = GAMES[name]
        games.append({"name": name, "title": d.title, "seats": list(d.seats), "chance_events": list(d.chance_events),
                      "window": type(d).window_adapter is not GameDefinition.window_adapter, "solved": d.solved,
                      "origin": GAMES.origin(name)})
    found = [{"name": name, "summary": e.summary, "origin": e.origin} for name, e in devices.DEVICES.items()]
    return {"games": games, "devices": found, "problems": {**GAMES.problems(), **devices.problems()}}
