"""Physical randomizers and mechanisms: the device contract and shared devices."""
from sim.devices.base import Device, Outcome, Status

__all__ = ["Device", "Outcome", "Status"]
