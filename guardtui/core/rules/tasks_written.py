"""A project's task file written: what the write adds or changes is judged as running it would be.

The shell analysis reads a Makefile, a justfile, a Taskfile, package.json's scripts, composer.json's scripts,
deno.json's tasks and pyproject's poe tasks when a command runs them, and a person later types `make db-reset`
or `just test` trusting the name. A write that plants a catastrophe in a task file (a `db-reset` target dropping
the database, a recipe whose misspelt variable makes it `rm -rf /*`, a test recipe deleting the guard's plugins)
is judged now by the same analysis, as if the file already held the new text. In a package's manifest
(package.json, composer.json, deno.json, pyproject.toml), which is its configuration too, only a deny that
switches off the guard counts (a `pretest` deleting the hook settings), as for planted commands. Only the units the write adds or
changes are run (the targets, recipes, scripts or tasks whose text differs, a target whose recipe uses a
variable whose value changed), and only a deny counts; a unit that already denied before the write is not this
write's doing. What would ask keeps the write allowed: it is asked about when it runs.

A standalone script (scripts/x.sh, tools/y.py) is not judged here: writing it does nothing by itself, and
running it is judged then (the corpora label such writes allow)."""
from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Callable

from ..model import Decision
from .planted import GUARD_CATEGORIES
from ..shell.projectfiles import (MAKEFILE_NAMES, as_if_written, load_json, load_justfile, load_makefile,
                                  load_toml, load_yaml_mapping)

MAX_UNITS = 8  # units judged for one write (each is a whole run through the shell analysis)

JUSTFILE_NAMES = frozenset({"justfile", "Justfile", ".justfile", "JUSTFILE"})
TASKFILE_NAMES = frozenset({"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml",
                            "Taskfile.dist.yaml"})
DENO_NAMES = frozenset({"deno.json", "deno.jsonc"})
# a package's manifest is its configuration as much as its tasks: there, as for planted commands (planted.py), only a
# deny that switches off the guard counts; the scripts' other denies are judged when they run
MANIFESTS = frozenset({"package.json", "composer.json", "pyproject.toml"}) | DENO_NAMES

# `denied(command, cwd)`: the deny running `command` in `cwd` gets, else None
Denied = Callable[[str, str], "Decision | None"]


def changed_runs(path: str, old: str | None, new: str) -> list[tuple[str, str]]:
    """The commands that run what the write of `path` adds or changes (`old`: the file before, None when new),
    each with the unit it runs; [] when the file is not one the shell analysis judges by its content."""
    name = posixpath.basename(path)
    q = shlex.quote(name)
    if name in MAKEFILE_NAMES:
        units = _changed(_make_units(path, old), _make_units(path, new))
        return [(f"make -f {q} {shlex.quote(u)}", f"target {u}") for u in units]
    if name in JUSTFILE_NAMES:
        units = _changed(_just_units(path, old), _just_units(path, new))
        return [(f"just --justfile {q} {shlex.quote(u)}", f"recipe {u}") for u in units]
    if name == "package.json":
        scripts = _mapping_units(path, new, "scripts")
        units = _changed(_mapping_units(path, old, "scripts"), scripts)
        return [(_npm_command(u, scripts), f"script {u}") for u in units]
    if name in TASKFILE_NAMES:
        units = _changed(_mapping_units(path, old, "tasks"), _mapping_units(path, new, "tasks"))
        return [(f"task -t {q} {shlex.quote(u)}", f"task {u}") for u in units]
    if name == "composer.json":
        units = _changed(_mapping_units(path, old, "scripts"), _mapping_units(path, new, "scripts"))
        return [(f"composer run-script {shlex.quote(u)}", f"script {u}") for u in units]
    if name in DENO_NAMES:
        units = _changed(_mapping_units(path, old, "tasks"), _mapping_units(path, new, "tasks"))
        return [(f"deno task {shlex.quote(u)}", f"task {u}") for u in units]
    if name == "pyproject.toml":
        units = _changed(_poe_units(path, old), _poe_units(path, new))
        return [(f"poe {shlex.quote(u)}", f"task {u}") for u in units]
    return []


def _npm_command(script: str, scripts: dict[str, str]) -> str:
    """What runs a package.json script: `npm run NAME`; a pre/post script runs with its own (`pretest` with
    `npm run test`), an install lifecycle script with `npm install`."""
    if script in ("preinstall", "install", "postinstall", "prepare"):
        return "npm install"
    base = re.sub(r"^(?:pre|post)", "", script)
    return f"npm run {shlex.quote(base if base != script and base in scripts else script)}"


def judge_written(path: str, old: str | None, new: str, denied: Denied) -> tuple[str, Decision] | None:
    """The first unit the write adds or changes whose run denies and did not deny before: (unit, its deny)."""
    directory = posixpath.dirname(path)
    manifest = posixpath.basename(path) in MANIFESTS
    for command, unit in changed_runs(path, old, new)[:MAX_UNITS]:
        with as_if_written(path, new):
            decision = denied(command, directory)
        if decision is None or manifest and decision.category not in GUARD_CATEGORIES:
            continue
        if old is not None and _same(denied(command, directory), decision):
            continue  # it denied before this write: not what the write plants
        return unit, decision
    return None


def _same(before: Decision | None, after: Decision) -> bool:
    """The same deny, the lines it names aside (an edit above it moves them)."""
    strip = lambda text: re.sub(r"(?<=:)\d+(?=:)", "", text)  # noqa: E731
    return before is not None and strip(before.reason) == strip(after.reason)


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The units `after` adds or whose text differs from `before`'s, in `after`'s order."""
    return [name for name, text in after.items() if before.get(name) != text]


_VARIABLE_USE = re.compile(r"\$[({]([A-Za-z_.][\w.-]*)[)}]|\$([A-Za-z_])")


def _make_units(path: str, text: str | None) -> dict[str, str]:
    """Each target the person may name, with its rule's text and the values of the variables its recipe uses."""
    if text is None:
        return {}
    make = load_makefile(path, text=text)
    if make is None:
        return {}
    units: dict[str, str] = {}
    for rule in make.rules:
        recipe = "\n".join(line for _, line in rule.recipe)
        used = sorted({a or b for a, b in _VARIABLE_USE.findall(recipe)})
        values = "\n".join(f"{v}={make.variables.get(v)!r}" for v in used)
        for target in rule.targets:
            if target.startswith(".") or "%" in target or "$" in target:
                continue
            units[target] = units.get(target, "") + f"{' '.join(rule.prerequisites)}\n{recipe}\n{values}\n"
    return units


def _just_units(path: str, text: str | None) -> dict[str, str]:
    if text is None:
        return {}
    just = load_justfile(path, text=text)
    if just is None:
        return {}
    return {name: f"{r.params} {r.dependencies} {r.attributes}\n" + "\n".join(t for _, t in r.body)
            for name, r in just.recipes.items()}


def _mapping_units(path: str, text: str | None, key: str) -> dict[str, str]:
    """The entries under `key` (package.json's scripts, a Taskfile's tasks), each as its text, read as the task
    runners' handlers read the file."""
    data = _load(path, text)
    entries = data.get(key) if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {str(name): json.dumps(value, sort_keys=True, default=str) for name, value in entries.items()}


def _poe_units(path: str, text: str | None) -> dict[str, str]:
    data = _load(path, text)
    tasks = ((data.get("tool") or {}).get("poe") or {}).get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return {}
    return {str(name): json.dumps(value, sort_keys=True, default=str) for name, value in tasks.items()}


def _load(path: str, text: str | None) -> dict | None:
    if text is None:
        return None
    loader = load_toml if path.endswith(".toml") else load_json if path.endswith((".json", ".jsonc")) \
        else load_yaml_mapping
    with as_if_written(path, text):
        return loader(path)
