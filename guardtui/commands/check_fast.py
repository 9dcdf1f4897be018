"""`guardtui check [--json] [--cwd DIR] [--] COMMAND`, answered by a running standby before anything
else is imported (not argparse, not json, not the engine): see check.py."""
from __future__ import annotations

import os
import sys


def fast(argv: list[str]) -> int | None:
    """`check [--json] [--cwd DIR] [--] WORDS…` answered by a running standby, with nothing else
    imported; None when that is not the form, or no standby answers (then the full path runs)."""
    from .. import hook_client as hook

    as_json, cwd, words = False, None, None
    rest = argv[1:]
    while rest:
        word = rest.pop(0)
        if word == "--json":
            as_json = True
        elif word == "--cwd" and rest:
            cwd = rest.pop(0)
        elif word.startswith("--cwd="):
            cwd = word[len("--cwd="):]
        elif word == "--":
            words = rest
            break
        elif word.startswith("-"):
            return None  # any other option: the argument parser's business
        else:
            words = [word, *rest]
            break
    env = hook.Environ()
    if not words or not hook.standby_wanted(env):
        return None
    cwd = os.path.abspath(cwd) if cwd else os.getcwd()
    if len(words) == 1:
        command = words[0]
    else:
        import shlex

        command = shlex.join(words)
    path = hook.standby_socket(env)
    target = f"/check/text?json={int(as_json)}&cwd={hook._quote(cwd)}"
    try:
        result = hook.request(path, target, command.encode("utf-8", "surrogateescape"), 30.0)
    except hook.Untrusted:  # not the standby: the full path judges here
        return None
    if result is None or result[0] != "200":
        return None
    status, _, text = result[1].partition("\n")  # the exit status, then what to print
    if not status.isdigit():
        return None
    sys.stdout.write(text)
    sys.stdout.flush()
    return int(status)
