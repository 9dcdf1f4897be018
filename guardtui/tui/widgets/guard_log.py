"""The amber guard log: one line per event, newest at the bottom, with its time and rule.

It follows new events unless the person scrolled up to read; then it stays where they are and
says how many lines came in below ("↓ 3 new"), until they scroll back down (End or G). Following
is a state the person sets by scrolling, not a guess from the scroll position, so a resize (which
moves the bottom) never stops it following."""
from __future__ import annotations

from collections import deque

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..present import LogLine, fmt_clock
from ..render import line_strip, set_virtual_height

MAX_LINES = 2000



class GuardLog(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {
        "guard-log--time",
        "guard-log--rule",
        "guard-log--allow",
        "guard-log--deny",
        "guard-log--error",
        "guard-log--guard",
        "guard-log--empty",
    }

    BINDINGS = [
        Binding("up,k", "scroll_lines(-1)", "Up", show=False),
        Binding("down,j", "scroll_lines(1)", "Down", show=False),
        Binding("pageup", "scroll_lines(-5)", "Page up", show=False),
        Binding("pagedown", "scroll_lines(5)", "Page down", show=False),
        Binding("home,g", "oldest", "Oldest", show=False),
        Binding("end,G", "newest", "Newest", show=False),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: deque[LogLine] = deque(maxlen=MAX_LINES)
        self._follow_scheduled = False
        self.following = True
        self.unseen = 0  # lines that came in below while the person read above

    @property
    def lines(self) -> list[LogLine]:
        return list(self._lines)

    def add(self, line: LogLine) -> None:
        dropped = len(self._lines) == self._lines.maxlen
        self._lines.append(line)
        set_virtual_height(self, self.scrollable_content_region.width, len(self._lines))
        if self.following:
            self._schedule_follow()
        else:
            if dropped and self.scroll_offset.y > 0:  # the oldest line went: keep the same lines in view
                self.set_scroll(None, self.scroll_offset.y - 1)
            self.unseen += 1
            self._say_unseen()
        self.refresh()

    def _schedule_follow(self) -> None:
        if not self._follow_scheduled:
            self._follow_scheduled = True
            self.call_after_refresh(self._follow)

    def _follow(self) -> None:
        self._follow_scheduled = False
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _say_unseen(self) -> None:
        self.border_subtitle = f"↓ {self.unseen} new — End to follow" if self.unseen else ""

    def _set_following(self, following: bool) -> None:
        if following != self.following:
            self.following = following
        if following and self.unseen:
            self.unseen = 0
            self._say_unseen()

    # -- the person scrolls ------------------------------------------------------------
    def _user_scrolled(self) -> None:
        """After the person's own scroll: following again only at the bottom."""
        self._set_following(self.scroll_offset.y >= self.max_scroll_y)

    def on_mouse_scroll_up(self, _event: events.MouseScrollUp) -> None:
        self.call_after_refresh(self._user_scrolled)

    def on_mouse_scroll_down(self, _event: events.MouseScrollDown) -> None:
        self.call_after_refresh(self._user_scrolled)

    def action_scroll_lines(self, lines: int) -> None:
        self.scroll_relative(y=lines, animate=False, immediate=True)
        self._user_scrolled()

    def action_oldest(self) -> None:
        self.scroll_home(animate=False, immediate=True)
        self._set_following(self.max_scroll_y == 0)

    def action_newest(self) -> None:
        self._set_following(True)
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_resize(self, _event: events.Resize) -> None:
        set_virtual_height(self, self.scrollable_content_region.width, len(self._lines))
        if self.following:  # the bottom moved: stay on it
            self._schedule_follow()

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

