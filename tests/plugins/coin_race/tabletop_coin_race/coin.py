"""The coin race's own gadget (`tabletop estimate coin`): a coin let fall with a flick of spin onto
the felt of a small tray, read from the side it lands on: top, bottom, or side (on its edge).

It is tabletop's throw device (tabletop.sim.devices.throw) with a spec of its own, coin.toml beside
this module; it is registered through the entry-point group `tabletop.devices`, which reads the three
declarations below from this file without importing it.
"""
from tabletop.sim.devices.throw import Throw

NAME = "coin"
DEFAULT_SPEC = "coin.toml"           # relative to this module's folder
SUMMARY = "a coin dropped with a flick of spin onto felt: top, bottom or side up (the coin race's gadget)"
OUTCOME_AXIS = "side the coin lands on"
OUTCOME_LABELS = "top or bottom face up, or side (standing on its edge)"
OUTCOME_LODGED = "the coin rests in no rest state (leaning on the tray's rim)"


class Coin(Throw):
    """The throw device, named for the coin race's coin."""

    name = NAME
