"""Gemini CLI: BeforeTool. A hook can deny (the reason goes to the model) or ask (forces Gemini's
own confirmation, even in YOLO mode), but it cannot allow: `{}` means "no objection" and
Gemini's policy engine decides. To make guardtui the approver, give Gemini a user policy that
allows the tools and let the hook hold the call until the person answers."""
from __future__ import annotations

from typing import Any

from ..core.model import ToolCall, Verdict
from . import base
from .tools import mcp_tool, normalise_tool

AGENT = "gemini"
EVENTS = ("BeforeTool",)
DEFAULT_EVENT = "BeforeTool"
HOOK_TIMEOUT_S = 60.0  # Gemini's default (60 000 ms); `guardtui install gemini` sets 600 s


def parse(payload: Any, event: str | None = None) -> ToolCall:
    f = base.read_fields(payload, event, EVENTS, DEFAULT_EVENT)
    context = base.mapping(f.data, "mcp_context")
    server, mcp_name = context.get("server_name"), context.get("tool_name")
    if isinstance(server, str) and server and isinstance(mcp_name, str) and mcp_name:
        tool = mcp_tool(server, mcp_name)
    else:
        tool = normalise_tool(f.tool_name)
    cwd = base.join_cwd(f.cwd, f.tool_input.get("dir_path")) if tool == "Bash" else f.cwd
    return ToolCall(tool, f.tool_input, cwd, agent=AGENT, session=base.text(f.data, "session_id"), event=f.event,
                    mode=base.text(f.data, "approval_mode"))


def render(call: ToolCall, verdict: Verdict, reason: str) -> dict | None:
    if verdict is Verdict.DENY:
        return {"decision": "deny", "reason": base.denial_message(call, reason)}
    if verdict is Verdict.ASK:
        return {"decision": "ask", "systemMessage": base.ask_message(reason)}
    return {}  # no objection: Gemini's policy engine decides (a hook cannot allow)


def fail_safe(event: str, error: str) -> dict | None:
    return base.fail_safe(render, EVENTS, DEFAULT_EVENT, event, error)
