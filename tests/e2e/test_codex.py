"""The real OpenAI Codex CLI (`codex exec`), hooked up by `guardtui install codex`, judged by guardtui.

`guardtui install codex --user` writes $CODEX_HOME/hooks.json and records Codex's trust in the two
hooks (Codex skips an untrusted hook without a word), so every run here goes WITHOUT
--dangerously-bypass-hook-trust. One scripted session: a safe command runs; `rm -rf ~` is denied
by rule at PreToolUse (the isolated HOME survives); a command that asks for escalation
(sandbox_permissions require_escalated) is allowed by rule at PermissionRequest; and an ask no
person answers is denied, by the broker's policy or because Codex would not ask (it prompts only
for what its sandbox would stop; in exec with --approve-for-me its reviewer is the fake model). And with Codex's approvals and sandbox
off, where guardtui is all that stands between the model and the machine.
"""
from __future__ import annotations

import json
import os
import tomllib

import pytest

from .conftest import codex_env, run_codex, start_guardtui

SAFE = "echo hello > hello.txt"
CRITICAL = "rm -rf ~"
ESCALATED = "echo up > up.txt"
ASKS = "git push --force-with-lease origin feature; touch pushed.txt"
APPROVE = "--approve-for-me"  # exec otherwise never asks for approval: PermissionRequest would not fire
NO_APPROVALS = "--dangerously-bypass-approvals-and-sandbox"


def shell(command: str, escalate: bool = False) -> dict:
    extra = {"sandbox_permissions": "require_escalated", "justification": "needs to write"} if escalate else {}
    return {"tool": "exec_command", "input": {"cmd": command, **extra}}


TURNS = [shell(SAFE), shell(CRITICAL), shell(ESCALATED, escalate=True), shell(ASKS, escalate=True),
         {"text": "all done"}]


@pytest.fixture
def codex(codex_cli, world):
    codex_env(world, codex_cli)
    (world.home / "canary.txt").write_text("still here")
    return codex_cli


def install(world, status: int = 0) -> str:
    done = world.guardtui("install", "codex", "--user")
    assert done.returncode == status, done.stderr
    return done.stdout


def told(requests: list[dict]) -> list[str]:
    """What the model read back, call by call (the main conversation's last request)."""
    return [r for r in requests if not r["review"]][-1]["tool_outputs"]


def ran(output: str) -> bool:
    return "Process exited with code 0" in output


def trust_entries(world) -> dict:
    config = world.home / ".codex" / "config.toml"
    data = tomllib.loads(config.read_text()) if config.exists() else {}
    return data.get("hooks", {}).get("state", {})


def check_common(world, outputs: list[str]) -> None:
    assert (world.project / "hello.txt").read_text() == "hello\n" and ran(outputs[0])  # the safe command ran
    assert (world.home / "canary.txt").read_text() == "still here"  # nothing was deleted
    assert outputs[1].startswith("Command blocked by PreToolUse hook: guardtui blocked this Bash call `rm -rf ~`")
    assert "deletes your home directory" in outputs[1] and "Do not retry" in outputs[1]
    assert (world.project / "up.txt").read_text() == "up\n" and ran(outputs[2])  # PermissionRequest: allowed
    assert not (world.project / "pushed.txt").exists()  # the ask did not run
    log = world.audit()
    assert (SAFE, "allow", "rule") in log and (CRITICAL, "deny", "rule") in log
    assert log.count((ESCALATED, "allow", "rule")) == 2  # PreToolUse, then PermissionRequest


def test_install_records_trust_so_the_hooks_run_with_no_bypass(codex, world, servers):
    out = install(world)
    assert "Codex now trusts guardtui's 2 hooks" in out
    hooks = json.loads((world.home / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"PreToolUse", "PermissionRequest"}
    assert sorted(trust_entries(world)) == sorted(f"{world.home / '.codex' / 'hooks.json'}:{event}:0:0"
                                                  for event in ("pre_tool_use", "permission_request"))
    start_guardtui(world, servers, "deny")
    proc, requests = run_codex(codex, world, TURNS, servers, APPROVE)
    assert "bypass-hook-trust" not in proc.stderr
    outputs = told(requests)
    check_common(world, outputs)
    assert outputs[3].startswith("Command blocked by PreToolUse hook: guardtui blocked this Bash call")
    assert "no person is watching" in outputs[3] and "denied by policy" in outputs[3]
    assert not any(r["review"] for r in requests)  # guardtui decided every PermissionRequest itself
    assert (ASKS, "deny", "policy") in world.audit()


@pytest.mark.parametrize("how", ["serve --ask defer", "no console"])
def test_an_ask_no_person_answers_is_denied_because_codex_would_not_ask(codex, world, servers, how):
    """Handing an ask back to Codex (silence at PreToolUse) is no prompt: Codex asks only for what its
    sandbox would stop, so an in-workspace command would run unasked, and even an escalated one goes to
    a reviewer that may be automatic. With no person to answer, guardtui denies at PreToolUse."""
    if how != "no console":
        start_guardtui(world, servers, "defer")
    install(world)
    turns = [shell(ASKS), shell(ASKS, escalate=True), {"text": "all done"}]
    _, requests = run_codex(codex, world, turns, servers, APPROVE, review="allow")
    outputs = told(requests)
    assert not (world.project / "pushed.txt").exists()  # neither the sandboxed nor the escalated ask ran
    for output in outputs:
        assert output.startswith("Command blocked by PreToolUse hook: guardtui blocked this Bash call")
        assert "Codex's PreToolUse hook cannot ask, and Codex runs what its sandbox allows" in output
    assert not any(r["review"] for r in requests)  # the reviewer (who would have allowed it) never saw it
    assert world.audit().count((ASKS, "deny", "policy")) == 2  # audited as what Codex was told


@pytest.mark.parametrize("how", ["serve --ask defer", "no console"])
def test_the_guard_holds_with_codexs_approvals_and_sandbox_off(codex, world, servers, how):
    """No sandbox, no approvals: only guardtui stands between `rm -rf ~` and the (isolated) HOME."""
    if how != "no console":
        start_guardtui(world, servers, "defer")
    install(world)
    turns = [shell(SAFE), shell(CRITICAL), shell(ASKS), {"text": "all done"}]
    _, requests = run_codex(codex, world, turns, servers, NO_APPROVALS)
    outputs = told(requests)
    assert (world.project / "hello.txt").exists() and ran(outputs[0])
    assert (world.home / "canary.txt").read_text() == "still here" and "deletes your home directory" in outputs[1]
    assert not (world.project / "pushed.txt").exists()
    assert outputs[2].startswith("Command blocked by PreToolUse hook: guardtui blocked")
    assert "Codex's PreToolUse hook cannot ask and Codex runs with its approvals off (bypassPermissions)" \
        in outputs[2]
    assert (ASKS, "deny", "policy") in world.audit()  # audited as what Codex was told


def test_without_trust_codex_skips_the_hooks_without_a_word(codex, world, servers):
    """Why install records trust: hooks Codex does not trust never run, and nothing says so."""
    path = world.env["PATH"]
    world.env["PATH"] = os.pathsep.join(d for d in path.split(os.pathsep) if not os.path.exists(f"{d}/codex"))
    out = install(world, status=1)  # the hooks are written, but not in force: not a success
    assert "`codex` is not on PATH" in out and "does NOT guard Codex" in out and not trust_entries(world)
    world.env["PATH"] = path
    proc, requests = run_codex(codex, world, [shell(ASKS), {"text": "done"}], servers, NO_APPROVALS)
    assert (world.project / "pushed.txt").exists() and world.audit() == []  # the hook never ran
    (world.project / "pushed.txt").unlink()
    assert "Codex now trusts guardtui's 2 hooks" in install(world)  # with codex on PATH: trust recorded
    _, requests = run_codex(codex, world, [shell(ASKS), {"text": "done"}], servers, NO_APPROVALS)
    assert not (world.project / "pushed.txt").exists() and "guardtui blocked" in told(requests)[0]


def test_install_is_idempotent_keeps_the_users_config_and_uninstall_leaves_codex_unguarded(codex, world, servers):
    config = world.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    theirs = ('model_reasoning_effort = "high"\n\n[hooks.state."/elsewhere/hooks.json:stop:0:0"]\n'
              'trusted_hash = "sha256:0000"\n')
    config.write_text(theirs)
    install(world)
    installed = config.read_text()
    assert (config.with_name("config.toml.guardtui.bak")).read_text() == theirs
    second = install(world)
    assert "already installed" in second and "Codex already trusts guardtui's hooks" in second
    assert config.read_text() == installed
    done = world.guardtui("uninstall", "codex", "--user")
    assert done.returncode == 0 and "removed Codex's trust in guardtui's 2 hooks" in done.stdout
    assert tomllib.loads(config.read_text()) == tomllib.loads(theirs)
    assert not (world.home / ".codex" / "hooks.json").exists()  # guardtui made it, and it held nothing else
    _, requests = run_codex(codex, world, [shell("echo hi > made.txt"), {"text": "done"}], servers, NO_APPROVALS)
    assert (world.project / "made.txt").exists() and ran(told(requests)[0]) and world.audit() == []
