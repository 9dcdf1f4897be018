"""The guard agent in the broker, over real sockets: the agent's hook, the queue, the person, the
headless policy and the audit log, with the model a scripted server on loopback. A slow model
holds up nothing but its own call, and the first answer — the model's or the person's — wins."""
from __future__ import annotations

import asyncio

import pytest

from guardtui.broker.llm_client import AiohttpChat
from guardtui.broker.queue import Outcome, PendingQueue
from guardtui.broker.server import Broker
from guardtui.core.config import Locations
from guardtui.core.llm import GuardReviewer, SkillLibrary

from ..broker.conftest import decision_of, payload, post, until
from .conftest import installed
from .fake_model import hang, raw, say, tools

UNKNOWN, ASKS, SAFE = "frobnicate --all", "npm install left-pad", "ls -la"


@pytest.fixture
async def guarded(short_runtime, make_engine, settings):
    started: list[Broker] = []

    async def start(ask_policy: Outcome | None = None, timeout_policy: Outcome = Outcome.DEFER,
                    **changes) -> Broker:
        engine = installed(make_engine())
        chosen = settings(**changes)
        reviewer = GuardReviewer(chosen, AiohttpChat(chosen), SkillLibrary(Locations.from_env()), home=engine.home,
                                 protected=engine.protection.paths())
        broker = Broker(engine, PendingQueue(engine, timeout_policy=timeout_policy), Locations.from_env(), port=0,
                        ask_policy=ask_policy, reviewer=reviewer)
        await broker.start()
        started.append(broker)
        return broker

    yield start
    for broker in started:
        await broker.queue.close("test over")
        await broker.stop()


def audit(broker):
    return [(e.verdict, e.decided_by, e.rule, e.llm_model, e.llm_turns, e.llm_prompt_tokens, e.llm_completion_tokens)
            for e in broker.engine.audit.entries()]


def reason(answer) -> str:
    return answer["hookSpecificOutput"]["permissionDecisionReason"]


async def test_the_models_allow_answers_the_agent_and_the_audit_names_llm(guarded, model):
    broker = await guarded()
    model.script(say("Builds the docs.\nALLOW", usage=(800, 25)))
    added = []
    broker.queue.subscribe(lambda kind, pending: added.append((kind, pending.reviewing)))
    events = []
    broker.engine.on_event = events.append
    status, answer, _ = await post(broker, "claude", payload(UNKNOWN))
    assert status == 200 and decision_of(answer) == "allow"
    assert reason(answer) == "guardtui: allowed by the guard agent"
    assert added == [("added", True), ("resolved", False)]  # it waited in the queue while the model thought
    assert audit(broker) == [("allow", "llm", "llm", "guard-7b", 1, 800, 25)]
    entry = broker.engine.audit.entries()[0]
    assert entry.llm_latency_ms > 0 and entry.reason == "allowed by the guard agent — judged routine"
    assert [e.kind for e in events] == ["review", "review"] and events[0].message.startswith("evaluating: ")


async def test_the_models_deny_tells_the_agent_why(guarded, model):
    broker = await guarded()
    model.script(tools(("load_skill", {"id": "simulate"})), say("DENY: purges every cache node"))
    _, answer, _ = await post(broker, "claude", payload(UNKNOWN))
    assert decision_of(answer) == "deny"
    assert "denied by the guard agent — purges every cache node [llm]" in reason(answer)
    assert audit(broker) == [("deny", "llm", "llm", "guard-7b", 2, 270, 32)]


async def test_the_models_ask_leaves_the_call_to_the_person_with_its_reason(guarded, model):
    broker = await guarded()
    model.script(say("ASK: frobnicate --all touches every tenant"))
    kinds = []
    broker.queue.subscribe(lambda kind, pending: kinds.append(kind))
    request = asyncio.create_task(post(broker, "claude", payload(UNKNOWN)))
    await until(lambda: "reviewed" in kinds)
    pending = broker.queue.pending()[0]
    assert not pending.reviewing and pending.decision.reason == "guard agent: frobnicate --all touches every tenant"
    assert broker.queue.allow(pending.id)
    _, answer, _ = await request
    assert decision_of(answer) == "allow"
    assert audit(broker) == [("allow", "person", "llm", "guard-7b", 1, 120, 12)]  # the review's cost is kept


@pytest.mark.parametrize("step", [say("sure thing"), raw(503, "busy"), say("ALLOW", finish="length"),
                                  tools(("load_skill", {"id": "simulate"}))])
async def test_every_fallback_leaves_the_call_to_the_person(guarded, model, step):
    broker = await guarded(max_turns=1 if step.body and b"tool_calls" in step.body else 5)
    model.script(step)
    kinds = []
    broker.queue.subscribe(lambda kind, pending: kinds.append(kind))
    request = asyncio.create_task(post(broker, "claude", payload(UNKNOWN)))
    await until(lambda: "reviewed" in kinds)
    pending = broker.queue.pending()[0]
    assert "(guard agent: " in pending.decision.reason
    broker.queue.deny(pending.id, "not now")
    _, answer, _ = await request
    assert decision_of(answer) == "deny"
    (row,) = broker.engine.audit.entries()
    assert (row.verdict, row.decided_by, row.llm_model) == ("deny", "person", "guard-7b")


async def test_the_person_may_answer_while_the_model_thinks_and_the_first_answer_wins(guarded, model):
    broker = await guarded()
    model.script(hang())
    request = asyncio.create_task(post(broker, "claude", payload(UNKNOWN)))
    await until(lambda: len(broker.queue) == 1 and len(model.requests) == 1)
    pending = broker.queue.pending()[0]
    assert pending.reviewing
    assert broker.queue.deny(pending.id)
    _, answer, _ = await request
    assert decision_of(answer) == "deny" and "denied by the person" in reason(answer)
    model.release()  # the model answers late: nobody is listening any more
    await asyncio.sleep(0.1)
    assert audit(broker) == [("deny", "person", "default/shell.unknown", "", 0, 0, 0)]


async def test_a_slow_model_blocks_neither_other_calls_nor_other_reviews(guarded, model):
    broker = await guarded()
    model.script(hang(), hang())
    first = asyncio.create_task(post(broker, "claude", payload(UNKNOWN, session="a")))
    await until(lambda: model.in_flight == 1)
    # the engine and the broker keep answering while the model holds the first call …
    _, safe, _ = await post(broker, "claude", payload(SAFE, session="b"))
    assert decision_of(safe) == "allow"
    second = asyncio.create_task(post(broker, "claude", payload("frobnicate --some", session="c")))
    await until(lambda: model.in_flight == 2)  # … and a second review runs beside the first
    assert model.most_in_flight == 2 and not first.done()
    for pending in broker.queue.pending():
        broker.queue.allow(pending.id)
    assert [decision_of((await t)[1]) for t in (first, second)] == ["allow", "allow"]


async def test_calls_a_rule_decided_never_reach_the_model(guarded, model):
    broker = await guarded(ask_policy=Outcome.DENY)
    for command in (SAFE, "rm -rf ~", ASKS):
        await post(broker, "claude", payload(command))
    assert model.requests == []
    assert [(v, by) for v, by, *_ in audit(broker)] == [("allow", "rule"), ("deny", "rule"), ("deny", "policy")]


async def test_headless_the_model_decides_before_the_ask_policy(guarded, model):
    broker = await guarded(ask_policy=Outcome.DENY)
    model.script(say("ALLOW"), say("ASK: unsure"), raw(500, "down"))
    _, allowed, _ = await post(broker, "claude", payload(UNKNOWN, session="1"))
    _, asked, _ = await post(broker, "claude", payload(UNKNOWN, session="2"))
    _, failed, _ = await post(broker, "claude", payload(UNKNOWN, session="3"))
    assert [decision_of(a) for a in (allowed, asked, failed)] == ["allow", "deny", "deny"]
    assert "no person is watching" in reason(asked) and "guard agent: unsure" in reason(asked)
    assert "HTTP 500" in reason(failed)
    assert [(v, by, model_) for v, by, _, model_, *_ in audit(broker)] == [
        ("allow", "llm", "guard-7b"), ("deny", "policy", "guard-7b"), ("deny", "policy", "guard-7b")]


async def test_headless_a_timeout_is_the_policy_answer(guarded, model):
    broker = await guarded(ask_policy=Outcome.DEFER, timeout_s=1.0)
    model.script(hang())
    _, answer, _ = await post(broker, "claude", payload(UNKNOWN))
    assert decision_of(answer) == "ask" and "no verdict within 1 s" in reason(answer)


async def test_the_same_call_again_in_a_session_is_answered_from_the_cache(guarded, model):
    broker = await guarded()
    model.script(say("ALLOW"))
    for _ in range(3):
        _, answer, _ = await post(broker, "claude", payload(UNKNOWN))
        assert decision_of(answer) == "allow"
    assert len(model.requests) == 1
    assert [row[5] for row in audit(broker)] == [120, 0, 0]
