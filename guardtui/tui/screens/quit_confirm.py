"""Quitting with calls waiting: say, per agent session, what will happen to its calls, and ask.

The keys are q (quit) and esc (stay), never the answer keys: a `y` or an `n` meant for a call
must not quit the console."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ...broker.queue import Outcome, PendingCall, policy_resolution
from ..render import hanging

WHY = "the console quit"


@dataclass(frozen=True)
class Fate:
    """What quitting does to one agent session's waiting calls."""

    label: str
    denied: int
    handed_back: int
    why_denied: str = ""  # the reason when the policy hands back but this agent cannot take it back

    def words(self) -> str:
        parts = []
        if self.handed_back:
            parts.append(f"{_calls(self.handed_back)} handed back to its own prompt")
        if self.denied:
            parts.append(f"{_calls(self.denied)} denied" + (f" ({self.why_denied})" if self.why_denied else ""))
        return "; ".join(parts)


def _calls(n: int) -> str:
    return "1 call" if n == 1 else f"{n} calls"


def fates(calls: list[PendingCall], policy: Outcome, label) -> list[Fate]:
    """Per agent session, in the order they first asked: how many are denied, how many handed back."""
    counts: dict[str, Counter] = {}
    reasons: dict[str, str] = {}
    for pending in calls:
        name = label(pending.call)
        resolution = policy_resolution(policy, WHY, call=pending.call)
        counts.setdefault(name, Counter())[resolution.outcome] += 1
        if resolution.outcome is Outcome.DENY and policy is Outcome.DEFER:
            reasons[name] = resolution.reason.split(", and ", 1)[-1].removesuffix(": denied by policy")
    return [Fate(name, c[Outcome.DENY], c[Outcome.DEFER], reasons.get(name, "")) for name, c in counts.items()]


def summary(items: list[Fate]) -> str:
    """One line for the terminal after the console quit."""
    return "guardtui: " + "; ".join(f"{f.label}: {f.words()}" for f in items) + "."


class QuitScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("q,ctrl+q", "answer(True)", "Quit"),
        Binding("escape", "answer(False)", "Stay"),
    ]

    def __init__(self, items: list[Fate]) -> None:
        super().__init__()
        self.items = items

    def compose(self) -> ComposeResult:
        waiting = sum(f.denied + f.handed_back for f in self.items)
        calls = "1 call is" if waiting == 1 else f"{waiting} calls are"
        variables = self.app.get_css_variables()
        with Vertical(id="quit-dialog", classes="dialog"):
            yield Static(Content.assemble(("Quit guardtui?", "bold")), classes="dialog-title")
            yield Static(f"{calls} waiting. If you quit now the broker stops, and:")
            for fate in self.items:
                yield Static(hanging("•", [(fate.label, "bold"), (f": {fate.words()}", "")], 2, variables),
                             classes="quit-fate")
            yield Static(Content.assemble(("q", "bold"), (" quit  ", "$text-muted"), ("esc", "bold"),
                                          (" stay", "$text-muted")), classes="dialog-keys")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
