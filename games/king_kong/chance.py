"""The outcome sources King Kong needs beside the shared ones (his physics is source.py's).

Any source works once wrapped in `ShuffleSource`, which answers the deck's shuffles; the die and
the spinner's circles come from measured tables (`TableOutcomes`) or a script, and Kong's move from
a kong-knockover estimate (`KnockoverTable`), a script or, later, the physics.

A spinner estimate gives the outer circle in "probabilities" and both circles in "circles"
({"outer": {"probabilities": ...}, "inner": {"probabilities": ...}}); a file whose labels are
"OUTER/INNER" pairs, or one file per circle ("device": "spin-outer" / "spin-inner"), works too.

A kong-knockover estimate is a `tabletop estimate` JSON file with "device": "kong-knockover" and
"by_group": {GROUP: {FATE: p or {"p": p}}}, FATE one of standing, knocked, pushed (or an estimate's
group blocks, {GROUP: {"labelled": n, "probabilities": {FATE: {"p": p}}}}, and its "by_place" and
"by_twist" blocks, read as groups "<where>", "groove" and "groove/<twist>"). A GROUP is
"<where>/<twist>" or just "<where>": <where> is a groove (left_hand, right_hand, left_foot,
right_foot), "groove" (any groove) or "adjacent" (a pawn on a window space near Kong's path);
<twist> is the twist of the move, "0", "L1".."L11" or "R1".."R11" (a "return to up" may go the
long way round). A pawn's fate is drawn from the
first group found among "<groove or adjacent>/<twist>", (for a pawn in a groove) "groove/<twist>",
"<groove or adjacent>", (in a groove) "groove", and last the file's overall "probabilities": the
twist says more about a pawn's fate than which groove it is in.

A calibration file among the table files (`--calibration FILE`: tabletop.gamekit.chance) replaces the
die's and the spinner's outer circle's tables with its calibrated ones; a calibrated kong-knockover
(the fates' overall odds of the calibrated copy) tilts the kong-knockover table: every group's odds
times one factor per fate, the factors those under which the estimate's own mix of places and twists
(its finest groups' labelled trials, each drawn as the table draws it) gives the calibrated overall
odds (`KnockoverTable.tilted`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import numpy as np

from tabletop.gamekit.chance import (Cumulative, OutcomeSource, TableOutcomes, calibration_tables, is_calibration,
                                     load_estimate_table)
from tabletop.games.king_kong.labels import COLOURS, DIE_LABELS, FATES, INNER_LABELS, NO_RISK, OUTER_LABELS
from tabletop.sim.errors import InputError

__all__ = ["ShuffleSource", "KnockoverTable", "uniform_source", "table_source", "UNIFORM_KNOCKOVER"]

KNOCKOVER_DEVICE = "kong-knockover"
MIN_GROUP_LABELLED = 20        # an estimate's group with fewer labelled trials falls back to a wider group
SPINNER_SEPARATORS = ("/", "|", "+")
# The stand-in's fixed knock-over rates (invented, not measured): a pawn in a groove is dragged by
# Kong's hand or foot; a pawn beside his path is only brushed.
UNIFORM_KNOCKOVER = {"groove": {"standing": 0.55, "knocked": 0.30, "pushed": 0.15},
                     "adjacent": {"standing": 0.85, "knocked": 0.10, "pushed": 0.05}}
UNIFORM_DESCRIPTION = ("uniform: a stand-in, NOT physics: die faces and spinner sectors equally likely, "
                       "a pawn in a groove stands 55% / knocked over 30% / pushed out 15%, "
                       "a pawn near Kong's path 85% / 10% / 5%")


class ShuffleSource(OutcomeSource):
    """Answers "shuffle" with a uniformly random order of the pile, from the Generator it is given;
    every other event goes to the wrapped source."""

    def __init__(self, inner: OutcomeSource):
        self.inner = inner

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        if event == "shuffle":
            pile = state.shuffle_pile()
            return " ".join(str(pile[i]) for i in rng.permutation(len(pile)))
        return self.inner.outcome(event, state, rng)

    def wrapped(self) -> OutcomeSource:
        return self.inner

    def close(self) -> None:
        self.inner.close()


class KnockoverTable(OutcomeSource):
    """Answers "kong-move" by drawing each pawn's fate from a kong-knockover table (see the module
    docstring); every other event goes to `fallback`, or is an error."""

    def __init__(self, by_group: dict[str, dict[str, float]], overall: dict[str, float] | None = None,
                 fallback: OutcomeSource | None = None):
        self.groups = {g: _fate_table(p) for g, p in by_group.items()}
        self.overall = _fate_table(overall) if overall else None
        self.fallback = fallback

    def wrapped(self) -> OutcomeSource | None:
        return self.fallback

    @classmethod
    def from_file(cls, path: str | Path, fallback: OutcomeSource | None = None) -> "KnockoverTable":
        by_group, overall = load_knockover_table(path)
        return cls(by_group, overall, fallback)

    def tilted(self, overall: dict[str, float], weights: dict[str, float]) -> "KnockoverTable":
        """The table of a calibrated copy whose fates' overall odds are `overall`: every group's odds
        times one factor per fate (renormalised), the factors those under which the mix `weights`
        ({"<where>/<twist>": trials}: the places and twists the overall odds average over; {}: the
        table's overall odds alone) gives `overall` from the odds this table draws each of them from."""
        if weights:
            mix = [(self._lookup(*_where_twist(key))[0], w) for key, w in weights.items()]
        else:
            mix = [(self.overall[0], 1.0)] if self.overall else [(p, 1.0) for p, _ in self.groups.values()]
        w = tilt_factors(mix, overall)
        groups = {}
        for g, (p, _) in self.groups.items():
            q = p * w
            groups[g] = dict(zip(FATES, (q if q.sum() > 0 else p).tolist()))
        return KnockoverTable(groups, {f: float(overall.get(f, 0.0)) for f in FATES}, self.fallback)

    def fate_probabilities(self, risk, twist_key: str) -> np.ndarray:
        """P(standing, knocked, pushed) for a pawn at risk (an AtRisk) in a move with this twist."""
        return self._fates(risk, twist_key)[0]

    def _fates(self, risk, twist_key: str) -> tuple[np.ndarray, Cumulative]:
        return self._lookup(risk.group, risk.in_groove, twist_key)

    def _lookup(self, group: str, in_groove: bool, twist_key: str) -> tuple[np.ndarray, Cumulative]:
        keys = [f"{group}/{twist_key}"]
        keys += [f"groove/{twist_key}", group, "groove"] if in_groove else [group]
        for key in keys:
            if key in self.groups:
                return self.groups[key]
        if self.overall is None:
            raise RuntimeError(f"the kong-knockover table has no group for {keys[0]} (nor {', '.join(keys[1:])})")
        return self.overall

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        if event != "kong-move":
            if self.fallback is None:
                raise RuntimeError(f"no source for the {event}")
            return self.fallback.outcome(event, state, rng)
        move = state.kong_move
        if not move.at_risk:
            return NO_RISK
        tokens = []
        for risk in move.at_risk:
            fate = self._fates(risk, move.twist_key)[1].draw(rng)
            tokens.append(f"{COLOURS[risk.player]}:{fate}")
        return " ".join(tokens)


def _fate_table(probs: dict[str, float]) -> tuple[np.ndarray, Cumulative]:
    """A group's P(standing, knocked, pushed), and the same made ready to draw from."""
    p = np.array([float(probs.get(f, 0.0)) for f in FATES])
    p = p / p.sum()
    return p, Cumulative(FATES, p)


def load_knockover_table(path: str | Path) -> tuple[dict[str, dict[str, float]], dict[str, float] | None]:
    """(by_group, overall probabilities or None) from a kong-knockover estimate; a bad file is an InputError."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
        raw = dict(data.get("by_place", {}))   # `tabletop estimate kong-knockover`: fates by place, any twist,
        raw.update(data.get("by_twist", {}))   # and for any groove by twist
        raw.update(data["by_group"])
        by_group = {str(g): {str(f): float(v["p"] if isinstance(v, dict) else v) for f, v in fates.items()}
                    for g, fates in ((g, _fates_of(probs)) for g, probs in raw.items()) if fates is not None}
        overall = ({str(f): float(v["p"] if isinstance(v, dict) else v) for f, v in data["probabilities"].items()}
                   if "probabilities" in data else None)
    except FileNotFoundError:
        raise InputError(f"outcome table not found: {path}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise InputError(f"{path}: not a kong-knockover estimate (needs by_group: {{GROUP: {{FATE: p}}}})") from None
    for group, probs in list(by_group.items()) + ([("probabilities", overall)] if overall else []):
        bad = sorted(set(probs) - set(FATES))
        if bad:
            raise InputError(f"{path}: by_group.{group}: unknown fate {bad[0]!r}; fates are {', '.join(FATES)}")
        if not probs or min(probs.values()) < 0 or sum(probs.values()) <= 0:
            raise InputError(f"{path}: by_group.{group}: its probabilities are empty or invalid")
    if not by_group and not overall:
        raise InputError(f"{path}: by_group is empty")
    return by_group, overall


def knockover_weights(path: str | Path) -> dict[str, float]:
    """The places and twists a kong-knockover estimate's overall odds average over: its finest
    groups ("<where>/<twist>", by_group) and their labelled trials; {} for a table that does not
    count them (written by hand)."""
    data = json.loads(Path(path).read_text())
    return {str(g): float(block["labelled"]) for g, block in (data.get("by_group") or {}).items()
            if isinstance(block, dict) and block.get("labelled") and "/" in str(g)}


def _where_twist(key: str) -> tuple[str, bool, str]:
    """(group, in a groove, twist) of a finest group's key "<where>/<twist>"."""
    where, _, twist = key.partition("/")
    return where, where != "adjacent", twist


def tilt_factors(mix: list[tuple[np.ndarray, float]], overall: dict[str, float]) -> np.ndarray:
    """One factor per fate (FATES' order) such that the groups of `mix` (fate odds, weight), each
    times the factors and renormalised, average (by weight) to `overall`, as near as they can
    (iterative proportional fitting; a fate no group has stays out)."""
    P = np.array([p / p.sum() for p, _ in mix])
    n = np.array([w for _, w in mix], float)
    n = n / n.sum()
    target = np.array([float(overall.get(f, 0.0)) for f in FATES])
    target = target / target.sum()
    w = np.ones(len(FATES))
    for _ in range(2000):
        q = P * w
        q = q / np.where(q.sum(axis=1, keepdims=True) > 0, q.sum(axis=1, keepdims=True), 1.0)
        m = n @ q
        if np.abs(m - target).max() < 1e-12:
            break
        w = w * np.divide(target, m, out=np.zeros_like(target), where=m > 0)
    return w / w.max()


def _fates_of(group: dict) -> dict:
    """A group's fate probabilities: {FATE: p} as written by hand, or an estimate's group block
    ({"trials", "labelled", "counts", "probabilities": {FATE: {"p", "ci95"}}}); None for an estimate's
    group with fewer than MIN_GROUP_LABELLED labelled trials (left out: too few to say, the lookup
    falls back to a wider group)."""
    if "probabilities" in group and isinstance(group["probabilities"], dict):
        return group["probabilities"] if group.get("labelled", MIN_GROUP_LABELLED) >= MIN_GROUP_LABELLED else None
    return group


def die_table(probs: dict[str, float], path) -> dict[str, float]:
    """The die's table from an estimate or a calibration: every label a die face."""
    bad = sorted(set(probs) - set(DIE_LABELS))
    if bad:
        raise InputError(f"{path}: {bad[0]!r} is not a die face")
    return probs


def spinner_tables(device: str, probs: dict[str, float], path) -> dict[str, dict[str, float]]:
    """The spinner's two circles from an estimate: labels "OUTER/INNER" (one sector, read on each
    circle; each circle's odds are the marginals), or labels of one circle only."""
    if device in ("spin-outer", "spin-inner"):
        return {device: probs}
    outer: dict[str, float] = {}
    inner: dict[str, float] = {}
    for label, p in probs.items():
        sep = next((s for s in SPINNER_SEPARATORS if s in label), None)
        if sep is not None:
            a, _, b = label.partition(sep)
            outer[a.strip()] = outer.get(a.strip(), 0.0) + p
            inner[b.strip()] = inner.get(b.strip(), 0.0) + p
        elif label in OUTER_LABELS:
            outer[label] = p
        elif label in INNER_LABELS:
            inner[label] = p
        else:
            raise InputError(f"{path}: spinner label {label!r} is neither OUTER/INNER nor a circle's label")
    for name, table, vocab in (("outer", outer, OUTER_LABELS), ("inner", inner, INNER_LABELS)):
        bad = sorted(set(table) - set(vocab))
        if bad:
            raise InputError(f"{path}: {bad[0]!r} is not a label of the spinner's {name} circle "
                             f"({', '.join(vocab)})")
    return {k: v for k, v in (("spin-outer", outer), ("spin-inner", inner)) if v}


def spinner_circles(circles: dict, path) -> dict[str, dict[str, float]]:
    """Both circles from a spinner estimate's "circles" block (`tabletop estimate spinner`)."""
    out = {}
    for name, event, vocab in (("outer", "spin-outer", OUTER_LABELS), ("inner", "spin-inner", INNER_LABELS)):
        try:
            probs = {str(k): float(v["p"]) for k, v in circles[name]["probabilities"].items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InputError(f"{path}: circles.{name}: expected probabilities of the {name} circle") from None
        bad = sorted(set(probs) - set(vocab))
        if bad:
            raise InputError(f"{path}: circles.{name}: {bad[0]!r} is not a label of the spinner's {name} circle")
        if sum(probs.values()) <= 0 or min(probs.values()) < 0:
            raise InputError(f"{path}: circles.{name}: its probabilities are empty or invalid")
        out[event] = probs
    return out


def table_source(paths: Iterable[str | Path]) -> ShuffleSource:
    """A source from saved estimates: a die table, a spinner table (or one per circle) and a
    kong-knockover table."""
    tables: dict[str, dict[str, float]] = {}
    knock: KnockoverTable | None = None
    knock_path = None
    calibrations = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text())
            device = data.get("device")
        except FileNotFoundError:
            raise InputError(f"outcome table not found: {path}") from None
        except (OSError, ValueError, AttributeError):
            raise InputError(f"{path}: not a tabletop estimate result") from None
        if is_calibration(data):
            calibrations.append((path, calibration_tables(data, path)))   # after every table: they replace
            continue
        if device == KNOCKOVER_DEVICE:
            knock, knock_path = KnockoverTable.from_file(path), path
            continue
        ((device, probs),) = load_estimate_table(path).items()
        if device == "die":
            tables["die"] = die_table(probs, path)
        elif device == "spinner" and isinstance(data.get("circles"), dict):
            tables.update(spinner_circles(data["circles"], path))
        elif device in ("spinner", "spin-outer", "spin-inner"):
            tables.update(spinner_tables(device, probs, path))
        else:
            raise InputError(f"--outcomes: a {device} table does not answer King Kong events")
    measured = knock
    for path, calibrated in calibrations:
        for device, probs in calibrated.items():
            if device == KNOCKOVER_DEVICE:
                if measured is None:
                    raise InputError(f"{path}: a calibrated kong-knockover tilts a kong-knockover table: give one "
                                     f"too")
                knock = measured.tilted(probs, knockover_weights(knock_path))
            elif device == "die":
                tables["die"] = die_table(probs, path)
            elif device in ("spinner", "spin-outer", "spin-inner"):
                tables.update(spinner_tables(device, probs, path))
            else:
                raise InputError(f"--outcomes: {path} calibrates {device}, which answers no King Kong event")
    missing = [e for e in ("die", "spin-outer", "spin-inner") if e not in tables]
    if knock is None:
        missing.append(KNOCKOVER_DEVICE)
    if missing:
        raise InputError(f"--outcomes: King Kong needs die, spinner and kong-knockover tables; missing: "
                         f"{', '.join(missing)}")
    knock.fallback = TableOutcomes(tables)
    return ShuffleSource(knock)


class EvenOdds(OutcomeSource):
    """Every label of the die and of each spinner circle equally likely."""

    LABELS = {"die": DIE_LABELS, "spin-outer": OUTER_LABELS, "spin-inner": INNER_LABELS}

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        labels = self.LABELS.get(event)
        if labels is None:
            raise RuntimeError(f"no even odds for the {event}")
        return labels[int(rng.integers(len(labels)))]


def uniform_source() -> ShuffleSource:
    """The documented stand-in for the physics (see UNIFORM_DESCRIPTION): not a measurement."""
    return ShuffleSource(KnockoverTable(UNIFORM_KNOCKOVER, fallback=EvenOdds()))
