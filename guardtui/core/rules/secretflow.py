"""Secrets followed through the session: what the agent reads, and where it would send it.

A call that reads a secret file (Read, Grep, `cat .env`, an MCP file read) leaves the credential values in
it in the session's memory (in memory only: never audited, never written, bounded). A later call that
carries one of those values off the machine denies, whichever tool and wording it uses: a remote MCP tool
that posts, sends or creates (a Confluence page, an email, a comment), a WebFetch URL or a WebSearch query,
a network client's command line (curl data, gh, mail). So does a write into a folder a sync client mirrors
to other devices (Syncthing, Dropbox, OneDrive…: core/synced.py) of content that holds a credential (a
remembered value, a token shape, a secret setting), or a copy of a secret file there: the file leaves the
machine as surely as an upload. Other writes there are judged as before (outside the project: ask).

First in the order, so that every call's reads are remembered whatever rule decides it.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Iterator

from ..credroutes import is_config_file, routed
from ..mcp.catalog import mcp_catalog
from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from ..secrets import MAX_CONTENT_BYTES, secret_catalog
from ..synced import synced_folder
from ..yamlfile import DataError, read_regular_file
from .base import EvalContext, resolve_path
from .secrets import READERS, read_targets

_MAX_READS = 16
_MIN_VALUE = 8  # shorter values are too common to follow
# a command that sends its arguments over the network (a value on its command line goes with it)
_SENDER = re.compile(r"(?:^|[\s;&|(`]|\$\()(?:\S*/)?(curl|wget|http|https|xh|curlie|gh|glab|nc|ncat|netcat|socat|"
                     r"telnet|mail|mailx|sendmail|swaks|msmtp|mutt|ntfy|apprise|slack|aws\s+sns|twilio)\b")
# a secret store's own client handing it a value (gh secret set X --body …): where a credential is meant to go
_SECRET_STORE = re.compile(r"\b(?:gh|glab)\s+(?:secret|variable)\s+set\b")
_MCP_PATH_KEYS = ("path", "file_path", "filePath", "paths", "file", "filename", "absolute_path")


class SecretFlowRule:
    id = "secret-flow"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        try:
            self._remember_reads(call, ctx)
        except Exception:  # remembering must never break judging; the other rules judge the call
            pass
        return self._synced_write(call, ctx) or self._routed_config(call, ctx) or self._carried(call, ctx)

    # -- what the session reads -------------------------------------------------------------
    def _remember_reads(self, call: ToolCall, ctx: EvalContext) -> None:
        catalog = secret_catalog()
        paths: list[str] = []
        if call.tool in READERS:
            paths = [resolve_path(t, call.cwd, ctx.home) for t in read_targets(call, ctx.home)]
        elif call.is_shell and call.command.strip():
            paths = [e.path for e in ctx.shell(call).reads if e.path and not e.remote]
        elif call.tool.startswith("mcp__"):
            paths = [resolve_path(v, call.cwd, ctx.home) for k in _MCP_PATH_KEYS for v in _strings(call.input.get(k))
                     if "://" not in v]
        found: list[tuple[str, str]] = []
        for path in paths[:_MAX_READS]:
            if catalog.match(path, ctx.home) is None and catalog.read_reason(path, ctx.home, call.cwd or None) is None:
                continue  # neither a secret file nor a tool's settings holding credentials (config_places)
            try:
                data = read_regular_file(path, MAX_CONTENT_BYTES)
            except (OSError, DataError):
                continue
            if b"\x00" in data[:8192]:
                continue
            found += [(value, f"{name} in {path}") for name, value in catalog.secret_values(data.decode("utf-8", "replace"))
                      if len(value) >= _MIN_VALUE]
        if found:
            ctx.session.remember_secrets(found)

    # -- a synced folder written --------------------------------------------------------------
    def _synced_write(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        catalog = secret_catalog()
        if call.tool in WRITE_TOOLS and call.file_path:
            path = resolve_path(call.file_path, call.cwd, ctx.home)
            folder = synced_folder(path, ctx.home)
            if folder is None:
                return None
            text = "\n".join(_written_text(call.input))
            held = ctx.session.secret_in(text) or catalog.credentials_in_text(text)
            if held:
                return _deny(f"{call.tool} puts {_what(held)} into {path}, in {folder}, a folder a sync client "
                             f"mirrors to other devices: the secret leaves the machine")
            return None
        if not (call.is_shell and call.command.strip()):
            return None
        analysis = ctx.shell(call)
        for effect in analysis.effects:
            if effect.kind not in ("write", "copy") or not effect.path or effect.remote:
                continue
            folder = synced_folder(effect.path, ctx.home)
            if folder is None:
                continue
            held = None
            if effect.kind == "copy" and effect.source:
                entry = catalog.match(effect.source, ctx.home)
                if entry is not None:  # a .env by name: when it holds one; ~/.aws/credentials: by its place
                    held = catalog.credentials_in_file(effect.source) if entry.by_name or entry.content else \
                        entry.reason
            elif effect.content:
                held = ctx.session.secret_in(effect.content) or catalog.credentials_in_text(effect.content)
            if held:
                return _deny(f"the command puts {_what(held)} into {effect.path}, in {folder}, a folder a sync "
                             f"client mirrors to other devices: the secret leaves the machine")
        return None

    # -- a config file written that hands a token to a host that did not issue it ----------------------
    def _routed_config(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """`.npmrc` with `//mirror/:_authToken=${NPM_TOKEN}`, a requirements file with `${GITHUB_TOKEN}@pypi.mirror`:
        the package manager sends the token to that host on its next run (core/credroutes.py)."""
        written: list[tuple[str, str]] = []
        if call.tool in WRITE_TOOLS and call.file_path:
            written = [(resolve_path(call.file_path, call.cwd, ctx.home), "\n".join(_written_text(call.input)))]
        elif call.is_shell and call.command.strip():
            written = [(e.path, e.content) for e in ctx.shell(call).effects
                       if e.kind == "write" and e.path and not e.remote and e.content]
        for path, text in written:
            if not text or not is_config_file(path):
                continue
            where = routed(text, ctx.home, call.cwd or None)
            if where:
                return _deny(f"{call.tool} writes {path}, which sends {where}: the package manager or git hands "
                             f"the credential to a host that did not issue it")
        return None

    # -- a remembered value carried out ------------------------------------------------------------
    def _carried(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        session = ctx.session
        if not session.secret_values:
            return None
        where: str | None = None
        how = ""
        if call.tool == "WebFetch":
            where, how = session.secret_in(" ".join(_strings(call.input.get("url")) + _strings(call.input.get("prompt")))), \
                "in the URL it fetches"
        elif call.tool == "WebSearch":
            where, how = session.secret_in(" ".join(_strings(call.input.get("query")))), "to a search engine"
        elif call.tool.startswith("mcp__") and _mcp_sends(call.tool):
            where, how = session.secret_in("\n".join(_leaves(call.input))), "to the MCP server's service"
        elif call.is_shell and _SENDER.search(call.command) and not _SECRET_STORE.search(call.command):
            where, how = session.secret_in(call.command), "over the network"
        if where is None:
            return None
        return _deny(f"{call.tool} sends a credential the session read earlier ({where}) {how}: the secret "
                     f"leaves the machine")


def _deny(reason: str) -> Decision:
    return Decision(Verdict.DENY, reason, "secret-flow", BlastRadius.CRITICAL, "secrets")


def _what(held: str) -> str:
    return f"the value of {held}" if " in /" in held else held


def _mcp_sends(tool: str) -> bool:
    """A remote MCP tool that changes or sends something (not one that only reads, nor a local server's)."""
    catalog = mcp_catalog()
    found = catalog.identify(tool)
    if found.server is not None and not found.server.remote:
        return False
    effect = found.spec.effect if found.spec is not None and found.spec.effect else None
    cls = effect or (catalog.verb_class(found.tool) or ("change", ""))[0]
    return cls != "read"


def _written_text(tool_input: dict) -> Iterator[str]:
    for key in ("content", "new_string", "new_source", "text"):
        yield from _strings(tool_input.get(key))
    edits = tool_input.get("edits")
    if isinstance(edits, (list, tuple)):
        for edit in edits[:256]:
            if isinstance(edit, Mapping):
                yield from _strings(edit.get("new_string"))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value[:256] if isinstance(v, str)]
    return []


def _leaves(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < 8 and isinstance(value, Mapping):
        for item in list(value.values())[:256]:
            yield from _leaves(item, depth + 1)
    elif depth < 8 and isinstance(value, (list, tuple)):
        for item in value[:256]:
            yield from _leaves(item, depth + 1)
