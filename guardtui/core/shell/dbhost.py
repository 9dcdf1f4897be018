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


def _config_hosts(file: str, cwd: str, home: str) -> list[str] | None:
    """The hosts a user configuration file of the client names ([] when it is absent or names none), None when
    it is there but cannot be read (~/.mylogin.cnf is encrypted: where it points is not known)."""
    path = home + file[1:] if file.startswith("~/") else file if file.startswith("/") else posixpath.join(cwd, file)
    if not os.path.lexists(path):
        return []
    text = read_text(path, _CONFIG_BYTES)
    if text is None:
        return None
    hosts = re.findall(r"(?im)^\s*host\s*[=:]\s*['\"]?([^'\"\s#;]*)", text)
    return hosts + re.findall(r"(?i)<host>\s*([^<\s]*)\s*</host>", text)


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
    client = run.tax.sql_clients.get(inv.name, {})
    takes_value = set(client.get("code", ())) | set(client.get("value_options", ())) | set(client.get("file", ()))
    positionals = []
    i = 0
    while i < len(inv.words):  # the words that are no option nor an option's value (-c SQL, -h HOST)
        value = inv.words[i].value
        if value in takes_value:
            i += 2
            continue
        if not value.startswith("-"):
            positionals.append(inv.words[i])
        i += 1
    if spec.get("file"):
        if not positionals:
            return None  # an in-memory database: nothing is kept, but also nothing of the project
        info = run.path(positionals[0], inv)
        # a file that is there now, in the project (one not there yet may be a link this command line makes)
        if info.remote or info.glob or info.kind is not PathKind.PROJECT_SUB or not info.path or \
                not os.path.isfile(info.path) or not os.path.realpath(info.path).startswith(
                    os.path.realpath(scope.project or scope.cwd) + "/"):
            return None
        return f"{positionals[0].value}, a database file in the project"
    # the agent's own environment (the guard's at judging time stands for it: PGHOST=db.prod exported there), then
    # what this script and command line set
    env = {name: os.environ[name] for name in spec.get("env", []) + spec.get("unknown_env", []) if name in os.environ}
    env.update(scope.variables)
    env.update({name: w.value for name, w in inv.cmd.assignments})
    if any(o in words or any(w.startswith(o + "=") for w in words) for o in spec.get("unknown_options", ())):
        return None
    if any(name in env for name in spec.get("unknown_env", ())):
        return None
    configured: list[str] = []
    for file in spec.get("config", ()):
        hosts = _config_hosts(file, scope.cwd, scope.home)
        if hosts is None or not all(is_local(h) for h in hosts):
            return None
        configured += hosts
    host = _value(words, spec.get("host", []))
    if host is None:
        url = _value(words, spec.get("url", []))
        if url is None and spec.get("url_positional") and positionals:
            first = positionals[0].value
            url = first if "://" in first or re.match(r"^\s*(?:host|hostaddr|dbname|user|port|service)\s*=", first) \
                else None
        if url is not None:
            host = url_host(url)
            if host is None:
                return None
    if host is None:
        host = next((env[name] for name in spec.get("env", ()) if name in env), None)
    if host is None and configured:
        host = configured[-1]  # the user's configuration names this machine
    if host is None:
        host = spec.get("default")
    if host is None or not is_local(host.strip("[]") if host.startswith("[") else host):
        return None
    return f"the database server on this machine ({host or 'local socket'})"
