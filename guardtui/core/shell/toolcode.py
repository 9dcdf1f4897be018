"""Code a routine tool runs because the project (or the person's setup) tells it to, judged as the program it is:

- the plugins and hooks a tool's configuration names (mypy `plugins`, flake8 local plugins, mkdocs `hooks`,
  prettier plugins, bazel's status command, Maven's exec plugin, bunfig preloads, hatch install commands), its
  configuration files that are programs (vitest.config.*, .Rprofile, mix.exs), Nix shellHooks, conda
  activate.d scripts, helm plugin manifests, executables an option names (ansible -i DIR), and the entry points
  pytest loads from the project's environment (taxonomy `config_code`; rules/later.py reads the same data when
  one of these configurations is written);
- the project's own programs a command name finds first: node_modules/.bin in a package script, a directory put
  first on PATH, an activated venv's console scripts, plugins named TOOL-SUB; programs `pip install -e` or
  `npm link` put on PATH under a known command's name;
- the home files dotfile managers put in place (dotbot, rcup, dotter, home-manager).

Code the project did not write (an installed plugin, a launcher) is judged for what no routine launcher does
(deny_only); the project's own files are judged whole."""
from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import os
import posixpath
import re
import shlex
import tomllib
import zipfile
from dataclasses import replace
from typing import TYPE_CHECKING

from .findings import Finding, Verdict, ask, deny, with_rule
from .invocation import Origin
from .projectfiles import find_upward, python_module_file, read_text
from .words import DYN, Word

if TYPE_CHECKING:
    from .invocation import Invocation, Run

MAX_FILES = 12
LOCAL_BINS = "local-bins"  # scope fact: the package directory whose node_modules/.bin a package script sees
PATH_FIRST = "path-first"  # scope fact: a directory an activated environment put first on PATH
PYTHON_PROGRAM = "python-program"  # scope fact: the python that runs a tool module (its environment's plugins)
_RUNNER = {"python": "python3", "js": "node", "shell": "sh", "ruby": "ruby"}
_SUFFIXES = {"python": (".py",), "js": (".js", ".cjs", ".mjs", ".ts"), "shell": (".sh", ""), "ruby": (".rb",)}
_SPLIT = re.compile(r"""[\s,;"'\[\]{}()=]+""")
_PACKAGE_DIRS = {"go": ".go"}  # languages whose code a configuration names by its package directory
_NOT_NAMES = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none"})


def in_home(value: str, home: str) -> str:
    """`~/x` under the judged call's home (the agent's, which is not always this process's)."""
    return home.rstrip("/") + value[1:] if value == "~" or value.startswith("~/") else value


def runner_for(spec: dict) -> str:
    """The program that runs the code a tool's configuration names (its `runner`, else by its language)."""
    return spec.get("runner") or _RUNNER.get(spec.get("language", "python"), "sh")


def config_for(tool: str, spec: dict, words: list[str], cwd: str, stop: str | None, home: str = "~") -> list[str]:
    """The configuration files `tool` reads here: the one an option names, else the first of its usual names
    found in cwd or a directory above it (not above the project)."""
    options = tuple(spec.get("options", ()))
    for i, word in enumerate(words):
        value = words[i + 1] if word in options and i + 1 < len(words) else \
            word.partition("=")[2] if word.partition("=")[0] in options and "=" in word else ""
        if value and DYN not in value:
            path = posixpath.normpath(posixpath.join(cwd, in_home(value, home)))
            for suffix in spec.get("option_suffixes", ()):  # pandoc -d pdf: ./pdf.yaml
                if not os.path.isfile(path) and os.path.isfile(path + suffix):
                    return [path + suffix]
            return [path]
    found = []
    for name in spec.get("configs", ()):  # MSBuild looks for Directory.Build.* up to the root (`configs_up`)
        path = find_upward(cwd, (name,), None if spec.get("configs_up") else stop)
        if path:
            found.append(path)
    if spec.get("walk"):  # dune: a `dune` file in every directory of the tree it builds
        found += [p for p in _walk_for(cwd, tuple(spec.get("configs", ()))) if p not in found]
    modules = tuple(spec.get("module_options", ()))  # mvn -pl core,api: each module's own pom.xml
    for i, word in enumerate(words):
        if word in modules and i + 1 < len(words) and DYN not in words[i + 1]:
            for module in words[i + 1].split(",")[:8]:
                for name in spec.get("configs", ()):
                    path = posixpath.normpath(posixpath.join(cwd, module.lstrip(":"), name))
                    if os.path.isfile(path) and path not in found:
                        found.append(path)
    return found


def named_values(text: str, keys: tuple[str, ...]) -> list[str]:
    """The words the given keys hold: `key = a, b`, `key: [a, b]`, `"key": ["a"]`, `--key=a`, with their
    continuation lines (indented deeper, or a YAML list right under an empty value)."""
    lines = text.splitlines()
    out: list[str] = []
    for key in keys:  # pom.xml: <executable>tools/gen.sh</executable>, <argument>…</argument>
        if key.startswith("<"):
            out += [w for m in re.finditer(r"%s\s*([^<]{1,512})</" % re.escape(key), text) for w in _SPLIT.split(m.group(1))]
    keys = tuple(k for k in keys if not k.startswith("<"))
    if not keys:
        return [w for w in out if w and DYN not in w]
    pattern = re.compile(r"""(?:^|[\s"'{,\[])(?:%s)["']?(?:\s*[=:]\s*|\s+(?=[^\s=:]))(.*)$""" %
                         "|".join(re.escape(k) for k in keys))
    for i, line in enumerate(lines[:4000]):
        if line.lstrip().startswith(("#", ";", "//")):
            continue
        m = pattern.search(line)
        if m is None:
            continue
        value = m.group(1)
        out += _SPLIT.split(value)
        indent = len(line) - len(line.lstrip())
        for follow in lines[i + 1:i + 64]:
            stripped = follow.strip()
            if not stripped:
                continue
            deeper = len(follow) - len(follow.lstrip()) > indent
            listed = not value.strip() and stripped.startswith("- ") and len(follow) - len(follow.lstrip()) == indent
            if not (deeper or listed):
                break
            out += _SPLIT.split(stripped.lstrip("- "))
    return [w for w in out if w and w.lower() not in _NOT_NAMES and not w.isdigit() and DYN not in w]


def _only_sections(text: str, keep: set[str]) -> str:
    """The lines of an INI/TOML text under the kept [section] headers ("" is the top level)."""
    out, section = [], ""
    for line in text.splitlines():
        header = re.match(r"^\s*\[+\s*([^\]]*?)\s*\]+\s*$", line)
        if header:
            section = header.group(1)
            continue
        if section in keep:
            out.append(line)
    return "\n".join(out)


def _executable_inputs(inv: "Invocation", words: list[str], spec: dict) -> list[str]:
    """The executable files an option (or a variable) names, a directory's executable files among them."""
    values: list[str] = []
    options = tuple(spec.get("program_options", ()))
    for i, word in enumerate(words):
        if word in options and i + 1 < len(words):
            values.append(words[i + 1])
        elif "=" in word and word.partition("=")[0] in options:
            values.append(word.partition("=")[2])
    env = dict(inv.scope.variables)
    env.update({name: w.value for name, w in inv.cmd.assignments})
    values += [env[name] for name in spec.get("program_env", ()) if isinstance(env.get(name), str)]
    found: list[str] = []
    for value in values:
        value = value.rpartition("@")[2] if "@" in value and "/" not in value.partition("@")[0] else value
        if not value or DYN in value:
            continue
        path = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(value, inv.scope.home)))
        if os.path.isdir(path):
            try:
                names = sorted(os.listdir(path))[:64]
            except OSError:
                continue
            found += [p for n in names if _runnable(p := posixpath.join(path, n))]
        elif _runnable(path):
            found.append(path)
    return found


def _extension_code(inv: "Invocation", words: list[str], spec: dict) -> list[str]:
    """The code of the editor extensions an option points at (a development extension's directory, a directory of
    extensions): each one's package.json `main` and `browser` entry, which the editor loads and activates."""
    options = tuple(spec.get("extension_options", ()))
    if not options:
        return []
    values = [words[i + 1] for i, w in enumerate(words[:-1]) if w in options]
    values += [w.partition("=")[2] for w in words if "=" in w and w.partition("=")[0] in options]
    found: list[str] = []
    for value in values:
        if not value or DYN in value:
            continue
        directory = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(value, inv.scope.home)))
        if os.path.isfile(posixpath.join(directory, "package.json")):
            extensions = [directory]
        else:
            try:
                extensions = [posixpath.join(directory, n) for n in sorted(os.listdir(directory))[:32]]
            except OSError:
                continue
        for extension in extensions:
            try:
                manifest = json.loads(read_text(posixpath.join(extension, "package.json")) or "null")
            except ValueError:
                continue
            for key in ("main", "browser"):
                entry = manifest.get(key) if isinstance(manifest, dict) else None
                if isinstance(entry, str):
                    path = posixpath.normpath(posixpath.join(extension, entry))
                    path = path if os.path.isfile(path) else path + ".js"
                    if os.path.isfile(path) and path not in found:
                        found.append(path)
    return found


def judge_extension_installs(run: "Run", inv: "Invocation", words: list[str], spec: dict) -> None:
    """`code --install-extension X`: the extension's code runs in the person's editor in every later session. A
    package file (.vsix, a zip) is judged by its entry code (extension/package.json `main`, `browser`), and one
    that cannot be read denies: nothing of what it will run can be seen; an extension fetched by its id asks."""
    options = tuple(spec.get("install_options", ()))
    values = [words[i + 1] for i, w in enumerate(words[:-1]) if w in options]
    values += [w.partition("=")[2] for w in words if "=" in w and w.partition("=")[0] in options]
    for value in values[:8]:
        if not value or DYN in value:
            run.add(ask(f"{inv.name} installs an editor extension only known when it runs", "package",
                        rule="shell.extension-install"))
            continue
        if not value.lower().endswith(".vsix"):
            run.add(ask(f"{inv.name} installs the extension {value} into your editor: its code runs in every later "
                        "session", "package", rule="shell.extension-install"))
            continue
        path = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(value, inv.scope.home)))
        entries = _vsix_entries(path)
        if entries is None:
            run.add(deny(f"{inv.name} installs {shown_name(path, inv)} into your editor, a package guardtui cannot "
                         "read: its code would run in every later session", "package", rule="shell.extension-install"))
            continue
        run.add(ask(f"{inv.name} installs {shown_name(path, inv)} into your editor: its code runs in every later "
                    "session", "package", rule="shell.extension-install"))
        for member, text in entries:
            run.program(text, "js", inv, Origin(f"{shown_name(path, inv)}!{member}"),
                        label=f"{member} ({inv.name} activates the extension)")


def judge_local_plugins(run: "Run", inv: "Invocation", words: list[str], plugin: dict | None) -> None:
    """`heroku plugins:link DIR`, `poetry self add ./dir`: a plugin from a directory joins the tool and its code runs
    with every later command (an oclif plugin's package.json `oclif.hooks`, a Python package's entry points in the
    tool's plugin groups); each file is judged as the program it is."""
    if not plugin:
        return
    plain = [w for w in words if not w.startswith("-")]
    for after in plugin.get("after", ()):
        lead = after.split()
        if plain[:len(lead)] != lead:
            continue
        for value in plain[len(lead):][:4]:
            if DYN in value or not (value.startswith((".", "/", "~")) or "/" in value):
                continue
            directory = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(value, inv.scope.home)))
            if plugin.get("manifest") == "oclif":
                files, runner = _oclif_hooks(directory), "node"
            else:
                files, runner = _python_plugin_modules(directory, tuple(plugin.get("groups", ()))), "python3"
            for path in files[:MAX_FILES]:
                judged = run.project_file(path, inv, runner, f"{posixpath.basename(path)} ({inv.name} loads the plugin "
                                                             "with every later command)")
                if judged is not None:
                    run.add(judged)


def _oclif_hooks(directory: str) -> list[str]:
    try:
        manifest = json.loads(read_text(posixpath.join(directory, "package.json")) or "null")
    except ValueError:
        return []
    oclif = manifest.get("oclif") if isinstance(manifest, dict) else None
    hooks = oclif.get("hooks") if isinstance(oclif, dict) else None
    out = []
    for value in hooks.values() if isinstance(hooks, dict) else ():
        for entry in value if isinstance(value, list) else [value]:
            entry = entry.get("target") if isinstance(entry, dict) else entry
            if isinstance(entry, str):
                out += [p for p in resolve([entry if "/" in entry else "./" + entry], "js", [directory])
                        if p not in out]
    return out


def _python_plugin_modules(directory: str, groups: tuple[str, ...]) -> list[str]:
    """The modules a Python package directory registers under the given entry-point groups (pyproject.toml's
    [project.entry-points."G"] or [tool.poetry.plugins."G"]), found in the directory or its src/."""
    text = read_text(posixpath.join(directory, "pyproject.toml")) or ""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    tables = [(data.get("project") or {}).get("entry-points") or {}, ((data.get("tool") or {}).get("poetry") or {})
              .get("plugins") or {}]
    modules = [str(v).split(":")[0].strip() for table in tables if isinstance(table, dict)
               for g in groups if isinstance(table.get(g), dict) for v in table[g].values()]
    return resolve(modules, "python", [directory, posixpath.join(directory, "src")])


def _vsix_entries(path: str) -> list[tuple[str, str]] | None:
    """The entry code of an extension package (a zip): [(member, text)], None when it is not a readable one."""
    try:
        with zipfile.ZipFile(path) as package:
            manifest = json.loads(package.read("extension/package.json").decode("utf-8"))
            names = set(package.namelist())
            out = []
            for key in ("main", "browser"):
                entry = manifest.get(key) if isinstance(manifest, dict) else None
                if not isinstance(entry, str):
                    continue
                member = posixpath.normpath(posixpath.join("extension", entry))
                member = member if member in names else member + ".js"
                if member in names:
                    info = package.getinfo(member)
                    if info.file_size > 2 << 20:
                        return None
                    out.append((member, package.read(member).decode("utf-8", "replace")))
            return out
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, UnicodeDecodeError, RuntimeError):
        return None


def _runnable(path: str) -> bool:
    """An executable file, or a script with a #! line (its mode is one chmod away)."""
    if not os.path.isfile(path):
        return False
    if os.access(path, os.X_OK):
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def inline_values(text: str, keys: tuple[str, ...]) -> list[str]:
    """The text a key holds as code: Nix's `shellHook = '' … '';`, a quoted one-line value."""
    out = []
    for key in keys:
        for m in re.finditer(r"\b%s\s*=\s*(?:''(?P<nix>.*?)''|\"(?P<dq>(?:[^\"\\]|\\.)*)\")" % re.escape(key), text, re.S):
            out.append(m.group("nix") if m.group("nix") is not None else m.group("dq"))
    return [o for o in out if o and o.strip()]


def _activation_scripts(inv: "Invocation", words: list[str], spec: dict) -> list[str]:
    prefixes: list[str] = []
    for i, word in enumerate(words):
        value = words[i + 1] if i + 1 < len(words) else ""
        if word in ("-p", "--prefix") and value and DYN not in value:
            prefixes.append(posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(value, inv.scope.home))))
        elif word in ("-n", "--name") and value and DYN not in value:
            prefixes += [posixpath.join(inv.scope.home, root, "envs", value) for root in spec["activate_dirs"]]
    scripts = []
    for prefix in prefixes:
        directory = posixpath.join(prefix, "etc", "conda", "activate.d")
        try:
            scripts += [posixpath.join(directory, n) for n in sorted(os.listdir(directory))[:16]]
        except OSError:
            continue
    return scripts


def resolve(words: list[str], language: str, bases: list[str], prefixes: tuple[str, ...] = ()) -> list[str]:
    """The project files the words name: paths, dotted Python modules (`tools.plugin`, `mod:Class`), npm
    packages in node_modules (their `main`), each tried against every base directory."""
    dirs = list(bases)
    for word in words:  # flake8's `paths = ./tools/lint`: a directory the named modules are found in
        for base in bases:
            candidate = posixpath.normpath(posixpath.join(base, word))
            if ("/" in word or word.startswith(".")) and os.path.isdir(candidate) and candidate not in dirs:
                dirs.append(candidate)
    found: list[str] = []
    for word in words:
        for path in _candidates(word.split(":")[0] if language == "python" else word, language, dirs, prefixes):
            if os.path.isfile(path) and path not in found:
                found.append(path)
                break
        if len(found) >= MAX_FILES:
            break
    return found


def _candidates(word: str, language: str, dirs: list[str], prefixes: tuple[str, ...]):
    if not word or word.startswith(("http:", "https:")):
        return
    label = _BAZEL_LABEL.fullmatch(word)
    if label:  # bazel's --run_under=//tools:warm: the sources of the rule that label names
        for base in dirs:
            yield from _bazel_sources(base, label.group(1), label.group(2) or posixpath.basename(label.group(1)))
        return
    pathlike = "/" in word or word.endswith(tuple(s for s in _SUFFIXES.get(language, ()) if s))
    for base in dirs:
        if pathlike:
            path = posixpath.normpath(posixpath.join(base, os.path.expanduser(word)))
            if language in _PACKAGE_DIRS and os.path.isdir(path):  # a Go module plugin: its package's files
                yield from _package_files(path, _PACKAGE_DIRS[language])
            yield path
            for suffix in _SUFFIXES.get(language, ()):
                yield path + suffix
        elif language == "python" and re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", word):
            relative = word.replace(".", "/")
            yield posixpath.join(base, relative + ".py")
            yield posixpath.join(base, relative, "__init__.py")
        elif language == "js" and re.fullmatch(r"(?:@[\w.-]+/)?[\w.-]+", word):
            for name in (word,) + tuple(p + word for p in prefixes if not word.startswith(p)):
                yield from _package_main(posixpath.join(base, "node_modules", name))


_BAZEL_LABEL = re.compile(r"(?:@@?\w*)?//([\w/.+-]*)(?::([\w/.+-]+))?")
_BAZEL_RULE = re.compile(r"\b\w+\s*\((?:[^()]|\([^()]*\))*\)", re.S)


def _bazel_sources(root: str, package: str, name: str):
    """The files a bazel rule's `srcs` list names (a sh_binary's script), read from the package's BUILD file."""
    for build in ("BUILD.bazel", "BUILD"):
        text = read_text(posixpath.join(root, package, build))
        if text is None:
            continue
        for rule in _BAZEL_RULE.finditer(text):
            if re.search(r"\bname\s*=\s*[\"']%s[\"']" % re.escape(name), rule.group(0)):
                srcs = re.search(r"\bsrcs\s*=\s*\[([^\]]*)\]", rule.group(0))
                for src in re.findall(r"[\"']([^\"']+)[\"']", srcs.group(1) if srcs else ""):
                    yield posixpath.normpath(posixpath.join(root, package, src.lstrip(":")))
        return


def _package_files(directory: str, suffix: str):
    """The source files of a package directory (Go: every .go file but the tests), a few."""
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(suffix) and not n.endswith("_test" + suffix))
    except OSError:
        return
    for name in names[:MAX_FILES]:
        yield posixpath.join(directory, name)


def _package_main(directory: str):
    text = read_text(posixpath.join(directory, "package.json"))
    main = None
    if text:
        try:
            data = json.loads(text)
        except ValueError:
            data = {}
        main = data.get("main") if isinstance(data, dict) and isinstance(data.get("main"), str) else None
    if main:
        yield posixpath.normpath(posixpath.join(directory, main))
    yield posixpath.join(directory, "index.js")


def code_files(tool: str, spec: dict, config: str, text: str, cwd: str, project: str | None) -> list[str]:
    """The project files a configuration file of `tool` makes it load."""
    here = posixpath.dirname(config)
    text = text.replace("${project.basedir}", here).replace("${basedir}", here)  # Maven's own directory
    words = named_values(text, tuple(spec.get("keys", ())))
    if not words:
        return []
    bases = [posixpath.dirname(config)] + [d for d in (cwd, project) if d and d != posixpath.dirname(config)]
    if spec.get("language", "python") == "python":  # a src layout: the package is importable from src/
        bases += [posixpath.join(b, "src") for b in bases if posixpath.join(b, "src") not in bases]
    return resolve(words, spec.get("language", "python"), bases, tuple(spec.get("prefixes", ())))


def judge_config_code(run: "Run", inv: "Invocation") -> None:
    """`mypy`, `flake8`, `mkdocs build`, `prettier --check`, `bazel build` …: the plugins and hooks their
    configuration names run inside them; each is judged as the program it is."""
    spec = run.tax.config_code.get(inv.name)
    if spec is None and "/" in inv.name and DYN not in inv.name:  # bin/rails console: the project's rails
        spec = run.tax.config_code.get(posixpath.basename(inv.name))
    cwd = inv.scope.cwd
    if spec is None or not cwd or inv.scope.remote:
        return
    words = [w.value for w in inv.words]
    if spec.get("flags") and not set(words) & set(spec["flags"]):  # perl reads .perldb only under -d
        return
    sub = tuple(spec.get("subcommands", ()))
    if sub and not any(w in sub for w in words if not w.startswith("-")):
        return
    isolated = set(spec.get("isolated", ()))
    # flake8 --isolated: no configuration is read; also passed on inside another option's value
    # (cabal repl --repl-options="-Wall -ignore-dot-ghci")
    if set(words) & isolated or any(isolated & set(w.partition("=")[2].split()) for w in words if "=" in w):
        return
    spec = hooks_of_this_call(spec, words)
    repl = spec.get("configs_only_for")
    if repl and not any(w in repl for w in words if not w.startswith("-")):  # cabal build reads no .ghci
        spec = {k: v for k, v in spec.items() if k not in ("configs", "command_patterns", "command_region")}
    manifest = spec.get("plugin_manifest")
    if manifest and words[:2] == ["plugin", "install"] and len(words) > 2 and DYN not in words[2]:
        # helm plugin install ./dir: the manifest's install hook runs now, its command whenever it is used
        directory = posixpath.normpath(posixpath.join(cwd, in_home(words[2], inv.scope.home)))
        text = read_text(posixpath.join(directory, manifest)) or ""
        for m in re.finditer(r"(?m)^\s*(?:install|update|command|platformCommand)\s*:\s*(?P<q>[\"']?)(.+?)(?P=q)\s*$",
                             text):
            scope = inv.scope.copy()
            scope.variables["HELM_PLUGIN_DIR"] = directory
            run.nested(m.group(2), inv, f"{inv.name} plugin {posixpath.basename(directory)}", scope)
    for path in _extension_code(inv, words, spec)[:MAX_FILES]:  # code --extensionDevelopmentPath=DIR
        judged = run.project_file(path, inv, "node", f"{posixpath.basename(path)} ({inv.name} loads the extension and "
                                                     "runs its activate)")
        if judged is not None:
            run.add(judged)
    judge_extension_installs(run, inv, words, spec)  # code --install-extension x.vsix: the editor runs it from now on
    judge_local_plugins(run, inv, words, spec.get("local_plugin"))  # heroku plugins:link DIR, poetry self add DIR
    for path in _executable_inputs(inv, words, spec)[:MAX_FILES]:
        # ansible -i inventory/ (its executables are run for their hosts), --vault-password-file script
        judged = run.project_file(path, inv, "", f"{posixpath.basename(path)} ({inv.name} runs it)")
        if judged is not None:
            run.add(judged)
    if spec.get("inline"):  # flake.nix's shellHook = '' … '': shell text the tool runs as it is
        for config in config_for(inv.name, spec, words, cwd, inv.scope.project, inv.scope.home)[:4]:
            for script in inline_values(read_text(config) or "", tuple(spec.get("keys", ())))[:8]:
                run.nested(script, inv, f"{inv.name} › {posixpath.basename(config)}")
        return
    if spec.get("activate_dirs"):  # conda run -p ./envs/nb: the environment's activate.d scripts are sourced
        for script in _activation_scripts(inv, words, spec)[:MAX_FILES]:
            judged = run.project_file(script, inv, "source", f"{posixpath.basename(script)} (activating the environment)")
            if judged is not None:
                run.add(judged)
        return
    first = next((w for w in words if not w.startswith("-")), "")
    programs = list(spec.get("programs", ())) + list((spec.get("programs_for") or {}).get(first, ()))
    skipping = spec.get("skipped_by") or {}  # scons --no-site-dir: site_scons/site_init.py is not imported
    programs = [p for p in programs if not any(p in files and (option in words or any(w.startswith(option + "=")
                                                                                        for w in words))
                                               for option, files in skipping.items())]
    said = " ".join(words)  # julia -e 'using Pkg; Pkg.build()': the words call for deps/build.jl
    programs += [p for pattern, files in (spec.get("programs_when") or {}).items() if re.search(pattern, said)
                 for p in files if p not in programs]
    named = _named_program_files(inv, words, spec)  # pelican -s conf.py, VAGRANT_VAGRANTFILE=x: that file instead
    directories = _argument_dirs(inv, words) if spec.get("beside_arguments") else []
    configs = named or _program_configs(programs, cwd, inv.scope.project, every=bool(spec.get("programs_for")),
                                        first=directories, all_matches=bool(spec.get("all_programs")))
    configs += [p for p in _program_configs(spec.get("also_programs", ()), cwd, inv.scope.project, every=True)
                if p not in configs]  # vite build evaluates postcss.config.cjs too
    for path in configs:
        label = f"{posixpath.basename(path)} ({inv.name} runs its configuration)"
        if spec.get("command_patterns"):  # meson.build's run_command, config.nims' exec: the commands in it
            judge_embedded(run, inv, spec, path, label)
        judged = run.project_file(path, inv, spec.get("runner") or _RUNNER.get(spec.get("language", "js"), ""),
                                  label, language=spec.get("code_language"))
        if judged is not None:
            run.add(judged)
        if spec.get("program_keys"):  # vitest.config.ts' globalSetup, setupFiles: files it loads by name
            words = named_values(read_text(path) or "", tuple(spec["program_keys"]))
            bases = [posixpath.dirname(path)] + [d for d in (cwd, inv.scope.project) if d and d != posixpath.dirname(path)]
            for loaded in resolve(words, spec.get("language", "js"), bases, tuple(spec.get("prefixes", ())))[:MAX_FILES]:
                judged = run.project_file(loaded, inv, _RUNNER.get(spec.get("language", "js"), ""),
                                          f"{posixpath.basename(loaded)} ({inv.name} loads it: {posixpath.basename(path)})")
                if judged is not None:
                    run.add(judged)
    for path in scanned_sources(cwd, spec.get("scan"), inv.scope.project):  # Crystal's macros run as it compiles
        judge_embedded(run, inv, spec, path, f"{inv.name} › {shown_name(path, inv)} (compile-time code)")
    judge_shell_escapes(run, inv, words, spec.get("shell_escape"))
    judge_source_scripts(run, inv, words, spec.get("source_scripts"))
    off = spec.get("autoload_off")
    if spec.get("entry_points") and not (off and inv.scope.variables.get(off) not in (None, "", "0")):
        judge_entry_points(run, inv, spec["entry_points"])
    for config in config_for(inv.name, spec, words, cwd, inv.scope.project, inv.scope.home)[:8]:
        text = read_text(config)
        if text is None:
            continue
        for command in config_commands(spec, config, text)[:MAX_FILES]:  # nodemon.json's exec and events
            run.nested(command, inv, f"{inv.name} › {posixpath.basename(config)}")
        if spec.get("command_patterns"):  # book.toml's preprocessor commands, rebar.config's hooks, dune's actions
            judge_embedded(run, inv, spec, config, f"{inv.name} › {shown_name(config, inv)}", text)
        sections = spec.get("sections")
        if sections:  # bunfig.toml: the top level always, [test] for `bun test`
            sub = next((w for w in words if not w.startswith("-")), "")
            text = _only_sections(text, {""} | ({sub} if sub in sections else set()))
        for path in code_files(inv.name, spec, config, text, cwd, inv.scope.project):
            judged = run.project_file(path, inv, _RUNNER.get(spec.get("language", "python"), ""),
                                      f"{posixpath.basename(path)} ({inv.name} loads it: {posixpath.basename(config)})",
                                      language=spec.get("code_language"))
            if judged is not None:
                run.add(judged)


def hooks_of_this_call(spec: dict, words: list[str]) -> dict:
    """A tool that runs pre_/post_ hooks by what it is asked to do (PDM: `pdm install` runs pre_install and
    post_install, `pdm run test` pre_test and post_test): the spec's command patterns with `{hooks}` standing for
    this subcommand's hook names and `{when}` for pre/post less what the skip option leaves out (--skip=:post).
    A subcommand that runs no hooks judges none."""
    hooks = spec.get("hooks")
    if not hooks:
        return spec
    plain = [w for w in words if not w.startswith("-")]
    sub = plain[0] if plain else ""
    names = [plain[1] if n == "$1" else n for n in hooks.get(sub, ()) if n != "$1" or len(plain) > 1]
    skip = spec.get("hook_skip") or {}
    option = skip.get("option", "")
    skipped = {v for i, w in enumerate(words) for v in
               (w.partition("=")[2] if w.startswith(option + "=") else words[i + 1] if w == option and
                i + 1 < len(words) else "").split(",") if option and v}
    when = [w for w in ("pre", "post") if skip.get(w) not in skipped and skip.get("all") not in skipped]
    kept = {k: v for k, v in spec.items() if k not in ("command_region", "command_patterns")}
    if names and when:
        alternatives = {"{hooks}": "|".join(re.escape(n) for n in dict.fromkeys(names)), "{when}": "|".join(when)}

        def fill(text: str) -> str:
            return re.sub(r"\{(?:hooks|when)\}", lambda m: alternatives[m.group(0)], text)
        if spec.get("command_region"):
            kept["command_region"] = fill(spec["command_region"])
        kept["command_patterns"] = [fill(p) for p in spec.get("command_patterns", ())]
    return kept


def shown_name(path: str, inv: "Invocation") -> str:
    base = inv.scope.project or inv.scope.cwd or "/"
    return posixpath.relpath(path, base) if path.startswith(base.rstrip("/") + "/") else path


def embedded_commands(text: str, spec: dict) -> list[str]:
    """The shell commands a configuration or build file holds where its tool runs them (taxonomy `command_patterns`:
    a regex whose group `c` is a string expression (literals joined, the home spelled as code spells it) or whose
    group `a` is a list of literals, the command's argv, group `s` shell text as it stands); only inside `command_region` matches when one is given."""
    regions = [m.group(0) for m in re.finditer(spec["command_region"], text)] if spec.get("command_region") else [text]
    out: list[str] = []
    for region in regions[:16]:
        for pattern in spec.get("command_patterns", ()):
            for m in list(re.finditer(pattern, region))[:MAX_FILES]:
                groups = m.groupdict()
                if groups.get("a") is not None:
                    items = [_literal(q) for q in _QUOTED.findall(groups["a"])]
                    shell = len(items) == 3 and items[1] == "-c" and posixpath.basename(items[0]) in _SHELLS
                    if items:
                        out.append(items[2] if shell else " ".join(shlex.quote(i) for i in items))
                elif groups.get("s") is not None:  # shell text as it stands (TeX's \\write18{…})
                    out.append(groups["s"])
                elif groups.get("c") is not None:
                    out.append(string_expression(groups["c"]))
    for pattern, replacement in (spec.get("command_rewrites") or {}).items():  # MSBuild's $(HOME), &quot;
        out = [re.sub(pattern, replacement, o) for o in out]
    return [o for o in out if o.strip()][:MAX_FILES]


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
# the home directory as build languages spell it (Nim's getHomeDir() ends with a slash)
_HOME_PIECES = ((re.compile(r"(?:os\.)?getHomeDir\(\)"), "$HOME/"),
                (re.compile(r"(?:os\.)?(?:getenv|getEnv|os\.getenv)\(\s*[\"']HOME[\"']\s*\)|\$ENV\{\s*HOME\s*\}"), "$HOME"))


def string_expression(expr: str) -> str:
    """A string expression's text: quoted literals joined by `&` (Nim), `..` (Lua), `+`, `.` or `^`, the home
    spelled as code spells it; any other piece is known only at run time (DYN)."""
    expr = expr.strip()
    pieces = re.split(r"""\s+(?:&|\.\.|\+|\.|\^)\s+|(?<=["'])\s*(?:&|\.\.|\+|\^)\s*(?=["'])""", expr)
    out = []
    for piece in pieces:
        piece = piece.strip()
        if _QUOTED.fullmatch(piece):
            text = _literal(piece)
            out.append(text.replace("%{env:HOME=", "${HOME:-").replace("$ENV{HOME}", "$HOME"))
            continue
        home = next((v for pattern, v in _HOME_PIECES if pattern.fullmatch(piece)), None)
        out.append(home if home is not None else DYN)
    return "".join(out)


def _literal(quoted: str) -> str:
    body = quoted[1:-1] if len(quoted) >= 2 and quoted[0] == quoted[-1] and quoted[0] in "'\"" else quoted
    return re.sub(r"\\(.)", r"\1", body)


def judge_embedded(run: "Run", inv: "Invocation", spec: dict, path: str, label: str, text: str | None = None) -> None:
    text = read_text(path) if text is None else text
    for command in embedded_commands(text or "", spec):
        if DYN in command:
            run.add(ask(f"{label}: runs a command only known when it runs", "dynamic-exec",
                        rule="shell.config-command"))
            continue
        run.nested(command, inv, label)


def judge_source_scripts(run: "Run", inv: "Invocation", words: list[str], spec: dict | None) -> None:
    """chezmoi apply: the scripts its source directory holds under a name prefix (run_, run_once_, run_onchange_…)
    run on this machine as part of the apply; each is judged as the program it is (a template's text as written)."""
    if not spec:
        return
    source = in_home("~/" + spec["default"], inv.scope.home)
    for i, word in enumerate(words):
        value = words[i + 1] if word in spec.get("options", ()) and i + 1 < len(words) else \
            word.partition("=")[2] if "=" in word and word.partition("=")[0] in spec.get("options", ()) else ""
        if value and DYN not in value:
            source = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(value, inv.scope.home)))
    scripts: list[str] = []
    for directory, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d != ".git")[:64]
        scripts += [posixpath.join(directory, n) for n in sorted(files) if n.startswith(tuple(spec["prefixes"]))]
        if len(scripts) >= MAX_FILES:
            break
    for path in scripts[:MAX_FILES]:
        judged = run.project_file(path, inv, "", f"{posixpath.basename(path)} ({inv.name} runs it)")
        if judged is not None:
            run.add(judged)


def judge_shell_escapes(run: "Run", inv: "Invocation", words: list[str], escape: dict | None) -> None:
    """pdflatex -shell-escape x.tex: the document's \\write18{…} commands run; without the flag TeX refuses them."""
    if not escape or not set(words) & set(escape.get("flags", ())):
        return
    for word in words:
        if word.startswith("-") or DYN in word:
            continue
        path = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(word, inv.scope.home)))
        for candidate in (path, *(path + s for s in escape.get("suffixes", ()))):
            if os.path.isfile(candidate):
                judge_embedded(run, inv, {"command_patterns": escape.get("patterns", ())}, candidate,
                               f"{inv.name} -shell-escape › {shown_name(candidate, inv)}")
                break


def scanned_sources(cwd: str, scan: dict | None, project: str | None) -> list[str]:
    """The source files a compiler expands as it builds (taxonomy `scan`: directories under cwd, `.` its own files
    only, and the suffixes that are sources), a bounded number of them."""
    if not scan:
        return []
    found: list[str] = []
    suffixes = tuple(scan.get("suffixes", ()))
    for name in scan.get("dirs", ()):
        top = posixpath.normpath(posixpath.join(cwd, name))
        if name == ".":
            try:
                found += [posixpath.join(top, n) for n in sorted(os.listdir(top))[:256] if n.endswith(suffixes)]
            except OSError:
                pass
            continue
        for seen, (directory, dirs, files) in enumerate(os.walk(top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("lib", "node_modules"))
            found += [posixpath.join(directory, n) for n in sorted(files) if n.endswith(suffixes)]
            if seen > 256 or len(found) >= 128:
                break
    return list(dict.fromkeys(found))[:128]


def _argument_dirs(inv: "Invocation", words: list[str]) -> list[str]:
    """The directories of the files a command is handed (nim c tests/x.nim: tests/ holds its config.nims)."""
    out = []
    for word in words:
        if word.startswith("-") or DYN in word or "/" not in word:
            continue
        directory = posixpath.dirname(posixpath.normpath(posixpath.join(inv.scope.cwd or "/", word)))
        if os.path.isdir(directory) and directory not in out:
            out.append(directory)
    return out[:4]


def _walk_for(top: str | None, names: tuple[str, ...], limit: int = 64) -> list[str]:
    found: list[str] = []
    if not top:
        return found
    for seen, (directory, dirs, files) in enumerate(os.walk(top)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) and d not in ("node_modules", "target"))
        found += [posixpath.join(directory, n) for n in names if n in files]
        if seen > 512 or len(found) >= limit:
            break
    return found[:limit]


def _named_program_files(inv: "Invocation", words: list[str], spec: dict) -> list[str]:
    """The configuration program an option or a variable names instead of the usual one (pelican -s x.py)."""
    values = [words[i + 1] for i, w in enumerate(words[:-1]) if w in spec.get("program_file_options", ())]
    values += [w.partition("=")[2] for w in words if w.partition("=")[0] in spec.get("program_file_options", ())
               and "=" in w]
    env = dict(inv.scope.variables)
    env.update({name: w.value for name, w in inv.cmd.assignments})
    values += [env[name] for name in spec.get("program_file_env", ()) if isinstance(env.get(name), str)]
    return [posixpath.normpath(posixpath.join(inv.scope.cwd or "/", in_home(v, inv.scope.home)))
            for v in values if v and DYN not in v][:4]


def config_commands(spec: dict, config: str, text: str) -> list[str]:
    """The shell commands a JSON configuration holds under `command_keys` (dotted; in package.json under
    `package_key`): nodemon's exec and events."""
    keys = spec.get("command_keys")
    if not keys:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return [text] if posixpath.basename(config) != "package.json" else []  # unreadable: the worst case
    if posixpath.basename(config) == "package.json":
        data = data.get(spec.get("package_key", "")) if isinstance(data, dict) else None
    out = []
    for key in keys:
        value = data
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, str) and value.strip():
            out.append(value)
        elif isinstance(value, list):  # devbox's init_hook: a list of command lines, run in order in one shell
            out.append("\n".join(v for v in value if isinstance(v, str)))
    return [o for o in out if o.strip()]


def _program_configs(patterns, cwd: str, project: str | None, every: bool = False,
                     first: list[str] | None = None, all_matches: bool = False) -> list[str]:
    """The configuration file that is a program (vitest.config.ts): the first name that matches, in cwd or the
    project's root (or beside the files the command is handed, first); one per pattern (vitest.config.* wins over
    vite.config.*, as vitest itself prefers)."""
    found: list[str] = []
    for directory in dict.fromkeys(d for d in (*(first or ()), cwd, project) if d):
        listed: dict[str, list[str]] = {}
        for pattern in patterns:  # `.storybook/main.*`: a pattern may name a subdirectory
            sub, _, leaf = pattern.rpartition("/")
            where = posixpath.join(directory, sub) if sub else directory
            if where not in listed:
                try:
                    listed[where] = sorted(os.listdir(where))[:4096]
                except OSError:
                    listed[where] = []
            matches = [n for n in listed[where] if fnmatch.fnmatchcase(n, leaf)]
            # sbt compiles every project/*.scala (`all_programs`); vitest reads the first config it finds
            found += [posixpath.join(where, n) for n in matches[:MAX_FILES if all_matches else 1]]
            if matches and not (every or all_matches):
                break
        if found:
            break
    return found


def judge_entry_points(run: "Run", inv: "Invocation", group: str) -> None:
    """pytest loads every `pytest11` entry point of the packages installed in its environment (the project's
    .venv, or the one whose python runs it): a package planted there runs at start-up. Installed code is
    judged for what would deny only."""
    for site in _site_packages(inv)[:2]:
        try:
            names = sorted(os.listdir(site))[:2000]
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            text = read_text(posixpath.join(site, name, "entry_points.txt"), 65536)
            for module in _group_entries(text or "", group)[:MAX_FILES]:
                for path in _candidates(module.split(":")[0].strip(), "python", [site], ()):
                    if os.path.isfile(path):
                        if _suspect(site, name, path):
                            _deny_only(run, inv, path, "python3",
                                       f"{posixpath.basename(path)} ({inv.name} loads it: a {group} entry point)")
                        break


_GUARD_WORDS = re.compile(r"\.claude|\.codex|\.gemini|\.cursor|guardtui|cagent|hooks\.json|settings\.json|"
                          r"/dev/tcp|169\.254|metadata\.google|b64decode|fromhex|codecs\.decode|zlib|marshal|"
                          r"__import__|\bexec\(|\beval\(|\bchr\(|\[::-1\]|rot.?13|expanduser|Path\.home")


def _suspect(site: str, dist_info: str, path: str) -> bool:
    """Is an installed module worth judging? One pip's RECORD does not vouch for (no RECORD, not listed, another
    hash: put there by hand) or one that names the guard, the home directory, or decodes what it runs."""
    text = read_text(path) or ""
    if _GUARD_WORDS.search(text):
        return True
    record = read_text(posixpath.join(site, dist_info, "RECORD"), 1 << 20)
    relative = posixpath.relpath(path, site)
    line = next((r for r in (record or "").splitlines() if r.split(",", 1)[0] == relative), None)
    if line is None:
        return True
    parts = line.split(",")
    if len(parts) < 2 or not parts[1].startswith("sha256="):
        return True
    try:
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read(1 << 22)).digest()
    except OSError:
        return True
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != parts[1][len("sha256="):]


def _site_packages(inv: "Invocation") -> list[str]:
    roots = []
    python = inv.scope.facts.get(PYTHON_PROGRAM, "")
    if "/bin/" in python:
        roots.append(posixpath.dirname(posixpath.dirname(python)))
    found = find_upward(inv.scope.cwd, (".venv/pyvenv.cfg", "venv/pyvenv.cfg"), inv.scope.project)
    if found and posixpath.dirname(found) not in roots:  # the project's environment, active or not
        roots.append(posixpath.dirname(found))
    sites = []
    for root in roots:
        lib = posixpath.join(root, "lib")
        try:
            versions = [v for v in os.listdir(lib) if v.startswith(("python", "pypy"))]
        except OSError:
            continue
        sites += [posixpath.join(lib, v, "site-packages") for v in sorted(versions)[:3]]
    return sites


def _group_entries(text: str, group: str) -> list[str]:
    out, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped == f"[{group}]"
        elif inside and "=" in stripped:
            out.append(stripped.partition("=")[2].strip())
    return out


_JUDGED: dict[tuple, tuple[list[Finding], list]] = {}  # installed code judged before, by file version


def _deny_only(run: "Run", inv: "Invocation", path: str, runner: str, label: str) -> None:
    """Judge code the project did not write as such (an installed plugin, a launcher): only what would deny
    counts, and the files it touches count for the guard's protection alone. Its own lines decide (what it
    imports is not followed); an unchanged file is judged once per process."""
    try:
        stat = os.stat(path)
    except OSError:
        return
    key = (path, stat.st_mtime_ns, stat.st_size, stat.st_ino, inv.scope.cwd, inv.scope.home, runner)
    if key not in _JUDGED:
        before, effects = len(run.result.findings), len(run.result.effects)
        with run.shallow():
            run.project_file(path, inv, runner, label)
        kept = deny_only(run.result.findings[before:])
        here = {inv.scope.cwd, inv.scope.project}  # code naming the directory it runs in says little
        touched = [replace(e, detail="mentioned") for e in run.result.effects[effects:] if e.path not in here]
        del run.result.findings[before:]
        del run.result.effects[effects:]
        if len(_JUDGED) >= 1024:
            _JUDGED.clear()
        _JUDGED[key] = (kept, touched)
    kept, touched = _JUDGED[key]
    for finding in kept:
        run.add(finding)
    run.result.effects.extend(touched)


def configs_written(path: str, tools: dict) -> list[tuple[str, dict]]:
    """The tools that read a configuration file of this name."""
    name = posixpath.basename(path)
    return [(tool, spec) for tool, spec in tools.items() if name in spec.get("configs", ())]


# -- the project's own programs a command name finds first ------------------------------------------------
def local_program(run: "Run", inv: "Invocation") -> None:
    """A command name that finds a project program first: node_modules/.bin/NAME inside a package script (npm
    puts it first on PATH), or a directory the command line puts in front of PATH, with git/kubectl/helm
    plugins named `tool-SUB` there. A link into an installed package is that package (not judged); a plain file
    or a link to the project's own code is judged, and only what would deny is kept: an ordinary shim stays
    the tool it launches."""
    name = inv.name
    facts = inv.scope.facts
    if not (facts.get(LOCAL_BINS) or facts.get(PATH_FIRST) or "PATH" in inv.scope.variables or
            name in run.tax.plugin_hosts):
        return  # nothing puts a project directory first on PATH here (most commands: no work at all)
    if "/" in name or DYN in name or inv.scope.remote or not inv.scope.cwd:
        return
    for path in _local_candidates(inv, run.tax.plugin_hosts):
        if not os.path.isfile(path):
            continue
        target = os.path.realpath(path)
        if target != path and "/node_modules/" in target:
            return  # a link into an installed package: that package's own program
        _deny_only(run, inv, target, "", f"{posixpath.basename(path)} (found first on PATH: {path})")
        entry = _console_script(read_text(target) or "", inv)
        if entry:  # a console script pip wrote: the module it calls is what runs
            _deny_only(run, inv, entry, "python3", f"{posixpath.basename(entry)} ({name}'s entry point)")
        return


def _console_script(text: str, inv: "Invocation") -> str | None:
    m = re.search(r"(?m)^from\s+([\w.]+)\s+import\s+\w+", text) if text.startswith("#!") and "sys.exit(" in text else None
    return python_module_file(inv.scope.project or inv.scope.cwd, m.group(1)) if m else None


def _local_candidates(inv: "Invocation", plugin_hosts: frozenset[str]) -> list[str]:
    names = [inv.name]
    sub = next((w.value for w in inv.words if not w.value.startswith("-")), "")
    if inv.name in plugin_hosts and re.fullmatch(r"[\w-]+", sub or "-"):
        names.append(f"{inv.name}-{sub.replace('-', '_') if inv.name == 'kubectl' else sub}")
    dirs: list[str] = []
    package_dir = inv.scope.facts.get(LOCAL_BINS)
    if package_dir:
        here = package_dir
        for _ in range(8):
            dirs.append(posixpath.join(here, "node_modules", ".bin"))
            if here in ("/", inv.scope.home) or here == (inv.scope.project or "/"):
                break
            here = posixpath.dirname(here)
    if inv.scope.facts.get(PATH_FIRST):  # source .venv/bin/activate
        dirs.append(inv.scope.facts[PATH_FIRST])
    path_value = inv.scope.variables.get("PATH")
    if isinstance(path_value, str):
        for entry in path_value.split(":"):
            if entry.startswith("/") and not entry.startswith(("/usr/", "/bin", "/sbin", "/opt/homebrew", "/snap/")):
                dirs.append(entry)
            elif entry and not entry.startswith("/") and DYN not in entry:
                dirs.append(posixpath.normpath(posixpath.join(inv.scope.cwd, entry)))
    found = [posixpath.join(d, n) for d in dirs[:16] for n in names]
    home = inv.scope.home
    if len(names) > 1 and home:  # plugins installed for the person: gh extensions, krew, ~/.local/bin
        plugin = names[1]
        found += [posixpath.join(home, ".local/share/gh/extensions", plugin, plugin)] if inv.name == "gh" else []
        found += [posixpath.join(home, d, plugin) for d in (".local/bin", "bin", ".krew/bin")]
    return found


# what code the project did not write may still not do quietly: fetch and run code, send data, touch the guard
_KEPT_ASKS = frozenset({"remote-exec", "network", "secrets", "guard-self", "terminal-input"})


def deny_only(findings: list[Finding]) -> list[Finding]:
    """The findings of installed code or a launcher that count: what would deny, and asks of the kinds a routine
    launcher never has (a download run, data sent away, the guard or the terminal touched)."""
    return [f for f in findings if f.verdict is Verdict.DENY or f.verdict is Verdict.ASK and f.category in _KEPT_ASKS]


def judge_shadowing_programs(run: "Run", inv: "Invocation", directory: str) -> None:
    """`pip install -e .`, `npm link`: the programs a package installs go on PATH. One named like a command
    guardtui knows (git, kubectl, ls) runs whenever that command is typed, so its code is judged (for what
    would deny) now."""
    pyproject = read_text(posixpath.join(directory, "pyproject.toml")) or ""
    scripts = re.search(r"(?ms)^\[project\.scripts\]\s*$(.*?)(?=^\[|\Z)", pyproject)
    for m in re.finditer(r"""(?m)^\s*["']?([\w.-]+)["']?\s*=\s*["']([\w.]+)(?::[\w.]+)?["']""",
                         scripts.group(1) if scripts else ""):
        if _shadows(run, m.group(1)):
            module = python_module_file(directory, m.group(2))
            if module:
                _deny_only(run, inv, module, "python3", f"{posixpath.basename(module)} (installed as {m.group(1)})")
    text = read_text(posixpath.join(directory, "package.json"))
    try:
        bins = json.loads(text).get("bin") if text else None
    except (ValueError, AttributeError):
        bins = None
    for name, file in (bins.items() if isinstance(bins, dict) else ()):
        if isinstance(file, str) and _shadows(run, name):
            _deny_only(run, inv, posixpath.normpath(posixpath.join(directory, file)), "node",
                       f"{file} (linked as {name})")


def _shadows(run: "Run", name: str) -> bool:
    tax = run.tax
    return name in tax.commands or name in tax.safe or name in tax.shells or tax.interpreter(name) is not None or \
        name in tax.plugin_hosts or name in tax.wrappers or name in tax.sql_clients


# -- dotfile managers: where they put the files they manage -------------------------------------------------
def judge_dotfiles(run: "Run", inv: "Invocation") -> None:
    """dotbot, rcup, dotter, home-manager: each home path their configuration (or rc directory) manages is
    written (linked or replaced, with force: over what is there). A guard file among them is the guard's to
    judge (protect denies); the rest are writes outside the project, as they are."""
    spec = run.tax.config_code.get(posixpath.basename(inv.name), {}).get("dotfiles")
    cwd = inv.scope.cwd
    if not spec or not cwd or inv.scope.remote:
        return
    words = [w.value for w in inv.words]
    if {"-n", "--dry-run", "--dryrun", "-N"} & set(words):
        return  # only says what it would do
    sub = tuple(spec.get("subcommands", ()))
    if sub and not any(w in sub for w in words if not w.startswith("-")):
        return
    base = cwd
    for i, word in enumerate(words[:-1]):
        if word in ("-d", "--base-directory", "--dir") and DYN not in words[i + 1]:
            base = posixpath.normpath(posixpath.join(cwd, in_home(words[i + 1], inv.scope.home)))
    targets: list[str] = []
    if spec.get("mirror"):  # rcup -d rc: rc/config/x lands at ~/.config/x (only the files named, when some are)
        named = {w for i, w in enumerate(words) if not w.startswith("-") and
                 not (i and words[i - 1] in ("-d", "-x", "-t", "-B", "-S", "-s", "-I", "-U", "-u"))}
        for directory, _, files in os.walk(base):
            for name in files[:256]:
                rel = posixpath.relpath(posixpath.join(directory, name), base)
                if not named or rel in named or name in named:
                    targets.append("~/." + rel)
            if len(targets) > 256:
                break
    if spec.get("source_state"):  # chezmoi: each managed file is copied over its target in the home
        if "init" in words and "--apply" not in words and "-a" not in words:
            return
        for target, source in _chezmoi_targets(words, spec["source_state"], inv.scope.home, cwd):
            found = run.write(Word.literal(target), inv, f"{posixpath.basename(inv.name)} puts a file at",
                              kind="copy", source=source)
            if found is not None:
                run.add(with_rule(found, "tasks.dotfiles"))
        return
    configs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-c", "--config-file")] or \
        list(spec.get("configs", ()))
    for config in configs[:8]:
        path = posixpath.normpath(posixpath.join(base, config))
        for text in _with_imports(path):
            targets += [m.group(1) for m in re.finditer(r"(?m)^\s*[\"']?(~/[^\s\"':]+)[\"']?\s*:", text)]
            targets += [m.group(1) for m in re.finditer(r'=\s*"(~/[^"]+)"', text)]
            targets += ["~/" + m.group(1) for m in re.finditer(r'home\.file\."([^"]+)"', text)]
            targets += ["~/.config/" + m.group(1) for m in re.finditer(r'xdg\.configFile\."([^"]+)"', text)]
    home = inv.scope.home.rstrip("/")
    for target in dict.fromkeys(targets):
        target = home + target[1:] if target.startswith("~/") else target
        found = run.write(Word.literal(target), inv, f"{posixpath.basename(inv.name)} puts a file at", recursive=True)
        if found is not None:
            run.add(with_rule(found, "tasks.dotfiles"))


# chezmoi's source-state attributes: prefixes a name sheds on its way to the target, and suffixes
_CHEZMOI_PREFIXES = ("after_", "before_", "create_", "empty_", "encrypted_", "exact_", "executable_", "external_",
                     "literal_", "modify_", "once_", "onchange_", "private_", "readonly_", "remove_", "symlink_")
_CHEZMOI_SUFFIXES = (".tmpl", ".age", ".asc", ".literal")


def _chezmoi_name(part: str) -> str | None:
    """A source-state name's target name (dot_claude -> .claude, private_dot_ssh -> .ssh), None for what chezmoi
    does not put in the home (its own .chezmoi* files, run_ scripts, ignored dot files)."""
    if part.startswith((".", "run_")):
        return None
    changed = True
    while changed:
        changed = False
        for prefix in _CHEZMOI_PREFIXES:
            if part.startswith(prefix):
                part, changed = part[len(prefix):], True
    if part.startswith("dot_"):
        part = "." + part[4:]
    for suffix in _CHEZMOI_SUFFIXES:
        if part.endswith(suffix):
            part = part[:-len(suffix)]
    return part or None


def _chezmoi_targets(words: list[str], defaults: list[str], home: str, cwd: str) -> list[tuple[str, str]]:
    """(the home path, the source file) of each file chezmoi's source state manages (or only the targets named)."""
    home = home.rstrip("/")
    valued = {"-S", "--source", "-D", "--destination", "-c", "--config", "--config-format", "--mode", "-x",
              "--exclude", "-i", "--include", "--persistent-state", "--cache", "-W", "--working-tree"}
    options = {w: words[i + 1] for i, w in enumerate(words[:-1]) if w in valued}
    source = options.get("-S") or options.get("--source")
    destination = options.get("-D") or options.get("--destination")
    if destination and DYN not in destination:
        home = posixpath.normpath(posixpath.join(cwd, in_home(destination, home)))
    source = posixpath.normpath(posixpath.join(cwd, in_home(source, home))) if source and DYN not in source else \
        posixpath.join(home, defaults[0])
    root = (read_text(posixpath.join(source, ".chezmoiroot"), 4096) or "").strip()
    if root and ".." not in root.split("/"):
        source = posixpath.join(source, root)
    named = {posixpath.normpath(posixpath.join(cwd, in_home(w, home))) for i, w in enumerate(words)
             if not w.startswith("-") and not (i and words[i - 1] in valued) and w not in ("apply", "update", "init")
             and DYN not in w and "/" in w}
    out: list[tuple[str, str]] = []
    for directory, dirs, files in os.walk(source):
        rel = posixpath.relpath(directory, source)
        parts = [] if rel == "." else rel.split("/")
        mapped = [_chezmoi_name(p) for p in parts]
        if None in mapped:
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files[:256]:
            target_name = _chezmoi_name(name)
            if target_name is None:
                continue
            target = posixpath.join(home, *mapped, target_name)  # type: ignore[arg-type]
            if not named or target in named or any(target.startswith(n + "/") for n in named):
                out.append((target, posixpath.join(directory, name)))
        if len(out) > 256:
            break
    return out


def _with_imports(path: str, depth: int = 0) -> list[str]:
    """A configuration's text, with the Nix modules it imports (./modules/x.nix)."""
    text = read_text(path)
    if text is None or depth > 3:
        return []
    out = [text]
    for m in re.finditer(r"(\.{1,2}/[\w./-]+\.nix)", text):
        out += _with_imports(posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group(1))), depth + 1)
    return out

