"""What git would do to one file, read from the repository on disk (git itself is never run: a
repository's config can make git run programs).

    status(path) -> "tracked" | "modified" | "untracked" | "ignored" | None (not in a repository,
                    or the index cannot be read)
    current_branch(gitdir) -> "main" | None (detached HEAD, or unreadable)
    branch_after("switch", ["-c", "fix"]) -> "fix" (the branch a checkout or switch leaves HEAD on)

`git checkout .`, `restore`, `stash` and `reset --hard` put back tracked files that changed;
`git clean` and `stash -u/-a` remove untracked (and ignored) ones. The index (versions 2 and 3)
gives each tracked file's size and modification time, which is how git itself tells a changed
file without hashing it. Ignore rules are read from .gitignore files and info/exclude (plain
patterns, negation and directory rules; enough to tell whether a settings file is ignored).
"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import struct
from functools import lru_cache

MAX_INDEX = 64 * 1024 * 1024


def repository(path: str) -> tuple[str, str] | None:
    """(work tree root, git dir) of the repository holding `path`, if any. As git does, the search
    never goes up into a directory listed in GIT_CEILING_DIRECTORIES."""
    d = path if os.path.isdir(path) else posixpath.dirname(path)
    ceilings = {posixpath.normpath(c) for c in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":")
                if c.startswith("/")}
    while True:
        dot = posixpath.join(d, ".git")
        if os.path.isdir(dot):
            return d, dot
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8", errors="replace") as fh:
                    line = fh.read(4096).strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                gitdir = line[7:].strip()
                return d, gitdir if gitdir.startswith("/") else posixpath.normpath(posixpath.join(d, gitdir))
            return None
        parent = posixpath.dirname(d)
        if parent == d or parent in ceilings:
            return None
        d = parent


def current_branch(gitdir: str) -> str | None:
    """The branch HEAD names (`ref: refs/heads/main` → "main"), or None: detached, or unreadable."""
    try:
        with open(posixpath.join(gitdir, "HEAD"), "rb") as fh:
            line = fh.read(1024).decode("utf-8", "replace").strip()
    except OSError:
        return None
    return line[len("ref: refs/heads/"):] if line.startswith("ref: refs/heads/") else None


def branch_after(subcommand: str, args: list[str]) -> str | None:
    """The branch `git checkout|switch ARGS` leaves HEAD on: "" when HEAD ends detached or the branch
    cannot be told (`checkout -`, a commit, a tag, a remote-tracking name), None when the command
    does not move HEAD (it restores files)."""
    created = {"checkout": ("-b", "-B", "--orphan"), "switch": ("-c", "-C", "--create", "--force-create",
                                                                "--orphan")}.get(subcommand)
    if created is None:
        return None
    positionals = []
    for i, a in enumerate(args):
        if a == "--":
            return None if subcommand == "checkout" else ""  # checkout … -- paths restores files
        if a in created:
            return args[i + 1] if i + 1 < len(args) else ""
        if a.partition("=")[0] in created and "=" in a:
            return a.partition("=")[2]
        if a in ("--detach", "-d") or (subcommand == "checkout" and a == "--detach"):
            return ""
        if not a.startswith("-") or a == "-":
            positionals.append(a)
    if not positionals:
        return None
    target = positionals[0]
    if subcommand == "checkout" and len(positionals) > 1:
        return None  # checkout REV PATHS restores files
    if target == "-" or re.fullmatch(r"[0-9a-f]{7,40}|v?\d+(\.\d+)+\S*|(HEAD|@)([~^]\d*)*", target) or \
            re.match(r"(origin|upstream)/", target):
        return ""
    return target


def status(path: str) -> str | None:
    repo = repository(path)
    if repo is None:
        return None
    root, gitdir = repo
    rel = posixpath.relpath(path, root)
    entries = _index(posixpath.join(gitdir, "index"))
    if entries is None:
        return None
    entry = entries.get(rel)
    if entry is not None:
        try:
            st = os.lstat(path)
        except OSError:
            return "modified"  # deleted in the work tree: checkout brings it back
        size, mtime_s, mtime_ns = entry
        same = st.st_size == size and int(st.st_mtime) == mtime_s and \
            (mtime_ns == 0 or st.st_mtime_ns % 1_000_000_000 == mtime_ns)
        return "tracked" if same else "modified"
    return "ignored" if _ignored(root, gitdir, rel) else "untracked"


def _index(index_path: str) -> dict[str, tuple[int, int, int]] | None:
    try:
        st = os.stat(index_path)
    except FileNotFoundError:
        return {}  # a fresh repository: nothing tracked yet
    except OSError:
        return None
    if st.st_size > MAX_INDEX:
        return None
    return _parse_index(index_path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _parse_index(index_path: str, _mtime: int, _size: int) -> dict[str, tuple[int, int, int]] | None:
    try:
        with open(index_path, "rb") as fh:
            data = fh.read(MAX_INDEX + 1)
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3):
        return None  # version 4 compresses paths; not read here (the caller then assumes the worst)
    out: dict[str, tuple[int, int, int]] = {}
    pos = 12
    try:
        for _ in range(count):
            mtime_s, mtime_ns = struct.unpack(">II", data[pos + 8:pos + 16])
            size = struct.unpack(">I", data[pos + 36:pos + 40])[0]
            flags = struct.unpack(">H", data[pos + 60:pos + 62])[0]
            head = 64 if version == 3 and flags & 0x4000 else 62
            end = data.index(b"\0", pos + head)
            name = data[pos + head:end].decode("utf-8", "surrogateescape")
            out[name] = (size, mtime_s, mtime_ns)
            length = head + len(name.encode("utf-8", "surrogateescape"))
            pos += (length + 8) // 8 * 8
    except (struct.error, ValueError):
        return None
    return out


def _ignored(root: str, gitdir: str, rel: str) -> bool:
    """Do the repository's ignore files ignore `rel` (or a directory it is in)?"""
    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):  # a directory that is ignored hides everything in it
        sub = "/".join(parts[:depth])
        is_dir = depth < len(parts)
        verdict = None
        sources = [(posixpath.join(gitdir, "info", "exclude"), "")]
        for i in range(depth):
            base = "/".join(parts[:i])
            sources.append((posixpath.join(root, base, ".gitignore"), base))
        for file, base in sources:
            for negate, pattern, dir_only, anchored in _patterns(file):
                if dir_only and not is_dir:
                    continue
                target = sub[len(base) + 1:] if base else sub
                name = target.rsplit("/", 1)[-1]
                hit = fnmatch.fnmatchcase(target, pattern) if anchored else \
                    fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(target, pattern)
                if hit:
                    verdict = not negate
        if verdict:
            return True
    return False


def _patterns(file: str) -> list[tuple[bool, str, bool, bool]]:
    try:
        st = os.stat(file)
    except OSError:
        return []
    return _read_patterns(file, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=64)
def _read_patterns(file: str, _mtime: int, _size: int) -> list[tuple[bool, str, bool, bool]]:
    out = []
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            lines = fh.read(1024 * 1024).splitlines()
    except OSError:
        return []
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        out.append((negate, line.lstrip("/").replace("**/", ""), dir_only, anchored))
    return out


def config_settings(text: str) -> dict[str, str]:
    """`section.key` (and `section.sub.key`) → value from a git config file (names lower-cased)."""
    out: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        m = re.match(r'^\[\s*([\w.-]+)(?:\s+"([^"]*)")?\s*\]', line)
        if m:
            section = m.group(1).lower() + (f".{m.group(2)}" if m.group(2) is not None else "")
            continue
        key, eq, value = line.partition("=")
        if eq and section:
            value = value.strip()
            if len(value) > 1 and value[0] == value[-1] == '"':
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            out[f"{section}.{key.strip().lower()}"] = value
    return out
