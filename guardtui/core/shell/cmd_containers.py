"""Commands that run a command somewhere else on this machine: containers and pods.

`docker run -v /:/host alpine rm -rf /host` deletes the host's root: the container's
command is judged like any other, with bind-mounted paths mapped back to the host. Paths
that are not mounted live inside the container; they are judged as on another machine.
"""
from __future__ import annotations

import fnmatch
import json
import os
import posixpath
import re
from typing import TYPE_CHECKING

from ..carried import context_files, secrets_among
from ..model import BlastRadius
from ..secrets import secret_catalog
from ..web import host_of, metadata_service
from .deletes import whole_listing
from .findings import Finding, allow, ask, deny
from .projectfiles import read_text
from .secrets import dumps_a_credential_file, is_secret, secret_in_text
from .parse import SimpleCommand
from .mounts import host_path, to_host
from .words import DYN, Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_DOCKER_RUN_VALUES = {
    "-a", "--attach", "--add-host", "--blkio-weight", "-c", "--cpu-shares", "--cap-add", "--cap-drop", "--cgroupns",
    "--cidfile", "--cpus", "--cpuset-cpus", "--device", "--dns", "-e", "--env", "--env-file", "--entrypoint",
    "--expose", "--gpus", "--group-add", "-h", "--hostname", "--health-cmd", "--ip", "--ipc", "-l", "--label",
    "--label-file", "--link", "--log-driver", "--log-opt", "-m", "--memory", "--mount", "--name", "--network",
    "--net", "--network-alias", "--pid", "--platform", "-p", "--publish", "--pull", "--restart", "--runtime",
    "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--tmpfs", "-u", "--user", "--ulimit",
    "--userns", "--uts", "-v", "--volume", "--volumes-from", "-w", "--workdir", "--mac-address", "--memory-swap",
    "--init-path", "--isolation", "--kernel-memory", "--detach-keys", "--storage-opt", "--sysctl"}
_GLOBAL_VALUES = {"--context", "-c", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert", "--tlscert",
                  "--tlskey"}  # docker --context NAME run …: the global options before the verb that take a value
_DOCKER_EXEC_VALUES = {"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"}


def docker(run: "Run", inv: "Invocation") -> list[Finding]:
    """docker/podman run|exec|create: judge the command the container runs."""

    args = inv.words
    if [w.value for w in args[:2]] in (["volume", "rm"], ["volume", "remove"]) and \
            re.search(r"\bvolume (ls|list)\b", whole_listing(inv) or ""):
        # docker volume rm $(docker volume ls -q), or the listing piped through xargs
        return [deny(f"{inv.name} volume rm $({inv.name} volume ls -q) deletes every volume and its data", "container",
                     "container.volumes")]
    remote = _remote_daemon(inv, run)
    if remote is not None:
        return remote
    verb = next((w.value for w in args if not w.value.startswith("-")), "")
    if verb in ("tag", "push", "build", "buildx", "image", "commit"):
        # an image name that carries a secret ($(grep TOKEN .env)) is sent to whoever pulls it
        carried = next((w for w in args if ("$(" in w.raw or "`" in w.raw) and
                        secret_in_text(w.raw + " " + w.origin, inv.scope)), None)
        if carried is not None:
            return [deny(f"{inv.name} {verb} puts a secret into an image's name or contents ({carried.raw[:50]}), "
                         "which a registry publishes", "secrets", "container.secret-in-image")]
    if verb in ("build", "buildx", "image", "builder"):
        baked = _secret_build_arg(args, inv)
        if baked is not None:
            return [baked]
    positionals = _positionals(args)
    copy = positionals[1:] if positionals and positionals[0].value == "cp" else \
        positionals[2:] if len(positionals) > 1 and [p.value for p in positionals[:2]] == ["container", "cp"] else None
    if copy is not None and len(copy) == 2:
        # docker cp CONTAINER:SRC DEST writes DEST on this machine (a copy over it, like cp's)
        dest = copy[1]
        if not re.match(r"^[\w.-]+:", dest.value) and dest.value != "-":
            f = run.write(dest, inv, f"{inv.name} cp ")
            return [f] if f is not None else []
        return []
    if not positionals or positionals[0].value not in ("run", "exec", "create") and \
            not (positionals[0].value == "container" and len(positionals) > 1
                 and positionals[1].value in ("run", "exec", "create")):
        return []
    start = args.index(positionals[0]) + (2 if positionals[0].value == "container" else 1)
    action = positionals[1].value if positionals[0].value == "container" else positionals[0].value
    values = _DOCKER_EXEC_VALUES if action == "exec" else _DOCKER_RUN_VALUES
    mounts: list[tuple[str, str]] = []  # (container path, host path)
    workdir: str | None = None
    entrypoint: Word | None = None
    i = start
    while i < len(args):
        arg = args[i].value
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-"):
            break
        name, eq, attached = arg.partition("=")
        value = attached if eq else (args[i + 1].value if name in values and i + 1 < len(args) else "")
        if name in ("-v", "--volume"):
            _add_volume(value, mounts, inv)
        elif name == "--mount":
            _add_mount(value, mounts, inv)
        elif name in ("-w", "--workdir"):
            workdir = value
        elif name == "--entrypoint" and value:
            entrypoint = Word(value, value)  # what runs, the command's words its arguments
        i += 1 if (eq or name not in values) else 2
    rest = args[i:]
    if entrypoint is not None and rest:
        rest = rest[:1] + [entrypoint] + rest[1:]
    for target, host in mounts:  # whatever runs inside may change a writable mount: the protection rule reads this
        if not target.endswith(":ro"):  # (the mounted path and what lies right in it: `-v ~/.claude:/c`)
            run.effect(host, host, "write", inv.cmd, detail="mentioned", members=("*",))
    mounts = [(t.removesuffix(":ro"), h) for t, h in mounts]
    if len(rest) < 2:  # no command after the image/container
        return []
    for w in rest[1:]:  # curlimages/curl http://instance-data/…: the container asks the cloud host's metadata service
        host = host_of(w.value.split(DYN, 1)[0]) if "://" in w.value else None
        service = metadata_service(host) if host else None
        if service:
            return [deny(f"{inv.name} {action} has the container reach {service} ({w.display()[:60]}), which hands out "
                         "the cloud machine's credentials", "secrets", "net.metadata")]
    command = [to_host(w, mounts) for w in rest[1:]]
    program = re.sub(r"[:@].*$", "", rest[0].value.rsplit("/", 1)[-1])
    if command[0].value.startswith("-") and re.fullmatch(r"[a-z][\w.-]*", program) and action != "exec":
        command = [Word(program, program)] + command  # curlimages/curl -s URL: the image's entrypoint is its name
    mapped = any(m is not w for m, w in zip(command, rest[1:]))
    scope = inv.scope.copy() if mapped else Scope(workdir, "/root", {}, set(), remote=True)
    child = SimpleCommand(command, " ".join(w.display() for w in rest[1:]), inv.cmd.span, scope,
                          _label(inv, f"{inv.name} {action}"), depth=inv.cmd.depth + 1)
    with run.feeding(child.via, inv.cmd):  # docker exec -i C python - < x.py: x.py runs in the container
        run.judge(child, inv.cmd.depth + 1)
    return []


_TOKEN_COMMANDS = re.compile(r"\b(?:gh|glab) auth token\b|\bauth print-(?:access|identity)-token\b|get-login-password|"
                             r"get-authorization-token|\bvault (?:kv )?(?:read|get)\b|\bop (?:read|item get)\b|"
                             r"\bsecret(?:s)? (?:get|read|show)\b")
_SECRET_NAME = re.compile(r"\$\{?\w*(?:TOKEN|SECRET|PASSW(?:OR)?D|API_?KEY|PRIVATE_?KEY|CREDENTIAL|ACCESS_?KEY)\w*", re.I)


def _secret_build_arg(args: list[Word], inv: "Invocation") -> Finding | None:
    """`docker buildx build --push --build-arg TOKEN=$(gh auth token)`, `bake --set '*.args.X=…'`: a build arg is
    kept in the image's history and its provenance attestation; pushed, the registry hands it to every puller."""
    values = [w.value for w in args]
    pushed = "--push" in values or any(re.search(r"(?:^|,)(?:push=true|type=registry)", v) for v in values)
    for i, w in enumerate(args):
        if w.value in ("--build-arg", "--set") and i + 1 < len(args):
            arg = args[i + 1]
        elif w.value.startswith(("--build-arg=", "--set=")):
            arg = w
        else:
            continue
        if w.value.startswith("--set") and ".args." not in arg.value:
            continue
        text = arg.raw + " " + arg.origin
        if _TOKEN_COMMANDS.search(text) or _SECRET_NAME.search(text) or secret_in_text(text, inv.scope) or dumps_a_credential_file(text, inv.scope) or \
                secret_catalog().credential_in_message(arg.value.partition("=")[2]):
            if pushed:
                return deny(f"{inv.name} bakes a secret into a pushed image as a build arg ({arg.raw[:60]}): its "
                            "history and provenance carry it to whoever pulls the image (use --secret)", "secrets",
                            "container.secret-in-image")
            return ask(f"{inv.name} passes a secret as a build arg ({arg.raw[:60]}): the image's history keeps it "
                       "(use --secret)", "secrets", BlastRadius.HIGH, "container.secret-in-image")
    return None


def _positionals(args: list[Word]) -> list[Word]:
    """The words that are no option, past the global options' values (`docker --context NAME run …`)."""
    out: list[Word] = []
    skip = False
    for w in args:
        if skip:
            skip = False
        elif w.value.startswith("-"):
            skip = not out and w.value in _GLOBAL_VALUES
        else:
            out.append(w)
    return out


_DAEMON_HOST = re.compile(r"(?:tcp|ssh|https?)://(?:[^@/\s]*@)?(\[[^\]]+\]|[^:/\s,]+)")
_LOCAL_HOSTS = re.compile(r"(?i)^(?:localhost|127\.\d+\.\d+\.\d+|\[?::1\]?|0\.0\.0\.0|host\.docker\.internal)$")
_CONTEXT_SECRETS = re.compile(r"^(?:\.env(?:\.(?!example$|sample$|template$|dist$)[\w.-]+)?|\.npmrc|\.pypirc|"
                              r"id_(?:rsa|ed25519|ecdsa)|.*\.pem|.*\.key|credentials(?:\.json)?)$")


def _remote_daemon(inv: "Invocation", run: "Run | None" = None) -> list[Finding] | None:
    """Docker talking to another machine's daemon: `docker context create --docker host=tcp://…` points later
    calls there (asks); a build sent there (DOCKER_HOST, -H, a context made above) uploads its context, so one
    that holds secret files or hands over --secret from the home directory sends them off the machine."""
    words = [w.value for w in inv.words]
    positionals = [w for i, w in enumerate(words) if not w.startswith("-") and
                   not (i and words[i - 1] in ("-H", "--host", "-c", "--context", "--config", "-l", "--log-level"))]
    if positionals[:2] == ["context", "create"]:
        host = next((m.group(1) for w in words for m in [_DAEMON_HOST.search(w)] if m), None)
        if host and not _LOCAL_HOSTS.match(host):
            if run is not None and len(positionals) > 2:  # `docker --context NAME build` later in the session is sent there
                run.result.leaves[_CONTEXT_FACT + positionals[2]] = host
            return [ask(f"{inv.name} context create points docker at the daemon on {host}: what later calls build "
                        "or run is sent there", "network", BlastRadius.MEDIUM, "container.remote-daemon")]
        return None
    host = None
    for i, word in enumerate(words):
        value = words[i + 1] if word in ("-H", "--host") and i + 1 < len(words) else \
            word.partition("=")[2] if word.startswith("--host=") else ""
        m = _DAEMON_HOST.search(value) if value else None
        host = host or (m.group(1) if m else None)
    environment = inv.scope.variables.get("DOCKER_HOST") or ""
    m = _DAEMON_HOST.search(environment) if isinstance(environment, str) else None
    host = host or (m.group(1) if m else None)
    host = host or _context_host(inv, words)
    if host is None or _LOCAL_HOSTS.match(host):
        return None
    building = positionals[:1] == ["build"] or positionals[:2] in (["buildx", "build"], ["image", "build"])
    if not building:
        return None
    for word in words:  # --secret id=npmrc,src=$HOME/.npmrc
        src = re.search(r"(?:^|,)(?:src|source)=([^,]+)", word) if word.startswith(("id=", "type=", "src=")) else None
        if src and is_secret(posixpath.normpath(posixpath.join(inv.scope.cwd or "/", src.group(1))), inv.scope.home):
            return [deny(f"{inv.name} build hands {src.group(1)} (a secret) to the daemon on {host}, another machine",
                         "secrets", "container.remote-daemon")]
    context = positionals[-1] if len(positionals) > 1 and not positionals[-1].startswith(("http", "git@")) else "."
    directory = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", context))
    dockerfile = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-f", "--file")), None)
    listed = context_files(directory, posixpath.join(directory, dockerfile) if dockerfile else None)
    found = secrets_among(directory, listed[0], inv.scope.home) if listed else []
    leaked = found[0][0] if found else _context_secrets(directory)
    if leaked:
        return [deny(f"{inv.name} build uploads its context to the daemon on {host}, another machine, with "
                     f"{leaked} in it (a secret no .dockerignore leaves out)", "secrets", "container.remote-daemon")]
    return [ask(f"{inv.name} build uploads the build context to the daemon on {host}, another machine", "network",
                BlastRadius.MEDIUM, "container.remote-daemon")]


_CONTEXT_FACT = "docker-context:"  # session fact: a docker context made earlier -> the daemon's host


def _context_host(inv: "Invocation", words: list[str]) -> str | None:
    """The daemon host of the docker context a call names (`--context NAME`, `-c NAME`, DOCKER_CONTEXT): made
    earlier in the session, or read from ~/.docker/contexts/meta/*/meta.json."""
    name = inv.scope.variables.get("DOCKER_CONTEXT") if isinstance(inv.scope.variables.get("DOCKER_CONTEXT"), str) \
        else None
    for i, w in enumerate(words):
        if not name and w in ("-c", "--context") and i + 1 < len(words):
            name = words[i + 1]
        elif w.startswith("--context="):
            name = w.partition("=")[2]
        if not w.startswith("-"):
            break  # the options after the subcommand are its own (`buildx build --context` is not this)
    if not name or name in ("default", "desktop-linux") or DYN in name:
        return None
    host = inv.scope.facts.get(_CONTEXT_FACT + name)
    if host:
        return host
    meta_root = posixpath.join(os.environ.get("DOCKER_CONFIG") or posixpath.join(inv.scope.home, ".docker"),
                               "contexts", "meta")
    try:
        entries = sorted(os.listdir(meta_root))[:256]
    except OSError:
        return None
    for entry in entries:
        try:
            meta = json.loads(read_text(posixpath.join(meta_root, entry, "meta.json")) or "{}")
        except ValueError:
            continue
        if isinstance(meta, dict) and meta.get("Name") == name:
            endpoint = ((meta.get("Endpoints") or {}).get("docker") or {}).get("Host") or ""
            m = _DAEMON_HOST.search(endpoint) if isinstance(endpoint, str) else None
            return m.group(1) if m else None
    return None


def _context_secrets(directory: str) -> str | None:
    try:
        names = sorted(os.listdir(directory))[:512]
    except OSError:
        return None
    ignore = read_text(posixpath.join(directory, ".dockerignore")) or ""
    ignored = [line.strip().lstrip("/") for line in ignore.splitlines() if line.strip() and not line.startswith("#")]
    for name in names:
        if _CONTEXT_SECRETS.match(name) and not any(fnmatch.fnmatchcase(name, p) or p in ("*", "**") for p in ignored):
            return name
    return None


def kubectl(run: "Run", inv: "Invocation") -> list[Finding]:
    """kubectl exec POD -- CMD, kubectl run NAME --image I -- CMD (debug too): judge CMD as on another machine
    (a pod reaching the node's metadata endpoint gets its cloud credentials just the same)."""
    words = [w.value for w in inv.words]
    if "delete" in words[:3]:
        namespace = _manifest_namespace(inv, words)
        if namespace:  # kubectl delete -k overlays/prod: the overlay holds the namespace itself
            return [deny(f"{inv.name} delete removes the namespace {namespace} its manifests define, and everything "
                         "in it", "kubernetes", "container.delete-namespace-manifest")]
    if not any(w in words for w in ("exec", "run", "debug")) or "--" not in words:
        return []
    command = inv.words[words.index("--") + 1:]
    if not command:
        return []
    child = SimpleCommand(command, " ".join(w.display() for w in command), inv.cmd.span,
                          Scope(None, "/root", {}, set(), remote=True), _label(inv, "kubectl exec"),
                          depth=inv.cmd.depth + 1)
    with run.feeding(child.via, inv.cmd):  # kubectl exec -i P -- python3 - < x.py: x.py runs in the pod
        run.judge(child, inv.cmd.depth + 1)
    return []


def _manifest_namespace(inv: "Invocation", words: list[str]) -> str | None:
    """The Namespace a `kubectl delete -f FILE|DIR` / `-k DIR` manifest set defines (kustomize resources followed a
    few levels), or None."""
    roots = [(words[i + 1], w in ("-k", "--kustomize")) for i, w in enumerate(words[:-1])
             if w in ("-f", "--filename", "-k", "--kustomize") and DYN not in words[i + 1]]
    roots += [(w.partition("=")[2], w.startswith("--kustomize=")) for w in words
              if w.startswith(("--filename=", "--kustomize=")) and DYN not in w]
    seen: set[str] = set()
    todo = [(posixpath.normpath(posixpath.join(inv.scope.cwd or "/", r)), k, 0) for r, k in roots]
    while todo and len(seen) < 64:
        path, kustomize, depth = todo.pop()
        if path in seen or depth > 4 or inv.scope.remote:
            continue
        seen.add(path)
        if os.path.isdir(path):
            if kustomize:
                for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
                    if os.path.isfile(posixpath.join(path, name)):
                        todo.append((posixpath.join(path, name), True, depth + 1))
            else:
                try:
                    todo += [(posixpath.join(path, n), False, depth + 1) for n in sorted(os.listdir(path))[:64]
                             if n.endswith((".yaml", ".yml", ".json"))]
                except OSError:
                    pass
            continue
        text = read_text(path) or ""
        m = re.search(r"(?ms)^kind:\s*Namespace\s*$.*?^\s+name:\s*['\"]?([\w.-]+)", text) or \
            re.search(r"(?ms)^metadata:\s*\n\s+name:\s*['\"]?([\w.-]+).*?^kind:\s*Namespace\s*$", text)
        if m:
            return m.group(1)
        if posixpath.basename(path).startswith(("kustomization", "Kustomization")):
            base = posixpath.dirname(path)
            for entry in re.findall(r"(?m)^\s*-\s*['\"]?([\w./-]+)['\"]?\s*$", text)[:32]:
                target = posixpath.normpath(posixpath.join(base, entry))
                todo.append((target, os.path.isdir(target), depth + 1))
    return None


def _add_volume(spec: str, mounts: list, inv: "Invocation") -> None:
    host, sep, rest = spec.partition(":")
    if not sep or not host:
        return
    target, _, options = rest.partition(":")
    if host.startswith(("/", ".", "~")) and target.startswith("/"):
        read_only = "ro" in options.split(",")
        mounts.append((target + (":ro" if read_only else ""), host_path(host, inv)))


def _add_mount(spec: str, mounts: list, inv: "Invocation") -> None:
    fields = dict(part.partition("=")[::2] for part in spec.split(","))
    source = fields.get("source") or fields.get("src")
    target = fields.get("target") or fields.get("destination") or fields.get("dst")
    if fields.get("type", "volume") == "bind" and source and target:
        read_only = any(k in fields for k in ("readonly", "ro")) and fields.get("readonly", "true") != "false"
        mounts.append((target + (":ro" if read_only else ""), host_path(source, inv)))


def _label(inv: "Invocation", what: str) -> str:
    return f"{inv.cmd.via} › {what}" if inv.cmd.via else what


# --- clusters that live on this machine ------------------------------------------------------------------------
# kind/k3d/minikube start and stop their own clusters (docker containers or a VM here): local work, unless
# the cluster mounts a host path from outside the project into the nodes
# (deleting one still asks: tests/shell cases label `k3d cluster delete dev` ask, sessions-11 labels a kind delete allow)
_LIFECYCLE = {"kind": (("create",), ("cluster",)),
              "k3d": (("cluster",), ("create", "start", "stop")),
              "minikube": (("start", "stop", "pause", "unpause"), ())}
_HOST_MOUNTS = ("-v", "--volume", "--mount-string", "--mount", "--extra-mounts")


def local_cluster(run: "Run", inv: "Invocation") -> list[Finding]:
    """`kind create cluster --name charts --config hack/kind.yaml`, `k3d cluster stop dev`, `minikube stop`:
    quiet; --all, host mounts outside the project and unreadable configs fall through to the taxonomy (asks)."""
    words = [w.value for w in inv.words]
    positionals = [w for w in words if not w.startswith("-")]
    first, second = _LIFECYCLE[inv.name]
    if not positionals or positionals[0] not in first or (second and (len(positionals) < 2 or
                                                                        positionals[1] not in second)):
        return []
    if any(w in ("--all", "-a", "-A") or w.split("=", 1)[0] in _HOST_MOUNTS for w in words) or \
            any(DYN in w for w in words) or inv.scope.remote:
        return []
    configs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--config", "-c")] + \
        [w.partition("=")[2] for w in words if w.startswith("--config=")]
    for config in configs:
        path = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", config))
        text = read_text(path)
        if text is None or not _mounts_inside(text, inv.scope.project or inv.scope.cwd):
            return []
    return [allow(f"{inv.name} {' '.join(positionals[:2])} starts or stops a cluster on this machine",
                  "kubernetes", rule="container.local-cluster")]


def _mounts_inside(config: str, project: str | None) -> bool:
    """Every hostPath a kind/k3d config mounts into its nodes lies inside the project (none is fine)."""
    paths = re.findall(r"(?m)^\s*-?\s*(?:hostPath|hostpath|host_path)\s*:\s*['\"]?([^'\"\s#]+)", config)
    if re.search(r"(?i)volumes\s*:|extraMounts\s*:", config) and not paths:
        return False  # mounts written in a shape this reading does not follow: not judged quiet
    return all(project is not None and not path.startswith("~") and
               (posixpath.normpath(posixpath.join(project, path)) + "/").startswith(project.rstrip("/") + "/")
               for path in paths)
