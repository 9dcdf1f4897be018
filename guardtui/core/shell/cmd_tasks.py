"""Task runners: what `npm run build`, `make test`, `turbo run build`, `just deploy` … will run,
read from the project's own files on this machine and judged as the commands they are.

package.json scripts (npm, pnpm, yarn, bun, with workspaces, filters and npm's pre/post
hooks), Makefile recipes (the goal and its prerequisites, variables, -f, -C), justfile
recipes, turbo / nx / lerna tasks (the package scripts they fan out to), rake tasks,
composer scripts, poe tasks and Taskfile tasks. Each recipe or script is judged through the
shell analysis (or as a program in its language), and what it does is reported with the file
and line it comes from. When the file cannot be read or the task is not found, the command is
left to the taxonomy, as before.
"""
from __future__ import annotations

import os
import posixpath
import re
import shlex
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, allow, ask, deny
from .invocation import UNKNOWN_WORD, Invocation, Origin
from .projectfiles import (MAKEFILE_NAMES, Package, filter_packages, find_justfile, find_upward,
                           language_of, load_dotenv, load_json, load_justfile, load_makefile, load_package, load_toml,
                           load_yaml_mapping, make_goal, makefile_path, nearest_package, python_module_file, read_text,
                           shown, workspace_packages, workspace_root)
from .words import DYN, Scope, Word
from .toolcode import LOCAL_BINS, in_home, judge_shadowing_programs

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Run

MAX_TASKS = 64  # tasks (rules, scripts) judged for one command


def _scope(inv: Invocation, cwd: str | None) -> Scope:
    return Scope(cwd, inv.scope.home, project=inv.scope.project, facts=dict(inv.scope.facts))


def _shown(inv: Invocation, path: str) -> str:
    return shown(path, inv.scope.project or inv.scope.cwd)


def _cwd(inv: Invocation, directory: str | None) -> str | None:
    if directory is None:
        return inv.scope.cwd
    if DYN in directory:
        return None
    if directory.startswith("/"):
        return posixpath.normpath(directory)
    return posixpath.normpath(posixpath.join(inv.scope.cwd, directory)) if inv.scope.cwd else None


def _changed(run: "Run", inv: Invocation, *paths: str | None) -> list[Finding]:
    """An ask when this command changed the task file before running the task (`sed -i … Makefile && make`)."""
    for path in paths:
        finding = run.changed_earlier(path, inv) if path else None
        if finding is not None:
            return [finding]
    return []


def _judge_text(run: "Run", inv: Invocation, text: str, origin: Origin, cwd: str | None, label: str,
                language: str = "shell") -> None:
    run.program(text, language, inv, origin, _scope(inv, cwd), label)


# -- package.json scripts ------------------------------------------------------------------------
_PM_VALUE_OPTIONS = {"--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "-F", "--filter", "--loglevel",
                     "--reporter", "--registry", "--workspace-concurrency", "--resume-from", "--userconfig",
                     "--cache", "--config", "-c", "--changed-files-ignore-pattern", "--test-pattern"}
_NPM_SCRIPT_COMMANDS = {"test": "test", "t": "test", "tst": "test", "start": "start", "stop": "stop",
                        "restart": "restart"}
_RUN_WORDS = ("run", "run-script", "rum", "urn")
_INSTALL_WORDS = ("install", "i", "ci", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
                  "add")
_LIFECYCLE = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare")
# the scripts packing runs (npm runs them with --dry-run too)
_PACKING = {"pack": ("prepack", "prepare", "postpack"),
            "publish": ("prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish")}
# subcommands of each package manager that are its own, not a script of that name
_PM_COMMON = frozenset({"install", "i", "ci", "add", "remove", "rm", "uninstall", "un", "update", "up", "upgrade",
                        "outdated", "list", "ls", "ll", "la", "why", "explain", "info", "view", "v", "show", "audit",
                        "pack", "publish", "unpublish", "link", "ln", "unlink", "init", "create", "config", "set",
                        "get", "cache", "exec", "x", "dlx", "help", "version", "login", "logout", "whoami",
                        "dedupe", "prune", "rebuild", "root", "bin", "prefix", "doctor", "fund", "repo", "docs",
                        "bugs", "search", "owner", "team", "access", "token", "profile", "deprecate", "dist-tag",
                        "edit", "explore", "hook", "org", "ping", "query", "sbom", "shrinkwrap", "star", "stars",
                        "unstar", "pkg", "diff", "import", "patch", "env", "licenses", "run", "run-script", "rum",
                        "urn", "test", "t", "tst", "start", "stop", "restart", "install-test", "it", "cit",
                        "clean-install", "completion"})
_PM_COMMANDS = {"npm": _PM_COMMON,
                "pnpm": _PM_COMMON | {"setup", "store", "fetch", "deploy", "server", "patch-commit", "patch-remove",
                                      "self-update", "approve-builds", "ignored-builds", "cat-file", "cat-index",
                                      "find-hash", "recursive", "multi", "node"},
                "yarn": _PM_COMMON | {"workspaces", "workspace", "node", "plugin", "constraints", "npm", "dlx",
                                      "set", "unplug", "autoclean", "check", "generate-lock-entry", "global",
                                      "policies", "tag", "upgrade-interactive", "stage", "sdks", "rebuild"},
                "bun": _PM_COMMON | {"build", "pm", "x", "repl", "upgrade", "completions", "discord", "feedback"}}


def package_manager(run: "Run", inv: Invocation) -> list[Finding]:
    """npm / pnpm / yarn / bun running a package.json script (or lifecycle scripts on install)."""
    pm = inv.name
    words = inv.words
    if pm == "bun" and any(w.value in ("-e", "--eval", "-p", "--print") for w in words):
        return []
    directory: str | None = None
    selectors: list[str] = []
    workspaces = recursive = ignore_scripts = False
    i = 0
    positionals: list[Word] = []
    while i < len(words):
        w = words[i].value
        if w == "--":
            positionals += words[i:]
            break
        if positionals and pm != "npm":  # pnpm/yarn/bun hand what follows the script name to the script
            positionals.append(words[i])
            i += 1
            continue
        flag, eq, value = w.partition("=")
        if pm == "pnpm" and flag in ("-w", "--workspace-root"):
            i += 1
            continue
        if flag in _PM_VALUE_OPTIONS:
            if not eq:
                value = words[i + 1].value if i + 1 < len(words) else ""
                i += 1
            if flag in ("--prefix", "-C", "--dir", "--cwd"):
                directory = value
            elif flag in ("-F", "--filter") or (flag in ("-w", "--workspace") and pm in ("npm",)):
                selectors.append(value)
        elif w in ("-ws", "--workspaces"):
            workspaces = True
        elif w in ("-r", "--recursive") or (pm == "pnpm" and w == "-r"):
            recursive = True
        elif w == "--ignore-scripts":
            ignore_scripts = True
        elif not w.startswith("-"):
            positionals.append(words[i])
        i += 1
    if any(w.dynamic for w in positionals[:2]):
        return []
    if [w.value for w in positionals[:2]] == ["pkg", "set"]:  # npm pkg set scripts.pretest='…': it runs later
        for w in positionals[2:]:
            key, eq, value = w.value.partition("=")
            if eq and key.startswith("scripts.") and value:
                run.nested(value, inv, f"{pm} pkg set {key}")
        return []
    cwd = _cwd(inv, directory)
    values = [w.value for w in positionals]
    if pm == "yarn" and values[:1] == ["workspace"] and len(values) > 2:  # yarn workspace NAME SCRIPT
        selectors.append(values[1])
        values = values[2:]
        workspaces = True
    elif pm == "yarn" and values[:1] == ["workspaces"]:  # yarn workspaces run X / foreach [-A] run X
        rest = [v for v in values[1:] if not v.startswith("-")]
        if rest[:1] == ["foreach"]:
            rest = rest[1:]
        if rest[:1] == ["run"] and len(rest) > 1:
            values, workspaces = rest, True
        else:
            return []
    if not values or values[0] in _INSTALL_WORDS and len(values) == 1:
        if ignore_scripts or (values and values[0] == "add"):
            return []
        # `npm install`, `yarn`: the project's own lifecycle scripts run
        _lifecycle(run, inv, cwd, pm)
        return []
    sub = values[0]
    if sub in ("link", "ln") and len(values) == 1 and cwd:  # npm link: this package's bins go on PATH
        judge_shadowing_programs(run, inv, cwd)
    if sub in _PACKING and not ignore_scripts:  # npm pack (--dry-run too), publish: the packing scripts run first
        _lifecycle(run, inv, cwd, pm, _PACKING[sub])
        return []
    if sub in _RUN_WORDS:
        if len(values) < 2:
            return []
        script, args = values[1], values[2:]
    elif pm == "npm" and sub in _NPM_SCRIPT_COMMANDS:
        script, args = _NPM_SCRIPT_COMMANDS[sub], values[1:]
    elif pm != "npm" and sub in ("test", "start", "stop", "restart") and not (pm == "bun" and sub == "test"):
        script, args = sub, values[1:]
    elif pm != "npm" and sub not in _PM_COMMANDS.get(pm, _PM_COMMON):
        script, args = sub, values[1:]  # `pnpm build`, `yarn lint`: a script, else a binary
    else:
        return []
    if args[:1] == ["--"]:
        args = args[1:]
    root = workspace_root(cwd) if (workspaces or recursive or selectors) else None
    if root is not None:
        packages = filter_packages(workspace_packages(root), root, selectors)
        changed = _changed(run, inv, root.path, *[p.path for p in packages])
        if changed:
            return changed
        judged = [p for p in packages if script in p.scripts]
        for package in judged[:MAX_TASKS]:
            _package_script(run, inv, package, script, args, pm, hooks=pm != "pnpm")
        if judged:
            return [allow(f"{pm} runs the {script} script of {len(judged)} package(s) (their commands are judged)",
                          "build-test", rule="tasks.package-script")]
        return []
    package = _package_here(run, cwd)
    if package is None:
        return []
    changed = _changed(run, inv, package.path)
    if changed:
        return changed
    if script in package.scripts:
        _package_script(run, inv, package, script, args, pm, hooks=pm != "pnpm" and not ignore_scripts)
        # the taxonomy's word on the command itself stands (`npm run deploy` asks) unless it only guessed
        # from the script's name: the script's commands were judged
        said = run.taxonomy(inv)
        if said and all(f.rule.startswith("taxonomy:") for f in said):
            return said
        return [allow(f"{pm} runs the project's {script} script (its commands are judged)", "build-test",
                      rule="tasks.package-script")]
    if pm == "bun" and ("/" in script or re.search(r"\.[cm]?[jt]sx?$", script)):
        return []  # `bun scripts/build.ts`: a program file, judged as the interpreter's script
    if pm != "npm" and sub not in _RUN_WORDS and sub not in ("test", "start", "stop", "restart") and \
            script in run.tax.wrappers:
        # `pnpm dotenv -e .env.production -- pnpm db:fresh`, `yarn cross-env X=1 cmd`: a binary that runs the
        # command after it, judged as that command line (the wrapper's own options skipped as the shell's are)
        run.nested(shlex.join([script, *args]), inv, f"{pm} {script}", _scope(inv, cwd))
        return [allow(f"{pm} {script} runs the command after it (judged)", "build-test", rule="tasks.package-bin")]
    if pm != "npm" and sub not in _RUN_WORDS and sub not in ("test", "start", "stop", "restart"):
        # `pnpm turbo run build`, `yarn eslint .`: the package's own binary of that name
        found = run.judge_invocation(Invocation(script, [Word.literal(a) for a in args], inv.cmd, _scope(inv, cwd),
                                                inv.privileged, script))
        return [f for f in found if f.rule not in ("shell.unknown",)] or \
            [allow(f"{pm} {script} runs the project's {script} binary", "build-test", rule="tasks.package-bin")]
    return []


def _package_here(run: "Run", cwd: str | None) -> Package | None:
    """The package.json a package manager uses from cwd: one this command wrote above (with its text),
    else the nearest on disk."""
    if cwd:
        here = posixpath.join(cwd, "package.json")
        if here in run.written:
            return load_package(here, run.written[here])
    return nearest_package(cwd)


def _package_script(run: "Run", inv: Invocation, package: Package, script: str, args: list[str], pm: str,
                    hooks: bool = True) -> None:
    names = ([f"pre{script}"] if hooks else []) + [script] + ([f"post{script}"] if hooks else [])
    for name in names:
        text = package.scripts.get(name)
        if text is None:
            continue
        key = f"{package.path}#{name}"
        stop = run.enter_file(key)
        if stop is not None:
            continue
        try:
            if name == script and args:
                text = text + " " + " ".join(shlex.quote(a) for a in args)
            where = _shown(inv, package.path)
            scope = _scope(inv, package.dir)
            scope.facts[LOCAL_BINS] = package.dir  # the script finds node_modules/.bin's programs first
            run.program(text, "shell", inv, Origin(where, package.lines.get(name, 1)), scope,
                        f"{pm} run {name} › {where} scripts.{name}")
        finally:
            run.leave_file(key)


def _lifecycle(run: "Run", inv: Invocation, cwd: str | None, pm: str, names: tuple[str, ...] = _LIFECYCLE) -> None:
    package = nearest_package(cwd)
    if package is None:
        return
    for name in names:
        if name in package.scripts:
            _package_script(run, inv, package, name, [], pm, hooks=False)


# -- turbo, nx, lerna ------------------------------------------------------------------------------
_TURBO_VALUE_OPTIONS = {"--filter", "-F", "--scope", "--ignore", "--cwd", "--concurrency", "--cache-dir",
                        "--output-logs", "--log-order", "--env-mode", "--profile", "--summarize", "--team", "--token",
                        "--api", "--heap", "--cpuprofile", "--global-deps", "--ui", "--log-prefix", "--cache",
                        "--since", "--affected-base", "--graph"}
_TURBO_COMMANDS = frozenset({"prune", "login", "logout", "link", "unlink", "daemon", "gen", "generate", "telemetry",
                             "info", "ls", "query", "boundaries", "scan", "bin", "completion", "devtools", "docs"})


def turbo(run: "Run", inv: Invocation) -> list[Finding]:
    """turbo run TASK…: each workspace package's script of that name, and what turbo.json makes
    the task depend on (`dependsOn`), judged as the package manager would run them."""
    tasks, selectors, directory, dry = [], [], None, False
    words = inv.args
    i = 0
    while i < len(words):
        w = words[i]
        flag, eq, value = w.partition("=")
        if flag in _TURBO_VALUE_OPTIONS:
            if not eq and flag != "--graph":
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if flag in ("--filter", "-F", "--scope"):
                selectors.append(value)
            elif flag == "--cwd":
                directory = value
            dry |= flag == "--graph"
        elif w in ("--dry", "--dry-run", "--dry=json", "--dry-run=json") or w.startswith("--dry"):
            dry = True
        elif w == "--":
            break
        elif not w.startswith("-"):
            tasks.append(w)
        i += 1
    if tasks[:1] in (["run"], ["watch"]):
        tasks = tasks[1:]
    if not tasks or tasks[0] in _TURBO_COMMANDS or dry or any(DYN in t for t in tasks):
        return []
    root = workspace_root(_cwd(inv, directory))
    if root is None:
        return []
    packages = workspace_packages(root)
    chosen = filter_packages(packages, root, selectors)
    changed = _changed(run, inv, root.path, posixpath.join(root.dir, "turbo.json"), *[p.path for p in packages])
    if changed:
        return changed
    config = load_json(posixpath.join(root.dir, "turbo.json")) or {}
    pipeline = config.get("tasks") or config.get("pipeline") or {}
    pm = _package_manager_of(root)
    count = _fan_out(run, inv, root, packages, chosen, tasks, pipeline if isinstance(pipeline, dict) else {}, pm,
                     "turbo")
    if count:
        return [allow(f"turbo runs {' '.join(tasks)} in {count} package script(s) (their commands are judged)",
                      "build-test", rule="tasks.turbo")]
    return []


def _fan_out(run: "Run", inv: Invocation, root: Package, packages: list[Package], chosen: list[Package],
             tasks: list[str], graph: dict, pm: str, tool: str) -> int:
    """Judge `tasks` in the chosen packages, with what each task depends on (turbo's/nx's
    `dependsOn`: `^x` the same task in the packages depended on, `x` in the package, `pkg#x`)."""
    todo = [(p, t) for t in tasks for p in chosen]
    seen: set[tuple[str, str]] = set()
    count = 0
    while todo and len(seen) < MAX_TASKS:
        package, task = todo.pop(0)
        if (package.path, task) in seen:
            continue
        seen.add((package.path, task))
        spec = graph.get(f"{package.name}#{task}") or graph.get(task) or {}
        for dependency in (spec.get("dependsOn") or []) if isinstance(spec, dict) else []:
            if not isinstance(dependency, str):
                continue
            if dependency.startswith("^"):
                todo += [(p, dependency[1:]) for p in packages]
            elif "#" in dependency:
                name, _, dep_task = dependency.partition("#")
                todo += [(p, dep_task) for p in ([root] if name == "//" else packages) if p.name == name or
                         name == "//"]
            else:
                todo.append((package, dependency))
        if task in package.scripts:
            _package_script(run, inv, package, task, [], f"{tool} › {pm}", hooks=pm != "pnpm")
            count += 1
    for key in graph:
        if key.startswith("//#") and key[3:] in tasks and key[3:] in root.scripts:
            _package_script(run, inv, root, key[3:], [], f"{tool} › {pm}", hooks=pm != "pnpm")
            count += 1
    return count


def _package_manager_of(root: Package) -> str:
    declared = root.raw.get("packageManager")
    if isinstance(declared, str) and declared:
        return declared.split("@", 1)[0]
    for lock, pm in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"), ("bun.lock", "bun")):
        if find_upward(root.dir, (lock,), stop=root.dir):
            return pm
    return "npm"


_NX_COMMANDS = frozenset({"show", "graph", "list", "report", "format", "format:check", "format:write", "init",
                          "migrate", "generate", "g", "reset", "daemon", "release", "connect", "view-logs", "repair",
                          "sync", "sync:check", "add", "import", "watch", "print-affected", "affected:graph",
                          "login", "logout", "mcp", "configure-ai-agents"})
_NX_VALUE_OPTIONS = {"-t", "--target", "--targets", "-p", "--projects", "-c", "--configuration", "--exclude",
                     "--parallel", "--base", "--head", "--output-style", "--nxBail", "--runner"}


def nx(run: "Run", inv: Invocation) -> list[Finding]:
    """nx run PROJECT:TARGET, nx TARGET PROJECT, nx run-many/affected -t TARGET: the targets'
    commands (project.json run-commands, package.json scripts) judged."""
    words = inv.args
    targets: list[str] = []
    projects: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        flag, eq, value = w.partition("=")
        if flag in _NX_VALUE_OPTIONS:
            if not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if flag in ("-t", "--target", "--targets"):
                targets += [v for v in value.split(",") if v]
            elif flag in ("-p", "--projects"):
                projects += [v for v in value.split(",") if v]
        elif w == "--":
            break
        elif not w.startswith("-"):
            positionals.append(w)
        i += 1
    if not positionals or positionals[0] in _NX_COMMANDS or any(DYN in p for p in positionals + targets):
        return []
    if positionals[0] == "run" and len(positionals) > 1:
        project, _, target = positionals[1].partition(":")
        projects, targets = [project], [target.split(":")[0]] if target else []
    elif positionals[0] in ("run-many", "affected", "affected:build", "affected:test", "affected:lint"):
        if ":" in positionals[0]:
            targets.append(positionals[0].split(":", 1)[1])
    elif ":" in positionals[0]:
        project, _, target = positionals[0].partition(":")
        projects, targets = [project], [target.split(":")[0]]
    else:
        targets = [positionals[0]]
        projects = positionals[1:2]
    if not targets:
        return []
    root = workspace_root(inv.scope.cwd)
    if root is None:
        return []
    nx_json = load_json(posixpath.join(root.dir, "nx.json")) or {}
    defaults = nx_json.get("targetDefaults") if isinstance(nx_json.get("targetDefaults"), dict) else {}
    known = _nx_projects(root)
    chosen = [p for p in known if not projects or p[0] in projects or p[1].name in projects]
    count = 0
    todo = [(p, t) for t in targets for p in chosen]
    seen: set[tuple[str, str]] = set()
    while todo and len(seen) < MAX_TASKS:
        (name, package, config), target = todo.pop(0)
        if (package.dir, target) in seen:
            continue
        seen.add((package.dir, target))
        spec = (config.get("targets") or {}).get(target) if isinstance(config.get("targets"), dict) else None
        merged = {**(defaults.get(target) or {}), **(spec or {})} if isinstance(defaults.get(target) or {}, dict) \
            else (spec or {})
        for dependency in merged.get("dependsOn") or []:
            dep = dependency if isinstance(dependency, str) else (dependency.get("target") if
                                                                  isinstance(dependency, dict) else None)
            if not dep:
                continue
            if dep.startswith("^"):
                todo += [(p, dep[1:]) for p in known]
            else:
                todo.append(((name, package, config), dep))
        if spec:
            count += _nx_target(run, inv, root, package, config, target, spec)
        elif target in package.scripts:
            _package_script(run, inv, package, target, [], "nx", hooks=False)
            count += 1
    if count:
        return [allow(f"nx runs {', '.join(targets)} ({count} target(s); their commands are judged)", "build-test",
                      rule="tasks.nx")]
    return []


def _nx_projects(root: Package) -> list[tuple[str, Package, dict]]:
    """(name, package, project.json) for each project: workspace packages and project.json files."""
    out: dict[str, tuple[str, Package, dict]] = {}
    candidates = [root] + workspace_packages(root)
    for package in candidates:
        config = load_json(posixpath.join(package.dir, "project.json")) or {}
        name = config.get("name") if isinstance(config.get("name"), str) else package.name
        out[package.dir] = (name, package, config)
    for base in ("apps", "libs", "packages", "tools", "projects", "services"):
        for directory in _dirs_with(posixpath.join(root.dir, base), "project.json", 3):
            if directory in out:
                continue
            config = load_json(posixpath.join(directory, "project.json")) or {}
            package = load_package(posixpath.join(directory, "package.json")) or \
                Package(posixpath.join(directory, "package.json"), posixpath.basename(directory), {}, {})
            name = config.get("name") if isinstance(config.get("name"), str) else posixpath.basename(directory)
            out[directory] = (name, package, config)
    return list(out.values())


def _dirs_with(base: str, name: str, depth: int) -> list[str]:
    import os

    out: list[str] = []
    if depth < 0:
        return out
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return out
    if name in entries:
        out.append(base)
    for entry in entries:
        path = posixpath.join(base, entry)
        if entry not in ("node_modules", ".git", "dist") and not entry.startswith(".") and os.path.isdir(path) \
                and not os.path.islink(path):
            out += _dirs_with(path, name, depth - 1)
        if len(out) > 200:
            break
    return out


def _nx_target(run: "Run", inv: Invocation, root: Package, package: Package, config: dict, target: str,
               spec: dict) -> int:
    executor = spec.get("executor") or ""
    options = spec.get("options") if isinstance(spec.get("options"), dict) else {}
    where = _shown(inv, posixpath.join(package.dir, "project.json"))
    if executor == "nx:run-script" and isinstance(options.get("script"), str):
        if options["script"] in package.scripts:
            _package_script(run, inv, package, options["script"], [], "nx", hooks=False)
            return 1
        return 0
    commands = []
    if isinstance(spec.get("command"), str):
        commands.append(spec["command"])
    if executor == "nx:run-commands" or spec.get("command"):
        if isinstance(options.get("command"), str):
            commands.append(options["command"])
        for c in options.get("commands") or []:
            commands.append(c if isinstance(c, str) else c.get("command", "") if isinstance(c, dict) else "")
    cwd = options.get("cwd") if isinstance(options.get("cwd"), str) else None
    directory = posixpath.normpath(posixpath.join(root.dir, cwd)) if cwd else root.dir
    for command in commands:
        if command:
            key = f"{where}#{target}"
            if run.enter_file(key) is None:
                try:
                    _judge_text(run, inv, command, Origin(where, 1), directory, f"nx {target} › {where}")
                finally:
                    run.leave_file(key)
    return 1 if commands or executor else 0


def lerna(run: "Run", inv: Invocation) -> list[Finding]:
    """lerna run SCRIPT (--scope): the packages' scripts; lerna exec -- CMD: CMD in each package."""
    args = inv.args
    positionals = [a for a in args if not a.startswith("-")]
    if not positionals:
        return []
    root = workspace_root(inv.scope.cwd)
    if root is None:
        return []
    if positionals[0] == "exec" and "--" in args:
        command = shlex.join(args[args.index("--") + 1:])
        if command and DYN not in command:
            run.nested(command, inv, "lerna exec", _scope(inv, root.dir))
            return [allow("lerna exec runs the command in every package (judged above)", "build-test",
                          rule="tasks.lerna")]
        return []
    if positionals[0] != "run" or len(positionals) < 2 or DYN in positionals[1]:
        return []
    selectors = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--scope"] + \
        [a.partition("=")[2] for a in args if a.startswith("--scope=")]
    config = load_json(posixpath.join(root.dir, "lerna.json")) or {}
    if isinstance(config.get("packages"), list) and not root.workspaces:
        root.workspaces = [p for p in config["packages"] if isinstance(p, str)]
    chosen = filter_packages(workspace_packages(root), root, selectors)
    judged = [p for p in chosen if positionals[1] in p.scripts]
    for package in judged[:MAX_TASKS]:
        _package_script(run, inv, package, positionals[1], [], "lerna", hooks=True)
    if judged:
        return [allow(f"lerna runs the {positionals[1]} script of {len(judged)} package(s) (judged above)",
                      "build-test", rule="tasks.lerna")]
    return []


# -- make ------------------------------------------------------------------------------------------
_MAKE_DEFAULTS = {"MAKE": "make", "RM": "rm -f", "CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar", "AS": "as",
                  "LD": "ld", "SHELL": "/bin/sh", "INSTALL": "install", "LEX": "lex", "YACC": "yacc",
                  "MAKEINFO": "makeinfo", "TEX": "tex", "ARFLAGS": "rv", "MAKEFLAGS": "", "MFLAGS": "",
                  "CFLAGS": "", "CXXFLAGS": "", "CPPFLAGS": "", "LDFLAGS": "", "LDLIBS": "", "TARGET_ARCH": "",
                  "MAKELEVEL": "0", ".SHELLFLAGS": "-c", "OUTPUT_OPTION": "-o $@", "COMPILE.c": "cc -c"}
_MAKE_VALUE_OPTIONS = {"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o", "--old-file",
                       "--assume-old", "-W", "--what-if", "--new-file", "--assume-new", "-j", "--jobs", "-l",
                       "--load-average", "--eval", "-O", "--output-sync"}


def make(run: "Run", inv: Invocation) -> list[Finding]:
    """make: the recipes of the goals (the default goal when none is named) and of their
    prerequisites, with the makefile's variables; a makefile read from stdin, a pipe or written
    earlier in the command is judged from that text."""
    args = inv.args
    makefile: str | None = None
    extra_files: list[str] = []  # more -f files: make reads each of them, in order
    directories: list[str] = []
    goals: list[str] = []
    overrides: dict[str, str] = {}
    evals: list[str] = []
    dry = False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-f", "--file", "--makefile") and i + 1 < len(args):
            extra_files += [makefile] if makefile else []
            makefile = args[i + 1]
            producers = inv.process_inputs().get(i + 1)
            if producers:  # make -f <(curl …): the recipes come from that command's output
                out = run.output_of(producers[-1])
                if out.kind == "network":
                    return [ask("make runs recipes downloaded from the network", "remote-exec", BlastRadius.HIGH,
                                "exec.make")]
                if out.kind != "text" or out.text is None:
                    return [ask("make runs recipes generated at run time", "dynamic-exec", BlastRadius.HIGH,
                                "exec.make")]
                return _recipes_of_text(run, inv, out.text)
            i += 2
            continue
        if a.startswith(("--file=", "--makefile=")):
            extra_files += [makefile] if makefile else []
            makefile = a.partition("=")[2]
        elif a.startswith("-f") and len(a) > 2 and not a.startswith("--"):
            extra_files += [makefile] if makefile else []
            makefile = a[2:]
        elif a in ("-C", "--directory") and i + 1 < len(args):
            directories.append(args[i + 1])
            i += 2
            continue
        elif a.startswith("--directory="):
            directories.append(a.partition("=")[2])
        elif a.startswith("-C") and len(a) > 2:
            directories.append(a[2:])
        elif a in ("-n", "--just-print", "--dry-run", "--recon", "-q", "--question", "-p", "--print-data-base"):
            dry = True
        elif a.startswith("-") and not a.startswith("--") and a[1:].isalpha() and "n" in a[1:] and "C" not in a:
            dry = True
        elif a == "--eval" and i + 1 < len(args) or a.startswith("--eval="):
            evals.append(args[i + 1] if a == "--eval" else a.partition("=")[2])  # makefile text on the command line
            i += 1 if a.startswith("--eval=") else 2
            continue
        elif a in _MAKE_VALUE_OPTIONS and i + 1 < len(args):
            i += 2
            continue
        elif "=" in a and not a.startswith("-") and re.match(r"^[A-Za-z_.][\w.-]*\s*:?=", a):
            name, _, value = a.partition("=")
            overrides[name.rstrip(":").strip()] = value
        elif not a.startswith("-"):
            goals.append(a)
        i += 1
    if makefile in ("-", "/dev/stdin"):
        stream = run.stdin_source(inv.cmd)
        if stream.kind != "text" or stream.text is None:
            return [ask("make runs recipes read from its input", "dynamic-exec", BlastRadius.HIGH, "exec.make")]
        return _recipes_of_text(run, inv, stream.text)
    if makefile is not None and not directories:
        info = run.path(Word.literal(makefile), inv)
        if info.path and info.path in run.written:
            return _recipes_of_text(run, inv, run.written[info.path])
    # GNU make reads every file MAKEFILES names before the makefiles (its $(shell …) run, its rules count)
    preread = str(inv.cmd.scope.variables.get("MAKEFILES") or inv.scope.variables.get("MAKEFILES") or "")
    if DYN in preread:
        return [ask("make reads the makefiles MAKEFILES names, known only at run time", "dynamic-exec",
                    BlastRadius.HIGH, "exec.make")]
    extra_files = preread.split() + extra_files
    if any(DYN in x for x in goals + directories + extra_files + [makefile or ""]):
        return []
    directory = inv.scope.cwd
    for d in directories:
        directory = _cwd(Invocation(inv.name, [], inv.cmd, _scope(inv, directory)), d) if directory else None
    if directory is None:
        return []
    path = makefile_path(directory, makefile, run.written)
    extras = [makefile_path(directory, f) or f for f in extra_files[:8]]
    changed = _changed(run, inv, *([path] if path else [posixpath.join(directory, n) for n in MAKEFILE_NAMES]),
                       *extras)
    if changed:
        return changed
    parsed = load_makefile(path, text=run.written.get(path)) if path else None
    for extra in extras:  # the other makefiles, into the same database (the first file's goal stays the default)
        parsed = load_makefile(extra, depth=1, into=parsed, text=run.written.get(extra)) if parsed else \
            load_makefile(extra, text=run.written.get(extra))
    for text in evals:
        if DYN in text:
            return [ask("make --eval adds rules known only at run time", "dynamic-exec", BlastRadius.HIGH, "exec.make")]
        parsed = load_makefile(path or posixpath.join(directory, "Makefile"), text=text.replace("\\n", "\n"),
                               into=parsed, depth=1) if parsed else \
            load_makefile(posixpath.join(directory, "Makefile"), text=text.replace("\\n", "\n"))
    if parsed is None:
        return [allow("make -n only prints the recipes it would run", "build-test", rule="taxonomy.dry-run")] if dry \
            else []
    goals = goals or [g for g in [make_goal(parsed)] if g]
    if not goals and not dry:
        return []
    variables = {**_MAKE_DEFAULTS, "CURDIR": directory, "MAKECMDGOALS": " ".join(goals), "HOME": inv.scope.home,
                 "PWD": directory, "MAKEFILE_LIST": " ".join(posixpath.relpath(f, directory) for f in parsed.files),
                 **parsed.variables, **overrides}
    expander = _MakeExpander(run, inv, variables, directory)
    for line, file, value in parsed.immediate:  # VAR := $(shell …) runs whenever make reads the file
        expander.origin = Origin(_shown(inv, file), line)
        expander.expand(value)
    for text in evals:  # --eval='$(shell …)': a line that is no rule, recipe or lazy variable is expanded now
        for number, line in enumerate(text.replace("\\n", "\n").splitlines(), 1):
            if "$(" in line and not line.startswith("\t") and not re.match(r"^\s*[\w.-]+\s*[?+]?=(?!=)", line):
                expander.origin = Origin("make --eval", number)
                expander.expand(line)
    if dry:  # make -n reads the makefiles (their $(shell …) above run) and only prints the recipes
        return [allow("make -n only prints the recipes it would run", "build-test", rule="taxonomy.dry-run")]
    rules = _make_rules(parsed, goals)
    for target, rule, stem in rules:
        key = f"{rule.file}#{target}"
        if run.enter_file(key) is not None:
            continue
        try:
            _judge_recipe(run, inv, expander, rule, target, stem, directory, parsed.oneshell, goals)
        finally:
            run.leave_file(key)
    if not rules:
        return []
    return [allow(f"make {' '.join(goals)} runs the recipes in {_shown(inv, parsed.path)} (judged above)", "build-test",
                  rule="tasks.make")]


def _recipes_of_text(run: "Run", inv: Invocation, text: str) -> list[Finding]:
    for line in text.splitlines():
        if line.startswith("\t"):
            run.nested(line.lstrip("\t").lstrip("@-+"), inv, "make recipe")
    return [allow("make runs the recipes (judged above)", "build-test", rule="exec.make")]


def _make_rules(parsed, goals: list[str]) -> list[tuple[str, object, str]]:
    """The rules make runs for the goals, prerequisites first: (target, rule, pattern stem)."""
    explicit: dict[str, list] = {}
    patterns = []
    for rule in parsed.rules:
        for target in rule.targets:
            if "%" in target:
                patterns.append((target, rule))
            else:
                explicit.setdefault(target, []).append(rule)
    ordered: list[tuple[str, object, str]] = []
    visiting: set[str] = set()

    def visit(target: str, depth: int) -> None:
        if target in visiting or depth > 12 or len(ordered) >= MAX_TASKS:
            return
        visiting.add(target)
        rules = explicit.get(target, [])
        stem = ""
        if not any(r.recipe for r in rules):
            for pattern, rule in patterns:
                prefix, _, suffix = pattern.partition("%")
                if target.startswith(prefix) and target.endswith(suffix) and len(target) > len(prefix + suffix):
                    stem = target[len(prefix):len(target) - len(suffix)]
                    rules = rules + [rule]
                    break
        for rule in rules:
            for prerequisite in rule.prerequisites:
                visit(prerequisite.replace("%", stem) if stem else prerequisite, depth + 1)
        for rule in rules:
            if rule.recipe:
                ordered.append((target, rule, stem))
    for goal in goals:
        visit(goal, 0)
    return ordered


def _judge_recipe(run: "Run", inv: Invocation, expander: "_MakeExpander", rule, target: str, stem: str,
                  directory: str, oneshell: bool, goals: list[str]) -> None:
    prerequisites = [p.replace("%", stem) if stem else p for p in rule.prerequisites]
    expander.automatic = {"@": target, "<": prerequisites[0] if prerequisites else "", "^": " ".join(prerequisites),
                          "+": " ".join(prerequisites), "?": " ".join(prerequisites), "*": stem, "|": ""}
    where = _shown(inv, rule.file)
    lines = rule.recipe if not oneshell else [(rule.recipe[0][0], "\n".join(t for _, t in rule.recipe))]
    for number, text in lines:
        expander.origin = Origin(where, number)
        expander.undefined = set()
        command = _recipe_text(expander.expand(text), oneshell)
        if command.strip():
            _judge_text(run, inv, command, Origin(where, number), directory, f"make {target} › {where}:{number}")
        if expander.undefined:
            # a variable defined nowhere (not in the Makefile, not in this environment) is empty to make:
            # `rm -rf $(DOCSDIR)/` is `rm -rf /`. Judged that way too, the worse of the two stands
            names = ", ".join(sorted(expander.undefined))
            expander.empty = True
            try:
                empty = _recipe_text(expander.expand(text), oneshell)
            finally:
                expander.empty = False
            if empty.strip() and empty != command:
                _judge_text(run, inv, empty, Origin(where, number), directory,
                            f"make {target} › {where}:{number} (with {names} empty: defined nowhere)")


def _recipe_text(command: str, oneshell: bool) -> str:
    """A recipe line as the shell gets it: make's own prefixes (@ silent, - ignore errors, + always) off."""
    return re.sub(r"^[\s@+-]+", "", command) if not oneshell else \
        "\n".join(re.sub(r"^[\s@+-]+", "", line) for line in command.split("\n"))


# variables make defines itself, or that the environment nearly always has: never taken as empty
_MAKE_OWN = frozenset({"CC", "CXX", "CPP", "AR", "AS", "LD", "FC", "PC", "RM", "YACC", "LEX", "MAKE", "CURDIR",
                       "SHELL", "MAKEFLAGS", "MAKECMDGOALS", "MAKEFILE_LIST", "MAKELEVEL", ".VARIABLES", "PWD",
                       "HOME", "USER", "PATH", "TMPDIR", "ARFLAGS"})


class _MakeExpander:
    """Make's `$(VAR)`, `${VAR}`, `$@` … expansion, with the functions projects use; `$(shell …)` is
    judged as the command it runs; what cannot be known becomes an unknown word."""

    def __init__(self, run: "Run", inv: Invocation, variables: dict[str, str], directory: str):
        self.run = run
        self.inv = inv
        self.variables = variables
        self.directory = directory
        self.automatic: dict[str, str] = {}
        self.origin = Origin("Makefile")
        self.depth = 0
        self.undefined: set[str] = set()  # variables a line named that nothing defines
        self.empty = False  # expand those as make would with them unset: empty

    def expand(self, text: str) -> str:
        if self.depth > 8:
            return UNKNOWN_WORD
        self.depth += 1
        try:
            return self._expand(text)
        finally:
            self.depth -= 1

    def _expand(self, text: str) -> str:
        out: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch != "$" or i + 1 >= len(text):
                out.append(ch)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
            elif nxt in "({":
                close = ")" if nxt == "(" else "}"
                end = _matching(text, i + 1, nxt, close)
                if end < 0:
                    out.append(text[i:])
                    break
                out.append(self.reference(text[i + 2:end]))
                i = end + 1
            else:
                out.append(self.automatic.get(nxt, self.variable(nxt)))
                i += 2
        return "".join(out)

    def variable(self, name: str) -> str:
        if name in self.automatic:
            return self.automatic[name]
        if name in self.variables:
            return self.expand(self.variables[name])
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name not in _MAKE_OWN and name not in os.environ:
            self.undefined.add(name)
            if self.empty:
                return ""
        return UNKNOWN_WORD

    def reference(self, body: str) -> str:
        m = re.match(r"^([a-z-]+)[ \t]+(.*)$", body, re.S)
        if not m:
            m2 = re.match(r"^([^:]+):([^=]*)=(.*)$", body)  # $(SRC:.c=.o)
            if m2:
                return self.expand("$(" + m2.group(1) + ")")
            return self.variable(self.expand(body))
        function, argument = m.group(1), m.group(2)
        if function == "shell":
            command = self.expand(argument)
            if re.fullmatch(r"\s*pwd(\s+-[LP])?\s*", command) and self.directory:
                return self.directory  # LOCALBIN ?= $(shell pwd)/bin: where make runs, as $(CURDIR) says
            if command.strip():
                self.run.program(command, "shell", self.inv, self.origin, _scope(self.inv, self.directory),
                                 f"make $(shell …) › {self.origin.at(0)}")
            if _prints_nothing(self.run, command, self.directory):
                return ""
            held = _file_printed(command, self.directory)
            return UNKNOWN_WORD if held is None else held
        parts = _split_args(argument)
        values = [self.expand(p) for p in parts]
        words = values[0].split() if values else []
        if function in ("strip", "sort", "value", "wildcard") and values:
            return " ".join(sorted(set(words)) if function == "sort" else words)
        if function in ("firstword", "lastword") and values:
            return (words[:1] if function == "firstword" else words[-1:] or [""])[0] if words else ""
        if function in ("abspath", "realpath"):
            return " ".join(posixpath.normpath(posixpath.join(self.directory, w)) for w in words)
        if function == "dir":
            return " ".join(w[:w.rfind("/") + 1] if "/" in w else "./" for w in words)
        if function == "notdir":
            return " ".join(w.rsplit("/", 1)[-1] for w in words)
        if function in ("basename", "suffix"):
            return " ".join(posixpath.splitext(w)[0 if function == "basename" else 1] for w in words)
        if function in ("addprefix", "addsuffix") and len(values) == 2:
            return " ".join((values[0] + w if function == "addprefix" else w + values[0]) for w in values[1].split())
        if function == "subst" and len(values) == 3:
            return values[2].replace(values[0], values[1])
        if function == "patsubst" and len(values) == 3:
            return " ".join(_patsubst(values[0].strip(), values[1].strip(), w) for w in values[2].split())
        known = all(UNKNOWN_WORD not in v and DYN not in v for v in values)
        if function == "if" and len(values) >= 2 and UNKNOWN_WORD not in values[0] and DYN not in values[0]:
            # a condition known now picks its branch: `$(if $(filter prod,$(ENV)),$(PROD_URL),$(DEV_URL))`
            return values[1] if values[0].strip() else (values[2] if len(values) > 2 else "")
        if function in ("if", "or", "and") and len(values) >= 2:
            return " ".join(values[1:])
        if function in ("filter", "filter-out") and len(values) == 2 and known:
            patterns = values[0].split()
            chosen = [w for w in values[1].split()
                      if any(_patsubst(p, "\x01", w) == "\x01" for p in patterns) == (function == "filter")]
            return " ".join(chosen)
        if function in ("filter", "filter-out", "word", "wordlist") and values:
            return values[-1]
        if function in ("info", "warning", "error", "eval"):
            return ""
        return UNKNOWN_WORD


# commands that print nothing when the files they read are missing (an error goes to stderr), and filters
# that print nothing for nothing in
_FILE_READERS = {"grep": 1, "egrep": 1, "fgrep": 1, "cat": 0, "head": 0, "tail": 0, "cut": 0, "sort": 0}
_EMPTY_FILTERS = frozenset({"cut", "tr", "sort", "uniq", "head", "tail", "grep", "egrep", "fgrep", "xargs"})
_VALUE_FLAGS = frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-f", "-n", "-c", "-k", "-t", "--max-count",
                          "--regexp", "--file", "--delimiter", "--fields", "--lines", "--bytes", "--key"})


def _file_printed(command: str, directory: str | None) -> str | None:
    """`$(shell cat .secrets/prod_db_url)`, `$(shell cat VERSION)`: a small file of the project, as make reads it
    now (its lines joined by spaces); None when the command is not a plain cat of one such file."""
    m = re.fullmatch(r"\s*cat\s+([\w./-]+)(?:\s+2>\s*/dev/null)?\s*", command)
    if not directory or not m or m.group(1).startswith(("/", "-")) or ".." in m.group(1).split("/"):
        return None
    text = read_text(posixpath.join(directory, m.group(1)), 4096)
    if text is None or "$" in text or "`" in text:
        return None
    return " ".join(text.split())


def _prints_nothing(run: "Run", command: str, directory: str | None) -> bool:
    """`$(shell grep -s '^dir=' .cache.conf | cut -d= -f2)` with no .cache.conf: the value is empty (make
    expands a recipe whole before running it, so a file its own lines would create is not there yet)."""
    if not directory or re.search(r"[;&`$<>(){}]|\|\|", command):
        return False
    stages = [s.strip() for s in command.split("|")]
    try:
        first = shlex.split(stages[0])
        rest = [shlex.split(s) for s in stages[1:]]
    except ValueError:
        return False
    if not first or first[0] not in _FILE_READERS or any(not s or s[0] not in _EMPTY_FILTERS or
                                                         s[0] == "xargs" and len(s) > 1 for s in rest):
        return False
    operands, i = [], 1
    pattern_given = any(a in ("-e", "-f", "--regexp", "--file") or a.startswith(("--regexp=", "--file="))
                        for a in first[1:])
    while i < len(first):
        a = first[i]
        if a in _VALUE_FLAGS:
            i += 2
            continue
        if not a.startswith("-") or a == "-":
            operands.append(a)
        i += 1
    files = operands[_FILE_READERS[first[0]] if not pattern_given else 0:]
    if not files or any(f == "-" or any(c in f for c in "*?[~") for f in files):
        return False
    paths = [posixpath.normpath(posixpath.join(directory, f)) for f in files]
    written = {e.path for e in run.result.effects}
    return all(not os.path.lexists(p) and p not in written for p in paths)


def _patsubst(pattern: str, replacement: str, word: str) -> str:
    if "%" not in pattern:
        return replacement if word == pattern else word
    prefix, _, suffix = pattern.partition("%")
    if word.startswith(prefix) and word.endswith(suffix) and len(word) >= len(prefix) + len(suffix):
        stem = word[len(prefix):len(word) - len(suffix)]
        return replacement.replace("%", stem, 1) if "%" in replacement else replacement
    return word


def _matching(text: str, start: int, opening: str, closing: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_args(text: str) -> list[str]:
    """A make function's arguments at the commas outside parentheses (quotes group nothing in make)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


# -- just --------------------------------------------------------------------------------------------
_JUST_READ = ("-l", "--list", "--summary", "--show", "-s", "--dump", "--evaluate", "--variables", "--groups",
              "-n", "--dry-run", "--fmt", "--check", "--init", "--edit", "-e", "--completions", "--man", "--help",
              "-h", "--version", "-V", "--changelog")


def just(run: "Run", inv: Invocation) -> list[Finding]:
    """just RECIPE ARGS…: the recipe's lines (and its dependencies'), with the justfile's variables."""
    args = inv.args
    given = directory = None
    positionals: list[str] = []
    overrides: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in _JUST_READ:
            return [allow(f"just {a} only lists or prints recipes", "read-only", rule="tasks.just")]
        if a in ("-f", "--justfile") and i + 1 < len(args):
            given, i = args[i + 1], i + 2
            continue
        if a in ("-d", "--working-directory") and i + 1 < len(args):
            directory, i = args[i + 1], i + 2
            continue
        if a == "--set" and i + 2 < len(args):
            overrides[args[i + 1]] = args[i + 2]
            i += 3
            continue
        if "=" in a and re.match(r"^[A-Za-z_][\w-]*=", a) and not positionals:
            name, _, value = a.partition("=")
            overrides[name] = value
        elif not a.startswith("-"):
            positionals.append(a)
        i += 1
    if any(DYN in p for p in positionals):
        return []
    path = find_justfile(inv.scope.cwd, given)
    if path is None and inv.scope.cwd:
        path = next((p for p in (posixpath.join(inv.scope.cwd, n) for n in ("justfile", "Justfile", ".justfile"))
                     if p in run.written), None)
    changed = _changed(run, inv, path)
    if changed:
        return changed
    parsed = load_justfile(path, run.written.get(path)) if path else None
    if parsed is None:
        return [] if not path else [ask("just runs a justfile guardtui cannot read", "build-test", BlastRadius.LOW,
                                        "tasks.just")]
    workdir = _cwd(inv, directory) if directory else posixpath.dirname(path)
    where = _shown(inv, path)
    recipes: list[tuple[str, list[str]]] = []
    rest = positionals or ([parsed.first] if parsed.first else [])
    while rest:
        name = parsed.variables.get("alias:" + rest[0], rest[0])
        recipe = parsed.recipes.get(name)
        if recipe is None:
            break
        count = len(recipe.params)
        recipes.append((name, rest[1:1 + count]))
        rest = rest[1 + count:]
    if not recipes:
        return []
    variables = {k: _just_value(v) for k, v in parsed.variables.items() if not k.startswith("alias:")}
    variables.update(overrides)
    for line, command in parsed.backticks:  # `cmd` in an assignment runs when just starts
        _judge_text(run, inv, command, Origin(where, line), workdir, f"just `…` › {where}:{line}")
    environment = _dotenv_assignments(parsed.dotenv)
    todo = list(recipes)
    seen: set[str] = set()
    while todo and len(seen) < MAX_TASKS:
        name, values = todo.pop(0)
        recipe = parsed.recipes.get(name)
        if recipe is None or name in seen:
            continue
        seen.add(name)
        todo += [(d, []) for d in recipe.dependencies if d in parsed.recipes]
        bound = {**variables, **{p: (values[k] if k < len(values) else UNKNOWN_WORD)
                                 for k, p in enumerate(recipe.params)}}
        body = recipe.body
        if not body:
            continue
        cwd = workdir if not any("no-cd" in a for a in recipe.attributes) else inv.scope.cwd
        key = f"{path}#{name}"
        if run.enter_file(key) is not None:
            continue
        try:
            if body[0][1].startswith("#!"):
                text = "\n".join(_interpolate(t, bound) for _, t in body)
                if language_of("", text) in (None, "shell"):
                    text = environment + text
                language = language_of("", text) or "shell"
                _judge_text(run, inv, text, Origin(where, body[0][0]), cwd, f"just {name} › {where}:{body[0][0]}",
                            language)
                continue
            for number, text in body:
                command = re.sub(r"^[@-]+", "", _interpolate(text, bound))
                if command.strip() and not command.lstrip().startswith("#"):
                    _judge_text(run, inv, environment + command, Origin(where, number), cwd,
                                f"just {name} › {where}:{number}")
        finally:
            run.leave_file(key)
    return [allow(f"just {' '.join(r for r, _ in recipes)} runs recipes in {where} (judged above)", "build-test",
                  rule="tasks.just")]


def _dotenv_assignments(path: str | None) -> str:
    """`set dotenv-load`: the recipes run with the .env file's variables; as assignments before each line, so
    `curl "$OS_URL/…"` is judged with the URL the .env gives it."""
    if not path:
        return ""
    values = load_dotenv(path)
    return "".join(f"{name}={shlex.quote(value)}; " for name, value in list(values.items())[:64])


def _just_value(expression: str) -> str:
    m = re.fullmatch(r"""(['"])(.*)\1""", expression.strip())
    return m.group(2) if m else UNKNOWN_WORD


def _interpolate(text: str, values: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        inner = m.group(1).strip()
        if inner in values:
            return values[inner]
        literal = re.fullmatch(r"""(['"])(.*)\1""", inner)
        return literal.group(2) if literal else UNKNOWN_WORD

    return re.sub(r"\{\{(.*?)\}\}", one, text)


# -- rake, composer, poe, Taskfile -------------------------------------------------------------------
def rake(run: "Run", inv: Invocation) -> list[Finding]:
    """rake TASK: the task's block in the Rakefile (or rakelib/, lib/tasks/), with its prerequisites;
    `sh "…"` and the Ruby around it judged."""
    args = inv.args
    if any(a in ("-T", "--tasks", "-D", "--describe", "-W", "--where", "-P", "--prereqs", "-n", "--dry-run",
                 "--help", "-h", "--version", "-V") for a in args):
        return [allow("rake only lists or describes tasks", "read-only", rule="tasks.rake")]
    names = [a.split("[", 1)[0] for a in args if not a.startswith("-") and "=" not in a]
    rakefile = find_upward(inv.scope.cwd, ("Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"))
    if rakefile is None or any(DYN in n for n in names):
        return []
    changed = _changed(run, inv, rakefile)
    if changed:
        return changed
    root = posixpath.dirname(rakefile)
    files = [rakefile] + sorted(_dirs_files(posixpath.join(root, "rakelib"), ".rake")) + \
        sorted(_dirs_files(posixpath.join(root, "lib", "tasks"), ".rake"))
    tasks: dict[str, tuple[str, int, str, list[str]]] = {}
    for file in files[:32]:
        text = read_text(file)
        if text is not None:
            tasks.update(_rake_tasks(file, text))
    todo = list(names) or ["default"]
    seen: set[str] = set()
    judged = 0
    while todo and len(seen) < MAX_TASKS:
        name = todo.pop(0)
        if name in seen or name not in tasks:
            continue
        seen.add(name)
        file, line, body, prerequisites = tasks[name]
        todo += prerequisites
        if not body.strip():
            continue
        ruby = re.sub(r"(?m)^(\s*)(?:sh|ruby)\b(?=\s*[(\"'%])", r"\1system", body)  # rake's `sh "…"` runs a shell
        key = f"{file}#{name}"
        if run.enter_file(key) is None:
            try:
                _judge_text(run, inv, ruby, Origin(_shown(inv, file), line), root,
                            f"rake {name} › {_shown(inv, file)}:{line}", "ruby")
                judged += 1
            finally:
                run.leave_file(key)
    if not seen:
        return []
    return [allow(f"rake {' '.join(names) or 'default'} runs tasks in the Rakefile (judged above)", "build-test",
                  rule="tasks.rake")]


def _dirs_files(base: str, suffix: str) -> list[str]:
    import os

    out = []
    for directory, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith(".")][:16]
        out += [posixpath.join(directory, f) for f in files if f.endswith(suffix)]
        if len(out) > 32:
            break
    return out


_RAKE_TASK = re.compile(r"""^(\s*)(?:task|multitask|file)\s*\(?\s*(?::(\w+)|["'](\w[\w:-]*)["']|(\w+):\s|:?["']?(\w+)["']?\s*=>)""")
_RAKE_PREREQS = re.compile(r"""(?:=>|\w:)\s*(\[[^\]]*\]|%[iw]\[[^\]]*\]|:\w+|["'][\w:-]+["'])""")


def _rake_tasks(file: str, text: str) -> dict[str, tuple[str, int, str, list[str]]]:
    """name → (file, line, body, prerequisites); namespaces prefix the names (db:seed)."""
    out: dict[str, tuple[str, int, str, list[str]]] = {}
    lines = text.split("\n")
    namespaces: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        while namespaces and indent <= namespaces[-1][0] and line.strip().startswith("end"):
            namespaces.pop()
            break
        ns = re.match(r"^(\s*)namespace\s*\(?\s*:?[\"']?(\w+)", line)
        if ns:
            namespaces.append((len(ns.group(1)), ns.group(2)))
            continue
        m = _RAKE_TASK.match(line)
        if not m:
            continue
        name = next(g for g in m.groups()[1:] if g)
        full = ":".join([n for _, n in namespaces] + [name])
        prerequisites = []
        pm = _RAKE_PREREQS.search(line)
        if pm:
            prerequisites = [p.lstrip(":").strip("'\"") for p in re.findall(r""":\w+|["'][\w:-]+["']|\b\w+\b""",
                                                                            pm.group(1).lstrip("%iw"))]
        body_lines = []
        if re.search(r"\bdo\b(\s*\|[^|]*\|)?\s*$|\{\s*(\|[^|]*\|)?\s*$", line):
            for following in lines[index + 1:]:
                f_indent = len(following) - len(following.lstrip())
                if following.strip() and f_indent <= len(m.group(1)) and \
                        re.match(r"\s*(end\b|\})", following):
                    break
                body_lines.append(following)
        out[full] = (file, index + 1, "\n".join(body_lines), prerequisites)
    return out


def composer(run: "Run", inv: Invocation) -> list[Finding]:
    """composer run-script X / composer X: composer.json scripts (shell lines, `@other` scripts,
    `@php file`); PHP class callbacks stay as they were judged."""
    args = [a for a in inv.args if not a.startswith("-")]
    if not args:
        return []
    path = find_upward(inv.scope.cwd, ("composer.json",))
    changed = _changed(run, inv, path)
    if changed:
        return changed
    data = load_json(path) if path else None
    scripts = data.get("scripts") if isinstance(data, dict) and isinstance(data.get("scripts"), dict) else None
    if scripts is None:
        return []
    name = args[1] if args[0] in ("run-script", "run") and len(args) > 1 else args[0]
    events = {"install": ["pre-install-cmd", "post-install-cmd", "pre-autoload-dump", "post-autoload-dump"],
              "update": ["pre-update-cmd", "post-update-cmd", "pre-autoload-dump", "post-autoload-dump"],
              "require": ["pre-update-cmd", "post-update-cmd", "pre-autoload-dump", "post-autoload-dump"],
              "dump-autoload": ["pre-autoload-dump", "post-autoload-dump"],
              "dumpautoload": ["pre-autoload-dump", "post-autoload-dump"]}.get(name, [name])
    todo = [e for e in events if e in scripts]
    if not todo:
        return []
    where = _shown(inv, path)
    seen: set[str] = set()
    while todo and len(seen) < MAX_TASKS:
        script = todo.pop(0)
        if script in seen or script not in scripts:
            continue
        seen.add(script)
        entries = scripts[script] if isinstance(scripts[script], list) else [scripts[script]]
        for entry in entries:
            if not isinstance(entry, str):
                continue
            if entry.startswith("@") and not entry.startswith(("@php", "@composer", "@putenv", "@python")):
                todo.append(entry[1:].split()[0])
                continue
            if re.fullmatch(r"[\w\\]+::\w+", entry) or entry.startswith("@putenv"):
                continue
            command = re.sub(r"^@(php|composer|python)\b", r"\1", entry)
            _judge_text(run, inv, command, Origin(where, 1), posixpath.dirname(path),
                        f"composer {script} › {where} scripts.{script}")
    if name in ("install", "update", "require", "dump-autoload", "dumpautoload"):
        return []
    return [allow(f"composer runs the {name} script (judged above)", "build-test", rule="tasks.composer")]


def poe(run: "Run", inv: Invocation) -> list[Finding]:
    """poe TASK: pyproject.toml [tool.poe.tasks] (cmd, shell, script, sequence, ref, deps)."""
    args = [a for a in inv.args if not a.startswith("-")]
    if not args or DYN in args[0]:
        return []
    path = find_upward(inv.scope.cwd, ("pyproject.toml",))
    changed = _changed(run, inv, path)
    if changed:
        return changed
    data = load_toml(path) if path else None
    tasks = (((data or {}).get("tool") or {}).get("poe") or {}).get("tasks") if data else None
    if not isinstance(tasks, dict) or args[0] not in tasks:
        return []
    root = posixpath.dirname(path)
    where = _shown(inv, path)
    todo: list = [tasks[args[0]]]
    count = 0
    while todo and count < MAX_TASKS:
        task = todo.pop(0)
        count += 1
        if isinstance(task, str):
            _judge_text(run, inv, task, Origin(where, 1), root, f"poe {args[0]} › {where}")
            continue
        if isinstance(task, list):
            todo += [tasks.get(t) if isinstance(t, str) and t in tasks else t for t in task]
            continue
        if not isinstance(task, dict):
            continue
        for dep in task.get("deps") or []:
            if isinstance(dep, str) and dep.split()[0] in tasks:
                todo.append(tasks[dep.split()[0]])
        cwd = posixpath.normpath(posixpath.join(root, task["cwd"])) if isinstance(task.get("cwd"), str) else root
        for key in ("cmd", "shell"):
            if isinstance(task.get(key), str):
                _judge_text(run, inv, task[key], Origin(where, 1), cwd, f"poe {args[0]} › {where}")
        if isinstance(task.get("ref"), str) and task["ref"].split()[0] in tasks:
            todo.append(tasks[task["ref"].split()[0]])
        if isinstance(task.get("sequence"), list):
            todo += [tasks.get(t) if isinstance(t, str) and t in tasks else t for t in task["sequence"]]
        if isinstance(task.get("script"), str):
            module = task["script"].split(":", 1)[0]
            file = python_module_file(root, module)
            if file:
                run.project_file(file, Invocation("python3", [], inv.cmd, _scope(inv, root), inv.privileged,
                                                  "python3"), "python3")
        if isinstance(task.get("expr"), str):
            _judge_text(run, inv, task["expr"], Origin(where, 1), cwd, f"poe {args[0]} › {where}", "python")
    return [allow(f"poe runs the {args[0]} task (judged above)", "build-test", rule="tasks.poe")]


def taskfile(run: "Run", inv: Invocation) -> list[Finding]:
    """task NAME (go-task): Taskfile.yml's cmds and deps, `{{.VARS}}` unknown."""
    args = inv.args
    if any(a in ("-l", "--list", "-a", "--list-all", "--summary", "-n", "--dry", "--help", "-h", "--version",
                 "--init", "-i") for a in args):
        return [allow("task only lists or describes tasks", "read-only", rule="tasks.task")]
    given = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-t", "--taskfile")), None)
    directory = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-d", "--dir")), None)
    skip = {v for v in (given, directory) if v}
    names = [a for a in args if not a.startswith("-") and "=" not in a and a not in skip] or ["default"]
    start = _cwd(inv, directory)
    path = (posixpath.normpath(posixpath.join(start or "/", given)) if given else
            find_upward(start, ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml",
                                "Taskfile.dist.yml", "Taskfile.dist.yaml")))
    changed = _changed(run, inv, path)
    if changed:
        return changed
    data = load_yaml_mapping(path) if path else None
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict) or any(DYN in n for n in names):
        return []
    root = posixpath.dirname(path)
    where = _shown(inv, path)
    todo = list(names)
    seen: set[str] = set()
    while todo and len(seen) < MAX_TASKS:
        name = todo.pop(0)
        if name in seen or name not in tasks:
            continue
        seen.add(name)
        task = tasks[name]
        if isinstance(task, (str, list)):
            task = {"cmds": [task] if isinstance(task, str) else task}
        if not isinstance(task, dict):
            continue
        cwd = posixpath.normpath(posixpath.join(root, task["dir"])) if isinstance(task.get("dir"), str) else root
        for dep in task.get("deps") or []:
            dep_name = dep if isinstance(dep, str) else dep.get("task") if isinstance(dep, dict) else None
            if dep_name:
                todo.append(dep_name)
        for command in task.get("cmds") or []:
            if isinstance(command, dict):
                if isinstance(command.get("task"), str):
                    todo.append(command["task"])
                    continue
                command = command.get("cmd")
            if isinstance(command, str) and command.strip():
                text = re.sub(r"\{\{[^}]*\}\}", UNKNOWN_WORD, command)
                _judge_text(run, inv, text, Origin(where, 1), cwd, f"task {name} › {where}")
    if not seen:
        return []
    return [allow(f"task {' '.join(names)} runs tasks in {where} (judged above)", "build-test", rule="tasks.task")]


def pip(run: "Run", inv: Invocation) -> list[Finding]:
    """pip install . / -e DIR: the project's setup.py runs to build it (judged as a script); what pip
    itself does is left to the taxonomy."""
    args = list(inv.args)
    if inv.name == "uv":  # uv pip install -e DIR: the same build
        if args[:1] != ["pip"]:
            return []
        args = args[1:]
    if "install" not in args[:3] and "wheel" not in args[:3]:
        return []
    for i, a in enumerate(args):
        target = a if not a.startswith("-") and a not in ("install", "wheel") and \
            (a.startswith((".", "/")) or a == "." or ("/" in a and "://" not in a and _is_dir(inv, a))) else \
            (args[i + 1] if a in ("-e", "--editable") and i + 1 < len(args) else None)
        if target is None or DYN in target or target.startswith(("http", "git+")):
            continue
        directory = _cwd(inv, target.split("[", 1)[0])
        setup = posixpath.join(directory, "setup.py") if directory else None
        if setup:
            import os

            if os.path.isfile(setup):
                found = run.project_file(setup, Invocation("python3", [Word.literal("egg_info")], inv.cmd,
                                                           _scope(inv, directory), inv.privileged, "python3"),
                                         "python3", label=f"{inv.name} install {target} › setup.py")
                if found is not None:
                    run.add(found)
        if directory:
            judge_build_backend(run, inv, directory, target)
        if directory:  # the commands it installs: one named like git or kubectl runs in their stead
            judge_shadowing_programs(run, inv, directory)
    return []


def _is_dir(inv: Invocation, target: str) -> bool:
    directory = _cwd(inv, target.split("[", 1)[0])
    return bool(directory) and os.path.isdir(directory)


def judge_build_backend(run: "Run", inv: Invocation, directory: str, target: str) -> None:
    """A pyproject.toml whose [build-system] build-backend is a module of the tree itself (backend-path): every
    installer and builder imports it to build the package, so it is judged as the Python it is."""
    import tomllib

    text = read_text(posixpath.join(directory, "pyproject.toml"))
    try:
        system = tomllib.loads(text).get("build-system") if text else None
    except (tomllib.TOMLDecodeError, ValueError):
        return
    if not isinstance(system, dict):
        return
    backend, paths = system.get("build-backend"), system.get("backend-path")
    if not isinstance(backend, str) or not isinstance(paths, list):
        return  # an installed backend (setuptools, hatchling): not the project's code
    module = backend.split(":", 1)[0].strip()
    for base in [p for p in paths if isinstance(p, str)][:4]:
        root = posixpath.normpath(posixpath.join(directory, base))
        for path in (posixpath.join(root, *module.split(".")) + ".py",
                     posixpath.join(root, *module.split("."), "__init__.py")):
            found = run.project_file(path, Invocation("python3", [], inv.cmd, _scope(inv, directory), inv.privileged,
                                                      "python3"), "python3",
                                     label=f"{inv.name} builds {target} with {module} (its in-tree build backend)")
            if found is not None:
                run.add(found)
                return


def python_build(run: "Run", inv: Invocation) -> list[Finding]:
    """`pyproject-build DIR`, `python -m build DIR`, `uv build DIR`: the in-tree build backend is imported."""
    args = [a for a in inv.args if not a.startswith("-")]
    if inv.name == "uv":
        return []
    target = args[0] if args else "."
    directory = _cwd(inv, target)
    if directory:
        judge_build_backend(run, inv, directory, target)
    return []


def _go_toolexec(inv: Invocation) -> list[str]:
    """The programs -toolexec names: on the command line, in GOFLAGS, or set by `go env -w GOFLAGS=…`."""
    env = dict(inv.scope.variables)
    env.update({name: word.value for name, word in inv.cmd.assignments})
    words = list(inv.args) + env.get("GOFLAGS", "").split()
    if inv.args[:2] == ["env", "-w"]:
        words += [w for a in inv.args[2:] if a.startswith("GOFLAGS=") for w in a.partition("=")[2].split()]
    out = []
    for i, word in enumerate(words):
        if word in ("-toolexec", "--toolexec") and i + 1 < len(words):
            out.append(words[i + 1])
        elif word.startswith(("-toolexec=", "--toolexec=")):
            out.append(word.partition("=")[2].strip("'\""))
    return [o for o in out if o and DYN not in o]


def go(run: "Run", inv: Invocation) -> list[Finding]:
    """go generate: the `//go:generate` lines of the package's Go files run as commands."""
    for tool in _go_toolexec(inv):  # -toolexec X: go runs X around every compile and link
        run.nested(tool, inv, "go -toolexec")
    args = [a for a in inv.args if not a.startswith("-")]
    if args[:1] != ["generate"]:
        return []
    import os

    patterns = args[1:] or ["."]
    files: list[str] = []
    for pattern in patterns:
        if DYN in pattern:
            return [ask("go generate runs directives in packages known only at run time", "dynamic-exec",
                        BlastRadius.MEDIUM, "tasks.go-generate")]
        recursive = pattern.endswith("/...")
        base = _cwd(inv, pattern[:-4] if recursive else pattern)
        if base is None:
            return []
        for directory, dirs, names in os.walk(base):
            dirs[:] = [d for d in dirs if not d.startswith((".", "_")) and d not in ("vendor", "testdata",
                                                                                     "node_modules")]
            files += [posixpath.join(directory, n) for n in sorted(names) if n.endswith(".go")]
            if not recursive or len(files) > 2000:
                break
    for file in files[:2000]:
        text = read_text(file)
        if not text or "//go:generate" not in text:
            continue
        for number, line in enumerate(text.split("\n"), 1):
            if line.startswith("//go:generate "):
                command = line[len("//go:generate "):].strip()
                command = re.sub(r"\$(GOFILE|GOPACKAGE|GOLINE|GOARCH|GOOS|DOLLAR|GOROOT)\b", UNKNOWN_WORD, command)
                _judge_text(run, inv, command, Origin(_shown(inv, file), number), posixpath.dirname(file),
                            f"go generate › {_shown(inv, file)}:{number}")
    return []


# -- bundler ------------------------------------------------------------------------------------------
def bundle(run: "Run", inv: Invocation) -> list[Finding]:
    """bundle install/exec/update …: Bundler evaluates the Gemfile (Ruby) first: the one --gemfile, BUNDLE_GEMFILE,
    .bundle/config or the global ~/.bundle/config names if one does; it is judged as the program it is, with the
    plugins it declares (their plugins.rb loads with every bundle command) and the Gemfiles it evaluates in turn.
    `bundle config [set] [--global] gemfile FILE` makes every later bundle command evaluate FILE: judged now."""
    args = inv.args
    if not inv.scope.cwd or inv.scope.remote or any(a in ("-v", "--version", "version", "help") for a in args[:1]):
        return []
    setting = _bundle_config_gemfile(args)
    if setting is not None:
        if DYN in setting:
            return [ask("bundle config names a Gemfile only known at run time, which every later bundle command "
                        "evaluates", "dynamic-exec", BlastRadius.HIGH, "bundle.gemfile")]
        _judge_gemfile(run, inv, posixpath.normpath(posixpath.join(inv.scope.cwd, in_home(setting, inv.scope.home))),
                       "every later bundle command evaluates it")
        return []
    if args[:2] == ["plugin", "install"]:  # bundle plugin install NAME --path DIR: DIR/plugins.rb loads from now on
        directory = _option_value(args, "--path")
        if directory and DYN not in directory:
            _judge_bundler_plugin(run, inv, posixpath.normpath(posixpath.join(inv.scope.cwd, directory)))
        return []
    if args[:1] == ["config"]:
        return []
    named = None
    for config in (posixpath.join(inv.scope.home, ".bundle", "config"), find_upward(inv.scope.cwd, (".bundle/config",))):
        if config is None:
            continue
        m = re.search(r"""(?m)^BUNDLE_GEMFILE:\s*["']?([^"'\n]+)["']?\s*$""", read_text(config) or "")
        if m:  # relative to the directory .bundle is in (the local one wins over the global one)
            named = posixpath.normpath(posixpath.join(posixpath.dirname(posixpath.dirname(config)), m.group(1)))
    env = dict(inv.scope.variables)
    env.update({name: word.value for name, word in inv.cmd.assignments})
    option = _option_value(args, "--gemfile")
    value = option or env.get("BUNDLE_GEMFILE")
    if isinstance(value, str) and value and DYN not in value:
        named = posixpath.normpath(posixpath.join(inv.scope.cwd, in_home(value, inv.scope.home)))
    gemfile = named or find_upward(inv.scope.cwd, ("Gemfile", "gems.rb"))
    if gemfile:
        _judge_gemfile(run, inv, gemfile, "Bundler evaluates it")
    return []


_GEMFILE_PLUGIN = re.compile(r"""(?m)^\s*plugin\s*\(?\s*["'][^"']+["'][^\n]*?(?:\bpath:\s*|:path\s*=>\s*)["']([^"']+)["']""")
_EVAL_GEMFILE = re.compile(r"""(?m)^\s*eval_gemfile\s*\(?\s*["']([^"']+)["']""")


def _judge_gemfile(run: "Run", inv: Invocation, gemfile: str, why: str, depth: int = 0) -> None:
    """A Gemfile judged as the Ruby it is, then the plugins its `plugin "x", path: "dir"` lines load (dir/plugins.rb)
    and the Gemfiles its `eval_gemfile "f"` lines evaluate (a few deep)."""
    judged = run.project_file(gemfile, inv, "ruby", f"{_shown(inv, gemfile)} ({why})")
    if judged is not None:
        run.add(judged)
    text = read_text(gemfile) or ""  # as written, when this is the write of it being judged
    here = posixpath.dirname(gemfile)
    for m in list(_GEMFILE_PLUGIN.finditer(text))[:8]:
        _judge_bundler_plugin(run, inv, posixpath.normpath(posixpath.join(here, m.group(1))))
    if depth < 3:
        for m in list(_EVAL_GEMFILE.finditer(text))[:8]:
            _judge_gemfile(run, inv, posixpath.normpath(posixpath.join(here, m.group(1))), why, depth + 1)


def _judge_bundler_plugin(run: "Run", inv: Invocation, directory: str) -> None:
    path = posixpath.join(directory, "plugins.rb")
    if read_text(path) is not None:
        judged = run.project_file(path, inv, "ruby", f"{_shown(inv, path)} (Bundler loads the plugin with every "
                                                     "bundle command)")
        if judged is not None:
            run.add(judged)


def _bundle_config_gemfile(args: list[str]) -> str | None:
    """The Gemfile `bundle config [set] [--global|--local] gemfile FILE` (or BUNDLE_GEMFILE FILE) sets, else None."""
    if args[:1] != ["config"]:
        return None
    words = [a for a in args[1:] if a not in ("--global", "--local")]
    if words[:1] == ["set"]:
        words = words[1:]
    if len(words) >= 2 and words[0].lower() in ("gemfile", "bundle_gemfile"):
        return words[1]
    return None


def _option_value(args: list[str], option: str) -> str | None:
    for i, a in enumerate(args):
        if a == option and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(option + "="):
            return a.partition("=")[2]
    return None


# -- pre-commit ---------------------------------------------------------------------------------------
def pre_commit(run: "Run", inv: Invocation) -> list[Finding]:
    """pre-commit run: the local hooks of .pre-commit-config.yaml run their entry here (language system,
    script, unsupported); hooks from other repositories are installed code, the taxonomy's."""
    if not inv.args or inv.args[0] not in ("run", "try-repo") and not inv.args[0].startswith("-"):
        return []
    path = find_upward(inv.scope.cwd, (".pre-commit-config.yaml",))
    config = load_yaml_mapping(path) if path else None
    repos = config.get("repos") if isinstance(config, dict) else None
    for repo in repos if isinstance(repos, list) else ():
        if not isinstance(repo, dict) or repo.get("repo") != "local":
            continue
        for hook in repo.get("hooks") or ():
            if isinstance(hook, dict) and isinstance(hook.get("entry"), str) and \
                    hook.get("language") in ("system", "script", "unsupported", "unsupported_script"):
                run.nested(hook["entry"], inv, f"pre-commit hook {hook.get('id', '')}")
    return []


# -- tox ----------------------------------------------------------------------------------------------
def tox(run: "Run", inv: Invocation) -> list[Finding]:
    """tox [-e ENVS]: the commands of the environments it runs (tox.ini's [testenv:NAME] commands and
    commands_pre, falling back to [testenv]), read on this machine."""
    import configparser

    path = find_upward(inv.scope.cwd, ("tox.ini",))
    text = read_text(path) if path else None
    if text is None:
        return []
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    args = inv.args
    chosen = [e for i, a in enumerate(args) if a == "-e" and i + 1 < len(args) for e in args[i + 1].split(",")]
    chosen += [e for a in args if a.startswith("-e") and len(a) > 2 for e in a[2:].split(",")]
    sections = [f"testenv:{e}" for e in chosen] if chosen else \
        [s for s in parser.sections() if s == "testenv" or s.startswith("testenv:")]
    for section in sections[:16]:
        source = section if parser.has_section(section) else "testenv"
        for key in ("commands_pre", "commands", "commands_post"):
            if parser.has_option(source, key):
                for line in parser.get(source, key).splitlines():
                    line = re.sub(r"\{env:(\w+)(?::[^}]*)?\}", r"${\1}", line)  # {env:HOME}: the variable
                    line = re.sub(r"\{homedir\}", "~", line)
                    line = re.sub(r"\{posargs(?::[^}]*)?\}|\{envpython\}|\{toxinidir\}", "", line).strip()
                    if line and not line.startswith("#"):
                        run.nested(line.lstrip("-").strip(), inv, f"tox {section.partition(':')[2] or 'testenv'}")
    return []


# -- nox ------------------------------------------------------------------------------------------------
_NOX_SESSION = re.compile(r"^@nox\.session\b(?P<args>[^\n]*)\n(?:@[^\n]*\n)*(?:async\s+)?def\s+(?P<name>\w+)\s*\(", re.M)
_NOX_RUN = re.compile(r"\bsession\.(?:run|run_always|run_install|run_install_always)\s*\(")
_NOX_DEFAULTS = re.compile(r"^nox\.options\.sessions\s*=\s*\[(?P<names>[^\]]*)\]", re.M)


def nox(run: "Run", inv: Invocation) -> list[Finding]:
    """nox [-s SESSION…]: the commands the chosen sessions of noxfile.py run (session.run("uv", "publish")),
    judged as typed; the session's installs into its own virtualenv are routine."""
    args = inv.args
    if any(a in ("-l", "--list", "--list-sessions", "--help", "-h", "--version", "--json") for a in args):
        return [allow("nox only lists its sessions", "read-only", rule="tasks.nox")]
    given = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-f", "--noxfile")), None)
    path = (posixpath.normpath(posixpath.join(inv.scope.cwd or "/", given)) if given else
            find_upward(inv.scope.cwd, ("noxfile.py",)))
    text = read_text(path) if path else None
    if text is None:
        return []
    sessions: dict[str, tuple[int, str]] = {}
    matches = list(_NOX_SESSION.finditer(text))
    for k, m in enumerate(matches):
        named = re.search(r"""\bname\s*=\s*["']([\w:.-]+)["']""", m.group("args"))
        end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        sessions[named.group(1) if named else m.group("name")] = (text.count("\n", 0, m.start()) + 1,
                                                                    text[m.end():end])
    chosen: list[str] = []
    i = 0
    while i < len(args):
        if args[i] in ("-s", "-e", "--session", "--sessions"):
            i += 1
            while i < len(args) and not args[i].startswith("-"):
                chosen += args[i].split(",")
                i += 1
            continue
        if args[i].startswith(("--session=", "--sessions=")):
            chosen += args[i].partition("=")[2].split(",")
        i += 1
    if not chosen:
        defaults = _NOX_DEFAULTS.search(text)
        chosen = re.findall(r"""["']([\w:.-]+)["']""", defaults.group("names")) if defaults else list(sessions)
    where = _shown(inv, path)
    for name in [n for n in chosen if n in sessions][:MAX_TASKS]:
        line, body = sessions[name]
        for m in _NOX_RUN.finditer(body):
            words = _call_literals(body[m.end():])
            if words:
                number = line + body.count("\n", 0, m.start())
                _judge_text(run, inv, shlex.join(words), Origin(where, number), posixpath.dirname(path),
                            f"nox -s {name} › {where}:{number}")
    return []


def _call_literals(rest: str) -> list[str]:
    """The string literals a call is handed up to its closing parenthesis (`*session.posargs` and other values
    computed at run time stand for a word not known)."""
    depth, end = 1, 0
    for end, c in enumerate(rest[:2000]):
        depth += 1 if c == "(" else -1 if c == ")" else 0
        if depth == 0:
            break
    words: list[str] = []
    for part in re.split(r",(?![^()]*\))", rest[:end]):
        part = part.strip()
        literal = re.fullmatch(r"""[rbuf]?(["'])(.*)\1""", part, re.S)
        if literal:
            words.append(literal.group(2))
        elif part and "=" not in part.split("(")[0]:
            words.append(UNKNOWN_WORD)
    return words


# -- project generators -------------------------------------------------------------------------------
def cookiecutter(run: "Run", inv: Invocation) -> list[Finding]:
    """cookiecutter TEMPLATE: its hooks (pre/post_gen_project scripts) run on this machine; a template fetched
    from the network brings hooks no one has read."""
    template = next((a for a in inv.args if not a.startswith("-")), None)
    if template is None or DYN in template:
        return []
    if re.match(r"^(?:gh|gl|bb):|^[a-z+]+://|^git@|\.zip$", template):
        return [ask(f"cookiecutter renders {template}, a template from the network: its hooks run here unread",
                    "remote-exec", BlastRadius.HIGH, "tasks.generator")]
    hooks = _cwd(inv, posixpath.join(template, "hooks"))
    for name in sorted(os.listdir(hooks)) if hooks and os.path.isdir(hooks) else ():
        path = posixpath.join(hooks, name)
        if re.match(r"(?:pre|post)_(?:gen_project|prompt)\b", name) and os.path.isfile(path):
            judged = run.project_file(path, inv, "python3" if name.endswith(".py") else "sh",
                                      f"{_shown(inv, path)} (cookiecutter hook)")
            if judged is not None:
                run.add(judged)
    return [allow(f"cookiecutter renders the local template {template}", "build-test", rule="tasks.generator")]


# -- cargo ----------------------------------------------------------------------------------------
_CARGO_BUILDS = frozenset({"build", "b", "check", "c", "test", "t", "run", "r", "bench", "clippy", "doc", "d", "rustc",
                           "fix", "install", "package", "publish"})


def cargo(run: "Run", inv: Invocation) -> list[Finding]:
    """cargo build/test/run …: the package's build script (build.rs) is compiled and run first."""
    args = inv.args
    sub = next((a for a in args if not a.startswith(("-", "+"))), "")
    if sub not in _CARGO_BUILDS:
        return []
    manifest = None
    for i, arg in enumerate(args):
        if arg == "--manifest-path" and i + 1 < len(args):
            manifest = _cwd(inv, args[i + 1])
        elif arg.startswith("--manifest-path="):
            manifest = _cwd(inv, arg.partition("=")[2])
    manifest = manifest or find_upward(inv.scope.cwd, ("Cargo.toml",))
    text = read_text(manifest) if manifest and DYN not in manifest else None
    if text is None:
        return []
    named = re.search(r"""(?m)^\s*build\s*=\s*["']([^"']+)["']""", text)
    if named is None and re.search(r"(?m)^\s*build\s*=\s*false\b", text):
        return []
    script = posixpath.join(posixpath.dirname(manifest), named.group(1) if named else "build.rs")
    if os.path.isfile(script):
        judged = run.project_file(script, inv, "rust-script", f"{_shown(inv, script)} (cargo's build script)")
        if judged is not None:
            run.add(judged)
    return []


HANDLERS = {**{n: package_manager for n in ("npm", "pnpm", "yarn", "bun")},
            **{n: make for n in ("make", "gmake")},
            "turbo": turbo, "nx": nx, "lerna": lerna, "just": just, "rake": rake, "composer": composer,
            "poe": poe, "task": taskfile, "go-task": taskfile, "pip": pip, "pip3": pip, "uv": pip, "pyproject-build": python_build, "go": go, "cargo": cargo,
            "cookiecutter": cookiecutter, "tox": tox, "bundle": bundle, "bundler": bundle,
            "pre-commit": pre_commit, "nox": nox}


# -- fastlane ---------------------------------------------------------------------------------------
_LANE = re.compile(r"^(\s*)(?:private_)?lane\s+:(\w+)\s+do\b")
_ACTION = re.compile(r"^\s*([a-z_]\w*)\b\s*(\(|\s|$)")
_RUBY_WORDS = frozenset({"if", "unless", "else", "elsif", "end", "do", "begin", "rescue", "ensure", "return", "when",
                         "case", "while", "until", "for", "next", "break", "then", "yield", "require", "raise",
                         "true", "false", "nil"})
_FASTLANE_OWN = frozenset({"lanes", "list", "init", "env", "actions", "action", "search_plugins", "add_plugin",
                           "install_plugins", "update_plugins", "update_fastlane", "new_action", "docs", "help",
                           "enable_auto_complete", "run", "socket_server", "--version", "-v", "--help", "-h"})


def fastlane(run: "Run", inv: Invocation) -> list[Finding]:
    """`fastlane beta`, `bundle exec fastlane ios reset_certs`: the lane's actions in the Fastfile, as make judges a
    target's recipe (taxonomy lane_actions): an action that breaks the team's signing denies, a publish asks, the
    routine ones (tests, builds, version bumps) are quiet, `sh` commands are judged as shell; a lane another lane
    calls is followed. An action guardtui does not know leaves the command to the taxonomy."""
    positionals = [a for a in inv.args if not a.startswith("-") and ":" not in a]
    if not positionals or positionals[0] in _FASTLANE_OWN or not inv.scope.cwd or inv.scope.remote:
        return []
    fastfile = find_upward(inv.scope.cwd, ("fastlane/Fastfile", "Fastfile", ".fastlane/Fastfile"))
    text = read_text(fastfile) if fastfile else None
    if text is None or any(DYN in p for p in positionals):
        return []
    changed = _changed(run, inv, fastfile)
    if changed:
        return changed
    lanes = _fastfile_lanes(text)
    lane = positionals[-1]
    if lane not in lanes:
        return []
    spec = run.tax.lane_actions.get("fastlane", {})
    shown = _shown(inv, fastfile)
    found: list[Finding] = []
    unknown: list[str] = []
    todo, seen = [lane], set()
    while todo and len(seen) < MAX_TASKS:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        line, body = lanes[name]
        for offset, row in enumerate(body.split("\n"), 1):
            m = _ACTION.match(row)
            if m is None or m.group(1) in _RUBY_WORDS:
                continue
            action, where = m.group(1), f"{shown}:{line + offset}"
            if action in lanes:
                todo.append(action)
            elif action == "sh":
                script = re.search(r"""sh\s*\(?\s*(["'])(.*?)\1""", row)
                if script:
                    run.nested(script.group(2), inv, f"fastlane {name} › {where}",
                               origin=Origin(shown, line + offset))
            elif action in spec.get("deny", {}):
                found.append(deny(f"fastlane {lane} runs {action} ({where}): {spec['deny'][action]}", "deploy",
                                  "tasks.fastlane"))
            elif action in spec.get("allow_when", {}) and re.search(spec["allow_when"][action], row):
                continue
            elif action in spec.get("ask", {}):
                found.append(ask(f"fastlane {lane} runs {action} ({where}): {spec['ask'][action]}", "deploy",
                                 BlastRadius.MEDIUM, "tasks.fastlane"))
            elif action not in spec.get("allow", ()):
                unknown.append(action)
    if any(f.rule == "tasks.fastlane" and f.blast_radius is BlastRadius.CRITICAL for f in found):
        return found
    if unknown:  # what an action guardtui does not know does: the taxonomy's word on the lane
        return found + run.taxonomy(inv)
    return found or [allow(f"fastlane {lane} runs routine actions ({shown}: judged above)", "build-test",
                           rule="tasks.fastlane")]


def _fastfile_lanes(text: str) -> dict[str, tuple[int, str]]:
    """lane name → (its line, its body): the lines up to the `end` at the lane's own indentation."""
    out: dict[str, tuple[int, str]] = {}
    lines = text.split("\n")
    for index, row in enumerate(lines):
        m = _LANE.match(row)
        if m is None:
            continue
        indent = len(m.group(1))
        body = []
        for inner in lines[index + 1:index + 400]:
            if inner.strip() == "end" and len(inner) - len(inner.lstrip()) <= indent:
                break
            body.append(inner)
        out[m.group(2)] = (index + 1, "\n".join(body))
    return out


HANDLERS["fastlane"] = fastlane
