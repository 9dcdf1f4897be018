"""An MCP server the agents' configuration binds to something of the guard's: a sqlite server started with
`--db-path ~/.local/state/guardtui/audit.db`, a filesystem server rooted in guardtui's config dir. Its tool
arguments never name the file, so the server's configuration is read (the project's .mcp.json, Claude Code's
~/.claude.json, Cursor's and Gemini's settings, Codex's config.toml) and a path it names is checked against
what the guard protects. Read at judging time, bounded."""
from __future__ import annotations

import json
import os
import posixpath
import re
import tomllib
from functools import lru_cache
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
        data = _parsed(file, "json")
        for config in _servers_in(data, root):
            for name, entry in config.items():
                if normalise_server(str(name)) == wanted and isinstance(entry, dict):
                    yield from _paths(entry, root or home, home)
    codex = _parsed(home + _CODEX[1:], "toml")
    servers = codex.get("mcp_servers") if isinstance(codex, dict) else None
    for name, entry in (servers if isinstance(servers, dict) else {}).items():
        if normalise_server(str(name)) == wanted and isinstance(entry, dict):
            yield from _paths(entry, root or home, home)


def bound_targets(server: str, root: str | None, home: str) -> tuple[list[str], list[str]] | None:
    """The database files (absolute paths) and connection URLs the configuration of the server named `server`
    gives it, or None when no configuration of it is found here (where it points is not known)."""
    wanted = normalise_server(server)
    files = [posixpath.join(root, f) for f in _PROJECT_FILES] if root else []
    files += [home + f[1:] for f in _USER_FILES]
    entries = []
    for file in files:
        for config in _servers_in(_parsed(file, "json"), root):
            entries += [e for n, e in config.items() if normalise_server(str(n)) == wanted and isinstance(e, dict)]
    codex = _parsed(home + _CODEX[1:], "toml")
    servers = codex.get("mcp_servers") if isinstance(codex, dict) else None
    entries += [e for n, e in (servers if isinstance(servers, dict) else {}).items()
                if normalise_server(str(n)) == wanted and isinstance(e, dict)]
    if not entries:
        return None
    paths, urls = [], []
    for entry in entries:
        paths += list(_paths(entry, root or home, home))
        values = [a for a in entry.get("args") or [] if isinstance(a, str)]
        env = entry.get("env")
        values += [v for v in env.values() if isinstance(v, str)] if isinstance(env, dict) else []
        urls += [v.partition("=")[2] if "=" in v.split("://")[0] else v for v in values if "://" in v]
        for i, value in enumerate(values):  # --db-path app.db: a bare file name is a path too
            m = re.match(r"^--?(?:db|db-path|database|db_path|file|path)(?:=(.+)|$)", value)
            given = (m.group(1) or (values[i + 1] if i + 1 < len(values) else None)) if m else None
            if given and not _PATHISH.match(given) and "://" not in given:
                paths.append(posixpath.normpath(posixpath.join(root or home, given)))
    return paths, urls


def _parsed(file: str, kind: str) -> Any:
    """A configuration file parsed, once per version of it on disk (these are read on every MCP call that changes
    something, and ~/.claude.json grows large): None when missing, unreadable or not the format."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    return _parse(file, kind, st.st_mtime_ns, st.st_size, st.st_ino)


@lru_cache(maxsize=32)
def _parse(file: str, kind: str, _mtime: int, _size: int, _inode: int) -> Any:
    text = read_text(file)
    if not text or ("mcp_servers" if kind == "toml" else "ervers") not in text:
        return None
    try:
        return tomllib.loads(text) if kind == "toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError):
        return None


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
