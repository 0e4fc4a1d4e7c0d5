"""tabletop: a physics-simulated 3D tabletop for three vintage games whose odds come from physical
gadgets.

The distribution installs this one import package; its parts live in the checkout's top-level
folders: `tabletop.sim` (sim/: the physics core, no game knowledge), `tabletop.games` (games/: the
rules, tables, AI seats and the `tabletop` command line) and `tabletop.assets` (assets/: materials
and part specs, package data). Importing `tabletop` loads none of them.

The Python API (tabletop/api.py, loaded on first use): `tabletop.estimate(device, trials, seed,
workers, ...)`, `tabletop.play(game, seats, seed, ...)`, `tabletop.resume(file, from_turn=...)`,
`tabletop.analyze(game, games, seats, ...)`, `tabletop.review(file)`, `tabletop.calibrate(device,
observed)` (its file is the `calibration=` of estimate, play and analyze), `tabletop.open_replay(path)`, and
`tabletop.host(game, server, seats, ...)` / `tabletop.join(url, ...)` for a game server. Bad
arguments raise `tabletop.InputError` (a ValueError) with the command's one-line message.
"""

__version__ = "0.1.0"

_API = ("estimate", "play", "resume", "review", "analyze", "calibrate", "open_replay", "host", "join", "EstimateResult",
        "PlayedGame", "Probability", "Replay")
__all__ = ["__version__", "InputError", *_API]


def __getattr__(name: str):
    """The API's names, imported on first use (so that `import tabletop` stays light)."""
    if name in _API:
        from tabletop import api

        return getattr(api, name)
    if name == "InputError":
        from tabletop.sim.errors import InputError

        return InputError
    raise AttributeError(f"module 'tabletop' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
