"""Deny with a message: the person tells the agent what to do instead."""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static

from ...broker.queue import PendingCall
from ..present import agent_label

PRESETS = (
    "Unsafe: this could be destructive. Explain what you wanted and suggest a safer way.",
    "Wrong tool: use the project's own scripts instead.",
    "Bad arguments: check the paths and flags, then ask again.",
    "Clarify first: tell me what this is for before running it.",
)
MAX_LENGTH = 500


class DenyMessageScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, pending: PendingCall) -> None:
        super().__init__()
        self.pending = pending

    def compose(self) -> ComposeResult:
        call = self.pending.call
        with Vertical(id="deny-dialog", classes="dialog"):
            yield Static(Content.assemble(("Deny with a message", "bold"), ("  ", ""),
                                          (f"{agent_label(call)} · {call.tool}", "$text-muted")), classes="dialog-title")
            yield Static(call.summary(200), classes="dialog-call")
            yield Input(placeholder="Tell the agent what to do instead…", max_length=MAX_LENGTH, id="deny-text")
            yield OptionList(*PRESETS, id="deny-presets")
            yield Static(Content.assemble(("enter", "bold"), (" send  ", "$text-muted"), ("tab", "bold"),
                                          (" presets  ", "$text-muted"), ("esc", "bold"), (" cancel", "$text-muted")),
                         classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#deny-text", Input).focus()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#deny-text")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.notify("Write a message, pick a preset, or press n on the queue to deny without one.",
                        severity="warning")
            return
        self.dismiss(text)

    @on(OptionList.OptionSelected, "#deny-presets")
    def _preset(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(PRESETS[event.option_index])
