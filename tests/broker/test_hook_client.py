"""The command hook as agents run it: the command `guardtui install` writes, through `sh -c`, with
the payload on stdin; against a live broker, and with none (offline)."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys

import pytest

from guardtui import hook_client as hook
from guardtui.commands.install import hook_command
from guardtui.core.config import Locations

from .conftest import decision_of, payload, until

ASKS = "git push --force-with-lease origin feature"  # asks on any machine with git


async def run_hook(command: str, stdin: bytes, env: dict | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec("sh", "-c", command, stdin=asyncio.subprocess.PIPE,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env=env)
    out, err = await proc.communicate(stdin)
    return proc.returncode, out.decode(), err.decode()


def body(command: str, cwd: str, **kw) -> bytes:
    return json.dumps(payload(command, cwd=cwd, **kw)).encode()


@pytest.fixture
def project(tmp_path) -> str:
    path = tmp_path / "project"
    path.mkdir()
    return str(path)


async def test_online_the_broker_answers(start_broker, project):
    broker = await start_broker()
    code, out, err = await run_hook(hook_command("claude"), body("rm -rf ~", project))
    assert code == 0 and err == "" and decision_of(json.loads(out)) == "deny"
    assert "deletes your home directory" in out
    code, out, _ = await run_hook(hook_command("claude"), body("ls", project))
    assert decision_of(json.loads(out)) == "allow"
    assert len(broker.engine.audit.entries()) == 2  # judged by the broker, not locally


async def test_online_an_ask_waits_for_the_person(start_broker, project):
    broker = await start_broker()
    task = asyncio.create_task(run_hook(hook_command("gemini"), json.dumps(
        {"hook_event_name": "BeforeTool", "cwd": "/home/user/project", "tool_name": "run_shell_command",
         "tool_input": {"command": "npm install left-pad"}}).encode()))
    await until(lambda: len(broker.queue) == 1)
    broker.queue.deny(broker.queue.pending()[0].id, "not now")
    code, out, err = await task
    assert code == 0 and json.loads(out)["decision"] == "deny" and "not now" in out


async def test_offline_judges_here_and_hands_asks_back(short_runtime, project):
    code, out, err = await run_hook(hook_command("claude"), body("rm -rf ~", project))
    assert code == 0 and decision_of(json.loads(out)) == "deny"
    code, out, err = await run_hook(hook_command("claude"), body(ASKS, project))
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask" and "no guardtui console is running" in \
        answer["permissionDecisionReason"]
    code, out, _ = await run_hook(hook_command("claude"), body("ls", project))
    assert decision_of(json.loads(out)) == "allow"
    audit = [(e.verdict, e.decided_by) for e in _audit()]
    assert audit == [("deny", "rule"), ("ask", "policy"), ("allow", "rule")]


async def test_offline_an_ask_for_gemini_is_denied_not_handed_back(short_runtime, project):
    """`{"decision": "ask"}` would leave a headless `gemini -p` waiting forever."""
    gemini = json.dumps({"hook_event_name": "BeforeTool", "cwd": project, "tool_name": "run_shell_command",
                         "tool_input": {"command": ASKS}}).encode()
    code, out, err = await run_hook(hook_command("gemini"), gemini)
    answer = json.loads(out)
    assert code == 0 and answer["decision"] == "deny" and "no guardtui console is running" in answer["reason"]
    assert [(e.verdict, e.decided_by) for e in _audit()] == [("deny", "policy")]


async def test_offline_deny_policy(short_runtime, project):
    code, out, _ = await run_hook(hook_command("claude") + " --offline deny", body(ASKS, project))
    assert decision_of(json.loads(out)) == "deny"
    code, out, _ = await run_hook(hook_command("claude"), body(ASKS, project, event="PermissionRequest"))
    assert code == 0 and out == ""  # no decision: Claude Code's own dialog


@pytest.mark.parametrize("online", [True, False])
@pytest.mark.parametrize("stdin", [b"", b"{oops", b"[]", b'{"tool_name": "Bash", "tool_input": "x"}'])
async def test_malformed_input_one_line_on_stderr_and_the_fail_safe_answer(start_broker, short_runtime, online,
                                                                            stdin):
    if online:
        await start_broker()
    for agent, expected in (("claude", "ask"), ("codex", "deny"), ("cursor", "ask")):
        code, out, err = await run_hook(hook_command(agent), stdin)
        assert code == 0 and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 and err.startswith("guardtui hook: ")
        assert '"allow"' not in out and expected in out


async def test_usage_errors_block(short_runtime):
    code, out, err = await run_hook(hook_command("claude").replace(" claude ", " nobody "), b"{}")
    assert code == hook.BLOCK and out == "" and "agent must be one of" in err


async def test_when_even_the_engine_cannot_load_the_hook_blocks(short_runtime, tmp_path):
    broken = tmp_path / "broken" / "guardtui"  # an installation whose package does not import
    broken.mkdir(parents=True)
    shutil.copy(os.path.join(os.path.dirname(hook.__file__), "hook.py"), broken / "hook.py")  # the launcher
    (broken / "__init__.py").write_text("raise ImportError('a broken installation')\n")
    code, out, err = await run_hook(f"{sys.executable} -S {broken / 'hook.py'} claude", b"{}")
    assert code == hook.BLOCK and out == "" and "blocking it" in err and "Traceback" not in err


def test_the_full_cli_runs_the_same_hook(short_runtime, project):
    proc = subprocess.run([sys.executable, "-m", "guardtui", "hook", "claude", "--event", "PreToolUse"],
                          input=body("rm -rf ~", project), capture_output=True)
    assert proc.returncode == 0 and decision_of(json.loads(proc.stdout)) == "deny"


@pytest.mark.parametrize("env", [
    {"GUARDTUI_RUNTIME_DIR": "/somewhere/rt"},
    {"XDG_RUNTIME_DIR": "{tmp}"},
    {"XDG_RUNTIME_DIR": "/does/not/exist"},
    {"TMPDIR": "{tmp}"},
    {},
])
def test_the_hook_finds_the_socket_where_the_broker_puts_it(env, tmp_path, monkeypatch):
    import tempfile

    for name in ("GUARDTUI_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() caches its answer
    assert hook.socket_path(hook.Environ()) == hook.socket_path(os.environ) == str(Locations.from_env().socket_path)


def test_arguments():
    assert hook.parse_args(["codex", "--event=PermissionRequest", "--timeout", "30"]) == \
        {"agent": "codex", "event": "PermissionRequest", "offline": "ask", "timeout": 30.0}
    for bad in (["claude", "--event", "a b"], ["claude", "--offline", "maybe"], ["claude", "--timeout", "x"],
                ["claude", "extra"], ["claude", "--frob"], []):
        with pytest.raises(hook.Usage):
            hook.parse_args(bad)


async def test_the_hook_imports_nothing_heavy_on_its_way_to_the_broker(start_broker):
    """All the way: the broker's directory, socket and key checked, the proof computed and compared."""
    await start_broker()
    code = ("import sys\n"
            "before = set(sys.modules)\n"
            "source = open(%r).read()\n"
            "h = {'__name__': 'probe'}\n"
            "exec(compile(source, 'hook_client.py', 'exec'), h)\n"
            "answer = h['ask_broker'](h['socket_path'](h['Environ']()), 'claude', None, 1.0, %r)\n"
            "assert answer[0] == '200' and 'allow' in answer[1], answer\n"
            "print(' '.join(sorted(set(sys.modules) - before)))\n") % (hook.__file__, body("ls", "/tmp"))
    proc = await asyncio.create_subprocess_exec(sys.executable, "-S", "-c", code, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    loaded = set(out.decode().split())
    assert loaded <= {"_socket", "_sha256", "_sha2"}, loaded  # not os, json, socket, hashlib, hmac, guardtui, ...


def test_the_launcher_is_small_so_compiling_it_costs_nothing():
    """Python compiles a script run by path on every start; the hook's body comes from bytecode."""
    launcher = os.path.join(os.path.dirname(hook.__file__), "hook.py")
    assert len(open(launcher).read().splitlines()) < 25


def _audit():
    from guardtui.core.audit import AuditLog

    return AuditLog(Locations.from_env().audit_db).entries()
