"""The device registry (gamekit/devices.py, the entry-point group tabletop.devices) and what each device module declares of itself: its NAME,
DEFAULT_SPEC and SUMMARY beside its class, read by the registry from the module's source; no device
module imports a registry."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tabletop.gamekit import devices
from tabletop.gamekit.devices import DECLARED, DEVICES, GROUP, OPTIONAL, DeviceEntry, declarations, source_declarations
from tabletop.gamekit.registry import ordered
from tabletop.sim.devices.base import Device
from tabletop.sim.paths import assets_dir

ROOT = Path(__file__).resolve().parents[1]
REGISTRIES = ("tabletop.gamekit.devices", "tabletop.gamekit.registry")
#: every declared device's "module:Class", tabletop's own and any installed plugin's
TARGETS = [point.value for point in ordered(GROUP)]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_the_registry_lists_every_device_in_order():
    """tabletop's own devices first, in the order its metadata lists them (alphabetical), then any
    plugin's; every entry point is registered, none is broken."""
    own = [point.name for point in ordered(GROUP) if point.dist is not None and point.dist.name == "tabletop"]
    assert own == ["crater", "die", "kong-knockover", "spinner", "sticks", "throw", "tipper"]
    assert list(DEVICES)[:len(own)] == own
    assert [e.target for e in DEVICES.values()] == TARGETS
    assert devices.problems() == {}


@pytest.mark.parametrize("target", TARGETS)
def test_each_device_module_declares_itself(target):
    """The module's NAME, DEFAULT_SPEC and SUMMARY are string literals its source assigns (what the
    registry reads without importing it), the same once imported; its class is a Device named NAME;
    the default spec exists; and the registry's entry is made of them."""
    module_name, cls_name = target.split(":")
    module = importlib.import_module(module_name)
    declared = {key: getattr(module, key) for key in (*DECLARED, *OPTIONAL) if hasattr(module, key)}
    assert set(DECLARED) <= set(declared)
    assert source_declarations(module_name) == declared == declarations(module_name)
    cls = getattr(module, cls_name)
    assert issubclass(cls, Device) and cls.name == module.NAME
    assert devices.default_spec(module.NAME).is_file()
    assert module.SUMMARY and "\n" not in module.SUMMARY
    assert DEVICES[module.NAME] == DeviceEntry(target, module.DEFAULT_SPEC, module.SUMMARY,
                                               *(declared.get(k, d) for k, d in OPTIONAL.items()))
    assert isinstance(module.OUTCOME_AXIS, str) and module.OUTCOME_AXIS   # every device says what a label is
    path = Path(module.__file__)
    assert not _imports(path) & set(REGISTRIES), f"{path} imports a registry"


def test_a_module_that_declares_nothing_is_refused(tmp_path, monkeypatch):
    """A device module without its declarations (or with a computed one) is named in the error."""
    (tmp_path / "half_declared_device.py").write_text('NAME = "half"\nDEFAULT_SPEC = "x" + ".toml"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="half_declared_device does not declare DEFAULT_SPEC, SUMMARY"):
        declarations("half_declared_device")


def test_default_specs_and_unknown_names():
    assert devices.default_spec("crater") == assets_dir() / "king_of_the_hill" / "hill.toml"
    from tabletop.sim.errors import InputError

    with pytest.raises(InputError, match="unknown device 'tipperr'; choose one of: crater, die, "):
        devices.entry("tipperr")
