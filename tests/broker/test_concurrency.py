"""One agent's call never holds another's: small calls are judged on the event loop, anything slower
or larger in worker threads, several at once."""
from __future__ import annotations

import asyncio
import json
import os
import threading
import time

from guardtui.broker.queue import Outcome
from guardtui.broker.server import INLINE_MAX_BYTES
from guardtui.core.model import BlastRadius, Decision, Verdict

from .conftest import decision_of, payload, post_unix


class Recording:
    """A rule that records which thread judged each command; `slow` ones wait until released (in small
    sleeps, so the budget, or the broker's inline slice, can interrupt them)."""

    id = "recording"

    def __init__(self) -> None:
        self.threads: dict[str, int] = {}
        self.release = threading.Event()

    def evaluate(self, call, ctx):
        self.threads[call.command[:20]] = threading.get_ident()
        if call.command.startswith("slow"):
            while not self.release.is_set():
                time.sleep(0.001)
        return Decision(Verdict.ALLOW, "fine", self.id, BlastRadius.LOW, "test")


async def broker_with(start_broker, rule: Recording):
    # large calls in a worker thread too, not in the judging process (tests/broker/test_judge_process.py),
    # where a rule cannot say which thread judged them
    os.environ["GUARDTUI_JUDGE_PROCESS"] = "0"
    try:
        broker = await start_broker(ask_policy=Outcome.DENY)
    finally:
        del os.environ["GUARDTUI_JUDGE_PROCESS"]
    broker.engine._rules = (rule,)
    return broker


async def test_small_calls_are_judged_on_the_event_loop_and_large_ones_in_a_worker(start_broker):
    rule = Recording()
    broker = await broker_with(start_broker, rule)
    loop_thread = threading.get_ident()
    assert decision_of((await post_unix(broker, "claude", payload("ls")))[1]) == "allow"
    big = "echo " + "x" * INLINE_MAX_BYTES
    assert decision_of((await post_unix(broker, "claude", payload(big)))[1]) == "allow"
    assert rule.threads["ls"] == loop_thread
    assert rule.threads[big[:20]] != loop_thread


async def test_a_slow_call_holds_nobody_else(start_broker):
    """While one agent's call is still being judged, others are answered (the broker used to judge one
    call at a time on one thread: a concurrent `ls` waited for the slow one)."""
    rule = Recording()
    broker = await broker_with(start_broker, rule)
    slow = [asyncio.create_task(post_unix(broker, "claude", payload(f"slow {n}", session=f"s{n}")))
            for n in range(2)]
    while len([k for k in rule.threads if k.startswith("slow")]) < 2:
        await asyncio.sleep(0.01)
    for n in range(5):  # answered while both slow calls are still being judged
        status, answer, _ = await post_unix(broker, "claude", payload(f"ls {n}", session="other"))
        assert status == 200 and decision_of(answer) == "allow"
    assert not any(task.done() for task in slow)
    rule.release.set()
    for task in slow:
        assert decision_of((await task)[1]) == "allow"


async def test_a_call_over_the_budget_asks_and_is_answered_by_policy(start_broker, monkeypatch):
    rule = Recording()
    broker = await broker_with(start_broker, rule)
    broker.engine.budget_s = 0.05
    status, answer, headers = await post_unix(broker, "claude", payload("slow forever"))
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"  # asked, and serve's policy (deny) answered it
    assert "took longer than its 50 ms budget" in out["permissionDecisionReason"]
    rule.release.set()
    audit = broker.engine.audit.entries()
    assert [(e.verdict, e.rule) for e in audit] == [("deny", "engine.budget")]


async def test_the_audit_log_of_a_running_broker_is_written_behind_and_complete(start_broker):
    broker = await start_broker()
    answers = await asyncio.gather(*(post_unix(broker, "claude", payload(f"ls {n}", session=f"s{n}"))
                                     for n in range(30)))
    assert all(decision_of(a[1]) == "allow" for a in answers)
    assert sorted(e.summary for e in broker.engine.audit.entries()) == sorted(f"ls {n}" for n in range(30))
    assert json.loads(json.dumps([e.to_dict() for e in broker.engine.audit.entries()]))
