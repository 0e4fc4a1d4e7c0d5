"""King of the Hill's physical table: the hill (crater, tunnels, caves), every marble, and the
Tipper beside the hill; it answers the rules' chance events by simulating them.

Three Worlds: the table's (the table top and the game marbles; views draw the hill from the
crater's mesh file), the Tipper's own, renewed for every tilt (tabletop.sim.world.World.renew),
and the crater's own, where a knock is simulated: the crater's marble and hill are rigid bodies
whose contacts need a contact ERP the Tipper's jointed tray cannot have (tabletop.sim.world), and
the hill is a distance field there. The game marbles on the hill are copied into the crater's world
as static spheres before each knock, so a knocked marble meets them as it would on the table.

Marbles moving seat to seat are placed kinematically (static bodies put on the seat positions
of board.toml). A tilt is simulated on the Tipper, whose ball lies in the slot where the last tilt
left it, so each tilt sends it back the other way. After each tilt the Tipper's bodies are made
afresh: the tray at rest on the end that holds the ball, the ball at rest in that slot's pocket
(`ball_at`; end A's first slot before the first tilt). A tilt therefore depends on nothing but
that start and its own generator, and a replay can be re-simulated from any turn. A knock is simulated in the crater: the knocked marble
becomes a dynamic body on its edge seat, gets the knock, spins down the crater, drops through the
tunnels and settles in a cave seat, among the other marbles on the hill; the rules read the label.

A tilt whose ball comes to rest between slots, or a knock whose marble lodges in the hill, is
done again (a player would tilt again or shake it loose); each retry is logged and counted,
never coerced to a label. An escape is a defect and raises.
"""
from __future__ import annotations

import numpy as np
from tabletop.sim.bullet import pybullet

from tabletop.gamekit.devices import default_spec
from tabletop.games.king_of_the_hill.board import Board
from tabletop.sim.devices.crater import Crater, Knock
from tabletop.games.king_of_the_hill.layout import TIPPER_ORIGIN, HillLayout
from tabletop.games.king_of_the_hill.rules import Move, State
from tabletop.sim.devices.tipper import Tipper
from tabletop.gamekit.tables import until_labelled
from tabletop.sim.devices.base import Outcome
from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.world import PhysicsSettings, World
from tabletop.gamekit.chance import PhysicsSource, PhysicsTable

def _table_timestep() -> float:
    """The table world's step: the Tipper's (the crater steps in a world of its own)."""
    from tabletop.sim.spec import load_toml

    return load_toml(default_spec("tipper")).table("physics").number("timestep")


class HillTable(HillLayout, PhysicsTable):
    """The table World with `marbles` game marbles, the Tipper's World and the crater's World."""

    def __init__(self, marbles: int, board: Board | None = None):
        self.world = World(PhysicsSettings(timestep=_table_timestep(), solver_iterations=50))
        self.crater = self.tipper = None
        try:
            mats = load_materials(assets_dir() / "materials.toml")
            c = self.world.client
            table = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[0.6, 0.6, 0.01])
            self.world.add_body("table", c.createMultiBody(0, table, basePosition=[0, 0, -0.01]), mats["wood"])
            self.crater = Crater(default_spec("crater"))   # the views draw the hill from its mesh file
            self.tipper = Tipper(default_spec("tipper"), origin=TIPPER_ORIGIN)
            super().__init__(marbles, board, self.crater, self.tipper)
            self.place_ball("A", self.tipper.slot_order[0])   # the game starts with the ball at end A
            for i, name in enumerate(self.marbles):
                self.world.add_sphere(name, self.crater.marble_radius, self.crater.marble_material, self.drawer[i],
                                      mass=0.0)
            self.retries = {"tipper": 0, "crater": 0}
        except BaseException:
            self.close()
            raise

    @property
    def worlds(self) -> tuple[World, ...]:
        """The Worlds views draw: the table's and the Tipper's (the crater's holds no game piece)."""
        return (self.world, self.tipper.world)

    def close(self) -> None:
        for device in (self.crater, self.tipper):
            if device is not None:
                device.close()
        self.world.close()

    # -- kinematic placement ---------------------------------------------------------------------
    def sync(self, state: State, skip: int | None = None) -> None:
        """Put every marble on the seat the state says (the `skip` marble in the drawer)."""
        reset = self.world.client.resetBasePositionAndOrientation
        for m, t in enumerate(state.track):
            pos = self.drawer[m] if m == skip else self.seat_position(m, t)
            reset(self.world.bodies[self.marbles[m]], list(pos), [0, 0, 0, 1])

    # -- chance events -------------------------------------------------------------------------
    def tilt(self, rng: np.random.Generator) -> Outcome:
        """Lift the end of the Tipper that holds the ball, with a sampled gesture, until the ball rests
        in a slot (a retry tilts from where it lodged); then fresh bodies there for the next tilt."""
        outcome = until_labelled("tipper", lambda: self.tipper.tilt(self.tipper.sample_gesture(rng), rng),
                                 self.retries, "the Tipper's ball left the tray")
        self.place_ball(outcome.reading["end"], outcome.label)
        return outcome

    def place_ball(self, end: str, slot: str) -> None:
        """Fresh Tipper bodies, the ball at rest in `slot`'s pocket at `end`: where the next tilt starts."""
        self.ball_at = (end, slot)
        self.tipper.place(end, slot)

    def knock(self, state: State, rng: np.random.Generator) -> Outcome:
        """Simulate the pending knock: the knocked marble off its edge seat into the crater."""
        mover = state.history[-1].marble if isinstance(state.history[-1], Move) else None
        self.sync(state, skip=mover)   # the knocker arrives as the knocked marble leaves its seat
        self.crater.set_obstacles({name: self.world.position(name) for name in self.marbles})

        def attempt() -> Outcome:
            g = self.crater.sample_gesture(rng)
            outcome = self.crater.run(rng, Knock(seat=state.knocked_from, speed=g.speed, angle=g.angle))
            self.crater.world.remove("marble")
            return outcome
        return until_labelled("crater", attempt, self.retries, f"a marble left the hill from {state.knocked_from}")


class PhysicsOutcomes(PhysicsSource):
    """Answers King of the Hill's chance events by simulating them on a HillTable."""

    def __init__(self):
        self.table: HillTable | None = None

    def table_for(self, state: State) -> HillTable:
        if self.table is None:
            self.table = HillTable(len(state.track), state.game.board)
        return self.table

    def world_for(self, event: str, state: State):
        """The World an event moves: the crater's for a knock, the Tipper's for a tilt."""
        table = self.table_for(state)
        return table.crater.world if event == "crater" else table.tipper.world

    def start_of(self, event: str, state: State) -> dict | None:
        """What an event starts from beyond the rules state (the replay records it): the Tipper's
        ball, {"end", "slot"}; None for a knock, which starts from the state's seats alone."""
        if event != "tipper":
            return None
        end, slot = self.table_for(state).ball_at
        return {"end": end, "slot": slot}

    def resume(self, event: str, state: State, start: dict | None) -> None:
        """Set the table to a recorded `start_of` (a replay re-simulated from a middle turn)."""
        if event == "tipper":
            table = self.table_for(state)
            try:
                end, slot = str(start["end"]), str(start["slot"])
            except (KeyError, TypeError):
                raise ValueError(f"a tipper start needs end and slot, got {start!r}") from None
            if end not in ("A", "B") or slot not in table.tipper.slot_order:
                raise ValueError(f"no Tipper slot {slot!r} at end {end!r}")
            table.place_ball(end, slot)

    def outcome(self, event: str, state: State, rng: np.random.Generator) -> str:
        self.table_for(state)
        if event == "tipper":
            return self.table.tilt(rng).label
        if event == "crater":
            return self.table.knock(state, rng).label
        raise ValueError(f"King of the Hill has no {event!r} event")

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None
