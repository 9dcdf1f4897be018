"""The console benchmark runs (small): every call answered exactly once, keys answer fast."""
from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "console.py"


async def test_the_console_benchmark_runs_small():
    spec = importlib.util.spec_from_file_location("console_benchmark", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = await bench.run(80, 200)
    assert result["every_call_answered_once"]
    assert result["audit_person_rows"] == result["answered_by_key"] > 0
    assert result["latency_ms_full_queue"]["p50"] < 1000
