"""Sensitive files: writes to secrets and keys (data/secrets.yaml), git config and hooks. (The guard's
own configuration and the agents' hook settings are the protection rule's: rules/protect.py.)"""
from __future__ import annotations

import fnmatch
import posixpath
import re

from ..catalog import sensitive_patterns
from ..infra import foreign_keys
from ..secrets import MAX_CONTENT_BYTES, secret_catalog
from ..shell.words import DYN
from ..yamlfile import DataError, read_regular_file
from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from .base import EvalContext, is_within, resolve_path


class SensitiveFileRule:
    id = "sensitive"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        # (path, verb, segment, the project file that does it, the text it puts there when known)
        targets: list[tuple[str, str, str, str, str | None]] = []
        if call.tool in WRITE_TOOLS and call.file_path:
            path = resolve_path(call.file_path, call.cwd, ctx.home)
            targets.append((path, "writes", "", "", _written(call, path)))
        elif call.is_shell and call.command.strip():
            analysis = ctx.shell(call)
            for effect in analysis.writes + analysis.deletes:
                if effect.path and not effect.remote:
                    text = effect.content if effect.kind == "write" and effect.content is not None \
                        and DYN not in effect.content else None
                    targets.append((effect.path, "deletes" if effect.kind == "delete" else "writes", effect.segment,
                                    effect.origin, _with_disk(effect.path, text) if text is not None else None))
        for path, verb, segment, origin, text in targets:
            key = foreign_keys(text, ctx.home) if text and path.endswith(("/.ssh/authorized_keys",
                                                                            "/.ssh/authorized_keys2")) else None
            if key is not None:
                return Decision(Verdict.DENY, f"{call.tool} adds a key the person does not hold ({key}) to {path}: "
                                f"whoever holds its private half logs in to this machine", self.id,
                                BlastRadius.CRITICAL, "privilege", {"path": path})
            reason = self.why(path, ctx, text, call.cwd or "")
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
