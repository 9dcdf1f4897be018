"""End to end with the real Claude Code CLI, driven by a scripted fake of the Anthropic API.

The CLI comes from npm (`@anthropic-ai/claude-code`, pinned below). It is installed into
~/.cache/claude-e2e the first time (a fresh CI machine: the npm registry is reachable), or taken
from $GUARDTUI_CLAUDE. Set GUARDTUI_SKIP_E2E=1 to skip these tests on a machine without node.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

CLAUDE_VERSION = "2.1.328"
HERE = Path(__file__).parent


def _platform_package() -> str:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower(),
                                                                                    platform.machine())
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system().lower())
    return f"claude-code-{system}-{arch}"


def _find_claude(prefix: Path) -> Path | None:
    modules = prefix / "node_modules" / "@anthropic-ai"
    for candidate in (modules / _platform_package() / "claude", prefix / "node_modules" / ".bin" / "claude"):
        if candidate.exists() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _version_ok(binary: Path) -> bool:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.startswith(CLAUDE_VERSION)


@pytest.fixture(scope="session")
def claude_cli() -> Path:
    if os.environ.get("GUARDTUI_SKIP_E2E") == "1":
        pytest.skip("GUARDTUI_SKIP_E2E=1")
    given = os.environ.get("GUARDTUI_CLAUDE")
    if given:
        return Path(given)
    prefix = Path(os.path.expanduser("~")) / ".cache" / "claude-e2e"
    binary = _find_claude(prefix)
    if binary is None or not _version_ok(binary):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("the end-to-end tests need npm to install Claude Code (or set GUARDTUI_CLAUDE, "
                        "or GUARDTUI_SKIP_E2E=1)")
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                        f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"], check=True, capture_output=True,
                       timeout=600)
        binary = _find_claude(prefix)
        if binary is None or not _version_ok(binary):
            pytest.fail(f"Claude Code {CLAUDE_VERSION} did not install under {prefix}")
    return binary


@dataclass
class World:
    """One isolated machine: HOME, guardtui's dirs, a project, and the environment they make."""

    root: Path
    home: Path
    project: Path
    env: dict[str, str]

    def guardtui(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "guardtui", *args], env=self.env, capture_output=True,
                              text=True, cwd=self.project, timeout=120, **kw)


@pytest.fixture
def world(tmp_path) -> World:
    import tempfile

    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    runtime = Path(tempfile.mkdtemp(prefix="gte"))  # short: AF_UNIX path limit
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GUARDTUI_", "ANTHROPIC_", "CLAUDE"))}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_STATE_HOME": str(home / ".local" / "state"), "GUARDTUI_RUNTIME_DIR": str(runtime / "rt"),
                "IS_SANDBOX": "1"})  # lets bypassPermissions run as root in CI containers
    env.pop("XDG_RUNTIME_DIR", None)
    yield World(tmp_path, home, project, env)
    shutil.rmtree(runtime, ignore_errors=True)


class Server:
    """A child process that prints one line once it listens; stopped at the end of the test."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, ready: str):
        self.proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()
        if ready not in line:
            self.proc.kill()
            raise RuntimeError(f"{args[2:4]} did not start: {line!r} {self.proc.stderr.read()}")
        self.line = line

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
        out, _ = self.proc.communicate(timeout=30)
        return out


@pytest.fixture
def servers():
    started: list[Server] = []

    def start(args, env, cwd, ready) -> Server:
        server = Server(args, env, cwd, ready)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def run_claude(binary: Path, world: World, turns: list[dict], servers, *mode: str) -> tuple[dict, list[dict]]:
    """Run `claude -p` once against the fake model; (its JSON result, the model's request log)."""
    script, log = world.root / "turns.json", world.root / "requests.jsonl"
    script.write_text(json.dumps(turns))
    fake = servers([sys.executable, str(HERE / "fake_anthropic.py"), "--port", "0", "--script", str(script),
                    "--log", str(log)], world.env, world.root, "listening on")
    port = fake.line.split()[-1]
    env = {**world.env, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": "sk-test",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    proc = subprocess.run([str(binary), "-p", "go", "--output-format", "json", *mode], env=env, cwd=world.project,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    requests = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return json.loads(proc.stdout), requests
