"""What a tool call does, named the same way whatever tool or spelling does it, so that a retry
of something denied earlier in the session is recognised: `rm -rf src/legacy`, `find src/legacy
-delete`, `python -c "shutil.rmtree('src/legacy')"` and an MCP filesystem delete are all
("delete", "/project/src/legacy"); `psql -c "DROP TABLE users"` and an MCP postgres query are
("sql", "drop table users"); `kubectl delete ns shop` and an MCP kubernetes delete are
("k8s-delete", "namespace/shop").

Only effects that destroy something are named (deletes, SQL that changes data, resources
deleted): denying one write to a file must not forbid every later edit of it.
"""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from .model import ToolCall
    from .rules.base import EvalContext
    from .shell.findings import ShellAnalysis

Effect = tuple[str, str]  # (kind, target)

_READ_SQL = re.compile(r"^\s*(select|show|explain(?!\s+analy[sz]e)|describe|desc|with\s+\w+\s+as\s*\(\s*select|"
                       r"pragma\s+\w+\s*$|values|table\s)", re.I)
_K8S_KINDS = {"ns": "namespace", "namespaces": "namespace", "deploy": "deployment", "deployments": "deployment",
              "po": "pod", "pods": "pod", "svc": "service", "services": "service", "sts": "statefulset",
              "statefulsets": "statefulset", "ds": "daemonset", "daemonsets": "daemonset", "cm": "configmap",
              "configmaps": "configmap", "secrets": "secret", "pvc": "persistentvolumeclaim",
              "persistentvolumeclaims": "persistentvolumeclaim", "pv": "persistentvolume",
              "persistentvolumes": "persistentvolume", "ing": "ingress", "ingresses": "ingress", "jobs": "job",
              "cronjobs": "cronjob", "cj": "cronjob", "rs": "replicaset", "replicasets": "replicaset",
              "crd": "customresourcedefinition", "crds": "customresourcedefinition", "sa": "serviceaccount",
              "serviceaccounts": "serviceaccount", "no": "node", "nodes": "node"}


def normalise_sql(statement: str) -> str:
    """One spelling of a SQL statement: comments dropped, case folded outside quotes, spaces and
    identifier quotes collapsed, the trailing `;` gone."""
    text = re.sub(r"--[^\n]*|/\*.*?\*/", " ", statement, flags=re.S)
    parts = re.split(r"('(?:''|[^'])*')", text)
    text = "".join(p if p.startswith("'") else p.lower().replace('"', "").replace("`", "") for p in parts)
    return " ".join(text.split()).rstrip(";").strip()


def sql_effects(text: str) -> list[Effect]:
    """The statements of a SQL text that change something, one effect each."""
    out = []
    for statement in re.split(r";\s*(?=(?:[^']*'[^']*')*[^']*$)", text):
        norm = normalise_sql(statement)
        if norm and not _READ_SQL.match(norm) and norm not in ("begin", "commit", "rollback"):
            out.append(("sql", norm))
    return out


def k8s_kind(kind: str) -> str:
    kind = kind.lower().split(".", 1)[0]
    return _K8S_KINDS.get(kind, kind[:-1] if kind.endswith("s") and kind not in ("ingress",) else kind)


def shell_acts(name: str, args: list[str], cwd: str | None) -> list[Effect]:
    """Resources a command deletes, named tool-independently (the file deletes come from the shell
    analysis's own file effects)."""
    positionals = [a for a in args if not a.startswith("-")]
    out: list[Effect] = []
    if name in ("kubectl", "oc") and positionals[:1] == ["delete"] and len(positionals) > 1:
        target = positionals[1]
        if "/" in target:
            for item in positionals[1:]:
                kind, _, resource = item.partition("/")
                if resource:
                    out.append(("k8s-delete", f"{k8s_kind(kind)}/{resource}"))
        else:
            out += [("k8s-delete", f"{k8s_kind(target)}/{n}") for n in positionals[2:]]
    elif name == "helm" and positionals[:1] in (["uninstall"], ["delete"], ["del"], ["un"]):
        out += [("helm-release-delete", n) for n in positionals[1:]]
    elif name in ("gh", "glab") and positionals[:2] == ["repo", "delete"] and len(positionals) > 2:
        out.append(("repo-delete", positionals[2].lower()))
    elif name == "aws" and positionals[:2] in (["s3", "rb"], ["s3", "rm"]) and len(positionals) > 2:
        bucket = re.match(r"s3://([^/]+)/?$", positionals[2])
        if bucket and (positionals[1] == "rb" or "--recursive" in args):
            out.append(("bucket-delete", bucket.group(1)))
    elif name == "aws" and positionals[:2] == ["s3api", "delete-bucket"]:
        value = _option(args, "--bucket")
        if value:
            out.append(("bucket-delete", value))
    elif name in ("gsutil", "gcloud"):
        bucket = next((m.group(1) for a in positionals if (m := re.match(r"gs://([^/]+)/?$", a))), None)
        if bucket and ("rb" in positionals or "delete" in positionals or
                       ("rm" in positionals and any(a in ("-r", "-R", "--recursive") for a in args))):
            out.append(("bucket-delete", bucket))
    elif name == "dropdb" and positionals:
        out.append(("sql", f"drop database {positionals[-1].lower()}"))
    elif name in ("terraform", "tofu", "terragrunt") and ("destroy" in positionals or ("apply" in positionals and
                                                                          "-destroy" in args)):
        chdir = next((a.partition("=")[2] for a in args if a.startswith("-chdir=")), "")
        directory = posixpath.normpath(posixpath.join(cwd or "/", chdir)) if cwd else chdir or "."
        # `-target` narrows the destroy to those resources: another effect than tearing down the stack
        targets = sorted({t for t in _options(args, ("-target", "--target")) if t})
        out.append(("terraform-destroy", directory + "".join(f" -target={t}" for t in targets)))
    return out


def _options(args: list[str], flags: tuple[str, ...]) -> list[str]:
    """Every value given to one of `flags` (`-target=a -target b`)."""
    out = []
    for i, a in enumerate(args):
        if a in flags and i + 1 < len(args):
            out.append(args[i + 1])
        elif a.partition("=")[0] in flags and "=" in a:
            out.append(a.partition("=")[2])
    return out


def _option(args: list[str], flag: str) -> str | None:
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(flag + "="):
            return a.partition("=")[2]
    return None


def shell_effects(analysis: "ShellAnalysis", segments: set[str] | None = None) -> set[Effect]:
    """`segments`: only the deletes done by these parts of the command (the ones that asked or were
    denied: `rm -rf /tmp/x && git push -f` denied is not a denial of cleaning /tmp/x)."""
    # a narrowed delete (git clean's untracked files, a find's -name matches) is not a delete of the path itself
    out: set[Effect] = {("delete", e.path) for e in analysis.effects if e.kind == "delete" and e.path and
                        not e.remote and not e.only and not e.members and (segments is None or e.segment in segments)}
    out.update(analysis.acts)
    return out


# -- other tools (MCP servers and the like): read from the tool's name and arguments ------------------
_DELETE_WORDS = re.compile(r"(?:^|[_\-.])(delete|remove|rm|drop|destroy|uninstall|purge|unlink|trash|erase)"
                           r"(?:[_\-.]|$)", re.I)
_PATH_KEYS = ("path", "file_path", "filePath", "filepath", "file", "directory", "dir", "target", "source")
_SQL_KEYS = ("sql", "query", "statement", "statements", "command")


def tool_effects(call: "ToolCall", home: str) -> set[Effect]:
    """Effects of a call that is not a shell command: SQL it runs, files and resources it deletes."""
    tool = call.tool
    name = tool.rsplit("__", 1)[-1]
    args = dict(call.input)
    out: set[Effect] = set()
    for key in _SQL_KEYS:
        value = args.get(key)
        if isinstance(value, str) and re.search(r"(?i)\b(select|insert|update|delete|drop|truncate|alter|create|"
                                                r"grant|revoke|merge|replace)\b", value):
            out.update(sql_effects(value))
    if not _DELETE_WORDS.search(name):
        return out
    lowered = name.lower()
    kind = _first_str(args, ("kind", "resource_type", "resourceType", "type", "resource"))
    resource = _first_str(args, ("name", "resource_name", "resourceName", "namespace_name"))
    if "namespace" in lowered and (resource or _first_str(args, ("namespace",))):
        out.add(("k8s-delete", f"namespace/{resource or _first_str(args, ('namespace',))}"))
    elif kind and resource and ("kube" in tool.lower() or "k8s" in tool.lower() or "resource" in lowered):
        out.add(("k8s-delete", f"{k8s_kind(kind)}/{resource}"))
    if "repo" in lowered:
        owner, repo = _first_str(args, ("owner", "org", "organization")), _first_str(args, ("repo", "repository",
                                                                                            "name"))
        if repo:
            out.add(("repo-delete", (f"{owner}/{repo}" if owner and "/" not in repo else repo).lower()))
    if "bucket" in lowered:
        bucket = _first_str(args, ("bucket", "bucket_name", "bucketName", "Bucket", "name"))
        if bucket:
            out.add(("bucket-delete", re.sub(r"^(s3|gs)://", "", bucket).rstrip("/")))
    if "database" in lowered or re.search(r"(^|_)db(_|$)", lowered):
        database = _first_str(args, ("database", "database_name", "db", "name"))
        if database:
            out.add(("sql", f"drop database {database.lower()}"))
    if "release" in lowered and "helm" in tool.lower() and resource:
        out.add(("helm-release-delete", resource))
    for key in _PATH_KEYS:
        for value in _strings(args.get(key)):
            out.add(("delete", _resolve(value, call.cwd, home)))
    for value in _strings(args.get("paths")):
        out.add(("delete", _resolve(value, call.cwd, home)))
    return out


def _first_str(args: Mapping[str, Any], keys: Iterable[str]) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def _resolve(path: str, cwd: str, home: str) -> str:
    if path.startswith("file://"):
        path = path[len("file://"):]
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    if not path.startswith("/"):
        path = posixpath.join(cwd or "/", path)
    return posixpath.normpath(path)


def call_effects(call: "ToolCall", ctx: "EvalContext", segments: set[str] | None = None) -> set[Effect]:
    """The destructive effects of any call, by the same names whatever the tool (`segments`: of a shell
    command, only those parts)."""
    if call.is_shell:
        return shell_effects(ctx.shell(call), segments) if call.command.strip() else set()
    if call.tool in ("Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "Glob", "Grep", "LS", "WebFetch",
                     "WebSearch", "TodoWrite", "Task"):
        return set()
    return tool_effects(call, ctx.home)


def describe(effect: Effect) -> str:
    kind, target = effect
    if kind == "delete":
        return f"deleting {target}"
    if kind == "sql":
        return f"the SQL `{target[:80]}`"
    if kind == "k8s-delete":
        resource_kind, _, name = target.partition("/")
        return f"deleting the {resource_kind} {name}"
    if kind == "repo-delete":
        return f"deleting the repository {target}"
    if kind == "bucket-delete":
        return f"deleting the bucket {target}"
    if kind == "helm-release-delete":
        return f"uninstalling the helm release {target}"
    if kind == "terraform-destroy":
        directory, _, targets = target.partition(" -target=")
        if targets:
            return f"destroying {targets.replace(' -target=', ', ')} in the terraform stack in {directory}"
        return f"destroying the terraform stack in {target}"
    return f"{kind} {target}"


__all__ = ["Effect", "normalise_sql", "sql_effects", "shell_acts", "shell_effects", "tool_effects", "call_effects",
           "describe", "k8s_kind"]
