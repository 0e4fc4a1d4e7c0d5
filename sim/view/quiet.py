"""Lines that libraries under the window write to the process's stderr (fd 2) and a player need
not see: Xlib's notices of extensions Xvfb lacks, and what OpenAL Soft, ALSA and Panda3D's audio
notify write when no audio device opens. `quiet_stderr` drops them while a block runs; anything
else written there is passed on."""
from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile

XLIB_NOTICE = re.compile(r'^Xlib: +extension "[^"]+" missing on display')
AUDIO_NOISE = re.compile(r"^(ALSA lib |AL lib: |:audio\(|\s+OpenALAudioManager|\[ALSOFT\]|"
                         r"Cannot connect to server socket|jack server )")


@contextlib.contextmanager
def quiet_stderr(*patterns: re.Pattern):
    """Drop the lines of fd 2 that match one of `patterns` while in the block."""
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
                if not any(p.match(line) for p in patterns):
                    sys.stderr.write(line)
            sys.stderr.flush()
