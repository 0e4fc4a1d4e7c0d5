"""A stand-in fourth game, to show what a new game costs: this module and one registry line.

Coin race: two seats race their pawn from 0 to GOAL. Each turn the mover flips a coin, a real one
simulated by the `throw` device (a cylinder dropped on felt: top, bottom or side up); on top the
mover steps 1 or 2 (their choice), on bottom or side the turn passes. Its one option is the goal.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tabletop.gamekit.analyze import GameAnalysis, Observer
from tabletop.gamekit.chance import PhysicsSource, TableOutcomes
from tabletop.gamekit.codec import Codec
from tabletop.gamekit.definition import GameDefinition, Option
from tabletop.gamekit.seats import RandomSeat
from tabletop.gamekit.state import ChanceOutcome, Pass, State

COLOURS = ("red", "blue")
COIN = ("top", "bottom", "side")
COIN_SPEC = [("shape.kind", '"cylinder"'), ("shape.radius", "0.0125"), ("shape.height", "0.00885")]


@dataclass(frozen=True)
class Step:
    spaces: int

    def __str__(self) -> str:
        return f"step {self.spaces}"


class Game:
    players = 2

    def __init__(self, goal: int):
        self.goal = goal

    def new_initial_state(self):
        return Race(self)

    def piece_name(self, piece: int) -> str:
        return f"{COLOURS[piece]}'s pawn"


class Race(State):
    def __init__(self, game):
        super().__init__(game)
        self.pos = [0, 0]
        self.flipped = False
        self.winner = None

    def is_terminal(self) -> bool:
        return self.winner is not None

    def __str__(self) -> str:
        return f"red {self.pos[0]}, blue {self.pos[1]}, {COLOURS[self.current]} to {'step' if self.flipped else 'flip'}"

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else -1.0 for p in range(2)]

    @property
    def chance_event(self):
        return None if self.is_terminal() or self.flipped else "coin"

    @property
    def chance_player(self) -> int:
        return self.current

    def chance_outcomes(self):
        return COIN

    def _moves(self):
        return [Step(1), Step(2)]

    def _apply_chance(self, label: str) -> None:
        self._log(f"{COLOURS[self.current]} flips {label}")
        if label == "top":
            self.flipped = True
        else:
            self._next()

    def _apply_action(self, action) -> None:
        p = self.current
        self.pos[p] = min(self.game.goal, self.pos[p] + action.spaces)
        self._log(f"{COLOURS[p]} steps {action.spaces} to {self.pos[p]}")
        if self.pos[p] == self.game.goal:
            self.winner = p
            self._log(f"{COLOURS[p]} wins")
        self._next()

    def _next(self) -> None:
        self.flipped = False
        if not self.is_terminal():
            self.current = 1 - self.current
            self.turn += 1


class CoinTable:
    """The physical table: a coin dropped in the throw device's tray."""

    def __init__(self):
        from tabletop.gamekit.devices import make_device

        self.coin = make_device("throw", overrides=COIN_SPEC)
        self.world = self.coin.world

    def close(self) -> None:
        self.coin.close()


class CoinPhysics(PhysicsSource):
    def __init__(self):
        self.table = None

    def table_for(self, state):
        if self.table is None:
            self.table = CoinTable()
        return self.table

    def outcome(self, event, state, rng: np.random.Generator) -> str:
        from tabletop.gamekit.tables import until_labelled

        coin = self.table_for(state).coin
        return until_labelled("coin", lambda: coin.run(rng), {}, "the coin left the tray").label

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None


FAIR = {"coin": {"top": 0.5, "bottom": 0.5, "side": 0.0}}


class RaceObserver(Observer):
    def seen(self, state, action) -> None:
        pass

    def record(self, final) -> dict:
        return {"winners": [final.winner], "first": 0, "lengths": {"turns": final.turn}, "counts": {},
                "samples": {}, "proportions": {}}


class RaceCodec(Codec):
    size, obs_size = 2, 2

    def __init__(self, game):
        self.game = game

    def _catalogue(self, state):
        return [Step(1), Step(2)]

    def observe(self, state, player: int):
        return np.array([state.pos[player], state.pos[1 - player]], np.float32) / self.game.goal


class CoinRace(GameDefinition):
    name = "coin-race"
    title = "Coin race"
    colours = COLOURS
    seats = (2, 2)
    options = (Option("goal", 3, "spaces to the finish", minimum=1),)
    chance_events = ("coin",)
    seat_kinds = ("random",)

    def actions(self) -> dict:
        return {"step": Step, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        return Game(int(config["goal"]))

    def physics(self):
        return CoinPhysics()

    def make_source(self, outcomes: str):
        return CoinPhysics() if outcomes == "physics" else TableOutcomes(FAIR)

    def make_seat(self, kind, source, options):
        return RandomSeat()

    def banner(self, seats, seed, outcomes, options) -> str:
        return f"Coin race to {options['goal']}, seed {seed}"

    def result_lines(self, final) -> list[str]:
        return [f"winner: {COLOURS[final.winner]}"]

    def analysis(self):
        return GameAnalysis(
            make_game=lambda players, options: Game(options["goal"]), seats={"random": RandomSeat},
            make_seat=lambda kind, source: RandomSeat(), measured=(), source=lambda kind, files: TableOutcomes(FAIR),
            observer=RaceObserver, first_rule="red, always", fair_note="a fair coin that never lands on its side",
            what={"turns": "turns"})

    def codec(self, game):
        return RaceCodec(game)


DEFINITION = CoinRace()
