"""The shell analysis on the hand-written cases in data/cases.yaml (semantic edge cases)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ..conftest import HOME, PROJECT

CASES = yaml.safe_load((Path(__file__).parent / "data" / "cases.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["command"][:60] for c in CASES])
def test_case(analyzer, case):
    result = analyzer.analyze(case["command"], case.get("cwd", PROJECT), HOME)
    decisive = result.decisive
    got = decisive.verdict.value
    assert got == case["expect"], f"{case['command']!r}: {got} ({decisive.rule}: {decisive.reason})"
    if "radius" in case:
        assert decisive.blast_radius.value == case["radius"], decisive.reason
    if "reason" in case:
        assert case["reason"] in decisive.reason
    # every decision says which part decided, why, and how bad it is
    assert decisive.reason and decisive.category and decisive.segment


def test_cases_are_unique():
    commands = [c["command"] for c in CASES]
    assert len(commands) == len(set(commands))
