"""The pending queue: every call ends exactly once, and is audited once."""
from __future__ import annotations

import asyncio

from guardtui.broker.queue import Outcome, PendingQueue, policy_resolution
from guardtui.core.model import DecidedBy, ToolCall, Verdict

import pytest

from .conftest import PROJECT


def asked(engine, command="npm install left-pad", session="s1"):
    call = ToolCall("Bash", {"command": command}, PROJECT, agent="claude", session=session)
    decision = engine.evaluate(call)
    assert decision.verdict is Verdict.ASK
    return call, decision


async def test_a_call_submitted_after_close_is_answered_by_policy_and_audited(make_engine):
    engine = make_engine()
    queue = PendingQueue(engine, timeout_policy=Outcome.DENY)
    await queue.close()
    call, decision = asked(engine)
    resolution = await queue.submit(call, decision, 600)
    assert resolution.outcome is Outcome.DENY and "shutting down" in resolution.reason
    assert [(e.verdict, e.decided_by) for e in engine.audit.entries()] == [("deny", "policy")]


async def test_an_answer_racing_the_timeout_is_the_one_answer(make_engine, monkeypatch):
    engine = make_engine()
    events = []
    queue = PendingQueue(engine, timeout_policy=Outcome.DENY, on_event=events.append)
    call, decision = asked(engine)

    async def person_answers_as_the_wait_times_out(awaitable, timeout):
        awaitable.cancel()
        assert queue.allow(queue.pending()[0].id)
        raise asyncio.TimeoutError

    monkeypatch.setattr("guardtui.broker.queue.asyncio.wait_for", person_answers_as_the_wait_times_out)
    resolution = await queue.submit(call, decision, 600)
    assert resolution.outcome is Outcome.ALLOW and events == []  # no "timeout" reported
    assert [(e.verdict, e.decided_by) for e in engine.audit.entries()] == [("allow", "person")]


def test_policy_resolutions_never_allow():
    assert policy_resolution(Outcome.DENY, "why").outcome is Outcome.DENY
    assert policy_resolution(Outcome.DEFER, "why", DecidedBy.TIMEOUT).decided_by is DecidedBy.TIMEOUT
    with pytest.raises(ValueError):
        policy_resolution(Outcome.ALLOW, "why")


async def test_record_audits_an_ask_answered_without_queueing(make_engine):
    engine = make_engine()
    queue = PendingQueue(engine)
    call, decision = asked(engine)
    final = queue.record(call, decision, policy_resolution(Outcome.DEFER, "headless"), 0.0)
    assert final.verdict is Verdict.ASK and final.reason.startswith("headless")
    assert [(e.verdict, e.decided_by) for e in engine.audit.entries()] == [("ask", "policy")]
