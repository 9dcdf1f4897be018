"""Deny every call one agent session has waiting, as listed when the dialog opened (a call that
arrives meanwhile is not in it: only what the person saw is answered). An optional message goes
to the agent with each denial. enter denies them, esc cancels — not the answer keys, so a `y` or
an `n` typed a moment too late cannot answer a batch."""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...broker.queue import PendingCall
from .deny_message import MAX_LENGTH, listed_calls


class DenyAllScreen(ModalScreen[str | None]):
    """Dismisses with "" (deny without a message), the message, or None (cancel)."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, label: str, calls: list[PendingCall], home: str = "") -> None:
        super().__init__()
        self.label = label
        self.calls = calls
        self.home = home

    def compose(self) -> ComposeResult:
        count = "its 1 waiting call" if len(self.calls) == 1 else f"all {len(self.calls)} of its waiting calls"
        with Vertical(id="deny-all-dialog", classes="dialog"):
            yield Static(Content.assemble((f"Deny {count}", "bold"), ("  ", ""), (self.label, "bold $text-accent")),
                         classes="dialog-title")
            with Vertical(classes="dialog-call"):
                yield from listed_calls(self.calls, self.home)
            yield Input(placeholder="optional: tell the agent what to do instead…", max_length=MAX_LENGTH,
                        id="deny-all-text")
            yield Static(Content.assemble(("enter", "bold"), (f" deny {len(self.calls)}  ", "$text-muted"),
                                          ("esc", "bold"), (" cancel", "$text-muted")), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#deny-all-text")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())
