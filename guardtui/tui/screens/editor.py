"""Editor: a plugin file in a TextArea with YAML highlighting. ctrl+s saves, validates,
reloads the plugins and runs the file's tests, and shows what happened."""
from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from .. import plugin_files
from ..present import short_path
from ..widgets.nav_bar import NavBar
from ..widgets.test_results import TestResults
from .keys import LEAVE_FIELD, MOVE_KEYS, SharedKeys

TEMPLATE = """\
# A guardtui plugin: patterns decide (the first that matches), tests prove it.
id: my-guard
tool: Bash
description: Our own CLI changes the production catalogue
patterns:
  - match: '^\\s*shopctl\\s+(reindex|migrate|purge)\\b'
    verdict: ask
    reason: shopctl changes the production catalogue
    blast_radius: high
tests:
  - {command: "shopctl reindex --all", expect: ask}
  - {command: "echo shopctl reindex", expect: allow}
"""


class EditorScreen(SharedKeys, Screen[None]):
    AUTO_FOCUS = "#editor-files"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save + test", priority=True),
        Binding("ctrl+n", "new_file", "New plugin", priority=True),
        LEAVE_FIELD,
        *MOVE_KEYS,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.path: Path | None = None
        self.saved_text = ""
        self.files: list[Path] = []
        self._discard_armed: str | None = None

    def compose(self) -> ComposeResult:
        yield NavBar("editor")
        with Horizontal(id="editor-main"):
            yield OptionList(id="editor-files")
            with Vertical(id="editor-pane"):
                yield TextArea("", language="yaml", id="editor-text", tab_behavior="indent",
                               show_line_numbers=True, soft_wrap=False)
                yield Static(id="editor-status")
                yield TestResults(id="editor-tests")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#editor-files").border_title = "Plugin files"
        self.query_one(TestResults).show(None)
        self.list_files()
        self.app.plugins_signal.subscribe(self, lambda _none: self.list_files())  # type: ignore[attr-defined]
        self.open_requested()
        if self.path is None and self.files:
            self.open(self.files[0])
        elif self.path is None:
            self._status(Content.styled("No plugin files yet: ctrl+n starts one in your guards directory.",
                                        "$text-muted"))

    def on_screen_resume(self) -> None:
        self.open_requested()

    def open_requested(self) -> None:
        wanted = self.app.take_edit_request()  # type: ignore[attr-defined]
        if wanted is not None:
            self.open(Path(wanted), force=False)

    def list_files(self) -> None:
        app = self.app
        self.files = plugin_files.writable_files(app.locations, app.cwd)  # type: ignore[attr-defined]
        if self.path is not None and self.path not in self.files and self.path.exists():
            self.files.append(self.path)
        user_dirs = plugin_files.user_dirs(app.locations, app.cwd)  # type: ignore[attr-defined]
        options = self.query_one("#editor-files", OptionList)
        options.clear_options()
        for index, path in enumerate(self.files):
            marker = ("● ", "$guard") if path == self.path else ("  ", "")
            style = "bold" if path == self.path else ("" if path.parent in user_dirs else "$text-accent")
            options.add_option(Option(Content.assemble(marker, (path.name, style)), id=str(index)))

    @property
    def dirty(self) -> bool:
        return self.path is not None and self.query_one("#editor-text", TextArea).text != self.saved_text

    def open(self, path: Path, force: bool = False) -> None:
        if path == self.path:
            return
        if self.dirty and not force and self._discard_armed != str(path):
            self._discard_armed = str(path)
            self.notify("Unsaved changes: ctrl+s saves them; choose the file again to discard them.",
                        severity="warning")
            return
        self._discard_armed = None
        try:
            text = path.read_text(encoding="utf-8") if path.exists() else TEMPLATE
        except OSError as exc:
            self.notify(f"{path.name}: {exc.strerror}", severity="error")
            return
        self.path = path
        self.saved_text = text if path.exists() else ""
        area = self.query_one("#editor-text", TextArea)
        area.language = "markdown" if path.suffix.lower() == ".md" else "yaml"
        area.load_text(text)
        area.border_title = short_path(str(path), self.app.display_home)  # type: ignore[attr-defined]
        self.query_one(TestResults).show(None)
        self._status(Content.assemble(("ctrl+s", "bold"), (" saves, validates, reloads and runs the tests",
                                                           "$text-muted")))
        self.list_files()

    @on(OptionList.OptionSelected, "#editor-files")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.open(self.files[int(event.option.id or 0)])
        if self.path is not None:
            self.query_one("#editor-text", TextArea).focus()

    @on(TextArea.Changed, "#editor-text")
    def _edited(self) -> None:
        area = self.query_one("#editor-text", TextArea)
        if self.path is not None:
            name = short_path(str(self.path), self.app.display_home)  # type: ignore[attr-defined]
            area.border_title = name + (" ●" if self.dirty else "")

    def _status(self, content: Content) -> None:
        self.query_one("#editor-status", Static).update(content)

    # -- actions ---------------------------------------------------------------------
    def action_leave_field(self) -> None:
        self.query_one("#editor-files", OptionList).focus()

    def action_new_file(self) -> None:
        folder = self.app.locations.user_plugins_dir  # type: ignore[attr-defined]
        number = 1
        while (folder / f"my-guard-{number}.yaml").exists():
            number += 1
        path = folder / f"my-guard-{number}.yaml"
        self.open(path, force=True)
        self.query_one("#editor-text", TextArea).load_text(TEMPLATE.replace("my-guard", f"my-guard-{number}"))
        self.saved_text = ""
        self._edited()
        self.query_one("#editor-text", TextArea).focus()

    async def action_save(self) -> None:
        if self.path is None:
            self.notify("Open a plugin file first (or ctrl+n for a new one).", severity="warning")
            return
        app = self.app
        text = self.query_one("#editor-text", TextArea).text
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            plugin_files.atomic_write(self.path, text)
        except OSError as exc:
            self._status(Content.styled(f"Not saved: {exc.strerror or exc}", "bold $text-error"))
            return
        self.saved_text = text
        self._edited()
        errors = plugin_files.file_errors(self.path, app.locations, app.cwd)  # type: ignore[attr-defined]
        loaded = await app.reload_plugins([str(self.path)])  # type: ignore[attr-defined]
        tests = self.query_one(TestResults)
        if errors:
            tests.show(None)
            in_force = plugin_files.plugin_for_file(self.path, loaded.plugins if loaded else ())
            never_loaded = in_force is None or bool(in_force.broken)
            lines = [Content.styled("Saved, but it does not load, and it never loaded: there is no good version "
                                    "to keep, so every call asks until it is fixed:" if never_loaded else
                                    "Saved, but it does not load — its last good version stays in force:",
                                    "bold $text-error")]
            lines += [Content.styled("  " + e, "$text-error") for e in errors]
            self._status(Content("\n").join(lines))
            return
        plugin = plugin_files.plugin_for_file(self.path, loaded.plugins if loaded else ())
        if plugin is None:
            self._status(Content.styled("Saved. It is not in force here (is it in a guards directory?).",
                                        "$text-warning"))
            return
        results = plugin_files.run_tests(plugin)
        passed = sum(1 for r in results if r.passed)
        style = "bold $text-success" if passed == len(results) else "bold $text-error"
        self._status(Content.assemble(("Saved and reloaded", "bold $text-success"), (" · ", "$text-muted"),
                                      (f"{passed}/{len(results)} tests pass", style if results else "$text-muted")))
        tests.show(results, plugin.id)
