"""The King Kong physical table: Kong twisting and climbing on his ring and slide among the Attack
Team pawns, and a whole game with every chance event simulated."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.gamekit.match import Match
from tabletop.gamekit.state import ChanceOutcome
from tabletop.games.king_kong.ai import HeuristicSeat
from tabletop.games.king_kong.board import load_board
from tabletop.games.king_kong.geometry import GROOVES, Geometry, load_kong
from tabletop.games.king_kong.chance import ShuffleSource
from tabletop.games.king_kong.rules import COLOURS, FATES, Game, Phase
from tabletop.games.king_kong.table import Hand, KongRig, KongTable, PhysicsOutcomes, load_physics, run_move
from tabletop.sim.devices.base import Status
from tabletop.sim.world import PhysicsSettings, World

ROOT = Path(__file__).parents[1]
KONG, BOARD = load_kong(), load_board()
GEO = Geometry(BOARD, KONG)
STEADY = Hand(0.3, 0.0, ((0.0, 0.0), (0.0, 0.0)))


@pytest.fixture(scope="module")
def rig():
    physics = load_physics(kong=KONG)
    world = World(PhysicsSettings(timestep=physics.timestep, solver_iterations=physics.solver_iterations))
    yield KongRig(world, BOARD, KONG, physics, 2)
    world.close()


def in_groove(rig, pawn, groove, climb, twist):
    rig.set_pose(climb, twist)
    rects = tuple(BOARD.space(s).rect for s in GEO.place(groove, climb, twist).spaces)
    rig.put(pawn, KONG.groove_point(groove, climb, twist), rects, in_groove=True)


def test_a_pawn_fitted_in_a_groove_stays_standing_when_kong_does_not_move(rig):
    """A pawn stood in the right hand's notch, with no twist and no climb, settles where it was put,
    upright, touching nothing but the board: standing."""
    in_groove(rig, 0, "right_hand", 5, 0)
    rig.put(1, rig.start_spot(1), ())
    out = run_move(rig, (), 0, STEADY, [0], [0])
    assert out.status is Status.OK and out.label == "red:standing"
    assert out.reading["red"]["moved"] < 5e-4 and out.reading["red"]["tilt_deg"] < 1.0


def test_kong_carries_a_pawn_in_his_groove_along_a_twist(rig):
    """A two-notch twist (60 degrees, 10 cm along the hand's arc) drags the pawn in the left hand's notch
    several centimetres (until it slides out along the slot, which is not quite square to the arc): out
    of the spaces the groove lay in, or over."""
    in_groove(rig, 0, "left_hand", 6, 0)
    out = run_move(rig, (1, 1), 0, STEADY, [0], [0])
    assert out.status is Status.OK and out.label in ("red:pushed", "red:knocked")
    assert out.reading["red"]["moved"] > 0.04


def swept_spaces(rig, climb, steps):
    """Window spaces whose centre Kong's arms pass over (within a pawn's body of the outline) during a
    twist of `steps`, clear of him at the start, and close to the ring (the middle of his reach)."""
    out = []
    for sp in BOARD.windows():
        x, y = sp.centre
        cx, cy = KONG.ring_centre(climb)
        if not 0.05 < math.hypot(x - cx, y - cy) < 0.09:
            continue
        if rig.figure_distance(x, y, climb, 0) < rig.pawn.body_radius + 0.004:
            continue
        ts = np.linspace(0, sum(steps), 4 * len(steps) + 1)
        if min(rig.figure_distance(x, y, climb, t) for t in ts) < rig.pawn.body_radius:
            out.append(sp)
    return out


def test_a_full_twist_sweeps_a_pawn_beside_kongs_arm_out_of_its_space_or_over(rig):
    """Half a turn (six notches left) with a pawn standing on a window space Kong's arm passes over:
    the arm hits its body and sweeps it out of its space or knocks it over, every time."""
    climb, steps = 6, (1,) * 6
    spaces = swept_spaces(rig, climb, steps)
    assert spaces
    for sp in spaces:
        rig.set_pose(climb, 0)
        rig.put(0, sp.centre, (sp.rect,))
        rig.put(1, rig.start_spot(1), ())
        out = run_move(rig, steps, 0, STEADY, [0], [0])
        assert out.status is Status.OK and out.label in ("red:pushed", "red:knocked"), (sp.name, out.reading)


def test_a_pawn_far_from_kong_is_untouched(rig):
    """A pawn two columns out from Kong's reach stands where it was, whatever Kong does."""
    sp = BOARD.space("R3-6")
    rig.set_pose(2, 0)
    rig.put(0, sp.centre, (sp.rect,))
    out = run_move(rig, (-1, -1), 3, STEADY, [0], [0])
    assert out.label == "red:standing" and out.reading["red"]["moved"] < 1e-4


@pytest.mark.parametrize("start,twist_steps,climb", [((0, 0), (1, 1), 3), ((KONG.top - 2, 5), (1, 1, 1), 1),
                                                     ((3, -2), (-1,) * 6, 2)])
def test_the_motors_reach_every_notch_and_kong_stays_on_his_track(rig, start, twist_steps, climb):
    """Each stroke ends on its notch (within 2% of one), twist first and then the climb; the slide never
    goes below the bottom notch nor above the top one, nor beyond the move's ends."""
    rig.set_pose(*start)
    rig.park()
    lowest, highest = [math.inf], [-math.inf]

    def watch(world):
        c = rig.joint_pose()[0]
        lowest[0], highest[0] = min(lowest[0], c), max(highest[0], c)

    rig.world.watchers.append(watch)
    try:
        steps, result = rig.move(twist_steps, climb, STEADY)
    finally:
        rig.world.watchers.remove(watch)
    assert result == "done"
    expected, t = [], start[1]
    for d in twist_steps:
        t += d
        expected.append((start[0], t))
    for k in range(1, climb + 1):
        expected.append((start[0] + k, t))
    assert len(rig.arrivals) == len(expected)
    for (c, tw), (ec, et) in zip(rig.arrivals, expected):
        assert abs(c - ec) < 0.02 and abs(tw - et) < 0.02
    assert lowest[0] >= max(start[0], 0) - 0.02 and highest[0] <= min(start[0] + climb, KONG.top) + 0.02
    assert steps == pytest.approx(len(expected) * 0.3 / rig.world.dt, abs=8 * len(expected))


@pytest.mark.parametrize("groove", GROOVES)
def test_a_fast_long_twist_never_throws_a_pawn_off_the_board(rig, groove):
    """Escape regression: the quickest hand in the spec (0.25 s a notch, no pause) turns Kong half a turn
    each way and climbs three notches with a pawn in each groove, low on the track (the arms sweep
    over the channel and the Start space's edge); the pawn stays on the board."""
    fast = Hand(load_physics().seconds_per_notch[0], 0.0, ((0.0, 0.0), (0.0, 0.0)))
    for climb0, steps in ((0, (1,) * 6), (1, (-1,) * 6)):
        rig.set_pose(climb0, 0)
        if not GEO.place(groove, climb0, 0).attackable:
            continue
        in_groove(rig, 0, groove, climb0, 0)
        rig.put(1, rig.start_spot(1), ())
        out = run_move(rig, steps, 3, fast, [0, 1], [0])
        assert out.status is not Status.ESCAPED and out.status is not Status.UNSETTLED, out.reading


def kong_move_state(players=3):
    """A state at the kong-move chance node: red in Kong's right hand groove, blue and green sharing a
    space beside his path (they stand side by side on it)."""
    game = Game(players)
    s = game.new_initial_state()
    s.climb, s.twist = 6, 0
    s.groove[0], s.pos[0] = "right_hand", GEO.place("right_hand", 6, 0).spaces[0]
    s.phase, s.twist_steps, s.round = Phase.SPIN_INNER, (1, 1), 1
    swept = GEO.swept(6, 0, (1, 1), 1) - GEO.covered(6, 0)
    s.pos[1] = s.pos[2] = sorted(swept)[0]
    s.apply(ChanceOutcome("U1"))
    assert s.phase is Phase.KONG_MOVE
    return s


def test_a_kong_move_from_the_rules_state_is_simulated_and_labelled():
    """The table puts each pawn where the state says, moves Kong as the rules say and answers with a
    fate for each pawn at risk, in the rules' encoding; the state accepts it."""
    s = kong_move_state()
    table = KongTable(3, s.game.board, s.game.kong)
    try:
        label = table.kong_move(s, np.random.default_rng(4))
        tokens = label.split()
        assert [t.partition(":")[0] for t in tokens] == [COLOURS[r.player] for r in s.kong_move.at_risk]
        assert len(tokens) == 3
        blue, green = (table.rig.places[p] for p in (1, 2))
        assert math.hypot(blue.x - green.x, blue.y - green.y) >= 2 * table.physics.pawn.base_radius
        assert all(t.partition(":")[2] in FATES for t in tokens)
        assert table.rig.joint_pose() == pytest.approx((7, 2), abs=0.02)
        s.apply(ChanceOutcome(label))
    finally:
        table.close()


@pytest.mark.slow
def test_a_physics_game_ends_and_says_which_pawns_fell():
    """Two AI seats with every die throw, spin and Kong move simulated: the game ends, Kong's moves
    name the pawns at risk and what became of them, and the same seed replays the same game in a
    fresh process through the command line."""
    source = ShuffleSource(PhysicsOutcomes())
    lines: list[str] = []
    try:
        final = Match(Game(2).new_initial_state(), [HeuristicSeat(), HeuristicSeat()], source, 3).play(lines.append)
    finally:
        source.close()
    assert final.is_terminal()
    moves = [line for line in lines if line.startswith("Kong's move: ")]
    assert moves and any("back to Start" in line for line in lines)
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "king-kong", "--headless", "--seats", "ai,ai",
                           "--seed", "3", "--no-record"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.splitlines()
    assert "outcomes physics" in printed[0]
    assert printed[1:-1] == lines
    assert printed[-1].startswith("result: ")


def test_a_pawn_on_a_space_kong_lies_over_is_put_down_beside_him(rig):
    """Kong may end a move lying over the whole of a space where a pawn stood (the rules leave it
    there): at the next move the pawn is put down at the nearest spot clear of him, never inside the
    figure, and Kong's next move is read without an escape."""
    for climb in range(KONG.top - 3):
        for twist in (3, -3):
            for sp in BOARD.windows():
                x0, x1, y0, y1 = sp.rect
                spots = [(x, y) for x in np.linspace(x0, x1, 8) for y in np.linspace(y0, y1, 8)]
                if all(rig.figure_distance(x, y, climb, twist) < rig.pawn.body_radius for x, y in spots):
                    rig.set_pose(climb, twist)
                    x, y = rig.clear_spot(sp.centre, sp.rect, climb, twist, (), 0.002)
                    assert rig.figure_distance(x, y, climb, twist) >= rig.pawn.body_radius + 0.002
                    rig.put(0, (x, y), (sp.rect,))
                    out = run_move(rig, (1,), 1, STEADY, [0], [0])
                    assert out.status in (Status.OK, Status.LODGED), out.reading
                    return
    pytest.fail("Kong never lies over a whole window space")


def test_kongs_pose_from_the_geometry_is_the_rigs():
    """The layout's Kong poses (views draw a replay with them, no World) are the rig's, joint for
    joint, at every climb and twist (a quaternion and its negative are one rotation); the board's
    top, which views paint on, is where a vertical ray meets the rig's board."""
    from tabletop.games.king_kong.layout import BOARD_TOP, KONG
    from tabletop.sim.scene import poses

    table = KongTable(2)
    try:
        for climb in range(0, table.kong.top + 1, 2):
            for twist in range(-12, 13, 3):
                table.rig.set_pose(climb, twist)
                physical, drawn = poses(table.world, KONG), table.kong_poses(climb, twist)
                assert physical.keys() == drawn.keys()
                for track, pose in physical.items():
                    p, q = np.array(pose), np.array(drawn[track])
                    assert np.allclose(p[:3], q[:3], atol=1e-12)
                    assert np.allclose(p[3:], q[3:], atol=1e-12) or np.allclose(p[3:], -q[3:], atol=1e-12)
        x, y = table.board.space("start").centre
        hit = table.world.client.rayTest([x, y, 1.0], [x, y, -1.0])[0]
        assert hit[0] == table.world.bodies["kk_board"] and abs(hit[3][2] - BOARD_TOP) < 1e-9
    finally:
        table.close()
