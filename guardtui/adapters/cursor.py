"""Cursor: preToolUse, beforeShellExecution, beforeMCPExecution (`permission` allow / deny / ask
with a user and an agent message) and beforeReadFile (allow / deny only)."""
from __future__ import annotations

import json
from typing import Any

from ..core.model import ToolCall, Verdict
from . import base
from .tools import mcp_tool, normalise_tool

AGENT = "cursor"
EVENTS = ("preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile")
DEFAULT_EVENT = "preToolUse"
HOOK_TIMEOUT_S = 600.0


def parse(payload: Any, event: str | None = None) -> ToolCall:
    data = base.as_object(payload)
    event = base.event_of(data, event, EVENTS, DEFAULT_EVENT)
    roots = data.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
    cwd = base.text(data, "cwd") or root
    if event == "beforeShellExecution":
        tool, tool_input = "Bash", {"command": base.text(data, "command", required=True)}
    elif event == "beforeReadFile":
        tool, tool_input = "Read", {"file_path": base.text(data, "file_path", required=True)}
    elif event == "beforeMCPExecution":
        tool, tool_input = _mcp(data)
    else:
        tool = normalise_tool(base.text(data, "tool_name", required=True))
        tool_input = base.mapping(data, "tool_input")
    return ToolCall(tool, tool_input, cwd, agent=AGENT, session=base.text(data, "conversation_id"), event=event,
                    call_id=base.text(data, "tool_use_id") or base.text(data, "generation_id"),
                    transcript=base.loose_text(data, "transcript_path"))


def _mcp(data: Any) -> tuple[str, dict]:
    name = base.text(data, "tool_name", required=True)
    raw = data.get("tool_input", {})
    if isinstance(raw, str):  # beforeMCPExecution sends the arguments as a JSON string
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise base.PayloadError(f"tool_input is not valid JSON: {exc.msg}") from None
    if not isinstance(raw, dict):
        raise base.PayloadError("tool_input must be a JSON object")
    if name.lower().startswith("mcp:") or name.startswith("mcp__"):
        return normalise_tool(name), raw
    server = base.text(data, "server_name") or base.text(data, "url") or base.text(data, "command") or "cursor"
    return mcp_tool(server, name), raw


def render(call: ToolCall, verdict: Verdict, reason: str, told: str = "") -> dict | None:
    if verdict is Verdict.ASK and call.event == "beforeReadFile":
        verdict, reason = Verdict.DENY, f"{reason} (Cursor cannot ask about reads)"
    if verdict is Verdict.ALLOW:
        return {"permission": "allow"}
    if verdict is Verdict.DENY:
        return {"permission": "deny", "user_message": f"guardtui denied: {reason}",
                "agent_message": base.denial_message(call, reason, told)}
    return {"permission": "ask", "user_message": base.ask_message(reason),
            "agent_message": f"guardtui asked the person about this call: {reason}"}


def fail_safe(event: str, error: str) -> dict | None:
    return base.fail_safe(render, EVENTS, DEFAULT_EVENT, event, error)
