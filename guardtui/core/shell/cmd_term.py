"""Programs that type into a terminal or window (taxonomy.yaml `terminal_input`): typed into
guardtui's console, a key answers a waiting call as if the person had pressed it. Their typing
verbs deny, wherever they run (in the background, from at or cron, from a script: those reach
here as nested scripts), and so does feeding a pane's input from a command (`tmux pipe-pane -I`)
and writing to every terminal (`wall`). Ending the console's own session, window or pane (`tmux
kill-server`, `kill-session -t guardtui`, `respawn-pane -k`, `screen -S guard -X quit`: a target
named for the console, protect.yaml `processes.terminals`) stops the guard: deny. Their other
uses are judged as what they run: `tmux new -d 'npm run dev'` runs `npm run dev`; listing,
capturing, reading a window's name and ending the project's own sessions stay quiet.
"""
from __future__ import annotations

import os
import posixpath
import re
import shlex
from typing import TYPE_CHECKING

from ..model import BlastRadius, Verdict
from ..protect import protect_data
from .findings import Finding, allow, ask, deny, worst
from .projectfiles import read_text
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_WHY = "into guardtui's console, what it types would answer a waiting call as if you had pressed the key"
_ENDS_WHY = ("ended, the console leaves the agents' calls with no one to answer them: an agent may not stop the "
             "guard; if you mean it, stop it yourself in a terminal")
# tmux commands that take a shell command (run by tmux's shell), and where it is among their arguments
_TMUX_SHELL = frozenset({"new-session", "new-window", "split-window", "respawn-pane", "respawn-window", "run-shell",
                         "if-shell", "pipe-pane", "display-popup"})
# the flags of each tmux command that take a value (anything else is a flag alone)
_TMUX_VALUE_FLAGS = {"new-session": "cefnstxyFTX", "new-window": "cefntF", "split-window": "celtFpS",
                     "respawn-pane": "cet", "respawn-window": "cet", "run-shell": "cdt", "if-shell": "t",
                     "pipe-pane": "t", "display-popup": "bcdehsStTwxyX", "set-buffer": "bnt", "send-keys": "NtX",
                     "paste-buffer": "bst", "load-buffer": "bt", "set-hook": "t", "set": "t", "set-option": "t",
                     "setw": "t", "set-window-option": "t"}
# options whose value tmux runs with the shell later (lock-command when the session locks, default-command for
# every new window, copy-command on every copy, editor), and the option that names tmux commands by an alias
_TMUX_COMMAND_OPTIONS = frozenset({"lock-command", "default-command", "default-shell", "copy-command", "editor"})
_TMUX_SET = frozenset({"set", "set-option", "setw", "set-window-option"})
_TMUX_ALIASES = {"new": "new-session", "neww": "new-window", "splitw": "split-window", "respawnp": "respawn-pane",
                 "respawnw": "respawn-window", "run": "run-shell", "if": "if-shell", "pipep": "pipe-pane",
                 "popup": "display-popup", "setb": "set-buffer", "send": "send-keys", "pasteb": "paste-buffer",
                 "loadb": "load-buffer", "bind": "bind-key", "source": "source-file", "set-hook": "set-hook"}


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    spec = run.tax.terminal_input.get(inv.name, {})
    verbs = set(spec.get("verbs", ()))
    if inv.name == "tmux":
        return _tmux(run, inv, verbs)
    if inv.name == "screen":
        return _screen(run, inv, verbs)
    words = _after_options(inv.words, set(spec.get("value_options", ())))
    values = [w.value for w in words]
    if inv.name in ("wall", "write"):
        whom = "every terminal" if inv.name == "wall" else "another user's terminal"
        return [deny(f"{inv.name} writes to {whom}, the console's among them (a terminal can be made to answer "
                     f"back into its input): {_WHY}", "terminal-input", "term.typing")]
    typed = next((v for v in values if v in verbs or v.partition("=")[0] in verbs and v.startswith("--")), None)
    if spec.get("remaps") and ("*" in verbs or typed is not None):
        return [deny(f"{inv.name} remaps the keyboard: in guardtui's console a remapped key gives another answer "
                     f"than the one pressed (n could become a)", "terminal-input", "term.remap")]
    if "*" in verbs:
        return [deny(f"{inv.name} types keystrokes into the focused window: {_WHY}", "terminal-input",
                     "term.typing")]
    if typed is not None:
        return [deny(f"{inv.name} {typed} types into another terminal: {_WHY}", "terminal-input", "term.typing")]
    if inv.name == "xdotool" and values and (values[0] == "-" or "/" in values[0] or values[0].endswith(".xdo")):
        return [ask("xdotool runs a script of commands (it may type keystrokes)", "terminal-input",
                    BlastRadius.HIGH, "term.script")]
    if any(DYN in v for v in values):
        return [ask(f"{inv.name} runs a command known only at run time (it may type into a terminal)",
                    "terminal-input", BlastRadius.HIGH, "term.dynamic")]
    reads = set(spec.get("reads", ()))
    remote = [v for v in values if v != "@" and not v.startswith("-")] if values[:1] == ["@"] else values
    if remote and remote[0].partition("=")[0] in reads and not any(v in verbs for v in values):  # kitten @ ls
        # xdotool getactivewindow getwindowname, zellij list-sessions: they only read
        changes = [v for v in remote[1:] if re.fullmatch(r"(?:window|mouse|set_|key|click|exec|behave)\w*", v)]
        if not changes:
            return [allow(f"{inv.name} {remote[0]} only reads", "read-only", rule="term.read")]
    if inv.name in ("zellij", "wezterm", "kitty", "kitten") and "--" in values:
        # zellij run -- CMD, wezterm cli spawn -- CMD, kitty @ launch -- CMD: judge what runs
        rest = words[values.index("--") + 1:]
        if rest:
            run.nested(" ".join(w.value for w in rest), inv, f"{inv.name} …")
    return []  # the rest: the taxonomy (or the default) judges


def _after_options(words: list[Word], value_options: set[str]) -> list[Word]:
    out = []
    i = 0
    while i < len(words):
        v = words[i].value
        if v in value_options:
            i += 2
            continue
        if v.partition("=")[0] in value_options:
            i += 1
            continue
        out.append(words[i])
        i += 1
    return out


# -- tmux --------------------------------------------------------------------------------------------
def _tmux(run: "Run", inv: "Invocation", verbs: set[str]) -> list[Finding]:
    words = list(inv.words)
    i = 0
    control = False
    findings: list[Finding] = []
    while i < len(words) and words[i].value.startswith("-") and words[i].value != "-":
        v = words[i].value
        if v in ("-L", "-S", "-f", "-T"):
            i += 2
            continue
        if v == "-c" and i + 1 < len(words):  # tmux -c CMD: run CMD with the user's shell
            run.nested(words[i + 1].value, inv, "tmux -c")
            i += 2
            continue
        control |= v.startswith("-C")
        i += 1
    commands = _split_commands(words[i:])
    if control:
        stream = run.stdin_source(inv.cmd)
        if stream.kind == "text" and stream.text is not None:
            commands += [[Word.literal(p) for p in line.split()] for line in stream.text.splitlines() if line.strip()]
        elif stream.kind != "none":
            findings.append(ask("tmux -C reads tmux commands from its input (they may type into a pane)",
                                "terminal-input", BlastRadius.HIGH, "term.tmux-control"))
    for command in commands or [[]]:
        findings.extend(_tmux_command(run, inv, command, verbs, commands))
        if command and command[0].value in ("set", "set-option", "setw", "set-window-option"):
            # status-right '#(cmd)': the tmux server runs cmd every status-interval, outside any agent
            for word in command[1:]:
                for m in re.finditer(r"#\(((?:[^()]|\([^()]*\))*)\)", word.value):
                    run.nested(m.group(1), inv, f"tmux {command[0].value} #(…)")  # judged as what it runs
    best = worst(findings)
    return [best] if best is not None else [allow("tmux manages sessions", "read-only", rule="term.tmux")]


def _split_commands(words: list[Word]) -> list[list[Word]]:
    """tmux runs several commands separated by `;` (`tmux new -d \\; send-keys y`)."""
    out: list[list[Word]] = [[]]
    for w in words:
        if w.value == ";":
            out.append([])
        elif w.value.endswith(";") and not w.quoted and len(w.value) > 1:
            out[-1].append(Word(w.value[:-1], w.raw[:-1]))
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def _tmux_file(run: "Run", inv: "Invocation", word: Word, verbs: set[str],
               seen: frozenset[str] = frozenset()) -> list[Finding] | None:
    """`tmux source-file ~/.tmux.conf`: the file's commands, judged as typed (None: it cannot be read)."""
    path = run.path(word, inv).path
    if path in seen:
        return [allow(f"tmux source-file {word.display()} reads the file already being judged", "read-only",
                      rule="term.tmux")]
    if path is None:
        return None
    text = run.written.get(path) if path in run.written else read_text(path)  # written earlier in the command?
    if text is None:
        if not os.path.lexists(path):
            return [allow(f"tmux source-file {word.display()}: no such file, tmux runs nothing", "read-only",
                          rule="term.tmux")]
        return None
    before = len(run.result.findings)
    findings: list[Finding] = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            parts = shlex.split(line, comments=True)
        except ValueError:
            return None  # a line we cannot read as tmux would: ask, as for any file we cannot judge
        for command in _commands(parts):
            findings += _tmux_command(run, inv, command, verbs, [], seen | {path})
    nested = run.result.findings[before:]
    if any(f.verdict is not Verdict.ALLOW for f in findings + nested):
        return [f for f in findings if f.verdict is not Verdict.ALLOW]
    return [allow(f"tmux source-file {word.display()}: its commands only configure tmux", "read-only",
                  rule="term.tmux")]


def _commands(parts: list[str]) -> list[list[Word]]:
    """tmux commands separated by `;` (written `\\;` in a file or a shell)."""
    out: list[list[Word]] = [[]]
    for part in parts:
        if part == ";":
            out.append([])
        else:
            out[-1].append(Word.literal(part))
    return [c for c in out if c]


def _bound(run: "Run", inv: "Invocation", args: list[Word], verbs: set[str],
           seen: frozenset[str]) -> list[Finding] | None:
    """`bind-key [-nr] [-N note] [-T table] KEY COMMAND…`: the bound command, judged as if typed."""
    i = 0
    while i < len(args) and args[i].value.startswith("-") and len(args[i].value) > 1:
        i += 2 if args[i].value[-1] in "NT" else 1
    commands = _commands([w.value for w in args[i + 1:]])
    if not commands or any(w.dynamic for c in commands for w in c):
        return None
    before = len(run.result.findings)
    findings = [f for c in commands for f in _tmux_command(run, inv, c, verbs, [], seen)]
    if any(f.verdict is not Verdict.ALLOW for f in findings + run.result.findings[before:]):
        return findings
    return [allow("tmux bind-key binds a key to tmux commands that only configure or show", "read-only",
                  rule="term.tmux")]


_PANE_MOVES = frozenset({"join-pane", "joinp", "move-pane", "movep", "swap-pane", "swapp", "switch-client", "switchc",
                         "link-window", "linkw", "move-window", "movew", "swap-window", "swapw", "attach-session",
                         "attach", "a"})


def _tmux_command(run: "Run", inv: "Invocation", command: list[Word], verbs: set[str],
                  siblings: list[list[Word]], seen: frozenset[str] = frozenset()) -> list[Finding]:
    if not command:
        return []
    name = command[0].value
    full = _TMUX_ALIASES.get(name, name)
    if DYN in name:
        return [ask("tmux runs a command known only at run time (it may type into a pane)", "terminal-input",
                    BlastRadius.HIGH, "term.tmux")]
    if name in verbs or full in verbs:
        return [deny(f"tmux {name} types into a pane: {_WHY}", "terminal-input", "term.tmux-typing")]
    values = [w.value for w in command[1:]]
    if full in _PANE_MOVES and any("guardtui" in v for v in values):
        # join-pane/switch-client/link-window onto the console: the person's keystrokes would land there
        return [deny(f"tmux {name} moves the guard's console or a client's focus onto it: what the person types "
                     f"would answer it ({_WHY})", "terminal-input", "term.tmux-focus")]
    if full in ("set-window-option", "set-option", "setw", "set") and "synchronize-panes" in values and \
            not any(v in ("off", "0") for v in values):
        return [ask(f"tmux {name} synchronize-panes mirrors what is typed into every pane of a window (a console "
                    "pane among them would get the keys)", "terminal-input", BlastRadius.HIGH, "term.tmux-focus")]
    if full == "pipe-pane" and any(w.value.startswith("-") and "I" in w.value for w in command[1:]):
        return [deny(f"tmux {name} -I feeds a command's output into a pane as if typed: {_WHY}", "terminal-input",
                     "term.tmux-typing")]
    ends = _tmux_ends(name, full, command[1:], set(run.tax.terminal_input.get("tmux", {}).get("ends", ())))
    if ends is not None:
        return [ends]
    if full == "set-buffer":
        if any(_TMUX_ALIASES.get(c[0].value, c[0].value) == "paste-buffer" for c in siblings if c):
            return [deny(f"tmux {name} with paste-buffer types into a pane: {_WHY}", "terminal-input",
                         "term.tmux-typing")]
        return [ask(f"tmux {name} fills a paste buffer: a later paste types it into a pane", "terminal-input",
                    BlastRadius.LOW, "term.tmux")]
    positionals = _positionals(command[1:], _TMUX_VALUE_FLAGS.get(full, ""))
    if full in _TMUX_SET and len(positionals) >= 2 and not positionals[0].dynamic:
        option = positionals[0].value
        shell = option == "default-shell" and posixpath.basename(positionals[1].value) in run.tax.shells
        if option in _TMUX_COMMAND_OPTIONS and not shell:  # run by tmux's shell later, outside any agent call
            run.nested(positionals[1].value, inv, f"tmux {name} {option}")
        elif option.startswith("command-alias") and "=" in positionals[1].value:
            try:  # command-alias[0] name='tmux command': the alias runs that command when typed
                parts = shlex.split(positionals[1].value.partition("=")[2])
            except ValueError:
                parts = []
            aliased = [f for c in _commands(parts) for f in _tmux_command(run, inv, c, verbs, [], seen)]
            if any(f.verdict is not Verdict.ALLOW for f in aliased):
                return aliased
    if full == "source-file" and len(positionals) == 1 and not positionals[0].dynamic:
        judged = _tmux_file(run, inv, positionals[0], verbs, seen)
        if judged is not None:
            return judged
    if full == "bind-key":
        judged = _bound(run, inv, command[1:], verbs, seen)
        if judged is not None:
            return judged
    if full == "set-hook" and len(positionals) >= 2 and not positionals[1].dynamic:
        # set-hook [-g] [-t target] HOOK 'tmux command': the command runs whenever the hook fires
        try:
            parts = shlex.split(positionals[1].value)
        except ValueError:
            parts = []
        hooked = [f for c in _commands(parts) for f in _tmux_command(run, inv, c, verbs, [], seen)]
        if any(f.verdict is not Verdict.ALLOW for f in hooked):
            return hooked
    if full in ("source-file", "bind-key", "command-prompt", "confirm-before"):
        return [ask(f"tmux {name} sets up tmux commands to run later (they may type into a pane)", "terminal-input",
                    BlastRadius.MEDIUM, "term.tmux")]
    if full in _TMUX_SHELL and positionals:
        # tmux runs this with the shell: new/split/respawn/popup join their arguments into one command
        first_only = full in ("run-shell", "if-shell")
        text = positionals[0].value if first_only else " ".join(w.value for w in positionals)
        run.nested(text, inv, f"tmux {name}")
        if full == "if-shell":  # if-shell 'test' 'tmux command' ['tmux command']
            out: list[Finding] = []
            for branch in positionals[1:3]:
                out += _tmux_command(run, inv, [Word.literal(p) for p in branch.value.split()], verbs, siblings)
            return out
    return []


def _tmux_ends(name: str, full: str, args: list[Word], ends: set[str]) -> Finding | None:
    """tmux kill-server; kill-session/-window/-pane and respawn -k of the console's own target."""
    if name not in ends and full not in ends:
        return None
    if full == "kill-server":
        return deny(f"tmux {name} ends every tmux session, the console's if it runs in one: {_ENDS_WHY}", "guard-self",
                    "term.ends-console")
    values = [w.value for w in args]
    if full.startswith("respawn") and not any(v.startswith("-") and "k" in v[1:] for v in values):
        return None  # without -k, respawn fails on a pane whose command still runs
    if full.startswith("kill-") and any(v.startswith("-") and "a" in v[1:] for v in values):
        return deny(f"tmux {name} -a ends every other {full.split('-')[-1]}, the console's if it runs in one: "
                    f"{_ENDS_WHY}", "guard-self", "term.ends-console")
    target = next((values[i + 1] for i, v in enumerate(values[:-1]) if v in ("-t", "-s")), None)
    if target is None:
        target = next((v[2:] for v in values if v.startswith(("-t", "-s")) and len(v) > 2), None)
    if target is not None and DYN in target:
        return ask(f"tmux {name} ends a {full.split('-')[-1]} known only at run time (it may be the console's)",
                   "guard-self", BlastRadius.HIGH, "term.ends-console")
    if target is not None and console_target(target):
        return deny(f"tmux {name} -t {target} ends the {full.split('-')[-1]} named for the console: {_ENDS_WHY}",
                    "guard-self", "term.ends-console")
    return None


def console_target(target: str) -> bool:
    """Is a tmux/screen target (session:window.pane, a session name) the console's, by its name?"""
    names = protect_data().processes.get("terminals", ())
    return any(n.lower() in target.lower() for n in names)


def _positionals(words: list[Word], value_flags: str) -> list[Word]:
    out = []
    i = 0
    while i < len(words):
        v = words[i].value
        if v == "--":
            return out + words[i + 1:]
        if v.startswith("-") and len(v) > 1 and not out:
            letters = v[1:]
            for j, c in enumerate(letters):
                if c in value_flags:
                    if j == len(letters) - 1:
                        i += 1  # the value is the next word
                    break
            i += 1
            continue
        out.append(words[i])
        i += 1
    return out


# -- screen ------------------------------------------------------------------------------------------
_SCREEN_VALUES = frozenset("Spcehst")  # -S name, -p window, -c file, -e xy, -h lines, -s shell, -t title


def _screen(run: "Run", inv: "Invocation", verbs: set[str]) -> list[Finding]:
    words = inv.words
    i = 0
    remote = False
    session = ""
    while i < len(words) and words[i].value.startswith("-"):
        v = words[i].value
        if v == "-X":
            remote = True
            i += 1
            continue
        if v in ("-T", "-L", "-Logfile") and v != "-L":
            i += 2
            continue
        letters = v[1:]
        if letters and letters[-1] in _SCREEN_VALUES and letters.isalpha():  # -S name, -dmS name
            if letters[-1] == "S" and i + 1 < len(words):
                session = words[i + 1].value
            remote |= "X" in letters
            i += 2
            continue
        remote |= "X" in letters
        i += 1
    rest = words[i:]
    if remote:  # screen -X CMD ARGS: a command for a running session
        lines = [[w.value for w in rest]]
        if rest and rest[0].value == "eval":  # screen -X eval 'stuff y' 'paste .'
            lines = [w.value.split() for w in rest[1:]]
        if rest and rest[0].value == "at" and len(rest) > 2:  # screen -X at WINDOW stuff …
            lines = [[w.value for w in rest[2:]]]
        ends = set(run.tax.terminal_input.get("screen", {}).get("ends", ()))
        for line in lines:
            if line and (line[0] in verbs or DYN in line[0]):
                return [deny(f"screen -X {line[0]} types into a screen window: {_WHY}", "terminal-input",
                             "term.screen-typing")]
            if line and line[0] in ends and session and console_target(session):
                return [deny(f"screen -S {session} -X {line[0]} ends the screen session named for the console: "
                             f"{_ENDS_WHY}",
                             "guard-self", "term.ends-console")]
        return [allow("screen -X sends a command to a running session", "read-only", rule="term.screen")]
    if rest:  # screen [-dmS name] CMD ARGS: runs CMD in a new window
        run.nested(" ".join(w.value for w in rest), inv, "screen")
    return [allow("screen manages sessions", "read-only", rule="term.screen")]


__all__ = ["judge"]


def hyprctl(run: "Run", inv: "Invocation") -> list[Finding]:
    """hyprctl dispatch exec CMD: the compositor starts CMD (judged as it is); sendshortcut and pass send keys to a
    window (typing, judged as such); other dispatchers move windows and workspaces."""
    words = [w.value for w in inv.words if w.value != "-j"]
    if words[:1] == ["dispatch"] and len(words) > 1:
        if words[1] in ("sendshortcut", "pass", "sendkeystate"):
            return judge(run, inv)
        if words[1] == "exec" and len(words) > 2:
            run.nested(" ".join(words[2:]), inv, "hyprctl dispatch exec")
            return [allow("hyprctl dispatch exec starts a program (judged above)", "desktop", rule="term.hyprctl")]
        return [allow(f"hyprctl dispatch {words[1]} arranges windows and workspaces", "desktop", rule="term.hyprctl")]
    return []



_LOOPBACK_WS = re.compile(r"(?i)^(?:wss?|https?)://(?:localhost|127(?:\.\d+){3}|\[::1\]|0\.0\.0\.0)(?::(\d+))?(?:/|$)")


def web_terminal_client(run: "Run", inv: "Invocation") -> list[Finding]:
    """`websocat --protocol tty ws://127.0.0.1:7681/ws`: a websocket client speaking to a web terminal (ttyd's
    port on this machine, or its tty protocol) sends keyboard input to what it serves, guardtui's console among
    them. Any other websocket use is left to the rest of the judgement."""
    spec = run.tax.web_terminal_clients
    values = [w.value for w in inv.words]
    ports = set(spec.get("ports", ()))
    for i, v in enumerate(values):
        m = _LOOPBACK_WS.match(v)
        tty = v in spec.get("markers", ()) and i > 0 and values[i - 1] in ("--protocol", "--subprotocol", "-s") or \
            v in spec.get("markers", ()) and v.startswith("--")
        if (m is not None and m.group(1) and int(m.group(1)) in ports) or tty:
            return [deny(f"{inv.name} speaks to a web terminal ({v}): what it sends is typed into the terminal it "
                         "serves; typed into guardtui's console, it would answer a waiting call as if you had",
                         "terminal-input", "term.web-terminal")]
    return []
