"""Coin race, a game for tabletop published as its own distribution: two pawns race to the goal on the
flips of a simulated coin, the coin race's own device (`coin`).

This module is the game's definition, the one thing tabletop imports first (entry point
`tabletop.games`: coin-race = "tabletop_coin_race:CoinRace"). It stays light: the rules, the
physics and the window are imported by the hooks that need them.
"""
from tabletop.gamekit.definition import GameDefinition, Option

COLOURS = ("red", "blue")


class CoinRace(GameDefinition):
    name = "coin-race"
    title = "Coin race"
    colours = COLOURS
    seats = (2, 2)
    options = (Option("goal", 4, "squares from the start to the goal", minimum=1),)
    chance_events = ("coin",)
    devices = ("coin",)                  # its measured table: tabletop_coin_race/measured/coin-10k-seed1.json
    seat_kinds = ("ai", "random", "human")

    # -- required hooks ----------------------------------------------------------------------
    def actions(self) -> dict:
        from tabletop.gamekit.state import ChanceOutcome, Pass
        from tabletop_coin_race.rules import Step

        return {"step": Step, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        from tabletop_coin_race.rules import Race

        return Race(next(o for o in self.options if o.name == "goal").check(config["goal"]))

    def physics(self):
        from tabletop_coin_race.table import CoinPhysics

        return CoinPhysics()

    def make_seat(self, kind: str, source, options: dict):
        from tabletop_coin_race.seats import SEATS

        return SEATS[kind]()

    def codec(self, game):
        from tabletop_coin_race.codec import RaceCodec

        return RaceCodec(game)

    # -- optional hooks --------------------------------------------------------------------
    def fair_tables(self) -> dict:
        """A fair coin never lands on its side."""
        return {"coin": {"top": 0.5, "bottom": 0.5, "side": 0.0}}

    def banner(self, seats, seed, outcomes, options) -> str:
        kinds = ", ".join(f"{c}={k}" for c, k in zip(COLOURS, seats))
        return f"Coin race to {options['goal']}, seats {kinds}, seed {seed}, outcomes {outcomes}"

    def window_adapter(self, seats, options: dict, scene=None):
        from tabletop_coin_race.view import CoinRaceAdapter

        return CoinRaceAdapter(options["goal"], scene)
