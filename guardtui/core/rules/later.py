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
from functools import lru_cache

from ..catalog import runs_later
from ..ciworkflow import project_of, sends_secrets
from ..hook_settings import apply_edits
from ..model import BlastRadius, Decision, ToolCall, Verdict
from ..protect import protect_data
from .base import EvalContext, is_within, resolve_path
from .planted import DOCUMENTS, GUARD_CATEGORIES, planted_commands
from .program_dirs import programs_run
from .tasks_written import judge_written
from .vcs_programs import vcs_commands
from ..shell.projectfiles import as_if_written, language_of, read_text
from ..shell.taxonomy import default_taxonomy
from ..shell.toolcode import MAX_FILES, code_files, config_commands, configs_written, runner_for
from ..gitindex import config_settings
from .later_kinds import PROGRAM, RUNNERS, agent_definition, base_dir, commands_in
from .later_settings import registered_programs, settings_programs, variable_programs

_MAX_HOOKS = 16
_MEMORY_WRITE = re.compile(r"mcp__(?:memory|server_memory|knowledge_graph|mcp_memory|serena)__"
                           r"(?:create_entities|add_observations|create_relations|write_memory)")
_ALIAS = re.compile(r"""(?m)^\s*alias\s+(?:--\s+)?[\w.-]+=(?P<q>['"]?)(?P<v>.*?)(?P=q)\s*$""")
_EXPORT = re.compile(r"(?m)^\s*(?:export\s+|set\s+-gx\s+|setenv\s+)?(?P<n>[A-Z_][A-Z0-9_]*)(?:=|\s+)")
_HOOKS_PATH = re.compile(r"core\.hooksPath[=\s]+(?P<d>\"[^\"]+\"|'[^']+'|\S+)")
_DIRENV = re.compile(r"\bdirenv\s+(?:allow|exec|reload|permit|grant)\b(?:\s+(?P<d>(?!-)[^\s;&|]+))?")


def _plain(value):
    """JSON for the read-only mappings and tuples a call's input is frozen into."""
    return dict(value) if isinstance(value, Mapping) else list(value) if isinstance(value, (tuple, set)) else str(value)


def later_kind(path: str, home: str) -> str | None:
    for pattern, kind in later_patterns(home):
        if pattern.match(path):
            return kind
    return None


@lru_cache(maxsize=8)
def later_patterns(home: str) -> tuple[tuple[re.Pattern, str], ...]:
    """runs_later's globs compiled for this home, once (compiling two hundred of them inside a call's budget
    made the first write of a busy console's session ask as over budget)."""
    return tuple((re.compile(fnmatch.translate(home.rstrip("/") + p[1:] if p.startswith("~/") else p)), kind)
                 for p, kind in runs_later())


class LaterRule:
    id = "runs-later"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        targets: list[tuple[str, str | None]] = []  # (path, the new content when known)
        appended: dict[str, str] = {}  # a shell append's path: what it appends (targets hold just that)
        if call.tool in ("Write", "Edit", "MultiEdit") and call.file_path:
            path = resolve_path(call.file_path, call.cwd, ctx.home)
            targets.append((path, _new_text(call, path)))
        elif call.tool == "NotebookEdit":  # a cell runs when the notebook is executed (nbconvert, papermill, a kernel)
            return self._notebook_cell(call, ctx)
        elif call.tool == "TodoWrite" or _MEMORY_WRITE.fullmatch(call.tool):
            # the agent's own todo list and memory graph outlive the turn: a command written there is an
            # instruction it will follow later, outside this call
            text = json.dumps(call.input, ensure_ascii=False, default=_plain).replace("\\n", "\n").replace('\\"', '"')
            return self._judge_text(call, ctx, text, "instructions", "keeps an instruction for later")
        elif call.is_shell and call.command.strip():
            for effect in ctx.shell(call).writes:
                if effect.path and not effect.remote and effect.kind == "write":
                    targets.append((effect.path, effect.content))
                    if effect.detail == "append" and effect.content is not None:
                        appended[effect.path] = effect.content
                elif effect.path and not effect.remote and effect.kind in ("copy", "link") and effect.source:
                    # cp evil.py tests/conftest.py, ln -s x.js eslint.config.js: the file then holds the source's text
                    targets.append((effect.path, read_text(effect.source)))
            found = self._runs_now(call, ctx)
            if found is not None:
                return found
        for path, text in targets:
            sent = sends_secrets(path, text, ctx.home, project_of(path))
            if sent is not None:  # the CI service runs it, secrets in reach, on the next push
                return Decision(Verdict.DENY, f"{call.tool} writes {path}, a CI workflow whose steps send {sent}: the "
                                "CI service runs it with the repository's secrets", f"{self.id}/ci-secrets",
                                BlastRadius.CRITICAL, "secrets")
            kind = later_kind(path, ctx.home)
            # a file of no known kind, or a tool's configuration beyond the code it names (package.json's scripts)
            place = _planted_place(path, text, call, ctx) if kind in (None, "tool-config") and text is not None \
                else None
            if place is not None:
                found = self._judge_planted(call, ctx, path, text, guard_only=place == "project")
                if found is not None:
                    return found
            if kind is None and text is not None and language_of(path, text) is not None:
                # a script of the project's, run when the agent calls it: one that types into a terminal (an
                # auto-approver) or starts an agent unguarded has no routine use, so a file tool writing it asks,
                # saying what it would do; running it denies. (Nothing runs yet, and the run is judged.)
                found = self._judge_program(call, ctx, path, text, PROGRAM)
                if found is not None and found.verdict is Verdict.DENY and (
                        found.category == "terminal-input" or found.rule.endswith("agent.unguarded")):
                    # (a shell command that writes it usually runs it too: its deny stands)
                    return found if call.is_shell else \
                        found.with_(verdict=Verdict.ASK, reason=f"{found.reason} (when it runs: that run denies)")
            if text is not None and kind not in RUNNERS and kind != PROGRAM:  # those are judged whole below
                found = self._judge_task_file(call, ctx, path, text, appended.get(path))
                if found is not None:
                    return found
            if text is not None:  # a tool's settings naming a program it runs later (~/.R/Makevars' CC)
                for program in settings_programs(text, path, ctx.home, ctx.session.root or call.cwd):
                    found = self._denied_run(call, ctx, program, call.cwd,
                                             f"{call.tool} writes {path}, whose settings make a tool run {_short(program)} later")
                    if found is not None:
                        return found
            if kind is None or text is None:
                continue
            if kind in RUNNERS or kind == PROGRAM:
                found = self._judge_program(call, ctx, path, text, kind)
            elif kind == "agent-definition":
                found = self._judge_definition(call, ctx, path, text)
            elif kind == "tool-config":
                found = self._judge_tool_config(call, ctx, path, text)
            elif kind == "instructions":
                found = self._judge_text(call, ctx, text, kind, f"writes {path}, which runs later", path)
                if found is None and not call.is_shell:  # a shell command's other rules still decide its deny
                    found = self._judge_imports(call, ctx, path, text)
            else:
                found = self._judge_text(call, ctx, text, kind, f"writes {path}, which runs later", path)
            if found is not None:
                return found
        return None

    def _judge_program(self, call: ToolCall, ctx: EvalContext, path: str, text: str, kind: str) -> Decision | None:
        """A program file a routine command runs whole (conftest.py, eslint.config.js, a Gemfile, build.rs, a
        program put on PATH): judged as `RUNNER FILE` would be, as if the file already held the new text."""
        if kind == PROGRAM:
            language = language_of(path, text)
            if language == "shell" or language is None:
                return self._judge_text(call, ctx, text, "shell", f"writes {path}, which runs later", path)
            kind = language
        runner = RUNNERS.get(kind)
        if runner is None:
            return None
        with as_if_written(path, text):
            return self._denied_run(call, ctx, f"{runner} {shlex.quote(path)}", base_dir(path),
                                    f"{call.tool} writes {path}, which {_RUN_BY.get(kind, 'a routine command')} "
                                    f"runs later")

    def _denied_run(self, call: ToolCall, ctx: EvalContext, command: str, cwd: str, what: str) -> Decision | None:
        """`command` judged as the agent's own shell call: its deny, said as `what`; else None."""
        decision = ctx.judge(ToolCall("Bash", {"command": command}, cwd, agent=call.agent, session=call.session,
                                      event=call.event, mode=call.mode))
        if decision is not None and decision.verdict is Verdict.DENY:
            return Decision(Verdict.DENY, f"{what}: {decision.reason}", f"{self.id}/{decision.rule}",
                            decision.blast_radius, decision.category)
        return None

    def _judge_tool_config(self, call: ToolCall, ctx: EvalContext, path: str, text: str) -> Decision | None:
        """A tool's configuration that names code it loads (mypy plugins, mkdocs hooks, prettier plugins): each
        project file it names is judged as the program it is, as running the tool would judge it."""
        tools = default_taxonomy().config_code
        for tool, spec in configs_written(path, tools):
            for command in config_commands(spec, path, text)[:MAX_FILES]:  # nodemon.json's exec and events
                found = self._denied_run(call, ctx, command, base_dir(path),
                                         f"{call.tool} writes {path}, whose commands {tool} runs")
                if found is not None:
                    return found
            for file in code_files(tool, spec, path, text, base_dir(path), None)[:MAX_FILES]:
                found = self._denied_run(call, ctx, f"{runner_for(spec)} {shlex.quote(file)}", base_dir(path),
                                         f"{call.tool} writes {path}, which makes {tool} load {file}")
                if found is not None:
                    return found
        return None

    def _judge_imports(self, call: ToolCall, ctx: EvalContext, path: str, text: str) -> Decision | None:
        """An agent's memory file (CLAUDE.md, AGENTS.md) imports the files it names with @path into every session,
        outside any tool call: an import is judged as the Read it amounts to, and one that would not pass asks."""
        prose = re.sub(r"```.*?```|`[^`\n]*`", " ", text, flags=re.S)  # code spans import nothing
        for m in list(re.finditer(r"(?<![\w@/])@((?:~|\.{1,2})?/?[\w.~/-]*[\w~])", prose))[:32]:
            target = resolve_path(m.group(1), posixpath.dirname(path), ctx.home)
            decision = ctx.judge(ToolCall("Read", {"file_path": target}, posixpath.dirname(path), agent=call.agent,
                                          session=call.session, event=call.event, mode=call.mode))
            if decision is not None and decision.verdict in (Verdict.ASK, Verdict.DENY):
                return Decision(Verdict.ASK, f"{call.tool} writes {path}, which imports @{m.group(1)} into every "
                                f"session without a tool call: {decision.reason}", f"{self.id}/{decision.rule}",
                                decision.blast_radius, decision.category)
        return None

    def _judge_task_file(self, call: ToolCall, ctx: EvalContext, path: str, text: str,
                         appended: str | None) -> Decision | None:
        """A project's task file or script written (rules/tasks_written.py): a target, recipe, script or task the
        write adds or changes that running would deny denies the write now, with the line that decides."""
        if any(is_within(path, place) for place in ctx.temp_dirs):
            return None  # scratch space: a script there runs, if at all, through a later call judged then
        root = ctx.session.root or call.cwd
        if not root or not (is_within(path, root) or call.cwd and is_within(path, call.cwd)):
            return None  # outside the project: the planted-command and workdir rules judge it
        old = read_text(path)
        new = (old or "") + appended if appended is not None else text

        judged = judge_written(path, old, new, lambda command, cwd: self._denied_run(call, ctx, command, cwd, ""))
        if judged is None:
            return None
        unit, decision = judged
        return Decision(Verdict.DENY, f"{call.tool} writes {path}, whose {unit} would then run{decision.reason}",
                        decision.rule, decision.blast_radius, decision.category)

    def _judge_definition(self, call: ToolCall, ctx: EvalContext, path: str, text: str) -> Decision | None:
        """A sub-agent or skill definition: its frontmatter is settings. One that skips or answers the permission
        prompts denies; the commands its hooks run are judged."""
        loosens, commands = agent_definition(text)
        commands += commands_in(text, "slash-command", ctx.home, path)  # a skill's !`…` lines run too
        if loosens:
            return Decision(Verdict.DENY, f"{call.tool} writes {path}, whose frontmatter sets {loosens}: an agent may "
                            "not loosen the guard that watches it; if you mean it, write it yourself", self.id,
                            BlastRadius.CRITICAL, "guard-self")
        return self._judge_text(call, ctx, "\n".join(commands), "shell", f"writes {path}, whose hooks run later") \
            if commands else None

    def _notebook_cell(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """A code cell: `%%bash`/`%%sh` cells and `!` lines are shell, the rest Python (magics dropped)."""
        source = call.input.get("new_source")
        if not isinstance(source, str) or call.input.get("cell_type") == "markdown" or \
                call.input.get("edit_mode") == "delete":
            return None
        lines = source.splitlines()
        first = lines[0].strip() if lines else ""
        written = re.match(r"%%writefile(?:\s+-a)?\s+(\S+)", first)
        if written:  # %%writefile PATH: running the cell writes the rest of it to PATH
            target = resolve_path(written.group(1), call.cwd, ctx.home)
            decision = ctx.judge(ToolCall("Write", {"file_path": target, "content": "\n".join(lines[1:])}, call.cwd,
                                          agent=call.agent, session=call.session, event=call.event, mode=call.mode))
            if decision is not None and decision.verdict is Verdict.DENY:
                return Decision(Verdict.DENY, f"{call.tool} writes a notebook cell that writes {target} when it runs: "
                                f"{decision.reason}", f"{self.id}/{decision.rule}", decision.blast_radius,
                                decision.category)
            return None
        if re.match(r"%%(?:bash|sh|script\s+(?:ba|z)?sh)\b", first):
            return self._judge_text(call, ctx, "\n".join(lines[1:]), "shell", "writes a notebook cell that runs later")
        shell = "\n".join(line.strip()[1:] for line in lines if line.strip().startswith("!"))
        if shell:
            found = self._judge_text(call, ctx, shell, "shell", "writes a notebook cell that runs later")
            if found is not None:
                return found
        code = "\n".join(line for line in lines if not line.strip().startswith(("!", "%")))
        if not code.strip():
            return None
        notebook = resolve_path(str(call.input.get("notebook_path") or "cell.ipynb"), call.cwd, ctx.home)
        return self._judge_program(call, ctx, notebook[:-len(".ipynb")] + ".cell.py", code, "python")

    def _runs_now(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """direnv allow/exec (the .envrc it trusts and runs), core.hooksPath DIR then a git command (DIR's hooks),
        what hg and jj run from their configuration (vcs_programs.py)."""
        command = call.command
        for program in registered_programs(command, call.cwd, ctx.home, ctx.session.root or call.cwd):
            found = self._denied_run(call, ctx, program, call.cwd,
                                     f"{call.tool} makes a tool run {_short(program)} (now or later)")
            if found is not None:
                return found
        for m in _DIRENV.finditer(command):
            where = resolve_path((m.group("d") or ".").strip("'\""), call.cwd, ctx.home)
            envrc = where if where.endswith(".envrc") else posixpath.join(where, ".envrc")
            text = read_text(envrc)
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
                text = read_text(posixpath.join(directory, name))
                if text is None:
                    continue
                found = self._judge_text(call, ctx, text, "shell", f"makes git run {directory}/{name}")
                if found is not None:
                    return found
        for text, what in vcs_commands(command, call.cwd, ctx.home):  # hg's extensions and hooks, jj's fix tools
            found = self._judge_text(call, ctx, text, "shell", what)
            if found is not None:
                return found
        for path, what in programs_run(command, call.cwd, ctx.home):
            found = self._judge_file_run(call, ctx, path, what)
            if found is not None:
                return found
        return None

    def _judge_file_run(self, call: ToolCall, ctx: EvalContext, path: str, what: str) -> Decision | None:
        """A program file the command runs without naming it (program_dirs.py): judged as the file it is."""
        text = read_text(path)
        if text is None:
            return None
        language = language_of(path, text)
        if language in (None, "shell"):
            return self._judge_text(call, ctx, text, "shell", what)
        runner = RUNNERS.get(language)
        return None if runner is None else self._denied_run(call, ctx, f"{runner} {shlex.quote(path)}",
                                                           base_dir(path), f"{call.tool} {what}")

    def _repository_commands(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """What a git command runs of the repository it works in: the hooks its subcommand fires (.git/hooks
        or core.hooksPath) and the commands .git/config names (core.fsmonitor, core.pager, diff.external,
        filters): planted there earlier, they run now."""
        for m in _GIT_COMMAND.finditer(call.command):
            sub = m.group("sub")
            where = m.group("c")
            start = resolve_path(where.strip("'\""), call.cwd, ctx.home) if where else call.cwd
            gitdir = _git_dir(start)
            husky = _husky_dir(start, gitdir, ctx.session.root or call.cwd)
            if gitdir is None and husky is None:
                continue
            config = config_settings(read_text(posixpath.join(gitdir, "config")) or "") if gitdir else {}
            scripts: list[tuple[str, str]] = []
            for key, value in config.items():  # git 2.36+ config-based hooks: hook.NAME.command, hook.NAME.event
                hook = re.fullmatch(r"hook\.(.+)\.command", key)
                event = config.get(f"hook.{hook.group(1)}.event", "") if hook else ""
                if hook and value and event in _HOOKS_OF.get(sub, ()) and not (
                        event in _NO_VERIFY_SKIPS and "--no-verify" in call.command[m.end():].split()):
                    scripts.append((value, f"makes git run the hook {hook.group(1)} from {gitdir}/config"))
            for key, value in config.items():
                if sub in _runs_for(key) and value and value.lower() not in ("true", "false"):
                    scripts.append((value, f"makes git run {key} from {gitdir}/config"))
            alias = config.get(f"alias.{sub}", "")
            if alias.startswith("!"):  # a shell alias in the repository's config: git runs it through sh
                scripts.append((alias[1:], f"makes git run the alias {sub} from {gitdir}/config"))
            hooks = config.get("core.hookspath")
            directories = [resolve_path(hooks, posixpath.dirname(gitdir), ctx.home) if hooks else
                           posixpath.join(gitdir, "hooks")] if gitdir else []
            if husky and not hooks:  # husky's install points core.hooksPath at .husky/_, which runs .husky/HOOK
                directories.append(husky)
            rest = re.split(r"[;&|)\n]", call.command[m.end():], maxsplit=1)[0].split()
            skipped = _NO_VERIFY_SKIPS if "--no-verify" in rest or sub == "commit" and any(
                re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", w) for w in rest) else frozenset()
            for directory in directories:
                for name in (h for h in _HOOKS_OF.get(sub, ()) if h not in skipped):
                    text = read_text(posixpath.join(directory, name))
                    if text is not None:
                        scripts.append((text, f"makes git run its {name} hook ({directory}/{name})"))
            for text, what in scripts:
                found = self._judge_text(call, ctx, text, "shell", what)
                if found is not None:
                    return found
        return None

    def _judge_planted(self, call: ToolCall, ctx: EvalContext, path: str, text: str,
                       guard_only: bool) -> Decision | None:
        """A file of a kind not known to run later: what in it reads as a command is judged, and a command
        the guard would deny denies the write (rules/planted.py). In the project, where the person's own
        configuration lives and scripts are judged when they run, only what would switch off the guard."""
        where = "in the project" if guard_only else "outside the project"
        before = read_text(path) or ""  # what the file already held was there before this call: not its doing
        for command in planted_commands(text, guard_only, before, base_dir(path)):
            decision = ctx.judge(ToolCall("Bash", {"command": command}, base_dir(path), agent=call.agent,
                                          session=call.session, event=call.event, mode=call.mode))
            if decision is None or decision.verdict is not Verdict.DENY or \
                    guard_only and decision.category not in GUARD_CATEGORIES:
                continue
            return Decision(Verdict.DENY, f"{call.tool} writes {path}, {where}, holding a command a program may "
                            f"run later ({_short(command)}): {decision.reason}", f"{self.id}/{decision.rule}",
                            decision.blast_radius, decision.category)
        return None

    def _judge_text(self, call: ToolCall, ctx: EvalContext, text: str, kind: str, what: str,
                    path: str = "") -> Decision | None:
        home = ctx.home
        scripts = commands_in(text, kind, home, path)
        cwd = base_dir(path) if path and kind not in ("shell", "cron", "unit", "plist", "desktop", "library-config") else call.cwd
        if kind == "shell":  # an alias is a command the person will type; an agent's config home moved
            scripts += [m.group("v") for m in _ALIAS.finditer(text)]
            scripts += variable_programs(text, call.cwd, home, ctx.session.root or call.cwd)  # SCONSFLAGS, R_PROFILE_USER
            moved = _agent_env(text) or _shadowing_path(text, home)
            if moved:
                return Decision(Verdict.DENY, f"{call.tool} {what}: it sets {moved}, which points an agent at a config "
                                f"home without guardtui's hooks: if you mean it, run it yourself in a terminal",
                                self.id, BlastRadius.CRITICAL, "guard-self")
            agent = _java_agent(text, home)
            if agent:
                return Decision(Verdict.DENY, f"{call.tool} {what}: it makes every java program started from your "
                                f"login (the IDE's too) load the agent {agent}, a jar guardtui cannot read that can be "
                                "rewritten at any time: if you mean it, run it yourself in a terminal",
                                self.id, BlastRadius.CRITICAL, "guard-self")
        for script in scripts:
            if not script.strip():
                continue
            decision = ctx.judge(ToolCall("Bash", {"command": script}, cwd, agent=call.agent, session=call.session,
                                          event=call.event, mode=call.mode))
            if decision is not None and decision.verdict is Verdict.DENY:
                return Decision(Verdict.DENY, f"{call.tool} {what}: {decision.reason}", f"{self.id}/{decision.rule}",
                                decision.blast_radius, decision.category)
        return None


# who runs a program file of each language later, for the reason
_RUN_BY = {"python": "pytest, pip or python", "js": "the project's node tooling", "ruby": "bundle or rake",
           "perl": "perl", "php": "composer or php", "groovy": "Gradle", "rust": "cargo", "elisp": "Emacs",
           "gemfile": "every bundle command"}

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
# the hooks --no-verify (commit's -n) skips
_NO_VERIFY_SKIPS = frozenset({"pre-commit", "commit-msg", "pre-push", "pre-merge-commit"})
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


def _planted_place(path: str, text: str, call: ToolCall, ctx: EvalContext) -> str | None:
    """Where a written file of no known kind is looked at for planted commands: "outside" the project (any
    deny counts), "project" (only the guard's: a configuration of the project's own, not a program, which is
    judged when it runs, nor documentation, which may quote commands), or None: a temp dir, where a script
    runs, if at all, through a later call that is judged then."""
    if any(is_within(path, place) for place in ctx.temp_dirs):
        return None
    root = ctx.session.root or call.cwd
    if root and not is_within(path, root) and not (call.cwd and is_within(path, call.cwd)):
        return "outside"
    if language_of(path, text) is not None or posixpath.splitext(path)[1].lower() in DOCUMENTS:
        return None
    return "project"


def _short(command: str) -> str:
    return command if len(command) <= 80 else command[:77] + "…"


def _runs_for(key: str) -> frozenset[str]:
    """The subcommands that run a setting's command (`filter.lfs.clean` is looked up as `filter.clean`)."""
    parts = key.split(".")
    return _RUNS_FOR.get(key) or _RUNS_FOR.get(f"{parts[0]}.{parts[-1]}", frozenset())


def _husky_dir(start: str, gitdir: str | None, root: str | None) -> str | None:
    """The project's .husky/ directory (its hooks run once `npm install` has run husky's install), at the work
    tree's top, else at the project's root."""
    for top in (posixpath.dirname(gitdir) if gitdir else None, root, start):
        if top and os.path.isdir(posixpath.join(top, ".husky")):
            return posixpath.join(top, ".husky")
    return None


def _git_dir(start: str) -> str | None:
    """The .git directory of the repository `start` is in (a .git file: the gitdir it names)."""
    here = start
    for _ in range(32):
        candidate = posixpath.join(here, ".git")
        if os.path.isdir(candidate):
            return candidate
        if os.path.isfile(candidate):
            text = read_text(candidate) or ""
            m = re.match(r"gitdir:\s*(.+)", text.strip())
            return resolve_path(m.group(1).strip(), here, here) if m else None
        parent = posixpath.dirname(here)
        if parent == here:
            return None
        here = parent
    return None


def _agent_env(text: str) -> str:
    names = {v for spec in protect_data().agent_programs.values() for v in spec.get("config_env", ()) if v != "HOME"}
    names |= {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS"} & \
        protect_data().hook_env
    for m in _EXPORT.finditer(text):
        if m.group("n") in names:
            return m.group("n")
    return ""


_JAVA_AGENT = re.compile(r"(?m)^\s*(?:export\s+|set\s+-gx\s+|setenv\s+)?(?:JAVA_TOOL_OPTIONS|JDK_JAVA_OPTIONS|_JAVA_OPTIONS)"
                         r"(?:=|\s+)[\"']?[^\n]*?-javaagent:(?P<jar>[^\s\"'=]+)")
_DEPENDENCY_CACHES = (".m2/", ".gradle/", ".sdkman/", ".ivy2/", ".cache/coursier/", ".jdks/")


def _java_agent(text: str, home: str) -> str:
    """A JVM options variable a start-up file exports with -javaagent: naming a jar that is neither installed nor
    in a build tool's dependency cache (a jar a project holds): that jar, else ""."""
    for m in _JAVA_AGENT.finditer(text):
        jar = re.sub(r"^(?:~|\$HOME|\$\{HOME\})(?=/)", home, m.group("jar"))
        relative = posixpath.relpath(jar, home) if jar.startswith(home.rstrip("/") + "/") else ""
        if jar.startswith(_INSTALL_DIRS) or relative.startswith(_DEPENDENCY_CACHES):
            continue
        return m.group("jar")
    return ""


_INSTALL_DIRS = ("/usr/", "/opt/", "/nix/", "/bin", "/sbin", "/snap/")
_HOME_BIN_DIRS = frozenset({".local/bin", "bin", ".cargo/bin", "go/bin", ".bun/bin", ".deno/bin", ".npm-global/bin",
                            ".volta/bin", ".pyenv/shims", ".rbenv/shims", ".asdf/shims", ".local/share/mise/shims",
                            ".local/share/pnpm", ".yarn/bin", ".dotnet/tools", ".krew/bin"})


def _shadowing_path(text: str, home: str) -> str:
    """PATH set to put first a directory that holds a program named like guardtui or an agent (a fake guardtui
    that answers allow, a claude that starts with its approvals off): "PATH" then, else ""."""
    names = {"guardtui"} | {p for spec in protect_data().agent_programs.values() for p in spec.get("programs", ())}
    for m in re.finditer(r"(?m)^\s*(?:export\s+)?PATH=[\"']?([^\"'\n]*)", text):
        for entry in m.group(1).split(":"):
            if entry in ("$PATH", "${PATH}") or not entry:
                break
            directory = re.sub(r"^(?:~|\$HOME|\$\{HOME\})(?=/|$)", home, entry)
            if directory.startswith(_INSTALL_DIRS) or posixpath.relpath(directory, home) in _HOME_BIN_DIRS:
                continue  # where installers put programs (the real guardtui and agents among them)
            if directory.startswith("/") and any(os.path.exists(posixpath.join(directory, n)) for n in names):
                return "PATH"
    return ""


def _new_text(call: ToolCall, path: str) -> str | None:
    if call.tool == "Write":
        content = call.input.get("content")
        return content if isinstance(content, str) else None
    edits = call.input.get("edits") if call.tool == "MultiEdit" or "edits" in call.input else [call.input]
    pairs = [pair for e in edits or [] if isinstance(e, Mapping) for pair in [_edit_pair(e)] if pair is not None]
    old = read_text(path)
    applied = apply_edits(old, pairs) if old is not None and pairs else None
    return applied if applied is not None else "\n".join(p[1] for p in pairs) or None


# the spellings of one edit's old and new text: Claude Code's, docker-agent's and the MCP filesystem server's
# edit_file (oldText/newText), str_replace tools' (old_str/new_str)
_EDIT_KEYS = (("old_string", "new_string"), ("oldText", "newText"), ("old_str", "new_str"))


def _edit_pair(edit: Mapping) -> tuple[str, str, bool] | None:
    for old_key, new_key in _EDIT_KEYS:
        if isinstance(edit.get(new_key), str):
            old = edit.get(old_key, "")
            return (old if isinstance(old, str) else "", edit[new_key], bool(edit.get("replace_all")))
    return None
