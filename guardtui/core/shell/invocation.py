"""What the command analyzers (cmd_*.py) are handed: a resolved command, and the analysis in
progress they report to. analyze.py implements `Run`; the analyzers depend only on this module,
never on analyze.py or on each other."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .parse import SimpleCommand
from .words import Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from contextlib import AbstractContextManager

    from .findings import Finding, ShellAnalysis
    from .paths import PathInfo
    from .taxonomy import Taxonomy

UNKNOWN_WORD = "${__guardtui_unknown}"  # stands in for a part of a nested script known only at run time


@dataclass
class Invocation:
    """A resolved command: the name bash runs and its arguments, wrappers stripped."""

    name: str
    words: list[Word]
    cmd: SimpleCommand
    scope: Scope
    privileged: bool = False
    written_name: str = ""  # as written (/usr/bin/git, ./deploy.sh)

    @property
    def args(self) -> list[str]:
        return [w.value for w in self.words]

    @property
    def text(self) -> str:
        return " ".join([self.name] + [w.display() for w in self.words])

    def process_inputs(self) -> dict[int, list[SimpleCommand]]:
        """The command's process substitutions (`<(…)`), by index into self.words."""
        offset = len(self.cmd.argv) - len(self.words)
        return {i - offset: cmds for i, cmds in self.cmd.process_inputs.items() if i - offset >= 0}

    def as_script(self, word: Word, args: list[Word] | None = None) -> "Invocation":
        """This command running `word` as a script (`bash deploy.sh prod` runs ./deploy.sh with `prod`)."""
        remote = re.match(r"(?i)(https?|ftp|jsr|npm):", word.value)
        return Invocation(word.value, list(args or []), self.cmd, self.scope, self.privileged,
                          word.value if "/" in word.value or remote else "./" + word.value)


@dataclass(frozen=True)
class Origin:
    """Where a nested script comes from: a project file (as shown to the person) and the line its
    text starts on (`Makefile`, 12 for the recipe line judged)."""

    file: str
    line: int = 1
    defer_functions: bool = True  # a file run (not sourced): its shell functions run where they are called

    def at(self, offset_lines: int) -> str:
        return f"{self.file}:{self.line + offset_lines}"


@dataclass(frozen=True)
class Stream:
    """What flows into a command's stdin: text we know, a download, secrets, a file, or unknown."""

    kind: str  # text | network | secret | file | unknown | none
    text: str | None = None
    obfuscated: bool = False  # the text had to be decoded (base64, escapes, rev) to be read


class Run(Protocol):
    """One analysis in progress (analyze._Run): what an analyzer may ask of it and tell it."""

    tax: "Taxonomy"
    result: "ShellAnalysis"
    written: dict[str, str]  # files written with known text earlier in the command
    downloaded: set[str]  # files curl/wget wrote earlier
    secret_copies: set[str]  # where secrets were copied to earlier
    staged_secrets: list[str]  # secrets `git add` staged earlier
    added_remotes: set[str]  # `git remote add NAME URL` earlier
    empty_dirs: set[str]  # directories created earlier (mkdir, mktemp -d)
    vm_mounts: dict[str, dict]  # multipass/incus mounts made earlier in the command: tool → machine → mounts

    def holds_secret(self, path: str, home: str) -> bool: ...  # a secret, a place of them, or a copy made above
    def nested(self, text: str, inv: Invocation, label: str, scope: Scope | None = None,
               origin: "Origin | None" = None) -> None: ...
    def nested_routine(self, text: str, inv: Invocation, label: str, scope: Scope | None = None) -> bool: ...
    def judge(self, cmd: SimpleCommand, depth: int) -> None: ...
    def judge_invocation(self, inv: Invocation) -> "list[Finding]": ...
    def taxonomy(self, inv: Invocation) -> "list[Finding]": ...
    def script_run(self, inv: Invocation, runner: str = "") -> "Finding": ...
    def program(self, text: str, language: str, inv: Invocation, origin: "Origin", scope: Scope | None = None,
                label: str = "") -> None: ...
    def project_file(self, path: str, inv: Invocation, runner: str = "", label: str = "") -> "Finding | None": ...
    def enter_file(self, key: str) -> "Finding | None": ...
    def shallow(self) -> "AbstractContextManager[None]": ...
    def leave_file(self, key: str) -> None: ...
    def changed_earlier(self, path: str, inv: Invocation) -> "Finding | None": ...
    modules: set[str]  # project modules a judged program imported, each judged once
    def known_empty(self, word: Word, inv: Invocation) -> bool: ...
    def add(self, finding: "Finding", segment: str = "", via: str = "", span=None) -> None: ...
    def effect(self, path: str | None, raw: str, kind: str, cmd: SimpleCommand, remote: bool = False,
               **more) -> None: ...  # more: the FileEffect's other fields (recursive, source, …)
    def path(self, word: Word, inv: Invocation) -> "PathInfo": ...
    def delete(self, word: Word, inv: Invocation, recursive: bool, what: str, record: bool = True) -> "Finding": ...
    def read(self, word: Word, inv: Invocation) -> None: ...
    def write(self, word: Word, inv: Invocation, what: str, kind: str = "write", **more) -> "Finding | None": ...
    def stdin_source(self, cmd: SimpleCommand) -> Stream: ...
    def stdin_carrier(self, cmd: SimpleCommand) -> SimpleCommand: ...
    def carries_secret(self, path: str, scope: Scope) -> bool: ...
    def feeding(self, via: str, carrier: SimpleCommand) -> "AbstractContextManager[None]": ...
    def fed_program(self, inv: Invocation, language: str) -> "Finding | None": ...
    def output_of(self, cmd: SimpleCommand) -> Stream: ...
