"""King of the Hill (1958): the rules as a Game/State pair, with no physics and no dice.

Chance is explicit. A state that needs the Tipper or the crater is a *chance node*:
`current_player` is CHANCE, `chance_event` says which device ("tipper" or "crater") and
`chance_outcomes()` lists the labels it can give. The driver answers with
`apply(ChanceOutcome(label))` from physics, a measured table or a script; the outcome enters
`history` like any action, so `Game.replay(history)` re-drives a finished game.

Positions are *track* indices: -1 is the drawer (not yet entered), 0 is Start, 1..L-1 the path
spaces, L..L+4 the Finish Zone seats #1..#5 (see board.toml).

Ambiguities of the rulebook and how they are resolved here (also in the README):

1. Turn order: every player tilts once; the highest result goes first (J beats 6). Players tied
   for the highest tilt again, only among themselves, until one is highest. Then play passes
   to the left, which is the seat order 0, 1, 2, ... .
2. Entering: "Start counts as the first space", so a roll of r puts a marble from the drawer on
   track index r - 1 (a 1 puts it on Start). Until both of a player's marbles are on the path,
   each turn enters the marble still in the drawer; after that the player chooses which to move.
   (If entering were impossible the player may move a marble on the path instead.)
3. Hopping: landing on an occupied path space hops the marble to the next empty space beyond
   the whole line ("hop it to the empty space immediately beyond"). Only the space the marble
   would land on can knock: landing on an occupied *edge* space, it stops there and knocks the
   occupant (any colour, its own too) into the crater. A taken edge space inside the line it
   hops is hopped like any other (the rulebook's exception is for the space you "land on").
4. The crater: the knocked marble goes to the cave seat the crater gives and is placed on the
   path space above it; if that space is taken it hops forward to the next empty space, plainly
   (a placed marble knocks nothing). Should no empty path space lie ahead, it takes the nearest
   empty space behind.
5. J: the player chooses any distance 1-10 for one marble.
6. The Finish Zone: only by the exact count onto a free numbered seat. A marble never hops into
   or inside the Zone; a move whose roll or hop would go past the last path space onto a taken
   seat or beyond seat #5 is not allowed. A marble in the Zone is safe and never moves again.
7. No legal move: the player loses the turn (the only action offered is Pass).
8. Winning: the first player with both marbles in the Zone wins at once.
9. Special 2 Player Game: each player has two sets of two marbles and moves a marble of set A
   and of set B on alternating turns (A first). A set whose marbles are all in the Zone is
   skipped. The entering rule (2) applies per set. First to three marbles in the Zone wins.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Union

from tabletop.gamekit import state as base
from tabletop.gamekit.state import CHANCE, TERMINAL, ChanceOutcome, Pass, replay  # noqa: F401 (the rules' vocabulary)
from tabletop.games.king_of_the_hill.board import CRATER_LABELS, Board, load_board

DRAWER = -1      # track index of a marble not yet entered
IN_CRATER = -2   # track index of a knocked marble until the crater answers
TIPPER_LABELS = ("1", "2", "3", "4", "5", "6", "J")
J_MAX = 10
COLOURS = ("red", "blue", "green", "yellow")
ORDINALS = ("first", "second")


class Variant(StrEnum):
    STANDARD = "standard"
    SPECIAL_TWO_PLAYER = "special-two-player"


class Phase(StrEnum):
    ORDER = "order"      # tilting for turn order (chance)
    ROLL = "roll"        # the current player tilts the Tipper (chance)
    MOVE = "move"        # the current player chooses a move
    CRATER = "crater"    # a knocked marble is in the crater (chance)
    OVER = "over"


@dataclass(frozen=True)
class Move:
    """Move `marble` (its number in the state's `track`: the API's and the replays' encoding)
    `distance` spaces. Its text names the number; a message a player reads names the marble as
    players do (`Game.marble_name`, `State.describe`)."""

    marble: int
    distance: int

    def __str__(self) -> str:
        return f"move marble {self.marble} by {self.distance}"


Action = Union[Move, Pass, ChanceOutcome]


def tipper_rank(label: str) -> int:
    """Rank of a Tipper result for turn order: J is higher than 6."""
    return 7 if label == "J" else int(label)


@dataclass(frozen=True)
class Game(base.Game):
    """Configuration: number of players, variant and board."""

    players: int = 4
    variant: Variant = Variant.STANDARD
    board: Board = field(default_factory=load_board)

    def __post_init__(self):
        object.__setattr__(self, "variant", Variant(self.variant))
        if self.variant is Variant.SPECIAL_TWO_PLAYER:
            if self.players != 2:
                raise ValueError("the Special 2 Player Game is for exactly 2 players")
        elif not 2 <= self.players <= 4:
            raise ValueError(f"King of the Hill is for 2-4 players, not {self.players}")

    @property
    def marbles_per_player(self) -> int:
        return 4 if self.variant is Variant.SPECIAL_TWO_PLAYER else 2

    @property
    def marbles_to_win(self) -> int:
        return 3 if self.variant is Variant.SPECIAL_TWO_PLAYER else 2

    def owner(self, marble: int) -> int:
        return marble // self.marbles_per_player

    def marble_set(self, marble: int) -> int:
        """0 or 1: the set of the marble within its owner's marbles (special game), else 0."""
        return (marble % self.marbles_per_player) // 2

    def marble_name(self, marble: int) -> str:
        """The marble as players name it: "red's first marble" (the one that enters first),
        "blue's second marble"; in the Special 2 Player Game "red's first marble of set A"."""
        i = marble % self.marbles_per_player
        name = f"{COLOURS[self.owner(marble)]}'s {ORDINALS[i % 2]} marble"
        if self.variant is Variant.SPECIAL_TWO_PLAYER:
            return f"{name} of set {'AB'[i // 2]}"
        return name

    def new_initial_state(self) -> "State":
        return State(self)



class State(base.State):
    """A King of the Hill position; mutate with `apply`, copy with `clone`."""

    def __init__(self, game: Game):
        super().__init__(game)
        self.track = [DRAWER] * (game.players * game.marbles_per_player)
        self.phase = Phase.ORDER
        self.current = 0                      # the player to act (or whose chance event is pending)
        self.order_contenders = list(range(game.players))
        self.order_results: dict[int, str] = {}
        self.roll: str | None = None
        self.pending_marble: int | None = None    # marble in the crater
        self.knocked_from: str | None = None      # the edge seat it was knocked from
        self.next_set = [0] * game.players        # special game: which set moves next
        self.winner: int | None = None

    # -- queries ---------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def chance_event(self) -> str | None:
        """Which device answers this chance node: "tipper" or "crater"."""
        if self.phase in (Phase.ORDER, Phase.ROLL):
            return "tipper"
        if self.phase is Phase.CRATER:
            return "crater"
        return None

    @property
    def chance_player(self) -> int:
        """The player whose tilt or marble the pending chance event concerns."""
        if self.phase is Phase.ORDER:
            return self.order_contenders[len(self.order_results)]
        if self.phase is Phase.CRATER:
            return self.game.owner(self.pending_marble)
        return self.current

    def chance_outcomes(self) -> tuple[str, ...]:
        event = self.chance_event
        if event == "tipper":
            return TIPPER_LABELS
        if event == "crater":
            return CRATER_LABELS
        return ()

    def occupant(self, track: int) -> int | None:
        for m, t in enumerate(self.track):
            if t == track:
                return m
        return None

    def zone_count(self, player: int) -> int:
        L = self.game.board.path_length
        return sum(1 for m, t in enumerate(self.track) if self.game.owner(m) == player and t >= L)

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0] * self.game.players
        return [1.0 if p == self.winner else -1.0 for p in range(self.game.players)]

    def distances(self) -> list[int]:
        if self.roll is None:
            return []
        return list(range(1, J_MAX + 1)) if self.roll == "J" else [int(self.roll)]

    def movable_marbles(self) -> list[int]:
        """Marbles the current player may choose among, before checking destinations."""
        g, L = self.game, self.game.board.path_length
        mine = [m for m in range(len(self.track)) if g.owner(m) == self.current and self.track[m] < L]
        if g.variant is Variant.SPECIAL_TWO_PLAYER:
            wanted = self.active_set(self.current)
            mine = [m for m in mine if g.marble_set(m) == wanted]
        in_drawer = [m for m in mine if self.track[m] == DRAWER]
        if in_drawer:
            first = in_drawer[:1]  # drawer marbles are interchangeable: offer one
            if any(self.destination(first[0], d)[0] is not None for d in self.distances()):
                return first
        return [m for m in mine if self.track[m] != DRAWER] or in_drawer[:1]

    def active_set(self, player: int) -> int:
        """Special game: the set that moves this turn, skipping a set that is all in the Zone."""
        g, L = self.game, self.game.board.path_length
        wanted = self.next_set[player]
        done = all(self.track[m] >= L for m in range(len(self.track))
                   if g.owner(m) == player and g.marble_set(m) == wanted)
        return 1 - wanted if done else wanted

    def destination(self, marble: int, distance: int) -> tuple[int | None, int | None, str]:
        """Where `marble` moved by `distance` ends: (track, knocked marble or None, reason).

        track is None when the move is not allowed; reason then says why.
        """
        board = self.game.board
        L, start = board.path_length, self.track[marble]
        if start >= L:
            return None, None, "the marble is safe in the Finish Zone and never moves again"
        target = distance - 1 if start == DRAWER else start + distance
        if target >= L:
            seat = target - L + 1
            if seat > board.zone_seats:
                return None, None, f"it would overshoot the Finish Zone (seat #{seat} does not exist)"
            if self.occupant(target) is not None:
                return None, None, f"Finish Zone seat #{seat} is taken"
            return target, None, ""
        occ = self.occupant(target)
        if occ is not None and occ != marble and target in board.edge_spaces:
            return target, occ, ""          # landing on a taken edge space knocks its marble in
        t = target
        while t < L:                        # hop the whole line, edge spaces in it included
            occ = self.occupant(t)
            if occ is None or occ == marble:
                return t, None, ""
            t += 1
        return None, None, "hopping the line of marbles would run past the last path space into the Finish Zone"

    def _moves(self) -> list[Action]:
        moves = [Move(m, d) for m in self.movable_marbles() for d in self.distances()
                 if self.destination(m, d)[0] is not None]
        return moves or [Pass()]

    # -- transitions -----------------------------------------------------------------------
    def _apply_chance(self, label: str) -> None:
        {Phase.ORDER: self._apply_order, Phase.ROLL: self._apply_roll, Phase.CRATER: self._apply_crater}[self.phase](label)

    def _apply_action(self, action: Action) -> None:
        if isinstance(action, Pass):
            self._log(f"{self._player(self.current)} has no legal move with {self.roll} and loses the turn")
            self._end_turn()
        else:
            self._apply_move(action)

    def describe(self, action: Action) -> str:
        """An action in the words of the log, the marble named as players name it (a refusal
        begins with it): "red's first marble moves 4", "red passes"."""
        if isinstance(action, Move) and 0 <= action.marble < len(self.track):
            verb = "enters" if self.track[action.marble] == DRAWER else "moves"
            return f"{self.game.marble_name(action.marble)} {verb} {action.distance}"
        if isinstance(action, Pass):
            return f"{self._player(self.current)} passes"
        return str(action)

    def _illegal(self, action: Action) -> str:
        """Why an action that is not among the legal moves is not allowed, the marble named as
        players name it ("red's first marble cannot move 4: ...")."""
        g = self.game
        if isinstance(action, Pass):
            return f"{self._player(self.current)} cannot pass: a legal move exists"
        if not isinstance(action, Move):
            return f"{action!r}: not a King of the Hill action"
        m, d = action.marble, action.distance
        if not 0 <= m < len(self.track):
            return f"{action}: there is no marble {m} (the API numbers them 0-{len(self.track) - 1})"
        name, owner = g.marble_name(m), g.owner(m)
        if owner != self.current:
            return f"{name} belongs to {self._player(owner)}, not to {self._player(self.current)}"
        L, where = g.board.path_length, self.track[m]
        if where >= L:
            return f"{name} is safe in the Finish Zone and never moves again"
        if d not in self.distances():
            allowed = "1-10" if self.roll == "J" else self.roll
            return f"{name} cannot move {d}: the Tipper gave {self.roll}, so the distance must be {allowed}"
        movable = self.movable_marbles()
        if m not in movable:
            if g.variant is Variant.SPECIAL_TWO_PLAYER and g.marble_set(m) != self.active_set(self.current):
                return (f"{name} cannot move now: {self._player(self.current)} moves a marble of set "
                        f"{'AB'[self.active_set(self.current)]} this turn (the sets take turns)")
            entering = movable[0] if movable and self.track[movable[0]] == DRAWER else None
            if entering is not None and where == DRAWER:
                return f"{name} waits in the drawer: {g.marble_name(entering)} enters first"
            if entering is not None:
                return (f"{name} cannot move now: {g.marble_name(entering)} is still in the drawer and must "
                        f"enter first")
            if where == DRAWER:
                return f"{name} cannot enter with {d}: {self._reason(m, d)}"
            return f"{name} cannot move now"
        return f"{name} cannot {'enter' if where == DRAWER else 'move'} {d}: {self._reason(m, d)}"

    def _reason(self, marble: int, distance: int) -> str:
        """Why `destination` refuses the move ("" when it allows it)."""
        return self.destination(marble, distance)[2] or "no such move now"

    def _player(self, p: int) -> str:
        return COLOURS[p]

    def _apply_order(self, label: str) -> None:
        player = self.order_contenders[len(self.order_results)]
        self.order_results[player] = label
        self._log(f"{self._player(player)} tilts {label} for turn order")
        if len(self.order_results) < len(self.order_contenders):
            return
        best = max(tipper_rank(v) for v in self.order_results.values())
        top = [p for p in self.order_contenders if tipper_rank(self.order_results[p]) == best]
        self.order_results = {}
        if len(top) > 1:
            self.order_contenders = top
            self._log(f"tie for highest between {', '.join(self._player(p) for p in top)}: they tilt again")
            return
        self.current = top[0]
        self.phase = Phase.ROLL
        self._log(f"{self._player(self.current)} goes first; play passes to the left")

    def _apply_roll(self, label: str) -> None:
        self.turn += 1
        self.roll = label
        self.phase = Phase.MOVE
        self._log(f"turn {self.turn}: {self._player(self.current)} tilts {label}")

    def _apply_move(self, move: Move) -> None:
        board, g = self.game.board, self.game
        start = self.track[move.marble]
        dest, knocked, _ = self.destination(move.marble, move.distance)
        self.track[move.marble] = dest
        text = (f"{g.marble_name(move.marble)} {'enters' if start == DRAWER else 'moves'} "
                f"{move.distance} from {board.describe(start)} to {board.describe(dest)}")
        natural = (move.distance - 1) if start == DRAWER else start + move.distance
        if dest != natural and dest < board.path_length:
            text += f" (hops from {board.describe(natural)})"
        if knocked is not None:
            self.track[knocked] = IN_CRATER
            self.pending_marble = knocked
            self.knocked_from = board.edge_name(dest)
            self.phase = Phase.CRATER
            self._log(text + f" and knocks {g.marble_name(knocked)} into the crater from {board.edge_name(dest)}")
            return
        self._log(text)
        self._after_move()

    def _apply_crater(self, label: str) -> None:
        board, g = self.game.board, self.game
        marble = self.pending_marble
        above = board.caves[label]
        place = self._free_space_from(above)
        self.track[marble] = place
        text = f"{g.marble_name(marble)} comes out in {label} and is placed on {board.describe(place)}"
        if place != above:
            text += f" ({board.describe(above)} is taken)"
        self._log(text)
        self.pending_marble = self.knocked_from = None
        self.phase = Phase.MOVE
        self._after_move()

    def _free_space_from(self, space: int) -> int:
        L = self.game.board.path_length
        for t in range(space, L):
            if self.occupant(t) is None:
                return t
        for t in range(space - 1, -1, -1):
            if self.occupant(t) is None:
                return t
        raise AssertionError("no free path space: more marbles than spaces")

    def _after_move(self) -> None:
        if self.zone_count(self.current) >= self.game.marbles_to_win:
            self.winner = self.current
            self.phase = Phase.OVER
            self._log(f"{self._player(self.current)} wins with "
                      f"{self.game.marbles_to_win} marbles in the Finish Zone")
            return
        self._end_turn()

    def _end_turn(self) -> None:
        if self.game.variant is Variant.SPECIAL_TWO_PLAYER:
            self.next_set[self.current] = 1 - self.active_set(self.current)
        self.roll = None
        self.current = (self.current + 1) % self.game.players
        self.phase = Phase.ROLL

    def __str__(self) -> str:
        g, b = self.game, self.game.board
        parts = [f"{g.marble_name(m)}@{b.describe(t)}" for m, t in enumerate(self.track)]
        return f"[{self.phase}] " + ", ".join(parts)
