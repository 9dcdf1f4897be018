"""How a call, a decision and a guard event read on screen: plain strings, no Textual.

Everything the widgets show is worded here once, so the queue row, the detail pane, the
playground and the tests say the same thing.
"""
from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from ..core.model import BlastRadius, Decision, ToolCall, Verdict

RADIUS_LABEL = {BlastRadius.CRITICAL: "critical", BlastRadius.HIGH: "high", BlastRadius.MEDIUM: "medium",
                BlastRadius.LOW: "low", BlastRadius.UNKNOWN: "unknown"}


def fmt_duration(seconds: float) -> str:
    """Compact, fixed-ish width: 7s, 59s, 3m05, 1h02."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}"
    return f"{s // 3600}h{(s % 3600) // 60:02d}"


def fmt_clock(ts: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts))


def agent_label(call: ToolCall) -> str:
    """`claude·6b58`: the agent and the start of its session id (dialogs; the queue numbers sessions)."""
    session = "".join(ch for ch in call.session if ch.isalnum())[:4]
    return f"{call.agent}·{session}" if session else call.agent


class SessionLabels:
    """A readable name for each agent session, in the order they first asked: `claude 1`,
    `claude 2`, `codex 1`. The same session keeps its name for the console's life."""

    def __init__(self) -> None:
        self._labels: dict[tuple[str, str], str] = {}
        self._counts: Counter[str] = Counter()

    def __call__(self, call: ToolCall) -> str:
        key = (call.agent, call.session)
        label = self._labels.get(key)
        if label is None:
            self._counts[call.agent] += 1
            label = self._labels[key] = f"{call.agent} {self._counts[call.agent]}"
        return label


PROJECT_MARKERS = (".git", ".hg", ".agents/guards", ".claude/guards", ".guardtui/guards", "pyproject.toml",
                   "package.json", "go.mod", "Cargo.toml")


class ProjectNames:
    """The project a call works in, short: the name of the nearest directory from its cwd up that
    looks like a project root (a repository, a manifest, a guards directory), else the cwd's own.
    Looked up once per working directory."""

    def __init__(self, home: str = "") -> None:
        self.home = home.rstrip("/")
        self._names: dict[str, str] = {}

    def __call__(self, cwd: str) -> str:
        name = self._names.get(cwd)
        if name is None:
            if len(self._names) > 4096:
                self._names.clear()
            name = self._names[cwd] = self._find(cwd)
        return name

    def _find(self, cwd: str) -> str:
        if not cwd:
            return "?"
        path = os.path.normpath(cwd)
        while path not in ("/", self.home, ""):
            if any(os.path.exists(os.path.join(path, marker)) for marker in PROJECT_MARKERS):
                return os.path.basename(path)
            parent = os.path.dirname(path)
            if parent == path:
                break
            path = parent
        return short_path(os.path.normpath(cwd), self.home) if os.path.normpath(cwd) in ("/", self.home) \
            else os.path.basename(os.path.normpath(cwd))


def mcp_parts(tool: str) -> tuple[str, str] | None:
    """`mcp__github__create_issue` -> ("github", "create_issue"); None for other tools."""
    if not tool.startswith("mcp__"):
        return None
    server, _, name = tool[len("mcp__"):].partition("__")
    return (server, name) if server and name else None


def tool_label(call: ToolCall) -> str:
    """The tool column: the tool's name, or for an MCP tool its server (the call column names the tool)."""
    parts = mcp_parts(call.tool)
    return parts[0] if parts else call.tool


def call_text(call: ToolCall, home: str = "", width: int = 200) -> str:
    """The call in one line for the queue: the command, the file (relative to the project), or
    the input as `key=value` pairs (after the tool's name, for an MCP tool)."""
    if call.is_shell:
        text = call.command
    elif call.file_path is not None:
        text = project_path(call.file_path, call.cwd, home)
    else:
        text = "  ".join(f"{k}={_compact(v)}" for k, v in sorted(call.input.items()))
        parts = mcp_parts(call.tool)
        if parts:
            text = f"{parts[1]}  {text}".rstrip()
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def tilde(text: str, home: str) -> str:
    """Every mention of the home directory inside a text written as `~`."""
    home = home.rstrip("/")
    if not home:
        return text
    return re.sub(re.escape(home) + r"(?=/|\b|$)", "~", text)


def expand_tilde(path: str, home: str) -> str:
    if home and (path == "~" or path.startswith("~/")):
        return home.rstrip("/") + path[1:]
    return path


def project_path(path: str, cwd: str, home: str) -> str:
    """A path relative to the project when inside it, else with `~` for home."""
    cwd = cwd.rstrip("/")
    if cwd and path.startswith(cwd + "/"):
        return path[len(cwd) + 1:]
    return short_path(path, home)


def short_path(path: str, home: str) -> str:
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")):]
    return path


# what a call does, by its decision's category: the warning block's heading
EFFECT_HEADING = {
    "package": "Installs packages", "deploy": "Deploys", "kubernetes": "Changes a cluster",
    "infra-as-code": "Changes infrastructure", "cloud": "Changes cloud resources",
    "service-cli": "Changes an external service", "network": "Network access", "email": "Network access",
    "remote-exec": "Runs code from the network", "fs-delete": "Destructive command", "database": "Changes a database",
    "disk": "Destructive command", "backup": "Destructive command", "git": "Rewrites git state",
    "fs-write": "Writes files", "permissions": "Changes permissions", "privilege": "Runs as root",
    "container": "Runs a container", "process": "Changes running services", "secrets": "Touches secrets",
    "credentials": "Touches secrets", "sensitive-file": "Touches a sensitive file", "mcp-change": "Changes data",
    "mcp-delete": "Destructive tool call", "shell-state": "Changes the shell", "system": "Changes the system",
}


@dataclass(frozen=True)
class Warning:
    """The warning block above a call: a heading, the radius it names, the reason under it."""

    kind: str  # "destructive" (any call that asks, by what it does) | "unrecognised" | "safe"
    icon: str
    heading: str
    radius: BlastRadius | None  # named in the heading with its colour (destructive only)
    reason: str

    @property
    def text(self) -> str:
        """The heading as one plain line (what a screen reader, or a test, reads)."""
        if self.radius is not None:
            return f"{self.icon}  {self.heading} — {RADIUS_LABEL[self.radius]} blast radius"
        return f"{self.icon}  {self.heading}"


def _noun(call: ToolCall) -> str:
    if call.is_shell:
        return "command"
    if call.file_path is not None:
        return "file change"
    return "tool call"


def warning_for(call: ToolCall, decision: Decision, home: str = "") -> Warning:
    """Destructive (with its radius), unrecognised (no crying wolf), or safe."""
    noun = _noun(call)
    reason = tilde(decision.reason, home)
    if decision.blast_radius is BlastRadius.UNKNOWN or decision.verdict is Verdict.LLM:
        what = "command" if call.is_shell else ("tool" if noun == "tool call" else noun)
        for prefix in ("unrecognised command — not classified as safe: ", "unrecognised command: "):
            if reason.lower().startswith(prefix):
                reason = reason[len(prefix):]
        return Warning("unrecognised", "⚠", f"Unrecognised {what} — not classified as safe", None, reason)
    if decision.verdict is Verdict.ALLOW:
        heading = "Read-only command — safe" if decision.category == "read-only" and call.is_shell else \
            ("Read-only call — safe" if decision.category == "read-only" else
             f"Allowed {noun} — {RADIUS_LABEL[decision.blast_radius]} blast radius")
        return Warning("safe", "✓", heading, None, reason)
    heading = EFFECT_HEADING.get(decision.category) or {"command": "Risky command", "file change": "Risky file change",
                                                        "tool call": "Risky tool call"}[noun]
    return Warning("destructive", "⚠", heading, decision.blast_radius, reason)


def review_note(pending: Any) -> str:
    """What the guard agent made of a waiting call, in one line ("" when it did not review it)."""
    if getattr(pending, "reviewing", False):
        return "the guard agent is reviewing it — answer any time: the first answer wins"
    info = pending.decision.metadata.get("llm")
    if not isinstance(info, dict):
        return ""
    tokens = int(info.get("prompt_tokens", 0)) + int(info.get("completion_tokens", 0))
    cost = f"{info.get('model', '?')}, {float(info.get('latency_ms', 0)) / 1000:.1f} s, {tokens:,} tokens"
    if info.get("cached"):
        cost = f"{info.get('model', '?')}, the same call earlier this session"
    if info.get("limit"):
        return f"the guard agent would allow it, but {info['limit']} ({cost})"
    if info.get("verdict") == "ask":
        return f"the guard agent asks you ({cost})"
    return f"the guard agent could not judge it: {info.get('reason', '')} ({cost})"


@dataclass(frozen=True)
class Segment:
    """One judged part of a shell command (from the decision's `segments` metadata)."""

    text: str
    verdict: str
    radius: str
    category: str
    reason: str
    rule: str
    via: str
    span: tuple[int, int] | None
    deciding: bool


def segments_of(call: ToolCall, decision: Decision, home: str = "") -> list[Segment]:
    """The per-segment view, with the segment that decided marked."""
    raw = decision.metadata.get("segments") or []
    decisive_span = _span(decision.metadata.get("span"))
    decisive_text = decision.metadata.get("segment") or ""
    items = [item for item in raw if isinstance(item, Mapping)]

    def located(item: Mapping) -> bool:
        span = _span(item.get("span"))
        return bool((decisive_span is not None and span == decisive_span) or
                    (decisive_span is None and decisive_text and item.get("segment") == decisive_text))

    # several findings may sit on one part (`docker run … sh`: the container's shell and the
    # mount): the one that decided is the one whose reason the decision gives
    candidates = [i for i, item in enumerate(items) if located(item)]
    chosen = next((i for i in candidates if str(items[i].get("reason", "")) == decision.reason),
                  candidates[0] if candidates else None)
    out: list[Segment] = []
    for index, item in enumerate(items):
        span = _span(item.get("span"))
        deciding = index == chosen
        out.append(Segment(str(item.get("segment", "")), str(item.get("verdict", "")),
                           str(item.get("blast_radius", "")), str(item.get("category", "")),
                           tilde(str(item.get("reason", "")), home), str(item.get("rule", "")),
                           str(item.get("via", "") or ""),
                           span, deciding))
    return out


def _span(value: Any) -> tuple[int, int] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value[0], value[1])
    return None


def char_span(command: str, span: tuple[int, int] | None, segment: str) -> tuple[int, int] | None:
    """Where a segment sits in the command, in characters (tree-sitter spans may be bytes)."""
    if span is not None:
        start, end = span
        if 0 <= start <= end <= len(command) and command[start:end] == segment:
            return span
        raw = command.encode("utf-8")
        if 0 <= start <= end <= len(raw):
            try:
                if raw[start:end].decode("utf-8") == segment:
                    return len(raw[:start].decode("utf-8")), len(raw[:end].decode("utf-8"))
            except UnicodeDecodeError:
                pass
    if segment:
        at = command.find(segment)
        if at >= 0:
            return at, at + len(segment)
    return None


VERDICT_MARK = {"allow": "✓", "deny": "✗", "ask": "?", "llm": "?", "flag": "⚑"}


def verdict_word(decision: Decision) -> str:
    """What the person reads: an escalation with no LLM guard is an ask."""
    return "ask" if decision.verdict is Verdict.LLM else decision.verdict.value


@dataclass(frozen=True)
class LogLine:
    """One line of the guard log."""

    ts: float
    icon: str
    label: str  # allowed, denied, flag, reload, …
    rule: str
    text: str
    tone: str = "guard"  # guard | allow | deny | error


_EVENT_LOOK = {  # kind -> (icon, label, tone)
    "flag": ("⚑", "flag", "guard"),
    "rule-error": ("‼", "error", "error"),
    "reload": ("↻", "reload", "guard"),
    "reload-error": ("‼", "reload", "error"),
    "timeout": ("⏱", "timeout", "guard"),
    "shutdown": ("⏻", "quit", "guard"),
    "trust": ("✓", "trust", "guard"),
    "review": ("◆", "agent", "guard"),
    "review-error": ("‼", "agent", "error"),
}


def event_line(event: Any, ts: float | None = None, home: str = "") -> LogLine:
    """A GuardEvent as a log line (stamped `ts`, the console's clock, when given)."""
    icon, label, tone = _EVENT_LOOK.get(event.kind, ("•", event.kind[:8], "guard"))
    message = event.message
    if event.kind in ("decided", "allow", "deny", "allowed", "denied"):
        denied = event.kind.startswith("den") or message.lower().startswith(("deny", "denied"))
        icon, label, tone = ("✗", "denied", "deny") if denied else ("✓", "allowed", "allow")
        for prefix in ("denied: ", "deny: ", "allowed: ", "allow: ", "denied ", "allowed "):
            if message.lower().startswith(prefix):
                message = message[len(prefix):]
                break
    who = f"{event.agent} " if event.agent else ""
    text = f"{who}{event.call} — {message}" if event.call and event.call not in message else f"{who}{message}"
    return LogLine(event.ts if ts is None else ts, icon, label, event.rule, tilde(text.strip(), home), tone)


def answer_line(pending: Any, ts: float, home: str = "") -> LogLine | None:
    """How a pending call ended, as a log line (None when another event already says it)."""
    resolution = pending.resolution
    if resolution is None:
        return None
    by = resolution.decided_by.value
    outcome = resolution.outcome.value
    call = pending.call
    who = f"{call.agent} {tilde(call.summary(120), home)}"
    if by == "person":
        if outcome == "allow":
            label = "always allowed by you" if resolution.approval is not None else "allowed by you"
            scope = f" ({resolution.approval.label})" if resolution.approval is not None else " (once)"
            return LogLine(ts, "✓", "allowed", "you", f"{who} — {label}{scope}", "allow")
        note = f": “{resolution.message}”" if resolution.message else ""
        return LogLine(ts, "✗", "denied", "you", f"{who} — denied by you{note}", "deny")
    if by == "policy" and "stopped waiting" in resolution.reason:
        return LogLine(ts, "•", "gone", "broker", f"{who} — the agent stopped waiting", "guard")
    return None  # timeouts, shutdowns and approvals have their own guard events
