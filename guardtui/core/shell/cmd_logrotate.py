"""logrotate CONFIG…: the files its configuration rotates (renamed, truncated, recreated or, with `rotate 0`,
removed) are written, and its prerotate/postrotate/firstaction/lastaction scripts run as shell. Read at judging
time from the files (and `include`d ones) the command names; `-d` only shows what it would do."""
from __future__ import annotations

import glob
import os
import posixpath
import re
from typing import TYPE_CHECKING

from .findings import Finding
from .projectfiles import read_text

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

MAX_FILES = 16
_SCRIPT_START = re.compile(r"^\s*(prerotate|postrotate|firstaction|lastaction|preremove)\s*$")
_VALUE_OPTIONS = {"-s", "--state", "-l", "--log", "-m", "--mail"}


def logrotate(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    if any(w.value in ("-d", "--debug", "--usage", "--version", "-?", "--help") for w in words):
        return []
    configs, i = [], 0
    while i < len(words):
        value = words[i].value
        if value in _VALUE_OPTIONS and i + 1 < len(words):
            info = run.path(words[i + 1], inv)
            if value in ("-s", "--state", "-l", "--log") and info.path:
                run.effect(info.path, words[i + 1].display(), "write", inv.cmd, info.remote)
            i += 2
            continue
        if not value.startswith("-") and not words[i].dynamic:
            configs.append(run.path(words[i], inv).path)
        i += 1
    budget = [MAX_FILES]
    for config in configs:
        if config:
            for path, script in _rotations(config, budget):
                if path is not None:
                    run.effect(path, path, "write", inv.cmd, False, detail="rotated")
                if script:
                    run.nested(script, inv, f"logrotate {posixpath.basename(config)}")
    return []


def _rotations(config: str, budget: list[int]) -> list[tuple[str | None, str]]:
    """(a file rotated, "") and (None, a script it runs) for a configuration file or directory."""
    files = sorted(glob.glob(posixpath.join(config, "*")))[:MAX_FILES] if os.path.isdir(config) else [config]
    out: list[tuple[str | None, str]] = []
    for file in files:
        if budget[0] <= 0:
            break
        budget[0] -= 1
        text = read_text(file)
        if text is None:
            continue
        base = posixpath.dirname(file)
        script: list[str] | None = None
        for line in text.splitlines():
            stripped = line.strip()
            if script is not None:
                if stripped == "endscript":
                    out.append((None, "\n".join(script)))
                    script = None
                else:
                    script.append(line)
                continue
            if _SCRIPT_START.match(line):
                script = []
                continue
            include = re.match(r"^include\s+(\S+)", stripped)
            if include:
                out += _rotations(posixpath.join(base, include.group(1)), budget)
                continue
            head = stripped.partition("{")[0] if "{" in stripped else ""
            for pattern in head.split():
                pattern = pattern.strip("\"'")
                if pattern.startswith("/"):
                    matched = sorted(glob.glob(pattern))[:MAX_FILES] if any(c in pattern for c in "*?[") else [pattern]
                    out += [(p, "") for p in matched]
    return out

