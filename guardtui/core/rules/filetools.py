"""An agent's own file tools that are neither a Write nor a Read (Cursor's Delete, docker-agent's
remove_directory, move_file): judged as the calls they amount to (data/tools.yaml equivalents), by
every rule, the worst first. First in the rule order: the equivalent's judgement is the call's."""
from __future__ import annotations

import shlex
from collections.abc import Mapping

from ..catalog import tool_classes
from ..mcp.judge import expand
from ..model import BlastRadius, Decision, ToolCall, Verdict, more_restrictive
from .base import EvalContext


class FileToolRule:
    id = "file-tool"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if call.tool == "apply_patch" and isinstance(call.input.get("operations"), list):
            calls = _patch_calls(call.input["operations"])
        else:
            templates = (tool_classes().equivalents or {}).get(call.tool.lower())
            if not templates or call.tool.startswith("mcp__"):
                return None
            calls = [c for template in templates for c in expand(template, dict(call.input))]
        worst: Decision | None = None
        for tool, tool_input in calls:
            derived = ToolCall(tool, tool_input, call.cwd, agent=call.agent, session=call.session,
                               event=call.event, mode=call.mode)
            decision = ctx.judge(derived)
            if decision is None:
                return None
            shown = derived.summary(80)
            what = f"`{shown}`" if tool == "Bash" else f"{tool} {shown}"
            decision = decision.with_(reason=f"{call.tool} amounts to {what}: {decision.reason}",
                                      rule=f"{self.id}:{decision.rule}")
            worst = decision if worst is None else more_restrictive(worst, decision)
        if worst is None:  # the argument it needs is not there: it cannot be judged
            return Decision(Verdict.ASK, f"{call.tool}: the path it acts on is not in its input", self.id,
                            BlastRadius.UNKNOWN, "unknown-tool")
        return worst


def _patch_calls(operations: list) -> list[tuple[str, dict]]:
    """A patch envelope's operations as calls: Add File a Write, Update File an Edit, Delete File an rm,
    Update File + Move to an mv of the old path onto the new one (then the new one written)."""
    out: list[tuple[str, dict]] = []
    previous = None
    for op in operations:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            continue
        kind, path = op.get("op"), op["path"]
        body = {k: op[k] for k in ("content", "old_string", "new_string") if isinstance(op.get(k), str)}
        if isinstance(op.get("edits"), (list, tuple)):  # an update in several hunks
            body["edits"] = [dict(e) for e in op["edits"] if isinstance(e, Mapping)]
        if kind == "Add File":
            out.append(("Write", {"file_path": path, **body}))
        elif kind == "Update File":
            out.append(("MultiEdit" if "edits" in body else "Edit", {"file_path": path, **body}))
        elif kind == "Delete File":
            out.append(("Bash", {"command": f"rm -f -- {shlex.quote(path)}"}))
        elif kind == "Move to" and previous is not None:
            out.append(("Bash", {"command": f"mv -- {shlex.quote(previous)} {shlex.quote(path)}"}))
            out.append(("Write", {"file_path": path}))
        previous = path
    return out
