"""The shared branches (main) and how Jujutsu (jj) names and moves them: read the same way by the parse (facts
for the commands after it) and by cmd_git's jj analyzer: options with values, bookmark name patterns, which
protected bookmarks a `jj bookmark` command moves backwards or deletes."""
from __future__ import annotations

import fnmatch
import re

PROTECTED_BRANCHES = frozenset({"main", "master"})

JJ_VALUES = frozenset({"-R", "--repository", "--at-operation", "--at-op", "--color", "--config", "--config-toml",
                        "--config-file", "-b", "--bookmark", "--branch", "-c", "--change", "-r", "--revisions",
                        "--remote", "--named", "-m", "--message", "-d", "--destination", "-o", "--onto", "-A",
                        "--insert-after", "-B", "--insert-before", "-s", "--source", "--from", "--to", "--into",
                        "-f", "-t", "-T", "--template", "-n", "--limit"})


def jj_options(words: list[str], values: frozenset[str]) -> tuple[dict[str, list[str]], list[str], set[str]]:
    """jj's options (with their values), positionals and bare flags; `-B` is insert-before where a revision
    follows it and --allow-backwards for `bookmark set/move` (the caller reads it in its place)."""
    options: dict[str, list[str]] = {}
    positionals: list[str] = []
    flags: set[str] = set()
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if word == "--":
            positionals.extend(words[i + 1:])
            break
        if eq and name.startswith("--"):
            options.setdefault(name, []).append(value)
        elif word in values and i + 1 < len(words):
            options.setdefault(word, []).append(words[i + 1])
            i += 1
        elif word.startswith("-"):
            flags.add(word)
        else:
            positionals.append(word)
        i += 1
    return options, positionals, flags


def jj_names(values: list[str], protected: frozenset[str]) -> set[str]:
    """Bookmark names as jj's string patterns give them (`exact:main`, `glob:ma*` covers main)."""
    names: set[str] = set()
    for value in values:
        kind, colon, pattern = value.partition(":")
        if not colon:
            kind, pattern = "exact", value
        if kind.startswith("glob") or kind.startswith("regex") or kind.startswith("substring"):
            names |= {b for b in protected if fnmatch.fnmatchcase(b, pattern) or
                      (kind.startswith("regex") and re.search(pattern, b)) or
                      (kind.startswith("substring") and pattern in b)}
        else:
            names.add(pattern)
    return names


def jj_bookmark_moves(words: list[str], protected: frozenset[str]) -> dict[str, str]:
    """What a `jj bookmark …` command does to protected bookmarks: {name: "rewound" | "deleted"}."""
    if not words or words[0] not in ("bookmark", "b", "branch") or len(words) < 2:
        return {}
    action = words[1]
    rest = words[2:]
    if action in ("set", "s", "move", "m", "create", "c"):
        backwards = any(w in ("--allow-backwards", "-B") for w in rest)
        values = JJ_VALUES - {"-B", "-b", "-f", "-t", "-n", "-s", "-A", "-d", "-o", "-c", "-m"}
        options, positionals, _ = jj_options(rest, values | {"--from", "--to", "-r", "--revision"})
        names = jj_names(positionals, protected)
        if action in ("move", "m") and options.get("--from") and not positionals:
            names = protected  # every bookmark on --from's revisions, main among them
        if backwards:
            return {n: "rewound" for n in names & protected}
    elif action in ("delete", "d"):
        return {n: "deleted" for n in jj_names([w for w in rest if not w.startswith("-")], protected) & protected}
    return {}
