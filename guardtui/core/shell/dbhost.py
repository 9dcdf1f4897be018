"""Where a database lives (data/databases.yaml): a URL's or conninfo's host, whether that is this machine, and
where a database client's connection goes (`sqlite3 data/app.db`, `psql -h localhost`, `clickhouse-client`
with no --host). Shared by the SQL clients' judge and the migration tools (cmd_migrate)."""
from __future__ import annotations

import os
import posixpath
import re
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..yamlfile import Field, check, load_yaml
from .paths import PathKind
from .projectfiles import read_text
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "localhost.localdomain"}
_CONFIG_BYTES = 64 * 1024

_LIST = Field(list, items=str)
SCHEMA = {"version": Field(int, required=True, choices=(1,)),
          "clients": Field(dict, required=True, values=Field(dict, fields={
              "file": Field(bool), "host": _LIST, "url": _LIST, "url_positional": Field(bool), "env": _LIST,
              "default": Field(str), "unknown_options": _LIST, "unknown_env": _LIST, "config": _LIST}))}


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("guardtui.core.data").joinpath("databases.yaml").read_text(encoding="utf-8")
    return parse_databases(text, "guardtui/core/data/databases.yaml")


def parse_databases(text: str, file: str = "databases.yaml") -> dict:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    return doc.data


def url_host(url: str) -> str | None:
    """The host a database URL or conninfo names ("" for a local socket or file), None when unknown."""
    if not url or DYN in url:
        return None
    url = url.strip().strip("'\"")
    if re.match(r"(?i)^(jdbc:)?(sqlite3?|h2:mem|h2:file|hsqldb:mem|derby:memory|duckdb):", url) or url.startswith("file:"):
        return ""
    m = re.match(r"(?i)^(?:jdbc:)?[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(\[[^\]]*\]|[^/:?;,]*)", url)
    if m:
        host = m.group(1).lower()
        query = re.search(r"(?i)[?&]host=([^&]+)", url)
        return query.group(1).lower() if query else host
    if "=" in url:  # conninfo: host=… dbname=…
        m = re.search(r"(?:^|\s)host\s*=\s*'?([^'\s]+)", url)
        return m.group(1).lower() if m else ""
    return None


def is_local(host: str | None) -> bool:
    """The host is this machine ("" is the local socket; a path is a socket directory)."""
    if host is None or DYN in host:
        return False
    host = host.lower()
    return host == "" or host in LOCAL_HOSTS or host.startswith("127.") or host.startswith("/")


def clients() -> frozenset[str]:
    return frozenset(_data()["clients"])


def _value(words: list[str], names: list[str]) -> str | None:
    """The last value given to one of `names` (-h HOST, --host=HOST, -hHOST)."""
    found = None
    for i, a in enumerate(words):
        for name in names:
            if a == name and i + 1 < len(words):
                found = words[i + 1]
            elif name.startswith("--") and a.startswith(name + "="):
                found = a[len(name) + 1:]
            elif not name.startswith("--") and a.startswith(name) and len(a) > len(name) and len(name) == 2:
                found = a[len(name):]
    return found


def _config_host_ok(file: str, cwd: str, home: str) -> bool:
    """A user configuration file of the client is absent, or names no host but this machine's."""
    path = home + file[1:] if file.startswith("~/") else file if file.startswith("/") else posixpath.join(cwd, file)
    if not os.path.lexists(path):
        return True
    text = read_text(path, _CONFIG_BYTES)
    if text is None:
        return False  # there but unreadable (~/.mylogin.cnf is encrypted): where it points is not known
    hosts = re.findall(r"(?im)^\s*host\s*[=:]\s*['\"]?([^'\"\s#;]*)", text)
    hosts += re.findall(r"(?i)<host>\s*([^<\s]*)\s*</host>", text)
    return all(is_local(h) for h in hosts)


def client_database(run: "Run", inv: "Invocation") -> str | None:
    """Where the SQL client `inv` connects, when that is this machine: a database file inside the project or a
    server on localhost (described for the reason); None when it is elsewhere or cannot be known."""
    spec = _data()["clients"].get(inv.name)
    scope = inv.scope
    if spec is None or scope.remote or scope.cwd is None:
        return None
    words = [w.value for w in inv.words]
    if any(DYN in w for w in words):
        return None
    positionals = [w for w in inv.words if not w.value.startswith("-")]
    if spec.get("file"):
        if not positionals:
            return None  # an in-memory database: nothing is kept, but also nothing of the project
        info = run.path(positionals[0], inv)
        if info.remote or info.glob or info.kind is not PathKind.PROJECT_SUB:
            return None
        return f"{positionals[0].value}, a database file in the project"
    env = {k: v for k, v in scope.variables.items()}
    env.update({name: w.value for name, w in inv.cmd.assignments})
    if any(o in words or any(w.startswith(o + "=") for w in words) for o in spec.get("unknown_options", ())):
        return None
    if any(name in env for name in spec.get("unknown_env", ())):
        return None
    if not all(_config_host_ok(f, scope.cwd, scope.home) for f in spec.get("config", ())):
        return None
    host = _value(words, spec.get("host", []))
    if host is None:
        url = _value(words, spec.get("url", []))
        if url is None and spec.get("url_positional") and positionals:
            first = positionals[0].value
            url = first if "://" in first or "=" in first else None
        if url is not None:
            host = url_host(url)
            if host is None:
                return None
    if host is None:
        host = next((env[name] for name in spec.get("env", ()) if name in env), None)
    if host is None:
        host = spec.get("default")
    if host is None or not is_local(host.strip("[]") if host.startswith("[") else host):
        return None
    return f"the database server on this machine ({host or 'local socket'})"
