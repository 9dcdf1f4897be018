"""Quitting with calls waiting: say what will happen to them, and ask."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class QuitScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y,q,enter", "answer(True)", "Quit"),
        Binding("n,escape", "answer(False)", "Stay"),
    ]

    def __init__(self, waiting: int, policy: str) -> None:
        super().__init__()
        self.waiting = waiting
        self.policy = policy

    def compose(self) -> ComposeResult:
        fate = "denied" if self.policy == "deny" else "handed back to the agents' own prompts"
        calls = "1 call is" if self.waiting == 1 else f"{self.waiting} calls are"
        with Vertical(id="quit-dialog", classes="dialog"):
            yield Static(Content.assemble(("Quit guardtui?", "bold")), classes="dialog-title")
            yield Static(f"{calls} waiting. If you quit now they are {fate}, and the broker stops.")
            yield Static(Content.assemble(("y", "bold"), (" quit  ", "$text-muted"), ("n", "bold"),
                                          (" stay", "$text-muted")), classes="dialog-keys")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
