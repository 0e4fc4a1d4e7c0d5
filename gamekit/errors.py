"""Errors shared by the games' rules and the game contract."""

from tabletop.sim.errors import InputError


class IllegalMoveError(ValueError):
    """An action that the rules do not allow in this state; the message names the move and why."""


class GameError(InputError):
    """A game that cannot be registered, or a hook a game does not have: one line that says so."""
