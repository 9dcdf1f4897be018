"""Programs a command runs that sit in a directory it is pointed at, not on its command line:
`GIT_EXEC_PATH=DIR git fetch` (git runs DIR/git-remote-https and its other helpers from there) and
`kustomize build --enable-exec DIR` (the exec KRM functions DIR's transformers, generators and
validators name). Each program is read and judged as the file it is (later.py judges them with the
analysers that exist); a missing or unreadable one leaves the command its own verdict."""
from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator

from ..shell.projectfiles import read_text
from .base import resolve_path

MAX_PROGRAMS = 16  # a directory of helpers is judged up to this many files
MAX_KUSTOMIZATIONS = 24  # kustomization files followed from one build
_WORD = r"(?:\"[^\"]+\"|'[^']+'|[^\s;&|()]+)"
_GIT_EXEC_PATH = re.compile(rf"\bGIT_EXEC_PATH=(?P<d>{_WORD})(?=.*?\bgit\b)", re.S)
_KUSTOMIZE = re.compile(r"\b(?:kustomize\s+build|kubectl\s+kustomize)\b(?P<args>[^;&|\n]*)")
_EXEC_PATH = re.compile(r"(?m)^\s*exec:\s*\n\s*path:\s*['\"]?(?P<p>[^\s'\"]+)")
_LIST_KEYS = ("resources", "components", "transformers", "generators", "validators", "bases")
_KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_CD = re.compile(rf"(?:^|[;&|(\n]\s*)(?:cd|pushd)\s+(?P<d>{_WORD})")


def programs_run(command: str, cwd: str, home: str) -> Iterator[tuple[str, str]]:
    """(program path, what runs it) for each program the command runs from a directory it names."""
    for m in _GIT_EXEC_PATH.finditer(command):
        here = _cwd_at(command, m.start(), cwd, home)
        directory = resolve_path(m.group("d").strip("'\"").replace("${PWD}", here).replace("$PWD", here), here, home)
        for name in _listing(directory):
            yield posixpath.join(directory, name), f"GIT_EXEC_PATH makes git run its helpers from {directory}"
    for m in _KUSTOMIZE.finditer(command):
        words = m.group("args").split()
        if "--enable-exec" not in words:
            continue  # without it kustomize refuses to run exec functions
        operands = [w for w in words if not w.startswith("-")]
        start = resolve_path(operands[0].strip("'\"") if operands else ".", _cwd_at(command, m.start(), cwd, home), home)
        for program in _exec_functions(start):
            yield program, f"kustomize --enable-exec runs the exec function {program}"


def _cwd_at(command: str, position: int, cwd: str, home: str) -> str:
    """The directory the command is in at `position`, after the `cd DIR` before it (a subshell's cd and one
    whose directory is only known at run time are followed as written: a wrong guess only misses a program)."""
    for m in _CD.finditer(command, 0, position):
        cwd = resolve_path(m.group("d").strip("'\""), cwd, home)
    return cwd


def _listing(directory: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(directory) if os.path.isfile(posixpath.join(directory, n)))[:MAX_PROGRAMS]
    except OSError:
        return []


def _exec_functions(start: str) -> list[str]:
    """The exec functions' programs named by the kustomization at `start` and those it reaches."""
    programs: list[str] = []
    seen: set[str] = set()
    todo = [start]
    while todo and len(seen) < MAX_KUSTOMIZATIONS:
        directory = todo.pop()
        if directory in seen:
            continue
        seen.add(directory)
        text = next((t for t in (read_text(posixpath.join(directory, n)) for n in _KUSTOMIZATION_NAMES)
                     if t is not None), None)
        if text is None:
            continue
        for entry in _entries(text):
            path = posixpath.normpath(posixpath.join(directory, entry))
            if os.path.isdir(path):
                todo.append(path)
                continue
            content = read_text(path) or ""
            for p in _EXEC_PATH.finditer(content):
                program = posixpath.normpath(posixpath.join(posixpath.dirname(path), p.group("p")))
                if program not in programs:
                    programs.append(program)
    return programs[:MAX_PROGRAMS]


def _entries(text: str) -> Iterator[str]:
    """The local entries of a kustomization's lists (remote ones, URLs, are fetched, not run here)."""
    key = None
    for line in text.splitlines():
        head = re.match(r"^(\w+):\s*(.*)$", line)
        if head:
            key = head.group(1) if head.group(1) in _LIST_KEYS else None
            continue
        item = re.match(r"^\s*-\s+['\"]?([^\s'\"#]+)", line)
        if key and item and "://" not in item.group(1) and not item.group(1).startswith(("github.com/", "git@")):
            yield item.group(1)
