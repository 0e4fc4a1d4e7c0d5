"""Fixed action catalogues and observation vectors of the games, for agent environments.

An agent acts by a number: a game's `Codec` lists every action the game can ever offer at a
decision node, one number each (`size` of them), `encode`s a legal action to its number and
`decode`s a number back in a state, and gives the legal actions' numbers as a mask. Where an
action names a card, its number names the card's place in the player's sorted hand (so the
catalogue stays small). `observe(state, player)` is a float32 vector in [0, 1] of what `player`
sees (the whole board: these games hide nothing but the other hands and the shuffled pile).
"""
from __future__ import annotations

import abc

import numpy as np


class Codec(abc.ABC):
    """The base: `actions(state)` the catalogue in a state (number -> action, built lazily by
    the subclass's `_catalogue`); encode/decode/mask derive from it. A game supplies `size` and
    `obs_size` (set in its __init__), `_catalogue` and `observe`."""

    size: int
    obs_size: int

    @abc.abstractmethod
    def _catalogue(self, state) -> list:
        """Every catalogue entry in this state (None where the entry names nothing here)."""

    def decode(self, state, number: int):
        if not 0 <= number < self.size:
            raise ValueError(f"action number {number} is outside 0-{self.size - 1}")
        action = self._catalogue(state)[number]
        if action is None:
            raise ValueError(f"action number {number} names no action in this state")
        return action

    def encode(self, state, action) -> int:
        try:
            return self._catalogue(state).index(action)
        except ValueError:
            raise ValueError(f"{action} has no number in the catalogue") from None

    def mask(self, state) -> np.ndarray:
        """1 for the numbers of the legal actions, 0 elsewhere (all 0 off a decision node)."""
        m = np.zeros(self.size, np.int8)
        if state.is_terminal() or state.is_chance_node():
            return m
        catalogue = self._catalogue(state)
        for action in state.legal_actions():
            m[catalogue.index(action)] = 1
        return m

    @abc.abstractmethod
    def observe(self, state, player: int) -> np.ndarray:
        """What `player` sees of `state`: a float32 vector of `obs_size` values in [0, 1]."""


def one_hot(n: int, i: int | None) -> list[float]:
    """n zeros with a 1 at `i` (none when `i` is None)."""
    v = [0.0] * n
    if i is not None:
        v[i] = 1.0
    return v
