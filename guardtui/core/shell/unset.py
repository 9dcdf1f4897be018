"""Variables a project script uses and sets nowhere: to the shell they are empty, so
`rm -rf "$HOME/$WORKSPACE"` with WORKSPACE never set deletes the home. The script is judged also
with them empty (analyze._Run.program), and what that finds denied stands."""
from __future__ import annotations

import os
import re

# set by the shell itself, or by every login: never taken as unset
_SHELL_OWN = frozenset({
    "HOME", "PATH", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "HOSTNAME",
    "UID", "EUID", "PPID", "RANDOM", "LINENO", "SECONDS", "BASH", "BASH_SOURCE", "BASH_VERSION", "FUNCNAME", "IFS",
    "OPTARG", "OPTIND", "REPLY", "PIPESTATUS", "HOSTTYPE", "OSTYPE", "MACHTYPE", "SHLVL", "EPOCHSECONDS",
    "EPOCHREALTIME", "BASHPID", "GROUPS", "DIRSTACK", "PS1", "PS2", "PS4", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
    "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"})
_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(\}|[:=?+-])|([A-Za-z_][A-Za-z0-9_]*))")
_NOUNSET = re.compile(r"^\s*set\s+(?:-[a-zA-Z]*u|-o\s+nounset)", re.M)
_SOURCES = re.compile(r"(?:^|[;&|(]\s*|\s)(?:source|\.)\s+\S", re.M)


def unset_names(text: str) -> list[str]:
    """The variables `text` expands that nothing in it sets (sorted), nor this environment, nor the
    shell; none when it runs with `set -u` (an unset variable stops it) or sources other files
    (which may set them)."""
    if _NOUNSET.search(text) or _SOURCES.search(text):
        return []
    used: set[str] = set()
    for m in _REFERENCE.finditer(text):
        name = m.group(1) or m.group(3)
        if m.group(2) not in (None, "}"):
            continue  # ${X:-default}, ${X:=…}, ${X:?…}: the script says what an unset X means
        used.add(name)
    unset = []
    for name in sorted(used - _SHELL_OWN):
        if name in os.environ or name.startswith("__guardtui"):  # (a part known only at run time: unknown, not empty)
            continue
        n = re.escape(name)
        if re.search(rf"(?:^|[\s;&|(]){n}(?:\[[^\]]*\])?\+?=|\b(?:read|getopts|for|select|local|declare|typeset|"
                     rf"export|readonly|mapfile|readarray|printf\s+-v)\b[^\n;]*\b{n}\b|\$\{{{n}:?=", text, re.M):
            continue  # assigned, read, looped over or declared somewhere in the script
        unset.append(name)
    return unset


_PARAMETER = re.compile(r"\$(?:\{([1-9])\}|([1-9]))")
# the script checks how many arguments it got, or stops when one is missing: an empty one is handled
_CHECKS_ARGUMENTS = re.compile(r"\$#|\$\{#\}|-[zn]\s+\"?\$\{?[1-9]|\$\{[1-9]:?[?-]|\bgetopts\b|\bshift\b|\bset\s+--")


def missing_parameters(text: str, given: int) -> list[str]:
    """The positional parameters ($1 …) `text` expands beyond the `given` arguments it is run with, when it
    never checks for them: to the shell they are empty."""
    if _CHECKS_ARGUMENTS.search(text) or _NOUNSET.search(text) or _SOURCES.search(text):
        return []
    numbers = {int(m.group(1) or m.group(2)) for m in _PARAMETER.finditer(text)}
    return [f"${n}" for n in sorted(numbers) if n > given]
