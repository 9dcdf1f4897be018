"""Per-session state: the calls that ran, the capability scope, the person's approvals, and what the
engine keeps to judge later calls (what was denied, the plans made, where the agent has been)."""
from __future__ import annotations

import fnmatch
import posixpath
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from .model import BlastRadius, Decision, ToolCall, Verdict

HISTORY_LIMIT = 256
DENIED_LIMIT = 256  # effects denied earlier, newest kept
FACTS_LIMIT = 128  # what earlier calls left for later ones (destroy plans made, branches checked out)
CWD_LIMIT = 32
SESSIONS_LIMIT = 4096  # a long-running broker keeps the most recently used sessions, not every one it ever saw
SECRETS_LIMIT = 256  # credential values the session has read (in memory only: never audited, never written)


@dataclass(frozen=True)
class Denial:
    """An effect denied earlier in the session: by which rule or person, and the call that tried it."""

    reason: str
    tool: str
    call: str
    by: str  # rule | person | policy | …


@dataclass(frozen=True)
class Approval:
    """An "always allow" the person gave for the rest of a session, scoped to one exact call or
    to a pattern, and never past the blast radius of the call they approved.

    kind "exact": the same tool with the same input. kind "pattern": for shell calls a glob that
    every asking part of the command must match (`parts` scope: approving `npm test*` never
    approves `npm test; rm -rf build`), or, where the part that asks only means something in
    its command (`curl … | bash`, whose asking part is `bash`), a glob on the whole command
    whose asking parts must be exactly the approved ones (`command` scope); for file tools a
    glob on the normalised path, `*` within one directory; otherwise a glob on the input.

    Whatever the pattern, it lets through only calls the guard would ask about (never a deny)
    at no worse a blast radius than `radius`, the approved call's.
    """

    kind: str  # "exact" | "pattern"
    tool: str
    value: str
    radius: BlastRadius = BlastRadius.LOW
    scope: str = "parts"  # shell patterns: "parts" | "command"
    parts: tuple[str, ...] = ()  # "command" scope: the approved call's asking parts

    @property
    def label(self) -> str:
        return f"{self.tool}: {self.value}" if self.kind == "pattern" else f"{self.tool} (this exact call)"


@dataclass
class SessionState:
    agent: str
    session: str
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY_LIMIT))  # tool names that ran
    scope: frozenset[str] | None = None  # capabilities, fixed at the first call
    approvals: list[Approval] = field(default_factory=list)
    denied: "OrderedDict[tuple[str, str], Denial]" = field(default_factory=OrderedDict)
    facts: "OrderedDict[str, str]" = field(default_factory=OrderedDict)  # "destroy-plan:/abs" -> "1"
    root: str = ""  # the first working directory of the session
    cwds: deque = field(default_factory=lambda: deque(maxlen=CWD_LIMIT))  # working directories, as they changed
    # credential values read earlier (value -> "NAME in FILE"): a later call carrying one off the machine denies
    secret_values: "OrderedDict[str, str]" = field(default_factory=OrderedDict, repr=False)
    # the broker judges in its executor thread and settles on its loop: memory changes under this lock
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def snapshot(self) -> dict:
        """Every field but the lock, copied (picklable): what a judging process needs of the session."""
        with self._lock:
            return {"agent": self.agent, "session": self.session, "history": deque(self.history, HISTORY_LIMIT),
                    "scope": self.scope, "approvals": list(self.approvals), "denied": OrderedDict(self.denied),
                    "facts": OrderedDict(self.facts), "root": self.root, "cwds": deque(self.cwds, CWD_LIMIT),
                    "secret_values": OrderedDict(self.secret_values)}

    def ran(self, tool: str) -> None:
        self.history.append(tool)

    def saw_cwd(self, cwd: str) -> None:
        if not cwd:
            return
        if not self.root:
            self.root = cwd
        if not self.cwds or self.cwds[-1] != cwd:
            self.cwds.append(cwd)

    def remember_denied(self, effects: Iterable[tuple[str, str]], denial: Denial) -> None:
        with self._lock:
            for effect in effects:
                self.denied.pop(effect, None)
                self.denied[effect] = denial
                while len(self.denied) > DENIED_LIMIT:
                    self.denied.popitem(last=False)

    def denied_earlier(self, effects: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], Denial] | None:
        with self._lock:
            for effect in sorted(effects):
                denial = self.denied.get(effect)
                if denial is not None:
                    return effect, denial
        return None

    def remember_facts(self, facts: Mapping[str, str]) -> None:
        with self._lock:
            for key, value in facts.items():
                self.facts.pop(key, None)
                self.facts[key] = value
                while len(self.facts) > FACTS_LIMIT:
                    self.facts.popitem(last=False)

    def remember_secrets(self, values: Iterable[tuple[str, str]]) -> None:
        """Credential values the agent has read (value, where it was): kept in memory, newest last."""
        with self._lock:
            for value, where in values:
                self.secret_values.pop(value, None)
                self.secret_values[value] = where
                while len(self.secret_values) > SECRETS_LIMIT:
                    self.secret_values.popitem(last=False)

    def secret_in(self, text: str) -> str | None:
        """Where a credential value `text` carries was read ("SNOWFLAKE_PASSWORD in /p/.env"), or None."""
        if not text:
            return None
        with self._lock:
            values = list(self.secret_values.items())
        return next((where for value, where in values if value in text), None)

    def known_facts(self) -> dict[str, str]:
        with self._lock:
            return dict(self.facts)


class Sessions:
    """The sessions the engine has seen, keyed by (agent, session id): the `limit` most recently used (a
    console running for weeks, or `check` calls each with a session of its own, would otherwise keep every
    one). The session an agent is working in is always among the most recent."""

    def __init__(self, limit: int = SESSIONS_LIMIT) -> None:
        self._sessions: "OrderedDict[tuple[str, str], SessionState]" = OrderedDict()
        self._lock = threading.Lock()
        self.limit = limit

    def get(self, agent: str, session: str) -> SessionState:
        key = (agent, session)
        with self._lock:
            state = self._sessions.get(key)
            if state is None:
                state = self._sessions[key] = SessionState(agent, session)
                self._trim()
            else:
                self._sessions.move_to_end(key)
            return state

    def __len__(self) -> int:
        return len(self._sessions)

    def _trim(self) -> None:
        while len(self._sessions) > self.limit:
            self._sessions.popitem(last=False)

    def __iter__(self):
        return iter(list(self._sessions.values()))

    def put(self, state: "SessionState") -> None:
        """A session's state as another process's copy of the engine keeps it (broker/judges.py)."""
        with self._lock:
            self._sessions[(state.agent, state.session)] = state
            self._sessions.move_to_end((state.agent, state.session))
            self._trim()

    def clear(self) -> None:
        with self._lock:
            self._sessions.clear()


def approval_matches(approval: Approval, call: ToolCall, decision: Decision, asking_segments: Iterable[str]) -> bool:
    if decision.verdict is not Verdict.ASK or decision.category == "bad-input":
        return False  # an approval only answers what the guard would ask about
    if decision.blast_radius.severity > approval.radius.severity or decision.blast_radius is BlastRadius.CRITICAL:
        return False  # never a worse blast radius than the call approved; critical never
    if approval.tool != call.tool:
        return False
    if approval.kind == "exact":
        return approval.value == call.serialised_input() if not call.is_shell else approval.value == call.command
    if call.is_shell:
        segments = [_one_line(s) for s in asking_segments]
        if approval.scope == "command":
            return tuple(segments) == approval.parts and fnmatch.fnmatchcase(_one_line(call.command), approval.value)
        return bool(segments) and all(fnmatch.fnmatchcase(s, approval.value) for s in segments)
    target = call.file_path
    if target is not None:
        return path_matches(approval.value, normal_path(target, call.cwd))
    return fnmatch.fnmatchcase(call.serialised_input(), approval.value)


def exact_approval(call: ToolCall, radius: BlastRadius = BlastRadius.LOW) -> Approval:
    return Approval("exact", call.tool, call.command if call.is_shell else call.serialised_input(), radius)


def propose_pattern(call: ToolCall, asking_segments: list[str],
                    radius: BlastRadius = BlastRadius.LOW) -> Approval | None:
    """A pattern the console offers for "always allow", as narrow as the call: `rm -rf build*`,
    `curl -fsSL https://host/x.sh | bash` exactly, `/project/src/*.py`. None: only the exact call."""
    if call.is_shell:
        command = _one_line(call.command)
        parts = list(dict.fromkeys(_one_line(s) for s in asking_segments if s.strip())) or [command]
        if len(parts) != 1:
            return None  # several parts ask: one pattern would be wider than any of them
        if parts[0] == command:  # the whole call asks: it, and what only extends its last word
            exact = "://" in command  # a URL stays exact: `https://host/a*` would reach other hosts' paths
            return Approval("pattern", call.tool, glob_escape(command) + ("" if exact else "*"), radius)
        # the part that asks means what it means in its command (`bash` fed by `curl …`): the command
        return Approval("pattern", call.tool, glob_escape(command), radius, "command", tuple(parts))
    path = call.file_path
    if path:
        path = normal_path(path, call.cwd)
        directory, name = path.rsplit("/", 1) if "/" in path else (".", path)
        suffix = name.rsplit(".", 1)[-1] if "." in name.lstrip(".") else ""
        glob = f"{glob_escape(directory)}/*.{glob_escape(suffix)}" if suffix else f"{glob_escape(directory)}/*"
        return Approval("pattern", call.tool, glob, radius)
    return None


def describe_approval(approval: Approval) -> str:
    """What else an approval lets through, in a sentence with an example or two (the dialog)."""
    bound = (f"that the guard would only ask about, at {approval.radius.value} blast radius or lower "
             f"(a deny, or anything worse, still stops)")
    if approval.kind == "exact":
        return f"Only this same call again, this session, {bound}."
    value = approval.value
    if "*" not in value and "?" not in value and "[" not in value:
        return f"Only this same {'command' if approval.tool == 'Bash' else 'call'} again, this session, {bound}."
    examples = " or ".join(f"`{e}`" for e in _examples(approval))
    if approval.tool == "Bash" and approval.scope == "command":
        return f"Any command matching `{value}` whose asking parts are {', '.join(approval.parts)} " \
               f"(e.g. {examples}), {bound}."
    if approval.tool == "Bash":
        head = value[:-1] if value.endswith("*") and not _has_glob(value[:-1]) else ""
        what = f"any command that starts with `{head}`" if head else f"any command whose asking parts match `{value}`"
        return f"Also {what} (e.g. {examples}), this session, {bound}."
    return f"Also any {approval.tool} of a path matching `{value}` (e.g. {examples}), this session, {bound}."


def _examples(approval: Approval) -> list[str]:
    value = approval.value
    if approval.tool == "Bash":
        last = value[:-1].rsplit(" ", 1)[-1] if value.endswith("*") else ""
        fills = ("x", "--force") if value.endswith(" *") else (" --verbose", " more") if last.startswith("-") \
            else ("2", "/old")
        return [_fill(value, fill) for fill in fills]
    return [_fill(value, "other")]


def _fill(glob: str, text: str) -> str:
    """One string the glob matches: `*` as `text`, `?` as x, a class as its first character."""
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        end = glob.find("]", i + 2) if char == "[" else -1  # a class holds at least one character: `[]]`
        if char == "*":
            out.append(text)
        elif char == "?":
            out.append("x")
        elif end != -1:
            first = glob[i + 1]
            out.append(first if first not in "!^" else "x")
            i = end
        else:
            out.append(char)
        i += 1
    return "".join(out)


def glob_escape(text: str) -> str:
    """The text as a glob that matches only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _has_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def path_matches(glob: str, path: str) -> bool:
    """fnmatch, directory by directory: `*` never crosses a `/`."""
    wanted, parts = glob.split("/"), path.split("/")
    return len(wanted) == len(parts) and all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, wanted))


def normal_path(path: str, cwd: str) -> str:
    """A tool's path as the file system reads it: made absolute against the call's cwd, `..` folded."""
    if not posixpath.isabs(path) and cwd:
        path = posixpath.join(cwd, path)
    return posixpath.normpath(path)


def _one_line(text: str) -> str:
    return " ".join(text.split())


__all__ = ["Approval", "Denial", "SessionState", "Sessions", "approval_matches", "describe_approval", "exact_approval",
           "propose_pattern"]
