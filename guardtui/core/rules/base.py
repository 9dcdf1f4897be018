"""What a rule is, and what it is handed when it judges a call."""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol

from ..model import Decision, ToolCall

if TYPE_CHECKING:  # pragma: no cover
    from ..protect import Protected
    from ..session import SessionState
    from ..shell.findings import ShellAnalysis


class Rule(Protocol):
    """A rule returns a Decision, or None to abstain (no opinion: the next rule decides)."""

    id: str

    def evaluate(self, call: ToolCall, ctx: "EvalContext") -> Decision | None: ...


@dataclass
class EvalContext:
    session: "SessionState"
    home: str
    analyze_shell: Callable[[str, str], "ShellAnalysis"]
    temp_dirs: tuple[str, ...] = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm")
    # what guards the agent (hook settings, guardtui's config, plugins, …) for this call:
    # `ctx.protected.match(path, cwd)` says whether a path reaches it, by any spelling or link
    protected: "Protected | None" = None
    _shell: "ShellAnalysis | None" = field(default=None, repr=False)
    # every rule judging a call another call amounts to (tool equivalence: an MCP read_file is a Read)
    judge_call: "Callable[[ToolCall, EvalContext], Decision] | None" = field(default=None, repr=False)
    depth: int = 0  # how many equivalences deep this evaluation is
    _memo: dict = field(default_factory=dict, repr=False)

    def shell(self, call: ToolCall) -> "ShellAnalysis":
        """The shell analysis of this call's command, computed once per evaluation."""
        if self._shell is None:
            self._shell = self.analyze_shell(call.command, call.cwd)
        return self._shell

    def judge(self, call: ToolCall) -> Decision | None:
        """Every rule's decision on `call`, a call the one being judged amounts to; None when this
        context cannot judge another call (then the caller falls back to its own judgement)."""
        if self.judge_call is None:
            return None
        return self.judge_call(call, self)

    def memo(self, key: str, compute: Callable[[], object]) -> object:
        """A value computed once per evaluation (a rule before the plugins and the default rule
        after them share one judgement)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


def resolve_path(path: str, cwd: str, home: str) -> str:
    if path.startswith("~"):
        path = home + path[1:]
    if not path.startswith("/"):
        path = posixpath.join(cwd or "/", path)
    return posixpath.normpath(path)


def is_within(path: str, base: str) -> bool:
    base = base.rstrip("/") or "/"
    return path == base or path.startswith(base + "/") or base == "/"


def temp_dirs_from_env() -> tuple[str, ...]:
    dirs = ["/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm"]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and tmpdir.startswith("/") and tmpdir.rstrip("/") not in ("", "/"):
        dirs.append(posixpath.normpath(tmpdir))
    return tuple(dirs)
