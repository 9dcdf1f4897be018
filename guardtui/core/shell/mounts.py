"""Paths seen from inside a container, sandbox or VM, mapped back to the host: what cmd_containers (docker -v),
cmd_compose and cmd_sandbox (apptainer -B, bwrap --bind, multipass mount) judge a command run inside by."""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from .words import Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation


def host_path(path: str, inv: "Invocation") -> str:
    """A mount's host side as an absolute path (`~`, `$HOME` and relative spellings resolved)."""
    if path.startswith("~"):
        path = inv.scope.home + path[1:]
    elif path.startswith("$HOME"):
        path = inv.scope.home + path[5:]
    if not path.startswith("/"):
        path = posixpath.join(inv.scope.cwd or "/", path)
    return posixpath.normpath(path)


def to_host(word: Word, mounts: list[tuple[str, str]]) -> Word:
    """Paths under a mount's target become host paths, in words and inside script strings (`sh -c ': >
    /mnt/etc/passwd'`); the longest target first."""
    value = word.value
    for target, host in sorted(mounts, key=lambda m: -len(m[0])):
        if target == host:
            continue
        if value == target or value.startswith(target.rstrip("/") + "/"):
            mapped = host.rstrip("/") + value[len(target.rstrip("/")):] or "/"
            return Word(posixpath.normpath(mapped), word.raw, word.quoted, word.glob)
        pattern = r"(?<![\w/.-])" + re.escape(target.rstrip("/")) + r"(?=/|\s|$|['\";)])"
        if " " in value and re.search(pattern, value):
            value = re.sub(pattern, lambda _m: host.rstrip("/") or "/", value)
    return word if value == word.value else Word(value, word.raw, word.quoted, word.glob)
