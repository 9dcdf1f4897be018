"""A plugin's own `tests:`, run against the full engine (the built-in rules, then the plugin).

Each plugin is tested alone, on a virtual machine, so the answer is the same everywhere:
home /home/user, project /home/user/project (a test may give its own `cwd`), every
command installed, no policy.yaml, no other plugin. `expect` is the engine's final verdict
(an escalation to the LLM guard shows as ask, as it does when no LLM guard is set up).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config import Locations
from ..engine import Engine
from ..factory import build_engine
from ..model import Decision, Verdict
from ..policy import Policy
from ..shell.analyze import Analyzer
from .model import Plugin, PluginTest
from .rule import PluginRule

VIRTUAL_HOME = "/home/user"
VIRTUAL_PROJECT = "/home/user/project"


@dataclass(frozen=True)
class SelfTestResult:
    plugin: Plugin
    test: PluginTest
    got: Verdict
    decision: Decision
    flagged: bool

    @property
    def passed(self) -> bool:
        return self.got is self.test.expect and (self.test.flag is None or self.test.flag == self.flagged)

    def explain(self) -> str:
        """Why it failed, in one line."""
        wanted = f"expected {self.test.expect.value}"
        if self.test.flag is not None:
            wanted += f" and {'a' if self.test.flag else 'no'} flag from {self.plugin.id}"
        got = f"got {self.got.value}{' with a flag' if self.flagged else ''}"
        return f"{wanted}, {got} [{self.decision.rule}] {self.decision.reason}"


def self_test_engine(plugin: Plugin) -> Engine:
    home = Path(VIRTUAL_HOME)
    locations = Locations(home / ".config" / "guardtui", home / ".local" / "state" / "guardtui",
                          home / ".run" / "guardtui", home)
    engine = build_engine(locations, record=False, plugin_rule=PluginRule([plugin]), policy=Policy(), path_env="")
    engine.analyzer = Analyzer(command_exists=lambda _name: True)
    return engine


def run_plugin_tests(plugin: Plugin) -> list[SelfTestResult]:
    engine = self_test_engine(plugin)
    outcomes = []
    for test in plugin.tests:
        decision = engine.evaluate(test.call(VIRTUAL_PROJECT), record=False)
        got = Verdict.ASK if decision.verdict is Verdict.LLM else decision.verdict
        flagged = any(f.get("rule") == plugin.rule_id for f in decision.metadata.get("flags", ()))
        outcomes.append(SelfTestResult(plugin, test, got, decision, flagged))
    return outcomes
