"""Credentials a configuration sends to a host that did not issue them (data/credroutes.yaml).

A token belongs to the service that issued it. Written into an index URL's user:password, a registry config's
_authToken line or a login's password for any other host, the tool hands it to that host on its next request:
the credential leaves as surely as an upload, and no upload command is run. A host the person's own configuration
names (core/infra.py) or one on this machine or the private network is theirs; any other is foreign.
"""
from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .infra import is_local, known_host
from .yamlfile import Field, check, load_yaml

_LIST = Field(list, items=str)
_ISSUER = {"service": Field(str, required=True), "hosts": Field(list, required=True, items=str),
           "variables": _LIST, "commands": _LIST, "files": _LIST}
_READER = {"commands": Field(list, required=True, items=str), "files": _LIST, "options": _LIST, "verbs": _LIST}
_SENT = {"variables": Field(list, required=True, items=str), "endpoints": Field(list, required=True, items=str),
         "what": Field(str, required=True)}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "issuers": Field(list, required=True, items=_ISSUER),
          "config_files": _LIST, "readers": Field(list, items=_READER), "tls_off": _LIST, "proxies": _LIST,
          "sent_variables": Field(list, items=_SENT)}


@dataclass(frozen=True)
class Issuer:
    service: str
    hosts: tuple[str, ...]
    variables: frozenset[str]
    commands: tuple[str, ...]
    files: tuple[str, ...]

    def takes(self, host: str) -> bool:
        host = host.strip("[]").lower().rstrip(".")
        return any(fnmatch.fnmatchcase(host, g) for g in self.hosts)


@dataclass(frozen=True)
class Routes:
    issuers: tuple[Issuer, ...]
    config_files: tuple[str, ...]
    readers: tuple[dict, ...]
    tls_off: frozenset[str]
    proxies: frozenset[str]
    sent_variables: tuple[dict, ...]


@lru_cache(maxsize=1)
def routes() -> Routes:
    text = resources.files("guardtui.core.data").joinpath("credroutes.yaml").read_text(encoding="utf-8")
    return parse_routes(text, "guardtui/core/data/credroutes.yaml")


def parse_routes(text: str, file: str = "credroutes.yaml") -> Routes:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    data = doc.data
    issuers = tuple(Issuer(i["service"], tuple(h.lower() for h in i["hosts"]), frozenset(i.get("variables") or ()),
                           tuple(i.get("commands") or ()), tuple(i.get("files") or ())) for i in data["issuers"])
    return Routes(issuers, tuple(data.get("config_files") or ()), tuple(data.get("readers") or ()),
                  frozenset(data.get("tls_off") or ()), frozenset(data.get("proxies") or ()),
                  tuple(data.get("sent_variables") or ()))


# ${NAME} / $NAME; $(command …) / `command …`
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_SUBST = re.compile(r"\$\(\s*([^()]*)\)|`([^`]*)`")


def issuer_of(text: str, home: str = "") -> Issuer | None:
    """The service whose credential `text` brings in: one of its variables, a command that prints one, a file
    that holds one (`$(cat ~/.config/gh/hosts.yml)`)."""
    for m in _VARIABLE.finditer(text):
        for issuer in routes().issuers:
            if m.group(1) in issuer.variables:
                return issuer
    for m in _SUBST.finditer(text):
        found = command_issuer(m.group(1) or m.group(2) or "", home)
        if found is not None:
            return found
    return None


def command_issuer(command: str, home: str = "") -> Issuer | None:
    """The service whose credential a command prints (`gh auth token`, `aws configure get …`, `cat FILE`)."""
    words = command.split()
    while words and ("=" in words[0] or words[0] in ("command", "exec")):
        words = words[1:]
    if not words:
        return None
    words[0] = posixpath.basename(words[0])
    joined = " ".join(words)
    for issuer in routes().issuers:
        if any(joined == c or joined.startswith(c + " ") for c in issuer.commands):
            return issuer
    for word in words[1:]:
        path = home.rstrip("/") + word[1:] if word.startswith("~/") and home else word
        found = file_issuer(path, home)
        if found is not None:
            return found
    return None


def file_issuer(path: str, home: str) -> Issuer | None:
    """The service whose credential a file holds by its place (~/.config/gh/hosts.yml: GitHub's)."""
    for issuer in routes().issuers:
        for f in issuer.files:
            full = home.rstrip("/") + f[1:] if f.startswith("~/") else f
            if path == full or (home and posixpath.normpath(path) == posixpath.normpath(full)):
                return issuer
    return None


def foreign(host: str, issuer: Issuer, home: str, project: str | None) -> bool:
    """Is `host` neither the issuer's, nor on this machine or the private network, nor in the person's config?"""
    host = host.strip("[]").lower().rstrip(".")
    if not host or "$" in host or issuer.takes(host) or is_local(host):
        return False
    return not known_host(host, home, project)


# a URL with a user:password part; .npmrc's //host/:_authToken=…; yarnrc's npmAuthToken beside npmRegistryServer
_URL_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://([^/@\s\"']*(?:\$\([^)]*\)|`[^`]*`)?[^/@\s\"']*)@"
                           r"(\[[0-9a-f:]+\]|[^/:?#\s\"'@]+)")
_NPMRC_AUTH = re.compile(r"(?im)^\s*//([^/:\s]+)[^\s=]*:(?:_authToken|_auth|_password|username)\s*=\s*(.+)$")
_HOST_IN_TEXT = re.compile(r"(?i)\b(?:https?|git|ssh|oci)://(?:[^@/\s\"']*@)?(\[[0-9a-f:]+\]|[^/:?#\s\"'@]+)")
_CRED_LINE = re.compile(r"(?i)(?:auth|token|password|passwd|secret|credential)")


def routed(text: str, home: str, project: str | None) -> str | None:
    """Where `text` (a command line's word, a config file) sends a credential that its issuer did not ask for:
    "a GitHub token to pypi.mirror.example (an index URL's password)", or None."""
    for m in _URL_USERINFO.finditer(text):
        issuer = issuer_of(m.group(1), home)
        if issuer is not None and foreign(m.group(2), issuer, home, project):
            return f"a {issuer.service} credential ({_short(m.group(1))}) to {m.group(2)}, as a URL's password"
    for m in _NPMRC_AUTH.finditer(text):
        issuer = issuer_of(m.group(2), home)
        if issuer is not None and foreign(m.group(1), issuer, home, project):
            return f"a {issuer.service} credential ({_short(m.group(2))}) to {m.group(1)}, as a registry's token"
    # a credential on a line of its own (yarnrc's npmAuthToken) in a file that names only foreign hosts
    hosts = [m.group(1) for m in _HOST_IN_TEXT.finditer(text)]
    if hosts:
        for line in text.splitlines()[:2000]:
            if not _CRED_LINE.search(line) or "://" in line:
                continue
            issuer = issuer_of(line, home)
            if issuer is not None and all(foreign(h, issuer, home, project) for h in hosts):
                return f"a {issuer.service} credential ({_short(line.strip())}) to {hosts[0]}, the registry it names"
    return None


def is_config_file(path: str) -> bool:
    """A file a package manager, git or a build tool reads its registries and credentials from."""
    name = posixpath.basename(path)
    for glob in routes().config_files:
        if "/" in glob:
            if path.endswith("/" + glob) or fnmatch.fnmatchcase(path, "*/" + glob):
                return True
        elif fnmatch.fnmatchcase(name, glob):
            return True
    return False


def _short(text: str) -> str:
    text = text.strip().strip("\"'")
    return text if len(text) <= 60 else text[:57] + "…"


__all__ = ["routes", "parse_routes", "issuer_of", "command_issuer", "file_issuer", "foreign", "routed",
           "is_config_file", "Issuer"]
