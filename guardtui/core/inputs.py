"""What a tool call's input must hold before it can be judged, by tool kind.

The rules read a shell call's `command` and a file tool's path; an input where those are
missing or not text (a list, a number, an object, null) would be judged as an empty command
or a call with no target, and pass. So it is not judged at all: every entry point turns it
into a clear error and the agent's fail-safe answer (`input_problem`), and the engine asks
about it if one ever gets through.
"""
from __future__ import annotations

from typing import Any, Mapping

from .catalog import tool_classes
from .model import ToolCall

PATH_KEYS = ("file_path", "notebook_path", "path")  # what ToolCall.file_path reads, in order
# stands where an entry point cut a part of the input it could not read (nested too deep): the rest is
# judged, and the call is never allowed (`was_cut`)
CUT = "<cut by guardtui: nested too deep to read>"
_CUT_WALK = 100_000  # values looked at, at most
TEXT_KEYS = PATH_KEYS + ("url",)  # what the rules read by name from the built-in tools' input


def input_problem(call: ToolCall) -> str | None:
    """Why this call's input cannot be judged (one line), or None when it can."""
    return tool_input_problem(call.tool, call.input)


def tool_input_problem(tool: str, tool_input: Mapping[str, Any]) -> str | None:
    classes = tool_classes()
    if tool in classes.shell:
        if "command" not in tool_input:
            return f"the {tool} call has no command"
        if not isinstance(tool_input["command"], str):
            return f"the {tool} call's command must be a string, not {kind_of(tool_input['command'])}"
    if tool not in classes.judged_by_name:
        return None  # MCP and unknown tools: their arguments are judged as they come, never by name
    for key in TEXT_KEYS:  # null stands for absent (an optional field left empty)
        value = tool_input.get(key)
        if value is not None and not isinstance(value, str):
            return f"the {tool} call's {key} must be a string, not {kind_of(value)}"
    if tool in classes.write and not any(tool_input.get(key) for key in PATH_KEYS):
        return f"the {tool} call does not say which file it writes (no {', '.join(PATH_KEYS)})"
    return None


def kind_of(value: Any) -> str:
    """A JSON value's kind, as a person would say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def was_cut(value: Any) -> bool:
    """Does the input hold a part an entry point cut (CUT)? Walked without recursion, bounded."""
    stack, seen = [value], 0
    while stack and seen < _CUT_WALK:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            if item == CUT:
                return True
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return bool(stack)  # too big to walk: take it that it was
