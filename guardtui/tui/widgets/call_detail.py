"""The selected call in full: who asks, where, why the guard stopped it, and what it does."""
from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...broker.queue import PendingCall
from ...core.model import BlastRadius
from ..changes import file_change
from ..present import fmt_duration, review_note, segments_of, short_path, tilde, warning_for
from .command_view import CommandView
from .file_diff import FileDiff
from .input_view import InputView
from .warning_block import WarningBlock


class CallDetail(VerticalScroll, can_focus=False):
    """Shows one PendingCall; an empty state when there is none."""

    def __init__(self, clock: Callable[[], float], home: str = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock
        self.home = home
        self.pending: PendingCall | None = None
        self._head_shown: str | None = None
        self.empty_text: Content | str = "No calls waiting."

    def compose(self) -> ComposeResult:
        yield Static(id="detail-empty")
        yield Static(id="detail-head")
        yield WarningBlock(id="detail-warning")
        yield Static(id="detail-why")
        yield CommandView(id="detail-command")
        yield FileDiff(id="detail-diff")
        yield InputView(id="detail-input")

    def on_mount(self) -> None:
        self.show(None)

    def set_empty_text(self, text: Content | str) -> None:
        self.empty_text = text
        if self.pending is None:
            self.query_one("#detail-empty", Static).update(text)

    def show(self, pending: PendingCall | None) -> None:
        self.pending = pending
        empty = self.query_one("#detail-empty", Static)
        empty.display = pending is None
        parts = [self.query_one(sel) for sel in ("#detail-head", "#detail-warning", "#detail-why",
                                                 "#detail-command", "#detail-diff", "#detail-input")]
        for part in parts:
            part.display = False
        self.scroll_home(animate=False, immediate=True)
        if pending is None:
            empty.update(self.empty_text)
            return
        call, decision = pending.call, pending.decision
        head = self.query_one("#detail-head", Static)
        head.display = True
        self.refresh_head()
        warning = self.query_one("#detail-warning", WarningBlock)
        warning.show(warning_for(call, decision, self.home))
        why = self.query_one("#detail-why", Static)
        why.display = True
        bits = [("rule ", "$text-muted"), (decision.rule or "—", "bold")]
        if decision.category:
            bits += [("  ·  ", "$text-muted"), (decision.category, "")]
        if decision.blast_radius is BlastRadius.CRITICAL:
            bits += [("  ·  ", "$text-muted"), ("critical: y allows it once; it can never be always allowed",
                                                "$text-error")]
        note = review_note(pending)
        if note:
            bits += [("\n", ""), ("◆ ", "$text-warning"), (tilde(note, self.home), "italic")]
        why.update(Content.assemble(*bits))
        if call.is_shell:
            view = self.query_one("#detail-command", CommandView)
            view.display = True
            view.show(call.command, segments_of(call, decision, self.home))
            return
        change = file_change(call)
        if change is not None:
            diff = self.query_one("#detail-diff", FileDiff)
            diff.display = True
            diff.show(change, self.home)
            return
        inputs = self.query_one("#detail-input", InputView)
        inputs.display = True
        inputs.show(call.input)

    def refresh_head(self) -> None:
        """The header line: tool, agent, session, cwd, waiting time and countdown."""
        pending = self.pending
        if pending is None:
            return
        call = pending.call
        now = self.clock()
        left = pending.remaining(now)
        session = f" · {call.session[:8]}" if call.session else ""
        cwd = short_path(call.cwd, self.home) if call.cwd else "?"
        line1 = Content.assemble((call.tool, "bold $text-accent"), "  ", (call.agent, "bold"),
                                 (session, "$text-muted"), "  ", (cwd, ""))
        line2 = Content.assemble(("waiting ", "$text-muted"), (fmt_duration(now - pending.received), ""),
                                 ("  ·  ", "$text-muted"),
                                 (fmt_duration(left), "bold $text-error" if left < 10 else "bold"),
                                 (f" left, then {self.app_policy()}", "$text-muted"))
        head = self.query_one("#detail-head", Static)
        same_size = head.display and self._head_shown == pending.id
        self._head_shown = pending.id
        head.update(Content.assemble(line1, "\n", line2), layout=not same_size)

    def app_policy(self) -> str:
        policy = getattr(getattr(self.app, "queue", None), "timeout_policy", None)
        value = getattr(policy, "value", "defer")
        return "denied" if value == "deny" else "handed back to the agent"
