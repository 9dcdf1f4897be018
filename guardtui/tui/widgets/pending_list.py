"""The queue of pending calls, oldest first: one line each, drawn with the line API.

Only the visible lines are rendered, so a thousand waiting calls cost no more than ten,
and the ages and countdowns are computed at draw time (a refresh a second keeps them
moving). New calls are appended below; the selection stays on the call it was on.
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
from ..present import RADIUS_LABEL, agent_label, call_text, fmt_duration, tool_label
from ..render import fit, line_strip, set_virtual_height

URGENT_S = 10.0


class PendingList(ScrollView, can_focus=True):
    """Pending calls; the cursor row is the selected call."""

    COMPONENT_CLASSES = {
        "pending-list--header",
        "pending-list--cursor",
        "pending-list--age",
        "pending-list--left",
        "pending-list--urgent",
        "pending-list--agent",
        "pending-list--tool",
        "pending-list--empty",
        "pending-list--radius-critical",
        "pending-list--radius-high",
        "pending-list--radius-medium",
        "pending-list--radius-low",
        "pending-list--radius-unknown",
    }

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Selected(Message):
        """The selected call changed (None: the queue is empty)."""

        def __init__(self, pending_list: "PendingList", pending: PendingCall | None) -> None:
            super().__init__()
            self.pending_list = pending_list
            self.pending = pending

        @property
        def control(self) -> "PendingList":
            return self.pending_list

    def __init__(self, clock: Callable[[], float], home: str = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock
        self.home = home
        self._calls: list[PendingCall] = []
        self._ids: set[str] = set()
        self._selected_id: str | None = None

    # -- the model -------------------------------------------------------------------
    @property
    def calls(self) -> list[PendingCall]:
        return list(self._calls)

    @property
    def selected(self) -> PendingCall | None:
        if not self._calls:
            return None
        return self._calls[min(self.cursor, len(self._calls) - 1)]

    def __len__(self) -> int:
        return len(self._calls)

    def add(self, pending: PendingCall) -> None:
        """Append a call (idempotent). The selection does not move."""
        if pending.id in self._ids or pending.done:
            return
        self._ids.add(pending.id)
        self._calls.append(pending)
        self._resize()
        if len(self._calls) == 1:
            self._select(0)
        else:
            self.refresh()

    def remove(self, call_id: str) -> None:
        """Drop an answered call; the selection stays on its call, or moves to the next one."""
        if call_id not in self._ids:
            return
        self._ids.discard(call_id)
        index = next(i for i, p in enumerate(self._calls) if p.id == call_id)
        del self._calls[index]
        self._resize()
        if index < self.cursor:
            self.set_reactive(PendingList.cursor, self.cursor - 1)
            self.refresh()
        elif index == self.cursor or self.cursor >= len(self._calls):
            self._select(min(self.cursor, max(0, len(self._calls) - 1)))
        else:
            self.refresh()

    def select_id(self, call_id: str) -> bool:
        for i, p in enumerate(self._calls):
            if p.id == call_id:
                self._select(i)
                return True
        return False

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
        return max(0, min(cursor, len(self._calls) - 1)) if self._calls else 0

    def _resize(self) -> None:
        set_virtual_height(self, self.scrollable_content_region.width, len(self._calls) + 1)

    def _scroll_to_cursor(self) -> None:
        if not self._calls or not self.is_mounted:
            return
        self.scroll_to_region(Region(0, self.cursor + 1, 1, 1), spacing=Spacing(1, 0, 0, 0), animate=False,
                              force=True, immediate=True)

    # -- actions ---------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        if self._calls:
            self.cursor = self.cursor + delta

    def action_page(self, direction: int) -> None:
        if self._calls:
            self.cursor = self.cursor + direction * max(1, self.scrollable_content_region.height - 2)

    def action_first(self) -> None:
        if self._calls:
            self.cursor = 0

    def action_last(self) -> None:
        if self._calls:
            self.cursor = len(self._calls) - 1

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        row = self.scroll_offset.y + offset.y - 1
        if 0 <= row < len(self._calls):
            self.cursor = row

    def on_resize(self, _event: events.Resize) -> None:
        self._resize()
        self._scroll_to_cursor()

    # -- drawing ---------------------------------------------------------------------
    def _columns(self, width: int) -> tuple[int, int, int, int]:
        """(agent, tool, radius, call) widths: the call gets what is left."""
        agent = 11 if width >= 56 else 0
        tool = 9 if width >= 44 else 0
        radius = 10
        fixed = 5 + 6 + (agent + 1 if agent else 0) + (tool + 1 if tool else 0) + radius + 1
        return agent, tool, radius, max(8, width - fixed)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.get_visual_style()
        if y == 0:
            return self._header(width)
        row = self.scroll_offset.y + y - 1
        if not self._calls:
            if y == 2:
                text = Content.assemble(("  No calls waiting — you are all caught up.",
                                         self.get_visual_style("pending-list--empty", partial=True)))
                return line_strip(text, width, base)
            return Strip.blank(width, base.rich_style)
        if row >= len(self._calls):
            return Strip.blank(width, base.rich_style)
        pending = self._calls[row]
        style = self.get_visual_style("pending-list--cursor") if row == self.cursor else base
        return line_strip(self._row(pending, width), width, style)

    def _header(self, width: int) -> Strip:
        agent, tool, radius, call = self._columns(width)
        parts = [" age ", "left  "]
        if agent:
            parts.append("agent".ljust(agent + 1))
        if tool:
            parts.append("tool".ljust(tool + 1))
        parts.append("call".ljust(call))
        parts.append(" radius".rjust(radius + 1))
        style = self.get_visual_style("pending-list--header")
        return line_strip(Content("".join(parts)), width, style)

    def _row(self, pending: PendingCall, width: int) -> Content:
        agent_w, tool_w, radius_w, call_w = self._columns(width)
        now = self.clock()
        part = lambda name: self.get_visual_style(name, partial=True)  # noqa: E731
        left = pending.remaining(now)
        pieces: list[tuple[str, object]] = [
            (fmt_duration(now - pending.received).rjust(4) + " ", part("pending-list--age")),
            (fmt_duration(left).rjust(4) + "  ",
             part("pending-list--urgent" if left < URGENT_S else "pending-list--left")),
        ]
        if agent_w:
            pieces.append((fit(agent_label(pending.call), agent_w) + " ", part("pending-list--agent")))
        if tool_w:
            pieces.append((fit(tool_label(pending.call), tool_w) + " ", part("pending-list--tool")))
        pieces.append((fit(call_text(pending.call, self.home, call_w + 1), call_w), ""))
        radius = pending.decision.blast_radius
        badge = "REVIEWING" if pending.reviewing else f"{RADIUS_LABEL[radius].upper():^9}"
        pieces.append((" " * (radius_w + 1 - len(badge)), ""))
        pieces.append((badge, self.get_visual_style(f"pending-list--radius-{radius.value}")))
        return Content.assemble(*pieces)  # type: ignore[arg-type]

