"""Code a Python library loads because a configuration file names it (data/libconfigs.yaml): matplotlib's
`backend: module://x` in a matplotlibrc, logging.config.fileConfig's handler `args` (evaluated) and `class`,
Hydra's `_target_` called with `_args_` by instantiate. Read here, size-capped; nothing here judges.

    code_for_script(text, script_dir, cwd, home, variables) -> [(kind, payload, config)]
    code_in_config(path_or_text, library)                   -> [(kind, payload)]
kind: "module" (a dotted name imported), "python" (an expression evaluated), "shell" (a command line).
"""
from __future__ import annotations

import ast
import glob as _glob
import os
import posixpath
import re
from functools import lru_cache
from importlib import resources

import yaml

from ..yamlfile import Field, check, load_yaml
from .projectfiles import read_text

_CODE = {"match": Field(str), "key": Field(str), "as": Field(str, required=True, choices=("module", "python", "call"))}
_LIBRARY = {"name": Field(str, required=True), "uses": Field(list, required=True, items=str),
            "files": Field(list, items=str), "dir_file": Field(str), "named_files": Field(str),
            "config_dirs": Field(str), "config_name": Field(str), "groups": Field(bool),
            "overridden_by": Field(list, items=str), "overridden_in_script": Field(str),
            "variables": Field(dict, values=Field(dict, fields=_CODE)),
            "code": Field(list, required=True, items=_CODE)}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "libraries": Field(list, required=True, items=_LIBRARY)}
MAX_CONFIGS = 24
_SHELL_TARGETS = frozenset({"os.system", "os.popen", "subprocess.run", "subprocess.call", "subprocess.Popen",
                            "subprocess.check_call", "subprocess.check_output", "subprocess.getoutput", "posix.system",
                            "pty.spawn", "os.execvp", "os.execv"})
_CODE_TARGETS = frozenset({"builtins.exec", "builtins.eval", "exec", "eval", "builtins.compile"})


@lru_cache(maxsize=1)
def libraries() -> tuple[dict, ...]:
    text = resources.files("guardtui.core.data").joinpath("libconfigs.yaml").read_text(encoding="utf-8")
    return parse_libconfigs(text, "guardtui/core/data/libconfigs.yaml")


def parse_libconfigs(text: str, file: str = "libconfigs.yaml") -> tuple[dict, ...]:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    return tuple(doc.data["libraries"])


def library_named(name: str) -> dict | None:
    return next((lib for lib in libraries() if lib["name"] == name), None)


def code_for_script(text: str, script_dir: str, cwd: str, home: str, variables: dict[str, str],
                    args: list[str] | None = None) -> list[tuple[str, str, str]]:
    """What the configuration files of the libraries the script uses make them load (`args`: the script's
    arguments, when known)."""
    out: list[tuple[str, str, str]] = []
    for lib in libraries():
        if not any(re.search(p, text) for p in lib["uses"]):
            continue
        for name, code in (lib.get("variables") or {}).items():  # MPLBACKEND=module://x: the variable names it
            value = variables.get(name)
            m = re.search(code["match"], value) if isinstance(value, str) and code.get("match") else None
            if m:
                out.append((code["as"], m.group(1).strip(), "$" + name))
        if any(variables.get(v) for v in lib.get("overridden_by") or ()) or \
                lib.get("overridden_in_script") and re.search(lib["overridden_in_script"], text):
            continue  # the setting that would load code is overridden where the script runs
        for config in _configs(lib, text, script_dir, cwd, home, variables, args)[:MAX_CONFIGS]:
            out += [(kind, payload, config) for kind, payload in code_in_config(read_text(config) or "", lib, config)]
    return out


def _configs(lib: dict, text: str, script_dir: str, cwd: str, home: str, variables: dict[str, str],
             args: list[str] | None) -> list[str]:
    found: list[str] = []

    def add(path: str) -> None:
        path = posixpath.normpath(path)
        if os.path.isdir(path) and lib.get("dir_file"):
            path = posixpath.join(path, lib["dir_file"])
        if path not in found and os.path.isfile(path):
            found.append(path)

    for entry in lib.get("files") or ():
        if entry.startswith("$"):
            name, _, rest = entry[1:].partition("/")
            value = variables.get(name)
            if not value or "\x00" in value:
                continue
            entry = value + ("/" + rest if rest else "")
        if entry.startswith("~/"):
            entry = home.rstrip("/") + entry[1:]
        add(entry if entry.startswith("/") else posixpath.join(cwd, entry))
    if lib.get("named_files"):
        given = [a for a in args or () if a and "\x00" not in a and re.search(lib["named_files"], a)]
        # a file named on the command line is the one used (`--log-config logging.dev.ini` over the default)
        for string in given or _string_constants(text):
            if re.search(lib["named_files"], string) and "\x00" not in string:
                for base in dict.fromkeys([cwd, script_dir]):
                    add(posixpath.join(base, string))
    if lib.get("config_dirs"):
        for m in re.finditer(lib["config_dirs"], text):
            directory = posixpath.normpath(posixpath.join(script_dir, m.group(1)))
            if not os.path.isdir(directory):
                continue
            selected = _selected(lib, text, directory, args) if lib.get("groups") else None
            for path in selected if selected is not None else \
                    sorted(_glob.glob(posixpath.join(directory, "**", "*.yaml"), recursive=True))[:MAX_CONFIGS]:
                add(path)
    return found


def _selected(lib: dict, text: str, directory: str, args: list[str] | None) -> list[str] | None:
    """The config files a run composes (Hydra): the primary config, the group options its `defaults` list names
    and those the command's `group=option` / `+group=option` arguments select; None when that cannot be told
    (no config_name, arguments unknown): then every file counts."""
    m = re.search(lib.get("config_name") or r"(?!)", text)
    if m is None or args is None or any(a is None or "\x00" in a for a in args):
        return None
    files: list[str] = []
    queue = [posixpath.join(directory, m.group(1) + ("" if m.group(1).endswith(".yaml") else ".yaml"))]
    for arg in args:
        group, eq, option = arg.lstrip("+~").partition("=")
        if eq and re.fullmatch(r"[\w/.-]+", group) and re.fullmatch(r"[\w.-]+", option):
            queue.append(posixpath.join(directory, group.replace(".", "/"), option + ".yaml"))
    while queue and len(files) < MAX_CONFIGS:
        path = posixpath.normpath(queue.pop(0))
        if path in files or not os.path.isfile(path):
            continue
        files.append(path)
        try:
            data = yaml.safe_load(read_text(path) or "")
        except yaml.YAMLError:
            return None
        for entry in (data.get("defaults") or []) if isinstance(data, dict) else []:
            if isinstance(entry, str) and entry != "_self_":
                queue.append(posixpath.join(posixpath.dirname(path), entry + ".yaml"))
            elif isinstance(entry, dict):
                for group, option in entry.items():
                    if isinstance(option, str):
                        base = directory if str(group).startswith("/") else posixpath.dirname(path)
                        name = str(group).lstrip("/").removeprefix("override ").strip()
                        queue.append(posixpath.join(base, name, option + ".yaml"))
    return files


def _string_constants(text: str) -> list[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return re.findall(r"[\"']([^\"'\n]{1,200})[\"']", text)
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and len(n.value) < 300]


def code_in_config(text: str, lib: dict, path: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for code in lib["code"]:
        if code.get("match"):
            for m in list(re.finditer(code["match"], text))[:MAX_CONFIGS]:
                out.append((code["as"], m.group(1).strip()))
        elif code.get("key") and code["as"] == "call":
            out += _calls(text, code["key"])
    return out


def _calls(text: str, key: str) -> list[tuple[str, str]]:
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return []
    out: list[tuple[str, str]] = []
    stack = list(docs)
    while stack and len(out) < MAX_CONFIGS:
        node = stack.pop()
        if isinstance(node, dict):
            target = node.get(key)
            if isinstance(target, str):
                out += _call(target, node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def _call(target: str, node: dict) -> list[tuple[str, str]]:
    args = node.get("_args_") or []
    args = args if isinstance(args, list) else [args]
    for name in ("command", "cmd", "args", "source", "code"):
        if name in node:
            args = args + [node[name]]
    first = args[0] if args else None
    words = [str(a) for a in first] if isinstance(first, list) else None
    if target in _SHELL_TARGETS and first is not None:
        return [("shell", " ".join(_quote(w) for w in words) if words is not None else str(first))]
    if target in _CODE_TARGETS and isinstance(first, str):
        return [("python", first)]
    module = target.rpartition(".")[0]
    return [("module", module)] if module and re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", module) else []


def _quote(word: str) -> str:
    import shlex
    return shlex.quote(word)
