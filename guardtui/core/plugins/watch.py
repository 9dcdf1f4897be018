"""Hot reload: watch every plugin directory and swap the engine's plugin rule on a change.

    await watch_plugins(engine, locations, cwd, on_event, stop)

Runs in an asyncio loop (the console's Textual worker, `guardtui serve`). The directories
are watched with watchfiles, not recursively (plugins sit at the top of a guard dir); the
config dir is watched too, for the trust store. A directory created later is noticed on the
watcher's periodic wake-up, and then watched. Every reload loads all files (cheap, and never
half a set), keeps the last good version of a broken file, and swaps the rule in one
assignment: an evaluation sees the old set or the new. A change is reported as a GuardEvent
("reload"), a file that does not load as "reload-error".
"""
from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Iterable

from ..config import Locations
from ..engine import Engine, EventSink, GuardEvent
from .loader import PluginSet, files_signature, load_plugin_set, plugin_dirs, project_root
from .model import Plugin
from .parse import is_plugin_name
from .projects import ProjectPlugins
from .rule import PluginRule

WAKE_MS = 250  # how often the watcher wakes to look for guard directories created later
DEBOUNCE_MS = 400  # longest a burst of changes is grouped into one reload
STEP_MS = 50  # a burst ends after this long without a change (editors write in several steps)


async def watch_plugins(engine: Engine, locations: Locations, cwd: str, on_event: EventSink,
                        stop: asyncio.Event | None = None, *, ready: asyncio.Event | None = None) -> None:
    """Reload the engine's plugins on every change until `stop` is set (or the task is cancelled).

    `ready` is set once changes are being watched (after the first reload)."""
    from watchfiles import awatch  # imported here: only the long-running processes need it

    reloader = Reloader(engine, locations, cwd, on_event)
    stop = stop if stop is not None else asyncio.Event()
    last_failure = ""
    while not stop.is_set():
        roots = reloader.roots()
        if not roots:  # nothing exists to watch yet
            if reloader.stale():
                await reloader.reload(set())
            _set(ready)
            await _sleep_unless(stop, WAKE_MS / 1000)
            continue
        try:
            first = True
            async for changes in awatch(*roots, watch_filter=reloader.relevant, stop_event=stop,
                                        rust_timeout=WAKE_MS, yield_on_timeout=True, debounce=DEBOUNCE_MS,
                                        step=STEP_MS):
                # first: catches what changed before the watch began; stale: what the watcher
                # missed (polling sees mtimes in whole seconds, an event queue can overflow)
                if changes or first or reloader.stale():
                    await reloader.reload({path for _, path in changes})
                    first = False
                    _set(ready)
                if reloader.roots() != roots:
                    break  # a guard directory appeared or went away: watch the new set
        except FileNotFoundError:  # a directory went away while the watch started: look again
            await _sleep_unless(stop, WAKE_MS / 1000)
        except Exception as exc:  # keep the last rules and keep trying (said once, not every second)
            failure = f"the plugin watcher failed ({type(exc).__name__}: {exc}); the plugins in force stay, retrying"
            if failure != last_failure:
                reloader.emit("reload-error", failure)
            last_failure = failure
            await _sleep_unless(stop, 1.0)


class Reloader:
    """Holds the plugins in force and swaps them into the engine when they change."""

    def __init__(self, engine: Engine, locations: Locations, cwd: str, on_event: EventSink):
        rule = next((r for r in engine.rules if r.id == PluginRule.id), None)
        if rule is None:
            raise ValueError("the engine has no 'plugins' rule to reload (build it with build_engine)")
        self.engine, self.locations, self.on_event = engine, locations, on_event
        self.cwd = project_root(cwd, locations.home) or cwd  # started in src/: the project's guards
        self.current: tuple[Plugin, ...] = tuple(getattr(rule, "plugins", ()))
        self.dirs = [d.path for d in plugin_dirs(locations, self.cwd)]
        self.reported: set[str] = set()
        self.seen: tuple | None = None  # the files' stat signature at the last reload
        # calls from other projects: their own plugins (kept across reloads, reported like ours)
        self.projects: ProjectPlugins = getattr(rule, "projects", None) or ProjectPlugins(locations, self.cwd)
        if getattr(rule, "projects", None) is None:
            engine.replace_rule(PluginRule.id, PluginRule(self.current, projects=self.projects))
        if self.projects.report is None:
            self.projects.report = self.emit

    def signature(self) -> tuple:
        """(path, mtime_ns, size, inode) of every plugin file and the trust store: cheap to take."""
        return files_signature(self.dirs, self.locations.trust_file)

    def stale(self) -> bool:
        return self.seen != self.signature()

    def roots(self) -> list[str]:
        candidates = [*self.dirs, Path(self.locations.config_dir)]
        return sorted({str(p) for p in candidates if p.is_dir()})

    def relevant(self, _change: object, path: str) -> bool:
        target = Path(path)
        if target == Path(self.locations.trust_file) or target in self.dirs:
            return True
        return target.parent in self.dirs and is_plugin_name(target.name)

    async def reload(self, changed: set[str]) -> PluginSet | None:
        self.seen = self.signature()  # taken first: a write during the load makes the next look stale
        try:
            loaded = await asyncio.to_thread(load_plugin_set, self.locations, self.cwd, self.current)
        except Exception as exc:  # never leave the engine without rules: keep what is in force
            self.emit("reload-error", f"reloading plugins failed ({type(exc).__name__}: {exc}); "
                                      f"the plugins in force stay")
            return None
        if loaded.plugins != self.current:
            summary = describe_changes(self.current, loaded.plugins)
            self.engine.replace_rule(PluginRule.id, PluginRule(loaded.plugins, projects=self.projects))
            self.current = loaded.plugins
            if summary:
                self.emit("reload", f"plugins reloaded: {summary}; {len(loaded.plugins)} in force")
        changed_real = {os.path.realpath(p) for p in changed}
        by_file = {p.file: p for p in loaded.plugins}
        for error in loaded.errors:
            text = str(error)
            if text not in self.reported or os.path.realpath(error.file) in changed_real:
                self.emit("reload-error", text + _consequence(by_file.get(error.file)))
        self.reported = {str(e) for e in loaded.errors}
        return loaded

    def emit(self, kind: str, message: str) -> None:
        try:
            self.on_event(GuardEvent(time.time(), kind, message, rule=PluginRule.id))
        except Exception:  # a broken listener must not stop the watcher
            pass


def describe_changes(old: Iterable[Plugin], new: Iterable[Plugin]) -> str:
    """`added a (project), changed b, removed c` — what a person needs to know about a reload."""
    before = {p.file: p for p in old}
    after = {p.file: p for p in new}
    parts = [f"added {p.id} ({p.level}{', broken' if p.broken else ''})" for f, p in after.items() if f not in before]
    for file, plugin in after.items():
        was = before.get(file)
        if was is None:
            continue
        if (was.sha256, was.broken) != (plugin.sha256, plugin.broken):
            parts.append(f"changed {plugin.id}" + (" (no longer trusted: its allow patterns are ignored)"
                                                   if was.trusted and not plugin.trusted else ""))
        elif was.trusted != plugin.trusted:
            parts.append(f"{'trusted' if plugin.trusted else 'no longer trusted'} {plugin.id}")
    parts += [f"removed {p.id}" for f, p in before.items() if f not in after]
    if not parts and [p.file for p in old] != [p.file for p in new]:
        parts.append("order changed")
    return ", ".join(parts)


def _consequence(plugin: Plugin | None) -> str:
    if plugin is None:
        return ""
    if plugin.broken:
        return " — no good version to keep: every call asks until it is fixed"
    return " — its last good version stays in force"


def _set(event: asyncio.Event | None) -> None:
    if event is not None:
        event.set()


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except asyncio.TimeoutError:
        pass
