"""The hosts the person already works with, read from their own configuration.

A credential handed to a host, an ssh agent forwarded to one, a login published on one: what makes it ordinary
is that the host is the person's own infrastructure, and the person's configuration says which hosts those are
(~/.ssh/config and known_hosts, ~/.kube/config's servers, ~/.docker/config.json's registries, ~/.npmrc,
pip.conf, ~/.netrc, gh's hosts, git remotes and the project's lockfiles). A host none of them names, and that is
not on this machine or the private network, is foreign. Files are read size-capped, never followed past a
regular file, and the answer is kept per version of the files on disk.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import re
from functools import lru_cache

from .yamlfile import DataError, read_regular_file

_CAP = 512 * 1024
_HOME_FILES = (".ssh/config", ".kube/config", ".docker/config.json", ".npmrc", ".yarnrc", ".yarnrc.yml",
               ".config/pip/pip.conf", ".pip/pip.conf", ".netrc", ".config/gh/hosts.yml", ".gitconfig",
               ".config/git/config", ".pypirc", ".m2/settings.xml", ".gradle/gradle.properties", ".cargo/config.toml")
# the project's record of where it already fetches from (its lockfiles, git remotes); not the config files whose
# routes are judged (.npmrc, requirements files): a file does not vouch for itself
_PROJECT_FILES = (".git/config", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "uv.lock",
                  "poetry.lock", "Pipfile.lock", ".gitmodules")
_HOST = re.compile(r"(?i)(?:[a-z][a-z0-9+.-]*://|//|@|\b(?:machine|Host(?:Name)?|server:?)\s+)"
                   r"(?:[^@/\s'\"]*@)?(\[[0-9a-f:]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)")
_AUTHS = re.compile(r'"([a-z0-9.-]+\.[a-z]{2,}(?::\d+)?)(?:/[^"]*)?"\s*:\s*\{')  # docker's "auths": {"host": {…}}
_LOCAL_NAME = re.compile(r"(?i)^(?:localhost|[^.]+|.*\.(?:local|lan|home|internal|intranet|corp|localdomain|"
                         r"home\.arpa|localhost))$")


_PRIVATE_NETS = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                                                         "fc00::/7"))


def is_local(host: str) -> bool:
    """This machine or the private network: loopback, RFC 1918 / unique-local addresses, a bare or LAN name."""
    host = host.strip("[]").lower().rstrip(".")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return bool(_LOCAL_NAME.match(host))
    return address.is_loopback or any(address in net for net in _PRIVATE_NETS)


def known_host(host: str, home: str, project: str | None = None) -> bool:
    """Does the person's configuration (or the project's) name `host` or a host of the same domain?"""
    host = host.strip("[]").lower().rstrip(".")
    if not host:
        return False
    names, hashed = _known(home, project)
    if host in names or _domain(host) in {_domain(n) for n in names if "." in n}:
        return True
    return any(_hashed_match(host, salt, digest) for salt, digest in hashed)


def _domain(host: str) -> str:
    """The registrable part, roughly: the last two labels (three under a two-letter country's co./com.)."""
    labels = host.split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in ("co", "com", "org", "net", "ac", "gov"):
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _stamp(paths: list[str]) -> tuple:
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((p, 0, -1))
    return tuple(out)


def _paths(home: str, project: str | None) -> list[str]:
    paths = [os.path.join(home, f) for f in _HOME_FILES] + [os.path.join(home, ".ssh", "known_hosts")]
    if project:
        paths += [os.path.join(project, f) for f in _PROJECT_FILES]
    return paths


def _known(home: str, project: str | None) -> tuple[frozenset[str], tuple[tuple[bytes, bytes], ...]]:
    paths = _paths(home, project)
    return _read(_stamp(paths))


def _texts(stamp: tuple):
    """(path, text) of each file of a stamp that is there and can be read (size-capped)."""
    for path, _mtime, size in stamp:
        if size < 0:
            continue
        try:
            yield path, read_regular_file(path, _CAP).decode("utf-8", "replace")
        except (OSError, DataError):
            continue


@lru_cache(maxsize=16)
def _read(stamp: tuple) -> tuple[frozenset[str], tuple[tuple[bytes, bytes], ...]]:
    names: set[str] = set()
    hashed: list[tuple[bytes, bytes]] = []
    for path, text in _texts(stamp):
        if path.endswith("known_hosts"):
            for line in text.splitlines()[:20000]:
                field = line.split(" ", 1)[0]
                if field.startswith("|1|"):
                    try:
                        _, _, salt, digest = field.split("|")
                        hashed.append((base64.b64decode(salt), base64.b64decode(digest)))
                    except ValueError:
                        continue
                elif field and not field.startswith("#"):
                    for name in field.split(","):
                        names.add(re.sub(r"^\[([^\]]+)\]:\d+$", r"\1", name).lower())
            continue
        if path.endswith(".ssh/config"):
            for m in re.finditer(r"(?im)^\s*(?:Host|HostName)\s*=?\s*(.+)$", text):
                names.update(n.lower() for n in m.group(1).split() if not re.search(r"[*?!]", n))
        names.update(m.group(1).lower() for m in _HOST.finditer(text))
        names.update(m.group(1).split(":")[0].lower() for m in _AUTHS.finditer(text))
    return frozenset(names), tuple(hashed)


def _hashed_match(host: str, salt: bytes, digest: bytes) -> bool:
    return hmac.compare_digest(hmac.new(salt, host.encode(), hashlib.sha1).digest(), digest)


_PUBLIC_KEY = re.compile(r"\b((?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)"
                         r"@openssh\.com)\s+[A-Za-z0-9+/=]{16,})")


def foreign_keys(text: str, home: str) -> str | None:
    """The first public key in `text` that is none of the person's own (~/.ssh/*.pub, the keys already in
    authorized_keys), shortened for a message; None when every key is theirs."""
    keys = [m.group(1).split()[1] for m in _PUBLIC_KEY.finditer(text or "")]
    if not keys:
        return None
    own: set[str] = set()
    ssh = os.path.join(home, ".ssh")
    try:
        names = [n for n in os.listdir(ssh) if n.endswith(".pub") or n.startswith("authorized_keys")][:64]
    except OSError:
        names = []
    for name in names:
        try:
            data = read_regular_file(os.path.join(ssh, name), _CAP).decode("utf-8", "replace")
        except (OSError, DataError):
            continue
        own.update(m.group(1).split()[1] for m in _PUBLIC_KEY.finditer(data))
    for key in keys:
        if key not in own:
            return key[:24] + "…"
    return None


__all__ = ["known_host", "is_local", "foreign_keys"]


_GCLOUD_PROJECT = re.compile(r"(?m)^\s*project\s*=\s*([a-z][a-z0-9-]{4,29})\s*$")
_QUOTED_PROJECT = re.compile(r'"(?:quota_project_id|project_id|default)"\s*:\s*"([a-z][a-z0-9-]{4,29})"')


def own_cloud_projects(home: str, project: str | None = None) -> frozenset[str]:
    """The cloud projects the person's configuration names: gcloud's configurations (`project = …`), the
    application-default credentials' quota project, the project's .firebaserc; CLOUDSDK_CORE_PROJECT. A project
    none of them names is someone else's."""
    paths = []
    configurations = os.path.join(home, ".config", "gcloud", "configurations")
    try:
        paths += sorted(os.path.join(configurations, n) for n in os.listdir(configurations) if n.startswith("config_"))[:32]
    except OSError:
        pass
    paths.append(os.path.join(home, ".config", "gcloud", "application_default_credentials.json"))
    if project:
        paths.append(os.path.join(project, ".firebaserc"))
    found = set(_projects(_stamp(paths)))
    if os.environ.get("CLOUDSDK_CORE_PROJECT"):
        found.add(os.environ["CLOUDSDK_CORE_PROJECT"])
    return frozenset(found)


@lru_cache(maxsize=16)
def _projects(stamp: tuple) -> frozenset[str]:
    names: set[str] = set()
    for path, text in _texts(stamp):
        names.update(_GCLOUD_PROJECT.findall(text))
        names.update(_QUOTED_PROJECT.findall(text))
        if path.endswith(".firebaserc"):  # {"projects": {"default": "…", "prod": "…"}}
            names.update(re.findall(r'"[\w-]+"\s*:\s*"([a-z][a-z0-9-]{4,29})"', text))
    return frozenset(names)
