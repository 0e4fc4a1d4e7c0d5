"""King Kong for agents: a catalogue of every choice (roll, end the turn, decline the Safety Net,
pass, turn Kong left or right, climb 1-3, move or fly to a space, attack a groove, escape to a
space, play the Safety Net, discard a subset of the hand), a card named by its place in the sorted
hand; the observation from the observer's side (its own pawn and hand first)."""
from __future__ import annotations

import re
from itertools import combinations

import numpy as np

from tabletop.gamekit.codec import Codec, one_hot
from tabletop.games.king_kong.cards import Kind
from tabletop.games.king_kong.geometry import GROOVES
from tabletop.games.king_kong.labels import INNER_LABELS, LEFT, RIGHT
from tabletop.games.king_kong.rules import (HAND_SIZE, MISSIONS_TO_WIN, Attack, Climb, Decline, Discard, EndTurn,
                                            Escape, Fly, Game, Move, Pass, Phase, Roll, SafetyNet, Twist)

CLIMBS = tuple(sorted({int(n) for label in INNER_LABELS for n in re.findall(r"\d", label)}))
SLOTS = tuple(range(HAND_SIZE))
SUBSETS = tuple(c for k in range(HAND_SIZE + 1) for c in combinations(SLOTS, k))   # hand places discarded
PHASES = tuple(Phase)


class KongCodec(Codec):
    def __init__(self, game: Game):
        self.game = game
        self.spaces = tuple(game.board.names)
        n, s = game.players, len(self.spaces)
        self.size = (4 + 2 + len(CLIMBS) + 2 * s + len(GROOVES) * HAND_SIZE + HAND_SIZE * s + HAND_SIZE
                     + len(SUBSETS))
        self.where = self.spaces + GROOVES                  # a pawn on a space, or fitted in a groove
        kong = game.kong
        self.twists = 2 * kong.twist_limit + 1
        self.obs_size = (n * (len(self.where) + 1) + len(Kind) + (kong.top + 1) + self.twists + len(PHASES)
                         + 6 + n)

    def _catalogue(self, state) -> list:
        hand = sorted(state.hands[state.current]) + [None] * HAND_SIZE
        card = hand.__getitem__
        out = [Roll(), EndTurn(), Decline(), Pass(), Twist(LEFT), Twist(RIGHT)]
        out += [Climb(n) for n in CLIMBS]
        out += [Move(s) for s in self.spaces]
        heli = state.cards_of(state.current, Kind.HELICOPTER)
        out += [Fly(heli[0], s) if heli else None for s in self.spaces]     # the rules fly by the first
        out += [Attack(g, card(i)) if card(i) is not None else None for g in GROOVES for i in SLOTS]
        out += [Escape(card(i), s) if card(i) is not None else None for i in SLOTS for s in self.spaces]
        out += [SafetyNet(card(i)) if card(i) is not None else None for i in SLOTS]
        held = len(state.hands[state.current])
        out += [Discard(tuple(card(i) for i in sub)) if all(i < held for i in sub) else None for sub in SUBSETS]
        return out

    def observe(self, state, player: int) -> np.ndarray:
        g = self.game
        order = [player] + [p for p in range(g.players) if p != player]
        v: list[float] = []
        for p in order:
            at = state.groove[p] if state.groove[p] is not None else state.pos[p]
            v += one_hot(len(self.where), self.where.index(at))
            v.append(state.missions(p) / MISSIONS_TO_WIN)
        kinds = [g.deck[c].kind for c in state.hands[player]]
        v += [kinds.count(k) / HAND_SIZE for k in Kind]
        v += one_hot(g.kong.top + 1, state.climb)
        v += one_hot(self.twists, state.twist + g.kong.twist_limit)
        v += one_hot(len(PHASES), PHASES.index(state.phase))
        v += one_hot(6, state.roll - 1 if state.roll else None)
        v += [1.0 if state.current == p else 0.0 for p in order]
        return np.array(v, np.float32)
