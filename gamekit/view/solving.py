"""The hint's solve, made in the background: another Python process solves the game (its
definition's `solved_values`, which caches the solution on disk) and tells its progress on its
standard output, one JSON line at a time; the window reads them on a thread, and once the other
process is done it loads the cached solution on a thread too. The window's frames never wait
for either (no Panda3D here: the other process never loads it).

    python -m tabletop.gamekit.view.solving   (reads its job as one JSON line on standard input)
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time

JOB = "tabletop.gamekit.view.solving:solve_job"


class BackgroundSolve:
    """`definition`'s game of replay config `config` solved for chance `tables` in another process
    (`job`, "module:function", called there as job(definition, config, tables, tell) with
    tell(kind, *values); the other process finds the definition where it lives, as "module:name"
    (`where`), with no registry of games). `poll()`: None while it runs, then ("done", values) or ("error", text);
    `line()` its progress for the status panel."""

    def __init__(self, definition, config: dict, tables: dict, job: str = JOB):
        self.definition, self.config, self.tables = definition, config, tables
        self.began = time.monotonic()
        self.fraction, self.doing = 0.0, "starting"
        self.result = None
        self._news: queue.Queue = queue.Queue()
        self._loader: threading.Thread | None = None
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.process = subprocess.Popen([sys.executable, "-m", "tabletop.gamekit.view.solving"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        self.process.stdin.write(json.dumps({"job": job, "definition": where(definition), "config": config,
                                             "tables": tables}) + "\n")
        self.process.stdin.close()
        self._errors: list[str] = []
        threading.Thread(target=self._read, daemon=True, name="tabletop-hint-solve").start()
        threading.Thread(target=self._read_errors, daemon=True, name="tabletop-hint-solve-err").start()

    def _read(self) -> None:
        for row in self.process.stdout:
            try:
                self._news.put(json.loads(row))
            except ValueError:
                continue
        self._news.put({"kind": "ended"})

    def _read_errors(self) -> None:
        for row in self.process.stderr:
            self._errors = (self._errors + [row.rstrip()])[-20:]

    def elapsed(self) -> str:
        s = int(time.monotonic() - self.began)
        return f"{s // 60}:{s % 60:02d}"

    def line(self) -> str:
        """The progress line for the status panel."""
        n = 20
        filled = min(n, round(self.fraction * n))
        return f"solving for the hint: {self.doing}  [{'#' * filled}{'.' * (n - filled)}] {self.elapsed()}"

    def poll(self):
        while self.result is None:
            try:
                news = self._news.get_nowait()
            except queue.Empty:
                break
            kind = news.get("kind")
            if kind == "progress":
                self.fraction, self.doing = max(self.fraction, float(news["fraction"])), str(news["doing"])
            elif kind == "error":
                self.result = ("error", str(news["text"]))
            elif kind == "solved":
                self._load()
            elif kind == "ended" and self._loader is None:
                self.process.wait()
                last = next((row for row in reversed(self._errors) if row.strip()), "")
                self.result = ("error", f"the solving process ended without a solution (exit "
                                        f"{self.process.returncode}{': ' + last if last else ''})")
        return self.result

    def _load(self) -> None:
        """The solution read from the cache on a thread of this process (seconds for a large one)."""
        self.fraction, self.doing = 1.0, "loading the solution"

        def refuse(text: str):
            raise RuntimeError("the solve in the background left no solution in the cache")

        def load():
            try:
                values = self.definition.solved_values(self.definition.make_game(self.config), self.tables, refuse)
            except Exception as exc:      # noqa: BLE001 (said in the window, one line)
                self.result = ("error", str(exc))
            else:
                self.result = ("done", values) if values is not None else ("error", "the game is not solved")

        self._loader = threading.Thread(target=load, daemon=True, name="tabletop-hint-load")
        self._loader.start()

    def cancel(self) -> None:
        """Stop the other process (the window closes, or a new game of other rules)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()


def where(definition) -> str:
    """"module:name" of a game definition, for another process to import: the module attribute that
    holds it (a game whose module makes its definition), else its class, which the other process
    makes anew with no arguments, as the registry makes a definition from an entry point that
    names a class (tabletop.gamekit.registry.load)."""
    cls = type(definition)
    module = sys.modules[cls.__module__]
    name = next((k for k, v in vars(module).items() if v is definition), None)
    if name is None and getattr(module, cls.__qualname__, None) is cls:
        name = cls.__qualname__
    if name is None:
        raise ValueError(f"{definition.name}'s definition is held by no name of {module.__name__}: it cannot "
                         f"be found in another process")
    return f"{module.__name__}:{name}"


def solve_job(definition, config: dict, tables: dict, tell) -> None:
    """`definition`'s game with `config` solved for `tables` (the game's own solve caches it), its
    progress told as tell("progress", fraction, doing)."""
    definition.solved_values(definition.make_game(config), tables, lambda text: None,
                             progress=lambda fraction, doing: tell("progress", fraction, doing))


def main() -> int:
    """The other process: the job from standard input, its news as JSON lines on standard output."""
    import importlib

    try:
        os.nice(10)            # the window that waits for it comes first for the CPU
    except (AttributeError, OSError):
        pass
    order = json.loads(sys.stdin.readline())
    out = sys.stdout

    def tell(kind: str, *values) -> None:
        news = {"kind": kind}
        if kind == "progress":
            news.update(fraction=values[0], doing=values[1])
        out.write(json.dumps(news) + "\n")
        out.flush()

    module, _, function = order["job"].partition(":")
    try:
        home, _, name = order["definition"].partition(":")
        definition = getattr(importlib.import_module(home), name)
        if isinstance(definition, type):
            definition = definition()
        getattr(importlib.import_module(module), function)(definition, order["config"], order["tables"], tell)
    except Exception as exc:   # noqa: BLE001 (the window says it in one line)
        out.write(json.dumps({"kind": "error", "text": f"{type(exc).__name__}: {exc}"}) + "\n")
        return 1
    tell("solved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
