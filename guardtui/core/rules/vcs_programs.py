"""Programs Mercurial and Jujutsu run from their configuration when a command of theirs runs: hg loads every
extension a repository's .hg/hgrc (or the person's ~/.hgrc) names on ANY command, runs [hooks] around the
command and `!` aliases through the shell; jj pipes files through the repository's fix.tools on `jj fix`,
runs an alias's `util exec` program and pages its output through ui.pager. Each is returned as the shell text
it amounts to, for later.py to judge as the agent's own command (git's own settings are cmd_git's and
later.py's _repository_commands).

A `--config section.name=VALUE` on the command line wins over the files (`hg --config extensions.x=! status`
runs without x). Nothing here judges."""
from __future__ import annotations

import glob
import os
import posixpath
import re
import shlex
import tomllib
from collections.abc import Iterator

from ..shell.projectfiles import read_text

_SEGMENT = re.compile(r"&&|\|\||[;&|\n(){}`]|\$\(")
_LEADING = frozenset({"sudo", "env", "exec", "command", "time", "nice", "nohup", "xargs", "timeout", "then", "do",
                      "else", "!"})
_MAX_DIRS = 64
_MENTIONS = re.compile(r"(?<![\w.-])(?:hg|chg|jj)(?![\w.-])")

# --- Mercurial
_HG_VALUE_OPTIONS = frozenset({"-R", "--repository", "--repo", "--cwd", "--config", "--encoding", "--encodingmode",
                               "--color", "--pager", "--config-file"})
# hg's abbreviations and aliases of its commands, to their names (the ones hooks are named by)
_HG_NAMES = {"st": "status", "stat": "status", "ci": "commit", "com": "commit", "up": "update", "co": "update",
             "checkout": "update", "di": "diff", "dif": "diff", "pus": "push", "pul": "pull", "ann": "annotate",
             "blame": "annotate", "ad": "add", "rm": "remove", "mv": "rename", "move": "rename", "cp": "copy",
             "history": "log", "lo": "log"}
# the hooks each command fires beside its own pre-/post-/fail- ones
_HG_EVENTS = {
    "commit": ("precommit", "pretxnopen", "pretxncommit", "pretxnclose", "txnclose", "commit"),
    "pull": ("prechangegroup", "pretxnchangegroup", "changegroup", "incoming", "pretxnclose", "txnclose",
             "preupdate", "update"),
    "unbundle": ("prechangegroup", "pretxnchangegroup", "changegroup", "incoming"),
    "push": ("preoutgoing", "outgoing", "prepushkey", "pushkey"),
    "update": ("preupdate", "update"), "merge": ("preupdate", "update"), "clone": ("preupdate", "update"),
    "rebase": ("precommit", "pretxncommit", "commit", "preupdate", "update"),
    "tag": ("pretag", "tag", "precommit", "commit"),
}
_HG_PAGED = frozenset({"log", "diff", "annotate", "cat", "export", "grep", "help", "outgoing", "incoming", "show",
                       "config", "files", "manifest", "heads", "tags", "branches", "bookmarks", "summary"})
_HG_REMOTE = frozenset({"push", "pull", "clone", "incoming", "outgoing", "share"})
_HG_MERGING = frozenset({"merge", "update", "rebase", "resolve", "graft", "histedit", "unshelve", "backout"})


def vcs_commands(command: str, cwd: str, home: str) -> Iterator[tuple[str, str]]:
    """(shell text, what runs it) for what each hg/jj invocation of the command runs from configuration."""
    if not _MENTIONS.search(command):
        return
    for words in _invocations(command, ("hg", "chg", "jj")):
        tool = posixpath.basename(words[0])
        if tool in ("hg", "chg"):
            yield from _hg(words[1:], cwd, home)
        else:
            yield from _jj(words[1:], cwd, home)


def _invocations(command: str, names: tuple[str, ...]) -> Iterator[list[str]]:
    for part in _SEGMENT.split(command):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        while words and (words[0] in _LEADING or re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]) or
                         words[0].startswith("-") and words[0] != "--"):
            words = words[1:]
        if words and posixpath.basename(words[0]) in names:
            yield words


def _global_options(words: list[str], value_options: frozenset[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Options (anywhere: hg and jj take global options after the command too) and the other words."""
    options: dict[str, list[str]] = {}
    rest: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        flag, eq, value = word.partition("=")
        if word == "--":
            rest += words[i:]
            break
        if flag in value_options:
            if not eq:
                i += 1
                value = words[i] if i < len(words) else ""
            options.setdefault(flag, []).append(value)
        elif len(word) > 2 and word[:2] in value_options and not word.startswith("--"):
            options.setdefault(word[:2], []).append(word[2:])  # -Rpath
        else:
            rest.append(word)
        i += 1
    return options, rest


def _up_to(start: str, marker: str) -> str | None:
    here = posixpath.normpath(start)
    for _ in range(_MAX_DIRS):
        if os.path.isdir(posixpath.join(here, marker)):
            return here
        parent = posixpath.dirname(here)
        if parent == here:
            return None
        here = parent
    return None


def _where(options: dict[str, list[str]], keys: tuple[str, ...], cwd: str, home: str) -> str:
    for key in keys:
        for value in options.get(key, ()):
            value = re.sub(r"^~(?=/|$)", home, value)
            cwd = posixpath.normpath(posixpath.join(cwd, value))
    return cwd


def hgrc_sections(text: str) -> dict[str, dict[str, str]]:
    """An hgrc as {section: {name: value}} (continuation lines joined, %unset honoured, later names win)."""
    out: dict[str, dict[str, str]] = {}
    section, key = "", None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        if line[0] in " \t" and key is not None:  # a continuation of the value above
            out[section][key] += "\n" + line.strip()
            continue
        header = re.match(r"^\[([^\]]+)\]", line)
        if header:
            section, key = header.group(1).strip().lower(), None
            out.setdefault(section, {})
            continue
        unset = re.match(r"^%unset\s+(\S+)", line)
        if unset:
            out.get(section, {}).pop(unset.group(1), None)
            continue
        m = re.match(r"^([^=\s][^=]*?)\s*=\s*(.*)$", line)
        if m and not line.startswith("%"):
            key = m.group(1).strip()
            out.setdefault(section, {})[key] = m.group(2).strip()
    return out


def _hg(words: list[str], cwd: str, home: str) -> Iterator[tuple[str, str]]:
    options, rest = _global_options(words, _HG_VALUE_OPTIONS)
    sub = next((w for w in rest if not w.startswith("-")), "")
    here = _where(options, ("--cwd", "-R", "--repository", "--repo"), cwd, home)
    root = _up_to(here, ".hg")
    files = [posixpath.join(home, ".hgrc"), posixpath.join(home, ".config", "hg", "hgrc")]
    if root:
        files.append(posixpath.join(root, ".hg", "hgrc"))
    config: dict[str, dict[str, tuple[str, str]]] = {}  # section → name → (value, the file it came from)
    for file in files:
        for section, values in hgrc_sections(read_text(file) or "").items():
            for name, value in values.items():
                config.setdefault(section, {})[name] = (value, file)
    for override in options.get("--config", ()):
        name, eq, value = override.partition("=")
        section, dot, key = name.partition(".")
        if eq and dot:
            config.setdefault(section.lower(), {})[key] = (value, "the command line")
    base = root or here

    def value_of(section: str, name: str) -> tuple[str, str]:
        return config.get(section, {}).get(name, ("", ""))

    for name, (value, file) in config.get("extensions", {}).items():
        if value and not value.startswith("!"):  # a bare name is one of hg's own; a path is code it imports
            path = posixpath.normpath(posixpath.join(base, re.sub(r"^~(?=/)", home, value)))
            yield f"python3 {shlex.quote(path)}", f"makes hg import the extension {name} ({path}, from {file})"
    alias, alias_file = value_of("alias", sub)
    if alias.startswith("!"):
        yield alias[1:].replace("$HG", "hg"), f"makes hg run the shell alias {sub} (from {alias_file})"
    elif alias:
        sub = alias.split()[0]
    name = _HG_NAMES.get(sub, sub)
    events = {f"pre-{name}", f"post-{name}", f"fail-{name}", *_HG_EVENTS.get(name, ())}
    for hook, (value, file) in config.get("hooks", {}).items():
        if hook.split(".")[0] not in events or not value:
            continue
        python = re.match(r"python:(.+\.py):\w+$", value)
        if python:
            path = posixpath.normpath(posixpath.join(base, re.sub(r"^~(?=/)", home, python.group(1))))
            yield f"python3 {shlex.quote(path)}", f"makes hg run the hook {hook} (from {file})"
        elif not value.startswith("python:"):
            yield value.replace("$HG", "hg"), f"makes hg run the hook {hook} (from {file})"
    programs = []
    if name in _HG_PAGED and not {"never", "off", "false"} & set(options.get("--pager", ())):
        programs += [("pager", "pager"), ("ui", "pager")]
    if name in _HG_REMOTE:
        programs.append(("ui", "ssh"))
    if name in _HG_MERGING:
        programs.append(("ui", "merge"))
    if name == "commit" and not {"-m", "-l", "--message", "--logfile"} & {w.split("=")[0] for w in rest}:
        programs.append(("ui", "editor"))
    for section, key in programs:
        value, file = value_of(section, key)
        if value and not re.fullmatch(r"(?:internal:|:)\w+", value):
            yield value, f"makes hg run {section}.{key} (from {file})"


# --- Jujutsu
_JJ_VALUE_OPTIONS = frozenset({"-R", "--repository", "--config", "--config-toml", "--config-file", "--at-operation",
                               "--at-op", "--color"})
_JJ_PAGED = frozenset({"log", "diff", "show", "status", "st", "op", "operation", "evolog", "obslog", "help",
                       "file", "interdiff", "config", "bookmark", "tag", "files", "cat"})
_JJ_EDITING = frozenset({"describe", "desc", "commit", "ci", "split", "squash", "new"})


def _merge(into: dict, new: dict) -> None:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _toml(path: str) -> dict:
    try:
        data = tomllib.loads(read_text(path) or "")
    except (tomllib.TOMLDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _dig(data: dict, dotted: str):
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _as_command(value) -> str:
    """A jj command setting (a string, a list of words, or a table with `command`) as shell text."""
    if isinstance(value, dict):
        value = value.get("command") or value.get("program")
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(w, str) for w in value):
        return " ".join(shlex.quote(w) for w in value)
    return ""


def _jj(words: list[str], cwd: str, home: str) -> Iterator[tuple[str, str]]:
    options, rest = _global_options(words, _JJ_VALUE_OPTIONS)
    here = _where(options, ("-R", "--repository"), cwd, home)
    root = _up_to(here, ".jj")
    config: dict = {}
    files = [posixpath.join(home, ".jjconfig.toml"), posixpath.join(home, ".config", "jj", "config.toml")]
    files += sorted(glob.glob(posixpath.join(glob.escape(home), ".config", "jj", "conf.d", "*.toml")))[:16]
    if root:
        files += [posixpath.join(root, ".jj", "repo", "config.toml"), posixpath.join(root, ".jj", "config.toml")]
    for file in files:
        _merge(config, _toml(file))
    for override in options.get("--config", ()) + options.get("--config-toml", ()):
        try:
            _merge(config, tomllib.loads(override))
        except (tomllib.TOMLDecodeError, ValueError):
            name, eq, value = override.partition("=")
            if eq:
                node = config
                *parents, last = name.strip().split(".")
                for part in parents:
                    node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
                node[last] = value
    positionals = [w for w in rest if not w.startswith("-")]
    sub = positionals[0] if positionals else ""
    alias = _dig(config, f"aliases.{sub}") if sub else None
    if isinstance(alias, list) and all(isinstance(w, str) for w in alias):
        if alias[:2] == ["util", "exec"]:
            program = alias[2:]
            program = program[1:] if program[:1] == ["--"] else program
            yield " ".join(shlex.quote(w) for w in program), f"makes jj run the alias {sub}'s program (util exec)"
            return
        sub = next((w for w in alias if not w.startswith("-")), sub)
    where = f"{root}/.jj" if root else "jj's configuration"
    if sub == "fix":
        tools = _dig(config, "fix.tools")
        for name, tool in (tools.items() if isinstance(tools, dict) else ()):
            if isinstance(tool, dict) and tool.get("enabled", True) is not False:
                command = _as_command(tool.get("command"))
                if command:
                    yield command, f"makes jj fix run the tool {name} (from {where})"
        legacy = _as_command(_dig(config, "fix.tool-command"))
        if legacy:
            yield legacy, "makes jj fix run fix.tool-command"
    settings = []
    if sub in _JJ_PAGED and _dig(config, "ui.paginate") != "never" and "--no-pager" not in rest:
        settings.append("ui.pager")
    if sub in _JJ_EDITING and not {"-m", "--message"} & {w.split("=")[0] for w in rest}:
        settings.append("ui.editor")
    if sub in ("split", "diffedit") or sub in ("squash", "commit", "restore") and "-i" in rest:
        settings.append("ui.diff-editor")
    if sub in ("diff", "show", "log", "interdiff", "evolog"):
        settings.append("ui.diff-formatter")
        settings.append("ui.diff.tool")
    for key in settings:
        value = _dig(config, key)
        command = _as_command(value)
        if isinstance(value, str) and value.startswith(":"):
            continue  # one of jj's built-in formats
        tool = _dig(config, f"merge-tools.{command}") if command and " " not in command else None
        if isinstance(tool, dict):  # a name of a merge-tools entry: its program and arguments
            command = " ".join(shlex.quote(w) for w in [str(tool.get("program") or command)] +
                               [str(a) for a in tool.get("diff-args") or tool.get("edit-args") or ()])
        if command and command not in ("less", "less -FRX", "more", "vim", "nano", "vi", "nvim", "emacs"):
            yield command, f"makes jj run {key} (from {where})"
