"""Calibration of a device's uncertain material values to tallies from a real copy (generic: it is
handed draws, labels and tallies, never a device's name).

The method (DESIGN.md, "Calibration"):

1. Training data: trials whose material pair values are drawn per trial from their documented
   ranges, exactly as `estimate --uncertainty` draws them (tabletop.sim.batch.PairDraws); each
   trial keeps its drawn values and its label.
2. A surrogate of p(label | theta), theta the parameters being fitted (the others stay drawn per
   trial, so the surrogate is their average over the prior): a multinomial logistic regression
   on cubic B-splines of each parameter (plus their pairwise products), fitted by penalised maximum
   likelihood with a second-difference penalty on each spline's coefficients (P-splines, Eilers &
   Marx 1996), the penalty's weight chosen by 5-fold cross-validated log loss. Why: the labels are
   categorical, so the multinomial logit is the natural link; the probabilities are smooth in the
   material values but far from linear (a pawn tips instead of sliding above a friction
   threshold), which a spline follows and a low polynomial does not; the penalty makes the fit
   smooth without choosing knots; and it needs only numpy and scipy. A Gaussian process or a
   neural classifier would also do but add dependencies and cost for one to three parameters.
3. The posterior: the exact multinomial likelihood of the observed tallies under the surrogate,
   times the prior (uniform on each documented range, or a Normal truncated to it for a measured
   value), sampled with emcee's affine-invariant ensemble sampler. Each parameter's posterior
   (mean, sd, 95% credible interval) and, per label, the posterior predictive probability with
   its 95% credible interval (the calibrated band) beside the same figures under the prior (the
   prior band).

Checks (tests/test_calibrate.py): the surrogate against a known p(label | theta), the posterior
against one computed on a grid, simulation-based calibration (Talts et al. 2018: `sbc`), and,
with physics, recovery of a known friction. `holdout_check` measures the surrogate against fresh
simulations at held-out parameter values (the job runs them: `PairDraws` with pinned values).
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from tabletop.sim.batch import PairDraws
from tabletop.sim.errors import InputError
from tabletop.sim.materials import PairTable

Proba = Callable[[np.ndarray], np.ndarray]   # (m, d) parameter values -> (m, K) label probabilities


# -- priors -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Prior:
    """One fitted parameter's prior: uniform on [low, high] (its documented range), or, when it was
    measured, a Normal(mean, sd) truncated to that range (the simulations cover no more)."""

    name: str
    low: float
    high: float
    mean: float | None = None
    sd: float | None = None

    @property
    def kind(self) -> str:
        return "uniform" if self.sd is None else "normal"

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        """Log density up to a constant (-inf outside the range)."""
        x = np.asarray(x, dtype=float)
        inside = (x >= self.low) & (x <= self.high)
        if self.sd is None:
            return np.where(inside, 0.0, -np.inf)
        return np.where(inside, -0.5 * ((x - self.mean) / self.sd) ** 2, -np.inf)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.sd is None:
            return rng.uniform(self.low, self.high, n)
        from scipy.stats import truncnorm

        a, b = (self.low - self.mean) / self.sd, (self.high - self.mean) / self.sd
        return truncnorm.rvs(a, b, loc=self.mean, scale=self.sd, size=n, random_state=rng)

    def as_dict(self) -> dict:
        out = {"kind": self.kind, "low": self.low, "high": self.high}
        if self.sd is not None:
            out.update(mean=self.mean, sd=self.sd)
        return out


_MEASURED = re.compile(r"^\s*([^=\s]+)\s*=\s*([-+0-9.eE]+)\s*(?:\+-|±|\+/-)\s*([-+0-9.eE]+)\s*$")


def parse_measured(text: str) -> tuple[str, float, float]:
    """`--measured 'NAME=VALUE+-SD'` (an incline test's friction, say): (NAME, VALUE, SD)."""
    m = _MEASURED.match(text)
    if not m:
        raise InputError(f"--measured: expected NAME=VALUE+-SD (e.g. materials.pairs.a/b.friction=0.42+-0.03), "
                         f"got {text!r}")
    try:
        value, sd = float(m.group(2)), float(m.group(3))
    except ValueError:
        raise InputError(f"--measured: expected NAME=VALUE+-SD with numbers, got {text!r}") from None
    if not (math.isfinite(value) and math.isfinite(sd)) or sd <= 0:
        raise InputError(f"--measured {m.group(1)}: the SD must be a positive number, got {m.group(3)}")
    return m.group(1), value, sd


# -- tallies ----------------------------------------------------------------------------------------
def read_tallies(path: str | Path, labels: Sequence[str], device: str | None = None) -> dict[str, int]:
    """Tallies from a real copy: a `label,count` CSV (a header line `label,count` optional), or a
    JSON object of counts (an estimate result's `counts`, or the object itself; an estimate of
    another device than `device` is refused). Every label of `labels` is in the answer (0 when not
    tallied); anything wrong is one InputError."""
    path = Path(path)
    what = f"--observed {path}"
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise InputError(f"{what}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{what}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    if not text.strip():
        raise InputError(f"{what}: the file is empty; give label,count lines or an estimate's JSON")
    pairs: list[tuple[str, object]] = []
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            raise InputError(f"{what}: not valid JSON") from None
        if isinstance(data, dict) and device is not None and data.get("device", device) != device:
            raise InputError(f"{what}: an estimate of {data['device']}, not {device}")
        counts = data.get("counts", data) if isinstance(data, dict) else None
        if not isinstance(counts, dict) or not counts:
            raise InputError(f"{what}: a JSON file must hold the tallies as an object, or an estimate's `counts`")
        pairs = list(counts.items())
    else:
        for n, row in enumerate(csv.reader(io.StringIO(text)), 1):
            cells = [c.strip() for c in row]
            if not any(cells) or cells[0].startswith("#"):
                continue
            if len(cells) != 2:
                raise InputError(f"{what}: line {n}: expected label,count, got {','.join(row)!r}")
            if n == 1 and cells[0].lower() == "label" and cells[1].lower() == "count":
                continue
            pairs.append((cells[0], cells[1]))
        if not pairs:
            raise InputError(f"{what}: no tallies in it; give label,count lines")
    out = {label: 0 for label in labels}
    seen = set()
    for label, value in pairs:
        if label not in out:
            raise InputError(f"{what}: unknown label {label!r}; this device's labels are {', '.join(labels)}")
        if label in seen:
            raise InputError(f"{what}: label {label!r} is tallied twice")
        seen.add(label)
        try:
            count = int(value) if not isinstance(value, bool) and float(value) == int(float(value)) else None
        except (TypeError, ValueError):
            count = None
        if count is None:
            raise InputError(f"{what}: {label}: the count must be a whole number, got {value!r}")
        if count < 0:
            raise InputError(f"{what}: {label}: a negative count ({count})")
        out[label] = count
    if sum(out.values()) == 0:
        raise InputError(f"{what}: every count is 0; tally some outcomes first")
    return out


# -- configurations ---------------------------------------------------------------------------------
def parse_configuration(text: str, what: str = "--joint") -> tuple[str, tuple[str, ...], str | None, str]:
    """`DEVICE[=FILE]` or `DEVICE[NAME=VALUE,NAME=VALUE,...][=FILE]`: a device, or one configuration
    of it (its own `--set` values, after the run's), and the file of its tallies (None: none given).
    Values may hold brackets and quoted text (`throw[shape.size=[0.012,0.016,0.016],shape.material="steel"]`);
    commas split the sets only outside them. Returns (device, sets as NAME=VALUE texts, file, the
    part's name: the text before `=FILE`). Anything malformed is one InputError."""
    text = text.strip()
    m = re.match(r"^([A-Za-z0-9_.-]+)", text)
    if not m:
        raise InputError(f"{what} {text!r}: expected DEVICE=FILE or DEVICE[NAME=VALUE,...]=FILE")
    device, rest = m.group(1), text[m.end():]
    sets: list[str] = []
    if rest.startswith("["):
        depth, quote, cell, i = 0, None, "", 1
        while i < len(rest):
            ch = rest[i]
            if quote:
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "[":
                depth += 1
            elif ch == "]":
                if depth == 0:
                    break
                depth -= 1
            elif ch == "," and depth == 0:
                sets.append(cell.strip())
                cell = ""
                i += 1
                continue
            cell += ch
            i += 1
        else:
            raise InputError(f"{what} {text!r}: the configuration's [ is never closed; expected "
                             f"DEVICE[NAME=VALUE,...]=FILE")
        sets.append(cell.strip())
        rest = rest[i + 1:]
        for cell in sets:
            name, eq, value = cell.partition("=")
            if not eq or not name.strip() or not value.strip():
                raise InputError(f"{what} {text!r}: {cell!r} is not NAME=VALUE (e.g. shape.size=[0.012,0.016,0.016])")
        sets = [f"{c.partition('=')[0].strip()}={c.partition('=')[2].strip()}" for c in sets]
    name = text[:len(text) - len(rest)]
    if rest and not rest.startswith("="):
        raise InputError(f"{what} {text!r}: unexpected {rest!r} after {name}; expected {name}=FILE")
    path = rest[1:].strip() or None if rest else None
    return device, tuple(sets), path, name


def pinned_gesture(values) -> tuple[tuple[str, str], ...]:
    """`--set` overrides giving every throw of a run the gesture `values` ({spec key: value}): each
    range shrunk to that value."""
    return tuple((key, f"[{float(v)!r}, {float(v)!r}]") for key, v in values.items())


def gesture_points(ranges, points: int, seed) -> np.ndarray:
    """`points` gesture values (a Latin hypercube over `ranges`, [(low, high)] per gesture range):
    the design of a calibration's training trials, which run in blocks, one per point."""
    from scipy.stats import qmc

    lo, hi = np.array([r[0] for r in ranges], dtype=float), np.array([r[1] for r in ranges], dtype=float)
    unit = qmc.LatinHypercube(d=len(ranges), seed=np.random.default_rng(seed)).random(points)
    return lo + unit * (hi - lo)


# -- per-trial draws ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PosteriorDraws:
    """A picklable per-trial perturbation for runs of a calibrated copy (`estimate --calibration`,
    to be wired): trial `index` takes one row of a calibration's posterior draws (`names`' values),
    chosen by a stream of its own (SeedSequence(seed, spawn_key=(index, 2))), and the other pair
    values drawn from their ranges as in training (PairDraws with those pinned). The run's odds are then the
    posterior predictive odds."""

    pairs: tuple[str, ...]
    names: tuple[str, ...]
    rows: tuple[tuple[float, ...], ...]

    def apply(self, world, base: PairTable, seed: int, index: int) -> dict[str, float]:
        pick = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, 2)))
        row = self.rows[int(pick.integers(len(self.rows)))]
        return PairDraws(self.pairs, tuple(zip(self.names, row))).apply(world, base, seed, index)


# -- which parameters to fit ----------------------------------------------------------------------
def influence(x: np.ndarray, y: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Each column of `x`'s largest |point-biserial r| with a label's indicator, and its two-sided
    p-value (Fisher's z); columns or labels that do not vary give r 0, p 1."""
    from scipy.stats import norm

    n, cols = x.shape
    r_max, p_min = np.zeros(cols), np.ones(cols)
    for j in range(cols):
        for k in range(n_labels):
            ind = (y == k).astype(float)
            if x[:, j].std() == 0 or ind.std() == 0 or n < 4:
                continue
            r = float(np.corrcoef(x[:, j], ind)[0, 1])
            p = float(2 * norm.sf(abs(math.atanh(min(abs(r), 0.999999))) * math.sqrt(n - 3)))
            if abs(r) > r_max[j]:
                r_max[j] = abs(r)
            p_min[j] = min(p_min[j], p)
    return r_max, p_min


def select_parameters(names: Sequence[str], x: np.ndarray, y: np.ndarray, n_labels: int, most: int = 3,
                      min_r: float = 0.1, alpha: float = 0.01, total: int = 8) -> list[str]:
    """The parameters to fit: those whose draws go detectably with some label (|r| >= min_r and
    p < alpha over every test made, Bonferroni), the strongest first, at most `most`; at least the
    strongest one; then the other values of each one's material pair ("materials.pairs.A/B.field":
    the same prefix), at most `total` in all. The others are averaged over their prior by the
    surrogate.

    Why the pair's other values: a real copy has one value of each, not the prior's average. Left to
    the surrogate's average, a value whose pull on the odds is too weak to detect in the training
    trials (the Tipper's glass-on-polystyrene friction and restitution, |r| 0.05-0.06: still 0.1 of
    a label's odds across their ranges) biased the copies' tallies, and the intervals of the value
    fitted held the copy's value in only 16 of 20 copies; fitted too, they are the posterior's
    nuisance values and widen it as much as they should."""
    r, p = influence(x, y, n_labels)
    tests = max(1, len(names) * n_labels)
    order = sorted(range(len(names)), key=lambda j: -r[j])
    chosen = [names[j] for j in order if r[j] >= min_r and p[j] < alpha / tests][:most] or [names[order[0]]]
    pairs = {n.rsplit(".", 1)[0] for n in chosen if n.startswith("materials.pairs.")}
    mates = [names[j] for j in order if names[j] not in chosen and names[j].rsplit(".", 1)[0] in pairs]
    return (chosen + mates)[:max(total, len(chosen))]


# -- one BLAS thread --------------------------------------------------------------------------------
def one_blas_thread():
    """Run the surrogate's linear algebra on one BLAS thread, as a context manager (threadpoolctl).
    Its matrices are small (a few hundred columns): OpenBLAS's threads gain nothing on them, and on
    a machine whose cores are busy (parallel trials, other jobs) they wait on each other: a fit of
    500 trials to six labels took 55 s with the default threads and 1.6 s with one, on 2 busy cores."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1, user_api="blas")


# -- the surrogate --------------------------------------------------------------------------------
def _knots(segments: int, degree: int = 3) -> np.ndarray:
    inner = np.linspace(0.0, 1.0, segments + 1)
    return np.concatenate([np.zeros(degree), inner, np.ones(degree)])


def _spline_columns(u: np.ndarray, segments: int) -> np.ndarray:
    from scipy.interpolate import BSpline

    u = np.clip(u, 0.0, 1.0)
    return BSpline.design_matrix(u, _knots(segments), 3).toarray()


#: spline segments per parameter's range. P-splines take many segments and let the penalty do the
#: smoothing (Eilers and Marx 1996): a gadget's odds can jump within a sliver of a range (King
#: Kong's pawn tips over instead of sliding above a board friction of about 0.5: `knocked` goes
#: from 0.19 to 0.64 between 0.49 and 0.53 and `pushed` from 0.37 to 0.07); with 8 segments the
#: fit spread that jump over 0.49-0.55, and copies near it got intervals that missed their value
#: (15 of 20 copies held; 18 of 20 with 24 segments and a penalty for each value, below:
#: scripts/check_calibration.py).
SEGMENTS = 24


class SplineSurrogate:
    """p(label | theta): a multinomial logit on cubic B-splines of each parameter (scaled to its
    range) and the pairwise products of the parameters; labels never seen in training get p 0.

    `fit` chooses the penalty by cross-validation; `predict(theta)` gives (m, K) probabilities in
    the order of `labels`; `as_dict`/`from_dict` keep it in a calibration file."""

    def __init__(self, labels: Sequence[str], low: Sequence[float], high: Sequence[float], present: Sequence[int],
                 coef: np.ndarray, penalty, segments: int):
        self.labels = tuple(labels)
        self.low, self.high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
        self.present = np.asarray(present, dtype=int)   # the labels given probability; [0] the reference
        self.coef = np.asarray(coef, dtype=float)       # (columns, len(present) - 1)
        # one smoothing penalty per parameter (one number: the same for all, as older files keep it)
        self.penalty = [float(v) for v in np.broadcast_to(np.asarray(penalty, dtype=float), (len(self.low),))]
        self.segments = int(segments)

    @property
    def dims(self) -> int:
        return len(self.low)

    def basis(self, theta: np.ndarray) -> np.ndarray:
        return _basis(_unit(theta, self.low, self.high), self.segments)

    def predict(self, theta: np.ndarray) -> np.ndarray:
        theta = np.atleast_2d(np.asarray(theta, dtype=float))
        out = np.zeros((len(theta), len(self.labels)))
        out[:, self.present] = _softmax(self.basis(theta) @ self.coef) if self.coef.size else 1.0
        return out

    __call__ = predict

    @classmethod
    def fit(cls, labels: Sequence[str], low: Sequence[float], high: Sequence[float], theta: np.ndarray,
            y: np.ndarray, segments: int = SEGMENTS, penalties: Sequence[float] = tuple(10.0 ** np.arange(-2, 7)),
            folds: int = 5, seed: int = 0, penalty: Sequence[float] | None = None) -> "SplineSurrogate":
        """Fit to training draws `theta` (n, d) with label indices `y`. Each parameter's smoothing
        penalty is one of `penalties`, chosen by `folds`-fold cross-validated log loss: the best
        one for all, then each parameter's in turn with the others held (one pass of coordinate
        descent), so that a value whose odds jump (King Kong's tip-over friction) keeps a light
        penalty while the values that barely matter are smoothed hard. `penalty` (one number,
        or one per parameter) fixes them instead."""
        with one_blas_thread():
            return cls._fit(labels, low, high, theta, y, segments, penalties, folds, seed, penalty)

    @classmethod
    def _fit(cls, labels, low, high, theta, y, segments, penalties, folds, seed, penalty) -> "SplineSurrogate":
        theta = np.atleast_2d(np.asarray(theta, dtype=float))
        y = np.asarray(y, dtype=int)
        d = theta.shape[1]
        counts = np.bincount(y, minlength=len(labels))
        present = [int(k) for k in np.argsort(-counts, kind="stable") if counts[k] > 0]
        if not present:
            raise InputError("no labelled training trials to fit the surrogate to")
        low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
        B = _basis(_unit(theta, low, high), segments)
        remap = {k: i for i, k in enumerate(present)}
        z = np.array([remap[k] for k in y])
        if len(present) == 1:
            return cls(labels, low, high, present, np.zeros((B.shape[1], 0)), 1.0, segments)
        if penalty is not None:
            lams = tuple(float(v) for v in np.broadcast_to(np.asarray(penalty, dtype=float), (d,)))
            return cls(labels, low, high, present, _fit_logit(B, z, len(present), _penalty_matrix(d, segments, lams)),
                       lams, segments)
        fold = np.random.default_rng(seed).permutation(len(z)) % folds
        tried: dict[tuple, float] = {}

        def cv(lams: tuple) -> float:
            if lams not in tried:
                P, loss = _penalty_matrix(d, segments, lams), 0.0
                for f in range(folds):
                    tr, te = fold != f, fold == f
                    w = _fit_logit(B[tr], z[tr], len(present), P)
                    loss -= float(np.sum(_log_softmax(B[te] @ w)[np.arange(te.sum()), z[te]]))
                tried[lams] = loss / len(z)
            return tried[lams]

        grid = sorted(float(v) for v in penalties)
        best = min(((lam,) * d for lam in grid), key=cv) if len(grid) > 1 else (grid[0],) * d
        if len(grid) > 1 and d > 1:
            for j in range(d):              # each one's penalty down the grid, then up, while CV improves
                for step in (-1, 1):
                    i = grid.index(best[j]) + step
                    while 0 <= i < len(grid) and cv(new := best[:j] + (grid[i],) + best[j + 1:]) < cv(best):
                        best, i = new, i + step
        surrogate = cls(labels, low, high, present, _fit_logit(B, z, len(present), _penalty_matrix(d, segments, best)),
                        best, segments)
        surrogate.cv = {"penalties": grid, "tried": [[list(k), v] for k, v in tried.items()]}
        return surrogate

    def resampled(self, theta: np.ndarray, y: np.ndarray, seed: int) -> "SplineSurrogate":
        """The same surrogate (its penalties kept) fitted to a bootstrap resample of the training
        trials: one draw of the surrogate's own sampling uncertainty."""
        theta = np.atleast_2d(np.asarray(theta, dtype=float))
        pick = np.random.default_rng(seed).integers(0, len(theta), len(theta))
        return SplineSurrogate.fit(self.labels, self.low, self.high, theta[pick], np.asarray(y)[pick],
                                   self.segments, penalty=self.penalty)

    def as_dict(self) -> dict:
        return {"kind": "multinomial logit on cubic B-splines (P-splines), a penalty per parameter by 5-fold CV",
                "labels": list(self.labels), "low": self.low.tolist(), "high": self.high.tolist(),
                "present": self.present.tolist(), "segments": self.segments, "penalty": self.penalty,
                "coef": self.coef.tolist()}

    @classmethod
    def from_dict(cls, d: dict) -> "SplineSurrogate":
        coef = np.asarray(d["coef"], dtype=float).reshape(-1, max(0, len(d["present"]) - 1))
        return cls(d["labels"], d["low"], d["high"], d["present"], coef, d["penalty"], d["segments"])


def _unit(theta: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return (np.atleast_2d(theta) - low) / np.where(high > low, high - low, 1.0)


def _basis(u: np.ndarray, segments: int) -> np.ndarray:
    cols = [_spline_columns(u[:, j], segments) for j in range(u.shape[1])]
    d = u.shape[1]
    cols += [((u[:, i] - 0.5) * (u[:, j] - 0.5))[:, None] for i in range(d) for j in range(i + 1, d)]
    return np.hstack(cols)


def _penalty_matrix(dims: int, segments: int, lams: Sequence[float]) -> np.ndarray:
    """Second differences of each parameter's spline coefficients, times its penalty; a ridge on
    the products and a tiny ridge on everything (the splines of several parameters share the
    intercept), times the penalties' geometric mean."""
    nb = segments + 3
    D = np.diff(np.eye(nb), n=2, axis=0)
    inter = dims * (dims - 1) // 2
    P = np.zeros((dims * nb + inter, dims * nb + inter))
    for j in range(dims):
        P[j * nb:(j + 1) * nb, j * nb:(j + 1) * nb] = lams[j] * (D.T @ D)
    scale = float(np.exp(np.mean(np.log(np.asarray(lams, dtype=float)))))
    P[dims * nb:, dims * nb:] = np.eye(inter) * 1e-2 * scale
    return P + np.eye(len(P)) * 1e-6 * scale


def _log_softmax(eta: np.ndarray) -> np.ndarray:
    """Log probabilities of the labels from the logits of all but the reference (logit 0)."""
    from scipy.special import logsumexp

    full = np.hstack([np.zeros((len(eta), 1)), eta])
    return full - logsumexp(full, axis=1, keepdims=True)


def _softmax(eta: np.ndarray) -> np.ndarray:
    return np.exp(_log_softmax(eta))


def _fit_logit(B: np.ndarray, z: np.ndarray, k: int, P: np.ndarray) -> np.ndarray:
    """Penalised maximum likelihood of the multinomial logit (reference label 0): minimise
    -loglik + 0.5 tr(W' P W) by Newton's method with the exact Hessian and step halving (the
    objective is convex; a few columns, so the Hessian is small)."""
    n, m = B.shape
    Y = np.zeros((n, k))
    Y[np.arange(n), z] = 1.0
    W = np.zeros((m, k - 1))

    def objective(W):
        logp = _log_softmax(B @ W)
        return -float(np.sum(logp * Y)) + 0.5 * float(np.sum(W * (P @ W))), logp

    obj, logp = objective(W)
    for _ in range(100):
        p = np.exp(logp)[:, 1:]
        G = B.T @ (p - Y[:, 1:]) + P @ W
        H = np.zeros(((k - 1) * m, (k - 1) * m))
        for a in range(k - 1):
            for b in range(a, k - 1):
                w = p[:, a] * ((a == b) - p[:, b])
                block = B.T @ (B * w[:, None]) + (P if a == b else 0.0)
                H[a * m:(a + 1) * m, b * m:(b + 1) * m] = block
                H[b * m:(b + 1) * m, a * m:(a + 1) * m] = block.T
        step = -np.linalg.solve(H, G.T.ravel()).reshape(k - 1, m).T
        decrease = -float(np.sum(G * step))
        if decrease < 1e-10 * max(1.0, abs(obj)):
            break
        t = 1.0
        while t > 1e-8:
            new, new_logp = objective(W + t * step)
            if new <= obj - 1e-4 * t * decrease:
                break
            t *= 0.5
        W, obj, logp = W + t * step, new, new_logp
    return W


# -- the likelihood and the posterior ----------------------------------------------------------------
def log_likelihood(counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """The exact multinomial log likelihood of `counts` (K,) under each row of `probs` (m, K),
    its coefficient included; -inf where a tallied label has p 0."""
    from scipy.special import gammaln

    counts = np.asarray(counts, dtype=float)
    const = gammaln(counts.sum() + 1) - gammaln(counts + 1).sum()
    with np.errstate(divide="ignore"):
        logp = np.log(np.clip(probs, 0.0, 1.0))
    terms = np.where(counts > 0, counts * logp, 0.0)
    return const + terms.sum(axis=1)


@dataclass
class Posterior:
    """MCMC draws of the fitted parameters (after burn-in, every walker), and how the chain went."""

    samples: np.ndarray            # (S, d)
    walkers: int
    steps: int
    burn: int
    acceptance: float
    autocorr: list[float]          # integrated autocorrelation time per parameter, in steps

    def effective_size(self) -> float:
        tau = max(max(self.autocorr), 1.0)
        return self.walkers * (self.steps - self.burn) / tau


def sample_posterior(proba: Proba, counts: Sequence[int], priors: Sequence[Prior], seed: int, walkers: int = 32,
                     steps: int = 2000, burn: int = 500, progress: Callable[[int], None] | None = None) -> Posterior:
    """Draws of theta from prior(theta) x Multinomial(counts | proba(theta)), by emcee's ensemble
    sampler (stretch, differential-evolution and snooker moves; walkers started by importance
    resampling of prior draws; `seed` fixes every draw)."""
    with one_blas_thread():
        return _sample_posterior(proba, counts, priors, seed, walkers, steps, burn, progress)


def _sample_posterior(proba, counts, priors, seed, walkers, steps, burn, progress) -> Posterior:
    import emcee

    counts = np.asarray(counts, dtype=float)
    d = len(priors)
    walkers = max(walkers, 2 * d + 2)
    rng = np.random.default_rng(seed)

    def log_prob(theta: np.ndarray) -> np.ndarray:
        lp = sum(p.logpdf(theta[:, j]) for j, p in enumerate(priors))
        ok = np.isfinite(lp)
        if ok.any():
            lp[ok] = lp[ok] + log_likelihood(counts, proba(theta[ok]))
        return lp

    # walkers start where the posterior has its mass: drawn from many prior draws with weights
    # the posterior gives them (sampling importance resampling), so that a walker is not left on a
    # local mode far below the global one (the stretch move alone cannot leave one)
    candidates = np.column_stack([p.sample(rng, max(20000, 4000 * d)) for p in priors])
    lp = log_prob(candidates)
    weights = np.exp(lp - lp.max())
    start = candidates[rng.choice(len(candidates), walkers, replace=False, p=weights / weights.sum())]
    sampler = emcee.EnsembleSampler(walkers, d, log_prob, vectorize=True)
    sampler.random_state = np.random.RandomState(int(rng.integers(2 ** 32))).get_state()
    every = max(1, steps // 50)
    for i, _ in enumerate(sampler.sample(start, iterations=steps), 1):
        if progress is not None and i % every == 0:
            progress(every)
    if progress is not None and steps % every:
        progress(steps % every)
    tau = sampler.get_autocorr_time(discard=burn, tol=0, quiet=True)
    return Posterior(sampler.get_chain(discard=burn, flat=True), walkers, steps, burn,
                     float(np.mean(sampler.acceptance_fraction)), [float(t) for t in np.atleast_1d(tau)])


def pooled_posterior(probas: Sequence[Proba], counts: Sequence[int], priors: Sequence[Prior], seed: int,
                     walkers: int = 32, steps: int = 2000, burn: int = 500,
                     progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray, list[Posterior]]:
    """The posterior under each of several surrogates (bootstrap refits: the surrogate's own
    uncertainty), pooled: (draws (S, d), p(label | draw) under the surrogate that drew it (S, K),
    each chain's Posterior). One surrogate gives its plain posterior."""
    seeds = np.random.SeedSequence(seed).spawn(len(probas))
    draws, probs, chains = [], [], []
    for proba, child in zip(probas, seeds):
        post = sample_posterior(proba, counts, priors, int(child.generate_state(1)[0]), walkers, steps, burn,
                                progress)
        draws.append(post.samples)
        probs.append(proba(post.samples))
        chains.append(post)
    return np.vstack(draws), np.vstack(probs), chains


def label_bands(labels: Sequence[str], probs: np.ndarray) -> dict[str, dict]:
    """Per label, from p(label | theta) at draws of theta (S, K): the predictive probability (their
    mean) and the 95% interval of p(label | theta) (the band)."""
    return {label: {"p": float(probs[:, k].mean()),
                    "ci95": [float(np.percentile(probs[:, k], 2.5)), float(np.percentile(probs[:, k], 97.5))]}
            for k, label in enumerate(labels)}


def summary(values: np.ndarray) -> dict:
    """Mean, sd, median and the central 95% interval of draws."""
    lo, med, hi = np.percentile(values, [2.5, 50.0, 97.5])
    return {"mean": float(np.mean(values)), "sd": float(np.std(values)), "median": float(med),
            "ci95": [float(lo), float(hi)]}


# -- what to measure next --------------------------------------------------------------------------
@dataclass(frozen=True)
class HomeTest:
    """A direct measurement of one material value a person can make at home, and how precise a
    careful one is: `sd` absolute, or (`relative`) as a fraction of the value (a log-normal error)."""

    kind: str
    field: str
    sd: float
    relative: bool
    how: str


HOME_TESTS = {
    "friction": HomeTest("incline", "friction", 0.03, False,
                         "lay a piece of one material on a flat sheet of the other and tilt the sheet slowly until "
                         "the piece starts to slide; friction = tan(angle) (a phone's level app reads the angle); "
                         "repeat 10 times and take the mean (about +-0.03)"),
    "restitution": HomeTest("drop", "restitution", 0.03, False,
                            "drop the piece from a height h1 (30 cm) onto the other material in front of a ruler, "
                            "film it in slow motion and read the bounce's top h2; restitution = sqrt(h2 / h1); "
                            "repeat 10 times (about +-0.03)"),
    "rolling": HomeTest("roll", "rolling", 0.25, True,
                        "let the piece (a marble: itself; a pawn or stick: on its side) roll down a short ramp of "
                        "height h onto a long flat sheet of the other material and measure how far it rolls, d; "
                        "rolling = h x r / d for a ball of radius r (all in metres); repeat 10 times (about "
                        "+-25%)"),
    "spinning": HomeTest("spin", "spinning", 0.4, True,
                         "spin the piece about the vertical on a flat sheet of the other material (a die on "
                         "a face), film it, and read its start rate w0 (turns in the first 0.1 s x 2 pi / 0.1 "
                         "s) and the time T until it stops; spinning = I x w0 / (m x g x T): 2 r^2 w0 / (5 g "
                         "T) for a ball of radius r, a^2 w0 / (6 g T) for a cube of side a (metres, seconds, "
                         "g = 9.81); repeat 10 times; rough (about +-40%)"),
}


def _band_widths(probs: np.ndarray, order: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per label, the width of the central 95% interval of p(label | theta) over weighted draws
    (`order`: each column's argsort, computed once)."""
    widths = np.empty(probs.shape[1])
    for k in range(probs.shape[1]):
        w = np.cumsum(weights[order[:, k]])
        w /= w[-1]
        lo, hi = np.searchsorted(w, [0.025, 0.975])
        col = probs[order[:, k], k]
        widths[k] = col[min(hi, len(col) - 1)] - col[min(lo, len(col) - 1)]
    return widths


def _ess(weights: np.ndarray) -> float:
    return float(weights.sum() ** 2 / np.sum(weights ** 2))


def expected_bands(theta: np.ndarray, probs: np.ndarray, log_weights: Callable[[int, np.random.Generator],
                   np.ndarray], sims: int, seed: int) -> dict:
    """Preposterior analysis by importance reweighting: `theta` (S, d) draws of the current state
    of knowledge (the posterior, or the prior before any tally) and `probs` (S, K) p(label | draw);
    `log_weights(i, rng)` simulates the candidate measurement's result as if draw i were the truth
    and returns every draw's log likelihood of it. Averaged over `sims` such results: each label's
    expected band width after the measurement, and the median effective number of draws the
    reweighting kept (small: the expected bands are rough)."""
    rng = np.random.default_rng(seed)
    order = np.argsort(probs, axis=0)
    widths, ess = np.zeros(probs.shape[1]), []
    for _ in range(sims):
        lw = log_weights(int(rng.integers(len(theta))), rng)
        w = np.exp(lw - lw.max())
        widths += _band_widths(probs, order, w)
        ess.append(_ess(w))
    return {"widths": (widths / sims).tolist(), "ess": float(np.median(ess))}


def tally_weights(probs: np.ndarray, columns: slice, n: int) -> Callable[[int, np.random.Generator], np.ndarray]:
    """`n` more tallies of the labels in `columns` (one device's slice of the joint labels)."""
    p = np.clip(probs[:, columns], 1e-12, None)
    p = p / p.sum(axis=1, keepdims=True)
    logp = np.log(p)

    def log_weights(i: int, rng: np.random.Generator) -> np.ndarray:
        return logp @ rng.multinomial(n, p[i]).astype(float)

    return log_weights


def home_test_weights(theta: np.ndarray, j: int, test: HomeTest) -> Callable[[int, np.random.Generator], np.ndarray]:
    """A home test of parameter `j` (column of `theta`) with the test's precision."""
    x = np.log(theta[:, j]) if test.relative else theta[:, j]

    def log_weights(i: int, rng: np.random.Generator) -> np.ndarray:
        m = x[i] + rng.normal(0.0, test.sd)
        return -0.5 * ((x - m) / test.sd) ** 2

    return log_weights


def current_widths(probs: np.ndarray) -> np.ndarray:
    """Each label's band width now (equal weights)."""
    return _band_widths(probs, np.argsort(probs, axis=0), np.ones(len(probs)))


# -- checks -----------------------------------------------------------------------------------------
def holdout_check(proba: Proba, labels: Sequence[str], points: np.ndarray, counts: np.ndarray) -> dict:
    """The surrogate against fresh simulations at held-out parameter values: `counts` (P, K) the
    labels simulated at each of `points` (P, d). Per point the simulated and the predicted p of
    each label; overall the largest |difference|, the RMS difference, the RMS a perfect surrogate
    would show from sampling alone, and Pearson's chi-square of all points (p-value: is the
    difference more than sampling?)."""
    from scipy.stats import chi2

    counts = np.asarray(counts, dtype=float)
    pred = proba(points)
    n = counts.sum(axis=1, keepdims=True)
    freq = counts / np.maximum(n, 1)
    diff = freq - pred
    noise = pred * (1 - pred) / np.maximum(n, 1)
    expected = pred * n
    keep = expected > 0
    stat = float(np.sum((counts[keep] - expected[keep]) ** 2 / expected[keep]))
    dof = int(sum(max(0, int(keep[i].sum()) - 1) for i in range(len(points))))
    rows = [{"theta": points[i].tolist(), "trials": int(n[i, 0]),
             "simulated": {lab: float(freq[i, k]) for k, lab in enumerate(labels)},
             "predicted": {lab: float(pred[i, k]) for k, lab in enumerate(labels)}} for i in range(len(points))]
    return {"points": rows, "max_abs_error": float(np.abs(diff).max()),
            "rms_error": float(np.sqrt(np.mean(diff ** 2))), "rms_sampling": float(np.sqrt(np.mean(noise))),
            "chi2": stat, "dof": dof, "p_value": float(chi2.sf(stat, dof)) if dof else 1.0}


def sbc(proba: Proba, priors: Sequence[Prior], n_obs: int, reps: int, seed: int, draws: int = 99, bins: int = 10,
        walkers: int = 16, steps: int = 600, burn: int = 200) -> dict:
    """Simulation-based calibration (Talts et al. 2018) of the posterior under model `proba`: `reps`
    times draw theta from the prior and `n_obs` tallies from proba(theta), sample the posterior,
    and rank theta among `draws` posterior draws spaced through the chain. Uniform ranks (per
    parameter: chi-square over `bins` bins, p-value) mean the posterior is calibrated."""
    from scipy.stats import chisquare

    rng = np.random.default_rng(seed)
    ranks = np.zeros((reps, len(priors)), dtype=int)
    for r in range(reps):
        theta = np.array([[p.sample(rng, 1)[0] for p in priors]])
        tallies = rng.multinomial(n_obs, proba(theta)[0])
        post = sample_posterior(proba, tallies, priors, int(rng.integers(2 ** 32)), walkers, steps, burn)
        pick = post.samples[rng.choice(len(post.samples), draws, replace=False)]
        ranks[r] = (pick < theta).sum(axis=0)
    out = []
    for j, p in enumerate(priors):
        hist = np.bincount(ranks[:, j] * bins // (draws + 1), minlength=bins)
        out.append({"name": p.name, "histogram": hist.tolist(), "p_value": float(chisquare(hist).pvalue)})
    return {"reps": reps, "tallies": n_obs, "draws": draws, "parameters": out}


# -- the plot -------------------------------------------------------------------------------------
def plot_calibration(result: dict, path: str | Path) -> None:
    """Prior and posterior of each fitted parameter, and per device each label's prior band,
    calibrated band and observed share."""
    from tabletop.sim.analysis import pyplot, save_figure

    plt = pyplot()
    params = result["parameters"]
    blocks = [result] + list(result.get("joint") or [])
    tallied = any(b["observed"] for b in blocks)
    fig, axes = plt.subplots(1, len(params) + len(blocks), figsize=(4.2 * (len(params) + len(blocks)), 3.6))
    draws = np.asarray(result["posterior_draws"]["values"], dtype=float)
    for j, prm in enumerate(params):
        ax = axes[j]
        prior = Prior(prm["name"], prm["low"], prm["high"], prm["prior"].get("mean"), prm["prior"].get("sd"))
        grid = np.linspace(prm["low"], prm["high"], 200)
        dens = np.exp(prior.logpdf(grid))
        dens /= np.trapezoid(dens, grid)
        if tallied:
            ax.hist(draws[:, j], bins=40, range=(prm["low"], prm["high"]), density=True, alpha=0.6,
                    label="posterior")
        ax.plot(grid, dens, "k--", label=f"prior ({prior.kind})")
        ax.set_xlabel(prm["name"].replace("materials.pairs.", ""), fontsize=8)
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 3))
        ax.legend(fontsize=7)
    for ax, block in zip(axes[len(params):], blocks):
        labels = list(block["labels"])
        x = np.arange(len(labels))
        for off, key, colour in ((-0.15, "prior", "grey"), (0.15, "posterior", "C0")):
            if key == "posterior" and not tallied:
                continue
            p = [block["labels"][k][key]["p"] for k in labels]
            lo = [block["labels"][k][key]["ci95"][0] for k in labels]
            hi = [block["labels"][k][key]["ci95"][1] for k in labels]
            ax.errorbar(x + off, p, yerr=[np.subtract(p, lo), np.subtract(hi, p)], fmt="o", color=colour,
                        capsize=3, label=f"{key} band")
        obs = block["observed"]
        if obs:
            total = sum(obs.values())
            ax.plot(x, [obs[k] / total for k in labels], "rx", label="observed share")
        ax.set_xticks(x, labels, fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel("p")
        ax.set_title(block["device"], fontsize=9)
        ax.legend(fontsize=7)
    tallies = " and ".join(f"{sum(b['observed'].values())} {b['device']}" for b in blocks if b["observed"])
    fig.suptitle(f"{' + '.join(result.get('devices', [result['device']]))}: "
                 f"{'calibrated to ' + tallies + ' tallies' if tallies else 'the prior, no tallies yet'}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)
