"""Console test kit: a fixed clock, apps over the real broker (loopback, ephemeral port), an agent
that POSTs real hook payloads, and a deterministic way to fill the queue for snapshots."""
from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from guardtui.broker.queue import PendingCall
from guardtui.core.config import Locations
from guardtui.core.model import DecidedBy, ToolCall, Verdict
from guardtui.tui.app import ConsoleSettings, GuardApp
from guardtui.tui.demo import CLAUDE_SESSION, post_hook
from guardtui.tui.factory import make_app
from guardtui.tui.staging import T0, FixedClock

from ..conftest import PROJECT

__all__ = ["T0", "CLAUDE_SESSION"]


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Times on screen do not depend on the machine's time zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


QUIET = ConsoleSettings(bell=False, popups=False, watch_plugins=False, answer_pause_s=0)  # keys at once


@pytest.fixture
def console(make_engine, clock):
    """make(**kw) -> a GuardApp over the isolated config, with the real broker on a free port."""

    def make(*, settings: ConsoleSettings = QUIET, broker: bool = True, **kw) -> GuardApp:
        engine = make_engine()
        return make_app(engine, locations=Locations.from_env(), cwd=PROJECT, port=0, unix_socket=False,
                        broker=broker, settings=settings, clock=kw.pop("clock", clock), **kw)

    return make


def claude_payload(command: str | None = None, *, tool: str = "Bash", tool_input: dict | None = None,
                   cwd: str = PROJECT, n: int = 0, event: str = "PreToolUse") -> dict[str, Any]:
    """What real Claude Code 2.1.328 sends to a PreToolUse hook (shape captured in shared/e2e)."""
    return {"session_id": CLAUDE_SESSION, "transcript_path": f"~/.claude/projects/-p/{CLAUDE_SESSION}.jsonl",
            "cwd": cwd, "prompt_id": f"50b7-{n}", "permission_mode": "default", "effort": {"level": "medium"},
            "hook_event_name": event, "tool_name": tool,
            "tool_input": tool_input if tool_input is not None else {"command": command, "description": "test"},
            "tool_use_id": f"toolu_{n:05d}"}


class Agent:
    """The agent side: POSTs hook payloads to the app's broker and keeps the answers."""

    def __init__(self, app: GuardApp) -> None:
        self.app = app
        self.tasks: list[asyncio.Task] = []

    def send(self, payload: dict[str, Any], agent: str = "claude", timeout_s: float = 120) -> asyncio.Task:
        broker = self.app.broker
        task = asyncio.create_task(post_hook(broker.url, broker.token, agent, payload, timeout_s))
        self.tasks.append(task)
        return task

    async def answer(self, task: asyncio.Task, timeout: float = 10) -> dict[str, Any]:
        status, body = await asyncio.wait_for(task, timeout)
        assert status == 200, body
        return body

    async def ask(self, pilot, command: str, n: int = 0, **kw) -> asyncio.Task:
        """Send a call that asks, and wait until it waits in the queue."""
        count = len(self.app.queue)
        task = self.send(claude_payload(command, n=n), **kw)
        await wait_until(pilot, lambda: len(self.app.queue) > count, what=f"{command!r} in the queue")
        await pilot.pause()
        return task


@contextlib.asynccontextmanager
async def live(app: GuardApp, size: tuple[int, int] = (120, 36)):
    """The console running with its broker listening, and an agent to talk to it."""
    async with app.run_test(size=size) as pilot:
        await listening(pilot)
        yield pilot, Agent(app)


async def shown(pilot, screen_type: type) -> Any:
    """Wait for a screen (a dialog, a mode) to be the one on top."""
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen_type), what=screen_type.__name__)
    return pilot.app.screen


async def wait_until(pilot, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await pilot.pause(0.02)


async def listening(pilot) -> None:
    await wait_until(pilot, lambda: pilot.app.broker_state == "listening", what="the broker")


def decision_of(body: dict[str, Any]) -> tuple[str, str]:
    out = body["hookSpecificOutput"]
    return out["permissionDecision"], out["permissionDecisionReason"]


def audit_rows(app: GuardApp):
    return app.engine.audit.entries()


def screen_text(app: GuardApp) -> str:
    """What the terminal shows, as plain text."""
    return "\n".join("".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips())


# -- filling the queue without HTTP (for deterministic snapshots) -----------------------------
def submit_direct(app: GuardApp, call: ToolCall, hook_timeout_s: float = 185) -> None:
    """What the broker does with a call, minus HTTP: judge it; log rule answers; queue asks."""
    decision = app.engine.evaluate(call)
    if decision.verdict in (Verdict.ALLOW, Verdict.DENY):
        app._broker_decided(call, decision, DecidedBy(decision.metadata.get("decided_by", "rule")))
        return
    app.run_worker(app.queue.submit(call, decision, hook_timeout_s), group="test-agents", exit_on_error=False)


def bash(command: str, agent: str = "claude", session: str = CLAUDE_SESSION, cwd: str = PROJECT) -> ToolCall:
    return ToolCall("Bash", {"command": command}, cwd, agent=agent, session=session)


def pending_ids(app: GuardApp) -> list[str]:
    return [p.id for p in app.queue.pending()]


def selected(app: GuardApp) -> PendingCall | None:
    from guardtui.tui.widgets.pending_list import PendingList

    return app.screen.query_one(PendingList).selected


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
