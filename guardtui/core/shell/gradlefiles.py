"""Gradle build scripts (build.gradle.kts, build.gradle): the tasks they define, the tasks each one
depends on, and the commands each one runs, read on this machine at judging time.

    build = load_gradle("/p/build.gradle.kts", unknown="${x}")
    build.tasks["deployDev"][0].commands  -> [(24, ["helm", "upgrade", "--install", …, "image.tag=${x}"])]

A task runs a command through `commandLine(…)` (an Exec task, or `exec { }` / `project.exec { }`
in its actions), `executable` with `args`, Groovy's `"…".execute()`, `ProcessBuilder(…)` or
`Runtime.getRuntime().exec(…)`. Only what is written literally is known: a value computed when
Gradle runs (a variable, a `$template`) becomes `unknown`. Commands outside every task (at the top
of the script, in `afterEvaluate`, in `tasks.withType`) run while Gradle configures the build,
whatever task is asked for: they are kept apart (`configuration`). Nothing here judges; the task
runner analyzer (cmd_tasks) judges what this returns. A script that cannot be read gives None.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from .projectfiles import find_upward, read_text

BUILD_NAMES = ("build.gradle.kts", "build.gradle")
SETTINGS_NAMES = ("settings.gradle.kts", "settings.gradle")
MAX_SCRIPTS = 32  # build scripts (subprojects, applied scripts) read for one command

Command = tuple[int, list[str]]  # (line, argv)


@dataclass
class GradleTask:
    name: str
    file: str
    line: int
    commands: list[Command] = field(default_factory=list)
    depends: list[str] = field(default_factory=list)  # dependsOn and finalizedBy: run with it


@dataclass
class GradleBuild:
    files: list[str] = field(default_factory=list)
    tasks: dict[str, list[GradleTask]] = field(default_factory=dict)  # a task may be configured in several places
    configuration: list[tuple[str, int, list[str]]] = field(default_factory=list)  # (file, line, argv)


# -- reading the code around strings and comments -----------------------------------------
def _mask(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The text with comments blanked and every string literal's inside replaced by `_` (same
    length, so positions match), and the spans of the string literals (quotes included)."""
    out = list(text)
    strings: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in text[i:end]]
            i = end
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and len(quote) == 1:
                    j += 2
                    continue
                if text[j] == "$" and text.startswith("${", j) and c == '"':
                    depth, j = 1, j + 2
                    while j < n and depth:
                        depth += {"{": 1, "}": -1}.get(text[j], 0)
                        j += 1
                    continue
                if text[j] == "\n" and len(quote) == 1:
                    break  # an unterminated literal ends with its line
                j += 1
            end = min(n, j + len(quote))
            out[i + len(quote):j] = [ch if ch == "\n" else "_" for ch in text[i + len(quote):j]]
            strings.append((i, end))
            i = end
        else:
            i += 1
    return "".join(out), strings


def _literal(text: str, start: int, end: int, unknown: str) -> str:
    """The value of the string literal at [start, end): escapes read, `$x` / `${…}` templates unknown
    (Kotlin and Groovy double-quoted strings; single-quoted Groovy strings are taken as written)."""
    quote = text[start]
    width = 3 if text.startswith(quote * 3, start) else 1
    body = text[start + width:end - width] if end - start >= 2 * width else ""
    if quote == "'" and width == 1:
        return re.sub(r"\\(.)", r"\1", body)
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and width == 1 and i + 1 < len(body):
            out.append({"n": "\n", "t": "\t"}.get(body[i + 1], body[i + 1]))
            i += 2
        elif ch == "$" and body.startswith("${", i):
            depth, j = 1, i + 2
            while j < len(body) and depth:
                depth += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
            out.append(unknown)
            i = j
        elif ch == "$" and i + 1 < len(body) and (body[i + 1].isalpha() or body[i + 1] == "_"):
            j = i + 1
            while j < len(body) and (body[j].isalnum() or body[j] in "_."):
                j += 1
            out.append(unknown)
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _closing(masked: str, start: int, opening: str, closing: str) -> int:
    """The index of the bracket closing the one at `start` (len(masked) when it never closes)."""
    depth = 0
    for i in range(start, len(masked)):
        if masked[i] == opening:
            depth += 1
        elif masked[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return len(masked)


def _split_top(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated parts of masked[start:end] at bracket depth 0."""
    parts, depth, begin = [], 0, start
    for i in range(start, end):
        ch = masked[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append((begin, i))
            begin = i + 1
    parts.append((begin, end))
    return [(a, b) for a, b in parts if masked[a:b].strip()]


_CALL_OPENING = re.compile(r"[ \t]*(\(|=(?!=)|[ \t](?=[\"'\[\w]))")


class _Script:
    def __init__(self, path: str, text: str, unknown: str):
        self.path, self.text, self.unknown = path, text, unknown
        self.masked, self.strings = _mask(text)
        self._starts = {s: e for s, e in self.strings}

    def line(self, index: int) -> int:
        return self.text.count("\n", 0, index) + 1

    def values(self, start: int, end: int) -> list[str]:
        """The arguments in [start, end) as strings: literals read, lists flattened (listOf, arrayOf,
        [ … ], a spread *), anything computed unknown."""
        out: list[str] = []
        for a, b in _split_top(self.masked, start, end):
            while a < b and self.masked[a] in " \t\r\n*":
                a += 1
            while b > a and self.masked[b - 1] in " \t\r\n":
                b -= 1
            piece = self.masked[a:b]
            lst = re.match(r"(?:(?:mutable)?[lL]istOf|arrayOf|setOf|Arrays\.asList|List\.of)\s*(?:<[^>]*>)?\s*\(", piece)
            if lst:
                open_at = a + lst.end() - 1
                out += self.values(open_at + 1, _closing(self.masked, open_at, "(", ")"))
            elif piece.startswith("["):
                out += self.values(a + 1, _closing(self.masked, a, "[", "]"))
            elif a in self._starts and self._starts[a] == b:
                out.append(_literal(self.text, a, b, self.unknown))
            elif a in self._starts and re.fullmatch(r"\s*\.\s*(?:trimIndent|trimMargin|toString)\s*\(\s*\)",
                                                     self.masked[self._starts[a]:b]):
                out.append(_literal(self.text, a, self._starts[a], self.unknown))
            else:
                out.append(self.unknown)
        return out

    def arguments_after(self, index: int) -> tuple[list[str], int] | None:
        """The arguments of a call whose name ends at `index`: `name(…)`, `name = …`, or Groovy's
        `name a, b` (to the end of the line); with where they end."""
        m = _CALL_OPENING.match(self.masked, index)
        if m is None:
            return None
        if m.group(1) == "(":
            open_at = m.end() - 1
            close = _closing(self.masked, open_at, "(", ")")
            return self.values(open_at + 1, close), close
        start = m.end()
        end, depth = start, 0
        while end < len(self.masked):  # to the end of the statement: a line (continued after a comma), `;`, `}`
            ch = self.masked[end]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (ch == ";" or ch == "\n" and not self.masked[start:end].rstrip().endswith(",")):
                break
            end += 1
        return self.values(start, end), end


_TASK_STARTS = [
    # tasks.register<Exec>("x"), tasks.register("x", Exec::class), tasks.named("x"), tasks.create('x')
    re.compile(r"\btasks\s*\.\s*(?:register|create|named|getByName|maybeCreate|replace|getting|existing)\s*"
               r"(?:<[^>{}\n]*>)?\s*\(\s*([\"'])"),
    re.compile(r"(?m)^[ \t]*task\s*\(\s*([\"'])"),  # task("x") / task('x', type: Exec)
    re.compile(r"(?m)^[ \t]*task[ \t]+([\"'])"),  # task 'x'
]
_TASK_NAMED = [
    re.compile(r"(?m)^[ \t]*task[ \t]+([A-Za-z_]\w*)\b"),  # Groovy: task deploy(type: Exec) { … }
    re.compile(r"\bval\s+([A-Za-z_]\w*)\s+by\s+tasks\s*\.\s*(?:registering|creating|existing|getting)\b"),
    re.compile(r"\btasks\s*\.\s*(?!register\b|create\b|named\b|withType\b|all\b|matching\b|configureEach\b|"
               r"getByName\b|maybeCreate\b|replace\b|getting\b|existing\b|whenTaskAdded\b)([a-z]\w*)\s*\{"),
]
_COMMAND_LINE = re.compile(r"\b(?:set)?[cC]ommandLine\b")
_EXECUTABLE = re.compile(r"\b(?:set)?[eE]xecutable\b")
_ARGS = re.compile(r"\b(?:set)?[aA]rgs\b(?!\s*\+=)")
_PROCESS = re.compile(r"\bProcessBuilder\s*(?=\()|\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*exec\s*(?=\()")
_EXECUTE = re.compile(r"\.\s*execute\s*\(\s*\)")
_DEPENDS = re.compile(r"\b(?:dependsOn|finalizedBy)\b")
_APPLY_FROM = re.compile(r"\bapply\s*\(?\s*from\s*[:=]\s*([\"'])")


def _block_after(masked: str, index: int, open_parens: int) -> tuple[int, int] | None:
    """The `{ … }` that configures what starts at `index` (after the rest of its call), if any."""
    depth = open_parens
    i = index
    while i < len(masked):
        ch = masked[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "{" and depth <= 0:
            return i, _closing(masked, i, "{", "}")
        elif depth <= 0 and (ch == ";" or (ch == "\n" and not masked[i:].lstrip().startswith(("{", ".")))):
            return None
        elif ch == "}" and depth <= 0:
            return None
        i += 1
    return None


def _commands(script: _Script, start: int, end: int) -> list[tuple[int, list[str]]]:
    """Every command the code in [start, end) runs, in order, with where it is (an offset)."""
    found: list[tuple[int, list[str]]] = []
    masked = script.masked
    for m in _COMMAND_LINE.finditer(masked, start, end):
        got = script.arguments_after(m.end())
        if got and got[0]:
            found.append((m.start(), got[0]))
    for m in _EXECUTABLE.finditer(masked, start, end):
        got = script.arguments_after(m.end())
        if not got or not got[0]:
            continue
        block_end = _enclosing_end(masked, m.start(), end)
        args: list[str] = []
        for a in _ARGS.finditer(masked, m.start(), block_end):
            more = script.arguments_after(a.end())
            if more:
                args += more[0]
        found.append((m.start(), got[0][:1] + args))
    for m in _PROCESS.finditer(masked, start, end):
        got = script.arguments_after(m.end())
        if got and got[0]:
            argv = got[0]
            found.append((m.start(), argv if len(argv) > 1 else argv[0].split()))
    for m in _EXECUTE.finditer(masked, start, end):
        receiver = _receiver(script, m.start())
        if receiver:
            found.append(receiver)
    return sorted(found, key=lambda f: f[0])


def _receiver(script: _Script, dot: int) -> tuple[int, list[str]] | None:
    """What `.execute()` is called on: `"git push".execute()` (split on spaces, as Groovy does) or
    `['git', 'push'].execute()`."""
    i = dot
    while i > 0 and script.masked[i - 1] in " \t":
        i -= 1
    for start, end in script.strings:
        if end == i:
            return start, _literal(script.text, start, end, script.unknown).split()
    if i > 0 and script.masked[i - 1] == "]":
        depth, j = 0, i - 1
        while j >= 0:
            depth += {"]": 1, "[": -1}.get(script.masked[j], 0)
            if depth == 0:
                return j, script.values(j + 1, i - 1)
            j -= 1
    return None


def _enclosing_end(masked: str, index: int, limit: int) -> int:
    depth = 0
    for i in range(index, limit):
        if masked[i] == "{":
            depth += 1
        elif masked[i] == "}":
            if depth == 0:
                return i
            depth -= 1
    return limit


def _depends(script: _Script, start: int, end: int, known: set[str]) -> list[str]:
    out: list[str] = []
    for m in _DEPENDS.finditer(script.masked, start, end):
        got = script.arguments_after(m.end())
        if not got:
            continue
        for value in got[0]:
            if value != script.unknown:
                out.append(value.rsplit(":", 1)[-1])
        inner = script.masked[m.end():got[1]]  # dependsOn(tasks.named("x"), jar): names inside calls, and bare task names
        for s, e in script.strings:
            if m.end() <= s < got[1]:
                out.append(_literal(script.text, s, e, script.unknown).rsplit(":", 1)[-1])
        out += [w for w in re.findall(r"\b[A-Za-z_]\w*\b", inner) if w in known]
    return list(dict.fromkeys(v for v in out if v and script.unknown not in v))


def _parse(path: str, text: str, unknown: str, build: GradleBuild) -> list[str]:
    """Add one script's tasks and configuration-time commands to `build`; the scripts it applies."""
    script = _Script(path, text, unknown)
    masked = script.masked
    blocks: list[tuple[str, int, tuple[int, int] | None]] = []
    for rx in _TASK_STARTS:
        for m in rx.finditer(masked):
            quote_at = m.end() - 1
            end = next((e for s, e in script.strings if s == quote_at), None)
            if end is None:
                continue
            name = _literal(text, quote_at, end, unknown)
            opened = masked.count("(", m.start(), m.end()) - masked.count(")", m.start(), m.end())
            blocks.append((name, m.start(), _block_after(masked, end, opened)))
    for rx in _TASK_NAMED:
        for m in rx.finditer(masked):
            name = m.group(1)
            block = (m.end() - 1, _closing(masked, m.end() - 1, "{", "}")) if masked[m.end() - 1] == "{" \
                else _block_after(masked, m.end(), 0)
            blocks.append((name, m.start(), block))
    names = {name for name, _, _ in blocks}
    inside: list[tuple[int, int]] = []
    for name, at, block in blocks:
        if not name or unknown in name:
            continue
        task = GradleTask(name, path, script.line(at))
        if block is not None:
            start, end = block
            inside.append((start, end))
            task.commands = [(script.line(at), argv) for at, argv in _commands(script, start, end)]
            task.depends = _depends(script, start, end, names)
        build.tasks.setdefault(name, []).append(task)
    for at, argv in _commands(script, 0, len(masked)):
        if not any(s <= at <= e for s, e in inside):
            build.configuration.append((path, script.line(at), argv))
    applied = []
    for m in _APPLY_FROM.finditer(masked):
        end = next((e for s, e in script.strings if s == m.end() - 1), None)
        if end is not None:
            target = _literal(text, m.end() - 1, end, unknown)
            if unknown not in target and "://" not in target:
                applied.append(posixpath.normpath(posixpath.join(posixpath.dirname(path), target)))
    return applied


def _included(settings: str, text: str, unknown: str) -> list[str]:
    """The subproject directories settings.gradle(.kts) includes (`include(":app", ":lib:core")`)."""
    script = _Script(settings, text, unknown)
    out = []
    for m in re.finditer(r"\binclude\b", script.masked):
        got = script.arguments_after(m.end())
        for value in got[0] if got else []:
            if value and unknown not in value:
                out.append(value.strip(":").replace(":", "/"))
    return out


def load_gradle(project_dir: str, unknown: str) -> GradleBuild | None:
    """The build the Gradle run in `project_dir` reads: the root project (where settings.gradle(.kts)
    is, else `project_dir`), its included subprojects and the scripts they apply. None when there is
    no build script to read."""
    settings = find_upward(project_dir, SETTINGS_NAMES)
    root = posixpath.dirname(settings) if settings else project_dir
    settings_text = read_text(settings) if settings else None
    directories = [root] + [posixpath.join(root, d) for d in (_included(settings, settings_text, unknown)
                                                            if settings and settings_text else [])]
    build = GradleBuild()
    todo = []
    for directory in directories:
        for name in BUILD_NAMES:
            candidate = posixpath.join(directory, name)
            if read_text(candidate) is not None:
                todo.append(candidate)
                break
    if settings and settings_text is not None:
        todo.append(settings)  # settings scripts run too, before any task
    seen: set[str] = set()
    while todo and len(seen) < MAX_SCRIPTS:
        path = todo.pop(0)
        if path in seen:
            continue
        text = read_text(path)
        if text is None:
            continue
        seen.add(path)
        build.files.append(path)
        todo += _parse(path, text, unknown, build)
    return build if build.files else None


def abbreviation(name: str, tasks: list[str]) -> list[str]:
    """The tasks a name stands for: itself, or what Gradle's camel-case abbreviation expands to
    (`dD`, `depDev` → deployDev); several means Gradle stops (ambiguous), none that it fails."""
    if name in tasks:
        return [name]
    parts = re.findall(r"[A-Z]?[^A-Z]*", name)
    pattern = re.compile("".join(re.escape(p) + r"[^A-Z]*" for p in parts if p))
    return [t for t in tasks if pattern.fullmatch(t)]


__all__ = ["GradleBuild", "GradleTask", "load_gradle", "abbreviation", "BUILD_NAMES"]
