"""guardtui test [PATH…]: run plugins' own `tests:` against the full engine; print a pass/fail table.

Without a path: every plugin in force for the project. Exit status 0 when every test
passes and every file loads, 1 otherwise.
"""
from __future__ import annotations

import os
import sys
from typing import IO

from ..core.config import Locations
from ..core.plugins import Plugin, load_plugin_paths, load_plugin_set
from ..core.plugins.selftest import SelfTestResult, run_plugin_tests


def run(args, _command: str) -> int:
    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    locations = Locations.from_env()
    loaded = load_plugin_paths(args.paths, locations, cwd) if args.paths else load_plugin_set(locations, cwd)
    out = sys.stdout
    results: list[SelfTestResult] = []
    notes: list[str] = []
    for plugin in loaded.plugins:
        if plugin.broken:
            continue  # reported with the load errors below
        outcomes = run_plugin_tests(plugin)
        results += outcomes
        notes += _notes(plugin, outcomes)
    print_table(results, out)
    for note in notes:
        out.write(f"note: {note}\n")
    for error in loaded.errors:
        out.write(f"error: {error}\n")
    failed = sum(not r.passed for r in results)
    out.write(f"{len(results) - failed} passed, {failed} failed, {len(loaded.errors)} load error(s)\n")
    return 1 if failed or loaded.errors else 0


def _notes(plugin: Plugin, outcomes: list[SelfTestResult]) -> list[str]:
    notes = [f"{plugin.id}: {note}" for note in (*plugin.notes, plugin.ignored_note) if note]
    if not outcomes:
        notes.append(f"{plugin.id} has no tests")
    elif not any(r.decision.rule == plugin.rule_id or r.flagged for r in outcomes):
        notes.append(f"{plugin.id}: none of its tests is decided by the plugin itself (they test the built-in rules)")
    return notes


def print_table(results: list[SelfTestResult], out: IO[str]) -> None:
    if not results:
        return
    rows = [(r.plugin.id, str(r.test.index + 1), r.test.describe(), r.test.expect.value, r.got.value,
             r.decision.rule + (" +flag" if r.flagged else ""), "pass" if r.passed else "FAIL") for r in results]
    header = ("PLUGIN", "#", "CALL", "EXPECT", "GOT", "DECIDED BY", "RESULT")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        out.write("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n")
    for r in results:
        if not r.passed:
            out.write(f"FAIL {r.plugin.id} test {r.test.index + 1} ({r.plugin.file}:{r.test.line}): "
                      f"{r.test.describe()}: {r.explain()}\n")
