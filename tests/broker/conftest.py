"""A real broker on a real loopback port and a real Unix socket, with the isolated config."""
from __future__ import annotations

import asyncio
import json
from typing import Callable

import aiohttp
import pytest

from guardtui.broker.queue import Outcome, PendingQueue
from guardtui.broker.server import Broker
from guardtui.core.config import Locations

PROJECT = "/home/user/project"


@pytest.fixture
async def start_broker(short_runtime, make_engine):
    started: list[Broker] = []

    async def start(ask_policy: Outcome | None = None, timeout_policy: Outcome = Outcome.DEFER, **engine_kw) -> Broker:
        engine = make_engine(**engine_kw)
        broker = Broker(engine, PendingQueue(engine, timeout_policy=timeout_policy), Locations.from_env(), port=0,
                        ask_policy=ask_policy)
        await broker.start()
        started.append(broker)
        return broker

    yield start
    for broker in started:
        await broker.queue.close("test over")
        await broker.stop()


def payload(command: str, *, event: str = "PreToolUse", session: str = "s1", cwd: str = PROJECT, **extra) -> dict:
    return {"session_id": session, "cwd": cwd, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command}, "permission_mode": "default", **extra}


async def post(broker: Broker, agent: str, body, *, token: str | None = "", host: str | None = None,
               query: str = "") -> tuple[int, dict | None, dict]:
    """POST over loopback TCP; (status, JSON body or None when empty, headers)."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token or broker.token}"
    if host is not None:
        headers["Host"] = host
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{broker.url}/hooks/{agent}{query}", data=data, headers=headers) as resp:
            text = await resp.text()
            return resp.status, (json.loads(text) if text else None), dict(resp.headers)


async def post_unix(broker: Broker, agent: str, body, query: str = "") -> tuple[int, dict | None, dict]:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    connector = aiohttp.UnixConnector(path=str(broker.socket_path))
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.post(f"http://localhost/hooks/{agent}{query}", data=data) as resp:
            text = await resp.text()
            return resp.status, (json.loads(text) if text else None), dict(resp.headers)


async def until(condition: Callable[[], bool], limit: float = 20.0) -> None:
    """Wait for a condition (the limit only stops a broken test from hanging)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not condition():
        if loop.time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.005)


def decision_of(answer: dict | None) -> str | None:
    """Claude PreToolUse: the permissionDecision (None: no answer)."""
    return None if answer is None else answer["hookSpecificOutput"]["permissionDecision"]
