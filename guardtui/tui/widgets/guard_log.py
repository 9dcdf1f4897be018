"""The amber guard log: one line per event, newest at the bottom, with its time and rule."""
from __future__ import annotations

from collections import deque

from textual.content import Content
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..present import LogLine, fmt_clock
from ..render import line_strip, set_virtual_height

MAX_LINES = 2000



class GuardLog(ScrollView, can_focus=False):
    COMPONENT_CLASSES = {
        "guard-log--time",
        "guard-log--rule",
        "guard-log--allow",
        "guard-log--deny",
        "guard-log--error",
        "guard-log--guard",
        "guard-log--empty",
    }

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: deque[LogLine] = deque(maxlen=MAX_LINES)
        self._follow_scheduled = False

    @property
    def lines(self) -> list[LogLine]:
        return list(self._lines)

    def add(self, line: LogLine) -> None:
        follow = self.scroll_offset.y >= self.max_scroll_y
        self._lines.append(line)
        set_virtual_height(self, self.scrollable_content_region.width, len(self._lines))
        if follow and not self._follow_scheduled:  # newest at the bottom, unless the person scrolled up
            self._follow_scheduled = True
            self.call_after_refresh(self._follow)
        self.refresh()

    def _follow(self) -> None:
        self._follow_scheduled = False
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.get_visual_style()
        row = self.scroll_offset.y + y
        if not self._lines:
            if y == 0:
                text = Content.assemble(("Guard events — calls decided by rule, plugin reloads, flags, timeouts — "
                                         "appear here.", self.get_visual_style("guard-log--empty", partial=True)))
                return line_strip(text, width, base)
            return Strip.blank(width, base.rich_style)
        if row >= len(self._lines):
            return Strip.blank(width, base.rich_style)
        line = self._lines[row]
        part = lambda name: self.get_visual_style(name, partial=True)  # noqa: E731
        rule = f"[{line.rule}] " if line.rule else ""
        content = Content.assemble(
            (fmt_clock(line.ts) + " ", part("guard-log--time")),
            (f"{line.icon} {line.label:<8} ", part(f"guard-log--{line.tone}")),
            (rule, part("guard-log--rule")),
            (line.text, ""),
        )
        return line_strip(content, width, base)

