"""Guardian checks (LegionForge): revoked tools, capability scope, sequence contracts.

Each failing check denies with its reason, e.g. `capability_boundary: missing shell:full`.
A session's capability scope is fixed the first time it is seen and never widens, even
if the policy file is edited to grant more while the session runs.
"""
from __future__ import annotations

import fnmatch

from ..model import BlastRadius, Decision, ToolCall, Verdict
from ..policy import Policy
from .base import EvalContext


class GuardianRule:
    id = "guardian"

    def __init__(self, policy: Policy):
        self.policy = policy

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        policy = self.policy
        reason = policy.revoked_tools.get(call.tool)
        if reason is not None:
            return self._deny(f"tool_revoked: {reason}", "revoked")
        caps = policy.capabilities
        if caps is not None:
            session = ctx.session
            if session.scope is None:
                session.scope = frozenset(caps.agents.get(call.agent, caps.default_scope))
            needed = required_capability(call.tool, caps.tools)
            if not any(fnmatch.fnmatchcase(needed, granted) for granted in session.scope):
                return self._deny(f"capability_boundary: missing {needed}", "capability")
        for contract in policy.sequence_contracts:
            if contract.triggers_for != call.tool:
                continue
            recent = list(ctx.session.history)[-contract.within_steps:]
            if contract.requires_prior not in recent:
                return self._deny(f"sequence_contract: {contract.name} ({call.tool} needs a {contract.requires_prior} "
                                  f"within the last {contract.within_steps} steps)", "sequence")
        return None

    def _deny(self, reason: str, check: str) -> Decision:
        return Decision(Verdict.DENY, reason, f"{self.id}/{check}", BlastRadius.HIGH, "policy")


def required_capability(tool: str, tools: dict[str, str]) -> str:
    if tool in tools:
        return tools[tool]
    for pattern, capability in tools.items():
        if fnmatch.fnmatchcase(tool, pattern):
            return capability
    return f"tool:{tool}"
