"""Per-session state: the calls that ran, the capability scope, the person's approvals, and what the
engine keeps to judge later calls (what was denied, the plans made, where the agent has been)."""
from __future__ import annotations

import fnmatch
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from .model import BlastRadius, Decision, ToolCall, Verdict

HISTORY_LIMIT = 256
DENIED_LIMIT = 256  # effects denied earlier, newest kept
FACTS_LIMIT = 128  # what earlier calls left for later ones (destroy plans made)
CWD_LIMIT = 32


@dataclass(frozen=True)
class Denial:
    """An effect denied earlier in the session: by which rule or person, and the call that tried it."""

    reason: str
    tool: str
    call: str
    by: str  # rule | person | policy | …


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
    denied: "OrderedDict[tuple[str, str], Denial]" = field(default_factory=OrderedDict)
    facts: "OrderedDict[str, str]" = field(default_factory=OrderedDict)  # "destroy-plan:/abs" -> "1"
    root: str = ""  # the first working directory of the session
    cwds: deque = field(default_factory=lambda: deque(maxlen=CWD_LIMIT))  # working directories, as they changed
    # the broker judges in its executor thread and settles on its loop: memory changes under this lock
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def ran(self, tool: str) -> None:
        self.history.append(tool)

    def saw_cwd(self, cwd: str) -> None:
        if not cwd:
            return
        if not self.root:
            self.root = cwd
        if not self.cwds or self.cwds[-1] != cwd:
            self.cwds.append(cwd)

    def remember_denied(self, effects: Iterable[tuple[str, str]], denial: Denial) -> None:
        with self._lock:
            for effect in effects:
                self.denied.pop(effect, None)
                self.denied[effect] = denial
                while len(self.denied) > DENIED_LIMIT:
                    self.denied.popitem(last=False)

    def denied_earlier(self, effects: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], Denial] | None:
        with self._lock:
            for effect in sorted(effects):
                denial = self.denied.get(effect)
                if denial is not None:
                    return effect, denial
        return None

    def remember_facts(self, facts: Mapping[str, str]) -> None:
        with self._lock:
            for key, value in facts.items():
                self.facts.pop(key, None)
                self.facts[key] = value
                while len(self.facts) > FACTS_LIMIT:
                    self.facts.popitem(last=False)

    def known_facts(self) -> dict[str, str]:
        with self._lock:
            return dict(self.facts)


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


__all__ = ["Approval", "Denial", "SessionState", "Sessions", "approval_matches", "exact_approval", "propose_pattern"]
