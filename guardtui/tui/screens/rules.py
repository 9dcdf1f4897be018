"""Rules: every plugin in force (file, level, id, trusted), load errors with file:line, the
last reload; run a plugin's tests (t), trust a project file (T), edit it (e), reload (r); the
built-in knowledge of MCP servers (b), as `guardtui rules --builtin` lists it."""
from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from .. import plugin_files
from ..present import fmt_clock, project_path, short_path
from ..render import fill_table
from ..widgets.nav_bar import NavBar
from ..widgets.test_results import TestResults
from .keys import MOVE_KEYS, SharedKeys


class RulesScreen(SharedKeys, Screen[None]):
    AUTO_FOCUS = "#rules-table"
    BINDINGS = [
        Binding("t", "run_tests", "Run tests"),
        Binding("T", "trust", "Trust file", key_display="T"),
        Binding("e", "edit", "Edit"),
        Binding("r", "reload", "Reload"),
        Binding("b", "builtin", "Built-in MCP knowledge", show=False),
        *MOVE_KEYS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.plugin_set: Any = None
        self.plugins: list[Any] = []

    def compose(self) -> ComposeResult:
        yield NavBar("rules")
        yield Static(id="rules-status")
        yield DataTable(id="rules-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="rules-detail"):
            yield Static(id="rules-errors")
            yield Static(id="rules-plugin")
            yield TestResults(id="rules-tests")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#rules-detail").border_title = "Plugin"
        self.app.plugins_signal.subscribe(self, lambda _none: self.load())  # type: ignore[attr-defined]
        self.load()

    def load(self) -> None:
        app = self.app
        self.plugin_set = plugin_files.load(app.locations, app.cwd,  # type: ignore[attr-defined]
                                            plugin_files.in_force(app.engine))  # type: ignore[attr-defined]
        table = self.query_one(DataTable)
        row = table.cursor_row
        self.plugins = list(self.plugin_set.plugins)
        home = app.display_home  # type: ignore[attr-defined]
        rows = []
        for number, plugin in enumerate(self.plugins, 1):
            trusted = Content.styled("yes", "$text-success") if plugin.trusted else \
                Content.styled("no (tightens only)", "$text-warning")
            ident = Content.styled(plugin.id + " (broken)", "bold $text-error") if plugin.broken else \
                Content(plugin.id)
            rows.append(([str(number), plugin.level, ident, project_path(plugin.file, app.cwd, home),
                          str(len(plugin.patterns)), str(len(plugin.tests)), trusted], f"{plugin.file}#{plugin.id}"))
        fill_table(table, ["#", "level", "id", "file", "patterns", "tests", "trusted"], rows)
        if self.plugins:
            table.move_cursor(row=min(row, len(self.plugins) - 1))
        self._status()
        self._errors()
        self._show(self.current())

    def _status(self) -> None:
        loaded = self.plugin_set
        errors = len(loaded.errors)
        last = self.app.last_reload or loaded.loaded_at  # type: ignore[attr-defined]
        self.query_one("#rules-status", Static).update(Content.assemble(
            (f"{len(loaded.plugins)} plugin(s) in force", "bold"), ("  ·  ", "$text-muted"),
            (f"{errors} load error(s)", "bold $text-error" if errors else "$text-muted"), ("  ·  ", "$text-muted"),
            (f"last reload {fmt_clock(last)}", "$text-muted")))

    def _errors(self) -> None:
        box = self.query_one("#rules-errors", Static)
        errors = list(self.plugin_set.errors)
        box.display = bool(errors)
        if errors:
            home = self.app.display_home  # type: ignore[attr-defined]
            lines = [Content.styled("Load errors:", "bold $text-error")]
            broken = {p.file for p in self.plugin_set.plugins if p.broken}
            for error in errors:
                where = short_path(str(error.file), home) + (f":{error.line}" if error.line else "")
                fate = " — it never loaded: every call asks until it is fixed" if str(error.file) in broken else \
                    " — its last good version stays in force"
                lines.append(Content.assemble(("  " + where, "bold"), (": " + error.message, ""),
                                              (fate, "$text-muted")))
            box.update(Content("\n").join(lines))

    def current(self) -> Any:
        table = self.query_one(DataTable)
        if not self.plugins or table.cursor_row is None:
            return None
        return self.plugins[min(table.cursor_row, len(self.plugins) - 1)]

    @on(DataTable.RowHighlighted, "#rules-table")
    def _highlighted(self) -> None:
        self.query_one("#rules-detail").border_title = "Plugin"
        self._show(self.current())

    def _show(self, plugin: Any) -> None:
        box = self.query_one("#rules-plugin", Static)
        self.query_one(TestResults).show(None)
        if plugin is None:
            box.update(Content.styled("No plugins in force. Write one in the editor (4), or copy one of the "
                                      "shipped examples into your guards directory.", "$text-muted"))
            return
        lines = [Content.assemble((plugin.id, "bold $text-accent"), ("  " + plugin.level, "$text-muted"),
                                  ("  " + (", ".join(plugin.tools) or "every tool"), "$text-muted"))]
        if plugin.description:
            lines.append(Content(plugin.description))
        if plugin.broken:
            lines.append(Content.styled(f"BROKEN (every call asks): {plugin.broken}", "bold $text-error"))
        for pattern in plugin.declared:
            ignored = pattern in plugin.ignored
            lines.append(Content.assemble(("  • ", "$text-muted"), (pattern.describe(), "strike" if ignored else ""),
                                          (f"  {pattern.reason}", "$text-muted"),
                                          ("  (ignored until trusted)" if ignored else "", "$text-warning")))
        for note in [*plugin.notes, plugin.ignored_note]:
            if note:
                lines.append(Content.styled(f"note: {note}", "$text-warning"))
        if plugin.error:
            lines.append(Content.styled(f"last load error (this is the last good version): {plugin.error}",
                                        "$text-error"))
        lines.append(Content.assemble(("t", "bold"), (" run its tests  ", "$text-muted"), ("T", "bold"),
                                      (" trust the file  ", "$text-muted"), ("e", "bold"), (" edit", "$text-muted")))
        box.update(Content("\n").join(lines))

    # -- actions ---------------------------------------------------------------------
    def action_run_tests(self) -> None:
        plugin = self.current()
        if plugin is None:
            return
        if not plugin.tests:
            self.notify(f"{plugin.id} has no tests. Add some under `tests:` (or from the playground).",
                        severity="warning")
            return
        self.query_one(TestResults).running(plugin.id)
        self.run_plugin_tests(plugin)

    @work(group="plugin-tests", exclusive=True, thread=True)
    def run_plugin_tests(self, plugin: Any) -> None:
        results = plugin_files.run_tests(plugin)
        self.app.call_from_thread(self.query_one(TestResults).show, results, plugin.id)

    async def action_trust(self) -> None:
        plugin = self.current()
        if plugin is None:
            return
        app = self.app
        try:
            message = plugin_files.trust(plugin.file, app.locations, app.cwd)  # type: ignore[attr-defined]
        except Exception as exc:
            self.notify(str(exc), title="Not trusted", severity="error", timeout=8)
            return
        await app.reload_plugins([plugin.file])  # type: ignore[attr-defined]
        self.notify(message, title="Trust")

    def action_edit(self) -> None:
        plugin = self.current()
        if plugin is not None:
            self.app.edit_file(plugin.file)  # type: ignore[attr-defined]

    def action_builtin(self) -> None:
        from ...core.mcp.catalog import FALLBACK, describe_catalog, mcp_catalog

        self.query_one("#rules-detail").border_title = "Built-in: MCP servers guardtui knows"
        self.query_one(TestResults).show(None)
        lines = []
        for server in describe_catalog(mcp_catalog()):
            where = "remote" if server["remote"] else "on this machine"
            lines.append(Content.assemble((server["title"], "bold $text-accent"), (f"  {where}  ", "$text-muted"),
                                          (", ".join(server["aliases"]), "$text-muted")))
            lines.extend(Content.assemble(("  • ", "$text-muted"), (tool, "")) for tool in server["tools"])
        lines.append(Content.styled(FALLBACK, "$text-muted"))
        self.query_one("#rules-plugin", Static).update(Content("\n").join(lines))

    async def action_reload(self) -> None:
        await self.app.reload_plugins()  # type: ignore[attr-defined]
        self.load()
