"""The heads-up display drawn over the table: status, players, a scrolling log, buttons, help.

The panels keep to two side columns and two thin strips (a banner above, the prompt below), so the
table can be framed in the part of the screen they leave free (`free_rect`). Every text is wrapped
at word boundaries to its panel's width; nothing is cut.
"""
from __future__ import annotations

import re

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

PANEL = (0.05, 0.06, 0.08, 1.0)     # opaque: blending a large panel costs a software renderer dearly
TEXT = (0.95, 0.95, 0.92, 1)
KEY = (1, 1, 0.75, 1)
NOTICE = (1.0, 0.7, 0.35, 1)
KEY_PLATE = (1.0, 0.86, 0.1, 1)     # a lit space's number key (the lit disc's yellow)
STRIP = (0.0, 0.0, 0.0, 0.6)        # behind a line over the table: readable over any part of it
BUTTON = ((0.18, 0.22, 0.3, 1), (0.3, 0.36, 0.5, 1), (0.25, 0.3, 0.42, 1), (0.12, 0.12, 0.14, 1))

LEFT = 0.95          # width of the left column: status, choices, log (aspect2d units)
RIGHT = 0.8          # width of the right column: players, buttons
TOP = 0.12           # the banner's strip above the table
BOTTOM = 0.17        # the prompt's and notice's strip below it
PAD = 0.025
TEXT_SCALE = 0.034
STATUS_SCALE = 0.04
LOG_ROWS = 12
BUTTON_ROW = 0.085


def wrap(node: TextNode, line: str, width: float) -> list[str]:
    """`line` broken at spaces into rows no wider than `width` (the node's own text units); a row
    after the first keeps the line's indent plus two spaces. A single word wider than a row is
    left whole on its own row, never cut."""
    indent = len(line) - len(line.lstrip(" "))
    words = line.split()
    if not words:
        return [""]
    rows, row = [], " " * indent + words[0]
    for word in words[1:]:
        longer = f"{row} {word}"
        if node.calc_width(longer) <= width:
            row = longer
        else:
            rows.append(row)
            row = " " * (indent + 2) + word
    rows.append(row)
    return rows


def inset_region(aspect: float) -> tuple[float, float, float, float]:
    """Where a close-up goes (left, right, bottom, top as fractions of the window): the right
    column between the players' panel above and the buttons below."""
    return (0.5 + (aspect - RIGHT + PAD) / (2 * aspect), 1 - PAD / (2 * aspect), 0.25, 0.47)


class Hud:
    """Text panels in the window's 2D layer (aspect2d); the log shows its last LOG_ROWS rows,
    scrolled with `scroll` (by lines of the log)."""

    def __init__(self, base, log_rows: int = LOG_ROWS):
        self.base = base
        a2d = base.aspect2d
        self.ar = ar = base.getAspectRatio()
        self.keys = a2d.attach_new_node("lit-keys", -10)    # drawn before (under) the panels
        self.left_x, self.right_x = -ar + PAD, ar - RIGHT
        self.status_frame = DirectFrame(parent=a2d, frameColor=PANEL, pos=(self.left_x, 0, 1 - PAD))
        self.status = self._text(self.status_frame, STATUS_SCALE)
        self.players_frame = DirectFrame(parent=a2d, frameColor=PANEL, pos=(self.right_x, 0, 1 - PAD))
        self.players = self._text(self.players_frame, TEXT_SCALE)
        self.log_rows = log_rows
        self.log_height = 2 * PAD + log_rows * self._row(TEXT_SCALE)
        self.log_frame = DirectFrame(parent=a2d, frameColor=PANEL, pos=(self.left_x, 0, -1 + PAD + self.log_height),
                                     frameSize=(0, LEFT - PAD, -self.log_height, 0))
        self.log_text = self._text(self.log_frame, TEXT_SCALE)
        fx0, fx1, fy0, fy1 = self.free_rect()
        self.free_width = fx1 - fx0
        self.banner = OnscreenText(text="", pos=((fx0 + fx1) / 2, 1 - 0.085), scale=0.06, fg=(1, 0.9, 0.4, 1),
                                   mayChange=True, parent=a2d, shadow=(0, 0, 0, 1), bg=STRIP)
        self.prompt = OnscreenText(text="", pos=((fx0 + fx1) / 2, -1 + 0.11), scale=0.045, fg=(1, 1, 0.8, 1),
                                   mayChange=True, parent=a2d, shadow=(0, 0, 0, 1), bg=STRIP)
        self.notice = OnscreenText(text="", pos=((fx0 + fx1) / 2, -1 + 0.045), scale=0.04, fg=NOTICE,
                                   mayChange=True, parent=a2d, shadow=(0, 0, 0, 1), bg=STRIP)
        self.menu_title = OnscreenText(text="", scale=TEXT_SCALE * 1.15, fg=KEY, align=TextNode.A_left,
                                       mayChange=True, parent=a2d, shadow=(0, 0, 0, 1))
        self.help = DirectFrame(parent=a2d, frameColor=(0.03, 0.03, 0.05, 1), sortOrder=100)
        self.help_keys = self._text(self.help, TEXT_SCALE * 1.1, fg=KEY)
        self.help_text = self._text(self.help, TEXT_SCALE * 1.1)
        self.help_prose = self._text(self.help, TEXT_SCALE * 1.1)
        self.help.hide()
        self.curtain = DirectFrame(parent=a2d, frameColor=(0.04, 0.05, 0.08, 1), sortOrder=90,
                                   frameSize=(-ar, ar, -1, 1))
        self.curtain_title = OnscreenText(text="", pos=(0, 0.12), scale=0.09, fg=(1, 0.9, 0.4, 1), mayChange=True,
                                          parent=self.curtain)
        self.curtain_text = OnscreenText(text="", pos=(0, -0.02), scale=0.05, fg=TEXT, mayChange=True,
                                         parent=self.curtain)
        self.curtain_button = DirectButton(parent=self.curtain, text="Ready  [Enter]", text_scale=0.05,
                                           pos=(0, 0, -0.2), frameSize=(-0.3, 0.3, -0.035, 0.07), frameColor=BUTTON,
                                           text_fg=TEXT, relief=DGG.FLAT, pressEffect=1)
        self.curtain.hide()
        self.question = DirectFrame(parent=a2d, frameColor=KEY_PLATE, sortOrder=95,      # its rim
                                    frameSize=(-0.79, 0.79, -0.31, 0.31))
        self.question_body = DirectFrame(parent=self.question, frameColor=(0.06, 0.07, 0.1, 1),
                                         frameSize=(-0.78, 0.78, -0.3, 0.3))
        self.question_title = OnscreenText(text="", pos=(0, 0.17), scale=0.065, fg=(1, 0.9, 0.4, 1), mayChange=True,
                                           parent=self.question_body)
        self.question_text = OnscreenText(text="", pos=(0, 0.07), scale=0.04, fg=TEXT, mayChange=True,
                                          parent=self.question_body)
        self.question_yes = DirectButton(parent=self.question_body, text="", text_scale=0.045, pos=(-0.33, 0, -0.22),
                                         frameSize=(-0.3, 0.3, -0.035, 0.07), frameColor=BUTTON, text_fg=TEXT,
                                         relief=DGG.FLAT, pressEffect=1)
        self.question_no = DirectButton(parent=self.question_body, text="", text_scale=0.045, pos=(0.33, 0, -0.22),
                                        frameSize=(-0.3, 0.3, -0.035, 0.07), frameColor=BUTTON, text_fg=TEXT,
                                        relief=DGG.FLAT, pressEffect=1)
        self.question.hide()
        self.lines: list[str] = []
        self.reader = str              # how the screen's viewer reads a log line (hidden cards)
        self.scroll_back = 0
        self.buttons: dict[str, DirectButton] = {}
        self.menu: list[DirectButton] = []
        self.set_status("")
        self.set_players("")

    # -- layout helpers ----------------------------------------------------------------------
    @staticmethod
    def _text(parent, scale: float, fg=TEXT) -> OnscreenText:
        return OnscreenText(text="", scale=scale, fg=fg, align=TextNode.A_left, mayChange=True, parent=parent)

    def _row(self, scale: float) -> float:
        """The height of one row of text at `scale`."""
        return self.status.textNode.get_line_height() * scale

    def _fill(self, text: OnscreenText, lines: list[str], width: float) -> int:
        """Wrap `lines` into `text` (a panel's) to `width`, from the panel's top left corner.
        Returns the rows."""
        node, scale = text.textNode, text.getScale()[0]
        rows = [row for line in lines for row in wrap(node, line, width / scale)]
        text.setText("\n".join(rows))
        text.setPos(PAD, -PAD - 0.8 * scale)
        return len(rows) if any(rows) else 0

    def free_rect(self) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1) in aspect2d units: the part of the screen no panel covers."""
        return (-self.ar + LEFT + PAD, self.ar - RIGHT - PAD, -1 + BOTTOM, 1 - TOP)

    def free_film_rect(self) -> tuple[float, float, float, float]:
        """free_rect in film coordinates (-1..1 across the window)."""
        x0, x1, y0, y1 = self.free_rect()
        return (x0 / self.ar, x1 / self.ar, y0, y1)

    def rects(self) -> list[tuple[str, float, float, float, float]]:
        """(name, x0, x1, y0, y1) in aspect2d units of everything drawn in the 2D layer now."""
        out = []
        a2d = self.base.aspect2d
        for node in a2d.get_children():
            if node.is_hidden():
                continue
            bounds = node.get_tight_bounds(a2d)
            if bounds:
                lo, hi = bounds
                out.append((node.get_name(), lo.x, hi.x, lo.z, hi.z))
        return out

    # -- panels --------------------------------------------------------------------------------
    def set_status(self, text: str) -> None:
        rows = self._fill(self.status, text.split("\n"), LEFT - 3 * PAD)
        height = 2 * PAD + rows * self._row(STATUS_SCALE)
        self.status_frame["frameSize"] = (0, LEFT - PAD, -height, 0)
        self.status_frame.show() if rows else self.status_frame.hide()
        self.status_bottom = 1 - PAD - (height if rows else 0)
        self._place_menu()

    def set_players(self, text: str) -> None:
        rows = self._fill(self.players, text.split("\n"), RIGHT - 3 * PAD)
        height = 2 * PAD + rows * self._row(TEXT_SCALE)
        self.players_frame["frameSize"] = (0, RIGHT - PAD, -height, 0)
        self.players_frame.show() if rows else self.players_frame.hide()

    def set_curtain(self, title: str, text: str, ready) -> None:
        """Cover the whole window (title: who is to come to the screen) until `ready` is called by
        its button; an empty title lifts the cover."""
        if not title:
            self.curtain.hide()
            return
        self.curtain_title.setText(title)
        self.curtain_text.setText(text)
        self.curtain_button["command"] = ready
        self.curtain.show()

    def set_question(self, title: str, text: str = "", yes: tuple[str, object] | None = None,
                     no: tuple[str, object] | None = None) -> None:
        """A question in a box over the middle of the window: `title`, `text` (wrapped to the box),
        and two buttons, `yes` and `no` ((label, command) each); an empty title takes it away."""
        if not title:
            self.question.hide()
            return
        self.question_title.setText(title)
        node, scale = self.question_text.textNode, self.question_text.getScale()[0]
        rows = [row.strip() for line in text.split("\n") for row in wrap(node, line, 1.44 / scale)]   # (centred)
        self.question_text.setText("\n".join(rows))
        row = self._row(0.04)
        half = max(0.3, 0.2 + 0.5 * len(rows) * row + 0.1)
        top = half - 0.13
        self.question_title.setPos(0, top)
        self.question_text.setPos(0, top - 0.09)
        bottom = top - 0.09 - (len(rows) - 1) * row - 0.12
        for button, (label, command) in ((self.question_yes, yes or ("", None)), (self.question_no, no or ("", None))):
            button["text"] = label
            button["command"] = command
            button.setZ(bottom)
            button.show() if label else button.hide()
        low = bottom - 0.07
        self.question_body["frameSize"] = (-0.78, 0.78, low, half)
        self.question["frameSize"] = (-0.79, 0.79, low - 0.01, half + 0.01)
        self.question.show()

    def question_shown(self) -> str:
        """The question on the screen (its title and text), or "" when none is."""
        if self.question.is_hidden():
            return ""
        return f"{self.question_title.getText()}\n{self.question_text.getText()}"

    def relabel(self, key: str, text: str) -> None:
        """A button's label changed (the pass button says what Enter does now)."""
        b = self.buttons.get(key)
        if b is not None and b["text"] != text:
            b["text"] = text

    def key_label(self, key: str) -> OnscreenText:
        """A number key to stand over a lit space on the screen (placed by the caller): dark on a
        bright plate, one size at any zoom, under the panels."""
        label = OnscreenText(text=key, scale=0.042, fg=(0.08, 0.05, 0.0, 1), bg=KEY_PLATE, parent=self.keys,
                             mayChange=True)
        label.textNode.set_card_as_margin(0.22, 0.22, 0.1, 0.06)
        return label

    def set_prompt(self, text: str) -> None:
        self._centred(self.prompt, text, 0.045)

    def set_notice(self, text: str) -> None:
        """A message saying why a click or key did nothing (or what it did); replaced by the next."""
        self._centred(self.notice, text, 0.04)

    def set_banner(self, text: str) -> None:
        self._centred(self.banner, text, 0.06)

    def _centred(self, text: OnscreenText, line: str, scale: float) -> None:
        """One centred row in a strip above or below the table; a long line is shrunk to fit
        the free width, never cut."""
        text.setText(line)
        width = text.textNode.calc_width(line) * scale
        text.setScale(scale * min(1.0, self.free_width / width) if width > 0 else scale)

    # -- the log ---------------------------------------------------------------------------------
    def log(self, line: str) -> None:
        self.lines.append(line)
        self.scroll_back = 0
        self._show_log()

    def set_reader(self, reader) -> None:
        """How each log line is shown from now on (`reader(line)`: the text the viewer may read)."""
        self.reader = reader
        self._show_log()

    def shown_lines(self) -> list[str]:
        """The whole log as the screen shows it (scrolled or not); a line the viewer may not see
        at all is left out."""
        return [text for text in map(self.reader, self.lines) if text]

    def clear_log(self) -> None:
        self.lines = []
        self.scroll_back = 0
        self._show_log()

    def scroll(self, lines: int) -> None:
        """Scroll the log back (positive) or forward (negative), by lines of the log."""
        self.scroll_back = max(0, min(max(0, len(self.lines) - 1), self.scroll_back + lines))
        self._show_log()

    def _show_log(self) -> None:
        """The last whole lines of the log up to the scrolled-back one, wrapped to the panel (the
        end of the latest alone if even it has more rows than the panel)."""
        node, scale = self.log_text.textNode, TEXT_SCALE
        end = len(self.lines) - self.scroll_back
        rows: list[str] = []
        for line in reversed(self.lines[max(0, end - self.log_rows):end]):
            text = self.reader(line)
            if not text:
                continue
            wrapped = wrap(node, text, (LEFT - 3 * PAD) / scale)
            if rows and len(rows) + len(wrapped) > self.log_rows:
                break
            rows[:0] = wrapped
        self.log_text.setText("\n".join(rows[-self.log_rows:]))
        self.log_text.setPos(PAD, -PAD - 0.8 * scale)

    # -- buttons ---------------------------------------------------------------------------------
    def button(self, key: str, text: str, command, slot: int, half: int | None = None) -> DirectButton:
        """A button in the bottom-right column (slot 0 lowest); `half` 0 or 1: the left or right half
        of the slot (two buttons side by side)."""
        w = RIGHT - PAD
        x = self.right_x + w / 2
        if half is not None:
            w = (w - PAD) / 2
            x = self.right_x + w / 2 + half * (w + PAD)
        b = DirectButton(parent=self.base.aspect2d, text=text, text_scale=0.04, command=command,
                         pos=(x, 0, -1 + PAD + 0.02 + BUTTON_ROW * slot),
                         frameSize=(-w / 2, w / 2, -0.025, 0.05), frameColor=BUTTON,
                         text_fg=TEXT, relief=DGG.FLAT, pressEffect=1)
        self.buttons[key] = b
        return b

    def set_menu(self, title: str, items: list[tuple[str, object]]) -> None:
        """The numbered choice buttons in the left column, between the status and the log (empty:
        none); a long choice wraps onto more rows of its button."""
        for b in self.menu:
            b.destroy()
        self.menu = []
        self.menu_title.setText(title)
        scale = TEXT_SCALE
        width = (LEFT - 4 * PAD) / scale
        for i, (text, command) in enumerate(items):
            rows = wrap(self.log_text.textNode, f"{(i + 1) % 10}  {text}" if i < 10 else f"   {text}", width)
            h = len(rows) * self._row(scale)
            b = DirectButton(parent=self.base.aspect2d, text="\n".join(rows), text_scale=scale, command=command,
                             text_align=TextNode.A_left, text_pos=(PAD, -0.8 * scale - 0.008),
                             frameSize=(0, LEFT - PAD, -h - 0.016, 0), relief=DGG.FLAT, text_fg=TEXT,
                             frameColor=BUTTON)
            self.menu.append(b)
        self._place_menu()

    def _place_menu(self) -> None:
        """Stack the choice buttons under the status panel, squeezed to the room above the log."""
        top = self.status_bottom - PAD - (TEXT_SCALE * 1.6 if self.menu or self.menu_title.getText() else 0)
        self.menu_title.setPos(self.left_x + PAD, top + TEXT_SCALE * 0.5)
        room = top - (-1 + PAD + self.log_height + PAD)
        heights = [-b["frameSize"][2] for b in self.menu]
        gap = 0.012
        squeeze = min(1.0, room / (sum(heights) + gap * len(heights))) if heights else 1.0
        y = top
        for b, h in zip(self.menu, heights):
            b.setScale(squeeze)
            b.setPos(self.left_x, 0, y)
            y -= (h + gap) * squeeze

    def enable(self, key: str, on: bool) -> None:
        b = self.buttons.get(key)
        if b is not None:
            b["state"] = DGG.NORMAL if on else DGG.DISABLED
            b["text_fg"] = TEXT if on else (0.5, 0.5, 0.5, 1)

    # -- help ------------------------------------------------------------------------------------
    def toggle_help(self, text: str) -> None:
        """Show (or hide) the help over everything: "  KEYS   what they do" rows (two or more
        spaces between) in two aligned columns; other indented lines run on as wrapped prose."""
        if not self.help.isHidden():
            self.help.hide()
            return
        scale = self.help_text.getScale()[0]
        width = min(2 * self.ar - 0.2, 2.9)
        key_w = 0.62
        node = self.help_text.textNode
        keys, descs, prose = [], [], []

        def add(key: str, desc: str, other: str) -> None:
            keys.append(key)
            descs.append(desc)
            prose.append(other)

        paragraph: list[str] = []

        def flush() -> None:
            if paragraph:
                for row in wrap(node, " ".join(paragraph), width / scale):
                    add("", "", row)
                paragraph.clear()

        for line in text.split("\n"):
            pair = re.match(r"^ +(\S.*?\S|\S) {2,}(\S.*)$", line)
            if pair:
                flush()
                rows = wrap(node, pair.group(2), (width - key_w) / scale)
                for k, row in enumerate(rows):
                    add(pair.group(1) if k == 0 else "", row.strip(), "")
            elif line.startswith(" ") and line.strip():
                paragraph.append(line.strip())
            else:
                flush()
                add("", "", line.strip())
        flush()
        self.help_keys.setText("\n".join(keys))
        self.help_text.setText("\n".join(descs))
        self.help_prose.setText("\n".join(prose))
        height = len(keys) * self._row(scale) + 2 * 0.05
        self.help["frameSize"] = (-width / 2 - 0.05, width / 2 + 0.05, -height / 2, height / 2)
        top = height / 2 - 0.05 - 0.8 * scale
        self.help_keys.setPos(-width / 2, top)
        self.help_prose.setPos(-width / 2, top)
        self.help_text.setPos(-width / 2 + key_w, top)
        self.help.show()
