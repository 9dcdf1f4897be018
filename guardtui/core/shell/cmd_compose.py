"""`docker compose up` (docker-compose, podman compose, nerdctl compose): the services compose starts are judged
from the compose files it reads (shell/composefile.py), on this machine at judging time.

A project's own dev services (a Postgres, a Redis, its app built from its Dockerfile, the project bind-mounted)
are routine local work: allowed. A service handed the host (a bind mount outside the project or of the docker
socket, privileged, the host's network or processes, added capabilities: taxonomy `compose`) asks, naming it; a
service's command that, with the host directories it mounts put back, would deny (deleting the guard's files
through `~:/host`) denies; rw mounts are writes the guard's protection judges, as `docker run -v` is. Files that
cannot be read or found: ask (fail closed). `run`/`exec` also judge the command given, as `docker run` does.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .composefile import ComposeProject, bind_mounts, default_files, load_project, project_env, service_commands
from .findings import Finding, allow, ask
from .invocation import Origin
from .parse import SimpleCommand
from .toolcode import deny_only
from .words import DYN, Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_DOCKER_GLOBAL_VALUES = {"-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert",
                         "--tlscert", "--tlskey", "--url", "--connection", "--identity", "--root", "--runroot",
                         "--namespace", "-n", "--address", "-a", "--storage-driver", "--cgroup-manager"}
_RUN_VALUES = {"-e", "--env", "--env-from-file", "-l", "--label", "--name", "-p", "--publish", "-u", "--user", "-v",
               "--volume", "-w", "--workdir", "--entrypoint", "--pull", "--cap-add", "--cap-drop", "--index"}
_UP_VALUES = {"--scale", "-t", "--timeout", "--exit-code-from", "--attach", "--no-attach", "--pull", "--wait-timeout"}


def compose(run: "Run", inv: "Invocation") -> list[Finding]:
    """docker compose up|start|run|exec … (or docker-compose …): judged from the compose files."""
    spec = run.tax.compose
    args = [w.value for w in inv.words]
    i = 0
    if inv.name in ("docker", "podman", "nerdctl"):
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in _DOCKER_GLOBAL_VALUES else 1
        if i >= len(args) or args[i] != "compose":
            return []
        i += 1
    files: list[str] = []
    env_files: list[str] = []
    profiles: list[str] = []
    directory = None
    values = set(spec.get("global_value_options", ()))
    while i < len(args) and args[i].startswith("-"):
        name, eq, attached = args[i].partition("=")
        value = attached if eq else (args[i + 1] if i + 1 < len(args) else "")
        if name in ("-f", "--file"):
            files.append(value)
        elif name == "--env-file":
            env_files.append(value)
        elif name == "--profile":
            profiles.append(value)
        elif name == "--project-directory":
            directory = value
        elif name == "--dry-run":
            return []
        i += 1 if eq or name not in values else 2
    if i >= len(args) or args[i] not in spec.get("starting", ()):
        return []
    verb = args[i]
    rest = inv.words[i + 1:]
    cwd = inv.scope.cwd
    said = f"{inv.name}{' compose' if inv.name in ('docker', 'podman', 'nerdctl') else ''} {verb}"
    if cwd is None or inv.scope.remote:
        return []
    variables = dict(inv.scope.variables)
    variables.update({n: w.value for n, w in inv.cmd.assignments})
    project = _project(run, inv, files, env_files, directory, variables, spec)
    if project.problem:
        return [ask(f"{said} starts containers from compose files the guard cannot judge: {project.problem}",
                    "container", BlastRadius.MEDIUM, "container.compose-unread")]
    named, command = _operands(rest, verb)
    active = set(profiles) | {p for p in _env_value(variables, project, "COMPOSE_PROFILES").split(",") if p}
    chosen = _chosen(project, named, active, verb)
    problems: list[str] = []
    for name in chosen:
        service = project.services[name]
        problems += [f"service {name} {p}" for p in _host_settings(service, spec)]
        mounts = bind_mounts(service, project.directory, inv.scope.home)
        problems += [f"service {name} {p}" for p in _host_mounts(run, inv, mounts, project)]
        for target in mounts:  # whatever runs inside may change a writable mount: the protection rule reads this
            if not target.read_only and DYN not in target.source:
                run.effect(target.source, target.source, "write", inv.cmd, detail="mentioned", members=("*",))
        source = project.sources.get(name, project.files[0])
        label = f"{said} › {posixpath.basename(source)} service {name}"
        for text in service_commands(service, mounts):
            _judge_for_deny(run, inv, text, label, source)
        if command and name == (named[0] if named else None):
            _judge_given(run, inv, command, mounts, service, f"{said} {name}")
    shown = ", ".join(posixpath.basename(f) for f in project.files)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        return [ask(f"{said}: {shown}: " + "; ".join(problems[:3]) + more, "container", BlastRadius.MEDIUM,
                    "container.compose-host")]
    what = "runs a command in" if verb == "exec" else "starts"
    return [allow(f"{said} {what} the project's own services ({shown}: nothing of the host beyond the project)",
                  "container", rule="container.compose-local")]


def _project(run: "Run", inv: "Invocation", files: list[str], env_files: list[str], directory: str | None,
             variables: dict[str, str], spec: dict) -> ComposeProject:
    cwd = inv.scope.cwd or "/"
    home = inv.scope.home

    def absolute(path: str) -> str:
        path = re.sub(r"^~(?=/|$)", home, path)
        return posixpath.normpath(posixpath.join(cwd, path))

    if any(f == "-" or DYN in f or not f for f in files):
        return ComposeProject(cwd, problem="a compose file read from stdin or known only at run time")
    paths = [absolute(f) for f in files]
    if not paths:  # COMPOSE_FILE (the command's, then the .env's), else the default names found upward
        listed = variables.get("COMPOSE_FILE") or _dotenv(cwd, env_files, home).get("COMPOSE_FILE", "")
        if DYN in listed:
            return ComposeProject(cwd, problem="COMPOSE_FILE is known only at run time")
        separator = variables.get("COMPOSE_PATH_SEPARATOR") or ":"
        paths = [absolute(p) for p in listed.split(separator) if p]
    if not paths:
        paths = default_files(cwd, list(spec.get("files", ())), list(spec.get("overrides", ())), home)
    if not paths:
        return ComposeProject(cwd, problem="no compose file found here or above")
    base = absolute(directory) if directory and DYN not in directory else posixpath.dirname(paths[0])
    env = project_env(base, variables, home, [absolute(e) for e in env_files])
    for path in paths:
        changed = run.changed_earlier(path, inv)
        if changed is not None:
            return ComposeProject(base, problem=f"{posixpath.basename(path)} is changed by this command first")
    return load_project(paths, base, env, written=lambda p: run.written.get(p))


def _dotenv(cwd: str, env_files: list[str], home: str) -> dict[str, str]:
    from .projectfiles import load_dotenv

    out: dict[str, str] = {}
    for path in env_files or [".env"]:
        out.update(load_dotenv(posixpath.normpath(posixpath.join(cwd, re.sub(r"^~(?=/|$)", home, path)))))
    return out


def _env_value(variables: dict[str, str], project: ComposeProject, name: str) -> str:
    from .projectfiles import load_dotenv

    value = variables.get(name)
    if value is None:
        value = load_dotenv(posixpath.join(project.directory, ".env")).get(name, "")
    return "" if DYN in value else value


def _operands(words: list[Word], verb: str) -> tuple[list[str], list[Word]]:
    """The services named, and for run/exec the command given after the service."""
    values = _RUN_VALUES if verb in ("run", "exec") else _UP_VALUES
    named: list[str] = []
    i = 0
    while i < len(words):
        value = words[i].value
        if value == "--":
            i += 1
            continue
        if value.startswith("-"):
            name, eq, _ = value.partition("=")
            i += 1 if eq or name not in values else 2
            continue
        named.append(value)
        if verb in ("run", "exec"):
            return named, words[i + 1:]
        i += 1
    return named, []


def _chosen(project: ComposeProject, named: list[str], profiles: set[str], verb: str) -> list[str]:
    """The services that start: those named (or every one whose profiles are active), with what they depend on,
    share namespaces or take volumes from."""
    services = project.services
    if named and all(n in services for n in named):
        todo = list(named)
    elif named:  # a name compose does not define (a service an include or a variable adds): every one
        todo = list(services)
    else:
        todo = [n for n, s in services.items()
                if not s.get("profiles") or set(map(str, _list(s.get("profiles")))) & profiles]
    chosen: list[str] = []
    while todo:
        name = todo.pop(0)
        if name in chosen or name not in services:
            continue
        chosen.append(name)
        service = services[name]
        depends = service.get("depends_on") or []
        todo += [str(d) for d in (depends if isinstance(depends, list) else list(depends) if isinstance(depends, dict)
                                  else [])]
        todo += [str(v).split(":")[0].removeprefix("service:") for v in _list(service.get("volumes_from"))]
        for key in ("network_mode", "pid", "ipc"):
            value = service.get(key)
            if isinstance(value, str) and value.startswith("service:"):
                todo.append(value.partition(":")[2])
    return chosen


def _list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _host_settings(service: dict, spec: dict) -> list[str]:
    found = []
    for setting in spec.get("host_settings", ()):
        value = service.get(setting["key"])
        if value is None or value is False or value == []:
            continue
        text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
        if re.search(setting["pattern"], text):
            found.append(f"{setting['reason']} ({setting['key']}: {text[:60]})")
    return found


def _host_mounts(run: "Run", inv: "Invocation", mounts, project: ComposeProject) -> list[str]:
    """Bind mounts that hand the container the host: a control socket, or a path outside the project."""
    inside = [d for d in {project.directory, inv.scope.project} if d]
    sockets = [re.compile(p) for p in run.tax.remote_access.get("sockets", ())]
    found = []
    for mount in mounts:
        source = mount.source
        if DYN in source:
            found.append(f"mounts a host path known only at run time ({source.replace(DYN, '$…')}:{mount.target})")
        elif source.endswith(".sock") or any(p.search(source) for p in sockets):
            found.append(f"mounts {source}, a socket that controls the host or acts for you")
        elif not any(source == d or source.startswith(d.rstrip("/") + "/") for d in inside):
            found.append(f"mounts {source} from outside the project{' (read-only)' if mount.read_only else ''}")
    return found


def _judge_for_deny(run: "Run", inv: "Invocation", text: str, label: str, file: str) -> None:
    """A service's own command with its mounts mapped back: only what would deny counts (it is the project's
    program; a tool it names that guardtui does not know is its business), its file effects for the protection."""
    before, effects = len(run.result.findings), len(run.result.effects)
    run.nested(text, inv, label, origin=Origin(posixpath.basename(file)))
    kept = deny_only(run.result.findings[before:])
    del run.result.findings[before:]
    for k in range(effects, len(run.result.effects)):
        run.result.effects[k] = replace(run.result.effects[k], detail="mentioned")
    for finding in kept:
        run.add(finding)


def _judge_given(run: "Run", inv: "Invocation", command: list[Word], mounts, service: dict, label: str) -> None:
    """`docker compose run web CMD`, `exec web CMD`: CMD judged as `docker run` judges its command: on the host
    when a mount puts a path of it there, else inside the container."""
    pairs = sorted(((m.target, m.source) for m in mounts if DYN not in m.source), key=lambda m: -len(m[0]))
    mapped_words = []
    for word in command:
        value = word.value
        for target, source in pairs:
            if value == target or value.startswith(target + "/"):
                value = source + value[len(target):]
                break
        mapped_words.append(word if value == word.value else Word(value, value))
    mapped = any(m is not w for m, w in zip(mapped_words, command))
    workdir = service.get("working_dir") if isinstance(service.get("working_dir"), str) else None
    scope = inv.scope.copy() if mapped else Scope(workdir, "/root", {}, set(), remote=True)
    child = SimpleCommand(mapped_words, " ".join(w.display() for w in command), inv.cmd.span, scope,
                          f"{inv.cmd.via} › {label}" if inv.cmd.via else label, depth=inv.cmd.depth + 1)
    run.judge(child, inv.cmd.depth + 1)
