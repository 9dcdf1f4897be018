"""Judge a shell command: every simple command bash would run, the worst one decides.

    analyze_command("cd .. && rm -rf project", cwd="/home/u/project") -> ShellAnalysis

The walker (parse.py) yields simple commands with their context; here each one is
resolved (wrappers such as sudo, env, timeout stripped; `/bin/rm` is rm) and judged by its
analyzer in code (files, git, runners, interpreters, network, SQL) or by the taxonomy
(taxonomy.yaml). Nested scripts (`bash -c`, `eval`, `ssh host …`, xargs and find children,
heredocs fed to a shell) are analyzed recursively in the same way.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from typing import Callable

from ..model import BlastRadius, Verdict
from . import cmd_code, cmd_exec, cmd_fs, cmd_git, cmd_net
from .findings import FileEffect, Finding, ShellAnalysis, allow, ask, by_radius, deny, unknown, worst
from .parse import MAX_DEPTH, SimpleCommand, parse_script, static_print
from .paths import PathKind, classify, delete_finding, write_finding
from .taxonomy import Taxonomy, default_taxonomy, match_shape, split_args, verb_class
from .words import DYN, Scope, Word

RUNNERS = frozenset({"make", "gmake", "just", "task", "mage", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "rake",
                     "invoke", "nox", "tox", "gradle", "gradlew", "mvn", "mvnw", "ant", "sbt", "mix", "lein",
                     "dotnet", "bazel", "bazelisk", "earthly", "dagger", "nx", "turbo", "lerna", "poe", "fab",
                     "cap", "kamal", "skaffold", "tilt", "devspace", "okteto", "ansible-playbook", "docker",
                     "doppler", "op", "uv", "poetry", "pdm", "hatch", "composer", "bundle", "php", "artisan"})
_DESCRIBE_FLAGS = ("--help", "--version")
_FETCHERS = frozenset({"curl", "wget", "fetch", "http", "https", "xh", "aria2c"})
_ENV_DANGER = {"LD_PRELOAD": "preloads a library into every program",
               "LD_LIBRARY_PATH": "changes which libraries programs load",
               "DYLD_INSERT_LIBRARIES": "injects a library into every program",
               "PATH": "changes which programs command names run",
               "PROMPT_COMMAND": "runs a command before every prompt",
               "BASH_ENV": "runs a file at the start of every script",
               "ENV": "runs a file at the start of every shell",
               "IFS": "changes how the shell splits words",
               "GIT_SSH_COMMAND": "runs a program for every git network call",
               "GIT_EXTERNAL_DIFF": "runs a program for every git diff",
               "PAGER": "runs a program to show output", "GIT_PAGER": "runs a program to show git output",
               "EDITOR": "runs a program to edit", "VISUAL": "runs a program to edit",
               "HISTFILE": "changes where (or whether) history is kept",
               "NODE_OPTIONS": "changes how every node program starts",
               "PYTHONSTARTUP": "runs a file when python starts", "PERL5OPT": "changes how perl starts"}


@dataclass
class Invocation:
    """A resolved command: the name bash runs and its arguments, wrappers stripped."""

    name: str
    words: list[Word]
    cmd: SimpleCommand
    scope: Scope
    privileged: bool = False
    written_name: str = ""  # as written (/usr/bin/git, ./deploy.sh)

    @property
    def args(self) -> list[str]:
        return [w.value for w in self.words]

    @property
    def text(self) -> str:
        return " ".join([self.name] + [w.display() for w in self.words])


class Analyzer:
    """Judges shell commands.

    command_exists tells whether a bare command name would be found on PATH; when given,
    a name that is not installed is harmless (bash only prints "command not found").
    """

    def __init__(self, taxonomy: Taxonomy | None = None, command_exists: Callable[[str], bool] | None = None):
        self.tax = taxonomy or default_taxonomy()
        self.command_exists = command_exists

    # -- entry points ----------------------------------------------------------------
    def analyze(self, command: str, cwd: str | None, home: str) -> ShellAnalysis:
        result = ShellAnalysis(command)
        run = _Run(self, result)
        cwd = posixpath.normpath(cwd) if cwd else None
        run.script(command, Scope(cwd, home), via="", depth=0)
        if not result.findings:
            result.findings.append(allow("nothing to run", "read-only", rule="shell.empty"))
        return result


class _Run:
    """One analysis: collects findings and file effects while walking nested scripts."""

    def __init__(self, analyzer: Analyzer, result: ShellAnalysis):
        self.analyzer = analyzer
        self.tax = analyzer.tax
        self.result = result
        self.downloaded: set[str] = set()  # files written by curl/wget earlier in the command

    # -- scripts ---------------------------------------------------------------------
    def script(self, text: str, scope: Scope, via: str, depth: int, span: tuple[int, int] | None = None) -> None:
        if depth > MAX_DEPTH:
            self.add(ask("the command nests scripts too deeply to follow", "dynamic-exec", BlastRadius.HIGH,
                         "shell.depth"), text, via, span)
            return
        if DYN in text:
            self.add(ask("part of a script is only known at run time", "dynamic-exec", BlastRadius.HIGH,
                         "shell.dynamic-script"), text.replace(DYN, "…"), via, span)
            text = text.replace(DYN, " ")
        parsed = parse_script(text, scope, via=via, depth=depth, base=span[0] if span and not via else 0)
        for error in parsed.errors:
            self.result.parse_errors.append(error)
            self.add(ask(f"{error}, so it cannot be judged safely", "parse-error", BlastRadius.UNKNOWN,
                         "shell.parse"), text, via, span)
        if parsed.fork_bomb:
            self.add(deny("a function that spawns itself endlessly (fork bomb) exhausts the machine", "fork-bomb",
                          "shell.fork-bomb"), parsed.fork_bomb, via, span)
        for cmd in parsed.commands:
            cmd_span = cmd.span if not via and span is None else span
            before = len(self.result.findings)
            self.judge(cmd, depth)
            for i in range(before, len(self.result.findings)):
                self.result.findings[i] = self.result.findings[i].located(cmd.text, cmd.via, cmd_span)

    def nested(self, text: str, inv: Invocation, label: str, scope: Scope | None = None) -> None:
        """Analyze a script that `inv` runs (bash -c, eval, ssh …)."""
        via = f"{inv.cmd.via} › {label}" if inv.cmd.via else label
        self.script(text, scope or inv.scope.copy(), via, inv.cmd.depth + 1 + _depth_of(inv.cmd.via))

    def add(self, finding: Finding, segment: str = "", via: str = "", span=None) -> None:
        if segment:
            finding = finding.located(segment, via, span)
        self.result.findings.append(finding)

    def effect(self, path: str | None, raw: str, kind: str, cmd: SimpleCommand, remote: bool = False) -> None:
        self.result.effects.append(FileEffect(path, raw, kind, cmd.text, remote))

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
        inv = self.unwrap(cmd)
        if inv is None:
            return
        if inv.name in _FETCHERS:
            for r in cmd.redirects:
                if r.writes and r.target is not None:
                    info = classify(r.target, cmd.scope, self.tax)
                    if info.path:
                        self.downloaded.add(info.path)
        findings = self.judge_invocation(inv)
        if inv.privileged:
            findings.append(ask(f"runs {inv.name} as another user (root)", "privilege", BlastRadius.HIGH,
                                "shell.privilege"))
        for f in findings:
            self.add(f)

    def redirects(self, cmd: SimpleCommand) -> None:
        for r in cmd.redirects:
            if not r.writes or r.target is None:
                continue
            info = classify(r.target, cmd.scope, self.tax)
            if info.kind is PathKind.HARMLESS_DEVICE:
                continue
            self.effect(info.path, r.target.display(), "write", cmd, info.remote)
            finding = write_finding(info, f"redirect {r.op}")
            if finding is not None:
                self.add(replace(finding, rule="shell.redirect"))

    def environment(self, name: str, value: Word, cmd: SimpleCommand, prefix: bool) -> None:
        if name in _ENV_DANGER:
            if name == "PATH" and value.static and not prefix:
                parts = value.value.split(":")
                if all(p.startswith("/") and not p.startswith(("/tmp", "/var/tmp", "/dev/shm")) for p in parts) and \
                        not any(p.startswith((".", "/tmp")) for p in parts):
                    pass
            self.add(ask(f"setting {name} {_ENV_DANGER[name]}", "shell-state",
                         BlastRadius.MEDIUM if name.startswith(("LD_", "DYLD")) else BlastRadius.LOW,
                         "shell.environment"))

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
            if head.dynamic:
                return Invocation(head.value, words[1:], cmd, scope, privileged, head.display())
            name = head.value
            base = posixpath.basename(name) if "/" in name else name
            two = f"{base} {words[1].value}" if len(words) > 1 else ""
            spec_name = two if two in self.tax.wrappers else base if base in self.tax.wrappers else None
            if spec_name is None or (base == "exec" and len(words) == 1):
                written = name
                resolved = base if ("/" in name and not name.startswith((".", "~")) and _known_name(base, self.tax)) \
                    else name
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
        value_opts = set(spec.get("value_options", ()))
        describe = set(spec.get("describe", ()))
        chdir = set(spec.get("chdir", ()))
        split_opts = set(spec.get("split", ()))
        command_opts = set(spec.get("command_option", ()))
        login = set(spec.get("shell_login", ()))
        no_shell = set(spec.get("no_shell", ()))
        privileged = bool(spec.get("privilege"))
        i = 0
        saw_login = False
        shell_string: str | None = None
        exec_mode = False
        while i < len(rest):
            word = rest[i]
            arg = word.value
            if arg == "--":
                i += 1
                break
            if not arg.startswith("-") or arg == "-" and name != "su":
                break
            if arg == "-" and name == "su":
                saw_login = True
                i += 1
                continue
            option, eq, attached = arg.partition("=")
            if not arg.startswith("--") and len(arg) > 2:
                # short cluster: -uroot, -C/tmp, -xc, -pvV
                letters = arg[1:]
                handled = False
                for j, letter in enumerate(letters):
                    flag = "-" + letter
                    if flag in describe:
                        self.add(allow(f"{name} {arg} only describes, nothing runs", "read-only", rule="shell.describe"))
                        return None
                    if flag in login:
                        saw_login = True
                    if flag in no_shell:
                        exec_mode = True
                    if flag in value_opts or flag in command_opts:
                        value = letters[j + 1:]
                        if not value and i + 1 < len(rest):
                            i += 1
                            value = rest[i].value
                        if flag in chdir:
                            scope = _chdir(scope, value)
                        if flag in command_opts:
                            shell_string = value
                        if flag in split_opts:
                            return self._split_string(value, rest[i + 1:], cmd, scope, privileged)
                        handled = True
                        break
                if not handled and letters and not all(("-" + c) in spec.get("flags", ()) or True for c in letters):
                    pass
                i += 1
                continue
            if option in describe:
                self.add(allow(f"{name} {option} only describes, nothing runs", "read-only", rule="shell.describe"))
                return None
            if option in login:
                saw_login = True
            if option in no_shell:
                exec_mode = True
            if option in value_opts or option in command_opts:
                value = attached if eq else (rest[i + 1].value if i + 1 < len(rest) else "")
                if not eq:
                    i += 1
                if option in chdir:
                    scope = _chdir(scope, value)
                if option in command_opts:
                    shell_string = value
                if option in split_opts:
                    return self._split_string(value, rest[i + 1:], cmd, scope, privileged)
            i += 1
        remaining = rest[i:]
        if spec.get("assignments"):
            while remaining and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", remaining[0].value, re.S):
                var, _, value = remaining[0].value.partition("=")
                self.environment(var, Word(value, remaining[0].raw), cmd, prefix=True)
                remaining = remaining[1:]
        if spec.get("user_positional") and remaining and not remaining[0].value.startswith("-"):
            remaining = remaining[1:]  # su USER
            while remaining and remaining[0].value.startswith("-"):
                opt = remaining[0].value
                if opt in command_opts and len(remaining) > 1:
                    shell_string = remaining[1].value
                    remaining = remaining[2:]
                    continue
                if opt in login:
                    saw_login = True
                remaining = remaining[1:]
        skip = int(spec.get("positionals", 0))
        remaining = remaining[skip:]
        if shell_string is not None:
            inv = Invocation(name, rest, cmd, scope, privileged)
            self.nested(shell_string, inv, f"{name} -c", scope.copy())
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

    def _split_string(self, value: str, rest: list[Word], cmd: SimpleCommand, scope: Scope, privileged: bool):
        words = [Word.literal(part) for part in value.split()] + rest
        return words, scope, privileged

    # -- judging ---------------------------------------------------------------------
    def judge_invocation(self, inv: Invocation) -> list[Finding]:
        name = inv.name
        if DYN in name:
            return self.dynamic_name(inv)
        if name in (".", "source") or name in self.tax.shells or name == "eval" or name in cmd_exec.RUNNER_NAMES:
            return cmd_exec.judge(self, inv)
        if any(a in _DESCRIBE_FLAGS for a in _options_before_end(inv.args)) and name not in ("find", "git"):
            return [allow(f"{name} --help only prints help", "read-only", rule="shell.describe")]
        handler = _HANDLERS.get(name)
        if handler is None and self.tax.interpreter(name) is not None:
            handler = cmd_code.judge
        if handler is None and name in self.tax.sql_clients:
            handler = cmd_code.judge_sql
        findings: list[Finding] = []
        if handler is not None:
            findings = handler(self, inv)
        if not findings:
            findings = self.taxonomy(inv)
        if name in RUNNERS or any(f.rule in ("shell.unknown", "shell.script", "shell.not-installed") for f in findings):
            findings.extend(self.generic(inv))
        return findings

    def taxonomy(self, inv: Invocation) -> list[Finding]:
        name, args = inv.name, inv.args
        spec = self.tax.commands.get(name)
        value_options = frozenset(spec.get("value_options", ())) if spec else frozenset()
        canonical = spec["name"] if spec else name
        if spec and any(_has_option(args, flag) for flag in spec.get("dry_run", ())):
            return [allow(f"{name} dry run only reports what it would do", spec["category"], rule="taxonomy.dry-run")]
        matches = [m for s in self.tax.shapes_for(name)
                   if (m := match_shape(s, canonical, args, value_options)) is not None]
        if matches:
            best = max(matches, key=lambda m: (m.shape.verdict != "allow", m.shape.blast_radius.severity))
            _, options = split_args(args, value_options)
            reason = best.reason(name, options)
            if best.shape.verdict == "allow":
                return [allow(reason, best.shape.category, rule=f"taxonomy:{best.shape.id}")]
            return [by_radius(best.shape.blast_radius, reason, best.shape.category, f"taxonomy:{best.shape.id}")]
        verb = verb_class(canonical, args, self.tax)
        if verb is not None:
            cls, word = verb
            category = spec["category"]
            if cls == "read":
                return [allow(f"{name} {word} only reads", category, rule="taxonomy.verb")]
            if cls == "delete":
                return [ask(f"{name} {word} deletes or stops something", category, BlastRadius.HIGH, "taxonomy.verb")]
            return [ask(f"{name} {word} changes something", category, BlastRadius.MEDIUM, "taxonomy.verb")]
        if spec is not None:
            return [unknown(f"{name} {' '.join(args[:2])} is not a subcommand guardtui knows".replace("  ", " "),
                            spec["category"], rule="shell.unknown")]
        if name in self.tax.safe or inv.written_name in self.tax.safe:
            return [allow(f"{name} is a known read-only or routine command", _safe_category(name),
                          rule="taxonomy.safe")]
        if name in inv.cmd.scope.functions:
            return [allow(f"{name} runs the function defined in this command (judged above)", "read-only",
                          rule="shell.function")]
        if "/" in inv.written_name:
            return [self.script_run(inv)]
        exists = self.analyzer.command_exists
        if exists is not None and not inv.scope.remote and name not in self.tax.builtins and not exists(name):
            return [allow(f"{name} is not installed here, so bash would only print 'command not found'",
                          "read-only", rule="shell.not-installed")]
        return [unknown(f"{name} is not a command guardtui knows", rule="shell.unknown")]

    def script_run(self, inv: Invocation) -> Finding:
        info = classify(Word.literal(inv.written_name), inv.scope, self.tax)
        if info.path and info.path in self.downloaded:
            return ask(f"runs {inv.written_name}, which this command just downloaded", "remote-exec",
                       BlastRadius.HIGH, "shell.downloaded-script")
        return allow(f"runs the local script {inv.written_name}", "build-test", rule="shell.script")

    def generic(self, inv: Invocation) -> list[Finding]:
        text_name = posixpath.basename(inv.written_name or inv.name)
        out = []
        for shape in self.tax.generic_shapes:
            m = match_shape(shape, text_name, inv.args, frozenset())
            if m is not None:
                out.append(by_radius(shape.blast_radius, m.reason(text_name), shape.category, f"taxonomy:{shape.id}"))
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
            self.effect(info.path, word.display(), "delete", inv.cmd, info.remote)
        return delete_finding(info, recursive, what)

    def write(self, word: Word, inv: Invocation, what: str) -> Finding | None:
        info = self.path(word, inv)
        if info.kind is PathKind.HARMLESS_DEVICE:
            return None
        self.effect(info.path, word.display(), "write", inv.cmd, info.remote)
        return write_finding(info, what)

    def stdin_source(self, cmd: SimpleCommand) -> tuple[str, str | None]:
        """Where a command's stdin comes from: ("text", t) | ("network", None) | ("file"|"unknown"|"none", None)."""
        body = cmd.stdin_body
        if body is not None:
            return ("text", body) if DYN not in body else ("unknown", None)
        if cmd.stdin_redirected:
            return "file", None
        producer = cmd.stdin_from
        if producer is None:
            return ("unknown", None) if cmd.piped else ("none", None)
        return self.output_of(producer)

    def output_of(self, cmd: SimpleCommand) -> tuple[str, str | None]:
        words = list(cmd.argv)
        while words and posixpath.basename(words[0].value) in ("sudo", "env", "command", "nohup", "stdbuf", "time"):
            words = words[1:]
            while words and words[0].value.startswith("-"):
                words = words[1:]
        if not words or any(w.dynamic for w in words[:1]):
            return "unknown", None
        name = posixpath.basename(words[0].value)
        if name in ("echo", "printf"):
            if any(w.dynamic for w in words):
                return "unknown", None
            text = static_print(words, cmd.scope)
            return ("text", text + "\n") if text is not None else ("unknown", None)
        if name == "cat" and len(words) == 1:
            return self.stdin_source(cmd)
        if name in ("curl", "wget", "fetch", "http", "https", "xh", "aria2c", "nc", "ncat", "socat", "lynx", "links",
                    "w3m"):
            return "network", None
        if name in ("base64", "base32") and any(w.value in ("-d", "--decode", "-D") for w in words[1:]):
            kind, text = self.stdin_source(cmd)
            if kind == "text" and text is not None:
                import base64
                try:
                    return "text", base64.b64decode(text.strip() + "===", validate=False).decode("utf-8", "replace")
                except (ValueError, UnicodeDecodeError):
                    return "unknown", None
            return kind, None
        if name in ("cat", "head", "tail", "tee", "sort", "tr", "sed", "awk", "grep", "cut", "xxd", "rev", "gunzip",
                    "zcat", "gzip", "openssl", "jq"):
            kind, _ = self.stdin_source(cmd)
            if kind == "network":
                return "network", None
        return "unknown", None


def _depth_of(via: str) -> int:
    return via.count("›")


def _chdir(scope: Scope, target: str) -> Scope:
    new = scope.copy()
    if DYN in target or not target:
        new.cwd = None
    else:
        new.cwd = posixpath.normpath(posixpath.join(scope.cwd or "/", target)) if (scope.cwd or target.startswith("/")) else None
    return new


def _known_name(base: str, tax: Taxonomy) -> bool:
    return True


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


_HANDLERS = {
    **{n: cmd_fs.rm for n in ("rm", "srm")},
    "unlink": cmd_fs.unlink, "rmdir": cmd_fs.rmdir, "shred": cmd_fs.shred,
    "mv": cmd_fs.mv, "cp": cmd_fs.cp, "install": cmd_fs.cp, "ln": cmd_fs.ln, "rsync": cmd_fs.rsync,
    **{n: cmd_fs.write_operands for n in ("touch", "mkdir", "tee", "truncate", "sponge")},
    **{n: cmd_fs.chmod for n in ("chmod", "chown", "chgrp")},
    "dd": cmd_fs.dd, "find": cmd_fs.find, "sed": cmd_fs.sed, "gsed": cmd_fs.sed,
    **{n: cmd_fs.awk for n in ("awk", "gawk", "mawk", "nawk")},
    "tar": cmd_fs.tar, "gtar": cmd_fs.tar, "bsdtar": cmd_fs.tar, "unzip": cmd_fs.unzip,
    "git": cmd_git.git,
    **{n: cmd_net.curl for n in ("curl", "wget", "http", "https", "xh")},
    **{n: cmd_net.dns for n in ("dig", "nslookup", "host", "ping", "ping6", "traceroute", "whois")},
    **{n: cmd_exec.declaration for n in ("export", "declare", "typeset", "local", "readonly")},
    "rg": cmd_fs.ripgrep,
    **{n: cmd_fs.read_secret for n in ("cat", "less", "more", "head", "tail", "base64", "xxd", "strings", "bat")},
}
