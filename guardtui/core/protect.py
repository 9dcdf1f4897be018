"""Protected targets: what guards the agent, reached by any path.

One notion every rule uses: the agents' hook and permission settings (data/protect.yaml),
guardtui's config, state and runtime directories (Locations), the plugin directories, and
guardtui's own code. A path is matched as the operating system would resolve it at judging
time: `~`, `..`, symbolic links (the real path of the longest existing prefix), hard links
(device and inode of the protected files that exist), and case-insensitively where the file
system is.

    protection = Protection(locations)                 # once per engine
    protected = protection.for_call(cwd, home)         # per call: its project's targets
    m = protected.match("s.json", cwd)                 # Match(target, path, how) or None
    protected.match("../.claude", cwd, contains="existing")   # a protected file lies under it

`match` returns the most specific match; `matches` every one. `contains` also matches a
directory that holds a target ("existing": only targets on disk, for deletes and moves; "any":
also targets that could be created there, for copies and extractions). `match_text` places a
path known only in part (`$XDG_CONFIG_HOME/guardtui/token`) by its known tail.
"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shutil
import stat
import sys
import time
from dataclasses import dataclass, field, fields
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable, Mapping

from .config import Locations
from .procfs import unalias_proc
from .yamlfile import Field, check, load_yaml

# kinds, by how the guard depends on them
HOOKS = "hooks"  # the agent's hook settings: guardtui's entries live here
PERMISSIONS = "permissions"  # the agent's own permission rules
USER_GUARDS = "user-guards"  # the person's plugins (trusted)
PROJECT_GUARDS = "project-guards"  # a project's plugins (untrusted: may only tighten)
GUARD_CONFIG = "guard-config"  # guardtui's config dir: trust, policy, settings
TOKEN = "token"  # the broker's token (HTTP hooks authenticate with it)
STATE = "state"  # the audit log
RUNTIME = "runtime"  # the broker's socket
GUARD_CODE = "guard-code"  # guardtui's installed code: the hooks run it
TRUST = "trust"  # the folders an agent trusts: trusting one loads that folder's settings (hooks off among them)
KINDS = (HOOKS, PERMISSIONS, USER_GUARDS, PROJECT_GUARDS, GUARD_CONFIG, TOKEN, STATE, RUNTIME, GUARD_CODE, TRUST)

_AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "cursor": "Cursor",
                "docker-agent": "docker-agent"}
_LINK_HOPS = 40  # as the kernel's limit on symbolic links in one lookup
_TREE_FILES = 2000  # protected files indexed per tree for hard-link checks
RECHECK_S = 0.25  # how stale the targets' own resolved places may be (as core/plugins/projects.py)


@dataclass(frozen=True)
class Target:
    path: str  # absolute and normalised, as configured (not resolved)
    kind: str
    label: str  # what it is, for reasons: "Claude Code's hook settings"
    tree: bool = False  # a directory: everything under it is protected
    agent: str = ""
    format: str = ""  # hooks files: json, toml or yaml
    tail: str = ""  # project-level entries: the relative path, also matched in any directory
    by_link: bool = True  # also matched where its links lead (not for a venv's python: a link to the system's)
    editable: bool = False  # guardtui's code as a source checkout (an editable install): a project the person works on

    def __hash__(self) -> int:  # the dataclass's own hash, made once (a call deleting `/` hashes every target often)
        known = self.__dict__.get("_hash")
        if known is None:
            known = hash(tuple(getattr(self, name) for name in _TARGET_FIELDS))
            object.__setattr__(self, "_hash", known)
        return known


_TARGET_FIELDS = tuple(f.name for f in fields(Target) if f.compare and f.hash is not False)


@dataclass(frozen=True)
class Match:
    target: Target
    path: str  # the path as the OS resolves it
    how: str  # path | link | hard link | case | inside | contains | tail
    rel: str = ""  # contains: where the target lies under `path`

    @property
    def kind(self) -> str:
        return self.target.kind

    @property
    def contains(self) -> bool:
        """The path is a directory that holds the target (not the target or a file in it)."""
        return self.how in ("contains", "glob")

    def globbed(self, pattern: str) -> "Match":
        """This match, reached through a glob (`~/.c*/guardtui/trusted.json`), to be told so."""
        return Match(self.target, pattern, "glob", self.rel) if self.how == "contains" else self

    def describe(self) -> str:
        """`~/.claude/settings.json (Claude Code's hook settings), through a symbolic link`"""
        via = {"link": ", through a symbolic link", "hard link": ", through a hard link",
               "case": ", spelt in another case", "contains": ""}.get(self.how, "")
        if self.how == "contains":
            return f"{self.path}, which holds {self.target.label} ({self.target.path})"
        if self.how == "glob":
            return f"{self.target.label} ({self.target.path}), which the glob {self.path} reaches"
        where = self.target.path if not self.target.tree or self.how not in ("inside", "link", "tail") else self.path
        return f"{where} ({self.target.label}){via}"


# -- data -------------------------------------------------------------------------------------
_ENTRY = {"agent": Field(str, choices=tuple(_AGENT_NAMES)), "kind": Field(str, required=True, choices=KINDS),
          "editable": Field(bool),
          "format": Field(str, choices=("json", "toml", "yaml", "trust-folders", "trust-projects")), "paths": Field(list, required=True, items=str)}
_BYPASS = {"key": Field(str, required=True), "is": Field((str, bool, int)), "has": Field(str)}
_SCHEMA = {
    "version": Field(int, required=True, choices=(1,)),
    "agents": Field(list, required=True, items=_ENTRY),
    "guards": Field(list, required=True, items=_ENTRY),
    "bypass": Field(dict, required=True, values=Field(list, items=_BYPASS)),
    "hook_entries": Field(dict, required=True, fields={"command": Field(str, required=True),
                                                       "url": Field(str, required=True)}),
    "commands": Field(dict, required=True, fields={k: Field(list, required=k != "broker", items=str)
                                                   for k in ("read", "console", "broker", "changes")}),
    "packages": Field(list, required=True, items=str),
    "processes": Field(dict, fields={"names": Field(list, required=True, items=str),
                                     "command_lines": Field(list, required=True, items=str),
                                     "ports": Field(list, required=True, items=int),
                                     "terminals": Field(list, items=str)}),
    "delegation": Field(dict, fields={k: Field(list, items=str) for k in ("tools", "fields", "change_verbs",
                                                                          "negations", "typing", "terminals",
                                                                          "guard_names")}),
    "settings_changes": Field(dict, values=Field(dict, fields={"neutral": Field(list, items=str),
                                                               "tighten": Field(list, items=str)})),
    "agent_programs": Field(dict, values=Field(dict, fields={
        "programs": Field(list, required=True, items=str), "flags": Field(list, items=str),
        "values": Field(dict, values=Field(list, items=str)), "settings": Field(list, items=str),
        "overrides": Field(list, items=str), "config_env": Field(list, items=str),
        "settings_env": Field(list, items=str), "sources": Field(str),
        "loosens": Field(list, items=str), "env_values": Field(dict, values=Field(list, items=str)),
        "values_any": Field(list, items=str), "tool_options": Field(list, items=str),
        "approve": Field(list, items=str), "settings_writes": Field(dict, values=Field(list, items=str)),
        "unhooked": Field(bool)})),
    "hook_env": Field(list, items=str),
    "offline_wrappers": Field(dict, values=Field(list, items=str)),
}


@dataclass(frozen=True)
class ProtectData:
    entries: tuple[dict, ...]
    bypass: Mapping[str, tuple[dict, ...]]
    our_command: re.Pattern
    our_url: re.Pattern
    commands: Mapping[str, frozenset[str]]  # class -> subcommands
    packages: frozenset[str]
    processes: Mapping[str, tuple] = field(default_factory=dict)  # names, command_lines, ports
    agent_programs: Mapping[str, dict] = field(default_factory=dict)  # agent -> its command line's bypasses
    settings_changes: Mapping[str, dict] = field(default_factory=dict)  # agent -> neutral keys, tightening lists
    delegation: Mapping[str, tuple] = field(default_factory=dict)  # a sub-agent's task: its tools and words
    hook_env: frozenset[str] = frozenset()  # variables that choose the programs an agent's hooks run
    offline_wrappers: Mapping[str, tuple] = field(default_factory=dict)  # wrapper -> options that cut the network


def cuts_network(wrapper: str, words: list[str]) -> str:
    """The first of a wrapper's words that starts what it runs in a network namespace of its own
    (offline_wrappers: `unshare --net`, `bwrap --unshare-all`), or ""."""
    globs = protect_data().offline_wrappers.get(posixpath.basename(wrapper), ())
    return next((w for w in words if any(fnmatch.fnmatchcase(w, g) for g in globs)), "")


def project_guard_paths() -> tuple[str, ...]:
    """The guard's files and directories inside a project, relative to it (`.claude/settings.json`, `.guardtui/`)."""
    return tuple(dict.fromkeys(spec[len("<project>/"):] for entry in protect_data().entries
                               for spec in entry.get("paths", ()) if spec.startswith("<project>/")))


@lru_cache(maxsize=1)
def protect_data() -> ProtectData:
    text = resources.files("guardtui.core.data").joinpath("protect.yaml").read_text(encoding="utf-8")
    return parse_protect_data(text, "guardtui/core/data/protect.yaml")


def parse_protect_data(text: str, file: str) -> ProtectData:
    """The data file, checked: a mistake is one line naming file, line and field (DataError)."""
    doc = load_yaml(text, file)
    check(doc, _SCHEMA)
    data = doc.data
    for section in ("agents", "guards"):
        for i, entry in enumerate(data[section]):
            for j, path in enumerate(entry["paths"]):
                if not path.startswith(("~/", "$", "<project>/", "/")):
                    raise doc.error((section, i, "paths", j), "must start with ~/, $VAR/, <project>/ or /")
            if entry["kind"] == HOOKS and not entry.get("format"):
                raise doc.error((section, i), "a hooks entry needs a format (json, toml or yaml)")
    for key in ("command", "url"):
        try:
            re.compile(data["hook_entries"][key])
        except re.error as exc:
            raise doc.error(("hook_entries", key), f"regex does not compile: {exc}") from None
    return ProtectData(tuple(data["agents"]) + tuple(data["guards"]),
                       {agent: tuple(rules) for agent, rules in data["bypass"].items()},
                       re.compile(data["hook_entries"]["command"]), re.compile(data["hook_entries"]["url"]),
                       {"broker": frozenset(), **{k: frozenset(v) for k, v in data["commands"].items()}},
                       frozenset(data["packages"]),
                       {k: tuple(v) for k, v in (data.get("processes") or {}).items()},
                       dict(data.get("agent_programs") or {}), dict(data.get("settings_changes") or {}),
                       {k: tuple(v) for k, v in (data.get("delegation") or {}).items()},
                       frozenset(data.get("hook_env") or ()),
                       {k: tuple(v) for k, v in (data.get("offline_wrappers") or {}).items()})


def agent_of_program(name: str) -> str | None:
    """The agent a program (or its npm package: @openai/codex) starts, by protect.yaml agent_programs."""
    base = posixpath.basename(name)
    for agent, spec in protect_data().agent_programs.items():
        if base in spec.get("programs", ()):
            return agent
    return None


def _label(entry: dict) -> str:
    agent = _AGENT_NAMES.get(entry.get("agent", ""), "")
    return {HOOKS: f"{agent}'s hook settings", PERMISSIONS: f"{agent}'s permission rules",
            USER_GUARDS: "your guard plugins (trusted)", PROJECT_GUARDS: "the project's guard plugins",
            GUARD_CODE: "what `python3 -m guardtui` run here imports in place of guardtui"
            if any(p.startswith("<project>/") for p in entry["paths"]) else "guardtui's installed code (the hooks run it)",
            TRUST: f"{agent}'s trusted folders" if entry.get("format") == "trust-folders" else
            f"{agent}'s configuration, which holds the folders it trusts"}[entry["kind"]]


# -- the targets --------------------------------------------------------------------------------
class Protection:
    """The protected targets of one installation; `for_call` adds a call's project."""

    def __init__(self, locations: Locations | None = None, homes: Iterable[str] = (),
                 env: Mapping[str, str] | None = None, code_dir: str | None = None,
                 clock: Callable[[], float] = time.monotonic, interpreter: str | None = None):
        self.locations = locations
        self.env = dict(os.environ if env is None else env)
        found = [str(h) for h in homes]
        if locations is not None:
            found.append(str(locations.home))
        self.homes = tuple(dict.fromkeys(posixpath.normpath(h) for h in found if h and h.startswith("/")))
        self.code_dir = code_dir if code_dir is not None else str(Path(__file__).resolve().parent.parent)
        # the interpreter the installed hooks run (`<python> -S …/guardtui/hook.py`): a venv's own bin/python
        self.interpreter = interpreter if interpreter is not None else \
            (sys.executable if sys.executable and sys.prefix != sys.base_prefix else "")
        self._fixed: dict[tuple[str, ...], tuple[Target, ...]] = {}
        # the targets' list is data and paths (no look at the disk): kept per working directory (the fixed
        # ones, then the project's; and the sockets among them)
        self._projects: dict[tuple, tuple[tuple[Target, ...], tuple[str, ...]]] = {}
        # where the targets really are (their links resolved) is looked at most every RECHECK_S; the path a
        # call names is always resolved afresh, and a link made where a target would be is itself denied
        self._indexes: dict[tuple, tuple[float, dict, dict]] = {}
        self.clock = clock

    def for_call(self, cwd: str | None, home: str | None = None) -> "Protected":
        """The targets for a call made in `cwd`; `home` is what its `~` means (the engine's home)."""
        homes = self.homes
        if home and home.startswith("/"):
            homes = (posixpath.normpath(home),) + tuple(h for h in homes if h != posixpath.normpath(home))
        fixed = self._fixed.get(homes)
        if fixed is None:
            fixed = self._fixed[homes] = self._fixed_targets(homes)
        key = (cwd or "", homes)
        known = self._projects.get(key)
        if known is None:
            if len(self._projects) >= 256:
                self._projects.clear()
            targets = fixed + self._project_targets(cwd, homes)
            known = self._projects[key] = (targets, sockets_among(targets))
        protected = Protected(known[0], homes, _sockets=known[1])
        cached = self._indexes.get(key)
        now = self.clock()
        if cached is not None and now - cached[0] < RECHECK_S:
            protected._index, protected._folded = cached[1], cached[2]
        else:
            if len(self._indexes) >= 256:
                self._indexes.clear()
            self._indexes[key] = (now, protected._by_form(), protected._folded_index())
        return protected

    def paths(self, cwd: str | None = None, home: str | None = None) -> list[str]:
        """Every protected path as written (no links resolved): for checks that only see text, such as
        the guard agent's limits on what a model may allow."""
        return [t.path for t in self.for_call(cwd, home).targets]

    def _fixed_targets(self, homes: tuple[str, ...]) -> tuple[Target, ...]:
        out: list[Target] = []
        loc = self.locations
        if loc is not None:
            out += [Target(_norm(loc.token_file), TOKEN, "guardtui's hook token"),
                    Target(_norm(loc.trust_file), GUARD_CONFIG, "guardtui's list of trusted plugins"),
                    Target(_norm(loc.policy_file), GUARD_CONFIG, "guardtui's policy"),
                    Target(_norm(loc.settings_file), GUARD_CONFIG, "guardtui's settings"),
                    Target(_norm(loc.user_plugins_dir), USER_GUARDS, "your guard plugins (trusted)", tree=True),
                    Target(_norm(loc.config_dir), GUARD_CONFIG, "guardtui's configuration", tree=True),
                    Target(_norm(loc.audit_db), STATE, "guardtui's audit log"),
                    Target(_norm(loc.state_dir), STATE, "guardtui's state (the audit log)", tree=True),
                    Target(_norm(loc.socket_path), RUNTIME, "guardtui's broker socket"),
                    Target(_norm(loc.runtime_dir), RUNTIME, "guardtui's runtime directory (the broker socket)",
                           tree=True)]
        if self.code_dir:
            # installed (site-packages: pip, pipx, uv tool) or a source checkout installed editable (its writes ask)
            editable = not any(p in ("site-packages", "dist-packages") for p in Path(self.code_dir).parts)
            out.append(Target(_norm(self.code_dir), GUARD_CODE, "guardtui's own code (the hooks run it)", tree=True,
                              editable=editable))
            if self.interpreter:
                out.append(Target(_norm(self.interpreter), GUARD_CODE, "the Python the hooks run guardtui with",
                                  by_link=False, editable=editable))
        launcher = shutil.which("guardtui", path=self.env.get("PATH", "")) if self.env.get("PATH") else None
        if launcher and launcher.startswith("/"):  # the program the person starts the console with
            out.append(Target(_norm(launcher), GUARD_CODE, "guardtui's launcher"))
        for entry in protect_data().entries:
            for spec in entry["paths"]:
                if spec.startswith("<project>/"):
                    continue
                for path in self._expand(spec, homes):
                    out.append(_target(entry, path, ""))
        return tuple(out)

    def _expand(self, spec: str, homes: tuple[str, ...]) -> list[str]:
        if spec.startswith("~/"):
            return [h.rstrip("/") + spec[1:] for h in homes]
        if spec.startswith("$"):
            var, _, rest = spec[1:].partition("/")
            value = self.env.get(var, "")
            return [value.rstrip("/") + "/" + rest] if value.startswith("/") else []
        return [spec]

    def _project_targets(self, cwd: str | None, homes: tuple[str, ...]) -> tuple[Target, ...]:
        if not cwd or not cwd.startswith("/"):
            return ()
        out = []
        dirs = _ancestors(posixpath.normpath(cwd))
        for entry in protect_data().entries:
            for spec in entry["paths"]:
                if not spec.startswith("<project>/"):
                    continue
                rel = spec[len("<project>/"):]
                for d in dirs:
                    if entry["kind"] == PROJECT_GUARDS and _at_or_above_a_home(d, homes):
                        continue  # the home directory and above are the user's own (loader.project_root)
                    path = d.rstrip("/") + "/" + rel
                    if entry["kind"] == GUARD_CODE and self.code_dir and _under(_norm(path), _norm(self.code_dir)):
                        continue  # guardtui's own code: its target says how it is installed
                    out.append(_target(entry, path, rel))
        return tuple(out)


def _target(entry: dict, path: str, tail: str) -> Target:
    tree = path.endswith("/")
    return Target(_norm(path), entry["kind"], _label(entry), tree, entry.get("agent", ""), entry.get("format", ""),
                  tail.rstrip("/"), editable=bool(entry.get("editable")))


def _ancestors(path: str) -> list[str]:
    out = []
    while path != "/":
        out.append(path)
        path = posixpath.dirname(path)
    return out


def _at_or_above_a_home(d: str, homes: tuple[str, ...]) -> bool:
    return any(h == d or h.startswith(d.rstrip("/") + "/") for h in homes)


def sockets_among(targets: tuple[Target, ...]) -> tuple[str, ...]:
    return tuple(t.path for t in targets if t.kind == RUNTIME and not t.tree)


def _norm(path: str | Path) -> str:
    return posixpath.normpath(str(path))


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


# -- matching -----------------------------------------------------------------------------------
@dataclass
class Protected:
    """The targets for one call, and the file system as it is while the call is judged."""

    targets: tuple[Target, ...]
    homes: tuple[str, ...] = ()
    _real: dict[str, str] = field(default_factory=dict, repr=False)
    _missing: set[str] = field(default_factory=set, repr=False)
    _inodes: dict[tuple[int, int], Target] | None = field(default=None, repr=False)
    _insensitive: dict[str, bool] = field(default_factory=dict, repr=False)
    _index: dict[str, list[Target]] | None = field(default=None, repr=False)
    _folded: dict[str, list[Target]] | None = field(default=None, repr=False)
    _tails: list[Target] | None = field(default=None, repr=False)
    _sockets: tuple[str, ...] | None = field(default=None, repr=False)

    @property
    def sockets(self) -> tuple[str, ...]:
        """The paths of guardtui's sockets among the targets (its broker's, a standby's)."""
        if self._sockets is None:
            self._sockets = sockets_among(self.targets)
        return self._sockets

    def match(self, path: str, cwd: str = "", *, follow: bool = True, contains: str = "") -> Match | None:
        found = self.matches(path, cwd, follow=follow, contains=contains)
        return found[0] if found else None

    def matches(self, path: str, cwd: str = "", *, follow: bool = True, contains: str = "") -> list[Match]:
        """Every target `path` reaches, most specific first.

        follow: the final component is followed if it is a symbolic link (writes, chmod, reads);
        False for what acts on the link itself (rm, mv, ln's destination).
        contains: "existing" or "any" also matches a directory holding a target; "near" a directory
        holding a target that exists, or one that would be its own file (`.claude` for
        `.claude/settings.json`, there or not: moved aside, it is where the agent reads hooks from)."""
        if not path:
            return []
        lexical = self.absolute(path, cwd)
        if lexical is None:
            return []
        norm = _norm(lexical)
        if follow:
            real = self.resolve(lexical)
        else:
            parent, name = posixpath.split(norm)
            real = posixpath.join(self.resolve(parent), name) if name else self.resolve(norm)
        candidates = [(norm, "path")] + ([(real, "link")] if real != norm else [])
        found = self._indexed(candidates, contains)
        if not found and follow:  # removing or moving another name of a file leaves the file where it was
            found += self._hard_link(real)
        if not found:
            found += self._case_folded(candidates, contains)
        if not found:
            found += self._tail(norm, contains)
        return sorted(found, key=_specificity)

    def match_text(self, text: str) -> Match | None:
        """A path known only in part (`$DIR/guardtui/token`, `/run/user/$(id -u)/guardtui`,
        `$(python3 -c …)/core/shell/taxonomy.yaml`): each part known only at run time stands for one
        component (a leading one for any number), and at least two known components must name a
        target, as its path's tail or, for a protected tree, a file that is in it now."""
        marked = re.sub(r"\$\{[^}]*\}|\$\w+|`[^`]*`|…", "\0", _unsubstituted(text)).strip("'\"")
        parts = [p for p in marked.split("/") if p and p != "."]
        if ".." in parts:
            return None
        while parts and parts[0] == "\0":
            parts = parts[1:]  # `$DIR/…`: the unknown start may be any number of components
        known = [p for p in parts if "\0" not in p]
        if len(known) < 2:
            return None
        pattern = [p.replace("\0", "*") for p in parts]
        best: Match | None = None
        for target in self.targets:
            names = target.path.strip("/").split("/")
            for cut in range(len(pattern), 0, -1):  # pattern[:cut] ends the target's path; the rest lies inside
                head, rest = pattern[:cut], pattern[cut:]
                if len(head) > len(names) or len([h for h in head if "*" not in h]) < min(2, len(known)):
                    continue
                if all(fnmatch.fnmatchcase(n, h) for n, h in zip(names[-len(head):], head)) and \
                        (not rest or target.tree):
                    m = Match(target, "/" + "/".join(parts).replace("\0", "…"), "tail")
                    if best is None or _specificity(m) < _specificity(best):
                        best = m
                    break
            if target.tree and marked.lstrip("'\"").startswith("\0") and "*" not in "".join(pattern) and \
                    os.path.lexists(target.path.rstrip("/") + "/" + "/".join(pattern)):
                # `$(…)/core/shell/taxonomy.yaml`: that file is in the protected tree now
                m = Match(target, target.path.rstrip("/") + "/" + "/".join(pattern), "tail")
                if best is None or _specificity(m) < _specificity(best):
                    best = m
        return best

    # -- resolution ----------------------------------------------------------------------------
    def absolute(self, path: str, cwd: str = "") -> str | None:
        """`~` and the cwd applied; `..` and links are left for `resolve` (the OS order)."""
        if path.startswith("~"):
            user, _, rest = path[1:].partition("/")
            if user:
                return None  # ~other: another account's home
            path = (self.homes[0] if self.homes else os.path.expanduser("~")) + ("/" + rest if rest else "")
        if not path.startswith("/"):
            if not cwd or not cwd.startswith("/"):
                return None
            path = cwd.rstrip("/") + "/" + path
        return unalias_proc(path, cwd) if path.startswith("/proc/") else path

    def resolve(self, path: str) -> str:
        """The real path (as os.path.realpath, strict=False), memoised per call: every symbolic
        link in the existing prefix followed, `..` applied after the link it follows."""
        return self._resolve(path, 0)

    def _resolve(self, path: str, hops: int) -> str:
        real = self._real
        known = real.get(path)
        if known is not None:
            return known
        if "//" in path:
            path = re.sub(r"/+", "/", path)
        if len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
        if path in ("/", ""):
            return "/"
        cut = path.rfind("/")
        parent, name = path[:cut] or "/", path[cut + 1:]
        base = real.get(parent) or self._resolve(parent, hops)
        if name in ("", "."):
            result = base
        elif name == "..":
            result = base[:base.rfind("/")] or "/"
        else:
            result = (base if base != "/" else "") + "/" + name
            if base in self._missing:
                self._missing.add(result)
            else:
                try:
                    st = os.lstat(result)
                except OSError:
                    self._missing.add(result)
                else:
                    if stat.S_ISLNK(st.st_mode) and hops < _LINK_HOPS:
                        try:
                            link = os.readlink(result)
                        except OSError:
                            link = None
                        if link is not None:
                            result = self._resolve(link if link.startswith("/") else base + "/" + link, hops + 1)
        real[path] = result
        return result

    def exists(self, path: str) -> bool:
        real = self.resolve(path)
        return real not in self._missing and os.path.lexists(real)

    # -- the comparisons ---------------------------------------------------------------------------
    def _forms(self, target: Target) -> tuple[str, ...]:
        if not target.by_link:
            return (target.path,)
        real = self.resolve(target.path)
        return (target.path,) if real == target.path else (target.path, real)

    def _by_form(self) -> dict[str, list[Target]]:
        """Each target under its configured and its real path (resolved once per call)."""
        if self._index is None:
            index: dict[str, list[Target]] = {}
            for target in self.targets:
                for form in self._forms(target):
                    index.setdefault(form, []).append(target)
            self._index = index
        return self._index

    def _indexed(self, candidates: list[tuple[str, str]], contains: str) -> list[Match]:
        index = self._by_form()
        found: dict[Target, Match] = {}
        for cand, how in candidates:
            for target in index.get(cand, ()):
                if target not in found:
                    found[target] = Match(target, cand, how)
            parent = cand
            while parent != "/":  # inside a protected tree
                parent = parent[:parent.rfind("/")] or "/"
                for target in index.get(parent, ()):
                    if target.tree and target not in found:
                        found[target] = Match(target, cand, "inside" if how == "path" else how)
        if contains:
            for cand, _ in candidates:
                prefix = cand.rstrip("/") + "/"
                for form, targets in index.items():
                    if not form.startswith(prefix):
                        continue
                    direct = "/" not in form[len(prefix):].rstrip("/")
                    for target in targets:
                        # (code that is not there guards nothing: a folder's absent guardtui.py is no loss)
                        if target not in found and (contains == "any" or contains == "near" and direct and
                                                    target.kind != GUARD_CODE or self.exists(target.path)):
                            found[target] = Match(target, cand, "contains", form[len(prefix):])
        return list(found.values())

    def _hard_link(self, real: str) -> list[Match]:
        """Another name for a protected file: same device and inode."""
        try:
            st = os.stat(real)
        except OSError:
            return []
        if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
            return []
        target = self._inode_index().get((st.st_dev, st.st_ino))
        return [Match(target, real, "hard link")] if target is not None else []

    def _inode_index(self) -> dict[tuple[int, int], Target]:
        if self._inodes is None:
            index: dict[tuple[int, int], Target] = {}
            for target in sorted(self.targets, key=lambda t: t.tree):  # a file's own entry first
                for path in _files_of(self.resolve(target.path), target.tree):
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    index.setdefault((st.st_dev, st.st_ino), target)
            self._inodes = index
        return self._inodes

    def _folded_index(self) -> dict[str, list[Target]]:
        if self._folded is None:
            self._folded = {}
            for form, targets in self._by_form().items():
                self._folded.setdefault(form.casefold(), []).extend(targets)
        return self._folded

    def _case_folded(self, candidates: list[tuple[str, str]], contains: str) -> list[Match]:
        """On a case-insensitive file system `.CLAUDE/Settings.json` is `.claude/settings.json`."""
        index = self._folded_index()
        for cand, _ in candidates:
            folded = cand.casefold()
            hits = [(t, "case", "") for t in index.get(folded, ())]
            parent = folded
            while parent != "/" and not hits:
                parent = parent[:parent.rfind("/")] or "/"
                hits = [(t, "case", "") for t in index.get(parent, ()) if t.tree]
            if not hits and contains:
                prefix = folded.rstrip("/") + "/"
                hits = [(t, "contains", form[len(prefix):]) for form, ts in index.items()
                        if form.startswith(prefix) for t in ts
                        if contains == "any" or self.exists(t.path)]
            if hits and self._case_insensitive_at(cand):
                return [Match(t, cand, how, rel) for t, how, rel in hits]
        return []

    def _case_insensitive_at(self, path: str) -> bool:
        """Is the file system holding `path` case-insensitive? (probed on its deepest existing directory)"""
        d = self.resolve(path)
        while d != "/" and (d in self._missing or not os.path.isdir(d)):
            d = posixpath.dirname(d)
        probe = d
        while probe != "/" and not re.search(r"[A-Za-z]", posixpath.basename(probe)):
            probe = posixpath.dirname(probe)
        if probe == "/":
            return False
        known = self._insensitive.get(probe)
        if known is None:
            other = posixpath.join(posixpath.dirname(probe), posixpath.basename(probe).swapcase())
            try:
                a, b = os.stat(probe), os.stat(other)
                known = (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
            except OSError:
                known = False
            self._insensitive[probe] = known
        return known

    def _tail(self, norm: str, contains: str) -> list[Match]:
        """Another project's settings: `<dir>/.claude/settings.json` anywhere."""
        out = []
        if self._tails is None:
            self._tails = list({t.tail: t for t in self.targets if t.tail}.values())
        for target in self._tails:
            tail = target.tail
            if _ends_with(norm, tail) or (target.tree and ("/" + tail + "/") in norm + "/"):
                out.append(Match(target, norm, "tail"))
            elif contains and self._holds_tail(norm, tail, contains):
                out.append(Match(target, norm, "contains", _tail_below(norm, tail)))
        return out[:1]

    def _holds_tail(self, directory: str, tail: str, contains: str) -> bool:
        parts = tail.split("/")
        for i in range(1, len(parts)):  # `.../.claude` holds `.claude/settings.json`
            if _ends_with(directory, "/".join(parts[:i])):
                rest = directory + "/" + "/".join(parts[i:])
                return contains == "any" or self.exists(rest)
        return self.exists(directory.rstrip("/") + "/" + tail)


def _unsubstituted(text: str) -> str:
    """`$(…)` (nested parentheses and quotes included) replaced by a NUL: a part known only at run time."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$(", i):
            depth, j, quote = 0, i + 1, ""
            while j < len(text):
                c = text[j]
                if quote:
                    quote = "" if c == quote else quote
                elif c in "'\"":
                    quote = c
                elif c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append("\0")
            i = j + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _tail_below(directory: str, tail: str) -> str:
    parts = tail.split("/")
    for i in range(1, len(parts)):
        if _ends_with(directory, "/".join(parts[:i])):
            return "/".join(parts[i:])
    return tail


def _ends_with(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)


def _specificity(m: Match) -> tuple:
    """Exact files before trees, deeper targets before shallower, direct paths before contains."""
    return (m.how == "contains", m.target.tree, -len(m.target.path))


def _files_of(path: str, tree: bool) -> list[str]:
    if not tree:
        return [path]
    out = []
    for root, dirs, files in os.walk(path):
        out.extend(os.path.join(root, f) for f in files)
        if len(out) >= _TREE_FILES:
            break
    return out[:_TREE_FILES]


def agent_name(agent: str) -> str:
    return _AGENT_NAMES.get(agent, agent)
