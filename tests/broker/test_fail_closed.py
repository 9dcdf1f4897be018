"""Fail closed, through the real paths: payloads the guard cannot judge (a shell command that is
not text, JSON built to break the reader) over real HTTP, the real Unix socket, the real command
hook as a subprocess and `guardtui check --batch`; and an audit log that cannot be written, which
must never change a verdict."""
from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from guardtui.broker.queue import Outcome
from guardtui.commands.install import hook_command

from .conftest import PROJECT, decision_of, post, post_unix, until
from .test_hook_client import run_hook

NOT_TEXT = {"list": ["rm", "-rf", "/"], "number": 7, "object": {"cmd": "rm -rf /"}, "null": None}
MISSING = object()


def shell_payload(agent: str, command, event: str | None = None) -> dict:
    """Each agent's own shell call, with `command` as given (MISSING: no command key at all)."""
    tool_input = {} if command is MISSING else {"command": command}
    base = {"session_id": "s1", "cwd": PROJECT}
    if agent == "claude":
        return {**base, "hook_event_name": event or "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}
    if agent == "codex":
        return {**base, "hook_event_name": event or "PermissionRequest", "tool_name": "Bash",
                "tool_input": tool_input}
    if agent == "gemini":
        return {**base, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": tool_input}
    if agent == "cursor":
        if event == "beforeShellExecution":
            return {"hook_event_name": event, "cwd": PROJECT, **tool_input}
        return {"hook_event_name": "preToolUse", "cwd": PROJECT, "tool_name": "Shell", "tool_input": tool_input}
    assert agent == "docker-agent"
    tool_input = {} if command is MISSING else {"cmd": command}
    return {**base, "hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": tool_input}


SHAPES = [("claude", None), ("claude", "PermissionRequest"), ("codex", None), ("codex", "PreToolUse"),
          ("gemini", None), ("cursor", None), ("cursor", "beforeShellExecution"), ("docker-agent", None)]


def allows(answer: dict | None) -> bool:
    """Does an agent's answer let the call run? (Codex PermissionRequest `{"behavior": "allow"}`,
    Cursor `{"permission": "allow"}`, Claude `permissionDecision: allow`, docker-agent's, ...)"""
    text = json.dumps(answer)
    return '"allow"' in text or answer == {}  # Gemini's `{}` is "no objection"


def safe_side(agent: str, event: str | None, answer: dict | None) -> bool:
    """The agent's fail-safe answer: ask where it can ask, deny where it cannot, or no decision
    where that stops at the agent's own prompt (Codex and Claude PermissionRequest)."""
    if allows(answer):
        return False
    if answer is None:  # no decision: the agent's own approval prompt
        return agent in ("claude", "codex") and (event or "PermissionRequest") == "PermissionRequest" and \
            (agent == "codex" or event == "PermissionRequest")
    text = json.dumps(answer)
    return '"deny"' in text or '"ask"' in text


@pytest.mark.parametrize("agent,event", SHAPES)
@pytest.mark.parametrize("command", [*NOT_TEXT, "missing"])
async def test_a_shell_command_that_is_not_text_is_never_allowed_over_http(start_broker, agent, event, command):
    broker = await start_broker()
    value = MISSING if command == "missing" else NOT_TEXT[command]
    status, answer, headers = await post(broker, agent, shell_payload(agent, value, event))
    assert status == 200 and safe_side(agent, event, answer), answer
    error = headers["X-Guardtui-Error"]
    assert "command" in error and any(words in error for words in ("must be a string", "no command", 'no "command"'))
    assert len(broker.queue) == 0  # a fail-safe answer, not a question for the person


@pytest.mark.parametrize("agent,event", [("codex", None), ("cursor", None), ("claude", None), ("docker-agent", None)])
async def test_the_same_over_the_unix_socket(start_broker, agent, event):
    broker = await start_broker()
    for value in (*NOT_TEXT.values(), MISSING):
        status, answer, headers = await post_unix(broker, agent, shell_payload(agent, value, event))
        assert status == 200 and not allows(answer), answer
        assert "X-Guardtui-Error" in headers


@pytest.mark.parametrize("online", [True, False])
async def test_the_command_hook_never_allows_a_command_that_is_not_text(start_broker, short_runtime, online):
    if online:
        await start_broker()
    for agent, event in SHAPES:
        for value in (["rm", "-rf", "/"], None, MISSING):
            payload = json.dumps(shell_payload(agent, value, event)).encode()
            code, out, err = await run_hook(hook_command(agent) + (f" --event {event}" if event else ""), payload)
            answer = json.loads(out) if out.strip() else None
            assert code == 0 and not allows(answer), (agent, event, value, out)
            assert err.startswith("guardtui hook: ") and len(err.strip().splitlines()) == 1, err
            assert "command" in err and "Traceback" not in err


def test_check_batch_says_which_line_is_not_judged(isolated_env):
    lines = [json.dumps({"command": ["rm", "-rf", "/"]}), json.dumps({"command": None}),
             json.dumps({"tool_name": "Bash", "tool_input": {}}), json.dumps({"tool_name": "Bash", "tool_input":
                                                                             {"command": {"a": 1}}}),
             json.dumps({"tool_name": "Read", "tool_input": {"file_path": ["/etc/shadow"]}}),
             "[" * 3000 + "]" * 3000, json.dumps({"command": "ls"})]
    done = subprocess.run([sys.executable, "-m", "guardtui", "check", "--batch", "-"], input="\n".join(lines),
                          capture_output=True, text=True)
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r.get("verdict") for r in results] == [None] * 6 + ["allow"]
    assert results[0]["error"] == "line 1: the Bash call's command must be a string, not an array"
    assert results[2]["error"] == "line 3: the Bash call has no command"
    assert "file_path must be a string" in results[4]["error"]
    assert results[5]["error"] == "line 6: it is nested deeper than 64 levels" and "Traceback" not in done.stderr


def test_check_tool_refuses_an_input_it_cannot_judge(isolated_env):
    done = subprocess.run([sys.executable, "-m", "guardtui", "check", "--tool", "Bash", "--input",
                           '{"command": ["rm", "-rf", "/"]}'], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "guardtui check: --input: the Bash call's command must be a string, not an array"


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize("command,expected", [("guardtui uninstall claude --user", "deny"), ("ls", "ask")])
def test_a_payload_nested_too_deep_is_judged_by_what_can_be_read_and_never_allowed(make_engine, command, expected):
    from guardtui.adapters import claude
    from guardtui.core.model import Verdict
    from guardtui.judge import HookAnswer, read_call

    payload = {"session_id": "s", "cwd": PROJECT, "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command, "metadata": _nested(120)}}
    call = read_call(claude, json.dumps(payload).encode(), None)
    assert not isinstance(call, HookAnswer)
    decision = make_engine().evaluate(call, record=False)
    assert decision.verdict is Verdict(expected), decision.reason
    if expected == "ask":
        assert "nested too deep" in decision.reason



def test_the_reader_says_whether_it_cut_so_the_engine_need_not_walk_a_large_input(make_engine):
    """A wide, shallow input is read without walking every value (the judging budget is spent on
    judging); one nested past the limit is marked cut and never allowed; a lone surrogate hidden
    behind an escaped backslash's neighbour is still refused, and a plain escaped backslash is not."""
    from guardtui.adapters import claude
    from guardtui.core.model import Verdict
    from guardtui.judge import HookAnswer, read_call

    def read(tool_input: dict, raw_tail: bytes = b""):
        payload = {"session_id": "s", "cwd": PROJECT, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": tool_input}
        return read_call(claude, json.dumps(payload).encode() if not raw_tail else raw_tail, None)

    wide = read({"command": "ls", "rows": [{"id": i, "note": "x"} for i in range(20_000)]})
    assert wide.cut is False and make_engine().evaluate(wide, record=False).verdict is Verdict.ALLOW
    deep = read({"command": "ls", "metadata": _nested(120)})
    assert deep.cut is True and make_engine().evaluate(deep, record=False).verdict is Verdict.ASK
    hidden = read({}, b'{"tool_name": "Bash", "tool_input": {"command": "ls \\\\ \\ud800"}}')
    assert isinstance(hidden, HookAnswer) and "lone surrogate" in hidden.error
    backslash = read({}, b'{"tool_name": "Bash", "hook_event_name": "PreToolUse", "cwd": "/tmp", '
                         b'"tool_input": {"command": "echo \\\\ud800"}}')
    assert not isinstance(backslash, HookAnswer) and backslash.command == "echo \\ud800"


HOSTILE_JSON = {
    "nested 1,000 deep": b'{"tool_name": "Bash", "tool_input": {"command": "ls", "x": ' + b"[" * 1000 + b"]" * 1000
                         + b'}, "hook_event_name": "PreToolUse"}',
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "an integer of 100,000 digits": b'{"tool_name": "Bash", "tool_input": {"command": "ls", "n": ' + b"9" * 100_000
                                    + b"}}",
    "a lone surrogate": b'{"tool_name": "Bash", "tool_input": {"command": "rm -rf \\ud800"}}',
    "a tool input that is a list": b'{"tool_name": "Bash", "tool_input": ["rm -rf /"]}',
    "a file path that is a list": b'{"tool_name": "Write", "tool_input": {"file_path": ["/etc/passwd"]}}',
    "a tool name that is an object": b'{"tool_name": {"x": 1}, "tool_input": {"command": "ls"}}',
    "cursor roots of every type": b'{"hook_event_name": "preToolUse", "workspace_roots": [1, {}], '
                                  b'"tool_name": "Shell", "tool_input": {"command": 5}}',
}


@pytest.mark.parametrize("name", HOSTILE_JSON)
@pytest.mark.parametrize("agent", ["claude", "codex", "cursor", "gemini", "docker-agent"])
async def test_json_the_adapters_cannot_read_gets_the_fail_safe_answer_never_a_500(start_broker, name, agent):
    broker = await start_broker()
    status, answer, headers = await post(broker, agent, HOSTILE_JSON[name])
    assert status == 200, (status, answer)
    assert not allows(answer) and "X-Guardtui-Error" in headers


async def test_the_command_hook_reads_no_more_than_the_limit_and_fails_safe(short_runtime):
    from guardtui.judge import MAX_BODY

    big = b'{"tool_name": "Bash", "tool_input": {"command": "' + b"a" * (MAX_BODY + 10) + b'"}}'
    code, out, err = await run_hook(hook_command("claude"), big)
    assert code == 0 and decision_of(json.loads(out)) == "ask" and "larger than" in err


# -- an audit log that cannot be written -------------------------------------------------------
class Locked:
    """Another process holds the audit database's write lock (what `sqlite3 audit.db` with an open
    transaction, a backup tool or a second writer does): every write of ours fails as locked."""

    def __init__(self, path):
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.db.execute("BEGIN EXCLUSIVE")

    def release(self):
        self.db.execute("COMMIT")
        self.db.close()


@pytest.mark.parametrize("headless", [False, True])
async def test_a_locked_audit_log_never_changes_a_verdict_and_is_said_once(start_broker, headless):
    broker = await start_broker(ask_policy=Outcome.DENY if headless else None)
    events = []
    broker.engine.on_event = broker.queue.on_event = events.append
    lock = Locked(broker.engine.audit.path)
    try:
        status, answer, _ = await post(broker, "claude", shell_payload("claude", "rm -rf ~"))
        assert status == 200 and decision_of(answer) == "deny"  # not turned into an ask
        status, answer, _ = await post(broker, "claude", shell_payload("claude", "ls"))
        assert status == 200 and decision_of(answer) == "allow"
        if headless:  # an ask answered by the headless policy: not a 500
            status, answer, _ = await post(broker, "claude", shell_payload("claude", "git push --force origin x"))
            assert status == 200 and decision_of(answer) == "deny"
        else:  # the person answers; the record of it cannot be written
            task = asyncio.create_task(post(broker, "claude", shell_payload("claude", "git push --force origin x")))
            while not len(broker.queue):
                await asyncio.sleep(0.01)
            broker.queue.allow(broker.queue.pending()[0].id, via="key y")
            status, answer, _ = await task
            assert status == 200 and decision_of(answer) == "allow"
        await asyncio.get_running_loop().run_in_executor(None, broker.engine.audit.flush)  # written behind
    finally:
        lock.release()
    said = [e for e in events if e.kind == "audit-error"]
    assert len(said) == 1 and "cannot be written" in said[0].message and "database is locked" in said[0].message
    broker.engine.audit.clock = lambda: float("inf")  # the next write tries the file again
    await post(broker, "claude", shell_payload("claude", "pwd"))
    entries = broker.engine.audit.entries()
    assert [e.summary for e in entries] == ["rm -rf ~", "ls", "git push --force origin x", "pwd"]  # none lost
    said = [e.message for e in events if e.kind == "audit-error"]
    assert len(said) == 2 and "can be written again" in said[1]  # the recovery, said once too


async def test_the_offline_hook_keeps_its_verdict_when_the_audit_log_cannot_be_opened(short_runtime, tmp_path):
    from guardtui.core.config import Locations

    locations = Locations.from_env()
    locations.audit_db.parent.mkdir(parents=True, exist_ok=True)
    locations.audit_db.write_bytes(b"this is not a database" * 100)  # damaged: every write fails
    project = tmp_path / "p"
    project.mkdir()
    code, out, err = await run_hook(hook_command("claude"), json.dumps(shell_payload("claude", "rm -rf ~") | {
        "cwd": str(project)}).encode())
    assert code == 0 and decision_of(json.loads(out)) == "deny"
    assert "audit log" in err and "cannot be written" in err and "Traceback" not in err


async def test_a_project_with_plugin_files_built_to_block_is_answered_at_once_over_http(start_broker, tmp_path):
    """A FIFO and a link to /dev/zero among a project's plugins: over the real broker the call is
    answered (ask, naming the files) without waiting on them, and the user's own deny still holds."""
    from guardtui.core.config import Locations
    from guardtui.core.plugins import PluginRule, ProjectPlugins, load_plugin_set

    locations = Locations.from_env()
    locations.user_plugins_dir.mkdir(parents=True)
    (locations.user_plugins_dir / "no-curl.yaml").write_text(
        "patterns: [{match: '\\bcurl\\b', verdict: deny, reason: no curl on this machine}]\n")
    project = locations.home / "work" / "p"
    guards = project / ".guardtui" / "guards"
    guards.mkdir(parents=True)
    os.mkfifo(guards / "a-fifo.yaml")
    (guards / "zero.yaml").symlink_to("/dev/zero")
    watched = str(locations.home)
    rule = PluginRule(load_plugin_set(locations, watched).plugins, projects=ProjectPlugins(locations, watched))
    broker = await start_broker(plugin_rule=rule)
    asked = asyncio.create_task(post(broker, "claude", shell_payload("claude", "ls") | {"cwd": str(project)}))
    await until(lambda: len(broker.queue) == 1)  # it reached the person: nothing held the engine
    reason = broker.queue.pending()[0].decision.reason
    assert "a-fifo.yaml" in reason and "not a regular file" in reason, reason
    broker.queue.deny(broker.queue.pending()[0].id)
    assert decision_of((await asked)[1]) == "deny"
    status, answer, _ = await asyncio.wait_for(post(broker, "claude", shell_payload("claude", "curl x.example") | {
        "cwd": str(project)}), 20)
    assert decision_of(answer) == "deny" and "no curl" in json.dumps(answer)


def test_input_checks_go_by_tool_kind():
    from guardtui.core.inputs import tool_input_problem

    assert tool_input_problem("Bash", {"command": ["ls"]}) == "the Bash call's command must be a string, not an array"
    assert tool_input_problem("Read", {"file_path": {"a": 1}}) == \
        "the Read call's file_path must be a string, not an object"
    assert tool_input_problem("Write", {"content": "x"}).startswith("the Write call does not say which file")
    assert tool_input_problem("WebFetch", {"url": 5}) == "the WebFetch call's url must be a string, not a number"
    assert tool_input_problem("Read", {"file_path": None}) is None  # null: an optional field left empty
    assert tool_input_problem("Bash", {"command": ""}) is None  # nothing runs: judged, not refused
    # an MCP tool's arguments are its own: a list of paths is what some of them take
    assert tool_input_problem("mcp__fs__read_files", {"path": ["a", "b"]}) is None
