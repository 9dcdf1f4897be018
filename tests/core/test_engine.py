"""The engine: rule order, abstain vs allow, escalation, approvals, fail-closed, audit."""
from __future__ import annotations

import pytest

from guardtui.core.audit import AuditLog
from guardtui.core.engine import Engine
from guardtui.core.model import BlastRadius, Decision, DecidedBy, ToolCall, Verdict
from guardtui.core.session import Approval, exact_approval, propose_pattern
from guardtui.core.shell.analyze import Analyzer

from ..conftest import HOME, PROJECT, TYPICAL


class Fixed:
    """A rule that always answers the same (or abstains with None)."""

    def __init__(self, rule_id: str, verdict: Verdict | None, radius: BlastRadius = BlastRadius.MEDIUM):
        self.id, self.verdict, self.radius, self.calls = rule_id, verdict, radius, 0

    def evaluate(self, call, ctx):
        self.calls += 1
        if self.verdict is None:
            return None
        return Decision(self.verdict, f"{self.id} says {self.verdict.value}", self.id, self.radius, "test")


class Boom:
    id = "boom"

    def evaluate(self, call, ctx):
        raise RuntimeError("regex exploded")


class NotADecision:
    id = "sloppy"

    def evaluate(self, call, ctx):
        return "allow"


def engine(*rules, **kw) -> Engine:
    kw.setdefault("analyzer", Analyzer(command_exists=lambda n: n in TYPICAL))
    return Engine(list(rules), home=HOME, **kw)


def bash(command: str, session: str = "s1") -> ToolCall:
    return ToolCall("Bash", {"command": command}, PROJECT, agent="claude", session=session)


def test_first_non_abstaining_rule_wins_and_later_rules_do_not_run():
    first, second, third = Fixed("a", None), Fixed("b", Verdict.DENY), Fixed("c", Verdict.ALLOW)
    decision = engine(first, second, third).evaluate(bash("ls"), record=False)
    assert decision.verdict is Verdict.DENY and decision.rule == "b"
    assert (first.calls, second.calls, third.calls) == (1, 1, 0)


def test_abstaining_is_not_allowing():
    # every rule abstains: the engine does not allow, it escalates (and asks without an LLM)
    decision = engine(Fixed("a", None)).evaluate(bash("ls"), record=False)
    assert decision.verdict is Verdict.ASK
    assert decision.metadata["escalation"] == "llm"


def test_llm_escalates_to_ask_when_no_llm_guard_is_configured():
    decision = engine(Fixed("a", Verdict.LLM)).evaluate(bash("frobnicate"), record=False)
    assert decision.verdict is Verdict.ASK
    assert decision.metadata["escalation"] == "llm"


def test_the_engine_never_waits_on_a_model_an_escalation_is_an_ask_for_the_guard_agent():
    # the guard agent reviews escalations after the engine, asynchronously (tests/llm): the engine's
    # answer is an ask marked for it, decided by rule, that a session approval still answers
    decision = engine(Fixed("a", Verdict.LLM)).evaluate(bash("frobnicate --all"), record=False)
    assert (decision.verdict, decision.metadata["escalation"], decision.metadata["decided_by"]) == \
        (Verdict.ASK, "llm", "rule")
    assert not hasattr(Engine, "llm")


def test_a_rule_that_raises_asks_with_the_error_never_allows():
    events = []
    decision = engine(Boom(), Fixed("b", Verdict.ALLOW), on_event=events.append).evaluate(bash("ls"), record=False)
    assert decision.verdict is Verdict.ASK
    assert "regex exploded" in decision.reason and decision.rule == "boom"
    assert events and events[0].kind == "rule-error"


def test_a_rule_returning_garbage_asks():
    decision = engine(NotADecision(), Fixed("b", Verdict.ALLOW)).evaluate(bash("ls"), record=False)
    assert decision.verdict is Verdict.ASK and "not a decision" in decision.reason


def test_flag_records_an_event_and_evaluation_goes_on():
    events = []
    decision = engine(Fixed("watch", Verdict.FLAG), Fixed("b", Verdict.ALLOW), on_event=events.append) \
        .evaluate(bash("ls"), record=False)
    assert decision.verdict is Verdict.ALLOW and decision.rule == "b"
    assert decision.metadata["flags"][0]["rule"] == "watch"
    assert [e.kind for e in events] == ["flag"]


def test_exact_approval_allows_only_the_same_call_in_the_same_session():
    e = engine(Fixed("a", Verdict.ASK))
    call = bash("sudo apt install foo")
    first = e.evaluate(call, record=False)
    assert first.verdict is Verdict.ASK
    assert e.approve(call, first, exact_approval(call, first.blast_radius))
    again = e.evaluate(bash("sudo apt install foo"), record=False)
    assert again.verdict is Verdict.ALLOW and again.metadata["decided_by"] == "approval"
    # BitCode approved every later sudo after one: we do not
    assert e.evaluate(bash("sudo rm -rf /srv/data"), record=False).verdict is Verdict.ASK
    assert e.evaluate(bash("sudo apt install foo", session="other"), record=False).verdict is Verdict.ASK


def test_pattern_approval_must_cover_every_asking_part_of_a_compound_command(make_engine):
    e = make_engine(record=False)
    call = bash("docker run --rm alpine true")
    decision = e.evaluate(call, record=False)
    assert decision.verdict is Verdict.ASK
    pattern = propose_pattern(call, ["docker run --rm alpine true"], decision.blast_radius)
    assert pattern == Approval("pattern", "Bash", "docker run --rm alpine true*", decision.blast_radius)
    assert e.approve(call, decision, Approval("pattern", "Bash", "docker run*", decision.blast_radius))
    assert e.evaluate(bash("docker run -it ubuntu bash"), record=False).verdict is Verdict.ALLOW
    smuggled = e.evaluate(bash("docker run alpine true; git reset --hard"), record=False)
    assert smuggled.verdict is Verdict.ASK
    assert any("reset --hard" in seg["reason"] for seg in smuggled.metadata["segments"])


def test_a_critical_verdict_is_never_auto_approved(make_engine):
    e = make_engine(record=False)
    call = bash("rm -rf ~")
    decision = e.evaluate(call, record=False)
    assert decision.verdict is Verdict.DENY and decision.blast_radius is BlastRadius.CRITICAL
    assert not e.approve(call, decision, Approval("pattern", "Bash", "*"))
    critical_ask = Decision(Verdict.ASK, "x", "r", BlastRadius.CRITICAL)
    assert not e.approve(call, critical_ask, exact_approval(call))
    assert e.evaluate(call, record=False).verdict is Verdict.DENY


def test_final_decisions_are_audited_with_decider_and_latency(tmp_path):
    audit = AuditLog(tmp_path / "audit.db")
    e = engine(Fixed("a", Verdict.DENY), audit=audit)
    e.evaluate(bash("rm -rf /"))
    e.evaluate(bash("maybe"), record=False)
    [entry] = audit.entries()
    assert (entry.verdict, entry.decided_by, entry.rule, entry.tool) == ("deny", "rule", "a", "Bash")
    assert entry.latency_ms >= 0 and entry.input == {"command": "rm -rf /"}


def test_asks_are_not_audited_until_settled(tmp_path):
    audit = AuditLog(tmp_path / "audit.db")
    e = engine(Fixed("a", Verdict.ASK), audit=audit)
    call = bash("sudo ls")
    decision = e.evaluate(call)
    assert audit.entries() == []
    e.settle(call, decision.with_(verdict=Verdict.ALLOW), DecidedBy.PERSON, 1234.0)
    [entry] = audit.entries()
    assert (entry.verdict, entry.decided_by, entry.latency_ms) == ("allow", "person", 1234.0)


def test_replace_rule_swaps_one_rule_atomically():
    e = engine(Fixed("plugins", Verdict.DENY), Fixed("default", Verdict.ALLOW))
    assert e.evaluate(bash("ls"), record=False).verdict is Verdict.DENY
    e.replace_rule("plugins", Fixed("plugins", None))
    assert [r.id for r in e.rules] == ["plugins", "default"]
    assert e.evaluate(bash("ls"), record=False).verdict is Verdict.ALLOW


@pytest.mark.parametrize("command,verdict,rule", [
    ("ls -la", "allow", "default/taxonomy.safe"),
    ("rm -rf /", "deny", "dangerous-shell/fs.rm"),
    ("git reset --hard", "ask", "dangerous-shell/git.reset"),
    ("frobnicate --all", "ask", "default/shell.unknown"),
])
def test_the_built_in_chain_end_to_end(make_engine, command, verdict, rule):
    e = make_engine(record=False)
    e.analyzer = Analyzer(command_exists=lambda name: True)  # frobnicate is installed, but unknown
    decision = e.evaluate(bash(command), record=False)
    assert (decision.verdict.value, decision.rule) == (verdict, rule)
