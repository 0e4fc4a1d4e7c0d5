"""A calibration file used downstream: `--calibration FILE` of estimate, play and analyze (the
file is `tabletop calibrate --out`'s; tabletop.gamekit.chance reads and checks it, for every
consumer).

- estimate: every trial takes one row of the file's posterior draws of the fitted values (and the
  other pair values drawn from their ranges: tabletop.gamekit.chance.calibration_draws), so the run
  estimates the calibrated copy's odds; the result's `calibration` block names the file and gives
  each fitted value's posterior and each label's calibrated band.
- play and analyze: the file's calibrated tables (its posterior predictive odds) replace the tables
  of the devices it calibrates, every other device's table unchanged. The file joins the `table:`
  files of the chance (tabletop.gamekit.chance reads its tables there), so workers, a Dask cluster,
  a checkpoint's digest, a recorded game's --outcomes and `play --resume` all carry it.

`estimate` here is the estimate job with the request's calibration opened (tabletop.app.estimate.
estimate takes it opened: tabletop.app.calibrate builds on tabletop.app.estimate, so that module
cannot open one itself).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tabletop.sim.errors import InputError

DRAW_DOC = ("each trial takes one row of the calibration's posterior draws of the fitted values (a stream of "
            "its own), the other material pair values drawn uniformly from their ranges")


@dataclass(frozen=True)
class Calibration:
    """An opened, checked calibration file: its data, digest and calibrated tables."""

    path: Path
    sha256: str
    data: dict
    tables: dict[str, dict[str, float]]      # {device: {label: p}}: the calibrated copy's odds

    @property
    def devices(self) -> list[str]:
        """The devices it calibrates."""
        return list(self.data.get("devices") or [self.data.get("device")])

    @property
    def digest(self) -> str:
        """The short digest a checkpoint keeps (another file is another run)."""
        return self.sha256[:16]

    def check_device(self, device: str) -> None:
        if device not in self.devices:
            raise InputError(f"--calibration {self.path}: it calibrates {', '.join(self.devices)}, not {device}")

    def draws(self, pairs):
        """The per-trial perturbation of a run of the calibrated copy on a world of `pairs`."""
        from tabletop.gamekit.chance import calibration_draws

        return calibration_draws(self.data, pairs, self.path)

    def calibrated_config(self, device: str) -> dict | None:
        """The configuration at which the file calibrated `device`: {"params": the device's
        parameters, "set": its --set values} (None where the file does not say)."""
        blocks = [self.data] + list(self.data.get("joint") or [])
        for block in blocks:
            if block.get("device") == device and "params" in block:
                return {"params": block["params"], "set": block.get("overrides") or {}}
        return None

    def estimate_block(self, device: str, names, config: dict | None = None) -> dict:
        """An estimate result's `calibration` block: the file, what it calibrates, the fitted values
        the trials drew (`names`) with their posteriors, and each label's calibrated p and band. The
        bands belong to the configuration calibrated: given the run's `config` (as
        `calibrated_config` gives it), a run of another configuration (another shape, throw or --set
        value) gets no band, and `band_note` says which of its values differ."""
        predictive = self.data.get("predictive", {}).get(device) or {}
        bands = {label: {"p": float(v["p"]), "ci95": [float(x) for x in v["ci95"]]} for label, v in predictive.items()}
        block = {"file": str(self.path), "sha256": self.sha256, "devices": self.devices, "draw": DRAW_DOC,
                 "parameters": [{k: p.get(k) for k in ("name", "default", "low", "high", "prior", "posterior")}
                                for p in self.data.get("parameters", []) if p.get("name") in names],
                 "bands": bands}
        calibrated = self.calibrated_config(device)
        if config is not None and calibrated is not None and bands:
            differ = differing(calibrated, json.loads(json.dumps(config)))
            if differ:
                def said(value):
                    return "the spec's value" if value is None else repr(value)

                shown = ", ".join(f"{k.split('.', 1)[1]} {said(a)} here, {said(b)} calibrated"
                                  for k, (b, a) in list(differ.items())[:3])
                more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
                block["bands"] = {}
                block["band_note"] = (f"no calibrated band: the calibration fitted another configuration of {device} "
                                      f"({shown}{more}); its band is not this run's")
        return block

    def game_block(self) -> dict:
        """What an analyze result keeps of it: the file, its digest, the devices and fitted values,
        and the calibrated tables used."""
        return {"file": str(self.path), "sha256": self.sha256, "devices": self.devices,
                "parameters": [p.get("name") for p in self.data.get("parameters", [])], "tables": self.tables}


def differing(a: dict, b: dict, prefix: str = "") -> dict[str, tuple]:
    """{dotted key: (value in a, value in b)} of every leaf where two nested dicts differ."""
    out = {}
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if isinstance(x, dict) and isinstance(y, dict):
            out.update(differing(x, y, f"{prefix}{key}."))
        elif x != y:
            out[f"{prefix}{key}"] = (x, y)
    return out


def open_calibration(path) -> Calibration:
    """The calibration file at `path`, checked (InputError, one line, naming --calibration)."""
    from tabletop.gamekit.chance import calibration_tables, file_digest, load_calibration

    data = load_calibration(path)
    tables = calibration_tables(data, f"--calibration {path}")
    resolved = Path(path).resolve()
    return Calibration(resolved, file_digest(resolved), data, tables)


def estimate(request, reporter=None):
    """The estimate job (tabletop.app.estimate.estimate) with the request's --calibration opened:
    what both front ends call."""
    from tabletop.app.estimate import estimate as run

    if request.calibration is None:
        return run(request, reporter)
    return run(request, reporter, calibration=open_calibration(request.calibration))


def check_game(calibration: Calibration, definition) -> None:
    """A calibration checked against a game: every device it calibrates is one of the game's
    (else one line naming the game's devices)."""
    used = tuple(definition.devices)
    foreign = [d for d in calibration.devices if d not in used]
    if foreign:
        raise InputError(f"--calibration {calibration.path.name}: it calibrates {', '.join(foreign)}, which "
                         f"{definition.name} does not use (its devices: {', '.join(used) or 'none'})")


def calibrated_outcomes(definition, outcomes: str, calibration_path) -> tuple[str, Calibration | None]:
    """(the --outcomes text a game's chance is built from, the opened calibration or None): with
    a calibration, a table source (`measured` or `table:...`, as resolved) with the file added to its
    files; any other source with a calibration is one line saying to use table outcomes."""
    if calibration_path is None:
        return outcomes, None
    if not outcomes.startswith("table:"):
        raise InputError(f"--calibration: with --outcomes measured or table:FILE.json (play of a calibrated "
                         f"copy samples its calibrated tables), not {outcomes}"
                         + ("; physics play of a calibrated copy is not wired yet" if outcomes == "physics"
                            else ""))
    calibration = open_calibration(calibration_path)
    check_game(calibration, definition)
    return f"{outcomes},{calibration.path}", calibration
