"""What generic code may ask of a game: its one definition (a `GameDefinition` subclass in the
game's package, `tabletop.games.<game>.DEFINITION`; tabletop.games.registry lists them).

Everything the command line, the API, replays, analysis, the agent environments and the window
need of a game is declared here, in the manner of OpenSpiel's python games (metadata and
constructor declared once, in the game's own module) and dm_control's composer Task (every hook
declared on the base: abstract, or a documented default). Everything heavy (rules, physics,
Panda3D) is reached through the hooks, imported only when called.
"""
from __future__ import annotations


class GameDefinition:
    """One game. Subclasses set the metadata and fill the hooks marked abstract."""

    name = ""                              # as the command line writes it: "king-of-the-hill"
    title = ""                             # "King of the Hill"
    colours: tuple[str, ...] = ()          # the seats' colours, in seat order
    seats: tuple[int, int] = (2, 2)        # fewest and most seats
    variants: tuple[str, ...] = ("standard",)   # rule variants (--variant), the first the default
    chance_events: tuple[str, ...] = ()    # the chance events its rules raise
    devices: tuple[str, ...] = ()          # the estimate devices whose measured tables answer them
    seat_kinds: tuple[str, ...] = ("ai", "random", "human")

    # -- the rules ---------------------------------------------------------------------------
    def actions(self) -> dict:
        """Replay tag -> action class: every action the rules take (abstract)."""
        raise NotImplementedError

    def make_game(self, config: dict):
        """The rules' Game of a replay's config (players and the game's options) (abstract)."""
        raise NotImplementedError

    def winner(self, state) -> str | None:
        """Who won a finished `state`, as a replay records it: a colour, colours joined by "+"
        when several share the victory, or another name the game gives (None: nobody). The
        default reads the rules' `winner` (a seat, or None)."""
        return None if state.winner is None else self.colours[state.winner]

    # -- chance ------------------------------------------------------------------------------
    def physics(self):
        """A fresh physics outcome source (a tabletop.games.chance.PhysicsSource) (abstract)."""
        raise NotImplementedError

    def make_source(self, outcomes: str):
        """The outcome source an --outcomes text names ("physics", "table:FILE.json,...") (abstract)."""
        raise NotImplementedError

    # -- front ends ----------------------------------------------------------------------------
    def play_headless(self, seats, seed, outcomes, record, variant, games_to_win, emit=None):
        """`play --headless`: a whole game by its seats, the log to `emit`; the final state (abstract)."""
        raise NotImplementedError

    def window_adapter(self, seats, variant, games_to_win, scene=None):
        """The window's adapter (tabletop.games.view.adapter.TableAdapter): on the physical table,
        or given a replay's RecordedScene, on the game's layout for playback (abstract)."""
        raise NotImplementedError

    def analysis(self):
        """Its GameAnalysis (tabletop.games.analyze): `tabletop analyze` (abstract)."""
        raise NotImplementedError

    def codec(self, game):
        """The agents' action catalogue and observations (tabletop.games.codec) of a Game (abstract)."""
        raise NotImplementedError
