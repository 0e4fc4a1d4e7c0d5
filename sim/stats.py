"""Interval estimates for outcome probabilities."""
from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (good near 0 and 1, unlike Wald)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


def paired_interval(diffs) -> tuple[float, tuple[float, float]]:
    """Mean of per-trial indicator differences (each -1, 0 or 1) with its normal 95% interval,
    mean +- z sd / sqrt(n); under two trials the interval is the whole [-1, 1]."""
    n = len(diffs)
    if n == 0:
        return 0.0, (-1.0, 1.0)
    mean = sum(diffs) / n
    if n < 2:
        return mean, (-1.0, 1.0)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean, (mean - half, mean + half)


def correlation_interval(r: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% interval of a correlation coefficient from n pairs (Fisher's z transform)."""
    if n <= 3:
        return -1.0, 1.0
    if abs(r) >= 1.0:
        return r, r
    centre, half = math.atanh(r), z / math.sqrt(n - 3)
    return math.tanh(centre - half), math.tanh(centre + half)


def newcombe_interval(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """95% interval of p1 - p2 for two independent proportions: Newcombe's hybrid score interval
    (his method 10, from the two Wilson intervals)."""
    p1, p2 = (k1 / n1 if n1 else 0.0), (k2 / n2 if n2 else 0.0)
    l1, u1 = wilson_interval(k1, n1, z)
    l2, u2 = wilson_interval(k2, n2, z)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def mean_interval(values, z: float = Z95) -> tuple[float, tuple[float, float], float]:
    """(mean, its normal 95% interval mean +- z sd / sqrt(n), the standard error); under two values
    the interval is unbounded."""
    n = len(values)
    if n == 0:
        return 0.0, (-math.inf, math.inf), math.inf
    mean = sum(values) / n
    if n < 2:
        return mean, (-math.inf, math.inf), math.inf
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return mean, (mean - z * se, mean + z * se), se


def mean_difference_interval(a, b, z: float = Z95) -> tuple[float, tuple[float, float]]:
    """mean(a) - mean(b) of two independent samples with its normal (Welch) 95% interval,
    difference +- z sqrt(se_a^2 + se_b^2)."""
    ma, _, sa = mean_interval(a, z)
    mb, _, sb = mean_interval(b, z)
    d, half = ma - mb, z * math.sqrt(sa * sa + sb * sb)
    return d, (d - half, d + half)


def _resampled_quantiles(values, qs, rng, resamples: int, batch: int = 200):
    """Each quantile of `resamples` bootstrap resamples of `values`: an array (len(qs), resamples)."""
    import numpy as np

    values = np.asarray(values, float)
    out = []
    for start in range(0, resamples, batch):
        idx = rng.integers(len(values), size=(min(batch, resamples - start), len(values)))
        out.append(np.quantile(values[idx], qs, axis=1))
    return np.concatenate(out, axis=1)


def quantile_intervals(values, qs, rng, resamples: int = 1000, level: float = 0.95):
    """Each quantile of `values` with its percentile-bootstrap 95% interval: [(q value, lo, hi)]."""
    import numpy as np

    if len(values) == 0:
        return [(0.0, -math.inf, math.inf) for _ in qs]
    est = np.quantile(np.asarray(values, float), qs)
    boot = _resampled_quantiles(values, qs, rng, resamples)
    tail = (1 - level) / 2
    lo, hi = np.quantile(boot, [tail, 1 - tail], axis=1)
    return [(float(e), float(a), float(b)) for e, a, b in zip(est, lo, hi)]


def quantile_difference_intervals(a, b, qs, rng, resamples: int = 1000, level: float = 0.95):
    """Each quantile of `a` minus that of `b` (independent samples) with its percentile-bootstrap
    95% interval (each sample resampled on its own): [(difference, lo, hi)]."""
    import numpy as np

    if len(a) == 0 or len(b) == 0:
        return [(0.0, -math.inf, math.inf) for _ in qs]
    est = np.quantile(np.asarray(a, float), qs) - np.quantile(np.asarray(b, float), qs)
    boot = _resampled_quantiles(a, qs, rng, resamples) - _resampled_quantiles(b, qs, rng, resamples)
    tail = (1 - level) / 2
    lo, hi = np.quantile(boot, [tail, 1 - tail], axis=1)
    return [(float(e), float(x), float(y)) for e, x, y in zip(est, lo, hi)]
