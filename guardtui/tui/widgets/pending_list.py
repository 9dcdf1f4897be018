"""The queue of pending calls, one line each, drawn with the line API: for several agents at
once, each row says which project, which agent session, and what it runs.

Only the visible lines are rendered, so a thousand waiting calls cost no more than ten, and the
countdowns are computed at draw time (a refresh a second keeps them moving). New calls are
appended below; the selection stays on the call it was on. The rows shown can be filtered
(`/`: every word must appear in the project, the agent, the tool or the call) and grouped by
agent session or by project; space marks calls to answer together.
"""
from __future__ import annotations

from typing import Callable

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region, Spacing
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...broker.queue import PendingCall
from ..present import ProjectNames, SessionLabels, call_text, fmt_duration, mcp_parts
from ..render import fit, line_strip, set_virtual_height

URGENT_S = 10.0
GROUPS = ("", "agent", "project")  # arrival order, by agent session, by project
BADGE = {"critical": "CRIT", "high": "HIGH", "medium": "MEDIUM", "low": "LOW", "unknown": "?"}


class PendingList(ScrollView, can_focus=True):
    """Pending calls; the cursor row is the selected call."""

    COMPONENT_CLASSES = {
        "pending-list--header",
        "pending-list--cursor",
        "pending-list--marked",
        "pending-list--left",
        "pending-list--urgent",
        "pending-list--project",
        "pending-list--agent",
        "pending-list--tool",
        "pending-list--empty",
        "pending-list--radius-critical",
        "pending-list--radius-high",
        "pending-list--radius-medium",
        "pending-list--radius-low",
        "pending-list--radius-unknown",
        "pending-list--reviewing",
    }

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("escape", "screen.unmark_or_clear", "Unmark / clear the filter", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Selected(Message):
        """The selected call changed (None: no call is shown)."""

        def __init__(self, pending_list: "PendingList", pending: PendingCall | None) -> None:
            super().__init__()
            self.pending_list = pending_list
            self.pending = pending

        @property
        def control(self) -> "PendingList":
            return self.pending_list

    class Marked(Message):
        """The marked calls changed."""

        def __init__(self, pending_list: "PendingList") -> None:
            super().__init__()
            self.pending_list = pending_list

        @property
        def control(self) -> "PendingList":
            return self.pending_list

    def __init__(self, clock: Callable[[], float], home: str = "", *, sessions: SessionLabels | None = None,
                 projects: ProjectNames | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock
        self.home = home
        self.sessions = sessions or SessionLabels()
        self.projects = projects or ProjectNames(home)
        self._calls: list[PendingCall] = []  # every waiting call, in arrival order
        self._shown: list[PendingCall] = self._calls  # what the filter and grouping let through
        self._ids: set[str] = set()
        self._marks: set[str] = set()
        self._selected_id: str | None = None
        self._strips: dict[tuple, Strip] = {}  # drawn rows: a frame redraws only rows whose text changed
        self.filter_text = ""
        self.group_by = ""

    # -- the model -------------------------------------------------------------------
    @property
    def calls(self) -> list[PendingCall]:
        """The calls shown, in their order."""
        return list(self._shown)

    @property
    def total(self) -> int:
        return len(self._calls)

    @property
    def selected(self) -> PendingCall | None:
        if not self._shown:
            return None
        return self._shown[min(self.cursor, len(self._shown) - 1)]

    @property
    def marked(self) -> list[PendingCall]:
        """The marked calls, in the order shown."""
        return [p for p in self._shown if p.id in self._marks] if self._marks else []

    def __len__(self) -> int:
        return len(self._shown)

    def add(self, pending: PendingCall) -> None:
        """Append a call (idempotent). The selection does not move."""
        if pending.id in self._ids or pending.done:
            return
        self._ids.add(pending.id)
        self._calls.append(pending)
        if self._shown is not self._calls:
            if not self._matches(pending):
                self._update_title_only()
                return
            if self.group_by:
                self._reshow()
                return
            self._shown.append(pending)
        row = len(self._shown) - 1
        # a row below the visible window only lengthens the scrollbar: the rows shown stay as drawn
        self._resize(redraw=row <= self.scroll_offset.y + self.scrollable_content_region.height)
        if len(self._shown) == 1:
            self._select(0)

    def remove(self, call_id: str) -> None:
        """Drop an answered call; the selection stays on its call, or moves to the next one."""
        if call_id not in self._ids:
            return
        self._ids.discard(call_id)
        marked = call_id in self._marks
        self._marks.discard(call_id)
        if self._shown is not self._calls:  # else deleting it from the shown list below does it
            self._calls[:] = [p for p in self._calls if p.id != call_id]
        index = next((i for i, p in enumerate(self._shown) if p.id == call_id), None)
        if index is not None:
            del self._shown[index]
        if marked:
            self.post_message(self.Marked(self))
        if index is None:
            return
        self._resize()
        if index < self.cursor:
            self.set_reactive(PendingList.cursor, self.cursor - 1)
            self.refresh()
        elif index == self.cursor or self.cursor >= len(self._shown):
            self._select(min(self.cursor, max(0, len(self._shown) - 1)))
        else:
            self.refresh()

    def select_id(self, call_id: str) -> bool:
        for i, p in enumerate(self._shown):
            if p.id == call_id:
                self._select(i)
                return True
        return False

    # -- marks -------------------------------------------------------------------------
    def toggle_mark(self) -> None:
        """Mark or unmark the selected call, and go on to the next one."""
        pending = self.selected
        if pending is None:
            return
        if pending.id in self._marks:
            self._marks.discard(pending.id)
        else:
            self._marks.add(pending.id)
        self.post_message(self.Marked(self))
        if self.cursor < len(self._shown) - 1:
            self.cursor += 1
        else:
            self.refresh()

    def mark_all(self) -> None:
        """Mark every call shown (unmark them all when they all are)."""
        shown = {p.id for p in self._shown}
        self._marks = set() if shown <= self._marks else self._marks | shown
        self.post_message(self.Marked(self))
        self.refresh()

    def clear_marks(self) -> bool:
        if not self._marks:
            return False
        self._marks.clear()
        self.post_message(self.Marked(self))
        self.refresh()
        return True

    # -- filter and groups ---------------------------------------------------------------
    def set_filter(self, text: str) -> None:
        self.filter_text = " ".join(text.split())
        self._reshow()

    def cycle_group(self) -> str:
        self.group_by = GROUPS[(GROUPS.index(self.group_by) + 1) % len(GROUPS)]
        self._reshow()
        return self.group_by

    def label(self, pending: PendingCall) -> str:
        return self.sessions(pending.call)

    def project(self, pending: PendingCall) -> str:
        return self.projects(pending.call.cwd)

    def _matches(self, pending: PendingCall) -> bool:
        if not self.filter_text:
            return True
        call = pending.call
        haystack = " ".join((self.project(pending), self.label(pending), call.agent, call.tool,
                             call_text(call, self.home, 400), pending.decision.category,
                             pending.decision.blast_radius.value)).lower()
        return all(word in haystack for word in self.filter_text.lower().split())

    def _group_key(self, pending: PendingCall) -> tuple[str, str]:
        if self.group_by == "agent":
            return self.label(pending), self.project(pending)
        if self.group_by == "project":
            return self.project(pending), self.label(pending)
        return "", ""

    def _reshow(self) -> None:
        selected = self.selected
        if not self.filter_text and not self.group_by:
            self._shown = self._calls
        else:
            shown = [p for p in self._calls if self._matches(p)]
            if self.group_by:
                shown.sort(key=self._group_key)  # stable: arrival order within a group
            self._shown = shown
        visible = {p.id for p in self._shown}
        if self._marks - visible:  # what is answered together is what can be seen
            self._marks &= visible
            self.post_message(self.Marked(self))
        self._resize()
        index = next((i for i, p in enumerate(self._shown) if selected is not None and p.id == selected.id), 0)
        self._select(index)

    def _update_title_only(self) -> None:
        self.post_message(self.Marked(self))  # the counts in the title changed

    # -- the cursor ----------------------------------------------------------------------
    def _select(self, index: int) -> None:
        self.cursor = index

    def watch_cursor(self, cursor: int) -> None:
        selected = self.selected
        new_id = selected.id if selected else None
        self._scroll_to_cursor()
        self.refresh()
        if new_id != self._selected_id:
            self._selected_id = new_id
            self.post_message(self.Selected(self, selected))

    def validate_cursor(self, cursor: int) -> int:
        return max(0, min(cursor, len(self._shown) - 1)) if self._shown else 0

    def _resize(self, redraw: bool = True) -> None:
        set_virtual_height(self, self.scrollable_content_region.width, len(self._shown) + 1, redraw=redraw)

    def _scroll_to_cursor(self) -> None:
        if not self._shown or not self.is_mounted:
            return
        self.scroll_to_region(Region(0, self.cursor + 1, 1, 1), spacing=Spacing(1, 0, 0, 0), animate=False,
                              force=True, immediate=True)

    # -- actions ---------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        if self._shown:
            self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        if self._shown:
            self.cursor = self.cursor + direction * max(1, self.scrollable_content_region.height - 2)

    def action_first(self) -> None:
        if self._shown:
            self.cursor = 0

    def action_last(self) -> None:
        if self._shown:
            self.cursor = len(self._shown) - 1

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        row = self.scroll_offset.y + offset.y - 1
        if 0 <= row < len(self._shown):
            self.cursor = row

    def on_resize(self, _event: events.Resize) -> None:
        self._resize()
        self._scroll_to_cursor()

    # -- drawing ---------------------------------------------------------------------
    def _columns(self, width: int) -> tuple[int, int, int, int]:
        """(project, agent, badge, call) widths: the call gets what is left, and the project
        and agent columns give way first on a narrow pane."""
        project = 12 if width >= 60 else (9 if width >= 48 else 0)
        agent = 10 if width >= 40 else 0
        badge = 6
        fixed = 2 + 6 + (project + 1 if project else 0) + (agent + 1 if agent else 0) + badge + 1
        return project, agent, badge, max(8, width - fixed)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.get_visual_style()
        if y == 0:
            return self._header(width)
        row = self.scroll_offset.y + y - 1
        if not self._shown:
            if y == 2:
                words = f"  No call matches “{self.filter_text}” ({len(self._calls)} waiting) — / to change, " \
                        "esc to clear" if self._calls else "  No calls waiting — you are all caught up."
                text = Content.assemble((words, self.get_visual_style("pending-list--empty", partial=True)))
                return line_strip(text, width, base)
            return Strip.blank(width, base.rich_style)
        if row >= len(self._shown):
            return Strip.blank(width, base.rich_style)
        pending = self._shown[row]
        left = pending.remaining(self.clock())
        style = self.get_visual_style("pending-list--cursor") if row == self.cursor else base
        key = (pending.id, width, style, pending.id in self._marks, pending.reviewing, fmt_duration(left),
               left < URGENT_S, self.app.theme, self.label(pending))
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 8 * max(64, self.size.height):  # rows of answered calls and old seconds
                self._strips.clear()
            strip = self._strips[key] = line_strip(self._row(pending, width), width, style)
        return strip

    def _header(self, width: int) -> Strip:
        project, agent, badge, call = self._columns(width)
        parts = ["  ", "left  "]
        if project:
            parts.append("project".ljust(project + 1))
        if agent:
            parts.append("agent".ljust(agent + 1))
        parts.append("call".ljust(call))
        parts.append(" radius".rjust(badge + 1))
        style = self.get_visual_style("pending-list--header")
        return line_strip(Content("".join(parts)), width, style)

    def _row(self, pending: PendingCall, width: int) -> Content:
        project_w, agent_w, badge_w, call_w = self._columns(width)
        now = self.clock()
        part = lambda name: self.get_visual_style(name, partial=True)  # noqa: E731
        left = pending.remaining(now)
        mark = ("● ", part("pending-list--marked")) if pending.id in self._marks else ("  ", "")
        pieces: list[tuple[str, object]] = [
            mark,
            (fmt_duration(left).rjust(4) + "  ", part("pending-list--urgent" if left < URGENT_S else
                                                      "pending-list--left")),
        ]
        if project_w:
            pieces.append((fit(self.project(pending), project_w) + " ", part("pending-list--project")))
        if agent_w:
            pieces.append((fit(self.label(pending), agent_w) + " ", part("pending-list--agent")))
        radius = pending.decision.blast_radius.value
        badge = "REVIEWING" if pending.reviewing else BADGE[radius]
        room = call_w - max(0, len(badge) - badge_w)
        call = pending.call
        tool = "" if call.is_shell else ((mcp_parts(call.tool) or (call.tool, ""))[0] + " ")
        pieces.append((tool, part("pending-list--tool")))
        pieces.append((fit(call_text(call, self.home, room + 1), max(1, room - len(tool))), ""))
        pieces.append((" " * (1 + max(0, badge_w - len(badge))), ""))
        pieces.append((badge, self.get_visual_style("pending-list--reviewing" if pending.reviewing else
                                                    f"pending-list--radius-{radius}")))
        return Content.assemble(*pieces)  # type: ignore[arg-type]
