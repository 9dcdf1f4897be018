"""The broker over real sockets: answers, the person's queue, timeouts, quitting, bad input, limits,
authentication (token, Host, peer uid), and the absence of any way to approve over the wire."""
from __future__ import annotations

import asyncio
import json
import os
import stat

import aiohttp
import pytest

from guardtui.broker import server as server_module
from guardtui.broker.queue import Outcome
from guardtui.broker.server import Broker, BrokerError
from guardtui.core.config import Locations

from .conftest import decision_of, payload, post, post_unix, until

SAFE, CRITICAL, ASKS = "ls -la", "rm -rf ~", "npm install left-pad"


async def test_rule_verdicts_come_back_in_the_agents_own_shape(start_broker):
    broker = await start_broker()
    status, allow, _ = await post(broker, "claude", payload(SAFE))
    assert status == 200 and decision_of(allow) == "allow"
    _, deny, _ = await post(broker, "claude", payload(CRITICAL))
    reason = deny["hookSpecificOutput"]["permissionDecisionReason"]
    assert decision_of(deny) == "deny" and "deletes your home directory" in reason and "Do not retry" in reason
    _, gemini, _ = await post(broker, "gemini", {"hook_event_name": "BeforeTool", "cwd": "/home/user/project",
                                                 "tool_name": "run_shell_command",
                                                 "tool_input": {"command": CRITICAL}})
    assert gemini["decision"] == "deny"
    assert len(broker.queue) == 0
    verdicts = [e.verdict for e in broker.engine.audit.entries()]
    assert verdicts == ["allow", "deny", "deny"]


async def test_an_ask_waits_for_the_person_who_allows_it(start_broker):
    broker = await start_broker()
    request = asyncio.create_task(post(broker, "claude", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)
    pending = broker.queue.pending()[0]
    assert (pending.call.agent, pending.call.session, pending.call.command) == ("claude", "s1", ASKS)
    assert pending.decision.verdict.value == "ask" and pending.deadline > pending.received
    assert broker.queue.allow(pending.id)
    _, answer, _ = await request
    assert decision_of(answer) == "allow"
    assert not broker.queue.allow(pending.id)  # answered once: a second answer is ignored
    assert [(e.verdict, e.decided_by) for e in broker.engine.audit.entries()] == [("allow", "person")]


async def test_the_person_denies_with_a_message_the_agent_reads(start_broker):
    broker = await start_broker()
    request = asyncio.create_task(post(broker, "codex", payload(ASKS, event="PermissionRequest")))
    await until(lambda: len(broker.queue) == 1)
    broker.queue.deny(broker.queue.pending()[0].id, "use the lockfile")
    _, answer, _ = await request
    decision = answer["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny" and "use the lockfile" in decision["message"]


async def test_many_concurrent_agents_each_answered_exactly_once(start_broker):
    broker = await start_broker()
    answered: list[str] = []

    def person(kind, pending):  # allows calls of odd sessions, denies even ones, as they arrive
        if kind == "added":
            number = int(pending.call.session.split("-")[1])
            asyncio.get_running_loop().call_soon(
                broker.queue.allow if number % 2 else broker.queue.deny, pending.id)
        else:
            answered.append(pending.id)

    broker.queue.subscribe(person)
    commands = [SAFE, CRITICAL, ASKS]
    jobs = []
    for i in range(60):
        body = payload(commands[i % 3], session=f"agent-{i}")
        jobs.append(post(broker, "claude", body) if i % 2 else post_unix(broker, "claude", body))
    results = await asyncio.gather(*jobs)
    for i, (status, answer, _) in enumerate(results):
        expected = ["allow", "deny", "allow" if i % 2 else "deny"][i % 3]
        assert status == 200 and decision_of(answer) == expected, i
    assert len(answered) == len(set(answered)) == 20 and len(broker.queue) == 0
    entries = broker.engine.audit.entries()
    assert len(entries) == 60 and len({e.session for e in entries}) == 60


async def test_no_answer_in_time_is_answered_by_the_timeout_policy(start_broker):
    broker = await start_broker(timeout_policy=Outcome.DENY)
    status, answer, _ = await post(broker, "claude", payload(ASKS), query="?timeout=1")
    assert status == 200 and decision_of(answer) == "deny"
    assert "no answer within" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert len(broker.queue) == 0
    assert [(e.verdict, e.decided_by) for e in broker.engine.audit.entries()] == [("deny", "timeout")]


async def test_timeout_defer_hands_the_call_back_to_the_agent(start_broker):
    broker = await start_broker(timeout_policy=Outcome.DEFER)
    _, answer, _ = await post(broker, "claude", payload(ASKS, event="PermissionRequest"), query="?timeout=1")
    assert answer is None  # no decision: Claude Code shows its own dialog
    _, pre, _ = await post(broker, "claude", payload(ASKS), query="?timeout=1")
    assert decision_of(pre) == "ask"


async def test_quitting_with_calls_pending_answers_each_by_policy_and_says_so(start_broker):
    broker = await start_broker(timeout_policy=Outcome.DENY)
    events = []
    broker.queue.on_event = events.append
    requests = [asyncio.create_task(post(broker, "claude", payload(ASKS, session=f"s{i}"))) for i in range(3)]
    await until(lambda: len(broker.queue) == 3)
    assert await broker.queue.close("the console quit") == 3
    await broker.stop()
    for status, answer, _ in await asyncio.gather(*requests):
        assert status == 200 and decision_of(answer) == "deny"
        assert "the console quit" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert [e.kind for e in events] == ["shutdown"] and "3 pending" in events[0].message
    assert not broker.socket_path.exists()


async def test_stop_without_closing_the_queue_leaves_nobody_hanging(start_broker):
    broker = await start_broker()
    request = asyncio.create_task(post(broker, "claude", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)
    await broker.stop()
    _, answer, _ = await request
    assert decision_of(answer) == "ask"  # deferred to Claude Code's own prompt


async def test_an_agent_that_goes_away_leaves_the_queue(start_broker):
    broker = await start_broker()
    request = asyncio.create_task(post(broker, "claude", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)
    request.cancel()  # the client closes its connection
    await until(lambda: len(broker.queue) == 0)
    await until(lambda: len(broker.engine.audit.entries()) == 1)
    assert "stopped waiting" in broker.engine.audit.entries()[0].reason


async def test_headless_deny_answers_asks_at_once(start_broker):
    broker = await start_broker(ask_policy=Outcome.DENY)
    _, answer, _ = await post(broker, "claude", payload(ASKS))
    assert decision_of(answer) == "deny" and len(broker.queue) == 0
    assert "no person is watching" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert [(e.verdict, e.decided_by) for e in broker.engine.audit.entries()] == [("deny", "policy")]


async def test_headless_defer_hands_asks_to_the_agents_prompt(start_broker):
    broker = await start_broker(ask_policy=Outcome.DEFER)
    _, answer, _ = await post(broker, "cursor", {"hook_event_name": "beforeShellExecution", "command": ASKS,
                                                 "cwd": "/home/user/project", "conversation_id": "c"})
    assert answer["permission"] == "ask"
    _, codex, _ = await post(broker, "codex", payload(ASKS, permission_mode="bypassPermissions"))
    assert codex["hookSpecificOutput"]["permissionDecision"] == "deny"  # approvals off: the guard holds
    _, codex, _ = await post(broker, "codex", payload(ASKS))  # approvals on: its sandbox would not ask either
    assert "runs what its sandbox allows" in codex["hookSpecificOutput"]["permissionDecisionReason"]
    _, codex, _ = await post(broker, "codex", payload(ASKS, event="PermissionRequest"))
    assert codex is None  # a prompt Codex is about to show: no decision, the person sees it there
    assert [e.verdict for e in broker.engine.audit.entries()] == ["ask", "deny", "deny", "ask"]


GEMINI_ASKS = {"hook_event_name": "BeforeTool", "cwd": "/home/user/project", "tool_name": "run_shell_command",
               "tool_input": {"command": ASKS}}


@pytest.mark.parametrize("how", ["headless", "timeout", "quit"])
async def test_an_ask_that_would_go_back_to_gemini_is_denied_never_ask(start_broker, how):
    """Gemini's own prompt never answers in a headless run: handing a call back would hang it."""
    if how == "headless":
        broker = await start_broker(ask_policy=Outcome.DEFER)
        _, answer, _ = await post(broker, "gemini", GEMINI_ASKS)
    elif how == "timeout":
        broker = await start_broker(timeout_policy=Outcome.DEFER)
        _, answer, _ = await post(broker, "gemini", GEMINI_ASKS, query="?timeout=1")
    else:
        broker = await start_broker(timeout_policy=Outcome.DEFER)
        request = asyncio.create_task(post(broker, "gemini", GEMINI_ASKS))
        await until(lambda: len(broker.queue) == 1)
        await broker.queue.close("the console quit")
        _, answer, _ = await request
    assert answer["decision"] == "deny" and "wait forever" in answer["reason"]
    assert [e.verdict for e in broker.engine.audit.entries()] == ["deny"]  # audited as what Gemini got
    _, claude, _ = await post(broker, "claude", payload(ASKS), query="?timeout=1")
    assert decision_of(claude) == "ask"  # Claude Code's own prompt still gets it back


async def test_a_persons_allow_also_answers_the_same_calls_second_hook(start_broker):
    broker = await start_broker()
    request = asyncio.create_task(post(broker, "codex", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)
    broker.queue.allow(broker.queue.pending()[0].id)
    _, first, _ = await request
    assert first is None  # Codex PreToolUse: silence lets the call go on
    body = payload(ASKS, event="PermissionRequest")
    body["tool_input"]["description"] = "install a package?"
    _, second, _ = await post(broker, "codex", body)
    assert second["hookSpecificOutput"]["decision"] == {"behavior": "allow"}
    assert len(broker.queue) == 0
    # only once: a third identical call asks the person again
    third = asyncio.create_task(post(broker, "codex", payload(ASKS, event="PermissionRequest")))
    await until(lambda: len(broker.queue) == 1)
    broker.queue.deny(broker.queue.pending()[0].id)
    assert (await third)[1]["hookSpecificOutput"]["decision"]["behavior"] == "deny"


async def test_allow_once_is_once_for_the_same_hook(start_broker):
    broker = await start_broker()
    first = asyncio.create_task(post(broker, "claude", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)
    broker.queue.allow(broker.queue.pending()[0].id)
    assert decision_of((await first)[1]) == "allow"
    again = asyncio.create_task(post(broker, "claude", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)  # the same command on the same hook waits for the person again
    broker.queue.deny(broker.queue.pending()[0].id)
    assert decision_of((await again)[1]) == "deny"


# -- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize("body", [b"{not json", b"", b"[1, 2]", b"\xff\xfe", b'{"tool_input": {}}'])
async def test_bad_payloads_get_the_fail_safe_answer_and_an_error_header(start_broker, body):
    broker = await start_broker()
    status, answer, headers = await post(broker, "claude", body)
    assert status == 200 and decision_of(answer) == "ask"
    assert headers["X-Guardtui-Error"]
    _, codex, _ = await post(broker, "codex", body)
    assert codex["hookSpecificOutput"]["permissionDecision"] == "deny"  # Codex cannot ask


async def test_huge_bodies_are_not_read_and_fail_safe(start_broker):
    broker = await start_broker()
    broker.max_body = 64 * 1024  # the size limit (8 MiB by default), smaller for the test
    big = json.dumps(payload("echo " + "x" * 100_000)).encode()
    status, answer, headers = await post(broker, "claude", big)
    assert status == 200 and decision_of(answer) == "ask" and "larger than" in headers["X-Guardtui-Error"]


async def test_the_default_size_limit_holds_a_real_large_write(start_broker):
    broker = await start_broker()
    content = "x" * (server_module.MAX_BODY // 2)
    body = {"hook_event_name": "PreToolUse", "cwd": "/home/user/project", "tool_name": "Write",
            "tool_input": {"file_path": "/home/user/project/big.txt", "content": content}}
    _, answer, _ = await post(broker, "claude", body)
    assert decision_of(answer) == "allow"
    status, over, headers = await post(broker, "claude", b"{" + b" " * (server_module.MAX_BODY + 10) + b"}")
    assert status == 200 and decision_of(over) == "ask" and "larger than" in headers["X-Guardtui-Error"]


async def test_an_event_guardtui_does_not_decide_gets_no_answer(start_broker):
    broker = await start_broker()
    status, answer, headers = await post(broker, "claude", payload("ls", event="PostToolUse"))
    assert status == 200 and answer is None and "PostToolUse" in headers["X-Guardtui-Error"]


async def test_unknown_agent_is_not_found(start_broker):
    broker = await start_broker()
    assert (await post(broker, "notepad", payload("ls")))[0] == 404


# -- authentication ----------------------------------------------------------------------------
async def test_missing_or_wrong_token_is_refused(start_broker):
    broker = await start_broker()
    assert (await post(broker, "claude", payload(CRITICAL), token=None))[0] == 401
    assert (await post(broker, "claude", payload(CRITICAL), token="not-the-token"))[0] == 401
    assert broker.engine.audit.entries() == []  # refused before judging


@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:8765", "192.168.1.10", "127.0.0.1.nip.io"])
async def test_a_host_header_that_is_not_loopback_is_refused(start_broker, host):
    broker = await start_broker()
    status, answer, _ = await post(broker, "claude", payload(SAFE), host=host)
    assert status == 403 and "Host" in answer["error"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}"])
async def test_loopback_host_headers_are_accepted(start_broker, host):
    broker = await start_broker()
    assert (await post(broker, "claude", payload(SAFE), host=host.format(port=broker.port)))[0] == 200


async def test_the_token_is_created_once_and_kept_private(start_broker):
    broker = await start_broker()
    locations = Locations.from_env()
    assert stat.S_IMODE(locations.token_file.stat().st_mode) == 0o600
    assert locations.token_file.read_text().strip() == broker.token
    assert Broker(broker.engine, broker.queue, locations).token == broker.token


async def test_the_unix_socket_is_private_and_needs_no_token(start_broker):
    broker = await start_broker()
    assert stat.S_IMODE(broker.socket_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(broker.socket_path.parent.stat().st_mode) == 0o700
    status, answer, _ = await post_unix(broker, "claude", payload(CRITICAL))
    assert status == 200 and decision_of(answer) == "deny"


async def test_the_unix_socket_refuses_another_users_process(start_broker, monkeypatch):
    broker = await start_broker()
    monkeypatch.setattr(server_module, "peer_uid", lambda sock: os.getuid() + 1)
    status, answer, _ = await post_unix(broker, "claude", payload(SAFE))
    assert status == 403 and "own user" in answer["error"]


@pytest.mark.skipif(os.getuid() != 0, reason="switching to another uid needs root")
async def test_the_unix_socket_refuses_a_real_process_of_another_user(start_broker):
    broker = await start_broker()
    os.chmod(broker.socket_path.parent.parent, 0o755)  # open the file layer, so the uid check is what refuses
    os.chmod(broker.socket_path.parent, 0o755)
    os.chmod(broker.socket_path, 0o666)
    child = (
        "import os, socket\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "s = socket.socket(socket.AF_UNIX); s.connect(%r)\n"
        "s.sendall(b'POST /hooks/claude HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Length: 2\\r\\n"
        "Connection: close\\r\\n\\r\\n{}')\n"
        "print(s.recv(100).split(b'\\r\\n')[0].decode())\n" % str(broker.socket_path))
    proc = await asyncio.create_subprocess_exec("python3", "-c", child, stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    assert out.decode().strip() == "HTTP/1.1 403 Forbidden"


async def test_there_is_no_endpoint_that_decides_a_pending_call(start_broker):
    broker = await start_broker()
    routes = [(r.method, r.resource.canonical) for r in broker._runner.app.router.routes()]
    assert routes == [("POST", "/hooks/{agent}")]
    request = asyncio.create_task(post(broker, "claude", payload(ASKS)))
    await until(lambda: len(broker.queue) == 1)
    call_id = broker.queue.pending()[0].id
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {broker.token}"}) as session:
        for method, path in [("POST", f"/pending/{call_id}/allow"), ("POST", f"/calls/{call_id}"),
                             ("PUT", "/hooks/claude"), ("GET", "/hooks/claude"), ("POST", "/hooks/claude/allow")]:
            async with session.request(method, broker.url + path, json={"decision": "allow", "id": call_id}) as r:
                assert r.status in (404, 405)
        # the agent re-sending its call with an "allow" in it only queues another ask
        body = payload(ASKS, session="s1", decision="allow", behavior="allow")
        second = asyncio.create_task(post(broker, "claude", body))
        await until(lambda: len(broker.queue) == 2)
    assert broker.queue.get(call_id) is not None and not broker.queue.get(call_id).done
    await broker.queue.close()
    assert decision_of((await request)[1]) == "ask" and decision_of((await second)[1]) == "ask"


# -- the sockets -----------------------------------------------------------------------------
async def test_a_second_broker_does_not_steal_a_live_socket(start_broker):
    broker = await start_broker()
    with pytest.raises(BrokerError, match="another guardtui broker"):
        await start_broker()
    assert broker.socket_path.exists()
    assert (await post_unix(broker, "claude", payload(SAFE)))[0] == 200


async def test_a_stale_socket_file_is_replaced(short_runtime, start_broker):
    import socket

    os.makedirs(short_runtime, mode=0o700, exist_ok=True)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(os.path.join(short_runtime, "broker.sock"))
    stale.close()  # bound, never listening: what a crashed broker leaves
    broker = await start_broker()
    assert (await post_unix(broker, "claude", payload(SAFE)))[0] == 200


async def test_a_taken_port_is_a_clear_error(start_broker, make_engine):
    broker = await start_broker()
    from guardtui.broker.queue import PendingQueue

    engine = make_engine()
    other = Broker(engine, PendingQueue(engine), Locations.from_env(), port=broker.port, unix_socket=False)
    with pytest.raises(BrokerError, match="cannot listen"):
        await other.start()


async def test_listeners_hear_of_every_answered_call(start_broker):
    broker = await start_broker(ask_policy=Outcome.DENY)
    heard = []
    broker.listeners.append(lambda call, decision, by: heard.append((call.command, decision.verdict.value, by.value)))
    for command in (SAFE, CRITICAL, ASKS):
        await post(broker, "claude", payload(command))
    assert heard == [(SAFE, "allow", "rule"), (CRITICAL, "deny", "rule"), (ASKS, "deny", "policy")]
