"""What a file that runs later will run, by its kind (sensitive.yaml `runs_later`, `as:`).

Two families:
- program files, run whole by an interpreter when a routine command starts (a conftest.py by pytest,
  an eslint.config.js by eslint, a Gemfile by bundle, a build.rs by cargo, an IPython startup file):
  `RUNNERS` names the program that runs each language, and the rule judges `RUNNER FILE` as if the
  file already held the new text;
- settings that name commands (a service unit's ExecStart, an MCP server's command and args, a cargo
  target runner, an ssh `Match exec`, a CI job's script): `commands_in` returns them as shell text.

Nothing here judges: the runs-later rule (later.py) hands what this returns to every rule."""
from __future__ import annotations

import fnmatch
import json
import posixpath
import re
import shlex
import tomllib
from collections.abc import Iterator

import yaml

from ..gitindex import config_settings
from .editor_kinds import ide_watcher_commands, kak_shell_blocks, quadlet_commands, vim_file_ops, vim_words_calls
from ..shell.libconfig import code_in_config, libraries
from ..shell.projectfiles import cmake_commands
from ..shell.nushell import nushell_as_shell
from ..shell.pwsh import powershell_as_shell

# the program that runs a file of each language, as a command a person would type
RUNNERS = {"python": "python3", "js": "node", "ruby": "ruby", "perl": "perl", "php": "php", "groovy": "groovy",
           "rust": "rust-script", "elisp": "emacs --batch -l", "julia": "julia", "r": "Rscript",
           "gemfile": "bundle install --gemfile"}
# a file named here runs as whatever its #! line or its name says (a program put on PATH)
PROGRAM = "program"

_UNIT_LINE = re.compile(r"(?m)^\s*(?:Exec(?:Start|StartPre|StartPost|Stop|StopPost|Reload|Condition)|ExecPaths)\s*=\s*"
                        r"[-@+!:|]*(.+)$")
_PLIST_ARGS = re.compile(r"(?s)<key>\s*ProgramArguments\s*</key>\s*<array>(.*?)</array>")
_PLIST_PROGRAM = re.compile(r"(?s)<key>\s*Program\s*</key>\s*<string>(.*?)</string>")
_DESKTOP_EXEC = re.compile(r"(?m)^\s*Exec\s*=\s*(.+)$")
_VIM_SHELL = re.compile(r"""(?m)(?:^\s*(?:silent!?\s+|exe(?:cute)?\s+["'])?!(?P<c>[^\n"']+)|"""
                        r"""(?:system|systemlist|jobstart|termopen|vim\.fn\.system|os\.execute)\s*\(\s*\[?\s*"""
                        r"""(?P<q>["'])(?P<c2>[^"'\n]+)(?P=q))""")
_PROCFILE = re.compile(r"(?m)^\s*[\w.-]+\s*:\s*(.+)$")
_SSH_COMMANDS = re.compile(r"(?im)^\s*(?:Match\s+(?:.*\s)?exec\s+|(?:ProxyCommand|LocalCommand|KnownHostsCommand)"
                           r"(?:\s*=\s*|\s+))(?P<c>\"[^\"]*\"|\S.*)$")
_SLASH_COMMAND = re.compile(r"!`([^`\n]+)`")  # a Claude Code command file's !`…` line runs when it is invoked
_TILT_CALLS = re.compile(r"""\b(?:local|local_resource|custom_build|docker_build_with_restart)\s*\(""")
_TILT_KEYS = re.compile(r"""\b(?:cmd|serve_cmd|command|deps_cmd)\s*=\s*""")
_KITTY_MAP = re.compile(r"(?m)^\s*map\s+\S+\s+(?P<action>send_text|send_key|launch|remote_control)\s+(?P<rest>.*)$")

# keys whose value is a command line (or a list of words) in any settings file
_COMMAND_KEYS = frozenset({
    "initializecommand",  # dev containers: runs on the host before the container exists
    "runner", "rustc-wrapper", "rustc-workspace-wrapper", "rustc",  # .cargo/config.toml
    "credential_process",  # ~/.aws/config
    "token_helper",  # ~/.vault: vault runs it on every command
    "script-shell", "shell-emulator", "git", "shell", "editor", "browser",  # .npmrc: programs npm runs
    "git.path", "terminal.integrated.shell.linux", "terminal.integrated.shell.osx",  # editor settings
    "script", "before_script", "after_script", "run",  # CI jobs, mise tasks
    "enter", "leave", "cd", "preinstall", "postinstall",  # mise hooks
    "pre_command", "post_command", "startup",
    "entry",  # a pre-commit hook of the project's own (repo: local)
    "argv",  # a Jupyter kernel.json: the command a notebook's kernel starts with
    # editor settings naming a program the editor (or its extension) starts when the folder opens: the Python
    # extension runs the interpreter to inspect it, the language servers and runtimes they start
    "python.defaultinterpreterpath", "python.pythonpath", "python.condapath", "python.poetrypath",
    "clangd.path", "rust-analyzer.server.path", "typescript.tsserver.nodepath", "deno.path",
    "php.validate.executablepath", "php.executablepath", "ruby.interpreter.commandpath",
    "rust-analyzer.check.overridecommand", "rust-analyzer.cargo.buildscripts.overridecommand",
    "eslint.runtime", "julia.executablepath", "r.rterm.linux",
})
_LINE_LISTS = frozenset({"script", "before_script", "after_script", "run"})  # a list of command lines, not of words
_PROGRAM_FILE_KEYS = {"yarnpath": "node", "yarn-path": "node"}  # a file the tool runs instead of itself
_RUNTIME_OPTION_KEYS = {"node-options": "node", "onload-script": "node --require"}  # node's options, a module npm loads
_DOT_DIRS = frozenset({".idea", ".vscode", ".zed", ".helix", ".cargo", ".cursor", ".devcontainer", ".roo", ".kiro", ".gemini",
                       ".claude", ".github", ".config"})


def base_dir(path: str) -> str:
    """Where a settings file's relative commands run from: the project, not its dot directory."""
    directory = posixpath.dirname(path)
    while posixpath.basename(directory) in _DOT_DIRS or posixpath.basename(directory) == "workflows":
        directory = posixpath.dirname(directory)
    return directory or "/"


def commands_in(text: str, kind: str, home: str, path: str = "") -> list[str]:
    """What a file of this kind runs, as shell text."""
    if kind == "shell":
        return [text]
    if kind == "unit":
        return [m.group(1).replace("%h", home).replace("%u", posixpath.basename(home)) for m in _UNIT_LINE.finditer(text)]
    if kind == "plist":
        out = []
        for m in _PLIST_ARGS.finditer(text):
            args = [_xml(a) for a in re.findall(r"(?s)<string>(.*?)</string>", m.group(1))]
            out.append(" ".join(shlex.quote(a) for a in args))
        out += [shlex.quote(_xml(m.group(1))) for m in _PLIST_PROGRAM.finditer(text)]
        return out
    if kind == "desktop":
        return [m.group(1) for m in _DESKTOP_EXEC.finditer(text)]
    if kind == "vscode-tasks":  # every task's command line (a task may run when the folder opens)
        return _vscode_commands(text)
    if kind == "vim":  # `:!cmd`, `silent !cmd`, system('…') / systemlist / jobstart / vim.fn.system("…")
        return [m.group("c") or m.group("c2") for m in _VIM_SHELL.finditer(text)] + vim_words_calls(text) + \
            vim_file_ops(text)  # system({'sh', '-c', …}); os.remove(…), vim.fn.delete(…, 'rf') as rm
    if kind == "kak":  # Kakoune: %sh{…} runs the shell when the command (a hook, a start-up line) around it runs
        return kak_shell_blocks(text)
    if kind == "ide-watchers":  # JetBrains File Watchers: run on every saved file
        return ide_watcher_commands(text, base_dir(path))
    if kind == "quadlet":  # a Podman quadlet: the container's command, its mounts put back on the host
        return quadlet_commands(text, home)
    if kind == "cron":  # five time fields (or @reboot) then the command; a system crontab adds a user
        out = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or re.match(r"^[A-Z_]+=", line):
                continue
            parts = line.split(None, 1 if line.startswith("@") else 5)
            out.append(parts[-1] if len(parts) > 1 else "")
        return out
    if kind == "procfile":  # `name: command`, started by honcho/foreman/overmind
        return [m.group(1) for m in _PROCFILE.finditer(text) if not m.group(0).lstrip().startswith("#")]
    if kind == "ssh-config":  # Match exec, ProxyCommand, LocalCommand: run by every ssh (and git over ssh)
        return [m.group("c").strip().strip('"') for m in _SSH_COMMANDS.finditer(text)] + _ssh_environment(text)
    if kind == "slash-command":
        return [m.group(1) for m in _SLASH_COMMAND.finditer(text)]
    if kind == "tilt":
        return _tilt_commands(text)
    if kind == "tmux":  # each line is a tmux command: `tmux LINE` is what the server will do
        return ["tmux " + line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if kind == "kitty":
        return _kitty_commands(text)
    if kind == "powershell":  # a PowerShell profile: run at every start of pwsh
        return [powershell_as_shell(text)[0]]
    if kind == "nushell":  # config.nu/env.nu: run at every start of nu
        return [nushell_as_shell(text)]
    if kind == "wm":
        return _wm_commands(text)
    if kind == "terminal-config":
        return _terminal_commands(text)
    if kind == "gitconfig":
        return git_config_commands(text)
    if kind == "compose":
        return _compose_commands(text, home, base_dir(path))
    if kind == "settings":
        return _settings_commands(text, path)
    if kind == "tsconfig":
        return _tsserver_plugins(text, path)
    if kind == "instructions":  # an agent's standing memory: the commands it quotes, it is told to run
        return [m.group(1) or m.group(2) for m in re.finditer(r"```[\w-]*\n(.*?)```|`([^`\n]+)`", text, re.S)][:16]
    if kind == "client-rc":  # ~/.sqliterc's .shell/.system lines, ~/.psqlrc's \! lines: run at every start
        return [m.group(1) for m in re.finditer(r"(?m)^\s*(?:\.(?:shell|system)|\\!)\s+(.+)$", text)][:16]
    if kind == "debugger-rc":  # ~/.gdbinit, ~/.lldbinit: run at every start of the debugger
        return _debugger_commands(text)
    if kind == "mailcap":  # `type; command; flags`: the command runs when a mail or web client opens that type
        return _mailcap_commands(text)
    if kind == "screen":  # ~/.screenrc: windows it starts, key bindings and backticks that run programs
        return _screen_commands(text)
    if kind == "lesskey":  # LESSOPEN/LESSCLOSE set in a lesskey file: run by less for every file it opens
        return [re.sub(r"^\|+|^-", "", m.group(1).strip()).replace("%s", "file")
                for m in re.finditer(r"(?m)^\s*LESS(?:OPEN|CLOSE)\s*=\s*(.+)$", text)][:8]
    if kind == "hgrc":
        return _hgrc_commands(text)
    if kind == "library-config":  # a matplotlibrc: the module its backend names is imported by every plot
        return _library_config_commands(text, path)
    if kind == "pdbrc":  # pdb runs each line at start: `!stmt` and plain Python statements
        code = "\n".join(line.strip()[1:] if line.strip().startswith("!") else line.strip()
                         for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#") and
                         line.split()[0] not in _PDB_COMMANDS)
        return [f"python3 -c {shlex.quote(code)}"] if code else []
    if kind == "cmake":  # execute_process and file(REMOVE…) of a CMakeLists.txt or a .cmake script
        return cmake_commands(text)
    if kind == "makefile":  # what runs whenever make reads it (an included .mk runs on every make): $(shell …), !=
        found = _make_shells(text) + [m.group(1) for m in re.finditer(r"(?m)^\s*[\w.-]+\s*!=\s*(.+)$", text)]
        return [re.sub(r"\$[({](\w+)[)}]", r"${\1}", command) for command in found]  # $(HOME): the variable
    return []


_GDB_SHELL = re.compile(r"^\s*(?:shell|!|platform\s+shell)\s*(.+)$")
_GDB_PIPE = re.compile(r"^\s*pipe\s+.*?\|\s*(.+)$")
_DEBUGGER_PYTHON = re.compile(r"^\s*(?:python|python-interactive|pi|py|script(?:\s+(?:-l|--language)\s*python)?)"
                              r"(?:\s+(.+))?$")
_DEBUGGER_IMPORT = re.compile(r"^\s*(?:command\s+script\s+import|source(?:\s+-[sv])*)\s+(\S+\.py)\s*$")


def _debugger_commands(text: str) -> list[str]:
    """gdb's `shell CMD` / `!CMD` / `pipe … | CMD`, lldb's `platform shell CMD`, and the Python both run (a `python`
    … `end` block, `python STATEMENT`, `script STATEMENT`, `command script import x.py`, `source x.py`)."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines) and len(out) < 32:
        line = lines[i]
        i += 1
        if line.lstrip().startswith("#"):
            continue
        m = _GDB_SHELL.match(line) or _GDB_PIPE.match(line)
        if m:
            out.append(m.group(1))
            continue
        m = _DEBUGGER_IMPORT.match(line)
        if m:
            out.append(f"python3 {shlex.quote(m.group(1))}")
            continue
        m = _DEBUGGER_PYTHON.match(line)
        if m is None:
            continue
        if m.group(1):  # a one-line statement
            out.append(f"python3 -c {shlex.quote(m.group(1))}")
            continue
        block = []
        while i < len(lines) and lines[i].strip() not in ("end", "DONE", "quit()", "exit()"):
            block.append(lines[i])
            i += 1
        i += 1
        if block:
            out.append(f"python3 -c {shlex.quote(_dedent(block))}")
    return out


def _dedent(lines: list[str]) -> str:
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines)


def _mailcap_commands(text: str) -> list[str]:
    """The command field of each mailcap entry (`type; command; flags`, `\\` joining lines, `\\;` a literal ;),
    and a `test=` flag's command (run to choose the entry); %s is the file opened."""
    out = []
    for entry in re.sub(r"\\\n", " ", text).splitlines():
        if not entry.strip() or entry.lstrip().startswith("#"):
            continue
        fields = [f.replace("\x00", ";").strip() for f in entry.replace("\\;", "\x00").split(";")]
        if len(fields) < 2:
            continue
        out.append(fields[1])
        out += [f.split("=", 1)[1] for f in fields[2:] if re.match(r"(?i)test\s*=", f)]
    return [re.sub(r"%[stu{][^\s'\"]*", "file", c) for c in out if c][:32]


def _screen_commands(text: str) -> list[str]:
    """~/.screenrc: `screen … CMD` (a window started with a program), `exec CMD`, `bind KEY exec|screen CMD`,
    `backtick ID LIFESPAN AUTOREFRESH CMD`, `shell PROGRAM`."""
    out = []
    for line in text.splitlines():
        words = line.strip().split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "bind" and len(words) > 3:
            words = words[2:]
        if words[0] == "exec" and len(words) > 1:
            out.append(" ".join(w for w in words[1:] if not re.fullmatch(r"[.!:|]+", w)))
        elif words[0] == "screen":
            rest = words[1:]
            while rest and (rest[0].startswith("-") or rest[0].isdigit()):
                rest = rest[2:] if rest[0] in ("-t", "-T", "-h", "-e", "-p", "-S", "-c") else rest[1:]
            if rest:
                out.append(" ".join(rest))
        elif words[0] == "backtick" and len(words) > 4:
            out.append(" ".join(words[4:]))
        elif words[0] in ("shell", "defshell") and len(words) > 1:
            out.append(words[1].lstrip("-"))
    return out[:32]


def _hgrc_commands(text: str) -> list[str]:
    """Mercurial's config: [hooks] commands (a `python:FILE:func` hook runs FILE), `!` aliases, the programs
    [ui] names (ssh, editor, merge), and extensions loaded from a file."""
    out, section = [], ""
    for line in text.splitlines():
        header = re.match(r"^\s*\[([^\]]+)\]", line)
        if header:
            section = header.group(1).strip().lower()
            continue
        m = re.match(r"^\s*([\w.:-]+)\s*=\s*(.+?)\s*$", line)
        if m is None or line.lstrip().startswith(("#", ";")):
            continue
        key, value = m.group(1).lower(), m.group(2)
        if section == "hooks":
            python = re.match(r"python:(.+\.py):\w+$", value)
            out.append(f"python3 {shlex.quote(python.group(1))}" if python else
                       "" if value.startswith("python:") else value)
        elif section == "alias" and value.startswith("!"):
            out.append(value[1:])
        elif section == "ui" and key in ("ssh", "editor", "merge"):
            out.append(value)
        elif section == "extensions" and value.endswith(".py"):
            out.append(f"python3 {shlex.quote(value.lstrip('!'))}")
    return [c for c in out if c][:32]


def _make_shells(text: str) -> list[str]:
    """The commands of every $(shell …) in a makefile, nested parentheses ($(HOME)) kept whole."""
    out = []
    for m in re.finditer(r"\$\(shell\s+", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append(text[m.end():i - 1])
    return out[:32]


_PDB_COMMANDS = frozenset({"b", "break", "tbreak", "c", "cont", "continue", "n", "next", "s", "step", "r", "return",
                           "l", "list", "ll", "longlist", "w", "where", "bt", "u", "up", "d", "down", "a", "args",
                           "p", "pp", "display", "undisplay", "alias", "unalias", "condition", "ignore", "clear",
                           "cl", "disable", "enable", "commands", "end", "q", "quit", "h", "help", "whatis",
                           "source", "until", "unt", "j", "jump", "run", "restart", "retval", "rv", "interact"})


def _vscode_commands(text: str) -> list[str]:
    try:
        data = json.loads(_without_comments(text))
    except ValueError:
        return [text]  # unreadable: what it holds is judged as text, the worst case
    tasks = data.get("tasks") if isinstance(data, dict) else None
    out = []
    for task in tasks if isinstance(tasks, list) else []:
        if not isinstance(task, dict) or not isinstance(task.get("command"), str):
            continue
        args = [a for a in task.get("args") or [] if isinstance(a, str)]
        out.append(" ".join([task["command"]] + [shlex.quote(a) for a in args]))
    return out


def _xml(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'") \
        .replace("&amp;", "&").strip()


def _without_comments(text: str) -> str:
    """JSON with // and /* */ comments and trailing commas (VS Code, Zed, dev containers) as plain JSON."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            i = end + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def parse_structured(text: str, path: str) -> object:
    """A settings file as data, by its name: JSON (with comments), TOML, YAML, or INI-style `key = value`
    lines; None when it parses as none of them."""
    name = posixpath.basename(path).lower()
    try:
        if name.endswith((".json", ".jsonc", ".code-workspace")):
            return _json_or_fragment(text)
        if name.endswith(".toml") or name in (".mise.toml", "mise.toml"):
            return tomllib.loads(text)
        if name.endswith((".yml", ".yaml")) or name in ("config",) and "apiVersion:" in text:
            return yaml.safe_load(text)
    except (ValueError, yaml.YAMLError, tomllib.TOMLDecodeError, RecursionError):
        return None
    pairs = {}  # ~/.aws/config, .npmrc, ~/.yarnrc: `key = value` (or `key value`) lines
    for line in text.splitlines():
        m = re.match(r"^\s*([\w.-]+)\s*(?:=\s*|\s+)(.+?)\s*$", line)
        if m and not line.lstrip().startswith(("#", ";", "[")):
            value = m.group(2)
            pairs[m.group(1)] = value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'" else value
    return pairs


def _json_or_fragment(text: str) -> object:
    """JSON with comments, or a fragment of an object (an edit's new lines: `"git.path": "x",`)."""
    plain = _without_comments(text)
    try:
        return json.loads(plain)
    except ValueError:
        pass
    try:
        return json.loads("{" + re.sub(r",(\s*)$", r"\1", plain.strip().strip("{}")) + "}")
    except ValueError:
        pass
    pairs = re.findall(r'"((?:[^"\\]|\\.)+)"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\[\]]*\])', plain)
    out = {}
    for key, value in pairs:
        try:
            out[key] = json.loads(value)
        except ValueError:
            continue
    if not out:
        raise ValueError("not JSON")
    return out


def _settings_commands(text: str, path: str) -> list[str]:
    """Commands named in a settings file: a `command` (with `args`/`arguments`), a `binary.path` (with
    `arguments`), and the values of keys that are commands wherever they sit (_COMMAND_KEYS); a file a tool
    runs in its own stead (yarnPath) is run with its interpreter. Unreadable: the whole text, the worst case."""
    plugins = _ini_section(text, "plugins") if posixpath.basename(path) == "config" else {}
    if plugins.get("cli_legacy_plugin_path"):  # ~/.aws/config [plugins]: the AWS CLI imports each module at start
        where = plugins.pop("cli_legacy_plugin_path")
        modules = [m for k, m in plugins.items() if re.fullmatch(r"[\w.]+", m)]
        return [f"python3 {shlex.quote(posixpath.join(where, m.replace('.', '/') + '.py'))}" for m in modules[:8]] + \
            _settings_commands(re.sub(r"(?ms)^\[plugins\].*?(?=^\[|\Z)", "", text), path)
    root = base_dir(path)  # the editor's ${workspaceFolder}: the folder it opened
    text = text.replace("${workspaceFolder}", root).replace("${workspaceRoot}", root)
    data = parse_structured(text, path)
    if data is None:
        return [text]
    out: list[str] = []
    for key, value, parent in _walk(data):
        low = key.lower()
        if low == "clangd.arguments" and isinstance(value, list):
            out += _query_drivers([str(v) for v in value], root)
            continue
        if low in ("command", "path") and isinstance(parent, dict):
            args = parent.get("args", parent.get("arguments"))
            words = _words(value)
            if words is None or (low == "path" and args is None):
                continue
            if isinstance(args, list):
                words += [str(a) for a in args if isinstance(a, (str, int, float))]
            # `command = "git branch --show-current"` with no args beside it: a command line (starship, tasks)
            out.append(words[0] if len(words) == 1 and args is None else " ".join(shlex.quote(w) for w in words))
        elif low in _COMMAND_KEYS or (low.endswith(".path") and low.startswith("git")):
            for item in value if isinstance(value, list) and low in _LINE_LISTS else [value]:
                words = _words(item)
                if words is not None:
                    out.append(words[0] if len(words) == 1 else " ".join(shlex.quote(w) for w in words))
        elif low in _PROGRAM_FILE_KEYS and isinstance(value, str):
            out.append(f"{_PROGRAM_FILE_KEYS[low]} {shlex.quote(value)}")
        elif low in _RUNTIME_OPTION_KEYS and isinstance(value, str):
            out.append(f"{_RUNTIME_OPTION_KEYS[low]} {value} -e ''")
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if isinstance(hooks, dict) and posixpath.basename(path).lstrip(".") in ("mise.toml", "mise.local.toml"):
        for value in hooks.values():
            words = _words(value)
            if words is not None:
                out.append(words[0] if len(words) == 1 else " ".join(shlex.quote(w) for w in words))
    return out


def _ini_section(text: str, name: str) -> dict[str, str]:
    """The `key = value` pairs of one [section] of an INI text."""
    pairs: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]\s*$", line)
        if header:
            inside = header.group(1) == name
            continue
        m = re.match(r"^\s*([\w.-]+)\s*=\s*(.*?)\s*$", line)
        if inside and m and not line.lstrip().startswith(("#", ";")):
            pairs[m.group(1)] = m.group(2)
    return pairs


def _tsserver_plugins(text: str, path: str) -> list[str]:
    """tsconfig.json's compilerOptions.plugins: tsserver requires each named package from node_modules (found
    upward from the config, as node does) in the editor's process; an unknown package asks as a program."""
    data = parse_structured(text, path if path.endswith(".json") else path + ".json")
    options = data.get("compilerOptions") if isinstance(data, dict) else None
    plugins = options.get("plugins") if isinstance(options, dict) else None
    out: list[str] = []
    for plugin in plugins if isinstance(plugins, list) else []:
        name = plugin.get("name") if isinstance(plugin, dict) else None
        if not isinstance(name, str) or not re.fullmatch(r"(?:@[\w.-]+/)?[\w.-]+", name):
            continue
        directory = posixpath.dirname(path)
        for _ in range(32):
            package = posixpath.join(directory, "node_modules", name)
            if posixpath.isdir(package):
                out.append(f"node {shlex.quote(_package_entry(package))}")
                break
            if directory in ("/", ""):
                break
            directory = posixpath.dirname(directory)
    return out[:8]


def _package_entry(package: str) -> str:
    """The file node loads for a package directory: its package.json `main`, else index.js."""
    try:
        with open(posixpath.join(package, "package.json"), encoding="utf-8") as handle:
            main = json.loads(handle.read(1 << 20)).get("main")
    except (OSError, ValueError, AttributeError, UnicodeDecodeError):
        main = None
    entry = posixpath.normpath(posixpath.join(package, main)) if isinstance(main, str) else posixpath.join(package, "index.js")
    return entry if posixpath.isfile(entry) or not posixpath.isfile(entry + ".js") else entry + ".js"


def _query_drivers(arguments: list[str], root: str) -> list[str]:
    """clangd --query-driver=GLOBS: clangd runs every compiler of compile_commands.json that a glob matches (to
    learn its include paths), as `DRIVER -E -v -x c -`; the compilers the project's database names are those."""
    globs = [g for a in arguments if a.startswith("--query-driver=") for g in a.partition("=")[2].split(",") if g]
    if not globs:
        return []
    dirs = [a.partition("=")[2] for a in arguments if a.startswith("--compile-commands-dir=")]
    dirs = [posixpath.join(root, d) for d in dirs] + [root, posixpath.join(root, "build")]
    drivers: list[str] = []
    for directory in dirs:
        try:
            with open(posixpath.join(directory, "compile_commands.json"), encoding="utf-8") as handle:
                entries = json.loads(handle.read(4 << 20))
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            argv = entry.get("arguments")
            try:
                first = argv[0] if isinstance(argv, list) and argv else shlex.split(str(entry.get("command", "")))[0]
            except (ValueError, IndexError):
                continue
            base = str(entry.get("directory") or directory)
            driver = posixpath.normpath(posixpath.join(base, str(first))) if "/" in str(first) else str(first)
            if driver not in drivers and any(fnmatch.fnmatchcase(driver, g) for g in globs):
                drivers.append(driver)
        if drivers:
            break
    return [f"{shlex.quote(d)} -E -v -x c /dev/null" for d in drivers[:8]]


def _words(value: object) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    return None


def _walk(data: object, depth: int = 0) -> Iterator[tuple[str, object, object]]:
    """(key, value, the mapping holding it) for every key of nested data (INI pairs give their values)."""
    if depth > 24:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            yield str(key), value, data
            yield from _walk(value, depth + 1)
    elif isinstance(data, list):
        for item in data:
            yield from _walk(item, depth + 1)


def _tilt_commands(text: str) -> list[str]:
    """A Tiltfile's local('…') / local_resource(cmd='…') / custom_build(command='…') command strings."""
    out = []
    for m in list(_TILT_CALLS.finditer(text)) + list(_TILT_KEYS.finditer(text)):
        s = re.match(r"""\s*(?:\[\s*)?(?P<q>'''|\"\"\"|'|")(?P<s>.*?)(?P=q)""", text[m.end():], re.S)
        if s:
            out.append(s.group("s"))
    return out


# sway/i3 `exec[_always] [--no-startup-id] CMD` and `bindsym KEY exec CMD`; Hyprland `exec[-once] = CMD` and
# `bind = MODS, KEY, exec, CMD`; niri `spawn-at-startup "prog" "arg"`
_WM_EXEC = re.compile(r"(?m)^\s*(?:bind(?:sym|code)?\s+(?:--[\w-]+\s+)*\S+\s+)?exec(?:_always)?\s+"
                      r"(?:--no-startup-id\s+)?(?P<c>.+)$")
_HYPR_EXEC = re.compile(r"(?m)^\s*(?:exec(?:-once|-shutdown)?\s*=\s*(?P<c>.+)|bind\w*\s*=\s*[^,\n]*,[^,\n]*,\s*exec\s*,"
                        r"\s*(?P<b>.+))$")
_NIRI_SPAWN = re.compile(r'(?m)^\s*spawn-at-startup\s+(?P<a>(?:"[^"\n]*"\s*)+)')


def _wm_commands(text: str) -> list[str]:
    """What a window manager's config runs: at start, on reload, or on a key."""
    out = [m.group("c").strip() for m in _WM_EXEC.finditer(text)]
    out += [(m.group("c") or m.group("b")).strip() for m in _HYPR_EXEC.finditer(text)]
    out += [" ".join(shlex.quote(a) for a in re.findall(r'"([^"]*)"', m.group("a"))) for m in _NIRI_SPAWN.finditer(text)]
    return [c for c in out if c][:32]


# ghostty `command = …` / `initial-command = …`, foot `shell=…`, wezterm `default_prog = { 'sh', '-c', '…' }` (in a
# Lua file another kind reads whole)
_TERMINAL_KEY = re.compile(r"(?m)^\s*(?:initial-command|command|shell)\s*=\s*(?P<c>.+)$")
_WEZTERM_PROG = re.compile(r"default_prog\s*=\s*\{(?P<a>[^}]*)\}")


def _terminal_commands(text: str) -> list[str]:
    """The command a terminal's config starts in its windows (ghostty, foot, alacritty's [terminal.shell], wezterm)."""
    out: list[str] = []
    try:  # alacritty.toml: [terminal.shell] (or the older [shell]) program and args; key bindings' commands
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        data = None
    if isinstance(data, dict):
        shells = [((data.get("terminal") or {}).get("shell") if isinstance(data.get("terminal"), dict) else None),
                  data.get("shell")]
        bindings = (data.get("keyboard") or {}).get("bindings") if isinstance(data.get("keyboard"), dict) else None
        shells += [b.get("command") for b in bindings or () if isinstance(b, dict)]
        for shell in shells:
            if isinstance(shell, str):
                out.append(shell)
            elif isinstance(shell, dict) and isinstance(shell.get("program"), str):
                args = [a for a in shell.get("args") or () if isinstance(a, str)]
                out.append(" ".join(shlex.quote(w) for w in [shell["program"], *args]))
        if out:
            return out
    for m in _TERMINAL_KEY.finditer(text):
        command = m.group("c").strip()
        out.append(command[1:-1] if len(command) > 1 and command[0] == command[-1] == '"' else command)
    out += [" ".join(shlex.quote(a) for a in re.findall(r"""['"]((?:[^'"\\]|\\.)*)['"]""", m.group("a")))
            for m in _WEZTERM_PROG.finditer(text)]
    return [c.removeprefix("direct:") for c in out if c][:16]


def _kitty_commands(text: str) -> list[str]:
    """kitty.conf key maps: send_text types into a window (the same as `kitty @ send-text`), launch runs a program."""
    out = []
    for m in _KITTY_MAP.finditer(text):
        rest = m.group("rest").strip()
        if m.group("action") in ("send_text", "send_key"):
            out.append("kitty @ send-text " + shlex.quote(rest))
        elif m.group("action") == "launch":
            out.append(re.sub(r"^(?:--[\w-]+(?:=\S+)?\s+)*", "", rest))
    return out


def git_config_commands(text: str) -> list[str]:
    """The commands a git config file names: command-valued settings (core.pager, core.fsmonitor,
    core.sshCommand, core.editor, diff.external, filters, a `!` credential helper) and `!` aliases."""
    out = []
    for key, value in config_settings(text).items():
        name = key.rsplit(".", 1)[-1]
        if key.startswith("alias.") and value.startswith("!"):
            out.append(value[1:])
        elif key.startswith("credential") and name == "helper" and value.startswith("!"):
            out.append(value[1:])
        elif name in _GIT_COMMAND_SETTINGS and value.lower() not in ("true", "false", ""):
            out.append(value)
    for remote, refspecs in _remote_pushes(text).items():  # what a later plain `git push REMOTE` then does
        out += [f"git push {shlex.quote(remote)} {shlex.quote(r)}" for r in refspecs]
    return out


def _remote_pushes(text: str) -> dict[str, list[str]]:
    """Each remote's push refspecs (`--mirror` for a mirror remote), every value of a multi-valued key kept."""
    out: dict[str, list[str]] = {}
    remote = None
    for line in text.splitlines():
        line = line.strip()
        header = re.match(r'^\[\s*remote\s+"([^"]+)"\s*\]', line, re.I)
        if header or line.startswith("["):
            remote = header.group(1) if header else None
            continue
        key, eq, value = line.partition("=")
        key, value = key.strip().lower(), value.strip().strip('"')
        if remote and eq and key == "push" and value:
            out.setdefault(remote, []).append(value)
        elif remote and eq and key == "mirror" and value.lower() in ("true", "yes", "on", "1"):
            out.setdefault(remote, []).append("--mirror")
    return out


_GIT_COMMAND_SETTINGS = frozenset({"pager", "fsmonitor", "sshcommand", "editor", "external", "clean", "smudge",
                                   "process", "textconv", "command", "askpass", "sequenceeditor"})


def _compose_commands(text: str, home: str, project: str) -> list[str]:
    """A compose service's command and entrypoint, with the host directories it mounts put back where the
    container sees them (`~/.config:/host-config` then `rm -rf /host-config/guardtui` deletes ~/.config/guardtui)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return [text]
    services = data.get("services") if isinstance(data, dict) else None
    out = []
    for service in services.values() if isinstance(services, dict) else ():
        if not isinstance(service, dict):
            continue
        mounts = []
        for volume in service.get("volumes") or ():
            source = target = None
            if isinstance(volume, str) and ":" in volume:
                source, target = volume.split(":")[:2]
            elif isinstance(volume, dict):
                source, target = volume.get("source"), volume.get("target")
            if isinstance(source, str) and isinstance(target, str) and source.startswith(("/", "~", ".", "$")):
                source = re.sub(r"^(?:~|\$\{?HOME\}?)(?=/|$)", home, source)
                if source.startswith("."):
                    source = posixpath.normpath(posixpath.join(project, source))
                mounts.append((target.rstrip("/") or "/", source.rstrip("/") or "/"))
        mounts.sort(key=lambda m: -len(m[0]))
        for key in ("entrypoint", "command"):
            words = _words(service.get(key))
            if words is None:
                continue
            command = words[0] if len(words) == 1 else " ".join(shlex.quote(w) for w in words)
            for target, source in mounts:
                command = re.sub(re.escape(target) + r"""(?=/|$|[\s'";&|)])""", source, command)
            out.append(command)
    return out


# frontmatter settings of an agent definition or skill that take the person out of its permission prompts
_LOOSENING_MODES = frozenset({"bypassPermissions", "dontAsk"})


def agent_definition(text: str) -> tuple[str, list[str]]:
    """A Claude Code sub-agent or skill file's frontmatter: (what in it loosens the guard — a permission mode that
    skips the prompts, a PermissionRequest hook that answers them — or "", the commands its hooks run)."""
    m = re.match(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", text, re.S)
    if m is None:
        return "", []
    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return "", []
    if not isinstance(data, dict):
        return "", []
    mode = data.get("permissionMode") or data.get("permission-mode")
    if isinstance(mode, str) and mode in _LOOSENING_MODES:
        return f"permissionMode {mode} (its calls skip the permission prompts)", []
    hooks = data.get("hooks")
    commands = [str(v) for k, v, _ in _walk(hooks) if k == "command" and isinstance(v, str)] if hooks else []
    if isinstance(hooks, dict) and "PermissionRequest" in hooks:
        return "a PermissionRequest hook (it answers the permission prompts itself)", commands
    return "", commands


def _ssh_environment(text: str) -> list[str]:
    """SetEnv / SendEnv lines as the ssh commands they change (`ssh -o 'SetEnv DB=…' HOST`): every later ssh to
    the hosts of their block sends those variables (shell/channels.py judges what they carry)."""
    out, host = [], "any-host"
    for line in text.splitlines()[:2000]:
        m = re.match(r"\s*(Host|Match|SetEnv|SendEnv)\b\s*=?\s*(.*?)\s*$", line, re.I)
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2)
        if key == "host":
            host = next((h for h in value.split() if not h.startswith("!") and h != "*"), "any-host")
        elif key == "match":
            host = "any-host"
        elif value:
            out.append(f"ssh -o {shlex.quote(m.group(1) + ' ' + value)} {shlex.quote(host)}")
    return out[:16]


def _library_config_commands(text: str, path: str) -> list[str]:
    """What a Python library's configuration file (data/libconfigs.yaml) makes every script that uses it run:
    its modules imported, its expressions evaluated, its commands run."""
    name = posixpath.basename(path)
    out: list[str] = []
    for lib in libraries():
        if not any(posixpath.basename(f) == name for f in lib.get("files") or ()) and lib.get("dir_file") != name:
            continue
        for kind, payload in code_in_config(text, lib, path):
            # a module as `python3 -m`, which finds the project's own (src/ too) where the plotting runs
            out.append(payload if kind == "shell" else f"python3 -m {payload}" if kind == "module" else
                       f"python3 -c {shlex.quote(payload)}")
    return out[:16]
