"""Signals to guardtui's own processes: kill, pkill, killall and fuser -k aimed at the console, the
broker or the command hook. Stopped (or frozen with SIGSTOP), the console leaves the agents' calls
with no one to answer them, and a killed hook lets Claude Code go on as if there were none: the
person stops the guard themselves. The processes are data (core/data/protect.yaml `processes`):
their names, the command lines they run with, the broker's port.

What each command aims at:
    pkill/pgrep PATTERN (-f: the command line, -x: exactly), killall NAME (-r: a regex)
    kill PID…      a pid read now from /proc (Linux), or pids a substitution finds:
                   $(pgrep -f guardtui), $(pidof …), $(lsof -ti :8765), `… | xargs kill`
    fuser -k       the broker's port (8765/tcp, -n tcp 8765) or a path of guardtui's

Then a developer's own processes (dev_kill, dev_pkill): the listener on an unprivileged port found by
lsof or fuser, or a command line naming a program of the project (taxonomy `dev_processes`), stopped
without sudo, allow: restarting one's dev server is the inner loop.

Anything else returns nothing here: the taxonomy judges it (process control asks).
"""
from __future__ import annotations

import posixpath
import re
import shlex
from typing import TYPE_CHECKING

from ..protect import protect_data
from .findings import Finding, allow, deny
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

WHY = ("the agents' calls would be left with no one to answer them (a stopped hook lets the agent go on "
        "unguarded): an agent may not stop the guard; if you mean it, stop it yourself in a terminal")
# options of pkill/pgrep and killall that take a value (the pattern is the first operand after them)
_PKILL_VALUES = frozenset({"-u", "-U", "-g", "-G", "-P", "-s", "-t", "-F", "--signal", "--euid", "--uid", "--pgroup",
                           "--group", "--parent", "--session", "--terminal", "--pidfile", "--ns", "--nslist",
                           "-c", "--cgroup"})
_KILLALL_VALUES = frozenset({"-u", "--user", "-s", "--signal", "-o", "--older-than", "-y", "--younger-than",
                             "-n", "--ns", "-Z", "--context"})
_PID_FINDERS = frozenset({"pgrep", "pidof", "lsof", "fuser", "ps", "pstree", "pgrep.exe", "ss", "netstat"})
_SUBSTITUTION = re.compile(r"\$\(((?:[^()]|\([^()]*\))*)\)|`([^`]*)`")


def _processes() -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]:
    data = protect_data().processes
    return tuple(data.get("names", ())), tuple(data.get("command_lines", ())), tuple(data.get("ports", ()))


def _denied(what: str) -> list[Finding]:
    return [deny(f"{what}: {WHY}", "guard-self", "proc.guardtui")]


def _hits(pattern: str, candidates: tuple[str, ...], exact: bool, fold: bool) -> str | None:
    """The first candidate a pgrep-style pattern (an extended regex) matches."""
    flags = re.I if fold else 0
    try:
        rx = re.compile(pattern, flags)
    except re.error:
        rx = re.compile(re.escape(pattern), flags)
    for text in candidates:
        if (rx.fullmatch(text) if exact else rx.search(text)) is not None:
            return text
    return None


def _command_lines(home: str) -> tuple[str, ...]:
    """guardtui's command lines as ps shows them: those listed, and each launcher (a line that ends in
    `guardtui`) with each subcommand that keeps running (`guardtui console`, `python3 -m guardtui serve`)."""
    _, lines, _ = _processes()
    commands = protect_data().commands
    running = [c for c in (*sorted(commands.get("console", ())), *sorted(commands.get("broker", ()))) if c]
    launchers = [line for line in lines if line.endswith("guardtui")]
    every = list(lines) + [f"{launcher} {sub}" for launcher in launchers for sub in running]
    return tuple(dict.fromkeys(line.replace("~/", home.rstrip("/") + "/") for line in every))


# -- pkill, pgrep, killall ------------------------------------------------------------------------
def pkill(run: "Run", inv: "Invocation") -> list[Finding]:
    """pkill/killall by name or command line: does the pattern reach one of guardtui's processes?"""
    killall = posixpath.basename(inv.name) == "killall"
    values = _PKILL_VALUES if not killall else _KILLALL_VALUES
    full = exact = fold = False
    regex = not killall
    operands: list[Word] = []
    pidfile = ""
    words = inv.words
    i = 0
    while i < len(words):
        v = words[i].value
        if v == "--":
            operands += words[i + 1:]
            break
        if v.startswith("-") and len(v) > 1 and not operands:
            name, eq, _ = v.partition("=")
            if name in values:
                if name in ("-F", "--pidfile") and not eq and i + 1 < len(words):
                    pidfile = words[i + 1].value
                i += 1 if eq else 2
                continue
            letters = v[1:] if not v.startswith("--") else ""
            full |= v in ("--full",) or (not killall and "f" in letters)
            exact |= v in ("--exact",) or (not killall and "x" in letters) or (killall and "e" in letters)
            fold |= v in ("--ignore-case",) or (not killall and "i" in letters) or (killall and "I" in letters)
            regex |= killall and (v == "--regexp" or "r" in letters)
            i += 1
            continue
        operands.append(words[i])
        i += 1
    if "guardtui" in pidfile:
        return _denied(f"{inv.name} -F {pidfile} stops the process that pid file names")
    names, _, _ = _processes()
    home = inv.scope.home
    for w in operands:
        if DYN in w.value:
            continue
        pattern = w.value if regex else "^" + re.escape(w.value) + "$"
        if full:
            hit = _hits(pattern, _command_lines(home), exact, fold)
        else:  # the process name: 15 characters, as the kernel keeps it
            hit = _hits(pattern, tuple(n[:15] for n in names), exact or killall, fold)
        if hit is not None:
            how = "command line" if full else "process name"
            return _denied(f"{inv.name} {w.display()} matches the {how} of guardtui's own process ({hit})")
    return []


# -- kill -----------------------------------------------------------------------------------------
def kill(run: "Run", inv: "Invocation") -> list[Finding]:
    """kill PID…: a pid of guardtui's now, or pids found by a command that looks for guardtui."""
    values = [w.value for w in inv.words]
    if any(v in ("-0", "-s0", "--signal=0") for v in values) or "-s 0" in " ".join(values):
        return []  # signal 0 only asks whether the process is there
    for w in inv.words:
        v = w.value
        if re.fullmatch(r"\d+", v) and _is_guardtui_pid(int(v)):
            return _denied(f"kill {v} stops guardtui (process {v} runs it now)")
        if DYN in v or "$(" in w.raw or "`" in w.raw:
            found = _finder_aims_at_guardtui(w.raw + " " + w.origin, inv.scope.home)
            if found:
                return _denied(f"kill {w.display()} stops the processes `{found}` finds")
    producer = inv.cmd.items_from  # pgrep -f guardtui | xargs kill: the pids come from pgrep
    if producer is not None and producer.argv and _aims_at_guardtui(producer.text, inv.scope.home):
        return _denied(f"xargs {inv.name} stops the processes `{producer.text}` finds")
    return []


# programs that act on a running process named by its pid: limit, slow, attach a debugger or tracer, take its
# terminal. Aimed at guardtui's console or broker, each can stop or blind the guard without killing it.
PROCESS_TOOLS = frozenset({"prlimit", "renice", "ionice", "taskset", "chrt", "cpulimit", "gdb", "strace", "ltrace",
                           "gcore", "reptyr", "criu", "py-spy", "pyrasite", "lldb"})


def process_tool(run: "Run", inv: "Invocation") -> list[Finding]:
    """prlimit --pid $(pgrep -f guardtui) …, gdb -p PID, strace -p …: a pid of guardtui's (now, or found by a
    command that looks for guardtui) handed to a program that acts on a running process."""
    for w in inv.words:
        aimed = guardtui_pid_in(w, inv.scope.home)
        if aimed:
            return _denied(f"{inv.name} acts on {aimed}")
    return []


def guardtui_pid_in(word: Word, home: str) -> str | None:
    """What in `word` names a process of guardtui's: a pid it runs now (`4127`, `--pid=4127`, `/proc/4127/…`),
    or a substitution that finds its pids (`$(pgrep -f 'guardtui console')`); None when nothing does."""
    for pid in re.findall(r"(?:^|[=/,])(\d+)(?=$|[/,])", word.value):
        if _is_guardtui_pid(int(pid)):
            return f"process {pid}, which runs guardtui now"
    if DYN in word.value or "$(" in word.raw or "`" in word.raw:
        found = _finder_aims_at_guardtui(word.raw + " " + word.origin, home)
        if found:
            return f"the processes `{found}` finds"
    return None


def _finder_aims_at_guardtui(text: str, home: str) -> str | None:
    """The substitution in `text` ($(pgrep -f guardtui), `pidof guardtui`) when it finds guardtui's pids."""
    for m in _SUBSTITUTION.finditer(text):
        inner = (m.group(1) or m.group(2) or "").strip()
        if _aims_at_guardtui(inner, home):
            return inner
    return None


def _aims_at_guardtui(text: str, home: str) -> bool:
    """A command that lists pids (pgrep, pidof, lsof, ps | grep) and names guardtui, its port, or a
    pattern that matches guardtui's processes (`grep '[g]uardtui'`, `pgrep python3`)."""
    _, _, ports = _processes()
    segments = [seg.strip() for seg in text.split("|") if seg.strip()]
    heads = []
    for seg in segments:
        try:
            words = shlex.split(seg)
        except ValueError:
            words = seg.split()
        if words:
            heads.append((posixpath.basename(words[0]), words[1:]))
    if not heads or not any(name in _PID_FINDERS for name, _ in heads):
        return False
    if re.search(r"(?<![\w.-])guardtui(?![\w.-]*\.(?:py|yaml|md)\b)", text):
        return True
    if any(re.search(rf"(?<!\d){port}(?!\d)", text) for port in ports):
        return True
    names, _, _ = _processes()
    for name, args in heads:
        operands = [a for a in args if not a.startswith("-")]
        flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
        if name in ("grep", "egrep", "rg") and operands:  # ps … | grep PATTERN: the listed command lines
            if _hits(operands[0], _command_lines(home), "x" in flags, "i" in flags):
                return True
        elif name == "pgrep":
            full = "f" in flags or "--full" in args
            candidates = _command_lines(home) if full else tuple(n[:15] for n in names)
            if any(_hits(p, candidates, "x" in flags, "i" in flags) for p in operands):
                return True
        elif name == "pidof" and any(p in names for p in operands):
            return True
    return False


def _is_guardtui_pid(pid: int) -> bool:
    """Does process `pid` run guardtui right now (its command line, read from /proc)?"""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read(8192).split(b"\0")
    except OSError:
        return False
    line = " ".join(a.decode("utf-8", "replace") for a in argv if a)
    return bool(re.search(r"(?:^|[/\s])guardtui(?:\s|$)|-m\s+guardtui\b|guardtui/(?:hook|cli|__main__)\.py", line))


# -- fuser ----------------------------------------------------------------------------------------
def fuser(run: "Run", inv: "Invocation") -> list[Finding]:
    """fuser -k on the broker's port or a file of guardtui's."""
    values = [w.value for w in inv.words]
    killing = any(v in ("-k", "--kill") or (v.startswith("-") and not v.startswith("--") and "k" in v[1:])
                  for v in values)
    if not killing:
        return []
    _, _, ports = _processes()
    tcp = "tcp" in values  # fuser -k -n tcp 8765
    for v in values:
        port = re.fullmatch(r"(\d+)(?:/(tcp|udp))?", v)
        if port and int(port.group(1)) in ports and (port.group(2) == "tcp" or tcp):
            return _denied(f"fuser -k {v} stops whatever holds guardtui's broker port")
        if "guardtui" in v and not v.startswith("-"):
            return _denied(f"fuser -k {v} stops whatever holds guardtui's file")
    return []


# -- a developer's own processes -------------------------------------------------------------------
_PORT_SPEC = re.compile(r"(?i)(?:tcp|udp)?(?:@[\w.\[\]:-]*?)?:(\d+)")
_REGEX_WILDCARDS = re.compile(r"[*+?|()\[\]{}^$\\]")


def _dev(run: "Run") -> dict:
    return run.tax.dev_processes or {}


def _dev_port(port: str, run: "Run") -> bool:
    _, _, ours = _processes()
    lowest = int(_dev(run).get("lowest_port", 1 << 16))
    return port.isdigit() and lowest <= int(port) < 1 << 16 and int(port) not in ours


def _port_finder(text: str, run: "Run") -> bool:
    """`lsof -ti :3000`, `lsof -t -i tcp:5173 -sTCP:LISTEN`, `fuser 8000/tcp`: a command that prints only the
    pids listening on (or connected to) unprivileged ports, none of them guardtui's."""
    try:
        words = shlex.split(text)
    except ValueError:
        return False
    if not words:
        return False
    name, args = posixpath.basename(words[0]), words[1:]
    ports: list[str] = []
    if name == "fuser":
        proto = False
        for i, a in enumerate(args):
            if a in ("-n", "--namespace") or a in ("tcp", "udp") and i and args[i - 1] in ("-n", "--namespace"):
                proto = proto or a != "-n"
                continue
            m = re.fullmatch(r"(\d+)(?:/(?:tcp|udp))?", a)
            if m is None or "/" not in a and not proto:
                return False
            ports.append(m.group(1))
        return bool(ports) and all(_dev_port(p, run) for p in ports)
    if name != "lsof":
        return False
    terse = False
    i = 0
    while i < len(args):
        a = args[i]
        m = re.fullmatch(r"-([tnPa]*)i(.*)", a)
        if m:  # -i SPEC, -ti SPEC, -ti:3000, -i:3000
            terse |= "t" in m.group(1)
            spec = m.group(2)
            if not spec:
                if i + 1 >= len(args):
                    return False
                i += 1
                spec = args[i]
            port = _PORT_SPEC.fullmatch(spec)
            if port is None:
                return False
            ports.append(port.group(1))
        elif re.fullmatch(r"-[tnPa]+", a):
            terse |= "t" in a
        elif re.fullmatch(r"(?i)-s(tcp|udp):\w+", a):
            pass
        elif a == "-s" and i + 1 < len(args) and re.fullmatch(r"(?i)(tcp|udp):\w+", args[i + 1]):
            i += 1
        else:
            return False
        i += 1
    return terse and bool(ports) and all(_dev_port(p, run) for p in ports)


def dev_kill(run: "Run", inv: "Invocation") -> list[Finding]:
    """kill $(lsof -ti :3000), kill -9 `lsof -t -i:4000`, lsof -ti :5173 | xargs kill: the pids listening on
    an unprivileged port (a dev server's), found as the command runs."""
    if inv.privileged or inv.scope.remote:
        return []
    producer = inv.cmd.items_from
    operands = []
    skip = False
    for w in inv.words:
        if skip:
            skip = False
        elif w.value in ("-s", "-n", "--signal"):
            skip = True
        elif not w.value.startswith("-") or w.value == "-":
            operands.append(w)
    if producer is not None and producer.argv and all(w.dynamic and "$(" not in w.raw and "`" not in w.raw
                                                      for w in operands):  # the items xargs hands over
        found = producer.text
        if "|" not in found and _port_finder(found, run):
            return [allow(f"{inv.name} stops what listens on a dev port (`{found}`)", "process",
                          rule="proc.dev-port")]
        return []
    if not operands:
        return []
    for w in operands:
        m = _SUBSTITUTION.fullmatch(w.raw.strip('"'))
        if m is None or not _port_finder((m.group(1) or m.group(2) or "").strip(), run):
            return []
    return [allow(f"kill stops what listens on a dev port ({operands[0].raw})", "process", rule="proc.dev-port")]


def dev_fuser(run: "Run", inv: "Invocation") -> list[Finding]:
    """fuser -k 3000/tcp, fuser -k -n tcp 5173: what holds an unprivileged port (a dev server)."""
    if inv.privileged or inv.scope.remote:
        return []
    words = [w.value for w in inv.words]
    killing = [v for v in words if v in ("-k", "--kill") or re.fullmatch(r"-[kimsuvw]*k[kimsuvw]*", v)]
    if not killing:
        return []
    rest = [v for v in words if v not in killing and not re.fullmatch(r"-(\d+|[A-Z]+|SIG[A-Z]+)|-[iw]", v)]
    if _port_finder(shlex.join(["fuser", *rest]), run):
        return [allow(f"fuser -k stops what holds a dev port ({' '.join(rest)})", "process", rule="proc.dev-port")]
    return []


def dev_pkill(run: "Run", inv: "Invocation") -> list[Finding]:
    """pkill -f 'node server.js', pkill -f node_modules/.bin/vite: a command line that names a program of
    the project (a script, a tool the project installed), with no wildcards that would reach further."""
    if inv.privileged or inv.scope.remote or posixpath.basename(inv.name) not in ("pkill",):
        return []
    dev = _dev(run)
    suffixes = tuple(dev.get("script_suffixes", ()))
    launchers = tuple(dev.get("launcher_dirs", ()))
    full = False
    operands: list[Word] = []
    i = 0
    words = inv.words
    while i < len(words):
        v = words[i].value
        if v.startswith("-") and not operands:
            name = v.partition("=")[0]
            if name in _PKILL_VALUES:
                if name not in ("--signal",) or "=" not in v:
                    i += 1
                if name not in ("--signal",):
                    return []  # by user, group, terminal, parent, pid file: not by what runs
            full |= v == "--full" or (not v.startswith("--") and "f" in v[1:])
            i += 1
            continue
        operands.append(words[i])
        i += 1
    if not full or len(operands) != 1 or operands[0].dynamic:
        return []
    pattern = operands[0].value
    if _REGEX_WILDCARDS.search(pattern):
        return []
    project = (inv.scope.project or "").rstrip("/") + "/"

    def names_project_program(token: str) -> bool:
        if token.startswith("/"):  # an absolute path names the project's program only inside the project
            if not project.strip("/") or not token.startswith(project):
                return False
            token = token[len(project):]
        if token.startswith("~") or ".." in token.split("/"):
            return False
        base = posixpath.basename(token)
        script = any(base.endswith(suffix) and len(base) > len(suffix) for suffix in suffixes)
        launched = any(("/" + token).find("/" + d) >= 0 and not token.endswith(d) for d in launchers)
        return script or launched

    if any(names_project_program(t) for t in pattern.split()):
        return [allow(f"pkill -f {operands[0].display()} stops a program of the project", "process",
                      rule="proc.dev-program")]
    return []


__all__ = ["kill", "pkill", "fuser", "dev_kill", "dev_fuser", "dev_pkill"]


# what a service manager does to a unit that stops or keeps it from running (systemctl, launchctl, service)
_STOPPING = frozenset({"stop", "kill", "disable", "mask", "restart", "try-restart", "reload-or-restart", "isolate",
                       "freeze", "unload", "bootout", "remove", "clean", "revert", "link", "edit", "set-property",
                       "daemon-reexec"})


def service(run: "Run", inv: "Invocation") -> list[Finding]:
    """systemctl --user stop guardtui.service, launchctl bootout gui/501/dev.guardtui, service guardtui stop: a
    unit of guardtui's (its name holds one of the processes' names) stopped, disabled, masked or edited."""
    words = [w.value for w in inv.words if not w.value.startswith("-")]
    verbs = [v for v in words if v in _STOPPING]
    if not verbs:
        return []
    names, _lines, _ports = _processes()
    ours = [n for n in names if not n.startswith("python")]
    for w in inv.words:
        v = w.value
        if v.startswith("-") or v in _STOPPING:
            continue
        if w.dynamic or DYN in v:
            glob = v.replace(DYN, "*")
            if glob.strip("*") == "":
                continue
        if any(n in v.lower() for n in ours) or ("*" in v and any(re.fullmatch(
                re.escape(v).replace(r"\*", ".*").replace(r"\?", "."), n + ".service") for n in ours)):
            return _denied(f"{inv.name} {verbs[0]} {v} stops guardtui's own service")
    return []
