"""One match of any game here, advanced one action at a time: the one game loop.

A `Match` holds the rules state, the seats, the outcome source, the game's generators and its
observers (a `MatchObserver`: the replay recorder, tabletop.gamekit.record.GameRecorder). `step()`
takes one action: the pending chance event answered by the source, or the seat to move choosing.
Headless play (tabletop.gamekit.session) loops over `step()`; the window splits a step in two
(`draw()` simulates the chance event, it is watched, then `apply()` applies it) so that it can
animate between them. Either way every action goes through `apply()`, which logs, tells the
observers and, when the game ends, adds the result lines; so the log lines, the turn count and the
result line are the same in headless play, the window, `replay --summary` and `replay --verify`.

Seeds: `GameSeeds(seed)` makes every generator of a game from its one seed. The seats' choices
draw from one stream (SeedSequence(seed, spawn_key=(0,))); chance event k of the game (k = 0, 1,
2, ... in the order they are answered) draws from its own, SeedSequence(seed, spawn_key=(1, k)).
A retry inside a chance event (a tilt again, a throw again) therefore moves no later outcome,
and a replay can be re-simulated from any turn. `Match(..., seeds=...)` takes another seeds object
with that interface (`seats`, `chance(k)`): tabletop.gamekit.commit.CommittedSeeds, whose event
seeds come from a secret one by one, so that a server can commit to each before it is drawn
(`MatchObserver.chance_ahead`) and reveal it after without revealing the next.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from tabletop.gamekit.state import ChanceOutcome

SEEDS_DOC = ("numpy SeedSequence(seed, spawn_key=(0,)): the seats; "
             "SeedSequence(seed, spawn_key=(1, k)): chance event k")


class TurnLimitError(RuntimeError):
    """A game that did not end within the turn limit (a defect, never expected)."""


class GameSeeds:
    """A game's generators, all from its one seed: the seats' stream and one per chance event."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self.seats = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(0,)))

    def chance(self, k: int) -> np.random.Generator:
        """The generator of the game's chance event k (0 the first)."""
        return np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(1, k)))


class MatchObserver:
    """Told of a match's actions and of its end, in order (a replay recorder). Every hook is a
    documented no-op here."""

    def chance_ahead(self, state, event: str, k: int) -> None:
        """Chance event `event` of `state`, the game's chance event k (0 the first), is about to be
        answered: called by `Match.draw()` (headless play and the window alike) before the source
        is asked, so before its outcome exists. A game server publishes chance event k's
        commitment here (`match.seeds.commitment(k)` with tabletop.gamekit.commit.CommittedSeeds),
        and its reveal once `record` has been told of the outcome. Called again if `draw()` is
        called again for the same event (the same k)."""

    def record(self, state, action, event: str | None, lines: list[str]) -> None:
        """`action` was just applied to `state`: the chance `event` it answered (None: a seat's
        decision) and the log `lines` it added."""

    def take_back(self, state, actions: int) -> None:
        """The last `actions` actions (decisions, never a chance outcome) were taken back
        (`Match.undo`); `state` is the position before them. A recorder forgets them: the
        recording keeps what was played, not what was taken back."""

    def finish(self, state, lines: list[str], unfinished: bool = False) -> None:
        """The game ended (`lines`: its result lines), or was left before its end (`unfinished`)."""

    def close(self) -> None:
        """The match is over with (always called, however it ended)."""


class Match:
    """A game being played: `state`, `seats` (None for a human seat), the outcome `source`, the
    generators of `seed` (or the `seeds` object given: tabletop.gamekit.commit.CommittedSeeds,
    `seed` then only the number the banner shows), and its `observers` (MatchObserver: a replay recorder draws chance from
    its own `source`, the one to hand the match).

    `lines` is the whole log so far: the banner, the state's log and, once over, the result lines
    (`result_lines(final)`). `after_action(state)` sees the state after every action (invariant
    checks); more than `max_turns` turns raise TurnLimitError.
    """

    def __init__(self, state, seats: Sequence, source, seed: int, banner: Sequence[str] = (),
                 result_lines: Callable | None = None, observers: Sequence[MatchObserver] = (),
                 max_turns: int = 5000, after_action: Callable | None = None, seeds=None, undo: bool = False):
        self.state = state
        self.seats = list(seats)
        self._seed = int(seed)
        self.seeds = GameSeeds(seed) if seeds is None else seeds
        self.observers = [o for o in observers if o is not None]
        self.source = source
        self.result_lines = result_lines or (lambda final: [])
        self.max_turns = max_turns
        self.after_action = after_action
        # chance events of the game answered so far (a state part-played elsewhere counts its own)
        self.chances = sum(isinstance(a, ChanceOutcome) for a in state.history)
        self.result: list[str] | None = None   # the result lines, once over
        self.lines = list(banner) + list(state.events)
        self._seen = len(state.events)
        self.undoable = undo                   # keep what `undo` needs (the window)
        self._undo: list[tuple] = []           # per decision since the last chance event: what it changed
        self._redo: list = []                  # the decisions taken back, the latest last

    @property
    def seed(self) -> int:
        return self._seed

    def is_over(self) -> bool:
        return self.state.is_terminal()

    def choose(self, seat=None):
        """The action the seat to move (or the stand-in `seat`) chooses, from the seats' generator."""
        s = self.state
        return (seat or self.seats[s.current_player]).choose(s, self.seeds.seats)

    def draw(self) -> str:
        """The label of the pending chance event, from the source with the event's own generator
        (simulated and watched, when the source is physics); not applied yet. The observers'
        `chance_ahead` is told first."""
        s, k = self.state, self.chances
        event = s.chance_event
        for observer in self.observers:
            observer.chance_ahead(s, event, k)
        return self.source.outcome(event, s, self.seeds.chance(k))

    def apply(self, action) -> list[str]:
        """Apply a seat's action or a chance outcome; returns the new log lines (with the result
        lines when it ends the game). IllegalMoveError leaves everything unchanged."""
        s = self.state
        event = s.chance_event        # (a finished game's apply raises before it is used)
        chance = isinstance(action, ChanceOutcome)
        before = None
        if self.undoable and not chance and not s.is_terminal():
            before = (s.clone(), self.seeds.seats.bit_generator.state, len(self.lines), self._seen,
                      s.current_player, action)
        s.apply(action)
        if chance:
            self.chances += 1
            self._undo, self._redo = [], []      # never taken back across a chance event
        elif before is not None:
            self._undo.append(before)
            if self._redo and self._redo[-1] == action:
                self._redo.pop()                 # redone
            else:
                self._redo = []                  # a new decision: what was taken back is gone
        new = list(s.events[self._seen:])
        self._seen = len(s.events)
        for observer in self.observers:
            observer.record(s, action, event, new)
        if self.after_action is not None:
            self.after_action(s)
        if s.is_terminal():
            self.result = list(self.result_lines(s))
            new += self.result
            for observer in self.observers:
                observer.finish(s, self.result)
        self.lines.extend(new)
        return new

    def step(self) -> list[str]:
        """One action: the chance event answered, or the seat to move choosing. Returns the new
        log lines ([] once over)."""
        s = self.state
        if s.is_terminal():
            return []
        if s.turn > self.max_turns:
            raise TurnLimitError(f"no winner after {self.max_turns} turns")
        return self.apply(ChanceOutcome(self.draw()) if s.chance_event is not None else self.choose())

    def play(self, on_line: Callable[[str], None] | None = None):
        """Step to the end (each log line to `on_line` as it comes, the lines so far first);
        returns the final state."""
        if on_line is not None:
            for line in self.lines:
                on_line(line)
        while not self.state.is_terminal():
            for line in self.step():
                if on_line is not None:
                    on_line(line)
        return self.state

    # -- taking back ------------------------------------------------------------------------------
    def _undo_depth(self, players) -> int:
        """How many decisions `undo(players)` takes back (0: none): back to the latest decision of
        one of `players`, never past a decision of another seat the match does not play (a seat of
        None: another human's), never once the game is over."""
        if self.is_over():
            return 0
        for depth, entry in enumerate(reversed(self._undo), 1):
            if entry[4] in players:
                return depth
            if self.seats[entry[4]] is None:
                return 0
        return 0

    def can_undo(self, players) -> bool:
        """Whether a decision of one of `players` since the last chance event can be taken back."""
        return self._undo_depth(players) > 0

    def undo(self, players):
        """Take back the latest decision of one of `players` (the window's human seat at the screen)
        since the last chance event, and every decision after it (the seats' generator goes back
        with them, so the same seats choose the same again): the position, the log and the
        recording are as before it. Never a decision of another seat this match does not play
        (another human's at the same screen): where one came after, nothing is taken back. Returns
        the decision taken back (None: none can be; never across a chance event, never once the
        game is over). `redo` plays it again."""
        if not self.can_undo(players):
            return None
        taken = 0
        while True:
            state, rng, lines, seen, player, action = self._undo.pop()
            taken += 1
            if player in players:
                break
        self.state = state
        self.seeds.seats.bit_generator.state = rng
        del self.lines[lines:]
        self._seen = seen
        self._redo.append(action)
        for observer in self.observers:
            observer.take_back(state, taken)
        return action

    def redo_action(self):
        """The decision `redo` would play again (None: nothing taken back, or a new decision was made since)."""
        return self._redo[-1] if self._redo else None

    def leave(self) -> None:
        """Tell the observers of a game left unfinished (the window's quit or new game): a
        recording's end record says so, and the file opens with no warning."""
        if not self.state.is_terminal():
            for observer in self.observers:
                observer.finish(self.state, [f"unfinished: left after {self.state.turn} turns"], unfinished=True)

    def close(self) -> None:
        """Close the observers (a recording of a game neither finished nor left reads as cut off)."""
        observers, self.observers = self.observers, []
        for observer in observers:
            observer.close()
