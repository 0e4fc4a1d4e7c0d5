"""The King Kong deck, loaded and validated from deck.toml."""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from tabletop.games.king_kong.geometry import GROOVES
from tabletop.sim.errors import SpecError
from tabletop.sim.spec import Table, load_toml

DECK_FILE = Path(__file__).with_name("deck.toml")
MAX_ESCAPE = 6


class Kind(StrEnum):
    ATTACK = "attack"
    HELICOPTER = "helicopter"
    ESCAPE = "escape"
    SAFETY_NET = "safety_net"
    SPECIAL = "special"


@dataclass(frozen=True)
class Card:
    kind: Kind
    groove: str | None = None      # attack and special cards: the groove they name
    spaces: int = 0                # escape cards: how far the pawn may move away
    title: str = ""                # the special mission's text

    @property
    def is_mission(self) -> bool:
        """Played face up to attack a groove: an Attack card or the Special Mission."""
        return self.kind in (Kind.ATTACK, Kind.SPECIAL)

    def __str__(self) -> str:
        groove = (self.groove or "").replace("_", " ").title()
        return {Kind.ATTACK: f"Attack {groove}", Kind.HELICOPTER: "Helicopter Ride",
                Kind.ESCAPE: f"Escape Equipment {self.spaces}", Kind.SAFETY_NET: "Safety Net",
                Kind.SPECIAL: f"Special Mission \"{self.title}\""}[self.kind]


@dataclass(frozen=True)
class Deck:
    cards: tuple[Card, ...]       # card number -> card

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, number: int) -> Card:
        return self.cards[number]

    def names(self, numbers) -> str:
        return ", ".join(str(self.cards[n]) for n in numbers) or "nothing"


def load_deck(path: str | Path = DECK_FILE) -> Deck:
    spec = load_toml(path)
    cards: list[Card] = []
    for t in spec.tables("cards"):
        cards += [_card(t)] * t.integer("count", 1, 100)
    specials = sum(1 for c in cards if c.kind is Kind.SPECIAL)
    if specials != 1:
        raise SpecError(f"{spec.source}: cards: the deck holds exactly one Special Mission card, not {specials}")
    missing = sorted(set(GROOVES) - {c.groove for c in cards if c.kind is Kind.ATTACK})
    if missing:
        raise SpecError(f"{spec.source}: cards: no Attack card for the {missing[0]} groove")
    return Deck(tuple(cards))


def _card(t: Table) -> Card:
    where = f"{t.source}: {t.prefix}"
    raw = t.string("kind")
    try:
        kind = Kind(raw)
    except ValueError:
        raise SpecError(f"{where}kind: unknown card kind {raw!r}; use {', '.join(k.value for k in Kind)}") from None
    extra = sorted(set(t.data) - {"kind", "count", "groove", "spaces", "title"})
    if extra:
        raise SpecError(f"{where}{extra[0]}: unknown field")
    if kind in (Kind.ATTACK, Kind.SPECIAL):
        groove = t.string("groove")
        if groove not in GROOVES:
            raise SpecError(f"{where}groove: unknown groove {groove!r}; use {', '.join(GROOVES)}")
        title = t.string("title") if kind is Kind.SPECIAL else ""
        return Card(kind, groove=groove, title=title)
    for key in ("groove", "title") + (() if kind is Kind.ESCAPE else ("spaces",)):
        if key in t:
            raise SpecError(f"{where}{key}: a {kind.value} card has no {key}")
    if kind is Kind.ESCAPE:
        return Card(kind, spaces=t.integer("spaces", 1, MAX_ESCAPE))
    return Card(kind)
