"""The selected call in full, the decision first: what it runs and what the agent says it is
for, the answer keys right under that; then who asks and where, how bad it is and why the guard
stopped it, what it does part by part; and, on demand (w), what the agent was doing — the last
thing it said before the call, from its transcript."""
from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...broker.queue import PendingCall
from ...core.model import BlastRadius
from ..changes import file_change
from ..present import ProjectNames, SessionLabels, call_text, fmt_duration, mcp_parts, review_note, segments_of, \
    short_path, tilde, warning_for
from ..transcript import AgentContext
from .command_view import CommandView, marked_command
from .file_diff import FileDiff
from .input_view import InputView
from .warning_block import WarningBlock

KEY = "bold $text-accent"
MUTED = "$text-muted"


def answer_keys(marked: int, critical: bool, context_shown: bool) -> Content:
    """The keys that answer, right under the call (for the marked calls when there are some)."""
    def key(k: str, what: str) -> tuple[tuple[str, str], tuple[str, str]]:
        return (k, KEY), (f" {what}  ", MUTED)

    if marked:
        return Content.assemble((f"{marked} marked: ", "bold"), *key("y", "allow them"), *key("n", "deny them"),
                                *key("N", "deny them with a message"), *key("esc", "unmark"))
    always = key("a", "always…") if not critical else (("a", MUTED), (" never for a critical call   ", MUTED))
    return Content.assemble(*key("y", "allow once"), *always, *key("n", "deny"), *key("N", "+ message"),
                            *key("w", "hide context" if context_shown else "context"))


class CallDetail(VerticalScroll, can_focus=False):
    """Shows one PendingCall; an empty state when there is none."""

    def __init__(self, clock: Callable[[], float], home: str = "", *, sessions: SessionLabels | None = None,
                 projects: ProjectNames | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock
        self.home = home
        self.sessions = sessions or SessionLabels()
        self.projects = projects or ProjectNames(home)
        self.pending: PendingCall | None = None
        self.marked = 0
        self.context_shown = False
        self._head_shown: str | None = None
        self.empty_text: Content | str = "No calls waiting."

    def compose(self) -> ComposeResult:
        yield Static(id="detail-empty")
        yield Static(id="detail-call")
        yield Static(id="detail-says")
        yield Static(id="detail-keys")
        yield Static(id="detail-context")
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
        for part in self.query_children():
            if part is not empty:
                part.display = False
        self.scroll_home(animate=False, immediate=True)
        if pending is None:
            empty.update(self.empty_text)
            return
        call, decision = pending.call, pending.decision
        what = self.query_one("#detail-call", Static)
        what.display = True
        segments = segments_of(call, decision, self.home) if call.is_shell else []
        if call.is_shell:
            what.update(marked_command(call.command, segments))
        else:
            parts = mcp_parts(call.tool)
            tool = f"{parts[0]} {parts[1]}" if parts else call.tool
            target = tilde(call.file_path, self.home) if call.file_path else call_text(call, self.home, 400)
            if parts:
                target = target[len(parts[1]):].strip()
            what.update(Content.assemble((tool, "bold"), "  ", (target, "")))
        says = self.query_one("#detail-says", Static)
        says.display = bool(call.description)
        says.update(Content.assemble(("“", MUTED), (call.description, "italic"), ("”", MUTED),
                                     (f" — {self.sessions(call)}", MUTED)))
        self.show_keys()
        self.refresh_head()
        warning = self.query_one("#detail-warning", WarningBlock)
        warning.show(warning_for(call, decision, self.home))
        why = self.query_one("#detail-why", Static)
        why.display = True
        bits: list[tuple[str, str]] = [("rule ", MUTED), (decision.rule or "—", MUTED)]
        if decision.category:
            bits += [("  ·  ", MUTED), (decision.category, MUTED)]
        if decision.blast_radius is BlastRadius.CRITICAL:
            bits += [("\n", ""), ("critical: y allows it once; it can never be always allowed", "$text-error")]
        note = review_note(pending)
        if note:
            bits += [("\n", ""), ("◆ ", "$guard"), (tilde(note, self.home), "italic")]
        why.update(Content.assemble(*bits))
        self._show_context()
        if call.is_shell:
            view = self.query_one("#detail-command", CommandView)
            view.display = view.show(call.command, segments, with_command=False)
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

    def show_keys(self) -> None:
        pending = self.pending
        if pending is None:
            return
        keys = self.query_one("#detail-keys", Static)
        keys.display = True
        keys.update(answer_keys(self.marked, pending.decision.blast_radius is BlastRadius.CRITICAL,
                                self.context_shown))

    def set_marked(self, count: int) -> None:
        if count != self.marked:
            self.marked = count
            self.show_keys()

    # -- what the agent was doing ------------------------------------------------------
    def set_context(self, shown: bool, context: AgentContext | None = None) -> None:
        """Show (with what was read, or a note that it is being read) or hide the agent's context."""
        self.context_shown = shown
        self._context = context
        self.show_keys()
        self._show_context()

    def _show_context(self) -> None:
        box = self.query_one("#detail-context", Static)
        box.display = self.context_shown and self.pending is not None
        if not box.display:
            return
        context: AgentContext | None = getattr(self, "_context", None)
        head = Content.assemble(("What it was doing", "bold"), (f" — the last thing {self.sessions(self.pending.call)}"
                                                                 " said before this call, from its transcript", MUTED))
        if context is None:
            body = Content.styled("reading the transcript…", MUTED)
        elif context.problem:
            body = Content.styled(context.problem, MUTED)
        else:
            body = Content(tilde(context.text, self.home)) + (Content.styled(" (cut)", MUTED) if context.cut else "")
        box.update(Content.assemble(head, "\n", body))

    # -- the header --------------------------------------------------------------------
    def refresh_head(self) -> None:
        """Who asks and where, how long it has waited and what happens when time runs out."""
        pending = self.pending
        if pending is None:
            return
        call = pending.call
        now = self.clock()
        left = pending.remaining(now)
        session = f" · {call.session[:8]}" if call.session else ""
        cwd = short_path(call.cwd, self.home) if call.cwd else "?"
        line1 = Content.assemble((call.tool, "bold $text-accent"), "  ", (self.sessions(call), "bold"),
                                 (session, MUTED), "  ", (self.projects(call.cwd), "bold"), (f" {cwd}", MUTED))
        line2 = Content.assemble(("waiting ", MUTED), (fmt_duration(now - pending.received), ""),
                                 ("  ·  ", MUTED),
                                 (fmt_duration(left), "bold $text-error" if left < 10 else "bold"),
                                 (f" left, then {self.app_policy()}", MUTED))
        head = self.query_one("#detail-head", Static)
        same_size = head.display and self._head_shown == pending.id
        self._head_shown = pending.id
        head.display = True
        head.update(Content.assemble(line1, "\n", line2), layout=not same_size)

    def app_policy(self) -> str:
        policy = getattr(getattr(self.app, "queue", None), "timeout_policy", None)
        value = getattr(policy, "value", "defer")
        return "denied" if value == "deny" else "handed back to the agent"
