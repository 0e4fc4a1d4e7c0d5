"""`tabletop plugins`: the games and devices installed (tabletop's own and every other
distribution's, found through the entry-point groups tabletop.games and tabletop.devices), where
each comes from, and the one line that says why one that is declared cannot be registered."""
from __future__ import annotations


def add_command(sub) -> None:
    sub.add_parser("plugins", help="list the installed games and devices (tabletop's own and plugins') and "
                                   "any that cannot be registered")


def plugins(args) -> int:
    from tabletop.gamekit import devices
    from tabletop.gamekit.registry import GAMES

    print("games:")
    for name in GAMES:
        d = GAMES[name]
        lo, hi = d.seats
        seats = f"{lo} seats" if lo == hi else f"{lo}-{hi} seats"
        print(f"  {name:<20} {d.title}, {seats}, chance: {', '.join(d.chance_events) or 'none'} "
              f"({GAMES.origin(name)})")
    print("devices:")
    for name, entry in devices.DEVICES.items():
        print(f"  {name:<20} {entry.summary} ({entry.origin})")
    problems = {**GAMES.problems(), **devices.problems()}
    for line in problems.values():
        print(f"not registered: {line}")
    return 1 if problems else 0
