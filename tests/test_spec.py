"""Spec files: validation errors name the file and key; meshes are cached by their parameters."""
from __future__ import annotations

import json

import pytest

from tabletop.sim.errors import SpecError
from tabletop.sim.meshes import cached_mesh
from tabletop.sim.spec import load_toml


def _spec(tmp_path, text):
    path = tmp_path / "part.toml"
    path.write_text(text)
    return load_toml(path)


def test_missing_file(tmp_path):
    with pytest.raises(SpecError, match="not found"):
        load_toml(tmp_path / "nope.toml")


def test_invalid_toml_names_the_file(tmp_path):
    with pytest.raises(SpecError, match="part.toml: invalid TOML"):
        _spec(tmp_path, "radius = = 3")


@pytest.mark.parametrize("text,call,match", [
    ("[ball]\nradius = -1.0", lambda t: t.table("ball").number("radius", 0.0, 1.0), r"ball\.radius: -1.0 is outside"),
    ("[ball]\nradius = 'big'", lambda t: t.table("ball").number("radius"), r"ball\.radius: expected a number"),
    ("[ball]\n", lambda t: t.table("ball").number("radius"), r"ball\.radius: missing"),
    ("speed = [2.0, 1.0]", lambda t: t.range("speed", 0, 5), r"speed: \[2.0, 1.0\] must satisfy"),
    ("count = 2.5", lambda t: t.integer("count"), r"count: expected an integer"),
    ("pos = [1, 2]", lambda t: t.vector("pos"), r"pos: expected 3 numbers"),
    ("ball = 3", lambda t: t.table("ball"), r"ball: expected a table"),
])
def test_validation_errors_name_the_key(tmp_path, text, call, match):
    with pytest.raises(SpecError, match=match):
        call(_spec(tmp_path, text))


def test_meshes_are_cached_by_parameters(tmp_path, monkeypatch):
    import trimesh

    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path))
    builds = []

    def build():
        builds.append(1)
        return trimesh.creation.box((1, 1, 1))

    a = cached_mesh("box", 1, {"size": 1}, build)
    b = cached_mesh("box", 1, {"size": 1}, build)
    c = cached_mesh("box", 1, {"size": 2}, build)
    assert a == b != c
    assert len(builds) == 2
    assert a.exists() and not list(tmp_path.rglob("*.tmp"))


_BUILDER = """
import json, os, sys, time
from pathlib import Path
from tabletop.sim.meshes import cached_data
folder, me, other = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
(folder / f"ready-{me}").touch()
while not (folder / f"ready-{other}").exists():      # both ask for the file at the same moment
    time.sleep(0.01)

def build():
    with open(folder / "builds.log", "a") as log:
        log.write(me + "\\n")
    time.sleep(1.0)                                  # a slow geometric search
    return {"answer": 42}

print(json.dumps(cached_data("search", 1, {"n": 1}, build)))
"""


def test_processes_that_want_the_same_cached_file_at_once_build_it_once(tmp_path):
    """Two processes (a run's two workers, the suite's on a fresh machine) ask for the same uncached
    data at the same moment: one builds it while the other waits, then reads what was built."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, TABLETOP_CACHE=str(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", _BUILDER, str(tmp_path), me, other], env=env,
                              stdout=subprocess.PIPE, text=True)
             for me, other in (("a", "b"), ("b", "a"))]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert [json.loads(o) for o in outs] == [{"answer": 42}] * 2
    assert len((tmp_path / "builds.log").read_text().split()) == 1
    assert not list((tmp_path / "cache").rglob("*.tmp"))
