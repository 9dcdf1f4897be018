"""How much an agent pays per tool call for guardtui's hooks, measured in one run.

    python benchmarks/hook.py [--runs 40] [--requests 200] [--json]

1. The command hook: the exact command `guardtui install` writes, run through `sh -c` as agents
   do, with a payload on stdin, against a live broker (over the Unix socket), next to
   `sh -c "<same python> -c pass"`, interleaved, so both see the same machine. Reported: the
   medians and their ratio. The target is at most 1.5x (the aim 1.3x).
2. The HTTP hook: a POST /hooks/claude to the broker over loopback with a new connection each
   time, as Claude Code's HTTP hook does. Reported: the median and the 90th percentile.
3. The command hook with no console running (it judges with the engine itself): the median,
   and its ratio to `python -c pass` (what a person pays per call before starting the console).

The broker runs in this process (a thread with its own event loop), on a throwaway config,
with asks denied by policy (the call measured is a safe `ls`, allowed by rule). Exit status 1
when the command hook is over its budget.

Python's bytecode cache is on for the processes measured (in the throwaway dir, through
PYTHONPYCACHEPREFIX, even where PYTHONDONTWRITEBYTECODE is set): an installed guardtui has its
bytecode (pip compiles it), and the hook's launcher relies on it (guardtui/hook.py).
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BUDGET, AIM = 1.5, 1.3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40, help="process runs of each kind (default 40)")
    ap.add_argument("--requests", type=int, default=200, help="HTTP hook round trips (default 200)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="gtb"))
    try:
        for name in ("config", "state"):
            os.environ[f"GUARDTUI_{name.upper()}_DIR"] = str(scratch / name)
        os.environ["GUARDTUI_RUNTIME_DIR"] = str(scratch / "rt")
        os.environ["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")  # as installed: bytecode cached
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        project = scratch / "project"
        project.mkdir()
        with running_broker() as broker:
            figures = measure(broker, project, args.runs, args.requests)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures)
    return 0 if figures["command_ratio"] <= BUDGET else 1


class running_broker:
    """A Broker in a background thread's event loop (start on enter, close and stop on exit)."""

    def __enter__(self):
        from guardtui.broker.queue import Outcome, PendingQueue
        from guardtui.broker.server import Broker
        from guardtui.core.config import Locations
        from guardtui.core.factory import build_engine

        self.loop = asyncio.new_event_loop()
        engine = build_engine(Locations.from_env())
        self.broker = Broker(engine, PendingQueue(engine, Outcome.DENY), Locations.from_env(), port=0,
                             ask_policy=Outcome.DENY)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.broker.start(), self.loop).result(30)
        return self.broker

    def __exit__(self, *exc):
        async def stop():
            await self.broker.queue.close("benchmark over")
            await self.broker.stop()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def measure(broker, project: Path, runs: int, requests: int) -> dict:
    from guardtui.commands.install import hook_command

    body = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}).encode()
    command = hook_command("claude")
    baseline = f"{sys.executable} -c pass"
    out = subprocess.run(["sh", "-c", command], input=body, capture_output=True, check=True).stdout
    assert b'"allow"' in out, out  # the broker answered (not the offline path)
    for _ in range(3):  # warm the disk cache
        subprocess.run(["sh", "-c", baseline], input=body, capture_output=True)
    hook_times, pass_times = [], []
    for _ in range(runs):
        pass_times.append(timed(["sh", "-c", baseline], body))
        hook_times.append(timed(["sh", "-c", command], body))
    http_times = [http_round_trip(broker, body) for _ in range(requests)]
    offline_env = {**os.environ, "GUARDTUI_RUNTIME_DIR": str(project / "no-console")}
    offline = subprocess.run(["sh", "-c", command], input=body, capture_output=True, check=True, env=offline_env)
    assert b'"allow"' in offline.stdout, offline.stdout  # judged offline, by rule
    offline_times = [timed(["sh", "-c", command], body, offline_env) for _ in range(max(5, runs // 4))]
    hook_ms, pass_ms = statistics.median(hook_times), statistics.median(pass_times)
    return {"python": sys.executable, "runs": runs, "requests": requests,
            "python_c_pass_median_ms": round(pass_ms, 2), "command_hook_median_ms": round(hook_ms, 2),
            "command_ratio": round(hook_ms / pass_ms, 3), "budget_ratio": BUDGET, "aim_ratio": AIM,
            "http_hook_median_ms": round(statistics.median(http_times), 3),
            "http_hook_p90_ms": round(statistics.quantiles(http_times, n=10)[-1], 3),
            "offline_hook_median_ms": round(statistics.median(offline_times), 2),
            "offline_ratio": round(statistics.median(offline_times) / pass_ms, 2)}


def timed(argv: list[str], body: bytes, env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=body, capture_output=True, check=True, env=env)
    return (time.perf_counter() - start) * 1000


def http_round_trip(broker, body: bytes) -> float:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", broker.port, timeout=30)
    conn.request("POST", "/hooks/claude", body, {"Authorization": f"Bearer {broker.token}",
                                                 "Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status == 200 and b'"allow"' in data, data
    return elapsed


def report(f: dict) -> None:
    verdict = "within budget" if f["command_ratio"] <= BUDGET else "OVER BUDGET"
    print(f"command hook ({f['runs']} runs each, interleaved, through sh -c, {f['python']})")
    print(f"  python -c pass        median {f['python_c_pass_median_ms']:8.2f} ms")
    print(f"  guardtui command hook median {f['command_hook_median_ms']:8.2f} ms")
    print(f"  ratio                 {f['command_ratio']:.2f}x  (budget {BUDGET}x, aim {AIM}x): {verdict}")
    print(f"HTTP hook ({f['requests']} POST /hooks/claude, a new loopback connection each)")
    print(f"  round trip            median {f['http_hook_median_ms']:8.3f} ms, p90 {f['http_hook_p90_ms']:.3f} ms")
    print("command hook with no console (judged in the hook process)")
    print(f"  median                {f['offline_hook_median_ms']:8.2f} ms  ({f['offline_ratio']:.1f}x python -c pass)")


if __name__ == "__main__":
    sys.exit(main())
