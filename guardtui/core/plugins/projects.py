"""Each call judged with its own project's plugins.

One console (or `guardtui serve`) guards agents working in many projects. The plugins the
watcher keeps are those of the project the console was started in; a call from another
project (its `cwd`, up to the nearest directory with a guard directory: `project_root`) is
judged with the user's plugins and that project's, loaded on its first call and re-read when
a file changed. The look at the files is taken at most every RECHECK_S per project, so a save
is in force within the same half second as in the watched project, and a call costs a dict
lookup. Loading errors and changes of a project's own files are reported as guard events,
as the watcher reports its own; a broken file keeps its last good version.

Thread-safe: evaluations run in the broker's executor threads.
"""
from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..config import Locations
from .loader import files_signature, load_plugin_set, plugin_dirs, project_root
from .model import PROJECT, Plugin

RECHECK_S = 0.25  # how stale a project's plugins (or a directory's project) may be
MAX_PROJECTS = 64  # projects kept loaded; the least recently used goes first

Report = Callable[[str, str], None]  # (kind: "reload" | "reload-error", message)


@dataclass
class _Loaded:
    plugins: tuple[Plugin, ...]
    signature: tuple
    checked: float
    errors: frozenset[str]


class ProjectPlugins:
    def __init__(self, locations: Locations, watched_root: str, report: Report | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.locations = locations
        self.watched_root = os.path.abspath(watched_root)
        self.report = report
        self.clock = clock
        self._roots: dict[str, tuple[float, str | None]] = {}  # cwd -> (checked, its project root)
        self._sets: OrderedDict[str | None, _Loaded] = OrderedDict()  # root (None: no project) -> plugins
        self._lock = threading.Lock()

    def plugins_for(self, cwd: str, watched: tuple[Plugin, ...]) -> tuple[Plugin, ...]:
        """The plugins in force for a call made in `cwd`; `watched` are the watched project's."""
        if not cwd or not os.path.isabs(cwd):
            return watched  # no place to find another project by: the console's own
        root = self.root_of(cwd)
        if (root or os.path.abspath(cwd)) == self.watched_root:
            return watched
        with self._lock:
            return self._plugins(root)

    def root_of(self, cwd: str) -> str | None:
        now = self.clock()
        known = self._roots.get(cwd)
        if known is not None and now - known[0] < RECHECK_S:
            return known[1]
        root = project_root(cwd, self.locations.home)
        if len(self._roots) > 16 * MAX_PROJECTS:
            self._roots.clear()
        self._roots[cwd] = (now, root)
        return root

    def _plugins(self, root: str | None) -> tuple[Plugin, ...]:
        now = self.clock()
        loaded = self._sets.get(root)
        if loaded is not None:
            self._sets.move_to_end(root)
            if now - loaded.checked < RECHECK_S:
                return loaded.plugins
        dirs = [d.path for d in plugin_dirs(self.locations, root)]
        signature = files_signature(dirs, self.locations.trust_file)
        if loaded is not None and loaded.signature == signature:
            loaded.checked = now
            return loaded.plugins
        try:
            fresh = load_plugin_set(self.locations, root, loaded.plugins if loaded else ())
        except Exception as exc:  # keep what is in force; with nothing, the user's own plugins stand
            self._say("reload-error", f"{_where(root)}: loading plugins failed ({type(exc).__name__}: {exc}); "
                                      f"the plugins in force stay")
            return loaded.plugins if loaded is not None else ()
        errors = frozenset(str(e) for e in fresh.errors if _is_project_file(str(e.file), root))
        self._report_changes(root, loaded, fresh.plugins, errors)
        self._sets[root] = _Loaded(fresh.plugins, signature, now, errors)
        self._sets.move_to_end(root)
        while len(self._sets) > MAX_PROJECTS:
            self._sets.popitem(last=False)
        return fresh.plugins

    def _report_changes(self, root: str | None, before: _Loaded | None, plugins: tuple[Plugin, ...],
                        errors: frozenset[str]) -> None:
        """Only the project's own files: the user's are the watcher's to report."""
        from .watch import describe_changes  # watch imports this module

        if root is None:
            return
        mine = tuple(p for p in plugins if p.level == PROJECT)
        if before is None:
            if mine:
                ids = ", ".join(f"{p.id}{' (broken)' if p.broken else ''}" for p in mine)
                self._say("reload", f"{_where(root)}: project plugins loaded for its calls: {ids}")
        else:
            summary = describe_changes(tuple(p for p in before.plugins if p.level == PROJECT), mine)
            if summary:
                self._say("reload", f"{_where(root)}: plugins reloaded: {summary}")
        for error in sorted(errors - (before.errors if before else frozenset())):
            self._say("reload-error", error)

    def _say(self, kind: str, message: str) -> None:
        if self.report is not None:
            try:
                self.report(kind, message)
            except Exception:  # a broken listener must not break judging
                pass


def _where(root: str | None) -> str:
    return f"project {root}" if root else "no project"


def _is_project_file(file: str, root: str | None) -> bool:
    return root is not None and Path(file).is_relative_to(root)
