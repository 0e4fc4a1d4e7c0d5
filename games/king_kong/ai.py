"""AI seats for King Kong: random, a one-ply heuristic, and a planner that manages its hand and
weighs the die's measured odds."""
from __future__ import annotations

import numpy as np

from tabletop.gamekit.seats import RandomSeat
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

    _memo: dict | None = None      # while `choose` scores one position: what every move's score shares

    def choose(self, state: State, rng: np.random.Generator):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self._memo = {}                # the position's attack spaces and Kong's reach, worked out once
        try:
            scores = np.array([self.score(state, a) for a in legal])
        finally:
            self._memo = None
        best = np.flatnonzero(scores == scores.max())
        return legal[int(best[rng.integers(len(best))])]

    def _memoized(self, key, compute):
        """compute() once per position scored by `choose` (every call outside it computes)."""
        memo = self._memo
        if memo is None:
            return compute()
        if key not in memo:
            memo[key] = compute()
        return memo[key]

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
        return self._memoized(("attack", p), lambda: self._attack_spaces(state, p))

    def _attack_spaces(self, state: State, p: int) -> dict[str, float]:
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
        near = self._memoized("near", lambda: g.geometry.near(state.climb * g.kong.samples,
                                                              state.twist * g.kong.samples))
        safe = 0.0 if g.board.space(to).is_window and to in near else 1.0
        if escaping:
            return safe
        targets = self.attack_spaces(state, p)
        if to in targets:
            return 100.0 + targets[to]
        dist = g.board.distances(to, self._memoized("covered", state.covered))
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


class PlannerSeat(HeuristicSeat):
    """The heuristic seat with a plan for its hand and its rolls:

    - discards: a card is kept only for a mission it can make: Attack cards for grooves a pawn can
      reach now and the Special Mission; a Helicopter, an Escape and a Safety Net only while it
      also holds such an Attack card (they help an attack, nothing else). Every other card goes,
      so the refill brings new Attack cards (the `ai` seat keeps them all game);
    - the Special Mission is played only while it holds the spinner (it then chooses how Kong
      moves, so it can steer him off its own pawn), or when that mission wins the game;
    - roll or fly: from the die's measured odds (`tables["die"]`, the published table by default)
      the chance that a roll ends on a space it can attack from; it flies when that is below
      `fly_below`.
    """

    name = "plan"
    KEEP_USABLE, KEEP_SPECIAL, KEEP_HELPER, DROP = 3.0, 5.0, 1.0, -1.0

    def __init__(self, tables: dict | None = None, fly_below: float = 0.5):
        if tables is None:
            from tabletop.gamekit.chance import measured_tables

            tables = measured_tables(("die",))
        die = tables["die"]
        total = sum(die.values())
        self.die = {int(face): p / total for face, p in die.items()}
        self.fly_below = fly_below

    def usable_attacks(self, state: State, p: int) -> list[int]:
        deck, places = state.game.deck, state.groove_places()
        return [c for c in state.hands[p] if deck[c].kind is Kind.ATTACK and places[deck[c].groove].attackable]

    def card_value(self, state: State, p: int, card: int) -> float:
        kind = state.game.deck[card].kind
        if kind is Kind.SPECIAL:
            return self.KEEP_SPECIAL
        if kind is Kind.ATTACK:
            return self.KEEP_USABLE if card in self.usable_attacks(state, p) else self.DROP
        return self.KEEP_HELPER if self.usable_attacks(state, p) else self.DROP

    def discard_value(self, state: State, p: int, discard: Discard) -> float:
        return -sum(self.card_value(state, p, c) for c in discard.cards)

    def attack_value(self, state: State, p: int, attack: Attack) -> float:
        if state.game.deck[attack.card].kind is Kind.SPECIAL:
            wins = state.missions(p) >= 1
            return self.SPECIAL_NEAR_WIN if wins or state.spinner == p else -1.0
        return self.ATTACK

    def roll_value(self, state: State, p: int) -> float:
        """Rolling scores 1000 when a roll likely reaches a space to attack from (or no flight
        helps), 0 (below any flight's 100) when flying is the better bet."""
        targets = self.attack_spaces(state, p)
        if not targets:
            return 1000.0
        dist = state.game.board.distances(state.pos[p], state.covered())
        reach = [dist[s] for s in targets if s in dist and dist[s] >= 1]
        p_reach = sum(p for face, p in self.die.items() if any(d <= face for d in reach))
        return 1000.0 if p_reach >= self.fly_below else 0.0


SEATS = {"ai": HeuristicSeat, "random": RandomSeat, "plan": PlannerSeat}


def make_seat(kind: str, source=None):
    """A seat of `kind`; a planner plans with the tables `source` draws from where it has them
    (tabletop.gamekit.chance.table_dicts), else with the published measured odds."""
    if kind == "plan":
        from tabletop.gamekit.chance import table_dicts

        tables = table_dicts(source)
        return PlannerSeat(tables if all(e in tables for e in ('die',)) else None)
    return SEATS[kind]()
