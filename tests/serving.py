"""`tabletop serve` as a process for the tests that need a real server: one helper, not a copy per test file."""
from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path


@contextlib.contextmanager
def served(folder: Path):
    """`tabletop serve --host 127.0.0.1 --port 0 --data FOLDER/rooms` run in `folder`: yields (its ws://
    address, the data folder); stopped after, and it must have stopped cleanly with no traceback."""
    data = folder / "rooms"
    proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data", str(data)], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    assert line.startswith("serving on ws://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
    try:
        yield line.split()[2], data
    finally:
        proc.terminate()
    assert proc.wait(30) == 0
    assert "Traceback" not in proc.stderr.read()
