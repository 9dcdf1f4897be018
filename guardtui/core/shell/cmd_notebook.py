"""Notebooks that run: `jupyter nbconvert --execute`, `jupyter execute`, `papermill`, `ipython x.ipynb`.

Executing a notebook runs its code cells. They are read (projectfiles.notebook_code) and judged as
what they are: the kernel's Python through the program analysis (pycode), `!cmd` lines and `%%bash`
cells through the shell analysis. A notebook that cannot be read leaves the command judged as before.
"""
from __future__ import annotations

import json
import posixpath
import shlex
from typing import TYPE_CHECKING

from .findings import Finding, allow
from .invocation import Invocation, Origin
from .projectfiles import MAX_NOTEBOOK_BYTES, notebook_code, read_text, shown
from .taxonomy import split_args
from .words import DYN, Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Run

# options of these commands that take a value (so the notebook is found among the operands)
_JUPYTER_VALUES = frozenset({"--to", "--output", "--output-dir", "--template", "--ExecutePreprocessor.timeout",
                             "--ExecutePreprocessor.kernel_name", "--kernel_name", "--config", "--log-level"})
_PAPERMILL_VALUES = frozenset({"-p", "--parameters", "-r", "--parameters_raw", "-f", "--parameters_file", "-y",
                               "--parameters_yaml", "-b", "--parameters_base64", "-k", "--kernel", "-l", "--language",
                               "--cwd", "--engine", "--log-level", "--start-timeout", "--execution-timeout",
                               "--request-save-on-cell-execute"})


def jupyter(run: "Run", inv: Invocation) -> list[Finding]:
    """`jupyter nbconvert --execute NB…` and `jupyter execute NB…` run the notebooks (in their own directory)."""
    args = inv.args
    if not args:
        return []
    if args[:2] == ["kernelspec", "install"]:  # the kernel's argv runs whenever a notebook starts on it
        positionals, _ = split_args(args[2:], frozenset({"--name", "--prefix", "--log-level"}))
        for directory in positionals[:4]:
            _kernel_argv(run, inv, posixpath.join(inv.scope.cwd or "/", directory), "jupyter kernelspec install")
        return []
    kernel = next((a.partition("=")[2] for a in args if a.startswith(("--ExecutePreprocessor.kernel_name=",
                                                                      "--kernel_name="))), None)
    if kernel and DYN not in kernel:  # the kernel it starts: found where Jupyter looks (JUPYTER_PATH first)
        for root in _kernel_roots(inv):
            if _kernel_argv(run, inv, posixpath.join(root, "kernels", kernel), f"kernel {kernel}"):
                break
    executes = args[0] == "execute" or (args[0] == "nbconvert" and any(
        a == "--execute" or a.startswith("--execute=") or a.startswith("--ExecutePreprocessor.enabled=True")
        for a in args))
    if not executes:
        return []
    positionals, _ = split_args(args[1:], _JUPYTER_VALUES)
    return _run_notebooks(run, inv, [p for p in positionals if p.endswith(".ipynb")], in_own_dir=True)


def _kernel_roots(inv: Invocation) -> list[str]:
    env = dict(inv.scope.variables)
    env.update({name: w.value for name, w in inv.cmd.assignments})
    roots = [p for p in str(env.get("JUPYTER_PATH", "")).split(":") if p and DYN not in p]
    roots = [posixpath.normpath(posixpath.join(inv.scope.cwd or "/", p)) for p in roots]
    return roots + [posixpath.join(inv.scope.home, ".local/share/jupyter"), "/usr/local/share/jupyter",
                    "/usr/share/jupyter"]


def _kernel_argv(run: "Run", inv: Invocation, directory: str, label: str) -> bool:
    """Judge the command a kernel.json's argv starts; False when there is none to read."""
    text = read_text(posixpath.join(directory, "kernel.json"))
    try:
        argv = json.loads(text).get("argv") if text else None
    except (ValueError, AttributeError):
        argv = None
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return False
    scope = inv.scope.copy()
    scope.cwd = directory
    run.nested(" ".join(shlex.quote(a) for a in argv), inv, label, scope)
    return True


def papermill(run: "Run", inv: Invocation) -> list[Finding]:
    """`papermill IN.ipynb OUT.ipynb`: IN runs (in the current directory, or --cwd)."""
    positionals, _ = split_args(inv.args, _PAPERMILL_VALUES)
    return _run_notebooks(run, inv, positionals[:1], in_own_dir=False)


def ipython(run: "Run", inv: Invocation) -> list[Finding]:
    """`ipython NB.ipynb` runs the notebook's code; `ipython script.py` the script."""
    positionals, _ = split_args(inv.args, frozenset({"--profile", "--config", "--log-level", "-c", "-m"}))
    if any(a in ("-c", "-m") for a in inv.args) or not positionals:
        return []
    first = positionals[0]
    if first.endswith(".ipynb"):
        return _run_notebooks(run, inv, [first], in_own_dir=False)
    if first.endswith((".py", ".ipy")):
        return [run.script_run(inv.as_script(next(w for w in inv.words if w.value == first)), "python3")]
    return []


def _run_notebooks(run: "Run", inv: Invocation, notebooks: list[str], in_own_dir: bool) -> list[Finding]:
    findings: list[Finding] = []
    for name in notebooks:
        word = next((w for w in inv.words if w.value == name), None)
        if word is None or word.dynamic or inv.scope.remote:
            continue
        path = run.path(word, inv).path
        judged = _notebook(run, inv, path, in_own_dir) if path else None
        if judged is not None:
            findings.append(judged)
    return findings


def _notebook(run: "Run", inv: Invocation, path: str, in_own_dir: bool) -> Finding | None:
    changed = run.changed_earlier(path, inv)
    if changed is not None:
        return changed
    text = read_text(path, MAX_NOTEBOOK_BYTES)
    code = notebook_code(text) if text is not None else None
    if code is None:
        return None
    name = shown(path, inv.scope.project or inv.scope.cwd)
    stop = run.enter_file(path)
    if stop is not None:
        return stop
    try:
        cwd = posixpath.dirname(path) if in_own_dir else inv.scope.cwd
        scope = Scope(cwd, inv.scope.home, project=inv.scope.project, facts=dict(inv.scope.facts))
        scope.variables["0"] = path
        scope.facts["in-file"] = path  # the kernel's own process: what it sets dies with it
        if code.language in ("python", "r") and code.program.strip():
            runner = "python3" if code.language == "python" else "Rscript"
            kernel = Invocation(runner, [], inv.cmd, inv.scope, inv.privileged, runner)
            run.program(code.program, code.language, kernel, Origin(name), scope, name)
        if code.shell.strip():
            run.program(code.shell, "shell", Invocation("sh", [], inv.cmd, inv.scope, inv.privileged, "sh"),
                        Origin(name), scope, f"{name} (! lines)")
    finally:
        run.leave_file(path)
    what = "code cells" if code.language else "shell lines (its kernel's language is not read)"
    return allow(f"runs {name}'s {what} (their contents are judged)", "build-test", rule="shell.notebook")


def _subcommand(sub: str):
    """`jupyter-nbconvert …` is `jupyter nbconvert …`."""
    def judge(run: "Run", inv: Invocation) -> list[Finding]:
        words = [Word.literal(sub)] + inv.words
        return jupyter(run, Invocation("jupyter", words, inv.cmd, inv.scope, inv.privileged, inv.written_name))
    return judge


HANDLERS = {"jupyter": jupyter, "jupyter-nbconvert": _subcommand("nbconvert"), "jupyter-execute": _subcommand("execute"),
            "papermill": papermill, "ipython": ipython, "ipython3": ipython}
