"""An MCP server the agents' configuration binds to something of the guard's: a sqlite server started with
`--db-path ~/.local/state/guardtui/audit.db`, a filesystem server rooted in guardtui's config dir. Its tool
arguments never name the file, so the server's configuration is read (the project's .mcp.json, Claude Code's
~/.claude.json, Cursor's and Gemini's settings, Codex's config.toml) and a path it names is checked against
what the guard protects. Read at judging time, bounded."""
from __future__ import annotations

import json
import posixpath
import re
import tomllib
from typing import Any, Iterator

from ..shell.projectfiles import read_text
from .catalog import normalise_server

_PROJECT_FILES = (".mcp.json", ".cursor/mcp.json", ".gemini/settings.json", ".vscode/mcp.json")
_USER_FILES = ("~/.claude.json", "~/.cursor/mcp.json", "~/.gemini/settings.json", "~/.codeium/windsurf/mcp_config.json")
_CODEX = "~/.codex/config.toml"
_PATHISH = re.compile(r"^(?:[~/]|\.{1,2}/|\$HOME\b|\$\{HOME\})")


def bound_paths(server: str, root: str | None, home: str) -> Iterator[str]:
    """Paths (absolute) the configuration of the server named `server` gives it as arguments or environment."""
    wanted = normalise_server(server)
    files = [posixpath.join(root, f) for f in _PROJECT_FILES] if root else []
    files += [home + f[1:] for f in _USER_FILES]
    for file in files:
        text = read_text(file)
        if not text or "mcpServers" not in text and "servers" not in text:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        for config in _servers_in(data, root):
            for name, entry in config.items():
                if normalise_server(str(name)) == wanted and isinstance(entry, dict):
                    yield from _paths(entry, root or home, home)
    text = read_text(home + _CODEX[1:])
    if text and "mcp_servers" in text:
        try:
            servers = tomllib.loads(text).get("mcp_servers") or {}
        except tomllib.TOMLDecodeError:
            servers = {}
        for name, entry in servers.items():
            if normalise_server(str(name)) == wanted and isinstance(entry, dict):
                yield from _paths(entry, root or home, home)


def _servers_in(data: Any, root: str | None) -> Iterator[dict]:
    if not isinstance(data, dict):
        return
    for key in ("mcpServers", "servers"):
        if isinstance(data.get(key), dict):
            yield data[key]
    projects = data.get("projects")  # ~/.claude.json: the servers of each project
    if root and isinstance(projects, dict) and isinstance(projects.get(root), dict):
        inner = projects[root].get("mcpServers")
        if isinstance(inner, dict):
            yield inner


def _paths(entry: dict, base: str, home: str) -> Iterator[str]:
    values = [a for a in entry.get("args") or [] if isinstance(a, str)]
    env = entry.get("env")
    if isinstance(env, dict):
        values += [v for v in env.values() if isinstance(v, str)]
    for value in values:
        for piece in [value, value.partition("=")[2]]:  # --db-path=/x as one word
            if piece and _PATHISH.match(piece):
                path = piece.replace("${HOME}", home).replace("$HOME", home)
                path = home + path[1:] if path.startswith("~") else path
                yield posixpath.normpath(posixpath.join(base, path))
