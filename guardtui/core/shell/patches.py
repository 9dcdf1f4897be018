"""The files a patch changes (`patch -p1 < fix.diff`, `git apply fix.diff`), read from its text: the
`+++` and `---` lines of a unified diff, and git's `diff --git`, rename and delete headers."""
from __future__ import annotations

import os
import re

MAX_PATCH = 4 * 1024 * 1024
_HEADER = re.compile(r"^(?:\+\+\+|---) ([^\t\n]+)|^diff --git a/(\S+) b/(\S+)|^rename (?:from|to) (.+)$", re.M)


def read_patch(path: str | None) -> str | None:
    if not path:
        return None
    try:
        if os.path.getsize(path) > MAX_PATCH:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def patch_targets(text: str, strip: int) -> list[str]:
    """Relative paths the patch writes, `strip` leading components taken off (patch -pN)."""
    out: list[str] = []
    for m in _HEADER.finditer(text):
        if m.group(4):
            names = [m.group(4).strip()]
        elif m.group(2):
            names = [m.group(2), m.group(3)]
            strip_here = 1
            out.extend(n.split("/", strip_here)[-1] for n in names if n.count("/") >= strip_here)
            continue
        else:
            names = [m.group(1).strip()]
        for name in names:
            if name == "/dev/null":
                continue
            parts = name.split("/")
            if len(parts) > strip:
                out.append("/".join(parts[strip:]))
    return list(dict.fromkeys(out))
