"""The core's data files (tools.yaml, sensitive.yaml), loaded once and schema-checked."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources

from .yamlfile import Field, check, load_yaml

_TOOLS_SCHEMA = {"version": Field(int, required=True, choices=(1,)), "read": Field(list, required=True, items=str),
                 "write": Field(list, required=True, items=str), "shell": Field(list, required=True, items=str),
                 "equivalents": Field(dict, values=Field(list, items=str))}
_PATTERN = {"name": Field(str), "path": Field(str), "reason": Field(str, required=True), "credentials_only": Field(bool),
            "own_copies": Field(bool)}
# how a file that runs later runs (core/rules/later_kinds.py reads each)
_LATER_KINDS = ("shell", "unit", "plist", "cron", "desktop", "vscode-tasks", "vim", "program", "python", "js", "ruby",
                "perl", "php", "groovy", "rust", "elisp", "settings", "gemfile", "compose", "procfile", "tilt", "ssh-config",
                "slash-command", "tmux", "kitty", "gitconfig", "agent-definition", "makefile", "cmake", "instructions", "pdbrc",
                "tool-config", "julia", "r", "client-rc", "debugger-rc", "mailcap", "screen", "lesskey", "hgrc",
                "powershell", "wm", "terminal-config", "nushell", "library-config", "tsconfig", "kak",
                "ide-watchers", "quadlet")
_RUNS_LATER = {"path": Field(str, required=True), "as": Field(str, required=True, choices=_LATER_KINDS)}
_SENSITIVE_SCHEMA = {"version": Field(int, required=True, choices=(1,)),
                     "patterns": Field(list, required=True, items=_PATTERN),
                     "runs_later": Field(list, items=_RUNS_LATER)}


@dataclass(frozen=True)
class ToolClasses:
    read: frozenset[str]
    write: frozenset[str]
    shell: frozenset[str]
    # an agent's own file tools that are neither a Write nor a Read (Cursor's Delete, docker-agent's
    # remove_directory): the calls each amounts to (mcp.yaml's `as` templates), by lower-cased name
    equivalents: dict[str, tuple[str, ...]] = None  # type: ignore[assignment]

    @cached_property
    def judged_by_name(self) -> frozenset[str]:
        """The built-in tools whose input the rules read by name (shell, read and write tools)."""
        return self.shell | self.read | self.write


@dataclass(frozen=True)
class SensitivePattern:
    name: str | None
    path: str | None
    reason: str
    credentials_only: bool = False  # asks only when the file as written holds a credential (a project .npmrc)
    own_copies: bool = False  # the project's own file copied or linked here, routine to run, asks nothing


def _read(name: str) -> tuple[str, str]:
    text = resources.files("guardtui.core.data").joinpath(name).read_text(encoding="utf-8")
    return text, f"guardtui/core/data/{name}"


@lru_cache(maxsize=1)
def tool_classes() -> ToolClasses:
    doc = load_yaml(*_read("tools.yaml"), shipped=True)
    check(doc, _TOOLS_SCHEMA)
    return ToolClasses(frozenset(doc.data["read"]), frozenset(doc.data["write"]), frozenset(doc.data["shell"]),
                       {k.lower(): tuple(v) for k, v in (doc.data.get("equivalents") or {}).items()})


@lru_cache(maxsize=1)
def sensitive_patterns() -> tuple[SensitivePattern, ...]:
    doc = load_yaml(*_read("sensitive.yaml"), shipped=True)
    check(doc, _SENSITIVE_SCHEMA)
    out = []
    for i, p in enumerate(doc.data["patterns"]):
        if bool(p.get("name")) == bool(p.get("path")):
            raise doc.error(("patterns", i), "give exactly one of name or path")
        out.append(SensitivePattern(p.get("name"), p.get("path"), p["reason"], bool(p.get("credentials_only")),
                                    bool(p.get("own_copies"))))
    return tuple(out)


@lru_cache(maxsize=1)
def runs_later() -> tuple[tuple[str, str], ...]:
    """(path glob, how it runs) of the files whose content runs later (sensitive.yaml runs_later)."""
    doc = load_yaml(*_read("sensitive.yaml"), shipped=True)
    check(doc, _SENSITIVE_SCHEMA)
    return tuple((p["path"], p["as"]) for p in doc.data.get("runs_later") or ())


_LATER_RUN = {"key": Field(str, required=True), "value": Field(str), "as": Field(str, required=True),
              "read": Field(str), "words": Field(bool)}
_LATER_FILE = {"tool": Field(str, required=True), "paths": Field(list, required=True, items=str),
               "format": Field(str, choices=("hcl",)), "variables": Field(bool),
               "run": Field(list, required=True, items=_LATER_RUN)}
_LATER_VARIABLE = {"name": Field(str, required=True), "value": Field(str), "as": Field(str), "file": Field(str),
                   "read": Field(str)}
_LATER_COMMAND = {"match": Field(str, required=True), "as": Field(str, required=True), "read": Field(str)}
_LATER_SETTINGS_SCHEMA = {"version": Field(int, required=True, choices=(1,)),
                          "files": Field(list, required=True, items=_LATER_FILE),
                          "variables": Field(list, items=_LATER_VARIABLE),
                          "commands": Field(list, items=_LATER_COMMAND)}


@lru_cache(maxsize=1)
def later_settings() -> dict:
    """later_settings.yaml: the settings, variables and commands that name a program a tool runs later."""
    doc = load_yaml(*_read("later_settings.yaml"), shipped=True)
    check(doc, _LATER_SETTINGS_SCHEMA)
    return doc.data
