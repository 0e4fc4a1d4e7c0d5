"""argparse types the command builders share."""
from __future__ import annotations

import argparse


def _whole(least: int):
    """An argparse type: a whole number of at least `least` (1: a count; 0: a seed)."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least 1, got {value}" if least == 1
                                             else f"must be {least} or more, got {value}")
        return value
    return whole


_positive_int, _seed = _whole(1), _whole(0)
