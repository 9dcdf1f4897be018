"""Where a path argument points, and what deleting or writing there means.

Paths are resolved as bash would (against the cwd the walker followed), then placed in one
of a few kinds. The verdict tables at the bottom are the labeling policy: a recursive delete
of `/`, a system directory, a home root or the whole project is critical; of a project or
home subpath it asks; under the temp directory it is routine.
"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from dataclasses import dataclass
from enum import Enum

from ..model import BlastRadius
from ..procfs import unalias_proc
from .findings import Finding, allow, ask, deny
from .taxonomy import Taxonomy, default_taxonomy
from .words import DYN, SESSION_ROOT, TEMP_DIR, Scope, Word


class PathKind(Enum):
    ROOT = "the root directory"
    SYSTEM_TOP = "a top-level system directory"
    SYSTEM_CORE = "a system directory"
    SYSTEM = "a system path"
    CRITICAL_FILE = "a critical system file"
    DEVICE = "a disk device"
    HARMLESS_DEVICE = "a harmless device"
    TERMINAL = "a terminal"
    NETWORK_DEVICE = "a network socket"
    HOME_ROOT = "your home directory"
    HOME_DOTFILE = "a dotfile in your home directory"
    HOME_SUB = "a directory in your home"
    OTHER_USER = "another user's files"
    PROJECT_ROOT = "the whole working directory"
    PROJECT_ANCESTOR = "a directory that contains the project"
    HOME_ANCESTOR = "a directory that contains your home directory"
    PROJECT_SUB = "a path inside the project"
    TEMP = "the temp directory"
    OUTSIDE = "a path outside the project"
    DYNAMIC = "a path known only at run time"


@dataclass(frozen=True)
class PathInfo:
    kind: PathKind
    path: str | None  # normalised absolute path (None when dynamic)
    shown: str  # as written, for messages
    glob: bool = False  # matches some files (`*.o`, `dir/a*`): the path is the directory they are in
    remote: bool = False
    contents: bool = False  # `dir/*`: every file in the directory (the path is the directory)
    hits_system: bool = False  # a glob right under / that matches system directories (/???)


_HOME_ROOT_RE = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root|/var/root)$")
_HOME_ANY_RE = re.compile(r"^(/home/[^/]+|/Users/[^/]+|/root|/var/root)(/|$)")


def classify(word: Word, scope: Scope, tax: Taxonomy) -> PathInfo:
    """Classify a path argument, resolved against the cwd bash would have there."""
    project = scope.project
    shown = word.display()
    value = word.value
    if scope.remote:
        return _classify_remote(value, shown, word.glob, tax)
    if value.startswith(DYN):
        return PathInfo(PathKind.DYNAMIC, None, shown)
    if value.startswith("/proc/"):  # /proc/$$/root/x is /x, whatever the pid
        value = unalias_proc(value, scope.cwd)
    # cut at the first unknown or glob part: what is certain is the directory before it
    cut = len(value)
    for marker in (DYN,) + (("*", "?", "[") if word.glob else ()):
        pos = value.find(marker)
        if pos != -1:
            cut = min(cut, pos)
    glob = cut < len(value)
    certain = value[:cut]
    if glob:
        head = certain.rsplit("/", 1)[0] + "/" if "/" in certain else ""
        rest = value[len(head):]
        # `dir/*`, `dir/.*`, `dir/*/`: everything in dir; treat as dir itself
        everything = rest.rstrip("/") in ("*", ".*", "*/*", "{*,.*}", ".[!.]*") and DYN not in head
        certain = head.rstrip("/") or ("/" if head == "/" else "")
        if not certain:
            certain = "."
        if DYN in value[: len(head)]:
            return PathInfo(PathKind.DYNAMIC, None, shown)
        info = _classify_abs(certain, scope, tax, project, shown)
        if info.kind is PathKind.DYNAMIC:
            return info
        if everything:
            linked = _link_target(info.path, scope)  # `rm -rf link/*` deletes what is in the directory it points at
            if linked is not None:
                info = _classify_abs(linked, scope, tax, project, shown)
            return PathInfo(info.kind, info.path, shown, glob=False, contents=True)
        if info.path and certain.startswith(("/dev", "/proc")) and any(
                fnmatch.fnmatchcase(info.path.rstrip("/") + "/" + rest.replace("*", "0").replace("?", "0"), g)
                or fnmatch.fnmatchcase(info.path.rstrip("/") + "/0", g) for g in tax.terminal_devices):
            # /dev/pts/*, /dev/tty*: whatever it matches is a terminal (typing into one)
            return PathInfo(PathKind.TERMINAL, info.path, shown, glob=True)
        component = rest.split("/", 1)[0]
        hits = info.kind is PathKind.ROOT and any(
            fnmatch.fnmatchcase(top.lstrip("/"), component) for top in tax.core_system_dirs | tax.system_dirs)
        return PathInfo(_inside(info.kind), info.path, shown, glob=True, hits_system=hits)
    info = _classify_abs(value, scope, tax, project, shown)
    if value.endswith(("/", "/.")) and info.path:  # `rm -rf link/`: through the link, its target's contents
        linked = _link_target(info.path, scope)
        if linked is not None:
            return _classify_abs(linked, scope, tax, project, shown)
    return info


def _link_target(path: str | None, scope: Scope) -> str | None:
    """Where a directory that is a symbolic link (on disk, or made earlier in the command) points."""
    if not path:
        return None
    made = scope.facts.get("link-to:" + path)
    if made:
        return made
    try:
        if os.path.islink(path):
            return os.path.realpath(path)
    except (OSError, ValueError):
        return None
    return None


def glob_members(word: Word) -> tuple[str, ...]:
    """What a glob matches under the directory `classify` gives for it, as patterns relative to that
    directory (`src/*.log` -> ("*.log",)); () for a plain path. A part known only at run time is `*`."""
    value = word.value
    if not word.glob and DYN not in value:
        return ()
    cut = min([p for p in (value.find(m) for m in ("*", "?", "[", DYN)) if p != -1] or [len(value)])
    head = value[:cut].rsplit("/", 1)[0] + "/" if "/" in value[:cut] else ""
    rest = value[len(head):].replace(DYN, "*").rstrip("/")
    if rest in ("{*,.*}", "* .*"):
        return ("*", ".*")
    return (rest,) if rest else ()


def _inside(kind: PathKind) -> PathKind:
    """The kind of a path *inside* a directory of the given kind."""
    return {
        PathKind.ROOT: PathKind.SYSTEM,
        PathKind.SYSTEM_TOP: PathKind.SYSTEM,
        PathKind.PROJECT_ROOT: PathKind.PROJECT_SUB,
        PathKind.PROJECT_ANCESTOR: PathKind.OUTSIDE,
        PathKind.HOME_ROOT: PathKind.HOME_SUB,
    }.get(kind, kind)


def _classify_abs(value: str, scope: Scope, tax: Taxonomy, project: str | None, shown: str) -> PathInfo:
    cwd = scope.cwd
    if not value:
        return PathInfo(PathKind.DYNAMIC, None, shown)
    if value.startswith("/"):
        path = posixpath.normpath(value)
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
    elif cwd is None:
        return PathInfo(PathKind.DYNAMIC, None, shown)
    else:
        path = posixpath.normpath(posixpath.join(cwd, value))
    kind = kind_of(path, scope.home, project, tax)
    root = scope.facts.get(SESSION_ROOT)
    if root and kind in (PathKind.OUTSIDE, PathKind.HOME_SUB, PathKind.PROJECT_SUB) and \
            (path == root or _is_under(root, path)) and kind_of(root, scope.home, None, tax) is PathKind.HOME_SUB:
        # the directory the agent's session started in (its project), reached from elsewhere (`cd ..`)
        kind = PathKind.PROJECT_ROOT if path == root else PathKind.PROJECT_ANCESTOR
    return PathInfo(kind, path, shown)


def kind_of(path: str, home: str, project: str | None, tax: Taxonomy) -> PathKind:
    if path == "/":
        return PathKind.ROOT
    if path in tax.critical_files or any(path.startswith(d) for d in tax.critical_dirs):
        return PathKind.CRITICAL_FILE
    if path.startswith(("/dev/", "/proc/")) and any(fnmatch.fnmatchcase(path, g) for g in tax.terminal_devices):
        return PathKind.TERMINAL  # another process's descriptors: its terminal, as /dev/pts/N
    if path.startswith("/dev/"):
        if any(fnmatch.fnmatchcase(path, g) for g in tax.harmless_devices):
            return PathKind.HARMLESS_DEVICE
        if path.startswith(("/dev/tcp/", "/dev/udp/")):
            return PathKind.NETWORK_DEVICE
        if any(fnmatch.fnmatchcase(path, g) for g in tax.disk_devices):
            return PathKind.DEVICE
        return PathKind.SYSTEM
    if project and path == project:
        return PathKind.PROJECT_ROOT
    if path == home or _HOME_ROOT_RE.match(path):
        return PathKind.HOME_ROOT
    if project and _is_under(project, path):
        return PathKind.PROJECT_ANCESTOR
    if project and _is_under(path, project):
        return PathKind.PROJECT_SUB
    if _is_under(home, path) and path != home:
        return PathKind.HOME_ANCESTOR
    if _is_under(path, home) or _HOME_ANY_RE.match(path):
        base = home if _is_under(path, home) else _HOME_ANY_RE.match(path).group(1)
        first = path[len(base):].lstrip("/").split("/", 1)[0]
        if base != home and not _is_under(path, home):
            return PathKind.OTHER_USER
        return PathKind.HOME_DOTFILE if first.startswith(".") else PathKind.HOME_SUB
    if path == TEMP_DIR or any(_is_under(path, t) or path == t for t in tax.temp_dirs):
        return PathKind.TEMP
    top = "/" + path.lstrip("/").split("/", 1)[0]
    if path == top:
        known = top in tax.core_system_dirs or top in tax.system_dirs
        return PathKind.SYSTEM_TOP if known else PathKind.OUTSIDE
    if top in tax.core_system_dirs:
        return PathKind.SYSTEM_CORE
    if top in tax.system_dirs:
        return PathKind.SYSTEM
    return PathKind.OUTSIDE


def _classify_remote(value: str, shown: str, glob: bool, tax: Taxonomy) -> PathInfo:
    """On another machine we know no cwd: only absolute paths can be placed."""
    if value.startswith(DYN) or not value.startswith(("/", "~")):
        if value in (".", "*", "./*", ".*", "~", "~/"):
            return PathInfo(PathKind.HOME_ROOT, None, shown, remote=True)
        return PathInfo(PathKind.DYNAMIC, None, shown, remote=True)
    if value.startswith("~"):
        rest = value[1:].lstrip("/")
        if rest in ("", "*", ".*"):
            return PathInfo(PathKind.HOME_ROOT, None, shown, remote=True)
        return PathInfo(PathKind.HOME_SUB, None, shown, remote=True)
    info = classify(Word(value, shown, glob=glob), Scope("/nonexistent-remote-cwd", "/nonexistent-remote-home",
                                                         project="/nonexistent-remote-cwd"), tax)
    return PathInfo(info.kind, info.path, shown, info.glob, remote=True)


def _is_under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


# -- policy ---------------------------------------------------------------------------
_CRITICAL_DELETE = {PathKind.ROOT, PathKind.SYSTEM_TOP, PathKind.SYSTEM_CORE, PathKind.HOME_ROOT,
                    PathKind.HOME_ANCESTOR, PathKind.PROJECT_ROOT, PathKind.PROJECT_ANCESTOR, PathKind.CRITICAL_FILE,
                    PathKind.DEVICE}


# a directory of backups outside the project: /mnt/backup, /var/backups, ~/Backups, /srv/db-backups
_BACKUPS = re.compile(r"(?i)/[^/]*backups?/?$")


def datastore_dir(path: str) -> str | None:
    """The database data directory (taxonomy paths.datastore_dirs) `path` is, or is in."""
    for pattern in default_taxonomy().datastore_dirs:
        base = pattern.rstrip("/")
        if fnmatch.fnmatchcase(path, base) or fnmatch.fnmatchcase(path, base + "/*"):
            return base
    return None


def delete_finding(info: PathInfo, recursive: bool, what: str, category: str = "fs-delete") -> Finding:
    """The verdict for deleting `info` (recursively or not). `what` names the action."""
    target = info.shown
    suffix = " on the remote host" if info.remote else ""
    kind = info.kind
    if recursive:
        if info.path and _BACKUPS.search(info.path) and kind not in (PathKind.PROJECT_SUB, PathKind.TEMP,
                                                                      PathKind.PROJECT_ROOT):
            return deny(f"{what} {target} deletes backups{suffix}", category)
        store = datastore_dir(info.path) if info.path and kind in (PathKind.SYSTEM, PathKind.SYSTEM_CORE,
                                                                   PathKind.OUTSIDE) else None
        if store:
            return deny(f"{what} {target} deletes a database server's data ({store}){suffix}: every table in it, "
                        "with no way back", category)
        if info.hits_system:
            return deny(f"{what} {target} matches top-level system directories (/etc, /usr, …)", category)
        if kind in _CRITICAL_DELETE and (not info.glob or kind is PathKind.SYSTEM_CORE):
            # a glob inside a core system directory (/usr/lib/…/Qt6*) deletes system files as a name does
            return deny(f"{what} {target} deletes {describe(info)}{suffix}", category)
        if kind is PathKind.TEMP:
            return allow(f"{what} {target} only touches the temp directory", "fs-delete", radius=BlastRadius.LOW)
        if kind is PathKind.PROJECT_SUB:
            return ask(f"{what} {target} recursively deletes a path in the project", category, BlastRadius.MEDIUM)
        if kind is PathKind.DYNAMIC:
            return ask(f"{what} {target} recursively deletes a path known only at run time", category, BlastRadius.HIGH)
        return ask(f"{what} {target} recursively deletes {describe(info)}{suffix}", category, BlastRadius.HIGH)
    if kind is PathKind.CRITICAL_FILE:
        return deny(f"{what} {target} deletes {describe(info)}", category)
    if kind in (PathKind.DEVICE,):
        return deny(f"{what} {target} removes {describe(info)}", category)
    if info.contents and kind not in (PathKind.TEMP, PathKind.PROJECT_SUB):
        return ask(f"{what} {target} deletes every file in {describe(info)}{suffix}", category,
                   BlastRadius.HIGH if kind not in (PathKind.PROJECT_ROOT,) else BlastRadius.MEDIUM)
    if kind in (PathKind.ROOT, PathKind.SYSTEM_TOP, PathKind.PROJECT_ROOT, PathKind.PROJECT_ANCESTOR,
                PathKind.HOME_ROOT, PathKind.HOME_ANCESTOR):
        return allow(f"{what} {target} without -r cannot delete a directory", "fs-delete")
    if kind in (PathKind.SYSTEM_CORE, PathKind.SYSTEM, PathKind.NETWORK_DEVICE):
        return ask(f"{what} {target} deletes a file in {describe(info)}{suffix}", category, BlastRadius.HIGH)
    if kind in (PathKind.HOME_DOTFILE, PathKind.OTHER_USER):
        return ask(f"{what} {target} deletes {describe(info)}{suffix}", category, BlastRadius.MEDIUM)
    if info.glob and kind not in (PathKind.PROJECT_SUB, PathKind.TEMP):
        return ask(f"{what} {target} deletes every matching file in {describe(info)}{suffix}", category,
                   BlastRadius.MEDIUM)
    return allow(f"{what} {target} deletes a single file", "fs-delete")


def write_finding(info: PathInfo, what: str, category: str = "fs-write") -> Finding | None:
    """Writing into `info`: None when it is left to the working-directory rule (or harmless)."""
    kind = info.kind
    if kind is PathKind.DEVICE:
        return deny(f"{what} {info.shown} overwrites a disk device", "disk")
    if kind is PathKind.TERMINAL:
        return deny(f"{what} {info.shown} writes to a terminal: what a terminal is sent can come back as its input "
                    "(keystrokes), and in guardtui's console those answer a waiting call as if you had",
                    "terminal-input")
    if kind is PathKind.CRITICAL_FILE:
        return deny(f"{what} {info.shown} overwrites {info.path}", category)
    if kind is PathKind.NETWORK_DEVICE:
        return ask(f"{what} {info.shown} sends data over the network", "network", BlastRadius.MEDIUM)
    if kind in (PathKind.ROOT, PathKind.SYSTEM_TOP, PathKind.SYSTEM_CORE, PathKind.SYSTEM):
        return ask(f"{what} {info.shown} writes into a system path", category, BlastRadius.HIGH)
    if kind is PathKind.HOME_DOTFILE:
        return ask(f"{what} {info.shown} changes a dotfile in your home directory", category, BlastRadius.MEDIUM)
    if kind is PathKind.OTHER_USER:
        return ask(f"{what} {info.shown} writes into another user's files", category, BlastRadius.MEDIUM)
    return None


def describe(info: PathInfo) -> str:
    kind = info.kind
    if kind is PathKind.ROOT:
        return "the whole file system"
    if kind is PathKind.HOME_ROOT:
        return "your home directory" if not info.remote else "the home directory"
    if kind is PathKind.PROJECT_ROOT:
        return "the whole working directory"
    if kind is PathKind.PROJECT_ANCESTOR:
        return f"{info.path}, which contains the project"
    if kind is PathKind.HOME_ANCESTOR:
        return f"{info.path}, which contains your home directory"
    if kind in (PathKind.SYSTEM_TOP, PathKind.SYSTEM_CORE):
        return f"the system directory {info.path}" if info.path else "a system directory"
    if kind is PathKind.CRITICAL_FILE:
        return f"the system file {info.path}"
    if info.path and info.path != info.shown and not info.remote:
        return f"{kind.value} ({info.path})"
    return kind.value


def is_harmless_write(info: PathInfo) -> bool:
    return info.kind in (PathKind.HARMLESS_DEVICE,)


__all__ = ["PathKind", "PathInfo", "classify", "glob_members", "kind_of", "delete_finding", "write_finding",
           "is_harmless_write"]
