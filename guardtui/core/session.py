"""Per-session state: the calls that ran, the capability scope, the person's approvals."""
from __future__ import annotations

import fnmatch
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable

from .model import BlastRadius, Decision, ToolCall, Verdict

HISTORY_LIMIT = 256


@dataclass(frozen=True)
class Approval:
    """An "always allow" the person gave, scoped to one exact call or to a pattern they chose.

    kind "exact": the same tool with the same input. kind "pattern": for shell calls a glob
    that every asking part of the command must match (so approving `npm test*` never
    approves `npm test; rm -rf build`); for file tools a glob on the path; otherwise a glob
    on the serialised input.
    """

    kind: str  # "exact" | "pattern"
    tool: str
    value: str

    @property
    def label(self) -> str:
        return f"{self.tool}: {self.value}" if self.kind == "pattern" else f"{self.tool} (this exact call)"


@dataclass
class SessionState:
    agent: str
    session: str
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY_LIMIT))  # tool names that ran
    scope: frozenset[str] | None = None  # capabilities, fixed at the first call
    approvals: list[Approval] = field(default_factory=list)

    def ran(self, tool: str) -> None:
        self.history.append(tool)


class Sessions:
    """All sessions the engine has seen, keyed by (agent, session id)."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str], SessionState] = {}
        self._lock = threading.Lock()

    def get(self, agent: str, session: str) -> SessionState:
        key = (agent, session)
        with self._lock:
            state = self._sessions.get(key)
            if state is None:
                state = self._sessions[key] = SessionState(agent, session)
            return state

    def __iter__(self):
        return iter(list(self._sessions.values()))


def approval_matches(approval: Approval, call: ToolCall, decision: Decision, asking_segments: Iterable[str]) -> bool:
    if decision.verdict is Verdict.DENY or decision.blast_radius is BlastRadius.CRITICAL:
        return False  # a critical verdict is never auto-approved
    if approval.tool != call.tool:
        return False
    if approval.kind == "exact":
        return approval.value == call.serialised_input() if not call.is_shell else approval.value == call.command
    if call.is_shell:
        segments = [" ".join(s.split()) for s in asking_segments]
        return bool(segments) and all(fnmatch.fnmatchcase(s, approval.value) for s in segments)
    target = call.file_path
    if target is not None:
        return fnmatch.fnmatchcase(target, approval.value)
    return fnmatch.fnmatchcase(call.serialised_input(), approval.value)


def exact_approval(call: ToolCall) -> Approval:
    return Approval("exact", call.tool, call.command if call.is_shell else call.serialised_input())


def propose_pattern(call: ToolCall, asking_segments: list[str]) -> Approval | None:
    """A pattern the console offers for "always allow": `npm test*`, `/project/src/*.py`."""
    if call.is_shell:
        segments = [" ".join(s.split()) for s in asking_segments] or [" ".join(call.command.split())]
        heads = {" ".join(s.split()[:2]) for s in segments}
        if len(heads) != 1:
            return None
        head = heads.pop()
        return Approval("pattern", call.tool, head + "*") if head else None
    path = call.file_path
    if path:
        directory = path.rsplit("/", 1)[0] if "/" in path else "."
        suffix = path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
        return Approval("pattern", call.tool, f"{directory}/*.{suffix}" if suffix else f"{directory}/*")
    return None


__all__ = ["Approval", "SessionState", "Sessions", "approval_matches", "exact_approval", "propose_pattern"]
