"""tabletop: a physics-simulated 3D tabletop for three vintage games whose odds come from physical
gadgets.

The distribution installs this one import package; its parts live in the checkout's top-level
folders: `tabletop.sim` (sim/: the physics core, no game knowledge), `tabletop.games` (games/: the
rules, tables, AI seats and the `tabletop` command line) and `tabletop.assets` (assets/: materials
and part specs, package data). Importing `tabletop` loads none of them.
"""

__version__ = "0.1.0"
