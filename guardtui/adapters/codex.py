"""OpenAI Codex CLI: PermissionRequest (allow / deny / no decision) and PreToolUse, which can
only deny (a bare allow or ask is "unsupported" and fails open, so silence stands for allow, and
an ask no person answers becomes a deny: Codex prompts only for what its sandbox would stop).

Shell calls arrive as `Bash` with `{"command": ...}`; file edits as `apply_patch` whose
`command` is the patch envelope: a patch touching one file becomes Write (a new file) or Edit
of that path, so the path rules see it; a patch touching several files (or moving one) stays
`apply_patch` with its operations listed, each judged as the Write, Edit, rm or mv it amounts to."""
from __future__ import annotations

import os
import re
from typing import Any

from ..core.model import ToolCall, Verdict
from . import base
from .tools import normalise_tool

AGENT = "codex"
EVENTS = ("PreToolUse", "PermissionRequest")
DEFAULT_EVENT = "PreToolUse"
HOOK_TIMEOUT_S = 600.0

_PATCH_LINE = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)


def patch_files(patch: str) -> list[tuple[str, str]]:
    """The files an apply_patch envelope touches: [(operation, path), ...] in order."""
    return [(m.group(1), m.group(2)) for m in _PATCH_LINE.finditer(patch)]


def patch_bodies(patch: str) -> list[dict[str, Any]]:
    """What each operation of the envelope writes, in order with patch_files: an added file's text
    (`content`), an update's removed and added lines (`old_string`, `new_string`; context on both
    sides) or, for an update in several hunks, one such pair per hunk (`edits`, as MultiEdit's: each hunk
    applies where its own context is), nothing for a delete or a move line. The rules judge what is
    written, as for Write/Edit/MultiEdit."""
    bodies: list[list[dict[str, list[str]]]] = []
    kinds: list[str] = []
    hunks: list[dict[str, list[str]]] | None = None
    for line in patch.splitlines():
        m = _PATCH_LINE.match(line)
        if m:
            kinds.append(m.group(1))
            hunks = [{"added": [], "removed": []}]
            bodies.append(hunks)
            continue
        if hunks is None or line.startswith("*** "):
            continue
        current = hunks[-1]
        if line.startswith("@@"):
            if current["added"] or current["removed"]:
                hunks.append({"added": [], "removed": []})
            continue
        if kinds[-1] == "Add File":
            current["added"].append(line[1:] if line.startswith("+") else line)
        elif kinds[-1] in ("Update File", "Move to"):
            if line.startswith("+"):
                current["added"].append(line[1:])
            elif line.startswith("-"):
                current["removed"].append(line[1:])
            else:
                current["added"].append(line[1:] if line.startswith(" ") else line)
                current["removed"].append(line[1:] if line.startswith(" ") else line)
    out: list[dict[str, Any]] = []
    for hunks, op in zip(bodies, kinds):
        if op == "Add File":
            added = [line for h in hunks for line in h["added"]]
            out.append({"content": "\n".join(added) + ("\n" if added else "")})
            continue
        changed = [h for h in hunks if h["added"] != h["removed"]]
        edits = [{"old_string": "\n".join(h["removed"]), "new_string": "\n".join(h["added"])} for h in changed]
        if op in ("Update File", "Move to") and len(edits) == 1:
            out.append(edits[0])
        elif op in ("Update File", "Move to") and edits:
            out.append({"edits": edits})
        else:
            out.append({})
    return out


def parse(payload: Any, event: str | None = None) -> ToolCall:
    f = base.read_fields(payload, event, EVENTS, DEFAULT_EVENT)
    tool, tool_input = normalise_tool(f.tool_name), f.tool_input
    if f.tool_name == "apply_patch":
        tool, tool_input = _patch_call(tool_input, f.cwd)
    return ToolCall(tool, tool_input, f.cwd, agent=AGENT, session=base.text(f.data, "session_id"), event=f.event,
                    call_id=base.text(f.data, "tool_use_id"), mode=base.text(f.data, "permission_mode"),
                    transcript=base.loose_text(f.data, "transcript_path"))


def _patch_call(tool_input: dict, cwd: str) -> tuple[str, dict]:
    patch = tool_input.get("command", tool_input.get("patch", ""))
    if not isinstance(patch, str):
        raise base.PayloadError("apply_patch's command must be a string")
    files = patch_files(patch)
    bodies = patch_bodies(patch)
    paths = {path for _, path in files}
    if len(paths) != 1:  # several files, or a move: each operation judged (core/rules/filetools.py)
        return "apply_patch", {**tool_input, "files": sorted(paths), "operations": [
            {"op": op, "path": path if os.path.isabs(path) or not cwd else os.path.join(cwd, path), **body}
            for (op, path), body in zip(files, bodies)]}
    operation, path = files[0]
    path = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
    tool = "Write" if operation == "Add File" and len(files) == 1 else "MultiEdit" if "edits" in bodies[0] else "Edit"
    body = bodies[0] if len(files) == 1 else {}  # an update and its move: judged as an Edit of the path
    return tool, {**tool_input, "file_path": path, **body}


def why_not_handed_back(call: ToolCall) -> str:
    """Every PreToolUse ask. Silence there does not reach a prompt: Codex asks only for what its
    sandbox would stop, so a handed-back `rm -rf build` inside the workspace would run unasked."""
    if call.event != "PreToolUse":
        return ""
    if base.agent_asks(call):
        return "Codex's PreToolUse hook cannot ask, and Codex runs what its sandbox allows without asking"
    mode = "" if call.mode == base.UNKNOWN_MODE else f" and Codex runs with its approvals off ({call.mode})"
    return f"Codex's PreToolUse hook cannot ask{mode}"


def render(call: ToolCall, verdict: Verdict, reason: str, told: str = "") -> dict | None:
    if call.event == "PermissionRequest":
        if verdict is Verdict.ALLOW:
            decision: dict[str, Any] = {"behavior": "allow"}
        elif verdict is Verdict.DENY:
            decision = {"behavior": "deny", "message": base.denial_message(call, reason, told)}
        else:  # no decision: Codex's own approval (the person or its reviewer)
            return None
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    if verdict is Verdict.ASK:  # handed back: see why_not_handed_back
        verdict, reason = Verdict.DENY, f"{reason}; {why_not_handed_back(call)}, so guardtui denies"
    if verdict is not Verdict.DENY:
        return None  # PreToolUse cannot allow or ask: silence lets Codex's own approval go on
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": base.denial_message(call, reason, told)}}


def fail_safe(event: str, error: str) -> dict | None:
    return base.fail_safe(render, EVENTS, DEFAULT_EVENT, event, error)
