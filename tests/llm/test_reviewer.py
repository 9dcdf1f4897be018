"""The guard agent's conversation over real HTTP: one-turn and multi-turn reviews, skills loaded
through the tool, every way an answer can fail (each one an ask), the turn limit, the time
budget, the cache, the single-turn mode."""
from __future__ import annotations

import json
import time

import pytest

from guardtui.core.llm.framing import LAST_TURN, SKILL_TOOL
from guardtui.core.model import Verdict

from .fake_model import answer, hang, raw, say, tools

UNKNOWN = "frobnicate --all"


def kinds(events):
    return [(e.kind, e.message) for e in events]


async def test_a_routine_call_is_allowed_in_one_turn_with_the_bash_skill_up_front(model, make_reviewer, escalate):
    model.script(say("Formats the project's sources in place; nothing leaves the project.\nALLOW", usage=(900, 30)))
    call, escalated = escalate(UNKNOWN)
    events = []
    decision = await make_reviewer().review(call, escalated, hook_timeout_s=600, emit=events.append)
    assert decision.verdict is Verdict.ALLOW and decision.rule == "llm"
    info = decision.metadata["llm"]
    assert (info["outcome"], info["turns"], info["prompt_tokens"], info["completion_tokens"]) == ("answered", 1, 900, 30)
    assert info["model"] == "guard-7b" and info["skills"] == ["bash"] and info["latency_ms"] > 0
    request = model.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "guard-7b" and body["temperature"] == 0 and body["stream"] is False
    system, user = body["messages"]
    assert system["role"] == "system" and "expert security engineer" in system["content"]
    assert "- simulate: Step-by-step simulation" in system["content"]  # on demand, listed
    assert "--- guard skill: bash (Shell review) ---" in user["content"]  # auto-injected
    assert "guard skill: python" not in user["content"]
    assert [t["function"]["name"] for t in body["tools"]] == [SKILL_TOOL]
    assert body["tools"][0]["function"]["parameters"]["properties"]["id"]["enum"] == ["go", "js", "python",
                                                                                      "simulate"]
    said = [m for _, m in kinds(events)]
    assert said[0] == f"evaluating: {UNKNOWN} · skills: bash"
    assert said[1].startswith("turn 1: ALLOW (") and "930 tokens" in said[1]


async def test_a_multi_turn_review_loads_a_skill_through_the_tool_then_denies(model, make_reviewer, escalate):
    command = "python3 -c \"import os; os.system('frobnicate --purge /srv/cache')\""
    model.script(tools((SKILL_TOOL, {"id": "simulate"})),
                 say("Traced: os.system runs frobnicate --purge on /srv/cache.\nDENY: purges the shared cache"))
    call, escalated = escalate(command)
    events = []
    decision = await make_reviewer().review(call, escalated, emit=events.append)
    assert decision.verdict is Verdict.DENY and decision.reason == "purges the shared cache"
    assert decision.metadata["llm"]["skills"] == ["bash", "python", "simulate"]
    assert decision.metadata["llm"]["turns"] == 2
    first, second = model.requests
    user = first["body"]["messages"][1]["content"]
    assert "guard skill: bash" in user and "guard skill: python (Python review)" in user  # python3 -c seen
    history = second["body"]["messages"]
    assert history[2]["role"] == "assistant" and history[2]["tool_calls"][0]["function"]["name"] == SKILL_TOOL
    assert history[3]["role"] == "tool" and history[3]["tool_call_id"] == "call_0"
    assert "Simulate before you decide" in history[3]["content"]
    assert second["body"]["messages"][-1]["role"] == "tool"  # not the last turn: no "decide now" yet
    said = [m for _, m in kinds(events)]
    assert said[1] == "turn 1: loads skill simulate"
    assert said[2].startswith("turn 2: DENY: purges the shared cache (")


async def test_unknown_skills_bad_arguments_and_unknown_tools_are_answered_and_the_review_goes_on(
        model, make_reviewer, escalate):
    model.script(tools((SKILL_TOOL, {"id": "rust"}), (SKILL_TOOL, "{not json"), ("run_shell", {"cmd": "id"}),
                       (SKILL_TOOL, {"id": "bash"})),
                 say("ASK: cannot tell what frobnicate does"))
    call, escalated = escalate(UNKNOWN)
    decision = await make_reviewer().review(call, escalated)
    assert decision.verdict is Verdict.ASK and decision.reason == "guard agent: cannot tell what frobnicate does"
    results = [m["content"] for m in model.messages(1) if m["role"] == "tool"]
    assert results[0].startswith("no guard skill with id 'rust'; the ids are: ")
    assert results[1].startswith('give the skill\'s id as {"id": "…"}')
    assert results[2] == f"there is no tool named 'run_shell'; the only tool is {SKILL_TOOL}"
    assert results[3] == "guard skill bash is already loaded above"  # it was injected up front
    assert decision.metadata["llm"]["skills"] == ["bash"]


@pytest.mark.parametrize("reply,why", [
    ("sure, go ahead", "no verdict line: 'sure, go ahead'"),
    ("**ALLOW**", "no verdict line"),
    ("ALLOW.", "no verdict line"),
    ("allow", "no verdict line"),
    ("Allow", "no verdict line"),
    ("DENY:", "no verdict line"),
    ("ASK:   ", "no verdict line"),
    ("ALLOW\nbecause it is a build", "no verdict line"),
    ("ASK: unsure\nALLOW", "conflicting verdict lines"),
    ("DENY: deletes data\nALLOW", "conflicting verdict lines"),
    ("", "empty answer"),
])
async def test_anything_but_an_exact_verdict_line_asks(model, make_reviewer, escalate, reply, why):
    model.script(say(reply))
    call, escalated = escalate(UNKNOWN)
    decision = await make_reviewer().review(call, escalated)
    assert decision.verdict is Verdict.ASK and decision.rule == escalated.rule
    assert why in decision.reason and decision.reason.startswith(escalated.reason)
    assert decision.metadata["llm"]["outcome"] == "malformed" and decision.metadata["llm"]["verdict"] == ""


@pytest.mark.parametrize("step,why", [
    (raw(500, '{"error": {"message": "model overloaded"}}'), "HTTP 500"),
    (raw(401, "unauthorised"), "HTTP 401"),
    (raw(200, "not json at all"), "is not JSON"),
    (raw(200, '{"choices": []}'), "no choices[0]"),
    (raw(200, '[1, 2]'), "not a chat completion object"),
    (raw(200, '{"choices": [{"message": {"content": 7}}]}'), "content is not text"),
    (raw(200, '{"error": "quota exceeded"}'), "answered with an error: quota exceeded"),
    (raw(200, b"{" + b" " * (1 << 20) + b"}"), "larger than 1024 KiB"),
    (say("ALLOW", finish="length"), "cut off (max_tokens)"),
    (say("ALLOW", finish="content_filter"), "stopped (content_filter)"),
])
async def test_every_endpoint_failure_asks(model, make_reviewer, escalate, step, why):
    model.script(step)
    call, escalated = escalate(UNKNOWN)
    decision = await make_reviewer().review(call, escalated)
    assert decision.verdict is Verdict.ASK and why in decision.reason, decision.reason
    assert decision.metadata["llm"]["outcome"] in ("error", "cut", "ended")


async def test_an_unreachable_endpoint_asks(make_reviewer, escalate):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    reviewer = make_reviewer(base_url=f"http://127.0.0.1:{port}/v1")
    call, escalated = escalate(UNKNOWN)
    decision = await reviewer.review(call, escalated)
    assert decision.verdict is Verdict.ASK and "the model could not be asked" in decision.reason
    assert decision.metadata["llm"]["outcome"] == "error"


async def test_the_time_budget_ends_a_slow_review_with_an_ask(model, make_reviewer, escalate):
    model.script(hang())
    call, escalated = escalate(UNKNOWN)
    events = []
    started = time.monotonic()
    decision = await make_reviewer(timeout_s=1.0).review(call, escalated, hook_timeout_s=600, emit=events.append)
    assert time.monotonic() - started < 10  # well before the hang would end
    assert decision.verdict is Verdict.ASK and "no verdict within 1 s" in decision.reason
    assert decision.metadata["llm"]["outcome"] in ("timeout", "error")
    assert events[-1].message.startswith("no verdict, so the call asks: no verdict within 1 s")


def test_the_budget_is_at_most_half_the_agents_hook_timeout(settings, locations):
    from guardtui.core.llm import GuardReviewer

    reviewer = GuardReviewer(settings(timeout_s=20.0), transport=None, home="/h")  # type: ignore[arg-type]
    assert reviewer.budget_for(600) == 20.0 and reviewer.budget_for(30) == 15.0 and reviewer.budget_for(1) == 1.0


async def test_the_turn_limit_asks_and_the_last_turn_offers_no_tools(model, make_reviewer, escalate):
    model.script(*[tools((SKILL_TOOL, {"id": name})) for name in ("simulate", "python", "go")])
    call, escalated = escalate(UNKNOWN)
    decision = await make_reviewer(max_turns=3).review(call, escalated)
    assert decision.verdict is Verdict.ASK and "still wanted skills after 3 turn(s)" in decision.reason
    assert decision.metadata["llm"]["outcome"] == "turn-limit" and len(model.requests) == 3
    assert "tools" in model.body(0) and "tools" in model.body(1) and "tools" not in model.body(2)
    assert model.messages(2)[-1] == {"role": "user", "content": LAST_TURN}


async def test_a_model_that_decides_on_its_last_turn_is_heard(model, make_reviewer, escalate):
    model.script(tools((SKILL_TOOL, {"id": "simulate"})), say("DENY: runs an unknown binary as root"))
    call, escalated = escalate(UNKNOWN)
    decision = await make_reviewer(max_turns=2).review(call, escalated)
    assert decision.verdict is Verdict.DENY and "tools" not in model.body(1)


async def test_identical_calls_in_a_session_ask_the_model_once_and_failures_are_not_cached(
        model, make_reviewer, escalate):
    reviewer = make_reviewer()
    model.script(say("ALLOW"), say("DENY: not in this session"), say("no idea"), say("ASK: still unsure"))
    call, escalated = escalate(UNKNOWN, session="s1")
    events = []
    first = await reviewer.review(call, escalated, emit=events.append)
    again = await reviewer.review(call, escalated, emit=events.append)
    assert first.verdict is again.verdict is Verdict.ALLOW and len(model.requests) == 1
    assert again.metadata["llm"]["cached"] and again.metadata["llm"]["prompt_tokens"] == 0
    assert events[-1].message == "same call earlier this session: ALLOW (cached, no model call)"
    other_session = await reviewer.review(*escalate(UNKNOWN, session="s2"))
    assert other_session.verdict is Verdict.DENY and len(model.requests) == 2
    other_call = escalate("frobnicate --some", session="s1")
    assert (await reviewer.review(*other_call)).metadata["llm"]["outcome"] == "malformed"
    assert (await reviewer.review(*other_call)).reason == "guard agent: still unsure"  # the failure was not kept
    assert len(model.requests) == 4


async def test_single_mode_is_one_request_without_skills_or_tools(model, make_reviewer, escalate):
    model.script(say("DENY: wipes the cache server"))
    call, escalated = escalate(UNKNOWN)
    decision = await make_reviewer(mode="single").review(call, escalated)
    assert decision.verdict is Verdict.DENY and decision.metadata["llm"]["mode"] == "single"
    body = model.body()
    assert "tools" not in body and len(body["messages"]) == 2
    assert "guard skill" not in body["messages"][1]["content"]
    assert "security reviewer" in body["messages"][0]["content"]
    assert decision.metadata["llm"]["skills"] == []


async def test_single_mode_asks_when_the_model_calls_a_tool_anyway(model, make_reviewer, escalate):
    model.script(tools((SKILL_TOOL, {"id": "simulate"})))
    decision = await make_reviewer(mode="single").review(*escalate(UNKNOWN))
    assert decision.verdict is Verdict.ASK and "asked for a tool it was not offered" in decision.reason


async def test_a_model_that_reads_the_call_gets_the_tool_name_input_and_the_rules_note(model, make_reviewer,
                                                                                       escalate):
    seen = {}

    def read(body):
        seen["user"] = body["messages"][1]["content"]
        return say("ASK: unknown tool")

    model.script(answer(read))
    call, escalated = escalate(tool="mcp__acme__frobnicate", tool_input={"widget": "blue gear"})
    assert escalated.metadata.get("escalation") == "llm", escalated  # a tool no rule knows
    await make_reviewer().review(call, escalated)
    assert "tool: mcp__acme__frobnicate" in seen["user"] and json.dumps("blue gear") in seen["user"]
    assert f"rule engine's note: {escalated.reason}" in seen["user"]
    assert "guard skill:" not in seen["user"]  # no language: no skill up front


def test_the_environments_proxy_is_used_unless_no_proxy_covers_the_endpoint(monkeypatch):
    from guardtui.broker.llm_client import env_proxy

    monkeypatch.setenv("https_proxy", "http://proxy.corp:3128")
    monkeypatch.setenv("no_proxy", "localhost,127.0.0.1")
    assert env_proxy("https://api.example.com/v1/chat/completions") == "http://proxy.corp:3128"
    assert env_proxy("http://127.0.0.1:11434/v1/chat/completions") is None
    assert env_proxy("http://gpu-box:8080/v1/chat/completions") is None  # no http_proxy set
