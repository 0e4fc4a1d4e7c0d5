"""The King Kong physical table (the rig itself, the figure, the pawns and a move, is rig.py): the board lying flat, Kong on his ring and slide and the Attack Team
pawns in one World, the die's box lid beside the board in a World of its own; it answers the rules' chance events by
simulating them (the spinner spins in a World of its own: its pointer touches nothing).

Everything physical is built from the data files: the board from games/king_kong/board.toml, the
figure (outline, grooves and their notches, ring and slide) from assets/king_kong/kong.toml, the
pawns from assets/king_kong/pawn.toml, and the physics of the move (motors, hand, reading, settle)
from assets/king_kong/knockover.toml. docs/reconstruction-kong.md gives every number and why.

- The board: a static slab whose top is z = 0, with the track slot up the middle as a channel
  `board.track_depth` deep (a pawn pushed into it drops in).
- Kong: a flat cardboard standee lying parallel to the board, its underside `figure.clearance` above
  it: a fixed-base multibody whose first link (the slide) moves along the track on a prismatic joint
  (the climb) and whose second link (the figure, on its ring) turns about the vertical axis through
  the ring centre on a revolute joint (the twist). The figure is a compound of thin boxes: the body,
  each limb as a strip from the body to its groove, and at each groove a notch (a slot open at the
  limb's end, two prongs either side) where a pawn's body stands. Both joints are driven by motors
  that track a hand's strokes: one smooth stroke per notch (raised-cosine speed, zero at each
  notch), twist first notch by notch in the rules' direction, then the climb notch by notch.
- Pawns: dynamic compounds (base disc, body cylinder, head sphere) standing on the board: on their
  space, or in their groove with the groove point on their axis. Only the body reaches the figure's
  plane (the head is above it, the base below), so a pawn stands clear of Kong when its axis is a
  body radius from the outline.

A Kong move: in a renewed Bullet world (the board and Kong built again: nothing carries over from
an earlier move, see tabletop.sim.world.World.renew) every pawn is put where the state says
(kinematically), Kong is set at his start pose, the hand moves him, the pawns settle, and
each pawn at risk is read: knocked over (tilted beyond `reading.tilt_deg`, whatever knocked it, Kong
or another pawn), pushed out (its base disc overlaps its space no more; for a pawn in a groove, none
of the spaces the groove lay in or over), or standing. A move after which a pawn at risk rests
upright off the board (on another pawn or on the figure) is LODGED, one whose pawns do not settle
UNSETTLED: the move is done again with a fresh hand (counted), never coerced to a label; a pawn
pushed off the board's edge drops onto the table the board lies on and is read like any other
(pushed out, or knocked over); one leaving the table is an escape, a defect, and raises.
"""
from __future__ import annotations

import math

import numpy as np

from tabletop.gamekit.devices import default_spec
from tabletop.games.king_kong.board import Board, load_board
from tabletop.games.king_kong.geometry import Kong, load_kong
from tabletop.games.king_kong.layout import BOARD, DIE_ORIGIN, KONG, KongLayout, PawnShape, load_pawn, pawn_name
from tabletop.games.king_kong.rig import Hand, KongPhysics, KongRig, load_physics, run_move, sample_hand, spread
from tabletop.games.king_kong.rules import NO_RISK, State
from tabletop.gamekit.tables import until_labelled
from tabletop.sim.devices.base import Outcome
from tabletop.sim.world import PhysicsSettings, World
from tabletop.gamekit.chance import PhysicsSource, PhysicsTable


class KongTable(KongLayout, PhysicsTable):
    """One World with the board, Kong, `players` pawns and the die's box lid beside the board."""

    def __init__(self, players: int, board: Board | None = None, kong: Kong | None = None):
        from tabletop.sim.devices.die import Die

        kong = kong or load_kong()
        self.physics = load_physics(kong=kong)
        super().__init__(players, board or load_board(), kong, self.physics.pawn)
        self.world = World(PhysicsSettings(timestep=self.physics.timestep,
                                           solver_iterations=self.physics.solver_iterations,
                                           solver_residual_threshold=self.physics.solver_residual_threshold,
                                           contact_slop=self.physics.contact_slop))
        try:
            self.rig = KongRig(self.world, self.board, self.kong, self.physics, players)
            self.die = Die(default_spec("die"), origin=DIE_ORIGIN)   # its box lid, in a World of its own
        except BaseException:
            self.world.close()
            raise
        self.retries: dict[str, int] = {}
        self.moves: list[dict] = []          # each simulated kong-move: fates and readings

    @property
    def worlds(self) -> tuple[World, ...]:
        """The Worlds views draw: the table's and the die's box lid's."""
        return (self.world, self.die.world)

    def close(self) -> None:
        self.die.close()
        self.world.close()

    def place(self, state: State, hand: Hand) -> list[int]:
        """Put every pawn where the state says with Kong at his start pose; returns the pawns near Kong."""
        move, rig, board = state.kong_move, self.rig, self.board
        climb, twist = move.start
        rig.set_pose(climb, twist)
        places = state.game.geometry
        groove_of = {p: state.groove[p] for p in range(state.game.players) if state.groove[p] is not None}
        spots: list[tuple[float, float]] = []
        near = []
        margin = self.physics.place_jitter + 0.0005
        play = (rig.notch_width / 2 - self.physics.pawn.body_radius) * 0.8
        for p, groove in groove_of.items():
            gx, gy = self.kong.groove_point(groove, climb, twist)
            jx, jy = hand.jitter[p]
            scale = min(1.0, play / max(math.hypot(jx, jy), 1e-12))
            rects = tuple(board.space(s).rect for s in places.place(groove, climb, twist).spaces)
            rig.put(p, (gx + jx * scale, gy + jy * scale), rects, in_groove=True)
            spots.append((gx, gy))
            near.append(p)
        sharing: dict[str, list[int]] = {}
        for p in range(state.game.players):
            if p not in groove_of:
                sharing.setdefault(state.pos[p], []).append(p)
        for space, who in sharing.items():
            sp = board.space(space)
            if not sp.is_window:
                for p in who:
                    rig.put(p, self.safe_spot(sp, p), (sp.rect,))
                continue
            cx, cy = sp.centre
            for p, (dx, dy) in zip(who, spread(len(who), self.physics.pawn.base_radius)):
                x, y = rig.clear_spot((cx + dx, cy + dy), sp.rect, climb, twist, spots, margin)
                jx, jy = hand.jitter[p]
                rig.put(p, (x + jx, y + jy), (sp.rect,))
                spots.append((x, y))
                if math.hypot(x - rig.kong.ring_centre(climb)[0], y - rig.kong.ring_centre(climb)[1]) \
                        < rig.reach + self.kong.climb_step * (move.climb + 1) + 0.05:
                    near.append(p)
        return sorted(near)

    def kong_move(self, state: State, rng: np.random.Generator) -> str:
        """Simulate the pending Kong move among the pawns; the rules' label, each pawn at risk's fate."""
        move = state.kong_move
        if not move.at_risk:
            return NO_RISK

        def attempt() -> Outcome:
            hand = sample_hand(self.physics, state.game.players, rng)
            self.rig.renew()
            near = self.place(state, hand)
            return run_move(self.rig, move.twist_steps, move.climb, hand, near, [r.player for r in move.at_risk])

        outcome = until_labelled("kong-move", attempt, self.retries,
                                 "an Attack Team pawn left the board during Kong's move")
        self.moves.append(outcome.reading)
        return outcome.label

    def throw_die(self, rng: np.random.Generator) -> str:
        return until_labelled("die", lambda: self.die.run(rng), self.retries, "the die left the box lid").label


class PhysicsOutcomes(PhysicsSource):
    """Answers King Kong's chance events by simulating them: the die thrown into the box lid beside the
    board, the spinner flicked (twice a Kong move: the outer circle read after the first spin, the inner
    after the second), and Kong's move among the pawns on a KongTable. Shuffles are ShuffleSource's."""

    def __init__(self):
        self.table: KongTable | None = None
        self.spinner = None

    def table_for(self, state: State) -> KongTable:
        if self.table is None:
            self.table = KongTable(state.game.players, state.game.board, state.game.kong)
        return self.table

    def spinner_device(self):
        if self.spinner is None:
            from tabletop.sim.devices.spinner import Spinner

            self.spinner = Spinner(default_spec("spinner"))
        return self.spinner

    def outcome(self, event: str, state: State, rng: np.random.Generator) -> str:
        if event == "die":
            return self.table_for(state).throw_die(rng)
        if event in ("spin-outer", "spin-inner"):
            table = self.table_for(state)
            spun = until_labelled(event, lambda: self.spinner_device().run(rng), table.retries,
                                  "the spinner's pointer left its post")
            return spun.reading["outer" if event == "spin-outer" else "inner"]
        if event == "kong-move":
            return self.table_for(state).kong_move(state, rng)
        raise ValueError(f"King Kong physics has no {event!r} event (shuffles come from ShuffleSource)")

    def prepare(self, event: str, state: State) -> None:
        """Before a Kong move is watched: the table as the rules have it, Kong at rest at the move's
        start and every pawn standing on its spot (after a move simulated among pawns, Kong stops
        near a notch and the pawns lie where they fell; a move with no pawn at risk moves him in
        the rules alone), so the move's first frame follows from the state."""
        if event == "kong-move":
            table = self.table_for(state)
            table.place(state, Hand(0.0, 0.0, ((0.0, 0.0),) * state.game.players))

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None
        if self.spinner is not None:
            self.spinner.close()
            self.spinner = None


# the rig's names stay importable from here, as before rig.py held them
__all__ = ["KongTable", "PhysicsOutcomes", "KongRig", "PawnShape", "KongPhysics", "Hand", "load_physics",
           "load_pawn", "sample_hand", "run_move", "BOARD", "KONG", "pawn_name"]
