"""The rule engine: one tool call in, one decision out.

Rules run in order and the first that does not abstain decides (a plugin's `flag` only
records a guard event and evaluation goes on). Then escalation: `llm` becomes `ask` marked
`escalation: llm` — the guard agent (core/llm), when one is configured, reviews it after the
engine, asynchronously, where the call waits (the broker); the engine itself never waits on a
model. An `ask` the person already approved for this session (the exact call, or a pattern
they chose) becomes `allow`; a critical verdict is never auto-approved. A rule that raises
makes the call `ask`, never `allow`.

Judging has a time budget (BUDGET_S, core/budget.py): whatever the input, the rules end in time,
and a call they cannot judge in time asks, saying so.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Sequence

from .audit import AuditLog
from .budget import OverBudget, within
from .carried import written_secret
from .catalog import sensitive_patterns, tool_classes
from .inputs import input_problem, was_cut
from .effects import call_effects, describe
from .model import WRITE_TOOLS, BlastRadius, Decision, DecidedBy, ToolCall, Verdict
from .protect import Protection
from .rules.base import EvalContext, Rule, temp_dirs_from_env
from .session import Approval, Denial, Sessions, approval_matches
from .shell.analyze import Analyzer
from .shell.findings import ShellAnalysis
from .shell.words import SESSION_ROOT


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
PLUGINS_RULE = "plugins"  # the person's rules: they may tighten an earlier rule's ask
SESSION_RULE = "session"  # a retry of something denied earlier in the session
_Event = tuple[str, str, str]  # (kind, message, rule id) of a GuardEvent still to report
# the rules' time for one call: with the payload read and the answer written, a call of any size
# and shape is answered within 100 ms (GUARDTUI_BUDGET_MS sets another). It counts the time the judging
# thread computes, not the time a busy machine kept it waiting (core/budget.py)
BUDGET_S = 0.06
BUDGET_RULE = "engine.budget"
# the first call in a process builds what judging builds once (the parser, compiled patterns, data
# indexes): it is given this long, so no call asks for the process's start-up, and nothing built
# once is cut off half-way by the budget
COLD_BUDGET_S = 2.0
_warm = False



def load_all_data() -> None:
    """Every data file the rules read, loaded now: a process that judges many calls (the console,
    `serve`, the standby, `check --batch`) must not load one inside a call's 60 ms budget (the
    first call that needed the secrets list, 20-45 ms to build, asked as "over budget")."""
    from .catalog import runs_later
    from .credroutes import routes
    from .mcp.catalog import mcp_catalog
    from .protect import protect_data
    from .secrets import secret_catalog
    from .web import metadata_endpoints

    from .rules.later import later_patterns
    from .shell import channels, datastore_code, engine_api, exposure, libconfig, transfers

    tool_classes(), sensitive_patterns(), runs_later(), protect_data(), secret_catalog(), metadata_endpoints()
    mcp_catalog(), routes()
    channels.channels(), exposure.server_catalog(), libconfig.libraries(), engine_api.request_table(), \
        transfers.clients(), datastore_code.catalog()
    home = os.path.expanduser("~")  # the patterns compiled for this home: not inside the first call's budget
    later_patterns(home)
    secret_catalog().prepare(home)

class Engine:
    def __init__(self, rules: Sequence[Rule], *, analyzer: Analyzer | None = None,
                 audit: AuditLog | None = None, home: str | None = None, protection: Protection | None = None,
                 on_event: EventSink | None = None, path_env: str | None = None, budget_s: float | None = None):
        self._rules: tuple[Rule, ...] = tuple(rules)
        self.analyzer = analyzer or Analyzer(command_exists=command_lookup(path_env if path_env is not None
                                                                           else os.environ.get("PATH", "")))
        self.audit = audit
        self.home = home or os.path.expanduser("~")
        self.protection = protection if protection is not None else Protection(homes=(self.home,))
        self.temp_dirs = temp_dirs_from_env()
        self.sessions = Sessions()
        self.on_event = on_event
        if audit is not None:  # a failing audit write is said once in the guard log; verdicts stand
            audit.on_problem = self._audit_problem
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
    def evaluate(self, call: ToolCall, record: bool = True, quiet: bool = False,
                 budget_s: float | None = None) -> Decision:
        """Judge a call. Final verdicts (allow, deny) are audited when `record` is set; `quiet`: no
        guard events (a call judged again when the rules change has had its flags raised once).
        `budget_s`: what is left of the budget when reading the call took some of it (the broker,
        the offline hook)."""
        seconds = self.budget_s if budget_s is None else max(0.0, budget_s)
        decision = self._judge(call, record, quiet, seconds, quick=False)
        assert decision is not None
        return decision

    def evaluate_quickly(self, call: ToolCall, seconds: float, record: bool = True) -> Decision | None:
        """The decision if the rules reach it within `seconds` of what this thread computes (and ten
        times that on the wall clock); else None, with nothing recorded or reported (evaluate() then
        judges the call afresh). The broker judges small calls this way on its event loop, without
        handing them to a thread. Time spent waiting (for the interpreter while a large call is judged
        in a worker, for a busy machine) is not the call's cost: it does not send it to a worker,
        where it would start again and wait the same."""
        return self._judge(call, record, False, seconds, quick=True)

    def _judge(self, call: ToolCall, record: bool, quiet: bool, seconds: float, quick: bool) -> Decision | None:
        global _warm
        start = time.perf_counter()
        if not _warm:
            seconds = max(seconds, COLD_BUDGET_S)
        session = self.sessions.get(call.agent, call.session)
        self._touch(call, session)
        facts = session.known_facts()  # what earlier calls left: the shell analysis reads them (destroy plans)
        if call.session and session.root and session.root != call.cwd:
            facts[SESSION_ROOT] = session.root  # `cd .. && rm -rf bakery`: the project it works in, deleted whole
        ctx = EvalContext(session, self.home, lambda command, cwd: self._analyze(command, cwd, facts), self.temp_dirs,
                          self.protection.for_call(call.cwd, self.home),
                          judge_call=self._judge_equivalent)
        approval: Approval | None = None
        try:
            with within(seconds, cpu=True):
                decision, flags, events = self._run_rules(call, ctx)
                decision = self._remembered(call, decision, ctx)
                if decision.verdict in (Verdict.ALLOW, Verdict.LLM) and (was_cut(call.input) if call.cut is None else call.cut):
                    why = "part of this call was nested too deep to read and was cut, so it cannot be allowed"
                    decision = decision.with_(verdict=Verdict.ASK, reason=f"{why} — {decision.reason}")
                if decision.verdict is Verdict.LLM:  # the guard agent's to review, after the engine
                    decision = decision.with_(verdict=Verdict.ASK,
                                              metadata={**decision.metadata, "escalation": "llm"})
                if decision.verdict is Verdict.ASK:
                    approval = self._approval_for(call, decision, ctx)
        except OverBudget:
            if quick:
                return None
            decision, flags, approval = self._over_budget(self.budget_s), [], None
            events = [("budget", decision.reason, BUDGET_RULE)]
        finally:
            _warm = True
        if not quiet:
            for kind, message, rule_id in events:
                self._emit(kind, message, rule_id, call)
        decided_by = DecidedBy.RULE
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
    def _touch(call: ToolCall, session) -> None:
        """What judging a call changes in its session before the rules run."""
        if call.session:  # calls without a session id share nothing worth a project root
            session.saw_cwd(call.cwd)

    def adopt(self, call: ToolCall, decision: Decision, scope: frozenset[str] | None = None,
              record: bool = True) -> None:
        """A decision a copy of this engine reached in another process (broker/judges.py, judged there with
        this session's state and `record=False`), taken in as evaluate() would have left it here: the
        session touched as judging touches it (`scope`: the capability scope the guardian fixed there),
        and a final verdict audited and remembered."""
        session = self.sessions.get(call.agent, call.session)
        self._touch(call, session)
        if scope is not None and session.scope is None:
            session.scope = scope
        if record and decision.verdict in (Verdict.ALLOW, Verdict.DENY):
            decided_by = DecidedBy(decision.metadata.get("decided_by", DecidedBy.RULE.value))
            self.settle(call, decision, decided_by, float(decision.metadata.get("latency_ms", 0.0)))

    @staticmethod
    def _over_budget(seconds: float) -> Decision:
        return Decision(Verdict.ASK, f"judging this call took longer than its {seconds * 1000:.0f} ms budget (a very "
                                     f"large or intricate input), so a person should look at it", BUDGET_RULE,
                        BlastRadius.UNKNOWN, "too-complex", {"budget_ms": round(seconds * 1000)})

    def settle(self, call: ToolCall, decision: Decision, decided_by: DecidedBy, latency_ms: float,
               via: str = "") -> None:
        """A call ended: audit it, and remember it in its session (that it ran, for sequence contracts;
        what it left for later calls; what was denied, so a retry by another tool is denied too)."""
        self.remember(call, decision, decided_by)
        self.record(call, decision, decided_by, latency_ms, via)
    def record(self, call: ToolCall, decision: Decision, decided_by: DecidedBy, latency_ms: float,
               via: str = "") -> None:
        """Audit how a call ended (`via`: how the answer came: rule, key y, dialog, timeout...).
        Never raises: a log that cannot be written holds the row and says so once."""
        if self.audit is None:
            return
        try:
            self.audit.record(call, decision, decided_by, latency_ms, via=via or decided_by.value)
        except Exception as exc:  # AuditLog holds its own failures; this is for the unforeseen
            self._audit_problem(f"the audit log could not record a decision ({type(exc).__name__}: {exc})")

    def _audit_problem(self, message: str) -> None:
        if self.on_event is not None:
            try:
                self.on_event(GuardEvent(time.time(), "audit-error", message, "audit"))
            except Exception:
                pass

    def remember(self, call: ToolCall, decision: Decision, decided_by: DecidedBy = DecidedBy.RULE) -> None:
        """The session memory of a judged call, without auditing it (`guardtui check --batch`). A call
        that may run (allowed, or asked and not yet answered) leaves its facts; a denied call's
        destructive effects are remembered as denied."""
        session = self.sessions.get(call.agent, call.session)
        if decision.verdict is Verdict.ALLOW:
            session.ran(call.tool)
        if decision.verdict in (Verdict.ALLOW, Verdict.ASK, Verdict.LLM):
            leaves = decision.metadata.get("leaves")
            if isinstance(leaves, dict) and leaves:
                session.remember_facts(leaves)
        elif decision.verdict is Verdict.DENY:
            effects = [tuple(e) for e in decision.metadata.get("effects") or () if isinstance(e, (list, tuple))
                       and len(e) == 2]
            if effects:
                session.remember_denied(effects, Denial(decision.reason, call.tool, call.summary(160),
                                                        decided_by.value))

    def approve(self, call: ToolCall, decision: Decision, approval: Approval) -> bool:
        """Remember an "always allow" for the rest of the session. Critical calls cannot be approved."""
        if decision.verdict is Verdict.DENY or decision.blast_radius is BlastRadius.CRITICAL:
            return False
        self.sessions.get(call.agent, call.session).approvals.append(approval)
        return True

    def analyze_shell(self, command: str, cwd: str) -> ShellAnalysis:
        return self._analyze(command, cwd)

    # -- internals -------------------------------------------------------------------
    def _analyze(self, command: str, cwd: str, facts: dict[str, str] | None = None) -> ShellAnalysis:
        if facts:
            return self.analyzer.analyze(command, cwd or None, self.home, facts)
        return self.analyzer.analyze(command, cwd or None, self.home)

    def _judge_equivalent(self, call: ToolCall, ctx: EvalContext) -> Decision:
        """Every rule on a call another one amounts to (an MCP `read_file` is a Read, a
        `pods_exec` a `kubectl exec`), in the same session; its flags are not raised again."""
        if ctx.depth >= 3:
            return Decision(Verdict.ASK, "the call amounts to calls nested too deeply to follow", "engine",
                            BlastRadius.UNKNOWN, "unknown")
        decision, _flags, _events = self._run_rules(call, replace(ctx, _shell=None, _memo={}, depth=ctx.depth + 1))
        return decision

    def _remembered(self, call: ToolCall, decision: Decision, ctx: EvalContext) -> Decision:
        """The session's memory applied: a call whose effect was denied earlier in the session (by a
        rule or by the person, through any tool or spelling) is denied again. The call's effects and
        what it leaves for later calls go into the decision, for settle() to remember."""
        try:
            effects = call_effects(call, ctx)
            # what is remembered if this call ends denied: the effects of the parts that asked or were denied
            refused = ("deny",) if decision.verdict is Verdict.DENY else ("deny", "ask", "llm")
            asking = {s.get("segment") for s in decision.metadata.get("segments") or () if s.get("verdict") in refused}
            blamed = call_effects(call, ctx, asking) if call.is_shell and asking else effects
        except Exception:  # naming effects must never break judging; the rules have judged the call
            effects = blamed = set()
        leaves = ctx.shell(call).leaves if call.is_shell and call.command.strip() else {}
        if call.tool in WRITE_TOOLS:  # a credential written into a file: a commit and a push may carry it later
            leaves = written_secret(call.tool, call.input, call.cwd)
        extra: dict[str, Any] = {}
        if blamed:
            extra["effects"] = sorted([list(e) for e in blamed])
        if leaves:
            extra["leaves"] = dict(leaves)
        earlier = ctx.session.denied_earlier(effects) if effects else None
        if earlier is not None and decision.verdict is not Verdict.DENY:
            effect, denial = earlier
            who = "the person" if denial.by == "person" else "a rule" if denial.by == "rule" else denial.by
            radius = decision.blast_radius if decision.blast_radius.severity > BlastRadius.HIGH.severity \
                else BlastRadius.HIGH
            decision = Decision(Verdict.DENY, f"{describe(effect)} was denied earlier in this session (by {who}: "
                                f"{denial.tool} {denial.call}); this call tries it again", SESSION_RULE, radius,
                                decision.category or "session", {**decision.metadata, "retry_of": denial.call,
                                                                 "earlier_reason": denial.reason})
        return decision.with_metadata(**extra) if extra else decision
    def _run_rules(self, call: ToolCall, ctx: EvalContext) -> tuple[Decision, list[Decision], list[_Event]]:
        """The first decision, the flags raised, and the guard events to report (reported by the caller
        once judging is over, so a call judged again after running out of time reports them once)."""
        flags: list[Decision] = []
        events: list[_Event] = []
        problem = input_problem(call)
        if problem is not None:  # the entry points refuse it first; never judged as an empty call
            return Decision(Verdict.ASK, f"cannot judge this call: {problem}", "engine", BlastRadius.UNKNOWN,
                            "bad-input"), flags, events
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
