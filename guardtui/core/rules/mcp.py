"""MCP tools judged by what they do (core/mcp). What the analysers find (the calls a tool amounts
to, its SQL, URLs, uploads, credentials, a delete of a whole namespace) denies or asks here,
before the plugins, as the shell analysis does; the tool's plain effect (reads: allow, changes:
ask) is the default rule's, after them, so the person's plugins may allow their own MCP tools."""
from __future__ import annotations

from ..mcp import judge as mcp_judge  # the module: core/mcp/judge.py imports rules.base
from ..model import Decision, ToolCall, Verdict
from .base import EvalContext

MCP_PREFIX = "mcp__"


def mcp_judgement(call: ToolCall, ctx: EvalContext) -> "mcp_judge.McpJudgement":
    """The judgement of an MCP call, made once per evaluation."""
    return ctx.memo("mcp", lambda: mcp_judge.judge_mcp(call, ctx))  # type: ignore[return-value]


def mcp_decision(call: ToolCall, ctx: EvalContext) -> Decision:
    return mcp_judgement(call, ctx).decision


class McpRule:
    id = "mcp"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if not call.tool.startswith(MCP_PREFIX):
            return None
        firm = mcp_judgement(call, ctx).firm
        return firm if firm is not None and firm.verdict in (Verdict.DENY, Verdict.ASK) else None
