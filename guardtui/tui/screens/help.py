"""`?`: the keys and the screens, in one place."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = (
    ("Answering the selected call", (
        ("y", "allow it once"),
        ("a", "always allow: this exact call, a pattern (e.g. npm test*), or a rule in your plugins"),
        ("n", "deny it"),
        ("N", "deny it with a message to the agent"),
    )),
    ("Moving", (
        ("↑ ↓  j k", "previous / next call"),
        ("home end  g G", "oldest / newest call"),
        ("shift+↑ shift+↓", "scroll the call's details"),
    )),
    ("Screens", (
        ("1", "Console: the calls waiting for you"),
        ("2", "Rules: plugins in force, load errors, tests, trust"),
        ("3", "Playground: try a command or a tool call against the rules"),
        ("4", "Editor: edit a plugin file; save validates, reloads and tests it"),
        ("5", "History: every decision, filterable"),
        ("?", "this help"),
        ("q  ctrl+q", "quit (calls still waiting are answered by the policy)"),
    )),
)

NOTES = (
    "The warning block says how bad a command is: ⚠ Destructive command — with its blast radius "
    "(low, medium, high, critical); ⚠ Unrecognised command — not classified as safe; ✓ Read-only command — safe.",
    "Critical calls can be allowed once, never always. Every answer is written to the audit log with you "
    "as the decider.",
    "A call nobody answers is answered for you shortly before the agent's own timeout, by the timeout policy.",
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        lines: list[Content] = [Content.assemble(("guardtui — keys", "bold $guard")), Content("")]
        for title, rows in KEYS:
            lines.append(Content.assemble((title, "bold")))
            for key, what in rows:
                lines.append(Content.assemble(("  " + key.ljust(18), "bold $text-accent"), (what, "")))
            lines.append(Content(""))
        for note in NOTES:
            lines.append(Content.assemble((note, "$text-muted")))
        lines.append(Content(""))
        lines.append(Content.assemble(("esc", "bold"), (" close", "$text-muted")))
        with VerticalScroll(id="help-dialog", classes="dialog"):
            yield Static(Content("\n").join(lines))

    def action_close(self) -> None:
        self.dismiss(None)
