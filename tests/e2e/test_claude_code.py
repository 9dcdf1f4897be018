"""The real Claude Code CLI, hooked up by `guardtui install claude`, judged by `guardtui serve`.

One scripted session: a safe command runs, `rm -rf ~` is denied by rule (it is listed in
`permission_denials`, the model is told not to retry, and nothing is deleted), and an ask is
answered by the broker's policy. Through the HTTP hook and through the command hook; and with
Claude Code's own approvals off (bypassPermissions), where the guard must still hold.
"""
from __future__ import annotations

import json
import sys

import pytest

from .conftest import run_claude, start_guardtui

SAFE = "echo hello > hello.txt"
CRITICAL = "rm -rf ~"
ASKS = "git push --force-with-lease origin feature"

TURNS = [{"tool": "Bash", "input": {"command": SAFE, "description": "write a file"}},
         {"tool": "Bash", "input": {"command": CRITICAL, "description": "clean up"}},
         {"tool": "Bash", "input": {"command": ASKS, "description": "publish"}},
         {"text": "all done"}]


def install(world, *how: str) -> dict:
    done = world.guardtui("install", "claude", "--project", str(world.project), *how)
    assert done.returncode == 0, done.stderr
    return json.loads((world.project / ".claude" / "settings.local.json").read_text())


def check_session(world, result: dict, requests: list[dict], ask_outcome: str) -> None:
    assert (world.project / "hello.txt").read_text() == "hello\n"  # the safe command ran
    assert (world.home / "canary.txt").exists()  # nothing was deleted
    denied = [d["tool_input"]["command"] for d in result["permission_denials"]]
    assert denied == [CRITICAL, ASKS]
    told = requests[-1]["tool_results"]  # what the model read back, call by call
    assert "deletes your home directory" in told[1] and "Do not retry" in told[1]
    if ask_outcome == "deny":
        assert "no person is watching" in told[2] and "denied by policy" in told[2] and "Do not retry" in told[2]
    else:  # handed back to Claude Code, whose own prompt cannot show in -p: it denies
        assert "handed back to the agent's own prompt" in told[2] or "no guardtui console" in told[2]
    log = world.audit()
    assert (SAFE, "allow", "rule") in log and (CRITICAL, "deny", "rule") in log
    assert (ASKS, "deny" if ask_outcome == "deny" else "ask", "policy") in log


@pytest.mark.parametrize("ask", ["deny", "defer"])
def test_http_hook(claude_cli, world, servers, ask):
    (world.home / "canary.txt").write_text("still here")
    port = start_guardtui(world, servers, ask)
    settings = install(world, "--http", "--port", str(port))
    handler = settings["hooks"]["PreToolUse"][0]["hooks"][0]
    assert handler["type"] == "http" and handler["url"].startswith(f"http://127.0.0.1:{port}/hooks/claude")
    result, requests = run_claude(claude_cli, world, TURNS, servers)
    check_session(world, result, requests, ask)


@pytest.mark.parametrize("ask", ["deny", "defer"])
def test_command_hook(claude_cli, world, servers, ask):
    (world.home / "canary.txt").write_text("still here")
    start_guardtui(world, servers, ask)
    settings = install(world, "--command")
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"].startswith(sys.executable)
    result, requests = run_claude(claude_cli, world, TURNS, servers)
    check_session(world, result, requests, ask)


def test_command_hook_with_no_console_judges_offline(claude_cli, world, servers):
    (world.home / "canary.txt").write_text("still here")
    install(world, "--command")
    result, requests = run_claude(claude_cli, world, TURNS, servers)
    assert (world.project / "hello.txt").exists() and (world.home / "canary.txt").exists()
    assert [d["tool_input"]["command"] for d in result["permission_denials"]] == [CRITICAL, ASKS]
    assert (ASKS, "ask", "policy") in world.audit()  # handed back to Claude Code, which cannot ask in -p


@pytest.mark.parametrize("how", ["--http", "--command"])
def test_the_guard_holds_with_claude_codes_approvals_off(claude_cli, world, servers, how):
    (world.home / "canary.txt").write_text("still here")
    port = start_guardtui(world, servers, "deny")
    install(world, how, "--port", str(port)) if how == "--http" else install(world, how)
    result, requests = run_claude(claude_cli, world, TURNS, servers, "--permission-mode", "bypassPermissions")
    check_session(world, result, requests, "deny")


def test_uninstall_leaves_claude_code_unguarded_again(claude_cli, world, servers):
    start_guardtui(world, servers, "deny")
    install(world, "--command")
    assert world.guardtui("uninstall", "claude", "--project", str(world.project)).returncode == 0
    assert not (world.project / ".claude" / "settings.local.json").exists()  # it held only guardtui's hook
    turns = [{"tool": "Bash", "input": {"command": "echo hi > made.txt"}}, {"text": "done"}]
    result, _ = run_claude(claude_cli, world, turns, servers, "--permission-mode", "bypassPermissions")
    assert result["permission_denials"] == [] and (world.project / "made.txt").exists()
    assert world.audit() == []
