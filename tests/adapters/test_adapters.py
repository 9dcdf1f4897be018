"""Adapters, both directions, for every agent and event: real captured payloads (payloads/) and
the documented examples; answers in the exact shapes the agents read."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardtui import hook_client as hook
from guardtui.adapters import AGENTS, adapter_for, base, claude, codex, cursor, docker_agent, gemini, \
    why_not_handed_back
from guardtui.adapters.tools import normalise_tool
from guardtui.core.model import ToolCall, Verdict

PAYLOADS = Path(__file__).parent / "payloads"
ALLOW, DENY, ASK = Verdict.ALLOW, Verdict.DENY, Verdict.ASK


def captured(name: str) -> list[dict]:
    return [json.loads(line) for line in (PAYLOADS / name).read_text().splitlines() if line.strip()]


def call_of(adapter, event: str, tool: str = "Bash", mode: str = "default") -> ToolCall:
    return ToolCall(tool, {"command": "x"}, "/w", agent=adapter.AGENT, event=event, mode=mode)


# -- Claude Code -----------------------------------------------------------------------------
def test_claude_pre_tool_use_captured_from_the_real_cli():
    payload = captured("claude-captured.jsonl")[1]
    call = claude.parse(payload)
    assert call == ToolCall("Bash", {"command": "echo hello > hello.txt", "description": "write file"}, "/tmp/w",
                            agent="claude", session="6b58", event="PreToolUse", call_id="toolu_00000",
                            mode="default")


def test_claude_permission_request_captured_from_the_real_cli():
    call = claude.parse(captured("claude-captured.jsonl")[2])
    assert (call.tool, call.command, call.cwd, call.event, call.call_id) == \
        ("Bash", "echo hi > made.txt", "/w/p", "PermissionRequest", "")


def test_claude_documented_edit_and_mcp_and_legacy_multiedit():
    edit = claude.parse({"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_01X",
                         "tool_input": {"file_path": "/home/user/my-project/src/app.ts", "old_string": "const a = 1",
                                        "new_string": "const a = 2", "replace_all": False},
                         "session_id": "abc123", "cwd": "/home/user/my-project", "permission_mode": "default"})
    assert edit.tool == "Edit" and edit.file_path == "/home/user/my-project/src/app.ts"
    assert claude.parse({"tool_name": "mcp__memory__create_entities", "tool_input": {}}).tool == \
        "mcp__memory__create_entities"
    assert claude.parse({"tool_name": "MultiEdit", "tool_input": {"file_path": "/p/a", "edits": []}}).tool == "MultiEdit"
    assert claude.parse({"tool_name": "PowerShell", "tool_input": {"command": "dir"}}).tool == "Bash"


def test_claude_pre_tool_use_answers():
    call = call_of(claude, "PreToolUse")
    assert claude.render(call, ALLOW, "safe") == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "guardtui: safe"}}
    assert claude.render(call, ASK, "why")["hookSpecificOutput"]["permissionDecision"] == "ask"
    denied = claude.render(call, DENY, "rm -rf ~ deletes your home directory")["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny"
    assert "rm -rf ~ deletes your home directory" in denied["permissionDecisionReason"]
    assert base.DENIAL_NOTE in denied["permissionDecisionReason"]


def test_claude_permission_request_answers():
    call = call_of(claude, "PermissionRequest")
    assert claude.render(call, ALLOW, "ok") == {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                                       "decision": {"behavior": "allow"}}}
    deny = claude.render(call, DENY, "no")["hookSpecificOutput"]["decision"]
    assert deny["behavior"] == "deny" and deny["interrupt"] is False and "Do not retry" in deny["message"]
    assert claude.render(call, ASK, "person decides") is None  # no decision: Claude's own dialog


def test_the_denial_tells_the_agent_what_why_and_not_to_retry():
    call = ToolCall("Bash", {"command": "rm -rf ~"}, "/w", event="PreToolUse")
    text = base.denial_message(call, "rm -rf ~ deletes your home directory")
    assert text.startswith("guardtui blocked this Bash call `rm -rf ~`: rm -rf ~ deletes your home directory.")
    assert "Do not retry" in text and "explain to the person".lower() in text.lower() and "alternative" in text


# -- Codex -----------------------------------------------------------------------------------
def test_codex_captured_pre_tool_use_and_permission_request():
    lines = captured("codex-captured.jsonl")
    pre, perm = codex.parse(lines[1]), codex.parse(lines[3])
    assert (pre.tool, pre.command, pre.event, pre.call_id, pre.cwd) == \
        ("Bash", "echo two > two.txt # deny-PreToolUse", "PreToolUse", "call_00003", "/w/proj")
    assert pre.session == "01a20413-9290-7b13-b649-cc70dd4034cf" and pre.mode == "default"
    assert (perm.event, perm.command, perm.call_id) == ("PermissionRequest", "echo three > three.txt", "")


def test_codex_pre_tool_use_can_only_deny():
    call = call_of(codex, "PreToolUse")
    assert codex.render(call, ALLOW, "ok") is None  # a bare allow is "unsupported" in Codex
    out = codex.render(call, DENY, "bad")
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["permissionDecisionReason"]  # Codex requires a non-empty reason


def test_codex_pre_tool_use_never_hands_an_ask_back():
    """Silence is no prompt: Codex asks only for what its sandbox would stop, so an in-workspace
    `rm -rf build` handed back would run unasked. With approvals on or off, an unanswered ask denies."""
    on = codex.render(call_of(codex, "PreToolUse"), ASK, "force push")["hookSpecificOutput"]
    assert on["permissionDecision"] == "deny" and "without asking" in on["permissionDecisionReason"]
    off = codex.render(call_of(codex, "PreToolUse", mode="bypassPermissions"), ASK, "force push")
    assert "approvals off" in off["hookSpecificOutput"]["permissionDecisionReason"]
    assert why_not_handed_back(call_of(codex, "PreToolUse")) and not why_not_handed_back(call_of(codex,
                                                                                                   "PermissionRequest"))


def test_codex_permission_request_answers():
    call = call_of(codex, "PermissionRequest")
    assert codex.render(call, ALLOW, "ok") == {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                                      "decision": {"behavior": "allow"}}}
    deny = codex.render(call, DENY, "no")["hookSpecificOutput"]["decision"]
    assert deny["behavior"] == "deny" and "interrupt" not in deny  # Codex rejects interrupt
    assert codex.render(call, ASK, "?") is None


def test_codex_apply_patch_becomes_a_path_call():
    add = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": "*** Begin Patch\n*** Add File: src/new.py\n+print(1)\n*** End Patch\n"}})
    assert add.tool == "Write" and add.file_path == "/w/proj/src/new.py"
    upd = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-a\n+b\n*** End Patch\n"}})
    assert upd.tool == "Edit" and upd.file_path == "/etc/hosts"
    many = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": "*** Begin Patch\n*** Update File: a.py\n*** Delete File: b.py\n*** End Patch\n"}})
    assert many.tool == "apply_patch" and many.input["files"] == ["a.py", "b.py"]  # unknown tool: asks



def test_codex_patches_carry_what_they_write_so_the_rules_judge_the_text():
    """A patch's added file and an update's removed/added lines reach the rules as Write's content and
    Edit's old/new strings (a git hook whose text removes the hook settings is judged by that text)."""
    add = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+rm -rf ~/.claude\n*** End Patch\n"}})
    assert add.tool == "Write" and add.input["content"] == "#!/bin/sh\nrm -rf ~/.claude\n"
    upd = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": "*** Begin Patch\n*** Update File: notes.md\n@@ intro\n a\n-b\n+c\n*** End Patch\n"}})
    assert (upd.input["old_string"], upd.input["new_string"]) == ("a\nb", "a\nc")
    many = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** Add File: .envrc\n"
                   "+export CODEX_HOME=/tmp/clean\n*** Delete File: b.py\n*** End Patch\n"}})
    ops = many.input["operations"]
    assert [op["op"] for op in ops] == ["Update File", "Add File", "Delete File"]
    assert ops[0]["new_string"] == "x = 2" and ops[1]["content"] == "export CODEX_HOME=/tmp/clean\n"
    assert "content" not in ops[2] and "new_string" not in ops[2]


def test_codex_updates_in_several_hunks_are_one_edit_per_hunk():
    """Each hunk applies where its own context is: joined into one old string, two hunks match nowhere in the
    file, and the text the update writes (a Makefile target added under another) would go unseen."""
    patch = ("*** Begin Patch\n*** Update File: Makefile\n@@\n-.PHONY: build\n+.PHONY: build release\n@@\n"
             " build:\n \tcargo build\n+\n+release:\n+\t./deploy.sh prod\n*** End Patch\n")
    upd = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {"command": patch}})
    assert upd.tool == "MultiEdit" and upd.input["file_path"] == "/w/proj/Makefile"
    assert [(e["old_string"], e["new_string"]) for e in upd.input["edits"]] == [
        (".PHONY: build", ".PHONY: build release"),
        ("build:\n\tcargo build", "build:\n\tcargo build\n\nrelease:\n\t./deploy.sh prod")]
    many = codex.parse({"tool_name": "apply_patch", "cwd": "/w/proj", "tool_input": {
        "command": patch.replace("*** End Patch", "*** Delete File: old.mk\n*** End Patch")}})
    assert len(many.input["operations"][0]["edits"]) == 2

# -- Gemini CLI ------------------------------------------------------------------------------
def test_gemini_captured_before_tool():
    call = gemini.parse(captured("gemini-captured.jsonl")[1])
    assert (call.tool, call.command, call.cwd, call.event, call.session) == \
        ("Bash", "echo two > two.txt # deny-BeforeTool", "/w/proj", "BeforeTool",
         "f74323df-ee8c-490b-a759-a95da6ed9af8")


def test_gemini_documented_examples():
    shell = gemini.parse({"session_id": "f3c1", "cwd": "/home/u/proj", "hook_event_name": "BeforeTool",
                          "tool_name": "run_shell_command",
                          "tool_input": {"command": "npm test", "description": "run tests", "dir_path": "web",
                                         "is_background": False}})
    assert shell.tool == "Bash" and shell.cwd == "/home/u/proj/web"
    mcp = gemini.parse({"hook_event_name": "BeforeTool", "tool_name": "mcp_github_create_issue",
                        "tool_input": {"owner": "o"}, "cwd": "/p",
                        "mcp_context": {"server_name": "github", "tool_name": "create_issue", "command": "docker"}})
    assert mcp.tool == "mcp__github__create_issue"
    assert gemini.parse({"tool_name": "write_file", "tool_input": {"file_path": "/p/a"}}).tool == "Write"
    assert gemini.parse({"tool_name": "replace", "tool_input": {"file_path": "/p/a"}}).tool == "Edit"


def test_gemini_answers_cannot_allow():
    call = call_of(gemini, "BeforeTool")
    assert gemini.render(call, ALLOW, "ok") == {}  # no objection: Gemini's policy engine decides
    assert gemini.render(call, DENY, "bad")["decision"] == "deny"
    assert "Do not retry" in gemini.render(call, DENY, "bad")["reason"]


@pytest.mark.parametrize("mode", ["default", "yolo", ""])
def test_gemini_is_never_told_ask_it_would_hang_a_headless_run(mode):
    call = call_of(gemini, "BeforeTool", mode=mode)
    out = gemini.render(call, ASK, "force push")
    assert out["decision"] == "deny" and "wait forever" in out["reason"] and "force push" in out["reason"]
    assert gemini.fail_safe("BeforeTool", "broken")["decision"] == "deny"
    assert why_not_handed_back(call)  # the offline hook, serve --ask defer and the console deny instead


# -- captured by guardtui's own hook in the end-to-end runs (tests/e2e) -------------------------
def test_codex_payloads_from_the_e2e_runs_with_approvals_on_and_off():
    calls = [codex.parse(p) for p in captured("codex-e2e.jsonl")]
    assert [(c.event, c.command, c.mode) for c in calls] == [
        ("PreToolUse", "echo hello > hello.txt", "default"), ("PreToolUse", "rm -rf ~", "default"),
        ("PreToolUse", "echo up > up.txt", "default"), ("PermissionRequest", "echo up > up.txt", "default"),
        ("PreToolUse", ASKS_E2E, "default"), ("PermissionRequest", ASKS_E2E, "default"),
        ("PreToolUse", "echo hello > hello.txt", "bypassPermissions"), ("PreToolUse", "rm -rf ~", "bypassPermissions"),
        ("PreToolUse", ASKS_E2E, "bypassPermissions")]  # --dangerously-bypass-approvals-and-sandbox
    perm = calls[3]
    assert perm.call_id == "" and perm.input["description"] == "needs to write"  # the model's justification
    assert calls[2].call_id.startswith("call_") and calls[2].session == perm.session
    assert codex.render(calls[5], ASK, "force push") is None  # PermissionRequest: Codex's own approval goes on
    assert codex.render(calls[4], ASK, "force push")["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert codex.render(calls[8], ASK, "force push")["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_gemini_payloads_from_the_e2e_runs_do_not_say_the_mode():
    payloads = captured("gemini-e2e.jsonl")  # three from a default-mode run with an allow policy, three from yolo
    assert {tuple(p) for p in payloads} == {("session_id", "transcript_path", "cwd", "hook_event_name", "timestamp",
                                             "tool_name", "tool_input")}
    calls = [gemini.parse(p) for p in payloads]
    assert [c.command for c in calls] == ["echo hello > hello.txt", "rm -rf ~", ASKS_E2E] * 2
    assert all(c.mode == "" and c.call_id == "" and c.tool == "Bash" and c.cwd == "/w/proj" for c in calls)
    assert all(gemini.render(c, ASK, "?")["decision"] == "deny" for c in calls)  # an ask would hang gemini -p


ASKS_E2E = "git push --force-with-lease origin feature; touch pushed.txt"


# -- Cursor ----------------------------------------------------------------------------------
def test_cursor_documented_shell_and_mcp_and_pre_tool_use():
    shell = cursor.parse({"conversation_id": "c-1", "generation_id": "g-7", "model": "gpt-5",
                          "hook_event_name": "beforeShellExecution", "cursor_version": "2.0.77",
                          "workspace_roots": ["/home/u/proj"], "user_email": None,
                          "command": "npm install express", "cwd": "/home/u/proj"})
    assert (shell.tool, shell.command, shell.session, shell.cwd) == ("Bash", "npm install express", "c-1", "/home/u/proj")
    mcp = cursor.parse({"hook_event_name": "beforeMCPExecution", "conversation_id": "c-1", "generation_id": "g-7",
                        "workspace_roots": ["/home/u/proj"], "tool_name": "create_issue",
                        "tool_input": "{\"title\":\"x\"}", "url": "https://mcp.example.com/sse"})
    assert mcp.tool.startswith("mcp__") and mcp.tool.endswith("__create_issue") and mcp.input["title"] == "x"
    assert mcp.cwd == "/home/u/proj"  # no cwd: the first workspace root
    pre = cursor.parse({"hook_event_name": "preToolUse", "tool_name": "StrReplace", "tool_use_id": "t1",
                        "tool_input": {"file_path": "/p/a.py"}, "cwd": "/p"})
    assert (pre.tool, pre.call_id) == ("Edit", "t1")
    assert cursor.parse({"hook_event_name": "preToolUse", "tool_name": "Shell",
                         "tool_input": {"command": "ls"}}).tool == "Bash"
    assert cursor.parse({"hook_event_name": "preToolUse", "tool_name": "MCP:linear",
                         "tool_input": {}}).tool == "mcp__mcp__linear"
    read = cursor.parse({"hook_event_name": "beforeReadFile", "file_path": "/p/.env"})
    assert (read.tool, read.file_path) == ("Read", "/p/.env")


def test_cursor_answers():
    call = call_of(cursor, "beforeShellExecution")
    assert cursor.render(call, ALLOW, "ok") == {"permission": "allow"}
    deny = cursor.render(call, DENY, "bad")
    assert deny["permission"] == "deny" and "Do not retry" in deny["agent_message"] and deny["user_message"]
    assert cursor.render(call, ASK, "?")["permission"] == "ask"
    assert cursor.render(call_of(cursor, "beforeReadFile", "Read"), ASK, "?")["permission"] == "deny"


# -- docker-agent ----------------------------------------------------------------------------
def test_docker_agent_documented_payloads():
    call = docker_agent.parse({"session_id": "abc123", "cwd": "/path/to/project", "hook_event_name": "permission_request",
                               "agent_name": "root", "tool_name": "shell", "tool_use_id": "call_xyz",
                               "tool_input": {"cmd": "rm -rf /tmp/cache", "cwd": "."}})
    assert (call.tool, call.command, call.cwd, call.event, call.call_id) == \
        ("Bash", "rm -rf /tmp/cache", "/path/to/project", "permission_request", "call_xyz")
    pre = docker_agent.parse({"session_id": "abc123", "cwd": "/p", "hook_event_name": "pre_tool_use",
                              "tool_name": "shell", "tool_use_id": "call_xyz",
                              "tool_input": {"cmd": "make", "cwd": "sub"}})
    assert pre.cwd == "/p/sub" and pre.event == "pre_tool_use"
    write = docker_agent.parse({"hook_event_name": "tool_guard", "tool_name": "write_file", "cwd": "/p",
                                "tool_input": {"path": "notes.txt", "content": "x"}})
    assert (write.tool, write.file_path) == ("Write", "/p/notes.txt")
    edit = docker_agent.parse({"hook_event_name": "pre_tool_use", "tool_name": "edit_file", "cwd": "/p",
                               "tool_input": {"path": "/p/a.go", "edits": [{"oldText": "a", "newText": "b"}]}})
    assert (edit.tool, edit.file_path) == ("Edit", "/p/a.go")


def test_docker_agent_answers():
    pre = call_of(docker_agent, "pre_tool_use")
    out = docker_agent.render(pre, DENY, "bad")["hook_specific_output"]
    assert out["hook_event_name"] == "pre_tool_use" and out["permission_decision"] == "deny"
    assert "Do not retry" in out["permission_decision_reason"]
    assert docker_agent.render(pre, ALLOW, "ok")["hook_specific_output"]["permission_decision"] == "allow"
    assert docker_agent.render(pre, ASK, "?")["hook_specific_output"]["permission_decision"] == "ask"
    perm = call_of(docker_agent, "permission_request")
    assert docker_agent.render(perm, ASK, "?") is None  # fall through to docker-agent's own prompt
    assert docker_agent.render(perm, ALLOW, "ok")["hook_specific_output"]["hook_event_name"] == "permission_request"


# -- every agent -----------------------------------------------------------------------------
@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("payload", [[], "text", {"tool_name": 3}, {"tool_input": {}},
                                     {"tool_name": "Bash", "tool_input": "rm -rf /"}])
def test_malformed_payloads_raise_payload_errors(agent, payload):
    adapter = adapter_for(agent)
    with pytest.raises(base.PayloadError):
        adapter.parse(payload, "beforeMCPExecution" if agent == "cursor" else None)


@pytest.mark.parametrize("agent", AGENTS)
def test_an_event_guardtui_does_not_decide_is_unsupported(agent):
    with pytest.raises(base.UnsupportedEvent):
        adapter_for(agent).parse({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}})


@pytest.mark.parametrize("agent", AGENTS)
def test_fail_safe_answers_never_allow(agent):
    adapter = adapter_for(agent)
    for event in (*adapter.EVENTS, "Nonsense"):
        answer = json.dumps(adapter.fail_safe(event, "broken"))
        assert '"allow"' not in answer and "approve" not in answer
    expected = {"claude": "ask", "codex": "deny", "gemini": "deny", "cursor": "ask", "docker-agent": "ask"}[agent]
    assert expected in json.dumps(adapter.fail_safe(adapter.DEFAULT_EVENT, "broken"))


@pytest.mark.parametrize("agent", AGENTS)
def test_the_hook_client_knows_each_agents_default_timeout(agent):
    assert hook.TIMEOUTS[agent] == adapter_for(agent).HOOK_TIMEOUT_S


def test_tool_names_normalise_to_one_spelling():
    assert {normalise_tool(n) for n in ("Bash", "shell", "run_shell_command", "exec_command", "Shell")} == {"Bash"}
    assert normalise_tool("write_file") == "Write" and normalise_tool("StrReplace") == "Edit"
    assert normalise_tool("MultiEdit") == "MultiEdit" and normalise_tool("grep_search") == "Grep"
    assert normalise_tool("mcp__github__create_issue") == "mcp__github__create_issue"
    assert normalise_tool("mcp:github:create_issue") == "mcp__github__create_issue"
    assert normalise_tool("MCP:linear") == "mcp__mcp__linear"  # Cursor names no server
