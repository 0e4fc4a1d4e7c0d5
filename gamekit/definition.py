"""What generic code may ask of a game: its one definition (a `GameDefinition` subclass in the
game's package, registered as a plugin: the entry-point group `tabletop.games`, read by
tabletop.gamekit.registry).

Everything the command line, the API, replays, analysis, the agent environments and the window
need of a game is declared here, in the manner of OpenSpiel's python games (metadata and
constructor declared once, in the game's own module) and dm_control's composer Task (every hook
declared on the base): a hook a game must supply is an `abc.abstractmethod` (a class that lacks
one cannot be made, and the registry names what is missing), an optional one has a documented
default or says in one line that the game has none (`GameError`). `check_definition` checks what
the metadata says when the game is registered. Everything heavy (rules, physics, Panda3D) is
reached through the hooks, imported only when called.

The rest of the contract lives beside what it declares: the rules' Game and State
(tabletop.gamekit.state), the physical table and its outcome source (tabletop.gamekit.chance:
PhysicsTable, PhysicsSource), the window's adapter (tabletop.gamekit.view.adapter.TableAdapter),
the agents' codec (tabletop.gamekit.codec.Codec) and analyze's GameAnalysis (tabletop.gamekit.analyze).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass

from tabletop.gamekit.errors import GameError  # noqa: F401 (the contract's error, declared with it)
from tabletop.sim.errors import InputError




@dataclass(frozen=True)
class Option:
    """One of a game's options: its name in a replay's config and in the API (`games_to_win`), its
    default, what it means, and what it may be: one of `choices` (text), or a whole number of at
    least `minimum`. The command line's flag is the name with dashes (`--games-to-win`)."""

    name: str
    default: object
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value):
        """The value, of the option's kind; InputError naming the flag when it cannot be one."""
        if self.choices:
            if value not in self.choices:
                raise InputError(f"{self.flag}: unknown {self.name.replace('_', ' ')} {value!r}; use one of: "
                                 f"{', '.join(self.choices)}")
            return value
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value)
        if number is None:
            raise InputError(f"{self.flag}: expected a whole number, got {value!r}")
        if self.minimum is not None and number < self.minimum:
            raise InputError(f"{self.flag}: must be at least {self.minimum}, got {number}")
        return number


class GameDefinition(abc.ABC):
    """One game. Subclasses set the metadata and fill the abstract hooks; the others have defaults."""

    name = ""                              # as the command line writes it: lowercase words joined by "-"
    title = ""                             # "King of the Hill"
    colours: tuple[str, ...] = ()          # the seats' colours, in seat order
    seats: tuple[int, int] = (2, 2)        # fewest and most seats
    options: tuple[Option, ...] = ()       # the game's own options, each with its default
    chance_events: tuple[str, ...] = ()    # the chance events its rules raise
    private_chance: tuple[str, ...] = ()   # those whose outcome is hidden (a shuffled pile): a game
                                           # server reveals their seeds only when the game ends
    devices: tuple[str, ...] = ()          # the estimate devices whose measured tables answer them
    seat_kinds: tuple[str, ...] = ("ai", "random", "human")

    # -- options ---------------------------------------------------------------------------------
    def check_options(self, given: dict) -> dict:
        """Every option of the game, the `given` ones checked, the others at their defaults; an
        option the game does not have is an InputError."""
        known = {o.name: o for o in self.options}
        for name in given:
            if name not in known:
                flag = "--" + name.replace("_", "-")
                raise InputError(f"{flag}: {self.name} has no such option"
                                 + (f" (its options: {', '.join(o.flag for o in self.options)})" if known else ""))
        return {name: o.check(given[name]) if name in given else o.default for name, o in known.items()}

    # -- the rules ---------------------------------------------------------------------------
    @abc.abstractmethod
    def actions(self) -> dict:
        """Replay tag -> action class: every action the rules take."""

    @abc.abstractmethod
    def make_game(self, config: dict):
        """The rules' Game of a replay's config (players and the game's options)."""

    def winner(self, state) -> str | None:
        """Who won a finished `state`, as a replay records it: a colour, colours joined by "+"
        when several share the victory, or another name the game gives (None: nobody). The
        default reads the rules' `winner` (a seat, or None)."""
        return None if state.winner is None else self.colours[state.winner]

    # -- chance ------------------------------------------------------------------------------
    @abc.abstractmethod
    def physics(self):
        """A fresh physics outcome source (a tabletop.gamekit.chance.PhysicsSource)."""

    def chance_distribution(self, state, source):
        """The pending chance event's outcomes and their probabilities under `source` (a measured or
        fair table), for a tree search (the OpenSpiel wrapper): a list of (label, p), or a
        tabletop.gamekit.chance.UniformOrder. The default reads the event's table over the rules'
        `chance_outcomes()`."""
        from tabletop.gamekit.chance import table_distribution

        return table_distribution(state.chance_event, state.chance_outcomes(), source)

    def make_source(self, outcomes: str):
        """The outcome source an --outcomes text names: "physics" (`physics`), or "table:FILE.json[,...]"
        (saved estimates: `table_outcomes`; the events no file answers are thrown by physics). A game
        with sources of its own (`sources_help`) overrides it."""
        if outcomes == "physics":
            return self.physics()
        if outcomes.startswith("table:") and outcomes[6:].strip(","):
            tables = self.table_outcomes([f for f in outcomes[6:].split(",") if f])
            if set(self.chance_events) - set(tables.tables):
                tables.fallback = self.physics()
            return tables
        raise InputError(f"--outcomes: expected physics or table:FILE.json, got {outcomes!r}")

    def fair_tables(self) -> dict[str, dict[str, float]]:
        """The idealised chance of its chance events, {event: {label: p}}: a die's faces equally
        likely, a coin's sides even, a spinner's labels by their sectors' share. `analyze --outcomes
        fair` plays with it (an event it leaves out, such as a device with no fair odds, is drawn
        from the measured tables: tabletop.gamekit.analyze.fair_source), `bench --rules` draws from
        it, a review weighs a gadget's swing against it and `estimate` plots it beside a device's
        odds. Optional: the devices declare no fair odds of their own, so the default says in one
        line that the game has no fair chance (GameError)."""
        raise GameError(f"{self.title or self.name} has no fair chance (its definition gives no fair_tables)")

    def table_outcomes(self, files):
        """A source sampling saved estimates (`tabletop estimate DEVICE --out FILE.json`): by default
        every table the files hold (tabletop.gamekit.chance.TableOutcomes); a game checks here that
        they are tables of its devices and that every label is one its rules read."""
        from tabletop.gamekit.chance import TableOutcomes

        return TableOutcomes.from_files(files)

    # -- a game played (headless: tabletop.gamekit.session; the window: its controller) ------------
    max_turns = 5000                        # the turn cap of one game (a defect if reached)

    def replay_config(self, seats, outcomes: str, options: dict) -> dict:
        """The config a replay of a game records (and `make_game` reads back): headless play and the
        window build it here alike. The default: the number of seats as "players", the game's
        options, the seat kinds and the --outcomes text."""
        return {"players": len(seats), **options, "seats": list(seats), "outcomes": outcomes}

    def check_seats(self, seats, options: dict) -> None:
        """InputError (one line, naming --seats) when these seat kinds cannot play this game with
        these options, beyond their kinds and number (which generic code checks): a seat that
        needs a solved game the seats' count or the options do not give. Nothing by default."""

    @abc.abstractmethod
    def make_seat(self, kind: str, source, options: dict):
        """A seat of `kind` (one of `seat_kinds`, not "human") for a game whose chance comes from
        `source` (a planner plans with its tables, a solved seat solves for them)."""

    def banner(self, seats, seed: int, outcomes: str, options: dict) -> str:
        """The game's first log line, headless and in the window. The default names the title, each
        seat's colour and kind, the seed and the outcomes."""
        kinds = ", ".join(f"{self.colours[i]}={k}" for i, k in enumerate(seats))
        return f"{self.title}, seats {kinds}, seed {seed}, outcomes {outcomes}"

    def result_lines(self, final) -> list[str]:
        """The game's last log lines, once `final` is over, headless and in the window. The default:
        the winner (`winner`) and the turns."""
        return [f"winner: {self.winner(final)} after {final.turn} turns"]

    def play_headless(self, seats, seed, outcomes, record, options: dict, emit=None):
        """`play --headless`: a whole game by its seats, the log to `emit` (default: printed), the
        replay to `record` (None: none); the final state. The one headless session
        (tabletop.gamekit.session.play_headless) on this definition's hooks."""
        from tabletop.gamekit.session import play_headless

        return play_headless(self, seats, seed, outcomes, options, record, emit)

    # -- what a seat may know (network play: tabletop.net) -------------------------------------
    def public_position(self, state) -> dict:
        """The position every viewer may see, JSON-able. The default is the rules' text of the
        state (`str(state)`); a game with hidden information overrides it (its text may show a hand)."""
        return {"text": str(state)}

    def seat_view(self, state, seat: int | None, since: int = 0) -> dict:
        """What `seat` (a player, or None for a spectator) may know of `state`, JSON-able: the turn,
        whose decision it is (a colour; None at a chance event, which `chance` names, or at the
        end), whether the game is over and who won, the log lines from `since` on (an index into
        `state.events`) as `seen_by` gives them to that seat (a line that is not the seat's to read
        and has no public form is left out), and the public position (`public_position`). A game
        with hidden information adds what only that seat may know (its hand)."""
        from tabletop.gamekit.state import seen_by

        seats = () if seat is None else (seat,)
        player = state.current_player
        over = state.is_terminal()
        lines = (seen_by(line, seats) for line in state.events[since:])
        return {"turn": state.turn,
                "to_move": self.colours[player] if player >= 0 else None,
                "chance": None if over else state.chance_event,
                "over": over,
                "winner": self.winner(state) if over else None,
                "log": [line for line in lines if line],
                "position": self.public_position(state)}

    def seat_mirror(self, state, seat: int | None, since: int = 0) -> dict:
        """What a client needs to rebuild the position as `seat` (None: a spectator) may know it, for
        its window and its AI (`mirror_state`), JSON-able. The default, for a game with no hidden
        information: the history's steps from `since` on (decisions and chance outcomes, encoded as
        replays encode them) as {"from": since, "history": [...]}, which a client appends to those it
        holds (tabletop.net.protocol.merge_view). A game with hidden information gives its own: a
        whole position without what the seat may not know (no "from": it replaces the one held)."""
        from tabletop.gamekit.record import encode_action

        return {"from": since, "history": [encode_action(self, a) for a in state.history[since:]]}

    def mirror_state(self, config: dict, mirror: dict, seat: int | None):
        """The rules' State a client builds from a whole `seat_mirror` (its "from" 0) of the game of
        replay config `config`: the default re-drives the history. In a game with hidden information
        what the seat may not know is filled in with stand-ins (never shown, never acted on); the
        seat's own part, the public position and the seat's legal actions are the game's.
        InputError when the mirror is not one of this game's."""
        from tabletop.gamekit.record import decode_action
        from tabletop.gamekit.state import IllegalMoveError

        state = self.make_game(config).new_initial_state()
        for encoded in mirror.get("history", ()):
            try:
                state.apply(decode_action(self, encoded))
            except IllegalMoveError as exc:
                raise InputError(f"a mirror of {self.name} that its rules refuse: {exc}") from None
        return state

    def redealer(self, state, seats):
        """What a viewer who sees the private parts of `seats` (seat numbers: its own hand; every
        seat: every hand open) has not seen of `state`, dealt afresh: a function of a numpy Generator
        to a new position that agrees with all the viewer knows (its `seat_mirror`), the rest dealt
        at random from that Generator (a determinization); at a decision node the seat to decide is
        among `seats`. None where nothing is hidden from it: the default, a game with no hidden
        information. A review's rollouts deal through it, so that a decision is judged on what its
        seat could know, never on a recorded order of cards (tabletop.gamekit.review)."""
        return None

    # -- front ends ----------------------------------------------------------------------------

    def window_adapter(self, seats, options: dict, scene=None):
        """The window's adapter (tabletop.gamekit.view.adapter.TableAdapter): on the physical table,
        or given a replay's RecordedScene, on the game's layout for playback. Optional: a game
        without one plays headless, over the network and in the agents' environments, and every
        window of it (play, replay --frames, review's window) says in one line that it has none."""
        raise GameError(f"{self.title or self.name} has no window (its definition gives no window_adapter); "
                        f"play it with --headless")

    def analysis(self):
        """Its GameAnalysis (tabletop.gamekit.analyze): what only analysis knows of the game (an
        observer of its games, who plays first, how its fair chance is made, what its figures
        mean); the rules, seats, sources and turn cap analyze takes from this definition. Optional:
        a game without one is analysed for what every game has (winners, the first player, its
        length in turns, decisions and chance events: tabletop.gamekit.analyze.generic_analysis)."""
        from tabletop.gamekit.analyze import generic_analysis

        return generic_analysis(self)

    solved = False                          # whether `solve` gives the game's perfect play
    sources_help = ""                       # --outcomes sources of its own, for the help ("" none)

    def solve(self, outcomes: str, kind: str, files, options: dict, policy, emit, players: int = 2) -> dict:
        """`analyze --solve`: perfect play of the game of `players` seats for the chance of
        `outcomes` (`kind` and `files` as analyze resolves it) and for fair chance, each line of the
        report to `emit`, the policy saved to `policy` (a path, or None); the result `--out`
        writes; InputError when that game is not solved. Required of a game whose `solved` is true
        (check_definition); the default says the game is not solved."""
        raise GameError(f"analyze --solve: {self.title or self.name} is not solved")

    # -- review (`tabletop review`: tabletop.gamekit.review) -------------------------------------
    review_seat = "ai"                      # the seat kind that plays every chair of a review's
                                            # rollouts where the game is not solved (a seat kind)

    def solved_values(self, game, tables: dict, emit=None, progress=None):
        """Each seat's win probability under perfect play, exactly, for the positions of `game` (the
        rules' Game a replay's config makes) with chance from `tables` ({event: {label: p}}): a
        function of a state (any node: a decision node's value is its best move's, a chance node's
        the expectation of its outcomes under the tables, a finished game's its result) to a list of
        floats, one per seat. None where the game with these rules, seats and tables is not solved:
        a review then estimates by rollouts. `emit` is told before a solve that takes minutes;
        `progress(fraction, doing)`, where given, while it runs (the window's hint shows it).
        None by default."""
        return None

    def rules_bench(self):
        """Its `tabletop bench --rules` set-up: a tabletop.gamekit.rules_bench.RulesBench. The default
        is made from the definition (tabletop.gamekit.rules_bench.from_definition: the Game of the
        default options and the fewest seats, chance from `fair_tables`, seats by `make_seat`, its
        `max_turns`); a game overrides only what differs (`dataclasses.replace(super().rules_bench(),
        players=4)`)."""
        from tabletop.gamekit.rules_bench import from_definition

        return from_definition(self)

    def extra_benches(self, games: int, seats: str) -> dict:
        """Benches of its own engines beside the rules': {name: (figures, the line to print)};
        none by default."""
        return {}

    @abc.abstractmethod
    def codec(self, game):
        """The agents' action catalogue and observations (tabletop.gamekit.codec) of a Game."""


#: hooks a game overrides only together with a flag that says it has them
FLAGGED = {"solve": "solved"}


def check_definition(definition: GameDefinition, name: str | None = None) -> None:
    """GameError (one line) naming what a definition says wrong or leaves out, when it is registered
    (under entry-point `name`, where given): its metadata (name, title, colours, seats, seat kinds,
    options, chance events) and the hooks its flags promise (`solved` -> `solve`). The abstract hooks
    are checked by Python itself: a definition that lacks one cannot be made."""
    d = definition
    missing = sorted(getattr(type(d), "__abstractmethods__", ()))
    if missing:
        raise GameError(f"it does not fill the required hook{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    wrong = []
    if not isinstance(d.name, str) or not d.name or d.name != d.name.strip() or " " in d.name:
        wrong.append(f"name {d.name!r} is not a command-line name (lowercase words joined by '-')")
    elif name is not None and d.name != name:
        wrong.append(f"name {d.name!r} is not its entry point's name {name!r}")
    if not d.title:
        wrong.append("no title")
    lo, hi = d.seats
    if not d.colours:
        wrong.append("no colours (one per seat)")
    elif not 1 <= lo <= hi <= len(d.colours):
        wrong.append(f"seats {d.seats} do not fit {len(d.colours)} colours (1 <= fewest <= most <= colours)")
    if not d.seat_kinds or "human" not in d.seat_kinds:
        wrong.append(f"seat kinds {d.seat_kinds} lack 'human'")
    if d.review_seat not in d.seat_kinds or d.review_seat == "human":
        wrong.append(f"review_seat {d.review_seat!r} is not one of its AI seat kinds {d.seat_kinds}")
    if len({o.name for o in d.options}) != len(d.options):
        wrong.append("two options share a name")
    if set(d.private_chance) - set(d.chance_events):
        wrong.append(f"private_chance {d.private_chance} not among chance_events {d.chance_events}")
    for hook, flag in FLAGGED.items():
        if getattr(d, flag) and getattr(type(d), hook) is getattr(GameDefinition, hook):
            wrong.append(f"{flag} is true but it gives no {hook}")
    if wrong:
        raise GameError("; ".join(wrong))
