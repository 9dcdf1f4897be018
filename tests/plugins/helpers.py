"""Helpers for plugin tests: writing plugin files, making calls, judging with plugins in force."""
from __future__ import annotations

import textwrap
from pathlib import Path

from guardtui.core.model import Decision, ToolCall
from guardtui.core.plugins import Plugin, PluginRule
from guardtui.core.plugins.parse import parse_plugin

from ..conftest import PROJECT


def write(path: Path, text: str) -> Path:
    """Write a plugin file (dedented), creating its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def plugin(text: str, file: str = "p.yaml", level: str = "user", trusted: bool | None = None) -> Plugin:
    """A plugin parsed from text (dedented)."""
    trusted = level == "user" if trusted is None else trusted
    return parse_plugin(textwrap.dedent(text).lstrip("\n").encode(), file, level, trusted)


def bash(command: str, cwd: str = PROJECT) -> ToolCall:
    return ToolCall("Bash", {"command": command}, cwd, agent="claude", session="s1")


def tool(name: str, cwd: str = PROJECT, **tool_input) -> ToolCall:
    return ToolCall(name, tool_input, cwd, agent="claude", session="s1")


def judge(make_engine, plugins: list[Plugin], call: ToolCall) -> Decision:
    """The full engine's decision with these plugins in the plugins slot."""
    return make_engine(record=False, plugin_rule=PluginRule(plugins)).evaluate(call, record=False)
