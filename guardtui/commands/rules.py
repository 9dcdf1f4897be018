"""guardtui rules [--json] [--builtin]: the plugins in force, in evaluation order, and what failed
to load; --builtin: the built-in knowledge of MCP servers (core/data/mcp.yaml) instead.
guardtui rules --examples: where the shipped example plugins are (to copy one into your guards dir).
guardtui trust FILE: let a project plugin's `allow` patterns apply, or a project guard skill be
used by the guard agent (this exact content only).

`rules` exits 1 when a plugin file does not load, so a script can check a setup.
"""
from __future__ import annotations

import json
import os
import sys
from typing import IO

from ..core.config import Locations
from ..core.llm.skills import is_skill_file, trust_skill
from ..core.plugins import USER, Plugin, PluginSet, load_plugin_set
from ..core.plugins.vouch import trust_plugin


def run(args, command: str) -> int:
    locations = Locations.from_env()
    if command == "trust":
        return trust(args.file, locations, os.getcwd(), sys.stdout)
    if getattr(args, "builtin", False):
        return builtin(args.json, sys.stdout)
    if getattr(args, "examples", False):
        from ..tui.shipped import shipped_dir

        print(shipped_dir("plugins"))
        return 0
    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    loaded = load_plugin_set(locations, cwd)
    if args.json:
        sys.stdout.write(json.dumps(as_json(loaded), indent=2) + "\n")
    else:
        print_rules(loaded, sys.stdout)
    return 1 if loaded.errors else 0


def as_json(loaded: PluginSet) -> dict:
    return {"loaded_at": loaded.loaded_at, "plugins": [p.to_dict() for p in loaded.plugins],
            "errors": [{"file": e.file, "line": e.line, "field": e.field, "message": e.message, "text": str(e)}
                       for e in loaded.errors],
            "notes": list(loaded.notes)}


def print_rules(loaded: PluginSet, out: IO[str]) -> None:
    if not loaded.plugins:
        out.write("no plugins in force\n")
    for number, plugin in enumerate(loaded.plugins, 1):
        out.write(f"{number}. {plugin.id}  {_standing(plugin)}  {plugin.file}\n")
        if plugin.broken:
            out.write(f"     BROKEN (every call asks): {plugin.broken}\n")
            continue
        if plugin.description:
            out.write(f"     {plugin.description}\n")
        out.write(f"     tools: {', '.join(plugin.tools) or 'all'}\n")
        for pattern in plugin.declared:
            ignored = "  (ignored until trusted)" if pattern in plugin.ignored else ""
            out.write(f"     - {pattern.describe()}  {pattern.reason}{ignored}\n")
        for note in [*plugin.notes, plugin.ignored_note]:
            if note:
                out.write(f"     note: {note}\n")
        if plugin.error:
            out.write(f"     last load error (this is the last good version): {plugin.error}\n")
    for note in loaded.notes:
        out.write(f"note: {note}\n")
    for error in loaded.errors:
        out.write(f"error: {error}\n")


def builtin(as_json: bool, out: IO[str]) -> int:
    """The MCP servers guardtui knows and how it judges each of their tools."""
    from ..core.mcp.catalog import FALLBACK, describe_catalog, mcp_catalog

    servers = describe_catalog(mcp_catalog())
    if as_json:
        out.write(json.dumps({"mcp_servers": servers, "fallback": FALLBACK}, indent=2) + "\n")
        return 0
    out.write(f"MCP servers guardtui knows ({len(servers)}), matched by name or by their tools:\n")
    for server in servers:
        where = "remote: credentials in arguments deny" if server["remote"] else "on this machine"
        out.write(f"- {server['title']}  [{where}]  names: {', '.join(server['aliases'])}\n")
        for tool in server["tools"]:
            out.write(f"    {tool}\n")
    out.write(FALLBACK + "\n")
    return 0


def _standing(plugin: Plugin) -> str:
    if plugin.level == USER:
        return "[user]"
    return "[project, trusted]" if plugin.trusted else "[project, untrusted: may only tighten]"


def trust(file: str, locations: Locations, cwd: str, out: IO[str]) -> int:
    vouch = trust_skill if is_skill_file(file) else trust_plugin
    for line in vouch(file, locations, cwd):
        out.write(line + "\n")
    return 0
