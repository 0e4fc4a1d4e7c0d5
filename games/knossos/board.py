"""The Knossos Game board, loaded and validated from board.toml.

The board is a site graph (Ludii's 14 sites) plus, for each player, the two routes its pieces may
take: the only choice of direction a piece ever has is where it turns upward in the central four.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from tabletop.sim.errors import SpecError
from tabletop.sim.spec import Table, load_toml

BOARD_FILE = Path(__file__).with_name("board.toml")
SITES = 14                 # Ludii's Knossos Game board
MIN_SITE_GAP = 0.05        # m between site centres: room for a conical piece on each


@dataclass(frozen=True)
class Track:
    """One player's way through the board."""

    wing: tuple[int, ...]                        # entry wing, from its end towards the row
    safe: int                                    # the player's own safe space
    routes: tuple[tuple[int, ...], ...]          # (turn upward on the first central space, on the second)
    start: tuple[float, float]                   # where its pieces wait off the board (m)

    @property
    def sites(self) -> frozenset[int]:
        return frozenset(s for route in self.routes for s in route)


@dataclass(frozen=True)
class Board:
    size: tuple[float, float]                    # board extent along x and y (m)
    positions: tuple[tuple[float, float], ...]   # site centres (m), board centre at the origin
    central: frozenset[int]                      # the central four
    bridge_from: frozenset[int]                  # central spaces the bridge starts from
    after_bridge: int                            # the first space after the bridge
    apex: int
    exit_at: tuple[float, float]                 # where borne-off pieces are put (m)
    tracks: tuple[Track, ...]                    # per player, in seat order

    def successors(self, player: int) -> dict[int, tuple[int, ...]]:
        """Site -> the sites a piece of `player` may step to next (two only where it may turn)."""
        nxt: dict[int, list[int]] = {}
        for route in self.tracks[player].routes:
            for a, b in zip(route, route[1:]):
                nxt.setdefault(a, [])
                if b not in nxt[a]:
                    nxt[a].append(b)
        return {a: tuple(b) for a, b in nxt.items()}


def load_board(path: str | Path = BOARD_FILE) -> Board:
    spec = load_toml(path)
    size = spec.vector("size", 2)
    if min(size) <= 0:
        raise SpecError(f"{spec.source}: size: both extents must be positive, got {list(size)}")
    positions = _points(spec, "sites", SITES, size)
    for (i, a), (j, b) in combinations(enumerate(positions), 2):
        if ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 < MIN_SITE_GAP:
            raise SpecError(f"{spec.source}: sites: sites {i} and {j} are closer than {MIN_SITE_GAP} m")
    central = _site_list(spec, "central")
    if len(set(central)) != 4:
        raise SpecError(f"{spec.source}: central: expected four different sites, got {central}")
    apex = spec.integer("apex", 0, SITES - 1)
    bridge = spec.table("bridge")
    bridge_from = _site_list(bridge, "from")
    after = bridge.integer("to", 0, SITES - 1)
    if not set(bridge_from) <= set(central):
        raise SpecError(f"{spec.source}: bridge.from: the bridge starts from the central four {central}, "
                        f"got {bridge_from}")
    if after in central or after == apex:
        raise SpecError(f"{spec.source}: bridge.to: the first space after the bridge must be outside the "
                        f"central four and not the apex, got {after}")
    exit_t = spec.table("exit")
    if exit_t.integer("from", 0, SITES - 1) != apex:
        raise SpecError(f"{spec.source}: exit.from: pieces exit from the apex ({apex})")
    exit_at = exit_t.vector("at", 2)
    players = spec.tables("players")
    if len(players) != 2:
        raise SpecError(f"{spec.source}: players: expected 2 players, got {len(players)}")
    tracks = tuple(_track(t, set(central), set(bridge_from), after, apex) for t in players)
    for p, track in enumerate(tracks):
        other = tracks[1 - p].sites
        for key, own in (("wing", set(track.wing)), ("safe", {track.safe})):
            if own & other:
                raise SpecError(f"{spec.source}: players[{p}].{key}: site {min(own & other)} is on the "
                                f"other player's track too")
    return Board(size, positions, frozenset(central), frozenset(bridge_from), after, apex, exit_at, tracks)


def _track(t: Table, central: set[int], bridge_from: set[int], after: int, apex: int) -> Track:
    where = f"{t.source}: {t.prefix}"
    wing = tuple(_site_list(t, "wing"))
    safe = t.integer("safe", 0, SITES - 1)
    start = t.vector("start", 2)
    raw = t.data.get("routes")
    if not isinstance(raw, list) or len(raw) != 2:
        raise SpecError(f"{where}routes: expected two routes (turn upward on the first central space, "
                        f"on the second)")
    routes = tuple(tuple(_sites(f"{where}routes[{i}]", r)) for i, r in enumerate(raw))
    for i, route in enumerate(routes):
        key = f"{where}routes[{i}]"
        if len(set(route)) != len(route):
            raise SpecError(f"{key}: a site appears twice")
        if route[:len(wing)] != wing:
            raise SpecError(f"{key}: must start with the wing {list(wing)}")
        if route[-3:] != (after, safe, apex):
            raise SpecError(f"{key}: must end with the first space after the bridge, the safe space and "
                            f"the apex {[after, safe, apex]}")
        if route[-4] not in bridge_from:
            raise SpecError(f"{key}: site {route[-4]} before the bridge is not one the bridge starts from")
    first, second = routes
    k = next((i for i, s in enumerate(first) if s in central), None)
    if k is None or first[:k + 1] != second[:k + 1]:
        raise SpecError(f"{where}routes: both routes must reach the central four at the same first space")
    middle_a, middle_b = first[k:-3], second[k:-3]
    if len(middle_a) != 2 or len(middle_b) != 3 or set(middle_a[1:] + middle_b) != central:
        raise SpecError(f"{where}routes: in the central four the first route must turn upward on the "
                        f"first space ({first[k]} then one more) and the second on the second "
                        f"({first[k]}, the next row space, then one more), covering all four")
    return Track(wing, safe, routes, start)


def _site_list(t: Table, key: str) -> list[int]:
    return _sites(f"{t.source}: {t.prefix}{key}", t.data.get(key))


def _sites(where: str, value) -> list[int]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise SpecError(f"{where}: expected a non-empty list of site numbers, got {value!r}")
    bad = [v for v in value if not 0 <= v < SITES]
    if bad:
        raise SpecError(f"{where}: site {bad[0]} does not exist (sites are 0..{SITES - 1})")
    return value


def _points(t: Table, key: str, count: int, size: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    value = t.data.get(key)
    if (not isinstance(value, list) or len(value) != count
            or not all(isinstance(p, list) and len(p) == 2
                       and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p) for p in value)):
        raise SpecError(f"{t.source}: {key}: expected {count} points [x, y]")
    points = tuple((float(p[0]), float(p[1])) for p in value)
    for i, (x, y) in enumerate(points):
        if abs(x) > size[0] / 2 or abs(y) > size[1] / 2:
            raise SpecError(f"{t.source}: {key}: site {i} at ({x}, {y}) lies off the board")
    return points
