"""Load taxonomy.yaml (schema-checked) and match commands against its shapes and verbs."""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

from ..model import BlastRadius
from ..yamlfile import DataError, Field, check, load_yaml, str_or_list

_RADII = tuple(r.value for r in BlastRadius)
_LIST = Field(list, items=str)


def _regex_ok(value: Any) -> str | None:
    try:
        re.compile(value)
    except re.error as exc:
        return f"regex does not compile: {exc}"
    return None


_SHAPE = {
    "id": Field(str, required=True),
    "command": Field(list, required=True, items=str),
    "args": Field(list, items=str),
    "flags": Field(list, items=str),
    "not_flags": Field(list, items=str),
    "text": Field(str, check=_regex_ok),
    "verdict": Field(str, choices=("allow", "ask", "deny")),
    # it wipes the database the project is configured for: one not on this machine (.env DATABASE_URL) denies
    "wipes_configured_database": Field(bool),
    "prints": Field(bool),  # it prints secrets: only when its output reaches the terminal (not piped or captured)
    "remote": Field(str, choices=("deny",)),  # on another host (ssh, a pod, a PaaS run): a server's data, not a dev's
    "blast_radius": Field(str, required=True, choices=_RADII),
    "category": Field(str, required=True),
    "reason": Field(str, required=True),
}
_WRAPPER = {
    "privilege": Field(bool), "value_options": _LIST, "describe": _LIST, "shell_login": _LIST,
    "chdir": _LIST, "assignments": Field(bool), "split": _LIST, "positionals": Field(int),
    "shell_string": Field(bool), "no_shell": _LIST, "command_option": _LIST, "user_positional": Field(bool),
    "output_positional": Field(bool),  # script -c CMD FILE: the operand left is a file it writes
    "after": _LIST,  # gdb --args PROG: the command begins after one of these words (without one: not a wrapper)
}
_INTERPRETER = {
    "names": Field(list, required=True, items=str), "code": Field(list, required=True, items=str),
    "value_options": _LIST, "module": _LIST, "language": Field(str, required=True), "code_subcommand": Field(str),
    "subcommand": Field(str),  # only `NAME SUB …` runs code (mix run); the rest is the taxonomy's
    "code_only": Field(bool),  # only its code option is judged here (nim --eval:…); other uses are the taxonomy's
    # calls in its code that install packages from the network (install.packages, Pkg.add): regexes
    "installs": Field(list, items=str, check=lambda v: next(filter(None, map(_regex_ok, v)), None)),
    # libraries a -r option loads whose functions are commands (`ruby -run -e rm -- -rf x` is `rm -rf x`):
    # library → {function: the command it is}
    "library_commands": Field(dict, values=Field(dict, values=Field(str))),
}
_SQL = {"code": _LIST, "value_options": _LIST, "file": _LIST, "positional_sql": Field(bool),
        "only_with_code": Field(bool),
        # the subcommand whose arguments are SQL (bq query, wp db query): other subcommands are the taxonomy's
        "sql_after": _LIST,
        # a key-value store's own commands (redis): what wipes, what is risky, what only reads
        "store_commands": Field(dict, fields={"critical": _LIST, "high": _LIST, "read": _LIST,
                                               "routine": _LIST, "file_settings": _LIST}),
        "read_options": _LIST}
_COMMAND = {
    "category": Field(str, required=True), "aliases": _LIST, "value_options": _LIST, "dry_run": _LIST,
    "verbs": Field(dict, fields={"read": _LIST, "change": _LIST, "delete": _LIST}),
    "flag_verbs": Field(bool), "default": Field(str, choices=("read", "change", "delete")),
    "verb_position": Field(str, choices=("first", "last")),
    # the verb ends a noun-verb word (IBM Cloud's `is instance-delete`, `cos bucket-create`)
    "verb_suffix": Field(bool),
}
_PATHS = {k: Field(list, required=True, items=str) for k in
          ("critical_files", "core_system_dirs", "system_dirs", "temp_dirs", "disk_devices", "harmless_devices",
           "terminal_devices", "project_markers")}
_PATHS["datastore_dirs"] = Field(list, items=str)
SCHEMA = {
    "version": Field(int, required=True, choices=(1,)),
    "paths": Field(dict, required=True, fields=_PATHS),
    "wrappers": Field(dict, required=True, values=_WRAPPER),
    "shells": Field(list, required=True, items=str),
    "shell_value_options": Field(list, required=True, items=str),
    "interpreters": Field(dict, required=True, values=_INTERPRETER),
    "sql_clients": Field(dict, required=True, values=_SQL),
    "safe": Field(list, required=True, items=(str,)),
    "builtins": Field(list, required=True, items=str),
    "env_generators": Field(list, required=True, items=str),
    "terminal_input": Field(dict, required=True, values={"verbs": Field(list, required=True, items=str),
                                                         "value_options": _LIST, "ends": _LIST, "reads": _LIST,
                                                         "remaps": Field(bool)}),
    # code that synthesises keystrokes into the focused window (regexes on a program's text)
    "web_terminal_clients": Field(dict),
    "typing_code": Field(list, items=str, check=lambda v: next(filter(None, map(_regex_ok, v)), None)),
    "verbs": Field(dict, required=True, fields={"read": _LIST, "change": _LIST, "delete": _LIST}),
    "commands": Field(dict, required=True, values=_COMMAND),
    # editors that write the files they are given when one of `flags` is there (yq -i): `skip` operands first
    # (the expression), `value_options` take a value, `file_options` name a file written
    # the object words a CLI's delete takes whole (`wrangler r2 bucket delete`, `supabase projects delete`)
    "whole_resources": Field(list, items=str),
    # tools whose whole resources live on this machine (a dev cluster, the tool's own metadata database):
    # deleting one asks, as a named local path does
    "local_resource_tools": Field(list, items=str),
    # a developer's own processes: the listener on an unprivileged port, a command line naming a project program
    "dev_processes": Field(dict, fields={"lowest_port": Field(int, required=True), "script_suffixes": _LIST,
                                         "launcher_dirs": _LIST}),
    # options whose value is a command line the tool hands to a shell (git grep -O, zip -TT, rsync -e)
    "command_options": Field(dict, values=_LIST),
    # variables a tool sets for the program such an option names, valued as the tool's last operand (split's
    # $FILE: the chunk's name, under the output prefix)
    "command_option_variables": Field(dict, values=_LIST),
    # options whose value is a file the tool writes (sort -o, pytest --junitxml, gcc -o, ssh -E): judged as
    # a write of that file
    "output_options": Field(dict, values=_LIST),
    # compilers and linkers: the file their output option names is a program built from sources (a build
    # product), not a script whose text this command wrote (running it after building it is no changed script)
    "program_builders": _LIST,
    # commands whose operand at `position` is a file they write (uniq IN OUT), only `when` one of those options is
    # given (ptx -G), operands counted after `value_options` and their values
    # options whose value is a directory a tool puts files in (aria2c -d, 7z x -oDIR), with the option naming the
    # file put there (aria2c -o): an unknown archive unpacked there, or that one file written
    "unpack_dirs": Field(dict, values={"options": _LIST, "names": _LIST, "subcommands": _LIST,
                                       "attached": Field(bool)}),
    # sandboxes that run a command on this machine (apptainer, flatpak, bwrap, proot, multipass, incus)
    "sandboxes": Field(dict, values={"style": Field(str, required=True), "subcommands": _LIST, "image": Field(bool),
                                     "home_default": Field(bool), "binds_cwd": Field(bool), "confine_flags": _LIST,
                                     "bind_options": _LIST, "pair_options": _LIST, "hide_options": _LIST,
                                     "home_options": _LIST, "home_values": _LIST, "chdir_options": _LIST,
                                     "command_options": _LIST, "value_options": _LIST}),
    # programs that mount over a directory (rclone mount, sshfs): the mount point at `position` among operands
    # terminals' options after which the rest of the words is the command a new window runs
    "window_commands": Field(dict, values=_LIST),
    "mount_points": Field(dict, values={"position": Field(int), "subcommands": _LIST, "value_options": _LIST}),
    "output_operands": Field(dict, values={"position": Field(int, required=True), "when": _LIST,
                                           "value_options": _LIST}),
    # programs whose own command language runs a shell: an option's command starting with one of the
    # prefixes runs the rest (gdb -ex 'shell rm …', dc -e '!rm …')
    "shell_escapes": Field(dict, values={"options": _LIST, "prefixes": _LIST}),
    # tools that load code their configuration names (mypy plugins, mkdocs hooks, prettier plugins): the files
    # they read (`configs`, or the one an option names), the keys that name code, its language, npm name
    # prefixes (babel's `x` is babel-plugin-x), the subcommands that load it (none: every run), and the entry
    # point group of installed packages it loads (pytest11) unless `autoload_off` is set, and the options that
    # make it read no configuration (flake8 --isolated); `programs`: configuration files that are code, run
    # whole (the first name that matches: vitest.config.* before vite.config.*); `module_options` name the
    # subdirectories whose configuration is read too (mvn -pl core); `inline`: the keys hold shell text itself
    # (Nix's shellHook); `activate_dirs`: where named environments live, whose activate.d scripts run (conda);
    # `sections`: subcommands whose own [section] is read besides the top level (bunfig's [test] for bun test);
    # `program_options`/`program_env`: an executable file (or a directory of them) the tool runs (ansible -i DIR);
    # `plugin_manifest`: `TOOL plugin install DIR` runs the hooks and command DIR/manifest names (helm); `runner`:
    # the interpreter its program configurations are judged with (Rscript for .Rprofile); `programs_for`: the
    # program configurations only some subcommands run (mix format: .formatter.exs);
    # `command_patterns`: regexes finding the shell commands a configuration or program file holds (group `c`: a
    # string expression, group `a`: an argv of literals), inside `command_region` matches when given (rebar3's
    # hooks); `option_suffixes`: what an option's file name may leave off (pandoc -d pdf: pdf.yaml); `walk`: the
    # configs are found in every directory below (dune); `beside_arguments`: program configs beside the files handed
    # (nim's config.nims); `code_language`: the language a program config is read as when no runner is known (zig);
    # `shell_escape`: the flags that let the files handed run commands (pdflatex -shell-escape) and the patterns
    # finding them;
    # `flags`: the options without which the program configurations are not read (perl -d reads .perldb);
    # `program_keys`: the keys of a configuration program naming more files it loads (vitest's globalSetup);
    # `local_plugin`: the subcommands adding a plugin from a directory (`after`), read as an oclif package or a
    # Python package registering entry points in `groups`;
    # `install_options`: options installing an editor extension (a package file's code is judged);
    # `configs_up`: the configs are looked for up to the root, above the project too (MSBuild's Directory.Build.*);
    # `command_rewrites`: regex → replacement turning a build file's spelling of a command into shell (MSBuild's
    # $(HOME), &quot;);
    # `also_programs`: configuration programs the tool evaluates besides its own (vite loads postcss.config.*);
    # `dotfiles`: a dotfile manager, the configurations naming the home files it puts in place (or `mirror`: its
    # directory mirrors the home)
    "config_code": Field(dict, values={"configs": _LIST, "options": _LIST, "keys": _LIST, "language": Field(str),
                                        "prefixes": _LIST, "subcommands": _LIST, "entry_points": Field(str),
                                        "autoload_off": Field(str), "isolated": _LIST, "programs": _LIST,
                                        "module_options": _LIST, "inline": Field(bool),
                                        "activate_dirs": _LIST, "sections": _LIST, "program_options": _LIST,
                                        "program_env": _LIST, "plugin_manifest": Field(str), "runner": Field(str),
                                        "programs_for": Field(dict, values=_LIST),
                                        "program_file_options": _LIST, "program_file_env": _LIST,
                                        "command_keys": _LIST, "package_key": Field(str),
                                        "extension_options": _LIST,
                                        "command_patterns": _LIST, "command_region": Field(str),
                                        "option_suffixes": _LIST, "walk": Field(bool), "beside_arguments": Field(bool),
                                        "code_language": Field(str), "flags": _LIST, "program_keys": _LIST,
                                        "all_programs": Field(bool),
                                        "source_scripts": Field(dict, fields={"default": Field(str, required=True),
                                                                              "options": _LIST,
                                                                              "prefixes": _LIST}),
                                        "also_programs": _LIST, "configs_up": Field(bool), "install_options": _LIST,
                                        # source files whose embedded commands run at compile time (Crystal's
                                        # macros), and programs a command's own words call for (Julia's Pkg.build)
                                        "scan": Field(dict, fields={"dirs": _LIST, "suffixes": _LIST}),
                                        "programs_when": Field(dict, values=_LIST),
                                        # programs an option keeps the tool from loading (scons --no-site-dir)
                                        "skipped_by": Field(dict, values=_LIST),
                                        # the subcommands that read `configs` (cabal repl's .ghci), when others
                                        # run only `programs_for` (cabal build's Setup.hs)
                                        "configs_only_for": _LIST,
                                        # hooks run by subcommand, and the option skipping them (PDM)
                                        "hooks": Field(dict, values=_LIST),
                                        "hook_skip": Field(dict, values=str),
                                        "local_plugin": Field(dict, fields={"after": _LIST, "groups": _LIST,
                                                                            "manifest": Field(str, choices=("oclif", "python"))}),
                                        "command_rewrites": Field(dict, values=str),
                                        "shell_escape": Field(dict, fields={"flags": _LIST, "patterns": _LIST,
                                                                            "suffixes": _LIST}),
                                        "dotfiles": Field(dict, fields={"configs": _LIST, "subcommands": _LIST, "source_state": _LIST,
                                                                        "mirror": Field(bool)})}),
    # git remotes that are deployment hosts (by name or a part of their URL): a push there deploys
    "deploy_remotes": Field(list, items=str),
    # tools with a mode that does what a file utility does (`cmake -E rm -rf DIR`): TOOL -> {the mode's flag ->
    # {its subcommand -> the command it amounts to}}; judged as that command on the same arguments
    "command_modes": Field(dict, values=Field(dict, values=Field(dict, values=str))),
    # a tool guardtui does not know, asked to do one of these, does what every toolchain does (`gleam test`)
    "everyday_verbs": Field(list, items=str),
    # tools that send files or text elsewhere, by the subcommands that do it
    "senders": Field(dict, values=_LIST),
    # programs run against a shared environment ask (shell/shared_env.py): the runners of code whose effect
    # guardtui cannot read, the options that name one
    "shared_environments": Field(dict, fields={"runners": _LIST, "options": _LIST}),
    # programs tar -I may name that only compress
    "compressors": Field(list, items=str),
    # tools that run TOOL-SUB from PATH for a SUB of their own they do not have (git, kubectl plugins)
    "plugin_hosts": Field(list, items=str),
    # directories a tool empties or removes before its work: named by an option, a variable, or the last operand
    # after one of `positional_after` (sphinx-build -M clean SRC BUILD); judged by the guard's protection
    "cleared_dirs": Field(dict, values={"options": _LIST, "env": _LIST, "subcommands": _LIST,
                                        "positional_after": _LIST}),
    # archivers and copiers that delete the files they were handed once done (zip -m, 7z -sdel, zstd --rm):
    # options or short letters that ask for it (or subcommands that always do), the options that take a value,
    # and how many leading operands are not sources (the archive, a subcommand)
    "source_deleters": Field(dict, values={"options": _LIST, "letters": Field(str), "subcommands": _LIST,
                                           "value_options": _LIST, "skip": Field(int)}),
    # tools that let an editor (or a program in $EDITOR) rename and delete the files of a directory
    # (vidir, qmv): every operand, the working directory without one, may lose its files
    "editor_renamers": Field(list, items=str),
    # tools that exchange two files (exch A B, mv --exchange): both are written
    # ways into this machine handed to another host (shell/remote_access.py): sockets that act for the person
    # (regexes), ports whose publishing is a login (ssh), network relays, tunnels and firewalls
    "remote_access": Field(dict, fields={"sockets": _LIST, "login_ports": Field(list, items=int), "relays": _LIST,
                                         "clients": _LIST, "client_subcommands": _LIST, "tunnels": _LIST,
                                         "firewalls": _LIST}),
    "swappers": Field(list, items=str),
    # multi-call programs whose subcommand is another program (`clickhouse client` is clickhouse-client)
    "subcommand_programs": Field(dict, values=Field(dict, values=str)),
    # subcommands that make an unknown command act on something beyond the project (deploy, delete): inside a
    # project's script such a command asks, where another unknown command is the project's business
    "acting_verbs": Field(list, items=str),
    # one program name, two programs (goose: Block's agent, pressly/goose the migration tool): which one a command
    # line means is read from its arguments (shell/namesakes.py); each entry names the other program's signs
    "namesakes": Field(dict, values=Field(list, items={
        "program": Field(str, required=True), "words": _LIST, "options": _LIST, "env": _LIST,
        "not_first": _LIST})),
    # npm packages whose program has another name (cdk comes with aws-cdk): `npx cdk` in a project that
    # depends on aws-cdk runs the project's own
    "npm_programs": Field(dict, values=str),
    "in_place_editors": Field(dict, values={"flags": _LIST, "skip": Field(int), "value_options": _LIST,
                                            "file_options": _LIST, "subcommands": _LIST}),
    # docker compose / podman compose (shell/cmd_compose.py): the files it reads, the subcommands that start the
    # project's services, and the service settings that hand a container the host (a pattern on the value)
    "compose": Field(dict, fields={
        "files": _LIST, "overrides": _LIST, "starting": _LIST, "global_value_options": _LIST,
        "host_settings": Field(list, items={"key": Field(str, required=True),
                                            "pattern": Field(str, required=True, check=_regex_ok),
                                            "reason": Field(str, required=True)})}),
    # what each action of a lane file does (fastlane's Fastfile: shell/cmd_tasks.py): deny and ask name why; allow
    # lists routine ones; allow_when: an action that is routine only when its arguments match (match readonly: true)
    "lane_actions": Field(dict, values={"deny": Field(dict, values=str), "ask": Field(dict, values=str),
                                        "allow": _LIST, "allow_when": Field(dict, values=str)}),
    "shapes": Field(list, required=True, items=_SHAPE),
}


@dataclass(frozen=True)
class Shape:
    id: str
    commands: tuple[str, ...]
    args: tuple[str, ...]
    flags: tuple[str, ...]
    not_flags: tuple[str, ...]
    text: re.Pattern | None
    verdict: str | None
    blast_radius: BlastRadius
    category: str
    reason: str
    prints: bool = False
    remote: str | None = None
    wipes_configured_database: bool = False

    @property
    def generic(self) -> bool:
        return self.commands == ("*",)


@dataclass
class Taxonomy:
    critical_files: frozenset[str]
    critical_dirs: tuple[str, ...]  # every file in these is critical (/etc/sudoers.d/)
    core_system_dirs: frozenset[str]
    system_dirs: frozenset[str]
    temp_dirs: tuple[str, ...]
    disk_devices: tuple[str, ...]
    harmless_devices: tuple[str, ...]
    terminal_devices: tuple[str, ...]  # a terminal's input can be fed from its output (answerback, TIOCSTI)
    project_markers: tuple[str, ...]  # files that mark a project's root (globs)
    wrappers: dict[str, dict]
    shells: frozenset[str]
    shell_value_options: frozenset[str]
    interpreters: dict[str, dict]  # name -> spec (with "language")
    sql_clients: dict[str, dict]
    safe: frozenset[str]
    builtins: frozenset[str]
    env_generators: frozenset[str]
    terminal_input: dict[str, dict]  # programs that type into a terminal or window: their typing verbs
    verbs: dict[str, frozenset[str]]
    commands: dict[str, dict]  # name or alias -> spec (with "name")
    shapes: list[Shape]
    in_place_editors: dict[str, dict] = field(default_factory=dict)
    datastore_dirs: tuple[str, ...] = ()  # database servers' data directories (globs)
    whole_resources: frozenset[str] = frozenset()
    local_resource_tools: frozenset[str] = frozenset()
    dev_processes: dict = field(default_factory=dict)
    command_options: dict[str, list[str]] = field(default_factory=dict)
    command_option_variables: dict[str, list[str]] = field(default_factory=dict)
    output_options: dict[str, list[str]] = field(default_factory=dict)
    program_builders: frozenset[str] = frozenset()
    output_operands: dict[str, dict] = field(default_factory=dict)
    unpack_dirs: dict[str, dict] = field(default_factory=dict)
    sandboxes: dict[str, dict] = field(default_factory=dict)
    mount_points: dict[str, dict] = field(default_factory=dict)
    window_commands: dict[str, list[str]] = field(default_factory=dict)
    deploy_remotes: tuple[str, ...] = ()
    command_modes: dict[str, dict] = field(default_factory=dict)
    shell_escapes: dict[str, dict] = field(default_factory=dict)
    npm_programs: dict[str, str] = field(default_factory=dict)
    config_code: dict[str, dict] = field(default_factory=dict)
    everyday_verbs: frozenset[str] = frozenset()
    senders: dict[str, list[str]] = field(default_factory=dict)
    shared_environments: dict[str, frozenset[str]] = field(default_factory=dict)
    compressors: frozenset[str] = frozenset()
    plugin_hosts: frozenset[str] = frozenset()
    typing_code: tuple[re.Pattern, ...] = ()
    web_terminal_clients: dict = field(default_factory=dict)
    cleared_dirs: dict[str, dict] = field(default_factory=dict)
    source_deleters: dict[str, dict] = field(default_factory=dict)
    editor_renamers: frozenset[str] = frozenset()
    swappers: frozenset[str] = frozenset()
    remote_access: dict = field(default_factory=dict)
    subcommand_programs: dict[str, dict[str, str]] = field(default_factory=dict)
    namesakes: dict[str, list[dict]] = field(default_factory=dict)
    acting_verbs: frozenset[str] = frozenset()
    compose: dict = field(default_factory=dict)
    lane_actions: dict = field(default_factory=dict)
    shapes_by_command: dict[str, list[Shape]] = field(default_factory=dict)
    glob_shapes: list[Shape] = field(default_factory=list)  # command patterns with * (mkfs.*)
    generic_shapes: list[Shape] = field(default_factory=list)  # command "*"
    _shapes_cache: dict[str, list[Shape]] = field(default_factory=dict, repr=False)

    def shapes_for(self, name: str) -> list[Shape]:
        cached = self._shapes_cache.get(name)
        if cached is None:
            cached = self._shapes_cache[name] = self._find_shapes(name)
        return cached

    def _find_shapes(self, name: str) -> list[Shape]:
        own = self.shapes_by_command.get(name, [])
        canonical = self.commands.get(name, {}).get("name")
        if canonical and canonical != name:
            own = own + self.shapes_by_command.get(canonical, [])
        globbed = [s for s in self.glob_shapes if any(fnmatch.fnmatchcase(name, c) for c in s.commands)]
        if not globbed:
            return own
        order = {id(s): i for i, s in enumerate(self.shapes)}
        return sorted(own + globbed, key=lambda s: order[id(s)])  # file order: first match wins

    def installs_in(self, language: str) -> list[re.Pattern]:
        """The calls that install packages in code of `language` (every interpreter of it)."""
        found = self._installs.get(language)
        if found is None:
            found = self._installs[language] = [re.compile(p) for spec in self.interpreters.values()
                                                if spec["language"] == language for p in spec.get("installs", ())]
        return found

    @cached_property
    def _installs(self) -> dict[str, list[re.Pattern]]:
        return {}

    def interpreter(self, name: str) -> dict | None:
        spec = self.interpreters.get(name)
        if spec is None:
            for pattern, candidate in self._interpreter_globs:
                if fnmatch.fnmatchcase(name, pattern):
                    return candidate
        return spec

    @cached_property
    def _interpreter_globs(self) -> list[tuple[str, dict]]:
        return [(n, s) for n, s in self.interpreters.items() if any(c in n for c in "*?[")]


def parse_taxonomy(text: str, file: str = "taxonomy.yaml") -> Taxonomy:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    data = doc.data
    paths = data["paths"]
    interpreters: dict[str, dict] = {}
    for key, spec in data["interpreters"].items():
        for name in spec["names"]:
            interpreters[name] = {**spec, "family": key}
    commands: dict[str, dict] = {}
    for name, spec in data["commands"].items():
        entry = {**spec, "name": name}
        commands[name] = entry
        for alias in spec.get("aliases", []):
            commands[alias] = entry
    shapes: list[Shape] = []
    for i, raw in enumerate(data["shapes"]):
        shapes.append(Shape(
            id=raw["id"], commands=tuple(raw["command"]), args=tuple(raw.get("args") or ()),
            flags=tuple(raw.get("flags") or ()), not_flags=tuple(raw.get("not_flags") or ()),
            text=re.compile(raw["text"]) if raw.get("text") else None, verdict=raw.get("verdict"),
            blast_radius=BlastRadius(raw["blast_radius"]), category=raw["category"], reason=raw["reason"],
            prints=raw.get("prints", False), remote=raw.get("remote"),
            wipes_configured_database=raw.get("wipes_configured_database", False)))
        if raw.get("verdict") == "allow" and raw["blast_radius"] == "critical":
            raise doc.error(("shapes", i, "verdict"), "an allow shape cannot have blast_radius critical")
    ids = [s.id for s in shapes]
    duplicates = {x for x in ids if ids.count(x) > 1}
    if duplicates:
        raise DataError(file, None, "shapes", f"duplicate shape ids: {', '.join(sorted(duplicates))}")
    tax = Taxonomy(
        critical_files=frozenset(p for p in paths["critical_files"] if not p.endswith("/")),
        critical_dirs=tuple(p for p in paths["critical_files"] if p.endswith("/")), core_system_dirs=frozenset(paths["core_system_dirs"]),
        system_dirs=frozenset(paths["system_dirs"]), temp_dirs=tuple(paths["temp_dirs"]),
        disk_devices=tuple(paths["disk_devices"]), harmless_devices=tuple(paths["harmless_devices"]),
        terminal_devices=tuple(paths["terminal_devices"]), terminal_input=data["terminal_input"],
        project_markers=tuple(paths["project_markers"]), datastore_dirs=tuple(paths.get("datastore_dirs") or ()),
        wrappers=data["wrappers"], shells=frozenset(data["shells"]),
        shell_value_options=frozenset(data["shell_value_options"]), interpreters=interpreters,
        sql_clients=data["sql_clients"], safe=frozenset(data["safe"]), builtins=frozenset(data["builtins"]),
        env_generators=frozenset(data["env_generators"]),
        verbs={k: frozenset(str_or_list(v)) for k, v in data["verbs"].items()}, commands=commands, shapes=shapes,
        in_place_editors=data.get("in_place_editors") or {},
        whole_resources=frozenset(data.get("whole_resources") or ()),
        local_resource_tools=frozenset(data.get("local_resource_tools") or ()),
        dev_processes=dict(data.get("dev_processes") or {}),
        command_options={k: str_or_list(v) for k, v in (data.get("command_options") or {}).items()},
        command_option_variables={k: str_or_list(v) for k, v in (data.get("command_option_variables") or {}).items()},
        output_options={k: str_or_list(v) for k, v in (data.get("output_options") or {}).items()},
        program_builders=frozenset(data.get("program_builders") or ()),
        output_operands=dict(data.get("output_operands") or {}),
        unpack_dirs=dict(data.get("unpack_dirs") or {}),
        sandboxes=dict(data.get("sandboxes") or {}),
        mount_points=dict(data.get("mount_points") or {}),
        window_commands={k: str_or_list(v) for k, v in (data.get("window_commands") or {}).items()},
        deploy_remotes=tuple(data.get("deploy_remotes") or ()),
        command_modes=dict(data.get("command_modes") or {}),
        shell_escapes=dict(data.get("shell_escapes") or {}),
        npm_programs=dict(data.get("npm_programs") or {}),
        config_code=dict(data.get("config_code") or {}),
        everyday_verbs=frozenset(data.get("everyday_verbs") or ()),
        senders={k: str_or_list(v) for k, v in (data.get("senders") or {}).items()},
        shared_environments={k: frozenset(v) for k, v in (data.get("shared_environments") or {}).items()},
        compressors=frozenset(data.get("compressors") or ()),
        plugin_hosts=frozenset(data.get("plugin_hosts") or ()),
        cleared_dirs=dict(data.get("cleared_dirs") or {}),
        typing_code=tuple(re.compile(p) for p in data.get("typing_code") or ()),
        web_terminal_clients=dict(data.get("web_terminal_clients") or {}),
        source_deleters=dict(data.get("source_deleters") or {}),
        editor_renamers=frozenset(data.get("editor_renamers") or ()),
        swappers=frozenset(data.get("swappers") or ()),
        remote_access=dict(data.get("remote_access") or {}),
        subcommand_programs=dict(data.get("subcommand_programs") or {}),
        namesakes=dict(data.get("namesakes") or {}), acting_verbs=frozenset(data.get("acting_verbs") or ()),
        compose=dict(data.get("compose") or {}),
        lane_actions=dict(data.get("lane_actions") or {}))
    for shape in shapes:
        if shape.generic:
            tax.generic_shapes.append(shape)
            continue
        for name in shape.commands:
            if any(c in name for c in "*?["):
                if shape not in tax.glob_shapes:
                    tax.glob_shapes.append(shape)
            else:
                tax.shapes_by_command.setdefault(name, []).append(shape)
    return tax


@lru_cache(maxsize=1)
def default_taxonomy() -> Taxonomy:
    text = resources.files("guardtui.core.shell").joinpath("taxonomy.yaml").read_text(encoding="utf-8")
    return parse_taxonomy(text, "guardtui/core/shell/taxonomy.yaml")


# -- matching -------------------------------------------------------------------------
def split_args(args: list[str], value_options: frozenset[str] | set[str]) -> tuple[list[str], list[str]]:
    """(positionals, options) of a command's arguments; values of value options are skipped."""
    positionals: list[str] = []
    options: list[str] = []
    i = 0
    ended = False
    while i < len(args):
        arg = args[i]
        if ended or not arg.startswith("-") or arg == "-":
            positionals.append(arg)
        elif arg == "--":
            ended = True
        else:
            options.append(arg)
            if "=" not in arg and arg in value_options and i + 1 < len(args) and not args[i + 1].startswith("-"):
                i += 1  # a dashed word after it is the next option, not its value (docker system prune -f --volumes)
        i += 1
    return positionals, options


def has_flag(options: list[str], spec: str) -> bool:
    """spec: "a|b|c"; -x also matches inside a short cluster (-xvf); --long also matches --long=v."""
    for alt in spec.split("|"):
        if alt == "*":
            if options:
                return True
            continue
        for opt in options:
            if opt == alt or (alt.startswith("--") and opt.startswith(alt + "=")):
                return True
            if any(c in alt for c in "*?[") and fnmatch.fnmatchcase(opt, alt):
                return True
            if (len(alt) == 2 and alt[0] == "-" and alt[1] != "-" and opt.startswith("-")
                    and not opt.startswith("--") and alt[1] in opt[1:] and opt[1:].isalpha()):
                return True
    return False


def _arg_matches(word: str, spec: str) -> bool:
    return any(alt == "*" or word == alt or (any(c in alt for c in "*?[") and fnmatch.fnmatchcase(word, alt))
               for alt in spec.split("|"))


@dataclass(frozen=True)
class ShapeMatch:
    shape: Shape
    positionals: tuple[str, ...]

    def reason(self, name: str, options: list[str] | None = None) -> str:
        fmt = {"cmd": name, "flags": " ".join(options or [])}
        for i in range(4):
            fmt[f"arg{i}"] = self.positionals[i] if i < len(self.positionals) else ""
        try:
            return self.shape.reason.format(**fmt)
        except (KeyError, IndexError):  # pragma: no cover - schema keeps reasons to these fields
            return self.shape.reason


def match_shape(shape: Shape, name: str, args: list[str], value_options: frozenset[str]) -> ShapeMatch | None:
    positionals, options = split_args(args, value_options)
    if shape.args:
        if len(positionals) < len([a for a in shape.args if "" not in a.split("|")]):
            return None
        for i, spec in enumerate(shape.args):
            if i >= len(positionals):
                if "" in spec.split("|"):
                    continue
                return None
            if not _arg_matches(positionals[i], spec):
                return None
    if any(not has_flag(options, spec) for spec in shape.flags):
        return None
    if any(has_flag(options, spec) for spec in shape.not_flags):
        return None
    if shape.text is not None and not shape.text.search(" ".join([name] + _directories_masked(args))):
        return None
    return ShapeMatch(shape, tuple(positionals))


# options whose value is only the directory a tool works in (`make -C deploy lint`): a text-matched shape judges
# what is asked (the targets, the flags), never the name of the directory it is asked in
_DIRECTORY_OPTIONS = frozenset({"-C", "--directory", "--dir", "--cwd", "-chdir", "--chdir", "--working-directory",
                                "--prefix", "--project-dir", "--cd"})


def _directories_masked(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(args):
        option, eq, _ = arg.partition("=")
        if i and args[i - 1] in _DIRECTORY_OPTIONS:
            out.append("DIR")
        elif eq and option in _DIRECTORY_OPTIONS:
            out.append(option + "=DIR")
        else:
            out.append(arg)
    return out


def _word_class(word: str, own: dict, tax: Taxonomy) -> str | None:
    lowered = word.lower()
    for cls in ("delete", "change", "read"):
        if lowered in own.get(cls, ()):
            return cls
    bare = lowered.lstrip("-")
    tokens = re.split(r"[-_.:]", bare)
    for cls in ("delete", "change", "read"):
        if bare in tax.verbs[cls] or tokens[0] in tax.verbs[cls] or (":" in bare and tokens[-1] in tax.verbs[cls]):
            return cls
    return None


def _command_path(args: list[str], value_options: frozenset[str]) -> list[str]:
    """The leading positionals (after any global options), up to the first option that follows them."""
    path: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and arg != "-":
            if path:
                break
            if "=" not in arg and arg in value_options and i + 1 < len(args):
                i += 1
        else:
            path.append(arg)
        i += 1
    return path


def verb_word_class(word: str, tax: Taxonomy) -> str | None:
    """The class of one word by the shared verb lists alone (no CLI's own verbs)."""
    return _word_class(word, {}, tax)


def verb_class(name: str, args: list[str], tax: Taxonomy) -> tuple[str, str] | None:
    """For CLIs listed under `commands`: (class, verb) from the first word that is a known verb."""
    spec = tax.commands.get(name)
    if spec is None:
        return None
    own = spec.get("verbs") or {}
    value_options = frozenset(spec.get("value_options") or ())
    positionals, options = split_args(args, value_options)
    candidates = positionals[:4]
    if spec.get("verb_position") == "last":
        # the command path ends at the first option after it: `aws ecs describe-services --services
        # delete` names a service "delete", it does not delete anything
        candidates = _command_path(args, value_options)[:5]
    if spec.get("flag_verbs"):
        candidates = options + candidates
    found: list[tuple[str, str]] = []
    for word in candidates:
        cls = _word_class(word, own, tax)
        if cls is None and spec.get("verb_suffix") and "-" in word:
            cls = _word_class(word.rsplit("-", 1)[1], own, tax)
        if cls is not None:
            found.append((cls, word))
    if found:
        if spec.get("verb_position") == "last":
            # `gcloud run services describe`: the verb comes after the nouns, and the names after the
            # verb may look like verbs too (`instances delete test`), so the most severe one decides
            rank = {"delete": 0, "change": 1, "read": 2}
            return min(found, key=lambda f: rank[f[0]])
        return found[0]
    default = spec.get("default")
    if default:
        return default, positionals[0] if positionals else name
    return None
