"""Resources an agent could exhaust, over real connections: the calls waiting for the person
(capped per agent and in total; past a cap a new ask gets the timeout policy at once and a guard
event says so), the hook timeout (`?timeout=`), and the broker's file descriptors (1,100 held asks
once exhausted them, and a real hook got no answer)."""
from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time

import pytest

from guardtui.broker.queue import MAX_PENDING, MAX_PENDING_PER_AGENT
from guardtui.broker.server import MAX_TIMEOUT_S
from guardtui.commands.install import hook_command

from .conftest import decision_of, payload, post, until
from .test_hook_client import run_hook

ASKS = "git push --force origin feature"


def gemini(command: str) -> dict:
    return {"hook_event_name": "BeforeTool", "cwd": "/home/user/project", "tool_name": "run_shell_command",
            "tool_input": {"command": command}, "session_id": "g"}


async def test_past_the_per_agent_cap_new_asks_get_the_policy_at_once_and_a_guard_event_says_so(start_broker):
    broker = await start_broker()
    events = []
    broker.queue.on_event = events.append
    held = [asyncio.create_task(post(broker, "claude", payload(f"{ASKS}-{i}"))) for i in range(MAX_PENDING_PER_AGENT)]
    await until(lambda: len(broker.queue) == MAX_PENDING_PER_AGENT)
    status, answer, _ = await post(broker, "claude", payload(ASKS + "-over"))  # answered at once, not queued
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert status == 200 and decision_of(answer) == "ask" and "too many calls are waiting" in reason
    assert len(broker.queue) == MAX_PENDING_PER_AGENT
    overflow = [e for e in events if e.kind == "overflow"]
    assert len(overflow) == 1 and "from claude" in overflow[0].message
    await post(broker, "claude", payload(ASKS + "-over-again"))
    assert len([e for e in events if e.kind == "overflow"]) == 1  # said once, not per refused call
    # another agent's calls still reach the person
    other = asyncio.create_task(post(broker, "gemini", gemini(ASKS)))
    await until(lambda: len(broker.queue) == MAX_PENDING_PER_AGENT + 1)
    # one answered: room again, said once, with how many were refused
    broker.queue.deny(broker.queue.pending()[0].id, via="key n")
    await until(lambda: len([e for e in events if e.kind == "overflow"]) == 2)
    assert "room again for claude's calls: 2 ask(s)" in events[-1].message
    entries = broker.engine.audit.entries(text="over")
    assert [(e.verdict, e.decided_by, e.via) for e in entries] == [("ask", "policy", "queue full")] * 2
    await broker.queue.close("test over")
    await asyncio.gather(*held, other)


async def test_the_total_cap_holds_across_agents(start_broker):
    broker = await start_broker()
    events = []
    broker.queue.on_event = events.append
    agents = ["claude", "codex", "cursor", "gemini", "docker-agent"]
    bodies = {"claude": lambda i: payload(f"{ASKS}-{i}"),
              "codex": lambda i: payload(f"{ASKS}-{i}", event="PermissionRequest"),
              "cursor": lambda i: {"hook_event_name": "beforeShellExecution", "command": f"{ASKS}-{i}",
                                   "cwd": "/home/user/project"},
              "gemini": lambda i: gemini(f"{ASKS}-{i}"),
              "docker-agent": lambda i: {"hook_event_name": "pre_tool_use", "tool_name": "shell",
                                         "tool_input": {"cmd": f"{ASKS}-{i}"}, "cwd": "/home/user/project"}}
    held = []
    for agent in agents:
        for i in range(MAX_PENDING_PER_AGENT):
            if len(held) < MAX_PENDING:
                held.append(asyncio.create_task(post(broker, agent, bodies[agent](i))))
    await until(lambda: len(broker.queue) == MAX_PENDING)
    status, answer, _ = await post(broker, "docker-agent", bodies["docker-agent"](99))
    assert status == 200 and "too many calls are waiting" in json.dumps(answer) and len(broker.queue) == MAX_PENDING
    assert any(e.kind == "overflow" and "in all" in e.message for e in events)
    await broker.queue.close("test over")
    await asyncio.gather(*held)


async def test_a_hook_timeout_is_bounded(start_broker):
    broker = await start_broker()
    task = asyncio.create_task(post(broker, "claude", payload(ASKS), query="?timeout=86400"))
    await until(lambda: len(broker.queue) == 1)
    pending = broker.queue.pending()[0]
    assert pending.deadline - pending.received <= MAX_TIMEOUT_S
    await broker.queue.close("test over")
    await task


BROKER_WITHOUT_A_SCREEN = """
import asyncio, os, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
from guardtui.broker.queue import Outcome, PendingQueue
from guardtui.broker.server import Broker
from guardtui.core.config import Locations
from guardtui.core.factory import build_engine

async def main():
    engine = build_engine(Locations.from_env())
    queue = PendingQueue(engine, Outcome.DEFER, on_event=lambda e: print("event", e.kind, e.message, flush=True))
    broker = Broker(engine, queue, Locations.from_env(), port=0)  # the console's broker: asks wait
    await broker.start()
    print("port", broker.port, flush=True)
    print("token", broker.token, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
async def test_a_flood_of_held_asks_cannot_exhaust_the_brokers_descriptors(short_runtime, tmp_path):
    """1,100 connections, each holding an ask, against a broker limited to 256 descriptors (macOS's
    default): it keeps running, stays under its limit, and a real hook still gets its answer."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1300:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", BROKER_WITHOUT_A_SCREEN,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    flood: list[asyncio.StreamWriter] = []
    try:
        port = int((await proc.stdout.readline()).split()[1])
        token = (await proc.stdout.readline()).split()[1].decode()
        body = json.dumps(payload(ASKS)).encode()
        request = (f"POST /hooks/claude HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        for _ in range(1100):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            writer.write(request)
            flood.append(writer)
        await asyncio.sleep(1.0)
        assert proc.returncode is None  # still running
        fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
        assert fds < 256, fds
        project = tmp_path / "p"
        project.mkdir()
        started = time.monotonic()
        code, out, err = await run_hook(hook_command("claude"), json.dumps(payload("rm -rf ~", cwd=str(project)))
                                        .encode())
        assert code == 0 and decision_of(json.loads(out)) == "deny", (out, err)  # answered, and not late
        assert time.monotonic() - started < 30
        for writer in flood:
            writer.close()
        await asyncio.sleep(0.5)
        # the flood is gone: a hook is answered by the broker itself again
        code, out, err = await run_hook(hook_command("claude"), json.dumps(payload("ls", cwd=str(project))).encode())
        assert decision_of(json.loads(out)) == "allow" and err == "", err
    finally:
        for writer in flood:
            writer.close()
        proc.kill()
        await proc.wait()
        events = (await proc.stdout.read()).decode()
    assert "event overflow" in events
