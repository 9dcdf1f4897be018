"""CI workflows that run on this machine: `act` runs a GitHub Actions workflow's jobs locally (in docker containers,
or straight on the host for a platform mapped to `-self-hosted`), and `gh workflow run` dispatches one to GitHub,
which hands a `runs-on: self-hosted` job to the runner this machine hosts (an actions-runner directory under the
home); `gitlab-runner exec shell JOB` and `gitlab-ci-local` run a GitLab job's scripts here. A job that runs
here has its steps' `run:` scripts judged as the shell they are; containers ask, as `docker run` does."""
from __future__ import annotations

import glob
import json
import os
import posixpath
from typing import TYPE_CHECKING

import yaml

from ..model import BlastRadius
from .findings import Finding, allow, ask
from .projectfiles import read_text
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_ACT_NOTHING_RUNS = frozenset({"-l", "--list", "-n", "--dryrun", "-g", "--graph", "--version", "-h", "--help",
                               "--validate"})
_ACT_VALUES = frozenset({"-j", "--job", "-W", "--workflows", "-P", "--platform", "-e", "--eventpath", "-s", "--secret",
                         "--var", "--env", "--input", "-C", "--directory", "--container-architecture", "-a", "--actor",
                         "--secret-file", "--var-file", "--env-file", "--input-file", "--artifact-server-path"})
_MAX_JOBS = 16
_MAX_STEPS = 32


def _workflows_dir(start: str, stop: str | None) -> str | None:
    """The repository's .github/workflows: in `start` or a directory above it (not above `stop`)."""
    current = posixpath.normpath(start)
    for _ in range(64):
        candidate = posixpath.join(current, ".github", "workflows")
        if os.path.isdir(candidate):
            return candidate
        if current == "/" or current == stop:
            return None
        current = posixpath.dirname(current)
    return None


def _workflows(directory: str) -> list[tuple[str, dict]]:
    """(path, parsed) of each workflow file in a directory (or the one file named)."""
    paths = [directory] if directory.endswith((".yml", ".yaml")) else \
        sorted(glob.glob(posixpath.join(glob.escape(directory), "*.y*ml")))[:32]
    out = []
    for path in paths:
        try:
            data = yaml.safe_load(read_text(path) or "")
        except yaml.YAMLError:
            continue
        if isinstance(data, dict):
            out.append((path, data))
    return out


def _jobs(data: dict, only: set[str]) -> list[tuple[str, dict]]:
    jobs = data.get("jobs")
    if not isinstance(jobs, dict):
        return []
    return [(name, job) for name, job in list(jobs.items())[:_MAX_JOBS]
            if isinstance(job, dict) and (not only or name in only)]


def _labels(job: dict) -> list[str]:
    runs_on = job.get("runs-on")
    if isinstance(runs_on, str):
        return [runs_on]
    if isinstance(runs_on, list):
        return [str(x) for x in runs_on]
    if isinstance(runs_on, dict) and isinstance(runs_on.get("labels"), (str, list)):
        labels = runs_on["labels"]
        return [labels] if isinstance(labels, str) else [str(x) for x in labels]
    return []


def _judge_steps(run: "Run", inv: "Invocation", path: str, name: str, job: dict) -> None:
    for step in (job.get("steps") or [])[:_MAX_STEPS]:
        script = step.get("run") if isinstance(step, dict) else None
        if isinstance(script, str) and script.strip():
            label = step.get("name") if isinstance(step.get("name"), str) else "run"
            run.nested(script, inv, f"{posixpath.basename(path)} › {name} › {label}")


def _options(words: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    values: dict[str, list[str]] = {}
    flags: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, attached = word.partition("=")
        if option in _ACT_VALUES:
            value = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            values.setdefault(option, []).append(value)
            i += 1 if eq else 2
            continue
        flags.append(word)
        i += 1
    return values, flags


def act(run: "Run", inv: "Invocation") -> list[Finding]:
    """`act [event] [-j JOB] [-P label=image]`: each job the workflows give runs in a container, or on the host
    when its platform maps to `-self-hosted` (here and in .actrc / ~/.actrc)."""
    words = [w.value for w in inv.words]
    if set(words) & _ACT_NOTHING_RUNS:
        return [allow("act lists or checks the workflows: nothing runs", "read-only", rule="ci.act-list")]
    cwd = inv.scope.cwd
    if not cwd or inv.scope.remote or any(DYN in w for w in words):
        return []
    extra: list[str] = []
    for rc in (posixpath.join(inv.scope.home, ".actrc"), posixpath.join(cwd, ".actrc")):
        extra += (read_text(rc) or "").split()
    values, _ = _options(extra + words)
    platforms = {}
    for mapping in values.get("-P", []) + values.get("--platform", []):
        label, _, image = mapping.partition("=")
        platforms[label] = image
    only = set(values.get("-j", []) + values.get("--job", []))
    directory = (values.get("-W") or values.get("--workflows") or [".github/workflows"])[-1]
    root = posixpath.dirname(posixpath.dirname(_workflows_dir(cwd, inv.scope.project) or
                                               posixpath.join(cwd, ".github/workflows")))
    on_host = False
    for path, data in _workflows(posixpath.normpath(posixpath.join(root if not directory.startswith("/") else "/",
                                                                   directory))):
        for name, job in _jobs(data, only):
            if any(platforms.get(label) == "-self-hosted" for label in _labels(job)):
                on_host = True
                _judge_steps(run, inv, path, name, job)
    if on_host:
        return [ask("act runs the workflow's steps on this machine itself (-self-hosted), as the person", "build-test",
                    BlastRadius.HIGH, "ci.act-host")]
    return [ask("act runs the workflow's steps in docker containers (as docker run would)", "container",
                BlastRadius.MEDIUM, "ci.act")]


def _runner_labels(home: str) -> set[str] | None:
    """The labels of a GitHub Actions runner this machine hosts (its .runner file under the home; a runner
    registered without labels there takes `self-hosted`), or None when there is none."""
    found: set[str] | None = None
    for path in sorted(glob.glob(posixpath.join(glob.escape(home), "*", ".runner")) +
                       glob.glob(posixpath.join(glob.escape(home), "*", "*", ".runner")))[:8]:
        try:
            data = json.loads((read_text(path) or "").lstrip("\ufeff"))
        except ValueError:
            data = {}
        labels = data.get("labels") if isinstance(data, dict) else None
        found = (found or set()) | {"self-hosted"} | ({str(x).lower() for x in labels} if isinstance(labels, list)
                                                       else set())
    return found


def gh_workflow(run: "Run", inv: "Invocation") -> list[Finding]:
    """`gh workflow run NAME`: a job whose runs-on this machine's runner answers runs here; its steps are judged.
    Returns nothing itself (the taxonomy says what dispatching a workflow is)."""
    words = [w.value for w in inv.words]
    if words[:2] != ["workflow", "run"] or len(words) < 3 or not inv.scope.cwd or inv.scope.remote:
        return []
    target = next((w for w in words[2:] if not w.startswith("-")), "")
    labels = _runner_labels(inv.scope.home) if target and DYN not in target else None
    if labels is None:
        return []
    workflows_dir = _workflows_dir(inv.scope.cwd, inv.scope.project)
    if workflows_dir is None:
        return []
    for path, data in _workflows(workflows_dir):
        if posixpath.basename(path) != target and data.get("name") != target:
            continue
        for name, job in _jobs(data, set()):
            wanted = {label.lower() for label in _labels(job)}
            known = labels != {"self-hosted"}  # a .runner without labels: any self-hosted job may land here
            if "self-hosted" in wanted and (wanted <= labels if known else True):
                _judge_steps(run, inv, path, name, job)
    return []


# --- GitLab CI jobs run on this machine: `gitlab-runner exec shell JOB` (the shell executor runs the job's
# scripts here, as the person) and `gitlab-ci-local JOB` (a job without an image runs on the host)
_GITLAB_SCRIPTS = ("before_script", "script", "after_script")
_GITLAB_LOCAL_VALUES = frozenset({"--cwd", "--file", "--variable", "--home-dir", "--state-dir", "--needs",
                                  "--concurrency", "--volume", "--network", "--extra-host", "--pull-policy"})


def _gitlab_file(start: str, stop: str | None, name: str = ".gitlab-ci.yml") -> tuple[str, dict] | None:
    current = posixpath.normpath(start)
    for _ in range(64):
        path = posixpath.join(current, name) if not name.startswith("/") else name
        text = read_text(path)
        if text is not None:
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError:
                return None
            return (path, data) if isinstance(data, dict) else None
        if current == "/" or current == stop or name.startswith("/"):
            return None
        current = posixpath.dirname(current)
    return None


def _gitlab_lines(data: dict, job: dict, key: str) -> list[str]:
    """A job's script lines for `key`, falling back to `default:` and the top level (before/after_script)."""
    value = job.get(key)
    if value is None and key != "script":
        default = data.get("default")
        value = (default.get(key) if isinstance(default, dict) else None) or data.get(key)
    if isinstance(value, str):
        return [value]
    out: list[str] = []
    for item in value if isinstance(value, list) else ():
        out += [str(x) for x in item] if isinstance(item, list) else [str(item)]  # a !reference or nested list
    return out[:_MAX_STEPS]


def _judge_gitlab_job(run: "Run", inv: "Invocation", path: str, data: dict, name: str) -> bool:
    job = data.get(name)
    if not isinstance(job, dict):
        return False
    for key in _GITLAB_SCRIPTS:
        lines = _gitlab_lines(data, job, key)
        if lines:
            run.nested("\n".join(lines), inv, f"{posixpath.basename(path)} › {name} › {key}")
    return True


def gitlab_runner(run: "Run", inv: "Invocation") -> list[Finding]:
    """`gitlab-runner exec EXECUTOR JOB`: with the shell executor the job's scripts run on this machine, judged
    as the commands they are; other executors run them in a container (asks, as docker run does)."""
    words = [w.value for w in inv.words]
    positionals = [w for w in words if not w.startswith("-")]
    if positionals[:1] != ["exec"] or len(positionals) < 3 or not inv.scope.cwd or inv.scope.remote or \
            any(DYN in w for w in words):
        return []
    executor, job = positionals[1], positionals[2]
    found = _gitlab_file(inv.scope.cwd, inv.scope.project)
    if found is None or not _judge_gitlab_job(run, inv, found[0], found[1], job):
        return []
    if executor == "shell":
        return [allow(f"gitlab-runner exec shell runs the job {job}'s scripts here (judged as the commands they are)",
                      "build-test", rule="ci.gitlab-runner-shell")]
    return [ask(f"gitlab-runner exec {executor} runs the job {job} in a container", "container", BlastRadius.MEDIUM,
                "ci.gitlab-runner")]


def gitlab_ci_local(run: "Run", inv: "Invocation") -> list[Finding]:
    """`gitlab-ci-local [JOB…]` (every job without names): a job with no image runs its scripts on the host."""
    words = [w.value for w in inv.words]
    if {"--list", "--list-all", "--list-json", "--list-csv", "--preview", "--help", "-h", "--version"} & set(words):
        return [allow("gitlab-ci-local lists or previews the jobs: nothing runs", "read-only", rule="ci.gitlab-list")]
    if not inv.scope.cwd or inv.scope.remote or any(DYN in w for w in words):
        return []
    names: list[str] = []
    directory, file = inv.scope.cwd, ".gitlab-ci.yml"
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, value = word.partition("=")
        if option in _GITLAB_LOCAL_VALUES or option == "--job":
            value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            i += 1 if eq else 2
            if option == "--cwd":
                directory = posixpath.normpath(posixpath.join(inv.scope.cwd, value))
            elif option == "--file":
                file = value
            elif option == "--job":
                names.append(value)
            continue
        if not word.startswith("-"):
            names.append(word)
        i += 1
    found = _gitlab_file(directory, inv.scope.project, file)
    if found is None:
        return []
    path, data = found
    jobs = names or [k for k, v in data.items() if isinstance(v, dict) and "script" in v and not k.startswith(".")]
    on_host = False
    for name in jobs[:_MAX_JOBS]:
        job = data.get(name)
        image = job.get("image") if isinstance(job, dict) else None
        if isinstance(job, dict) and not (image or data.get("image")):
            on_host |= _judge_gitlab_job(run, inv, path, data, name)
    if on_host:
        return [allow("gitlab-ci-local runs the jobs' scripts here (judged as the commands they are)", "build-test",
                      rule="ci.gitlab-local-shell")]
    return [ask("gitlab-ci-local runs the jobs in docker containers (as docker run would)", "container",
                BlastRadius.MEDIUM, "ci.gitlab-local")]
