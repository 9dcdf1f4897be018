"""The main screen: the queue, the selected call in full, the amber guard log, the keys.

y allow once · a always allow (choose the scope) · n deny · N deny with a message ·
space marks calls, and y / n / N then answer the marked ones together · D denies every waiting
call of the selected call's agent session · / filters the queue (k9s-like), o groups it by agent
or project · w shows what the agent was doing · j/k or arrows move. The answer keys dim when
nothing is selected, and a critical call cannot be always-allowed.

An answer key is ignored for a moment (ConsoleSettings.answer_pause_s) after the selected call
appears or changes: a keystroke typed into the terminal by something other than the person
(`tmux send-keys`, a script) lands before anyone could have read the call, and a person's double
press does not answer the next call (another agent's). Every answer goes through `_take` and
`_answerable`, and says how it came (`via`, audited): key, dialog or batch.
"""
from __future__ import annotations

import time

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input

from ...broker.queue import PendingCall
from ...core.model import BlastRadius
from ..present import LogLine
from ..transcript import AgentContext, agent_context
from ..widgets.call_detail import CallDetail
from ..widgets.guard_log import GuardLog
from ..widgets.nav_bar import NavBar
from ..widgets.pending_list import PendingList
from .always_allow import AlwaysAllowScreen, AlwaysChoice
from .deny_all import DenyAllScreen
from .deny_message import DenyMessageScreen
from .keys import LEAVE_FIELD, in_text_field

ANSWER_ACTIONS = frozenset({"allow_once", "always_allow", "deny", "deny_message", "deny_all"})
GROUP_WORDS = {"": "", "agent": "by agent", "project": "by project"}


class ConsoleScreen(Screen[None]):
    AUTO_FOCUS = "#queue"

    BINDINGS = [
        Binding("y", "allow_once", "Allow once", id="answer.allow_once"),
        Binding("a", "always_allow", "Always…", id="answer.always_allow"),
        Binding("n", "deny", "Deny", id="answer.deny"),
        Binding("N", "deny_message", "Deny + msg", id="answer.deny_message", key_display="N"),
        Binding("space", "mark", "Mark", id="queue.mark"),
        Binding("D", "deny_all", "Deny agent's", id="answer.deny_all", key_display="D", show=False),
        Binding("asterisk", "mark_all", "Mark all", key_display="*", show=False),
        Binding("slash", "filter", "Filter", key_display="/", id="queue.filter"),
        Binding("o", "group", "Group", show=False, id="queue.group"),
        Binding("w", "context", "What was it doing", show=False, id="call.context"),
        LEAVE_FIELD,
        Binding("shift+down", "scroll_detail(1)", "Scroll detail", show=False),
        Binding("shift+up", "scroll_detail(-1)", "Scroll detail", show=False),
    ]

    _keys_state: tuple[bool, bool] = (False, False)

    def __init__(self) -> None:
        super().__init__()
        self._contexts: dict[str, AgentContext] = {}
        self._shown: tuple[str | None, float] = (None, float("-inf"))  # the selected call, since when (monotonic)
        self._changed: dict[str, float] = {}  # when a waiting call's reason last changed (a re-judge, a review)

    def compose(self) -> ComposeResult:
        app = self.app
        yield NavBar("console")
        with Horizontal(id="console-main"):
            with Vertical(id="queue-pane"):
                yield Input(placeholder="filter: project, agent, tool or command words  (enter: back to the queue)",
                            id="queue-filter")
                yield PendingList(app.clock, app.display_home, sessions=app.session_labels,  # type: ignore
                                  projects=app.project_names, id="queue")  # type: ignore[attr-defined]
            yield CallDetail(app.clock, app.display_home, sessions=app.session_labels,  # type: ignore
                             projects=app.project_names, id="detail")  # type: ignore[attr-defined]
        yield GuardLog(id="guard-log")
        yield Footer()

    def on_mount(self) -> None:
        queue = self.query_one(PendingList)
        self.query_one("#queue-filter").display = False
        self.query_one(GuardLog).border_title = "Guard events"
        for pending in self.app.queue.pending():  # type: ignore[attr-defined]
            queue.add(pending)
        self.app.calls_signal.subscribe(self, self._on_calls)  # type: ignore[attr-defined]
        self.app.log_signal.subscribe(self, self._on_log)  # type: ignore[attr-defined]
        for line in self.app.log_backlog:  # type: ignore[attr-defined]
            self.query_one(GuardLog).add(line)
        self._update_title()
        self._update_empty_text()
        self.set_interval(1.0, self.refresh_times, name="console-tick")

    # -- feeds -----------------------------------------------------------------------
    def _on_calls(self, change: tuple[str, PendingCall]) -> None:
        kind, pending = change
        queue = self.query_one(PendingList)
        if kind == "added":
            queue.add(pending)
        elif kind in ("reviewed", "rejudged"):  # its reason changed while it waits: redraw it
            queue.refresh()
            self._changed[pending.id] = monotonic()
            if queue.selected is pending:
                self._shown = (pending.id, monotonic())  # a new reason on screen: read it before answering
                self.query_one(CallDetail).show(pending)
        else:
            queue.remove(pending.id)
            self._contexts.pop(pending.id, None)
            self._changed.pop(pending.id, None)
        self._update_title()

    def _on_log(self, line: LogLine) -> None:
        self.query_one(GuardLog).add(line)

    def refresh_times(self) -> None:
        """Countdowns move: redraw them (once a second)."""
        self.query_one(PendingList).refresh()
        self.query_one(CallDetail).refresh_head()

    def _update_title(self) -> None:
        queue = self.query_one(PendingList)
        bits = ["Waiting for you"]
        if queue.total:
            bits.append(f"{len(queue)} of {queue.total}" if queue.filter_text else str(queue.total))
        if queue.marked:
            bits.append(f"{len(queue.marked)} marked")
        if queue.filter_text:
            bits.append(f"/{queue.filter_text}")
        if queue.group_by:
            bits.append(GROUP_WORDS[queue.group_by])
        queue.border_title = " · ".join(bits)
        self.query_one(CallDetail).set_marked(len(queue.marked))

    def _update_keys(self) -> None:
        """Dim or light the answer keys, only when that changes (the footer is costly to redraw)."""
        pending = self.selected
        state = (pending is not None, pending is not None and pending.decision.blast_radius is BlastRadius.CRITICAL)
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    def _update_empty_text(self) -> None:
        self.query_one(CallDetail).set_empty_text(self.app.empty_text())  # type: ignore[attr-defined]

    def on_pending_list_selected(self, message: PendingList.Selected) -> None:
        selected = message.pending.id if message.pending is not None else None
        if selected != self._shown[0]:
            self._shown = (selected, monotonic())
        detail = self.query_one(CallDetail)
        detail.show(message.pending)
        if detail.context_shown and message.pending is not None:
            self._load_context(message.pending)
        self._update_keys()

    def on_pending_list_marked(self, _message: PendingList.Marked) -> None:
        self._update_title()

    # -- keys ------------------------------------------------------------------------
    @property
    def selected(self) -> PendingCall | None:
        return self.query_one(PendingList).selected

    @property
    def marked(self) -> list[PendingCall]:
        return [p for p in self.query_one(PendingList).marked if not p.done]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_field":
            return in_text_field(self)
        if action in ANSWER_ACTIONS:
            pending = self.selected
            if (pending is None or pending.done) and not (self.marked and action in ("allow_once", "deny",
                                                                                       "deny_message")):
                return None  # shown dimmed
            if action == "always_allow" and pending is not None and \
                    pending.decision.blast_radius is BlastRadius.CRITICAL:
                return None
        return True

    def _answerable(self, calls: list[PendingCall]) -> list[PendingCall]:
        """The calls a key press may answer now: the ones still waiting and not changed a moment ago."""
        pause = self.app.settings.answer_pause_s  # type: ignore[attr-defined]
        now = monotonic()
        fresh = [p for p in calls if now - self._changed.get(p.id, float("-inf")) < pause]
        if fresh:
            self.notify(f"{len(fresh)} of them changed just now: left waiting. Read them, then answer again.",
                        severity="warning", timeout=3)
        return [p for p in calls if not p.done and p not in fresh]

    def _paused(self, key: str) -> bool:
        """Is the call on screen too new to answer (it came up or changed a moment ago)?"""
        pending = self.selected
        pause = self.app.settings.answer_pause_s  # type: ignore[attr-defined]
        if pending is not None and pending.id == self._shown[0] and monotonic() - self._shown[1] < pause:
            self.notify(f"{key} ignored: this call just came up. Read it, then press {key} again.",
                        severity="warning", timeout=3)
            return True
        return False

    def _take(self, key: str) -> PendingCall | None:
        pending = self.selected
        if pending is None:
            return None
        if pending.done:
            self.notify("That call was already answered.", severity="warning")
            return None
        if self._paused(key):
            return None
        taken = self._answerable([pending])
        return taken[0] if taken else None

    def _batch(self, key: str) -> list[PendingCall] | None:
        """The marked calls a batch key answers (None: no marks, or the key came too soon)."""
        if not self.marked:
            return None
        return [] if self._paused(key) else self._answerable(self.marked)

    def action_allow_once(self) -> None:
        batch = self._batch("y")
        if batch is not None:
            if batch:
                self.app.answer_batch(batch, allow=True)  # type: ignore[attr-defined]
            return
        pending = self._take("y")
        if pending is not None:
            self.app.answer_allow(pending, via="key y")  # type: ignore[attr-defined]

    def action_deny(self) -> None:
        batch = self._batch("n")
        if batch is not None:
            if batch:
                self.app.answer_batch(batch, allow=False)  # type: ignore[attr-defined]
            return
        pending = self._take("n")
        if pending is not None:
            self.app.answer_deny(pending, via="key n")  # type: ignore[attr-defined]

    def action_always_allow(self) -> None:
        pending = self._take("a")
        if pending is None:
            return
        if pending.decision.blast_radius is BlastRadius.CRITICAL:
            self.notify("A critical call can be allowed once (y), never always.", severity="error")
            return

        async def chosen(choice: AlwaysChoice | None) -> None:
            if choice is not None:
                await self.app.answer_always(pending, choice)  # type: ignore[attr-defined]

        self.app.push_screen(AlwaysAllowScreen(pending, self.app.always_options(pending),  # type: ignore
                                               self.app.display_home), chosen)  # type: ignore[attr-defined]

    def action_deny_message(self) -> None:
        marked = self._batch("N") or []
        calls = marked or ([p] if not self.marked and (p := self._take("N")) is not None else [])
        if not calls:
            return

        def sent(message: str | None) -> None:
            if message is None:
                return
            if marked:
                self.app.answer_batch(self._answerable(calls), allow=False, message=message)  # type: ignore
            else:
                self.app.answer_deny(calls[0], message, via="dialog deny-message")  # type: ignore[attr-defined]

        self.app.push_screen(DenyMessageScreen(calls, self.app.display_home), sent)  # type: ignore[attr-defined]

    def action_deny_all(self) -> None:
        """Every call waiting from the selected call's agent session, as listed now."""
        pending = self._take("D")
        if pending is None:
            return
        key = (pending.call.agent, pending.call.session)
        calls = [p for p in self.app.queue.pending() if (p.call.agent, p.call.session) == key]  # type: ignore

        def sent(message: str | None) -> None:
            if message is not None:
                self.app.answer_batch(self._answerable(calls), allow=False, message=message or None)  # type: ignore

        label = self.app.session_labels(pending.call)  # type: ignore[attr-defined]
        self.app.push_screen(DenyAllScreen(label, calls, self.app.display_home), sent)  # type: ignore

    def action_mark(self) -> None:
        self.query_one(PendingList).toggle_mark()

    def action_mark_all(self) -> None:
        self.query_one(PendingList).mark_all()

    def action_unmark_or_clear(self) -> None:
        """Esc on the queue: unmark the marked calls, else clear the filter."""
        queue = self.query_one(PendingList)
        if queue.clear_marks():
            return
        if queue.filter_text:
            self.query_one("#queue-filter", Input).value = ""
            self.query_one("#queue-filter").display = False
            queue.set_filter("")
            self._update_title()

    def action_filter(self) -> None:
        field = self.query_one("#queue-filter", Input)
        field.display = True
        self.set_focus(field)  # now, not later: the keys typed right after "/" belong to the field

    @on(Input.Changed, "#queue-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(PendingList).set_filter(event.value)
        self._update_title()

    @on(Input.Submitted, "#queue-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            self.query_one("#queue-filter").display = False
        self.query_one(PendingList).focus()

    def action_leave_field(self) -> None:
        """Esc in the filter: back to the queue, the filter kept."""
        field = self.query_one("#queue-filter", Input)
        if not field.value.strip():
            field.display = False
        self.query_one(PendingList).focus()

    def action_group(self) -> None:
        group = self.query_one(PendingList).cycle_group()
        self._update_title()
        self.notify(f"Queue grouped {GROUP_WORDS[group]}" if group else "Queue in arrival order", timeout=2)

    def action_context(self) -> None:
        detail = self.query_one(CallDetail)
        pending = self.selected
        if detail.context_shown or pending is None:
            detail.set_context(False)
            return
        self._load_context(pending)

    def _load_context(self, pending: PendingCall) -> None:
        detail = self.query_one(CallDetail)
        known = self._contexts.get(pending.id)
        detail.set_context(True, known)
        if known is None:
            self.read_context(pending)

    @work(group="transcript", exclusive=True, thread=True, exit_on_error=False)
    def read_context(self, pending: PendingCall) -> None:
        """Read off the event loop: a transcript may be large, or on a slow disk."""
        context = agent_context(pending.call.transcript, pending.call.call_id,
                                self.app.display_home)  # type: ignore[attr-defined]
        self.app.call_from_thread(self._context_read, pending, context)

    def _context_read(self, pending: PendingCall, context: AgentContext) -> None:
        if len(self._contexts) > 256:
            self._contexts.clear()
        self._contexts[pending.id] = context
        detail = self.query_one(CallDetail)
        if detail.pending is pending and detail.context_shown:
            detail.set_context(True, context)

    def action_scroll_detail(self, direction: int) -> None:
        detail = self.query_one(CallDetail)
        detail.scroll_relative(y=direction * 3, animate=False)


def empty_hint(state: str, detail: str) -> Content:
    """What the detail pane says when nothing waits."""
    lines = [Content.assemble(("No calls waiting.", "bold"))]
    if state == "listening":
        lines.append(Content.assemble(("Agents' tool calls that need you appear here. Listening on ", "$text-muted"),
                                      (detail, "bold"), (".", "$text-muted")))
        lines.append(Content.assemble(("Connect an agent: ", "$text-muted"), ("guardtui install claude", "bold"),
                                      (" (or codex, gemini, cursor, docker-agent).", "$text-muted")))
    elif state == "demo":
        lines.append(Content("The demo agents will ask again in a moment."))
    elif state == "failed":
        lines.append(Content.assemble(("The broker could not start: ", "$text-error"), (detail, "")))
    lines.append(Content.assemble(("Press ", "$text-muted"), ("?", "bold"), (" for help, ", "$text-muted"),
                                  ("3", "bold"), (" to try commands in the playground.", "$text-muted")))
    return Content("\n").join(lines)


def monotonic() -> float:
    """The clock the answer pause is measured on (a test may stand another in)."""
    return time.monotonic()
