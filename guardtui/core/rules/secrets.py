"""Secrets read by the file tools: Read, NotebookRead and Grep of a key or credential outside
the project ask, as `cat` of it does (the list: data/secrets.yaml, one for every tool). LS and
Glob only list names, which hold no secret."""
from __future__ import annotations

from typing import Iterator

from ..model import BlastRadius, Decision, ToolCall, Verdict
from ..secrets import secret_catalog
from .base import EvalContext, is_within, resolve_path

READERS = frozenset({"Read", "NotebookRead", "Grep"})
# where the file tools of every agent name what they read (Gemini: absolute_path, dir_path, paths)
_PATH_KEYS = ("file_path", "notebook_path", "path", "absolute_path", "dir_path", "filePath")
_LIST_KEYS = ("paths", "file_paths")


def read_targets(call: ToolCall) -> Iterator[str]:
    for key in _PATH_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value.strip():
            yield value
    for key in _LIST_KEYS:
        value = call.input.get(key)
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, str) and v.strip())


class SecretReadRule:
    id = "secrets"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if call.tool not in READERS:
            return None
        catalog = secret_catalog()
        for target in read_targets(call):
            path = resolve_path(target, call.cwd, ctx.home)
            reason = catalog.read_reason(path, ctx.home, call.cwd or None)
            if reason is None and call.tool == "Grep":
                reason = _searched_area(path, ctx)
            if reason:
                return Decision(Verdict.ASK, f"{call.tool} of {path}: {reason} (a secret outside the project)",
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
