"""Commands planted in a file of a kind the guard does not know. A file written outside the project (a
dotfile, something under ~/.config or ~/.local) may be read later by a program that runs what it holds:
a debugger's start-up file, a pager's filter, a mail client's type map, a tool's hook setting. The guard
cannot know every such format, but it can read the text for what looks like a command — a whole line, the
value after `=` or `:`, a quoted string, a `;`-separated field — and judge each as the shell would run it.
Only a deny counts (a planted `rm` of the hook settings, a reverse shell): anything else keeps the write's
own verdict, so a note or an ordinary setting outside the project is judged as before. In the project's own
configuration files (package.json, .npmrc, a task runner's file of a kind not known), only a deny that
switches off or answers the guard counts: programs there are judged when they run, documents quote."""
from __future__ import annotations

import os
import re

MAX_LINES = 400
MAX_CANDIDATES = 24
MAX_LINE = 2000
# text files that quote commands to be read, not run
DOCUMENTS = frozenset({".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".html", ".htm", ".tex",
                       ".ipynb", ".csv", ".log"})
# the denies that switch the guard off or answer it: what counts in the project's own files
GUARD_CATEGORIES = frozenset({"guard-self", "terminal-input"})

# what a line must mention to be worth judging: a command that deletes, moves, sends, runs a shell or an
# interpreter, or names the guard's places (a cheap screen before the shell analysis)
_WORTH = re.compile(
    r"\b(?:rm|rmdir|unlink|shred|truncate|mv|cp|ln|dd|mkfs\S*|wipefs|find|rsync|tar|chmod|chattr|kill|pkill|killall|"
    r"curl|wget|nc|ncat|socat|telnet|ssh|scp|python\d*(?:\.\d+)?|perl|ruby|node|php|sh|bash|zsh|dash|fish|eval|exec|"
    r"guardtui|tmux|screen|xdotool|ydotool|systemctl|crontab|git|sqlite3|openssl)\b"
    r"|/dev/tcp/|\.claude|\.codex|\.gemini|\.cursor|cagent|guardtui|hooks\.json|settings\.json")
# in the project's own files, a piece is judged when it names the guard's places, or when it starts with a
# file of the project that exists (`git=./tools/git-wrap`), whose contents the shell analysis then reads
_GUARDISH = re.compile(r"\.claude|\.codex|\.gemini|\.cursor|cagent|guardtui|hooks|\.agents/|guards|"
                       r"(?:^|[\s=:\"'])\.{0,2}/?[\w.-]+/[\w./-]*[\w-]")
_GUARD_WORDS = re.compile(r"\.claude|\.codex|\.gemini|\.cursor|cagent|guardtui|hooks|\.agents/|guards")
_QUOTED = re.compile(r"'([^'\n]{2,})'|\"((?:[^\"\\\n]|\\.){2,})\"|`([^`\n]{2,})`")
_PREFIX = re.compile(r"^\s*(?:!|shell\s+|system\s+|run\s+|exec\s+|command\s+|cmd\s+|\.shell\s+|\.system\s+)")
_VALUE = re.compile(r"^\s*(?:-\s+)?[\w.@/\[\]\"'-]+\s*(?:=|:)\s*(.+)$")
_COMMENT = re.compile(r"^\s*(?:#|//|--|;|%|\")")


def planted_commands(text: str, guard_only: bool = False, before: str = "", directory: str = "") -> list[str]:
    """The pieces of `text` that could be a command some program runs, the most likely first, capped, from
    the lines not already in `before`. `guard_only`: the pieces that could reach the guard, fewer (those
    naming its places, or running a file that exists, relative to `directory`)."""
    old = {line.strip() for line in before.splitlines()} if before else set()
    out: list[str] = []
    seen: set[str] = set()
    worth = _GUARDISH if guard_only else _WORTH

    def add(piece: str) -> None:
        piece = piece.strip().rstrip(";").strip()
        if len(piece) > 1 and piece not in seen and worth.search(piece) and \
                (not guard_only or _GUARD_WORDS.search(piece) or _runs_a_file(piece, directory)):
            seen.add(piece)
            out.append(piece)

    for line in text.splitlines()[:MAX_LINES]:
        if len(out) >= MAX_CANDIDATES:
            break
        line = line[:MAX_LINE]
        if line.strip() in old:
            continue
        if not line.strip() or not worth.search(line) or _COMMENT.match(line) and not _QUOTED.search(line):
            continue
        stripped = _PREFIX.sub("", line)
        add(stripped)
        value = _VALUE.match(stripped)
        if value:
            add(_PREFIX.sub("", value.group(1).strip().strip(",").strip("'\"")))
        for field in line.split(";")[1:]:  # mailcap and its kind: `type; command; flags`
            add(field)
        for m in _QUOTED.finditer(line):
            add((m.group(1) or m.group(2) or m.group(3)).replace('\\"', '"'))
    return out[:MAX_CANDIDATES]


def _runs_a_file(piece: str, directory: str) -> bool:
    """The piece starts with a path to a file that exists (`./tools/git-wrap --x`), relative to `directory`."""
    first = piece.split(None, 1)[0].strip("'\"") if piece.split() else ""
    if "/" not in first or not directory:
        return False
    return os.path.isfile(first if first.startswith("/") else os.path.join(directory, first))
