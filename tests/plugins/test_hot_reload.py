"""Hot reload end to end: a real watchfiles watcher, real files written while it runs.

Every wait is on a condition or an event, with a generous limit; nothing asserts timing.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Callable

import pytest

from guardtui.core.engine import Engine, GuardEvent
from guardtui.core.model import Verdict
from guardtui.core.plugins import watch_plugins
from guardtui.core.plugins.parse import digest
from guardtui.core.plugins.trust import store_trust

from .helpers import bash, write

LIMIT_S = 15.0
DENY_DOCKER = "id: docker\npatterns: [{match: docker, verdict: deny, reason: no docker}]\n"
ASK_DOCKER = "id: docker\npatterns: [{match: docker, verdict: ask, reason: ask about docker}]\n"


def plugins_in_force_of(rules) -> tuple:
    return next(r for r in rules if r.id == "plugins").plugins


def plugins_in_force(engine: Engine) -> tuple:
    return plugins_in_force_of(engine.rules)


class Watcher:
    def __init__(self, engine: Engine, project: str):
        self.engine, self.project = engine, project
        self.events: list[GuardEvent] = []

    def verdict(self, command: str = "docker build .", cwd: str = "") -> Verdict:
        return self.engine.evaluate(bash(command, cwd or self.project), record=False).verdict

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        async def poll() -> None:
            while not condition():
                await asyncio.sleep(0.01)
        try:
            await asyncio.wait_for(poll(), LIMIT_S)
        except asyncio.TimeoutError:
            pytest.fail(f"gave up waiting for {what}; events: {[(e.kind, e.message) for e in self.events]}")

    async def until_event(self, kind: str, after: int, what: str = "") -> GuardEvent:
        await self.until(lambda: kind in self.kinds()[after:], what or f"a {kind} event")
        return next(e for e in self.events[after:] if e.kind == kind)


@contextlib.asynccontextmanager
async def watching(make_engine, locations, project):
    engine = make_engine(record=False)
    watcher = Watcher(engine, str(project))
    stop, ready = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(watch_plugins(engine, locations, str(project), watcher.events.append, stop,
                                             ready=ready))
    try:
        await asyncio.wait_for(ready.wait(), LIMIT_S)
        yield watcher
    finally:
        stop.set()
        await asyncio.wait_for(task, LIMIT_S)  # stopping ends the watcher (and re-raises what it raised)


async def test_a_saved_plugin_is_in_force_while_the_watcher_runs(make_engine, locations, project):
    locations.user_plugins_dir.mkdir(parents=True)
    async with watching(make_engine, locations, project) as w:
        assert w.verdict() is Verdict.ALLOW and w.events == []
        write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
        await w.until(lambda: w.verdict() is Verdict.DENY, "the new plugin to deny docker")
        event = await w.until_event("reload", 0)
        assert event.message == "plugins reloaded: added docker (user); 1 in force" and event.rule == "plugins"


async def test_an_edit_changes_the_verdict(make_engine, locations, project):
    path = write(project / ".guardtui/guards/docker.yaml", ASK_DOCKER)
    async with watching(make_engine, locations, project) as w:
        await w.until(lambda: w.verdict() is Verdict.ASK, "the plugin present at start")
        seen = len(w.events)
        write(path, DENY_DOCKER)
        await w.until(lambda: w.verdict() is Verdict.DENY, "the edit to take effect")
        assert (await w.until_event("reload", seen)).message.startswith("plugins reloaded: changed docker")


async def test_a_broken_save_keeps_the_old_rules_and_says_why(make_engine, locations, project):
    path = write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    async with watching(make_engine, locations, project) as w:
        await w.until(lambda: w.verdict() is Verdict.DENY, "the plugin present at start")
        seen = len(w.events)
        write(path, DENY_DOCKER.replace("verdict: deny", "verdict: block"))
        error = await w.until_event("reload-error", seen)
        assert error.message == (f"{path}:2: patterns[0].verdict: 'block' is not one of allow, deny, ask, flag"
                                 " — its last good version stays in force")
        assert w.verdict() is Verdict.DENY
        assert "reload" not in w.kinds()[seen:]

        seen = len(w.events)
        write(path, ASK_DOCKER)
        await w.until(lambda: w.verdict() is Verdict.ASK, "the fixed file to take effect")


async def test_a_half_written_file_never_leaves_the_engine_without_rules(make_engine, locations, project):
    path = write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    async with watching(make_engine, locations, project) as w:
        await w.until(lambda: w.verdict() is Verdict.DENY, "the plugin present at start")
        seen_verdicts: set[Verdict] = set()
        done = asyncio.Event()

        async def keep_judging() -> None:
            while not done.is_set():
                seen_verdicts.add(w.verdict())
                await asyncio.sleep(0)

        judging = asyncio.create_task(keep_judging())
        new = ASK_DOCKER.encode()
        with open(path, "wb") as out:  # an editor that truncates, then writes in two steps
            out.flush()
            os.fsync(out.fileno())
            seen = len(w.events)
            await w.until_event("reload-error", seen, "the empty file to be reported")
            out.write(new[: len(new) // 2])
            out.flush()
            os.fsync(out.fileno())
            seen = len(w.events)
            await w.until_event("reload-error", seen, "the half-written file to be reported")
            assert w.verdict() is Verdict.DENY
            out.write(new[len(new) // 2:])
        await w.until(lambda: w.verdict() is Verdict.ASK, "the finished file to take effect")
        done.set()
        await judging
        assert Verdict.DENY in seen_verdicts
        assert seen_verdicts <= {Verdict.DENY, Verdict.ASK}  # the old rules or the new, never none


async def test_a_save_by_rename_is_picked_up(make_engine, locations, project):
    path = write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    async with watching(make_engine, locations, project) as w:
        await w.until(lambda: w.verdict() is Verdict.DENY, "the plugin present at start")
        temp = write(locations.user_plugins_dir / "docker.yaml.tmp", ASK_DOCKER)
        os.replace(temp, path)
        await w.until(lambda: w.verdict() is Verdict.ASK, "the renamed file to take effect")


async def test_guard_directories_created_later_are_watched(make_engine, locations, project):
    async with watching(make_engine, locations, project) as w:  # no guard dir, no config dir yet
        write(project / ".guardtui/guards/docker.yaml", ASK_DOCKER)
        await w.until(lambda: w.verdict() is Verdict.ASK, "a plugin in a directory created after the start")
        write(locations.user_plugins_dir / "other.yaml", DENY_DOCKER.replace("docker", "podman"))
        await w.until(lambda: w.verdict("podman ps") is Verdict.DENY, "the user guards dir created later")
        write(project / ".guardtui/guards/docker.yaml", DENY_DOCKER)
        await w.until(lambda: w.verdict() is Verdict.DENY, "an edit in the directory now watched")


async def test_deleting_a_plugin_removes_it(make_engine, locations, project):
    path = write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    async with watching(make_engine, locations, project) as w:
        await w.until(lambda: w.verdict() is Verdict.DENY, "the plugin present at start")
        seen = len(w.events)
        path.unlink()
        await w.until(lambda: w.verdict() is Verdict.ALLOW, "the deleted plugin to go")
        assert (await w.until_event("reload", seen)).message == "plugins reloaded: removed docker; 0 in force"


async def test_trusting_a_project_plugin_takes_effect_and_an_edit_revokes_it(make_engine, locations, project):
    path = write(project / ".guardtui/guards/docker.yaml",
                 "id: docker\npatterns:\n  - {match: '^docker build', verdict: allow}\n  - {match: docker, verdict: ask}\n")
    async with watching(make_engine, locations, project) as w:
        await w.until(lambda: w.verdict() is Verdict.ASK, "the untrusted plugin (its allow ignored)")
        seen = len(w.events)
        store_trust(locations.trust_file, path, digest(path.read_bytes()))
        await w.until(lambda: w.verdict() is Verdict.ALLOW, "the trust to take effect")
        assert (await w.until_event("reload", seen)).message.startswith("plugins reloaded: trusted docker")
        seen = len(w.events)
        path.write_text(path.read_text() + "# edited\n")
        await w.until(lambda: w.verdict() is Verdict.ASK, "the edit to revoke the trust")
        assert "no longer trusted" in (await w.until_event("reload", seen)).message


async def test_a_new_broken_file_makes_calls_ask_until_fixed(make_engine, locations, project):
    locations.user_plugins_dir.mkdir(parents=True)
    async with watching(make_engine, locations, project) as w:
        path = write(locations.user_plugins_dir / "new.yaml", "patterns: [{match: ls, verdict: nope}]\n")
        error = await w.until_event("reload-error", 0)
        assert error.message.endswith("no good version to keep: every call asks until it is fixed")
        await w.until(lambda: w.verdict("ls") is Verdict.ASK, "the broken file to make calls ask")
        write(path, "patterns: [{match: ls, verdict: deny}]\n")
        await w.until(lambda: w.verdict("ls") is Verdict.DENY, "the fixed file")


async def test_the_watcher_needs_the_engines_plugins_slot(locations, project):
    engine = Engine([], home="/home/user")
    with pytest.raises(ValueError, match="no 'plugins' rule"):
        await watch_plugins(engine, locations, str(project), lambda event: None)


async def test_an_edit_the_os_watcher_misses_is_still_picked_up(make_engine, locations, project, monkeypatch):
    # the polling watcher (network and container file systems) sees modification times in
    # whole seconds, so a second save within the same second raises no event
    monkeypatch.setenv("WATCHFILES_FORCE_POLLING", "1")
    path = write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    async with watching(make_engine, locations, project) as w:
        for text, verdict in ((ASK_DOCKER, Verdict.ASK), (DENY_DOCKER, Verdict.DENY), (ASK_DOCKER, Verdict.ASK)):
            write(path, text)
            await w.until(lambda: w.verdict() is verdict, f"the save that makes docker {verdict.value}")


async def test_a_failing_watcher_keeps_the_rules_says_so_once_and_retries(make_engine, locations, project,
                                                                          monkeypatch):
    import watchfiles

    attempts = []

    def broken_awatch(*paths, **options):
        attempts.append(paths)
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(watchfiles, "awatch", broken_awatch)
    write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    engine = make_engine(record=False)
    before = engine.rules
    w = Watcher(engine, str(project))
    stop = asyncio.Event()
    task = asyncio.create_task(watch_plugins(engine, locations, str(project), w.events.append, stop))
    await w.until(lambda: len(attempts) >= 2, "the watcher to retry")
    stop.set()
    await asyncio.wait_for(task, LIMIT_S)
    assert w.kinds() == ["reload-error"]
    assert "the plugin watcher failed (OSError: [Errno 28] inotify watch limit reached)" in w.events[0].message
    assert [r.id for r in engine.rules] == [r.id for r in before]
    assert plugins_in_force(engine) == plugins_in_force_of(before)
