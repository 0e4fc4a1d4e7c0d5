"""Registry of the physical devices that `tabletop estimate` can run.

Each entry names the device class (imported lazily, so a worker process imports only what
it runs) and its default spec file under assets/.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from tabletop.sim.batch import DeviceRef
from tabletop.sim.devices.base import Device
from tabletop.sim.errors import InputError
from tabletop.sim.paths import assets_dir


@dataclass(frozen=True)
class DeviceEntry:
    target: str          # "module:Class"
    spec: str            # default spec, relative to assets/
    summary: str


DEVICES: dict[str, DeviceEntry] = {
    "tipper": DeviceEntry("tabletop.games.king_of_the_hill.tipper:Tipper", "king_of_the_hill/tipper.toml",
                          "King of the Hill's Tipper: the slot (1-6, J) where the rolling ball stops"),
    "crater": DeviceEntry("tabletop.games.king_of_the_hill.crater:Crater", "king_of_the_hill/hill.toml",
                          "King of the Hill's crater: the cave and seat a knocked-in marble reaches"),
    "sticks": DeviceEntry("tabletop.sim.devices.sticks:ThrowSticks", "knossos/sticks.toml",
                          "Knossos throw sticks: 1 (two round sides up), 2 (one of each), 3 (two flat)"),
    "die": DeviceEntry("tabletop.sim.devices.die:Die", "king_kong/die.toml",
                       "King Kong's die thrown into the box lid: the face on top, 1-6"),
    "throw": DeviceEntry("tabletop.sim.devices.throw:Throw", "throw.toml",
                         "any shape (cuboid, cylinder, half-cylinder) dropped, tossed or rolled onto a table: the side "
                         "it rests on (assets/throw.toml; --set shape.kind=...)"),
    "spinner": DeviceEntry("tabletop.sim.devices.spinner:Spinner", "king_kong/spinner.toml",
                           "King Kong's spinner: the outer-circle twist where the pointer stops (inner-circle "
                           "climb in the circles block)"),
    "kong-knockover": DeviceEntry("tabletop.games.king_kong.knockover:KongKnockover", "king_kong/knockover.toml",
                                  "King Kong's move among the Attack Team: a pawn in a groove or beside his path "
                                  "standing, knocked over or pushed out (by_group: <where>/<twist>)"),
}


def default_spec(name: str) -> Path:
    return assets_dir() / entry(name).spec


def entry(name: str) -> DeviceEntry:
    try:
        return DEVICES[name]
    except KeyError:
        raise InputError(f"unknown device {name!r}; choose one of: {', '.join(DEVICES)}") from None


def make_device(name: str, spec: str | Path | None = None, overrides=()) -> Device:
    """Build the named device from its spec (the default one unless given), with `--set`
    overrides: pairs (dotted name, TOML value text), `materials.NAME.FIELD` for materials."""
    e = entry(name)
    module, cls = e.target.split(":")
    device_cls = getattr(importlib.import_module(module), cls)
    return device_cls(Path(spec) if spec is not None else default_spec(name), overrides=tuple(overrides))


def device_ref(name: str, spec: str | Path, overrides=()) -> DeviceRef:
    """The picklable recipe worker processes build the named device from (`make_device`'s arguments)."""
    return DeviceRef("tabletop.games.devices:make_device", (name, str(spec), tuple(overrides)))
