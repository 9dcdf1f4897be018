"""guardtui install / uninstall AGENT: put guardtui's hook entries into an agent's settings, or
take exactly them out again.

Install merges into what is there (other hooks and settings are kept), is idempotent (a second
run changes nothing), and keeps a backup of the file it changes (`<file>.guardtui.bak`). Its
entries are recognised by what they run: guardtui's hook script, or the broker's /hooks/ URL on
loopback.

    agent         file (--user)                            file (--project DIR)
    claude        ~/.claude/settings.json                  DIR/.claude/settings.local.json
    codex         $CODEX_HOME/hooks.json (~/.codex)        DIR/.codex/hooks.json
    gemini        ~/.gemini/settings.json                  DIR/.gemini/settings.json
    cursor        ~/.cursor/hooks.json                     DIR/.cursor/hooks.json
    docker-agent  <config>/cagent/hooks.d/50-guardtui.yaml (user only)

For Codex, install also records Codex's trust in the two hooks it adds (Codex skips an untrusted
hook without a word), through `codex app-server`, and uninstall takes that trust out again: see
codex_trust.py. Without `codex` on PATH it says what to do instead.

The command hook runs this installation's own interpreter on its guardtui/hook.py with `-S` (no
site-packages scan: it starts faster than a pip console script). The HTTP hook (Claude Code
only) carries the broker's token, so it is written only to user-local files: Claude's
settings.local.json is never committed.
"""
from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..core.hook_settings import is_ours  # how guardtui's entries are recognised: one rule, in core/data/protect.yaml

HOOK_TIMEOUT_S = 600  # what the entries ask of the agent; the broker answers a little before
BACKUP_SUFFIX = ".guardtui.bak"
DROP_IN = "50-guardtui.yaml"



class InstallError(Exception):
    pass


@dataclass(frozen=True)
class Target:
    agent: str
    path: Path
    http: bool
    port: int
    user: bool = False  # the user's settings (else a project's)


def run(args, command: str) -> int:
    from ..core.config import Locations
    from . import codex_trust

    locations = Locations.from_env()
    port_note = None
    try:
        port = args.port
        if command == "install" and args.http and port is None:
            port, port_note = console_port(locations)
        target = resolve_target(args.agent, project=args.project, user=args.user, http=args.http,
                                port=port, env=os.environ)
        trust = codex_trust.Trust(target, os.environ) if target.agent == "codex" else None
        if trust is not None and command == "uninstall":
            trust.read_before_uninstall()
        if command == "install":
            changed, backup = install(target, locations)
            verb = "installed" if changed else "already installed"
            kind = f"HTTP hook to 127.0.0.1:{target.port}" if target.http else "command hook"
        else:
            # without --http or --command every guardtui entry goes, and the message names what went
            kinds = {"http"} if args.http else {"command"} if args.command_hook else {"http", "command"}
            removed, backup, deleted = uninstall(target, kinds)
            changed = bool(removed)
            verb = "removed" if removed else "nothing to remove"
            kind = " and ".join(KIND_NAMES[k] for k in sorted(removed or kinds))
            if deleted:
                kind += "; nothing else was in the file, so it is gone"
    except InstallError as exc:
        print(f"guardtui {command}: {exc}", file=sys.stderr)
        return 1
    print(f"guardtui {command} {target.agent}: {verb} ({kind}) in {target.path}")
    if port_note and changed:
        print(f"  note: {port_note}")
    if backup is not None:
        print(f"  the previous file is kept in {backup}")
    status = 0
    if trust is not None:  # Codex runs only hooks it trusts, and skips the others without a word
        status = trust.after_install() if command == "install" else trust.after_uninstall()
    if changed and command == "install":
        for line in NOTES.get(target.agent, ()):
            print(f"  note: {line}")
    return status


KIND_NAMES = {"command": "command hook", "http": "HTTP hook"}


def console_port(locations) -> tuple[int, str | None]:
    """The port an HTTP hook should name: the running console's, else the default (and a note saying so)."""
    import socket

    from ..broker.server import DEFAULT_PORT, port_file

    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2.0)
    try:
        probe.connect(str(locations.socket_path))
        text = port_file(locations).read_text(encoding="ascii").strip()
        if text.isdigit():
            return int(text), None
    except OSError:
        pass
    finally:
        probe.close()
    return DEFAULT_PORT, (f"no console is running, so the hook names port {DEFAULT_PORT}, the console's default: "
                          f"start it on that port (or install again, with --port, while it runs)")


NOTES = {
    "gemini": ("Gemini hooks cannot approve a call: to make guardtui the approver, add a user policy "
               "(~/.gemini/policies/*.toml) that allows the tools guardtui guards. An ask waits for the "
               "console; with none running it is denied (Gemini's own prompt would hang a gemini -p run).",),
}


# -- where ---------------------------------------------------------------------------------
def resolve_target(agent: str, *, project: str | None, user: bool, http: bool, port: int | None,
                   env: dict | os._Environ) -> Target:
    from ..broker.server import DEFAULT_PORT

    if http and agent != "claude":
        raise InstallError(f"{agent} has no HTTP hooks; use the command hook (--command)")
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if agent == "docker-agent":
        if project is not None:
            raise InstallError("docker-agent reads hooks from the user's hooks.d directory; use --user")
        base = env.get("DOCKER_AGENT_CONFIG_DIR") or env.get("CAGENT_CONFIG_DIR")
        config = Path(base) if base else Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "cagent"
        return Target(agent, config / "hooks.d" / DROP_IN, False, 0, True)
    if user:
        path = {"claude": home / ".claude" / "settings.json",
                "codex": Path(env.get("CODEX_HOME") or home / ".codex") / "hooks.json",
                "gemini": home / ".gemini" / "settings.json",
                "cursor": home / ".cursor" / "hooks.json"}[agent]
    else:
        root = Path(project or ".").resolve()
        if not root.is_dir():
            raise InstallError(f"{root} is not a directory")
        path = {"claude": root / ".claude" / "settings.local.json", "codex": root / ".codex" / "hooks.json",
                "gemini": root / ".gemini" / "settings.json", "cursor": root / ".cursor" / "hooks.json"}[agent]
    return Target(agent, path, http, DEFAULT_PORT if port is None else port, user)


# -- what ----------------------------------------------------------------------------------
def hook_command(agent: str, timeout: int = HOOK_TIMEOUT_S) -> str:
    """The command an agent runs for each call: this interpreter, -S, guardtui's hook script."""
    script = Path(__file__).resolve().parent.parent / "hook.py"  # the launcher: see guardtui/hook.py
    return f"{shlex.quote(sys.executable)} -S {shlex.quote(str(script))} {agent} --timeout {timeout}"


def entries(target: Target, token: Callable[[], str]) -> dict[str, list[tuple[str | None, dict]]]:
    """Per event: (matcher, handler) pairs guardtui adds."""
    command = hook_command(target.agent)
    if target.agent == "claude":
        if target.http:
            handler = {"type": "http", "url": f"http://127.0.0.1:{target.port}/hooks/claude?timeout={HOOK_TIMEOUT_S}",
                       "timeout": HOOK_TIMEOUT_S, "headers": {"Authorization": f"Bearer {token()}"}}
        else:
            handler = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
        return {"PreToolUse": [("*", handler)]}
    if target.agent == "codex":
        handler = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S,
                   "statusMessage": "Waiting for guardtui"}
        matcher = "Bash|apply_patch|mcp__.*"
        return {"PreToolUse": [(matcher, handler)], "PermissionRequest": [(matcher, dict(handler))]}
    if target.agent == "gemini":
        return {"BeforeTool": [(".*", {"name": "guardtui", "type": "command", "command": command,
                                       "timeout": HOOK_TIMEOUT_S * 1000,
                                       "description": "guardtui approval console"})]}
    if target.agent == "cursor":
        handler = {"command": command, "timeout": HOOK_TIMEOUT_S, "failClosed": True}
        return {"beforeShellExecution": [(None, handler)], "beforeMCPExecution": [(None, dict(handler))],
                "preToolUse": [(None, {**handler, "matcher": "Write|Edit|StrReplace|Delete|NotebookEdit"})]}
    raise InstallError(f"no JSON settings for {target.agent}")


def kind_of(handler: dict) -> str:
    return "http" if isinstance(handler.get("url"), str) and not isinstance(handler.get("command"), str) \
        else "command"


# -- doing it ------------------------------------------------------------------------------
def install(target: Target, locations) -> tuple[bool, Path | None]:
    if target.agent == "docker-agent":
        return _write(target.path, docker_agent_drop_in(hook_command("docker-agent")), private=False)
    from ..broker.auth import load_or_create_token

    settings = _read_json(target.path)
    merged = remove_ours(settings, target.agent)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f'{target.path}: "hooks" is not an object; fix it by hand first')
    for event, pairs in entries(target, lambda: load_or_create_token(locations)).items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f'{target.path}: hooks.{event} is not a list; fix it by hand first')
        for matcher, handler in pairs:
            if target.agent == "cursor":
                groups.append(handler)
            else:
                groups.append({"matcher": matcher, "hooks": [handler]})
    if target.agent == "cursor":
        merged.setdefault("version", 1)
    return _write(target.path, json.dumps(merged, indent=2) + "\n", private=target.http)


def uninstall(target: Target, kinds: frozenset[str] | set[str] = frozenset({"command", "http"})
              ) -> tuple[set[str], Path | None, bool]:
    """Take guardtui's entries of these kinds out: (the kinds removed, the backup, whether the file went
    because nothing else was in it)."""
    if target.agent == "docker-agent":
        if not target.path.exists() or "command" not in kinds:
            return set(), None, False
        target.path.unlink()
        return {"command"}, None, True
    if not target.path.exists():
        return set(), None, False
    settings = _read_json(target.path)
    cleaned = remove_ours(settings, target.agent, kinds)
    if cleaned == settings:
        return set(), None, False
    removed = {k for k in kinds if remove_ours(settings, target.agent, {k}) != settings}
    if cleaned in ({}, {"version": 1}):  # only guardtui's entries were there (or it made the file)
        target.path.unlink()
        return removed, None, True
    changed, backup = _write(target.path, json.dumps(cleaned, indent=2) + "\n", private=False)
    return removed, backup, False


def remove_ours(settings: dict, agent: str, kinds: frozenset[str] | set[str] = frozenset({"command", "http"})
                ) -> dict:
    """A copy of the settings without guardtui's hook entries of these kinds (and without what they alone
    filled)."""
    def ours(handler: Any) -> bool:
        return is_ours(handler) and kind_of(handler) in kinds

    settings = json.loads(json.dumps(settings))
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict) or not hooks:
        return settings
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if agent == "cursor":
                if not ours(group):
                    kept.append(group)
                continue
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list) or not any(ours(h) for h in handlers):
                kept.append(group)
                continue
            rest = [h for h in handlers if not ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        if kept:
            hooks[event] = kept
        elif groups:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    return settings


def docker_agent_drop_in(command: str) -> str:
    return (
        "# Written by `guardtui install docker-agent`; `guardtui uninstall docker-agent` removes this file.\n"
        "# pre_tool_use with preempt_yolo runs even under --yolo; its deny and ask stop the call, and a\n"
        "# failed pre_tool_use hook denies (fail closed).\n"
        "pre_tool_use:\n"
        "  - matcher: \"*\"\n"
        "    preempt_yolo: true\n"
        "    hooks:\n"
        "      - name: guardtui\n"
        "        type: command\n"
        f"        command: {json.dumps(command)}\n"
        f"        timeout: {HOOK_TIMEOUT_S}\n"
    )


def _read_json(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if text.strip() else {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix it by hand first") \
            from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it by hand first")
    return data


def _write(path: Path, text: str, *, private: bool) -> tuple[bool, Path | None]:
    """Write if the content changes; keep the previous file as a backup. (changed, backup path)"""
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        if private:
            os.chmod(path, 0o600)
        return False, None
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if old is not None:
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        backup.write_text(old, encoding="utf-8")
        os.chmod(backup, path.stat().st_mode & 0o777)
    mode = 0o600 if private else (path.stat().st_mode & 0o777 if old is not None else 0o644)
    tmp = path.with_name(f".{path.name}.guardtui-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True, backup
