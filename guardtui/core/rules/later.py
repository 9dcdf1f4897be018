"""Files that run later (shell start-up files, service units, launchd jobs, crontabs, git hooks, .envrc):
what is written there is judged as the commands it will run. Content the guard would deny denies now
(a .bashrc line that removes the hook settings, a unit whose ExecStart deletes guardtui's config, an
alias that starts an agent with its approvals off, a variable that points an agent at another config
home); anything else keeps the write's own verdict (the rules after this one). The same for what
runs them now: `direnv allow|exec` (.envrc), `git config core.hooksPath DIR && git …` (the hooks in DIR)."""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shlex
from collections.abc import Mapping

from ..catalog import runs_later
from ..hook_settings import apply_edits
from ..model import BlastRadius, Decision, ToolCall, Verdict
from ..protect import protect_data
from .base import EvalContext, resolve_path

_MAX_TEXT = 256 * 1024
_MAX_HOOKS = 16
_UNIT_LINE = re.compile(r"(?m)^\s*(?:Exec(?:Start|StartPre|StartPost|Stop|StopPost|Reload|Condition)|ExecPaths)\s*=\s*"
                        r"[-@+!:|]*(.+)$")
_PLIST_ARGS = re.compile(r"(?s)<key>\s*ProgramArguments\s*</key>\s*<array>(.*?)</array>")
_PLIST_PROGRAM = re.compile(r"(?s)<key>\s*Program\s*</key>\s*<string>(.*?)</string>")
_DESKTOP_EXEC = re.compile(r"(?m)^\s*Exec\s*=\s*(.+)$")
_ALIAS = re.compile(r"""(?m)^\s*alias\s+(?:--\s+)?[\w.-]+=(?P<q>['"]?)(?P<v>.*?)(?P=q)\s*$""")
_EXPORT = re.compile(r"(?m)^\s*(?:export\s+|set\s+-gx\s+|setenv\s+)?(?P<n>[A-Z_][A-Z0-9_]*)(?:=|\s+)")
_HOOKS_PATH = re.compile(r"core\.hooksPath[=\s]+(?P<d>\"[^\"]+\"|'[^']+'|\S+)")
_DIRENV = re.compile(r"\bdirenv\s+(?:allow|exec|reload|permit|grant)\b(?:\s+(?P<d>(?!-)[^\s;&|]+))?")


def later_kind(path: str, home: str) -> str | None:
    for pattern, kind in runs_later():
        glob = home.rstrip("/") + pattern[1:] if pattern.startswith("~/") else pattern
        if fnmatch.fnmatchcase(path, glob):
            return kind
    return None


def commands_in(text: str, kind: str, home: str) -> list[str]:
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
    if kind == "cron":  # five time fields (or @reboot) then the command; a system crontab adds a user
        out = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or re.match(r"^[A-Z_]+=", line):
                continue
            parts = line.split(None, 1 if line.startswith("@") else 5)
            out.append(parts[-1] if len(parts) > 1 else "")
        return out
    return []


def _xml(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'") \
        .replace("&amp;", "&").strip()


class LaterRule:
    id = "runs-later"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        targets: list[tuple[str, str | None]] = []  # (path, the new content when known)
        if call.tool in ("Write", "Edit", "MultiEdit") and call.file_path:
            path = resolve_path(call.file_path, call.cwd, ctx.home)
            targets.append((path, _new_text(call, path)))
        elif call.is_shell and call.command.strip():
            for effect in ctx.shell(call).writes:
                if effect.path and not effect.remote and effect.kind == "write":
                    targets.append((effect.path, effect.content))
            found = self._runs_now(call, ctx)
            if found is not None:
                return found
        for path, text in targets:
            kind = later_kind(path, ctx.home)
            if kind is None or text is None:
                continue
            found = self._judge_text(call, ctx, text, kind, f"writes {path}, which runs later")
            if found is not None:
                return found
        return None

    def _runs_now(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """direnv allow/exec (the .envrc it trusts and runs), core.hooksPath DIR then a git command (DIR's hooks)."""
        command = call.command
        for m in _DIRENV.finditer(command):
            where = resolve_path((m.group("d") or ".").strip("'\""), call.cwd, ctx.home)
            envrc = where if where.endswith(".envrc") else posixpath.join(where, ".envrc")
            text = _read(envrc)
            if text is not None:
                found = self._judge_text(call, ctx, text, "shell", f"runs {envrc} (direnv)")
                if found is not None:
                    return found
        for m in _HOOKS_PATH.finditer(command):
            if not re.search(r"\bgit\b(?![^;&|]*\bconfig\b)", command[m.end():]):
                continue  # no git command after it here: the hooks run later, judged when written
            directory = resolve_path(m.group("d").strip("'\""), call.cwd, ctx.home)
            try:
                names = sorted(os.listdir(directory))[:_MAX_HOOKS]
            except OSError:
                continue
            for name in names:
                text = _read(posixpath.join(directory, name))
                if text is None:
                    continue
                found = self._judge_text(call, ctx, text, "shell", f"makes git run {directory}/{name}")
                if found is not None:
                    return found
        return None

    def _judge_text(self, call: ToolCall, ctx: EvalContext, text: str, kind: str, what: str) -> Decision | None:
        home = ctx.home
        scripts = commands_in(text, kind, home)
        if kind == "shell":  # an alias is a command the person will type; an agent's config home moved
            scripts += [m.group("v") for m in _ALIAS.finditer(text)]
            moved = _agent_env(text)
            if moved:
                return Decision(Verdict.DENY, f"{call.tool} {what}: it sets {moved}, which points an agent at a config "
                                f"home without guardtui's hooks: if you mean it, run it yourself in a terminal",
                                self.id, BlastRadius.CRITICAL, "guard-self")
        for script in scripts:
            if not script.strip():
                continue
            decision = ctx.judge(ToolCall("Bash", {"command": script}, call.cwd, agent=call.agent, session=call.session,
                                          event=call.event, mode=call.mode))
            if decision is not None and decision.verdict is Verdict.DENY:
                return Decision(Verdict.DENY, f"{call.tool} {what}: {decision.reason}", f"{self.id}/{decision.rule}",
                                decision.blast_radius, decision.category)
        return None


def _agent_env(text: str) -> str:
    names = {v for spec in protect_data().agent_programs.values() for v in spec.get("config_env", ()) if v != "HOME"}
    names |= {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS"} & \
        protect_data().hook_env
    for m in _EXPORT.finditer(text):
        if m.group("n") in names:
            return m.group("n")
    return ""


def _new_text(call: ToolCall, path: str) -> str | None:
    if call.tool == "Write":
        content = call.input.get("content")
        return content if isinstance(content, str) else None
    edits = call.input.get("edits") if call.tool == "MultiEdit" else [call.input]
    pairs = [(e.get("old_string", ""), e.get("new_string", ""), bool(e.get("replace_all"))) for e in edits or []
             if isinstance(e, Mapping) and isinstance(e.get("new_string"), str)]
    old = _read(path)
    applied = apply_edits(old, pairs) if old is not None and pairs else None
    return applied if applied is not None else "\n".join(p[1] for p in pairs) or None


def _read(path: str) -> str | None:
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > _MAX_TEXT:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
