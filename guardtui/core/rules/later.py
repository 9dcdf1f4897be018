"""Files that run later (shell start-up files, service units, launchd jobs, crontabs, git hooks, .envrc):
what is written there is judged as the commands it will run. Content the guard would deny denies now
(a .bashrc line that removes the hook settings, a unit whose ExecStart deletes guardtui's config, an
alias that starts an agent with its approvals off, a variable that points an agent at another config
home); anything else keeps the write's own verdict (the rules after this one). The same for what
runs them now: `direnv allow|exec` (.envrc), `git config core.hooksPath DIR && git …` (the hooks in DIR)."""
from __future__ import annotations

import fnmatch
import json
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
    if kind == "vscode-tasks":  # every task's command line (a task may run when the folder opens)
        return _vscode_commands(text)
    if kind == "vim":  # `:!cmd`, `silent !cmd`, system('…') / systemlist / jobstart / vim.fn.system("…")
        return [m.group("c") or m.group("c2") for m in _VIM_SHELL.finditer(text)]
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


_VIM_SHELL = re.compile(r"""(?m)(?:^\s*(?:silent!?\s+|exe(?:cute)?\s+["'])?!(?P<c>[^\n"']+)|"""
                        r"""(?:system|systemlist|jobstart|termopen|vim\.fn\.system|os\.execute)\s*\(\s*\[?\s*"""
                        r"""(?P<q>["'])(?P<c2>[^"'\n]+)(?P=q))""")


def _vscode_commands(text: str) -> list[str]:
    try:
        data = json.loads(re.sub(r"(?m)^\s*//.*$", "", text))  # tasks.json allows // comments
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
        found = self._repository_commands(call, ctx)
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

    def _repository_commands(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """What a git command runs of the repository it works in: the hooks its subcommand fires (.git/hooks
        or core.hooksPath) and the commands .git/config names (core.fsmonitor, core.pager, diff.external,
        filters): planted there earlier, they run now."""
        for m in _GIT_COMMAND.finditer(call.command):
            sub = m.group("sub")
            where = m.group("c")
            start = resolve_path(where.strip("'\""), call.cwd, ctx.home) if where else call.cwd
            gitdir = _git_dir(start)
            if gitdir is None:
                continue
            config = _git_config(_read(posixpath.join(gitdir, "config")) or "")
            scripts: list[tuple[str, str]] = []
            for key, value in config.items():
                if sub in _runs_for(key) and value and value.lower() not in ("true", "false"):
                    scripts.append((value, f"makes git run {key} from {gitdir}/config"))
            alias = config.get(f"alias.{sub}", "")
            if alias.startswith("!"):  # a shell alias in the repository's config: git runs it through sh
                scripts.append((alias[1:], f"makes git run the alias {sub} from {gitdir}/config"))
            hooks = config.get("core.hookspath")
            directory = resolve_path(hooks, posixpath.dirname(gitdir), ctx.home) if hooks else \
                posixpath.join(gitdir, "hooks")
            for name in _HOOKS_OF.get(sub, ()):
                text = _read(posixpath.join(directory, name))
                if text is not None:
                    scripts.append((text, f"makes git run its {name} hook ({directory}/{name})"))
            for text, what in scripts:
                found = self._judge_text(call, ctx, text, "shell", what)
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


_GIT_COMMAND = re.compile(r"(?:^|[;&|(`\n]\s*|\$\(\s*|\b(?:sudo|env|exec|command|time|nice|nohup|xargs)\s+)"
                          r"(?:\S*/)?git\s+(?:-C\s+(?P<c>\"[^\"]+\"|'[^']+'|\S+)\s+)?(?:-[-\w.=]+\s+)*(?P<sub>[a-z][\w-]*)")
# the hooks each subcommand fires
_HOOKS_OF = {
    "commit": ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"),
    "merge": ("pre-merge-commit", "commit-msg", "post-merge"), "pull": ("post-merge", "post-checkout"),
    "push": ("pre-push",), "checkout": ("post-checkout",), "switch": ("post-checkout",), "clone": ("post-checkout",),
    "rebase": ("pre-rebase", "post-rewrite"), "am": ("applypatch-msg", "pre-applypatch", "post-applypatch"),
    "cherry-pick": ("commit-msg", "post-commit"), "revert": ("commit-msg", "post-commit"),
    "gc": ("pre-auto-gc",), "worktree": ("post-checkout",),
}
# the subcommands that read the work tree through the index (where fsmonitor and clean filters run)
_INDEX = frozenset({"status", "diff", "add", "commit", "checkout", "switch", "reset", "stash", "restore", "rm", "mv",
                    "merge", "pull", "rebase", "ls-files", "update-index", "cherry-pick", "revert", "am", "apply",
                    "describe", "worktree", "grep", "clean", "sparse-checkout"})
# which subcommands run a command-valued setting
_RUNS_FOR = {
    "core.fsmonitor": _INDEX, "core.pager": frozenset({"log", "diff", "show", "blame", "grep", "branch",
                                                                "tag", "shortlog", "reflog"}),
    "diff.external": frozenset({"diff", "log", "show"}), "filter.clean": _INDEX,
    "filter.smudge": frozenset({"checkout", "switch", "clone", "pull", "reset", "stash", "restore"}),
    "filter.process": _INDEX, "core.sshcommand": frozenset({"fetch", "pull", "push", "clone", "ls-remote"}),
    "core.editor": frozenset({"commit", "rebase", "merge", "tag"}),
}


def _runs_for(key: str) -> frozenset[str]:
    """The subcommands that run a setting's command (`filter.lfs.clean` is looked up as `filter.clean`)."""
    parts = key.split(".")
    return _RUNS_FOR.get(key) or _RUNS_FOR.get(f"{parts[0]}.{parts[-1]}", frozenset())


def _git_dir(start: str) -> str | None:
    """The .git directory of the repository `start` is in (a .git file: the gitdir it names)."""
    here = start
    for _ in range(32):
        candidate = posixpath.join(here, ".git")
        if os.path.isdir(candidate):
            return candidate
        if os.path.isfile(candidate):
            text = _read(candidate) or ""
            m = re.match(r"gitdir:\s*(.+)", text.strip())
            return resolve_path(m.group(1).strip(), here, here) if m else None
        parent = posixpath.dirname(here)
        if parent == here:
            return None
        here = parent
    return None


def _git_config(text: str) -> dict[str, str]:
    """`section.key` (and `section.sub.key`) → value, lower-cased names, from a git config file."""
    out: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        m = re.match(r'^\[\s*([\w.-]+)(?:\s+"([^"]*)")?\s*\]', line)
        if m:
            section = m.group(1).lower() + (f".{m.group(2)}" if m.group(2) is not None else "")
            continue
        key, eq, value = line.partition("=")
        if eq and section:
            value = value.strip()
            if len(value) > 1 and value[0] == value[-1] == '"':
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            out[f"{section}.{key.strip().lower()}"] = value
    return out


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
