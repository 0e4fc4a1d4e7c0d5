"""The `calibrate` and `validate` commands' arguments (kept apart from parser.py, which builds the others)."""
from __future__ import annotations

from pathlib import Path

from tabletop.cli.argtypes import _positive_int, _seed


def calibrate_command(sub, devices) -> None:
    cal = sub.add_parser("calibrate", help="fit a device's uncertain material values to tallies from a real copy: "
                                           "posterior, calibrated odds and bands")
    cal.add_argument("device", help=f"one of: {', '.join(devices)}")
    cal.add_argument("--observed", type=Path, metavar="FILE",
                     help="the tallies from your copy: label,count lines (CSV), or an estimate result's JSON "
                          "(its counts); needed unless --plan")
    cal.add_argument("--joint", action="append", default=[], metavar="DEVICE=FILE",
                     help="calibrate together with another device that shares a material pair (the Tipper and "
                          "the crater: glass on polystyrene), FILE its tallies; or with another configuration "
                          "of a device, DEVICE[NAME=VALUE,...]=FILE: its own --set values after the run's (e.g. "
                          "'throw[shape.size=[0.012,0.016,0.016]]=b.csv'; commas inside [...] or quotes "
                          "belong to a value); every part shares the fitted parameters; repeatable")
    cal.add_argument("--gesture", action="store_true",
                     help="also fit the gesture: each [low, high] range of the spec's gesture (a throw's "
                          "height, speed, spin) is a candidate, its prior uniform on the range, its value the "
                          "one every throw of the copy is given; a range two parts declare differently is "
                          "fitted per part (NAME@PART)")
    cal.add_argument("--gesture-points", type=_positive_int, default=40, metavar="G",
                     help="with --gesture: the training trials are thrown at G gesture values (a Latin "
                          "hypercube over the ranges), one block each (default 40)")
    cal.add_argument("--plan", action="store_true",
                     help="also say what to measure next: which more tallies or home test narrows the bands most")
    cal.add_argument("--budget", type=_positive_int, default=300, metavar="N",
                     help="with --plan: the number of more tallies weighed (default 300)")
    cal.add_argument("--measured", action="append", default=[], metavar="NAME=VALUE+-SD",
                     help="a value measured directly (e.g. an incline test: "
                          "materials.pairs.a/b.friction=0.42+-0.03): its prior is that Normal; repeatable")
    cal.add_argument("--fit", action="append", default=[], metavar="NAME",
                     help="fit this parameter (default: the pair values whose draws go detectably with a "
                          "label, at most 3, and the other values of their material pairs, at most 8 in "
                          "all); repeatable")
    cal.add_argument("--trials", type=_positive_int, default=2000,
                     help="simulated training trials, pair values drawn per trial from their ranges (default 2000)")
    cal.add_argument("--holdout-points", type=_seed, default=5, metavar="P",
                     help="held-out values of the fitted parameters the surrogate is checked at (default 5; 0: none)")
    cal.add_argument("--holdout-trials", type=_positive_int, default=100, metavar="M",
                     help="fresh trials at each held-out value (default 100)")
    cal.add_argument("--walkers", type=_positive_int, default=64, help="emcee walkers per chain (default 64)")
    cal.add_argument("--steps", type=_positive_int, default=3000,
                     help="emcee steps per chain, a quarter of them burn-in (default 3000)")
    cal.add_argument("--bootstrap", type=_seed, default=8, metavar="B",
                     help="chains under B bootstrap refits of the surrogate, pooled (default 8; 0: one chain "
                          "under the surrogate itself)")
    cal.add_argument("--seed", type=_seed, default=0, help="the run's seed (default 0)")
    cal.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    cal.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the trials on this Dask cluster")
    cal.add_argument("--spec", type=Path, help="device spec TOML (default: the one in assets/)")
    cal.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                     help="override a physical parameter of the spec, as for estimate; repeatable")
    cal.add_argument("--out", type=Path, help="write the calibration file (JSON, every figure) here")
    cal.add_argument("--resume", action="store_true",
                     help="continue an interrupted run from the checkpoint beside --out")
    cal.add_argument("--plot", type=Path, metavar="FILE.png",
                     help="draw the prior and posterior of each parameter and the bands of each label")
    cal.add_argument("--quiet", action="store_true", help="no progress bar")


def validate_command(sub) -> None:
    val = sub.add_parser("validate", help="throw coins, cubes and cuboids as published experiments did and compare "
                                          "(docs/validation.md)")
    val.add_argument("--quick", action="store_true", help="fewer trials per case (about 1.5 minutes on 2 cores)")
    val.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    val.add_argument("--seed", type=_seed, default=1, help="the runs' seed (default 1)")
    val.add_argument("--out", type=Path, help="write the table as JSON to this file")
    val.add_argument("--calibrate", action="store_true",
                     help="also fit one set of material and gesture values to the published tallies jointly (the "
                          "Gazette's steel cuboids; as `tabletop calibrate`), judge every case at it (the others "
                          "named as predictions) and check each fitted case predicted from a fit without it "
                          "(leave-one-out, its RMS)")
    val.add_argument("--calibrate-trials", type=_positive_int, default=600, metavar="N",
                     help="with --calibrate: training trials per fitted case (default 600)")
    val.add_argument("--gesture-points", type=_positive_int, default=30, metavar="G",
                     help="with --calibrate: gesture values the training trials are thrown at (default 30)")
    val.add_argument("--walkers", type=_positive_int, default=32, help="with --calibrate: emcee walkers (default 32)")
    val.add_argument("--steps", type=_positive_int, default=1500,
                     help="with --calibrate: emcee steps per fit, a quarter burn-in (default 1500)")
    val.add_argument("--posterior-points", type=_positive_int, default=20, metavar="P",
                     help="with --calibrate: posterior draws each case's run is spread over (default 20)")
    val.add_argument("--quiet", action="store_true", help="no progress bar")
