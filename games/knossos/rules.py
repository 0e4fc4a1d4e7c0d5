"""The Knossos Game (Hillbom ruleset): the rules of a match as a Game/State pair, with no physics.

Chance is explicit. Before every move the current player throws the two sticks: the state is a
*chance node* (`current_player` is CHANCE, `chance_event` is "sticks") whose outcomes are "1" (two
round sides up), "2" (one flat side and one round side up) and "3" (two flat sides up; the player
throws again after moving). The driver answers with `apply(ChanceOutcome(label))` from physics, a
measured table or a script; the outcome enters `history` like any action, so `Game.replay(history)`
re-drives a whole match.

Positions are Ludii's site numbers 0..13 (see board.toml), START (-1: off the board beside the end
of the player's wing, not yet entered or taken) and OFF (-2: borne off). A move is `Move(piece, to)`:
the destination says which way the piece went where it had a choice of direction.

Ambiguities of the rulebook and how they are resolved here (also in the README's rules notes):

1. Entering: pieces begin off the board beside the end of their wing; the wing's end is the first
   space counted, so a throw of n enters a piece on the n-th space of its track (as in Ludii).
   Both pieces at the start are interchangeable, so only one of them is offered.
2. Counting: a piece moves exactly the thrown number of spaces along its own track, passing over
   any pieces on the way. Only the space it lands on matters.
3. Sharing a site: never. A piece may not land on a space held by its own other piece; it may land
   on an opponent's piece only where the rulebook allows taking.
4. Taking: only on the central four (1, 2, 4, 5) and on the apex (11). The taken piece goes back to
   its owner's start and enters again like a new piece. The first space after the bridge (10) is
   not a taking space (the rulebook names only the central four and, "also", the apex): while any
   piece stands on it, no piece can cross the bridge.
5. Direction: each player's row leads from its wing's top (0 for red, 3 for blue) into the central
   four. "Proceed upward again on the first or second space" means: on the first central space of
   the row (red 1, blue 2) the piece either turns upward (red 1 -> 4) or goes on along the row to
   the second (red 1 -> 2) and turns upward there (2 -> 5). It never changes direction again: no
   sideways step between 4 and 5, no step back along the row, no going on to the opponent's row end.
   (Ludii's union of tracks would allow turning back; the rulebook does not.)
6. The bridge: the step from the upper central spaces (4, 5) to 10. A move crosses it only with a
   throw of 3, and a move that crosses it always stops on 10, whatever is left of the throw (from 0
   a 3 ends exactly on 10 via 1 and 4; from 1 or 2 one step is left over, from 4 or 5 two). A throw of
   1 or 2 cannot cross, so a piece on 4 or 5 can only move with a 3. (The rulebook's sentence is cut
   off: "always stopping on the first space after the bridge, regardless of whether thre ."; we read
   it as "whether there are steps of the throw left", which is how Ludii plays it.)
7. A throw of 3 that does not reach the bridge is an ordinary move of three spaces (plus the extra
   throw); a piece on the row may use a 3 either to cross or to go along the other branch.
8. After the bridge: 10, then the player's own safe space (red 12, blue 13: no opponent's track
   passes it, so a piece there cannot be taken), then the apex, counted as ordinary spaces. From
   the apex a piece exits with an exact 1; exiting is one step beyond the apex, so a 2 from the safe
   space or a 3 from 10 exits as well. A throw that would go beyond the exit cannot be played.
   That is the default reading (`exit_rule` "past-apex"). The rulebook's "...and then to the apex
   point of the board ... From there, they must give an exact throw to exit the board" can also be
   read strictly (`exit_rule` "strict"): a piece exits only from the apex, with a throw of exactly 1;
   a 2 from the safe space or a 3 from 10 is then beyond the exit and cannot be played.
9. The extra throw of a 3 belongs to the throw, not the move: the player throws again even when the
   3 could not be used. There is no limit to successive 3s. A 3 that wins the game ends it.
10. Passing: a player must use a throw if any move is legal (choosing freely among pieces and
    directions, entering or moving); Pass is legal only when no move is.
11. The match: the first player to bear off both pieces wins the game; the first to win
    `games_to_win` (3) games wins the match. Red starts the first game; the loser of a game starts
    the next one (as in Ludii, where the turn simply passes on after the winning move).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Union

from tabletop.gamekit import state as base
from tabletop.gamekit.state import CHANCE, TERMINAL, ChanceOutcome, Pass, replay  # noqa: F401 (the rules' vocabulary)
from tabletop.games.knossos.board import Board, load_board

START = -1     # position of a piece off the board beside its wing (not entered, or taken)
OFF = -2       # position of a piece borne off
PIECES_PER_PLAYER = 2
BRIDGE_THROW = 3
STICK_LABELS = ("1", "2", "3")
STICK_FACES = {"1": "two round sides", "2": "one flat side and one round side", "3": "two flat sides"}
EXTRA_THROW = "3"
COLOURS = ("red", "blue")
PAST_APEX = "past-apex"   # the exit one step beyond the apex: a 1 from 11, a 2 from the safe space, a 3 from 10
STRICT = "strict"         # the exit only from the apex itself, with a 1
EXIT_RULES = (PAST_APEX, STRICT)


class Phase(StrEnum):
    THROW = "throw"      # the current player throws the sticks (chance)
    MOVE = "move"        # the current player chooses a move
    OVER = "over"        # the match is over


@dataclass(frozen=True)
class Move:
    piece: int
    to: int      # a site, or OFF to bear off

    def __str__(self) -> str:
        return f"move piece {self.piece} {'off the board' if self.to == OFF else f'to space {self.to}'}"


Action = Union[Move, Pass, ChanceOutcome]


@dataclass(frozen=True)
class Reach:
    """Where a throw takes a piece: its destination, and whether it crossed the bridge on the way."""

    to: int
    bridge: bool


@dataclass(frozen=True)
class Game(base.Game):
    """Configuration: two players, the games needed to win the match, the board, and how pieces
    exit (`exit_rule`: PAST_APEX, the default, or STRICT; rules note 8)."""

    players: int = 2
    games_to_win: int = 3
    board: Board = field(default_factory=load_board)
    exit_rule: str = PAST_APEX

    def __post_init__(self):
        if self.players != 2:
            raise ValueError(f"the Knossos Game is for 2 players, not {self.players}")
        if self.games_to_win < 1:
            raise ValueError(f"games_to_win must be at least 1, not {self.games_to_win}")
        if self.exit_rule not in EXIT_RULES:
            raise ValueError(f"exit_rule must be one of {', '.join(EXIT_RULES)}, not {self.exit_rule!r}")

    def owner(self, piece: int) -> int:
        return piece // PIECES_PER_PLAYER

    def pieces_of(self, player: int) -> range:
        return range(player * PIECES_PER_PLAYER, (player + 1) * PIECES_PER_PLAYER)

    def piece_name(self, piece: int) -> str:
        return f"{COLOURS[self.owner(piece)]}-{piece % PIECES_PER_PLAYER + 1}"

    @cached_property
    def capture_spaces(self) -> frozenset[int]:
        """Where a piece landing on an opponent's piece takes it: the central four and the apex."""
        return self.board.central | {self.board.apex}

    @cached_property
    def successors(self) -> tuple[dict[int, tuple[int, ...]], ...]:
        """Per player: position -> next positions along its track (START enters, the apex exits)."""
        out = []
        for p, track in enumerate(self.board.tracks):
            nxt = dict(self.board.successors(p))
            nxt[START] = (track.wing[0],)
            nxt[self.board.apex] = (OFF,)
            out.append(nxt)
        return tuple(out)

    @cached_property
    def reach(self) -> tuple[dict[int, dict[str, tuple[Reach, ...]]], ...]:
        """Per player: position -> throw label -> where that throw may take a piece, ignoring other
        pieces (the board alone decides this; `State.check_move` adds the pieces)."""
        return tuple({pos: {label: self._walk(p, pos, int(label)) for label in STICK_LABELS}
                      for pos in nxt} for p, nxt in enumerate(self.successors))

    @cached_property
    def steps_to_exit(self) -> tuple[dict[int, int], ...]:
        """Per player: position -> fewest steps to bear off (the bridge counts as one step)."""
        out = []
        for nxt in self.successors:
            dist = {OFF: 0}
            while len(dist) < len(nxt) + 1:
                for pos, after in nxt.items():
                    if pos not in dist and all(a in dist for a in after):
                        dist[pos] = 1 + min(dist[a] for a in after)
            out.append(dist)
        return tuple(out)

    @cached_property
    def ahead(self) -> tuple[dict[int, frozenset[int]], ...]:
        """Per player: position -> every position further along its track (any route, any count)."""
        out = []
        for nxt in self.successors:
            memo: dict[int, frozenset[int]] = {OFF: frozenset()}

            def later(pos: int) -> frozenset[int]:
                if pos not in memo:
                    memo[pos] = frozenset().union(*(later(b) | {b} for b in nxt[pos]))
                return memo[pos]

            out.append({pos: later(pos) for pos in nxt})
        return tuple(out)

    def crosses_bridge(self, a: int, b: int) -> bool:
        return a in self.board.bridge_from and b == self.board.after_bridge

    def _walk(self, player: int, pos: int, n: int) -> tuple[Reach, ...]:
        nxt, found = self.successors[player], {}

        def step(site: int, left: int) -> None:
            for b in nxt.get(site, ()):
                if self.crosses_bridge(site, b):
                    if n == BRIDGE_THROW:
                        found.setdefault(b, Reach(b, True))     # a crossing always stops on 10
                elif left == 1:
                    if b == OFF and self.exit_rule == STRICT and n != 1:
                        continue                                # strict: only a 1 from the apex itself
                    found.setdefault(b, Reach(b, False))
                elif b != OFF:                                  # beyond the exit: not allowed
                    step(b, left - 1)

        step(pos, n)
        return tuple(found.values())

    def new_initial_state(self) -> "State":
        return State(self)



class State(base.State):
    """A Knossos match position; mutate with `apply`, copy with `clone`."""

    over_message = "the match is over"

    def __init__(self, game: Game):
        super().__init__(game)
        self.pos = [START] * (game.players * PIECES_PER_PLAYER)
        self.phase = Phase.THROW
        self.current = 0                      # the player to throw or move
        self.throw: str | None = None
        self.game_number = 1
        self.score = [0] * game.players       # games won in this match
        self.game_winners: list[int] = []
        self.winner: int | None = None        # of the match
        self.turn = 0                         # throws so far in the match
        self._log(f"game 1: {COLOURS[0]} starts")

    # -- queries ---------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def chance_event(self) -> str | None:
        return "sticks" if self.phase is Phase.THROW else None

    @property
    def chance_player(self) -> int:
        """The player who throws the sticks."""
        return self.current

    def chance_outcomes(self) -> tuple[str, ...]:
        return STICK_LABELS if self.phase is Phase.THROW else ()

    def occupant(self, site: int) -> int | None:
        if site < 0:
            return None
        for piece, at in enumerate(self.pos):
            if at == site:
                return piece
        return None

    def off_count(self, player: int) -> int:
        return sum(1 for piece in self.game.pieces_of(player) if self.pos[piece] == OFF)

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0] * self.game.players
        return [1.0 if p == self.winner else -1.0 for p in range(self.game.players)]

    def movable_pieces(self) -> list[int]:
        """The current player's pieces still in play; of those at the start only the first."""
        mine = [m for m in self.game.pieces_of(self.current) if self.pos[m] != OFF]
        waiting = [m for m in mine if self.pos[m] == START]
        return [m for m in mine if self.pos[m] != START] + waiting[:1]

    def check_move(self, piece: int, reach: Reach) -> tuple[bool, int | None, str]:
        """Whether `piece` may end where `reach` takes it: (allowed, piece taken or None, reason)."""
        occ = self.occupant(reach.to)
        if occ is None:
            return True, None, ""
        g = self.game
        if g.owner(occ) == g.owner(piece):
            return False, None, f"space {reach.to} is held by {g.piece_name(occ)}, its own side's piece"
        if reach.to in g.capture_spaces:
            return True, occ, ""
        if reach.bridge:
            return False, None, (f"{g.piece_name(occ)} stands on space {reach.to} after the bridge, where no "
                                 f"piece is taken, so the bridge is closed")
        return False, None, f"{g.piece_name(occ)} stands on space {reach.to}, where no piece is taken"

    def _moves(self) -> list[Action]:
        table = self.game.reach[self.current]
        moves = [Move(m, r.to) for m in self.movable_pieces() for r in table[self.pos[m]][self.throw]
                 if self.check_move(m, r)[0]]
        return moves or [Pass()]

    # -- transitions -----------------------------------------------------------------------
    def _apply_chance(self, label: str) -> None:
        self._apply_throw(label)

    def _apply_action(self, action: Action) -> None:
        if isinstance(action, Pass):
            self._apply_pass()
        else:
            self._apply_move(action)

    def _not_chance(self) -> str:
        return f"no throw is pending ({COLOURS[self.current]} must move)"

    def _bad_label(self, label: str) -> str:
        return "" if label in STICK_LABELS else f"the sticks cannot give {label!r}; they give {', '.join(STICK_LABELS)}"

    def _must_answer(self) -> str:
        return f"{COLOURS[self.current]} must throw the sticks first"

    def _illegal(self, action: Action) -> str:
        if isinstance(action, Pass):
            return "pass: a legal move exists, so the throw must be used"
        if not isinstance(action, Move):
            return f"{action!r}: not a Knossos action"
        return f"{self.describe(action)}: {self._why_not(action)}"

    def describe(self, action: Action) -> str:
        """An action as a player reads it (a refusal begins with it): "red-1 to space 5", "blue-2
        off the board" (the action's own text numbers the piece from 0)."""
        if isinstance(action, Move) and 0 <= action.piece < len(self.pos):
            where = "off the board" if action.to == OFF else f"to space {action.to}"
            return f"{self.game.piece_name(action.piece)} {where}"
        return str(action)

    def _why_not(self, move: Move) -> str:
        """Why a move that is not among the legal actions is not allowed."""
        g, p = self.game, self.current
        if not 0 <= move.piece < len(self.pos):
            return f"there is no piece {move.piece}"
        name, owner = g.piece_name(move.piece), g.owner(move.piece)
        if owner != p:
            return f"{name} belongs to {COLOURS[owner]}, not to {COLOURS[p]}"
        here = self.pos[move.piece]
        if here == OFF:
            return f"{name} is already borne off"
        if move.piece not in self.movable_pieces():
            return f"{name} waits at the start behind {g.piece_name(self.movable_pieces()[-1])}, which enters first"
        for r in g.reach[p][here][self.throw]:
            if r.to == move.to:
                return self.check_move(move.piece, r)[2]
        where = "the start" if here == START else f"space {here}"
        n = int(self.throw)
        if move.to != OFF and move.to not in g.board.tracks[p].sites:
            return f"space {move.to} is not on {COLOURS[p]}'s track"
        if move.to not in g.ahead[p][here]:
            if here in g.board.central and move.to in g.board.central:
                return (f"a piece in the central four never changes direction again: from {where} it goes "
                        f"on only to {_spaces(g.successors[p][here])}")
            return f"pieces only move forward along {COLOURS[p]}'s track"
        if n != BRIDGE_THROW and (here in g.board.bridge_from or move.to == g.board.after_bridge):
            return f"crossing the bridge needs a throw of {BRIDGE_THROW}, not {n}"
        if move.to == OFF and g.exit_rule == STRICT and here != g.board.apex:
            return (f"with the strict exit a piece bears off only from the apex ({g.board.apex}), with a throw "
                    f"of 1, not from {where}")
        if move.to == OFF:
            return (f"bearing off needs an exact throw: {where} is {_count(g.steps_to_exit[p][here])} from "
                    f"the exit, not {n}")
        reachable = [r.to for r in g.reach[p][here][self.throw]]
        allowed = f"it can reach {_spaces(reachable)}" if reachable else "it cannot move"
        return f"space {move.to} is not {_count(n)} on from {where} (with {n} {allowed})"

    def _apply_throw(self, label: str) -> None:
        self.turn += 1
        self.throw = label
        self.phase = Phase.MOVE
        again = ": throws again" if label == EXTRA_THROW else ""
        self._log(f"{COLOURS[self.current]} throws {label} ({STICK_FACES[label]}){again}")

    def _apply_pass(self) -> None:
        player = COLOURS[self.current]
        if self.throw == EXTRA_THROW:
            self._log(f"{player} cannot use the {self.throw} and throws again")
        else:
            self._log(f"{player} cannot use the {self.throw} and passes")
        self._end_turn()

    def _apply_move(self, move: Move) -> None:
        g = self.game
        here = self.pos[move.piece]
        reach = next(r for r in g.reach[self.current][here][self.throw] if r.to == move.to)
        _, taken, _ = self.check_move(move.piece, reach)
        self.pos[move.piece] = move.to
        name = g.piece_name(move.piece)
        if move.to == OFF:
            text = (f"{name} bears off with {self.throw} from {describe_site(g, here)}: "
                    f"{self.off_count(self.current)} of {PIECES_PER_PLAYER} off")
        elif here == START:
            text = f"{name} enters with {self.throw} to {describe_site(g, move.to)}"
        elif reach.bridge:
            dist = g.steps_to_exit[self.current]
            left = int(self.throw) - (dist[here] - dist[move.to])
            text = f"{name} moves {self.throw} from {describe_site(g, here)} across the bridge to {describe_site(g, move.to)}"
            if left > 0:
                text += f", stopping there with {left} left over"
        else:
            text = f"{name} moves {self.throw} from {describe_site(g, here)} to {describe_site(g, move.to)}"
        if taken is not None:
            self.pos[taken] = START
            text += f" and takes {g.piece_name(taken)}, which goes back to the start"
        self._log(text)
        if self.off_count(self.current) == PIECES_PER_PLAYER:
            self._end_game()
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self.throw != EXTRA_THROW:
            self.current = 1 - self.current
        self.throw = None
        self.phase = Phase.THROW

    def _end_game(self) -> None:
        won, lost = self.current, 1 - self.current
        self.score[won] += 1
        self.game_winners.append(won)
        self._log(f"{COLOURS[won]} wins game {self.game_number} "
                  f"(match: {COLOURS[0]} {self.score[0]}, {COLOURS[1]} {self.score[1]})")
        self.throw = None
        if self.score[won] >= self.game.games_to_win:
            self.winner = won
            self.phase = Phase.OVER
            self._log(f"{COLOURS[won]} wins the match {self.score[won]}-{self.score[lost]}")
            return
        self.pos = [START] * len(self.pos)
        self.game_number += 1
        self.current = lost
        self.phase = Phase.THROW
        self._log(f"game {self.game_number}: {COLOURS[lost]} starts")

    def __str__(self) -> str:
        g = self.game
        parts = [f"{g.piece_name(m)}@{_short(at)}" for m, at in enumerate(self.pos)]
        return (f"[game {self.game_number}, {self.phase}, {COLOURS[self.current]}"
                f"{', threw ' + self.throw if self.throw else ''}; score {self.score[0]}-{self.score[1]}] "
                + ", ".join(parts))


def _short(pos: int) -> str:
    return {START: "start", OFF: "off"}.get(pos, str(pos))


def _count(n: int) -> str:
    return f"{n} space" if n == 1 else f"{n} spaces"


def _spaces(sites) -> str:
    return ", ".join("off the board" if s == OFF else f"space {s}" for s in sites)


def describe_site(game: Game, pos: int) -> str:
    """A position for the log: 'the start', 'space 4 (central)', 'space 12 (red's safe space)'."""
    board = game.board
    if pos == START:
        return "the start"
    if pos == OFF:
        return "off the board"
    role = ""
    if pos in board.central:
        role = " (central)"
    elif pos == board.after_bridge:
        role = " (after the bridge)"
    elif pos == board.apex:
        role = " (the apex)"
    else:
        for p, track in enumerate(board.tracks):
            if pos == track.safe:
                role = f" ({COLOURS[p]}'s safe space)"
            elif pos in track.wing:
                role = f" ({COLOURS[p]}'s wing)"
            elif pos == track.routes[0][len(track.wing)]:
                role = f" ({COLOURS[p]}'s end of the row)"
    return f"space {pos}{role}"
