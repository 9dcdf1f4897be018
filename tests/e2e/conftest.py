"""End to end with the real agent CLIs, each driven by a scripted fake of its model's API.

    Claude Code  @anthropic-ai/claude-code  fake_anthropic.py          ~/.cache/claude-e2e  $GUARDTUI_CLAUDE
    Codex CLI    @openai/codex              fake_openai_responses.py   ~/.cache/codex-e2e   $GUARDTUI_CODEX
    Gemini CLI   @google/gemini-cli         fake_gemini.py             ~/.cache/gemini-e2e  $GUARDTUI_GEMINI

Each CLI comes from npm at the version pinned below. It is installed into its cache directory the
first time (a fresh CI machine: the npm registry is reachable; about 1.2 GB for the three), or taken
from the environment variable. That cache is the only thing the tests write into the real HOME: each
CLI runs in a throwaway one. Set GUARDTUI_SKIP_E2E=1 to skip these tests on a machine without node.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

CLAUDE_VERSION = "2.1.328"
CODEX_VERSION = "0.169.0"
GEMINI_VERSION = "0.61.0"
HERE = Path(__file__).parent


def _platform_package() -> str:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower(),
                                                                                    platform.machine())
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system().lower())
    return f"claude-code-{system}-{arch}"


def _executable(*candidates: Path) -> Path | None:
    for candidate in candidates:
        if candidate.exists() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _version_ok(binary: Path, version: str) -> bool:
    """Is this the pinned version? Asked in a throwaway HOME: even `--version` writes there (Gemini CLI
    leaves ~/.gemini/projects.json.*.tmp), and the tests write nothing into the real one."""
    with tempfile.TemporaryDirectory(prefix="guardtui-e2e-home-") as home:
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/.config", "XDG_STATE_HOME":
               f"{home}/.local/state", "XDG_DATA_HOME": f"{home}/.local/share", "XDG_CACHE_HOME": f"{home}/.cache"}
        try:
            out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL, env=env, cwd=home)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return out.returncode == 0 and version in out.stdout.split()


def npm_cli(name: str, package: str, version: str, find: Callable[[Path], Path | None]) -> Path:
    """The pinned CLI: $GUARDTUI_<NAME>, else ~/.cache/<name>-e2e, installed there from npm if missing."""
    if os.environ.get("GUARDTUI_SKIP_E2E") == "1":
        pytest.skip("GUARDTUI_SKIP_E2E=1")
    given = os.environ.get(f"GUARDTUI_{name.upper()}")
    if given:
        return Path(given)
    prefix = Path(os.path.expanduser("~")) / ".cache" / f"{name}-e2e"
    binary = find(prefix)
    if binary is None or not _version_ok(binary, version):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"the end-to-end tests need npm to install {package} (or set GUARDTUI_{name.upper()}, "
                        "or GUARDTUI_SKIP_E2E=1)")
        prefix.mkdir(parents=True, exist_ok=True)
        # npm's own download cache goes beside the install, not into ~/.npm
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--cache", str(prefix / ".npm-cache"), "--prefix",
                        str(prefix), f"{package}@{version}"], check=True, capture_output=True, timeout=600)
        binary = find(prefix)
        if binary is None or not _version_ok(binary, version):
            pytest.fail(f"{package} {version} did not install under {prefix}")
    return binary


@pytest.fixture(scope="session")
def claude_cli() -> Path:
    return npm_cli("claude", "@anthropic-ai/claude-code", CLAUDE_VERSION, lambda prefix: _executable(
        prefix / "node_modules" / "@anthropic-ai" / _platform_package() / "claude",
        prefix / "node_modules" / ".bin" / "claude"))


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    return npm_cli("codex", "@openai/codex", CODEX_VERSION,
                   lambda prefix: _executable(prefix / "node_modules" / ".bin" / "codex"))


@pytest.fixture(scope="session")
def gemini_cli() -> Path:
    return npm_cli("gemini", "@google/gemini-cli", GEMINI_VERSION,
                   lambda prefix: _executable(prefix / "node_modules" / ".bin" / "gemini"))


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

    def audit(self) -> list[tuple[str, str, str]]:
        """The audit log as (summary, verdict, decided by), oldest first."""
        out = self.guardtui("log", "--json")
        assert out.returncode == 0, out.stderr
        return [(e["summary"], e["verdict"], e["decided_by"]) for e in map(json.loads, out.stdout.splitlines())]


@pytest.fixture
def world(tmp_path) -> World:
    import tempfile

    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    runtime = Path(tempfile.mkdtemp(prefix="gte"))  # short: AF_UNIX path limit
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GUARDTUI_", "ANTHROPIC_", "CLAUDE", "CODEX_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
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
    port, log = _fake(servers, world, "fake_anthropic.py", turns)
    env = {**world.env, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": "sk-test",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    proc = subprocess.run([str(binary), "-p", "go", "--output-format", "json", *mode], env=env, cwd=world.project,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), _requests(log)


def _requests(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def start_guardtui(world: World, servers, ask: str) -> int:
    """`guardtui serve --ask ASK` on a free port, in the world's environment; its port."""
    server = servers([sys.executable, "-m", "guardtui", "serve", "--port", "0", "--ask", ask], world.env,
                     world.project, "listening on")
    return int(server.line.split("http://127.0.0.1:")[1].split()[0])


def _fake(servers, world: World, script: str, turns: list[dict], *extra: str) -> tuple[int, Path]:
    """Start a fake model API on a free port; (its port, its request log)."""
    turns_file, log = world.root / "turns.json", world.root / "requests.jsonl"
    turns_file.write_text(json.dumps(turns))
    log.unlink(missing_ok=True)
    fake = servers([sys.executable, str(HERE / script), "--port", "0", "--script", str(turns_file), "--log", str(log),
                    *extra], world.env, world.root, "listening on")
    return int(fake.line.split()[-1]), log


def codex_env(world: World, codex: Path) -> dict[str, str]:
    """The world with Codex in it: CODEX_HOME in the isolated HOME, `codex` on PATH (so
    `guardtui install codex` finds it, as it would on a person's machine)."""
    world.env["CODEX_HOME"] = str(world.home / ".codex")
    world.env["PATH"] = f"{codex.parent}{os.pathsep}{world.env.get('PATH', os.defpath)}"
    return world.env


def run_codex(binary: Path, world: World, turns: list[dict], servers, *flags: str,
              review: str = "deny") -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Run `codex exec` once against the fake Responses API; (the process, the model's request log).

    The provider comes in as -c overrides, so config.toml holds only what `guardtui install` wrote."""
    port, log = _fake(servers, world, "fake_openai_responses.py", turns, "--review", review)
    provider = (f'{{name="Fake", base_url="http://127.0.0.1:{port}/v1", wire_api="responses", '
                f'env_key="FAKE_API_KEY"}}')
    env = {**world.env, "FAKE_API_KEY": "sk-test"}
    proc = subprocess.run([str(binary), "exec", "--skip-git-repo-check", "-c", 'model="fake-model"',
                           "-c", 'model_provider="fake"', "-c", f"model_providers.fake={provider}", *flags, "go"],
                          env=env, cwd=world.project, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return proc, _requests(log)


GEMINI_ALLOW_SHELL = """# the person's own policy: Gemini runs shell commands without asking, guardtui's hook judges them
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
allowRedirection = true
"""


def gemini_setup(world: World, *, allow_policy: bool = True) -> Path:
    """What a Gemini user has before installing guardtui: API-key auth and, to make guardtui the
    approver, a user policy that lets Gemini run shell commands (headless Gemini does not even
    offer the model a tool that would need confirmation)."""
    settings = world.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    if allow_policy:
        (world.home / ".gemini" / "policies").mkdir(exist_ok=True)
        (world.home / ".gemini" / "policies" / "allow-shell.toml").write_text(GEMINI_ALLOW_SHELL)
    return settings


def run_gemini(binary: Path, world: World, turns: list[dict], servers, *flags: str,
               timeout: float = 120) -> tuple[dict, list[dict]]:
    """Run `gemini -p` once against the fake Gemini API; (its JSON result, the model's request log).

    The timeout is a safety net: a run takes a few seconds, and one that hangs fails the test."""
    port, log = _fake(servers, world, "fake_gemini.py", turns)
    env = {**world.env, "GEMINI_API_KEY": "fake-key", "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}"}
    try:
        proc = subprocess.run([str(binary), "--skip-trust", "-m", "gemini-2.5-flash", "--output-format", "json",
                               *flags, "-p", "go"], env=env, cwd=world.project, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"gemini -p did not finish within {timeout:.0f}s: it hangs")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), _requests(log)
