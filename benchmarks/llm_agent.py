"""What the guard agent costs on top of the model it asks, against a local fake model, in one run.

    python benchmarks/llm_agent.py [--reviews 200] [--json]

The fake model (tests/llm/fake_model.py: a chat-completions server on loopback) answers at
once, so everything measured is guardtui's own work — the worst case for a ratio, since a real
model takes 100 ms to seconds per turn.

1. Overhead: one review (skills loaded, language detected, prompt framed, request sent, reply
   parsed, limits applied) next to the bare round trip of the same request body to the same
   server with the same HTTP client, interleaved. Reported: the medians and their ratio; the
   budget is 3x (the review's own work stays under a couple of milliseconds).
2. A review answered from the session cache, next to the same bare round trip.
3. What a call costs in tokens: the request's size in characters and an estimate in tokens
   (characters / 4) for one turn in agent mode (system prompt, the call, the bash skill), a
   turn that loads `simulate`, and single mode.
4. A slow model does not slow anything else: rule-decided calls through the broker, while 8
   reviews wait on a model that does not answer, next to the same calls with the model idle.
   Reported: the medians and their ratio (the budget: 1.5x).

Exit status 1 when a ratio is over its budget.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from guardtui.broker.llm_client import AiohttpChat  # noqa: E402
from guardtui.core.config import Locations  # noqa: E402
from guardtui.core.factory import build_engine  # noqa: E402
from guardtui.core.llm import GuardReviewer, LLMSettings, SkillLibrary  # noqa: E402
from guardtui.core.model import ToolCall  # noqa: E402
from guardtui.core.shell.analyze import Analyzer  # noqa: E402
from tests.llm.fake_model import FakeModel, hang, say, tools  # noqa: E402

OVERHEAD_BUDGET, BLOCKING_BUDGET = 3.0, 1.5
COMMAND = "frobnicate --all --output build/report.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reviews", type=int, default=200, help="reviews and bare round trips of each kind")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="gtl"))
    try:
        for name in ("config", "state"):
            os.environ[f"GUARDTUI_{name.upper()}_DIR"] = str(scratch / name)
        os.environ["GUARDTUI_RUNTIME_DIR"] = str(scratch / "rt")
        figures = asyncio.run(run(args.reviews, scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(figures) if args.json else report(figures))
    return 0 if figures["overhead_ratio"] <= OVERHEAD_BUDGET and figures["blocking_ratio"] <= BLOCKING_BUDGET else 1


def engine_here(scratch: Path):
    engine = build_engine(Locations.from_env(), record=False)
    engine.analyzer = Analyzer(command_exists=lambda name: name != "nonexistent")
    engine.home = str(scratch)
    return engine


async def run(reviews: int, scratch: Path) -> dict:
    model = FakeModel(default=say("ALLOW")).start()
    try:
        settings = LLMSettings(model.url, "fake", None, 20.0)
        engine = engine_here(scratch)
        project = scratch / "project"
        project.mkdir(exist_ok=True)
        call = ToolCall("Bash", {"command": COMMAND}, str(project), agent="bench")
        escalated = engine.evaluate(call, record=False)
        assert escalated.metadata.get("escalation") == "llm", escalated
        reviewer = GuardReviewer(settings, AiohttpChat(settings), SkillLibrary(Locations.from_env()), home=engine.home,
                                 protected=engine.protection.paths())
        await reviewer.review(call, escalated)  # warm: skills read, connection open
        body = model.body()
        async with aiohttp.ClientSession() as session:
            bare, review, cached = [], [], []
            for n in range(reviews):
                bare.append(await timed(bare_round_trip(session, model.url, body)))
                fresh = ToolCall("Bash", {"command": COMMAND}, str(project), agent="bench", session=f"s{n}")
                review.append(await timed(reviewer.review(fresh, escalated)))
                cached.append(await timed(reviewer.review(fresh, escalated)))
        sizes = await prompt_sizes(model, reviewer, call, escalated)
        blocking = await broker_under_slow_model(model, settings, scratch)
        await reviewer.close()
    finally:
        model.stop()
    bare_ms, review_ms, cached_ms = (statistics.median(x) for x in (bare, review, cached))
    return {"reviews": reviews, "bare_round_trip_median_ms": round(bare_ms, 3),
            "review_median_ms": round(review_ms, 3), "overhead_ms": round(review_ms - bare_ms, 3),
            "overhead_ratio": round(review_ms / bare_ms, 2), "overhead_budget": OVERHEAD_BUDGET,
            "cached_review_median_ms": round(cached_ms, 3), **sizes, **blocking,
            "blocking_budget": BLOCKING_BUDGET}


async def timed(awaitable) -> float:
    start = time.perf_counter()
    await awaitable
    return (time.perf_counter() - start) * 1000


async def bare_round_trip(session: aiohttp.ClientSession, url: str, body: dict) -> None:
    async with session.post(f"{url}/chat/completions", data=json.dumps(body),
                            headers={"Content-Type": "application/json"}) as response:
        json.loads(await response.read())


async def prompt_sizes(model: FakeModel, reviewer: GuardReviewer, call: ToolCall, escalated) -> dict:
    """Characters sent per request, and tokens estimated at 4 characters each."""
    def chars(body: dict) -> int:
        return sum(len(m.get("content") or "") for m in body["messages"]) + len(json.dumps(body.get("tools", [])))

    model.script(say("ALLOW"))
    await reviewer.review(ToolCall(call.tool, call.input, call.cwd, session="size-1"), escalated)
    one_turn = chars(model.body())
    model.script(tools(("load_skill", {"id": "simulate"})), say("ALLOW"))
    await reviewer.review(ToolCall(call.tool, call.input, call.cwd, session="size-2"), escalated)
    second_turn = chars(model.body())
    single = GuardReviewer(LLMSettings(reviewer.settings.base_url, "fake", None, 20.0, "single"), reviewer.transport,
                           home=reviewer.home)
    model.script(say("ALLOW"))
    await single.review(ToolCall(call.tool, call.input, call.cwd, session="size-3"), escalated)
    single_chars = chars(model.body())
    return {"agent_one_turn_chars": one_turn, "agent_one_turn_tokens_est": one_turn // 4,
            "agent_two_turns_tokens_est": (one_turn + second_turn) // 4,
            "single_chars": single_chars, "single_tokens_est": single_chars // 4}


async def broker_under_slow_model(model: FakeModel, settings: LLMSettings, scratch: Path, calls: int = 100) -> dict:
    """Rule-decided calls through the broker, with the model idle and with 8 reviews stuck in it."""
    from guardtui.broker.queue import Outcome, PendingQueue
    from guardtui.broker.server import Broker

    engine = engine_here(scratch)
    broker = Broker(engine, PendingQueue(engine, Outcome.DENY), Locations.from_env(), port=0, unix_socket=False,
                    ask_policy=Outcome.DENY, reviewer=GuardReviewer(settings, AiohttpChat(settings), home=engine.home))
    await broker.start()
    headers = {"Authorization": f"Bearer {broker.token}", "Content-Type": "application/json"}

    def payload(command: str, session: str) -> str:
        return json.dumps({"session_id": session, "cwd": str(scratch), "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": command}})

    async def post(session: aiohttp.ClientSession, command: str, name: str) -> bytes:
        async with session.post(f"{broker.url}/hooks/claude", data=payload(command, name), headers=headers) as r:
            return await r.read()

    try:
        async with aiohttp.ClientSession() as session:
            idle = [await timed(post(session, "ls -la", "idle")) for _ in range(calls)]
            model.script(*[hang() for _ in range(8)])
            stuck = [asyncio.create_task(post(session, f"frobnicate --n {i}", f"slow-{i}")) for i in range(8)]
            while model.in_flight < 8:
                await asyncio.sleep(0.01)
            busy = [await timed(post(session, "ls -la", "busy")) for _ in range(calls)]
            model.release()
            await asyncio.gather(*stuck)
    finally:
        await broker.stop()
    idle_ms, busy_ms = statistics.median(idle), statistics.median(busy)
    return {"rule_call_idle_median_ms": round(idle_ms, 3), "rule_call_with_8_slow_reviews_median_ms": round(busy_ms, 3),
            "blocking_ratio": round(busy_ms / idle_ms, 2)}


def report(f: dict) -> str:
    over = "within budget" if f["overhead_ratio"] <= OVERHEAD_BUDGET else "OVER BUDGET"
    block = "within budget" if f["blocking_ratio"] <= BLOCKING_BUDGET else "OVER BUDGET"
    return "\n".join([
        f"guard agent overhead ({f['reviews']} reviews, a fake model that answers at once)",
        f"  bare chat-completions round trip  median {f['bare_round_trip_median_ms']:7.3f} ms",
        f"  one review (one turn)             median {f['review_median_ms']:7.3f} ms  "
        f"(+{f['overhead_ms']:.3f} ms, {f['overhead_ratio']:.2f}x; budget {OVERHEAD_BUDGET}x: {over})",
        f"  the same call again (cached)      median {f['cached_review_median_ms']:7.3f} ms",
        "what a review sends (tokens estimated at 4 characters each)",
        f"  agent mode, one turn              {f['agent_one_turn_chars']:6,} chars  ~{f['agent_one_turn_tokens_est']:,} "
        "prompt tokens",
        f"  agent mode, loading simulate      ~{f['agent_two_turns_tokens_est']:,} prompt tokens over two turns",
        f"  single mode                       {f['single_chars']:6,} chars  ~{f['single_tokens_est']:,} prompt tokens",
        "a slow model blocks nothing else (rule-decided calls through the broker)",
        f"  model idle                        median {f['rule_call_idle_median_ms']:7.3f} ms",
        f"  8 reviews stuck in the model      median {f['rule_call_with_8_slow_reviews_median_ms']:7.3f} ms  "
        f"({f['blocking_ratio']:.2f}x; budget {BLOCKING_BUDGET}x: {block})"])


if __name__ == "__main__":
    sys.exit(main())
