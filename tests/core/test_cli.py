"""The CLI contract of `guardtui check` and `guardtui log`, run as a real process."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from guardtui.core.audit import AuditLog
from guardtui.core.config import Locations
from guardtui.core.model import Decision, DecidedBy, ToolCall, Verdict


def guardtui(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "guardtui", *args], input=stdin, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_check_a_command_human_output_and_exit_status(isolated_env):
    out = guardtui("check", "--cwd", "/home/user/project", "--", "ls && rm -rf ~")
    assert out.returncode == 4
    assert out.stdout.startswith("DENY  critical  fs-delete")
    assert "rm -rf ~ deletes your home directory" in out.stdout and out.stderr == ""
    assert guardtui("check", "--", "ls -la").returncode == 0
    assert guardtui("check", "--", "git reset --hard").returncode == 3


def test_check_json_shape(isolated_env):
    out = guardtui("check", "--json", "--cwd", "/home/user/project", "--", "git push --force origin feature")
    data = json.loads(out.stdout)
    assert data["verdict"] == "ask" and data["blast_radius"] == "high" and data["category"] == "git"
    assert data["rule"] == "dangerous-shell/git.push-force" and "rewrites" in data["reason"]


def test_check_words_after_double_dash_are_joined_as_argv(isolated_env):
    out = guardtui("check", "--json", "--", "rm", "-rf", "/")
    assert json.loads(out.stdout)["verdict"] == "deny"


def test_check_a_tool_call(isolated_env):
    out = guardtui("check", "--json", "--cwd", "/home/user/project", "--tool", "write_file", "--input",
                   json.dumps({"file_path": "/etc/hosts", "content": "x"}))
    assert json.loads(out.stdout)["verdict"] == "ask" and out.returncode == 3
    bad = guardtui("check", "--tool", "Write", "--input", "{not json")
    assert bad.returncode == 2 and bad.stderr.startswith("guardtui check: --input is not valid JSON")
    assert "Traceback" not in bad.stderr


def test_check_needs_exactly_one_thing_to_judge(isolated_env):
    out = guardtui("check")
    assert out.returncode == 2 and "give a command" in out.stderr


def test_batch_reads_json_lines_and_keeps_going_after_bad_ones(isolated_env, tmp_path):
    lines = [
        json.dumps({"command": "rm -rf /"}),
        "{broken",
        json.dumps(["not", "an", "object"]),
        json.dumps({"tool_name": "Bash", "tool_input": {"command": "frobnicate"}, "cwd": "/home/user/project"}),
        json.dumps({"tool_name": "Write", "tool_input": {"file_path": "/etc/passwd"}, "cwd": "/x"}),
        json.dumps({"nothing": 1}),
        json.dumps({"command": 42}),
        "",
        json.dumps({"tool_name": "Bash", "tool_input": "ls"}),
        json.dumps({"command": "ls", "cwd": ""}),
        json.dumps({"command": "echo ok"}),
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = guardtui("check", "--batch", str(source), env={"PATH": "/nonexistent-bin:" + os.environ["PATH"]})
    assert out.returncode == 0, out.stderr
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == 10  # the empty line is not an input
    assert results[0]["verdict"] == "deny" and set(results[0]) >= {"verdict", "reason", "rule", "blast_radius",
                                                                   "category"}
    assert results[1]["error"].startswith("line 2: it is not valid JSON")
    assert results[2]["error"] == "line 3: expected a JSON object, got list"
    assert results[3]["verdict"] in ("ask", "allow")
    assert results[4]["verdict"] == "ask"
    assert results[5]["error"] == 'line 6: needs "command" or "tool_name"'
    assert results[6]["error"] == "line 7: the Bash call's command must be a string, not a number"
    assert results[7]["error"] == 'line 9: "tool_input" must be a JSON object'
    assert results[8]["error"] == 'line 10: "cwd" must be a non-empty string'
    assert results[9]["verdict"] == "allow"


def test_batch_goes_on_past_lines_that_break_the_reader(isolated_env, tmp_path):
    """Bytes that are not UTF-8, JSON nested past the parser's depth, a relative cwd: each line is
    answered with its own error or verdict, and the lines after it are still judged."""
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"command": "ls"}\n'
                       b'\xff\xfe{"command": "ls"}\n'
                       + b"[" * 100_000 + b"\n"
                       + b'{"command": "rm -rf ~", "cwd": "sub/dir"}\n'
                       b'{"command": "pwd"}\n')
    out = guardtui("check", "--batch", str(source))
    assert out.returncode == 0 and out.stderr == ""
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r.get("verdict") or r["error"] for r in results] == [
        "allow", "line 2: it is not UTF-8 text", "line 3: it is nested deeper than 64 levels", "deny", "allow"]


def test_check_through_the_standby_says_what_check_says_here(isolated_env, short_runtime):
    """A single check is judged by the standby the command hook uses when one runs; the report is the same."""
    import asyncio

    from guardtui.broker.standby import Standby

    from ..broker.test_standby import standby_socket

    socket = standby_socket(os.environ)
    standby = Standby(Locations.from_env(), socket)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(standby.start())
    thread = __import__("threading").Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        for args in (["--", "ls && rm -rf ~"], ["--json", "--", "git push --force origin x"],
                     ["--tool", "write_file", "--input", '{"file_path": "/etc/hosts"}'], ["--", "frobnicate"]):
            here = guardtui("check", "--cwd", "/home/user/project", *args)
            there = guardtui("check", "--cwd", "/home/user/project", *args, env={"GUARDTUI_STANDBY": "1"})
            assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
        assert standby.served == 4
        probe = ("import sys, contextlib, io\n"
                 "from guardtui.cli import main\n"
                 "with contextlib.redirect_stdout(io.StringIO()):\n"
                 "    status = main(['check', '--', 'ls'])\n"
                 "print(status, sorted(m for m in ('argparse', 'json', 'guardtui.core.engine') if m in sys.modules))\n")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "GUARDTUI_STANDBY": "1"})
        assert out.stdout.split() == ["0", "[]"], out  # answered with nothing heavy imported
        assert standby.served == 5
    finally:
        asyncio.run_coroutine_threadsafe(standby.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def test_batch_from_stdin_shows_escalation_as_ask(isolated_env):
    fake_bin = isolated_env / "bin"
    fake_bin.mkdir()
    tool = fake_bin / "frobnicate"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    out = guardtui("check", "--batch", "-", stdin=json.dumps({"command": "frobnicate --all"}) + "\n",
                   env={"PATH": f"{fake_bin}:{os.environ['PATH']}"})
    [result] = [json.loads(line) for line in out.stdout.splitlines()]
    assert result["verdict"] == "ask" and result["escalation"] == "llm"


def test_missing_batch_file_is_a_one_line_error(isolated_env):
    out = guardtui("check", "--batch", "/nonexistent/in.jsonl")
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0 and "No such file" in out.stderr


def test_empty_home_and_xdg_give_the_built_in_defaults(isolated_env):
    out = guardtui("check", "--json", "--cwd", "/home/user/project", "--", "rm -rf ~")
    assert json.loads(out.stdout)["verdict"] == "deny"  # even though HOME is under the temp dir
    assert not (isolated_env / "home" / ".config" / "guardtui").exists()  # check writes nothing


def test_log_prints_the_audit_log(isolated_env):
    empty = guardtui("log")
    assert empty.returncode == 0 and "no decisions recorded yet" in empty.stderr
    log = AuditLog(Locations.from_env().audit_db)
    for i in range(3):
        log.record(ToolCall("Bash", {"command": f"echo {i}"}, "/p", agent="claude"),
                   Decision(Verdict.ALLOW, "fine", "default"), DecidedBy.RULE, 0.2)
    log.record(ToolCall("Bash", {"command": "rm -rf ~"}, "/p", agent="codex"),
               Decision(Verdict.DENY, "deletes home", "dangerous-shell"), DecidedBy.PERSON, 900.0)
    log.close()
    as_json = [json.loads(line) for line in guardtui("log", "--json", "--limit", "2").stdout.splitlines()]
    assert [e["summary"] for e in as_json] == ["echo 2", "rm -rf ~"]
    assert as_json[1]["decided_by"] == "person" and as_json[1]["verdict"] == "deny"
    human = guardtui("log", "--verdict", "deny").stdout
    assert "rm -rf ~" in human and "echo 0" not in human
    assert guardtui("log", "--limit", "0").returncode == 2


@pytest.mark.parametrize("args", [["--version"], ["check", "--help"]])
def test_help_and_version_work(args):
    out = guardtui(*args)
    assert out.returncode == 0 and out.stdout


@pytest.mark.parametrize("argv, expected", [
    (["--port", "9100"], ("console", 9100, False)),
    (["--no-bell"], ("console", None, True)),
    (["--no-bell", "--port", "9101", "console"], ("console", 9101, True)),
    (["console", "--port", "9102"], ("console", 9102, False)),
    ([], ("console", None, False)),
])
def test_bare_guardtui_takes_the_consoles_options(argv, expected, monkeypatch):
    from guardtui import cli

    seen = []

    class Console:
        @staticmethod
        def run(args, command):
            seen.append((command, args.port, args.no_bell))
            return 0

    monkeypatch.setattr(cli.importlib, "import_module", lambda name: Console)
    assert cli.main(argv) == 0 and seen == [expected]


def test_a_console_option_before_another_command_is_a_usage_error():
    out = guardtui("--port", "9100", "check", "--", "ls")
    assert out.returncode == 2 and "--port is an option of the console, not of check" in out.stderr


def test_the_cli_and_the_broker_agree_on_the_default_port():
    from guardtui.broker.server import DEFAULT_PORT
    from guardtui.commands import arguments

    assert arguments.DEFAULT_PORT == DEFAULT_PORT and f"(default: {DEFAULT_PORT})" in guardtui("console", "--help").stdout


def test_a_console_whose_port_is_taken_says_so_in_one_line_and_does_not_open(isolated_env, short_runtime):
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        out = guardtui("--port", str(taken.getsockname()[1]))
    finally:
        taken.close()
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("guardtui: cannot listen on 127.0.0.1:") and out.stderr.count("\n") == 1


def test_a_second_console_says_the_first_one_runs(isolated_env, short_runtime):
    import socket

    from guardtui.core.config import ensure_private_dir

    path = Locations.from_env().socket_path
    ensure_private_dir(path.parent)
    first = socket.socket(socket.AF_UNIX)
    first.bind(str(path))
    first.listen()
    try:
        out = guardtui("--port", "0")
    finally:
        first.close()
    assert out.returncode == 1 and "another guardtui console (or guardtui serve) is running" in out.stderr


def test_rules_examples_names_the_shipped_example_plugins(isolated_env):
    out = guardtui("rules", "--examples")
    folder = out.stdout.strip()
    assert out.returncode == 0 and os.path.isfile(os.path.join(folder, "no-network.yaml"))
