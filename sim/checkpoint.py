"""Checkpoints of a batch run: a JSON-lines file beside the result, one line per finished chunk.

The first line is a header naming the device, the seed, a digest of the physical parameters and
the chunk size; each further line holds one finished chunk's trial records. Appending a whole line
per chunk (flushed and synced) means a crash or a kill loses at most the chunks in flight; a torn
last line is cut off on resume. `--resume` reads the file, checks the header against the run being
resumed and runs only the trials not in it, so nothing is lost or repeated.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from tabletop.sim.errors import InputError

FORMAT = "tabletop-checkpoint"
VERSION = 1


def checkpoint_path(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".checkpoint.jsonl")


class Checkpoint:
    """An open checkpoint file that finished chunks are appended to."""

    def __init__(self, path: Path, header: dict, records: list[dict]):
        self.path, self.header, self.records = path, header, records

    @classmethod
    def create(cls, path: str | Path, header: dict) -> "Checkpoint":
        path = Path(path)
        if path.exists():
            raise InputError(f"a checkpoint of an earlier run exists: {path}; add --resume to continue it, "
                             f"or delete it to start afresh")
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"format": FORMAT, "version": VERSION, **header}) + "\n")
        os.replace(tmp, path)
        return cls(path, header, [])

    @classmethod
    def resume(cls, path: str | Path, header: dict) -> "Checkpoint":
        """Open an existing checkpoint for the run `header` describes; a foreign one is an InputError."""
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise InputError(f"--resume: no checkpoint at {path}") from None
        lines = raw.split(b"\n")
        try:
            head = json.loads(lines[0])
        except ValueError:
            raise InputError(f"--resume: {path} is not a tabletop checkpoint") from None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise InputError(f"--resume: {path} is not a tabletop checkpoint")
        if head.get("version") != VERSION:
            raise InputError(f"--resume: {path} has checkpoint version {head.get('version')}, this build reads {VERSION}")
        if head.get("command") != header.get("command"):     # an estimate's header names none
            raise InputError(f"--resume: {path} is the checkpoint of a `tabletop {head.get('command') or 'estimate'}` "
                             f"run, not of this `tabletop {header.get('command') or 'estimate'}` run")
        for key, value in header.items():
            if head.get(key) != value:
                raise InputError(f"--resume: {path} is from another run ({key} {head.get(key)!r}, "
                                 f"this run {value!r})")
        records, good_end = [], len(lines[0]) + 1
        for line in lines[1:]:
            if not line:
                break
            try:
                chunk = json.loads(line)
                records.extend(chunk["records"])
            except (ValueError, KeyError, TypeError):
                break  # a torn last line from a crash: cut it off
            good_end += len(line) + 1
        if good_end < len(raw):
            with path.open("r+b") as fh:
                fh.truncate(good_end)
        return cls(path, header, records)

    def append(self, records: list[dict]) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps({"records": records}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.records.extend(records)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
