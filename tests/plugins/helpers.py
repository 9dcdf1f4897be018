"""Helpers for plugin tests: writing plugin files, making calls, judging with plugins in force."""
from __future__ import annotations

import textwrap
from pathlib import Path

from guardtui.core.engine import Engine
from guardtui.core.model import Decision, ToolCall
from guardtui.core.plugins import Plugin, PluginRule
from guardtui.core.plugins.parse import parse_plugin
from guardtui.core.shell.analyze import Analyzer

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


def engine_with(make_engine, plugins: list[Plugin], every_command_installed: bool = False) -> Engine:
    """The full engine with these plugins in the plugins slot."""
    engine = make_engine(record=False, plugin_rule=PluginRule(plugins))
    if every_command_installed:  # made-up commands then escalate instead of being "not installed"
        engine.analyzer = Analyzer(command_exists=lambda name: True)
    return engine


def judge(make_engine, plugins: list[Plugin], call: ToolCall) -> Decision:
    return engine_with(make_engine, plugins).evaluate(call, record=False)
