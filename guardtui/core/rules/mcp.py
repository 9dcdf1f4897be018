"""MCP tools judged by what they do (core/mcp): deny and ask here, before the plugins; what
only reads is allowed by the default rule after them, so the person's plugins still see it."""
from __future__ import annotations

from ..mcp import judge as mcp_judge  # the module: core/mcp/judge.py imports rules.base
from ..model import Decision, ToolCall, Verdict
from .base import EvalContext

MCP_PREFIX = "mcp__"


def mcp_decision(call: ToolCall, ctx: EvalContext) -> Decision:
    """The judgement of an MCP call, made once per evaluation."""
    return ctx.memo("mcp", lambda: mcp_judge.judge_mcp(call, ctx))  # type: ignore[return-value]


class McpRule:
    id = "mcp"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if not call.tool.startswith(MCP_PREFIX):
            return None
        decision = mcp_decision(call, ctx)
        return decision if decision.verdict in (Verdict.DENY, Verdict.ASK) else None
