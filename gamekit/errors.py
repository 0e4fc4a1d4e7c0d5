"""Errors shared by the games' rules."""


class IllegalMoveError(ValueError):
    """An action that the rules do not allow in this state; the message names the move and why."""
