"""Lay out King of the Hill's path seats on the hill model and write games/king_of_the_hill/board.toml.

    python scripts/layout_board.py [--check]

The path is drawn through waypoints (below) on the hill whose crater, edge seats and caves are
defined in assets/king_of_the_hill/hill.toml. Anchors pin a path space exactly: an edge space sits
on its crater edge seat, and the path space "directly above" each cave seat has that seat's x, y.
Between anchors the spaces are spread evenly at about SPACING apart. The route:

  Start at the hill's fourth corner (south-east, the one with no cave), lap 1 low on the hill over
  seat 2 of caves 1 and 2, up to the first rim stretch (edge1-3, about a third of the way), down
  again for lap 2 over cave 1's and cave 2's seat 1 and both seats of cave 3 (so a marble knocked in
  from the first stretch may gain), up to the second rim stretch (edge4-6, near the end), then the
  Finish Zone's five seats on the rim ledge.

With --check it only verifies that board.toml matches what it would write (used by the tests).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from tabletop.games.king_of_the_hill.board import hill_height

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "games" / "king_of_the_hill" / "board.toml"
SPACING = 0.030          # target distance between neighbouring path seats (m)
ZONE_ANGLES = (35.0, 60.0, 85.0, 110.0, 135.0)   # Finish Zone seats #1..#5 on the rim ledge

# (kind, value): ("edge", name) / ("cave", label) anchors, ("at", (angle_deg, n)) free waypoints where
# n is the hill's square-ish "radius" (see hill_height). Angles are unwrapped counter-clockwise. The
# route crosses itself twice (lap 1's climb and the climb to the second stretch pass over lap 2); the
# free waypoints were tuned by a random search so that no two seats are closer than 2.3 cm.
ROUTE = [
    ("start", (-45.0, 0.158)),
    ("at", (12.5, 0.158)),
    ("cave", "cave1/seat2"),
    ("at", (100.1, 0.158)),
    ("cave", "cave2/seat2"),
    ("at", (167.2, 0.153)),
    ("at", (164.6, 0.109)),
    ("edge", "edge1"), ("edge", "edge2"), ("edge", "edge3"),
    ("at", (263.3, 0.097)),
    ("at", (294.2, 0.130)),
    ("at", (360.8, 0.124)),
    ("cave", "cave1/seat1"),
    ("at", (453.5, 0.134)),
    ("cave", "cave2/seat1"),
    ("at", (545.9, 0.126)),
    ("cave", "cave3/seat2"),
    ("cave", "cave3/seat1"),
    ("at", (630.8, 0.139)),
    ("at", (647.6, 0.103)),
    ("edge", "edge4"), ("edge", "edge5"), ("edge", "edge6"),
]


def polar_to_xy(angle_deg: float, n: float) -> np.ndarray:
    a = np.radians(angle_deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([c, s]) * n / (c ** 4 + s ** 4) ** 0.25


def layout():
    from tabletop.gamekit.devices import make_device

    crater = make_device("crater")
    try:
        radius = crater.marble_radius
        edges = {k: np.array(v) for k, v in crater.start_positions.items()}
        caves = {k: np.array(r.center) for k, r in crater.seat_regions.items()}
        rim_r = float(np.hypot(*edges["edge1"][:2]))
        rim_z = float(edges["edge1"][2])
    finally:
        crater.close()

    def seat(xy):
        return np.array([xy[0], xy[1], hill_height(*xy) + radius])

    points, pinned = [], []   # route points (3D) and which are anchors -> (kind, name)
    for kind, value in ROUTE:
        if kind == "edge":
            points.append(edges[value]); pinned.append(("edge", value))
        elif kind == "cave":
            points.append(seat(caves[value][:2])); pinned.append(("cave", value))
        elif kind == "start":
            points.append(seat(polar_to_xy(*value))); pinned.append(("start", None))
        else:
            points.append(seat(polar_to_xy(*value))); pinned.append(None)

    # spaces: every anchor exactly; between anchors, evenly along the polyline through free waypoints
    spaces, names = [points[0]], {}
    seg = [points[0]]
    for p, pin in zip(points[1:], pinned[1:]):
        seg.append(p)
        if pin is None:
            continue
        poly = np.array(seg)
        lengths = np.linalg.norm(np.diff(poly[:, :2], axis=0), axis=1)
        total = lengths.sum()
        count = max(1, int(round(total / SPACING)))
        cum = np.concatenate([[0.0], np.cumsum(lengths)])
        for k in range(1, count):
            d = total * k / count
            i = min(np.searchsorted(cum, d) - 1, len(lengths) - 1)
            t = (d - cum[i]) / lengths[i]
            xy = poly[i, :2] + t * (poly[i + 1, :2] - poly[i, :2])
            spaces.append(seat(xy))
        spaces.append(p)
        names[pin] = len(spaces) - 1
        seg = [p]
    zone = [np.array([rim_r * np.cos(np.radians(a)), rim_r * np.sin(np.radians(a)), rim_z]) for a in ZONE_ANGLES]
    return spaces, names, zone


def render(spaces, names, zone) -> str:
    edges = sorted((k[1], v) for k, v in names.items() if k[0] == "edge")
    caves = sorted((k[1], v) for k, v in names.items() if k[0] == "cave")
    fmt = lambda p: f"[{p[0]:.4f}, {p[1]:.4f}, {p[2]:.4f}]"
    lines = [
        "# King of the Hill board: the path of seats that winds up the hill, as data.",
        "#",
        "# GENERATED by scripts/layout_board.py from assets/king_of_the_hill/hill.toml; edit the route",
        "# there and re-run it. Spaces are numbered along the path from 0 (Start) to path_length - 1; the",
        "# Finish Zone's five numbered seats #1..#5 follow the last path space in that order, so a marble",
        "# two spaces away from the Zone (two path spaces still ahead of it) enters #1 with a 3, #2 with a 4.",
        "# Reconstruction: the rulebook gives no count of spaces; this one follows from laying seats about",
        f"# {SPACING * 100:.0f} cm apart along the route on the reconstructed hill.",
        "",
        f"path_length = {len(spaces)}",
        f"zone_seats = {len(zone)}",
        "",
        "# Edge spaces (arrows): the path space on each of the crater's edge seats, in two rim stretches.",
        "[edges]",
        *[f"{k} = {v}" for k, v in edges],
        "",
        "# The path space directly above each cave seat (same x, y, on the hill's surface above the cave).",
        "[caves]",
        *[f'"{k}" = {v}' for k, v in caves],
        "",
        "# Seat centres of a resting marble on the hill model (m, the crater's axis at x = y = 0, table z = 0).",
        "[positions]",
        "path = [",
        *[f"  {fmt(p)},  # {i}" for i, p in enumerate(spaces)],
        "]",
        "zone = [",
        *[f"  {fmt(p)},  # #{i + 1}" for i, p in enumerate(zone)],
        "]",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description="lay out King of the Hill's path seats")
    ap.add_argument("--check", action="store_true", help="only check that board.toml is up to date")
    args = ap.parse_args()
    text = render(*layout())
    if args.check:
        if BOARD.read_text() != text:
            print("board.toml is out of date: run python scripts/layout_board.py", file=sys.stderr)
            return 1
        return 0
    BOARD.write_text(text)
    print(f"wrote {BOARD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
