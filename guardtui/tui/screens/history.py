"""History: the audit log, newest first, filterable by verdict, agent, tool and text."""
from __future__ import annotations

import sqlite3
import time

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Select, Static

from ...core.audit import AuditEntry
from ..present import tilde
from ..widgets.nav_bar import NavBar
from .keys import LEAVE_FIELD, MOVE_KEYS, SharedKeys

LIMIT = 500
COLUMNS = (("when", 14), ("verdict", 7), ("by", 8), ("agent", 8), ("tool", 9), ("rule", 24))  # call: the rest
VERDICTS = (("all verdicts", ""), ("allow", "allow"), ("deny", "deny"), ("ask", "ask"))
VERDICT_STYLE = {"allow": "$text-success", "deny": "bold $text-error", "ask": "$text-warning"}
BY_STYLE = {"person": "bold $text-accent", "approval": "$text-accent"}


class HistoryScreen(SharedKeys, Screen[None]):
    AUTO_FOCUS = "#history-table"
    BINDINGS = [
        Binding("slash", "focus_search", "Search", key_display="/"),
        LEAVE_FIELD,
        Binding("r", "refresh", "Refresh"),
        *MOVE_KEYS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self._entries: list[AuditEntry] = []
        self._dirty = False

    def compose(self) -> ComposeResult:
        yield NavBar("history")
        with Horizontal(id="history-filters"):
            yield Select(VERDICTS, value="", allow_blank=False, id="filter-verdict")
            yield Input(placeholder="agent", id="filter-agent")
            yield Input(placeholder="tool", id="filter-tool")
            yield Input(placeholder="search calls, reasons, rules  (/)", id="filter-text")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="history-entry")
        yield Footer()

    def on_mount(self) -> None:
        self.app.decisions_signal.subscribe(self, self._on_decision)  # type: ignore[attr-defined]
        self.reload()

    def on_screen_resume(self) -> None:
        if self._dirty:
            self.reload()

    def on_resize(self) -> None:
        self.reload()

    def _on_decision(self, _none: None) -> None:
        if self.app.screen is self:
            self.set_timer(0.3, self._reload_if_dirty)
        self._dirty = True

    def _reload_if_dirty(self) -> None:
        if self._dirty:
            self.reload()

    def filters(self) -> dict[str, str | None]:
        verdict = self.query_one("#filter-verdict", Select).value
        return {
            "verdict": verdict if isinstance(verdict, str) and verdict else None,
            "agent": self.query_one("#filter-agent", Input).value.strip() or None,
            "tool": self.query_one("#filter-tool", Input).value.strip() or None,
            "text": self.query_one("#filter-text", Input).value.strip() or None,
        }

    def reload(self) -> None:
        self._dirty = False
        audit = self.app.engine.audit  # type: ignore[attr-defined]
        table = self.query_one(DataTable)
        fixed = sum(w for _, w in COLUMNS) + 2 * (len(COLUMNS) + 1) + 2
        table.clear(columns=True)
        for label, width in COLUMNS[:5]:
            table.add_column(label, width=width)
        table.add_column("call", width=max(20, (table.size.width or 120) - fixed))
        table.add_column(COLUMNS[5][0], width=COLUMNS[5][1])
        if audit is None:
            self._entries = []
            self.query_one("#history-entry", Static).update("The audit log is off in this console.")
            return
        try:
            self._entries = list(reversed(audit.entries(limit=LIMIT, **self.filters())))
        except sqlite3.Error as exc:  # the file cannot be read now: say so, the console goes on
            self._entries = []
            self.query_one("#history-entry", Static).update(f"The audit log cannot be read: {exc}")
            return
        home = self.app.display_home  # type: ignore[attr-defined]
        for e in self._entries:
            table.add_row(
                time.strftime("%m-%d %H:%M:%S", time.localtime(e.ts)),
                Content.styled(e.verdict, VERDICT_STYLE.get(e.verdict, "")),
                Content.styled(e.decided_by, BY_STYLE.get(e.decided_by, "$text-muted")),
                e.agent, e.tool, tilde(e.summary, home), e.rule, key=str(e.id))
        self.query_one(DataTable).border_title = f"{len(self._entries)} decisions" + \
            (" (newest 500)" if len(self._entries) == LIMIT else "")
        self._show_entry(self._entries[0] if self._entries else None)

    def _show_entry(self, entry: AuditEntry | None) -> None:
        box = self.query_one("#history-entry", Static)
        home = self.app.display_home  # type: ignore[attr-defined]
        if entry is None:
            box.update(Content.styled("No decisions match.", "$text-muted"))
            return
        box.update(Content.assemble(
            (entry.verdict.upper(), VERDICT_STYLE.get(entry.verdict, "")), "  ",
            (f"by {entry.decided_by}", BY_STYLE.get(entry.decided_by, "$text-muted")), "  ",
            (f"{entry.blast_radius} · {entry.category} · {entry.latency_ms:.0f} ms"
             + (f" · guard agent {entry.review_cost()}" if entry.llm_model else ""), "$text-muted"),
            "\n",
            (tilde(entry.summary, home), "bold"), "\n", (tilde(entry.reason, home), "")))

    @on(DataTable.RowHighlighted, "#history-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row is not None and 0 <= event.cursor_row < len(self._entries):
            self._show_entry(self._entries[event.cursor_row])

    @on(Select.Changed)
    @on(Input.Changed)
    def _filter_changed(self) -> None:
        self.reload()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.query_one(DataTable).focus()

    def action_focus_search(self) -> None:
        self.query_one("#filter-text", Input).focus()

    def action_leave_field(self) -> None:
        self.query_one(DataTable).focus()

    def action_refresh(self) -> None:
        self.reload()
