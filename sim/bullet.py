"""PyBullet, imported once and quietly.

pybullet prints its build date when imported and argv when a client connects; tabletop's output
(tables, JSON, game logs) stays clean by importing it through this module.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys

_libc = ctypes.CDLL(None)


@contextlib.contextmanager
def quiet_stdout():
    """Silence C-level output: pybullet prints its build time on import and argv on connect."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
        yield
    finally:
        _libc.fflush(None)
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)


with quiet_stdout():
    import pybullet
    from pybullet_utils.bullet_client import BulletClient

__all__ = ["BulletClient", "pybullet", "quiet_stdout"]
