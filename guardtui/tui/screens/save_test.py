"""Save the playground's case as a test in a plugin file: pick the file and the verdict to expect."""
from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Select, Static
from textual.widgets.option_list import Option

from ...core.model import ToolCall
from .. import plugin_files
from ..present import short_path

EXPECTATIONS = ("allow", "ask", "deny")


class SaveTestScreen(ModalScreen[Path | None]):
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, call: ToolCall, expect: str) -> None:
        super().__init__()
        self.call = call
        self.expect = expect if expect in EXPECTATIONS else "ask"
        self.files: list[Path] = []

    def compose(self) -> ComposeResult:
        app = self.app
        self.files = plugin_files.writable_files(app.locations, app.cwd)  # type: ignore[attr-defined]
        home = app.display_home  # type: ignore[attr-defined]
        options = [Option(Content.assemble((p.name, "bold"), "  ", (short_path(str(p.parent), home), "$text-muted")),
                          id=str(i)) for i, p in enumerate(self.files)]
        new_file = plugin_files.playground_file(app.locations)  # type: ignore[attr-defined]
        if new_file not in self.files:
            options.append(Option(Content.assemble(("new: ", "$text-muted"), (new_file.name, "bold"), "  ",
                                                   (short_path(str(new_file.parent), home), "$text-muted")), id="new"))
        with Vertical(id="save-test-dialog", classes="dialog"):
            yield Static(Content.assemble(("Save as a test", "bold")), classes="dialog-title")
            yield Static(self.call.summary(200), classes="dialog-call")
            yield Select([(f"expect {e}", e) for e in EXPECTATIONS], value=self.expect, allow_blank=False,
                         id="save-test-expect")
            yield OptionList(*options, id="save-test-files")
            yield Static(Content.assemble(("enter", "bold"), (" save to the file  ", "$text-muted"),
                                          ("esc", "bold"), (" cancel", "$text-muted")), classes="dialog-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#save-test-files")
    async def _chosen(self, event: OptionList.OptionSelected) -> None:
        app = self.app
        if event.option.id == "new":
            path = plugin_files.playground_file(app.locations)  # type: ignore[attr-defined]
        else:
            path = self.files[int(event.option.id or 0)]
        expect = str(self.query_one("#save-test-expect", Select).value)
        try:
            plugin_files.save_test(path, self.call, expect, app.locations, app.cwd)  # type: ignore[attr-defined]
        except (plugin_files.PluginEditError, OSError) as exc:
            self.notify(str(exc), title="Test not saved", severity="error", timeout=8)
            return
        loaded = await app.reload_plugins([str(path)])  # type: ignore[attr-defined]
        plugin = plugin_files.plugin_for_file(path, loaded.plugins if loaded else ())
        results = plugin_files.run_tests(plugin) if plugin is not None else []
        failed = [r for r in results if not r.passed]
        if failed:
            self.notify(f"Test added to {path.name}, but {len(failed)} of {len(results)} fail: "
                        f"{failed[0].explain()}", title="Saved", severity="warning", timeout=10)
        else:
            self.notify(f"Test added to {path.name} (expect {expect}); {len(results)} test(s) pass.",
                        title="Saved")
        self.dismiss(path)
