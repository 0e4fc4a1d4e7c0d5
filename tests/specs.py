"""A device spec with one value changed, and the check that it is refused, for the tests of bad
spec values (tests/test_die.py, test_spinner.py, test_sticks.py, test_crater.py): the spec's own
text with the one line replaced, so that the error names a real file and the key as written."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop.sim.errors import SpecError


def write_spec(spec: Path, folder: Path, table: str, key: str, value) -> Path:
    """A copy of the TOML file `spec` in `folder` (same name) with `key` of `[table]` set to `value`
    (written as JSON, which TOML reads for numbers, strings and lists); the key must be there."""
    lines, section, hit = [], None, False
    for line in Path(spec).read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]")
        if section == table and stripped.split("=")[0].strip() == key:
            line, hit = f"{key} = {json.dumps(value)}", True
        lines.append(line)
    assert hit, (table, key)
    out = Path(folder) / Path(spec).name
    out.write_text("\n".join(lines) + "\n")
    return out


def assert_refused(make, spec: Path, needle: str) -> None:
    """`make(spec)` (a device or shape class) refuses the spec with a one-line SpecError naming
    the file and `needle` (the key)."""
    with pytest.raises(SpecError) as err:
        make(spec)
    message = str(err.value)
    assert "\n" not in message and needle in message and str(spec) in message, message
