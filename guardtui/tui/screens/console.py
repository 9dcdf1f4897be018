"""The main screen: the queue, the selected call in full, the amber guard log, the keys.

y allow once · a always allow (choose the scope) · n deny · N deny with a message ·
j/k or arrows move. The answer keys dim when nothing is selected, and a critical call
cannot be always-allowed.

An answer key is ignored for a moment (ConsoleSettings.answer_pause_s) after the selected call
appears or changes: a keystroke typed into the terminal by something other than the person
(`tmux send-keys`, a script) lands before anyone could have read the call, and a person's
double press does not answer the next call. Each answer says how it came (`via`, audited).
"""
from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer

from ...broker.queue import PendingCall
from ...core.model import BlastRadius
from ..present import LogLine
from ..widgets.call_detail import CallDetail
from ..widgets.guard_log import GuardLog
from ..widgets.nav_bar import NavBar
from ..widgets.pending_list import PendingList
from .always_allow import AlwaysAllowScreen, AlwaysChoice
from .deny_message import DenyMessageScreen

ANSWER_ACTIONS = frozenset({"allow_once", "always_allow", "deny", "deny_message"})


class ConsoleScreen(Screen[None]):
    AUTO_FOCUS = "#queue"

    BINDINGS = [
        Binding("y", "allow_once", "Allow once", id="answer.allow_once"),
        Binding("a", "always_allow", "Always…", id="answer.always_allow"),
        Binding("n", "deny", "Deny", id="answer.deny"),
        Binding("N", "deny_message", "Deny + msg", id="answer.deny_message", key_display="N"),
        Binding("shift+down", "scroll_detail(1)", "Scroll detail", show=False),
        Binding("shift+up", "scroll_detail(-1)", "Scroll detail", show=False),
    ]

    _keys_state: tuple[bool, bool] = (False, False)
    _shown: tuple[str | None, float] = (None, float("-inf"))  # the selected call, and since when (monotonic)

    def compose(self) -> ComposeResult:
        app = self.app
        yield NavBar("console")
        with Horizontal(id="console-main"):
            yield PendingList(app.clock, app.display_home, id="queue")  # type: ignore[attr-defined]
            yield CallDetail(app.clock, app.display_home, id="detail")  # type: ignore[attr-defined]
        yield GuardLog(id="guard-log")
        yield Footer()

    def on_mount(self) -> None:
        queue = self.query_one(PendingList)
        queue.border_title = "Waiting for you"
        self.query_one(GuardLog).border_title = "Guard events"
        for pending in self.app.queue.pending():  # type: ignore[attr-defined]
            queue.add(pending)
        self.app.calls_signal.subscribe(self, self._on_calls)  # type: ignore[attr-defined]
        self.app.log_signal.subscribe(self, self._on_log)  # type: ignore[attr-defined]
        for line in self.app.log_backlog:  # type: ignore[attr-defined]
            self.query_one(GuardLog).add(line)
        self._update_empty_text()
        self.set_interval(1.0, self.refresh_times, name="console-tick")

    # -- feeds -----------------------------------------------------------------------
    def _on_calls(self, change: tuple[str, PendingCall]) -> None:
        kind, pending = change
        queue = self.query_one(PendingList)
        if kind == "added":
            queue.add(pending)
        elif kind == "reviewed":  # the guard agent left it to the person: its reason is on the call now
            queue.refresh()
            if queue.selected is pending:
                self.query_one(CallDetail).show(pending)
        else:
            queue.remove(pending.id)
        self._update_title()

    def _on_log(self, line: LogLine) -> None:
        self.query_one(GuardLog).add(line)

    def refresh_times(self) -> None:
        """Ages and countdowns move: redraw them (once a second)."""
        self.query_one(PendingList).refresh()
        self.query_one(CallDetail).refresh_head()

    def _update_title(self) -> None:
        count = len(self.query_one(PendingList))
        self.query_one(PendingList).border_title = f"Waiting for you · {count}" if count else "Waiting for you"

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
        self.query_one(CallDetail).show(message.pending)
        self._update_keys()
        selected = message.pending.id if message.pending is not None else None
        if selected != self._shown[0]:
            self._shown = (selected, monotonic())

    # -- keys ------------------------------------------------------------------------
    @property
    def selected(self) -> PendingCall | None:
        return self.query_one(PendingList).selected

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ANSWER_ACTIONS:
            pending = self.selected
            if pending is None or pending.done:
                return None  # shown dimmed
            if action == "always_allow" and pending.decision.blast_radius is BlastRadius.CRITICAL:
                return None
        return True

    def _take(self, key: str) -> PendingCall | None:
        pending = self.selected
        if pending is None:
            return None
        if pending.done:
            self.notify("That call was already answered.", severity="warning")
            return None
        pause = self.app.settings.answer_pause_s  # type: ignore[attr-defined]
        if pending.id == self._shown[0] and monotonic() - self._shown[1] < pause:
            self.notify(f"{key} ignored: this call just came up. Read it, then press {key} again.",
                        severity="warning", timeout=3)
            return None
        return pending

    def action_allow_once(self) -> None:
        pending = self._take("y")
        if pending is not None:
            self.app.answer_allow(pending, via="key y")  # type: ignore[attr-defined]

    def action_deny(self) -> None:
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

        self.app.push_screen(AlwaysAllowScreen(pending, self.app.always_options(pending)), chosen)  # type: ignore

    def action_deny_message(self) -> None:
        pending = self._take("N")
        if pending is None:
            return

        def sent(message: str | None) -> None:
            if message is not None:
                self.app.answer_deny(pending, message, via="dialog deny-message")  # type: ignore[attr-defined]

        self.app.push_screen(DenyMessageScreen(pending), sent)

    def action_scroll_detail(self, direction: int) -> None:
        detail = self.query_one(CallDetail)
        detail.scroll_relative(y=direction * 3, animate=False)


def monotonic() -> float:
    """The clock the answer pause is measured on (a test may stand another in)."""
    return time.monotonic()


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

