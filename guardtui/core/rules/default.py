"""Default policy (last): known-safe reads allow (MCP tools by their effect, core/mcp); writes the
earlier rules let through
allow; shell commands the analysis classified as safe allow; anything unknown escalates."""
from __future__ import annotations

from ..catalog import tool_classes
from ..model import BlastRadius, Decision, ToolCall, Verdict
from .base import EvalContext
from .dangerous import shell_decision
from .mcp import MCP_PREFIX, mcp_decision


class DefaultPolicyRule:
    id = "default"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision:
        classes = tool_classes()
        if call.is_shell:
            if not call.command.strip():
                return Decision(Verdict.ALLOW, "empty command", self.id, BlastRadius.LOW, "read-only")
            decision = shell_decision(self.id, call, ctx)
            if decision.verdict is Verdict.ALLOW:
                return decision
            if decision.verdict is Verdict.LLM:
                return decision.with_(reason=f"unrecognised command — not classified as safe: {decision.reason}")
            return decision
        if call.tool.startswith(MCP_PREFIX):  # what the MCP rule did not deny or ask about: allow or escalate
            return mcp_decision(call, ctx)
        if call.tool in classes.read:
            return Decision(Verdict.ALLOW, f"{call.tool} only reads", self.id, BlastRadius.LOW, "read-only")
        if call.tool in classes.write:
            if not call.file_path:  # a write whose target we cannot see is not one we can call safe
                return Decision(Verdict.ASK, f"{call.tool} does not say which file it writes", self.id,
                                BlastRadius.UNKNOWN, "fs-write")
            return Decision(Verdict.ALLOW, f"{call.tool} writes inside the project", self.id, BlastRadius.LOW,
                            "fs-write")
        return Decision(Verdict.LLM, f"{call.tool} is a tool guardtui does not know", self.id,
                        BlastRadius.UNKNOWN, "unknown-tool")
