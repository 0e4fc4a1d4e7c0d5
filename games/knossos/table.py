"""The Knossos physical table: the board at the museum board's proportions, four conical pieces,
and the two throw sticks thrown into a wooden tray beside the board, in one World.

Pieces moving site to site are placed kinematically on the board's site positions; every throw of
the sticks is simulated and read physically. A throw the sticks device cannot read after its own
re-throws (or one that does not settle) is thrown again and counted; an escape raises.
"""
from __future__ import annotations

import numpy as np
import trimesh

from tabletop.games.devices import default_spec
from tabletop.games.knossos.rules import OFF, START, State
from tabletop.games.tables import until_labelled
from tabletop.sim.bullet import pybullet
from tabletop.sim.devices.sticks import ThrowSticks
from tabletop.sim.materials import load_materials
from tabletop.sim.meshes import cached_mesh
from tabletop.sim.paths import assets_dir

BOARD_CENTRE = (0.80, 0.0)      # the board lies beside the sticks' tray (tray centre at the origin)
BOARD_THICKNESS = 0.02          # a 2 cm wooden board
PIECE_RADIUS = 0.022            # conical pieces: 4.4 cm across the base, 5 cm tall
PIECE_HEIGHT = 0.05


def _cone() -> trimesh.Trimesh:
    return trimesh.creation.cone(radius=PIECE_RADIUS, height=PIECE_HEIGHT, sections=24)


class KnossosTable:
    """One World with the sticks' tray, the board and the pieces."""

    def __init__(self, pieces: int, board):
        self.board = board
        self.sticks = ThrowSticks(default_spec("sticks"))
        self.world = self.sticks.world
        try:
            mats = load_materials(assets_dir() / "materials.toml")
            c = self.world.client
            sx, sy = board.size
            slab = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[sx / 2, sy / 2, BOARD_THICKNESS / 2])
            body = c.createMultiBody(0, slab, basePosition=[BOARD_CENTRE[0], BOARD_CENTRE[1], BOARD_THICKNESS / 2])
            self.world.add_body("board", body, mats["wood"])
            cone = cached_mesh("knossos-piece", 1, {"r": PIECE_RADIUS, "h": PIECE_HEIGHT}, _cone)
            shape = c.createCollisionShape(pybullet.GEOM_MESH, fileName=str(cone))
            self.pieces = [f"knossos-piece-{i}" for i in range(pieces)]
            for i, name in enumerate(self.pieces):
                body = c.createMultiBody(0, shape, basePosition=list(self.piece_position(i, START)))
                self.world.add_body(name, body, mats["hardwood"], mesh=cone)
            self.retries: dict[str, int] = {}
            # the sticks lie side by side in the tray until the first throw (each throw makes fresh ones)
            self.sticks.place([self.sticks.lying_pose(0.0, dy, 90.0) for dy in (-0.04, 0.04)])
        except BaseException:
            self.sticks.close()
            raise

    def close(self) -> None:
        self.sticks.close()

    def piece_position(self, piece: int, site: int) -> tuple[float, float, float]:
        """Where a piece stands: on its site, beside its wing before entering, beside the apex once off."""
        player, k = divmod(piece, 2)
        if site == START:
            x, y = self.board.tracks[player].start
            x += (k - 0.5) * 2.2 * PIECE_RADIUS
        elif site == OFF:
            x, y = self.board.exit_at
            x += (piece - 1.5) * 2.2 * PIECE_RADIUS
        else:
            x, y = self.board.positions[site]
        return (BOARD_CENTRE[0] + x, BOARD_CENTRE[1] + y, BOARD_THICKNESS + PIECE_HEIGHT / 2)

    def sync(self, state: State) -> None:
        reset = self.world.client.resetBasePositionAndOrientation
        for i, site in enumerate(state.pos):
            reset(self.world.bodies[self.pieces[i]], list(self.piece_position(i, site)), [0, 0, 0, 1])

    def throw(self, rng: np.random.Generator):
        return until_labelled("sticks", lambda: self.sticks.run(rng), self.retries, "a stick left the tray")


class PhysicsOutcomes:
    """Answers the sticks by throwing them on a KnossosTable."""

    def __init__(self):
        self.table: KnossosTable | None = None

    def table_for(self, state: State) -> KnossosTable:
        if self.table is None:
            self.table = KnossosTable(len(state.pos), state.game.board)
        return self.table

    def outcome(self, event: str, state: State, rng: np.random.Generator) -> str:
        if event != "sticks":
            raise ValueError(f"Knossos has no {event!r} event")
        self.table_for(state).sync(state)
        return self.table.throw(rng).label

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None
