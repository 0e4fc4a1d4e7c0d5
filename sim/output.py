"""Safe output files: checked before a run starts, written whole or not at all."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from tabletop.sim.errors import InputError


def check_output_path(path: str | Path, option: str = "--out") -> Path:
    """Fail early (InputError) when `path` cannot be written as a file."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{option} {path} is a folder; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{option} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise InputError(f"{option} {path}: folder {parent} is not writable")
    try:                                  # os.access says yes to root in /proc and on read-only mounts
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot write in folder {parent} ({exc.strerror or exc})") from None
    return path


def plot_formats() -> dict[str, str]:
    """The file formats matplotlib can write, suffix -> name ("png": "Portable Network Graphics",
    ...): its canvas's own list, read without importing pyplot or choosing a backend."""
    from matplotlib.backend_bases import FigureCanvasBase

    return dict(FigureCanvasBase.get_supported_filetypes())


def check_plot_path(path: str | Path, option: str = "--plot") -> Path:
    """Fail early (InputError) when `path` cannot be written as a file or names a format matplotlib
    cannot draw (its suffix: .png, .pdf, .svg, ...)."""
    path = Path(path)
    formats = plot_formats()
    suffix = path.suffix[1:].lower()
    if suffix not in formats:
        known = ", ".join(f".{f}" for f in sorted(formats))
        what = f"format {path.suffix!r} is not one matplotlib draws" if suffix else "a plot needs a file suffix"
        raise InputError(f"{option} {path}: {what}; end the name in one of {known}")
    return check_output_path(path, option)


def check_output_dir(path: str | Path, option: str) -> Path:
    """Make the folder `path` (and its parents) or fail with an InputError saying why."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{option} {path} is a file; give a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        check_output_path(path / "frame.png", option)
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot make the folder ({exc.strerror or exc})") from None
    return path


def ordinary_mode(path: str | Path) -> None:
    """Give a file made by mkstemp (0600) the permissions an ordinary new file gets (0666 less the
    umask), so result files, CSVs, plots and replays all come out alike."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write text to a temp file beside `path`, then rename it into place (nothing half-written)."""
    write_bytes_atomic(path, text.encode())


def write_bytes_atomic(path: str | Path, data: bytes, private: bool = False) -> None:
    """Write bytes to a temp file beside `path`, then rename it into place (nothing half-written).
    `private`: the file readable by its owner alone (0600), as a secret is kept."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if not private:
            ordinary_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | Path, data: dict) -> None:
    """Write JSON to a temp file beside `path`, then rename it into place."""
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False) + "\n")
