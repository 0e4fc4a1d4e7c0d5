"""Baseline AI seats for King Kong: random, and a one-ply heuristic."""
from __future__ import annotations

import numpy as np

from tabletop.games.seats import RandomSeat
from tabletop.games.king_kong.cards import Kind
from tabletop.games.king_kong.rules import Attack, Climb, Discard, Escape, Fly, Move, Roll, SafetyNet, State, Twist


class HeuristicSeat:
    """Plays each decision by a score, ties at random:

    - turn: fly by Helicopter straight to a space it can attack from when it holds the spinner
      (it will choose Kong's move) and the die might fall short, or when no roll reaches one;
    - move: onto a space it can attack from, else closer to one, else away from Kong;
    - attack whenever it can (the Special Mission first), then escape as far from Kong as it can;
    - always play a Safety Net after a fall, and never discard one (kept for risky attacks);
    - discard Attack cards for grooves no pawn can reach now (over the track or off the towers);
    - as the spinner: twist and climb so that its own pawns risk least and its opponents most
      (few notches keep its own pawn's groove steady), and climb as little as it may.
    """

    name = "ai"
    ATTACK, SPECIAL, SPECIAL_NEAR_WIN = 10.0, 12.0, 30.0
    GROOVE_RISK, GROOVE_RISK_PER_NOTCH, ADJACENT_RISK = 0.3, 0.1, 0.15
    OWN_RISK_WEIGHT, CLIMB_COST = 3.0, 0.5

    def choose(self, state: State, rng: np.random.Generator):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        scores = np.array([self.score(state, a) for a in legal])
        best = np.flatnonzero(scores == scores.max())
        return legal[int(best[rng.integers(len(best))])]

    # -- scores ---------------------------------------------------------------------------------
    def score(self, state: State, action) -> float:
        p = state.current
        if isinstance(action, Attack):
            return self.attack_value(state, p, action)
        if isinstance(action, (Move, Fly, Escape)):
            return self.space_value(state, p, action.to, escaping=isinstance(action, Escape))
        if isinstance(action, Roll):
            return self.roll_value(state, p)
        if isinstance(action, SafetyNet):
            return 1.0
        if isinstance(action, Discard):
            return self.discard_value(state, p, action)
        if isinstance(action, Twist):
            steps = state.choice_path(action.direction)
            return self.kong_value(state, p, steps, 0)
        if isinstance(action, Climb):
            return self.kong_value(state, p, state.twist_steps, action.notches) - self.CLIMB_COST * action.notches
        return 0.0      # EndTurn, Decline, Pass

    def attack_value(self, state: State, p: int, attack: Attack) -> float:
        if state.game.deck[attack.card].kind is Kind.SPECIAL:
            return self.SPECIAL_NEAR_WIN if state.missions(p) >= 1 else self.SPECIAL
        return self.ATTACK

    def attack_spaces(self, state: State, p: int) -> dict[str, float]:
        """Spaces it could attack from now -> the best attack's value."""
        deck, out = state.game.deck, {}
        held = {deck[c].groove: c for c in state.hands[p] if deck[c].is_mission}
        for groove, place in state.groove_places().items():
            if groove in held and place.attackable and state.groove_holder(groove) is None:
                value = self.attack_value(state, p, Attack(groove, held[groove]))
                for s in place.spaces:
                    out[s] = max(out.get(s, 0.0), value)
        return out

    def space_value(self, state: State, p: int, to: str, escaping: bool = False) -> float:
        g = state.game
        near = g.geometry.near(state.climb * g.kong.samples, state.twist * g.kong.samples)
        safe = 0.0 if g.board.space(to).is_window and to in near else 1.0
        if escaping:
            return safe
        targets = self.attack_spaces(state, p)
        if to in targets:
            return 100.0 + targets[to]
        dist = g.board.distances(to, state.covered())
        closest = min((dist[s] for s in targets if s in dist), default=None)
        return (-float(closest) if closest is not None else -10.0) + safe

    def roll_value(self, state: State, p: int) -> float:
        """Rolling scores 0; a Helicopter Ride scores 100 and more, so fly only where it pays."""
        targets = self.attack_spaces(state, p)
        if not targets:
            return 1000.0
        dist = state.game.board.distances(state.pos[p], state.covered())
        reach = [dist[s] for s in targets if s in dist and dist[s] >= 1]
        faces = sum(1 for n in range(1, 7) if any(d <= n for d in reach))
        if faces == 0:
            return 0.0
        return 1000.0 if state.spinner != p or faces == 6 else 0.0

    def discard_value(self, state: State, p: int, discard: Discard) -> float:
        deck, places = state.game.deck, state.groove_places()
        value = 0.0
        for c in discard.cards:
            card = deck[c]
            useless = card.kind is Kind.ATTACK and not places[card.groove].attackable
            value += 1.0 if useless else -1.0 - (card.kind is Kind.SAFETY_NET)
        return value

    def kong_value(self, state: State, p: int, steps: tuple[int, ...], climb: int) -> float:
        """What Kong's move threatens: opponents' pawns at risk count for it, its own against it."""
        g = state.game
        swept = g.geometry.swept(state.climb, state.twist, steps, climb)
        value = 0.0
        for q in range(g.players):
            if state.groove[q] is not None:
                risk = self.GROOVE_RISK + self.GROOVE_RISK_PER_NOTCH * len(steps)
            elif g.board.space(state.pos[q]).is_window and state.pos[q] in swept:
                risk = self.ADJACENT_RISK
            else:
                continue
            value += -self.OWN_RISK_WEIGHT * risk if q == p else risk
        return value


SEATS = {"ai": HeuristicSeat, "random": RandomSeat}
