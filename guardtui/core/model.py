"""The words every part of guardtui speaks: verdicts, blast radii, tool calls, decisions."""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from functools import cached_property
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping


class Verdict(str, Enum):
    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"
    LLM = "llm"  # escalate to the LLM guard (ask when none is configured)
    FLAG = "flag"  # record a guard event and let evaluation go on

    @property
    def restrictiveness(self) -> int:
        return _RESTRICTIVENESS[self]

    def __str__(self) -> str:  # pragma: no cover - convenience for f-strings
        return self.value


_RESTRICTIVENESS = {Verdict.ALLOW: 0, Verdict.FLAG: 1, Verdict.LLM: 2, Verdict.ASK: 3, Verdict.DENY: 4}


class BlastRadius(str, Enum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    UNKNOWN = "unknown"

    @property
    def severity(self) -> int:
        # unknown outranks medium: a command we cannot classify may be as bad as a high one
        return _SEVERITY[self]

    def __str__(self) -> str:  # pragma: no cover
        return self.value


_SEVERITY = {BlastRadius.CRITICAL: 5, BlastRadius.HIGH: 4, BlastRadius.UNKNOWN: 3,
             BlastRadius.MEDIUM: 2, BlastRadius.LOW: 1}


class DecidedBy(str, Enum):
    RULE = "rule"
    PERSON = "person"
    LLM = "llm"
    TIMEOUT = "timeout"
    POLICY = "policy"  # headless broker, offline hook or console quit answering by its policy
    APPROVAL = "approval"  # a session "always allow" the person gave earlier


# Canonical tool names (Claude Code's spelling); adapters map every agent onto these.
SHELL_TOOL = "Bash"
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS"})


@dataclass(frozen=True)
class ToolCall:
    tool: str
    input: Mapping[str, Any]
    cwd: str
    agent: str = "unknown"
    session: str = ""
    event: str = ""  # the agent's hook event, e.g. PreToolUse
    call_id: str = ""
    mode: str = ""  # the agent's own permission mode when it says (default, bypassPermissions, ...)
    # the session transcript the hook names (`transcript_path`): shown on demand, never judged by
    transcript: str = field(default="", compare=False)
    # whether the entry point cut part of the input (nested too deep): None when it did not say,
    # and the engine looks for core.inputs.CUT itself (a walk of the whole input)
    cut: bool | None = field(default=None, compare=False)

    @property
    def description(self) -> str:
        """What the agent says the call is for (Claude Code's, Gemini CLI's and Codex's `description`)."""
        value = self.input.get("description", "")
        return " ".join(value.split()) if isinstance(value, str) else ""

    def __post_init__(self) -> None:
        if not isinstance(self.input, MappingProxyType):
            object.__setattr__(self, "input", MappingProxyType(dict(self.input)))

    @property
    def is_shell(self) -> bool:
        return self.tool == SHELL_TOOL

    @cached_property
    def command(self) -> str:  # read by every rule: made once (the input cannot change)
        value = self.input.get("command", "")
        return value if isinstance(value, str) else ""

    def with_cut(self, cut: bool) -> "ToolCall":
        """The same call, saying whether the entry point cut part of its input."""
        return _copy(self, _CALL_FIELDS, {"cut": cut})

    @property
    def file_path(self) -> str | None:
        for key in ("file_path", "notebook_path", "path"):
            value = self.input.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    def serialised_input(self) -> str:
        return self._serialised

    @cached_property
    def _serialised(self) -> str:  # made once per call: a large input takes a while (the broker makes it in a worker)
        return json.dumps(dict(self.input), sort_keys=True, ensure_ascii=False, default=str)

    def summary(self, width: int = 200) -> str:
        """The call in one line: the command, else the file, else the input."""
        text = self.command or self.file_path or self.__dict__.get("_serialised") or \
            _json_head(dict(self.input), 4 * width + 64)
        head = text[: 4 * width + 64]  # enough to fill the line: a huge input is not split whole
        line = " ".join(head.split())
        return line if len(line) <= width and len(head) == len(text) else line[: width - 1] + "…"


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    rule: str = ""
    blast_radius: BlastRadius = BlastRadius.UNKNOWN
    category: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def with_(self, **changes: Any) -> "Decision":
        if "metadata" in changes:
            changes["metadata"] = MappingProxyType(dict(changes["metadata"]))
        return _copy(self, _DECISION_FIELDS, changes)

    def with_metadata(self, **extra: Any) -> "Decision":
        return _copy(self, _DECISION_FIELDS, {"metadata": MappingProxyType({**self.metadata, **extra})})

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "rule": self.rule,
            "blast_radius": self.blast_radius.value,
            "category": self.category,
        }


_CALL_FIELDS = tuple(f.name for f in fields(ToolCall))
_DECISION_FIELDS = tuple(f.name for f in fields(Decision))


def _copy(obj: Any, names: tuple[str, ...], changes: dict[str, Any]) -> Any:
    """A frozen dataclass with some fields changed, as dataclasses.replace makes it but without running
    __init__ again (a decision is copied several times per call): the caller passes values already in
    their final form. What an instance cached from its fields is left behind."""
    new = object.__new__(type(obj))
    state, old = new.__dict__, obj.__dict__
    for name in names:
        state[name] = old[name]
    for name, value in changes.items():
        if name not in state:
            raise TypeError(f"{type(obj).__name__} has no field {name}")
        state[name] = value
    return new


def _json_head(value: Any, room: int) -> str:
    """The start of the JSON of `value`, made without walking all of a large one (what is left out
    shows as "…")."""

    def cut(item: Any, depth: int) -> Any:
        if isinstance(item, str):
            return item if len(item) <= room else item[:room] + "…"
        if isinstance(item, dict):
            if depth >= 4:
                return "…"
            out = {str(k)[:room]: cut(v, depth + 1) for k, v in list(item.items())[:16]}
            return {**out, "…": "…"} if len(item) > 16 else out
        if isinstance(item, (list, tuple)):
            if depth >= 4:
                return "…"
            return [cut(v, depth + 1) for v in item[:16]] + (["…"] if len(item) > 16 else [])
        return item

    return json.dumps(cut(value, 0), sort_keys=True, ensure_ascii=False, default=str)[:room]


def more_restrictive(a: Decision, b: Decision) -> Decision:
    """The stricter of two decisions; on equal verdicts the worse blast radius; else the first."""
    ka = (a.verdict.restrictiveness, a.blast_radius.severity)
    kb = (b.verdict.restrictiveness, b.blast_radius.severity)
    return b if kb > ka else a
