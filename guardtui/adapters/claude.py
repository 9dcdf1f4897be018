"""Claude Code: PreToolUse (allow / deny / ask + reason) and PermissionRequest (allow / deny with
a message / no decision, which shows Claude Code's own dialog).

PreToolUse fires for every call in every permission mode, bypassPermissions included, and its
`ask` still stops the call there (checked with the real CLI); it is what `guardtui install
claude` sets up. The same JSON answers both the command hook (stdout) and the HTTP hook
(response body)."""
from __future__ import annotations

from typing import Any

from ..core.model import ToolCall, Verdict
from . import base
from .tools import normalise_tool

AGENT = "claude"
EVENTS = ("PreToolUse", "PermissionRequest")
DEFAULT_EVENT = "PreToolUse"
HOOK_TIMEOUT_S = 600.0


def parse(payload: Any, event: str | None = None) -> ToolCall:
    f = base.read_fields(payload, event, EVENTS, DEFAULT_EVENT)
    return ToolCall(normalise_tool(f.tool_name), f.tool_input, f.cwd, agent=AGENT,
                    session=base.text(f.data, "session_id"), event=f.event,
                    call_id=base.text(f.data, "tool_use_id"), mode=base.text(f.data, "permission_mode"),
                    transcript=base.loose_text(f.data, "transcript_path"))


def render(call: ToolCall, verdict: Verdict, reason: str, told: str = "") -> dict | None:
    if call.event == "PermissionRequest":
        if verdict is Verdict.ALLOW:
            decision: dict[str, Any] = {"behavior": "allow"}
        elif verdict is Verdict.DENY:
            decision = {"behavior": "deny", "message": base.denial_message(call, reason, told), "interrupt": False}
        else:  # no decision: Claude Code shows its own dialog
            return None
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    if verdict is Verdict.DENY:
        answer, text = "deny", base.denial_message(call, reason, told)  # told to the model
    elif verdict is Verdict.ALLOW:
        answer, text = "allow", base.ask_message(reason)
    else:
        answer, text = "ask", base.ask_message(reason)  # shown to the person in the dialog
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": answer,
                                   "permissionDecisionReason": text}}


def fail_safe(event: str, error: str) -> dict | None:
    return base.fail_safe(render, EVENTS, DEFAULT_EVENT, event, error)
