"""Settings that name a program a tool runs later (data/later_settings.yaml): R's compiler in ~/.R/Makevars,
cargo's credential providers, terraform's dev_overrides, a docker credential helper or CLI plugin directory, a
rustup or asdf path toolchain, podman's hooks_dir, gpg-agent's pinentry-program; the environment variables that do
the same (R_PROFILE_USER, TF_CLI_CONFIG_FILE, SCONSFLAGS's --site-dir) and the commands that register such a
program (xdg-mime default, rustup toolchain link).

Each returns the shell commands the later run amounts to (`/project/tools/cc-wrap`, `Rscript tools/profile.R`);
nothing here judges: the runs-later rule judges them as the agent's own calls."""
from __future__ import annotations

import fnmatch
import glob
import json
import os
import posixpath
import re
import shlex
import shutil
import tomllib
from functools import lru_cache

from ..catalog import later_settings
from ..shell.projectfiles import language_of, read_text
from .later_kinds import RUNNERS, _walk, commands_in, parse_structured

_MAX = 16  # commands per file: a directory of programs is judged up to this many
_ASSIGNMENT = r"(?m)^\s*(?:export\s+|set\s+-gx\s+|setenv\s+|declare\s+-x\s+)?{name}(?:=|\s+)(?P<v>.*?)\s*;?\s*$"


@lru_cache(maxsize=8)
def _file_patterns(home: str) -> tuple[tuple[re.Pattern, dict], ...]:
    out = []
    for spec in later_settings()["files"]:
        for p in spec["paths"]:
            glob_ = home.rstrip("/") + p[1:] if p.startswith("~/") else p
            out.append((re.compile(fnmatch.translate(glob_)), spec))
    return tuple(out)


def _tool(name: str) -> dict | None:
    return next((s for s in later_settings()["files"] if s["tool"] == name), None)


def settings_programs(text: str, path: str, home: str, project: str = "", depth: int = 0) -> list[str]:
    """What a later run of the tool whose settings file `path` is (holding `text`) runs of the programs it names."""
    spec = next((s for pattern, s in _file_patterns(home) if pattern.match(path)), None)
    return _tool_programs(spec, text, path, home, project, depth) if spec else []


def _tool_programs(spec: dict, text: str, path: str, home: str, project: str, depth: int) -> list[str]:
    cwd = _base(path, home)
    out: list[str] = []
    for key, value in _settings(text, path, spec.get("format")):
        for run in spec["run"]:
            if re.fullmatch(run["key"], key, re.I):
                out += _expand(run, value, cwd, home, project, depth)
    if spec.get("variables"):
        out += variable_programs(text, cwd, home, project, depth)
    return out[:_MAX]


def variable_programs(text: str, cwd: str, home: str, project: str = "", depth: int = 0) -> list[str]:
    """What the variables `text` sets (a start-up file's exports, `VAR=value cmd`) make a tool run later."""
    out: list[str] = []
    for variable in later_settings().get("variables") or ():
        for m in re.finditer(_ASSIGNMENT.format(name=re.escape(variable["name"])), text):
            value = _unquote(m.group("v"))
            run = dict(variable, key="")
            if variable.get("file"):
                run.update({"as": "{path}", "read": variable["file"]})
            out += _expand(run, value, cwd, home, project, depth)
    return out[:_MAX]


def registered_programs(command: str, cwd: str, home: str, project: str = "") -> list[str]:
    """What a command registers for later runs (xdg-mime default X.desktop, rustup toolchain link NAME DIR)."""
    out: list[str] = []
    for entry in later_settings().get("commands") or ():
        for m in re.finditer(entry["match"], command):
            out += _expand(entry, m.group(1), cwd, home, project, 0)
    # `VAR=value cmd`, `export VAR=value; cmd`, `env VAR=value cmd`: the variable is set for what runs now
    assignments = []
    for segment in re.split(r"[;&|\n()]+", command):
        try:
            words = shlex.split(segment)
        except ValueError:
            words = segment.split()
        while words and (words[0] in ("export", "declare", "env", "typeset") or words[0].startswith("-")):
            words = words[1:]
        for word in words:
            if not re.match(r"[A-Za-z_]\w*=", word):
                break
            name, _, value = word.partition("=")
            assignments.append(f"{name}={shlex.quote(value)}")
    return (out + variable_programs("\n".join(assignments), cwd, home, project))[:_MAX]


def _expand(run: dict, value: object, cwd: str, home: str, project: str, depth: int) -> list[str]:
    """The commands one setting's value amounts to, by its `as` template (and `read`, a file read as settings)."""
    if isinstance(value, dict):  # credHelpers {registry: helper}, dev_overrides {provider: dir}
        values = [v for v in value.values() if isinstance(v, str)]
    elif isinstance(value, list):
        words = [str(v) for v in value if isinstance(v, (str, int, float))]
        values = [" ".join(shlex.quote(w) for w in words)] if run.get("words") else words
    elif isinstance(value, (str, int, float)):
        values = [str(value)]
    else:
        values = []
    out: list[str] = []
    for raw in values:
        if run.get("value"):
            m = re.search(run["value"], raw)
            if m is None:
                continue
            raw = m.group(1)
        raw = _unquote(raw.strip())
        if not raw:
            continue
        path = _resolve(raw, cwd, home)
        result = run["as"].replace("{path}", path).replace("{}", raw)
        if run.get("read") or "*" in result:  # files on disk: a directory's programs, a settings file to read
            for target in sorted(glob.glob(result))[:_MAX] if "*" in result else [result]:
                if run.get("read"):
                    out += _read_as(run["read"], _resolve(target, cwd, home), home, depth, project)
                elif os.path.isfile(target):
                    out.append(_run_file(target))
            continue
        command = run["as"].replace("{path}", shlex.quote(path)).replace("{}", raw)
        if re.fullmatch(r"[\w.+-]+", command) and project:  # a helper found by name: the project's own, if it holds one
            command = shlex.quote(_project_program(command, project) or command)
        out.append(_run_first_file(command, cwd, home))
    return out


_INSTALLED = ("/usr/", "/bin/", "/sbin/", "/opt/", "/nix/", "/snap/", "/lib/", "/etc/")


def _run_file(path: str) -> str:
    """A program file as the command that runs it by what it holds, not by its name (a planted `bin/cargo` is a
    shell script, not cargo): `sh FILE`, `python3 FILE`…; a file it cannot read (a binary) by its path."""
    text = read_text(path)
    language = language_of(path, text) if text is not None else None
    if text is None or path.startswith(_INSTALLED):
        return shlex.quote(path)
    runner = "sh" if language in (None, "shell") else RUNNERS.get(language)
    return f"{runner} {shlex.quote(path)}" if runner else shlex.quote(path)


def _run_first_file(command: str, cwd: str, home: str) -> str:
    """A command line whose program is a file on disk (CC = tools/gcc): run by what the file holds."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if not words or "/" not in words[0]:
        return command
    path = _resolve(words[0], cwd, home)
    if not os.path.isfile(path) or path.startswith(_INSTALLED):
        return command
    return " ".join([_run_file(path), *(shlex.quote(w) for w in words[1:])])


def _project_program(name: str, project: str) -> str | None:
    """A file named `name` in the project (a planted helper a PATH entry may reach), searched a few levels deep."""
    if shutil.which(name):
        return None
    for top, dirs, files in os.walk(project):
        if name in files:
            return posixpath.join(top, name)
        if top.count("/") - project.count("/") >= 3:
            dirs[:] = []
        else:
            dirs[:] = [d for d in dirs if d not in ("node_modules", ".git", "target", "build", "dist", ".venv")][:32]
    return None


def _read_as(kind: str, path: str, home: str, depth: int, project: str) -> list[str]:
    if depth > 2:
        return []
    text = read_text(path)
    if text is None:
        return []
    if kind in ("oci-hook", "oci-hook-self"):
        return _oci_hook(text)
    if kind == "desktop":
        return commands_in(text, "desktop", home, path)
    spec = _tool(kind)
    return _tool_programs(spec, text, path, home, project, depth + 1) if spec else []


def _oci_hook(text: str) -> list[str]:
    """An OCI hook's program: hook.path run with hook.args (whose first word is the program's own name)."""
    try:
        data = json.loads(text)
    except ValueError:
        return [text]
    hook = data.get("hook") if isinstance(data, dict) else None
    if not isinstance(hook, dict) or not isinstance(hook.get("path"), str):
        return []
    args = [str(a) for a in hook.get("args") or () if isinstance(a, (str, int, float))][1:]
    return [" ".join(shlex.quote(w) for w in [hook["path"], *args])]


def _settings(text: str, path: str, form: str | None) -> list[tuple[str, object]]:
    """(name, value) of every setting: a TOML/JSON/YAML key at any depth, a `KEY = value` line, an HCL entry
    (given both as its own name and as its block's)."""
    if form == "hcl":
        return _hcl(text)
    if not path.endswith((".json", ".toml", ".yml", ".yaml")):  # containers.conf, a bare rust-toolchain: TOML if it parses
        try:
            return [(key, value) for key, value, _ in _walk(tomllib.loads(text))]
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            pass
    data = parse_structured(text, path)
    if isinstance(data, dict) and not path.endswith((".json", ".toml", ".yml", ".yaml")):
        # make-style and shell-style pairs: `CC = x`, `CC := x`, `CC += x`
        return [(k, re.sub(r"^[:+?]?=\s*", "", v) if isinstance(v, str) else v) for k, v in data.items()]
    if data is None:
        return []
    return [(key, value) for key, value, _ in _walk(data)]


def _hcl(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    blocks: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"\s*(?:#|//).*$", "", line).strip()
        opened = re.match(r'^([\w-]+)(?:\s+"[^"]*")*\s*\{\s*(\}?)$', line)
        if opened:
            if not opened.group(2):
                blocks.append(opened.group(1))
            continue
        if line.startswith("}"):
            if blocks:
                blocks.pop()
            continue
        m = re.match(r'^"?([^"=\s]+)"?\s*=\s*"([^"]*)"$', line)
        if m:
            out.append((m.group(1), m.group(2)))
            if blocks:
                out.append((blocks[-1], m.group(2)))
    return out


def _base(path: str, home: str) -> str:
    directory = posixpath.dirname(path)
    return posixpath.dirname(directory) if posixpath.basename(directory) in (".cargo", ".docker", "src") else directory


def _resolve(value: str, cwd: str, home: str) -> str:
    value = re.sub(r"^(?:~|\$HOME|\$\{HOME\}|\$\(HOME\))(?=/|$)", home, value)
    value = re.sub(r"^(?:\$PWD|\$\{PWD\}|\$\(pwd\)|\$\(CURDIR\))(?=/|$)", cwd, value)
    return posixpath.normpath(value if value.startswith("/") else posixpath.join(cwd or "/", value))


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'" else value
