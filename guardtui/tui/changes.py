"""What a Write / Edit / MultiEdit would change on disk, as a unified diff (no Textual)."""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from typing import Callable

from ..core.model import ToolCall

MAX_BYTES = 512 * 1024
MAX_LINES = 400
DIFF_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})


@dataclass(frozen=True)
class FileChange:
    path: str
    lines: list[tuple[str, str]] = field(default_factory=list)  # (kind, text); kind is + - @ or space
    note: str = ""
    added: int = 0
    removed: int = 0


def read_text(path: str) -> str | None:
    """The file's text, or None when it does not exist, is too big, or is not text."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError:
        return None
    if b"\0" in raw:
        return None
    return raw.decode("utf-8", errors="replace")


def file_change(call: ToolCall, read: Callable[[str], str | None] = read_text) -> FileChange | None:
    """The diff a file tool would make, or None for other tools."""
    if call.tool not in DIFF_TOOLS:
        return None
    raw_path = call.file_path
    patch = _patch_text(call)
    if raw_path is None:
        if patch:
            return _from_patch("(patch)", patch)
        return None
    path = raw_path if os.path.isabs(raw_path) else os.path.normpath(os.path.join(call.cwd or "/", raw_path))
    exists = os.path.exists(path)
    old = read(path) if exists else None
    if exists and old is None:
        return FileChange(path, note="binary or large file: no preview")
    if call.tool == "Write":
        content = call.input.get("content")
        if not isinstance(content, str):
            return FileChange(path, note="no content given")
        return _diff(path, old or "", content, "new file" if old is None else "")
    edits = _edits(call)
    if not edits:
        return _from_patch(path, patch) if patch else FileChange(path, note="no edit given")
    if old is None:
        # the file is not there: show the replacement itself
        before = "\n".join(e[0] for e in edits)
        after = "\n".join(e[1] for e in edits)
        return _diff(path, before + "\n", after + "\n", "file not on disk: showing the edit alone")
    new, missing = old, 0
    for old_string, new_string, replace_all in edits:
        if old_string and old_string in new:
            new = new.replace(old_string, new_string) if replace_all else new.replace(old_string, new_string, 1)
        else:
            missing += 1
    note = f"{missing} edit(s) do not match the file as it is now" if missing else ""
    return _diff(path, old, new, note)


def _edits(call: ToolCall) -> list[tuple[str, str, bool]]:
    items = call.input.get("edits") if call.tool == "MultiEdit" else [call.input]
    out = []
    for item in items or []:
        if not hasattr(item, "get"):
            continue
        old_string, new_string = item.get("old_string"), item.get("new_string")
        if isinstance(old_string, str) and isinstance(new_string, str):
            out.append((old_string, new_string, bool(item.get("replace_all"))))
    return out


def _patch_text(call: ToolCall) -> str:
    for key in ("patch", "input", "diff", "command"):
        value = call.input.get(key)
        if isinstance(value, str) and ("\n+" in value or "\n-" in value or value.startswith(("+", "-", "@@", "***"))):
            return value
    return ""


def _from_patch(path: str, patch: str) -> FileChange:
    lines: list[tuple[str, str]] = []
    added = removed = 0
    for line in patch.splitlines()[:MAX_LINES]:
        kind = line[:1] if line[:1] in "+-@" else " "
        if line.startswith(("+++", "---", "***")):
            kind = "@"
        added += kind == "+"
        removed += kind == "-"
        lines.append((kind, line))
    return FileChange(path, lines, "", added, removed)


def _diff(path: str, old: str, new: str, note: str) -> FileChange:
    if old == new:
        return FileChange(path, note=note or "no change")
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    lines: list[tuple[str, str]] = []
    added = removed = total = 0
    for line in diff:
        if line.startswith(("---", "+++")):
            continue
        kind = line[:1] if line[:1] in "+-@" else " "
        added += kind == "+"
        removed += kind == "-"
        total += 1
        if total <= MAX_LINES:
            lines.append((kind, line))
    if total > MAX_LINES:
        note = (note + "; " if note else "") + f"diff cut at {MAX_LINES} lines"
    return FileChange(path, lines, note, added, removed)
