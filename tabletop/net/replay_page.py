"""A recorded game as one self-contained web page: `tabletop replay GAME.ttr --html OUT.html`.

The page is the room page (tabletop/web: room.html, room.js, table3d.js, motion.js, three.js) with
everything inline, so it opens from file:// in any browser with no server and no network: its
modules as data: URLs in an import map (each module's relative imports rewritten to the map's
names), its style, the table's glTF and table.json (tabletop.net.browser, from the replay header's
recorded scene: no PyBullet), and the game as the messages a spectator of its room would have
received (docs/protocol.md): for each recorded action its chance event's commit, reveal and
motion where it has them, then the view after it (`pieces` as the window places them). The page's
replay controls (tabletop/web/replay.js) feed those messages to the room page's own handlers: play,
pause, a turn back and on, the start and the end, a slider, the speed; the log and the players'
panel; the review panel when a review is given (`tabletop review --out`).

A game with hidden hands exports only what no seat hides (a spectator's view, log and pieces, and
no seed of a hidden chance event, which would give the hidden cards away) unless `reveal`: then each
seat's hand and every log line are in the file. This holds for a finished game too: a file is
passed on. The page checks in the browser each reveal against its commitment and each motion
against its hash, as a room's page does, and says what it checked.
"""
from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
from datetime import datetime, timezone
from html import escape
from pathlib import Path

from tabletop.gamekit.commit import SCHEME
from tabletop.sim.errors import InputError

PAGE_FORMAT = "tabletop-replay-page"
PAGE_VERSION = 1
ROOM = "replay"                   # the room code the messages carry (the page names no room)
MOVE_SECONDS = 0.6                # a move's beat in the page's playback, at speed 1
NO_MOTION_SECONDS = 0.3           # a chance event with no motion (drawn from a table)
WEB = Path(__file__).resolve().parents[1] / "web"
ENTRY = "room.js"
IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*|\bimport\(\s*)(['"])(\.{1,2}/[^'"]+)\2""")
MAP_PREFIX = "@tabletop/"


def _modules() -> dict[str, str]:
    """{name in the import map: data: URL} of every module the page can import, from room.js on
    (its dynamic imports too), each with its relative imports rewritten to their names in the map."""
    out: dict[str, str] = {}
    todo = [ENTRY]
    while todo:
        rel = todo.pop()
        if MAP_PREFIX + rel in out:
            continue
        source = (WEB / rel).read_text(encoding="utf-8")

        def name(match: re.Match) -> str:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), match.group(3)))
            todo.append(target)
            return f"{match.group(1)}{match.group(2)}{MAP_PREFIX}{target}{match.group(2)}"

        source = IMPORT.sub(name, source)
        out[MAP_PREFIX + rel] = "data:text/javascript;base64," + base64.b64encode(source.encode()).decode("ascii")
    return out


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode("ascii") + "'"


def _inline_json(value) -> str:
    """JSON safe inside a <script> element: no '<' (so never '</script>'), no U+2028/9."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def thrown_looks(replay, scene: dict) -> dict:
    """{body: look} of the bodies a replay's motions bring that its scene does not have (King Kong's
    die and spinner: the window adds them when first thrown), from the first motion of each."""
    found: dict = {}
    for turn in replay.turns:
        if not turn.log.get("motions"):
            continue
        for motion in turn.motions:
            for body, look in (motion.get("looks") or {}).items():
                if body not in scene["looks"] and body not in found:
                    found[body] = look
    return found


def outcomes_said(outcomes: str) -> str:
    """A game's outcomes as the page says them: measured tables by their files' names, not paths."""
    if outcomes.startswith("table:"):
        return "from measured tables (" + ", ".join(Path(f).stem for f in outcomes[6:].split(",")) + ")"
    return outcomes


class PageBuilder:
    """The messages of a replay, as a spectator of its room would receive them (module docstring)."""

    def __init__(self, replay, definition, seats, options, reveal: bool):
        from tabletop.net.browser import BrowserViews, recorded_table

        self.replay, self.definition, self.reveal = replay, definition, reveal
        self.config = dict(replay.header.get("config", {}))
        self.players = len(seats)
        scene = replay.header.get("scene") or {"looks": {}, "poses": {}}
        self.table = recorded_table(definition, seats, options, scene)
        thrown = {} if self.table is None else thrown_looks(replay, self.table["scene"])
        if self.table is not None and thrown:             # the bodies only a throw brings (a die): drawn,
            drawn = self.table["scene"]                                         # hidden until thrown
            self.table["scene"] = {"looks": {**drawn["looks"], **thrown}, "poses": drawn["poses"]}
            self.table["thrown"] = sorted(thrown)
        self.views = None if self.table is None else BrowserViews(definition, seats, options, self.config,
                                                                  self.table)
        self.private = frozenset(definition.private_chance)
        self.everyone = tuple(range(self.players))
        kinds = list(self.config.get("seats") or [])
        recorded = replay.recorded_at
        self.banner = ", ".join(
            ([f"recorded {datetime.fromtimestamp(recorded, timezone.utc):%Y-%m-%d %H:%M} UTC"] if recorded else [])
            + ([", ".join(f"{c}={k}" for c, k in zip(definition.colours, kinds))] if kinds else [])
            + [f"outcomes {outcomes_said(self.config.get('outcomes', 'physics'))}"])

    def view(self, state, since: int) -> dict:
        """What the page shows after `state`: the spectator's view (with `reveal`, every seat's hand
        and every log line), the log from event `since` on, the pieces, the result once over."""
        view = self.definition.seat_view(state, None, since)
        if self.reveal:
            from tabletop.gamekit.state import seen_by

            view["log"] = [line for line in (seen_by(e, self.everyone) for e in state.events[since:]) if line]
            hands = {}
            for seat in self.everyone:
                hand = self.definition.seat_view(state, seat, 0).get("hand")
                if hand is not None:
                    hands[self.definition.colours[seat]] = hand
            if hands:
                view["hands"] = hands
        if self.views is not None:
            view["pieces"] = self.views.pieces(state)
        if state.is_terminal():
            view["result"] = list(self.definition.result_lines(state))
        view["banner"] = self.banner
        return view

    def final(self, state) -> dict:
        """The position the page ends on, as tabletop.net.browser.position_digest takes it."""
        view = self.view(state, 0)
        return {"pieces": view.get("pieces", {}), "log": view["log"], "winner": view.get("winner")}

    def build(self) -> dict:
        """The page's data: the game, the seats, the steps (each its turn, its messages and its
        beat in seconds), the table's files (None: no window), what is hidden."""
        from tabletop.gamekit.record import decode_action
        from tabletop.net import protocol as p
        from tabletop.net.browser import hides_something
        from tabletop.net.room import motion_wire

        d = self.definition
        state = d.make_game(self.config).new_initial_state()
        kinds = list(self.config.get("seats") or ["?"] * self.players)
        joined = p.to_dict(p.Joined(ROOM, d.name, None, None,
                                    tuple({"colour": c, "kind": kinds[i] if i < len(kinds) else "?", "taken": True}
                                          for i, c in enumerate(d.colours[:self.players])), True, title=d.title))
        first = self.view(state, 0)
        logged = len(state.events)
        steps = [{"turn": 0, "seconds": 0.0, "messages": [p.to_dict(p.View(ROOM, None, 0, 0, first))]}]
        log_length = len(first["log"])
        k = 0
        hidden_events = 0
        for turn in self.replay.turns:
            motions = None
            for step in turn.steps:
                if "action" not in step:
                    continue
                messages, seconds = [], MOVE_SECONDS
                action = decode_action(d, step["action"])
                if "chance" in step:
                    event = step["chance"]
                    seconds = NO_MOTION_SECONDS
                    if "commitment" in step:
                        messages.append(p.to_dict(p.Commit(ROOM, k, event, step["commitment"])))
                    hidden = event in self.private and not self.reveal
                    hidden_events += hidden
                    if "reveal" in step and not hidden:
                        messages.append(p.to_dict(p.Reveal(ROOM, k, event, step["reveal"]["seed"],
                                                           step["reveal"]["salt"], action.label,
                                                           step.get("motion_sha256"))))
                    if step.get("motion") is not None and not hidden:
                        if motions is None:
                            motions = turn.quantized_motions()
                        motion = motions[step["motion"]]
                        if motion.tracks:
                            wire = motion_wire(motion)
                            messages.append(p.to_dict(p.Motion(ROOM, k, event, tuple(wire["tracks"]),
                                                               wire["frames"], wire["data"])))
                            seconds = max(seconds, turn.log["motions"][step["motion"]]["duration"])
                    k += 1
                state.apply(action)
                view = self.view(state, logged)
                logged = len(state.events)
                messages.append(p.to_dict(p.View(ROOM, None, len(steps), log_length, view)))
                log_length += len(view["log"])
                steps.append({"turn": turn.number, "seconds": round(float(seconds), 3), "messages": messages})
        self.state = state
        hidden_note = None
        if hides_something(d):
            hidden_note = ("every hand shown (exported with --reveal)" if self.reveal
                           else "hands hidden: only what no seat hides is in this file (--reveal exports them)")
        return {"format": PAGE_FORMAT, "version": PAGE_VERSION, "file": self.replay.path.name,
                "game": d.name, "title": d.title, "joined": joined, "steps": steps,
                "complete": self.replay.end is not None, "hidden": hidden_note,
                "committed": self.replay.header.get("seeds") == SCHEME,
                "hidden_events": hidden_events, "chance_events": k}


def page_data(path, review: dict | None = None, reveal: bool = False) -> tuple[dict, dict | None, dict]:
    """(the page's data, the table (tabletop.net.browser.described; None: no window), the final
    position as the page shows it (`PageBuilder.final`)) of the replay at `path`."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.replay import replay_config, review_rows
    from tabletop.sim.record import ReplayFile

    replay = ReplayFile.open(path)
    definition, seats, options = replay_config(replay, GAMES)
    builder = PageBuilder(replay, definition, seats, options, reveal)
    data = builder.build()
    if review is not None:
        reviewed = {r["index"]: r for r in review.get("steps", [])}
        n = len(data["steps"]) - 1
        data["review"] = [review_rows(review, reviewed, i, n) for i in range(n + 1)]
    final = builder.final(builder.state)
    if builder.views is not None:
        builder.views.close()
    return data, builder.table, final


def replay_html(path, review: dict | None = None, reveal: bool = False) -> str:
    """The self-contained page of the replay at `path` (module docstring)."""
    from tabletop.net.browser import table_files

    data, table, _ = page_data(path, review, reveal)
    if table is not None:
        glb, info = table_files(table)
        data["table"] = {"glb": "data:model/gltf-binary;base64," + base64.b64encode(glb).decode("ascii"),
                         "json": "data:application/json;base64," + base64.b64encode(info).decode("ascii")}
    else:
        data["table"] = None
    html = (WEB / "room.html").read_text(encoding="utf-8")
    style = (WEB / "room.css").read_text(encoding="utf-8")
    importmap = _inline_json({"imports": _modules()})
    boot = f'import "{MAP_PREFIX}{ENTRY}";'
    csp = ("default-src 'none'; "
           f"script-src {_sha(importmap)} {_sha(boot)} data:; style-src {_sha(style)}; "
           "img-src data: blob:; connect-src data: blob:; base-uri 'none'; form-action 'none'; object-src 'none'")
    head = (f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
            f"<style>{style}</style>\n"
            f'<script type="application/json" id="replay-data">{_inline_json(data)}</script>\n'
            f'<script type="importmap">{importmap}</script>\n'
            f'<script type="module">{boot}</script>')
    link = '<link rel="stylesheet" href="/static/room.css">\n<script type="module" src="/static/room.js"></script>'
    if link not in html:
        raise InputError("tabletop/web/room.html is not the page the replay export knows (its head changed)")
    title = f"<title>{escape(data['title'])}: replay</title>"
    return html.replace(link, head).replace("<title>tabletop room</title>", title)
