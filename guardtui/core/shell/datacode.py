"""Data that runs code when a program loads it: a pickle (os.system on unpickling), a YAML document with
python/object tags (yaml.unsafe_load), a model directory whose config maps to its own Python modules
(from_pretrained(trust_remote_code=True)). Read here, size-capped; nothing here judges.

    loaders_in(script_text)          -> {"pickle", "yaml", "remote-code"}: what the script loads unsafely
    code_in_data(path, loaders)      -> [("shell", "rm -rf ~"), ("python", "…"), ("python-file", "/p/m.py")]
"""
from __future__ import annotations

import io
import json
import os
import pickletools
import posixpath
import re

from .projectfiles import read_text

MAX_DATA_BYTES = 1024 * 1024
_LOADERS = {
    "pickle": re.compile(r"\b(?:c?pickle|dill|cloudpickle|joblib|pandas|pd)\.(?:load|loads|read_pickle)\s*\(|"
                         r"\btorch\.load\s*\((?![^)]*weights_only\s*=\s*True)"),
    "yaml": re.compile(r"\byaml\.(?:unsafe_load(?:_all)?|full_load(?:_all)?)\s*\(|"
                       r"\byaml\.load(?:_all)?\s*\([^)]*Loader\s*=\s*(?:yaml\.)?(?:Unsafe|Full)?Loader\b"),
    "remote-code": re.compile(r"trust_remote_code\s*=\s*True"),
}
_SHELL_CALLS = {("os", "system"), ("posix", "system"), ("nt", "system"), ("os", "popen"), ("posix", "popen"),
                ("subprocess", "call"), ("subprocess", "run"), ("subprocess", "Popen"), ("subprocess", "check_call"),
                ("subprocess", "check_output"), ("subprocess", "getoutput"), ("commands", "getoutput")}
_CODE_CALLS = {("builtins", "exec"), ("builtins", "eval"), ("__builtin__", "exec"), ("__builtin__", "eval")}
_YAML_TAG = re.compile(r"!!python/object/(?:apply|new):([\w.]+)\s*(?:\[\s*)?(?P<q>['\"])(?P<arg>(?:(?!(?P=q)).)*)(?P=q)")


def loaders_in(text: str) -> set[str]:
    """The kinds of data the script loads in a way that runs code."""
    return {kind for kind, pattern in _LOADERS.items() if pattern.search(text)}


def code_in_data(path: str, loaders: set[str]) -> list[tuple[str, str]]:
    """What loading the file (or model directory) at `path` runs, by the loaders the script uses."""
    out: list[tuple[str, str]] = []
    if "remote-code" in loaders and os.path.isdir(path):
        out += _remote_code(path)
    if not os.path.isfile(path):
        return out
    if "yaml" in loaders:
        for m in _YAML_TAG.finditer(read_text(path) or ""):
            module, _, name = m.group(1).rpartition(".")
            out += _call((module, name), [m.group("arg")])
    if "pickle" in loaders:
        out += _pickle(path)
    return out


def _call(target: tuple[str, str], strings: list[str]) -> list[tuple[str, str]]:
    if not strings:
        return []
    if target in _SHELL_CALLS:
        return [("shell", strings[0])]
    if target in _CODE_CALLS:
        return [("python", strings[0])]
    return []


def _pickle(path: str) -> list[tuple[str, str]]:
    """The shell commands and code a pickle's REDUCE calls on os.system, subprocess, exec or eval."""
    try:
        if os.path.getsize(path) > MAX_DATA_BYTES:
            return []
        with open(path, "rb") as fh:
            data = fh.read(MAX_DATA_BYTES)
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    strings: list[str] = []
    target: tuple[str, str] | None = None
    try:
        for op, arg, _ in pickletools.genops(io.BytesIO(data)):
            if op.name == "GLOBAL" and isinstance(arg, str):
                module, _, name = arg.partition(" ")
                target, strings = (module, name), []
            elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                target, strings = (strings[-2], strings[-1]), []
            elif isinstance(arg, str) and ("UNICODE" in op.name or "STRING" in op.name):
                strings.append(arg)
            elif op.name == "REDUCE" and target is not None:
                out += _call(target, strings)
                target, strings = None, []
    except Exception:  # a malformed pickle: what it would run cannot be read, pickle.load fails there too
        return out
    return out[:8]


def _remote_code(directory: str) -> list[tuple[str, str]]:
    """A model directory whose config.json maps classes to its own modules: those modules are imported."""
    try:
        config = json.loads(read_text(posixpath.join(directory, "config.json")) or "{}")
    except ValueError:
        return []
    mapping = config.get("auto_map") if isinstance(config, dict) else None
    modules = {str(v).split(".")[0] for v in (mapping or {}).values() if isinstance(v, str)}
    return [("python-file", posixpath.join(directory, f"{m}.py")) for m in sorted(modules)[:8]
            if re.fullmatch(r"\w+", m) and os.path.isfile(posixpath.join(directory, f"{m}.py"))]
