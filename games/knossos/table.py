"""The Knossos physical table: the board at the museum board's proportions, four conical pieces,
and the two throw sticks thrown into a wooden tray beside the board, in one World.

Pieces moving site to site are placed kinematically on the board's site positions; every throw of
the sticks is simulated and read physically. A throw the sticks device cannot read after its own
re-throws (or one that does not settle) is thrown again and counted; an escape raises.
"""
from __future__ import annotations

import numpy as np
import trimesh

from tabletop.gamekit.devices import default_spec
from tabletop.games.knossos.layout import BOARD_CENTRE, BOARD_THICKNESS, PIECE_HEIGHT, PIECE_RADIUS, KnossosLayout
from tabletop.games.knossos.rules import START, State
from tabletop.gamekit.tables import until_labelled
from tabletop.sim.bullet import pybullet
from tabletop.sim.devices.sticks import ThrowSticks
from tabletop.sim.materials import load_materials
from tabletop.sim.meshes import cached_mesh
from tabletop.sim.paths import assets_dir
from tabletop.gamekit.chance import PhysicsSource, PhysicsTable

def _cone() -> trimesh.Trimesh:
    return trimesh.creation.cone(radius=PIECE_RADIUS, height=PIECE_HEIGHT, sections=24)


class KnossosTable(KnossosLayout, PhysicsTable):
    """One World with the sticks' tray, the board and the pieces."""

    def __init__(self, pieces: int, board):
        super().__init__(pieces, board)
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
            for i, name in enumerate(self.pieces):
                body = c.createMultiBody(0, shape, basePosition=list(self.piece_position(i, START)))
                self.world.add_body(name, body, mats["hardwood"], mesh=cone)
            self.retries: dict[str, int] = {}
            # the sticks lie side by side in the tray until the first throw, one on each side, showing
            # both faces (each throw makes fresh ones)
            self.sticks.place([self.sticks.lying_pose(dx, 0.0, 90.0, flat_up=up) for dx, up in ((-0.025, False), (0.025, True))])
        except BaseException:
            self.sticks.close()
            raise

    def close(self) -> None:
        self.sticks.close()

    def sync(self, state: State) -> None:
        reset = self.world.client.resetBasePositionAndOrientation
        for i, site in enumerate(state.pos):
            reset(self.world.bodies[self.pieces[i]], list(self.piece_position(i, site)), [0, 0, 0, 1])

    def throw(self, rng: np.random.Generator):
        return until_labelled("sticks", lambda: self.sticks.run(rng), self.retries, "a stick left the tray")


class PhysicsOutcomes(PhysicsSource):
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
