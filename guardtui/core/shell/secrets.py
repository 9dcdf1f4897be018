"""Which paths hold secrets (keys, credentials), as the shell analyzers ask it.

The list itself is core/data/secrets.yaml (core/secrets.py), shared with the file tools, MCP
tools and the web rule; `tax` stays in the signatures so every analyzer calls these as before."""
from __future__ import annotations

import posixpath
import re

from ..secrets import MAX_CONTENT_BYTES, secret_catalog
from ..yamlfile import DataError, read_regular_file


def is_secret(path: str, home: str, tax=None, home_only: bool = False) -> bool:
    """Is path a secret (keys, credentials)?

    home_only: reading it — only the secrets in a home directory or the system whose reading
    asks (a project's .env is not one); otherwise any secret, by place or by file name (what
    must not be sent away, staged or published)."""
    catalog = secret_catalog()
    if home_only:
        entry = catalog.match(path, home, places_only=True, reading=True)
        return entry is not None and (not entry.content or catalog.credentials_in_file(path) is not None)
    return catalog.match(path, home) is not None


def read_reason(path: str, home: str, project: str | None) -> str | None:
    """Why printing `path` asks (the rule of the file tools' Read, core/secrets.py): a key or
    credential in a home directory or the system, a secret file outside the project, or one in it
    that holds credentials (a .env with a live key, a master.key). None: routine."""
    return secret_catalog().read_reason(path, home, project)


def is_secret_area(path: str, home: str, tax=None) -> bool:
    """A secret file, or a directory that holds them (~/.ssh, ~/.aws, …)."""
    catalog = secret_catalog()
    if catalog.match(path, home, places_only=True) is not None:
        return True
    return catalog.in_area(path, home)


def reads_secret(path: str, home: str, project: str | None) -> bool:
    """Would reading `path` ask (read_reason)? For the commands that read a file into somewhere the
    agent can read it again: a copy, a program's print."""
    return read_reason(path, home, project) is not None


def holds_credentials(path: str) -> str | None:
    """What credential the file at `path` holds ("a GitHub token", "a value for API_KEY"), read
    size-capped; None when it holds none, cannot be read, or is binary (a firmware image, an archive:
    what they hold is not known here, and the other rules judge sending them)."""
    catalog = secret_catalog()
    try:
        data = read_regular_file(path, MAX_CONTENT_BYTES)
    except (OSError, DataError):
        return None
    if b"\x00" in data[:8192]:
        return None
    return catalog.credentials_in_text(data.decode("utf-8", "replace"))


# -- secrets a command substitution brings into an argument -------------------------------------------
# a path where it starts (not the tail of a relative one: include/secrets.h is no /secrets.h)
_PATH_IN_TEXT = re.compile(r"(?<![\w.@+~}-])(?:~|\$HOME|\$\{HOME\})?/[\w.@+-]+(?:/[\w.@+-]+)*")
_ENV_PICKED = re.compile(r"\b(?:env|printenv|set)\b[^|)`]*\|\s*(?:grep|egrep|rg)\b[^|)`]*"
                         r"(?:token|secret|passw|api_?key|credential|auth|key)", re.I)


def secret_in_text(text: str, scope) -> bool:
    """Does a command substitution in `text` bring a secret into the argument: a secret file it names
    (`$(cat ~/.pypirc)`), a credential it picks out of a file that holds one (`$(grep TOKEN .env)`), or the
    environment filtered for credentials (`$(env | grep -i token)`)?"""
    return _names_a_secret(text, scope) or _picks_a_credential(text, scope) or bool(_ENV_PICKED.search(text))


_DUMPED = re.compile(r"(?:\$\(\s*<\s*|\b(?:cat|base64|xxd|od|head|tail|tac|strings|gzip\s+-c|jq\s+\S+)\s+"
                     r"(?:-\S+\s+)*)([\w.~/-]+)")


def dumps_a_credential_file(text: str, scope) -> bool:
    """`$(cat config/autoload/local.php)`: a whole project file that holds credentials (a password in a config)."""
    for m in _DUMPED.finditer(text):
        name = m.group(1)
        path = scope.home.rstrip("/") + name[1:] if name.startswith("~/") else posixpath.join(scope.cwd or "/", name)
        if not scope.remote and holds_credentials(posixpath.normpath(path)):
            return True
    return False


_PICKED = re.compile(r"\b(?:grep|egrep|rg|awk|sed)\b[^|;)`]*?(?:token|secret|passw|api_?key|credential|auth)"
                     r"[^|;)`]*?\s([\w.~/-]+)\s*(?=[|;)`]|$)", re.I)


def _picks_a_credential(text: str, scope) -> bool:
    """`$(grep upstash.token local.properties | cut -d= -f2)`: a credential picked out of a file that holds one."""
    for m in _PICKED.finditer(text):
        name = m.group(1)
        path = scope.home.rstrip("/") + name[1:] if name.startswith("~/") else \
            posixpath.join(scope.cwd or "/", name)
        if not scope.remote and holds_credentials(posixpath.normpath(path)):
            return True
    return False


def _names_a_secret(text: str, scope) -> bool:
    """`$(cat ~/.config/guardtui/token)`: a path in the substitution is a secret file (the one list)."""
    home = scope.home.rstrip("/")
    for m in _PATH_IN_TEXT.finditer(text):
        path = m.group(0)
        for prefix in ("~", "${HOME}", "$HOME"):
            if path.startswith(prefix + "/"):
                path = home + path[len(prefix):]
                break
        if path.startswith("/") and is_secret(posixpath.normpath(path), scope.home):
            return True
    return False


