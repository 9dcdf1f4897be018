"""Build tools whose tasks are code in the project: Gradle (the tasks asked for, read from
build.gradle(.kts) with what they depend on, and what the build script runs while Gradle
configures it), the Maven wrapper (judged as mvn), and CMake's install step (it writes where the
prefix says)."""
from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, allow, ask
from .gradlefiles import BUILD_NAMES, abbreviation, load_gradle
from .invocation import UNKNOWN_WORD, Invocation, Origin
from .projectfiles import cmake_commands, find_upward, read_text, shown
from .words import DYN, Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Run

MAX_TASKS = 64  # Gradle tasks followed for one command

# Gradle's options that take a value (the CLI's and the built-in tasks'): the value is not a task
_GRADLE_VALUE_OPTIONS = frozenset({
    "-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file", "-x", "--exclude-task", "-I",
    "--init-script", "-g", "--gradle-user-home", "--console", "--warning-mode", "--max-workers", "--include-build",
    "--priority", "--project-cache-dir", "--update-locks", "-F", "--dependency-verification", "-M",
    "--write-verification-metadata", "--tests", "--configuration", "--args", "--task", "--dependency", "--type",
    "--dsl", "--project-name", "--package", "--test-framework", "--configuration-cache-problems", "--gradle-version",
    "--distribution-type", "--rerun-tasks-for"})
_GRADLE_DRY_RUN = frozenset({"-m", "--dry-run"})
# what a Gradle run does without a task of the project's: help, reports, the wrapper
_GRADLE_BUILTIN_READS = frozenset({"help", "tasks", "dependencies", "dependencyInsight", "properties", "projects",
                                   "buildEnvironment", "outgoingVariants", "resolvableConfigurations", "javaToolchains",
                                   "model", "components"})


def _shell_words(argv: list[str]) -> str:
    """A command's words as shell text the analysis reads back as the same words (values known only
    when Gradle runs stay unknown words)."""
    out = []
    for arg in argv:
        pieces = arg.split(UNKNOWN_WORD)
        if re.fullmatch(r"[\w@%+=:,./-]+", arg):
            out.append(arg)
            continue
        quoted = [re.sub(r'([\\"$`])', r"\\\1", p) for p in pieces]
        out.append('"' + UNKNOWN_WORD.join(quoted) + '"')
    return " ".join(out) or UNKNOWN_WORD


def _is_gradle_wrapper(path: str) -> bool:
    text = read_text(path)
    return text is not None and ("GradleWrapperMain" in text or "gradle-wrapper.jar" in text)


def gradle(run: "Run", inv: Invocation) -> list[Finding]:
    """gradle / ./gradlew TASK…: each task asked for (by name, a project path or a camel-case
    abbreviation) and those it depends on, as build.gradle(.kts) defines them; the commands the
    build script runs while Gradle configures it run whatever the task. What the task's name says
    (publish, deploy, release) is the taxonomy's."""
    if inv.written_name and "/" in inv.written_name:
        launcher = _launcher(inv)
        if launcher is not None and os.path.isfile(launcher) and not _is_gradle_wrapper(launcher):
            return [run.script_run(inv)]  # a `gradlew` that is not Gradle's wrapper: judged as the script it is
    words = inv.words
    args = inv.args
    if any(a in _GRADLE_DRY_RUN for a in args) or any(w.dynamic for w in words):
        return []  # a dry run only lists the tasks; an unknown word: the taxonomy's word on the command
    directory, excluded, tasks = _gradle_arguments(args)
    if directory is not None and DYN in directory:
        return []
    cwd = posixpath.normpath(posixpath.join(inv.scope.cwd or "/", directory)) if directory else inv.scope.cwd
    as_gradle = Invocation("gradle", words, inv.cmd, inv.scope, inv.privileged, "gradle")
    said = run.taxonomy(as_gradle)
    build = load_gradle(cwd, UNKNOWN_WORD) if cwd else None
    if build is None:
        return said
    for path in build.files:
        changed = run.changed_earlier(path, inv)
        if changed is not None:
            return [changed]
    root = posixpath.dirname(build.files[0])
    for file, line, argv in build.configuration[:MAX_TASKS]:
        _judge(run, inv, argv, file, line, root, "gradle (configuring the build)")
    todo = [t for name in tasks for t in abbreviation(name.rsplit(":", 1)[-1], list(build.tasks))]
    seen: set[str] = set()
    while todo and len(seen) < MAX_TASKS:
        name = todo.pop(0)
        if name in seen or name in excluded or name not in build.tasks:
            continue
        seen.add(name)
        for task in build.tasks[name]:
            todo += task.depends
            for line, argv in task.commands:
                _judge(run, inv, argv, task.file, line, root, f"gradle {name}")
    return said or [allow("gradle runs the project's tasks (judged above)", "build-test", rule="tasks.gradle")]


def _launcher(inv: Invocation) -> str | None:
    name = inv.written_name
    if DYN in name or not inv.scope.cwd:
        return None
    return posixpath.normpath(posixpath.join(inv.scope.cwd, name)) if not name.startswith("/") else name


def _gradle_arguments(args: list[str]) -> tuple[str | None, set[str], list[str]]:
    """(-p directory, tasks excluded with -x, tasks asked for)."""
    directory: str | None = None
    excluded: set[str] = set()
    tasks: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        flag, eq, value = arg.partition("=")
        if flag in _GRADLE_VALUE_OPTIONS and arg.startswith("-"):
            if not eq:
                value = args[i + 1] if i + 1 < len(args) else ""
                i += 1
            if flag in ("-p", "--project-dir"):
                directory = value
            elif flag in ("-x", "--exclude-task"):
                excluded.add(value.rsplit(":", 1)[-1])
        elif re.fullmatch(r"-[pxcbgI].+", arg):  # -pdir, -xtest: the value attached
            if arg[1] == "p":
                directory = arg[2:]
            elif arg[1] == "x":
                excluded.add(arg[2:].rsplit(":", 1)[-1])
        elif not arg.startswith("-"):
            tasks.append(arg)
        i += 1
    return directory, excluded, [t for t in tasks if t.rsplit(":", 1)[-1] not in _GRADLE_BUILTIN_READS]


def _judge(run: "Run", inv: Invocation, argv: list[str], file: str, line: int, cwd: str, label: str) -> None:
    where = shown(file, inv.scope.project or inv.scope.cwd)
    scope = Scope(cwd, inv.scope.home, project=inv.scope.project, facts=dict(inv.scope.facts))
    run.program(_shell_words(argv), "shell", inv, Origin(where, line), scope, f"{label} › {where}:{line}")


def maven_wrapper(run: "Run", inv: Invocation) -> list[Finding]:
    """./mvnw GOALS (and mvn): Maven itself, by its goals (deploy, release:perform ask), with the JVM options of the
    project's .mvn/jvm.config."""
    return _jvm_config(inv) + run.taxonomy(Invocation("mvn", inv.words, inv.cmd, inv.scope, inv.privileged, "mvn"))


def _jvm_config(inv: Invocation) -> list[Finding]:
    """.mvn/jvm.config (found upward, as Maven finds the project's base directory) names the options Maven's own JVM
    starts with: a -javaagent: jar the project holds runs inside it first, code guardtui cannot read."""
    config = find_upward(inv.scope.cwd, (".mvn/jvm.config",), None) if inv.scope.cwd and not inv.scope.remote else None
    if config is None:
        return []
    base = posixpath.dirname(posixpath.dirname(config))
    text = (read_text(config) or "").replace("${MAVEN_PROJECTBASEDIR}", base).replace("$MAVEN_PROJECTBASEDIR", base)
    out = []
    for m in re.finditer(r"-javaagent:([^\s=\"']+)", text):
        jar = posixpath.normpath(posixpath.join(base, m.group(1)))
        if not jar.startswith((inv.scope.home.rstrip("/") + "/.m2/", "/usr/", "/opt/")):  # not a dependency or a JDK
            out.append(ask(f"Maven's JVM loads the agent {m.group(1)} (.mvn/jvm.config), a jar guardtui cannot read",
                           "dynamic-exec", BlastRadius.HIGH, "build.java-agent"))
    return out


# -- cmake -------------------------------------------------------------------------------------------
def cmake(run: "Run", inv: Invocation) -> list[Finding]:
    """cmake --install DIR [--prefix P] (and cmake --build DIR --target install): the install writes
    into the prefix given, else the one the build was configured with (CMakeCache.txt); where it
    writes is judged as any write (outside the project asks). cmake -P SCRIPT runs the script, and
    configuring (cmake -S DIR, -B DIR, cmake DIR) runs CMakeLists.txt: what they run or remove
    (execute_process, file(REMOVE…)) is judged as the commands they are."""
    args = inv.args
    if command_mode(run, inv):  # cmake -E rm -rf DIR: the file utility it amounts to
        return []
    _cmake_scripts(run, inv)
    build_dir = _value(args, "--install")
    if build_dir is None:
        build_dir = _value(args, "--build")
        target = _value(args, "--target") or _value(args, "-t")
        if build_dir is None or target != "install":
            return []
    if DYN in build_dir:
        return []
    prefix_word = _value_word(inv.words, "--prefix")
    if prefix_word is None:
        cache = read_text(posixpath.join(inv.scope.cwd or "/", build_dir, "CMakeCache.txt"))
        found = re.search(r"(?m)^CMAKE_INSTALL_PREFIX:\w+=(.*)$", cache or "")
        if not found:
            return []
        prefix_word = Word.literal(found.group(1).strip())
    finding = run.write(prefix_word, inv, "cmake --install writes into")
    return [finding] if finding is not None else []


def command_mode(run: "Run", inv: Invocation) -> bool:
    """`cmake -E rm -rf ..`, `cmake -E copy X ~/.config/…`: a tool's file-utility mode (taxonomy `command_modes`) is
    judged as that utility on the same arguments (`chdir DIR CMD…` as `cd DIR && CMD…`)."""
    modes = run.tax.command_modes.get(posixpath.basename(inv.name)) or {}
    words = inv.words
    if len(words) < 2 or words[0].value not in modes:
        return False
    utility = modes[words[0].value].get(words[1].value)
    if utility is None:
        return False
    rest = " ".join(w.raw for w in words[2:])
    if utility == "cd":
        rest = " ".join(w.raw for w in words[3:])
        text = f"cd {words[2].raw} && {rest}" if len(words) > 3 else f"cd {words[2].raw if len(words) > 2 else ''}"
    else:
        text = f"{utility} {rest}".strip()
    run.nested(text, inv, f"{posixpath.basename(inv.name)} {words[0].value} {words[1].value}")
    return True


# cache variables naming CMake scripts a configure includes (CMakePresets.json / CMakeUserPresets.json cacheVariables,
# or -D on the command line): their execute_process and file(REMOVE…) run as the project configures
_CMAKE_INCLUDES = re.compile(r"CMAKE_PROJECT_(?:\w+_)?INCLUDE(?:_BEFORE)?|CMAKE_PROJECT_TOP_LEVEL_INCLUDES|"
                             r"CMAKE_TOOLCHAIN_FILE")


_CMAKE_VALUED = frozenset({"-B", "-G", "-T", "-A", "-D", "-C", "-U", "--preset", "--toolchain", "--install-prefix",
                           "--log-level", "--graphviz"})


def _preset_includes(source: str, args: list[str], cwd: str) -> list[str]:
    """The scripts the presets' cacheVariables (with --preset/--workflow) and -D options make a configure include."""
    values: list[str] = []
    for i, a in enumerate(args):
        d = a[2:] if a.startswith("-D") and len(a) > 2 else args[i + 1] if a == "-D" and i + 1 < len(args) else ""
        name, _, value = d.partition("=")
        if _CMAKE_INCLUDES.fullmatch(name.partition(":")[0]):
            values += value.split(";")
    wanted = _value(args, "--preset")
    if wanted is not None or "--workflow" in args:
        presets: dict[str, dict] = {}
        for name in ("CMakePresets.json", "CMakeUserPresets.json"):
            try:
                data = json.loads(read_text(posixpath.join(source, name)) or "{}")
            except ValueError:
                continue
            for preset in (data.get("configurePresets") or []) if isinstance(data, dict) else []:
                if isinstance(preset, dict):
                    presets.setdefault(str(preset.get("name")), preset)
        # the preset asked for and those it inherits (a workflow's or one that is not there: every preset)
        chosen = [wanted] if wanted in presets and "--workflow" not in args else list(presets)
        for i, name in enumerate(chosen):
            if i > 32:
                break
            parents = presets.get(name, {}).get("inherits") or []
            chosen += [p for p in ([parents] if isinstance(parents, str) else parents) if p not in chosen]
        for name in chosen:
            preset = presets.get(name) or {}
            variables = preset.get("cacheVariables")
            for key, value in (variables.items() if isinstance(variables, dict) else ()):
                value = value.get("value") if isinstance(value, dict) else value
                if _CMAKE_INCLUDES.fullmatch(key) and isinstance(value, str):
                    values += value.split(";")
            if isinstance(preset.get("toolchainFile"), str):
                values.append(preset["toolchainFile"])
    out = []
    for value in values:
        value = value.replace("${sourceDir}", source).replace("${sourceParentDir}", posixpath.dirname(source))
        if value and DYN not in value and "${" not in value:
            out.append(posixpath.normpath(posixpath.join(cwd, value)))
    return out[:8]


def _cmake_scripts(run: "Run", inv: Invocation) -> None:
    args = inv.args
    if not inv.scope.cwd or inv.scope.remote or args[:1] and args[0] in ("--build", "--install", "--version", "-E",
                                                                         "--help"):
        return
    scripts = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-P"]
    source = _value(args, "-S") or next((a[2:] for a in args if a.startswith("-S") and len(a) > 2), None)
    if not scripts:
        if source is None:
            positional = [a for i, a in enumerate(args) if not a.startswith("-") and
                          not (i and args[i - 1] in _CMAKE_VALUED) and a not in (_value(args, "-B") or "",)]
            source = positional[0] if positional else ("." if any(a.startswith(("-B", "--preset", "--workflow"))
                                                                    for a in args) else None)
        if source is not None:
            here = posixpath.normpath(posixpath.join(inv.scope.cwd, source))
            # an initial-cache script (-C) and the scripts the presets or -D options include run as it configures
            scripts += [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-C"]
            scripts += _preset_includes(here, args, inv.scope.cwd)
            scripts.append(posixpath.join(source, "CMakeLists.txt"))
    for script in scripts[:4]:
        if DYN in script:
            continue
        path = posixpath.normpath(posixpath.join(inv.scope.cwd, script))
        for command in cmake_commands(read_text(path) or ""):
            run.nested(command, inv, f"cmake › {shown(path, inv.scope.cwd)}")


def _value(args: list[str], flag: str) -> str | None:
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(flag + "=") and flag.startswith("--"):
            return a.partition("=")[2]
    return None


def _value_word(words: list[Word], flag: str) -> Word | None:
    for i, w in enumerate(words):
        if w.value == flag and i + 1 < len(words):
            return words[i + 1]
        if w.value.startswith(flag + "="):
            return Word(w.value.partition("=")[2], w.raw)
    return None


# -- earthly ----------------------------------------------------------------------------------------
_EARTHLY_VALUE_OPTIONS = frozenset({"--build-arg", "--secret", "--secret-file", "--platform", "--config", "--buildkit-host",
                                    "--org", "--sat", "--project", "--remote-cache", "--cache-from", "--output",
                                    "--artifact", "--image"})
_EARTHLY_TARGET = re.compile(r"(?m)^(?P<name>[a-z][\w-]*)\s*:\s*$")
_EARTHLY_REFERENCE = re.compile(r"(?m)^\s+(?:BUILD|FROM|COPY|WAIT)\b[^\n]*?(?<![\w/.])\+(?P<t>[a-z][\w-]*)")
MAX_EARTHLY_TARGETS = 16


def earthly(run: "Run", inv: Invocation) -> list[Finding]:
    """earthly +TARGET (./dir+TARGET): a target's RUN lines run in BuildKit containers, except after LOCALLY, where
    they run on this machine as shell commands: those are judged as the commands they are (and so are those of the
    targets it BUILDs or builds FROM). A target run in containers only is a build."""
    words = [w.value for w in inv.words]
    targets, i = [], 0
    while i < len(words):
        word = words[i]
        if word in _EARTHLY_VALUE_OPTIONS:
            i += 2
            continue
        if "+" in word and not word.startswith("-") and DYN not in word:
            targets.append(word)
        i += 1
    if not targets or not inv.scope.cwd or inv.scope.remote:
        return []
    seen: set[tuple[str, str]] = set()
    pending = [(posixpath.normpath(posixpath.join(inv.scope.cwd, t.partition("+")[0] or ".")), t.partition("+")[2])
               for t in targets[:4]]
    while pending and len(seen) < MAX_EARTHLY_TARGETS:
        directory, name = pending.pop()
        if (directory, name) in seen:
            continue
        seen.add((directory, name))
        earthfile = posixpath.join(directory, "Earthfile")
        body, line = _earthly_target(read_text(earthfile) or "", name)
        pending += [(directory, m.group("t")) for m in _EARTHLY_REFERENCE.finditer(body)]
        for command, number in _earthly_local_runs(body):
            where = shown(earthfile, inv.scope.project or inv.scope.cwd)
            scope = Scope(directory, inv.scope.home, project=inv.scope.project, facts=dict(inv.scope.facts))
            run.program(command, "shell", inv, Origin(where, line + number), scope,
                        f"earthly +{name} (LOCALLY) › {where}:{line + number}")
    return [allow("earthly builds its targets in BuildKit containers", "build-test", rule="build.earthly")]


def _earthly_target(text: str, name: str) -> tuple[str, int]:
    """The body of target `name` in an Earthfile (its indented lines) and the line it starts after."""
    for m in _EARTHLY_TARGET.finditer(text):
        if m.group("name") == name:
            rest = text[m.end():]
            end = re.search(r"(?m)^(?=\S)", rest.lstrip("\n"))
            body = rest.lstrip("\n")[:end.start()] if end else rest
            return body, text[:m.end()].count("\n") + 1 + (len(rest) - len(rest.lstrip("\n")))
    return "", 0


def _earthly_local_runs(body: str) -> list[tuple[str, int]]:
    """The RUN commands after a LOCALLY line (continuations joined; `RUN --flag` options dropped; the exec form
    ["a", "b"] as its words), with their line in the body."""
    lines = body.split("\n")
    out, local, i = [], False, 0
    while i < len(lines):
        start, text = i, lines[i].strip()
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        if text == "LOCALLY":
            local = True
        elif local and text.startswith("RUN "):
            command = re.sub(r"^RUN\s+(?:--[\w-]+(?:=\S+)?\s+)*", "", text)
            if command.startswith("["):
                try:
                    command = " ".join(shlex.quote(str(w)) for w in json.loads(command))
                except ValueError:
                    pass
            out.append((command, start))
    return out


HANDLERS = {"earthly": earthly, "gradle": gradle, "gradlew": gradle, "./gradlew": gradle, "mvnw": maven_wrapper, "mvn": maven_wrapper,
            "./mvnw": maven_wrapper, "cmake": cmake}

__all__ = ["HANDLERS", "BUILD_NAMES"]
