"""The window's sound: a motion's contact events played in step with its animation.

`WindowAudio` plays through the OpenAL manager (Panda3D's wheel carries OpenAL Soft) that the
window's ShowBase opens as it starts (TableApp chooses the audio library then) for a window on
the screen when TABLETOP_AUDIO is not "off" (an offscreen one, which makes pictures and tests,
only when it is "on") and an audio device opens; otherwise it is a silent sink that synthesises
nothing. Either
way it keeps `log`, the sound events it was asked to play (tabletop.sim.sound.SoundEvent: the
time within the motion, kind, loudness, materials), so that a test can compare a live throw's
sounds with its replay's. One motion sounds at a time: `play` mixes the motion's sounds from a
time within it at the animation's speed into one buffer and starts it; `stop` (a seek, a skip, a
new game) ends it. TABLETOP_VOLUME (0-100, default 70) sets the volume; M mutes, V and B turn
it down and up (the windows bind the keys).
"""
from __future__ import annotations

import atexit
import os
from typing import Sequence

from tabletop.sim.errors import InputError
from tabletop.sim.sound import SAMPLE_RATE, SoundEvent, mix, pcm16, sound_events
from tabletop.sim.view.quiet import AUDIO_NOISE, quiet_stderr

DEFAULT_VOLUME = 70
VOLUME_STEP = 10
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


def open_manager():
    """An OpenAL audio manager of its own (no window: a test, a tool), or None where no audio
    device opens. Panda3D keeps the audio library its first manager is made with for the whole
    process; a window's ShowBase makes one as it starts (TableApp chooses OpenAL or none then), so
    after a window this gives a silent manager, and a window's sound uses the window's own."""
    try:
        from panda3d.core import AudioManager, loadPrcFileData, unloadPrcFile
    except ImportError:
        return None
    with quiet_stderr(AUDIO_NOISE):
        page = loadPrcFileData("tabletop-audio", "audio-library-name p3openal_audio")
        try:
            manager = AudioManager.create_AudioManager()
        finally:
            unloadPrcFile(page)
        if manager is not None and not manager.is_valid():
            manager.shutdown()
            manager = None
    return manager


def window_manager(app):
    """The sound-effects manager the window's ShowBase opened (OpenAL where `audio_setting` said
    so when it started: TableApp), or None when it is a silent one."""
    managers = getattr(app.base, "sfxManagerList", None) or [None]
    manager = managers[0]
    return manager if manager is not None and manager.is_valid() else None


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
        self._own = False               # a manager of its own (no window), closed by `close`
        if not enabled:
            self.manager = None
        elif app is not None:
            self.manager = window_manager(app)      # ShowBase keeps it fed and closes it
        else:
            self.manager = open_manager()
            self._own = self.manager is not None
            if self._own:
                atexit.register(self.close)   # (a device left open at exit makes OpenAL complain on stderr)

    @property
    def live(self) -> bool:
        """Whether an audio device is open (else every sound is silent)."""
        return self.manager is not None

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
        if self._own and self.manager is not None:
            with quiet_stderr(AUDIO_NOISE):
                self.manager.shutdown()
            atexit.unregister(self.close)
        self.manager = None
