"""The guard holds against the agent it guards: what a call does to a protected target
(core/protect.py), by any tool and any path.

A shell command is judged by its file effects (whatever produced them: redirects, cp, tar, git,
interpreter code, a nested script); a file tool by the file it writes or reads. Per kind:

    target             write / link-to         delete, move, chmod       read
    agent hooks        ask if guardtui's       deny                      allow (ask when the file
                       entries stay and only                             holds the token)
                       what loosens nothing
                       changes, else deny
    agent permissions  ask                     ask                       allow
    project plugins    ask if it only          deny                      allow
                       tightens, else deny
    guard config, user plugins, token, audit log, broker socket
                       deny                    deny                      allow (the token: ask,
                                                                         also a directory read whole)
    guardtui's code    deny (a source          deny                      allow
                       checkout: ask)

A sub-agent's task (Task, Agent, other agents' delegation tools) is judged here too, and so is the prompt a
command hands another agent (`claude -p`, `codex exec`, a message posted to an agent's server): its quoted
commands and its requests to change the guard or type into a terminal deny.

Removing, loosening or bypassing the guard denies, and the reason says the person must do it
themselves. An ask here never hides a deny the shell analysis found in the same command.
"""
from __future__ import annotations

import fnmatch
import glob as _glob
import os
import json
import posixpath
import re
from dataclasses import dataclass
from typing import Mapping

from .. import gitindex
from ..hook_settings import MAX_TEXT, apply_edits, judge_change
from ..listing import archive_members, tree_entries
from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS, more_restrictive
from ..protect import (GUARD_CODE, GUARD_CONFIG, HOOKS, PERMISSIONS, PROJECT_GUARDS, RUNTIME, STATE, TOKEN, TRUST,
                       USER_GUARDS, Match, Protected, protect_data)
from ..shell.findings import REPLACES, FileEffect
from ..web import broker_endpoint_in
from ..shell.projectfiles import read_text
from .base import EvalContext
from .dangerous import shell_decision
from .later_kinds import agent_definition
from .secrets import read_targets

_DENIES = {USER_GUARDS, GUARD_CONFIG, TOKEN, STATE, RUNTIME, HOOKS}
_YOURSELF = "an agent may not change the guard that watches it; if you mean it, run it yourself in a terminal"
_VERBS = {"write": "writes", "remove": "removes", "chmod": "changes the permissions of", "link": "links to",
          "onto": "puts a file in place of"}
CATEGORY = "guard-self"
_DECIDING = {HOOKS, USER_GUARDS, PROJECT_GUARDS, GUARD_CONFIG, TOKEN}  # files whose content decides verdicts
_CHECK_ALL = 2000  # entries of a copied tree or an archive each matched; past that only those that matter


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    radius: BlastRadius
    reason: str
    kind: str

    held: bool = False  # the target is reached as part of a directory it is in (rm -rf ~, chmod -R …)

    def decision(self, rule: str, segment: str = "") -> Decision:
        return Decision(self.verdict, self.reason, f"{rule}/{self.kind}", self.radius, CATEGORY,
                        {"segment": segment, "held": self.held} if segment else {"held": self.held})


def _deny(reason: str, kind: str) -> Ruling:
    return Ruling(Verdict.DENY, BlastRadius.CRITICAL, f"{reason}: {_YOURSELF}", kind)


def _ask(reason: str, kind: str, radius: BlastRadius = BlastRadius.HIGH) -> Ruling:
    return Ruling(Verdict.ASK, radius, reason, kind)


def judge_action(m: Match, action: str, subject: str) -> Ruling | None:
    """The verdict for `action` (write, onto, remove, chmod, link, read) on the target `m` reached.
    `subject` says who does it ("rm -rf .claude", "Write")."""
    ruling = _judge_action(m, action, subject)
    return ruling if ruling is None or not m.contains else Ruling(ruling.verdict, ruling.radius, ruling.reason,
                                                                   ruling.kind, held=True)


def _judge_action(m: Match, action: str, subject: str) -> Ruling | None:
    kind = m.kind
    what = f"{subject} {_VERBS.get(action, action)} {m.describe()}"
    if action == "read":
        if kind == TOKEN:
            return _ask(f"{subject} reads {m.describe()}: with it, anything can post calls to the console",
                        kind, BlastRadius.MEDIUM)
        return None
    if kind == GUARD_CODE:
        if action in ("write", "onto") and m.target.editable:  # a checkout of guardtui the person works on
            return _ask(f"{what}: the agents' hooks run this code", kind)
        if action in ("write", "onto"):
            return _deny(f"{what}: the agents' hooks run this code", kind)
        return _deny(what, kind) if action in ("remove", "chmod") else None
    if kind == PERMISSIONS:
        return _ask(f"{what}: it changes what the agent may do without asking", kind)
    if kind == TRUST:  # written with content not known here, or a link put in its place; untrusting costs nothing
        if action not in ("write", "onto"):
            return None
        if m.target.format == "trust-folders" or action == "onto":  # a file that holds nothing but trust
            return _deny(f"{what}, in a way that cannot be checked: {_TRUST_WHY}", kind)
        return _ask(f"{what}, in a way that cannot be checked", kind)
    if kind == PROJECT_GUARDS and action in ("write", "onto", "link"):
        return _ask(f"{what}: a project plugin is untrusted until you run `guardtui trust` on it, and may only "
                    "tighten the rules", kind)
    if kind in _DENIES or kind == PROJECT_GUARDS:
        return _deny(what, kind)
    return None


_URL = re.compile(r"(?i)\bhttps?://([^/\s\"'?#]+)(/[^\s\"'?#]*)?")
_LOOPBACK_HOST = re.compile(r"(?i)^(?:127\.\d+\.\d+\.\d+|localhost|\[::1\]|0\.0\.0\.0)(?::\d+)?$")
_SOCKET = re.compile(r"--unix-socket|--abstract-unix-socket|UNIX-CONNECT|\bbroker\.sock\b")


def _reaches_the_broker(command: str) -> bool:
    """The command calls the console with something other than what a hook does (posting a call to
    /hooks/<agent>, which only queues it): another endpoint on this machine's loopback or through its socket,
    an attempt to answer or change what the console decides."""
    socket = bool(_SOCKET.search(command))
    urls = _URL.findall(command)
    if socket and not urls:
        return True  # socat … UNIX-CONNECT:broker.sock: what it sends cannot be told
    return any((socket or _LOOPBACK_HOST.match(host)) and not re.match(r"/(?:hooks/[\w-]+/?|health/?)?$", path or "/")
               for host, path in urls)


_CONNECTS = re.compile(r"(?<![\w./-])(?:socat|nc|ncat|netcat|curl|ssh|autossh|python[\d.]*|node|deno|bun|perl|ruby|php|"
                       r"websocat|xh|http|busybox)(?![\w-])")


def _talks_to_the_socket(command: str, protected) -> bool:
    """A command that opens guardtui's broker socket with its own program (socat, curl --unix-socket, ssh -R,
    a socket in a script): only the agents' hooks post there, through guardtui; anything else is an attempt
    to answer the console in the person's place, or to hand the socket to someone who would."""
    named = any(path in command for path in protected.sockets) or re.search(r"guardtui/+broker\.sock\b", command)
    return bool(named) and bool(_CONNECTS.search(command))


class ProtectRule:
    id = "protect"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        protected = ctx.protected
        if protected is None:
            return None
        if call.is_shell:
            if not call.command.strip():
                return None
            found = self._shell(call, ctx, protected)
        elif call.tool in WRITE_TOOLS:
            found = self._file_tool(call, protected)
        elif call.tool in ("Read", "NotebookRead", "Grep", "Glob", "LS"):
            found = self._read_tool(call, protected)
        elif call.tool in protect_data().delegation.get("tools", ()):
            found = self._delegation(call, ctx, protected)
        else:
            found = None
        if found is None:
            return None
        if call.is_shell and (found.verdict is not Verdict.DENY or found.metadata.get("held")):
            # an ask here never hides a deny the shell analysis found; and `rm -rf ~` is better told as the
            # loss of a home directory than of the guard's files in it
            shell = shell_decision("dangerous-shell", call, ctx)
            if shell.verdict is Verdict.DENY:
                return shell
        return found

    # -- shell ---------------------------------------------------------------------------------
    def _shell(self, call: ToolCall, ctx: EvalContext, protected: Protected) -> Decision | None:
        if _talks_to_the_socket(call.command, protected):
            return _deny("the command opens guardtui's broker socket itself (only the agents' hooks post there, "
                         "through guardtui): an attempt to answer or change what the console decides",
                         RUNTIME).decision(self.id, call.command[:200])
        endpoint = broker_endpoint_in(call.command)
        if endpoint is not None:
            return _deny(f"the command calls {endpoint}, an endpoint of guardtui's broker that is not a hook's: an "
                         "attempt to answer or change what the console decides", RUNTIME).decision(self.id,
                                                                                                   call.command[:200])
        analysis = ctx.shell(call)
        best: Decision | None = None
        links: dict[str, str] = {}  # links made earlier in this command: path -> what it points at
        made: set[str] = set()  # paths written earlier in this command
        # reading matters for the token (itself, or inside an HTTP hook's settings), even before the console
        # has made it: a read judged now may run once it exists
        for effect in analysis.effects + analysis.reads:
            if effect.remote:
                continue
            for v in judge_effect(effect, protected, call.cwd, links, made):
                d = v.decision(self.id, effect.segment)
                best = d if best is None else more_restrictive(best, d)
            if effect.kind == "link" and effect.path and effect.source:
                links[effect.path] = effect.source
            if effect.path and effect.kind in ("write", "copy", "unpack", "link"):
                made.add(effect.path)
        for kind, text in analysis.data:  # the prompt handed to another agent (claude -p, codex exec, a POST)
            if kind == "task" and (best is None or best.verdict is not Verdict.DENY):
                told = _told_to_change_the_guard(text, call.cwd, protected, "the prompt handed to another agent "
                                                 "tells it", self.id)
                if told is not None:
                    return told
        if best is not None and best.verdict is Verdict.ASK and best.rule.endswith("/" + TOKEN) and \
                _reaches_the_broker(call.command):
            return _deny("the command reads guardtui's hook token and calls the console with it beyond what a hook "
                         "does (an endpoint that is not /hooks/): an attempt to answer or change what it decides",
                         TOKEN).decision(self.id, best.metadata.get("segment", ""))
        return best

    # -- file tools ------------------------------------------------------------------------------
    def _file_tool(self, call: ToolCall, protected: Protected) -> Decision | None:
        path = call.file_path
        if not path:
            return None
        return judge_file_change(protected, path, call.cwd, _new_content(call, protected, path), call.tool, self.id)

    # -- a sub-agent's task -------------------------------------------------------------------------
    def _delegation(self, call: ToolCall, ctx: EvalContext, protected: Protected) -> Decision | None:
        """A sub-agent's own calls are judged one by one, so its prompt is words: a command quoted in it that
        the guard denies denies the task; so does a sentence that tells it to change the guard, or to type into
        a terminal: whoever is told to do it, removing the guard is a deliberate compromise."""
        words = protect_data().delegation
        definition = _definition_of(call, ctx)
        if definition is not None:  # the sub-agent or skill it starts: its frontmatter is settings
            path, text = definition
            loosens, _ = agent_definition(text)
            if loosens:
                return Decision(Verdict.DENY, f"{call.tool} starts {path}, whose frontmatter sets {loosens}: its calls "
                                              "would not be put to you", f"{self.id}/delegation", BlastRadius.CRITICAL,
                                CATEGORY)
        text = "\n".join(v for k in words.get("fields", ()) if isinstance(v := call.input.get(k), str))
        if not text.strip():
            return None
        for span in _code_spans(text):
            d = ctx.judge(ToolCall("Bash", {"command": span}, call.cwd, agent=call.agent, session=call.session))
            if d is not None and d.verdict is Verdict.DENY:
                return Decision(Verdict.DENY, f"the task tells a sub-agent to run `{span}`, which the guard denies: "
                                              f"{d.reason}", f"{self.id}/delegation", BlastRadius.CRITICAL, CATEGORY)
        return _told_to_change_the_guard(text, call.cwd, protected, "the task tells a sub-agent", self.id)

    def _read_tool(self, call: ToolCall, protected: Protected) -> Decision | None:
        best: Decision | None = None
        for path in dict.fromkeys(read_targets(call, protected.homes[0] if protected.homes else "")):
            d = self._read_one(call, protected, path)
            if d is not None:
                best = d if best is None else more_restrictive(best, d)
        return best

    def _read_one(self, call: ToolCall, protected: Protected, path: str) -> Decision | None:
        if not path:
            return None
        searches = call.tool in ("Grep", "Glob", "LS")
        if searches and not _token_exists(protected):
            return None  # a search reads what is there: no token, nothing of it to find
        for m in protected.matches(path, call.cwd, contains="existing" if call.tool == "Grep" else ""):
            if m.contains and _hidden_between(m):
                continue  # Grep skips hidden files and directories
            if m.kind == HOOKS and not m.contains and _holds_token(m, protected):
                return _ask(f"{call.tool} reads {m.describe()}, which holds guardtui's hook token", HOOKS,
                            BlastRadius.MEDIUM).decision(self.id)
            v = judge_action(m, "read", call.tool)
            if v is not None:
                return v.decision(self.id)
        return None


_CODE_SPAN = re.compile(r"```[\w+-]*\n?(.*?)```|`([^`\n]+)`", re.S)
_PATH_WORD = re.compile(r"(?:~|\$\{?\w+\}?|\.{1,2})?/[\w.@+-][\w.@+/-]*|[\w.-]+/[\w.@+/-]+|\.[\w-]+(?:/[\w.@+-]+)*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _definition_of(call: ToolCall, ctx: EvalContext) -> tuple[str, str] | None:
    """(path, text) of the sub-agent (Task's subagent_type) or skill (Skill's name) a call starts, read from the
    project's .claude directory upwards, then the user's."""
    name = call.input.get("subagent_type") if call.tool in ("Task", "Agent") else call.input.get("skill") \
        if call.tool == "Skill" else None
    if not isinstance(name, str) or not re.fullmatch(r"[\w.:-]{1,100}", name):
        return None
    name = name.split(":")[-1]
    relative = f".claude/agents/{name}.md" if call.tool != "Skill" else f".claude/skills/{name}/SKILL.md"
    here = call.cwd or ""
    places = []
    while here.startswith("/") and len(places) < 32:
        places.append(posixpath.join(here, relative))
        if here == "/" or here == ctx.home:
            break
        here = posixpath.dirname(here)
    places.append(posixpath.join(ctx.home, relative))
    for path in places:
        text = read_text(path)
        if text is not None:
            return path, text
    return None


def _code_spans(text: str) -> list[str]:
    """Commands quoted in a prompt (`…`, ``` blocks), at most a few, each at most one screen."""
    out = []
    for m in _CODE_SPAN.finditer(text):
        span = (m.group(1) or m.group(2) or "").strip()
        if span and len(span) <= 2000:
            out.append(span)
    return out[:8]


def _told_to_change_the_guard(text: str, cwd: str, protected: Protected, who: str, rule: str) -> Decision | None:
    """A deny when the prompt `text` tells its agent to change the guard or type into a terminal."""
    asked = _asks_to_change_the_guard(text, cwd, protected, protect_data().delegation)
    if not asked:
        return None
    return _deny(f"{who} {asked}", "delegation").decision(rule)


def _asks_to_change_the_guard(text: str, cwd: str, protected: Protected, words: Mapping[str, tuple]) -> str:
    """What a prompt asks that changes the guard ("to change ~/.claude/settings.json"), or ""."""
    lower = text.lower()
    if any(t in lower for t in words.get("typing", ())) and any(re.search(rf"\b{re.escape(t)}\b", lower)
                                                                  for t in words.get("terminals", ())):
        return "to type into a terminal (the console answers what is typed there)"
    verbs = words.get("change_verbs", ())
    negations = words.get("negations", ())
    for sentence in _SENTENCE.split(text):
        low = sentence.lower()
        verb = next((v for v in verbs if re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", low)), None)
        if verb is None:
            continue
        before = low[:re.search(rf"(?<![\w-]){re.escape(verb)}(?![\w-])", low).start()]
        if any(n in before[-40:] for n in negations):
            continue
        for m in _PATH_WORD.finditer(sentence):
            hit = protected.match(m.group(0).rstrip(".,:;)'\""), cwd) or protected.match_text(m.group(0))
            if hit is not None and hit.kind != GUARD_CODE:
                return f"to {verb} {m.group(0).rstrip('.,:;')} ({hit.target.label})"
        named = next((n for p in words.get("guard_names", ()) if (n := re.search(p, low))), None)
        if named is not None:
            return f"to {verb} {sentence[named.start():named.end()]} (a part of the guard)"
        if re.search(r"\bguardtui\b", low) and verb in ("trust", "uninstall", "install", "kill", "stop", "disable",
                                                        "remove", "bypass", "turn off", "switch off"):
            return f"to {verb} guardtui"
    return ""


# -- effects ---------------------------------------------------------------------------------------
def judge_effect(e: FileEffect, protected: Protected, cwd: str, links: dict[str, str] | None = None,
                 made: set[str] | None = None) -> list[Ruling]:
    """What one file effect does to the protected targets it reaches. `links`: links made earlier in
    the same command (path -> target); `made`: paths it wrote earlier (a source that is not on disk
    yet but was made there is unknown, not missing)."""
    subject = e.segment.strip() or e.raw
    subject = subject if len(subject) <= 80 else subject[:79] + "…"
    if e.origin:  # a project file the command runs does it: say where (`build.py:8`)
        subject = f"{subject} ({e.origin})"
    if e.path is None:
        return _partly_known(e, protected, subject)
    out = _judge_path(e, protected, cwd, links, made, subject)
    if not out and any(c in e.raw for c in "$`"):  # `rm -rf "/run/user/$(id -u)/guardtui"`: what the whole could be
        out = _partly_known(e, protected, subject)
    if not out and any(c in e.raw for c in "*?[") and not any(c in e.raw for c in "$`'\""):
        out = _glob_reach(e, protected, cwd, subject)  # a glob matching nothing now matches a target once it is there
    return out


def _glob_matches(pattern: str, path: str) -> bool:
    """As bash matches a path glob: component by component, `*` never crossing a `/` nor matching a leading dot."""
    want, have = posixpath.normpath(pattern).split("/"), posixpath.normpath(path).split("/")
    if len(want) != len(have):
        return False
    return all(w == h or (fnmatch.fnmatchcase(h, w) and not (h.startswith(".") and not w.startswith(".")))
               for w, h in zip(want, have))


def _glob_reach(e: FileEffect, protected: Protected, cwd: str, subject: str) -> list[Ruling]:
    """A glob in a path that matches no file now (`/home/dev/.c[l]aude/setting?.json`): the targets it would
    match when they exist, as bash would expand it then."""
    pattern = e.raw
    if pattern.startswith("~/") and protected.homes:
        pattern = protected.homes[0].rstrip("/") + pattern[1:]
    elif not pattern.startswith("/"):
        if not cwd:
            return []
        pattern = posixpath.join(cwd, pattern)
    if _glob.glob(pattern):  # it matches files now: what it matches was judged
        return []
    action = {"read": "read", "delete": "remove", "move": "remove", "chmod": "chmod"}.get(e.kind, "write")
    if action == "chmod" and keeps_access(e.detail):
        return []
    out = []
    for target in protected.targets:
        if target.kind == GUARD_CODE and action in ("remove", "chmod"):
            continue  # code that is not there (the glob matches nothing now) guards nothing
        if target.kind != RUNTIME and _glob_matches(pattern, target.path):
            v = judge_action(Match(target, target.path, "path"), action, subject)
            if v is not None:
                out.append(v)
    return out


def _judge_path(e: FileEffect, protected: Protected, cwd: str, links: dict[str, str] | None,
                made: set[str] | None, subject: str) -> list[Ruling]:
    assert e.path is not None
    path = _through_links(e.path, links or {})
    out: list[Ruling] = []

    def add(v: Ruling | None) -> None:
        if v is not None:
            out.append(v)

    def act(m: Match, action: str, subject: str) -> Ruling | None:  # a glob's reach is told as such
        if m.contains and m.kind == RUNTIME:
            # the broker's socket lost with a whole temp dir (`rm -rf /tmp`) costs only speed: no hook trusts
            # a socket that cannot prove itself, they judge their calls themselves (aimed at it, it denies)
            return None
        globbed = e.members and m.contains and any(c in e.raw for c in "*?[")
        return judge_action(m.globbed(e.raw) if globbed else m, action, subject)

    if e.kind == "read":
        for m in protected.matches(path, cwd):
            if m.kind == HOOKS and _holds_token(m, protected):
                add(_ask(f"{subject} reads {m.describe()}, which holds guardtui's hook token", HOOKS,
                         BlastRadius.MEDIUM))
            add(act(m, "read", subject))
        held = _token_under(path, protected, cwd)
        if held is not None:
            add(act(held, "read", subject))
        return out
    if e.kind in ("delete", "move"):
        wide = e.recursive or bool(e.members) or e.kind == "move"
        for m in protected.matches(path, cwd, follow=False, contains="near" if wide else ""):
            if m.contains and not (_members_hit(m, e.members, e.recursive or e.kind == "move") and _git_hits(m, e)):
                continue
            if not m.contains and e.only and not _git_hits(m, e):
                continue
            add(act(m, "remove", subject))
        return out
    if e.kind == "chmod":
        for m in protected.matches(path, cwd, contains="existing" if e.recursive or e.members else ""):
            if m.contains and not _members_hit(m, e.members, e.recursive):
                continue
            if keeps_access(e.detail, secret=m.kind == TOKEN, runs=m.kind == GUARD_CODE):
                continue  # chmod 600, go-w, +x: the owner still reads and writes it, nobody else may write
            add(act(m, "chmod", subject))
        return out
    if e.kind == "link":
        # a link where a target is, or where one would be found (`ln -s /tmp/fake .claude`: the agent's settings
        # are then read from a place of the agent's choosing)
        for m in protected.matches(path, cwd, follow=False, contains="any"):
            add(act(m, "onto", subject))
        if e.source:
            source = _through_links(e.source, links or {})
            for m in protected.matches(source, cwd):
                add(act(m, "link", subject))
        return out
    if e.kind == "write":
        for m in protected.matches(path, cwd, follow=e.detail != REPLACES,
                                   contains="existing" if e.recursive or e.members else ""):
            if m.contains and not (_members_hit(m, e.members, e.recursive) and _git_hits(m, e)):
                continue
            if m.kind == HOOKS and not m.contains:
                add(_hooks_shell_write(e, m, subject, protected))
            elif m.kind == PROJECT_GUARDS and e.detail == "fetched":  # git clone/submodule add into the guard dir
                add(_deny(f"{subject} checks an outside repository out into {m.describe()}: guard rules written by "
                          "whoever controls that repository, not by you", PROJECT_GUARDS))
            elif m.kind == TRUST and not m.contains and e.content is not None:
                old = _current(m, protected)[1]
                add(_trust_content(m, protected, (old or "") + e.content if e.detail == "append" else e.content,
                                   subject))
            elif _is_project_plugin(m) and e.content is not None:
                exists, old = _current(m, protected)
                add(_plugin_content(m, protected, (old or "") + e.content if e.detail == "append" else e.content,
                                    subject))
            else:
                add(act(m, "write", subject))
        return out
    if e.kind in ("copy", "unpack"):
        return _landing(e, path, protected, cwd, subject, made or set())
    return out


def _partly_known(e: FileEffect, protected: Protected, subject: str) -> list[Ruling]:
    """A path with parts known only at run time (`/run/user/$(id -u)/guardtui`): placed by what is known."""
    m = protected.match_text(e.raw)
    if m is None:
        return []
    action = {"read": "read", "delete": "remove", "move": "remove", "chmod": "chmod"}.get(e.kind, "write")
    v = judge_action(m, action, subject)
    return [v] if v is not None else []


def keeps_access(detail: str, secret: bool = False, runs: bool = False) -> bool:
    """Does `chmod MODE` (the effect's detail) leave a file readable and writable by its owner and
    writable by no one else (for a secret: readable by no one else; for guardtui's code and launcher,
    `runs`: runnable too)? Then the guard loses nothing (`chmod 000`, `a+w`, `-x` of the launcher,
    chown, chattr: it may)."""
    name, _, mode = detail.partition(" ")
    if name != "chmod" or not mode:
        return False
    barred = {"w", "r"} if secret else {"w"}
    if mode.isdigit() and len(mode) in (3, 4):
        owner, group, other = (int(c) for c in mode[-3:])
        return owner & (7 if runs else 6) == (7 if runs else 6) and not (group | other) & (6 if secret else 2)
    for clause in mode.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*)", clause)
        if m is None:
            return False
        who, op, perms = m.groups()
        owner = not who or bool(set(who) & {"u", "a"})
        others = not who or bool(set(who) & {"g", "o", "a"})
        needed = {"r", "w", "x"} if runs else {"r", "w"}
        if owner and (op == "-" and bool(set(perms) & needed) or op == "=" and not needed <= set(perms)):
            return False  # takes reading or writing (or running) away from the owner
        if others and op in "+=" and set(perms) & barred:
            return False  # lets others write (or read a secret)
    return True


def _landing(e: FileEffect, path: str, protected: Protected, cwd: str, subject: str,
             made: set[str]) -> list[Ruling]:
    """A copy or an extraction: what lands where. Read from the source on disk when the place could
    hold a protected target; an unknown source there is judged as the worst it could hold."""
    out: list[Ruling] = []
    for m in protected.matches(path, cwd):  # the landing place itself is protected (or inside a protected tree)
        if m.kind == HOOKS and e.kind == "copy" and e.source and not e.members:
            out.append(_hooks_copy(e, m, subject, protected) or judge_action(m, "onto", subject))
        elif _is_project_plugin(m) and e.kind == "copy" and e.source and os.path.isfile(e.source) and \
                (text := _read(e.source)) is not None:
            out.append(_plugin_content(m, protected, text, subject))
        else:
            v = judge_action(m, "onto", subject)
            if v is not None:
                out.append(v)
    reach = protected.matches(path, cwd, contains="any")
    if not any(m.contains for m in reach):
        return out
    # a source not there now (nor made earlier in this command) may be there when the command runs (a download
    # still going, a file a background job writes): its contents are unknown, not empty
    missing = bool(e.source) and not os.path.lexists(e.source) and \
        not any(p == e.source or p.startswith(e.source + "/") for p in made)
    if e.kind == "unpack":
        strip = int(e.detail.partition("=")[2]) if e.detail.startswith("strip=") else 0
        entries = archive_members(e.source, strip) if e.source and not missing else None
        if entries is not None and e.members:
            entries = [x for x in entries if any(x.name == n.rstrip("/") or x.name.startswith(n.rstrip("/") + "/")
                                                 or fnmatch.fnmatchcase(x.name, n) for n in e.members)]
        what = f"the archive {e.source}" if e.source else "an archive read from a pipe"
    else:
        entries = tree_entries(e.source) if e.source and not missing else None
        if entries is not None and e.members:
            entries = [x for x in entries if _member_of(x.name, e.members)]
        what = e.source or "a path known only at run time"
    if missing:
        what += " (not there yet)"
    # a directory copied to become the dot directory a guard file is read from (`cp -r /tmp/stage/.claude .`):
    # what lands is what the source holds when cp runs, and a source outside the guard can change after
    # it is judged (an empty staging directory now, hook settings a moment later; a plain file now, a
    # directory a moment later: a recursive copy takes whichever is there)
    becomes = posixpath.basename(path.rstrip("/")).startswith(".")
    if e.kind == "copy" and becomes and e.source and (missing or e.recursive or os.path.isdir(e.source)):
        target = next((m for m in reach if m.contains and m.kind in _DECIDING and m.target.tail and
                       "/" not in (m.rel or "").strip("/")), None)
        if target is not None:
            return out + [_deny(f"{subject} copies the directory {what} to {path}, where {target.target.label} "
                                f"({target.target.path}) is read from: what lands is what it holds when the copy "
                                f"runs, not what it holds now", target.kind)]
    if entries is None:
        if e.kind == "unpack" and e.members:  # the named members are all that can land
            entries_known = [(n.rstrip("/"), None) for n in e.members]
            return out + _landed(entries_known, path, protected, cwd, subject)
        # what it holds cannot be read: it could replace any file there that decides what the guard does,
        # one that exists, or one the project could have (its hook settings, its plugins); for a source that is
        # not there, only what exists (the command is more likely to fail than to be raced)
        target = next((m for m in reach if m.contains and m.kind in _DECIDING and
                       ((m.target.tail and not missing) or protected.exists(m.target.path))), None)
        if target is None:
            return out
        reason = (f"{subject} unpacks {what} into {path}, where it could replace {target.target.label} "
                  f"({target.target.path}); its contents cannot be read here") if e.kind == "unpack" else \
            (f"{subject} copies {what}, which cannot be read here, to {path}, where it could replace "
             f"{target.target.label} ({target.target.path})")
        return out + [_deny(reason, target.kind)]
    if len(entries) > _CHECK_ALL:  # a big tree: the entries on the way to a protected target, and links
        near = [m.rel for m in reach if m.contains and m.rel]
        entries = [x for x in entries if x.link or any(r == x.name or r.startswith(x.name + "/") or
                                                       x.name.startswith(r + "/") for r in near)]
    return out + _landed([(x.name, x.link) for x in entries], path, protected, cwd, subject)


def _landed(entries: list[tuple[str, str | None]], base: str, protected: Protected, cwd: str,
            subject: str) -> list[Ruling]:
    out: list[Ruling] = []
    made: dict[str, str] = {}  # links the copy or archive itself puts down: later entries land through them
    for name, link in entries:
        where = base if name in ("", ".") else posixpath.normpath(base + "/" + name)
        where = _through_links(where, made)
        for m in protected.matches(where, cwd):
            v = judge_action(m, "onto", f"{subject} (it puts {name or where} there)")
            if v is not None:
                out.append(v)
        if link:  # a link member pointing at a protected target: later writes through it reach it
            pointed = link if link.startswith("/") else posixpath.normpath(posixpath.dirname(where) + "/" + link)
            for m in protected.matches(pointed, cwd):
                v = judge_action(m, "link", f"{subject} (its {name} is a link)")
                if v is not None:
                    out.append(v)
            made[where] = pointed
        if len(out) > 3:
            break
    return out


def _member_of(name: str, members: tuple[str, ...]) -> bool:
    first = name.split("/", 1)[0]
    return any(_glob_component(first, p.split("/", 1)[0]) for p in members)


def _glob_component(name: str, pattern: str) -> bool:
    """bash globbing on one name: `*` and `?` do not match a leading dot."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def _members_hit(m: Match, members: tuple[str, ...], recursive: bool) -> bool:
    """Does an effect narrowed to `members` (globs under its path) reach the target `m` holds?"""
    if not members:
        return True
    rel = _relative(m)
    if rel is None:
        return True
    parts = rel.split("/")
    for pattern in members:
        if pattern.startswith("**/"):  # find -name: any depth
            if any(_glob_component(p, pattern[3:]) for p in parts):
                return True
            continue
        pp = pattern.split("/")
        if len(pp) <= len(parts) and all(_glob_component(a, b) for a, b in zip(parts, pp)) and \
                (len(pp) == len(parts) or recursive):
            return True
        if m.target.tree and len(pp) > len(parts) and all(_glob_component(a, b) for a, b in zip(parts, pp)):
            return True  # `rm ~/.c*/guardtui/trusted.json`: the glob reaches inside the protected tree
    return False


def _relative(m: Match) -> str | None:
    return m.rel or None


def _git_hits(m: Match, e: FileEffect) -> bool:
    """A git effect narrowed to tracked changes (checkout, restore, stash, reset --hard) or to
    untracked / ignored files (clean, stash -u/-a): does it reach this target, as it is on disk?"""
    if not e.only:
        return True
    wanted = set(e.only.split("+"))
    for path in _files_under(m.target.path) if m.target.tree else [m.target.path]:
        if not os.path.lexists(path):
            continue
        state = gitindex.status(path)
        if state is None:
            return True  # cannot tell: assume it does
        if (state == "modified" and "tracked" in wanted) or (state in wanted and state != "tracked"):
            return True
    return False


def _files_under(path: str, limit: int = 200) -> list[str]:
    out = []
    for root, _, files in os.walk(path):
        out.extend(posixpath.join(root, f) for f in files)
        if len(out) >= limit:
            break
    return out[:limit]


def _hidden_between(m: Match) -> bool:
    rel = _relative(m)
    return rel is not None and any(p.startswith(".") for p in rel.split("/"))


def _through_links(path: str, links: dict[str, str]) -> str:
    """A path under a link this same command made earlier reaches what the link points at."""
    for _ in range(8):
        for link, target in links.items():
            if path == link or path.startswith(link.rstrip("/") + "/"):
                path = target + path[len(link):]
                break
        else:
            return path
    return path


# -- the agents' hook settings ---------------------------------------------------------------------
def _read(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_TEXT:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _current(m: Match, protected: Protected) -> tuple[bool, str | None]:
    """(exists, text) of the settings file as it is now (through any link)."""
    real = protected.resolve(m.path)
    if not os.path.lexists(real):
        return False, None
    return True, _read(real)


def judge_file_change(protected: Protected, path: str, cwd: str, new_content: str | None, subject: str,
                      rule: str = "protect") -> Decision | None:
    """A tool that writes `path` (Write, Edit, an MCP server's write_file …): the decision for the
    protected targets it reaches, or None. `new_content`: the whole file as the tool leaves it, when
    known (an agent's hook settings are then judged by what they keep); None: not known."""
    best: Decision | None = None
    for m in protected.matches(path, cwd):
        if m.kind == HOOKS:
            v = _hooks_content(m, protected, new_content, subject)
        elif m.kind == TRUST and new_content is not None:
            v = _trust_content(m, protected, new_content, subject)
        elif _is_project_plugin(m) and new_content is not None:
            v = _plugin_content(m, protected, new_content, subject)
        else:
            v = judge_action(m, "write", subject)
        if v is not None:
            d = v.decision(rule)
            best = d if best is None else more_restrictive(best, d)
    return best


def _new_content(call: ToolCall, protected: Protected, path: str) -> str | None:
    """What Write / Edit / MultiEdit leave in the file: the edit applied to the file on disk."""
    if call.tool == "Write":
        content = call.input.get("content")
        return content if isinstance(content, str) else None
    if call.tool not in ("Edit", "MultiEdit"):
        return None
    lexical = protected.absolute(path, call.cwd)
    old = _read(protected.resolve(lexical)) if lexical else None
    items = call.input.get("edits") if call.tool == "MultiEdit" else [call.input]
    edits = [(i.get("old_string"), i.get("new_string"), bool(i.get("replace_all"))) for i in items or []
             if hasattr(i, "get")]
    if old is None or not edits or not all(isinstance(a, str) and isinstance(b, str) for a, b, _ in edits):
        return None
    return apply_edits(old, edits)


def _hooks_content(m: Match, protected: Protected, new: str | None, subject: str) -> Ruling:
    """An agent's hook settings rewritten: the content it leaves, judged."""
    exists, old = _current(m, protected)
    if exists and old is None:
        return _deny(f"{subject} changes {m.describe()}, which cannot be read here to check the change", HOOKS)
    if new is None:
        return _deny(f"{subject} changes {m.describe()} in a way that cannot be checked", HOOKS)
    return _settled(judge_change(m.target, old, new), subject, m)


_TRUST_WHY = ("a trusted folder's own settings load without asking you, and they may switch the agent's hooks off "
              "or approve its tools; an agent may not trust a folder for itself, if you mean it, do it yourself")


def _trust_content(m: Match, protected: Protected, new: str, subject: str) -> Ruling | None:
    """An agent's trusted folders rewritten: a folder trusted now that was not denies; else the other rules judge."""
    exists, old = _current(m, protected)
    if exists and old is None:
        return _deny(f"{subject} changes {m.describe()}, which cannot be read here to check the change", TRUST)
    before, after = trusted_folders(old or "", m.target.format), trusted_folders(new, m.target.format)
    if after is None:
        return _deny(f"{subject} writes {m.describe()} with content that cannot be read as such: {_TRUST_WHY}", TRUST)
    added = sorted(after - (before or set()))
    if added:
        return _deny(f"{subject} changes {m.describe()} to trust {', '.join(added[:3])}: {_TRUST_WHY}", TRUST)
    return None


def trusted_folders(text: str, form: str) -> set[str] | None:
    """The folders a trust file trusts (None: not readable as one). trust-folders: {folder: level}, every level
    but DO_NOT_TRUST trusts; trust-projects: projects.{folder}.hasTrustDialogAccepted true."""
    if not text.strip():
        return set()
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if form == "trust-folders":
        return {str(k) for k, v in data.items() if v != "DO_NOT_TRUST"}
    projects = data.get("projects")
    if not isinstance(projects, dict):
        return set()
    return {str(k) for k, v in projects.items() if isinstance(v, dict) and v.get("hasTrustDialogAccepted") is True}


def _settled(outcome, subject: str, m: Match) -> Ruling:
    if outcome.keeps_guard:
        return _ask(f"{subject} changes {m.describe()}; {outcome.why}", HOOKS)
    return _deny(f"{subject} changes {m.describe()}: {outcome.why}", HOOKS)


def _hooks_shell_write(e: FileEffect, m: Match, subject: str, protected: Protected) -> Ruling:
    if e.content is None:
        return _deny(f"{subject} writes {m.describe()}, with content that cannot be checked", HOOKS)
    exists, old = _current(m, protected)
    if exists and old is None:
        return _deny(f"{subject} writes {m.describe()}, which cannot be read here to check the change", HOOKS)
    new = (old or "") + e.content if e.detail == "append" else e.content
    return _settled(judge_change(m.target, old, new), subject, m)


def _hooks_copy(e: FileEffect, m: Match, subject: str, protected: Protected) -> Ruling | None:
    """A file copied over an agent's hook settings: the copy's content is what the file becomes."""
    if not e.source or not os.path.isfile(e.source):
        return None
    new = _read(e.source)
    if new is None:
        return None
    exists, old = _current(m, protected)
    if exists and old is None:
        return None
    return _settled(judge_change(m.target, old, new), subject, m)


def _is_project_plugin(m: Match) -> bool:
    """A plugin file in a project's guard dir (its skills are Markdown the rules cannot read: they ask)."""
    from ..plugins.parse import is_plugin_name  # the plugins package imports the engine, which imports the rules

    name = posixpath.basename(m.path)
    return m.kind == PROJECT_GUARDS and not m.contains and "guard-skills" not in m.path and \
        is_plugin_name(name) and name.lower().endswith((".yaml", ".yml", ".md"))


def _plugin_content(m: Match, protected: Protected, new: str, subject: str) -> Ruling:
    """A project plugin rewritten: adding an allow rule, or taking away or weakening a deny or ask rule,
    loosens the guard (deny); a change that only tightens asks (untrusted, it may only tighten)."""
    from ..plugins.change import loosened

    exists, old = _current(m, protected)
    why = loosened(old, new, m.path)
    if why:
        return _deny(f"{subject} changes {m.describe()}: {why}", PROJECT_GUARDS)
    v = judge_action(m, "write", subject)
    assert v is not None
    return v


def _token_under(path: str, protected: Protected, cwd: str) -> Match | None:
    """A directory read whole (cp -r, tar c, grep -r) reads the token it holds. From above a hidden
    directory (~, /) an operand is more often a name than a read (`guardtui check -- rm -rf /`)."""
    lexical = protected.absolute(path, cwd)
    if lexical is None:
        return None
    base = protected.resolve(lexical).rstrip("/") + "/"
    for target in protected.targets:
        if target.kind != TOKEN:
            continue
        real = protected.resolve(target.path)
        if real.startswith(base) and not any(p.startswith(".") for p in real[len(base):].split("/")[:-1]) and \
                os.path.isdir(base) and protected.exists(target.path):
            return Match(target, base.rstrip("/") or "/", "contains", real[len(base):])
    return None


def _token_exists(protected: Protected) -> bool:
    return any(t.kind == TOKEN and protected.exists(t.path) for t in protected.targets)


def _holds_token(m: Match, protected: Protected) -> bool:
    """An HTTP hook entry carries the broker's token (Claude Code's settings.local.json)."""
    token_target = next((t for t in protected.targets if t.kind == TOKEN), None)
    if token_target is None:
        return False
    token = (_read(token_target.path) or "").strip()
    if len(token) < 16:
        return False
    text = _read(protected.resolve(m.path))
    return bool(text) and token in text


__all__ = ["ProtectRule", "judge_effect", "judge_action", "judge_file_change", "keeps_access"]
