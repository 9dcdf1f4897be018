"""Gemini CLI: BeforeTool. A hook can deny (the reason goes to the model), but it cannot allow:
`{}` means "no objection" and Gemini's policy engine decides. To make guardtui the approver, give
Gemini a user policy that allows the tools and let the hook hold the call until the person
answers (the console), or answer by policy.

guardtui never answers `{"decision": "ask"}`. Gemini turns it into its own confirmation even
where no one can confirm: a non-interactive run (`gemini -p`, or no TTY) then waits forever
(checked with Gemini CLI 0.61.0), and the payload does not say which kind of run it is. So an
ask is held for the console, and where it would be handed back to Gemini's prompt it is denied."""
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
                    mode=base.text(f.data, "approval_mode"), transcript=base.loose_text(f.data, "transcript_path"))


NO_HAND_BACK = ("Gemini CLI cannot be handed the call back (its own prompt would wait forever in a "
                "non-interactive run such as gemini -p)")


def why_not_handed_back(call: ToolCall) -> str:
    return NO_HAND_BACK


def render(call: ToolCall, verdict: Verdict, reason: str, told: str = "") -> dict | None:
    if verdict is Verdict.ASK:  # never {"decision": "ask"}: it hangs a headless Gemini
        verdict, reason = Verdict.DENY, f"{reason}; {NO_HAND_BACK}, so guardtui denies"
    if verdict is Verdict.DENY:
        return {"decision": "deny", "reason": base.denial_message(call, reason, told)}
    return {}  # no objection: Gemini's policy engine decides (a hook cannot allow)


def fail_safe(event: str, error: str) -> dict | None:
    return base.fail_safe(render, EVENTS, DEFAULT_EVENT, event, error)
