"""Where a game's chance outcomes come from: physics, a measured table, or a script.

The rules never roll dice; a driver asks an outcome source for the label of each chance
event ("tipper", "crater", ...). Every source draws only from the Generator it is given.
"""
from __future__ import annotations

import abc
import json
import math
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from tabletop.sim.errors import InputError


class OutcomeSource:
    """Where chance outcomes come from; every source draws only from the Generator it is given."""

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        """The label for `event` in `state` (abstract)."""
        raise NotImplementedError

    def wrapped(self) -> "OutcomeSource | None":
        """The source this one passes the events it does not answer on to (None: none)."""
        return None

    def close(self) -> None:
        """Let go of what the source holds (a physics source's Worlds); nothing by default."""


class PhysicsTable(abc.ABC):
    """A game's physical table: the Worlds (tabletop.sim.world) its chance events move in, built from
    the game's layout. `world` is the table's own World; `worlds` every World the window draws and a
    replay's scene records, the table's own first (by default `world` alone: a table with a gadget in
    a World of its own, such as a die's box lid, adds it). `close()` lets them go (required)."""

    world = None

    @property
    def worlds(self) -> tuple:
        return (self.world,)

    @abc.abstractmethod
    def close(self) -> None:
        """Let go of every World of the table."""


class PhysicsSource(OutcomeSource, abc.ABC):
    """A game's physics outcome source: it simulates each chance event on the game's physical table.
    WatchedOutcomes records each event's motion through these hooks; replays re-simulate through them.
    A game supplies `table_for` and `outcome`; the other hooks have defaults."""

    @abc.abstractmethod
    def table_for(self, state) -> PhysicsTable:
        """The physical table (a PhysicsTable) that simulates the events of `state`, built on first use."""

    @abc.abstractmethod
    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        """Simulate `event` on the table as `state` has it, with randomness from `rng` only; its label."""

    def world_for(self, event: str, state):
        """The World `event` moves (None: nothing physical moves, as for a shuffle of cards); by
        default the table's world."""
        return self.table_for(state).world

    def prepare(self, event: str, state) -> None:
        """Set the table as the rules state has it before the event's first frame; nothing by default."""

    def start_of(self, event: str, state) -> dict | None:
        """What the event starts from beyond the rules state, for a replay to record (None: nothing)."""
        return None

    def resume(self, event: str, state, start: dict | None) -> None:
        """Set the table as the turns before a recorded event left it, from the `start` the replay
        recorded (verify from a middle turn; ValueError when it cannot be set); nothing by default."""


class ScriptedOutcomes(OutcomeSource):
    """Outcomes from a fixed list per event, in order (for tests and golden games)."""

    def __init__(self, script: dict[str, Iterable[str]], cycle: bool = False):
        self.queues = {event: deque(labels) for event, labels in script.items()}
        self.cycle = cycle

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        queue = self.queues.get(event)
        if not queue:
            raise RuntimeError(f"the script has no {event} outcome left")
        label = queue.popleft()
        if self.cycle:
            queue.append(label)
        return label


class Cumulative:
    """Labels and their cumulative probabilities, made once: `draw(rng)` takes one uniform from the
    Generator and gives the label `rng.choice(len(labels), p=p)` would (numpy's choice searches the
    same cumulative sum with the same one uniform), at a fraction of its cost."""

    __slots__ = ("labels", "cdf")

    def __init__(self, labels, p):
        cdf = np.asarray(p, float).cumsum()
        cdf /= cdf[-1]
        self.labels = tuple(labels)
        self.cdf = cdf.tolist()

    def draw(self, rng: np.random.Generator):
        return self.labels[bisect_right(self.cdf, rng.random())]


class TableOutcomes(OutcomeSource):
    """Outcomes sampled from measured probabilities (saved `tabletop estimate` results).

    Events with no table are passed to `fallback` (e.g. physics), or are an error.
    """

    def __init__(self, tables: dict[str, dict[str, float]], fallback: OutcomeSource | None = None):
        self.tables = {event: (list(p), np.array(list(p.values()), float)) for event, p in tables.items()}
        self.draws = {event: Cumulative(labels, p / p.sum()) for event, (labels, p) in self.tables.items()}
        self.fallback = fallback

    def wrapped(self) -> OutcomeSource | None:
        return self.fallback

    @classmethod
    def from_files(cls, paths: Iterable[str | Path], fallback: OutcomeSource | None = None) -> "TableOutcomes":
        return cls(load_tables(paths), fallback)

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        table = self.draws.get(event)
        if table is None:
            if self.fallback is None:
                raise RuntimeError(f"no measured table for the {event}")
            return self.fallback.outcome(event, state, rng)
        return table.draw(rng)


def table_dicts(source) -> dict[str, dict[str, float]]:
    """{event: {label: p}} of every measured table `source` draws from, through the sources it wraps
    (`inner`, `fallback`); {} for physics or a script."""
    out: dict[str, dict[str, float]] = {}
    while source is not None:
        if isinstance(source, TableOutcomes):
            for event, (labels, p) in source.tables.items():
                out.setdefault(event, {label: float(v) for label, v in zip(labels, p / p.sum())})
        source = source.wrapped()
    return out


@dataclass(frozen=True)
class UniformOrder:
    """A chance event whose outcome is a uniformly random order of `items` (a shuffle of cards): too
    many orders to list, so a tree search draws it item by item; its label is the order joined
    by spaces."""

    items: tuple


def table_distribution(event: str, labels: Iterable[str], source) -> list[tuple[str, float]]:
    """(label, p) of the pending `event` over `labels`, from the measured table `source` draws it
    from (its probabilities renormalised over the labels); RuntimeError when it has none."""
    table = table_dicts(source).get(event)
    if table is None:
        raise RuntimeError(f"no table gives the {event}'s probabilities")
    labels = list(labels)
    total = sum(table.get(label, 0.0) for label in labels)
    return [(label, table.get(label, 0.0) / total) for label in labels]


def check_table(event: str, table, labels: Iterable[str]) -> dict[str, float]:
    """The `event`'s chance table ({label: p}) over exactly `labels`, normalised to sum 1, as a solver
    takes it; a bad one is an InputError, one line naming the event: labels missing or unknown,
    probabilities not numbers, negative, not finite or all 0."""
    labels = tuple(labels)
    if not isinstance(table, dict) or set(table) != set(labels):
        got = sorted(table) if isinstance(table, dict) else table
        raise InputError(f"a {event} table needs exactly the labels {', '.join(labels)}, got {got}")
    try:
        p = {label: float(table[label]) for label in labels}
    except (TypeError, ValueError):
        raise InputError(f"a {event} table's probabilities must be numbers, got {table}") from None
    if not all(math.isfinite(v) and v >= 0 for v in p.values()) or sum(p.values()) <= 0:
        raise InputError(f"a {event} table's probabilities must be finite, non-negative and not all 0, got {table}")
    total = sum(p.values())
    return {label: v / total for label, v in p.items()}


def measured_paths(devices: Iterable[str]) -> list[Path]:
    """The published measured odds of `devices`: their 10,000-trial estimates (`tabletop estimate
    DEVICE --trials 10000 --seed 1 --out DEVICE-10k-seed1.json`), package data: tabletop's own
    devices' in its assets/measured, a device of another distribution's in the folder `measured`
    beside the module its entry point names (`tabletop.devices`: tabletop.gamekit.devices)."""
    from tabletop.sim.paths import assets_dir

    paths = []
    for device in devices:
        path = assets_dir() / "measured" / f"{device}-10k-seed1.json"
        paths.append(path if path.is_file() else _plugin_measured(device) or path)
    return paths


def _plugin_measured(device: str) -> Path | None:
    """Where a device of another distribution keeps its measured table (None: no such device)."""
    import importlib.util
    from importlib.metadata import entry_points

    for point in entry_points(group="tabletop.devices", name=device):
        module = point.value.split(":")[0]
        if module != "tabletop" and not module.startswith("tabletop."):
            found = importlib.util.find_spec(module)
            if found is not None and found.origin:
                return Path(found.origin).parent / "measured" / f"{device}-10k-seed1.json"
    return None


def measured_tables(devices: Iterable[str]) -> dict[str, dict[str, float]]:
    """{device: {label: p}} from the published measured odds of `devices`."""
    tables: dict[str, dict[str, float]] = {}
    for path in measured_paths(devices):
        tables.update(load_estimate_table(path))
    return tables


def table_not_found(path: str | Path) -> InputError:
    """The one line for a --outcomes table file that is not there: what writes one, and the
    packaged tables a bare name finds anywhere."""
    from tabletop.sim.paths import assets_dir

    packaged = sorted(p.name for p in (assets_dir() / "measured").glob("*.json"))
    return InputError(f"outcome table not found: {path} (`tabletop estimate DEVICE --out FILE.json` writes one; "
                      f"the packaged tables, found by their bare names from any folder: {', '.join(packaged)})")


def load_estimate_table(path: str | Path) -> dict[str, dict[str, float]]:
    """{device: {label: p}} from an `estimate` JSON file, or from a calibration file (`tabletop
    calibrate --out`: the calibrated odds of each device it calibrates); a bad file is an InputError."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
        if is_calibration(data):
            return calibration_tables(data, path)
        device = data["device"]
        probs = {label: float(v["p"]) for label, v in data["probabilities"].items()}
    except FileNotFoundError:
        raise table_not_found(path) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise InputError(f"{path}: not a tabletop estimate result (needs device and probabilities)") from None
    if not probs or sum(probs.values()) <= 0 or min(probs.values()) < 0:
        raise InputError(f"{path}: its probabilities are empty or invalid")
    return {device: probs}


# -- calibration files -------------------------------------------------------------------------
# A calibration file (`tabletop calibrate --out`: tabletop.app.calibrate writes it, its fields
# documented there) is read here, for every consumer: `load_calibration` checks it whole (format,
# version, posterior draws), `calibration_tables` gives its calibrated odds (field `predictive`,
# {device: {label: {p, ci95}}}), `calibration_draws` the per-trial perturbation a run of the
# calibrated copy takes from its posterior draws. It may stand among a `table:` source's files:
# its calibrated odds replace those devices' tables, whatever the order of the files
# (`play`/`analyze --calibration FILE` put it there). A game recorded with one keeps, in its
# config, the file, its digest and the tables it gave (`calibration_config`).
CALIBRATION_FORMAT = "tabletop-calibration"
CALIBRATION_VERSION = 1


def is_calibration(data) -> bool:
    """Whether a JSON document is a calibration file."""
    return isinstance(data, dict) and data.get("format") == CALIBRATION_FORMAT


def calibration_tables(data: dict, path) -> dict[str, dict[str, float]]:
    """{device: {label: p}}: a calibration file's calibrated odds of each device it calibrates."""
    try:
        tables = {str(dev): {str(k): float(v["p"]) for k, v in bands.items()}
                  for dev, bands in data["predictive"].items()}
    except (KeyError, TypeError, ValueError, AttributeError):
        raise InputError(f"{path}: a calibration file without calibrated odds (field predictive)") from None
    if not tables or any(not t or min(t.values()) < 0 or abs(sum(t.values()) - 1.0) > 1e-6 for t in tables.values()):
        raise InputError(f"{path}: a calibration file whose calibrated odds are empty or not probabilities")
    return tables


def load_calibration(path: str | Path) -> dict:
    """A calibration file, checked: its format, version and the posterior draws a consumer draws
    from (InputError, one line, naming --calibration)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"--calibration {path}: no such file") from None
    except (OSError, ValueError, UnicodeDecodeError):
        raise InputError(f"--calibration {path}: not a calibration file (not JSON)") from None
    if not is_calibration(data):
        raise InputError(f"--calibration {path}: not a calibration file")
    if data.get("version") != CALIBRATION_VERSION:
        raise InputError(f"--calibration {path}: calibration version {data.get('version')}, this build reads "
                         f"{CALIBRATION_VERSION}")
    draws = data.get("posterior_draws")
    if (not isinstance(draws, dict) or not draws.get("values")
            or any(len(row) != len(draws.get("names", ())) for row in draws["values"])):
        raise InputError(f"--calibration {path}: its posterior draws are missing or malformed")
    return data


def calibrated_tables(path: str | Path) -> dict[str, dict[str, float]]:
    """{device: {label: p}}: the calibrated copy's odds (each label's posterior predictive
    probability) of every device the file calibrates, as the games' outcome tables take them."""
    return calibration_tables(load_calibration(path), f"--calibration {path}")


def calibration_draws(data: dict, pairs, path):
    """The per-trial perturbation a run of the calibrated copy takes (tabletop.sim.calibrate.
    PosteriorDraws), from a calibration file's data (`load_calibration`): each trial one row of its
    posterior draws, the other values of `pairs` drawn from their ranges. From a joint calibration,
    the values of `pairs` (a device of it); a file none of whose values is a value of `pairs` is
    refused (`path` names it)."""
    from tabletop.sim.batch import pair_parameter
    from tabletop.sim.calibrate import PosteriorDraws
    from tabletop.sim.materials import PAIR_FIELDS

    names = tuple(data["posterior_draws"]["names"])
    known = {pair_parameter(p, f) for p in pairs for f in PAIR_FIELDS}
    used = [j for j, n in enumerate(names) if n in known]
    if not used or (len(data.get("devices", [data.get("device")])) == 1 and len(used) < len(names)):
        missing = [n for n in names if n not in known]
        raise InputError(f"--calibration {path}: {', '.join(missing)} is not a value of this device's world "
                         f"(the file calibrates {', '.join(data.get('devices') or [str(data.get('device'))])})")
    return PosteriorDraws(tuple(pairs), tuple(names[j] for j in used),
                          tuple(tuple(float(row[j]) for j in used) for row in data["posterior_draws"]["values"]))


def calibrated_draws(path: str | Path, pairs):
    """`calibration_draws` of the calibration file at `path`."""
    return calibration_draws(load_calibration(path), pairs, path)


def calibration_files(paths: Iterable[str | Path]) -> list[Path]:
    """The calibration files among table files (a file that does not read is none)."""
    out = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        if is_calibration(data):
            out.append(Path(path))
    return out


def load_tables(paths: Iterable[str | Path]) -> dict[str, dict[str, float]]:
    """{device: {label: p}} of table files: estimate results in order (a later one's device
    replaces an earlier one's), then the calibration files among them, whose calibrated odds
    replace those of the devices they calibrate."""
    paths = [Path(p) for p in paths]
    calibrations = set(calibration_files(paths))
    tables: dict[str, dict[str, float]] = {}
    for path in [p for p in paths if p not in calibrations] + [p for p in paths if p in calibrations]:
        tables.update(load_estimate_table(path))
    return tables


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, hex."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def calibration_config(outcomes: str) -> dict:
    """What a recorded game keeps of the calibration files of a `table:` --outcomes (none: {}):
    {"calibration": [{file, sha256, devices, tables}]}, the tables those the game drew from."""
    if not outcomes.startswith("table:"):
        return {}
    found = []
    for path in calibration_files(f for f in outcomes[6:].split(",") if f):
        tables = load_estimate_table(path)
        found.append({"file": str(path), "sha256": file_digest(path), "devices": list(tables), "tables": tables})
    return {"calibration": found} if found else {}


def check_recorded_calibrations(config: dict, where) -> None:
    """Before a recorded game is played on from its --outcomes: each calibration file it recorded
    (`calibration_config`) is still there and unchanged, else an InputError saying which."""
    for c in config.get("calibration") or ():
        try:
            digest = file_digest(c["file"])
        except OSError:
            raise InputError(f"{where}: its chance came from the calibration {c['file']}, which is gone; put it "
                             f"back to play the game on") from None
        if digest != c.get("sha256"):
            raise InputError(f"{where}: the calibration {c['file']} changed since the game was recorded; its "
                             f"chance cannot be played on as it was")


class WatchedOutcomes(OutcomeSource):
    """A physics outcome source whose every chance event is recorded as a Motion (pose frames
    of the bodies while they move), for the window to play back and for replay files.

    The wrapped source is a PhysicsSource: its `prepare(event, state)` sets the table before the
    event's first frame, `world_for(event, state)` is the World the event moves (None: none, and the
    event's Motion is empty). `motions` holds one Motion per answered event, in order; `start` what
    the last event started from beyond the rules state (the source's `start_of(event, state)`), which
    replays record so that they can be re-simulated from a middle turn.
    """

    def __init__(self, source, rate: float = 60.0):
        self.source = source
        self.rate = rate
        self.motions: list = []
        self.start: dict | None = None

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        from tabletop.sim.motion import Motion, MotionRecorder

        self.source.prepare(event, state)      # the table as the rules state has it, before the first frame
        self.start = self.source.start_of(event, state)
        world = self.source.world_for(event, state)
        if world is None:                  # nothing physical moves (a shuffle of the cards)
            label = self.source.outcome(event, state, rng)
            self.motions.append(Motion(rate=self.rate, times=[0.0], frames=[{}]))
            return label
        with MotionRecorder(world, self.rate) as recorder:
            label = self.source.outcome(event, state, rng)
        self.motions.append(recorder.motion)
        return label

    def close(self) -> None:
        self.source.close()
