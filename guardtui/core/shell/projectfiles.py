"""Reading the project files a command runs: scripts, package.json, Makefiles, justfiles and
the other task runners' files, read on this machine at judging time.

Reading is careful: regular files only (never a FIFO, a device or a socket, which could block
or never end), opened without following into anything else, size-capped, decoded as UTF-8 text
(a binary is not a script we can read). Anything that cannot be read so returns None, and the
caller keeps its judgement of the command as it was. Nothing here judges: it finds and parses,
and the command analyzers judge what it returns.
"""
from __future__ import annotations

import fnmatch
import glob as _glob
import json
import os
import posixpath
import re
import shlex
import stat
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

MAX_FILE_BYTES = 256 * 1024  # a script larger than this is not read (judged as before)
# where the system's packages put their programs and scripts: installed by root, not the project's to judge
SYSTEM_PROGRAM_DIRS = ("/usr/", "/nix/store/", "/opt/homebrew/", "/lib/", "/bin/", "/sbin/", "/snap/")
MAX_PACKAGES = 200  # workspace packages looked at for one command
_LANGUAGES = {".py": "python", ".pyw": "python", ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell",
              ".js": "js", ".mjs": "js", ".cjs": "js", ".ts": "js", ".mts": "js", ".cts": "js", ".jsx": "js",
              ".tsx": "js", ".rb": "ruby", ".rake": "ruby", ".pl": "perl", ".pm": "perl", ".php": "php", ".lua": "lua",
              ".ps1": "powershell", ".psm1": "powershell",
              # languages read by the scan of any language (data/codescan.yaml) and their own one-liner rules
              ".dart": "dart", ".tcl": "tcl", ".r": "r", ".jl": "julia", ".rkt": "racket", ".scm": "scheme",
              ".ss": "scheme", ".raku": "raku", ".rakumod": "raku", ".p6": "raku", ".nim": "nim", ".nims": "nim",
              ".lisp": "lisp", ".cl": "lisp", ".exs": "elixir", ".clj": "clojure", ".bb": "clojure",
              ".groovy": "groovy", ".janet": "janet", ".fnl": "fennel", ".hy": "hy"}
_SHEBANG_LANGUAGES = (("python", "python"), ("pypy", "python"), ("node", "js"), ("deno", "js"), ("bun", "js"),
                      ("tsx", "js"), ("ts-node", "js"), ("ruby", "ruby"), ("perl", "perl"), ("php", "php"),
                      ("bash", "shell"), ("zsh", "shell"), ("ksh", "shell"), ("dash", "shell"), ("sh", "shell"),
                      ("pwsh", "powershell"))


# files being written by the call under judgement, read as if the write had landed (see as_if_written)
_AS_IF_WRITTEN: ContextVar[tuple[tuple[str, str], ...]] = ContextVar("as_if_written", default=())


@contextmanager
def as_if_written(path: str, text: str) -> Iterator[None]:
    """Within this block, read_text(path) gives `text`: a write is judged by what running the file would
    do once it holds the new text (a conftest.py that pytest will import), before the write lands."""
    token = _AS_IF_WRITTEN.set(_AS_IF_WRITTEN.get() + ((path, text),))
    try:
        yield
    finally:
        _AS_IF_WRITTEN.reset(token)


def read_text(path: str | None, limit: int = MAX_FILE_BYTES) -> str | None:
    """The text of a regular file, or None (missing, not a regular file, too large, binary, unreadable)."""
    if not path or "\x00" in path:
        return None
    for written, text in reversed(_AS_IF_WRITTEN.get()):
        if written == path:
            return text if len(text) <= limit and "\x00" not in text[:8192] else None
    try:
        info = os.stat(path)  # follows a symlink to what it names: that is what would run
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped for something else between the two looks
            return None
        data = os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > limit or b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def language_of(path: str, text: str) -> str | None:
    """The language a file is written in, from its #! line, else its name: shell, python, js,
    ruby, perl, php; None when neither says (a binary was never read)."""
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].split()
        if words and posixpath.basename(words[0]) == "env":
            words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        program = posixpath.basename(words[0]) if words else ""
        for prefix, language in _SHEBANG_LANGUAGES:
            if program.startswith(prefix):
                return language
        return None
    return _LANGUAGES.get(posixpath.splitext(path)[1].lower())


def find_upward(start: str | None, names: tuple[str, ...], stop: str | None = None) -> str | None:
    """The first of `names` in `start` or a directory above it (not above `stop` when given)."""
    if not start or not start.startswith("/"):
        return None
    current = posixpath.normpath(start)
    for _ in range(64):
        for name in names:
            candidate = posixpath.join(current, name)
            if os.path.isfile(candidate) or any(w == candidate for w, _ in _AS_IF_WRITTEN.get()):
                return candidate
        if current == "/" or (stop and current == stop):
            return None
        current = posixpath.dirname(current)
    return None


def line_of(text: str, needle: str, start: int = 0) -> int:
    """The 1-based line where `needle` first occurs in `text` (1 when it does not)."""
    index = text.find(needle, start)
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def shown(path: str, cwd: str | None) -> str:
    """A path as the person would write it from cwd: relative inside it, else absolute."""
    if cwd and (path == cwd or path.startswith(cwd.rstrip("/") + "/")):
        return posixpath.relpath(path, cwd)
    return path


# -- package.json and workspaces ---------------------------------------------------------------
@dataclass
class Package:
    """One package.json: where it is, its name and its scripts (with the line of each)."""

    path: str  # the package.json
    name: str
    scripts: dict[str, str]
    lines: dict[str, int]
    workspaces: list[str] = field(default_factory=list)
    raw: dict = field(default_factory=dict)

    @property
    def dir(self) -> str:
        return posixpath.dirname(self.path)


def load_package(path: str, text: str | None = None) -> Package | None:
    """`text`: the file's content when the command itself wrote it earlier (else it is read from disk)."""
    text = text if text is not None else read_text(path)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    scripts = {k: v for k, v in (data.get("scripts") or {}).items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(data.get("scripts"), dict) else {}
    lines = {}
    block = text.find('"scripts"')
    for name in scripts:
        lines[name] = line_of(text, json.dumps(name) + ":", max(block, 0)) if block >= 0 else 1
        if lines[name] == 1 and block >= 0:
            lines[name] = line_of(text, json.dumps(name), block)
    workspaces = data.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    globs = [w for w in workspaces if isinstance(w, str)] if isinstance(workspaces, list) else []
    name = data.get("name") if isinstance(data.get("name"), str) else posixpath.basename(posixpath.dirname(path))
    return Package(path, name, scripts, lines, globs, data)


def nearest_package(cwd: str | None) -> Package | None:
    path = find_upward(cwd, ("package.json",))
    return load_package(path) if path else None


def workspace_root(cwd: str | None) -> Package | None:
    """The package.json that declares the workspaces cwd belongs to (npm/yarn/bun `workspaces`,
    pnpm-workspace.yaml), else the nearest package.json."""
    current = cwd if cwd and cwd.startswith("/") else None
    nearest = None
    for _ in range(64):
        if current is None:
            break
        candidate = posixpath.join(current, "package.json")
        if os.path.isfile(candidate):
            package = load_package(candidate)
            if package is not None:
                nearest = nearest or package
                if package.workspaces or os.path.isfile(posixpath.join(current, "pnpm-workspace.yaml")):
                    if not package.workspaces:
                        package.workspaces = _pnpm_workspace_globs(posixpath.join(current, "pnpm-workspace.yaml"))
                    return package
        if current == "/":
            break
        current = posixpath.dirname(current)
    return nearest


def _pnpm_workspace_globs(path: str) -> list[str]:
    text = read_text(path) or ""
    globs, inside = [], False
    for line in text.splitlines():
        if re.match(r"^packages\s*:", line):
            inside = True
            inline = re.search(r"\[(.*)\]", line)
            if inline:
                globs += [g.strip().strip("'\"") for g in inline.group(1).split(",") if g.strip()]
                inside = False
            continue
        if inside:
            m = re.match(r"^\s+-\s*['\"]?([^'\"#]+?)['\"]?\s*(?:#.*)?$", line)
            if m:
                globs.append(m.group(1).strip())
            elif line.strip() and not line.startswith((" ", "\t", "#")):
                inside = False
    return globs


def workspace_packages(root: Package) -> list[Package]:
    """The packages the root's workspace globs name (negated globs excluded), in a stable order."""
    out: list[Package] = []
    seen: set[str] = set()
    excluded = [g[1:] for g in root.workspaces if g.startswith("!")]
    for pattern in root.workspaces:
        if pattern.startswith("!") or ".." in pattern.split("/"):
            continue
        for directory in _expand_dirs(root.dir, pattern.rstrip("/")):
            relative = posixpath.relpath(directory, root.dir)
            if directory in seen or any(fnmatch.fnmatchcase(relative, e.rstrip("/")) for e in excluded):
                continue
            seen.add(directory)
            package = load_package(posixpath.join(directory, "package.json"))
            if package is not None:
                out.append(package)
            if len(out) >= MAX_PACKAGES:
                return out
    return out


def _expand_dirs(base: str, pattern: str) -> list[str]:
    """Directories under base matching a workspace glob (`packages/*`, `apps/**`), bounded."""
    parts = [p for p in pattern.split("/") if p and p != "."]
    found = [base]
    for part in parts:
        nxt: list[str] = []
        for directory in found:
            if part == "**":
                nxt.extend(_walk_dirs(directory, 4))
                continue
            try:
                names = sorted(os.listdir(directory)) if any(c in part for c in "*?[") else [part]
            except OSError:
                continue
            for name in names:
                if name in ("node_modules", ".git") or not fnmatch.fnmatchcase(name, part):
                    continue
                candidate = posixpath.join(directory, name)
                if os.path.isdir(candidate):
                    nxt.append(candidate)
        found = nxt[:MAX_PACKAGES * 4]
    return found


def _walk_dirs(base: str, depth: int) -> list[str]:
    out = [base]
    if depth <= 0:
        return out
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return out
    for name in names:
        candidate = posixpath.join(base, name)
        if name not in ("node_modules", ".git") and not name.startswith(".") and os.path.isdir(candidate) \
                and not os.path.islink(candidate):
            out.extend(_walk_dirs(candidate, depth - 1))
        if len(out) > MAX_PACKAGES * 4:
            break
    return out


def filter_packages(packages: list[Package], root: Package, selectors: list[str]) -> list[Package]:
    """The packages pnpm/turbo/yarn/lerna `--filter`/`--scope` selectors pick: by name (globs
    allowed), by directory (`./apps/web`, `{apps/*}`); `...`/`^` graph suffixes are dropped. A
    selector guardtui cannot resolve (git ranges) keeps every package: judging more is safe."""
    if not selectors:
        return packages
    chosen: list[Package] = []
    for selector in selectors:
        s = selector.strip()
        if s.startswith("!"):
            continue
        if "[" in s and "]" in s and not s.startswith("{"):
            return packages
        s = s.strip(".").lstrip("^") if s.startswith("...") else s
        s = re.sub(r"\^?\.\.\.$", "", s).strip("{}")
        if not s:
            return packages
        if s.startswith(("./", "../", "/")) or ("/" in s and not s.startswith("@")):
            directory = posixpath.normpath(posixpath.join(root.dir, s))
            chosen += [p for p in packages if p.dir == directory or fnmatch.fnmatchcase(p.dir, directory)]
        else:
            chosen += [p for p in packages if fnmatch.fnmatchcase(p.name, s) or
                       fnmatch.fnmatchcase(p.name.rsplit("/", 1)[-1], s)]
    unique = {p.path: p for p in chosen}
    return list(unique.values()) if unique else packages


# -- Makefiles ---------------------------------------------------------------------------------
@dataclass
class MakeRule:
    targets: list[str]
    prerequisites: list[str]
    recipe: list[tuple[int, str]]  # (line number, text after the tab), continuation lines joined
    line: int
    file: str


@dataclass
class Makefile:
    path: str
    rules: list[MakeRule] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)  # as written (unexpanded)
    immediate: list[tuple[int, str, str]] = field(default_factory=list)  # (line, file, value) of :=, != and shell
    default_goal: str | None = None
    oneshell: bool = False
    files: list[str] = field(default_factory=list)


_MAKE_ASSIGN = re.compile(r"^(?:(?:export|override|private)\s+)*([A-Za-z_.][\w.-]*)\s*(::=|:::=|:=|\?=|\+=|!=|=)\s*(.*)$")
_MAKE_RULE = re.compile(r"^([^:=#\t][^:=#]*?)\s*(::?)(?!=)\s*(.*)$")


MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")


def makefile_path(directory: str, given: str | None, written: dict[str, str] | None = None) -> str | None:
    """The makefile make reads: the given one, else the first default name that exists (on disk, or
    written earlier by the same command)."""
    if given:
        path = given if given.startswith("/") else posixpath.join(directory, given)
        return posixpath.normpath(path)
    for name in MAKEFILE_NAMES:
        candidate = posixpath.join(directory, name)
        if candidate in (written or {}) or os.path.isfile(candidate):
            return candidate
    return None


def load_makefile(path: str, depth: int = 0, into: Makefile | None = None, text: str | None = None) -> Makefile | None:
    """Parse the rules, variables and includes of a Makefile (the GNU make subset projects use);
    `text`: its content when known otherwise (written by the command itself, or `make --eval`)."""
    text = text if text is not None else read_text(path)
    if text is None:
        return into if depth else None
    make = into or Makefile(path)
    make.files.append(path)
    lines = text.split("\n")
    i = 0
    current: MakeRule | None = None
    defining: tuple[str, list[str]] | None = None
    while i < len(lines):
        number = i + 1
        line = lines[i]
        in_recipe = line.startswith("\t") and current is not None
        while line.endswith("\\") and i + 1 < len(lines):  # continuation: the shell sees `\<newline>`
            i += 1
            line = line[:-1] + ("\\\n" + lines[i].lstrip("\t") if in_recipe else " " + lines[i].lstrip("\t "))
        i += 1
        if defining is not None:
            if re.match(r"^\s*endef\b", line):
                make.variables[defining[0]] = "\n".join(defining[1])
                defining = None
            else:
                defining[1].append(line)
            continue
        if line.startswith("\t") and current is not None:
            current.recipe.append((number, line[1:]))
            continue
        stripped = re.sub(r"(?<!\\)#.*$", "", line).rstrip()
        if not stripped.strip():
            continue
        m = re.match(r"^define\s+([\w.-]+)", stripped)
        if m:
            defining = (m.group(1), [])
            current = None
            continue
        m = re.match(r"^\s*(-include|sinclude|include)\s+(.+)$", stripped)
        if m:
            current = None
            if depth < 4:
                for name in m.group(2).split():
                    if "$" in name:
                        continue
                    pattern = posixpath.normpath(posixpath.join(posixpath.dirname(make.path), name))
                    # include mk/*.mk: every file the glob matches, in make's (sorted) order
                    for target in sorted(_glob.glob(pattern))[:16] if _glob.has_magic(pattern) else [pattern]:
                        if target not in make.files and len(make.files) < 16:
                            load_makefile(target, depth + 1, make)
            continue
        if re.match(r"^\s*(ifeq|ifneq|ifdef|ifndef|else|endif)\b", stripped):
            continue  # both branches are read: what either could run is judged
        m = _MAKE_ASSIGN.match(stripped)
        if m:
            name, op, value = m.group(1), m.group(2), m.group(3)
            current = None
            if op == "+=":
                make.variables[name] = (make.variables.get(name, "") + " " + value).strip()
            elif op == "?=":
                make.variables.setdefault(name, value)
            elif op == "!=":
                make.variables[name] = "$(shell " + value + ")"
                make.immediate.append((number, path, "$(shell " + value + ")"))
            else:
                make.variables[name] = value
                if ":" in op and "$(shell" in value:
                    make.immediate.append((number, path, value))
            if name == ".DEFAULT_GOAL":
                make.default_goal = value.strip()
            continue
        m = _MAKE_RULE.match(stripped)
        if m:
            targets = m.group(1).split()
            rest = m.group(3)
            if re.match(r"^[A-Za-z_][\w.-]*\s*(\+|\?|:)?=", rest):  # target-specific variable
                current = None
                continue
            prerequisites, _, inline = rest.partition(";")
            prerequisites = prerequisites.replace("|", " ")
            current = MakeRule(targets, prerequisites.split(), [], number, path)
            if inline.strip():
                current.recipe.append((number, inline.strip()))
            make.rules.append(current)
            if ".ONESHELL" in targets:
                make.oneshell = True
            continue
        current = None
    return make


def make_goal(make: Makefile) -> str | None:
    if make.default_goal:
        return make.default_goal
    for rule in make.rules:
        for target in rule.targets:
            if not target.startswith(".") and "%" not in target:
                return target
    return None


# -- justfiles ---------------------------------------------------------------------------------
@dataclass
class JustRecipe:
    name: str
    params: list[str]
    dependencies: list[str]
    body: list[tuple[int, str]]
    line: int
    attributes: list[str] = field(default_factory=list)


@dataclass
class Justfile:
    path: str
    recipes: dict[str, JustRecipe] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    backticks: list[tuple[int, str]] = field(default_factory=list)  # `cmd` evaluated when just starts
    first: str | None = None
    dotenv: str | None = None  # `set dotenv-load`: the .env file (beside the justfile) its recipes get


_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)((?:\s+[+*$]?[A-Za-z_][\w-]*(?:=(?:'[^']*'|\"[^\"]*\"|[^\s:]+))?)*)"
                          r"\s*:(?!=)\s*(.*)$")


def _just_literal(expression: str) -> str | None:
    m = re.fullmatch(r"""(['"])(.*)\1""", expression.strip())
    return m.group(2) if m else None


def load_dotenv(path: str) -> dict[str, str]:
    """NAME=value lines of a .env file (quotes removed, `export` allowed); {} when it cannot be read."""
    text = read_text(path)
    values: dict[str, str] = {}
    for line in (text or "").splitlines():
        m = re.match(r"""^\s*(?:export\s+)?([A-Za-z_]\w*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^#\s]*))""", line)
        if m:
            values[m.group(1)] = next(v for v in m.group(2, 3, 4) if v is not None)
    return values


def find_justfile(cwd: str | None, given: str | None = None) -> str | None:
    if given:
        return given if given.startswith("/") else posixpath.normpath(posixpath.join(cwd or "/", given))
    return find_upward(cwd, ("justfile", "Justfile", ".justfile", "JUSTFILE"))


def load_justfile(path: str, text: str | None = None) -> Justfile | None:
    text = text if text is not None else read_text(path)
    if text is None:
        return None
    just = Justfile(path)
    current: JustRecipe | None = None
    attributes: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        if current is not None and (line.startswith((" ", "\t")) or not line.strip()):
            if line.strip():
                current.body.append((number, line.strip() if not current.body or
                                     not current.body[0][1].startswith("#!") else line.lstrip()))
            continue
        current = None
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            attributes.append(stripped)
            continue
        m = re.match(r"^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.*)$", stripped)
        if m:
            value = m.group(2).strip()
            just.variables[m.group(1)] = value
            for tick in re.finditer(r"`([^`]*)`", value):
                just.backticks.append((number, tick.group(1)))
            continue
        if stripped.startswith(("set ", "alias ", "import ", "mod ")):
            dm = re.match(r"^set\s+dotenv-(load|filename|path)\b\s*(?::=\s*(.*))?$", stripped)
            if dm and (dm.group(1) != "load" or (dm.group(2) or "true").strip() == "true"):
                name = _just_literal(dm.group(2) or "") if dm.group(1) != "load" else ".env"
                if name:
                    just.dotenv = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
            am = re.match(r"^alias\s+([\w-]+)\s*:=\s*([\w-]+)", stripped)
            if am:
                just.variables["alias:" + am.group(1)] = am.group(2)
            continue
        m = _JUST_RECIPE.match(stripped)
        if m:
            params = [p.lstrip("+*$").split("=", 1)[0] for p in m.group(2).split()]
            dependencies = re.findall(r"\(\s*([\w-]+)[^)]*\)|([\w-]+)", m.group(3).split("#", 1)[0].replace("&&", " "))
            current = JustRecipe(m.group(1), params, [a or b for a, b in dependencies], [], number, attributes)
            attributes = []
            just.recipes[current.name] = current
            if just.first is None and not any("private" in a for a in current.attributes) \
                    and not current.name.startswith("_"):
                just.first = current.name
    if "default" in just.recipes and just.first is None:
        just.first = "default"
    return just


# -- other task runners ------------------------------------------------------------------------
def load_toml(path: str) -> dict | None:
    return _load_mapping(path, tomllib.loads, (tomllib.TOMLDecodeError, ValueError))


def load_json(path: str) -> dict | None:
    return _load_mapping(path, json.loads, (ValueError,))


def load_yaml_mapping(path: str) -> dict | None:
    import yaml

    return _load_mapping(path, yaml.safe_load, (yaml.YAMLError,))


def _load_mapping(path: str, parse, errors: tuple[type[Exception], ...]) -> dict | None:
    """A project file read as a mapping, or None (missing, too large, not parsable, not a mapping)."""
    text = read_text(path)
    if text is None:
        return None
    try:
        data = parse(text)
    except errors:
        return None
    return data if isinstance(data, dict) else None


def python_module_file(cwd: str | None, module: str) -> str | None:
    """The project file `python -m module` would run (pkg/mod.py or pkg/mod/__main__.py, also
    under src/), or None when the module is not the project's."""
    if not cwd or not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*", module):
        return None
    relative = module.replace(".", "/")
    for base in (cwd, posixpath.join(cwd, "src")):
        for candidate in (posixpath.join(base, relative + ".py"), posixpath.join(base, relative, "__main__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


__all__ = ["MAX_FILE_BYTES", "Package", "Makefile", "MakeRule", "Justfile", "JustRecipe", "read_text", "language_of",
           "find_upward", "line_of", "shown", "load_package", "nearest_package", "workspace_root",
           "workspace_packages", "filter_packages", "makefile_path", "load_makefile", "make_goal", "find_justfile",
           "load_justfile", "load_toml", "load_json", "load_yaml_mapping", "python_module_file"]


MAX_NOTEBOOK_BYTES = 2 * 1024 * 1024  # a notebook carries its outputs: a larger cap, only its code is judged
_NOTEBOOK_LANGUAGES = {"python": "python", "python3": "python", "ipython": "python", "r": "r", "ir": "r",
                       "julia": None, "bash": "shell", "sh": "shell"}
_CELL_SHELL = re.compile(r"^%%(?:bash|sh|script\s+(?:ba)?sh)\b")
_LINE_SHELL = re.compile(r"^(\s*)(?:!|%(?:sx|system)\b|[A-Za-z_]\w*\s*=\s*!)\s*(.*)$")


@dataclass(frozen=True)
class NotebookCode:
    """A notebook's code cells, split by what runs them: the kernel's language and the shell (`!cmd`,
    `%%bash` cells); line N of `program` is line N of the cells' text joined, so findings can say where."""
    language: str | None  # python, r, shell; None: a kernel guardtui does not read
    program: str
    shell: str


def notebook_code(text: str) -> NotebookCode | None:
    """The code a Jupyter notebook (.ipynb JSON) runs when executed; None when it is not one."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        return None
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    kernel = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
    info = meta.get("language_info") if isinstance(meta.get("language_info"), dict) else {}
    spoken = str(kernel.get("language") or info.get("name") or "python").lower()
    language = _NOTEBOOK_LANGUAGES.get(spoken, None) if spoken in _NOTEBOOK_LANGUAGES else None
    program: list[str] = []
    shell: list[str] = []
    for cell in doc["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        body = "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else \
            source if isinstance(source, str) else ""
        lines = body.split("\n")
        if lines and _CELL_SHELL.match(lines[0]):  # a %%bash cell: all of it is shell
            shell.extend(lines[1:])
            program.extend("" for _ in lines)
            continue
        for line in lines:
            m = _LINE_SHELL.match(line) if language == "python" else None
            if m:  # `!curl …`, `files = !ls`: the rest of the line runs in a shell
                shell.append(m.group(2))
                program.append(m.group(1) + "pass")
            elif line.lstrip().startswith("%") and language == "python":
                program.append(re.match(r"\s*", line).group(0) + "pass")  # other magics: not Python
            else:
                program.append(line)
    return NotebookCode(language, "\n".join(program), "\n".join(shell))


# -- CMake scripts -------------------------------------------------------------------------------------
_CMAKE_CALL = re.compile(r"(?is)\b(execute_process|file)\s*\(")


def cmake_commands(text: str) -> list[str]:
    """What a CMake script runs or changes on this machine, as shell text: execute_process(COMMAND …) and
    file(REMOVE|REMOVE_RECURSE|WRITE|APPEND …); $ENV{X} becomes $X, ${CMAKE_…_DIR} the script's directory."""
    out: list[str] = []
    for m in _CMAKE_CALL.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth and i - m.end() < 8192:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = re.sub(r"\$ENV\{(\w+)\}", r"${\1}", text[m.end():i - 1])
        body = re.sub(r"\$\{CMAKE_(?:CURRENT_)?(?:SOURCE|LIST|BINARY)_DIR\}", ".", body)
        try:
            words = shlex.split(body, comments=True)
        except ValueError:
            words = body.split()
        if m.group(1).lower() == "execute_process":
            current: list[str] = []
            for w in words + ["COMMAND"]:
                if w == "COMMAND" or w.isupper() and w in _CMAKE_EXEC_KEYWORDS:
                    if current:
                        out.append(" ".join(_shell_word(c) for c in current))
                    current = [] if w == "COMMAND" else None  # type: ignore[assignment]
                elif current is not None:
                    current.append(w)
        elif words and words[0].upper() in ("REMOVE", "REMOVE_RECURSE"):
            out.append(("rm -rf " if words[0].upper() == "REMOVE_RECURSE" else "rm -f ") +
                       " ".join(_shell_word(w) for w in words[1:]))
        elif words and words[0].upper() in ("WRITE", "APPEND") and len(words) > 1:
            out.append(f": {'>>' if words[0].upper() == 'APPEND' else '>'} {_shell_word(words[1])}")
    return out[:64]


def _shell_word(word: str) -> str:
    """A word for the shell, its ${VARIABLES} left to expand."""
    return word if re.fullmatch(r"[\w@%+=:,./${}~-]+", word) else '"' + re.sub(r'(["\\`])', r"\\\1", word) + '"'


_CMAKE_EXEC_KEYWORDS = frozenset({"WORKING_DIRECTORY", "TIMEOUT", "RESULT_VARIABLE", "RESULTS_VARIABLE",
                                  "OUTPUT_VARIABLE", "ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE", "ERROR_FILE",
                                  "OUTPUT_QUIET", "ERROR_QUIET", "COMMAND_ECHO", "OUTPUT_STRIP_TRAILING_WHITESPACE",
                                  "ERROR_STRIP_TRAILING_WHITESPACE", "ENCODING", "ECHO_OUTPUT_VARIABLE",
                                  "ECHO_ERROR_VARIABLE", "COMMAND_ERROR_IS_FATAL"})