"""Another coding agent started by the agent (claude -p, codex exec, gemini -p, cursor-agent): its
own calls go through its hooks, unless its command line switches them off. What switches them or
its approvals off is data (core/data/protect.yaml `agent_programs`, with the `bypass` keys that
settings files are judged by): a flag (`--dangerously-skip-permissions`, `--yolo`), an option's
value (`--approval-mode yolo`, `-a never`), settings handed in (`--settings '{"disableAllHooks":
true}'`, `-c features.hooks=false`), a config directory of the caller's choosing (`CODEX_HOME=/tmp/x
codex`), or settings levels left out (`--setting-sources project` when guardtui's hook entries are
in the user's or the local settings). Each denies: the person starts an unguarded agent themselves.

Anything else returns nothing here: the taxonomy (or the default) judges the command.
"""
from __future__ import annotations

import fnmatch
import json
import os
import posixpath
import re
import shlex
import tomllib
from typing import TYPE_CHECKING, Any

from ..hook_settings import MAX_TEXT, Unreadable, bypasses, our_entries, parse
from ..protect import agent_of_program, cuts_network, protect_data
from ..model import BlastRadius
from .findings import Finding, allow, ask, deny
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_WHY = ("its calls would not reach the guard: an agent may not start another one unguarded; if you mean it, run "
        "it yourself in a terminal")
_UNHOOKED = ("guardtui has no hooks in it, so it would run whatever it decides with no one asked: an agent may not "
             "start one that way; if you mean it, run it yourself in a terminal")
_APPROVALS = ("it would run what it is told with no one asked (an ask the guard hands back to its prompt "
              "included): an agent may not start another one so; if you mean it, run it yourself in a terminal")
# where each agent keeps the settings levels `--setting-sources` names (Claude Code)
_CLAUDE_LEVELS = {"user": "{config}/settings.json", "project": "{project}/.claude/settings.json",
                  "local": "{project}/.claude/settings.local.json"}


def agent_of(name: str) -> str | None:
    """The agent a program name starts (`claude`, `codex` …), or None."""
    return agent_of_program(name)


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    agent = agent_of(inv.name)
    if agent is None:
        return []
    spec = protect_data().agent_programs[agent]
    shown = posixpath.basename(inv.name)
    flags = set(spec.get("flags", ()))
    values_off = spec.get("values", {})
    settings_opts = set(spec.get("settings", ()))
    override_opts = set(spec.get("overrides", ()))
    sources_opt = spec.get("sources", "")
    words = [w.value for w in inv.words]
    # its prompt is words for rules/protect.py to read: told to change the guard, the run denies
    run.result.data.append(("task", "\n".join(w.replace(DYN, " ") for w in words)[:20000]))
    unhooked = bool(spec.get("unhooked"))
    approvals = _UNHOOKED if unhooked else _APPROVALS
    arguments = " ".join(w for w in words if DYN not in w)
    for pattern in spec.get("loosens", ()):
        if re.search(pattern, arguments):
            return _denied(f"{shown} {arguments[:60]} changes {shown}'s own hooks or approvals for every later run")
    written = _settings_written(spec, arguments, inv)
    if written:  # codex mcp add: ~/.codex/config.toml changes, judged as that file's edit would be
        found = run.write(Word.literal(written), inv, f"{shown} {' '.join(words[:2])} writes")
        if found is not None:
            run.add(found)
    if words[:2] == ["mcp", "add"] or words[:2] == ["mcp", "add-json"]:
        # claude/codex/gemini mcp add NAME -- CMD: CMD starts with every session, outside any judged call
        if "--" in words and words.index("--") + 1 < len(words):
            run.nested(" ".join(shlex.quote(w) for w in words[words.index("--") + 1:]), inv, f"{shown} mcp add")
        return [ask(f"{shown} mcp add registers an MCP server that starts with every {shown} session", "agent",
                    BlastRadius.MEDIUM, "agent.mcp-add")]
    offline = _offline_wrapper(inv)
    if offline:
        return _denied(f"{offline} starts {shown} without this machine's network: its hooks cannot reach the console, "
                       "and a hook that cannot connect lets the call through")
    env = dict(inv.scope.variables)
    env.update({name: word.value for name, word in inv.cmd.assignments})
    for name, accepted in (spec.get("env_values") or {}).items():
        value = env.get(name)
        if value and any(fnmatch.fnmatchcase(value, a) for a in accepted):
            return _denied(f"{name}={value[:40]} switches {shown}'s approvals off", approvals)
    for i, v in enumerate(words):
        if v == "--":
            break
        option, eq, attached = v.partition("=")
        value = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
        if option in spec.get("values_any", ()) and value:
            return _denied(f"{shown} {option} {value} hands its permission prompts to a tool of the caller's choosing",
                           _APPROVALS)
        if v in flags or option in flags:
            return _denied(f"{shown} {v} switches its own approvals off", approvals)
        if option in values_off and value in values_off[option]:
            return _denied(f"{shown} {option} {value} switches its own approvals or hooks off", approvals)
        if len(v) > 2 and v[:2] in values_off and not v.startswith("--") and v[2:] in values_off[v[:2]]:
            return _denied(f"{shown} {v} switches its own approvals or hooks off", approvals)
        if option in settings_opts and value:
            found = _settings_bypass(value, agent, inv)
            if found:
                return _denied(f"{shown} {option} hands it settings that {found}")
        if option in override_opts and value:
            found = _override_bypass(value, agent)
            if found:
                return _denied(f"{shown} {option} {value} sets {found}")
        if sources_opt and option == sources_opt and value and DYN not in value:
            dropped = _dropped_levels(value, inv)
            if dropped:
                return _denied(f"{shown} {option} {value} leaves out the {dropped} settings, where guardtui's hook "
                               "entries are")
    for var in spec.get("settings_env", ()):  # GEMINI_CLI_SYSTEM_SETTINGS_PATH=x.json: settings over the user's
        value = next((w.value for name, w in inv.cmd.assignments if name == var), None) or inv.scope.variables.get(var)
        if value:
            found = _settings_bypass(value, agent, inv) if DYN not in value else "are known only at run time"
            if found:
                return _denied(f"{var}={value[:40]} hands {shown} settings that {found}")
    for var in spec.get("config_env", ()):
        moved = _config_moved(var, agent, inv)
        if moved:
            return _denied(f"{var}={moved} points {shown} at a config directory without guardtui's hooks")
    for name, word in inv.cmd.assignments:
        if name in protect_data().hook_env and not _system_path(name, word.raw):
            return _denied(f"{name}={word.display()} chooses the programs {shown}'s hooks run (guardtui's hook "
                           "among them)")
    tool_options = tuple(spec.get("tool_options", ()))
    if unhooked and tool_options:  # llm: an agent only when handed tools
        handed = next((w for w in words if w in tool_options or w.partition("=")[0] in tool_options), None)
        if handed is None:
            return [allow(f"{shown} without tools turns text into text: it runs nothing", "read-only",
                          rule="agent.text-only")]
        if not set(words) & set(spec.get("approve", ())):
            return _denied(f"{shown} {handed} hands it tools it calls as the model picks, with no one asked",
                           approvals)
    if unhooked:
        return [ask(f"{shown} starts an agent guardtui has no hooks in: what it runs is not judged, only its own "
                    f"prompts stand between it and this machine", "agent", BlastRadius.HIGH, "agent.unhooked")]
    return [allow(f"{shown} starts another agent: its calls go through its own hooks, judged one by one",
                  "agent", rule="agent.hooked")]


def _offline_wrapper(inv: "Invocation") -> str:
    """The wrapper words before the agent's program that give it a network namespace of its own
    (protect.yaml offline_wrappers: `unshare --user --net`), or ""."""
    programs = {posixpath.basename(inv.name), *protect_data().agent_programs[agent_of(inv.name)].get("programs", ())}
    wrapper, words = "", []
    for word in inv.cmd.argv:
        base = posixpath.basename(word.value)
        if base in programs:
            break
        if base in protect_data().offline_wrappers:
            wrapper, words = base, []
        elif wrapper:
            words.append(word.value)
    cut = cuts_network(wrapper, words) if wrapper else ""
    return f"{wrapper} {cut}" if cut else ""


_SYSTEM_DIRS = ("/usr/", "/bin", "/sbin", "/opt/homebrew/", "/usr/local/", "/nix/", "/snap/")


def _settings_written(spec: dict, arguments: str, inv: "Invocation") -> str | None:
    """The settings file one of the agent's own subcommands writes (`codex mcp add` → ~/.codex/config.toml), by
    protect.yaml settings_writes: the first pattern that matches; of its files the first whose place is known."""
    env = dict(inv.scope.variables)
    env.update({name: word.value for name, word in inv.cmd.assignments})
    for pattern, paths in (spec.get("settings_writes") or {}).items():
        if not re.search(pattern, arguments):
            continue
        for path in paths:
            head, _, rest = path.partition("/")
            if head == "~":
                return posixpath.join(inv.scope.home, rest)
            if head == "<cwd>" and inv.scope.cwd:
                return posixpath.join(inv.scope.cwd, rest)
            if head.startswith("$") and env.get(head[1:]) and DYN not in env[head[1:]]:
                return posixpath.join(env[head[1:]], rest)
        return None
    return None


def _system_path(name: str, value: str) -> bool:
    """PATH=/usr/local/bin:$PATH only puts system directories first; anything else (a project's shim, a
    temp dir, a Python path) is of the caller's choosing."""
    if name != "PATH":
        return False
    return all(p in ("$PATH", "${PATH}") or (p.startswith(_SYSTEM_DIRS) and "$" not in p)
               for p in value.strip("\"'").split(":") if p)


def _denied(what: str, why: str = _WHY) -> list[Finding]:
    return [deny(f"{what}: {why}", "guard-self", "agent.unguarded")]


def _settings_bypass(value: str, agent: str, inv: "Invocation") -> str:
    """`--settings '{"disableAllHooks": true}'` or `--settings file.json`: the bypass it holds."""
    if DYN in value:
        return "are known only at run time"
    text = value
    if not value.lstrip().startswith("{"):
        path = _local(value, inv)
        try:
            if path is None or os.path.getsize(path) > MAX_TEXT:
                return "cannot be read here"
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            return ""  # no such file: the agent refuses to start
    try:
        data = parse(text, "json")
    except Unreadable:
        return "cannot be read here"
    found = bypasses(data, agent)
    return f"set {', '.join(found)}" if found else ""


def _override_bypass(value: str, agent: str) -> str:
    """codex -c features.hooks=false: the override as the TOML it is, judged for the bypass keys."""
    if DYN in value:
        return "a setting known only at run time"
    key, eq, raw = value.partition("=")
    if not eq:
        return ""
    data: Any
    try:
        data = tomllib.loads(f"{key.strip()} = {raw.strip()}")
    except tomllib.TOMLDecodeError:  # codex takes an unparsable value as a string
        try:
            data = tomllib.loads(f"{key.strip()} = {json.dumps(raw.strip())}")
        except tomllib.TOMLDecodeError:
            return ""
    found = bypasses(data, agent)
    return ", ".join(found)


def _dropped_levels(value: str, inv: "Invocation") -> str:
    """The settings levels left out that hold guardtui's hook entries (Claude Code)."""
    kept = {v.strip() for v in value.split(",")}
    home = inv.scope.home.rstrip("/")
    config = inv.scope.variables.get("CLAUDE_CONFIG_DIR") or home + "/.claude"
    project = (inv.scope.cwd or "").rstrip("/")
    dropped = []
    for level, template in _CLAUDE_LEVELS.items():
        if level in kept or (not project and "{project}" in template):
            continue
        if _holds_our_entries(template.format(config=config, project=project), "json"):
            dropped.append(level)
    if not dropped and "user" not in kept and not any(  # the user's level, where `guardtui install` puts them
            _holds_our_entries(_CLAUDE_LEVELS[level].format(config=config, project=project), "json")
            for level in kept if level in _CLAUDE_LEVELS and (project or level == "user")):
        dropped.append("user")
    return " and ".join(dropped)


def _config_moved(var: str, agent: str, inv: "Invocation") -> str:
    """CODEX_HOME=/tmp/x codex: the directory, when guardtui's hooks are not there."""
    value = None
    for name, word in inv.cmd.assignments:
        if name == var:
            value = word.value
    if value is None:
        value = inv.scope.variables.get(var)
    if value is None:
        return ""
    if DYN in value:
        return "…"
    if var == "HOME" and value.rstrip("/") == inv.scope.home.rstrip("/"):
        return ""
    path = _local(value, inv)
    if path is None:
        return value
    files = _IN_HOME.get(agent, []) if var == "HOME" else _IN_XDG.get(agent, []) if var == "XDG_CONFIG_HOME" else \
        _IN_CONFIG_DIR.get(agent, [])
    if any(_holds_our_entries(posixpath.join(path, f), "toml" if f.endswith(".toml") else "json") for f in files):
        return ""
    return value


# where each agent's hook settings are in the directory a variable names
_IN_CONFIG_DIR = {"claude": ["settings.json", "settings.local.json"], "codex": ["hooks.json", "config.toml"],
                  "docker-agent": ["config.yaml"]}
_IN_HOME = {"claude": [".claude/settings.json", ".claude/settings.local.json"], "codex": [".codex/hooks.json"],
            "gemini": [".gemini/settings.json"], "cursor": [".cursor/hooks.json"],
            "docker-agent": [".config/cagent/config.yaml"]}
_IN_XDG = {"docker-agent": ["cagent/config.yaml"]}


def _holds_our_entries(path: str, fmt: str) -> bool:
    try:
        if os.path.getsize(path) > MAX_TEXT:
            return True  # cannot tell: take it that it does
        with open(path, encoding="utf-8", errors="replace") as fh:
            return bool(our_entries(parse(fh.read(), fmt)))
    except OSError:
        return False
    except Unreadable:
        return True


def _local(value: str, inv: "Invocation") -> str | None:
    if value.startswith("~/"):
        return inv.scope.home.rstrip("/") + value[1:]
    if value.startswith("/"):
        return value
    return posixpath.join(inv.scope.cwd, value) if inv.scope.cwd else None


__all__ = ["judge", "agent_of"]
