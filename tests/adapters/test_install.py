"""guardtui install / uninstall: merge into each agent's settings, idempotent, backed up, and
removing exactly guardtui's own entries; the token only in user-local files."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from guardtui.commands import install as inst
from guardtui.core.config import Locations


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "guardtui", *args], capture_output=True, text=True, cwd=cwd,
                          env=os.environ.copy())


THEIRS = {"permissions": {"allow": ["Bash(npm test)"]}, "model": "opus",
          "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "lint.sh"}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}}


def test_claude_merges_keeps_theirs_is_idempotent_and_backs_up(isolated_env, tmp_path):
    project = tmp_path / "p"
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIRS))
    first = run("install", "claude", "--project", str(project))
    assert first.returncode == 0 and "installed (command hook)" in first.stdout
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == THEIRS["permissions"] and merged["model"] == "opus"
    assert merged["hooks"]["Stop"] == THEIRS["hooks"]["Stop"]
    pre = merged["hooks"]["PreToolUse"]
    assert pre[0] == THEIRS["hooks"]["PreToolUse"][0]
    assert pre[1]["matcher"] == "*" and pre[1]["hooks"][0]["type"] == "command"
    command = pre[1]["hooks"][0]["command"]
    assert command.startswith(sys.executable) and " -S " in command and command.endswith("hook.py claude --timeout 600")
    backup = settings.with_name(settings.name + ".guardtui.bak")
    assert json.loads(backup.read_text()) == THEIRS
    before = settings.read_text()
    second = run("install", "claude", "--project", str(project))
    assert "already installed" in second.stdout and settings.read_text() == before
    assert run("uninstall", "claude", "--project", str(project)).returncode == 0
    assert json.loads(settings.read_text()) == THEIRS


def test_claude_http_entry_carries_the_token_only_in_a_private_local_file(isolated_env, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    done = run("install", "claude", "--project", str(project), "--http", "--port", "9911")
    assert done.returncode == 0, done.stderr
    local = project / ".claude" / "settings.local.json"
    assert not (project / ".claude" / "settings.json").exists()  # the committed file is untouched
    handler = json.loads(local.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    token = Locations.from_env().token_file.read_text().strip()
    assert handler["url"] == "http://127.0.0.1:9911/hooks/claude?timeout=600"
    assert handler["headers"] == {"Authorization": f"Bearer {token}"} and "allowedEnvVars" not in handler
    assert stat.S_IMODE(local.stat().st_mode) == 0o600
    # switching to the command hook replaces the HTTP one
    run("install", "claude", "--project", str(project), "--command")
    handlers = [h for g in json.loads(local.read_text())["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert [h["type"] for h in handlers] == ["command"]


def test_user_settings_and_default_port(isolated_env):
    assert run("install", "claude", "--user", "--http").returncode == 0
    settings = json.loads((isolated_env / "home" / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["url"].startswith("http://127.0.0.1:8765/")


def test_codex_installs_pre_tool_use_and_permission_request(isolated_env, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no codex: trust cannot be recorded (the e2e tests do)
    done = run("install", "codex", "--user")
    assert done.returncode == 1  # written, but not in force: not a success
    assert "`codex` is not on PATH" in done.stdout and "does NOT guard Codex" in done.stdout and "/hooks" in done.stdout
    data = json.loads((tmp_path / "codex-home" / "hooks.json").read_text())
    assert set(data) == {"hooks"} and set(data["hooks"]) == {"PreToolUse", "PermissionRequest"}
    assert data["hooks"]["PermissionRequest"][0]["hooks"][0]["command"].endswith("codex --timeout 600")
    assert run("install", "codex", "--http").returncode == 1  # Codex has no HTTP hooks
    run("uninstall", "codex", "--user")
    assert not (tmp_path / "codex-home" / "hooks.json").exists()  # guardtui made it, and it held nothing else


def test_uninstall_without_a_kind_removes_every_guardtui_entry_and_names_what_it_removed(isolated_env, tmp_path):
    settings = isolated_env / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIRS))
    assert run("install", "claude", "--user", "--http").returncode == 0
    done = run("uninstall", "claude", "--user")
    assert done.returncode == 0 and "removed (HTTP hook) in" in done.stdout and "command hook" not in done.stdout
    assert json.loads(settings.read_text()) == THEIRS
    run("install", "claude", "--user", "--http")
    only_command = run("uninstall", "claude", "--user", "--command")
    assert "nothing to remove (command hook)" in only_command.stdout  # the HTTP hook stays
    assert json.loads(settings.read_text())["hooks"]["PreToolUse"][-1]["hooks"][0]["type"] == "http"
    assert "removed (HTTP hook)" in run("uninstall", "claude", "--user", "--http").stdout


@pytest.mark.parametrize("agent, relative", [("claude", ".claude/settings.local.json"),
                                             ("cursor", ".cursor/hooks.json"), ("gemini", ".gemini/settings.json")])
def test_uninstall_leaves_no_empty_file_behind_in_a_file_guardtui_made(isolated_env, tmp_path, agent, relative):
    project = tmp_path / "p"
    project.mkdir()
    assert run("install", agent, "--project", str(project)).returncode == 0
    assert (project / relative).exists()
    done = run("uninstall", agent, "--project", str(project))
    assert done.returncode == 0 and "nothing else was in the file, so it is gone" in done.stdout
    assert not (project / relative).exists()


def test_an_http_hook_names_the_running_consoles_port(isolated_env, tmp_path, short_runtime):
    import asyncio

    from guardtui.broker.queue import PendingQueue
    from guardtui.broker.server import Broker
    from guardtui.core.factory import build_engine

    without = run("install", "claude", "--user", "--http")
    assert "no console is running, so the hook names port 8765" in without.stdout
    engine = build_engine(Locations.from_env(), record=False)
    broker = Broker(engine, PendingQueue(engine), Locations.from_env(), port=0)

    async def with_a_console() -> subprocess.CompletedProcess:
        await broker.start()
        try:
            return await asyncio.to_thread(run, "install", "claude", "--user", "--http")
        finally:
            await broker.stop()

    done = asyncio.run(with_a_console())
    handler = json.loads((isolated_env / "home" / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"][0]
    assert handler["hooks"][0]["url"].startswith(f"http://127.0.0.1:{broker_port(done)}/hooks/")
    assert f"HTTP hook to 127.0.0.1:{broker_port(done)}" in done.stdout and "no console" not in done.stdout
    assert not (Locations.from_env().runtime_dir / "broker.port").exists()  # gone with the console


def broker_port(done: subprocess.CompletedProcess) -> int:
    import re

    port = int(re.search(r"HTTP hook to 127\.0\.0\.1:(\d+)", done.stdout).group(1))
    assert port != 8765
    return port


def test_a_codex_that_cannot_be_asked_is_one_line_and_a_failure(isolated_env, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "codex"
    fake.write_text("#!/bin/sh\necho not a codex\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    done = run("install", "codex", "--user")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("guardtui install codex: ") and len(done.stderr.splitlines()) == 1
    assert "exited (status 3) before answering initialize" in done.stderr and "does NOT guard Codex" in done.stdout
    assert json.loads((tmp_path / "codex-home" / "hooks.json").read_text())["hooks"]  # the hooks are in place


def test_gemini_timeout_is_in_milliseconds(isolated_env, tmp_path):
    project = tmp_path / "p"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "x"}}}))
    assert run("install", "gemini", "--project", str(project)).returncode == 0
    data = json.loads((project / ".gemini" / "settings.json").read_text())
    handler = data["hooks"]["BeforeTool"][0]["hooks"][0]
    assert handler["timeout"] == 600_000 and handler["name"] == "guardtui" and data["security"]
    run("uninstall", "gemini", "--project", str(project))
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == {"security": {"auth": {"selectedType": "x"}}}


def test_cursor_flat_handlers_fail_closed(isolated_env, tmp_path):
    project = tmp_path / "p"
    hooks = project / ".cursor" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    theirs = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}],
                                      "beforeShellExecution": [{"command": "./audit.sh"}]}}
    hooks.write_text(json.dumps(theirs))
    assert run("install", "cursor", "--project", str(project)).returncode == 0
    data = json.loads(hooks.read_text())
    shell = data["hooks"]["beforeShellExecution"]
    assert shell[0] == {"command": "./audit.sh"} and shell[1]["failClosed"] is True
    assert set(data["hooks"]) == {"afterFileEdit", "beforeShellExecution", "beforeMCPExecution", "preToolUse"}
    run("uninstall", "cursor", "--project", str(project))
    assert json.loads(hooks.read_text()) == theirs


def test_docker_agent_drop_in(isolated_env, tmp_path, monkeypatch):
    import yaml

    monkeypatch.setenv("DOCKER_AGENT_CONFIG_DIR", str(tmp_path / "da"))
    assert run("install", "docker-agent").returncode == 0
    drop_in = tmp_path / "da" / "hooks.d" / "50-guardtui.yaml"
    data = yaml.safe_load(drop_in.read_text())
    group = data["pre_tool_use"][0]
    assert group["preempt_yolo"] is True and group["hooks"][0]["command"].endswith("docker-agent --timeout 600")
    assert "use --user" in run("install", "docker-agent", "--project", ".").stderr
    assert run("uninstall", "docker-agent").returncode == 0 and not drop_in.exists()


def test_a_broken_settings_file_is_left_alone(isolated_env, tmp_path):
    project = tmp_path / "p"
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{ not json")
    done = run("install", "claude", "--project", str(project))
    assert done.returncode == 1 and "not valid JSON" in done.stderr and settings.read_text() == "{ not json"


@pytest.mark.parametrize("handler, ours", [
    ({"type": "command", "command": "/v/bin/python3 -S /v/lib/guardtui/hook.py claude --timeout 600"}, True),
    ({"type": "command", "command": "guardtui hook codex"}, True),
    ({"type": "http", "url": "http://127.0.0.1:8765/hooks/claude"}, True),
    ({"type": "http", "url": "http://localhost:9/hooks/claude?timeout=600"}, True),
    ({"type": "http", "url": "https://example.com/hooks/claude"}, False),
    ({"type": "command", "command": "./my-guardtui-notes.sh"}, False),
    ({"type": "command", "command": "lint.sh"}, False),
])
def test_only_guardtuis_entries_are_recognised(handler, ours):
    assert inst.is_ours(handler) is ours
