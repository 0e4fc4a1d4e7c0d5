"""The coin race's physical table: the coin's tray (the coin device, tabletop_coin_race.coin), the
board and the two pawns, in the coin's World. The pawns are placed kinematically on their squares;
every flip of the coin is simulated and read physically. A flip the coin device cannot read (it
leans on the rim, or does not settle) is flipped again and counted; an escape raises."""
from __future__ import annotations

import numpy as np

from tabletop.gamekit.chance import PhysicsSource, PhysicsTable
from tabletop.gamekit.devices import make_device
from tabletop.gamekit.tables import until_labelled
from tabletop.sim.bullet import pybullet
from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.throwable import Release

from tabletop_coin_race.layout import (BOARD_HALF_Y, BOARD_THICKNESS, PAWN_HEIGHT, PAWN_RADIUS, CoinLayout)


class CoinTable(CoinLayout, PhysicsTable):
    """One World: the coin's tray, the board and the pawns."""

    def __init__(self, goal: int):
        super().__init__(goal)
        self.coin = make_device("coin")
        self.world = self.coin.world
        self.retries: dict[str, int] = {}
        try:
            mats = load_materials(assets_dir() / "materials.toml")
            c = self.world.client
            slab = c.createCollisionShape(pybullet.GEOM_BOX,
                                          halfExtents=[self.length / 2, BOARD_HALF_Y, BOARD_THICKNESS / 2])
            body = c.createMultiBody(0, slab, basePosition=[*self.centre, BOARD_THICKNESS / 2])
            self.world.add_body("board", body, mats["wood"])
            pawn = c.createCollisionShape(pybullet.GEOM_CYLINDER, radius=PAWN_RADIUS, height=PAWN_HEIGHT)
            for player, name in enumerate(self.pawns):
                body = c.createMultiBody(0, pawn, basePosition=list(self.pawn_position(player, 0)))
                self.world.add_body(name, body, mats["hardwood"])
            # the coin lies top up in the middle of the tray until the first flip (each flip makes a fresh one)
            half = self.coin.shape.dims["height"] / 2
            self.coin.place(Release((0.0, 0.0, half), (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), "top"))
        except BaseException:
            self.coin.close()
            raise

    def close(self) -> None:
        self.coin.close()

    def sync(self, state) -> None:
        """The pawns on the squares `state` has them on."""
        reset = self.world.client.resetBasePositionAndOrientation
        for player, square in enumerate(state.pos):
            reset(self.world.bodies[self.pawns[player]], list(self.pawn_position(player, square)), [0, 0, 0, 1])

    def flip(self, rng: np.random.Generator) -> str:
        return until_labelled("coin", lambda: self.coin.run(rng), self.retries, "the coin left the tray").label


class CoinPhysics(PhysicsSource):
    """Answers each flip by dropping the coin on a CoinTable."""

    def __init__(self):
        self.table: CoinTable | None = None

    def table_for(self, state) -> CoinTable:
        if self.table is None:
            self.table = CoinTable(state.game.goal)
        return self.table

    def prepare(self, event: str, state) -> None:
        """The pawns where the rules have them, before the flip's first frame."""
        self.table_for(state).sync(state)

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        if event != "coin":
            raise ValueError(f"the coin race has no {event!r} event")
        table = self.table_for(state)
        table.sync(state)
        return table.flip(rng)

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None
