"""The window's sound: a motion's contact events played in step with its animation.

`WindowAudio` opens OpenAL (Panda3D's wheel carries OpenAL Soft) for a window on the screen
when TABLETOP_AUDIO is not "off" (an offscreen one, which makes pictures and tests, only when it
is "on") and an audio device opens; otherwise it is a silent sink that synthesises nothing. Either
way it keeps `log`, the sound events it was asked to play (tabletop.sim.sound.SoundEvent: the
time within the motion, kind, loudness, materials), so that a test can compare a live throw's
sounds with its replay's. One motion sounds at a time: `play` mixes the motion's sounds from a
time within it at the animation's speed into one buffer and starts it; `stop` (a seek, a skip, a
new game) ends it. TABLETOP_VOLUME (0-100, default 70) sets the volume; M mutes, V and B turn
it down and up (the windows bind the keys).
"""
from __future__ import annotations

import atexit
import contextlib
import os
import re
import sys
import tempfile
from typing import Sequence

from tabletop.sim.errors import InputError
from tabletop.sim.sound import SAMPLE_RATE, SoundEvent, mix, pcm16, sound_events

DEFAULT_VOLUME = 70
VOLUME_STEP = 10
# what OpenAL Soft, ALSA and Panda3D's audio notify write when no device opens (or a backend is missing)
AUDIO_NOISE = re.compile(r"^(ALSA lib |AL lib: |:audio\(|\s+OpenALAudioManager|\[ALSOFT\]|"
                         r"Cannot connect to server socket|jack server )")


def audio_setting(offscreen: bool = False) -> bool:
    """Whether to open an audio device, from TABLETOP_AUDIO: "on" or "off"; unset, on for a window
    on the screen and off for an offscreen one."""
    text = os.environ.get("TABLETOP_AUDIO", "").strip().lower()
    if text not in ("on", "off", "1", "0", ""):
        raise InputError(f"TABLETOP_AUDIO: expected on or off, got {text!r}")
    return text in ("on", "1") or (not text and not offscreen)


def volume_setting() -> int:
    """The volume in percent, from TABLETOP_VOLUME (0-100; default DEFAULT_VOLUME)."""
    text = os.environ.get("TABLETOP_VOLUME", str(DEFAULT_VOLUME)).strip()
    if not text.isdigit() or int(text) > 100:
        raise InputError(f"TABLETOP_VOLUME: expected a whole number 0-100, got {text!r}")
    return int(text)


@contextlib.contextmanager
def quiet_audio():
    """Drop the lines an audio library writes to the process's stderr (fd 2) while it opens or
    closes (AUDIO_NOISE); anything else written there is passed on."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            for line in caught.read().decode(errors="replace").splitlines(keepends=True):
                if not AUDIO_NOISE.match(line):
                    sys.stderr.write(line)
            sys.stderr.flush()


def open_manager():
    """Panda3D's OpenAL audio manager, or None where no audio device opens."""
    try:
        from panda3d.core import AudioManager, loadPrcFileData, unloadPrcFile
    except ImportError:
        return None
    with quiet_audio():
        page = loadPrcFileData("tabletop-audio", "audio-library-name p3openal_audio")
        try:
            with _openal_factory():
                manager = AudioManager.create_AudioManager()
        finally:
            unloadPrcFile(page)        # (a ShowBase made later keeps its own choice)
        if manager is not None and not manager.is_valid():
            manager.shutdown()
            manager = None
    return manager


@contextlib.contextmanager
def _openal_factory():
    """OpenAL as the factory of `AudioManager.create_AudioManager` while in the block. Panda3D
    picks its audio library once per process, at the first manager made: ShowBase makes its own
    as it starts, and TableApp asks for "null" then, so that no window opens a device it does not
    use. A manager made after that would be a null one whatever audio-library-name says; so the
    factory Panda3D chose is set aside for the block (the C++ static AudioManager::
    _create_AudioManager, through ctypes) and OpenAL's put there, then the chosen one put back.
    Where the symbols are not found (a C++ ABI other than the Itanium one of Linux and macOS), the
    block runs as it is: sound then plays only where no ShowBase started before."""
    import ctypes
    import glob

    import panda3d

    folder = os.path.dirname(panda3d.__file__)
    try:
        panda = ctypes.CDLL(sorted(glob.glob(os.path.join(folder, "libpanda.*")))[0])
        slot = ctypes.c_void_p.in_dll(panda, "_ZN12AudioManager20_create_AudioManagerE")
        plugins = sorted(glob.glob(os.path.join(folder, "libp3openal_audio.*")))
    except (IndexError, OSError, ValueError):
        yield
        return
    chosen = slot.value
    slot.value = None           # (the plugin registers its factory as it loads, only into an empty slot)
    try:
        try:
            get_factory = ctypes.CDLL(plugins[0]).get_audio_manager_func_openal_audio
        except (IndexError, OSError, AttributeError):
            get_factory = None
        if get_factory is not None:
            get_factory.restype = ctypes.c_void_p
            slot.value = get_factory()
        yield
    finally:
        slot.value = chosen


class WindowAudio:
    """A window's sound (see the module): `play`, `stop`, `toggle_mute`, `change_volume`, `close`.
    `app` (a TableApp) gets a per-frame task that keeps OpenAL's streams fed; `enabled` False (or
    `audio_setting` false) opens nothing."""

    def __init__(self, app=None, enabled: bool | None = None):
        self.volume = volume_setting()
        self.muted = False
        self.log: list[SoundEvent] = []
        self.plays = 0                  # motions asked to play
        self._sound = None
        if enabled is None:
            enabled = audio_setting(bool(getattr(app, "offscreen", False)))
        self.manager = open_manager() if enabled else None
        if self.manager is not None:
            atexit.register(self.close)   # (a device left open at exit makes OpenAL complain on stderr)
            if app is not None:
                app.add_task(self._update, "audio-update")

    @property
    def live(self) -> bool:
        """Whether an audio device is open (else every sound is silent)."""
        return self.manager is not None

    def _update(self, task):
        if self.manager is not None:
            self.manager.update()
        return task.cont

    def play(self, contacts: Sequence, start: float = 0.0, speed: float = 1.0) -> list[SoundEvent]:
        """Play a motion's sounds from `start` (s into it) on at `speed`, stopping the motion
        sounding before; returns (and logs) the sound events played."""
        events = [e for e in sound_events(contacts) if e.t >= start - 1e-9]
        self.log.extend(events)
        self.plays += 1
        self.stop()
        if self.manager is None or self.muted or self.volume == 0 or not events:
            return events
        from panda3d.core import UserDataAudio

        samples = mix(events, start, speed, SAMPLE_RATE, self.volume / 100.0)
        if samples.size:
            audio = UserDataAudio(SAMPLE_RATE, 1)
            audio.append(pcm16(samples))
            audio.done()
            sound = self.manager.get_sound(audio)
            sound.play()
            self._sound = sound
        return events

    def stop(self) -> None:
        if self._sound is not None:
            self._sound.stop()
            self._sound = None

    def toggle_mute(self) -> str:
        """M: sound off / on; returns the notice to show."""
        self.muted = not self.muted
        if self.muted:
            self.stop()
        return self.notice()

    def change_volume(self, delta: int) -> str:
        """The volume up or down by `delta` percent (0-100; sound comes back on); the notice."""
        self.volume = min(100, max(0, self.volume + delta))
        self.muted = False
        if self.volume == 0:
            self.stop()
        return self.notice()

    def notice(self) -> str:
        if self.muted:
            return "sound off"
        text = f"sound on, volume {self.volume}%"
        return text if self.live else text + " (no audio device: silent)"

    def close(self) -> None:
        self.stop()
        if self.manager is not None:
            with quiet_audio():
                self.manager.shutdown()
            self.manager = None
            atexit.unregister(self.close)
