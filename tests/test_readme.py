"""README.md as a new user meets it: every fenced block and every command in it runs as printed.

Every fenced block names its kind, and each kind is held to something:

- ```sh: one command a line (a trailing backslash joins lines; `# ...` is a comment). Every command
  is checked in the default run without running it: parsed by the command's own parser
  (tabletop.cli.parser.build_parser) and given the checks the command makes before any work (seats,
  variants, --outcomes, every --set against the device's spec, a file it reads written by an
  earlier README command or packaged). Then it runs as printed, through the shell, with the installed
  `tabletop`, all in one temporary folder in README order (so `replay m.ttr` finds the m.ttr a
  `play` above recorded; a command run alone first runs the earlier commands that write its inputs),
  by its class:
    default  -- quick commands, in every run (`python -m pytest`);
    slow     -- minutes of work (SLOW below, and a command that reads what a slow one writes): marked
                `long`, run with `python -m pytest -m long` (pyproject's addopts deselect them by
                default);
    display  -- opens the 3D window (`tabletop play` without --headless or --screenshot, `tabletop
                replay FILE` without --summary, --verify or --frames): skipped;
    install  -- `pip install`: never run (its extras are checked against pyproject).
  `python scripts/...` runs in a folder laid out as a checkout (the scripts are run from one), and
  `python -m pytest` in the checkout itself.
- ```text: a synopsis, each entry starting "usage: tabletop CMD" (its option names checked against
  `tabletop CMD --help`), or a listing such as the layout (each top-level folder it names exists).
- ```python: compiled, and every tabletop.estimate / play / open_replay call in it checked as the
  job checks its request before any work; then run as a script file from an empty folder and as a notebook cell
  (exec'd in a fresh namespace whose __name__ is "__main__", the way a notebook runs top-level code).

Inline `tabletop ...` spans in the prose and tables are checked too: a concrete one like a fenced
command, a synopsis one (with `|`, `[...]` or placeholders such as GAME or FILE) for its option names.
"""
from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent

# Commands that take minutes (or build and test everything): run with `-m slow`. The key is the
# command as printed, without its comment (and without a `pip install ... &&` before it).
SLOW = {
    "tabletop estimate kong-knockover --set materials.pairs.cardboard/pawn.friction=0.48 --trials 300 --seed 7 "
    "--out obs48.json": "300 knock-over moves",
    "tabletop calibrate kong-knockover --observed obs48.json --out c48.json --plot c48.png":
        "2,500 knock-over moves simulated and a posterior sampled (about 2.5 minutes)",
    "tabletop calibrate kong-knockover --plan --seed 1": "2,500 knock-over moves simulated (about 2.5 minutes)",
    "tabletop estimate tipper --trials 1000 --workers 2 --out tipper.json": "1,000 Tipper trials",
    "python -m pytest": "the whole test suite",
    "tabletop play king-of-the-hill --seats ai,ai,ai,ai --seed 3 --after-turns 40 --screenshot koth.png "
    "--size 1280x720": "40 simulated turns and an offscreen render",
    "tabletop analyze knossos --games 4000 --seats random,random --outcomes fair --seed 1 --workers 2 --out k.json "
    "--plot k.png": "4,000 matches",
    "tabletop analyze king-of-the-hill --games 4000 --seats ai,ai --compare fair --seed 1 --workers 2 --out koth.json":
        "8,000 games",
    "tabletop replay m.ttr --frames frames/ --turns 10:12 --max-frames 30": "30 frames rendered offscreen",
    "tabletop estimate crater --trials 1000 --workers 2 --sensitivity --sensitivity-trials 200 --out crater.json "
    "--plot crater.png": "1,000 crater trials, and 200 at either end of every input's range",
    "tabletop estimate die --trials 2000 --workers 2 --uncertainty --out die.json": "4,000 die trials",
    "tabletop converge die --trials 1000 --workers 2 --out die-converge.json": "1,000 die trials per refinement",
    "tabletop estimate throw --set shape.kind=cylinder --set shape.radius=0.0125 --set shape.height=0.00885 "
    "--trials 2000": "2,000 throws",
    "tabletop validate --quick --workers 2": "every published experiment",
    "tabletop sweep crater --param materials.pairs.glass/polystyrene.friction=0.3:0.5:3 --trials 500 --workers 2 "
    "--out sweep.json --csv sweep.csv --plot sweep.png": "1,500 crater trials",
    "tabletop play king-of-the-hill --headless --seats ai,ai,ai,ai --seed 7": "a whole game, every tilt simulated",
    "python scripts/solve_knossos.py --matches 4000 --json docs/results/knossos-solved.json": "12,000 matches",
    "tabletop analyze king-of-the-hill --solve --policy koth-policy.npz":
        "King of the Hill solved twice (6.5 million positions, 4 minutes, 2 GB) where the cache lacks it",
    "tabletop analyze king-of-the-hill --games 4000 --seats solved,solved --workers 2 --seed 1":
        "4,000 games, after King of the Hill's solve where the cache lacks it",
    "tabletop analyze king-of-the-hill --games 4000 --seats solved,plan --workers 2 --seed 1":
        "4,000 games with a planner, after King of the Hill's solve where the cache lacks it",
    "tabletop play king-of-the-hill --headless --seats solved,plan --outcomes measured":
        "King of the Hill's solve where the cache lacks it",
    "python scripts/solve_koth.py --json docs/results/koth-solved.json":
        "King of the Hill solved four times and two strategies valued (minutes, 2.6 GB)",
    "tabletop bench --trials 60 --scaling-trials 600 --out bench.json": "every device, then 1,800 crater trials",
    "python scripts/check_pairs.py": "every material pair at three time steps",
}
# Python blocks (by the section they are in) that take minutes.
SLOW_PYTHON = {"Python API": "1,000 crater trials on 2 workers and 1,000 die trials, twice"}

DEFAULT_TIMEOUT = 180     # a default command that runs longer belongs in SLOW
SLOW_TIMEOUT = 3600

OUTPUT_OPTIONS = ("--out", "--record", "--plot", "--csv", "--json", "--screenshot", "--policy", "--frames")
PLACEHOLDER = re.compile(r"(?<![\w.-])[A-Z][A-Z0-9_]*\b|\.\.\.|\[|\||<")


def is_template(text: str) -> bool:
    """Synopsis syntax: `[optional]` parts, `a|b` alternatives, `...`, placeholders (GAME, FILE.json,
    N); a TOML list value (`--set 'knock.speed=[0.3,0.8]'`) and pip's extras (`'.[test]'`) are none."""
    text = re.sub(r"=\[[-+\d.,\s]*\]", "=", text)
    text = re.sub(r"\.\[[\w,-]+\]", ".", text)
    return bool(PLACEHOLDER.search(text))


DISPLAY_REASON = "opens the 3D window: needs a display and someone to close it"
INSTALL_REASON = "installs packages into this environment: not run (its extras are checked)"


# -- reading the README ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    line: int            # the line of the opening fence
    lang: str            # the fence's info string
    text: str
    section: str         # the nearest heading above


@dataclass
class Command:
    line: int
    text: str            # the line as printed (continuations joined)
    run: str             # what runs: the text without its comment and any `pip install ... &&`
    parts: list[list[str]]            # every `&&` part, split as the shell would
    kind: str = "default"             # default, slow, display, install
    reason: str = ""
    outputs: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)   # files an earlier README command writes
    needs: list["Command"] = field(default_factory=list)


def read_blocks(text: str | None = None) -> list[Block]:
    lines = (README.read_text() if text is None else text).splitlines()
    blocks, section, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        if line.startswith("```"):
            start, lang, body = i + 1, line[3:].strip(), []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append(Block(start, lang, "\n".join(body) + "\n", section))
        i += 1
    return blocks


def prose(text: str | None = None) -> str:
    """The README without its fenced blocks (their lines blanked, so line numbers hold)."""
    out, fenced = [], False
    for line in (README.read_text() if text is None else text).splitlines():
        if line.startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


def shell_lines(block: Block) -> list[tuple[int, str]]:
    """(line, command) for every command of an sh block, continuation lines joined."""
    out, pending, first = [], "", 0
    for k, line in enumerate(block.text.splitlines()):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            first = block.line + 1 + k
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append((first, (pending + line).strip()))
        pending = ""
    return out


def words(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars="&;|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:          # an unclosed quote: what the shell would refuse too
        return text.split()


def split_parts(text: str) -> list[str]:
    """A README line's commands as printed: its comment dropped, split at `&&` (only `&&` joins)."""
    body = text.split(" #", 1)[0].strip()
    return [piece.strip() for piece in body.split("&&") if piece.strip()]


def is_install(argv: list[str]) -> bool:
    return argv[:4] == ["python", "-m", "pip", "install"] or argv[:2] == ["pip", "install"]


def is_display(argv: list[str]) -> bool:
    if argv[:2] == ["tabletop", "play"]:
        return not {"--headless", "--screenshot"} & set(argv)
    if argv[:2] == ["tabletop", "replay"]:
        return not {"--summary", "--verify", "--frames"} & set(argv)
    return False


def option_value(argv: list[str], name: str) -> str | None:
    for k, w in enumerate(argv):
        if w == name and k + 1 < len(argv):
            return argv[k + 1]
        if w.startswith(name + "="):
            return w.split("=", 1)[1]
    return None


def outputs_of(argv: list[str]) -> list[str]:
    out = [v for name in OUTPUT_OPTIONS if (v := option_value(argv, name)) is not None]
    return out


def mentioned_files(argv: list[str]) -> list[str]:
    """Every word, and every file of a `table:` list, that could name a file."""
    found = []
    for w in argv[1:]:
        for piece in (w[6:].split(",") if w.startswith("table:") else [w]):
            found.append(piece)
    return found


def readme_commands(text: str | None = None) -> list[Command]:
    """Every command of every sh block, in README order, classified, with its inputs and the
    earlier commands that write them."""
    commands: list[Command] = []
    written: dict[str, Command] = {}
    for block in read_blocks(text):
        if block.lang != "sh":
            continue
        for line, cmd_text in shell_lines(block):
            pieces = split_parts(cmd_text)
            parts = [words(piece) for piece in pieces]
            runnable = [p for p in parts if not is_install(p)]
            run = " && ".join(piece for piece, p in zip(pieces, parts) if not is_install(p))
            cmd = Command(line, cmd_text, run, parts)
            if not runnable:
                cmd.kind, cmd.reason = "install", INSTALL_REASON
            elif any(is_display(p) for p in runnable):
                cmd.kind, cmd.reason = "display", DISPLAY_REASON
            elif run in SLOW:
                cmd.kind, cmd.reason = "slow", SLOW[run]
            for p in runnable:
                for name in mentioned_files(p):
                    if name in written and name not in outputs_of(p):
                        cmd.inputs.append(name)
                        if written[name] not in cmd.needs:
                            cmd.needs.append(written[name])
                cmd.outputs += outputs_of(p)
            if cmd.kind == "default" and any(n.kind == "slow" for n in cmd.needs):
                cmd.kind = "slow"
                cmd.reason = "reads " + ", ".join(cmd.inputs) + ", which a slow command writes"
            for name in cmd.outputs:
                written.setdefault(name, cmd)
            commands.append(cmd)
    return commands


# -- checking a command without running it ------------------------------------------------------
def parser():
    from tabletop.cli.parser import build_parser

    return build_parser()


def subparser(command: str):
    import argparse

    p = parser()
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            assert command in action.choices, f"`tabletop {command}`: no such command ({', '.join(action.choices)})"
            return action.choices[command]
    raise AssertionError("tabletop's parser has no subcommands")


def packaged(name: str) -> bool:
    from tabletop.gamekit.outcomes import packaged_table

    return packaged_table(name) is not None


def check_tabletop(argv: list[str], readable: set[str]) -> None:
    """The checks `tabletop ...` makes before any work, without doing the work. `readable`: the
    files earlier README commands write."""
    from tabletop.app import games
    from tabletop.app.requests import PlayRequest
    from tabletop.cli.parser import given_options
    from tabletop.sim.errors import InputError

    try:
        args = parser().parse_args(argv[1:])
    except (InputError, SystemExit) as exc:
        raise AssertionError(f"`{shlex.join(argv)}`: the parser refuses it: {exc}") from None

    def needs_file(name: str, what: str) -> None:
        assert name in readable or packaged(name) or name.startswith("/"), (
            f"`{shlex.join(argv)}`: {what} {name} is written by no earlier README command and is no packaged table")

    calibration = getattr(args, "calibration", None)
    if calibration is not None:
        needs_file(str(calibration), "--calibration")
    plot = getattr(args, "plot", None)
    if plot is not None:
        from tabletop.sim.output import plot_formats

        assert Path(plot).suffix[1:].lower() in plot_formats(), f"`{shlex.join(argv)}`: --plot {plot}: no format"
    try:
        if args.command == "play" and (args.resume is not None or args.continue_game):
            from tabletop.app.requests import ResumeRequest

            ResumeRequest(resume=args.resume, game=args.game, continue_game=args.continue_game,
                          from_turn=args.from_turn, seats=args.seats, headless=args.headless, record=args.record,
                          no_record=args.no_record)
            if args.resume is not None:
                needs_file(str(args.resume), "--resume")
        elif args.command == "play":
            _, _, seats = games.checked(PlayRequest(game=args.game, seats=args.seats or "ai,ai",
                                                    seed=args.seed or 0, outcomes=args.outcomes,
                                                    options=given_options(args)))
            if args.headless:
                assert "human" not in seats, f"`{shlex.join(argv)}`: a human seat needs the window"
            else:
                assert args.outcomes == "physics", f"`{shlex.join(argv)}`: the window simulates every chance event"
            if args.outcomes.startswith("table:"):
                for name in args.outcomes[6:].split(","):
                    needs_file(name, "--outcomes table")
            elif args.outcomes not in ("physics", "measured", "uniform"):
                raise AssertionError(f"`{shlex.join(argv)}`: unknown --outcomes {args.outcomes}")
        elif args.command in ("estimate", "converge", "sweep"):
            from tabletop.gamekit.devices import default_spec, make_device
            from tabletop.sim.spec import parse_overrides

            overrides = list(args.overrides)
            if args.command == "sweep":
                name, _, values = args.param.partition("=")
                overrides.append(f"{name}={values.split(':')[0]}")
            if args.spec is not None:
                needs_file(str(args.spec), "--spec")
            spec = args.spec if args.spec is not None and Path(args.spec).exists() else default_spec(args.device)
            make_device(args.device, spec, parse_overrides(overrides)).close()   # a refused --set fails here
            against = getattr(args, "against", None)
            if against not in (None, "uniform"):
                needs_file(against, "--against")
        elif args.command == "analyze":
            from tabletop.gamekit import analyze as an
            from tabletop.gamekit.registry import game_spec

            spec = game_spec(args.game)
            games.game_options(spec, given_options(args))
            if not args.solve:
                games.check_seats(spec, args.seats.split(","), an.seat_kinds(spec))
            for source in (args.outcomes, args.compare or "fair"):
                if source.startswith("table:"):
                    for name in source[6:].split(","):
                        needs_file(name, "--outcomes table")
        elif args.command == "replay":
            needs_file(str(args.file), "the replay")
    except InputError as exc:
        raise AssertionError(f"`{shlex.join(argv)}`: refused before any work: {exc}") from None


def check_script(argv: list[str], readable: set[str]) -> None:
    """`python scripts/X.py --opt ...`: the script exists and takes every option given."""
    assert len(argv) >= 2 and argv[1].startswith("scripts/"), f"`{shlex.join(argv)}`: not a script of scripts/"
    script = ROOT / argv[1]
    assert script.is_file(), f"`{shlex.join(argv)}`: {argv[1]} does not exist"
    source = script.read_text()
    for opt in (w.split("=")[0] for w in argv[2:] if w.startswith("--")):
        assert f'"{opt}"' in source, f"`{shlex.join(argv)}`: {argv[1]} takes no {opt}"


def check_install(argv: list[str]) -> None:
    target = argv[-1]
    assert re.fullmatch(r"\.(\[[\w,-]+\])?", target), f"`{shlex.join(argv)}`: installs {target!r}, not the checkout"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in re.findall(r"[\w-]+", target[2:-1]) if "[" in target else []:
        assert extra in extras, f"`{shlex.join(argv)}`: pyproject.toml has no extra {extra!r} ({', '.join(extras)})"


def check_argv(argv: list[str], readable: set[str]) -> None:
    if argv[0] == "tabletop":
        check_tabletop(argv, readable)
    elif is_install(argv):
        check_install(argv)
    elif argv[:3] == ["python", "-m", "pytest"]:
        assert (ROOT / "tests").is_dir()
    elif argv[0] == "python":
        check_script(argv, readable)
    else:
        raise AssertionError(f"`{shlex.join(argv)}`: a README command this test does not know how to run")


# -- running ---------------------------------------------------------------------------------------
def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"     # the installed `tabletop` and this `python`
    env["COLUMNS"] = "120"
    return env


def tail(text: str, n: int = 25) -> str:
    return "\n".join(text.splitlines()[-n:])


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """The README's folder (a new user's empty folder, shared by every command in order) and a
    folder laid out as a checkout for `python scripts/...` (the checkout's files linked, docs/results
    empty, so that nothing tracked is rewritten)."""
    work = tmp_path_factory.mktemp("readme")
    checkout = tmp_path_factory.mktemp("checkout")
    for entry in ROOT.iterdir():
        if entry.name in {"docs", "replays", "build"} or entry.name.startswith(".") or entry.suffix == ".egg-info":
            continue
        (checkout / entry.name).symlink_to(entry)
    (checkout / "docs" / "results").mkdir(parents=True)
    return {"work": work, "checkout": checkout, "done": set()}


def cwd_for(cmd: Command, folders) -> Path:
    """The checkout for `python -m pytest`, the checkout-like folder for `python scripts/...`, else
    the README's folder."""
    last = cmd.parts[-1]
    if last[:3] == ["python", "-m", "pytest"]:
        return ROOT
    if last[0] == "python":
        return folders["checkout"]
    return folders["work"]


def run_command(cmd: Command, folders) -> subprocess.CompletedProcess:
    for need in cmd.needs:          # the earlier commands that write this one's inputs
        if need.line not in folders["done"] and not all((cwd_for(need, folders) / o).exists() for o in need.outputs):
            run_command(need, folders)
    cwd = cwd_for(cmd, folders)
    timeout = DEFAULT_TIMEOUT if cmd.kind == "default" else SLOW_TIMEOUT
    try:
        done = subprocess.run(cmd.run, shell=True, cwd=cwd, env=environment(), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"README line {cmd.line}: `{cmd.run}` ran over {timeout} s"
                             + (": make it quicker or add it to SLOW" if cmd.kind == "default" else "")) from None
    assert done.returncode == 0, (f"README line {cmd.line}: `{cmd.run}` exited {done.returncode}\n"
                                  f"stdout:\n{tail(done.stdout)}\nstderr:\n{tail(done.stderr)}")
    for out in cmd.outputs:
        path = cwd / out
        assert path.exists(), f"README line {cmd.line}: `{cmd.run}` did not write {out}"
        if out.endswith("/"):
            assert any(path.iterdir()), f"README line {cmd.line}: `{cmd.run}` wrote nothing into {out}"
    folders["done"].add(cmd.line)
    return done


COMMANDS = readme_commands()


def command_params():
    params = []
    for cmd in COMMANDS:
        marks = {"slow": [pytest.mark.long], "display": [pytest.mark.display, pytest.mark.skip(reason=cmd.reason)],
                 "install": [pytest.mark.install, pytest.mark.skip(reason=cmd.reason)]}.get(cmd.kind, [])
        ident = f"L{cmd.line}:{cmd.run or cmd.text}"[:90]
        params.append(pytest.param(cmd, marks=marks, id=ident))
    return params


def all_command_params():
    return [pytest.param(cmd, id=f"L{cmd.line}:{cmd.text}"[:90]) for cmd in COMMANDS]


# -- the tests -------------------------------------------------------------------------------------
def test_every_fenced_block_says_what_it_is():
    """sh (commands that run), python (code that runs) or text (a synopsis or a listing): a block
    that names no kind is one this test would not check."""
    kinds = {"sh", "python", "text"}
    blocks = read_blocks()
    assert blocks, "README.md has no fenced blocks?"
    bad = [f"line {b.line - 1}: ```{b.lang}" for b in blocks if b.lang not in kinds]
    assert not bad, "fenced blocks of no known kind (use ```sh, ```python or ```text):\n" + "\n".join(bad)


def test_sh_blocks_hold_only_runnable_commands():
    """A command block holds commands as a user types them: no `[optional]` parts, no `a|b`
    alternatives, no placeholders (GAME, FILE, N): those go into a ```text "usage:" synopsis."""
    bad = [f"line {cmd.line}: `{piece}`" for cmd in COMMANDS for piece in split_parts(cmd.text)
           if is_template(piece) or {";", "&", "||"} & set(words(piece))]
    assert not bad, "synopsis syntax in a command block (move it to a ```text usage: block):\n" + "\n".join(bad)


@pytest.mark.parametrize("cmd", all_command_params())
def test_a_command_is_accepted_before_it_runs(cmd):
    """Every README command, the slow, window and install ones too: the command's own parser and
    pre-work checks accept it, and every file it reads is written by an earlier README command."""
    readable = set()
    for other in COMMANDS:
        if other.line < cmd.line:
            readable.update(other.outputs)
    for argv in cmd.parts:
        check_argv(argv, readable)


@pytest.mark.slow
@pytest.mark.parametrize("cmd", command_params())
def test_a_command_runs_as_printed(cmd, folders):
    run_command(cmd, folders)


def test_slow_entries_are_readme_commands():
    """SLOW names only commands the README prints (a changed README command leaves no stale entry
    behind, and a new one runs by default until it proves slow)."""
    printed = {c.run for c in COMMANDS}
    stale = [c for c in SLOW if c not in printed]
    assert not stale, "SLOW entries the README no longer prints:\n" + "\n".join(stale)


def test_no_default_command_needs_a_slow_one():
    for cmd in COMMANDS:
        if cmd.kind == "default":
            assert all(n.kind == "default" for n in cmd.needs), cmd.text


# -- synopses and listings ------------------------------------------------------------------------
def usage_entries(block: Block) -> list[tuple[int, str]]:
    entries = []
    for k, line in enumerate(block.text.splitlines()):
        if line.startswith("usage: "):
            entries.append((block.line + 1 + k, line[len("usage: "):]))
        elif line.strip() and entries and line.startswith(" "):
            entries[-1] = (entries[-1][0], entries[-1][1] + " " + line.strip())
        elif line.strip():
            raise AssertionError(f"README line {block.line + 1 + k}: a synopsis line that is neither "
                                 f"`usage: ...` nor an indented continuation: {line!r}")
    return entries


def check_synopsis(text: str, where: str) -> None:
    """A synopsis: its command exists and `tabletop CMD --help` lists every option it names."""
    m = re.match(r"tabletop\s+([a-z-]+)", text)
    assert m, f"{where}: a synopsis starts `tabletop CMD`: {text!r}"
    help_text = subparser(m.group(1)).format_help()
    known = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", help_text))
    unknown = [opt for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text) if opt not in known]
    assert not unknown, f"{where}: `tabletop {m.group(1)} --help` has no {', '.join(unknown)}: {text!r}"


def text_blocks():
    return [pytest.param(b, id=f"L{b.line}:{b.section}"[:60]) for b in read_blocks() if b.lang == "text"]


@pytest.mark.parametrize("block", text_blocks())
def test_a_text_block_is_a_synopsis_or_a_true_listing(block):
    if block.text.lstrip().startswith("usage:"):
        for line, entry in usage_entries(block):
            check_synopsis(entry, f"README line {line}")
    else:
        folders = re.findall(r"^([\w.-]+)/\s", block.text, re.M)
        assert folders, f"README line {block.line}: a text block that is neither a synopsis nor a listing of folders"
        missing = [f for f in folders if not (ROOT / f).is_dir()]
        assert not missing, f"README line {block.line}: the listing names folders the checkout lacks: {missing}"


def inline_commands() -> list[tuple[int, str]]:
    """Every inline code span of the prose and tables that is a command: (line, text)."""
    text = prose()
    found = []
    for m in re.finditer(r"`([^`]+)`", text):
        span = re.sub(r"\s+", " ", m.group(1).replace("\\|", "|")).strip()
        if re.match(r"(tabletop|python scripts/|python -m|pip install|python -m pip)( |$)", span):
            found.append((text.count("\n", 0, m.start()) + 1, span))
    return found


@pytest.mark.parametrize("line,span", [pytest.param(*c, id=f"L{c[0]}:{c[1]}"[:90]) for c in inline_commands()])
def test_an_inline_command_is_accepted(line, span):
    """An inline span: `tabletop CMD` names a command; a synopsis one (`a|b`, `[...]`, GAME, FILE)
    names only options `tabletop CMD --help` lists; a concrete one is checked like a fenced command
    (its parser and pre-work checks; it is not run)."""
    if span.startswith("tabletop"):
        argv = span.split()
        if is_template(" ".join(argv[2:])):
            check_synopsis(span, f"README line {line}")
        elif len(argv) <= 2 or argv[-1] in ("--help", "-h"):
            if len(argv) == 2:
                subparser(argv[1])
        else:
            check_tabletop(words(span), readable={o for c in COMMANDS for o in c.outputs})
    else:
        check_argv(words(span), set())


# -- Python blocks ----------------------------------------------------------------------------------
def python_blocks():
    params = []
    for b in read_blocks():
        if b.lang != "python":
            continue
        marks = [pytest.mark.long] if b.section in SLOW_PYTHON else []
        params.append(pytest.param(b, marks=marks, id=f"L{b.line}:{b.section}"))
    return params


def all_python_blocks():
    return [pytest.param(b, id=f"L{b.line}:{b.section}") for b in read_blocks() if b.lang == "python"]


class _Parsed(Exception):
    pass


def _dotted(node) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _catches_value_error(tree, call) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(call in ast.walk(s) for s in node.body):
            return any(h.type is not None and _dotted(h.type) in {"ValueError", "tabletop.InputError"}
                       for h in node.handlers)
    return False


@pytest.mark.parametrize("block", all_python_blocks())
def test_a_python_block_compiles_and_its_calls_are_accepted(block, monkeypatch):
    """Without running anything: the block compiles, and every tabletop.estimate / tabletop.play call
    with literal arguments is accepted by the command's parser and pre-work checks (a --set its device
    refuses, a seat or an --outcomes the game does not take fails here); a call inside `try: ...
    except ValueError` must be refused."""
    tree = ast.parse(block.text)
    compile(tree, f"README line {block.line}", "exec")
    import tabletop
    from tabletop.app import estimate, games
    from tabletop.gamekit.outcomes import play_outcomes
    from tabletop.sim.errors import InputError

    def stop_estimate(request, reporter=None):
        estimate.device_of(request)[2].close()    # the device, its spec and every --set, as the job makes them
        if request.against not in (None, "uniform"):
            estimate.reference(request.against, request.device, ())
        raise _Parsed

    def stop_play(request, emit=None, human=None):
        definition, _, seats = games.checked(request)
        play_outcomes(definition, request.outcomes)
        raise _Parsed

    monkeypatch.setattr(estimate, "estimate", stop_estimate)
    monkeypatch.setattr(games, "play", stop_play)
    written = set()
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        name = _dotted(call.func)
        if name not in ("tabletop.estimate", "tabletop.play", "tabletop.open_replay"):
            continue
        try:
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except ValueError:
            continue
        where = f"README line {block.line + call.lineno}: {ast.unparse(call)}"
        if name == "tabletop.open_replay":
            assert str(args[0]) in written, f"{where}: no earlier call of the block writes {args[0]}"
            continue
        if "record" in kwargs:
            written.add(str(kwargs["record"]))
        refused = _catches_value_error(tree, call)
        try:
            getattr(tabletop, name.split(".")[1])(*args, **kwargs)
        except _Parsed:
            assert not refused, f"{where}: accepted, though the README shows it refused"
        except InputError as exc:
            assert refused, f"{where}: refused: {exc}"
        else:
            raise AssertionError(f"{where}: ran to its end without reaching the command's code")


CELL = ("import sys\n"
        "namespace = {'__name__': '__main__'}\n"
        "exec(compile(open(sys.argv[1]).read(), 'README cell', 'exec'), namespace)\n")


@pytest.mark.slow
@pytest.mark.parametrize("block", python_blocks())
@pytest.mark.parametrize("how", ["script", "notebook"])
def test_a_python_block_runs(block, how, tmp_path):
    """As a script file (`python example.py`, from an empty folder), and as a notebook runs a cell:
    its code exec'd in a fresh namespace with __name__ == "__main__", in a process whose main module
    is no file (as a notebook kernel's)."""
    if "tabletop.gamekit.env" in block.text:
        pytest.importorskip("pettingzoo")
    code = tmp_path / "example.py"
    code.write_text(block.text)
    argv = [sys.executable, "example.py"] if how == "script" else [sys.executable, "-c", CELL, "example.py"]
    timeout = SLOW_TIMEOUT if block.section in SLOW_PYTHON else DEFAULT_TIMEOUT
    done = subprocess.run(argv, cwd=tmp_path, env=environment(), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (f"README line {block.line} ({block.section}) as a {how}: exit {done.returncode}\n"
                                  f"stdout:\n{tail(done.stdout)}\nstderr:\n{tail(done.stderr)}")
    assert len(done.stderr.splitlines()) < 5, f"as a {how}, it says on stderr:\n{tail(done.stderr)}"
