"""Deny with a message: the person tells the agent what to do instead (one call, or the marked
ones). Their words reach the agent first and unedited."""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static

from ...broker.queue import PendingCall
from ..present import agent_label, tilde

PRESETS = (
    "Unsafe: this could be destructive. Explain what you wanted and suggest a safer way.",
    "Wrong tool: use the project's own scripts instead.",
    "Bad arguments: check the paths and flags, then ask again.",
    "Clarify first: tell me what this is for before running it.",
)
MAX_LENGTH = 500
LISTED = 6  # calls listed by name in a batch; the rest are counted


def listed_calls(calls: list[PendingCall], home: str) -> list[Static]:
    """The calls a dialog answers, one line each (cut, not wrapped), `~` for home."""
    lines = [Static(tilde(p.call.summary(200), home), classes="dialog-call-line") for p in calls[:LISTED]]
    if len(calls) > LISTED:
        lines.append(Static(Content.styled(f"… and {len(calls) - LISTED} more", "$text-muted"),
                            classes="dialog-call-line"))
    return lines


class DenyMessageScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, calls: PendingCall | list[PendingCall], home: str = "") -> None:
        super().__init__()
        self.calls = calls if isinstance(calls, list) else [calls]
        self.pending = self.calls[0]
        self.home = home

    def compose(self) -> ComposeResult:
        call = self.pending.call
        title = "Deny with a message" if len(self.calls) == 1 else f"Deny {len(self.calls)} marked calls with a message"
        who = f"{agent_label(call)} · {call.tool}" if len(self.calls) == 1 else "the same words to each agent"
        with Vertical(id="deny-dialog", classes="dialog"):
            yield Static(Content.assemble((title, "bold"), ("  ", ""), (who, "$text-muted")), classes="dialog-title")
            with Vertical(classes="dialog-call"):
                yield from listed_calls(self.calls, self.home)
            yield Input(placeholder="Tell the agent what to do instead…", max_length=MAX_LENGTH, id="deny-text")
            yield OptionList(*PRESETS, id="deny-presets")
            yield Static(Content.assemble(("enter", "bold"), (" send  ", "$text-muted"), ("tab", "bold"),
                                          (" presets  ", "$text-muted"), ("esc", "bold"), (" cancel", "$text-muted"),
                                          ("   your words reach the agent first, as you wrote them",
                                           "$text-muted")), classes="dialog-keys")

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
