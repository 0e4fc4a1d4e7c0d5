"""Benchmark every device against a bare PyBullet loop on one core.

    python scripts/bench_devices.py [--trials N] [--out FILE.json]

Same as `tabletop bench`; see sim/bench.py for the method.
"""
import sys

from tabletop.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
