"""The guard agent's benchmark runs (small) and its figures hang together."""
from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "llm_agent.py"


async def test_the_guard_agent_benchmark_runs_small(isolated_env, tmp_path):
    spec = importlib.util.spec_from_file_location("llm_agent_benchmark", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = await bench.run(10, tmp_path)
    assert figures["review_median_ms"] > figures["cached_review_median_ms"] > 0
    assert figures["bare_round_trip_median_ms"] > 0 and figures["blocking_ratio"] > 0
    assert figures["single_tokens_est"] < figures["agent_one_turn_tokens_est"] < figures["agent_two_turns_tokens_est"]
