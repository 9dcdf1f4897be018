"""The Docker Engine API over its socket (data/engine_api.yaml): `curl --unix-socket /var/run/docker.sock -d
'{"Image":…,"HostConfig":{"Binds":["/home/dev:/h"]}}' …/containers/create` is `docker run -v /home/dev:/h …`
by another name. Each request is judged as the docker command it amounts to; reads allow; others ask."""
from __future__ import annotations

import fnmatch
import json
import posixpath
import re
import shlex
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..yamlfile import Field, check, load_yaml
from .findings import Finding, allow, ask
from .projectfiles import read_text

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_ROUTE = {"method": Field(str, required=True, choices=("GET", "POST", "PUT", "DELETE", "HEAD")),
          "path": Field(str, required=True), "command": Field(str, required=True)}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "sockets": Field(list, required=True, items=str),
          "routes": Field(list, required=True, items=_ROUTE)}
_SOCKET_OPTIONS = ("--unix-socket", "--abstract-unix-socket")
_DATA_OPTIONS = ("-d", "--data", "--data-raw", "--data-binary", "--data-ascii", "--json")
_VALUED = {"-H", "--header", "-X", "--request", "-o", "--output", "-u", "--user", "-A", "--user-agent", "-e",
           "--referer", "-m", "--max-time", "-w", "--write-out", "--connect-timeout", "-b", "--cookie", "-c",
           "--cookie-jar", "--url", "-T", "--upload-file", "-F", "--form", *_SOCKET_OPTIONS, *_DATA_OPTIONS}
MAX_LIST = 32


def request_table() -> dict:
    """The Engine API's requests as data (loaded once)."""
    return _data()


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("guardtui.core.data").joinpath("engine_api.yaml").read_text(encoding="utf-8")
    return parse_engine_api(text, "guardtui/core/data/engine_api.yaml")


def parse_engine_api(text: str, file: str = "engine_api.yaml") -> dict:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    return doc.data


def judge(run: "Run", inv: "Invocation") -> list[Finding] | None:
    """None when the request is not to a container engine's socket; else the findings (the docker command it
    amounts to is judged through run.nested)."""
    request = _request(inv)
    if request is None:
        return None
    method, path, body = request
    shown = f"{inv.name} {method} {path[:60]} on the container engine's socket"
    if method in ("GET", "HEAD"):
        return [allow(f"{shown} only reads")]
    if "\x00" in path:
        return [ask(f"{shown}: a request known only at run time", "container")]
    for route in _data()["routes"]:
        segment = _matches(route["path"], path)
        if route["method"] != method or segment is None:
            continue
        template = route["command"]
        if template in ("run", "exec"):
            words = _from_body(template, body, segment)
            if words is None:
                return [ask(f"{shown}: a body that cannot be read", "container")]
            text = shlex.join(words)
        else:
            text = template.replace("{id}", shlex.quote(segment or ""))
        run.nested(text, inv, f"{inv.name} {method} {path[:40]}")
        return [allow(f"{shown}, judged as `{text[:80]}`", "container")]
    return [ask(f"{shown}: a change to the container engine", "container")]


def _request(inv: "Invocation") -> tuple[str, str, str | None] | None:
    socket = url = method = body = None
    words = [w.value for w in inv.words]
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        value = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
        if name in _VALUED or word[:2] in ("-X", "-d", "-H") and len(word) > 2:
            if len(word) > 2 and not word.startswith("--") and word[:2] in ("-X", "-d", "-H"):
                name, value, eq = word[:2], word[2:], "="
            if name in _SOCKET_OPTIONS:
                socket = value
            elif name in ("-X", "--request"):
                method = value.upper()
            elif name in _DATA_OPTIONS:
                body = value
            elif name == "--url":
                url = value
            i += 1 if eq else 2
            continue
        if not word.startswith("-") and url is None:
            url = word
        i += 1
    if not socket or not url or "\x00" not in socket and not any(fnmatch.fnmatchcase(socket, g)
                                                                  for g in _data()["sockets"]):
        return None  # a socket known only at run time may be the engine's: judged as if it were
    path = urlsplit(url if "://" in url else "http://localhost" + ("" if url.startswith("/") else "/") + url).path
    path = re.sub(r"^/v\d+(?:\.\d+)*(?=/)", "", path)
    path = re.sub(r"^/libpod(?=/)", "", path)  # Podman's own API names the same routes
    if body is not None and body.startswith("@") and inv.scope.cwd:
        body = read_text(posixpath.join(inv.scope.cwd, body[1:])) if body[1:] != "-" else None
    return method or ("POST" if body is not None else "GET"), path, body


def _matches(pattern: str, path: str) -> str | None:
    """The {id} segment when path fits the pattern ("" when it has none); None when it does not fit."""
    regex = "^" + re.escape(pattern).replace(r"\{id\}", "([^/]+)") + "/?$"
    m = re.match(regex, path)
    if m is None:
        return None
    return m.group(1) if m.groups() else ""


def _from_body(kind: str, body: str | None, container: str) -> list[str] | None:
    """`docker run`/`docker exec` words for a create or exec request's JSON body."""
    try:
        spec = json.loads(body) if body else None
    except ValueError:
        return None
    if not isinstance(spec, dict):
        return None
    cmd = _strings(spec.get("Cmd"))
    entry = _strings(spec.get("Entrypoint"))
    if cmd is None or entry is None:
        return None
    if kind == "exec":
        return ["docker", "exec", container, *entry, *cmd] if cmd or entry else None
    image = spec.get("Image")
    host = spec.get("HostConfig") or {}
    if not isinstance(image, str) or not isinstance(host, dict):
        return None
    words = ["docker", "run", "-d"]
    for bind in (host.get("Binds") or [])[:MAX_LIST]:
        words += ["-v", str(bind)]
    for mount in (host.get("Mounts") or [])[:MAX_LIST]:
        if isinstance(mount, dict):
            words += ["--mount", f"type={mount.get('Type', 'volume')},src={mount.get('Source', '')},"
                                 f"dst={mount.get('Target', '')}" + (",readonly" if mount.get("ReadOnly") else "")]
    if host.get("Privileged"):
        words.append("--privileged")
    for option, key in (("--pid", "PidMode"), ("--network", "NetworkMode"), ("--ipc", "IpcMode"),
                        ("--userns", "UsernsMode")):
        if isinstance(host.get(key), str) and host[key]:
            words += [option, host[key]]
    for cap in (host.get("CapAdd") or [])[:MAX_LIST]:
        words += ["--cap-add", str(cap)]
    for device in (host.get("Devices") or [])[:MAX_LIST]:
        if isinstance(device, dict):
            words += ["--device", str(device.get("PathOnHost", ""))]
    ports = host.get("PortBindings") or {}
    for port, bindings in list(ports.items())[:MAX_LIST] if isinstance(ports, dict) else []:
        for b in bindings or [{}]:
            b = b if isinstance(b, dict) else {}
            ip = f"{b['HostIp']}:" if b.get("HostIp") else ""
            words += ["-p", f"{ip}{b.get('HostPort', '')}:{port.split('/')[0]}"]
    for env in (spec.get("Env") or [])[:MAX_LIST]:
        words += ["-e", str(env)]
    if isinstance(spec.get("WorkingDir"), str) and spec["WorkingDir"]:
        words += ["-w", spec["WorkingDir"]]
    if isinstance(spec.get("User"), str) and spec["User"]:
        words += ["-u", spec["User"]]
    if entry:
        words += ["--entrypoint", entry[0]]
    return words + [image, *entry[1:], *cmd]


def _strings(value) -> list[str] | None:
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value) if value else []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value[:MAX_LIST * 4])
    return None
