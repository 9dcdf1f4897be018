"""The real `guardtui demo` in a real terminal (tmux): two agents (Claude Code in shop-api, Codex in
storefront) send their calls over HTTP, the rows say which project and which agent session, the
terminal's title counts what waits, keys answer one call and then a marked batch, and quitting
says per agent what happens. Skipped where tmux is missing."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True,
                              timeout=20)
        if check and done.returncode:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr}")
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-S", "-100", "-t", "demo")  # with what scrolled away

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")


def title(tmux: Tmux) -> str:
    return tmux("display-message", "-p", "-t", "demo", "#{pane_title}").strip()


def guardtui_command() -> list[str]:
    script = Path(sys.executable).with_name("guardtui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "guardtui"]


def test_the_demo_runs_in_a_real_terminal_and_answers_a_key(tmp_path):
    tmux = Tmux(f"guardtui-test-{uuid.uuid4().hex[:8]}")
    env = {"HOME": str(tmp_path), "TERM": "xterm-256color", "COLORTERM": "truecolor",
           "TEXTUAL_ANIMATIONS": "none", "PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"}
    command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *guardtui_command(), "demo",
                          "--no-bell"])
    try:
        # the server first, set up so that a pane that dies stays readable (its traceback)
        tmux("new-session", "-d", "-s", "keep", "-x", "120", "-y", "36", "sleep 600")
        tmux("set-option", "-g", "remain-on-exit", "on")
        tmux("set-option", "-s", "escape-time", "0")
        tmux("new-session", "-d", "-s", "demo", "-x", "120", "-y", "36", command)
        screen = tmux.wait_for("Waiting for you")
        assert "Guard events" in screen
        tmux.wait_for("rm -rf node_modules")  # the first call that asks, over the real broker
        tmux.wait_for("Destructive command — medium blast")  # the warning block (it may wrap at 120 columns)
        screen = tmux.wait_for("claude 3 · codex 4 · 7 waiting")  # the whole scenario, counted per agent
        rows = [line for line in screen.splitlines() if "│" in line]
        assert any("shop-api" in row and "claude 1" in row and "rm -rf node_modules" in row for row in rows)
        assert any("storefront" in row and "codex 1" in row and "docker run" in row for row in rows)
        assert title(tmux) == "guardtui · 7 waiting"  # OSC 2: the pane's title
        tmux("send-keys", "-t", "demo", "y")
        screen = tmux.wait_for("allowed by you (once)")
        assert "6 waiting" in screen and title(tmux) == "guardtui · 6 waiting"
        assert "✗ denied" in screen and "[dangerous-shell/fs.rm]" in screen  # decided by rule, in amber
        # two of codex's calls marked, then answered with one key
        tmux("send-keys", "-t", "demo", "/")
        tmux.wait_for("filter: project, agent")  # the field is there, with the focus
        tmux("send-keys", "-t", "demo", "-l", "codex")
        tmux("send-keys", "-t", "demo", "Enter")
        tmux.wait_for("/codex")
        tmux("send-keys", "-t", "demo", "Space", "Space")
        tmux.wait_for("2 marked")
        time.sleep(0.8)  # an answer key right after the selection moved is ignored (ConsoleSettings.answer_pause_s)
        tmux("send-keys", "-t", "demo", "n")
        screen = tmux.wait_for("Batch denied")
        assert "4 waiting" in screen
        tmux("send-keys", "-t", "demo", "Escape")  # clears the filter
        deadline = time.monotonic() + 10
        while "/codex" in tmux.screen() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "/codex" not in tmux.screen()
        tmux("send-keys", "-t", "demo", "q")
        screen = tmux.wait_for("4 calls are waiting")
        assert "claude 1: 2 calls handed back to its own prompt" in screen
        assert "codex 1: 2 calls handed back to its own prompt" in screen
        tmux("send-keys", "-t", "demo", "y")  # an answer key does not quit
        time.sleep(0.5)
        assert "4 calls are waiting" in tmux.screen()
        tmux("send-keys", "-t", "demo", "q")
        tmux.wait_for("guardtui: claude 1: 2 calls handed back to its own prompt; codex 1: 2 calls handed back")
    finally:
        tmux("kill-server", check=False)
