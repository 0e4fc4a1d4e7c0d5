"""King Kong: the rules as a Game/State pair, with no physics and no dice.

Chance is explicit. A state that needs chance is a *chance node*: `current_player` is CHANCE,
`chance_event` names it and the driver answers with `apply(ChanceOutcome(label))` from physics, a
measured table or a script; the outcome enters `history` like any action, so `Game.replay(history)`
re-drives a whole game. The events and their labels:

- "die": "1".."6" (the start rolls for the first player, and each movement roll).
- "spin-outer": the spinner's outer circle, how Kong twists: "L1", "L2" (left = counter-clockwise by
  1 or 2 notches), "R1", "R2" (right = clockwise), "LR1", "LR2" (1 or 2 notches, the spinning player
  chooses the direction), "UP" (return to up, the spinning player chooses the direction).
- "spin-inner": the inner circle, how Kong climbs: "U1", "U2", "U3" (notches up), "U1-2", "U2-3"
  (the spinning player chooses one of the two counts).
- "shuffle": the deck shuffled at set-up, or the discard pile shuffled into a new draw pile: the label
  is the new draw pile, top card first, as space-separated card numbers (deck.toml's order), a
  permutation of `shuffle_pile()`. Too many to list: `chance_outcomes()` is empty here.
- "kong-move": the physical result of Kong's move for every pawn at risk (`kong_move.at_risk`, in
  seat order): "COLOUR:FATE" tokens joined by spaces, FATE one of "standing", "knocked" (knocked
  over) and "pushed" (pushed out of its space), e.g. "red:standing blue:knocked"; "none" when no
  pawn is at risk. `kong_move` also says where each pawn is (groove or space), the twist and the
  climb, for a physics source to simulate and a table source to sample per pawn.

Space names, Kong's pose and the geometry are in board.py and geometry.py.

Ambiguities of the rulebook and how they are resolved here (also in the README's rules notes):

1. Set-up: the deck is shuffled and three cards dealt to each player, one at a time in seat order;
   then every player rolls the die for the first turn. Players tied for the highest roll again, only
   among themselves, until one is highest. Play passes to the left, which is the seat order.
2. Rounds: the highest roller holds the spinner and moves Kong before play begins. Each round the
   holder of the spinner plays first, the others follow to the left, then the holder moves Kong and
   passes the spinner left; the player it is passed to starts the next round (so the first round's
   holder moves Kong twice: before play and after round 1).
3. Kong's twist: a twist is made notch by notch. Kong's ring turns freely when kong.toml's
   twist_limit is half a turn (the default: 6 notches of 30 degrees; +6 and -6 are one pose, head
   down); with a smaller limit a twist that would pass it stops at the limit. "Return to up"
   turns Kong notch by notch in the chosen direction until he stands up; with a stop in the way
   only the short way is offered, and when he already stands up he does not move. "LR" and "UP"
   choices, like "U1-2" and "U2-3", are actions of the spinning player.
4. Kong climbs after he twists; reaching `notches_to_top` ends the game at once: Kong wins, even
   if a player would have won at the end of that round (he reached the top first).
5. Moving: a pawn moves 1 to the die's value spaces orthogonally and ends on another space than
   it started on (any walk, so any space at 1..n steps). It never enters or crosses a window space
   covered by Kong's body (a pawn left standing on one may step off it). Elevators and Start are
   each one space; the towers connect only through Start. Other pawns never block.
6. A player chooses, before rolling, between rolling the die and playing a Helicopter Ride card
   (to any space Kong does not cover, other than its own). Without a Helicopter card it rolls.
   A roll that allows no move loses the turn (Pass).
7. Attacking: only at the end of a move (roll or helicopter), from the space the groove lies in,
   or from any space bordering the line(s) the groove lies over (a groove is over a line when a
   fitted pawn would reach across it: within a pawn's radius); never over the track or off the
   towers. Attacking is optional. One pawn per groove. The card is placed face up until Kong moves.
   The pawn's space stays the space it attacked from.
8. Escape Equipment: right after an attack (not with the Special Mission) the pawn may leave the
   groove and move 1 to the card's value spaces, as in rule 5; the groove is free again, and the
   attack still counts if the pawn is standing after Kong's move.
9. At risk when Kong moves: every pawn fitted in a groove, and every pawn on a window space whose
   centre the figure's outline passes within kong.toml's sweep margin of, anywhere along the twist
   and the climb (including where Kong starts). Pawns on an elevator or on Start are safe. When no
   pawn is at risk the kong-move label is "none".
10. After Kong's move a pawn pushed out or knocked over goes back to Start; one still standing
    stays on its space (grooves never hold a pawn across rounds: the groove has moved away), even
    where Kong now covers that space. A player who attacked this round and whose pawn fell loses the
    card (to the discard pile) unless it plays a Safety Net (not with the Special Mission): then the
    mission counts and the net is discarded; the pawn still goes back to Start. A player who attacked
    and whose pawn stands (escaped pawns included) completes the mission and keeps the card. Players
    decide on Safety Nets in round order.
11. Winning: at the end of a round, after Kong's move and the Safety Nets: five missions, or the
    Special Mission and one other. Several such players share the victory.
12. A new round (not the first) starts with discards: in round order each player discards any of
    its cards (its choice), then each refills to three from the draw pile, in round order. When the
    draw pile runs out the discard pile is shuffled into a new draw pile (a "shuffle" event); when
    both are empty a hand stays short. Cards are never discarded at other times, except those used.
13. Special Mission: played like an Attack Right Hand card (Helicopter allowed), no Escape or Safety
    Net with it; completed it is kept, failed it is discarded.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property, lru_cache
from itertools import combinations, product
from typing import Union

from tabletop.gamekit import state as base
from tabletop.gamekit.state import CHANCE, TERMINAL, ChanceOutcome, Pass, replay  # noqa: F401 (the rules' vocabulary)
from tabletop.games.king_kong.board import START, Board, load_board
from tabletop.games.king_kong.cards import Deck, Kind, load_deck
from tabletop.games.king_kong.geometry import GROOVES, Geometry, Kong, load_kong
from tabletop.games.king_kong.labels import (COLOURS, DIE_LABELS, FATES, INNER_LABELS, LEFT, NO_RISK,  # noqa: F401
                                             OUTER_LABELS, RIGHT)

HAND_SIZE = 3
MISSIONS_TO_WIN = 5
MISSIONS_WITH_SPECIAL = 2      # the Special Mission and one other


class Phase(StrEnum):
    SHUFFLE = "shuffle"          # chance: a shuffle
    ORDER = "order"              # chance: a start roll
    SPIN_OUTER = "spin-outer"    # chance: the outer circle
    TWIST = "twist"              # the spinner chooses the twist's direction
    SPIN_INNER = "spin-inner"    # chance: the inner circle
    CLIMB = "climb"              # the spinner chooses the climb
    KONG_MOVE = "kong-move"      # chance: what Kong's move did to the pawns at risk
    SAFETY_NET = "safety-net"    # a fallen attacker decides on its Safety Net
    DISCARD = "discard"          # a player discards at the start of a round
    TURN = "turn"                # the player chooses: roll or fly
    DIE = "die"                  # chance: the movement roll
    MOVE = "move"                # the player chooses where to move
    ATTACK = "attack"            # the player may attack a groove
    ESCAPE = "escape"            # the player may escape
    OVER = "over"


CHANCE_PHASES = {Phase.SHUFFLE: "shuffle", Phase.ORDER: "die", Phase.SPIN_OUTER: "spin-outer",
                 Phase.SPIN_INNER: "spin-inner", Phase.KONG_MOVE: "kong-move", Phase.DIE: "die"}


@dataclass(frozen=True)
class Roll:
    def __str__(self) -> str:
        return "roll the die"


@dataclass(frozen=True)
class Fly:
    card: int
    to: str

    def __str__(self) -> str:
        return f"fly by Helicopter Ride (card {self.card}) to {self.to}"


@dataclass(frozen=True)
class Move:
    to: str

    def __str__(self) -> str:
        return f"move to {self.to}"


@dataclass(frozen=True)
class Attack:
    groove: str
    card: int

    def __str__(self) -> str:
        return f"attack the {_groove(self.groove)} with card {self.card}"


@dataclass(frozen=True)
class Escape:
    card: int
    to: str

    def __str__(self) -> str:
        return f"escape with card {self.card} to {self.to}"


@dataclass(frozen=True)
class EndTurn:
    def __str__(self) -> str:
        return "end the turn"


@dataclass(frozen=True)
class Twist:
    direction: int     # LEFT (+1) or RIGHT (-1)

    def __str__(self) -> str:
        return f"turn Kong {'left' if self.direction == LEFT else 'right'}"


@dataclass(frozen=True)
class Climb:
    notches: int

    def __str__(self) -> str:
        return f"climb {_count(self.notches, 'notch')}"


@dataclass(frozen=True)
class SafetyNet:
    card: int

    def __str__(self) -> str:
        return f"play the Safety Net (card {self.card})"


@dataclass(frozen=True)
class Decline:
    def __str__(self) -> str:
        return "play no Safety Net"


@dataclass(frozen=True)
class Discard:
    cards: tuple[int, ...]      # card numbers, kept sorted

    def __post_init__(self):
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))

    def __str__(self) -> str:
        return f"discard cards {list(self.cards)}" if self.cards else "discard nothing"


Action = Union[Roll, Fly, Move, Attack, Escape, EndTurn, Twist, Climb, SafetyNet, Decline, Discard, Pass,
               ChanceOutcome]


@dataclass(frozen=True)
class AtRisk:
    """A pawn Kong's move may knock over or push out: in a groove, or on a window space near his path."""

    player: int
    where: str           # the groove's name, or the window space
    in_groove: bool

    @property
    def group(self) -> str:
        """The kong-knockover table's group: the groove's name, or "adjacent"."""
        return self.where if self.in_groove else "adjacent"


@dataclass(frozen=True)
class KongMove:
    """Kong's move of this round: from pose `start` (climb, twist) twisting notch by notch
    (`twist_steps`: +1 left, -1 right), then climbing `climb` notches to `end`."""

    start: tuple[int, int]
    end: tuple[int, int]
    twist_steps: tuple[int, ...]
    climb: int
    at_risk: tuple[AtRisk, ...]

    @property
    def twist_key(self) -> str:
        """The twist done: "0", or "L" / "R" and the notches ("L2", "R1")."""
        if not self.twist_steps:
            return "0"
        return f"{'L' if self.twist_steps[0] == LEFT else 'R'}{len(self.twist_steps)}"


_GEOMETRIES: dict[tuple[int, int], Geometry] = {}


@lru_cache(maxsize=1)
def _defaults() -> tuple[Board, Kong, Deck]:
    """The board, figure and deck from the default data files, loaded once."""
    return load_board(), load_kong(), load_deck()


@dataclass(frozen=True)
class Game(base.Game):
    """Configuration: number of players, the board, Kong's figure and the deck."""

    players: int = 3
    board: Board = field(default_factory=lambda: _defaults()[0])
    kong: Kong = field(default_factory=lambda: _defaults()[1])
    deck: Deck = field(default_factory=lambda: _defaults()[2])

    def __post_init__(self):
        if not 2 <= self.players <= len(COLOURS):
            raise ValueError(f"King Kong is for 2-{len(COLOURS)} players, not {self.players}")

    @cached_property
    def geometry(self) -> Geometry:
        """Shared by every game on the same board and figure (its caches fill once per process)."""
        key = (id(self.board), id(self.kong))
        geometry = _GEOMETRIES.get(key)
        if geometry is None or geometry.board is not self.board or geometry.kong is not self.kong:
            geometry = _GEOMETRIES[key] = Geometry(self.board, self.kong)
        return geometry

    def piece_name(self, pawn: int) -> str:
        """Each player has one pawn, numbered by seat."""
        return f"{COLOURS[pawn]}'s pawn"

    def new_initial_state(self) -> "State":
        return State(self)



class State(base.State):
    """A King Kong position; mutate with `apply`, copy with `clone`."""

    def __init__(self, game: Game):
        super().__init__(game)
        n = game.players
        self.pos = [START] * n                    # each player's pawn: a space name
        self.groove: list[str | None] = [None] * n     # the groove the pawn is fitted in
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.draw: list[int] = []                 # top card first
        self.discard: list[int] = []
        self.kept: list[list[int]] = [[] for _ in range(n)]   # completed missions
        self.played: list[int | None] = [None] * n     # mission card face up this round
        self.climb, self.twist = 0, 0             # Kong's pose in notches
        self.phase = Phase.SHUFFLE
        self.shuffling = "deck"                   # the pile the pending shuffle is of
        self.current = 0                          # the player to decide (or to roll, spin)
        self.spinner = 0                          # who holds the spinner
        self.round = 0                            # 0 before play begins
        self.order: list[int] = []                # this round's players, in turn order
        self.turn_index = 0
        self.order_contenders = list(range(n))
        self.order_results: dict[int, int] = {}
        self.roll: int | None = None
        self.outer: str | None = None             # the outer circle's label, while Kong moves
        self.inner: str | None = None             # the inner circle's label, while Kong moves
        self.twist_steps: tuple[int, ...] = ()
        self.kong_move: KongMove | None = None    # set from the climb until the kong-move is answered
        self.fates: dict[int, str] = {}
        self.pending_nets: list[int] = []
        self.pending_discards: list[int] = []
        self.pending_refills: list[int] = []
        self.winners: list[int] = []
        self.kong_won = False
        self.turn = 0                             # player turns started
        self._log(f"King Kong, {n} players ({', '.join(COLOURS[:n])}); Kong stands up at the bottom of the "
                  f"track, notch 0 of {game.kong.top}; the deck of {len(game.deck)} cards is shuffled")

    # -- queries ---------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def chance_event(self) -> str | None:
        return CHANCE_PHASES.get(self.phase)

    @property
    def chance_player(self) -> int:
        """The player who rolls or spins (for a shuffle or Kong's move: the spinner's holder)."""
        if self.phase is Phase.ORDER:
            return self.order_contenders[len(self.order_results)]
        return self.current

    def chance_outcomes(self) -> tuple[str, ...]:
        """The labels the pending chance event can give (empty for a shuffle: see shuffle_pile)."""
        if self.phase in (Phase.ORDER, Phase.DIE):
            return DIE_LABELS
        if self.phase is Phase.SPIN_OUTER:
            return OUTER_LABELS
        if self.phase is Phase.SPIN_INNER:
            return INNER_LABELS
        if self.phase is Phase.KONG_MOVE:
            risk = self.kong_move.at_risk
            if not risk:
                return (NO_RISK,)
            names = [COLOURS[r.player] for r in risk]
            return tuple(" ".join(f"{c}:{f}" for c, f in zip(names, fates))
                         for fates in product(FATES, repeat=len(risk)))
        return ()

    def shuffle_pile(self) -> list[int]:
        """The card numbers the pending shuffle puts in order (sorted)."""
        if self.phase is not Phase.SHUFFLE:
            return []
        return list(range(len(self.game.deck))) if self.shuffling == "deck" else sorted(self.discard)

    def covered(self) -> frozenset[str]:
        """Window spaces Kong's body covers now."""
        return self.game.geometry.covered(self.climb, self.twist)

    def groove_places(self):
        """Groove -> where it lies now (a GroovePlace)."""
        return {g: self.game.geometry.place(g, self.climb, self.twist) for g in GROOVES}

    def groove_holder(self, groove: str) -> int | None:
        for p, g in enumerate(self.groove):
            if g == groove:
                return p
        return None

    def missions(self, player: int) -> int:
        return len(self.kept[player])

    def has_won(self, player: int) -> bool:
        special = any(self.game.deck[c].kind is Kind.SPECIAL for c in self.kept[player])
        return self.missions(player) >= MISSIONS_TO_WIN or (special and self.missions(player) >= MISSIONS_WITH_SPECIAL)

    def returns(self) -> list[float]:
        return [1.0 if p in self.winners else (-1.0 if self.is_terminal() else 0.0)
                for p in range(self.game.players)]

    def reachable(self, origin: str, steps: int) -> list[str]:
        """Spaces 1..steps orthogonal steps from `origin`, never entering a space Kong covers."""
        dist = self.game.board.distances(origin, self.covered())
        return [s for s, d in dist.items() if 1 <= d <= steps]

    def cards_of(self, player: int, kind: Kind) -> list[int]:
        return sorted(c for c in self.hands[player] if self.game.deck[c].kind is kind)

    def attacks(self, player: int) -> list[Attack]:
        """The attacks `player` may make from its space with the cards in its hand."""
        here, deck, out = self.pos[player], self.game.deck, []
        for groove, place in self.groove_places().items():
            if not place.attackable or here not in place.spaces or self.groove_holder(groove) is not None:
                continue
            attack = [c for c in sorted(self.hands[player]) if deck[c].kind is Kind.ATTACK and deck[c].groove == groove]
            special = [c for c in self.hands[player] if deck[c].kind is Kind.SPECIAL and deck[c].groove == groove]
            out += [Attack(groove, c) for c in attack[:1] + special]
        return out

    def escapes(self, player: int) -> list[Escape]:
        """The escapes open to `player` after its attack (none after the Special Mission)."""
        if self._special_played(player):
            return []
        best: dict[int, int] = {}
        for c in self.cards_of(player, Kind.ESCAPE):
            best.setdefault(self.game.deck[c].spaces, c)
        return [Escape(c, to) for n, c in sorted(best.items()) for to in self.reachable(self.pos[player], n)]

    def _moves(self) -> list[Action]:
        p = self.current
        if self.phase is Phase.TURN:
            heli = self.cards_of(p, Kind.HELICOPTER)
            covered = self.covered()
            return [Roll()] + [Fly(heli[0], s) for s in self.game.board.names
                               if s != self.pos[p] and s not in covered]
        if self.phase is Phase.MOVE:
            return [Move(s) for s in self.reachable(self.pos[p], self.roll)] or [Pass()]
        if self.phase is Phase.ATTACK:
            return self.attacks(p) + [EndTurn()]
        if self.phase is Phase.ESCAPE:
            return self.escapes(p) + [EndTurn()]
        if self.phase is Phase.TWIST:
            return [Twist(LEFT), Twist(RIGHT)]
        if self.phase is Phase.CLIMB:
            low = int(self.inner[1])
            return [Climb(low), Climb(low + 1)]
        if self.phase is Phase.SAFETY_NET:
            return [SafetyNet(self.cards_of(p, Kind.SAFETY_NET)[0]), Decline()]
        if self.phase is Phase.DISCARD:
            hand = sorted(self.hands[p])
            return [Discard(c) for k in range(len(hand) + 1) for c in combinations(hand, k)]
        return []

    # -- transitions -----------------------------------------------------------------------
    def _apply_chance(self, label: str) -> None:
        {Phase.SHUFFLE: self._apply_shuffle, Phase.ORDER: self._apply_order,
         Phase.SPIN_OUTER: self._apply_outer, Phase.SPIN_INNER: self._apply_inner,
         Phase.KONG_MOVE: self._apply_kong_move, Phase.DIE: self._apply_die}[self.phase](label)

    def _not_chance(self) -> str:
        return f"no chance event is pending ({self._who()} must decide: {self._pending()})"

    def _illegal(self, action: Action) -> str:
        return f"{self.describe(action)}: {self._why_not(action)}"

    def describe(self, action: Action) -> str:
        """An action as a player reads it (a refusal begins with it): its cards by their names, as
        the log names them (the action's own text numbers them in the deck)."""
        deck = self.game.deck
        cards = getattr(action, "cards", (getattr(action, "card", None),))
        if any(not isinstance(c, int) or not 0 <= c < len(deck.cards) for c in cards):
            return str(action)
        if isinstance(action, Fly):
            return f"fly by Helicopter Ride to {action.to}"
        if isinstance(action, Attack):
            return f"attack the {_groove(action.groove)} with {deck[action.card]}"
        if isinstance(action, Escape):
            return f"escape with {deck[action.card]} to {action.to}"
        if isinstance(action, SafetyNet):
            return "play the Safety Net"
        if isinstance(action, Discard):
            return f"discard {deck.names(action.cards)}"
        return str(action)

    def _is_legal(self, action: Action) -> bool:
        """`action in legal_actions()`, without listing every flight and move."""
        p = self.current
        if isinstance(action, Fly) and self.phase is Phase.TURN:
            heli = self.cards_of(p, Kind.HELICOPTER)
            return (bool(heli) and action.card == heli[0] and action.to in self.game.board
                    and action.to != self.pos[p] and action.to not in self.covered())
        if isinstance(action, Move) and self.phase is Phase.MOVE:
            return action.to in self.reachable(self.pos[p], self.roll)
        return action in self.legal_actions()

    def _bad_label(self, label: str) -> str:
        """Why a chance label cannot answer the pending event ('' when it can)."""
        event = self.chance_event
        if event == "shuffle":
            pile = self.shuffle_pile()
            try:
                order = [int(t) for t in label.split()]
            except ValueError:
                return f"a shuffle is a list of card numbers, not {label!r}"
            if sorted(order) != pile:
                return (f"the shuffle must put exactly the {len(pile)} cards of the "
                        f"{'deck' if self.shuffling == 'deck' else 'discard pile'} in order, each once")
            return ""
        if event == "kong-move":
            risk = self.kong_move.at_risk
            want = [COLOURS[r.player] for r in risk]
            if not risk:
                return "" if label == NO_RISK else f"no pawn is at risk, so Kong's move gives {NO_RISK!r}"
            tokens = [t.partition(":") for t in label.split()]
            if [t[0] for t in tokens] != want or any(t[2] not in FATES for t in tokens):
                return (f"Kong's move must give a fate ({', '.join(FATES)}) for each pawn at risk, in this "
                        f"order: {' '.join(c + ':FATE' for c in want)}")
            return ""
        if label not in self.chance_outcomes():
            return f"the {event} cannot give {label!r}; it gives {', '.join(self.chance_outcomes())}"
        return ""

    def _apply_action(self, action: Action) -> None:
        p = self.current
        name = COLOURS[p]
        deck = self.game.deck
        if isinstance(action, Pass):
            self._log(f"{name} cannot move with a {self.roll} and loses the turn")
            self._end_turn()
        elif isinstance(action, Roll):
            self.phase = Phase.DIE
        elif isinstance(action, Move):
            steps = self.game.board.distances(self.pos[p], self.covered())[action.to]
            self._log(f"{name} moves from {_at(self.pos[p])} to {_at(action.to)} ({_count(steps, 'space')})")
            self.pos[p] = action.to
            self._after_move()
        elif isinstance(action, Fly):
            self.hands[p].remove(action.card)
            self.discard.append(action.card)
            self._log(f"{name} plays Helicopter Ride and flies from {_at(self.pos[p])} to {_at(action.to)}")
            self.pos[p] = action.to
            self._after_move()
        elif isinstance(action, Attack):
            self.hands[p].remove(action.card)
            self.played[p], self.groove[p] = action.card, action.groove
            place = self.game.geometry.place(action.groove, self.climb, self.twist)
            self._log(f"{name} attacks Kong's {_groove(action.groove)} ({place}) from {_at(self.pos[p])} "
                      f"with {deck[action.card]}")
            if deck[action.card].kind is Kind.ATTACK and self.escapes(p):
                self.phase = Phase.ESCAPE
            else:
                self._end_turn()
        elif isinstance(action, Escape):
            self.hands[p].remove(action.card)
            self.discard.append(action.card)
            self.groove[p] = None
            self._log(f"{name} escapes with {deck[action.card]} from the {_groove(self.played_groove(p))} "
                      f"to {_at(action.to)}")
            self.pos[p] = action.to
            self._end_turn()
        elif isinstance(action, EndTurn):
            # only a seat holding the card has this choice: the others do not learn it was declined
            if self.phase is Phase.ATTACK:
                self._log(f"{name} does not attack", p)
            else:
                self._log(f"{name} stays in the {_groove(self.groove[p])} groove", p)
            self._end_turn()
        elif isinstance(action, Twist):
            self._log(f"{name} chooses to turn Kong {'left' if action.direction == LEFT else 'right'}")
            self._do_twist(action.direction, None if self.outer == "UP" else int(self.outer[2]))
        elif isinstance(action, Climb):
            self._log(f"{name} chooses to climb {_count(action.notches, 'notch')}")
            self._do_climb(action.notches)
        elif isinstance(action, SafetyNet):
            card = self.played[p]
            self.hands[p].remove(action.card)
            self.discard.append(action.card)
            self.kept[p].append(card)
            self.played[p] = None
            self._log(f"{name} plays a Safety Net: the mission ({deck[card]}) counts, "
                      f"{_count(self.missions(p), 'mission')}")
            self._next_net()
        elif isinstance(action, Decline):
            self._lose_card(p)
            self._next_net()
        elif isinstance(action, Discard):
            for c in action.cards:
                self.hands[p].remove(c)
                self.discard.append(c)
            if action.cards:
                self._log(f"{name} discards {deck.names(action.cards)}")
            self._next_discard()

    def played_groove(self, player: int) -> str:
        return self.game.deck[self.played[player]].groove

    # -- set-up and turn order -------------------------------------------------------------
    def _apply_shuffle(self, label: str) -> None:
        order = [int(t) for t in label.split()]
        if self.shuffling == "deck":
            self.draw = order
            for _ in range(HAND_SIZE):
                for p in range(self.game.players):
                    self.hands[p].append(self.draw.pop(0))
            for p in range(self.game.players):
                self._log(f"{COLOURS[p]} is dealt {self.game.deck.names(self.hands[p])}", p,
                          f"{COLOURS[p]} is dealt {_count(len(self.hands[p]), 'card')}")
            self.phase = Phase.ORDER
            return
        self._log(f"the draw pile is empty: the discard pile ({_count(len(order), 'card')}) is shuffled into "
                  f"a new draw pile")
        self.draw, self.discard = order, []
        self._refill()

    def _apply_order(self, label: str) -> None:
        p = self.order_contenders[len(self.order_results)]
        self.order_results[p] = int(label)
        self._log(f"{COLOURS[p]} rolls {label} for the first turn")
        if len(self.order_results) < len(self.order_contenders):
            return
        best = max(self.order_results.values())
        top = [q for q in self.order_contenders if self.order_results[q] == best]
        self.order_results = {}
        if len(top) > 1:
            self.order_contenders = top
            self._log(f"{' and '.join(COLOURS[q] for q in top)} tie with {best} and roll again")
            return
        self.spinner = self.current = top[0]
        self._log(f"{COLOURS[top[0]]} rolls highest, takes the spinner and moves Kong before play begins")
        self.phase = Phase.SPIN_OUTER

    # -- Kong's move ---------------------------------------------------------------------------
    def _apply_outer(self, label: str) -> None:
        name = COLOURS[self.current]
        self.outer = label
        self._log(f"{name} spins {label} on the outer circle ({_outer_text(label)})")
        if label in ("L1", "L2", "R1", "R2"):
            self._do_twist(LEFT if label[0] == "L" else RIGHT, int(label[1]))
        elif label in ("LR1", "LR2"):
            self.phase = Phase.TWIST
        else:
            ways = self._up_ways()
            if len(ways) > 1:
                self.phase = Phase.TWIST
            else:
                self._do_twist(ways[0] if ways else LEFT, None if ways else 0)

    def _up_ways(self) -> list[int]:
        """The directions that bring Kong back up (none when he stands up)."""
        return self.game.kong.up_ways(self.twist)

    def choice_path(self, direction: int) -> tuple[int, ...]:
        """While the spinner chooses a direction: the notch steps that direction would twist."""
        return self._path(direction, None if self.outer == "UP" else int(self.outer[2]))

    def _path(self, direction: int, notches: int | None) -> tuple[int, ...]:
        return self.game.kong.twist_path(self.twist, direction, notches)

    def _end_twist(self, steps: tuple[int, ...]) -> int:
        return self.game.kong.end_twist(self.twist, steps)

    def _do_twist(self, direction: int, notches: int | None) -> None:
        steps = self._path(direction, notches) if notches != 0 else ()
        self.twist_steps = steps
        if not steps:
            self._log("Kong does not twist" + (" (he stands up already)" if self.outer == "UP" else
                                               " (he is at the twist limit)"))
        else:
            way = "left" if direction == LEFT else "right"
            short = "" if notches is None or len(steps) == notches else " (stopped at the twist limit)"
            self._log(f"Kong will twist {way} {_count(len(steps), 'notch')}{short} (ending "
                      f"{_pose_twist(self._end_twist(steps))})")
        self.phase = Phase.SPIN_INNER

    def _apply_inner(self, label: str) -> None:
        self._log(f"{COLOURS[self.current]} spins {label} on the inner circle ({_inner_text(label)})")
        if "-" in label:
            self.inner = label
            self.phase = Phase.CLIMB
        else:
            self._do_climb(int(label[1]))

    def _do_climb(self, notches: int) -> None:
        g = self.game
        start = (self.climb, self.twist)
        end_twist = self._end_twist(self.twist_steps)
        climb = min(self.climb + notches, g.kong.top)
        self.climb, self.twist = climb, end_twist
        if climb >= g.kong.top:
            self._log(f"Kong climbs {_count(notches, 'notch')} to the top of the World Trade Center: Kong wins")
            self.kong_won = True
            self.phase = Phase.OVER
            return
        swept = g.geometry.swept(start[0], start[1], self.twist_steps, climb - start[0])
        risk = []
        for p in range(g.players):
            if self.groove[p] is not None:
                risk.append(AtRisk(p, self.groove[p], True))
            elif g.board.space(self.pos[p]).is_window and self.pos[p] in swept:
                risk.append(AtRisk(p, self.pos[p], False))
        self.kong_move = KongMove(start, (climb, end_twist), self.twist_steps, climb - start[0], tuple(risk))
        self._log(f"Kong will climb {_count(notches, 'notch')} to notch {climb} of {g.kong.top}"
                  + (f"; at risk: {', '.join(_risk_text(r) for r in risk)}" if risk else "; no pawn is at risk"))
        self.phase = Phase.KONG_MOVE

    def _apply_kong_move(self, label: str) -> None:
        move = self.kong_move
        fates = {} if label == NO_RISK else {r.player: t.partition(":")[2] for r, t in zip(move.at_risk, label.split())}
        self._log(f"Kong moves: now at notch {move.end[0]}, {_pose_twist(move.end[1])}")
        if move.at_risk:
            self._log("Kong's move: " + ", ".join(f"{_risk_text(r)} {_fate_text(fates[r.player])}"
                                                    for r in move.at_risk))
        self.kong_move, self.outer, self.inner, self.twist_steps = None, None, None, ()
        self.groove = [None] * self.game.players
        fallen = [p for p, f in fates.items() if f != "standing"]
        for p in fallen:
            self.pos[p] = START
        if fallen:
            self._log(f"back to Start: {', '.join(COLOURS[p] for p in fallen)}")
        self.pending_nets = []
        deck = self.game.deck
        for p in self.order:
            card = self.played[p]
            if card is None:
                continue
            if p not in fallen:
                self.kept[p].append(card)
                self.played[p] = None
                self._log(f"{COLOURS[p]} completes the mission ({deck[card]}): {_count(self.missions(p), 'mission')}")
            elif deck[card].kind is Kind.ATTACK and self.cards_of(p, Kind.SAFETY_NET):
                self.pending_nets.append(p)
            else:
                self._lose_card(p)
        self._next_net()

    def _lose_card(self, p: int) -> None:
        card = self.played[p]
        self.discard.append(card)
        self.played[p] = None
        self._log(f"{COLOURS[p]} fails the mission and discards {self.game.deck[card]}")

    def _next_net(self) -> None:
        if self.pending_nets:
            self.current = self.pending_nets.pop(0)
            self.phase = Phase.SAFETY_NET
            return
        if self.round == 0:
            self._start_round()
            return
        won = [p for p in range(self.game.players) if self.has_won(p)]
        if won:
            self.winners = won
            self.phase = Phase.OVER
            if len(won) == 1:
                n = self.missions(won[0])
                special = any(self.game.deck[c].kind is Kind.SPECIAL for c in self.kept[won[0]])
                how = (f"the Special Mission and {n - 1} other" if special and n < MISSIONS_TO_WIN
                       else _count(n, "mission"))
                self._log(f"end of round {self.round}: {COLOURS[won[0]]} wins with {how}")
            else:
                self._log(f"end of round {self.round}: {' and '.join(COLOURS[p] for p in won)} share the victory")
            return
        old, self.spinner = self.spinner, (self.spinner + 1) % self.game.players
        self._log(f"{COLOURS[old]} passes the spinner to {COLOURS[self.spinner]}")
        self._start_round()

    # -- rounds and turns ------------------------------------------------------------------------
    def _start_round(self) -> None:
        n = self.game.players
        self.round += 1
        self.order = [(self.spinner + i) % n for i in range(n)]
        self._log(f"round {self.round}: {COLOURS[self.spinner]} holds the spinner and plays first "
                  f"(Kong at notch {self.climb}, {_pose_twist(self.twist)})")
        if self.round == 1:
            self._begin_turn(0)
            return
        self.pending_discards = [p for p in self.order if self.hands[p]]
        self.pending_refills = list(self.order)
        self._next_discard()

    def _next_discard(self) -> None:
        if self.pending_discards:
            self.current = self.pending_discards.pop(0)
            self.phase = Phase.DISCARD
            return
        self._refill()

    def _refill(self) -> None:
        while self.pending_refills:
            p = self.pending_refills[0]
            drawn = []
            while len(self.hands[p]) < HAND_SIZE and (self.draw or self.discard):
                if not self.draw:
                    if drawn:
                        self._draws(p, drawn)
                    self.shuffling, self.phase, self.current = "discard", Phase.SHUFFLE, self.spinner
                    return
                card = self.draw.pop(0)
                self.hands[p].append(card)
                drawn.append(card)
            if drawn:
                self._draws(p, drawn)
            self.pending_refills.pop(0)
        self._begin_turn(0)

    def _draws(self, p: int, drawn: list[int]) -> None:
        """The cards `p` draws: named to `p` alone (a hand is held without revealing it)."""
        self._log(f"{COLOURS[p]} draws {self.game.deck.names(drawn)}", p,
                  f"{COLOURS[p]} draws {_count(len(drawn), 'card')}")

    def _begin_turn(self, index: int) -> None:
        self.turn_index = index
        p = self.current = self.order[index]
        self.turn += 1
        self.roll = None
        self.phase = Phase.TURN if self.cards_of(p, Kind.HELICOPTER) else Phase.DIE

    def _apply_die(self, label: str) -> None:
        self.roll = int(label)
        self._log(f"{COLOURS[self.current]} rolls {label}")
        self.phase = Phase.MOVE

    def _after_move(self) -> None:
        if self.attacks(self.current):
            self.phase = Phase.ATTACK
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self.turn_index + 1 < len(self.order):
            self._begin_turn(self.turn_index + 1)
            return
        self.current = self.spinner
        self._log(f"end of round {self.round}: {COLOURS[self.spinner]} moves Kong")
        self.phase = Phase.SPIN_OUTER

    # -- why an action is not allowed -------------------------------------------------------------
    def _who(self) -> str:
        return COLOURS[self.current]

    def _pending(self) -> str:
        return {Phase.TURN: "roll the die or fly", Phase.MOVE: "move", Phase.ATTACK: "attack or end the turn",
                Phase.ESCAPE: "escape or end the turn", Phase.TWIST: "turn Kong left or right",
                Phase.CLIMB: "how far Kong climbs", Phase.SAFETY_NET: "play the Safety Net or not",
                Phase.DISCARD: "which cards to discard"}[self.phase]

    def _why_not(self, action: Action) -> str:
        """Why a player's action that is not among the legal actions is not allowed."""
        p, name, deck = self.current, self._who(), self.game.deck
        wanted = {Roll: (Phase.TURN,), Fly: (Phase.TURN,), Move: (Phase.MOVE,), Pass: (Phase.MOVE,),
                  Attack: (Phase.ATTACK,), Escape: (Phase.ESCAPE,), EndTurn: (Phase.ATTACK, Phase.ESCAPE),
                  Twist: (Phase.TWIST,), Climb: (Phase.CLIMB,), SafetyNet: (Phase.SAFETY_NET,),
                  Decline: (Phase.SAFETY_NET,), Discard: (Phase.DISCARD,)}.get(type(action))
        if wanted is None:
            return "not a King Kong action"
        if isinstance(action, Fly) and self.phase is Phase.MOVE:
            return f"{name} has rolled the die and cannot change its mind and play a Helicopter Ride"
        if isinstance(action, (Escape, SafetyNet)) and self._special_played(p):
            return f"no {'Escape Equipment' if isinstance(action, Escape) else 'Safety Net'} with the Special Mission"
        if self.phase not in wanted:
            return f"{name} must now decide {self._pending()}"
        board = self.game.board
        if isinstance(action, (Move, Fly, Escape)) and action.to not in board:
            return f"there is no space {action.to!r}"
        if isinstance(action, Pass):
            return f"a legal move exists, so the {self.roll} must be used"
        if isinstance(action, Fly):
            if action.card not in self.hands[p] or deck[action.card].kind is not Kind.HELICOPTER:
                return f"{name} holds no such Helicopter Ride card"
            if action.to == self.pos[p]:
                return "a pawn must move at least one space"
            return f"{action.to} is covered by Kong"
        if isinstance(action, (Move, Escape)):
            if isinstance(action, Escape):
                if action.card not in self.hands[p] or deck[action.card].kind is not Kind.ESCAPE:
                    return f"{name} holds no such Escape Equipment card"
                steps = deck[action.card].spaces
            else:
                steps = self.roll
            return self._why_not_reach(action.to, steps)
        if isinstance(action, Attack):
            return self._why_not_attack(action)
        if isinstance(action, SafetyNet):
            return f"{name} holds no such Safety Net card"
        if isinstance(action, Discard):
            return f"{name} does not hold all of these cards (hand: {deck.names(sorted(self.hands[p]))})"
        if isinstance(action, Climb):
            return f"the spinner gave {self.inner}: climb {' or '.join(str(c.notches) for c in self.legal_actions())}"
        return f"not allowed now (legal: {'; '.join(self.describe(a) for a in self.legal_actions())})"

    def _special_played(self, p: int) -> bool:
        card = self.played[p]
        return card is not None and self.game.deck[card].kind is Kind.SPECIAL

    def _why_not_reach(self, to: str, steps: int) -> str:
        here = self.pos[self.current]
        if to == here:
            return "a pawn must move at least one space"
        if to in self.covered():
            return f"{to} is covered by Kong"
        dist = self.game.board.distances(here, self.covered())
        if to not in dist:
            return f"{to} cannot be reached from {_at(here)}: Kong blocks every way"
        free = self.game.board.distances(here)
        board = self.game.board
        detour = dist[to] > free[to]
        other = {board.space(here).tower, board.space(to).tower} == {"L", "R"}
        why = (" (the towers connect only through Start)" if other else
               " (Kong covers the shorter ways)" if detour else "")
        return f"{to} is {_count(dist[to], 'space')} from {_at(here)}{why}, more than {steps}"

    def _why_not_attack(self, action: Attack) -> str:
        p, deck = self.current, self.game.deck
        if action.groove not in GROOVES:
            return f"Kong has no groove {action.groove!r} (grooves: {', '.join(GROOVES)})"
        card = action.card
        if card not in self.hands[p] or not deck[card].is_mission or deck[card].groove != action.groove:
            return f"{COLOURS[p]} holds no such card naming the {_groove(action.groove)}"
        place = self.game.geometry.place(action.groove, self.climb, self.twist)
        if not place.attackable:
            return f"the {_groove(action.groove)} groove is {place}: no pawn fits there"
        holder = self.groove_holder(action.groove)
        if holder is not None:
            return f"{COLOURS[holder]} is already in the {_groove(action.groove)} groove"
        if self.pos[p] not in place.spaces:
            return f"the {_groove(action.groove)} groove is {place}, not reachable from {_at(self.pos[p])}"
        return f"another copy of {deck[card]} stands for this choice (the rules offer one card of a kind)"

    def __str__(self) -> str:
        parts = []
        for p in range(self.game.players):
            where = self.pos[p] + (f"[{self.groove[p]}]" if self.groove[p] else "")
            parts.append(f"{COLOURS[p]}@{where} missions {self.missions(p)} hand {sorted(self.hands[p])}")
        return (f"[round {self.round}, {self.phase}, {COLOURS[self.current]}; Kong {self.climb}/{self.game.kong.top} "
                f"{_pose_twist(self.twist)}] " + "; ".join(parts))


def _count(n: int, unit: str) -> str:
    plural = unit + ("es" if unit.endswith("ch") else "s")
    return f"{n} {unit if n == 1 else plural}"


def _at(space: str) -> str:
    return "Start" if space == START else space


def _groove(groove: str) -> str:
    return groove.replace("_", " ")


def _pose_twist(twist: int) -> str:
    if twist == 0:
        return "standing up"
    return f"twisted {abs(twist)} {'left' if twist > 0 else 'right'}"


def _outer_text(label: str) -> str:
    if label == "UP":
        return "return to up, spinner's choice of direction"
    way = {"L": "left", "R": "right", "LR": "left or right"}[label[:-1]]
    return f"twist {way} {_count(int(label[-1]), 'notch')}"


def _inner_text(label: str) -> str:
    return f"climb {label[1:].replace('-', ' or ')} {'notch' if label == 'U1' else 'notches'}"


def _risk_text(r: AtRisk) -> str:
    where = f"in the {_groove(r.where)} groove" if r.in_groove else f"on {r.where}"
    return f"{COLOURS[r.player]} {where}"


def _fate_text(fate: str) -> str:
    return {"standing": "stands", "knocked": "is knocked over", "pushed": "is pushed out"}[fate]
