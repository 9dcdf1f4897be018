"""The console under a flood: 1,000 pending calls streaming in at 200 per second over the real
broker (HTTP on loopback, real Claude Code payloads), while a person answers with `y`.

Reports, in one run:
  - key-press-to-answer latency: from the key press to the agent's HTTP response, while the
    calls stream in and again with the queue full (~900 waiting)
  - how late the event loop runs during the flood (a 50 ms ticker's lateness)
  - memory: the process's resident set before, with the queue full, and at its peak

    python benchmarks/console.py [--calls 1000] [--rate 200] [--json]

Targets (issue 12): the loop's lateness under the flood at p95 under 50 ms, the resident set
under 150 MiB at its peak. The console freezes what start-up built out of the collector's reach
and collects young objects less often (GuardApp.on_mount): garbage collection was most of the
lateness.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import asyncio
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402

from guardtui.core.config import Locations  # noqa: E402
from guardtui.core.factory import build_engine  # noqa: E402
from guardtui.tui.app import ConsoleSettings  # noqa: E402
from guardtui.tui.factory import make_app  # noqa: E402


LATENESS_P95_TARGET_MS = 50.0
RSS_PEAK_TARGET_MIB = 150.0


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def latency_summary(values: list[float]) -> dict:
    """p50 / p95 / max in ms and the count; a small run may finish streaming before any key (n 0)."""
    if not values:
        return {"p50": None, "p95": None, "max": None, "n": 0}
    return {"p50": round(pct(values, 50) * 1000, 1), "p95": round(pct(values, 95) * 1000, 1),
            "max": round(max(values) * 1000, 1), "n": len(values)}


def rss_mib() -> tuple[float, float]:
    """(current, peak) resident set size in MiB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    kib = lambda name: float(fields.get(name, "0 kB").split()[0])  # noqa: E731
    if "VmRSS" in fields:
        return kib("VmRSS") / 1024, kib("VmHWM") / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return peak, peak


def payload(n: int, project: str) -> dict:
    return {"session_id": "bench-session", "transcript_path": "~/.claude/projects/bench.jsonl", "cwd": project,
            "prompt_id": f"p{n}", "permission_mode": "default", "effort": {"level": "medium"},
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": f"rm -rf build/cache-{n}", "description": "clean"},
            "tool_use_id": f"toolu_{n:05d}"}


async def run(calls: int, rate: float) -> dict:
    import aiohttp

    root = Path(tempfile.mkdtemp(prefix="guardtui-bench-"))
    atexit.register(shutil.rmtree, root, True)  # a throwaway home: gone when the benchmark ends
    env = {"HOME": str(root), "GUARDTUI_CONFIG_DIR": str(root / "config"), "GUARDTUI_STATE_DIR": str(root / "state"),
           "GUARDTUI_RUNTIME_DIR": str(root / "run")}
    locations = Locations.from_env(env)
    project = str(root / "project")
    engine = build_engine(locations, record=True, path_env=os.environ.get("PATH", ""))
    app = make_app(engine, locations=locations, cwd=project, port=0, unix_socket=False,
                   settings=ConsoleSettings(watch_plugins=False, answer_pause_s=0))
    # the console's drawing under a full queue is what is measured: lift the caps on waiting calls
    # (a real console answers past them by policy) and the pause after a call comes up (the
    # simulated person presses y on the same call each time, with no pause to wait out)
    app.queue.max_pending = app.queue.max_per_agent = calls
    # and the cap on open connections (one per waiting call; client and broker share this process,
    # so each call holds two descriptors)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2 * calls + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    rss_before, _ = rss_mib()
    frozen_seen = 0
    answered_at: dict[int, float] = {}
    verdicts: dict[int, str] = {}
    lateness: list[float] = []
    streaming_latency: list[float] = []
    full_latency: list[float] = []

    async with app.run_test(size=(160, 48)) as pilot:
        while app.broker_state != "listening":
            await asyncio.sleep(0.01)
        app.broker._runner.cap = calls + 64  # every call of the flood holds its connection while it waits
        frozen_seen = gc.get_freeze_count()  # what the console put out of the collector's reach
        url, token = app.broker.url, app.broker.token
        connector = aiohttp.TCPConnector(limit=0)
        session = aiohttp.ClientSession(connector=connector, headers={"Authorization": f"Bearer {token}"})

        async def agent(n: int) -> None:
            async with session.post(f"{url}/hooks/claude", json=payload(n, project),
                                    params={"timeout": "600"}) as response:
                body = await response.json(content_type=None)
            answered_at[n] = time.perf_counter()
            verdicts[n] = body["hookSpecificOutput"]["permissionDecision"]

        stop_ticker = asyncio.Event()

        async def ticker() -> None:
            while not stop_ticker.is_set():
                start = time.perf_counter()
                await asyncio.sleep(0.05)
                lateness.append(time.perf_counter() - start - 0.05)

        async def stream() -> float:
            start = time.perf_counter()
            tasks = []
            for n in range(calls):
                delay = start + n / rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(agent(n)))
            stream.tasks = tasks  # type: ignore[attr-defined]
            return time.perf_counter() - start

        async def press_y(samples: list[float]) -> None:
            """Answer the selected call (the oldest) and time it to the agent's response."""
            pending = app.queue.pending()
            if not pending:
                return
            n = int(pending[0].call.call_id.split("_")[-1])
            key = events.Key("y", "y")  # what the terminal driver sends when the person presses y
            key.set_sender(app)
            pressed = time.perf_counter()
            app._driver.send_message(key)
            while n not in answered_at:
                await asyncio.sleep(0.0005)
            samples.append(answered_at[n] - pressed)

        tick = asyncio.create_task(ticker())
        streamer = asyncio.create_task(stream())
        while len(app.queue) < 20:
            await asyncio.sleep(0.01)
        while not streamer.done():  # answer while the flood goes on
            await press_y(streaming_latency)
            await asyncio.sleep(0.1)
        stream_s = streamer.result()
        while len(app.queue) + len(answered_at) < calls:
            await asyncio.sleep(0.01)
        await pilot.pause()
        waiting_full = len(app.queue)
        for _ in range(50):  # the queue is full: answer some more
            await press_y(full_latency)
            await asyncio.sleep(0.02)
        rss_during, _ = rss_mib()
        stop_ticker.set()
        await tick
        closed = await app.queue.close("the benchmark ended")
        await asyncio.gather(*stream.tasks)  # type: ignore[attr-defined]
        await session.close()
        await pilot.press("q")
    rss_after, rss_peak = rss_mib()
    rows = engine.audit.entries()
    frozen = frozen_seen
    person = sum(1 for r in rows if r.decided_by == "person")
    return {
        "calls": calls, "rate_per_s": rate, "stream_s": round(stream_s, 2),
        "arrival_rate_per_s": round(calls / stream_s, 1),
        "answered_by_key": len(streaming_latency) + len(full_latency),
        "answered_by_policy_at_end": closed, "every_call_answered_once": len(answered_at) == calls == len(rows),
        "audit_person_rows": person, "waiting_when_full": waiting_full,
        "latency_ms_streaming": latency_summary(streaming_latency),
        "latency_ms_full_queue": latency_summary(full_latency),
        "loop_lateness_ms": latency_summary(lateness),
        "memory_mib": {"rss_before": round(rss_before, 1), "rss_with_queue_full": round(rss_during, 1),
                       "rss_after": round(rss_after, 1), "rss_peak": round(rss_peak, 1)},
        "targets": {"loop_lateness_p95_ms": LATENESS_P95_TARGET_MS, "rss_peak_mib": RSS_PEAK_TARGET_MIB,
                    "met": bool(lateness) and pct(lateness, 95) * 1000 < LATENESS_P95_TARGET_MS
                    and rss_peak < RSS_PEAK_TARGET_MIB},
        "gc_frozen_objects": frozen,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=200.0, help="calls per second")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.calls, args.rate))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    s, f, lag, mem = (result["latency_ms_streaming"], result["latency_ms_full_queue"], result["loop_lateness_ms"],
                      result["memory_mib"])
    print(f"{result['calls']} calls at {result['rate_per_s']:.0f}/s over the broker: arrived in "
          f"{result['stream_s']} s ({result['arrival_rate_per_s']}/s); {result['waiting_when_full']} waiting at once")
    print(f"key press → agent's answer, while streaming: p50 {s['p50']} ms, p95 {s['p95']} ms, max {s['max']} ms "
          f"({s['n']} presses)")
    print(f"key press → agent's answer, queue full:      p50 {f['p50']} ms, p95 {f['p95']} ms, max {f['max']} ms "
          f"({f['n']} presses)")
    print(f"event loop lateness (50 ms ticker): p50 {lag['p50']} ms, p95 {lag['p95']} ms, max {lag['max']} ms")
    print(f"memory: RSS {mem['rss_before']} MiB before, {mem['rss_with_queue_full']} MiB with the queue full, "
          f"peak {mem['rss_peak']} MiB")
    t = result["targets"]
    print(f"targets: loop lateness p95 < {t['loop_lateness_p95_ms']:.0f} ms and peak RSS < {t['rss_peak_mib']:.0f} MiB: "
          f"{'met' if t['met'] else 'NOT met'}")
    print(f"every call answered exactly once: {result['every_call_answered_once']} "
          f"({result['answered_by_key']} by key, {result['answered_by_policy_at_end']} by policy at the end; "
          f"{result['audit_person_rows']} audited with the person as decider)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
