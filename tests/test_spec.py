"""Spec files: validation errors name the file and key; meshes are cached by their parameters."""
from __future__ import annotations

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
