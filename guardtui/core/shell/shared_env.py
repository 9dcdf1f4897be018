"""A program or task pointed at a shared environment (production, staging): what it changes there is not a
local change, so running it asks, whatever the program is (`uv run python -m scripts.backfill --database-url
"$PROD_DATABASE_URL" --apply`, `REDIS_URL="$STAGING_REDIS_URL" poetry run python x.py`, `./gradlew flywayRepair
-Pflyway.url=jdbc:postgresql://db-staging…`, `make backfill ENV=staging`, `dart run tool/x.dart --project app-prod`).

What points there: a variable referenced whose name says so ($PROD_DATABASE_URL), a URL whose host (or vault)
says so, or an option that selects a target (--project, --env, --target …) whose value says so. A task run with
ENV=staging is judged by what its recipe then runs (terraform plan reads; a script handed the staging URL asks). Setting RAILS_ENV=production for a build is not one:
only values that reach another machine count. Which programs: taxonomy `shared_environments` (runners of code and
tasks whose effect guardtui cannot read) and any project script or task."""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, ask
from .projectfiles import read_text
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation
    from .taxonomy import Taxonomy

# a name component or a host label naming a shared environment
_SHARED_WORD = r"(prod|production|prd|staging|stg|preprod|uat)"
_VARIABLE_REF = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_SHARED_NAME = re.compile(rf"(?i)(^|_){_SHARED_WORD}(_|$)")
_URL = re.compile(r"(?i)\b[a-z][\w+.-]*://(?:[^@/\s'\"]*@)?([^/\s?#'\"]+)")
_SHARED_PART = re.compile(rf"(?i)(^|[^a-z]){_SHARED_WORD}([^a-z]|$)")
_DRY = re.compile(r"^--?(dry-?run|dryrun|check|plan|what-if|noop|no-op)(=.*)?$|^-n$")


def shared_target(inv: "Invocation", tax: "Taxonomy") -> str | None:
    """What in the command points it at a shared environment, or None."""
    options = tax.shared_environments.get("options") or ()
    values = [(w.raw, w.value) for w in inv.words]
    values += [(word.raw, word.value) for _name, word in inv.cmd.assignments]
    for raw, value in values:
        for name in _VARIABLE_REF.findall(raw):
            if _SHARED_NAME.search(name):
                return f"${name}"
        for text in (value, raw):
            for m in _URL.finditer(text.replace(DYN, "")):
                if _SHARED_PART.search(m.group(1)):  # the host, or a vault (op://app-staging/…)
                    return m.group(0)
    args = inv.args
    for i, a in enumerate(args):
        option, eq, attached = a.partition("=")
        value = attached if eq else (args[i + 1] if i + 1 < len(args) else "")
        if option in options and value and not value.startswith("-") and _SHARED_PART.search(value):
            return f"{option} {value}"
    return None


# what a program's text does that changes a datastore or a service: SQL that writes, a client's mutating call
_CHANGES = re.compile(r"(?i)\b(insert\s+into|update\s+[\w.\"`]+\s+set|delete\s+from|drop\s+(table|database|schema|"
                      r"collection|index)|truncate\s+table|alter\s+table|merge\s+into)\b|"
                      r"\.(\w*(delete|Delete)|remove|enqueue|requeue|push|publish|put|insert|create|drop|truncate|flush|"
                      r"send|post|patch|upload|rpush|lpush|hset|hdel|expire|transition|promote|execute_write|"
                      r"set_registered_model_alias)\w*\(")
# an option that opts in to writing: run without it, the program only reports (`--apply` left out)
_OPT_IN = re.compile(r"""["'](--(apply|execute|commit|write|confirm|no-dry-run|for-real))["']""")


def shared_environment_run(inv: "Invocation", findings: list[Finding], tax: "Taxonomy") -> Finding | None:
    """An ask when `inv` runs code against a shared environment and the code may change something there;
    None otherwise. A program whose text guardtui reads and finds no change in (a report), or one that
    writes only with an opt-in option the command leaves out, runs as a read."""
    name = posixpath.basename(inv.name)  # ./gradlew
    runs_code = name in (tax.shared_environments.get("runners") or ()) or \
        any(f.rule == "shell.project-script" for f in findings)
    if not runs_code or any(_DRY.match(a) for a in inv.args):
        return None
    target = shared_target(inv, tax)
    if target is None:
        return None
    text = program_text(inv)
    if text is not None:
        opt_in = {m.group(1) for m in _OPT_IN.finditer(text)}
        if not _CHANGES.search(text) or opt_in and not opt_in & {a.partition("=")[0] for a in inv.args}:
            return None
    return ask(f"{inv.name} runs against a shared environment ({target}): what it changes there is not a local "
               "change", "deploy", BlastRadius.HIGH, "shell.shared-environment")


def program_text(inv: "Invocation") -> str | None:
    """The text of the project program `inv` runs (`python -m pkg.mod`, `python x.py`, `dart run tool/x.dart`,
    `./x.sh`), or None when it names none guardtui can read (a Gradle task, a tool)."""
    cwd = inv.scope.cwd
    if not cwd:
        return None
    if "/" in inv.name and not posixpath.basename(inv.name).startswith(("gradlew", "mvnw")):
        return read_text(posixpath.join(cwd, inv.name))
    args = inv.args
    for i, a in enumerate(args):
        if a == "-m" and i + 1 < len(args):
            module = args[i + 1].replace(".", "/")
            return read_text(posixpath.join(cwd, module + ".py")) or \
                read_text(posixpath.join(cwd, module, "__main__.py")) or \
                read_text(posixpath.join(cwd, "src", module + ".py"))
        if not a.startswith("-") and DYN not in a and "." in posixpath.basename(a):
            text = read_text(posixpath.join(cwd, a))
            if text is not None:
                return text
    return None
