"""Each call judged with its own project's plugins.

One console (or `guardtui serve`) guards agents working in many projects. The plugins the
watcher keeps are those of the project the console was started in; a call from another
project (its `cwd`, up to the nearest directory with a guard directory: `project_root`) is
judged with the user's plugins and that project's, loaded on its first call and re-read when
a file changed. The look at the files is taken at most every RECHECK_S per project, so a save
is in force within the same half second as in the watched project, and a call costs a dict
lookup. Loading errors and changes of a project's own files are reported as guard events,
as the watcher reports its own; a broken file keeps its last good version.

A project's files are the agent's to write, so they may be built to hold up whoever reads
them (a slow or hung file system, a file that takes long to read). Looking at them and
loading them happens in a loader thread, never in the engine's: a call waits at most
LOAD_WAIT_S for its project's plugins, and when they are not there by then (or cannot be
loaded at all) the call is judged with the user's plugins and a stand-in that makes it ask,
never with no plugins. The load goes on and the next call uses it.

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
from .model import PROJECT, USER, Plugin

RECHECK_S = 0.25  # how stale a project's plugins (or a directory's project) may be
MAX_PROJECTS = 64  # projects kept loaded; the least recently used goes first
LOAD_WAIT_S = 1.0  # how long a call waits for its project's plugins before it asks
MAX_LOADERS = 8  # loader threads at once (a hung one stays hung; past this, calls ask at once)

Report = Callable[[str, str], None]  # (kind: "reload" | "reload-error", message)


@dataclass
class _Loaded:
    plugins: tuple[Plugin, ...]
    signature: tuple
    checked: float
    errors: frozenset[str]


class _Job:
    """One look at a working directory's project, in a loader thread."""

    def __init__(self, deadline: float):
        self.deadline = deadline  # monotonic: callers wait for it until then, not after
        self.done = threading.Event()
        self.begun = False  # its loader thread runs (one that never did is replaced: _job)
        self.plugins: tuple[Plugin, ...] | None = None
        self.error = ""


class ProjectPlugins:
    def __init__(self, locations: Locations, watched_root: str, report: Report | None = None,
                 clock: Callable[[], float] = time.monotonic, load_wait_s: float = LOAD_WAIT_S):
        self.locations = locations
        self.watched_root = os.path.abspath(watched_root)
        self.report = report
        self.clock = clock
        self.load_wait_s = load_wait_s
        self._roots: dict[str, tuple[float, str | None]] = {}  # cwd -> (checked, its project root)
        self._sets: OrderedDict[str | None, _Loaded] = OrderedDict()  # root (None: no project) -> plugins
        self._lock = threading.Lock()  # the caches; never held while files are read
        self._root_locks: dict[str | None, threading.Lock] = {}  # one load of a project at a time
        self._jobs: dict[str, _Job] = {}  # cwd -> its look in progress
        self._failed: dict[str, str] = {}  # cwd -> the load error last said

    def plugins_for(self, cwd: str, watched: tuple[Plugin, ...]) -> tuple[Plugin, ...]:
        """The plugins in force for a call made in `cwd`; `watched` are the watched project's."""
        if not cwd or not os.path.isabs(cwd):
            return watched  # no place to find another project by: the console's own
        with self._lock:
            known = self._known(cwd, watched)
        if known is not None:
            return known
        job = self._job(cwd, watched)
        if job is None:
            return self._standin(watched, cwd, f"{MAX_LOADERS} projects' plugins are still loading")
        if not job.done.wait(max(0.0, job.deadline - time.monotonic())):
            return self._standin(watched, cwd, f"its plugins are still loading after {self.load_wait_s:g} s "
                                               f"(a file there is slow to read)")
        if job.plugins is None:
            return self._standin(watched, cwd, job.error)
        return job.plugins

    def root_of(self, cwd: str) -> str | None:
        now = self.clock()
        with self._lock:
            known = self._roots.get(cwd)
        if known is not None and now - known[0] < RECHECK_S:
            return known[1]
        root = project_root(cwd, self.locations.home)
        with self._lock:
            if len(self._roots) > 16 * MAX_PROJECTS:
                self._roots.clear()
            self._roots[cwd] = (now, root)
        return root

    # -- without touching a file (the engine's thread) ---------------------------------
    def _known(self, cwd: str, watched: tuple[Plugin, ...]) -> tuple[Plugin, ...] | None:
        """The answer from what was looked at less than RECHECK_S ago, or None."""
        now = self.clock()
        known = self._roots.get(cwd)
        if known is None or now - known[0] >= RECHECK_S:
            return None
        root = known[1]
        if (root or os.path.abspath(cwd)) == self.watched_root:
            return watched
        loaded = self._sets.get(root)
        if loaded is None or now - loaded.checked >= RECHECK_S:
            return None
        self._sets.move_to_end(root)
        return loaded.plugins

    def _job(self, cwd: str, watched: tuple[Plugin, ...]) -> _Job | None:
        """The look at `cwd`'s project in progress, or a new one (None: too many are running)."""
        now = time.monotonic()
        with self._lock:
            job = self._jobs.get(cwd)
            if job is not None and (job.begun or now < job.deadline):
                return job
            # (a job whose thread never ran by its deadline was never started: the judging thread ran out
            # of time before it could start it. A new one takes its place.)
            if job is None and len(self._jobs) >= MAX_LOADERS:
                return None
            job = self._jobs[cwd] = _Job(now + self.load_wait_s)
        threading.Thread(target=self._look, args=(cwd, watched, job), name="guardtui-project-plugins",
                         daemon=True).start()
        return job

    def _look(self, cwd: str, watched: tuple[Plugin, ...], job: _Job) -> None:
        job.begun = True
        try:
            root = self.root_of(cwd)
            job.plugins = watched if (root or os.path.abspath(cwd)) == self.watched_root else self._plugins(root)
        except BaseException as exc:  # MemoryError, a file system gone: the call asks, saying why
            job.error = f"its plugins could not be loaded ({type(exc).__name__}: {exc})"
            with self._lock:
                said, self._failed[cwd] = self._failed.get(cwd), job.error
            if said != job.error:  # once, not for every call that tries again
                self._say("reload-error", f"{_where(cwd)}: {job.error}; its calls ask (the user's plugins apply)")
        else:
            with self._lock:
                self._failed.pop(cwd, None)
        finally:
            with self._lock:
                if self._jobs.get(cwd) is job:
                    del self._jobs[cwd]
            job.done.set()

    def _standin(self, watched: tuple[Plugin, ...], cwd: str, why: str) -> tuple[Plugin, ...]:
        """The user's plugins (their denies hold everywhere) and a stand-in that makes the call ask."""
        user = tuple(p for p in watched if p.level == USER)
        return user + (Plugin(id="project-plugins", file=cwd, level=PROJECT, standin=True,
                              broken=f"the plugins of the project at {cwd} are not in force: {why}"),)

    # -- in a loader thread --------------------------------------------------------------
    def _plugins(self, root: str | None) -> tuple[Plugin, ...]:
        with self._lock:
            lock = self._root_locks.setdefault(root, threading.Lock())
        with lock:
            now = self.clock()
            with self._lock:
                loaded = self._sets.get(root)
            if loaded is not None and now - loaded.checked < RECHECK_S:
                return loaded.plugins  # another look finished it meanwhile
            dirs = [d.path for d in plugin_dirs(self.locations, root)]
            signature = files_signature(dirs, self.locations.trust_file)
            if loaded is not None and loaded.signature == signature:
                loaded.checked = now
                return loaded.plugins
            fresh = load_plugin_set(self.locations, root, loaded.plugins if loaded else ())
            errors = frozenset(str(e) for e in fresh.errors if _is_project_file(str(e.file), root))
            self._report_changes(root, loaded, fresh.plugins, errors)
            with self._lock:
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
