"""`tabletop review FILE.ttr`: a recorded game reviewed (tabletop.gamekit.review says what every
figure means): every decision graded by what it lost of the mover's win probability, every chance
event's luck and, for a physical gadget, its swing against the fair table, each player's accuracy,
luck and cost, and the win-probability graph (--plot). Exact where the game is solved for its
rules, seats and tables; estimated by rollouts elsewhere (or with --estimate), each estimate with
its 95% interval.

Bad input is one InputError line before any work: a file that is missing or no replay, a recording
of device trials, a game this build does not know or cannot re-drive, a rollout seat the game does
not have, an output that cannot be written."""
from __future__ import annotations

from pathlib import Path

from tabletop.app import longrun
from tabletop.app.requests import ReviewRequest
from tabletop.app.results import Result
from tabletop.sim.errors import InputError


class ReviewResult(Result):
    """A game's review: `to_dict()` is what --out writes (tabletop.gamekit.review's fields with the
    game's header), `lines` what the command prints."""

    @property
    def lines(self) -> list[str]:
        from tabletop.gamekit.review import report_lines

        return report_lines(self._data)

    @property
    def steps(self) -> list[dict]:
        return list(self._data["steps"])

    @property
    def players(self) -> list[dict]:
        return list(self._data["players"])


def _recorded_game(path: Path):
    """(the replay file, its game's definition, its config, its Game, its actions); InputError (one
    line) for anything that is not a recorded game this build can re-drive."""
    from tabletop.app.replays import replayed_game
    from tabletop.gamekit.record import decode_action
    from tabletop.sim.record import ReplayFile

    file = ReplayFile.open(path)
    if file.header.get("kind") != "game":
        raise InputError(f"{path}: a recording of a device's trials, not of a game: there is nothing to review "
                         f"(review takes a game recorded by tabletop play)")
    definition = replayed_game(file)
    config = file.header.get("config")
    try:
        game = definition.make_game(config)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{path}: its header has no usable game config ({exc}); it cannot be reviewed") from None
    history = [decode_action(definition, a) for turn in file.turns for a in turn.actions]
    return file, definition, dict(config), game, history


def review_source(definition, config: dict):
    """(the outcome source whose tables a review weighs chance by, what they are): the recorded tables
    (the events without one: the measured tables), the source the config names where it records no
    tables (a saved estimate, a game's own), else the published measured tables: a game whose chance
    was physics is weighed by what the simulated gadgets measure."""
    from tabletop.gamekit.outcomes import play_outcomes, resolve_tables
    from tabletop.gamekit.chance import TableOutcomes
    from tabletop.gamekit.record import recorded_tables

    measured = definition.make_source(play_outcomes(definition, "measured")) if definition.devices else None
    tables, outcomes = recorded_tables(config), str(config.get("outcomes", "physics"))
    if tables:
        return TableOutcomes(tables, fallback=measured), "the recorded tables"
    if outcomes not in ("physics", "measured"):
        published = definition.devices and resolve_tables(outcomes) == play_outcomes(definition, "measured")
        named = outcomes if not outcomes.startswith("table:") else \
            "table:" + ",".join(Path(f).name for f in outcomes[6:].split(","))
        try:
            return (definition.make_source(resolve_tables(outcomes)),
                    "the measured tables (assets/measured)" if published else f"--outcomes {named}")
        except InputError:
            pass                       # its files are gone: the measured tables stand in
    if measured is None:
        raise InputError(f"{definition.name} has no measured tables to weigh its chance by: it cannot be reviewed")
    what = "physics, weighed by" if outcomes == "physics" else f"--outcomes {outcomes}, now missing; weighed by"
    return measured, f"the game's chance was {what} the measured tables (assets/measured)"


def fair_source(definition):
    """The game's fair chance (analyze --outcomes fair), or None where it has none."""
    from tabletop.gamekit import analyze as an

    try:
        analysis = definition.analysis()
        kind, files = an.resolve_outcomes(analysis, "fair")
        return analysis.source(kind, files)
    except (InputError, NotImplementedError):
        return None


def _options(definition, config: dict) -> dict:
    return definition.check_options({o.name: config[o.name] for o in definition.options if o.name in config})


def _rollout_seat(definition, kind: str) -> str:
    """`kind` where the game has such a seat to roll out with; InputError (one line) otherwise."""
    if kind not in definition.seat_kinds or kind == "human":
        raise InputError(f"--rollout-seat: {definition.name} has no {kind!r} seat to roll out with; use one of "
                         f"{', '.join(k for k in definition.seat_kinds if k != 'human')}")
    return kind


def _no_rollout_options(definition, request: ReviewRequest) -> None:
    """InputError (one line) for a rollout option given to a review that is exact (a solved game
    reviewed without --estimate plays no rollouts)."""
    from dataclasses import fields

    defaults = {f.name: f.default for f in fields(ReviewRequest)}
    for name in ("rollout_seat", "rollouts", "seed", "precision"):   # (not --workers: the cores a review may use)
        if getattr(request, name) != defaults[name]:
            raise InputError(f"--{name.replace('_', '-')}: {definition.name} is solved here, so its review is exact "
                             f"and plays no rollouts (add --estimate to review it by rollouts)")


def default_workers() -> int:
    """The cores this process may run on: a review's workers by default."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """A review's progress told as it goes: the bar (`bar.advance`, in steps' worth of work) and a
    line at every tenth of the work with the time spent and an estimate of the time left (the work
    done so far at the rate so far: tabletop.gamekit.review.Reviewer.work weighs each step), so that
    a terminal that shows no bar (a pipe, a file) still hears; `listen(fraction, text)` too (the
    window's panel)."""

    def __init__(self, reporter, bar, steps: int, listen=None, clock=None):
        import time

        self.reporter, self.bar, self.steps, self.listen = reporter, bar, steps, listen
        self.clock = clock or time.monotonic
        self.started, self.done, self.told = self.clock(), 0.0, 0

    def __call__(self, share: float) -> None:
        self.done = min(1.0, self.done + share)
        if self.done > 1.0 - 1e-9:
            self.done = 1.0
        self.bar.advance(share * self.steps)
        text = self.text()
        if self.listen is not None:
            self.listen(self.done, text)
        tenth = int(self.done * 10 + 1e-9)
        if tenth > self.told and self.done < 1.0:
            self.told = tenth
            self.reporter.step(text)

    def text(self) -> str:
        spent = self.clock() - self.started
        if self.done <= 0:
            return "reviewing: 0% done"
        left = spent * (1 - self.done) / self.done
        return f"reviewing: {100 * self.done:.0f}% done in {_duration(spent)}, about {_duration(left)} left"


def review(request: ReviewRequest, reporter: longrun.Reporter | None = None, listen=None) -> ReviewResult:
    """Review the recorded game `request.file`; --out and --plot written (the JSON first). Its
    progress goes to the reporter (a bar, and a line with the time left at every tenth) and to
    `listen(fraction done, text)` where given."""
    from tabletop.gamekit import review as rv
    from tabletop.gamekit.chance import table_dicts

    reporter = reporter or longrun.Reporter()
    longrun.check_outputs(out=request.out, plot=request.plot)
    file, definition, config, game, history = _recorded_game(request.file)
    source, weighed = review_source(definition, config)
    fair = fair_source(definition)
    players = len(game.new_initial_state().returns())
    if request.rollout_seat is not None:             # checked whether or not rollouts are played
        _rollout_seat(definition, request.rollout_seat)
    solved = None if request.estimate else definition.solved_values(game, table_dicts(source), reporter.note)
    if solved is not None:
        _no_rollout_options(definition, request)
    rollouts, kind = None, None
    workers = request.workers or default_workers()
    if solved is None:
        kind = request.rollout_seat or definition.review_seat
        if kind not in definition.seat_kinds or kind == "human":
            raise InputError(f"--rollout-seat: {definition.name} has no {kind!r} seat to roll out with; use one of "
                             f"{', '.join(k for k in definition.seat_kinds if k != 'human')}")
        options = _options(definition, config)
        rollouts = rv.Rollouts([definition.make_seat(kind, source, options) for _ in range(players)], source,
                               request.seed, definition.max_turns, definition.chance_events)
    reviewer = rv.Reviewer(definition, game, history, source, fair, solved, rollouts, request.rollouts,
                           request.precision)
    name = Path(request.file).name
    if solved is None:
        decisions = sum(1 for s in reviewer.path[:-1] if s.chance_event is None and len(s.legal_actions()) > 1)
        reporter.note(f"reviewing {name}: {len(history)} steps ({decisions} decisions to judge) by rollouts, "
                      f"{request.rollouts} a position, each loss to ±{100 * request.precision:g} points, on "
                      f"{workers} worker{'s' if workers > 1 else ''}; the time left is told as it goes")
    with reporter.progress(len(history), f"reviewing {name}") as bar:
        tell = Progress(reporter, bar, len(history), listen)
        data = rv.review(reviewer, workers if solved is None else 1, tell)
    final = reviewer.path[-1]
    winner = definition.winner(final) if final.is_terminal() else None
    colours = list(definition.colours[:players])
    if solved is not None:
        note = f"exact: every seat playing perfectly from each position on (the solved game), chance from {weighed}"
    else:
        from tabletop.gamekit.definition import GameDefinition

        hidden = ("; what is hidden dealt afresh in each rollout: the path with every hand open and the deck "
                  "unknown, each decision on what its seat knew" if type(definition).redealer is not
                  GameDefinition.redealer else "")
        note = (f"estimated: {request.rollouts} rollouts per position, every chair played by the {kind} seat, "
                f"chance from {weighed}{hidden}; each with its 95% interval")
    data = {"game": definition.name, "title": definition.title, "file": str(request.file),
            "seed": file.header.get("seed"), "seats": list(config.get("seats", [])), "colours": colours,
            "config": {k: v for k, v in config.items() if k != "tables"},
            "outcome": (f"{winner} won" if winner else "nobody won") if final.is_terminal() else "unfinished",
            "winner": winner, "turns": final.turn, "method_note": note,
            "tables": table_dicts(source), "fair_tables": table_dicts(fair) if fair is not None else {},
            "rollout_seat": kind, "rollout_seed": request.seed if solved is None else None,
            "workers": workers if solved is None else 1,
            "definitions": {"grades": rv.GRADES_DOC, "accuracy": rv.ACCURACY_DOC, "luck": rv.LUCK_DOC},
            **data}
    result = ReviewResult(data)
    return longrun.finish(result, request.out, request.plot, lambda: plot_review(data, request.plot), None,
                          reporter)


# -- the graph --------------------------------------------------------------------------------------
BIG_LUCK = 0.10          # a chance event whose luck for its mover is at least this is marked


def _colour(name: str, fallback: str) -> str:
    from matplotlib.colors import is_color_like

    darker = {"yellow": "#c9a800", "green": "#2a9d2a", "orange": "#e07b00"}
    return darker.get(name, name if is_color_like(name) else fallback)


def plot_review(data: dict, path) -> None:
    """The win-probability graph: each seat's over the game's steps (with its 95% band where
    estimated), chance events of large luck marked by triangles (up lucky, down unlucky) and
    mistakes and blunders by crosses, on the mover's line; turns along the top."""
    from tabletop.sim.analysis import pyplot, save_figure

    plt = pyplot()
    steps = data["steps"]
    colours = data["colours"]
    x = list(range(len(steps) + 1))
    fig, ax = plt.subplots(figsize=(12.0, 4.6))
    for s, name in enumerate(colours):
        c = _colour(name, f"C{s}")
        y = [data["start"][s]] + [r["after"][s] for r in steps]
        ax.plot(x, y, color=c, linewidth=1.4, label=name)
        if data["method"] == "rollouts" and data.get("start_ci95"):
            lo = [data["start_ci95"][s][0]] + [r["after_ci95"][s][0] if r.get("after_ci95") else r["after"][s]
                                              for r in steps]
            hi = [data["start_ci95"][s][1]] + [r["after_ci95"][s][1] if r.get("after_ci95") else r["after"][s]
                                              for r in steps]
            ax.fill_between(x, lo, hi, color=c, alpha=0.15, linewidth=0)
        for r in steps:
            if r["seat"] != s:
                continue
            at, v = r["index"] + 1, r["after"][s]
            if r["kind"] == "chance" and abs(r["luck"][s]) >= BIG_LUCK:
                ax.plot(at, v, marker="^" if r["luck"][s] > 0 else "v", color=c, markersize=7,
                        markeredgecolor="black", markeredgewidth=0.5)
            elif r["kind"] == "decision" and r.get("grade") in ("mistake", "blunder"):
                ax.plot(at, v, marker="X" if r["grade"] == "blunder" else "x", color="black",
                        markersize=9 if r["grade"] == "blunder" else 7)
    ax.plot([], [], "k^", markersize=6, label=f"luck >= {BIG_LUCK:.0%} (down: <= -{BIG_LUCK:.0%})")
    ax.plot([], [], "kx", markersize=6, label="mistake")
    ax.plot([], [], "kX", markersize=7, label="blunder")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(0, max(1, len(steps)))
    ax.set_xlabel("step (every decision and chance event)")
    ax.set_ylabel("win probability")
    ax.grid(alpha=0.3)
    top = ax.secondary_xaxis("top")
    turns = [(r["index"], r["turn"]) for k, r in enumerate(steps) if k == 0 or r["turn"] != steps[k - 1]["turn"]]
    every = max(1, len(turns) // 10)
    top.set_xticks([i for i, _ in turns[::every]], [str(t) for _, t in turns[::every]])
    top.set_xlabel("turn", fontsize=8)
    how = "exact (solved)" if data["method"] == "exact" else f"{data['rollouts']['n']} rollouts a position, 95% bands"
    ax.set_title(f"{data['title']}: {Path(data['file']).name}, {data['outcome']}; {how}", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def playback_review(request, reporter: longrun.Reporter | None = None, listen=None) -> dict:
    """The review the playback's panel shows: the JSON `tabletop review --out` wrote (of this very
    game), or ("" given) the game reviewed now, with the review's defaults, its progress told to
    `reporter` and `listen` (tabletop.app.review.review)."""
    import json

    if request.review == "":
        from tabletop.app.requests import ReviewRequest

        return review(ReviewRequest(file=request.file), reporter, listen).to_dict()
    path = Path(request.review)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"--review: cannot read {path} ({getattr(exc, 'strerror', None) or exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise InputError(f"--review: {path} is not a review (tabletop review FILE --out {path.name} writes one)")
    if Path(str(data.get("file", ""))).name != Path(request.file).name:
        raise InputError(f"--review: {path} reviews {Path(str(data.get('file'))).name}, not {Path(request.file).name}")
    return data


class BackgroundReview:
    """`tabletop replay FILE --review`: the game reviewed in a process of its own (`tabletop review
    FILE --out` to a temporary file, `extra` its further options) while the playback window is open,
    so that the window opens at once and its review panel shows the review's progress (and the
    terminal too: its lines are passed on to `echo`) until the review is there. `poll()` says where
    it is; `stop()` ends it (the window closed first)."""

    def __init__(self, file, extra=(), echo=None):
        import subprocess
        import sys
        import tempfile
        import threading

        self.file = Path(file)
        self.echo = echo if echo is not None else (lambda line: print(line, file=sys.stderr, flush=True))
        self._out = Path(tempfile.mkdtemp(prefix="tabletop-review-")) / "review.json"
        self.note = "reviewing: starting"
        self.error: str | None = None
        self._data: dict | None = None
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tabletop.cli", "review", str(self.file), "--out", str(self._out), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        self._reader = threading.Thread(target=self._read, name="review-progress", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        last = ""
        for raw in self._process.stderr:
            line = raw.rstrip("\n")
            if line.startswith("reviewing"):
                if "━" not in line:              # (the bar, drawn whole at the end where no terminal shows it)
                    self.echo(line)
                    self.note = line if "% done" in line else self.note
            elif line.strip():
                last = line
                if line.startswith("tabletop:"):
                    self.echo(line)
        code = self._process.wait()
        if code == 0 and self._out.exists():
            import json

            try:
                self._data = json.loads(self._out.read_text())
            except (OSError, ValueError) as exc:
                self.error = f"the review could not be read back ({exc})"
        else:
            self.error = last.removeprefix("tabletop: ").removeprefix("error: ") or f"the review stopped (exit {code})"
        self._cleanup()

    def _cleanup(self) -> None:
        import shutil

        shutil.rmtree(self._out.parent, ignore_errors=True)

    def poll(self) -> tuple[dict | None, str]:
        """(the review once it is there, else None; the panel's line: its progress, or why it failed)."""
        if self._data is not None:
            return self._data, ""
        if self.error is not None and not self._reader.is_alive():
            return None, f"no review: {self.error}"
        return None, self.note

    @property
    def finished(self) -> bool:
        return not self._reader.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        self._reader.join(timeout)

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(5)
            except Exception:                   # noqa: BLE001 (it would not end: it is killed)
                self._process.kill()
        self._reader.join(5)
        self._cleanup()
