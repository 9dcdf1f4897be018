"""Trusted project plugins: the SHA-256 of the exact content the person vouched for, by path.

A project plugin is written by the agent it guards, so its `allow` patterns are ignored
until the person runs `guardtui trust FILE`; any later edit changes the hash and revokes it.
The store is JSON in the user's config dir, mode 0600, written atomically.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..yamlfile import DataError, read_text_file

TRUST_MAX_BYTES = 8 << 20  # one line per trusted file

_HEX = frozenset("0123456789abcdef")


def trust_key(file: str | Path) -> str:
    return os.path.abspath(os.fspath(file))


def read_trust(store: Path) -> dict[str, str]:
    """path -> sha256. No file: nothing trusted. A damaged file raises DataError (nothing is trusted)."""
    try:
        text = read_text_file(store, TRUST_MAX_BYTES)
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(str(store), exc.lineno, "", f"invalid JSON: {exc.msg}") from None
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        raise DataError(str(store), None, "plugins", "must be a mapping of file path to SHA-256")
    for path, sha in plugins.items():
        if not (isinstance(sha, str) and len(sha) == 64 and set(sha) <= _HEX):
            raise DataError(str(store), None, f"plugins.{path}", "must be a SHA-256 in hex")
    return dict(plugins)


def store_trust(store: Path, file: str | Path, sha256: str) -> None:
    """Trust `sha256` for `file`, keeping every other entry. Refuses to overwrite a damaged store."""
    entries = read_trust(store)
    entries[trust_key(file)] = sha256
    store.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=store.parent, prefix=".trusted-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), 0o600)
            json.dump({"version": 1, "plugins": dict(sorted(entries.items()))}, out, indent=2)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, store)
    except BaseException:
        os.unlink(tmp)
        raise
