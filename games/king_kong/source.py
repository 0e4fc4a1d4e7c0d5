"""King Kong's physics outcome source, the one play, the window and replays all use.

The die is thrown into the box lid beside the board (in a World of its own) and Kong moves among
the pawns on a KongTable; the spinner is flicked on its card beside the board (in its own World: it runs at its
own timestep and touches nothing); shuffles are drawn from the chance Generator. `world_for`
names the World each event moves, so its motion can be recorded (None for a shuffle).
"""
from __future__ import annotations

import numpy as np
from tabletop.gamekit.chance import PhysicsSource

SPINNER_ORIGIN = (0.55, 0.32, 0.0)      # the spinner card lies beside the board, behind the die's box lid


class KongSource(PhysicsSource):
    def __init__(self, table=None):
        from tabletop.gamekit.devices import default_spec
        from tabletop.games.king_kong.chance import ShuffleSource
        from tabletop.games.king_kong.table import PhysicsOutcomes
        from tabletop.sim.devices.spinner import Spinner

        self.physics = PhysicsOutcomes()
        self.physics.table = table
        self.physics.spinner = Spinner(default_spec("spinner"), origin=SPINNER_ORIGIN)
        self.shuffled = ShuffleSource(self.physics)

    def table_for(self, state):
        return self.physics.table_for(state)

    def world_for(self, event: str, state):
        if event == "shuffle":
            return None
        if event in ("spin-outer", "spin-inner"):
            return self.physics.spinner.world
        table = self.table_for(state)
        return table.die.world if event == "die" else table.world

    def prepare(self, event: str, state) -> None:
        self.physics.prepare(event, state)

    def outcome(self, event: str, state, rng: np.random.Generator) -> str:
        return self.shuffled.outcome(event, state, rng)

    def close(self) -> None:
        self.physics.close()
