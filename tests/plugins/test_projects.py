"""Each call is judged with its own project's plugins: one console guards agents in many projects.

Real files in an isolated HOME; the time between looks at the files is a clock the test moves.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from guardtui.wiring import cli_engine
from guardtui.core.model import Verdict
from guardtui.core.plugins import ProjectPlugins, PluginRule, load_plugin_set, project_root, watch_plugins
from guardtui.core.plugins.parse import digest
from guardtui.core.plugins.projects import RECHECK_S
from guardtui.core.plugins.trust import store_trust

from .helpers import bash, tool, write

DENY_DOCKER = "id: docker\npatterns: [{match: docker, verdict: deny, reason: no docker here}]\n"
ALLOW_DEPLOY = ("id: deploy\ntool: mcp__deploy__run\n"
                "patterns: [{arg_match: staging, verdict: allow, reason: staging deploys are fine}]\n")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def later(self) -> None:
        self.now += RECHECK_S


@pytest.fixture
def projects(isolated_env):
    """Two projects under HOME: `a` (the console's) and `b` (another agent's)."""
    home = isolated_env / "home"
    a, b = home / "code" / "a", home / "code" / "b"
    for p in (a / "src", b / "src" / "deep"):
        p.mkdir(parents=True)
    return a, b


@pytest.fixture
def judged(make_engine, locations, projects):
    """An engine watching project a, judging with each call's own project; its reports kept."""
    a, _ = projects
    clock, reports = Clock(), []

    def make():
        engine = make_engine(record=False)
        rule = PluginRule(load_plugin_set(locations, str(a)).plugins,
                          projects=ProjectPlugins(locations, str(a), lambda *r: reports.append(r), clock=clock))
        engine.replace_rule(PluginRule.id, rule)
        return engine

    return make, clock, reports


def verdict(engine, command: str, cwd) -> Verdict:
    return engine.evaluate(bash(command, str(cwd)), record=False).verdict


def test_the_project_root_is_the_nearest_directory_with_a_guard_directory(isolated_env, projects):
    a, b = projects
    home = str(isolated_env / "home")
    assert project_root(str(b / "src" / "deep"), home) is None  # no guard directory anywhere yet
    (b / ".guardtui" / "guards").mkdir(parents=True)
    assert project_root(str(b / "src" / "deep"), home) == str(b)
    assert project_root(str(b), home) == str(b)
    os.makedirs(os.path.join(home, ".claude", "guards"))  # the user's own: HOME is never a project
    assert project_root(str(a / "src"), home) is None and project_root(home, home) is None
    assert project_root("/", home) is None


def test_a_call_from_another_project_gets_that_projects_plugins(judged, projects):
    make, _, _ = judged
    a, b = projects
    write(b / ".claude" / "guards" / "docker.yaml", DENY_DOCKER)
    engine = make()
    assert verdict(engine, "docker run ubuntu", b) is Verdict.DENY
    assert verdict(engine, "docker run ubuntu", b / "src" / "deep") is Verdict.DENY  # from a subdirectory too
    assert verdict(engine, "docker run ubuntu", a) is Verdict.ASK  # project a has no such plugin
    decision = engine.evaluate(bash("docker run ubuntu", str(b)), record=False)
    assert decision.metadata["file"] == str(b / ".claude" / "guards" / "docker.yaml")


def test_the_watched_projects_plugins_stay_in_their_project(judged, projects):
    make, _, _ = judged
    a, b = projects
    write(a / ".agents" / "guards" / "docker.yaml", DENY_DOCKER)
    engine = make()
    assert verdict(engine, "docker run ubuntu", a / "src") is Verdict.DENY
    assert verdict(engine, "docker run ubuntu", b) is Verdict.ASK  # a's plugin does not judge b's calls


def test_user_plugins_apply_in_every_project(judged, locations, projects):
    make, _, _ = judged
    _, b = projects
    write(locations.user_plugins_dir / "docker.yaml", DENY_DOCKER)
    write(b / ".claude" / "guards" / "other.yaml", "id: other\npatterns: [{match: zzz, verdict: ask, reason: z}]\n")
    assert verdict(make(), "docker run ubuntu", b) is Verdict.DENY


def test_another_projects_allow_is_ignored_until_trusted(judged, locations, projects):
    make, clock, reports = judged
    _, b = projects
    path = write(b / ".claude" / "guards" / "deploy.yaml", ALLOW_DEPLOY)
    engine = make()
    deploy = tool("mcp__deploy__run", str(b), target="staging")
    assert engine.evaluate(deploy, record=False).verdict is Verdict.ASK  # an agent wrote it: not trusted
    store_trust(locations.trust_file, str(path), digest(path.read_bytes()))
    clock.later()
    assert engine.evaluate(deploy, record=False).verdict is Verdict.ALLOW
    assert any("trusted deploy" in message for _, message in reports)


def test_an_edit_is_seen_on_the_next_look_and_a_broken_save_keeps_the_last_good(judged, projects):
    make, clock, reports = judged
    _, b = projects
    path = write(b / ".claude" / "guards" / "docker.yaml", DENY_DOCKER)
    engine = make()

    def reason() -> str:
        decision = engine.evaluate(bash("docker run ubuntu", str(b)), record=False)
        assert decision.verdict is Verdict.DENY
        return decision.reason

    assert reason() == "no docker here"
    assert reports == [("reload", f"project {b}: project plugins loaded for its calls: docker")]
    path.write_text(DENY_DOCKER.replace("no docker here", "still no docker"))
    os.utime(path, ns=(1, 1))  # a different mtime even on a coarse clock
    assert reason() == "no docker here"  # within RECHECK_S: not looked at yet
    clock.later()
    assert reason() == "still no docker"
    assert reports[-1] == ("reload", f"project {b}: plugins reloaded: changed docker")
    path.write_text("id: docker\npatterns: [{match: docker, verdict: block}]\n")
    clock.later()
    assert reason() == "still no docker"  # the last good version stays in force
    kind, message = reports[-1]
    assert kind == "reload-error" and str(path) in message and "verdict" in message
    count = len(reports)
    clock.later()
    reason()
    assert len(reports) == count  # said once, not on every look


def test_a_broken_file_with_no_good_version_makes_that_projects_calls_ask(judged, projects):
    make, _, reports = judged
    a, b = projects
    write(b / ".guardtui" / "guards" / "bad.yaml", "id: bad\npatterns: [{match: '(', verdict: deny}]\n")
    engine = make()
    decision = engine.evaluate(bash("ls", str(b)), record=False)
    assert decision.verdict is Verdict.ASK and "plugin file broken" in decision.reason
    assert verdict(engine, "ls", a) is Verdict.ALLOW  # the other project is not affected
    assert [kind for kind, _ in reports] == ["reload", "reload-error"]


def test_a_guard_directory_created_later_is_found(judged, projects):
    make, clock, _ = judged
    _, b = projects
    engine = make()
    assert verdict(engine, "docker run ubuntu", b / "src") is Verdict.ASK
    write(b / ".claude" / "guards" / "docker.yaml", DENY_DOCKER)
    clock.later()
    assert verdict(engine, "docker run ubuntu", b / "src") is Verdict.DENY


def test_calls_without_a_usable_cwd_get_the_watched_projects_plugins(judged, projects):
    make, _, _ = judged
    a, _ = projects
    write(a / ".claude" / "guards" / "docker.yaml", DENY_DOCKER)
    engine = make()
    assert verdict(engine, "docker run ubuntu", "") is Verdict.DENY
    assert verdict(engine, "docker run ubuntu", "relative/dir") is Verdict.DENY


async def test_the_console_watcher_judges_other_projects_calls_with_their_plugins(make_engine, locations, projects):
    """The watcher's engine (console, serve): a file saved in another project while it runs."""
    a, b = projects
    engine = make_engine(record=False)
    events, stop, ready = [], asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(watch_plugins(engine, locations, str(a), events.append, stop, ready=ready))
    try:
        await asyncio.wait_for(ready.wait(), 15)
        assert verdict(engine, "docker run ubuntu", b) is Verdict.ASK
        write(b / ".claude" / "guards" / "docker.yaml", DENY_DOCKER)

        async def denied() -> None:
            while verdict(engine, "docker run ubuntu", b) is not Verdict.DENY:
                await asyncio.sleep(0.02)
        await asyncio.wait_for(denied(), 15)
        assert any(e.kind == "reload" and str(b) in e.message for e in events)
        assert verdict(engine, "docker run ubuntu", a) is Verdict.ASK
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)


def test_the_offline_engine_and_check_use_the_project_of_a_subdirectory(isolated_env, locations, projects):
    _, b = projects
    write(b / ".claude" / "guards" / "docker.yaml", DENY_DOCKER)
    engine = cli_engine(str(b / "src" / "deep"), locations=locations)
    assert verdict(engine, "docker run ubuntu", b / "src" / "deep") is Verdict.DENY
    out = subprocess.run([sys.executable, "-m", "guardtui", "check", "--json", "--cwd", str(b / "src"), "--",
                          "docker run ubuntu"], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 4 and "no docker here" in out.stdout
    rules = subprocess.run([sys.executable, "-m", "guardtui", "rules", "--json"], capture_output=True, text=True,
                           cwd=b / "src", env=os.environ.copy())
    assert rules.returncode == 0 and str(b / ".claude" / "guards" / "docker.yaml") in rules.stdout
