"""docker-agent (formerly cagent): pre_tool_use, tool_guard and permission_request, answered with
`hook_specific_output.permission_decision` allow / deny / ask. pre_tool_use with
`preempt_yolo: true` (what `guardtui install docker-agent` writes) runs even under --yolo, and
its deny and ask stop the call; a failed pre_tool_use hook denies (fail closed).

Shell calls are `shell` with `{"cmd", "cwd"?}`; files `write_file` / `edit_file` with `path`."""
from __future__ import annotations

from typing import Any

from ..core.catalog import tool_classes
from ..core.model import ToolCall, Verdict
from . import base
from .tools import UNNAMED_SERVER, mcp_tool, normalise_tool

AGENT = "docker-agent"
EVENTS = ("pre_tool_use", "tool_guard", "permission_request")
DEFAULT_EVENT = "pre_tool_use"
HOOK_TIMEOUT_S = 60.0  # docker-agent's default; `guardtui install docker-agent` sets 600 s


def parse(payload: Any, event: str | None = None) -> ToolCall:
    f = base.read_fields(payload, event, EVENTS, DEFAULT_EVENT)
    tool, tool_input, cwd = normalise_tool(f.tool_name), f.tool_input, f.cwd
    if not tool.startswith("mcp__") and not _known(tool):
        tool = mcp_tool(UNNAMED_SERVER, tool)  # docker-agent names its MCP servers' tools bare (get_issue, search)
    if tool == "Bash":
        if "cmd" in tool_input:  # its type is checked with every shell call's (core.inputs)
            tool_input["command"] = tool_input.pop("cmd")
        cwd = base.join_cwd(cwd, tool_input.get("cwd"))
    elif isinstance(tool_input.get("path"), str) and "file_path" not in tool_input:
        path = tool_input["path"]
        tool_input["file_path"] = base.join_cwd(cwd, path) if path else path
    return ToolCall(tool, tool_input, cwd, agent=AGENT, session=base.text(f.data, "session_id"), event=f.event,
                    call_id=base.text(f.data, "tool_use_id"))


def _known(tool: str) -> bool:
    """A tool guardtui knows by name: the file tools, the shell, housekeeping, an agent's own equivalents."""
    classes = tool_classes()
    return tool in classes.read or tool in classes.write or tool in classes.shell or \
        tool.lower() in (classes.equivalents or {})


def render(call: ToolCall, verdict: Verdict, reason: str, told: str = "") -> dict | None:
    if verdict is Verdict.ASK and call.event == "permission_request":
        return None  # fall through to docker-agent's own prompt
    if verdict is Verdict.DENY:
        text = base.denial_message(call, reason, told)
    else:
        text = base.ask_message(reason)
    return {"hook_specific_output": {"hook_event_name": call.event or DEFAULT_EVENT,
                                     "permission_decision": verdict.value, "permission_decision_reason": text}}


def fail_safe(event: str, error: str) -> dict | None:
    return base.fail_safe(render, EVENTS, DEFAULT_EVENT, event, error)
