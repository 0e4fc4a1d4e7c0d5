"""What `tabletop analyze king-kong` measures: who wins (Kong too), rounds, Kong's climbs and falls.

The first player is the highest roller of the start rolls (ties roll again): he takes the spinner,
moves Kong before play and plays first in round 1. Nobody wins when Kong reaches the top; several
seats may share a victory, so the first player's fair share is the seats' mean win rate. Kong's
climbs are his moves (each a twist, then a climb of at least one notch); a pawn at risk of a Kong
move may be knocked over or pushed out of its space.

Under `fair` the die's faces are equally likely and each spinner label has its sectors' share of
the circle (assets/king_kong/spinner.toml); there is no fair knock-over, so a Kong move's fates
come from the measured kong-knockover table.
"""
from __future__ import annotations

from tabletop.gamekit.analyze import GameAnalysis, Observer
from tabletop.games.king_kong.labels import DIE_LABELS, FATES, INNER_LABELS, OUTER_LABELS, NO_RISK
from tabletop.gamekit.state import ChanceOutcome

KNOCKOVER = "kong-knockover"


def fair_tables() -> dict[str, dict[str, float]]:
    """The die's faces 1/6 each; each spinner label its sectors' share of its circle (the spec's): the
    definition's `fair_tables` (Kong's move has no fair odds: its fates stay measured)."""
    from tabletop.gamekit.devices import default_spec
    from tabletop.sim.devices.spinner_shape import load_circle
    from tabletop.sim.spec import load_toml

    spec = load_toml(default_spec("spinner"))
    out = {"die": {label: 1 / len(DIE_LABELS) for label in DIE_LABELS}}
    for event, name, labels in (("spin-outer", "outer", OUTER_LABELS), ("spin-inner", "inner", INNER_LABELS)):
        out[event] = load_circle(spec.table(name), name, labels).share()
    return out


class KongObserver(Observer):
    """The first player, Kong's climbs and notches, and the fates of the pawns at risk."""

    def __init__(self):
        super().__init__()
        self.first: int | None = None
        self.climbs = self.notches = 0
        self.fates = {fate: 0 for fate in FATES}
        self._climb = 0

    def seen(self, state, action) -> None:
        if self.first is None and state.round >= 1:
            self.first = state.order[0]
        if state.climb != self._climb:
            self.climbs += 1
            self.notches += state.climb - self._climb
            self._climb = state.climb
        if isinstance(action, ChanceOutcome) and self.event == "kong-move" and action.label != NO_RISK:
            for token in action.label.split():
                self.fates[token.partition(":")[2]] += 1

    def record(self, final) -> dict:
        at_risk = sum(self.fates.values())
        return {"winners": list(final.winners), "first": self.first,
                "lengths": {"turns": final.turn, "rounds": final.round},
                "counts": {"kong.climbs": self.climbs, "kong.notches": self.notches,
                           "kong.knocked": self.fates["knocked"], "kong.pushed": self.fates["pushed"],
                           "kong.at_risk": at_risk},
                "samples": {},
                "proportions": {"kong.knocked_share": [self.fates["knocked"], at_risk],
                                "kong.pushed_share": [self.fates["pushed"], at_risk]}}


def analysis(definition) -> GameAnalysis:
    """What analyze measures of the game `definition` (King Kong's) defines."""
    return GameAnalysis(
        definition=definition, observer=KongObserver, single_winner=False, nobody="kong", fair_measured=(KNOCKOVER,),
        first_rule="the highest roller of the start rolls (ties roll again), who takes the spinner, moves Kong "
                   "before play and plays first in round 1",
        fair_note="the die's faces 1/6 each; each spinner label its sectors' share of its circle "
                  "(assets/king_kong/spinner.toml); no fair knock-over exists, so Kong's moves use the measured "
                  "kong-knockover table",
        what={"win_rate.kong": "Kong reached the top (no seat won)", "turns": "player turns", "rounds": "rounds",
              "kong.climbs": "Kong's climbs (moves)", "kong.notches": "notches Kong climbed",
              "kong.knocked": "pawns knocked over by Kong", "kong.pushed": "pawns pushed out by Kong",
              "kong.at_risk": "pawns at risk of a Kong move",
              "kong.knocked_share": "share of pawns at risk knocked over",
              "kong.pushed_share": "share of pawns at risk pushed out"})


def redealer(state, seats):
    """What a viewer who holds the hands of `seats` has not seen, dealt afresh (a determinization,
    GameDefinition.redealer): the other seats' hands and the draw pile hold, in some order, the cards
    that are in no hand of `seats`, on no pile face up (the discard pile), kept as no mission and
    played face up by nobody; the same cards as the seat's mirror (KingKong.seat_mirror) leaves
    unseen. The deal gives each other hand its size and the draw pile its size, from a permutation
    of those cards (sorted first, so that the deal depends on the cards and the Generator alone, never
    on the recorded order). A fallen attacker that has yet to decide on its Safety Net (the viewer
    may not know it holds one) is dealt as the rules would treat it: it decides where its new hand
    holds a net, else its mission card is lost to the discard pile. None where nothing is hidden."""
    from tabletop.games.king_kong.cards import Kind
    from tabletop.games.king_kong.rules import Phase

    players = state.game.players
    known = {int(p) for p in seats if 0 <= int(p) < players}
    if not state.is_terminal() and state.chance_event is None and state.current not in known:
        raise ValueError("a redeal at a decision node must know the hand of the seat to decide")
    hidden = [p for p in range(players) if p not in known]
    sizes = [len(state.hands[p]) for p in hidden]
    unseen = sorted([c for p in hidden for c in state.hands[p]] + list(state.draw))
    if len(unseen) < 2 and not any(sizes):
        return None
    base = state.fork()
    deck = state.game.deck

    def deal(rng):
        s = base.fork()
        cards = [unseen[k] for k in rng.permutation(len(unseen))]
        at = 0
        for p, size in zip(hidden, sizes):
            s.hands[p] = cards[at:at + size]
            at += size
        s.draw = cards[at:]
        if s.phase is Phase.SAFETY_NET:
            for q in s.order:
                card = s.played[q]
                if q in known or q == s.current or card is None:
                    continue
                if not (deck[card].kind is Kind.ATTACK and s.cards_of(q, Kind.SAFETY_NET)):
                    s.discard.append(card)
                    s.played[q] = None
            s.pending_nets = [q for q in s.order if q != s.current and s.played[q] is not None]
        return s

    return deal
