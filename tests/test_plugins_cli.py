"""`tabletop plugins`: every installed game and device, where each comes from, and a declared one
that cannot be registered said in one line (exit 1) while the others are listed and still play."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tabletop.cli import main
from tabletop.gamekit import devices, registry


def test_the_installed_games_and_devices_are_listed_with_their_distribution(capsys):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    games, devs = out.split("devices:\n")
    for name in registry.GAMES:
        line = next(line for line in games.splitlines() if line.split()[0] == name)
        assert registry.GAMES[name].title in line and registry.GAMES.origin(name) in line
    for name, entry in devices.DEVICES.items():
        assert any(line.split()[0] == name and entry.origin in line for line in devs.splitlines())
    assert "tabletop " in out and "not registered" not in out


@pytest.fixture
def broken(tmp_path, monkeypatch):
    """A distribution on sys.path declaring a game whose definition lacks its codec and a device
    whose module declares another NAME; fresh registries read it."""
    (tmp_path / "broken_plugin.py").write_text(textwrap.dedent('''
        from tabletop.gamekit.definition import GameDefinition

        class Broken(GameDefinition):
            name, title, colours = "broken", "Broken", ("red", "blue")
            def actions(self): return {}
            def make_game(self, config): return None
            def physics(self): return None
            def make_seat(self, kind, source, options): return None

        NAME = "wrong-name"
        DEFAULT_SPEC = "x.toml"
        SUMMARY = "a device that names itself wrongly"
        '''))
    info = tmp_path / "broken_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[tabletop.games]\nbroken = broken_plugin:Broken\n\n"
                                           "[tabletop.devices]\nbroken-device = broken_plugin:Broken\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "GAMES", registry.Registry())
    devices._registry.cache_clear()
    monkeypatch.setattr(devices, "_BROKEN", {})
    yield
    devices._registry.cache_clear()


def test_a_game_without_a_required_hook_is_one_line_and_the_others_still_play(broken, capsys):
    assert main(["plugins"]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("not registered: ")]
    assert len(lines) == 2
    assert ("game 'broken' (broken_plugin:Broken, from broken-plugin 1.0) cannot be registered: it does not fill "
            "the required hook codec") in lines[0]
    assert "device 'broken-device'" in lines[1] and "NAME 'wrong-name'" in lines[1]
    assert "knossos" in out.split("devices:")[0] and "broken " not in out.split("devices:")[0]
    assert main(["play", "broken", "--headless", "--no-record"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("it does not fill the required hook codec")
    assert main(["play", "knossos", "--headless", "--seats", "random,random", "--games-to-win", "1",
                 "--outcomes", "table:sticks-10k-seed1.json", "--no-record"]) == 0
    assert main(["estimate", "broken-device", "--trials", "1"]) == 2
    assert "NAME 'wrong-name'" in capsys.readouterr().err


def test_importing_the_registries_and_naming_the_games_imports_no_game():
    """The names come from the installed metadata; a game's package is imported when it is asked for."""
    code = ("import sys; from tabletop.gamekit.registry import GAMES; names = GAMES.names(); "
            "loaded = [m for m in sys.modules if m.startswith('tabletop.games.') or m.split('.')[0] in "
            "{ep.value.split(':')[0].split('.')[0] for ep in GAMES._points.values()} - {'tabletop'}]; "
            "print(len(names), loaded)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert int(out[0]) >= 3 and out[1].strip() == "[]"


def test_a_device_whose_package_does_not_import_is_one_line_and_the_others_still_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "badpkg").mkdir()
    (tmp_path / "badpkg" / "__init__.py").write_text("raise TypeError('this package is broken')\n")
    (tmp_path / "badpkg" / "dev.py").write_text('NAME = "bad"\nDEFAULT_SPEC = "x.toml"\nSUMMARY = "bad"\n')
    info = tmp_path / "badpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badpkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[tabletop.devices]\nbad = badpkg.dev:Dev\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    devices._registry.cache_clear()
    monkeypatch.setattr(devices, "_BROKEN", {})
    try:
        assert "die" in devices.DEVICES and "bad" not in devices.DEVICES
        assert devices.problems() == {"bad": "device 'bad' (badpkg.dev:Dev) cannot be registered: TypeError: this "
                                             "package is broken"}
        assert main(["estimate", "bad", "--trials", "1"]) == 2
        assert capsys.readouterr().err.strip().endswith("TypeError: this package is broken")
    finally:
        devices._registry.cache_clear()
