"""`tabletop plugins`: prints what tabletop.app.plugins finds; exit 1 when a declared game or
device cannot be registered (each said in one line)."""
from __future__ import annotations


def add_command(sub) -> None:
    sub.add_parser("plugins", help="list the installed games and devices (tabletop's own and plugins') and "
                                   "any that cannot be registered")


def plugins(args) -> int:
    from tabletop.app.plugins import plugins
    from tabletop.app.requests import PluginsRequest

    found = plugins(PluginsRequest())
    print("games:")
    for g in found["games"]:
        lo, hi = g["seats"]
        seats = f"{lo} seats" if lo == hi else f"{lo}-{hi} seats"
        extra = "".join(f"; {word}" for word, has in (("no window", not g["window"]), ("solved", g["solved"])) if has)
        print(f"  {g['name']:<20} {g['title']}, {seats}, chance: {', '.join(g['chance_events']) or 'none'}{extra} "
              f"({g['origin']})")
    print("devices:")
    for d in found["devices"]:
        print(f"  {d['name']:<20} {d['summary']} ({d['origin']})")
    for line in found["problems"].values():
        print(f"not registered: {line}")
    return 1 if found["problems"] else 0
