"""A device spec with one value changed, for the tests of bad spec values (tests/test_die.py,
test_spinner.py, test_sticks.py, test_crater.py): the spec's own text with the one line replaced,
so that the error names a real file and the key as written."""
from __future__ import annotations

import json
from pathlib import Path


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
