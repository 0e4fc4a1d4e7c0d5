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
