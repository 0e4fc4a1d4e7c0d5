"""Physical randomizers and mechanisms: the device contract and shared devices."""
from tabletop.sim.devices.base import Device, Outcome, Status

__all__ = ["Device", "Outcome", "Status"]
