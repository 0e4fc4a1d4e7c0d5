"""Registry of the physical devices that `tabletop estimate` can run.

A device is one module that declares, beside its class, its name, its default spec (a path under
assets/) and a one-line summary as module-level string literals: NAME, DEFAULT_SPEC, SUMMARY. The
registry lists those modules ("module:Class"), nothing more. It reads the three declarations from
each module's source without running it, because importing a device loads PyBullet and much else,
while the game layouts, the views, replay playback and the CLI's help ask for a name, a default
spec or a summary and must not load it; a device's module is imported only to build the device
(`make_device`), so a worker process imports only what it runs.

The registry lives here, with the games, because one device (King Kong's knock-over) is built on
his rig in tabletop.games.king_kong and tabletop.sim knows no game; every other device lives in
tabletop.sim.devices. Adding a device: its module (with NAME, DEFAULT_SPEC, SUMMARY, and what its
outcomes are: OUTCOME_AXIS, OUTCOME_LABELS, OUTCOME_LODGED), its spec under assets/, and one line
in TARGETS.
"""
from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from tabletop.sim.batch import DeviceRef
from tabletop.sim.devices.base import Device
from tabletop.sim.errors import InputError
from tabletop.sim.paths import assets_dir

#: every device, in the order the CLI lists them: "module:Class"
TARGETS = (
    "tabletop.sim.devices.tipper:Tipper",
    "tabletop.sim.devices.crater:Crater",
    "tabletop.sim.devices.sticks:ThrowSticks",
    "tabletop.sim.devices.die:Die",
    "tabletop.sim.devices.throw:Throw",
    "tabletop.sim.devices.spinner:Spinner",
    "tabletop.games.king_kong.knockover:KongKnockover",
)

#: what each device module declares at its top level, as string literals
DECLARED = ("NAME", "DEFAULT_SPEC", "SUMMARY")
#: what it may declare besides (a literal, text or None), and what a module that does not declares
OPTIONAL = {"OUTCOME_AXIS": "outcome", "OUTCOME_LABELS": None, "OUTCOME_LODGED": "settled where no label is read"}


@dataclass(frozen=True)
class DeviceEntry:
    target: str          # "module:Class"
    spec: str            # default spec, relative to assets/
    summary: str
    axis: str = "outcome"            # what a label is (a plot's axis)
    labels: str | None = None        # what the labels mean
    lodged: str | None = None        # what a lodged trial is (None: never, every reading has a label)


def declarations(module: str) -> dict[str, str]:
    """NAME, DEFAULT_SPEC and SUMMARY of a device module (and whichever of OPTIONAL it declares): its
    attributes when it is already imported, else the literals its source assigns them
    (`source_declarations`: the module is not run)."""
    loaded = sys.modules.get(module)
    found = ({key: getattr(loaded, key) for key in (*DECLARED, *OPTIONAL) if hasattr(loaded, key)}
             if loaded is not None else source_declarations(module))
    missing = [key for key in DECLARED if not isinstance(found.get(key), str)]
    if missing:
        raise ImportError(f"device module {module} does not declare {', '.join(missing)} as a string literal "
                          f"at its top level (every device module declares {', '.join(DECLARED)})")
    return found


def source_declarations(module: str) -> dict[str, str]:
    """The declarations among NAME, DEFAULT_SPEC and SUMMARY that a module's source assigns a literal
    at its top level, read without running the module (its parent packages are imported)."""
    spec = importlib.util.find_spec(module)
    source = spec.loader.get_source(module) if spec is not None and spec.loader is not None else None
    if source is None:
        raise ImportError(f"device module {module}: no source found")
    found = {}
    for node in ast.parse(source, spec.origin or module).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in (*DECLARED, *OPTIONAL)):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass   # not a literal: `declarations` reports it missing
    return found


@functools.cache
def _registry() -> dict[str, DeviceEntry]:
    devices: dict[str, DeviceEntry] = {}
    for target in TARGETS:
        d = declarations(target.split(":")[0])
        if d["NAME"] in devices:
            raise ImportError(f"two device modules declare NAME {d['NAME']!r}: {devices[d['NAME']].target}, {target}")
        devices[d["NAME"]] = DeviceEntry(target, d["DEFAULT_SPEC"], d["SUMMARY"],
                                         *(d.get(key, default) for key, default in OPTIONAL.items()))
    return devices


def __getattr__(attr: str):
    # DEVICES (name -> DeviceEntry, in TARGETS' order) is read from the device modules on first use
    if attr == "DEVICES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def default_spec(name: str) -> Path:
    return assets_dir() / entry(name).spec


def entry(name: str) -> DeviceEntry:
    devices = _registry()
    try:
        return devices[name]
    except KeyError:
        raise InputError(f"unknown device {name!r}; choose one of: {', '.join(devices)}") from None


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
