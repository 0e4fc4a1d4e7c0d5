"""Every job's result: a typed view over the dict the command's --out writes (`to_dict()` gives a
copy of it, `result["key"]` any of its fields), so that the JSON forms stay what they were."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import NamedTuple


class Result:
    """A job's result: the dict --out writes, and typed properties over it."""

    def __init__(self, data: dict):
        self._data = data

    def to_dict(self) -> dict:
        return copy.deepcopy(self._data)

    def __getitem__(self, key: str):
        """A field of the result dict (`result["by_group"]`, `result["sensitivity"]`, ...)."""
        return self._data[key]

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def get(self, key: str, default=None):
        return self._data.get(key, default)


class Probability(NamedTuple):
    """One outcome's probability among the labelled trials and its 95% Wilson interval."""

    p: float
    low: float
    high: float

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.low, self.high)


class EstimateResult(Result):
    """An estimate's result: `to_dict()` is the dict `tabletop estimate --out` writes."""

    @property
    def device(self) -> str:
        return self._data["device"]

    @property
    def seed(self) -> int:
        return self._data["seed"]

    @property
    def trials(self) -> int:
        return self._data["trials"]

    @property
    def counts(self) -> dict[str, int]:
        """Trials per outcome label (status ok only; `to_dict()` has the unsettled, escaped, lodged)."""
        return dict(self._data["counts"])

    @property
    def probabilities(self) -> dict[str, Probability]:
        return {label: Probability(pr["p"], *pr["ci95"]) for label, pr in self._data["probabilities"].items()}

    def __repr__(self) -> str:
        odds = ", ".join(f"{label} {pr.p:.3f} [{pr.low:.3f}, {pr.high:.3f}]"
                         for label, pr in self.probabilities.items())
        return (f"<EstimateResult {self.device}: {self.trials} trials, seed {self.seed}, "
                f"{self._data['labelled']} labelled: {odds}>")


class ConvergeResult(Result):
    """A convergence check: the base run, each refinement's paired comparison, the verdict."""

    @property
    def verdict(self) -> str:
        return self._data["verdict"]


class SweepResult(Result):
    """A sweep: a row per value of the parameter; `csv` is the table as --csv writes it."""

    def __init__(self, data: dict, labels, csv: str):
        super().__init__(data)
        self.labels, self.csv = tuple(labels), csv

    @property
    def rows(self) -> list[dict]:
        return copy.deepcopy(self._data["rows"])


class ValidateResult(Result):
    """The published experiments against ours: a row per case with its verdict."""

    @property
    def rows(self) -> list[dict]:
        return copy.deepcopy(self._data["cases"])


class BenchResult(Result):
    """A bench's figures (the JSON of --out); `lines` the lines it said as it went."""

    def __init__(self, data: dict, lines: list[str], summary: tuple):
        super().__init__(data)
        self.lines, self.summary = lines, summary     # summary: (title, columns, rows, note)


class AnalyzeResult(Result):
    """An analysis of whole games (or, with --solve, the game's perfect play)."""


class PlayedGame:
    """A game played to its end: its log, result, history and final state."""

    def __init__(self, definition, seed: int, seats: list[str], lines: list[str], state, record: Path | None):
        self.definition = definition
        self.game, self.seed, self.seats = definition.name, seed, seats
        self.lines = lines          # what `play --headless` prints: the banner, every log line, the result
        self.state = state          # the final rules state (state.is_terminal() is True)
        self.record = record        # the replay file written, or None

    @property
    def result(self) -> str:
        """The result line: the log's last line ("winner: blue after 80 turns", "result: Kong wins ...")."""
        return self.lines[-1]

    @property
    def winner(self) -> str | None:
        """The winner as the game names it (a colour; colours joined by "+" for a shared victory)."""
        return self.definition.winner(self.state)

    @property
    def history(self) -> list:
        """Every action and chance outcome applied, in order (the rules' own objects)."""
        return list(self.state.history)

    @property
    def turns(self) -> int:
        return self.state.turn

    def __repr__(self) -> str:
        return f"<PlayedGame {self.game}, seed {self.seed}, seats {','.join(self.seats)}: {self.result}>"


class HostedRoom(NamedTuple):
    """A room made on a game server: its join `code`, the `url` clients join with
    (ws://HOST:PORT/CODE), the game and each seat's colour and kind."""

    code: str
    url: str
    game: str
    seats: tuple

    def to_dict(self) -> dict:
        return {"code": self.code, "url": self.url, "game": self.game, "seats": [dict(s) for s in self.seats]}


class JoinedSeat(NamedTuple):
    """A seat played (or a game watched) to the end through a game server: the room, the seat's
    colour (None: a spectator), the log as that seat saw it, the result lines, the winner and how
    often the client reconnected."""

    room: str
    seat: str | None
    lines: list
    result: list
    winner: str | None
    reconnects: int

    def to_dict(self) -> dict:
        return dict(self._asdict())
