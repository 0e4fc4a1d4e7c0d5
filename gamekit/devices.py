"""Every physical device that `tabletop estimate` can run, found as plugins: the entry-point group
`tabletop.devices` (name = "module:Class"), so that a game's own gadget lives with it.

A device is one module that declares, beside its class, its name, its default spec and a one-line
summary as module-level string literals: NAME (the entry point's name), DEFAULT_SPEC (a path under
tabletop's assets/ for tabletop's own devices; for a device of another distribution, relative to its
module's folder), SUMMARY, and what its outcomes are (OUTCOME_AXIS, OUTCOME_LABELS, OUTCOME_LODGED, OUTCOME_FAIR;
optional). The registry reads those declarations from each module's source without running it,
because importing a device loads PyBullet and much else, while the game layouts, the views, replay
playback and the CLI's help ask for a name, a default spec or a summary and must not load it; a
device's module is imported only to build the device (`make_device`), so a worker process imports
only what it runs.

tabletop's own devices register themselves in its pyproject.toml: those of tabletop.sim.devices
and King Kong's knock-over, built on his rig in his game's package. Adding a device: its module,
its spec, and one entry point (docs/adding-a-game.md).
"""
from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tabletop.gamekit.registry import ordered
from tabletop.sim.batch import DeviceRef
from tabletop.sim.devices.base import Device
from tabletop.sim.errors import InputError
from tabletop.sim.paths import assets_dir

GROUP = "tabletop.devices"

#: what each device module declares at its top level, as string literals
DECLARED = ("NAME", "DEFAULT_SPEC", "SUMMARY")
#: what it may declare besides (a literal, text or None), and what a module that does not declares
OPTIONAL = {"OUTCOME_AXIS": "outcome", "OUTCOME_LABELS": None, "OUTCOME_LODGED": "settled where no label is read",
            "OUTCOME_FAIR": None}


@dataclass(frozen=True)
class DeviceEntry:
    target: str          # "module:Class"
    spec: str            # default spec: relative to assets/ (tabletop's own), else to its module's folder
    summary: str
    axis: str = "outcome"            # what a label is (a plot's axis)
    labels: str | None = None        # what the labels mean
    lodged: str | None = None        # what a lodged trial is (None: never, every reading has a label)
    fair: str | None = None          # how its fair odds are made where they are not all equal ("two fair coins")
    origin: str = field(default="", compare=False)   # the distribution that declares it and its version ("tabletop 0.9.0")


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
    for point in ordered(GROUP):
        if point.name in devices:
            continue                      # declared twice: the first (tabletop's own first) is kept
        try:
            d = declarations(point.module)
        except Exception as exc:    # a plugin device whose package does not import is left out, said by `problems`
            first = (str(exc).strip().splitlines() or [""])[0]
            _BROKEN[point.name] = (f"device {point.name!r} ({point.value}) cannot be registered: "
                                   f"{type(exc).__name__}: {first}")
            continue
        if d["NAME"] != point.name:
            _BROKEN[point.name] = (f"device {point.name!r} ({point.value}) cannot be registered: its module "
                                   f"declares NAME {d['NAME']!r}")
            continue
        origin = f"{point.dist.name} {point.dist.version}" if point.dist is not None else "this process"
        devices[point.name] = DeviceEntry(point.value, d["DEFAULT_SPEC"], d["SUMMARY"],
                                          *(d.get(key, default) for key, default in OPTIONAL.items()), origin=origin)
    return devices


_BROKEN: dict[str, str] = {}


def problems() -> dict[str, str]:
    """name -> the one line that says why it is not registered, for every declared device that is not."""
    _registry()
    return dict(_BROKEN)


def __getattr__(attr: str):
    # DEVICES (name -> DeviceEntry, in TARGETS' order) is read from the device modules on first use
    if attr == "DEVICES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def default_spec(name: str) -> Path:
    """The named device's default spec: under tabletop's assets/ for its own devices, else relative
    to the folder of the module that declares it."""
    e = entry(name)
    module = e.target.split(":")[0]
    if module == "tabletop" or module.startswith("tabletop."):
        return assets_dir() / e.spec
    found = importlib.util.find_spec(module)
    return Path(found.origin).parent / e.spec


def entry(name: str) -> DeviceEntry:
    devices = _registry()
    try:
        return devices[name]
    except KeyError:
        if name in _BROKEN:
            raise InputError(_BROKEN[name]) from None
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
    return DeviceRef("tabletop.gamekit.devices:make_device", (name, str(spec), tuple(overrides)))
