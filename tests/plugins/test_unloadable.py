"""Plugin files built to hurt whoever reads them: a FIFO, a link to a device, a file too big, a
YAML bomb, nesting that would crash libyaml's composer. Each is a one-line error naming the file,
read without blocking and without a crash; a project whose plugins cannot load makes its calls
ask while the user's own plugins still apply; and one project's files never hold the engine."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from guardtui.core.model import Verdict
from guardtui.core.plugins import PluginRule, ProjectPlugins, load_plugin_set, projects as projects_module
from guardtui.core.yamlfile import DataError, MAX_ALIAS_NODES, load_yaml, read_regular_file

from .helpers import bash, write

NO_CURL = "id: no-curl\npatterns: [{match: '\\bcurl\\b', verdict: deny, reason: no curl on this machine}]\n"
BOMB = "\n".join(["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"] +
                 [f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi")] +
                 ["patterns: [{match: x, verdict: deny}]", "extra: *i", ""])


@pytest.fixture
def world(isolated_env, locations):
    """The user's `no-curl` deny, and a project under HOME with a guard directory."""
    write(locations.user_plugins_dir / "no-curl.yaml", NO_CURL)
    project = isolated_env / "home" / "code" / "p"
    guards = project / ".guardtui" / "guards"
    guards.mkdir(parents=True)
    return project, guards


def guardtui_check(cwd, *words) -> subprocess.CompletedProcess:
    """`guardtui check` in a process of its own: a crash would show as a signal, not take pytest down."""
    return subprocess.run([sys.executable, "-m", "guardtui", "check", "--json", "--cwd", str(cwd), "--", *words],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("make", ["fifo", "link to /dev/zero", "link to a fifo", "too big", "yaml bomb",
                                  "nested 100,000 deep", "block nesting", "self alias"])
def test_a_plugin_file_that_cannot_load_is_one_line_naming_it_and_the_project_asks(world, make):
    project, guards = world
    bad = guards / "evil.yaml"
    if make == "fifo":
        os.mkfifo(bad)
    elif make == "link to /dev/zero":
        bad.symlink_to("/dev/zero")
    elif make == "link to a fifo":
        os.mkfifo(guards / "pipe")
        bad.symlink_to(guards / "pipe")
    elif make == "too big":
        bad.write_text("patterns: [{match: x, verdict: deny}]\n" + "#" * (2 << 20))
    elif make == "yaml bomb":
        bad.write_text(BOMB)
    elif make == "nested 100,000 deep":
        bad.write_text("patterns: " + "[" * 100_000 + "]" * 100_000 + "\n")
    elif make == "block nesting":
        bad.write_text("patterns:\n" + "".join(" " * i + "- \n" for i in range(1, 400)))
    else:
        bad.write_text("a: &a [x, *a]\npatterns: [{match: x, verdict: deny}]\n")
    started = time.monotonic()
    done = guardtui_check(project, "ls")
    assert time.monotonic() - started < 30 and done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    decision = json.loads(done.stdout)
    assert decision["verdict"] == "ask" and str(bad) in decision["reason"], decision
    reason = decision["reason"]
    assert "\n" not in reason and "Traceback" not in done.stderr
    # and the user's own deny still applies in that project
    done = guardtui_check(project, "curl", "https://example.com")
    assert json.loads(done.stdout)["verdict"] == "deny", done.stdout


def test_the_words_for_each_kind(tmp_path):
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match=r"f\.yaml: not a regular file \(a named pipe \(FIFO\)\): not read"):
        read_regular_file(fifo)
    (tmp_path / "z.yaml").symlink_to("/dev/zero")
    with pytest.raises(DataError, match=r"not a regular file \(a character device\)"):
        read_regular_file(tmp_path / "z.yaml")
    with pytest.raises(DataError, match=r"not a regular file \(a directory\)"):
        read_regular_file(tmp_path)
    with pytest.raises(DataError, match=r"b\.yaml:5: aliases expand to more than 10000 nodes \(a YAML bomb\?\)"):
        load_yaml(BOMB, "b.yaml")
    with pytest.raises(DataError, match=r"d\.yaml:1: nested deeper than 100 levels"):
        load_yaml("[" * 100_000, "d.yaml")
    # anchors and aliases within reason are fine
    doc = load_yaml("common: &c {verdict: deny}\nlist: [*c, *c, *c]\n", "ok.yaml")
    assert doc.data["list"][2] == {"verdict": "deny"}
    assert MAX_ALIAS_NODES >= 1000


def test_a_project_whose_load_fails_asks_and_the_users_plugins_still_apply(world, locations, make_engine,
                                                                          monkeypatch):
    """Whatever makes the whole load fail (memory, a file system gone) never leaves the call with
    no plugins: a user deny holds, and the rest asks, saying why."""
    project, guards = world
    write(guards / "fine.yaml", "patterns: [{match: make, verdict: ask}]\n")
    real = projects_module.load_plugin_set

    def failing(locations_, root, last_good=()):
        if root == str(project):
            raise MemoryError("gigabytes")
        return real(locations_, root, last_good)

    monkeypatch.setattr(projects_module, "load_plugin_set", failing)
    engine, reports = _engine(make_engine, locations)
    assert engine.evaluate(bash("curl https://example.com", str(project)), record=False).verdict is Verdict.DENY
    decision = engine.evaluate(bash("ls", str(project)), record=False)
    assert decision.verdict is Verdict.ASK and "could not be loaded (MemoryError: gigabytes)" in decision.reason
    assert len([r for r in reports if r[0] == "reload-error"]) == 1  # said once for the two calls


def test_one_projects_files_never_hold_the_engine(world, locations, make_engine, isolated_env, monkeypatch):
    """A project on a file system that hangs (what cannot run here: a hung NFS or FUSE mount, stood
    in for by a load that waits): its calls ask after the wait, the user's deny holds, and other
    projects' calls are judged at once meanwhile."""
    project, guards = world
    other = isolated_env / "home" / "code" / "other"
    write(other / ".guardtui" / "guards" / "no-make.yaml", "patterns: [{match: make, verdict: deny}]\n")
    hung, release = threading.Event(), threading.Event()
    real = projects_module.load_plugin_set

    def hanging(locations_, root, last_good=()):
        if root == str(project):
            hung.set()
            release.wait(30)
        return real(locations_, root, last_good)

    monkeypatch.setattr(projects_module, "load_plugin_set", hanging)
    engine, _ = _engine(make_engine, locations, load_wait_s=0.3)
    try:
        started = time.monotonic()
        decision = engine.evaluate(bash("ls", str(project)), record=False)
        assert decision.verdict is Verdict.ASK and "still loading" in decision.reason
        assert hung.is_set() and time.monotonic() - started < 5
        assert engine.evaluate(bash("curl x", str(project)), record=False).verdict is Verdict.DENY
        started = time.monotonic()  # the look is still hung: no second wait
        assert engine.evaluate(bash("ls", str(project)), record=False).verdict is Verdict.ASK
        assert time.monotonic() - started < 0.25
        assert engine.evaluate(bash("make", str(other)), record=False).verdict is Verdict.DENY
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while engine.evaluate(bash("ls", str(project)), record=False).verdict is not Verdict.ALLOW:
        assert time.monotonic() < deadline, "the load never came into force"
        time.sleep(0.05)


def _engine(make_engine, locations, load_wait_s: float = 1.0):
    """The console's engine: watching HOME's own project (none), judging each call's project."""
    reports = []
    engine = make_engine(record=False)
    watched = str(locations.home)
    engine.replace_rule(PluginRule.id, PluginRule(load_plugin_set(locations, watched).plugins, projects=ProjectPlugins(
        locations, watched, lambda *r: reports.append(r), load_wait_s=load_wait_s)))
    return engine, reports


def test_a_loader_that_never_started_is_started_again_after_its_wait(world, locations, make_engine, monkeypatch):
    """A judging thread that ran out of time between making a project's look and starting its thread
    leaves a look that never runs: its calls ask for the wait, then a new look takes its place (it
    used to stand for good: every later call of that project asked)."""
    project, guards = world
    write(guards / "no-make.yaml", "patterns: [{match: make, verdict: deny}]\n")
    engine, _ = _engine(make_engine, locations, load_wait_s=0.2)
    start = threading.Thread.start
    refused = []

    def out_of_time(thread):
        if thread.name == "guardtui-project-plugins" and not refused:
            refused.append(thread)
            raise RuntimeError("stands for the budget running out here")
        return start(thread)

    monkeypatch.setattr(threading.Thread, "start", out_of_time)
    decision = engine.evaluate(bash("make", str(project)), record=False)
    assert refused and decision.verdict is Verdict.ASK and "rule plugins failed" in decision.reason
    decision = engine.evaluate(bash("make", str(project)), record=False)
    assert decision.verdict is Verdict.ASK and "still loading" in decision.reason  # within the first look's wait
    time.sleep(0.25)
    assert engine.evaluate(bash("make", str(project)), record=False).verdict is Verdict.DENY
