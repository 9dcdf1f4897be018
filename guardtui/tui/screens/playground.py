"""Playground: type a shell command (or pick a tool and give its input) and watch the verdict,
the deciding rule and the per-segment analysis change as you type. ctrl+s saves the case
as a test in a plugin file."""
from __future__ import annotations

import json

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Select, Static, TextArea

from ...core.engine import Engine
from ...core.model import Decision, ToolCall, Verdict
from ..changes import file_change
from ..present import expand_tilde, segments_of, short_path, verdict_word, warning_for
from ..widgets.command_view import CommandView
from ..widgets.file_diff import FileDiff
from ..widgets.nav_bar import NavBar
from ..widgets.warning_block import WarningBlock, radius_badge
from .keys import LEAVE_FIELD, SharedKeys
from .save_test import SaveTestScreen

TOOLS = ("Bash", "Write", "Edit", "MultiEdit", "Read", "Glob", "Grep", "WebFetch", "mcp__github__create_issue")
EXAMPLE_INPUT = {
    "Write": {"file_path": "src/app.py", "content": "print('hello')\n"},
    "Edit": {"file_path": "src/app.py", "old_string": "hello", "new_string": "goodbye"},
    "MultiEdit": {"file_path": "src/app.py", "edits": [{"old_string": "hello", "new_string": "goodbye"}]},
    "Read": {"file_path": ".env"},
    "Glob": {"pattern": "**/*.py"},
    "Grep": {"pattern": "TODO"},
    "WebFetch": {"url": "https://example.com", "prompt": "summarise"},
    "mcp__github__create_issue": {"repo": "acme/shop", "title": "Bug"},
}
VERDICT_STYLE = {"allow": "bold reverse $success", "deny": "bold reverse $error", "ask": "bold reverse $warning",
                 "flag": "bold reverse $guard"}
DEBOUNCE_S = 0.12


def sandbox_engine(engine: Engine) -> Engine:
    """The console's rules in an engine of their own: no audit, no events, no session state."""
    sandbox = Engine(engine.rules, analyzer=engine.analyzer, home=engine.home,
                     protection=engine.protection)
    sandbox.temp_dirs = engine.temp_dirs
    return sandbox


class PlaygroundScreen(SharedKeys, Screen[None]):
    AUTO_FOCUS = "#play-command"
    BINDINGS = [
        Binding("ctrl+s", "save_test", "Save as test", priority=True),
        LEAVE_FIELD,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.call: ToolCall | None = None
        self.decision: Decision | None = None
        self._timer = None

    def compose(self) -> ComposeResult:
        yield NavBar("playground")
        with Horizontal(id="play-top"):
            yield Select([(t, t) for t in TOOLS], value="Bash", allow_blank=False, id="play-tool")
            yield Input(short_path(self.app.cwd, self.app.display_home),  # type: ignore[attr-defined]
                        placeholder="working directory", id="play-cwd")
        yield Input(placeholder="a shell command, e.g.  ls && rm -rf build", id="play-command")
        yield TextArea("{}", id="play-input", tab_behavior="indent", show_line_numbers=False)
        with VerticalScroll(id="play-result"):
            yield Static(id="play-verdict")
            yield WarningBlock(id="play-warning")
            yield CommandView(id="play-segments")
            yield FileDiff(id="play-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#play-input").display = False
        self.query_one("#play-result").border_title = "Verdict"
        self.evaluate()

    # -- input -----------------------------------------------------------------------
    @on(Select.Changed, "#play-tool")
    def _tool_changed(self, event: Select.Changed) -> None:
        shell = event.value == "Bash"
        self.query_one("#play-command").display = shell
        area = self.query_one("#play-input", TextArea)
        area.display = not shell
        if not shell:
            area.load_text(json.dumps(EXAMPLE_INPUT.get(str(event.value), {}), indent=2))
        self.schedule()

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _typed(self) -> None:
        self.schedule()

    def schedule(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, self.evaluate)

    def current_call(self) -> ToolCall | str:
        """The call described by the fields, or why it cannot be built."""
        tool = str(self.query_one("#play-tool", Select).value)
        cwd = expand_tilde(self.query_one("#play-cwd", Input).value.strip() or "/",
                           self.app.display_home)  # type: ignore[attr-defined]
        if tool == "Bash":
            return ToolCall("Bash", {"command": self.query_one("#play-command", Input).value}, cwd,
                            agent="playground", session="playground")
        try:
            data = json.loads(self.query_one("#play-input", TextArea).text or "{}")
        except json.JSONDecodeError as exc:
            return f"the input is not valid JSON: {exc.msg} (line {exc.lineno})"
        if not isinstance(data, dict):
            return "the input must be a JSON object"
        return ToolCall(tool, data, cwd, agent="playground", session="playground")

    # -- the verdict -----------------------------------------------------------------
    def evaluate(self) -> None:
        call = self.current_call()
        verdict = self.query_one("#play-verdict", Static)
        warning = self.query_one("#play-warning", WarningBlock)
        segments = self.query_one("#play-segments", CommandView)
        diff = self.query_one("#play-diff", FileDiff)
        segments.display = diff.display = False
        if isinstance(call, str):
            self.call = self.decision = None
            verdict.update(Content.styled(call, "$text-error"))
            warning.show(None)
            return
        if call.is_shell and not call.command.strip():
            self.call = self.decision = None
            verdict.update(Content.styled("Type a command: the verdict follows as you type.", "$text-muted"))
            warning.show(None)
            return
        decision = sandbox_engine(self.app.engine).evaluate(call, record=False)  # type: ignore[attr-defined]
        self.call, self.decision = call, decision
        word = verdict_word(decision)
        escalated = " — the guard agent's to judge, when one is set up" if decision.metadata.get("escalation") else ""
        verdict.update(Content.assemble(
            (f" {word.upper()} ", VERDICT_STYLE.get(word, "bold reverse")), "  ",
            radius_badge(decision.blast_radius), (" blast radius", "$text-muted"), "  ",
            ("rule ", "$text-muted"), (decision.rule or "—", "bold"),
            (f"  ·  {decision.category}" if decision.category else "", "$text-muted"),
            (escalated, "$text-muted")))
        home = self.app.display_home  # type: ignore[attr-defined]
        warning.show(warning_for(call, decision, home))
        if call.is_shell:
            segments.display = True
            segments.show(call.command, segments_of(call, decision, home))
            return
        change = file_change(call)
        if change is not None:
            diff.display = True
            diff.show(change, home)

    # -- keys ------------------------------------------------------------------------
    def action_leave_field(self) -> None:
        self.set_focus(None)

    def action_save_test(self) -> None:
        if self.call is None or self.decision is None:
            self.notify("Nothing to save yet: type a command first.", severity="warning")
            return
        call, expect = self.call, verdict_word(self.decision)
        if self.decision.verdict is Verdict.FLAG:
            expect = "flag"
        self.app.push_screen(SaveTestScreen(call, expect))

