"""Replays read back: a recorded game's (or device trials') summary, its verification by
re-simulation, its playback as PNG frames, in the window or as one web page, and `Replay`, the
API's view of one."""
from __future__ import annotations

from pathlib import Path

from tabletop.app.requests import ReplayRequest
from tabletop.sim.errors import InputError


def read(path) -> "Replay":
    """A .ttr replay read back (InputError, one line, when it is missing or not a readable replay)."""
    from tabletop.sim.record import ReplayFile

    if not isinstance(path, (str, Path)):
        raise InputError(f"expected a replay file path, got {path!r}")
    return Replay(ReplayFile.open(path))


def replayed_game(file):
    """The definition of the game a replay records (None: a recording of device trials)."""
    from tabletop.gamekit.registry import GAMES

    if file.header.get("kind") != "game":
        return None
    name = file.header.get("game")
    if name not in GAMES:
        raise InputError(f"{file.path}: the replay is of {name!r}, which this tabletop cannot replay "
                         f"({', '.join(GAMES)})")
    return GAMES[name]


def turn_range(text: str) -> tuple[int | None, int | None]:
    """--turns A:B (1-based, inclusive; an end may be left open) as (A, B)."""
    a, sep, b = text.partition(":")
    try:
        first = int(a) if a.strip() else None
        last = int(b) if b.strip() else None
    except ValueError:
        first = last = -1
    if not sep or (first is not None and first < 1) or (last is not None and last < 1) \
            or (first is not None and last is not None and last < first):
        raise InputError(f"--turns: expected A:B with 1 <= A <= B (either end may be left open), got {text!r}")
    return first, last


def frames(request: ReplayRequest) -> tuple[int, bool]:
    """The playback as PNG frames into `request.frames` (offscreen): (frames written, whether
    max_frames stopped it)."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.playback import write_frames
    from tabletop.gamekit.view.window import parse_size
    from tabletop.sim.output import check_output_dir

    size = parse_size(request.size)
    if not 0 < request.fps <= 240:
        raise InputError(f"--fps: between 0 and 240 frames per second, got {request.fps:g}")
    if not request.frames.parent.is_dir():
        raise InputError(f"--frames: folder {request.frames.parent} does not exist")
    turns = turn_range(request.turns) if request.turns is not None else None
    check_output_dir(request.frames, "--frames")
    return write_frames(request.file, GAMES, request.frames, request.fps, size, turns, request.max_frames)


def html(request: ReplayRequest, review: dict | None = None) -> int:
    """The game as one self-contained web page (tabletop.net.replay_page), written whole to
    `request.html` (a temp file, then a rename); `review` the game's review for its panel. Bytes
    written."""
    from tabletop.net.replay_page import replay_html
    from tabletop.sim.output import check_output_path, write_text_atomic

    check_output_path(request.html, "--html")
    if request.turns is not None or request.max_frames != 3000:
        raise InputError("--turns and --max-frames: only with --frames")
    page = replay_html(request.file, review, request.reveal)
    write_text_atomic(request.html, page)
    return len(page.encode())


def playback(request: ReplayRequest, review: dict | None = None, pending=None):
    """The playback window, open: (the app, seconds from opening the file to its first frame);
    `review` the game's review for its panel (tabletop.app.review.playback_review), or `pending`
    a review still worked out (tabletop.app.review.BackgroundReview): its progress in the panel
    until it is there."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.playback import open_replay
    from tabletop.gamekit.view.window import parse_size

    size = parse_size(request.size)
    if request.turns is not None:
        raise InputError("--turns: only with --frames")
    app, window, opened = open_replay(request.file, GAMES, size=size, review=review, reveal=request.reveal)
    if pending is not None:
        follow_review(app, window, pending)
    return app, opened


def follow_review(app, window, pending) -> None:
    """The review panel of the playback `window` follows `pending` (a BackgroundReview): its
    progress until the review is there, then the review (or why there is none)."""
    window.set_review(None, pending.poll()[1])

    def poll(task):
        data, note = pending.poll()
        if data is not None or pending.finished:
            window.set_review(data, None if data is not None else note)
            return task.done
        if note != window.review_note:
            window.set_review(None, note)
        return task.cont

    app.add_task(poll, "review-progress")


class Replay:
    """A replay file read back (tabletop.sim.record.ReplayFile, as `file`): its header, log and result."""

    def __init__(self, file):
        self.file = file

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def header(self) -> dict:
        return self.file.header

    @property
    def kind(self) -> str:
        """"game" (a recorded game) or "trials" (a device's recorded trials)."""
        return self.file.header.get("kind")

    @property
    def game(self) -> str | None:
        return self.file.header.get("game")

    @property
    def seed(self) -> int | None:
        return self.file.header.get("seed")

    @property
    def config(self) -> dict:
        return dict(self.file.header.get("config", {}))

    @property
    def warnings(self) -> list[str]:
        return list(self.file.warnings)

    @property
    def complete(self) -> bool:
        return self.file.complete

    @property
    def lines(self) -> list[str]:
        """What `replay --summary` prints: the lines `play` printed (banner, log, result), while the
        game is not over without what its seats hide (`summary`)."""
        return self.summary().lines

    def summary(self, reveal: bool = False):
        """What `replay --summary [--reveal]` prints (tabletop.gamekit.replay.Summary: its `lines`,
        and its `note`, the line that says what was hidden or revealed): the lines `play` printed;
        while the recorded game is not over, the cards its seats hide only as a spectator saw them,
        unless `reveal`. A finished game's summary shows every line."""
        from tabletop.gamekit.replay import Summary, finished, summarize, summary_lines

        if self.kind != "game" or finished(self.file):
            return Summary(summary_lines(self.file))
        return summarize(self.file, replayed_game(self.file), reveal)

    @property
    def description(self) -> str:
        """The one line `replay --summary` adds on stderr: what the file holds."""
        from tabletop.gamekit.replay import describe

        return describe(self.file)

    @property
    def result(self) -> dict | None:
        """The recorded result ({"winner": ..., "turns": ...}); None for an unfinished recording."""
        end = self.file.end
        return None if end is None else end.get("result")

    @property
    def turns(self) -> int:
        """The number of recorded turns (chunks)."""
        return len(self.file.turns)

    @property
    def history(self) -> list:
        """A recorded game's actions and chance outcomes in order, as the rules' objects."""
        if self.kind != "game":
            raise InputError(f"{self.path}: a recording of device trials has no game history")
        from tabletop.gamekit.record import decode_action

        game = replayed_game(self.file)
        return [decode_action(game, a) for turn in self.file.turns for a in turn.actions]

    def verify(self, from_turn: int = 0) -> str:
        """`replay --verify`: re-simulate from the recorded seeds and actions (the turns before
        `from_turn` re-driven by the rules alone); the verdict line. Raises
        tabletop.gamekit.replay.Divergence at the first difference."""
        from tabletop.gamekit.replay import verify

        return str(verify(self.file, replayed_game(self.file), from_turn))

    def __repr__(self) -> str:
        what = self.game or self.header.get("device", "?")
        return (f"<Replay {self.path}: {self.kind} {what}, seed {self.seed}, {self.turns} turns"
                f"{'' if self.complete else ', truncated'}>")
