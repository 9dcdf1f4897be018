"""Secrets read by the file tools: Read, NotebookRead and Grep of a key or credential outside
the project ask, as `cat` of it does (the list: data/secrets.yaml, one for every tool). LS and
Glob only list names, which hold no secret."""
from __future__ import annotations

import glob
import os
from typing import Iterator

from ..model import BlastRadius, Decision, ToolCall, Verdict
from ..secrets import secret_catalog
from .base import EvalContext, is_within, resolve_path

READERS = frozenset({"Read", "NotebookRead", "Grep"})
# where the file tools of every agent name what they read (Gemini: absolute_path, dir_path, paths)
_PATH_KEYS = ("file_path", "notebook_path", "path", "absolute_path", "dir_path", "filePath")
_LIST_KEYS = ("paths", "file_paths")


_GLOB_KEYS = ("include", "paths", "patterns")  # Gemini's read_many_files: globs, matched on disk
_MAX_MATCHES = 256


def read_targets(call: ToolCall, home: str = "") -> Iterator[str]:
    for key in _PATH_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value.strip():
            yield value
    for key in _LIST_KEYS:
        value = call.input.get(key)
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, str) and v.strip())
    for key in _GLOB_KEYS:  # a glob reads what it matches, as the tool would find it now
        value = call.input.get(key)
        for pattern in ([value] if isinstance(value, str) else value if isinstance(value, list) else []):
            if isinstance(pattern, str) and glob.has_magic(pattern):
                yield from _matches(resolve_path(pattern, call.cwd, home or os.path.expanduser("~")))


def _matches(pattern: str) -> Iterator[str]:
    for n, match in enumerate(glob.iglob(pattern, recursive=True, include_hidden=True)):
        if n >= _MAX_MATCHES:
            return
        yield match


class SecretReadRule:
    id = "secrets"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if call.tool not in READERS:
            return None
        catalog = secret_catalog()
        for target in read_targets(call, ctx.home):
            path = resolve_path(target, call.cwd, ctx.home)
            reason = catalog.read_reason(path, ctx.home, call.cwd or None)
            if reason is None and call.tool == "Grep":
                reason = _searched_area(path, ctx)
            if reason:
                where = "a live credential in a project file: reading it puts it in the agent's context" \
                    if call.cwd and is_within(path, call.cwd) else "a secret outside the project"
                return Decision(Verdict.ASK, f"{call.tool} of {path}: {reason} ({where})",
                                f"{self.id}/read", BlastRadius.MEDIUM, "sensitive-read", {"path": path})
        return None


def _searched_area(path: str, ctx: EvalContext) -> str | None:
    """Grep through a directory of keys (~/.aws) or a whole home directory prints what is in them."""
    if secret_catalog().in_area(path, ctx.home):
        return "a directory of keys and credentials"
    home = ctx.home.rstrip("/")
    if path in ("/", "/home", "/Users", "/root") or (home and path == home):
        return "the search reads every file in a home directory, keys and credentials included"
    return None


__all__ = ["SecretReadRule", "read_targets", "is_within"]
