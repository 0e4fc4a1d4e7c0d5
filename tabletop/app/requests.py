"""Every job's request: a dataclass whose fields are the command's options (`trials` is
--trials), checked when it is made. A bad field is an InputError naming the option as the command
line writes it, so that both front ends say the same. What needs the registries (a device's or a
game's name, a game's options and seats) is checked by the job, still before any work.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from tabletop.sim.errors import InputError

SIZE = "1280x720"


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{_flag(name)}: expected a whole number, got {value!r}")
    return value


def _count(value: Any, name: str, optional: bool = False) -> int | None:
    """A whole number of at least 1 (None where `optional`)."""
    if value is None and optional:
        return None
    if _whole(value, name) < 1:
        raise InputError(f"{_flag(name)}: must be at least 1, got {value}")
    return value


def _seed(value: Any, name: str = "seed") -> int:
    if _whole(value, name) < 0:
        raise InputError(f"{_flag(name)}: must be 0 or more, got {value}")
    return value


def _path(value: Any, name: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, (str, Path)) or not str(value):
        raise InputError(f"{_flag(name)}: expected a file path, got {value!r}")
    return Path(value)


def _text(value: Any, name: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InputError(f"{_flag(name)}: expected a text, got {value!r}")
    return value


def _number(value: Any, name: str, optional: bool = True) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{_flag(name)}: expected a number, got {value!r}")
    return float(value)


def _switch(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{_flag(name)}: expected True or False, got {value!r}")
    return value


def _texts(value: Any, name: str) -> tuple[str, ...]:
    """A list of texts, or one text of comma-separated ones."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{_flag(name)}: expected a list of texts, got {value!r}")
    return tuple(v.strip() for v in value)


def _overrides(value: Any) -> tuple[str, ...]:
    """--set's NAME=VALUE texts (VALUE in TOML syntax)."""
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InputError(f"--set: expected NAME=VALUE texts, got {value!r}")
    return tuple(value)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what}: expected a {what} name, got {value!r}")
    return value


def _no_workers_with_scheduler(workers: int, scheduler: str | None) -> None:
    if scheduler is not None and workers != 1:
        raise InputError("--workers: not with --scheduler (the cluster's own workers run the trials)")


@dataclass
class DeviceRun:
    """What every batch of a device's trials takes."""

    device: str
    seed: int = 0
    workers: int = 1
    spec: Path | None = None
    overrides: tuple[str, ...] = ()
    scheduler: str | None = None

    def __post_init__(self):
        self.device = _name(self.device, "device")
        self.seed = _seed(self.seed)
        self.workers = _count(self.workers, "workers")
        self.spec = _path(self.spec, "spec")
        self.overrides = _overrides(self.overrides)
        self.scheduler = _text(self.scheduler, "scheduler")
        _no_workers_with_scheduler(self.workers, self.scheduler)


@dataclass
class EstimateRequest(DeviceRun):
    """`tabletop estimate DEVICE`: trials None is 1000 (with `precision` the cap, 100,000)."""

    trials: int | None = None
    against: str | None = None
    sensitivity: bool = False
    sensitivity_trials: int | None = None
    uncertainty: bool = False
    precision: float | None = None
    out: Path | None = None
    resume: bool = False
    plot: Path | None = None
    record_trials: int | None = None
    record: Path | None = None        # with record_trials: default replays/DEVICE-seedS-trials-DATE-TIME.ttr
    calibration: Path | None = None   # a calibration file: the calibrated copy's odds (tabletop calibrate --out)

    def __post_init__(self):
        super().__post_init__()
        self.calibration = _path(self.calibration, "calibration")
        if self.calibration is not None and (self.sensitivity or self.uncertainty):
            flag = "--sensitivity" if self.sensitivity else "--uncertainty"
            raise InputError(f"--calibration and {flag} contradict each other: {flag} moves the material values "
                             f"over their documented ranges (the uncalibrated model's band); a calibrated run draws "
                             f"them from the calibration's posterior and shows its band")
        if self.calibration is not None and self.record_trials is not None:
            raise InputError("--record-trials: not with --calibration (a recorded trial replays with the spec's "
                             "values, not the calibrated draw); record without it")
        self.trials = _count(self.trials, "trials", optional=True)
        self.against = _text(self.against if not isinstance(self.against, Path) else str(self.against), "against")
        for name in ("sensitivity", "uncertainty", "resume"):
            _switch(getattr(self, name), name)
        self.sensitivity_trials = _count(self.sensitivity_trials, "sensitivity_trials", optional=True)
        self.record_trials = _count(self.record_trials, "record_trials", optional=True)
        self.precision = _number(self.precision, "precision")
        for name in ("out", "plot", "record"):
            setattr(self, name, _path(getattr(self, name), name))
        if self.precision is not None and not 0.0 < self.precision < 0.5:
            raise InputError(f"--precision: a 95% half-width between 0 and 0.5, got {self.precision}")
        if self.resume and self.out is None:
            raise InputError("--resume needs --out: the checkpoint lives beside the result file")
        if self.record is not None and self.record_trials is None:
            raise InputError("--record needs --record-trials K: the number of trials to record")
        if self.record_trials is not None and self.record_trials > self.cap:
            raise InputError(f"--record-trials: {self.record_trials} is more than the {self.cap} trials of the run")
        if self.sensitivity_trials is not None and not self.sensitivity:
            raise InputError("--sensitivity-trials needs --sensitivity")
        if self.sensitivity_trials is not None and self.sensitivity_trials > self.cap:
            raise InputError(f"--sensitivity-trials: {self.sensitivity_trials} is more than the {self.cap} trials "
                             f"of the run")

    @property
    def cap(self) -> int:
        """The most trials the run makes."""
        return self.trials or (100_000 if self.precision is not None else 1000)


@dataclass
class ConvergeRequest(DeviceRun):
    """`tabletop converge DEVICE`: `only` names the refinements to run (default: all); with `out`,
    finished trials are kept in a checkpoint beside it, which `resume` continues (with more `trials`:
    extends)."""

    trials: int = 1000
    only: str | None = None
    out: Path | None = None
    resume: bool = False

    def __post_init__(self):
        super().__post_init__()
        self.trials = _count(self.trials, "trials")
        self.only = _text(self.only, "only")
        self.out = _path(self.out, "out")
        _switch(self.resume, "resume")
        if self.resume and self.out is None:
            raise InputError("--resume needs --out: the checkpoint lives beside the result file")


@dataclass
class SweepRequest(DeviceRun):
    """`tabletop sweep DEVICE --param NAME=LO:HI:STEPS`."""

    param: str = ""
    trials: int = 200
    out: Path | None = None
    csv: Path | None = None
    plot: Path | None = None

    def __post_init__(self):
        super().__post_init__()
        self.param = _text(self.param, "param", optional=False)
        self.trials = _count(self.trials, "trials")
        for name in ("out", "csv", "plot"):
            setattr(self, name, _path(getattr(self, name), name))


@dataclass
class ValidateRequest:
    """`tabletop validate`: the published coin, cube and cuboid experiments. `calibrate`: also fit
    one set of material and gesture values to the published tallies jointly and judge every case
    at it (`calibrate_trials` training trials per fitted case, thrown at `gesture_points` gesture
    values; the sampler's `walkers` and `steps`; the cases run at `posterior_points` posterior
    draws), with the leave-one-out check."""

    quick: bool = False
    workers: int = 1
    seed: int = 1
    out: Path | None = None
    calibrate: bool = False
    calibrate_trials: int = 600
    gesture_points: int = 30
    walkers: int = 32
    steps: int = 1500
    posterior_points: int = 20

    def __post_init__(self):
        _switch(self.calibrate, "calibrate")
        for name in ("calibrate_trials", "gesture_points", "walkers", "steps", "posterior_points"):
            setattr(self, name, _count(getattr(self, name), name))
        if self.calibrate_trials < 50:
            raise InputError(f"--calibrate-trials: a surrogate needs at least 50 training trials, got "
                             f"{self.calibrate_trials}")
        if self.steps < 200:
            raise InputError(f"--steps: at least 200 sampler steps (a quarter are burn-in), got {self.steps}")
        defaults = {"calibrate_trials": 600, "gesture_points": 30, "walkers": 32, "steps": 1500,
                    "posterior_points": 20}
        changed = [n for n, v in defaults.items() if getattr(self, n) != v]
        if changed and not self.calibrate:
            raise InputError(f"--{changed[0].replace('_', '-')}: only with --calibrate")
        _switch(self.quick, "quick")
        self.workers = _count(self.workers, "workers")
        self.seed = _seed(self.seed)
        self.out = _path(self.out, "out")


@dataclass
class BenchRequest:
    """`tabletop bench`: the devices beside a bare loop, or with `rules` the rules' speed."""

    trials: int | None = None
    devices: tuple[str, ...] = ()          # () is every registered device
    out: Path | None = None
    quick: bool = False
    scaling_trials: int = 2000
    rules: bool = False
    rules_games: int | None = None
    rules_seats: str = "random"

    def __post_init__(self):
        self.trials = _count(self.trials, "trials", optional=True)
        self.devices = tuple(d for d in _texts(self.devices, "devices") if d) if self.devices is not None else ()
        self.out = _path(self.out, "out")
        _switch(self.quick, "quick")
        _switch(self.rules, "rules")
        self.scaling_trials = _count(self.scaling_trials, "scaling_trials")
        self.rules_games = _count(self.rules_games, "rules_games", optional=True)
        if self.rules_seats not in ("random", "ai"):
            raise InputError(f"--rules-seats: random or ai, got {self.rules_seats!r}")
        if self.rules_games is not None and not self.rules:
            raise InputError("--rules-games: only with --rules")
        if self.rules:                # the devices' options do nothing there
            for flag, given in (("--trials", self.trials is not None), ("--devices", bool(self.devices)),
                                ("--scaling-trials", self.scaling_trials != 2000)):
                if given:
                    raise InputError(f"{flag}: not with --rules (it times the rules, no device; --rules-games "
                                     f"sets its games)")
        if self.quick and self.scaling_trials != 2000:
            raise InputError("--scaling-trials: not with --quick (a quick bench makes no scaling runs)")


@dataclass
class GameRun:
    """What every run of a game takes: the game, its seats, seed, chance and own options."""

    game: str
    seats: tuple[str, ...] = ("ai", "ai")
    seed: int = 0
    outcomes: str = "physics"
    options: dict = field(default_factory=dict)   # the game's own, by name (`games_to_win`)

    def __post_init__(self):
        self.game = _name(self.game, "game")
        self.seats = _texts(self.seats, "seats")
        self.seed = _seed(self.seed)
        self.outcomes = _text(self.outcomes, "outcomes", optional=False)
        if not isinstance(self.options, dict):
            raise InputError(f"options: expected the game's options by name, got {self.options!r}")
        self.options = dict(self.options)


@dataclass
class PlayRequest(GameRun):
    """`tabletop play GAME --headless`: `record` the replay file (None: none is written);
    `calibration` a calibration file whose calibrated tables replace those of the devices it
    calibrates (with table outcomes: measured or table:...)."""

    record: Path | None = None
    calibration: Path | None = None

    def __post_init__(self):
        super().__post_init__()
        self.record = _path(self.record, "record")
        self.calibration = _path(self.calibration, "calibration")


@dataclass
class WindowRequest(PlayRequest):
    """`tabletop play GAME`: the 3D window (or, with `screenshot`, one offscreen picture after
    `after_turns` turns of AI play)."""

    screenshot: Path | None = None
    after_turns: int = 0
    size: str = SIZE
    pace: float = 0.8

    def __post_init__(self):
        super().__post_init__()
        self.screenshot = _path(self.screenshot, "screenshot")
        if _whole(self.after_turns, "after_turns") < 0:
            raise InputError(f"--after-turns: must be 0 or more, got {self.after_turns}")
        self.size = _text(self.size, "size", optional=False)
        self.pace = _number(self.pace, "pace", optional=False)
        if self.pace < 0:
            raise InputError(f"--pace: must be 0 or more seconds, got {self.pace:g}")
        if self.after_turns and self.screenshot is None:
            raise InputError("--after-turns: only with --screenshot (the turns the AI plays before the picture)")
        if self.screenshot is not None and self.pace != 0.8:
            raise InputError("--pace: not with --screenshot (the turns before the picture are played at once)")
        if self.screenshot is not None and self.record is not None:
            raise InputError("--record: not with --screenshot (a screenshot records no game)")


@dataclass
class ResumeRequest:
    """`tabletop play --resume FILE [--from-turn N]` (or `play GAME --continue`: `continue_game`,
    the newest unfinished recording of `game`): the recorded game played on from the start of turn
    `from_turn` (None: where the recording ends) by `seats` (None: the recorded seats), in the
    window or `headless`; recorded to `record`, or with `record` None to the games folder unless
    `no_record`. The window's `size` and `pace` as play's."""

    resume: Path | None = None
    game: str | None = None
    continue_game: bool = False
    from_turn: int | None = None
    seats: tuple[str, ...] | None = None
    headless: bool = False
    record: Path | None = None
    no_record: bool = False
    size: str = SIZE
    pace: float = 0.8

    def __post_init__(self):
        self.resume = _path(self.resume, "resume")
        self.game = _text(self.game, "game")
        _switch(self.continue_game, "continue_game")
        if self.resume is not None and self.continue_game:
            raise InputError("--resume and --continue contradict each other: --continue takes the newest unfinished "
                             "game")
        if self.resume is not None and self.game is not None:
            raise InputError("--resume: the file names the game; drop GAME")
        if self.resume is None and not (self.continue_game and self.game):
            raise InputError("--continue: name the game whose newest unfinished recording to play on" if
                             self.continue_game else "--resume: give the recorded game's file (tabletop games lists "
                                                     "them)")
        if self.from_turn is not None and _whole(self.from_turn, "from_turn") < 0:
            raise InputError(f"--from-turn: must be 0 or more, got {self.from_turn}")
        self.seats = None if self.seats is None else _texts(self.seats, "seats")
        _switch(self.headless, "headless")
        _switch(self.no_record, "no_record")
        self.record = _path(self.record, "record")
        if self.no_record and self.record is not None:
            raise InputError("--record and --no-record contradict each other; give one")
        self.size = _text(self.size, "size", optional=False)
        self.pace = _number(self.pace, "pace", optional=False)


@dataclass
class PluginsRequest:
    """`tabletop plugins`: the installed games and devices (nothing to choose)."""


@dataclass
class GamesRequest:
    """`tabletop games`: the games recorded in `folder` (None: the user's games folder)."""

    folder: Path | None = None

    def __post_init__(self):
        self.folder = _path(self.folder, "folder")


@dataclass
class AnalyzeRequest(GameRun):
    """`tabletop analyze GAME`: `games` whole games with table chance (or, with `solve`, perfect play)."""

    outcomes: str = "measured"
    games: int = 1000
    compare: str | None = None
    workers: int = 1
    scheduler: str | None = None
    out: Path | None = None
    plot: Path | None = None
    resume: bool = False
    solve: bool = False
    policy: Path | None = None
    calibration: Path | None = None    # its calibrated tables replace those of the devices it calibrates

    def __post_init__(self):
        super().__post_init__()
        self.calibration = _path(self.calibration, "calibration")
        self.games = _count(self.games, "games")
        self.compare = _text(self.compare, "compare")
        if self.compare not in (None, "fair"):
            raise InputError(f"--compare: only fair, got {self.compare!r}")
        self.workers = _count(self.workers, "workers")
        self.scheduler = _text(self.scheduler, "scheduler")
        for name in ("out", "plot", "policy"):
            setattr(self, name, _path(getattr(self, name), name))
        _switch(self.resume, "resume")
        _switch(self.solve, "solve")
        _no_workers_with_scheduler(self.workers, self.scheduler)
        if self.solve:                 # it solves the game: no game is played, no plot drawn
            for flag, given in (("--games", self.games != 1000), ("--seed", self.seed != 0),
                                ("--workers", self.workers != 1), ("--scheduler", self.scheduler is not None),
                                ("--plot", self.plot is not None), ("--resume", self.resume)):
                if given:
                    raise InputError(f"{flag}: not with --solve (it solves the game for perfect play: no game is "
                                     f"played, nothing is plotted; --out and --policy keep what it finds)")


@dataclass
class ReplayRequest:
    """`tabletop replay FILE`: `summary`, `verify` (from `from_turn`), `frames` into a folder, the
    game as one web page (`html`), or (none of them) the playback window."""

    file: Path
    summary: bool = False
    verify: bool = False
    from_turn: int = 0
    frames: Path | None = None
    fps: float = 30.0
    turns: str | None = None
    max_frames: int = 3000
    size: str = SIZE
    review: str | None = None         # the playback's review panel: a review JSON, or "" to review the game now
    reveal: bool = False              # show what the seats hide while the recorded game is not over
    html: Path | None = None          # write the game as one self-contained web page

    def __post_init__(self):
        self.file = _path(self.file, "file")
        self.html = _path(self.html, "html")
        if self.html is not None and (self.summary or self.verify or self.frames is not None):
            raise InputError("--html: not with --summary, --verify or --frames (one of them at a time)")
        if _switch(self.reveal, "reveal") and (self.frames is not None or (self.verify and not self.summary)):
            raise InputError("--reveal: only with --summary, --html or in the playback window (--frames and "
                             "--verify show no hand)")
        self.review = None if self.review is None else str(self.review)
        if self.review is not None and (self.summary or self.verify or self.frames is not None):
            raise InputError("--review: only in the playback window or with --html (not with --summary, --verify "
                             "or --frames)")
        for name in ("summary", "verify"):
            _switch(getattr(self, name), name)
        self.frames = _path(self.frames, "frames")
        self.fps = _number(self.fps, "fps", optional=False)
        self.turns = _text(self.turns, "turns")
        self.max_frames = _count(self.max_frames, "max_frames")
        self.size = _text(self.size, "size", optional=False)
        if _whole(self.from_turn, "from_turn") < 0:
            raise InputError(f"--from-turn: must be 0 or more, got {self.from_turn}")
        if (self.summary or self.verify) and (self.turns is not None or self.max_frames != 3000):
            raise InputError("--turns and --max-frames: only with --frames")
        if (self.summary or self.verify) and self.frames is not None:
            raise InputError("--frames: not with --summary or --verify (one of them at a time)")
        if (self.summary or self.verify) and self.size != SIZE:
            raise InputError("--size: only in the playback window or with --frames (--summary and --verify draw "
                             "nothing)")
        if self.frames is None and self.fps != 30.0:
            raise InputError("--fps: only with --frames (the window plays back in real time)")
        if self.from_turn and not self.verify:
            raise InputError("--from-turn: only with --verify")


@dataclass
class ServeRequest:
    """`tabletop serve`: the game server on ws://host:port (port 0: a free one, which it says),
    each room journaled under `data`."""

    host: str = "127.0.0.1"
    port: int = 8765
    data: Path = Path("rooms")
    listing: bool = False             # answer `tabletop rooms` with the open rooms

    def __post_init__(self):
        self.host = _text(self.host, "host", optional=False)
        if not self.host:
            raise InputError("--host: expected a host name or address, got ''")
        if not 0 <= _whole(self.port, "port") <= 65535:
            raise InputError(f"--port: a port from 0 to 65535 (0: a free one), got {self.port}")
        self.data = _path(self.data, "data")
        if self.data is None:
            raise InputError("--data: expected a folder, got None")


@dataclass
class HostRequest(GameRun):
    """`tabletop host GAME --server ws://HOST:PORT`: a room made on the server, each seat remote (a
    client plays it), ai or random (played in the room); chance physics or measured."""

    seats: tuple[str, ...] = ("remote", "remote")
    server: str = ""
    on_drop: str = "ai"
    drop_wait: int = 60

    def __post_init__(self):
        from tabletop.net.client import server_url

        super().__post_init__()
        self.server = server_url(_text(self.server, "server", optional=False))
        if list(self.seats).count("human") > 1:
            raise InputError("--seats: one human seat (the host's, in its window); the other players join as "
                             "remote seats with tabletop join")


BOTS = ("random", "ai", "plan", "solved")    # the seats a client plays with no window (the game's own kinds)


@dataclass
class JoinRequest:
    """`tabletop join ws://HOST:PORT/CODE`: a seat of the room (`seat` a colour, or the first free
    one) played by `bot` with its `seed`, or (`spectate`) the game watched."""

    url: str
    seat: str | None = None
    name: str | None = None
    bot: str = "random"
    spectate: bool = False
    seed: int = 0
    token: str | None = None          # the seat's token by hand (from another machine); else the one kept here
    chat: bool = True                 # False: the room's chat not shown

    def __post_init__(self):
        from tabletop.net.client import split_join_url

        split_join_url(_text(self.url, "url", optional=False))
        self.seat = _text(self.seat, "seat")
        self.name = _text(self.name, "name")
        self.token = _text(self.token, "token")
        if self.token is not None and not 0 < len(self.token) <= 128:
            raise InputError(f"--token: a seat's token is 1 to 128 characters, got {len(self.token)}")
        if self.token is not None and self.spectate:
            raise InputError("--token: not with --spectate (a spectator takes no seat)")
        _switch(self.chat, "chat")
        if self.name is not None and not 0 < len(self.name) <= 40:
            raise InputError(f"--name: 1 to 40 characters, got {len(self.name)}")
        if self.bot not in BOTS:
            raise InputError(f"--as: one of {', '.join(BOTS)}, got {self.bot!r}")
        _switch(self.spectate, "spectate")
        self.seed = _seed(self.seed)
        if self.spectate and self.seat is not None:
            raise InputError("--spectate takes no --seat: a spectator sees every seat's public view")
        if self.spectate and (self.bot != "random" or self.seed != 0):
            raise InputError(f"{'--as' if self.bot != 'random' else '--seed'}: not with --spectate (a spectator "
                             f"plays no seat)")


@dataclass
class StartRequest:
    """`tabletop start ws://HOST:PORT/CODE`: the room started before its seats are all taken, with
    `host_key` or the one this machine kept when it made the room."""

    url: str
    host_key: str | None = None

    def __post_init__(self):
        from tabletop.net.client import split_join_url

        split_join_url(_text(self.url, "url", optional=False))
        self.host_key = _text(self.host_key, "host_key")
        if self.host_key is not None and not 0 < len(self.host_key) <= 128:
            raise InputError(f"--host-key: 1 to 128 characters, got {len(self.host_key)}")


@dataclass
class RoomsRequest:
    """`tabletop rooms --server ws://HOST:PORT`: the open rooms of a server that lists them."""

    server: str = ""

    def __post_init__(self):
        from tabletop.net.client import server_url

        self.server = server_url(_text(self.server, "server", optional=False))


def request_fields(request_type) -> list[str]:
    """The names of a request type's fields (the API's keyword arguments)."""
    return [f.name for f in fields(request_type)]


@dataclass
class CalibrateRequest(DeviceRun):
    """`tabletop calibrate DEVICE --observed FILE`: the device's uncertain material values fitted to
    tallies from a real copy; `joint` DEVICE=FILE texts: other devices sharing material pairs with
    it, calibrated together (DEVICE alone: no tallies yet, with `plan`); `plan`: also say which
    measurement (`budget` more tallies of a device, or a home test of a value) would narrow the
    bands most (without `observed`: from the prior). `joint` texts may name a configuration of a
    device, DEVICE[NAME=VALUE,...]=FILE: the same device with its own --set values (a shape, a
    throw), its tallies fitted with the same parameters. `gesture`: the gesture's ranges are
    candidates too (also when `fit` names one), the training trials thrown at `gesture_points`
    values of them. `trials` simulated training trials (material values drawn per trial from
    their ranges), `holdout_trials` at each of `holdout_points` held-out values (the surrogate's
    check); `measured` NAME=VALUE+-SD priors; `fit` the parameters to fit (default: those that go
    detectably with a label); `walkers`, `steps` and `bootstrap` the sampler's."""

    observed: Path | None = None
    joint: tuple[str, ...] = ()
    gesture: bool = False
    gesture_points: int = 40
    plan: bool = False
    budget: int = 300
    measured: tuple[str, ...] = ()
    fit: tuple[str, ...] = ()
    trials: int = 2000
    holdout_points: int = 5
    holdout_trials: int = 100
    walkers: int = 64
    steps: int = 3000
    bootstrap: int = 8
    out: Path | None = None
    resume: bool = False
    plot: Path | None = None

    def __post_init__(self):
        super().__post_init__()
        self.observed = _path(self.observed, "observed")
        _switch(self.plan, "plan")
        if self.observed is None and not self.plan:
            raise InputError("--observed: give the tallies from your copy (a label,count CSV or an estimate's JSON)")
        self.joint = tuple(v for v in _texts(self.joint, "joint") if v) if self.joint else ()
        self.budget = _count(self.budget, "budget")
        _switch(self.gesture, "gesture")
        self.gesture_points = _count(self.gesture_points, "gesture_points")
        self.measured = tuple(_texts(self.measured, "measured")) if self.measured else ()
        self.fit = tuple(v for v in _texts(self.fit, "fit") if v) if self.fit else ()
        self.trials = _count(self.trials, "trials")
        self.holdout_points = _whole(self.holdout_points, "holdout_points")
        if self.holdout_points < 0:
            raise InputError(f"--holdout-points: must be 0 or more, got {self.holdout_points}")
        for name in ("holdout_trials", "walkers", "steps"):
            setattr(self, name, _count(getattr(self, name), name))
        self.bootstrap = _whole(self.bootstrap, "bootstrap")
        if self.bootstrap < 0:
            raise InputError(f"--bootstrap: must be 0 or more, got {self.bootstrap}")
        if self.trials < 50:
            raise InputError(f"--trials: a surrogate needs at least 50 training trials, got {self.trials}")
        if self.steps < 200:
            raise InputError(f"--steps: at least 200 sampler steps (a quarter are burn-in), got {self.steps}")
        _switch(self.resume, "resume")
        for name in ("out", "plot"):
            setattr(self, name, _path(getattr(self, name), name))
        if self.resume and self.out is None:
            raise InputError("--resume needs --out: the checkpoint lives beside the result file")
        if self.budget != 300 and not self.plan:
            raise InputError("--budget: only with --plan (the more tallies weighed in the plan)")
        if self.holdout_trials != 100 and not self.holdout_points:
            raise InputError("--holdout-trials: not with --holdout-points 0 (no held-out check is run)")


@dataclass
class ReviewRequest:
    """`tabletop review FILE.ttr`: the recorded game reviewed (tabletop.gamekit.review), exactly
    where it is solved, else (or with `estimate`) by `rollouts` rollouts a position, every chair
    played by `rollout_seat` (None: the game's review seat), each decision's loss measured until its
    95% interval is +-`precision` or narrower, from `seed`, in `workers` processes (None: one per
    core of this machine; the same review for any number); `out` the JSON, `plot` the
    win-probability graph."""

    file: Path
    out: Path | None = None
    plot: Path | None = None
    rollouts: int = 32
    seed: int = 0
    workers: int | None = None
    estimate: bool = False
    rollout_seat: str | None = None
    precision: float = 0.10

    def __post_init__(self):
        self.file = _path(self.file, "file")
        if self.file is None:
            raise InputError("review: name the recorded game, a .ttr file")
        for name in ("out", "plot"):
            setattr(self, name, _path(getattr(self, name), name))
        self.rollouts = _count(self.rollouts, "rollouts")
        if self.rollouts < 2:
            raise InputError(f"--rollouts: at least 2 (an interval needs two), got {self.rollouts}")
        self.seed = _seed(self.seed)
        self.workers = _count(self.workers, "workers", optional=True)
        _switch(self.estimate, "estimate")
        self.rollout_seat = _text(self.rollout_seat, "rollout_seat")
        self.precision = _number(self.precision, "precision", optional=False)
        if not 0.0 < self.precision <= 0.5:
            raise InputError(f"--precision: a decision's loss measured to a 95% half-width above 0 and at most "
                             f"0.5, got {self.precision}")
