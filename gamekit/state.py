"""What every game's rules state shares, in the OpenSpiel manner; no physics, no Panda3D.

A state is a *chance node* when a device must answer (`chance_event` names it: "tipper",
"sticks", "die", ...): `current_player` is CHANCE and `chance_outcomes()` lists the labels it can
give. At a decision node `current_player` is the player to move and `legal_actions()` lists the
moves; a finished game is terminal and `current_player` is TERMINAL. `apply` checks an action or
chance outcome, applies it and appends it to `history`, so `Game.replay(history)` re-drives a game.

A game's State subclass keeps only its rules: `is_terminal`, `chance_event`, `chance_outcomes`,
`_moves` (the legal moves at a decision node), `_apply_chance` and `_apply_action`, and the
messages that say why an action is not allowed (`_illegal`, optionally `_bad_label`,
`_not_chance`, `_is_legal`, and `describe`, an action in the words a player reads, which begins
every refusal: a game whose actions number their pieces or cards names them as players do).

The moves a decision node offers are listed once: `legal_actions()` keeps the list it returned
until the next `apply`, and `apply` takes one of those very action objects as legal without
listing the moves again (a seat chooses from the list, so each decision lists its moves once).
A state changes only through `apply`; any other action, or one after a change, is checked in full.
"""
from __future__ import annotations

import abc
import copy
from dataclasses import dataclass

from tabletop.gamekit.errors import IllegalMoveError

CHANCE = -1      # current_player of a chance node
TERMINAL = -4    # current_player of a finished game


class SeatLine(str):
    """A log line only its `seat` may read whole (a card drawn into a hand): the full text is the
    string itself (headless logs, replays and verification keep it), `public` what the other
    seats read in its place ("blue draws 2 cards"; "": nothing, the line is not theirs to see)."""

    seat: int
    public: str

    def __new__(cls, text: str, seat: int, public: str):
        line = super().__new__(cls, text)
        line.seat, line.public = seat, public
        return line

    def __reduce__(self):
        return SeatLine, (str(self), self.seat, self.public)

    def __deepcopy__(self, memo):
        return self


def seen_by(line: str, seats) -> str:
    """`line` as a viewer who may read the private lines of `seats` (a collection of players)
    reads it: whole if it is public or one of theirs, else its public form ("" when none)."""
    if isinstance(line, SeatLine) and line.seat not in seats:
        return line.public
    return str(line)


@dataclass(frozen=True)
class Pass:
    """The only action when no move is legal: the turn is lost."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class ChanceOutcome:
    """The answer to a chance node: a device's label ("J", "cave2/seat1", "3", ...)."""

    label: str

    def __str__(self) -> str:
        return f"outcome {self.label}"


def replay(game, history):
    """A game's state re-driven from the start through its history of actions and chance outcomes."""
    state = game.new_initial_state()
    for action in history:
        state.apply(action)
    return state


class Game(abc.ABC):
    """The base of every game's rules Game (what a definition's `make_game` makes of a config): its
    players and options, immutable while states of it exist. A game supplies `new_initial_state`;
    `replay` and `piece_name` have defaults."""

    players: int = 2                      # the seats playing (a subclass sets it, often per game)

    @abc.abstractmethod
    def new_initial_state(self) -> "State":
        """The position before the first action: a fresh state of this game's State class."""

    def replay(self, history) -> "State":
        """A state re-driven from the start through a history of actions and chance outcomes."""
        return replay(self, history)

    def piece_name(self, piece: int) -> str:
        """A piece as players name it (the window's and the log's words): "piece N" by default."""
        return f"piece {piece + 1}"


class State(abc.ABC):
    """The base of every game's state; `game` is its (immutable) Game, `current` the player to
    move (or whose chance event is pending), `turn` the turns begun, `events` the log."""

    over_message = "the game is over"
    winner: int | None = None    # the seat that won a finished game (None: nobody yet); the definition's
                                 # `winner` reads it by default, a game with another kind of victory says its own

    def __init__(self, game):
        self.game = game
        self.current = 0
        self.turn = 0
        self.history: list = []
        self.events: list[str] = []           # human-readable log of what happened
        self._offered: tuple = ()             # the moves legal_actions() last listed, until apply

    # -- what the subclass says (required) ---------------------------------------------------
    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over."""

    @abc.abstractmethod
    def returns(self) -> list[float]:
        """Each player's return: at the end +1 a winner, -1 the others (0 each before the end); the
        agent environments' rewards."""

    @property
    @abc.abstractmethod
    def chance_event(self) -> str | None:
        """The device that answers the pending chance event; None at a decision node."""

    @abc.abstractmethod
    def chance_outcomes(self) -> tuple[str, ...]:
        """The labels the pending chance event can give."""

    @abc.abstractmethod
    def _moves(self) -> list:
        """The legal actions of the player to move."""

    @abc.abstractmethod
    def _apply_chance(self, label: str) -> None:
        """Apply the pending chance event's outcome `label` (already checked)."""

    @abc.abstractmethod
    def _apply_action(self, action) -> None:
        """Apply a decision (already checked legal)."""

    # -- what the subclass may say (defaults) ---------------------------------------------------
    @property
    def chance_player(self) -> int:
        """The seat whose throw, tilt or spin the pending chance event is (the window asks that
        seat for its gesture; a review charges the event to it): by default `current`, the player
        whose turn it is. A game where a chance event belongs to another seat overrides it."""
        return self.current

    def _illegal(self, action) -> str:
        """The message of an action that is not allowed at this decision node."""
        return f"{self.describe(action)}: not allowed now"

    def describe(self, action) -> str:
        """An action in the words a player reads (a refusal begins with it): by default its text;
        a game whose actions number their pieces or cards names them as players do."""
        return str(action)

    # -- queries -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return CHANCE if self.chance_event is not None else self.current

    def is_chance_node(self) -> bool:
        return not self.is_terminal() and self.chance_event is not None

    def legal_actions(self) -> list:
        if self.is_terminal():
            return []
        if self.chance_event is not None:
            return [ChanceOutcome(label) for label in self.chance_outcomes()]
        moves = self._moves()
        self._offered = tuple(moves)
        return moves

    def clone(self):
        """A deep copy sharing the (immutable) game."""
        return copy.deepcopy(self, {id(self.game): self.game, id(self._offered): ()})

    def fork(self):
        """A copy of the position for search: like `clone` but with an empty history and log (which
        `apply` extends from there), so its cost does not grow with the game."""
        return copy.deepcopy(self, {id(self.game): self.game, id(self._offered): (), id(self.history): [],
                                    id(self.events): []})

    # -- transitions -------------------------------------------------------------------------
    def apply(self, action) -> None:
        """Apply an action or chance outcome; an illegal one raises IllegalMoveError and leaves
        the state unchanged."""
        self._check(action)
        if isinstance(action, ChanceOutcome):
            self._apply_chance(action.label)
        else:
            self._apply_action(action)
        self._offered = ()
        self.history.append(action)

    def _check(self, action) -> None:
        if self.is_terminal():
            raise IllegalMoveError(f"{self.describe(action)}: {self.over_message}")
        chance = self.chance_event is not None
        if isinstance(action, ChanceOutcome):
            if not chance:
                raise IllegalMoveError(f"{self.describe(action)}: {self._not_chance()}")
            reason = self._bad_label(action.label)
            if reason:
                raise IllegalMoveError(f"{self.describe(action)}: {reason}")
            return
        if chance:
            raise IllegalMoveError(f"{self.describe(action)}: {self._must_answer()}")
        for offered in self._offered:
            if offered is action:
                return
        if not self._is_legal(action):
            raise IllegalMoveError(self._illegal(action))

    def _is_legal(self, action) -> bool:
        return action in self.legal_actions()

    def _bad_label(self, label: str) -> str:
        """Why a chance label cannot answer the pending event ('' when it can)."""
        outcomes = self.chance_outcomes()
        if label in outcomes:
            return ""
        return f"the {self.chance_event} cannot give {label!r}; it gives {', '.join(outcomes)}"

    def _not_chance(self) -> str:
        return "no chance event is pending (a player must move)"

    def _must_answer(self) -> str:
        return f"the {self.chance_event} must be answered first"

    def _log(self, text: str, seat: int | None = None, public: str = "") -> None:
        """Add a line to the log; with `seat`, a line only that seat may read whole (`public`: what
        the others read instead, none when empty)."""
        self.events.append(text if seat is None else SeatLine(text, seat, public))
