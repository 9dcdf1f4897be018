"""Sensitive files: writes to secrets and keys (data/secrets.yaml), git config and hooks. (The guard's
own configuration and the agents' hook settings are the protection rule's: rules/protect.py.)"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shlex

from ..catalog import sensitive_patterns
from ..infra import foreign_keys
from ..secrets import MAX_CONTENT_BYTES, secret_catalog
from ..shell.words import DYN
from ..yamlfile import DataError, read_regular_file
from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from ..shell.projectfiles import language_of, read_text
from .base import EvalContext, is_within, resolve_path
from .later_kinds import RUNNERS


class SensitiveFileRule:
    id = "sensitive"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        # (path, verb, segment, the project file that does it, the text it puts there when known, the file
        # copied or linked there)
        targets: list[tuple[str, str, str, str, str | None, str | None]] = []
        if call.tool in WRITE_TOOLS and call.file_path:
            path = resolve_path(call.file_path, call.cwd, ctx.home)
            targets.append((path, "writes", "", "", _written(call, path), None))
        elif call.is_shell and call.command.strip():
            analysis = ctx.shell(call)
            for effect in analysis.writes + analysis.deletes:
                if effect.path and not effect.remote:
                    text = effect.content if effect.kind == "write" and effect.content is not None \
                        and DYN not in effect.content else None
                    source = effect.source if effect.kind in ("copy", "link") else None
                    targets.append((effect.path, "deletes" if effect.kind == "delete" else "writes", effect.segment,
                                    effect.origin, _with_disk(effect.path, text) if text is not None else None,
                                    source))
        for path, verb, segment, origin, text, source in targets:
            key = foreign_keys(text, ctx.home) if text and path.endswith(("/.ssh/authorized_keys",
                                                                            "/.ssh/authorized_keys2")) else None
            if key is not None:
                return Decision(Verdict.DENY, f"{call.tool} adds a key the person does not hold ({key}) to {path}: "
                                f"whoever holds its private half logs in to this machine", self.id,
                                BlastRadius.CRITICAL, "privilege", {"path": path})
            reason = self.why(path, ctx, text, call.cwd or "")
            if reason and source and self._own_copy_allowed(path, ctx) and self._own_routine(call, ctx, path, source):
                continue
            if reason:
                where = f" ({origin})" if origin else ""
                return Decision(Verdict.ASK, f"{call.tool} {verb} {path}{where}: {reason}", self.id,
                                BlastRadius.HIGH, "sensitive-file", {"path": path, "segment": segment,
                                                                     "origin": origin})
        return None

    @staticmethod
    def why(path: str, ctx: EvalContext, text: str | None = None, cwd: str = "") -> str | None:
        """Why writing `path` asks; `text`: what the file holds once written, when known (a pattern that asks
        only for credentials lets a write through whose text holds none)."""
        name = posixpath.basename(path)
        matched = [p for p in sensitive_patterns() if p.name and fnmatch.fnmatchcase(name, p.name) or
                   p.path and fnmatch.fnmatchcase(path, p.path)]
        if text is not None and matched and all(p.credentials_only for p in matched) and \
                cwd and is_within(path, cwd) and posixpath.dirname(path) != ctx.home.rstrip("/") and \
                not names_a_credential(text):
            return None  # a project's registry settings that carry no credential
        secret = secret_catalog().match(path, ctx.home)  # the secrets every tool shares (data/secrets.yaml)
        if secret is not None:
            return secret.reason
        return matched[0].reason if matched else None

    @staticmethod
    def _own_copy_allowed(path: str, ctx: EvalContext) -> bool:
        """Does every pattern `path` matches let the project's own file be copied or linked there (never a
        secret's path)?"""
        if secret_catalog().match(path, ctx.home) is not None:
            return False
        name = posixpath.basename(path)
        matched = [p for p in sensitive_patterns() if p.name and fnmatch.fnmatchcase(name, p.name) or
                   p.path and fnmatch.fnmatchcase(path, p.path)]
        return bool(matched) and all(p.own_copies for p in matched)

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


# a setting that carries a credential (npm's _authToken/_auth/_password, yarn's npmAuthToken, a password or token
# key) or a variable that holds one
_CREDENTIAL_SETTING = re.compile(r"(?im)(?:^|[\s:/;])(?:_authToken|_auth|_password|npmAuthToken|npmAuthIdent|"
                                 r"password|passwd|token|secret|email)\s*[=:]|\$\{?[A-Z_]*(?:TOKEN|SECRET|PASSWORD|"
                                 r"PASS|AUTH|KEY)\b")


def names_a_credential(text: str) -> bool:
    """Does a config file's text hold a credential, or name a setting or variable that carries one?"""
    return bool(_CREDENTIAL_SETTING.search(text)) or secret_catalog().credentials_in_text(text) is not None


def _written(call: ToolCall, path: str) -> str | None:
    """The file's text after a Write (its content) or an edit (the file on disk with the new text beside it:
    what the edit may add to what is there): None when not known."""
    content = call.input.get("content")
    if call.tool == "Write" and isinstance(content, str):
        return content
    pieces = [v for k in ("new_string", "content", "new_source") for v in [call.input.get(k)] if isinstance(v, str)]
    edits = call.input.get("edits")
    if isinstance(edits, list):
        pieces += [e.get("new_string") for e in edits[:256] if isinstance(e, dict) and isinstance(e.get("new_string"), str)]
    return _with_disk(path, "\n".join(pieces)) if pieces else None


def _with_disk(path: str, text: str) -> str | None:
    try:
        data = read_regular_file(path, MAX_CONTENT_BYTES)
    except FileNotFoundError:
        return text
    except (OSError, DataError):
        return None
    return data.decode("utf-8", "replace") + "\n" + text
