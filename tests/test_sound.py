"""Sound from the physics: contact events captured while a motion is recorded, stored in the
replay beside the motion (outside its hash), turned into sound events and samples, and played by
the window in step with the animation.

- a throw sounds the same live and played back from its replay: the same sound events (time,
  kind, loudness, materials), because both come from the same stored contact values;
- the window opens and plays throws with no audio device (here there is none), quietly: no
  ALSA or OpenAL line reaches stderr; TABLETOP_AUDIO=off opens nothing;
- glass rings brighter than wood, wood than cardboard; a harder hit is louder;
- capturing contacts only reads the simulation: the same seed gives the same outcome and frames.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tabletop.sim.motion import IMPACT, ROLL, SLIDE, ContactEvent, Motion, MotionRecorder
from tabletop.sim.record import (ReplayFile, ReplayWriter, motion_sha256, pack_contacts, quantize_motion,
                                 unpack_contacts)
from tabletop.sim.sound import SAMPLE_RATE, mix, sound_events, spectral_centroid

NOISE = ("ALSA lib", "AL lib:", ":audio(", "OpenALAudioManager")


def _throws(device, seeds, contacts: bool | None):
    """(outcome, motion) per seed on `device`: recorded with or without contacts, or not recorded (None)."""
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        if contacts is None:
            out.append((device.run(rng), None))
            continue
        with MotionRecorder(device.world, 60.0, contacts=contacts) as recorder:
            outcome = device.run(rng)
        out.append((outcome, recorder.motion))
    return out


def test_capturing_contacts_does_not_change_the_simulation():
    """Sticks on wood (a rigid pair) and the Tipper's glass ball in its jointed polystyrene tray:
    the same seeds give the same outcomes, step counts and recorded frames whether contacts are
    captured or not, or nothing is recorded; the captured contacts are the same each time. (The
    Tipper runs each trial to rest: unrecorded, a batch trial would end once its slot is decided.)"""
    from tabletop.sim.devices.sticks import ThrowSticks
    from tabletop.sim.devices.tipper import Tipper
    from tabletop.gamekit.devices import default_spec

    def tipper():
        device = Tipper(default_spec("tipper"))
        device.end_when_decided = False
        return device

    for make, seeds, pair in ((lambda: ThrowSticks(default_spec("sticks")), (0, 1, 2), ("hardwood", "wood")),
                              (tipper, (0,), ("glass", "polystyrene"))):
        runs = []
        for contacts in (None, False, True, True):
            device = make()                       # a fresh device each: no trial depends on the one before
            try:
                runs.append(_throws(device, seeds, contacts))
            finally:
                device.close()
        bare, plain, captured, again = runs
        for (o0, _), (o1, m1), (o2, m2), (o3, m3) in zip(bare, plain, captured, again):
            assert (o0.label, o0.steps, o0.status) == (o1.label, o1.steps, o1.status) == (o2.label, o2.steps, o2.status)
            assert motion_sha256(quantize_motion(m1)) == motion_sha256(quantize_motion(m2))
            assert not m1.contacts and m2.contacts and m2.contacts == m3.contacts
            assert {c.pair for c in m2.contacts} >= {pair}
            assert [c.t for c in m2.contacts] == sorted(c.t for c in m2.contacts)
            assert any(c.kind == IMPACT for c in m2.contacts)


def _impact(pair, impulse=20000, t=0):
    return ContactEvent(t, IMPACT, pair, impulse, 1000)


def test_materials_sound_different_and_harder_hits_louder():
    """One impact of each pair at the same impulse: glass on glass is brighter (spectral centroid)
    than hardwood on wood, which is brighter than cardboard on cardboard, and glass rings longest;
    a hit of ten times the impulse is 20 dB louder, and so is its sound."""
    sounds = {}
    for pair in (("glass", "glass"), ("hardwood", "wood"), ("cardboard", "cardboard"), ("felt", "polystyrene")):
        (event,) = sound_events([_impact(pair)])
        sounds[pair] = mix([event])
    centroid = {pair: spectral_centroid(s) for pair, s in sounds.items()}
    assert centroid[("glass", "glass")] > 2 * centroid[("hardwood", "wood")] > 2 * centroid[("cardboard", "cardboard")]
    length = {pair: len(s) / SAMPLE_RATE for pair, s in sounds.items()}
    assert length[("glass", "glass")] > 3 * length[("hardwood", "wood")] > 3 * length[("cardboard", "cardboard")]
    assert length[("felt", "polystyrene")] < length[("cardboard", "cardboard")] * 1.5   # felt: muffled

    soft = sound_events([_impact(("hardwood", "wood"), 2000)])
    hard = sound_events([_impact(("hardwood", "wood"), 20000)])
    assert hard[0].loudness - soft[0].loudness == pytest.approx(20.0, abs=0.11)
    rms = [float(np.sqrt(np.mean(mix(e) ** 2))) for e in (soft, hard)]
    assert rms[1] > 5 * rms[0]
    assert sound_events([_impact(("hardwood", "wood"), 1)]) == []          # under the floor: silent


def test_sound_events_merge_limit_and_are_deterministic():
    """Impacts of one pair 5 ms apart are one (their impulses added); of twenty in one 50 ms slice
    only the loudest six sound; slides and rolls sound quieter than an impact of the same impulse;
    the same events give the same samples."""
    pair = ("glass", "polystyrene")
    merged = sound_events([_impact(pair, 10000, 0), _impact(pair, 10000, 5000)])
    assert len(merged) == 1 and merged[0].loudness == sound_events([_impact(pair, 20000)])[0].loudness
    crowd = [_impact((f"m{k}", "wood"), 1000 * (k + 1), 1000 * k) for k in range(20)]
    heard = sound_events(crowd)
    assert len(heard) == 6 and {e.pair[0] for e in heard} == {f"m{k}" for k in range(14, 20)}
    slide = ContactEvent(0, SLIDE, pair, 20000, 300)
    roll = ContactEvent(0, ROLL, pair, 20000, 300)
    (s,), (r,) = sound_events([slide]), sound_events([roll])
    assert r.loudness < s.loudness < sound_events([_impact(pair)])[0].loudness
    events = sound_events([_impact(pair), slide, roll, _impact(("wood", "wood"), 5000, 300000)])
    a, b = mix(events, speed=2.0), mix(events, speed=2.0)
    assert np.array_equal(a, b) and np.abs(a).max() <= 1.0
    (late,) = sound_events([_impact(("wood", "wood"), 20000, 300000)])     # a hit 0.3 s into the motion
    for start, speed, at in ((0.0, 1.0, 0.3), (0.0, 0.5, 0.6), (0.2, 1.0, 0.1), (0.2, 2.0, 0.05)):
        onset = int(np.flatnonzero(mix([late], start, speed))[0])
        assert abs(onset - at * SAMPLE_RATE) <= 1, (start, speed)


def test_contacts_are_stored_beside_the_motion_outside_its_hash(tmp_path):
    """A motion's contact events go into its turn's log and come back unchanged; the motion's
    hash (motion_sha256, which rooms and browsers check) is the same with or without them; a
    motion stored without contacts (an older replay) reads back with none."""
    contacts = [ContactEvent(1000, IMPACT, ("hardwood", "wood"), 34055, 1909),
                ContactEvent(33333, SLIDE, ("hardwood", "wood"), 6227, 126),
                ContactEvent(33333, ROLL, ("glass", "polystyrene"), 700, 55)]
    assert unpack_contacts(pack_contacts(contacts)) == contacts
    frames = [{"a": (0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 1.0)}, {"a": (0.001, 0.0, 0.01, 0.0, 0.0, 0.0, 1.0)}]
    with_sound = Motion(60.0, [0.0, 1 / 60], frames, {}, list(contacts))
    silent = Motion(60.0, [0.0, 1 / 60], frames, {})
    assert motion_sha256(quantize_motion(with_sound)) == motion_sha256(quantize_motion(silent))
    path = tmp_path / "r.ttr"
    writer = ReplayWriter(path, {"program": "test", "kind": "trials"})
    writer.add_turn({"turn": 0, "steps": [{"events": [], "motion": 0}]}, [with_sound])
    writer.add_turn({"turn": 1, "steps": [{"events": [], "motion": 0}]}, [silent])
    writer.finish({"lines": []})
    replay = ReplayFile.open(path)
    back = [Motion.from_dict(t.motions[0]) for t in replay.turns]
    assert back[0].contacts == contacts and back[1].contacts == []
    assert "contacts" not in replay.turns[1].log["motions"][0]
    with pytest.raises(ValueError):
        unpack_contacts({"pairs": [["a", "b"]], "events": [0, 3, 1, 1]})      # names no pair

    from tabletop.gamekit.replay import Divergence, compare_motions    # --verify compares them where stored
    recorded = quantize_motion(with_sound)
    compare_motions("here", recorded, quantize_motion(with_sound))
    compare_motions("here", quantize_motion(silent), recorded)            # an older file: none to compare
    louder = Motion(60.0, [0.0, 1 / 60], frames, {}, [contacts[0]._replace(impulse=34056), *contacts[1:]])
    with pytest.raises(Divergence, match="contact event 0"):
        compare_motions("here", recorded, quantize_motion(louder))


@pytest.fixture
def windows():
    """Offscreen windows, destroyed after the test (skipped where no graphics pipe opens)."""
    pytest.importorskip("panda3d")
    from tabletop.sim.view.app import ViewError

    made = []

    def keep(opener, *args, **kw):
        try:
            got = opener(*args, **kw)
        except ViewError as exc:
            pytest.skip(f"no graphics pipe: {exc}")
        made.append(got)
        return got

    def close(app, window):
        """Destroy a window before the test opens the next (one ShowBase at a time)."""
        made.remove(next(m for m in made if m[0] is app))
        window.adapter.close()
        app.destroy()

    keep.close = close
    yield keep
    for app, window, *_ in made:
        window.adapter.close()
        app.destroy()


def test_a_throw_sounds_the_same_live_and_in_its_replay(windows, tmp_path):
    """An all-AI Knossos game in the window (sticks on wood), recorded: every throw's sound events
    as the window played them are, one for one, those its replay plays back (time within the
    throw, kind, loudness, materials): the replay stores the contact values the window used."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.playback import open_replay
    from tabletop.gamekit.view.window import open_game

    path = tmp_path / "k.ttr"
    app, ctrl = windows(open_game, GAMES["knossos"], ["ai", "ai"], seed=2, size=(320, 180), offscreen=True,
                        pace=0.0, record=path)
    ctrl.fast_forward(4)
    ctrl.close()
    windows.close(app, ctrl)
    live = list(ctrl.audio.log)
    assert ctrl.audio.plays >= 4 and not ctrl.audio.live
    assert IMPACT in {e.kind for e in live}
    assert {e.pair for e in live} <= {("hardwood", "wood"), ("hardwood", "hardwood")}
    stored = [q for t in ReplayFile.open(path).turns for q in t.quantized_motions()]
    assert len(stored) == ctrl.audio.plays and all(q.contacts for q in stored)

    app, window, _ = windows(open_replay, path, GAMES, size=(320, 180), offscreen=True)
    tl = window.timeline
    t = 0.0
    while t < tl.duration:                    # played on frame by frame (20 frames a second)
        window.show(t)
        t += 0.05
    window.show(tl.duration)
    assert window.audio.plays == ctrl.audio.plays
    assert window.audio.log == live

    window.audio.log.clear()                  # sought into the middle of a throw: its sounds from there on
    step = next(s for s in tl.steps if s.motion is not None)
    window.seek(step.start + 0.3)
    heard = [e for e in sound_events(tl.motion(step)[0].contacts) if e.t >= 0.3]
    assert heard and window.audio.log == heard
    window.toggle()                           # paused: nothing sounds on
    n = len(window.audio.log)
    window.show(window.t)
    assert len(window.audio.log) == n


def test_the_window_plays_throws_with_no_audio_device(windows, monkeypatch, capfd):
    """TABLETOP_AUDIO=on makes even an offscreen window open the audio path: with no audio device
    (this machine has none) it is silent, logs the sounds it was asked for, takes little time, and
    lets no ALSA or OpenAL line through to stderr; M and the volume keys answer in the HUD.
    TABLETOP_AUDIO=off opens nothing."""
    pytest.importorskip("panda3d")
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.window import open_game
    from tabletop.sim.view.audio import WindowAudio

    monkeypatch.setenv("TABLETOP_AUDIO", "on")
    monkeypatch.setenv("TABLETOP_VOLUME", "40")
    started = time.perf_counter()
    audio = WindowAudio(enabled=True)
    opened_s = time.perf_counter() - started
    audio.close()
    app, ctrl = windows(open_game, GAMES["knossos"], ["ai", "ai"], seed=3, size=(320, 180), offscreen=True, pace=0.0)
    ctrl.fast_forward(2)
    assert ctrl.audio.log and ctrl.audio.volume == 40
    if not ctrl.audio.live:
        assert opened_s < 1.0
        assert ctrl.audio.notice() == "sound on, volume 40% (no audio device: silent)"
    ctrl.key("m", ctrl._mute)
    assert ctrl.hud.notice.getText() == "sound off"
    ctrl.key("b", lambda: ctrl._volume(10))
    assert ctrl.hud.notice.getText().startswith("sound on, volume 50%")
    ctrl.close()
    err = capfd.readouterr().err
    assert not [line for line in err.splitlines() if line.startswith(NOISE)], err

    monkeypatch.setenv("TABLETOP_AUDIO", "off")
    off = WindowAudio()
    assert off.manager is None and not off.live
    off.play([_impact(("glass", "glass"))])
    assert len(off.log) == 1
    monkeypatch.setenv("TABLETOP_AUDIO", "loud")
    from tabletop.sim.errors import InputError
    with pytest.raises(InputError, match="TABLETOP_AUDIO"):
        WindowAudio()


def test_openal_plays_the_mixed_sounds(tmp_path):
    """Where an audio device opens (here: OpenAL Soft's wave writer, in a process of its own), a
    window started with TABLETOP_AUDIO=on opens OpenAL as its ShowBase starts (an offscreen one
    otherwise chooses none) and its audio plays a motion's sounds in order through it: glass, then
    wood, then cardboard, each as bright as its materials."""
    pytest.importorskip("panda3d")
    if not sys.platform.startswith("linux"):
        pytest.skip("OpenAL Soft's wave writer is checked on Linux")
    out = tmp_path / "out.wav"
    conf = tmp_path / "alsoft.conf"
    conf.write_text(f"[general]\ndrivers=wave\n[wave]\nfile={out}\n")
    script = (
        "import time\n"
        "from tabletop.sim.motion import ContactEvent\n"
        "from tabletop.sim.view.app import TableApp, ViewError\n"
        "from tabletop.sim.view.audio import WindowAudio\n"
        "try:\n"
        "    app = TableApp(size=(64, 64), offscreen=True)\n"
        "except ViewError:\n"
        "    print('no window'); raise SystemExit(0)\n"
        "a = WindowAudio(app, enabled=True)\n"
        "assert a.manager is app.base.sfxManagerList[0]   # the window's own\n"
        "print('live' if a.live else 'none')\n"
        "if a.live:\n"
        "    a.play([ContactEvent(0, 'impact', ('glass', 'glass'), 30000, 1000),\n"
        "            ContactEvent(500000, 'impact', ('hardwood', 'wood'), 30000, 1000),\n"
        "            ContactEvent(800000, 'impact', ('cardboard', 'cardboard'), 30000, 1000)])\n"
        "    t = time.time()\n"
        "    while time.time() - t < 1.3:\n"
        "        app.base.task_mgr.step(); time.sleep(0.01)\n"
        "a.close()\n"
        "app.destroy()\n")
    env = {**os.environ, "ALSOFT_CONF": str(conf), "TABLETOP_VOLUME": "100", "TABLETOP_AUDIO": "on"}
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    if r.stdout.strip() == "no window":
        pytest.skip("no graphics pipe")
    assert r.stdout.strip() == "live" and out.exists(), (r.stdout, r.stderr)
    assert not [line for line in r.stderr.splitlines() if line.startswith(NOISE)], r.stderr
    samples, rate = _read_wav(out)
    start = int(np.flatnonzero(np.abs(samples) > 0.02)[0])
    centroid = [spectral_centroid(samples[start + int(t * rate):start + int((t + 0.12) * rate)], rate)
                for t in (0.0, 0.5, 0.8)]
    assert centroid[0] > 1.5 * centroid[1] > 1.5 * centroid[2], centroid


def _read_wav(path) -> tuple[np.ndarray, int]:
    """The first channel of a WAVE file as floats (OpenAL Soft writes WAVE_FORMAT_EXTENSIBLE)."""
    import struct

    data = path.read_bytes()
    fmt = data.index(b"fmt ")
    _, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", data, fmt + 8)
    at = data.index(b"data")
    (n,) = struct.unpack_from("<I", data, at + 4)
    raw = data[at + 8:at + 8 + n]
    kind = {8: "u1", 16: "<i2", 32: "<f4"}[bits]
    v = np.frombuffer(raw[:len(raw) // (bits // 8 * channels) * (bits // 8 * channels)], kind)
    v = v.reshape(-1, channels)[:, 0].astype(float)
    return (v - 128) / 128 if bits == 8 else v / 32768 if bits == 16 else v, rate
