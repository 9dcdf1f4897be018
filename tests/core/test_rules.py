"""Each built-in rule on its own: what it judges and when it abstains."""
from __future__ import annotations

import pytest

from guardtui.core.model import ToolCall, Verdict
from guardtui.core.rules import DangerousShellRule, DefaultPolicyRule, SensitiveFileRule, WorkingDirRule
from guardtui.core.rules.base import EvalContext
from guardtui.core.session import SessionState
from guardtui.core.shell.analyze import Analyzer

from ..conftest import HOME, PROJECT, TYPICAL

ANALYZER = Analyzer(command_exists=lambda n: n in TYPICAL)


def ctx() -> EvalContext:
    return EvalContext(SessionState("a", "s"), HOME, lambda c, cwd: ANALYZER.analyze(c, cwd, HOME))


def call(tool: str, **tool_input) -> ToolCall:
    return ToolCall(tool, tool_input, PROJECT)


# -- working directory ----------------------------------------------------------------------
@pytest.mark.parametrize("tool,tool_input,verdict", [
    ("Write", {"file_path": "/tmp/evil.txt"}, None),  # temp is fine
    ("Write", {"file_path": "/etc/hosts"}, Verdict.ASK),
    ("Edit", {"file_path": f"{HOME}/.bashrc"}, Verdict.ASK),
    ("Write", {"file_path": f"{PROJECT}/src/main.go"}, None),
    ("Write", {"file_path": "src/relative.py"}, None),
    ("Write", {"file_path": "../sibling/x.py"}, Verdict.ASK),
    ("NotebookEdit", {"notebook_path": "/srv/nb.ipynb"}, Verdict.ASK),
    ("Read", {"file_path": "/etc/passwd"}, None),  # reads outside do not ask
    ("Grep", {"pattern": "x", "path": "/var/log"}, None),
])
def test_workdir_file_tools(tool, tool_input, verdict):
    decision = WorkingDirRule().evaluate(call(tool, **tool_input), ctx())
    assert (decision.verdict if decision else None) is verdict


@pytest.mark.parametrize("command,verdict", [
    ("cp build/app /opt/app/bin", Verdict.ASK),
    ("echo hi > ../other/notes.txt", Verdict.ASK),
    ("echo x > \"$OUT\"", Verdict.ASK),  # a path known only at run time
    ("cp a b && mv b c", None),
    ("git log > /tmp/log.txt", None),
    ("cat /etc/hosts", None),
    ("ssh host 'echo x > /etc/motd'", None),  # on another machine: not this project's working directory
])
def test_workdir_shell_writes(command, verdict):
    decision = WorkingDirRule().evaluate(call("Bash", command=command), ctx())
    assert (decision.verdict if decision else None) is verdict


def test_workdir_follows_links_to_where_a_write_lands(tmp_path):
    project, shared = tmp_path / "work" / "dash", tmp_path / "work" / "shared"
    project.mkdir(parents=True)
    shared.mkdir()
    (shared / "config.json").write_text("{}")
    (project / "config.json").symlink_to("../shared/config.json")
    (project / "notes.md").write_text("x")
    linked_project = tmp_path / "linked"
    linked_project.symlink_to(project)
    def context() -> EvalContext:  # the world is in a temp dir: here it stands for a home
        return EvalContext(SessionState("a", "s"), str(tmp_path),
                           lambda c, cwd: ANALYZER.analyze(c, cwd, str(tmp_path)), temp_dirs=())

    def judged(tool: str, cwd, **tool_input):
        d = WorkingDirRule().evaluate(ToolCall(tool, tool_input, str(cwd)), context())
        return d.verdict if d else None

    d = WorkingDirRule().evaluate(ToolCall("Edit", {"file_path": str(project / "config.json")}, str(project)),
                                  context())
    assert d is not None and d.verdict is Verdict.ASK and "through a link" in d.reason
    assert judged("Bash", project, command="echo '{}' > config.json") is Verdict.ASK
    # replacing the link itself stays inside
    assert judged("Bash", project, command="ln -sf ../shared/other.json config.json") is None
    assert judged("Edit", project, file_path=str(project / "notes.md")) is None
    assert judged("Edit", linked_project, file_path=str(linked_project / "notes.md")) is None  # the project by a link


# -- sensitive files -----------------------------------------------------------------------------
@pytest.mark.parametrize("path,why", [
    (f"{PROJECT}/.env", "environment"), (f"{PROJECT}/.env.production", "environment"),
    (f"{PROJECT}/config/credentials.json", "credentials"), (f"{PROJECT}/deploy/server.pem", "key"),
    (f"{PROJECT}/.git/config", "git configuration"), (f"{PROJECT}/.git/hooks/pre-commit", "hook"),
    (f"{HOME}/.ssh/config", "SSH"),
])
def test_sensitive_writes_ask(path, why):
    decision = SensitiveFileRule().evaluate(call("Write", file_path=path, content=""), ctx())
    assert decision is not None and decision.verdict is Verdict.ASK and why in decision.reason


def test_sensitive_covers_shell_writes_and_deletes():
    rule = SensitiveFileRule()
    for command in ("echo 'X=1' > .env", "rm .git/hooks/pre-commit", "sed -i 's/x/y/' ~/.ssh/config",
                    "cp /dev/null .env"):
        decision = rule.evaluate(call("Bash", command=command), ctx())
        assert decision is not None and decision.verdict is Verdict.ASK, command
    # taking permissions away from a secret is not a change the rule asks about
    assert rule.evaluate(call("Bash", command="chmod 600 .env"), ctx()) is None


def test_sensitive_abstains_on_reads_and_ordinary_files():
    rule = SensitiveFileRule()
    assert rule.evaluate(call("Read", file_path=f"{PROJECT}/.env"), ctx()) is None
    assert rule.evaluate(call("Write", file_path=f"{PROJECT}/src/app.py"), ctx()) is None
    assert rule.evaluate(call("Bash", command="cat .env"), ctx()) is None


# -- dangerous shell and the default policy ---------------------------------------------------
def test_dangerous_shell_denies_critical_asks_risky_and_abstains_otherwise():
    rule = DangerousShellRule()
    deny = rule.evaluate(call("Bash", command="ls && rm -rf ~"), ctx())
    assert deny.verdict is Verdict.DENY and deny.metadata["segment"] == "rm -rf ~"
    assert [s["verdict"] for s in deny.metadata["segments"]] == ["allow", "deny"]
    assert rule.evaluate(call("Bash", command="git push --force"), ctx()).verdict is Verdict.ASK
    assert rule.evaluate(call("Bash", command="ls -la"), ctx()) is None
    assert rule.evaluate(call("Bash", command="frobnicate"), ctx()) is None  # unknown is for the default rule
    assert rule.evaluate(call("Write", file_path="/x"), ctx()) is None


@pytest.mark.parametrize("tool,tool_input,verdict", [
    ("Read", {"file_path": "x"}, Verdict.ALLOW), ("Glob", {"pattern": "*"}, Verdict.ALLOW),
    ("Write", {"file_path": "x"}, Verdict.ALLOW), ("Bash", {"command": "git status"}, Verdict.ALLOW),
    ("Bash", {"command": ""}, Verdict.ALLOW), ("mcp__db__query", {"sql": "select 1"}, Verdict.ALLOW), ("mcp__db__frobnicate", {"x": 1}, Verdict.LLM),
    ("SomethingNew", {}, Verdict.LLM),
])
def test_default_policy_allows_known_reads_and_escalates_the_unknown(tool, tool_input, verdict):
    decision = DefaultPolicyRule().evaluate(call(tool, **tool_input), ctx())
    assert decision.verdict is verdict


def test_default_policy_never_abstains_and_escalates_unknown_shell():
    analyzer_all_installed = Analyzer(command_exists=lambda n: True)
    c = EvalContext(SessionState("a", "s"), HOME, lambda cmd, cwd: analyzer_all_installed.analyze(cmd, cwd, HOME))
    decision = DefaultPolicyRule().evaluate(call("Bash", command="frobnicate --all"), c)
    assert decision.verdict is Verdict.LLM and "not classified as safe" in decision.reason
