"""The heads-up display drawn over the table: status, players, a scrolling log, buttons, help."""
from __future__ import annotations

from direct.gui.DirectGui import DGG, DirectButton, DirectFrame
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode

PANEL = (0.05, 0.06, 0.08, 1.0)     # opaque: blending a large panel costs a software renderer dearly
TEXT = (0.95, 0.95, 0.92, 1)


class Hud:
    """Text panels in the window's 2D layer (aspect2d); `log_lines` lines of log are shown,
    scrolled with `scroll`."""

    def __init__(self, base, log_lines: int = 9):
        self.base = base
        a2d = base.aspect2d
        ar = base.getAspectRatio()
        self.ar = ar
        self.status = OnscreenText(text="", pos=(-ar + 0.05, 0.90), scale=0.05, fg=TEXT, align=TextNode.A_left,
                                   mayChange=True, parent=a2d, shadow=(0, 0, 0, 1))
        self.players_frame = DirectFrame(parent=a2d, frameColor=PANEL, frameSize=(-0.78, 0.02, -0.42, 0.06),
                                         pos=(ar - 0.04, 0, 0.88))
        self.players = OnscreenText(text="", pos=(-0.75, 0.0), scale=0.042, fg=TEXT, align=TextNode.A_left,
                                    mayChange=True, parent=self.players_frame)
        self.log_frame = DirectFrame(parent=a2d, frameColor=PANEL, frameSize=(0, 1.25, 0, 0.06 + 0.045 * log_lines),
                                     pos=(-ar + 0.03, 0, -0.97))
        self.log_text = OnscreenText(text="", pos=(0.03, 0.03 + 0.045 * (log_lines - 1) + 0.01), scale=0.036,
                                     fg=TEXT, align=TextNode.A_left, mayChange=True, parent=self.log_frame)
        self.banner = OnscreenText(text="", pos=(0, 0.55), scale=0.09, fg=(1, 0.9, 0.4, 1), mayChange=True,
                                   parent=a2d, shadow=(0, 0, 0, 1))
        self.prompt = OnscreenText(text="", pos=(0, -0.62), scale=0.055, fg=(1, 1, 0.8, 1), mayChange=True,
                                   parent=a2d, shadow=(0, 0, 0, 1))
        self.help = DirectFrame(parent=a2d, frameColor=(0.03, 0.03, 0.05, 0.9), frameSize=(-1.1, 1.1, -0.8, 0.8))
        self.help_text = OnscreenText(text="", pos=(-1.0, 0.68), scale=0.045, fg=TEXT, align=TextNode.A_left,
                                      mayChange=True, parent=self.help)
        self.help.hide()
        self.log_lines = log_lines
        self.lines: list[str] = []
        self.scroll_back = 0
        self.buttons: dict[str, DirectButton] = {}
        self.menu: list[DirectButton] = []
        self.menu_title = OnscreenText(text="", pos=(-ar + 0.05, 0.0), scale=0.045, fg=(1, 1, 0.8, 1),
                                       align=TextNode.A_left, mayChange=True, parent=a2d, shadow=(0, 0, 0, 1))

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def set_players(self, text: str) -> None:
        self.players.setText(text)
        lines = max(1, text.count("\n") + 1)
        self.players_frame["frameSize"] = (-0.78, 0.02, -0.05 * lines + 0.01, 0.06)

    def set_prompt(self, text: str) -> None:
        self.prompt.setText(text)

    def set_banner(self, text: str) -> None:
        self.banner.setText(text)

    def log(self, line: str) -> None:
        self.lines.append(line)
        self.scroll_back = 0
        self._show_log()

    def clear_log(self) -> None:
        self.lines = []
        self.scroll_back = 0
        self._show_log()

    def scroll(self, lines: int) -> None:
        """Scroll the log back (positive) or forward (negative)."""
        most = max(0, len(self.lines) - self.log_lines)
        self.scroll_back = max(0, min(most, self.scroll_back + lines))
        self._show_log()

    def _show_log(self) -> None:
        end = len(self.lines) - self.scroll_back
        shown = self.lines[max(0, end - self.log_lines):end]
        self.log_text.setText("\n".join(_fit(line, 66) for line in shown))

    def button(self, key: str, text: str, command, slot: int) -> DirectButton:
        """A button in the bottom-right column (slot 0 lowest)."""
        b = DirectButton(parent=self.base.aspect2d, text=text, scale=0.045, command=command,
                         pos=(self.ar - 0.3, 0, -0.92 + 0.1 * slot), frameSize=(-6.2, 6.2, -0.7, 1.1),
                         frameColor=((0.18, 0.22, 0.3, 0.9), (0.3, 0.36, 0.5, 0.95), (0.25, 0.3, 0.42, 0.95),
                                     (0.12, 0.12, 0.14, 0.6)),
                         text_fg=TEXT, relief=DGG.FLAT, pressEffect=1)
        self.buttons[key] = b
        return b

    def set_menu(self, title: str, items: list[tuple[str, object]]) -> None:
        """A column of numbered choice buttons above the log (empty: none)."""
        for b in self.menu:
            b.destroy()
        self.menu = []
        if not items:
            self.menu_title.setText("")
            return
        self.menu_title.setText(title)
        top = -0.97 + 0.06 + 0.045 * self.log_lines + 0.1 + 0.075 * len(items)
        for i, (text, command) in enumerate(items):
            b = DirectButton(parent=self.base.aspect2d, text=f"{i + 1}  {_fit(text, 44)}", scale=0.04,
                             command=command, pos=(-self.ar + 0.05, 0, top - 0.075 * i), text_align=TextNode.A_left,
                             frameSize=(-0.3, 24.0, -0.6, 1.1), relief=DGG.FLAT, text_fg=TEXT,
                             frameColor=((0.16, 0.2, 0.28, 0.9), (0.3, 0.36, 0.5, 0.95), (0.25, 0.3, 0.42, 0.95),
                                         (0.12, 0.12, 0.14, 0.6)))
            self.menu.append(b)
        self.menu_title.setPos(-self.ar + 0.05, top + 0.07)

    def enable(self, key: str, on: bool) -> None:
        b = self.buttons.get(key)
        if b is not None:
            b["state"] = DGG.NORMAL if on else DGG.DISABLED
            b["text_fg"] = TEXT if on else (0.5, 0.5, 0.5, 1)

    def toggle_help(self, text: str) -> None:
        if self.help.isHidden():
            self.help_text.setText(text)
            self.help.show()
        else:
            self.help.hide()


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[:width - 1] + "\u2026"
