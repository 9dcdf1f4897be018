"""Database migrations and restores aimed at a database on this machine: routine local work (rails db:migrate
with config/database.yml on localhost, sqitch deploy to a target whose uri is this machine too).

`flyway -configFiles=conf/flyway-dev.conf migrate` whose configuration names jdbc:postgresql://localhost/…,
`dbmate up` with DATABASE_URL on 127.0.0.1, `pg_restore --no-owner -d app_dev dump` (no host: the local
socket) apply the project's own changes to the developer's own database: allowed. The target is read where
the tool reads it (its options, its configuration files, the environment, the project's .env), on this
machine at judging time. A remote, unknown or production target, a verb that is not an apply (clean, undo,
down), or a restore with --clean: judged as before (the taxonomy).
"""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from .dbhost import is_local as _is_local, url_host as _host
from .findings import Finding, allow
from .projectfiles import load_dotenv, read_text
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

# the verbs that apply pending migrations (or only look): anything else is the taxonomy's
_APPLY = {
    "flyway": {"migrate", "info", "validate", "baseline", "repair"},
    "liquibase": {"update", "update-count", "updateCount", "update-to-tag", "updateToTag", "status", "validate"},
    "dbmate": {"up", "migrate", "create", "wait", "status"},
    "goose": {"up", "up-by-one", "up-to", "status", "version"},
    "hanami": {"migrate", "prepare", "create", "version"},  # `hanami db migrate`: the app's own database
    # Rails: forward migrations, seeds, a missing database created (db:setup loads the schema over the tables: no)
    "rails": {"db:migrate", "db:prepare", "db:create", "db:seed", "db:migrate:status", "db:version"},
    "sqitch": {"deploy", "status", "verify", "log", "plan"},
}
# the environments that are a developer's own (RAILS_ENV, RACK_ENV)
_DEV_STAGES = {"development", "dev", "test"}
_CONFIG_BYTES = 64 * 1024


def _option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args):
        for name in names:
            if a.startswith(name + "="):
                return a[len(name) + 1:]
            if a == name and i + 1 < len(args):
                return args[i + 1]
    return None


def _setting(text: str | None, *keys: str) -> str | None:
    for line in (text or "").splitlines():
        m = re.match(r"^\s*([\w.-]+)\s*[=:]\s*['\"]?(.*?)['\"]?\s*$", line)
        if m and m.group(1) in keys:
            return m.group(2)
    return None


def _read(path: str, cwd: str) -> str | None:
    return read_text(posixpath.normpath(posixpath.join(cwd, path)), _CONFIG_BYTES)


def _environment(inv: "Invocation", cwd: str) -> dict[str, str]:
    env = load_dotenv(posixpath.join(cwd, ".env"))
    env.update({k: v for k, v in inv.scope.variables.items() if DYN not in v})
    env.update({name: w.value for name, w in inv.cmd.assignments if w.static})
    return env


def _dotenv_only(inv: "Invocation", name: str) -> bool:
    """The variable is set by no assignment of this command line nor earlier in the script (only .env has it)."""
    return name not in inv.scope.variables and all(n != name for n, _ in inv.cmd.assignments)


# goose's options that take a value, and its commands (what follows DRIVER DBSTRING)
_GOOSE_VALUE_OPTIONS = {"-dir", "--dir", "-table", "--table", "-certfile", "-ssl-cert", "-ssl-key", "-timeout", "-env"}
_GOOSE_VERBS = {"up", "up-by-one", "up-to", "down", "down-to", "redo", "reset", "status", "version", "create", "fix",
                "validate"}


def _positionals(args: list[str], value_options: set[str]) -> list[str]:
    """The operands, the values of options that take one left out."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a.startswith("-"):
            skip = a in value_options
        else:
            out.append(a)
    return out


def _target(tool: str, args: list[str], inv: "Invocation", cwd: str) -> str | None:
    """The database URL the tool works on, as it finds it."""
    env = _environment(inv, cwd)
    if tool == "flyway":
        url = _option(args, "-url")
        if url:
            return url
        files = (_option(args, "-configFiles") or "").split(",")
        for name in [f for f in files if f] or ["flyway.conf", "conf/flyway.conf", "flyway.toml"]:
            url = _setting(_read(name, cwd), "flyway.url", "url")
            if url:
                return url
        return env.get("FLYWAY_URL")
    if tool == "liquibase":
        url = _option(args, "--url")
        if url:
            return url
        return _setting(_read(_option(args, "--defaults-file", "--defaultsFile") or "liquibase.properties", cwd),
                        "url", "liquibase.command.url") or env.get("LIQUIBASE_COMMAND_URL")
    if tool == "dbmate":
        url = _option(args, "--url", "-u")
        if url:
            return url
        return env.get(_option(args, "--env", "-e") or "DATABASE_URL")
    if tool == "hanami":  # DATABASE_URL from the environment, else the dotenv files Hanami loads for HANAMI_ENV
        if "DATABASE_URL" in env and not _dotenv_only(inv, "DATABASE_URL"):
            return env["DATABASE_URL"]
        stage = env.get("HANAMI_ENV") or "development"
        for name in ([f".env.{stage}.local"] + ([".env.local"] if stage != "test" else []) + [f".env.{stage}", ".env"]):
            url = load_dotenv(posixpath.join(cwd, name)).get("DATABASE_URL")
            if url:
                return url
        return None
    if tool == "rails":
        return _rails_target(inv, env, cwd)
    if tool == "sqitch":
        return _sqitch_target(args, cwd)
    if tool == "goose":
        positionals = _positionals(args, _GOOSE_VALUE_OPTIONS)
        if len(positionals) >= 3:  # goose DRIVER DBSTRING COMMAND [ARG]
            verb_at = next((i for i, p in enumerate(positionals) if p in _GOOSE_VERBS), len(positionals) - 1)
            if verb_at >= 2:
                return positionals[verb_at - 1]
        return env.get("GOOSE_DBSTRING")
    return None


def _rails_target(inv: "Invocation", env: dict[str, str], cwd: str) -> str | None:
    """The database Rails migrates: DATABASE_URL, else config/database.yml's section for RAILS_ENV (and the
    sections it merges in with `<<: *anchor`), when every host there is this machine's (or none is named: the
    local socket, an SQLite file). None for another environment, a remote host, one ERB computes, or no file."""
    for name, w in inv.cmd.assignments:
        env[name] = w.value
    for a in inv.args:  # rails db:migrate RAILS_ENV=production
        name, eq, value = a.partition("=")
        if eq and re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
            env[name] = value
    stage = env.get("RAILS_ENV") or env.get("RACK_ENV") or "development"
    if stage not in _DEV_STAGES:
        return None
    if env.get("DATABASE_URL"):
        return env["DATABASE_URL"]
    text = _read("config/database.yml", cwd)
    if text is None:
        return None  # where it points is not known here
    sections: dict[str, tuple[str, str]] = {}
    for m in re.finditer(r"(?m)^([\w-]+):[ \t]*(?:&([\w-]+))?[ \t]*\n((?:(?:[ \t]+.*|[ \t]*)(?:\n|$))*)", text):
        sections[m.group(1)] = (m.group(2) or "", m.group(3))
    if stage not in sections:
        return None
    bodies = [sections[stage][1]]
    for ref in re.findall(r"<<:\s*\*([\w-]+)", bodies[0]):
        bodies += [body for anchor, body in sections.values() if anchor == ref]
    for body in bodies:
        for m in re.finditer(r"(?m)^\s+(host|url):\s*['\"]?([^'\"\n#]*)", body):
            value = m.group(2).strip()
            if "<%" in value or "${" in value:
                return None
            host = value if m.group(1) == "host" else _host(value)
            if not _is_local(host.lower() if host is not None else None):
                return None
    named = any(re.search(r"(?m)^\s+(host|url):", b) for b in bodies)
    return f"db://localhost/ (config/database.yml, {stage})" if named else f"sqlite: (config/database.yml, {stage})"


def _sqitch_target(args: list[str], cwd: str) -> str | None:
    """The database sqitch deploys to: a db: URI, or a target's uri in sqitch.conf (the engine's default target
    when none is named)."""
    conf = _read("sqitch.conf", cwd) or ""

    def section(name: str) -> str:
        m = re.search(r"(?ms)^\[" + re.escape(name) + r"\]\s*$(.*?)(?=^\[|\Z)", conf)
        return m.group(1) if m else ""

    positionals = [a for a in args if not a.startswith("-")]
    target = _option(args, "--target", "-t") or (positionals[1] if len(positionals) > 1 else None)
    if target is None:
        engine = _setting(section("core"), "engine")
        target = _setting(section(f'engine "{engine}"'), "target") if engine else None
        if target is None:
            return None
    if not target.startswith("db:"):
        target = _setting(section(f'target "{target}"'), "uri") or ""
        if not target.startswith("db:"):
            return None
    uri = target[3:]
    return uri if "://" in uri else "sqlite:" + uri  # db:pg:inventory: the local socket


def migrations(run: "Run", inv: "Invocation") -> list[Finding] | None:
    """A migration tool applying the project's migrations to a database on this machine: allowed. None: judge
    it as before."""
    tool = inv.name
    args = inv.args
    cwd = inv.scope.cwd
    if cwd is None or inv.scope.remote or any(DYN in a for a in args):
        return None
    positionals = _positionals(args, _GOOSE_VALUE_OPTIONS) if tool == "goose" else [a for a in args if not a.startswith("-")]
    verb = positionals[-1] if positionals else ""
    if tool == "goose":  # goose … up-to 42: the command, then its argument
        verb = next((p for p in reversed(positionals) if p in _GOOSE_VERBS), verb)
    if tool == "rails":  # every task named is one that applies (or looks); NAME=value sets the environment
        tasks = [a for a in positionals if not re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", a)]
        if not tasks or any(t not in _APPLY[tool] for t in tasks) or len(tasks) != len(positionals) and \
                any(a.startswith("-") for a in args):
            return None
        verb = " ".join(tasks)
    elif tool == "sqitch":
        verb = positionals[0] if positionals else ""
        if verb not in _APPLY[tool]:
            return None
    elif verb not in _APPLY.get(tool, ()) or tool == "hanami" and positionals[:1] != ["db"]:
        return None
    url = _target(tool, args, inv, cwd)
    if url is None or not _is_local(_host(url)):
        return None
    return [allow(f"{tool} {verb} applies the project's migrations to the database on this machine ({url[:60]})",
                  "database", rule="db.local-migrate")]


_VALUE_LETTERS = set("dfFhpUjnNtTILPSeE")  # pg_restore's short options that take a value


def _cleans(arg: str) -> bool:
    """--clean, -c, or -c in a cluster of flags (-Oc; not -Fc, whose c is the format)."""
    if arg in ("--clean", "-c"):
        return True
    if not arg.startswith("-") or arg.startswith("--"):
        return False
    for letter in arg[1:]:
        if letter in _VALUE_LETTERS:
            return False
        if letter == "c":
            return True
    return False


def restore(run: "Run", inv: "Invocation") -> list[Finding] | None:
    """pg_restore into a database on this machine without --clean (it adds, drops nothing), or with no
    database at all (it prints the SQL): allowed. None: judge it as before."""
    args = inv.args
    if inv.scope.remote or any(_cleans(a) for a in args):
        return None
    database = _option(args, "-d", "--dbname")
    if database is None and not any(a.startswith(("-d", "--dbname=")) for a in args):
        if _option(args, "-f", "--file") is None:
            return [allow("pg_restore without a database only prints the dump's SQL", "database",
                          rule="db.restore-print")]
        return None
    if database is None or DYN in database:
        return None
    env = {k: v for k, v in inv.scope.variables.items() if DYN not in v}
    env.update({name: w.value for name, w in inv.cmd.assignments if w.static})
    host = _option(args, "-h", "--host")
    if host is None:
        named = _host(database)  # a URL or conninfo names its own host
        host = named if named is not None else env.get("PGHOST", "")
    if DYN in host or not _is_local(host.lower()):
        return None
    return [allow(f"pg_restore adds the dump to {database} on this machine (no --clean: nothing is dropped)",
                  "database", rule="db.local-restore")]
