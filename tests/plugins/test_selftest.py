"""Plugins' own tests (`guardtui test`), the shipped plugins, and `guardtui rules`."""
from __future__ import annotations

import json
from pathlib import Path

from guardtui.cli import main
from guardtui.core.config import Locations
from guardtui.core.model import Verdict
from guardtui.core.plugins import load_plugin_paths
from guardtui.core.plugins.selftest import run_plugin_tests

from .helpers import bash, plugin, write

SHIPPED = Path(__file__).resolve().parents[2] / "plugins"
SHIPPED_IDS = {"no-network", "protect-migrations", "no-package-install", "docker-approval", "protect-env-files",
               "cloud-metadata", "production-kubectl"}

DOCKER = """
id: docker
tool: Bash
patterns:
  - {match: "^docker (ps|images)$", verdict: allow}
  - {match: docker, verdict: ask}
  - {match: "kubectl", verdict: flag, reason: watching kubectl}
tests:
  - {command: "docker build .", expect: ask}
  - {command: "docker ps", expect: allow}
  - {command: "kubectl get pods", expect: allow, flag: true}
"""


def test_self_tests_run_against_the_full_engine():
    results = run_plugin_tests(plugin(DOCKER))
    assert [(r.got, r.flagged, r.passed) for r in results] == [(Verdict.ASK, False, True), (Verdict.ALLOW, False, True),
                                                              (Verdict.ALLOW, True, True)]
    assert [r.decision.rule for r in results][:2] == ["plugins/docker", "plugins/docker"]


def test_a_wrong_expectation_fails_and_says_why():
    text = DOCKER.replace('{command: "docker ps", expect: allow}', '{command: "docker ps", expect: deny}')
    text = text.replace("flag: true", "flag: false")
    results = run_plugin_tests(plugin(text))
    assert [r.passed for r in results] == [True, False, False]
    assert results[1].explain().startswith("expected deny, got allow [plugins/docker]")
    assert results[2].explain().startswith("expected allow and no flag from docker, got allow with a flag")


def test_llm_escalations_show_as_ask_and_built_in_rules_apply():
    results = run_plugin_tests(plugin("""
        patterns: [{match: nothing-matches-this, verdict: deny}]
        tests:
          - {command: "frobnicate --now", expect: ask}
          - {command: "rm -rf /", expect: deny}
        """))
    assert [(r.got, r.passed) for r in results] == [(Verdict.ASK, True), (Verdict.DENY, True)]


def test_guardtui_test_prints_a_table_and_exits_non_zero_on_a_failure(tmp_path, isolated_env, capsys):
    good = write(tmp_path / "guards/docker.yaml", DOCKER)
    assert main(["test", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["PLUGIN", "#", "CALL", "EXPECT", "GOT", "DECIDED", "BY", "RESULT"]
    assert "docker  1  docker build ." in out and out.rstrip().endswith("3 passed, 0 failed, 0 load error(s)")

    write(good, DOCKER.replace("expect: ask}", "expect: deny}"))
    assert main(["test", str(tmp_path / "guards")]) == 1
    out = capsys.readouterr().out
    assert f"FAIL docker test 1 ({good}:8): docker build .: expected deny, got ask" in out
    assert out.rstrip().endswith("2 passed, 1 failed, 0 load error(s)")


def test_guardtui_test_reports_load_errors_and_missing_paths_as_failures(tmp_path, isolated_env, capsys):
    bad = write(tmp_path / "bad.yaml", "patterns: [{match: x, verdict: block}]\n")
    assert main(["test", str(bad), str(tmp_path / "missing.yaml")]) == 1
    out = capsys.readouterr().out
    assert f"error: {bad}:1: patterns[0].verdict: 'block' is not one of" in out
    assert f"error: {tmp_path / 'missing.yaml'}: no such file" in out


def test_guardtui_test_without_paths_tests_the_plugins_in_force(locations, project, capsys, monkeypatch):
    write(locations.user_plugins_dir / "docker.yaml", DOCKER)
    write(project / ".guardtui/guards/untested.yaml", "patterns: [{match: x, verdict: ask}]\n")
    monkeypatch.chdir(project)
    assert main(["test"]) == 0
    out = capsys.readouterr().out
    assert "note: untested has no tests" in out and "3 passed, 0 failed" in out


def test_an_untrusted_project_plugins_allow_test_fails_and_says_the_allow_is_ignored(project, capsys,
                                                                                     monkeypatch):
    write(project / ".guardtui/guards/docker.yaml", DOCKER)
    monkeypatch.chdir(project)
    assert main(["test"]) == 1
    out = capsys.readouterr().out
    assert "FAIL docker test 2" in out and "expected allow, got ask" in out
    assert "note: docker: 1 allow pattern(s) ignored: a project plugin may only tighten" in out


def test_every_shipped_plugin_loads_and_its_tests_pass(isolated_env, capsys):
    loaded = load_plugin_paths([str(SHIPPED)], Locations.from_env(), str(isolated_env))
    assert loaded.errors == ()
    assert {p.id for p in loaded.plugins} == SHIPPED_IDS
    for shipped in loaded.plugins:
        results = run_plugin_tests(shipped)
        assert results, f"{shipped.id} has no tests"
        assert [r.explain() for r in results if not r.passed] == []
        decided_by_it = [r for r in results if r.decision.rule == shipped.rule_id or r.flagged]
        assert decided_by_it, f"{shipped.id}: no test is decided by the plugin itself"
    assert main(["test", str(SHIPPED)]) == 0
    capsys.readouterr()


def test_shipped_plugins_are_examples_not_loaded_by_default(make_engine):
    engine = make_engine(record=False)
    decision = engine.evaluate(bash("curl -s https://example.com/"), record=False)  # no-network would deny it
    assert decision.verdict is not Verdict.DENY and not decision.rule.startswith("plugins")
    metadata = engine.evaluate(bash("curl http://169.254.169.254/"), record=False)
    assert metadata.verdict is Verdict.DENY and not metadata.rule.startswith("plugins")  # built in, not the example


# -- guardtui rules ---------------------------------------------------------------------
def test_rules_lists_the_plugins_in_force_with_level_trust_patterns_and_errors(locations, project, capsys,
                                                                               monkeypatch):
    write(locations.user_plugins_dir / "docker.yaml", DOCKER)
    write(project / ".guardtui/guards/frob.yaml", "patterns:\n  - {match: '^frob', verdict: allow}\n"
                                                  "  - {match: defrob, verdict: deny}\n")
    write(project / ".guardtui/guards/broken.yaml", "patterns: [{match: '(', verdict: ask}]\n")
    monkeypatch.chdir(project)
    assert main(["rules"]) == 1  # a file does not load
    out = capsys.readouterr().out
    assert "1. docker  [user]" in out and "- match /docker/ → ask" in out
    assert "frob  [project, untrusted: may only tighten]" in out
    assert "- match /^frob/ → allow  matched plugin frob  (ignored until trusted)" in out
    assert "BROKEN (every call asks)" in out
    assert "error: " in out and "broken.yaml:1: patterns[0].match: regex does not compile" in out


def test_rules_json_is_machine_readable(locations, project, capsys, monkeypatch):
    write(locations.user_plugins_dir / "docker.yaml", DOCKER)
    monkeypatch.chdir(project)
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (docker,) = data["plugins"]
    assert (docker["id"], docker["level"], docker["trusted"], docker["last_error"]) == ("docker", "user", True, None)
    assert docker["file"] == str(locations.user_plugins_dir / "docker.yaml")
    assert [p["verdict"] for p in docker["patterns"]] == ["allow", "ask", "flag"]
    assert data["errors"] == [] and data["loaded_at"] > 0


def test_rules_with_nothing_to_show(isolated_env, project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    assert main(["rules"]) == 0
    assert capsys.readouterr().out == "no plugins in force\n"



def test_the_readme_example_plugin_loads_and_passes_its_tests():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Plugin rules", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    results = run_plugin_tests(plugin(example, file="docker-approval.yaml"))
    assert len(results) == 3 and [r.explain() for r in results if not r.passed] == []
