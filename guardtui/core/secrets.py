"""Secrets, one source for every tool: which files hold keys and credentials, and what a
credential looks like in text (data/secrets.yaml).

    catalog = secret_catalog()
    catalog.match("/home/u/.aws/credentials", "/home/u")        -> SecretFile(reason="AWS credentials", …)
    catalog.read_reason("/home/u/proj/.env", "/home/u", "/home/u/proj")  -> None (the project's own)
    catalog.credential_in("token=ghp_…")                         -> "a GitHub token"

The shell (core/shell/secrets.py), the file-tool rules, MCP tools and the web rule all ask here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .yamlfile import DataError, Field, check, load_yaml

_FILE = {"path": Field(str), "name": Field(str), "reason": Field(str, required=True), "reads": Field(bool)}
_TOKEN = {"name": Field(str, required=True), "pattern": Field(str, required=True)}
SCHEMA = {
    "version": Field(int, required=True, choices=(1,)),
    "files": Field(list, required=True, items=_FILE),
    "not_secret": Field(list, required=True, items=str),
    "areas": Field(list, required=True, items=str),
    "tokens": Field(list, required=True, items=_TOKEN),
}
_HOMES = r"(?:/home/[^/]+|/Users/[^/]+|/root)"


@dataclass(frozen=True)
class SecretFile:
    """One entry of the list: where it matches, why it is a secret, whether reading it asks."""

    pattern: str
    reason: str
    by_name: bool  # a file name anywhere (.env), not a place (~/.aws/credentials)
    reads: bool = True


@dataclass
class SecretCatalog:
    files: tuple[SecretFile, ...]
    not_secret: tuple[str, ...]
    areas: tuple[str, ...]
    tokens: tuple[tuple[str, re.Pattern], ...]
    _compiled: dict = field(default_factory=dict, repr=False)

    # -- files ----------------------------------------------------------------------
    def match(self, path: str, home: str, *, places_only: bool = False, reading: bool = False) -> SecretFile | None:
        """The first entry that `path` (absolute, normalised) matches, or None.

        places_only: only entries that name a place (home or system), not a file name anywhere.
        reading: only entries whose reading asks (skips `reads: false`)."""
        if not path:
            return None
        places, names, unsecret = self._matchers(home)
        if unsecret.match(path) or unsecret.match(path.rsplit("/", 1)[-1]):
            return None
        for entry, rx in places:
            if (entry.reads or not reading) and rx.match(path):
                return entry
        if places_only:
            return None
        base = path.rsplit("/", 1)[-1]
        for entry, rx in names:
            if (entry.reads or not reading) and rx.match(base):
                return entry
        return None

    def read_reason(self, path: str, home: str, project: str | None) -> str | None:
        """Why reading `path` asks: a secret in a home directory or the system, or a secret file
        outside the project. None when reading it is routine."""
        entry = self.match(path, home, reading=True)
        if entry is None:
            return None
        if entry.by_name and project and _within(path, project):
            return None  # the project's own .env, its test keys: its configuration
        return entry.reason

    def in_area(self, path: str, home: str) -> bool:
        """A directory that holds keys (~/.ssh, ~/.aws, …) or a file in one."""
        for base in {home.rstrip("/"), *re.findall(r"^/(?:home|Users)/[^/]+|^/root", path)}:
            if any(path == f"{base}/{d}" or path.startswith(f"{base}/{d}/") for d in self.areas):
                return True
        return False

    # -- text -----------------------------------------------------------------------
    def credential_in(self, text: str) -> str | None:
        """The kind of credential `text` carries (an AWS access key, a private key, …), or None."""
        if not text:
            return None
        for name, rx in self.tokens:
            if rx.search(text):
                return name
        return None

    def _matchers(self, home: str):
        found = self._compiled.get(home)
        if found is None:
            homes = "(?:" + "|".join([re.escape(home.rstrip("/")), _HOMES]) + ")" if home.rstrip("/") else _HOMES
            places, names = [], []
            for entry in self.files:
                if entry.by_name:
                    names.append((entry, re.compile("^" + _glob(entry.pattern) + "$", re.S)))
                elif entry.pattern.startswith("~/"):
                    places.append((entry, re.compile("^" + homes + _glob(entry.pattern[1:]) + "$", re.S)))
                else:
                    places.append((entry, re.compile("^" + _glob(entry.pattern) + "$", re.S)))
            unsecret = re.compile("^(?:" + "|".join(_glob(p) for p in self.not_secret) + ")$", re.S)
            found = self._compiled[home] = (tuple(places), tuple(names), unsecret)
        return found


def _glob(pattern: str) -> str:
    return "".join(".*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in pattern)


def _within(path: str, base: str) -> bool:
    base = base.rstrip("/") or "/"
    return path == base or path.startswith(base + "/") or base == "/"


def parse_secrets(text: str, file: str = "secrets.yaml") -> SecretCatalog:
    doc = load_yaml(text, file)
    check(doc, SCHEMA)
    files = []
    for i, raw in enumerate(doc.data["files"]):
        if bool(raw.get("name")) == bool(raw.get("path")):
            raise doc.error(("files", i), "give exactly one of name or path")
        pattern = raw.get("path") or raw["name"]
        if raw.get("path") and not pattern.startswith(("~/", "/")):
            raise doc.error(("files", i, "path"), "a path starts with ~/ or /")
        if raw.get("name") and "/" in pattern:
            raise doc.error(("files", i, "name"), "a name has no /; use path")
        files.append(SecretFile(pattern, raw["reason"], bool(raw.get("name")), raw.get("reads", True)))
    tokens = []
    for i, raw in enumerate(doc.data["tokens"]):
        try:
            tokens.append((raw["name"], re.compile(raw["pattern"])))
        except re.error as exc:
            raise doc.error(("tokens", i, "pattern"), f"regex does not compile: {exc}") from None
    if not files:
        raise DataError(file, None, "files", "the list of secret files is empty")
    return SecretCatalog(tuple(files), tuple(doc.data["not_secret"]), tuple(doc.data["areas"]), tuple(tokens))


@lru_cache(maxsize=1)
def secret_catalog() -> SecretCatalog:
    text = resources.files("guardtui.core.data").joinpath("secrets.yaml").read_text(encoding="utf-8")
    return parse_secrets(text, "guardtui/core/data/secrets.yaml")
