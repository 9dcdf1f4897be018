"""/proc's links to a process's root and working directory, taken for what they reach: to the shell,
`/proc/self/root/home/dev/x` is `/home/dev/x` and `/proc/self/cwd/../../x` is two directories above
the working directory (the links are followed before `..` is applied, so a plain normpath would put
them under /proc, where nothing is protected)."""
from __future__ import annotations

import re

# the process itself: self, thread-self, $$ / $BASHPID (a part known only at run time), or a pid
_PROC_LINK = re.compile(r"^/proc/+(?P<who>[^/]+)/+(?P<link>root|cwd)(?=/|$)")
_OWN = re.compile(r"^(self|thread-self)$")


def unalias_proc(path: str, cwd: str | None) -> str:
    """`path` with a leading /proc/PID/root or /proc/self/cwd replaced by what it links to (a root link
    is / for every process of this machine; a cwd link only for the calling process itself, whose working
    directory is `cwd`). Anything else is returned as it is."""
    m = _PROC_LINK.match(path)
    if m is None:
        return path
    rest = path[m.end():]
    if m.group("link") == "root":
        return "/" + rest.lstrip("/")
    who = m.group("who")
    if cwd and (_OWN.match(who) or not who.isdigit()):  # not a number: $$, $BASHPID — the shell itself
        return cwd.rstrip("/") + "/" + rest.lstrip("/") if rest.strip("/") else cwd
    return path
