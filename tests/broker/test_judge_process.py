"""Large calls are judged in a process of their own (broker/judges.py): the same verdicts, the session's
memory shared both ways, the plugins in force after a reload, and fail closed when the process dies."""
from __future__ import annotations

import os
import signal

import pytest

from guardtui.broker.queue import Outcome
from guardtui.broker.server import INLINE_MAX_BYTES
from guardtui.core.model import Verdict
from guardtui.core.plugins import PluginRule
from guardtui.core.plugins.parse import parse_plugin

from .conftest import PROJECT, decision_of, payload, post_unix

PAD = " # " + "x" * INLINE_MAX_BYTES  # a comment: the call is large, what it does is unchanged


def large(command: str, **kw) -> dict:
    return payload(command + PAD, **kw)


def refuse_in_this_process(broker) -> None:
    """The broker's own engine must not judge: a call it judges fails (and so asks)."""
    def refuse(*_a, **_k):
        raise AssertionError("judged in the broker's process")
    broker.engine.evaluate = refuse
    broker.engine.evaluate_quickly = refuse


async def test_a_large_call_is_judged_in_the_judging_process_as_the_broker_would(start_broker):
    broker = await start_broker(ask_policy=Outcome.DENY)
    assert broker._judge is not None and not broker._judge.pid  # forked when the first large call comes
    status, answer, _ = await post_unix(broker, "claude", large("ls -la"))
    assert status == 200 and decision_of(answer) == "allow" and broker._judge.pid
    refuse_in_this_process(broker)
    status, answer, _ = await post_unix(broker, "claude", large("git status"))
    assert status == 200 and decision_of(answer) == "allow"
    status, answer, _ = await post_unix(broker, "claude", large("rm -rf /"))
    assert decision_of(answer) == "deny" and "rm -rf /" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    broker.engine.audit.flush()
    rows = [(e.verdict, e.decided_by) for e in broker.engine.audit.entries()]
    assert rows == [("allow", "rule")] * 2 + [("deny", "rule")]  # audited here, as judged there


async def test_the_sessions_memory_goes_both_ways(start_broker):
    """A delete denied there (asked, and serve's policy denied it) is remembered here: a small retry by
    another spelling is denied by the session's memory; and one denied here is known there."""
    broker = await start_broker(ask_policy=Outcome.DENY)
    for first, retry, session in ((large("rm -rf src/legacy"), payload("find src/legacy -delete", session="a"), "a"),
                                  (payload("rm -rf src/old", session="b"), large("find src/old -delete"), "b")):
        first["session_id"] = retry["session_id"] = session
        reason = (await post_unix(broker, "claude", first))[1]["hookSpecificOutput"]["permissionDecisionReason"]
        assert reason.startswith("guardtui blocked") and "no person is watching" in reason  # asked; the policy denied
        answer = (await post_unix(broker, "claude", retry))[1]
        assert decision_of(answer) == "deny"
        assert "denied earlier in this session" in answer["hookSpecificOutput"]["permissionDecisionReason"]


async def test_the_plugins_in_force_after_a_reload_judge_there_too(start_broker, tmp_path):
    broker = await start_broker(ask_policy=Outcome.DEFER)
    assert decision_of((await post_unix(broker, "claude", large("make deploy")))[1]) != "deny"
    plugin = parse_plugin(b"id: no-make\npatterns: [{match: '\\bmake\\b', verdict: deny, reason: no make here}]\n",
                          str(tmp_path / "no-make.yaml"), "user", True)
    old = next(r for r in broker.engine.rules if r.id == PluginRule.id)
    broker.engine.replace_rule(PluginRule.id, PluginRule((plugin,), projects=old.projects))
    refuse_in_this_process(broker)
    status, answer, _ = await post_unix(broker, "claude", large("make deploy"))
    assert decision_of(answer) == "deny" and "no make here" in answer["hookSpecificOutput"]["permissionDecisionReason"]


async def test_a_judging_process_that_dies_makes_its_call_ask_and_threads_judge_the_next(start_broker):
    events = []
    broker = await start_broker(ask_policy=Outcome.DENY)
    broker.queue.on_event = events.append
    assert decision_of((await post_unix(broker, "claude", large("ls -la")))[1]) == "allow"
    pid = broker._judge.pid
    os.kill(pid, signal.SIGKILL)
    status, answer, headers = await post_unix(broker, "claude", large("ls -la"))
    assert status == 200 and decision_of(answer) == "ask"  # the agent's fail-safe answer: never an allow
    assert "process judging large calls could not judge this one" in headers["X-Guardtui-Error"]
    assert [e.kind for e in events] == ["judge-process"] and broker._judge is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped
    assert decision_of((await post_unix(broker, "claude", large("ls -la")))[1]) == "allow"  # in a worker thread


async def test_a_broker_that_stops_leaves_no_judging_process(start_broker):
    broker = await start_broker(ask_policy=Outcome.DENY)
    await post_unix(broker, "claude", large("ls -la"))
    pid = broker._judge.pid
    assert pid
    await broker.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_an_engine_changed_otherwise_is_judged_in_this_process(start_broker):
    broker = await start_broker(ask_policy=Outcome.DENY)
    assert broker._judge.can_judge()  # (not forked yet: it will copy the engine as it is then)
    await post_unix(broker, "claude", large("ls -la"))
    broker.engine.home = "/home/someone-else"
    assert not broker._judge.can_judge()
    verdicts = []
    evaluate = broker.engine.evaluate

    def here(call, *a, **k):
        decision = evaluate(call, *a, **k)
        verdicts.append(decision.verdict)
        return decision
    broker.engine.evaluate = here
    assert decision_of((await post_unix(broker, "claude", large("ls -la", cwd=PROJECT)))[1]) == "allow"
    assert verdicts == [Verdict.ALLOW]


async def test_an_agent_that_hangs_up_mid_call_leaves_the_judging_process_in_step(start_broker):
    """The handler of a call whose agent went away is cancelled; the exchange with the process is not cut
    short (the next call would read the rest of it): the next large call gets its own answer."""
    import asyncio
    import json

    broker = await start_broker(ask_policy=Outcome.DENY)
    body = json.dumps(large("rm -rf /")).encode()
    for _ in range(3):
        reader, writer = await asyncio.open_unix_connection(str(broker.socket_path))
        writer.write(b"POST /hooks/claude HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        await asyncio.sleep(0.005)
        writer.close()  # hung up while the call is judged
    pid = broker._judge.pid
    assert decision_of((await post_unix(broker, "claude", large("ls -la")))[1]) == "allow"
    assert decision_of((await post_unix(broker, "claude", large("rm -rf /")))[1]) == "deny"
    assert broker._judge is not None and broker._judge.pid == pid  # the same process, still in step


async def test_the_judging_process_holds_none_of_the_brokers_connections(start_broker):
    """Forked while connections were open: it keeps only its own socket (a connection the broker closes must
    close for the agent, not stay open in a copy here)."""
    import asyncio

    broker = await start_broker(ask_policy=Outcome.DENY)
    _, idle = await asyncio.open_unix_connection(str(broker.socket_path))  # an agent's connection, open meanwhile
    try:
        assert decision_of((await post_unix(broker, "claude", large("ls -la")))[1]) == "allow"
        held = os.listdir(f"/proc/{broker._judge.pid}/fd")
        assert len(held) == 4 and {"0", "1", "2"} <= set(held), held  # stdio on /dev/null, and its socket
    finally:
        idle.close()
