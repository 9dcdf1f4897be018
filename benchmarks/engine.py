"""Engine.evaluate speed over the development corpus, next to a bare regex loop.

    python benchmarks/engine.py [--rounds N]

The baseline is what a regex guard does per command (BitCode's deny and ask lists,
compiled once, searched over the raw text), measured in the same run on the same
commands, so the ratio holds whatever the machine. Target: p99 under 1 ms per call,
parse included.
"""
from __future__ import annotations

import argparse
import json
import re
import time

from _common import CORPORA, isolated_engine, percentile

from guardtui.core.model import ToolCall

BASELINE_PATTERNS = [re.compile(p) for p in (
    r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|(-[a-zA-Z]*f[a-zA-Z]*r))\s+/\s*$",
    r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|(-[a-zA-Z]*f[a-zA-Z]*r))\s+~\s*$",
    r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|(-[a-zA-Z]*f[a-zA-Z]*r))\s+\$HOME\b",
    r"\bmkfs\b", r"\bdd\b.*\bof=/dev/", r":\(\)\{.*\|.*\};:", r"\bchmod\s+-R\s+777\s+/\s*$",
    r"\bsudo\b", r"\bcurl\b.*\|\s*(ba)?sh", r"\bwget\b.*\|\s*(ba)?sh", r"\bgit\s+push\s+--force\b",
    r"\bgit\s+push\s+-f\b", r"\bgit\s+reset\s+--hard\b", r"\bnpm\s+publish\b", r"\bcargo\s+publish\b",
    r"\bdocker\s+run\b", r"\bdocker\s+exec\b")]


def baseline(command: str) -> str:
    for pattern in BASELINE_PATTERNS:
        if pattern.search(command):
            return "hit"
    return "miss"


def timed(fn, items, rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        for item in items:
            start = time.perf_counter_ns()
            fn(item)
            samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    commands = [json.loads(line)["command"] for line in (CORPORA / "shell-dev.jsonl").read_text().splitlines()
                if line.strip()]
    engine = isolated_engine()
    calls = [ToolCall("Bash", {"command": c}, "/home/user/project", agent="bench", session=f"s{i}")
             for i, c in enumerate(commands)]
    for call in calls[:50]:  # warm caches (taxonomy load, PATH lookups), as a running console would have
        engine.evaluate(call, record=False)
    engine_ms = timed(lambda call: engine.evaluate(call, record=False), calls, args.rounds)
    base_ms = timed(baseline, commands, args.rounds)
    e50, e99, b50, b99 = (percentile(engine_ms, 50), percentile(engine_ms, 99), percentile(base_ms, 50),
                          percentile(base_ms, 99))
    per_sec = len(engine_ms) / (sum(engine_ms) / 1000)
    print(f"commands: {len(commands)} x {args.rounds} rounds")
    print(f"engine    : {per_sec:10.0f} evals/s   p50 {e50:.3f} ms   p99 {e99:.3f} ms   max {max(engine_ms):.3f} ms")
    print(f"regex loop: {len(base_ms) / (sum(base_ms) / 1000):10.0f} evals/s   p50 {b50:.4f} ms   p99 {b99:.4f} ms")
    print(f"ratio engine/regex: p50 {e50 / b50:.0f}x   p99 {e99 / b99:.0f}x")
    print(f"target p99 < 1 ms: {'met' if e99 < 1.0 else 'NOT met'} ({e99:.3f} ms)")


if __name__ == "__main__":
    main()
