"""Sensitive files: writes to secrets and keys (data/secrets.yaml), git config and hooks. (The guard's
own configuration and the agents' hook settings are the protection rule's: rules/protect.py.)"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import shlex

from ..catalog import SensitivePattern, sensitive_patterns
from ..secrets import secret_catalog
from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from ..shell.projectfiles import language_of, read_text
from .base import EvalContext, resolve_path
from .later_kinds import RUNNERS


class SensitiveFileRule:
    id = "sensitive"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        # (path, verb, segment, the project file that does it, the file copied or linked there)
        targets: list[tuple[str, str, str, str, str | None]] = []
        if call.tool in WRITE_TOOLS and call.file_path:
            targets.append((resolve_path(call.file_path, call.cwd, ctx.home), "writes", "", "", None))
        elif call.is_shell and call.command.strip():
            analysis = ctx.shell(call)
            for effect in analysis.writes + analysis.deletes:
                if effect.path and not effect.remote:
                    source = effect.source if effect.kind in ("copy", "link") else None
                    targets.append((effect.path, "deletes" if effect.kind == "delete" else "writes", effect.segment,
                                    effect.origin, source))
        for path, verb, segment, origin, source in targets:
            pattern = self.pattern_of(path, ctx)
            reason = pattern.reason if pattern is not None else None
            if reason and pattern.own_copies and source and self._own_routine(call, ctx, path, source):
                continue
            if reason:
                where = f" ({origin})" if origin else ""
                return Decision(Verdict.ASK, f"{call.tool} {verb} {path}{where}: {reason}", self.id,
                                BlastRadius.HIGH, "sensitive-file", {"path": path, "segment": segment,
                                                                     "origin": origin})
        return None

    @staticmethod
    def pattern_of(path: str, ctx: EvalContext) -> SensitivePattern | None:
        secret = secret_catalog().match(path, ctx.home)  # the secrets every tool shares (data/secrets.yaml)
        if secret is not None:
            return SensitivePattern(None, path, secret.reason)
        name = posixpath.basename(path)
        for pattern in sensitive_patterns():
            if pattern.name and fnmatch.fnmatchcase(name, pattern.name):
                return pattern
            if pattern.path and fnmatch.fnmatchcase(path, pattern.path):
                return pattern
        return None

    @staticmethod
    def _own_routine(call: ToolCall, ctx: EvalContext, path: str, source: str) -> bool:
        """`source` is a regular file of the repository `path` lies in (outside its .git), and running it
        there would be allowed: the project installs its own hook."""
        root, marker, _ = path.partition("/.git/")
        if not marker or not source.startswith(root.rstrip("/") + "/") or "/.git/" in source + "/" or \
                os.path.islink(source) or not os.path.isfile(source) or \
                os.path.realpath(source) != os.path.normpath(source):
            return False
        text = read_text(source)
        language = language_of(source, text) if text is not None else None
        if text is None or language not in ("shell", *RUNNERS):
            return False  # a binary, or a language the guard cannot read: a person looks
        runner = "sh" if language == "shell" else RUNNERS[language]
        decision = ctx.judge(ToolCall("Bash", {"command": f"{runner} {shlex.quote(source)}"}, root, agent=call.agent,
                                      session=call.session, event=call.event, mode=call.mode))
        return decision is not None and decision.verdict is Verdict.ALLOW
