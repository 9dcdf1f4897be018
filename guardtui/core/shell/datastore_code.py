"""Program code that deletes a whole datastore, collection, index or bucket (data/datastore_code.yaml): a Qdrant
collection deleted, a Firestore collection deleted recursively, a MongoDB database dropped, Elasticsearch indices
deleted, a Redis FLUSHALL, a Pinecone index, an S3 bucket, a GraphQL bulk delete with an empty filter.

Like DROP TABLE, such a call takes every record with it. Aimed at a shared or hosted target it denies: the command
points at production or staging (shared_env.shared_target), the code or the project's .env gives the client a host
that is not this machine, a variable it reads is named for production or staging, or the service runs only hosted.
Otherwise (a local server, an emulator, an in-memory client, or nothing known) it asks."""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..model import BlastRadius
from ..yamlfile import Field, check, load_yaml
from .findings import Finding, ask, deny
from .projectfiles import load_dotenv
from .shared_env import program_text, shared_target

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation
    from .taxonomy import Taxonomy

_WIPE = {"id": Field(str, required=True), "what": Field(str, required=True), "pattern": Field(str, required=True),
         "hosted": Field(bool), "uses": Field(str)}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "wipes": Field(list, required=True, items=_WIPE),
          "local": Field(list, required=True, items=str)}
MAX_TEXT = 512 * 1024  # a program larger than this is searched in its first part only

# the environment variables code reads, in the languages people write clients in
_ENV_READ = re.compile(r"""(?:os\.environ(?:\.get)?\s*[\[(]\s*|os\.getenv\s*\(\s*|process\.env\[\s*|"""
                       r"""Platform\.environment\[\s*|os\.Getenv\(\s*|ENV(?:\.fetch\s*\(\s*|\[\s*)|Deno\.env\.get\(\s*|"""
                       r"""getenv\(\s*)["'](?P<q>\w+)["']|process\.env\.(?P<dot>\w+)|\$\{?(?P<shell>[A-Z_][A-Z0-9_]*)""")
_URL_HOST = re.compile(r"(?i)\b(?:https?|mongodb(?:\+srv)?|rediss?|postgres(?:ql)?|grpc)://(?:[^@/\s'\"]*@)?"
                       r"(?P<host>[^/\s?#'\":]+|\$\{?\w+\}?)")
_SHARED_NAME = re.compile(r"(?i)(^|_)(prod|production|prd|staging|stg|preprod|uat|live)(_|$)")
_COMMENT = re.compile(r"^\s*(?:#|//|--|/?\*)")
_LOCAL_HOSTS = re.compile(r"(?i)^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[?::1\]?|host\.docker\.internal|"
                          r"[\w-]+\.local|[\w-]+\.localhost|minio|db|redis|mongo|qdrant|elasticsearch|opensearch)$")


@dataclass(frozen=True)
class Wipe:
    id: str
    what: str
    pattern: re.Pattern
    hosted: bool
    uses: re.Pattern | None = None


@lru_cache(maxsize=1)
def catalog() -> tuple[tuple[Wipe, ...], re.Pattern]:
    text = resources.files("guardtui.core.data").joinpath("datastore_code.yaml").read_text(encoding="utf-8")
    return parse_catalog(text, "guardtui/core/data/datastore_code.yaml")


def parse_catalog(text: str, file: str = "datastore_code.yaml") -> tuple[tuple[Wipe, ...], re.Pattern]:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    wipes = tuple(Wipe(w["id"], w["what"], re.compile(w["pattern"]), bool(w.get("hosted")),
                       re.compile(w["uses"]) if w.get("uses") else None) for w in doc.data["wipes"])
    return wipes, re.compile("|".join(f"(?:{p})" for p in doc.data["local"]))


def find_wipe(text: str) -> tuple[Wipe, int] | None:
    """The first whole-datastore delete in `text` (not in a comment line), with its line number."""
    text = text[:MAX_TEXT]
    wipes, _local = catalog()
    best: tuple[Wipe, int] | None = None
    for wipe in wipes:
        if wipe.uses is not None and not wipe.uses.search(text):
            continue
        for m in wipe.pattern.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            if _COMMENT.match(text[start:m.start()] + " "):
                continue
            line = text.count("\n", 0, m.start()) + 1
            if best is None or line < best[1]:  # on one line, the catalog's first (the more specific)
                best = (wipe, line)
            break
    return best


def where_it_points(text: str, inv: "Invocation", tax: "Taxonomy", wipe: Wipe) -> str | None:
    """What says the code's datastore is shared or hosted, or None (local, or nothing known)."""
    target = shared_target(inv, tax)
    if target is not None:
        return f"the command points it at {target}"
    values = _environment_values(inv)
    remote_host = None
    for m in _ENV_READ.finditer(text[:MAX_TEXT]):
        name = m.group("q") or m.group("dot") or m.group("shell")
        if _SHARED_NAME.search(name):
            return f"it reads ${name}"
        host = _remote_host(values.get(name, ""))
        if host and remote_host is None:
            remote_host = f"${name} names {host}"
    if remote_host:
        return remote_host
    _wipes, local = catalog()
    if local.search(text[:MAX_TEXT]):
        return None  # a local server, an emulator, an in-memory client: its other URLs are not the datastore's
    for line in text[:MAX_TEXT].splitlines():
        if _COMMENT.match(line):
            continue
        for m in _URL_HOST.finditer(line):
            host = m.group("host")
            if not _LOCAL_HOSTS.match(host) and "://" not in host and "<" not in host:
                return f"it talks to {host}"
    if wipe.hosted:
        return "the service runs only hosted"
    return None


def _remote_host(value: str) -> str | None:
    m = _URL_HOST.search(value or "")
    if m is None:
        return None
    host = m.group("host")
    return None if _LOCAL_HOSTS.match(host) else host


def _environment_values(inv: "Invocation") -> dict[str, str]:
    """The values the program's environment variables have: the project's .env files, then the command's own."""
    values: dict[str, str] = {}
    cwd = inv.scope.cwd
    if cwd:
        for name in (".env", ".env.local"):
            values.update(load_dotenv(posixpath.join(cwd, name)))
    values.update({k: v for k, v in inv.scope.variables.items() if isinstance(v, str) and not k.startswith("py:")})
    return values


def datastore_wipe(text: str, inv: "Invocation", tax: "Taxonomy", lines: bool = True) -> Finding | None:
    """A deny when the code deletes a whole datastore aimed at a shared or hosted target, an ask when it deletes
    one elsewhere, None when it deletes none."""
    found = find_wipe(text)
    if found is None:
        return None
    wipe, line = found
    what = f"{inv.name}: the code {wipe.what}" + (f" (line {line})" if lines else "")
    where = where_it_points(text, inv, tax, wipe)
    if where is not None:
        return deny(f"{what}, and {where}: not a local change", "database", f"code.datastore-wipe:{wipe.id}")
    return ask(what, "database", BlastRadius.HIGH, f"code.datastore-wipe:{wipe.id}")


def shared_run_wipe(inv: "Invocation", tax: "Taxonomy") -> Finding | None:
    """A program run against a shared environment (shared_env) whose text deletes a whole datastore: the deny."""
    text = program_text(inv)
    return datastore_wipe(text, inv, tax) if text is not None else None
