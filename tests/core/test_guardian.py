"""Guardian checks configured from policy.yaml: revoked tools, capability scope, sequence contracts."""
from __future__ import annotations

import pytest

from guardtui.core.config import Locations
from guardtui.core.factory import build_engine, guardian_rule
from guardtui.core.model import ToolCall, Verdict
from guardtui.core.policy import Policy, parse_policy
from guardtui.core.yamlfile import DataError

from ..conftest import PROJECT

POLICY = """
revoked_tools:
  WebFetch: fetches untrusted pages
capabilities:
  tools: {Bash: "shell:full", Read: "fs:read", Write: "fs:write", "mcp__*": mcp}
  default_scope: ["fs:*", "shell:full"]
  agents:
    codex: ["fs:read"]
sequence_contracts:
  - {name: read-before-write, requires_prior: Read, triggers_for: Write, within_steps: 2}
"""


def call(tool: str, agent: str = "claude", session: str = "s", **tool_input) -> ToolCall:
    return ToolCall(tool, tool_input, PROJECT, agent=agent, session=session)


@pytest.fixture
def engine(make_engine):
    return make_engine(record=False, policy=parse_policy(POLICY, "policy.yaml"))


def test_a_revoked_tool_is_denied_with_its_reason(engine):
    decision = engine.evaluate(call("WebFetch", url="https://x"), record=False)
    assert decision.verdict is Verdict.DENY and decision.reason == "tool_revoked: fetches untrusted pages"


def test_capability_boundary_denies_tools_outside_the_session_scope(engine):
    decision = engine.evaluate(call("Bash", agent="codex", command="ls"), record=False)
    assert decision.verdict is Verdict.DENY and decision.reason == "capability_boundary: missing shell:full"
    assert engine.evaluate(call("Read", agent="codex", file_path="x"), record=False).verdict is Verdict.ALLOW
    unmapped = engine.evaluate(call("Frobnicate", agent="claude"), record=False)
    assert unmapped.reason == "capability_boundary: missing tool:Frobnicate"
    assert engine.evaluate(call("mcp__db__q"), record=False).reason == "capability_boundary: missing mcp"


def test_a_sessions_scope_is_fixed_at_start_and_never_widens(engine):
    assert engine.evaluate(call("Bash", agent="codex", command="ls"), record=False).verdict is Verdict.DENY
    widened = parse_policy(POLICY.replace('codex: ["fs:read"]', 'codex: ["*"]'), "policy.yaml")
    engine.replace_rule("guardian", guardian_rule_for(widened))
    still = engine.evaluate(call("Bash", agent="codex", command="ls"), record=False)
    assert still.verdict is Verdict.DENY  # the running session keeps the scope it started with
    fresh = engine.evaluate(call("Bash", agent="codex", session="new", command="ls"), record=False)
    assert fresh.verdict is Verdict.ALLOW


def guardian_rule_for(policy: Policy):
    from guardtui.core.rules import GuardianRule

    return GuardianRule(policy)


def test_sequence_contract_needs_the_prior_tool_within_the_window(engine):
    assert engine.evaluate(call("Write", file_path="a.txt"), record=False).reason.startswith(
        "sequence_contract: read-before-write")
    engine.evaluate(call("Read", file_path="a.txt"))  # an allowed call that ran
    assert engine.evaluate(call("Write", file_path="a.txt")).verdict is Verdict.ALLOW
    engine.evaluate(call("Bash", command="ls"))
    engine.evaluate(call("Bash", command="pwd"))
    late = engine.evaluate(call("Write", file_path="a.txt"), record=False)
    assert late.verdict is Verdict.DENY  # the Read is now 3 steps back


@pytest.mark.parametrize("text,error", [
    ("revoked_tools: [Bash]", "revoked_tools: must be a mapping"),
    ("capabilities: {tools: {Bash: 1}}", "capabilities.tools.Bash: must be a string"),
    ("sequence_contracts:\n  - {name: x, requires_prior: Read}", "missing required key 'triggers_for'"),
    ("sequence_contracts:\n  - {name: x, requires_prior: R, triggers_for: W, within_steps: 0}", "at least 1"),
    ("revoke_tools: {}", "unknown key"),
    ("revoked_tools: {a: b\n", "invalid YAML"),
])
def test_policy_errors_are_one_line_with_file_and_line(text, error):
    with pytest.raises(DataError) as exc:
        parse_policy(text, "policy.yaml")
    message = str(exc.value)
    assert error in message and message.startswith("policy.yaml:") and "\n" not in message


def test_a_broken_policy_file_makes_every_call_ask_saying_why(isolated_env):
    locations = Locations.from_env()
    locations.config_dir.mkdir(parents=True)
    locations.policy_file.write_text("revoked_tools: [oops]\n")
    assert guardian_rule(locations).id == "guardian"
    engine = build_engine(locations, record=False)
    decision = engine.evaluate(call("Read", file_path="x"), record=False)
    assert decision.verdict is Verdict.ASK and "policy.yaml:1" in decision.reason


def test_no_policy_file_means_no_guardian_restrictions(make_engine):
    engine = make_engine(record=False)
    assert engine.evaluate(call("WebFetch", url="https://x"), record=False).verdict is Verdict.ALLOW
