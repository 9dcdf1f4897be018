"""What a package, an image build context or a commit carries off the machine, and which of it is a
secret: one answer for `npm publish`, `docker build` (pushed, or sent to a remote daemon) and `git push`.

    package_files("/p")                        -> ["package.json", "dist/x.js", ".env"] | None
    context_files("/p", "/p/Dockerfile")       -> (["src/a.py", ".env"], True) | None  (True: COPY . copies it all)
    secrets_among("/p", files, home)           -> [(".env", "environment file …")]

A file is a secret when the one list (data/secrets.yaml) names it by its name (.env, *.pem, id_rsa,
credentials.json…) and, for the entries that are secrets only by what they hold, it holds a credential.
None: cannot be told (missing, too many files); the callers then judge the command as before.
"""
from __future__ import annotations

import json
import os
import posixpath
import re
from functools import lru_cache

from .infra import is_local
from .listing import archive_members
from .secrets import secret_catalog
from .yamlfile import DataError, read_regular_file

MAX_FILES = 5000
MAX_TEXT = 512 * 1024
# npm leaves these out whatever files[] or .npmignore say (npm-packlist)
_NPM_NEVER = re.compile(r"(^|/)(\.git|node_modules|\.npmrc|\.DS_Store|npm-debug\.log|\.svn|\.hg|CVS|"
                        r"package-lock\.json|\.lock-wscript|\.wafpickle-\d+|config\.gypi)(/|$)")
_NPM_ALWAYS = re.compile(r"(?i)^(package\.json|readme(\.[^/]*)?|licen[cs]e(\.[^/]*)?|copying(\.[^/]*)?)$")
_COPIES_ALL = re.compile(r"(?im)^\s*(?:COPY|ADD)\s+(?:--[\w-]+(?:=\S+)?\s+)*(?:\.|\./|\./\*|\*)\s+\S")


def _read(path: str) -> str | None:
    try:
        return read_regular_file(path, MAX_TEXT).decode("utf-8", "replace")
    except (OSError, DataError):
        return None


@lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern:
    """A gitignore/.dockerignore/files[] glob: `**` crosses directories, `*` and `?` do not."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        out.append("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c))
        i += 1
    return re.compile("".join(out) + "(?:/.*)?$")  # a directory pattern covers what is in it


def matches(pattern: str, rel: str, anchored: bool | None = None) -> bool:
    """Does one ignore/include pattern cover `rel`? Unanchored patterns (no `/` but a trailing one)
    match a name at any depth, as git's do."""
    pattern = pattern.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.rstrip("/")
    if not pattern:
        return False
    if anchored is None:
        anchored = "/" in pattern
    pattern = pattern.lstrip("/")
    if _glob_regex(pattern).match(rel):
        return True
    return not anchored and any(_glob_regex(pattern).match("/".join(rel.split("/")[i:]))
                                for i in range(1, rel.count("/") + 1))


def _walk(root: str) -> list[str] | None:
    out: list[str] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules"))
        base = posixpath.relpath(here, root)
        for name in sorted(files):
            out.append(name if base == "." else f"{base}/{name}")
            if len(out) > MAX_FILES:
                return None
    return out


def _ignore_rules(text: str) -> list[tuple[bool, str]]:
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        rules.append((negate, line[1:] if negate else line))
    return rules


def _kept(rel: str, rules: list[tuple[bool, str]], anchored: bool | None = None) -> bool:
    ignored = False
    for negate, pattern in rules:
        if matches(pattern, rel, anchored):
            ignored = not negate
    return not ignored


def package_files(directory: str) -> list[str] | None:
    """The files `npm publish` (pnpm, yarn, bun) packs from `directory`: package.json's files[] when it
    has one, else everything .npmignore (or, lacking it, .gitignore) does not leave out."""
    text = _read(posixpath.join(directory, "package.json"))
    if text is None:
        return None
    try:
        manifest = json.loads(text)
    except ValueError:
        return None
    every = _walk(directory)
    if every is None:
        return None
    every = [f for f in every if not _NPM_NEVER.search(f)]
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if isinstance(listed, list) and listed:
        # an include list read as ignore rules: a file it lists is "ignored" (kept out of the rest), `!x` takes it back
        rules = [(p.startswith("!"), p.lstrip("!")) for p in listed if isinstance(p, str)]
        chosen = [f for f in every if _NPM_ALWAYS.match(f) or not _kept(f, rules, anchored=True)]
        ignore = _read(posixpath.join(directory, ".npmignore"))  # still applies inside the listed folders
        return [f for f in chosen if ignore is None or _kept(f, _ignore_rules(ignore)) or _NPM_ALWAYS.match(f)]
    ignore = _read(posixpath.join(directory, ".npmignore"))
    if ignore is None:
        ignore = _read(posixpath.join(directory, ".gitignore")) or ""
    rules = _ignore_rules(ignore)
    return [f for f in every if _NPM_ALWAYS.match(f) or _kept(f, rules)]


def tarball_files(path: str) -> list[str] | None:
    """The files of a packed tarball (`npm publish ./pkg-1.0.0.tgz`), without npm's `package/` folder."""
    members = archive_members(path)
    if members is None:
        return None
    return [m.name.split("/", 1)[1] if m.name.startswith("package/") else m.name for m in members if m.name]


def context_files(directory: str, dockerfile: str | None = None) -> tuple[list[str], bool] | None:
    """The files a build sends its daemon from `directory` (what .dockerignore leaves in), and whether the
    Dockerfile copies the whole context into the image (`COPY . .`, `ADD ./ /app`)."""
    every = _walk(directory)
    if every is None:
        return None
    ignore = None
    if dockerfile:  # BuildKit reads Dockerfile.debug.dockerignore first
        ignore = _read(dockerfile + ".dockerignore")
    if ignore is None:
        ignore = _read(posixpath.join(directory, ".dockerignore")) or ""
    rules = _ignore_rules(ignore)
    sent = [f for f in every if _kept(f, rules, anchored=True)]
    text = _read(dockerfile or posixpath.join(directory, "Dockerfile")) or ""
    return sent, bool(_COPIES_ALL.search(text))


def secret_reason(path: str, home: str) -> str | None:
    """Why the file at `path` is a secret to carry away (by its name, and what it holds where that decides)."""
    catalog = secret_catalog()
    entry = catalog.match(path, home)
    if entry is None:
        return None
    if entry.content or posixpath.basename(path).startswith(".env"):
        held = catalog.credentials_in_file(path)
        return f"{entry.reason} ({held})" if held else None
    return entry.reason


def secrets_among(directory: str, files: list[str], home: str) -> list[tuple[str, str]]:
    """The secret files among `files` (relative to `directory`), with why each is one."""
    out = []
    for rel in files:
        reason = secret_reason(posixpath.join(directory, rel), home)
        if reason:
            out.append((rel, reason))
    return out


# -- what the session wrote: a credential put into a file, which a commit and a push may carry later -------
WROTE_SECRET = "wrote-secret:"  # session fact: a file the session wrote a credential into -> what it is


def written_secret(tool: str, tool_input, cwd: str) -> dict[str, str]:
    """The fact a Write / Edit / MultiEdit leaves when the text it puts into a file holds a credential
    ({"wrote-secret:/p/.bazelrc": "a value for x-buildbuddy-api-key"}); {} otherwise."""
    path = tool_input.get("file_path") or tool_input.get("path")
    if not isinstance(path, str) or not path:
        return {}
    if tool == "Write":
        texts = [tool_input.get("content")]
    elif tool == "MultiEdit":
        texts = [e.get("new_string") for e in tool_input.get("edits") or () if isinstance(e, dict)]
    else:
        texts = [tool_input.get("new_string")]
    text = "\n".join(t for t in texts if isinstance(t, str))[:MAX_TEXT]
    what = credential_held(text) if text else None
    if not what:
        return {}
    return {WROTE_SECRET + posixpath.normpath(posixpath.join(cwd or "/", path)): what}


_URL_LOGIN = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s/@'\"<>]*@(\[[0-9a-f:]+\]|[^\s/:@'\"<>]+)")


def credential_held(text: str) -> str | None:
    """The credential `text` holds, leaving out the logins of URLs to this machine or the private network
    (`postgres://vapor:vapor@localhost/dev` in a Makefile is the project's dev database, not a secret)."""
    text = _URL_LOGIN.sub(lambda m: "" if is_local(m.group(1)) else m.group(0), text)
    return secret_catalog().credentials_in_text(text)


def file_credential(path: str) -> str | None:
    """credential_held for a file on disk (size-capped); None when it cannot be read."""
    text = _read(path)
    return credential_held(text) if text else None
