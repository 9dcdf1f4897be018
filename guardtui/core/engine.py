"""The rule engine: one tool call in, one decision out.

Rules run in order and the first that does not abstain decides (a plugin's `flag` only
records a guard event and evaluation goes on). Then escalation: `llm` goes to the LLM
guard, or becomes `ask` when there is none; an `ask` the person already approved for this
session (the exact call, or a pattern they chose) becomes `allow`; a critical verdict is
never auto-approved. A rule that raises makes the call `ask`, never `allow`.

Judging has a time budget (BUDGET_S, core/budget.py): whatever the input, the rules end in time,
and a call they cannot judge in time asks, saying so. The LLM guard's time is its own.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Protocol, Sequence

from .audit import AuditLog
from .budget import OverBudget, within
from .catalog import sensitive_patterns, tool_classes
from .model import BlastRadius, Decision, DecidedBy, ToolCall, Verdict
from .rules.base import EvalContext, Rule, temp_dirs_from_env
from .session import Approval, Sessions, approval_matches
from .shell.analyze import Analyzer
from .shell.findings import ShellAnalysis


class LLMGuard(Protocol):
    """Judges an escalated call; returns allow, deny or ask. May raise (then the call asks)."""

    def validate(self, call: ToolCall, decision: Decision) -> Decision: ...


@dataclass(frozen=True)
class GuardEvent:
    """Something the person should see in the amber guard log."""

    ts: float
    kind: str  # flag | rule-error | decided | reload | reload-error | timeout | ...
    message: str
    rule: str = ""
    agent: str = ""
    call: str = ""


EventSink = Callable[[GuardEvent], None]
_Event = tuple[str, str, str]  # (kind, message, rule id) of a GuardEvent still to report
PLUGINS_RULE = "plugins"  # the person's rules: they may tighten an earlier rule's ask
# the rules' time for one call: with the payload read and the answer written, a call of any size
# and shape is answered within 100 ms (GUARDTUI_BUDGET_MS sets another)
BUDGET_S = 0.06
BUDGET_RULE = "engine.budget"


class Engine:
    def __init__(self, rules: Sequence[Rule], *, analyzer: Analyzer | None = None, llm: LLMGuard | None = None,
                 audit: AuditLog | None = None, home: str | None = None, protected_paths: Sequence[str] = (),
                 on_event: EventSink | None = None, path_env: str | None = None, budget_s: float | None = None):
        self._rules: tuple[Rule, ...] = tuple(rules)
        self.analyzer = analyzer or Analyzer(command_exists=command_lookup(path_env if path_env is not None
                                                                           else os.environ.get("PATH", "")))
        self.llm = llm
        self.audit = audit
        self.home = home or os.path.expanduser("~")
        self.protected_paths = tuple(protected_paths)
        self.temp_dirs = temp_dirs_from_env()
        self.sessions = Sessions()
        self.on_event = on_event
        self.budget_s = default_budget() if budget_s is None else budget_s
        tool_classes(), sensitive_patterns()  # data loaded here, once, not inside a call's budget

    # -- rules -----------------------------------------------------------------------
    @property
    def rules(self) -> tuple[Rule, ...]:
        return self._rules

    def replace_rule(self, rule_id: str, rule: Rule) -> None:
        """Swap one rule for another atomically: an evaluation sees the old set or the new."""
        self._rules = tuple(rule if r.id == rule_id else r for r in self._rules)

    # -- evaluation ------------------------------------------------------------------
    def evaluate(self, call: ToolCall, record: bool = True, budget_s: float | None = None) -> Decision:
        """Judge a call. Final verdicts (allow, deny) are audited when `record` is set. `budget_s`: what is
        left of the budget when reading the call took some of it (the broker, the offline hook)."""
        decision = self._judge(call, record, self.budget_s if budget_s is None else max(0.0, budget_s), quick=False)
        assert decision is not None
        return decision

    def evaluate_quickly(self, call: ToolCall, seconds: float, record: bool = True) -> Decision | None:
        """The decision if the rules reach it within `seconds` and it needs no LLM guard; else None,
        with nothing recorded or reported (evaluate() then judges the call afresh). The broker judges
        small calls this way on its event loop, without handing them to a thread."""
        return self._judge(call, record, seconds, quick=True)

    def _judge(self, call: ToolCall, record: bool, seconds: float, quick: bool) -> Decision | None:
        start = time.perf_counter()
        session = self.sessions.get(call.agent, call.session)
        ctx = EvalContext(session, self.home, self._analyze, self.temp_dirs, self.protected_paths)
        approval: Approval | None = None
        try:
            with within(seconds):
                decision, flags, events = self._run_rules(call, ctx)
                if decision.verdict is Verdict.ASK:
                    approval = self._approval_for(call, decision, ctx)
        except OverBudget:
            if quick:
                return None
            decision, flags = self._over_budget(self.budget_s), []
            events = [("budget", decision.reason, BUDGET_RULE)]
        if quick and decision.verdict is Verdict.LLM and self.llm is not None:
            return None
        for kind, message, rule_id in events:
            self._emit(kind, message, rule_id, call)
        decided_by = DecidedBy.RULE
        if decision.verdict is Verdict.LLM:
            decision, decided_by = self._escalate(call, decision)
            if decision.verdict is Verdict.ASK:
                try:
                    with within(self.budget_s):
                        approval = self._approval_for(call, decision, ctx)
                except OverBudget:
                    approval = None
        if approval is not None:
            decision = decision.with_(verdict=Verdict.ALLOW, reason=f"previously approved ({approval.label})",
                                      metadata={**decision.metadata, "approval": approval.label,
                                                "approved_reason": decision.reason})
            decided_by = DecidedBy.APPROVAL
        latency_ms = (time.perf_counter() - start) * 1000
        extra: dict[str, Any] = {"decided_by": decided_by.value, "latency_ms": latency_ms}
        if flags:
            extra["flags"] = [f.to_dict() for f in flags]
        decision = decision.with_metadata(**extra)
        if record and decision.verdict in (Verdict.ALLOW, Verdict.DENY):
            self.settle(call, decision, decided_by, latency_ms)
        return decision

    @staticmethod
    def _over_budget(seconds: float) -> Decision:
        return Decision(Verdict.ASK, f"judging this call took longer than its {seconds * 1000:.0f} ms budget (a very "
                                     f"large or intricate input), so a person should look at it", BUDGET_RULE,
                        BlastRadius.UNKNOWN, "too-complex", {"budget_ms": round(seconds * 1000)})

    def settle(self, call: ToolCall, decision: Decision, decided_by: DecidedBy, latency_ms: float) -> None:
        """A call ended: audit it, and remember that it ran (for sequence contracts)."""
        if decision.verdict is Verdict.ALLOW:
            self.sessions.get(call.agent, call.session).ran(call.tool)
        if self.audit is not None:
            self.audit.record(call, decision, decided_by, latency_ms)

    def approve(self, call: ToolCall, decision: Decision, approval: Approval) -> bool:
        """Remember an "always allow" for the rest of the session. Critical calls cannot be approved."""
        if decision.verdict is Verdict.DENY or decision.blast_radius is BlastRadius.CRITICAL:
            return False
        self.sessions.get(call.agent, call.session).approvals.append(approval)
        return True

    def analyze_shell(self, command: str, cwd: str) -> ShellAnalysis:
        return self._analyze(command, cwd)

    # -- internals -------------------------------------------------------------------
    def _analyze(self, command: str, cwd: str) -> ShellAnalysis:
        return self.analyzer.analyze(command, cwd or None, self.home)

    def _run_rules(self, call: ToolCall, ctx: EvalContext) -> tuple[Decision, list[Decision], list[_Event]]:
        """The first decision, the flags raised, and the guard events to report (reported by the caller
        once judging is over, so a call judged again after running out of time reports them once)."""
        flags: list[Decision] = []
        events: list[_Event] = []
        rules = self._rules
        for index, rule in enumerate(rules):
            decision = self._run_rule(rule, call, ctx, flags, events)
            if decision is None:
                continue
            if decision.verdict is Verdict.ASK:
                # the person's plugins may only tighten: their deny beats a built-in rule's ask
                tighter = next((r for r in rules[index + 1:] if r.id == PLUGINS_RULE), None)
                verdict = self._run_rule(tighter, call, ctx, flags, events) if tighter is not None else None
                if verdict is not None and verdict.verdict is Verdict.DENY:
                    return verdict.with_metadata(tightened=decision.reason), flags, events
            return decision, flags, events
        return Decision(Verdict.LLM, "no rule judged this call", "engine", BlastRadius.UNKNOWN, "unknown"), flags, \
            events

    def _run_rule(self, rule: Rule, call: ToolCall, ctx: EvalContext, flags: list[Decision],
                  events: list[_Event]) -> Decision | None:
        """One rule's decision (None: abstains or only flags; its flags go into `flags`)."""
        try:
            decision = rule.evaluate(call, ctx)
        except Exception as exc:  # fail closed: a broken rule asks, never allows
            message = f"rule {rule.id} failed: {type(exc).__name__}: {exc}"
            events.append(("rule-error", message, rule.id))
            return Decision(Verdict.ASK, message, rule.id, BlastRadius.UNKNOWN, "rule-error")
        if decision is None:
            return None
        if not isinstance(decision, Decision):
            message = f"rule {rule.id} returned {type(decision).__name__}, not a decision"
            events.append(("rule-error", message, rule.id))
            return Decision(Verdict.ASK, message, rule.id, BlastRadius.UNKNOWN, "rule-error")
        raised = decision.metadata.get("flags_raised")
        if raised:  # flags a rule raised beside its verdict (plugins): recorded like its own
            decision = decision.with_(metadata={k: v for k, v in decision.metadata.items() if k != "flags_raised"})
            for flag in raised:
                flags.append(flag)
                events.append(("flag", flag.reason, flag.rule or rule.id))
        if decision.verdict is Verdict.FLAG:
            flags.append(decision)
            events.append(("flag", decision.reason, decision.rule or rule.id))
            return None
        return decision

    def _escalate(self, call: ToolCall, decision: Decision) -> tuple[Decision, DecidedBy]:
        if self.llm is None:
            return decision.with_(verdict=Verdict.ASK, metadata={**decision.metadata, "escalation": "llm"}), \
                DecidedBy.RULE
        try:
            judged = self.llm.validate(call, decision)
        except Exception as exc:
            return decision.with_(verdict=Verdict.ASK, reason=f"{decision.reason} (LLM guard unavailable: {exc})",
                                  metadata={**decision.metadata, "escalation": "llm"}), DecidedBy.RULE
        if judged.verdict not in (Verdict.ALLOW, Verdict.DENY, Verdict.ASK):
            judged = judged.with_(verdict=Verdict.ASK)
        return judged.with_metadata(escalation="llm"), DecidedBy.LLM

    def _approval_for(self, call: ToolCall, decision: Decision, ctx: EvalContext) -> Approval | None:
        if not ctx.session.approvals:
            return None
        segments = asking_segments(call, decision, ctx)
        for approval in ctx.session.approvals:
            if approval_matches(approval, call, decision, segments):
                return approval
        return None

    def _emit(self, kind: str, message: str, rule: str, call: ToolCall) -> None:
        if self.on_event is not None:
            try:
                self.on_event(GuardEvent(time.time(), kind, message, rule, call.agent, call.summary(120)))
            except Exception:  # a broken listener must not break judging
                pass


def default_budget() -> float:
    """BUDGET_S, or GUARDTUI_BUDGET_MS when it is set to a positive number (a slow machine, the tests)."""
    try:
        value = float(os.environ.get("GUARDTUI_BUDGET_MS", "")) / 1000
    except ValueError:
        return BUDGET_S
    return value if value > 0 else BUDGET_S


def asking_segments(call: ToolCall, decision: Decision, ctx: EvalContext | None = None) -> list[str]:
    """The parts of a shell command that are not plainly allowed (what an approval must cover)."""
    if not call.is_shell:
        return []
    segments = decision.metadata.get("segments")
    if segments is None and ctx is not None:
        segments = [{"segment": f.segment, "verdict": f.verdict.value} for f in ctx.shell(call).findings]
    out = [s["segment"] for s in segments or [] if s.get("verdict") != "allow" and s.get("segment")]
    return out or [call.command]


def command_lookup(path_env: str) -> Callable[[str], bool]:
    """Is a bare command name installed on this PATH? (cached: the hook asks per call)."""

    @lru_cache(maxsize=4096)
    def exists(name: str) -> bool:
        return shutil.which(name, path=path_env) is not None

    return exists
