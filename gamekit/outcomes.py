"""Where a game's chance comes from, as `--outcomes` names it: `measured` (the published tables the
package holds), `table:FILE.json[,FILE.json]` (a bare name such as sticks-10k-seed1.json that is no
file here names a packaged table), or a source of the game's own (physics, ...)."""
from __future__ import annotations

from pathlib import Path

from tabletop.sim.errors import InputError


def packaged_table(name: str) -> Path | None:
    """The packaged measured table (assets/measured) that `name` names (`sticks-10k-seed1.json`,
    with or without `.json` or a leading `assets/measured/`), or None."""
    from tabletop.sim.paths import assets_dir

    if Path(name).parent not in (Path("."), Path("assets/measured")):
        return None
    folder = assets_dir() / "measured"
    base = Path(name).name
    for candidate in (base, base + ".json"):
        if base and (folder / candidate).is_file():
            return folder / candidate
    return None


def resolve_tables(outcomes: str) -> str:
    """An --outcomes `table:FILE.json[,FILE.json]` whose files that are no path from here but name a
    packaged measured table are given as that table's path; any other text unchanged."""
    if not outcomes.startswith("table:"):
        return outcomes
    files = []
    for f in outcomes[6:].split(","):
        packaged = packaged_table(f) if f and not Path(f).exists() else None
        files.append(str(packaged) if packaged is not None else f)
    return "table:" + ",".join(files)


def play_outcomes(definition, outcomes: str) -> str:
    """`play`'s --outcomes as the game's sources take it: `measured` (as analyze's default: the
    published tables in the package's assets/measured) becomes `table:` those files."""
    from tabletop.gamekit.chance import measured_paths

    if outcomes == "measured":
        if not definition.devices:
            raise InputError(f"--outcomes measured: {definition.name} has no measured tables")
        return "table:" + ",".join(str(p) for p in measured_paths(definition.devices))
    return resolve_tables(outcomes)
