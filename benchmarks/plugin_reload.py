"""Save-to-effect latency of plugin hot reload: from writing a plugin file to the engine's
new verdict, with the real watcher running in an asyncio loop (as in the console).

    python benchmarks/plugin_reload.py [--saves 20]

Target: a saved change is in force within 500 ms. Set WATCHFILES_FORCE_POLLING=1 to
measure the polling fallback (network and container file systems).
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import percentile

from guardtui.core.config import Locations
from guardtui.core.factory import build_engine
from guardtui.core.model import ToolCall, Verdict
from guardtui.core.plugins import watch_plugins

TARGET_MS = 500
PLUGIN = "id: docker\npatterns: [{{match: docker, verdict: {verdict}}}]\n"


async def measure(saves: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        locations = Locations(base / "config", base / "state", base / "run", base / "home")
        guards = locations.user_plugins_dir
        guards.mkdir(parents=True)
        (guards / "docker.yaml").write_text(PLUGIN.format(verdict="ask"))
        engine = build_engine(locations, record=False)
        call = ToolCall("Bash", {"command": "docker build ."}, str(base / "project"))
        stop, ready = asyncio.Event(), asyncio.Event()
        watcher = asyncio.create_task(watch_plugins(engine, locations, str(base / "project"), lambda e: None, stop,
                                                    ready=ready))
        await asyncio.wait_for(ready.wait(), 10)
        latencies = []
        for save in range(saves):
            wanted = Verdict.DENY if save % 2 == 0 else Verdict.ASK
            start = time.perf_counter()
            (guards / "docker.yaml").write_text(PLUGIN.format(verdict=wanted.value))
            while engine.evaluate(call, record=False).verdict is not wanted:
                if time.perf_counter() - start > 10:
                    raise SystemExit(f"save {save + 1} never took effect")
                await asyncio.sleep(0.001)
            latencies.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.2)  # let the next save be a separate burst
        stop.set()
        await watcher
        return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=20)
    args = parser.parse_args()
    latencies = asyncio.run(measure(args.saves))
    worst = max(latencies)
    verdict = "OK" if worst <= TARGET_MS else "OVER TARGET"
    print(f"plugin save-to-effect latency over {len(latencies)} saves: min {min(latencies):.0f} ms, "
          f"median {statistics.median(latencies):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
          f"max {worst:.0f} ms (target: in force within {TARGET_MS} ms) — {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
