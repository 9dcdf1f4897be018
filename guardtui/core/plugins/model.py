"""What a loaded plugin is: its patterns, its self-tests, where it came from, whether it is trusted."""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Mapping

import regex

from ..model import SHELL_TOOL, BlastRadius, ToolCall, Verdict

USER, PROJECT = "user", "project"


@dataclass(frozen=True)
class Pattern:
    index: int  # position in the file's `patterns` list
    line: int
    verdict: Verdict
    reason: str
    match: str | None = None  # regex on the shell command
    file_match: str | None = None  # glob on the file's base name (file tools)
    path_match: str | None = None  # glob on the file's full path (file tools)
    arg_match: str | None = None  # regex on the serialised input (any tool)
    blast_radius: BlastRadius = BlastRadius.UNKNOWN
    category: str = "plugin"
    match_re: regex.Pattern | None = field(default=None, compare=False, repr=False)
    arg_re: regex.Pattern | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        for text, attr in ((self.match, "match_re"), (self.arg_match, "arg_re")):
            if text is not None and getattr(self, attr) is None:
                object.__setattr__(self, attr, regex.compile(text))

    def describe(self) -> str:
        """`match /curl/ → ask` — the conditions and the verdict, for listings."""
        regexes = [f"{name} /{getattr(self, name)}/" for name in ("match", "arg_match") if getattr(self, name)]
        globs = [f"{name} {getattr(self, name)}" for name in ("file_match", "path_match") if getattr(self, name)]
        return f"{', '.join(regexes + globs)} → {self.verdict.value}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "line": self.line, "verdict": self.verdict.value,
                               "reason": self.reason, "blast_radius": self.blast_radius.value,
                               "category": self.category}
        for name in ("match", "file_match", "path_match", "arg_match"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


@dataclass(frozen=True)
class PluginTest:
    """One example from a plugin's `tests:` list: a call and the verdict the full engine must give."""

    index: int
    line: int
    tool: str
    input: Mapping[str, Any]
    expect: Verdict
    cwd: str | None = None
    flag: bool | None = None  # when given: whether this plugin must (or must not) flag the call

    def call(self, default_cwd: str) -> ToolCall:
        return ToolCall(self.tool, self.input, self.cwd or default_cwd, agent="guardtui-test",
                        session=f"test-{self.index}")

    def describe(self, width: int = 60) -> str:
        prefix = "" if self.tool == SHELL_TOOL else f"{self.tool}: "
        return prefix + self.call("").summary(max(10, width - len(prefix)))


@dataclass(frozen=True)
class Plugin:
    id: str
    file: str
    level: str  # "user" or "project"
    sha256: str = ""
    description: str = ""
    tools: tuple[str, ...] = ()  # empty: every tool; names compare case-insensitively, globs allowed
    declared: tuple[Pattern, ...] = ()  # every pattern in the file, in order
    tests: tuple[PluginTest, ...] = ()
    trusted: bool = False  # user-level plugins always are; project ones when `guardtui trust` saw this content
    notes: tuple[str, ...] = ()  # warnings worth showing (unknown tool names, replaced plugins)
    error: str = ""  # the file's current load error, when this is its last good version
    broken: str = ""  # the file does not load and has no good version: every call asks
    standin: bool = False  # not a file: stands for a project's plugins that could not be loaded (broken says why)
    patterns: tuple[Pattern, ...] = field(init=False, compare=False)  # the patterns in force
    ignored: tuple[Pattern, ...] = field(init=False, compare=False)  # allow patterns of an untrusted project plugin

    def __post_init__(self) -> None:
        # a project plugin is written by the agent it guards: it may only tighten until trusted
        only_tighten = self.level == PROJECT and not self.trusted
        ignored = tuple(p for p in self.declared if only_tighten and p.verdict is Verdict.ALLOW)
        object.__setattr__(self, "patterns", tuple(p for p in self.declared if p not in ignored))
        object.__setattr__(self, "ignored", ignored)

    @property
    def rule_id(self) -> str:
        return f"plugins/{self.id}"

    def applies_to(self, tool: str) -> bool:
        if not self.tools:
            return True
        name = tool.lower()
        return any(fnmatch.fnmatchcase(name, wanted) for wanted in self.tools)

    @property
    def ignored_note(self) -> str:
        if not self.ignored:
            return ""
        return (f"{len(self.ignored)} allow pattern(s) ignored: a project plugin may only tighten until you "
                f"trust this exact content (guardtui trust {self.file})")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "file": self.file, "level": self.level, "trusted": self.trusted,
                "sha256": self.sha256, "description": self.description, "tools": list(self.tools),
                "patterns": [p.to_dict() for p in self.patterns],
                "ignored_patterns": [p.to_dict() for p in self.ignored],
                "tests": len(self.tests), "notes": [*self.notes, *filter(None, [self.ignored_note])],
                "last_error": self.error or self.broken or None, "broken": bool(self.broken)}
