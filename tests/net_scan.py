"""What the network tests share: a hub connection that keeps every frame it is sent, and the
scan of every connection's raw frames for what its seat may not know (King Kong's hidden cards)."""
from __future__ import annotations

import json

from tabletop.gamekit.state import ChanceOutcome, SeatLine
from tabletop.net import protocol as p


# the card numbers a King Kong action names (rules.py: Fly, Attack, Escape, SafetyNet, Discard)
CARD_FIELDS = {"fly": lambda a: [a[1]], "attack": lambda a: [a[2]], "escape": lambda a: [a[1]],
               "net": lambda a: [a[1]], "discard": lambda a: list(a[1])}


class Recorder:
    """The frames a hub connection was sent, raw, and the connection (Hub.connect)."""

    def __init__(self, hub):
        self.frames: list[str] = []
        self.conn = hub.connect(self.frames.append)
        self.hub = hub
        self.token: str | None = None
        self.proofs: list[dict] = []       # the commitments and reveals it got
        self.notices: list[dict] = []      # the notices of the seats it got

    def send(self, message) -> list[dict]:
        """Send a message (a protocol dataclass, a dict or a raw frame); the messages it got back,
        the chance events' commitments and reveals aside (kept in `proofs`), and the notices
        of the seats (in `notices`)."""
        before = len(self.frames)
        frame = p.encode(message) if hasattr(message, "TYPE") else (
            json.dumps(message) if isinstance(message, dict) else message)
        self.hub.receive(self.conn, frame)
        got = [json.loads(f) for f in self.frames[before:]]
        for m in got:
            if m["type"] == "joined" and m["token"]:
                self.token = m["token"]
        self.proofs += [m for m in got if m["type"] in ("commit", "reveal")]
        self.notices += [m for m in got if m["type"] == "notice"]
        return [m for m in got if m["type"] not in ("commit", "reveal", "notice")]

    def last_view(self) -> dict | None:
        """The last view it was sent (only that frame parsed: a long test asks after every message)."""
        for frame in reversed(self.frames):
            if '"type":"view"' in frame:
                return json.loads(frame)
        return None


class Secrets:
    """A King Kong game's hidden things, re-driven from its history: each seat's private log lines,
    its hand after each step, the shuffled piles' orders."""

    def __init__(self, definition, config: dict, history: list):
        game = definition.make_game(config)
        state = game.new_initial_state()
        self.hands = [[sorted(h) for h in state.hands]]       # after step k: hands[k]
        self.shuffles: list[str] = []
        for action in history:
            if isinstance(action, ChanceOutcome) and len(action.label.split()) > 3:
                self.shuffles.append(action.label)
            state.apply(action)
            self.hands.append([sorted(h) for h in state.hands])
        self.private = [(line.seat, str(line)) for line in state.events if isinstance(line, SeatLine)]
        self.state = state


def scan(secrets: Secrets, frames: list[str], seat: int | None, tokens: dict[int, str]) -> int:
    """Check the raw frames one connection of `seat` (None: a spectator) was sent: no private line
    of another seat's, no shuffled pile, no other seat's token, a hand only its own at that step (a
    spectator's none) and legal actions only its own, naming only its own cards. The views checked."""
    views = 0
    for frame in frames:
        for other, line in secrets.private:
            if other != seat:
                assert line not in frame, f"seat {seat} was sent {other}'s line {line!r}"
        for pile in secrets.shuffles:
            assert pile not in frame, f"seat {seat} was sent a shuffled pile"
        for other, token in tokens.items():
            if other != seat:
                assert token not in frame, f"seat {seat} was sent {other}'s token"
        message = p.parse(frame, "server")
        if not isinstance(message, p.View):
            continue
        views += 1
        hand = message.view.get("hand")
        if seat is None:
            assert hand is None and message.legal is None and '"hand"' not in frame
            mirror = message.view.get("mirror", {}).get("state")
            assert mirror is None or (mirror["own"] is None and mirror["pending_nets"] == [])
            continue
        own = secrets.hands[message.step][seat]
        assert hand is None or [c["card"] for c in hand] == own, (seat, message.step, hand, own)
        mirror = message.view.get("mirror", {}).get("state")
        if mirror is not None:      # the position a client rebuilds: its own hand, the others' sizes alone
            assert mirror["own"] == own and not {"hands", "draw"} & set(mirror), (seat, message.step)
            assert mirror["phase"] != "turn" or mirror["current"] == seat
        for action in message.legal or ():
            cards = CARD_FIELDS.get(action[0], lambda a: [])(action)
            assert set(cards) <= set(own), (seat, action, own)
    return views
