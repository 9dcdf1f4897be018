"""`?`: the keys and the screens, in one place (each description hangs under its own column,
also when it wraps)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..render import hanging

KEYS = (
    ("Answering the selected call (or the marked ones)", (
        ("y", "allow it once"),
        ("a", "always allow: this exact call, a pattern (e.g. npm test*), or a rule in your plugins; the waiting "
              "calls it covers are answered too, and the console says how many"),
        ("n", "deny it"),
        ("N", "deny it with a message: your words reach the agent first, as you wrote them"),
        ("space  *", "mark the call (and go to the next) / mark every call shown; y, n and N then answer the "
                     "marked calls together; esc unmarks"),
        ("D", "deny every call the selected call's agent session has waiting (enter confirms, esc cancels)"),
        ("w", "what the agent was doing: the last thing it said before the call, from its transcript"),
    )),
    ("The queue", (
        ("/", "filter: only calls whose project, agent, tool or command has every word you type; enter goes back "
              "to the queue, esc twice clears it"),
        ("o", "group the queue by agent session, by project, or back to arrival order"),
        ("↑ ↓  j k", "previous / next call"),
        ("home end  g G", "first / last call"),
        ("shift+↑ shift+↓", "scroll the call's details"),
    )),
    ("Screens (from every screen; in a text field press esc first)", (
        ("1", "Console: the calls waiting for you"),
        ("2", "Rules: plugins in force, load errors, tests, trust"),
        ("3", "Playground: try a command or a tool call against the rules"),
        ("4", "Editor: edit a plugin file; save validates, reloads and tests it"),
        ("5", "History: every decision, filterable"),
        ("esc", "leave a text field (its text stays); the footer says when esc does this"),
        ("?", "this help"),
        ("q  ctrl+q", "quit: the dialog says what happens to each agent's waiting calls"),
    )),
)

NOTES = (
    "The warning block says what a call does (installs packages, deploys, network access, destructive…) and "
    "its blast radius (low, medium, high, critical) in the colour its badge has in the queue; ⚠ Unrecognised "
    "— not classified as safe; ✓ Read-only — safe.",
    "Critical calls can be allowed once, never always. Every answer is written to the audit log with you "
    "as the decider.",
    "When the rules change (a plugin saved or trusted, an always allow), the waiting calls are judged again: "
    "the ones the new rules allow or deny are answered and leave the queue.",
    "A call nobody answers is answered for you shortly before the agent's own timeout, by the timeout policy.",
)
KEY_WIDTH = 19


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        variables = self.app.get_css_variables()
        with VerticalScroll(id="help-dialog", classes="dialog"):
            yield Static(Content.styled("guardtui — keys", "bold"), classes="dialog-title")
            for title, rows in KEYS:
                yield Static(Content.styled(title, "bold"), classes="help-section")
                for key, what in rows:
                    yield Static(hanging("  " + key, [(what, "")], KEY_WIDTH, variables), classes="help-row")
            for note in NOTES:
                yield Static(Content.styled(note, "$text-muted"), classes="help-note")
            yield Static(Content.assemble(("esc", "bold"), (" close", "$text-muted")), classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)
