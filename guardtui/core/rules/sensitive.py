"""Sensitive files: writes to secrets and keys (data/secrets.yaml), git config and hooks. (The guard's
own configuration and the agents' hook settings are the protection rule's: rules/protect.py.)"""
from __future__ import annotations

import fnmatch
import posixpath

from ..catalog import sensitive_patterns
from ..secrets import secret_catalog
from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from .base import EvalContext, resolve_path


class SensitiveFileRule:
    id = "sensitive"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        targets: list[tuple[str, str, str, str]] = []  # (path, verb, segment, the project file that does it)
        if call.tool in WRITE_TOOLS and call.file_path:
            targets.append((resolve_path(call.file_path, call.cwd, ctx.home), "writes", "", ""))
        elif call.is_shell and call.command.strip():
            analysis = ctx.shell(call)
            for effect in analysis.writes + analysis.deletes:
                if effect.path and not effect.remote:
                    targets.append((effect.path, "deletes" if effect.kind == "delete" else "writes", effect.segment,
                                    effect.origin))
        for path, verb, segment, origin in targets:
            reason = self.why(path, ctx)
            if reason:
                where = f" ({origin})" if origin else ""
                return Decision(Verdict.ASK, f"{call.tool} {verb} {path}{where}: {reason}", self.id,
                                BlastRadius.HIGH, "sensitive-file", {"path": path, "segment": segment,
                                                                     "origin": origin})
        return None

    @staticmethod
    def why(path: str, ctx: EvalContext) -> str | None:
        secret = secret_catalog().match(path, ctx.home)  # the secrets every tool shares (data/secrets.yaml)
        if secret is not None:
            return secret.reason
        name = posixpath.basename(path)
        for pattern in sensitive_patterns():
            if pattern.name and fnmatch.fnmatchcase(name, pattern.name):
                return pattern.reason
            if pattern.path and fnmatch.fnmatchcase(path, pattern.path):
                return pattern.reason
        return None
