"""What the agent was doing: the last thing it said before a call, read from the session
transcript its hook names (`transcript_path`). No Textual; the console runs `agent_context` in a
thread, only when the person asks for it.

The path comes from the agent, so it is treated as untrusted: only a regular file named like a
transcript (`.jsonl` / `.json`) is opened, only its last MAX_BYTES are read, and only the text of
the assistant's messages comes out of it — never the file's other contents. Formats:

    Claude Code  JSONL, {"type": "assistant", "message": {"content": [{"type": "text", ...},
                 {"type": "tool_use", "id": <tool_use_id>, ...}]}}
    Codex        JSONL, {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": ...}]}} (and function_call items)
    Gemini CLI   JSON, {"messages": [{"type": "gemini", "content": ...}, ...]}
"""
from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from typing import Any, Iterable

MAX_BYTES = 512 * 1024  # read from the end: the call is near it
MAX_CHARS = 2000  # what is shown of the message
SUFFIXES = (".jsonl", ".json")


@dataclass(frozen=True)
class AgentContext:
    text: str = ""  # the last assistant message before the call ("" when none was found)
    problem: str = ""  # why nothing could be read, in one line
    cut: bool = False  # the message was longer than MAX_CHARS


def agent_context(path: str, call_id: str = "", home: str = "") -> AgentContext:
    """The last assistant message before the call `call_id` (or the last one in the file)."""
    if not path:
        return AgentContext(problem="the agent's hook names no transcript")
    if path.startswith("~/"):
        path = (home.rstrip("/") + path[1:]) if home else os.path.expanduser(path)
    if not os.path.isabs(path):
        return AgentContext(problem="the transcript path is not absolute")
    if not path.endswith(SUFFIXES):
        return AgentContext(problem="the file the hook names is not a transcript (.jsonl or .json)")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO named like a transcript must not block
    except OSError as exc:
        return AgentContext(problem=f"cannot open the transcript: {exc.strerror or exc}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return AgentContext(problem="the transcript is not a regular file")
        start = max(0, info.st_size - MAX_BYTES)
        os.lseek(fd, start, os.SEEK_SET)
        raw = _read_all(fd, MAX_BYTES)
    except OSError as exc:
        return AgentContext(problem=f"cannot read the transcript: {exc.strerror or exc}")
    finally:
        os.close(fd)
    text = raw.decode("utf-8", errors="replace")
    if start:  # the first line is cut: drop it
        text = text.split("\n", 1)[1] if "\n" in text else ""
    message = _last_message(text, call_id)
    if message is None:
        return AgentContext(problem="no message from the agent in the transcript's last "
                                    f"{MAX_BYTES // 1024} KiB")
    message = clean(message)
    if len(message) > MAX_CHARS:
        return AgentContext(message[: MAX_CHARS - 1] + "…", cut=True)
    return AgentContext(message)


def _read_all(fd: int, limit: int) -> bytes:
    chunks, total = [], 0
    while total < limit:
        chunk = os.read(fd, min(65536, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def clean(text: str) -> str:
    """The message as plain text: no control characters (an escape sequence in it must not
    reach the terminal), blank runs collapsed."""
    out = "".join(ch if ch == "\n" or (ch.isprintable() or ch == " ") else " " for ch in text.replace("\t", "    "))
    lines = [line.rstrip() for line in out.strip().splitlines()]
    collapsed: list[str] = []
    for line in lines:
        if line or (collapsed and collapsed[-1]):
            collapsed.append(line)
    return "\n".join(collapsed).strip()


def _last_message(text: str, call_id: str) -> str | None:
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped[:4096] and stripped.rstrip().endswith("}"):
        try:  # a whole JSON document (Gemini CLI); a one-line JSONL file reads on below
            found = _from_items(_gemini_items(json.loads(stripped)), call_id)
            if found is not None:
                return found
        except (ValueError, TypeError):
            pass
    items: list[tuple[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            items.extend(_jsonl_items(entry))
    return _from_items(items, call_id)


def _from_items(items: Iterable[tuple[str, str]], call_id: str) -> str | None:
    """items: ("text", message) and ("call", id) in transcript order."""
    last: str | None = None
    for kind, value in items:
        if kind == "call" and call_id and value == call_id:
            return last
        if kind == "text" and value.strip():
            last = value
    return last


def _jsonl_items(entry: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if entry.get("type") == "assistant" and isinstance(entry.get("message"), dict):  # Claude Code
        out += _content_items(entry["message"].get("content"))
    payload = entry.get("payload")
    if entry.get("type") == "response_item" and isinstance(payload, dict):  # Codex
        if payload.get("type") == "message" and payload.get("role") == "assistant":
            out += _content_items(payload.get("content"))
        elif payload.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
            out.append(("call", str(payload.get("call_id", ""))))
    return out


def _content_items(content: Any) -> list[tuple[str, str]]:
    if isinstance(content, str):
        return [("text", content)]
    out: list[tuple[str, str]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("text", "output_text") and isinstance(block.get("text"), str):
            out.append(("text", block["text"]))
        elif block.get("type") == "tool_use":
            out.append(("call", str(block.get("id", ""))))
    return out


def _gemini_items(document: Any) -> list[tuple[str, str]]:
    messages = document.get("messages") if isinstance(document, dict) else document
    out: list[tuple[str, str]] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("type") not in ("gemini", "model", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            out.append(("text", content))
        elif isinstance(content, list):
            out += [("text", part["text"]) for part in content if isinstance(part, dict)
                    and isinstance(part.get("text"), str)]
    return out
