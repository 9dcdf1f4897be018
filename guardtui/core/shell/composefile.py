"""Compose files as `docker compose` reads them: which files (-f, COMPOSE_FILE, the first of compose.yaml …
found upward with its override files, what they `include` and `extends`), the services they define with their
variables interpolated, and what each service hands its containers of the host (bind mounts, privileged
settings). Read on this machine at judging time (regular files, size-capped, text, bounded YAML).

    project = load_project(["docker-compose.yml"], "/home/dev/src/app", env, home)
    project.services["db"]["image"] -> "postgres:16"
"""
from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import yaml

from ..yamlfile import DataError, check_shape
from .projectfiles import load_dotenv, read_text
from .words import DYN

MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 8  # the files one project reads (-f files, overrides, includes, extends)
_VARIABLE = re.compile(r"\$(?:(\$)|\{([A-Za-z_]\w*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_]\w*))")


@dataclass
class ComposeProject:
    directory: str  # the project directory: relative paths in the files are read from here
    files: list[str] = field(default_factory=list)  # the files read, in order
    services: dict[str, dict] = field(default_factory=dict)  # merged, interpolated
    sources: dict[str, str] = field(default_factory=dict)  # service -> the file its command comes from
    problem: str = ""  # why the files cannot be judged ("" when they can)


def default_files(cwd: str, names: list[str], overrides: list[str], stop: str | None) -> list[str]:
    """The first of compose's file names found in cwd or a directory above it (up to `stop`, the home or /),
    with every override file beside it: compose reads one of those, and the guard judges each."""
    here = posixpath.normpath(cwd)
    for _ in range(32):
        for name in names:
            path = posixpath.join(here, name)
            if read_text(path, MAX_FILE_BYTES) is not None or _exists(path):
                return [path] + [p for p in (posixpath.join(here, o) for o in overrides) if _exists(p)]
        if here in ("/", stop):
            break
        here = posixpath.dirname(here)
    return []


def _exists(path: str) -> bool:
    import os

    return os.path.lexists(path)


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """Compose's ${VAR}, $VAR, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR:+alternative}, $$; a
    variable whose value is not known here becomes DYN."""

    def one(m: re.Match) -> str:
        if m.group(1):
            return "$"
        name = m.group(2) or m.group(5)
        op, word = m.group(3), m.group(4) or ""
        known = name in env
        value = env.get(name, "")
        if op in (":-", "-"):
            return value if known and (value or op == "-") else word
        if op in (":+", "+"):
            return word if known and (value or op == "+") else "" if known else DYN
        return value if known else DYN

    return _VARIABLE.sub(one, value)


def _interpolated(node: Any, env: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, list):
        return [_interpolated(v, env) for v in node]
    if isinstance(node, dict):
        return {k: _interpolated(v, env) for k, v in node.items()}
    return node


def _document(path: str, written: Callable[[str], str | None]) -> tuple[dict | None, str]:
    text = written(path)
    if text is None:
        text = read_text(path, MAX_FILE_BYTES)
    if text is None:
        return None, f"{posixpath.basename(path)} cannot be read (missing, not a regular file, or too large)"
    try:
        check_shape(text, path)
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (DataError, yaml.YAMLError, RecursionError):
        return None, f"{posixpath.basename(path)} is not YAML compose can read"
    if data is None:
        return {}, ""
    if not isinstance(data, dict):
        return None, f"{posixpath.basename(path)} is not a compose file (not a mapping)"
    return data, ""


def load_project(files: list[str], directory: str, env: Mapping[str, str],
                 written: Callable[[str], str | None] = lambda _p: None) -> ComposeProject:
    """The services of `files` (absolute paths, in compose's order) merged as compose merges them, with
    what they include and extend. `written`: the text a file will hold when this command writes it first."""
    project = ComposeProject(directory)
    queue = list(files)
    while queue:
        path = queue.pop(0)
        if len(project.files) >= MAX_FILES:
            project.problem = f"the compose files include more than {MAX_FILES} files"
            return project
        project.files.append(path)
        data, problem = _document(path, written)
        if data is None:
            project.problem = problem
            return project
        data = _interpolated(data, env)
        base = posixpath.dirname(path)
        for item in _as_list(data.get("include")):  # include: [a.yaml] or [{path: [a.yaml, b.yaml]}]
            paths = item.get("path") if isinstance(item, dict) else item
            for included in _as_list(paths):
                if not isinstance(included, str) or DYN in included:
                    project.problem = f"{posixpath.basename(path)} includes a file known only at run time"
                    return project
                queue.append(posixpath.normpath(posixpath.join(base, included)))
        services = data.get("services") or {}
        if not isinstance(services, dict):
            project.problem = f"{posixpath.basename(path)}: services is not a mapping"
            return project
        for name, service in services.items():
            if not isinstance(service, dict):
                continue
            service = _extended(service, base, env, written, project, 0)
            if service is None:
                return project
            project.services[str(name)] = _merge(project.services.get(str(name), {}), service)
            if "command" in service or "entrypoint" in service or str(name) not in project.sources:
                project.sources[str(name)] = path
    return project


def _extended(service: dict, base: str, env: Mapping[str, str], written, project: ComposeProject,
              depth: int) -> dict | None:
    """The service with what it `extends` merged under it (from another file, or the same services)."""
    extends = service.get("extends")
    if not extends:
        return service
    if depth >= 4:
        project.problem = "a service extends others more than 4 deep"
        return None
    target = extends if isinstance(extends, str) else extends.get("service") if isinstance(extends, dict) else None
    other = extends.get("file") if isinstance(extends, dict) else None
    if not isinstance(target, str):
        return service
    if other is None:
        return service  # the same file's service: its settings are judged on their own too
    if not isinstance(other, str) or DYN in other:
        project.problem = "a service extends a file known only at run time"
        return None
    path = posixpath.normpath(posixpath.join(base, other))
    project.files.append(path)
    if len(project.files) > MAX_FILES:
        project.problem = f"the compose files include more than {MAX_FILES} files"
        return None
    data, problem = _document(path, written)
    if data is None:
        project.problem = problem
        return None
    parent = (_interpolated(data, env).get("services") or {}).get(target)
    if not isinstance(parent, dict):
        return service
    parent = _extended(parent, posixpath.dirname(path), env, written, project, depth + 1)
    return None if parent is None else _merge(parent, service)


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if key in ("volumes", "cap_add", "devices", "security_opt", "env_file") and key in out:
            out[key] = _as_list(out[key]) + _as_list(value)
        else:
            out[key] = value
    return out


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def project_env(directory: str, variables: Mapping[str, str], home: str, env_files: list[str]) -> dict[str, str]:
    """What compose interpolates with: the project's .env (or --env-file files), then the command's own
    variables; HOME and PWD as this machine has them."""
    env: dict[str, str] = {"HOME": home, "PWD": directory}
    for path in env_files or [posixpath.join(directory, ".env")]:
        env.update(load_dotenv(path))
    env.update({k: v for k, v in variables.items() if isinstance(v, str)})
    return env


@dataclass(frozen=True)
class Mount:
    source: str  # on the host, absolute (DYN in it when known only at run time)
    target: str  # in the container
    read_only: bool


def bind_mounts(service: dict, directory: str, home: str) -> list[Mount]:
    """The host paths a service's volumes bind into its containers (named volumes are not the host's)."""
    out = []
    for volume in _as_list(service.get("volumes")):
        source = target = None
        read_only = False
        if isinstance(volume, str):
            parts = volume.split(":")
            if len(parts) >= 2:
                source, target = parts[0], parts[1]
                read_only = len(parts) > 2 and "ro" in parts[2].split(",")
        elif isinstance(volume, dict) and volume.get("type", "bind" if "/" in str(volume.get("source", "")) else
                                                     "volume") == "bind":
            source, target = volume.get("source"), volume.get("target")
            read_only = bool(volume.get("read_only"))
        if not isinstance(source, str) or not isinstance(target, str) or not source:
            continue
        if not (source.startswith(("/", "~", ".", DYN)) or "/" in source):
            continue  # a named volume
        source = re.sub(r"^~(?=/|$)", home, source)
        if not source.startswith("/") and DYN not in source[:1]:
            source = posixpath.join(directory, source)
        out.append(Mount(posixpath.normpath(source) if DYN not in source else source, target.rstrip("/") or "/",
                         read_only))
    return out


def service_commands(service: dict, mounts: list[Mount]) -> list[str]:
    """A service's entrypoint and command as shell text, with the host directories it mounts put back where
    the container sees them (`~/.config:/host-config` then `rm -rf /host-config/guardtui` deletes
    ~/.config/guardtui). Only the ones a mount changes: the rest stays inside the container."""
    pairs = sorted(((m.target, m.source) for m in mounts if DYN not in m.source), key=lambda m: -len(m[0]))
    out = []
    for key in ("entrypoint", "command"):
        words = _words(service.get(key))
        if not words:
            continue
        command = words[0] if len(words) == 1 else " ".join(shlex.quote(w) for w in words)
        mapped = command
        for target, source in pairs:
            mapped = re.sub(re.escape(target) + r"""(?=/|$|[\s'";&|)])""", source, mapped)
        if mapped != command:
            out.append(mapped)
    return out


def _words(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    return None
