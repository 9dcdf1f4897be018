"""Scripts generated at run time and run at once: `bash <(…)`, `source <(…)`, `python <(…)`.
What the producing command prints is judged as the script, where it is known."""
from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, allow, ask
from .parse import SimpleCommand
from .paths import PathKind

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

# plain text filters: a pipeline of them reshapes a file, it does not make up commands
TEXT_FILTERS = frozenset({"grep", "sort", "uniq", "head", "tail", "cat", "sed", "awk", "tr", "cut"})

def run_process_input(run: "Run", inv: "Invocation", index: int, what: str) -> list[Finding]:
    commands = inv.process_inputs().get(index) or []
    producer = next((c for c in reversed(commands) if c.via == commands[-1].via), None) if commands else None
    if producer is None:
        return [ask(f"{what} runs generated commands", "dynamic-exec", BlastRadius.HIGH, "exec.dynamic-script")]
    stream = run.output_of(producer)
    if stream.kind == "text" and stream.text is not None:
        run.nested(stream.text, inv, what)
        return []
    if producer.argv and "completion" in [w.value for w in producer.argv[1:3]]:
        return [allow(f"{what} loads {producer.argv[0].value}'s shell completion", "shell-state", rule="exec.source")]
    if stream.kind == "network":
        return [ask(f"{what} runs a script downloaded from the network", "remote-exec", BlastRadius.HIGH,
                    "exec.remote-script")]
    source = _filtered_project_file(run, inv, producer)
    if source is not None:  # source <(grep -v '^#' .env.dev | sed 's/^/export /'): that file, reshaped
        return [allow(f"{what} runs lines of the project's {source} (as sourcing it would)", "shell-state",
                      rule="exec.source")]
    return [ask(f"{what} runs commands generated at run time", "dynamic-exec", BlastRadius.HIGH,
                "exec.dynamic-script")]


def _filtered_project_file(run: "Run", inv: "Invocation", last: SimpleCommand) -> str | None:
    """The project file a pipeline of plain text filters reads, when that is all it does."""
    stage: SimpleCommand | None = last
    files: list[str] = []
    while stage is not None:
        if not stage.argv or posixpath.basename(stage.argv[0].value) not in TEXT_FILTERS or \
                any(w.dynamic for w in stage.argv):
            return None
        name = posixpath.basename(stage.argv[0].value)
        operands = [w for w in stage.argv[1:] if not w.value.startswith("-")]
        if name in ("grep", "sed", "awk") and operands:
            operands = operands[1:]  # the pattern or program
        for w in operands:
            info = run.path(w, inv)
            if info.kind not in (PathKind.PROJECT_SUB, PathKind.PROJECT_ROOT):
                return None
            files.append(w.display())
        if name == "sed" and any(w.value in ("-i", "--in-place") or w.value.startswith("-i") for w in stage.argv):
            return None
        stage = stage.stdin_from
    return files[-1] if len(files) == 1 else None
