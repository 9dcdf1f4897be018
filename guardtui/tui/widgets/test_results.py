"""A plugin's self-test results: a pass/fail line per test, why a failure failed."""
from __future__ import annotations

from typing import Any, Sequence

from textual.content import Content
from textual.widgets import Static


def summary(results: Sequence[Any]) -> tuple[int, int]:
    passed = sum(1 for r in results if r.passed)
    return passed, len(results) - passed


class TestResults(Static):
    __test__ = False  # a widget, not a pytest class
    def running(self, plugin_id: str) -> None:
        self.display = True
        self.update(Content.styled(f"Running {plugin_id}'s tests…", "$text-muted"))

    def show(self, results: Sequence[Any] | None, plugin_id: str = "") -> None:
        self.display = results is not None
        if results is None:
            self.update("")
            return
        passed, failed = summary(results)
        if not results:
            self.update(Content.styled(f"{plugin_id} has no tests.", "$text-muted"))
            return
        head = Content.assemble((f"{plugin_id}: ", "bold"),
                                (f"{passed} passed", "bold $text-success"), ", ",
                                (f"{failed} failed", "bold $text-error" if failed else "$text-muted"))
        lines = [head]
        for r in results:
            mark, style = ("✓", "$text-success") if r.passed else ("✗", "bold $text-error")
            text = r.test.describe(70)
            tail = f"  → {r.got.value}" if r.passed else f"  {r.explain()}"
            lines.append(Content.assemble((f"  {mark} ", style), (text, "" if r.passed else "bold"),
                                          (tail, "$text-muted" if r.passed else "$text-error")))
        self.update(Content("\n").join(lines))
