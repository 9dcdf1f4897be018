"""Judge an MCP tool call by what it does (data/mcp.yaml through catalog.py).

Worst first wins among: the calls the tool amounts to (an MCP `read_file` is a Read, a
`pods_exec` a `kubectl exec`: every rule judges those), the SQL it runs (the shell's SQL
rules), the URLs it reaches (the web judge), the local files it sends away, credentials in
what it sends to a service, and its effect (read allows, change asks, delete asks, a delete of
a whole namespace / repository / database denies). A tool guardtui knows nothing about, whose
name says nothing either, is escalated like any unknown tool.
"""
from __future__ import annotations

import dataclasses
import re
import shlex
from dataclasses import dataclass
from typing import Any, Iterator

from ..model import BlastRadius, Decision, ToolCall, Verdict, more_restrictive
from ..rules.base import EvalContext, is_within, resolve_path
from ..secrets import secret_catalog
from ..shell.cmd_code import SQL_FILE_READ, SQL_FILE_WRITE, classify_sql, without_file_writes
from ..web import acting_get, judge_url, metadata_header, metadata_in_text
from ..shell.dbhost import is_local, url_host
from .bound import bound_paths, bound_targets
from .catalog import Identified, McpCatalog, Server, ToolSpec, mcp_catalog, name_tokens

_BY_EFFECT = "mcp_effect"  # a decision from the tool's effect alone (metadata key)
_FILE_TOOLS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "LS": "path", "Grep": "path",
               "Glob": "path", "WebFetch": "url"}
_SQL_START = re.compile(r"(?is)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*|\(\s*)*(select|with|insert|update|delete|drop|create|"
                        r"alter|truncate|grant|revoke|explain|show|describe|begin|copy|merge|replace|upsert|pragma|"
                        r"vacuum|analyze|call|set|comment|reindex|refresh|lock|do)\b")
_PATH_LIKE = re.compile(r"^[~./]|/|\\|^[\w.-]+\.[A-Za-z0-9]{1,8}$")  # a path, or a file name with an extension
_WRITES_TO = re.compile(r"(?i)^(?:output|out|dest|destination|target|save|download)")


def judge_mcp(call: ToolCall, ctx: EvalContext, catalog: McpCatalog | None = None) -> "McpJudgement":
    catalog = catalog or mcp_catalog()
    found = catalog.identify(call.tool)
    args = _lifted(dict(call.input), catalog)
    if found.by == "tools" and found.server is not None and not found.server.carried_by(args):
        found = Identified(found.server_name, found.tool, None, None, "none")  # a generic name, another server's
    parts: list[Decision] = []
    if found.spec is not None:
        parts += _judge_spec(call, ctx, catalog, found, found.server, found.spec, args)  # type: ignore[arg-type]
    else:  # an unknown server, or a tool its server's knowledge does not describe (a gateway's)
        for server, spec in catalog.candidates(found.tool):
            if (server is found.server or found.server is None) and (found.by == "alias" or server.carried_by(args)):
                parts += _judge_spec(call, ctx, catalog, found, server, spec, args)
        if not parts:
            parts += _judge_inferred(call, ctx, catalog, found, args)
    parts += _typing(call, ctx, catalog, found, args)
    parts += _pipeline_writes(found, args)
    parts += _metadata_headers(catalog, found, args)
    parts += _exposure(catalog, found, args)
    parts += _production_wipe(catalog, found, args)
    parts += _cascading_delete(catalog, found, args)
    parts += _whole_store_delete(call, ctx, catalog, found, args)
    parts += _prints_secrets(catalog, found)
    remote = found.server.remote if found.server is not None else True
    if remote:
        parts += _credentials(found, args)
    decision = _worst(parts)
    local = _local_database_write(call, ctx, found, parts)
    if local is not None:
        parts = [p for p in parts if p.verdict is Verdict.ALLOW] + [local]
        decision = local
    if decision is None or decision.verdict is not Verdict.ALLOW:
        bound = _bound_to_guard(call, ctx, found)
        if bound is not None:
            parts.append(bound)
            decision = bound
    if decision is None:
        label = _label(found)
        decision = Decision(Verdict.LLM, f"{label} is an MCP tool guardtui does not know, and its name does not say "
                                         f"what it does", "mcp/unknown", BlastRadius.UNKNOWN, "unknown-tool")
    about = {"mcp_server": found.server.title if found.server else found.server_name, "mcp_tool": found.tool,
             "identified_by": found.by}
    page = _page_opened(catalog, found, args)
    if page is not None:  # the page a browser shows now: typing into it later is judged by what it is
        about["leaves"] = {_page_key(found): page}
    firm = _worst([p for p in parts if not p.metadata.get(_BY_EFFECT)])
    return McpJudgement(decision.with_metadata(**about), firm.with_metadata(**about) if firm is not None else None)


@dataclass(frozen=True)
class McpJudgement:
    """decision: the call's verdict. firm: the worst of what the analysers found (the calls it
    amounts to, its SQL, URLs, uploads, credentials, a delete of a whole namespace): that holds
    before the person's plugins, as the shell analysis does. A plain "it changes something" is
    judged after them, so a plugin the person trusts can allow their own MCP tools."""

    decision: Decision
    firm: Decision | None


def _bound_to_guard(call: ToolCall, ctx: EvalContext, found: Identified) -> Decision | None:
    """A tool that changes something, of a server configured onto the guard's own files (bound.py)."""
    protected = ctx.protected
    if protected is None or not found.server_name:
        return None
    root = ctx.session.root or call.cwd
    for path in bound_paths(found.server_name, root, ctx.home):
        match = protected.match(path, call.cwd)
        if match is not None:
            return Decision(Verdict.DENY, f"{_label(found)} changes something through a server configured onto "
                            f"{match.describe()}: an agent may not change the guard that watches it",
                            "mcp/bound-to-guard", BlastRadius.CRITICAL, "guard-self")
    return None


def _local_database_write(call: ToolCall, ctx: EvalContext, found: Identified, parts: list[Decision]) -> Decision | None:
    """SQL that changes rows or schema (not a wipe, not a drop) through a local database server (SQLite, a
    Postgres server) whose configuration points only at files inside the project (not the guard's) or servers
    on this machine: routine local work, allowed. None: judged as before."""
    server = found.server
    if server is None or server.remote or not any(spec.sql for spec in server.tools.values()):
        return None
    asks = [p for p in parts if p.verdict is not Verdict.ALLOW]
    sql = [p for p in asks if p.rule == "mcp/sql"]
    if not asks or any(p.verdict is not Verdict.ASK for p in asks) or \
            any(p.rule != "mcp/sql" and not p.metadata.get(_BY_EFFECT) for p in asks) or \
            any(p.blast_radius not in (BlastRadius.LOW, BlastRadius.MEDIUM) for p in asks) or \
            not any(p.rule == "mcp/sql" for p in parts):
        return None
    root = (ctx.session.root or call.cwd or "").rstrip("/")
    if not root or root == ctx.home.rstrip("/"):
        return None  # the home directory is no project
    targets = bound_targets(found.server_name, root, ctx.home)
    if targets is None or not (targets[0] or targets[1]):
        return None
    paths, urls = targets
    protected = ctx.protected
    if any(not is_within(path, root) or path == root or protected is not None and protected.match(path, call.cwd)
           for path in paths) or any(not is_local(url_host(url)) for url in urls):
        return None
    for value in _leaves(dict(call.input)):  # the files its SQL writes (VACUUM INTO 'f') are the project's
        for target in SQL_FILE_WRITE.findall(value):
            written = resolve_path(target, call.cwd, ctx.home)
            if "://" in target or not is_within(written, root) or protected is not None and \
                    protected.match(written, call.cwd):
                return None
    where = ", ".join([p[len(root) + 1:] for p in paths] + urls)[:80]
    what = sql[0].reason if sql else f"{_label(found)} changes its database"
    return Decision(Verdict.ALLOW, f"{what} — the project's own database ({where})", "mcp/sql-local",
                    BlastRadius.LOW, "database")


# -- a described tool -----------------------------------------------------------------------
def _judge_spec(call: ToolCall, ctx: EvalContext, catalog: McpCatalog, found: Identified, server: Server,
                spec: ToolSpec, args: dict) -> list[Decision]:
    label = f"{server.title} {spec.name}"
    if any(args.get(k) is True or args.get(k) == "true" for k in spec.dry_run):
        spec = _previewing(spec)
        label += " (a dry run)"
    parts: list[Decision] = []
    payload: list[Decision] = []
    sql_keys = list(spec.sql)
    if spec.sql and not any(args.get(k) for k in spec.sql):  # another server's spelling: execute_sql {sql: …}
        sql_keys += [k for k in catalog.arguments["sql"] if k not in spec.sql]
    for key in sql_keys:
        payload += _sql(call, ctx, label, args.get(key), declared=key in spec.sql or key not in _UNDECLARED_SQL)
    for template in spec.equivalents:
        for tool, tool_input in expand(template, args):
            payload.append(_equivalent(call, ctx, label, tool, tool_input))
    for key in spec.urls:
        parts += _urls(call, ctx, label, args.get(key))
    for key in spec.page_code:
        parts += _page_code(label, args.get(key))
    for key in spec.uploads:
        parts += _uploads(call, ctx, label, args.get(key))
    for key in spec.repo_files:
        parts += _repo_files(call, ctx, label, args, key)
    parts += payload
    effect = _effect(catalog, spec, args)
    if effect is None and spec.equivalents:  # what it amounts to decides, but a whole namespace stays a whole namespace
        by_name = catalog.verb_class(spec.name)
        scope = catalog.wide_scope(spec.name, args) if by_name is not None and by_name[0] == "delete" else None
        if scope is not None:
            parts.append(Decision(Verdict.DENY, f"{label} deletes a whole {scope}", f"mcp/{server.id}.{spec.name}",
                                  BlastRadius.CRITICAL, "mcp-delete"))
    if effect is not None:
        cls, verb = effect
        if not (payload and catalog.is_carrier(verb) and spec.effect is None):
            parts.append(_by_effect(catalog, label, spec.name, cls, verb, spec.radius, spec.reason, args,
                                    f"mcp/{server.id}.{spec.name}", _where(server)))
    elif not payload and not parts:  # what it amounts to needs an argument it was not given: its name says
        by_name = catalog.verb_class(spec.name)
        parts.append(_by_effect(catalog, label, spec.name, *by_name, spec.radius, spec.reason, args,
                                f"mcp/{server.id}.{spec.name}", _where(server)) if by_name is not None else
                     Decision(Verdict.LLM, f"{label}: guardtui cannot tell what it does", "mcp/unknown",
                              BlastRadius.UNKNOWN, "unknown-tool", {_BY_EFFECT: True}))
    elif not payload:  # urls, page code or uploads judged, nothing else to say: it reads
        parts.append(Decision(Verdict.ALLOW, f"{label} {spec.reason or 'only reads'}", f"mcp/{server.id}.{spec.name}",
                              BlastRadius.LOW, "mcp", {_BY_EFFECT: True}))
    return parts


def _previewing(spec: ToolSpec) -> ToolSpec:
    """A dry run reads what it would change (a diff shows the file): its writes become reads of the same
    paths, its commands are not run, and its effect is a read."""
    reads = tuple("Read " + t.partition(" ")[2] for t in spec.equivalents if t.split(" ", 1)[0] in ("Write", "Edit"))
    kept = tuple(t for t in spec.equivalents if t.split(" ", 1)[0] not in ("Write", "Edit") and not t.startswith("$ "))
    return dataclasses.replace(spec, equivalents=reads + kept, effect="read", unless=(),
                               reason=spec.reason or "only shows what it would do")


def _effect(catalog: McpCatalog, spec: ToolSpec, args: dict) -> tuple[str, str] | None:
    found: list[tuple[str, str]] = []
    if spec.verb_arg:  # first: on a tie the operation's own name says it best (issue_write {method: update})
        value = args.get(spec.verb_arg)
        by_arg = catalog.verb_class(value) if isinstance(value, str) else None
        if by_arg is not None:
            found.append(by_arg)
    if spec.effect is not None:
        if spec.unless and not any(args.get(k) not in (None, "", [], {}) for k in spec.unless):
            found.append(("read", spec.unless[0]))
        else:
            found.append((spec.effect, spec.effect))
    elif not spec.equivalents and not spec.sql:
        by_name = catalog.verb_class(spec.name)
        if by_name is not None:
            found.append(by_name)
    if not found:
        return None
    rank = {"delete": 0, "change": 1, "read": 2}
    return min(found, key=lambda f: rank[f[0]])


def _by_effect(catalog: McpCatalog, label: str, tool: str, cls: str, verb: str, radius: BlastRadius | None,
               reason: str, args: dict, rule: str, where: str = "") -> Decision:
    effect_only = {_BY_EFFECT: True}
    if cls == "read":
        return Decision(Verdict.ALLOW, f"{label} {reason or 'only reads'}", rule, BlastRadius.LOW, "mcp", effect_only)
    if cls == "delete":
        scope = catalog.wide_scope(tool, args) if radius is None else None
        empty = catalog.unfiltered(args)
        if scope is not None or radius is BlastRadius.CRITICAL or empty is not None:
            what = f"a whole {scope}" if scope else f"every record ({empty} is empty, so it matches all)" if empty \
                else "what cannot be brought back"
            return Decision(Verdict.DENY, f"{label} deletes {what}{': ' + reason if reason else ''}", rule,
                            BlastRadius.CRITICAL, "mcp-delete")
        said = f" ({verb})" if verb != cls else ""
        return Decision(Verdict.ASK, f"{label} {reason or f'deletes something{where}{said}'}", rule,
                        radius or BlastRadius.HIGH, "mcp-delete", effect_only)
    if radius is BlastRadius.CRITICAL:
        return Decision(Verdict.DENY, f"{label} {reason or 'changes something that cannot be undone'}", rule,
                        BlastRadius.CRITICAL, "mcp-change")
    said = f" ({verb})" if verb != cls else ""
    return Decision(Verdict.ASK, f"{label} {reason or f'changes something{where}{said}'}", rule,
                    radius or BlastRadius.MEDIUM, "mcp-change", effect_only)


# -- a tool guardtui knows nothing about: its name and its arguments ------------------------
def _judge_inferred(call: ToolCall, ctx: EvalContext, catalog: McpCatalog, found: Identified,
                    args: dict) -> list[Decision]:
    label = _label(found)
    names = catalog.arguments
    effect = catalog.verb_class(found.tool)
    verb_values = [args.get(k) for k in names["verb"] if isinstance(args.get(k), str)]
    for value in verb_values:
        by_arg = catalog.verb_class(value)
        if by_arg is not None and (effect is None or _rank(by_arg[0]) < _rank(effect[0])):
            effect = by_arg
    parts: list[Decision] = []
    payload: list[Decision] = []  # what it runs: SQL, a shell command (the verb `run`/`execute` only carries it)
    for key in names["sql"]:
        payload += _sql(call, ctx, label, args.get(key), declared=key not in _UNDECLARED_SQL)
    wrapped = _cli_command(catalog, found, args)
    if wrapped is not None:  # gcloud run_gcloud_command {args: [...]}: the gcloud command line it runs
        payload.append(_equivalent(call, ctx, label, "Bash", {"command": wrapped[1]}))
    for key in names["shell"]:
        value = args.get(key)
        if wrapped is not None and key == wrapped[0]:
            continue
        if isinstance(value, str) and value.strip() or isinstance(value, list) and value:
            command = _with_stdin(_shell_text(value), args, names.get("stdin", ()))
            payload.append(_equivalent(call, ctx, label, "Bash", {"command": command}))
    files: list[Decision] = []
    for key in names["url"]:
        parts += _urls(call, ctx, label, args.get(key))
    cls = effect[0] if effect else "read"
    sends = effect is not None and effect[1] in ("send", "post", "upload", "share", "publish", "attach", "email")
    for key in names["path"]:
        for value in _strings(args.get(key)):
            if "://" in value or not _PATH_LIKE.search(value):
                continue  # `target: staging` names a deploy target, not a file
            if sends:
                parts += _uploads(call, ctx, label, value)
            elif cls == "delete":
                files.append(_equivalent(call, ctx, label, "Bash", {"command": f"rm -r -- {shlex.quote(value)}"}))
            elif cls == "change" or _WRITES_TO.match(key):
                files.append(_equivalent(call, ctx, label, "Write", {"file_path": value}))
            else:
                files.append(_equivalent(call, ctx, label, "Read", {"file_path": value}))
    parts += payload + files
    if not payload and effect is not None and effect[0] != "read":
        parts += _spelled_command(call, ctx, catalog, found, args)
    if effect is not None and not (payload and catalog.is_carrier(effect[1])):
        parts.append(_by_effect(catalog, label, found.tool, effect[0], effect[1], None, "", args, "mcp/verb",
                                _where(found.server)))
    return parts


# -- what arguments carry ---------------------------------------------------------------------
_UNDECLARED_SQL = frozenset({"query", "query_string", "queryString"})  # SQL only when the text is SQL

def _sql(call: ToolCall, ctx: EvalContext, label: str, value: Any, declared: bool) -> list[Decision]:
    if not isinstance(value, str) or not value.strip():
        return []
    if not declared and not _SQL_START.match(value):
        return []  # a search query, not SQL
    files = _sql_files(call, ctx, label, value)
    if files:
        return files
    verdict = classify_sql(without_file_writes(value))
    if verdict is None:
        return [Decision(Verdict.ALLOW, f"{label} runs a read-only query", "mcp/sql", BlastRadius.LOW, "database")]
    radius, reason = verdict
    if radius == "critical":
        return [Decision(Verdict.DENY, f"{label}: {reason}", "mcp/sql", BlastRadius.CRITICAL, "database")]
    return [Decision(Verdict.ASK, f"{label}: {reason}", "mcp/sql", BlastRadius(radius), "database")]


def _sql_files(call: ToolCall, ctx: EvalContext, label: str, sql: str) -> list[Decision]:
    """What a local database server's SQL does to files here: a file it writes (VACUUM INTO, COPY … TO, ATTACH)
    judged as the Write it amounts to when that denies or asks, a secret it reads (read_text) asks, a URL it
    fetches carrying a credential denies. [] when none of these decides."""
    out: list[Decision] = []
    for target in SQL_FILE_WRITE.findall(sql):
        if re.match(r"(?i)^[a-z0-9]+://", target):
            continue
        path = resolve_path(target, call.cwd, ctx.home)
        d = ctx.judge(ToolCall("Write", {"file_path": path, "content": ""}, call.cwd, agent=call.agent,
                               session=call.session, event=call.event, mode=call.mode))
        if d is not None and d.verdict in (Verdict.DENY, Verdict.ASK):
            out.append(d.with_(reason=f"{label} writes {target}: {d.reason}", rule=f"mcp/sql-file:{d.rule}"))
    for source in SQL_FILE_READ.findall(sql):
        if re.match(r"(?i)^https?://", source):
            if secret_catalog().credential_in(source) or "read_text" in sql.lower() and re.search(
                    r"(?i)credentials|id_[a-z0-9]+|\.npmrc|\.netrc|token", sql):
                out.append(Decision(Verdict.DENY, f"{label} fetches {source[:60]} with what it read (secrets)",
                                    "mcp/sql-exfiltration", BlastRadius.CRITICAL, "secrets"))
            continue
        d = ctx.judge(ToolCall("Read", {"file_path": resolve_path(source, call.cwd, ctx.home)}, call.cwd,
                               agent=call.agent, session=call.session, event=call.event, mode=call.mode))
        if d is not None and d.verdict in (Verdict.DENY, Verdict.ASK):
            out.append(d.with_(reason=f"{label} reads {source}: {d.reason}", rule=f"mcp/sql-file:{d.rule}"))
    return [max(out, key=lambda d: (d.verdict.restrictiveness, d.blast_radius.severity))] if out else []


def _urls(call: ToolCall, ctx: EvalContext, label: str, value: Any) -> list[Decision]:
    out = []
    for url in _strings(value):
        judged = judge_url(url) or acting_get(url)
        if judged is None:
            continue
        if judged.kind == "acts":
            out.append(Decision(Verdict.ASK, f"{label}: {judged.reason}", "mcp/url-acting-get", BlastRadius.HIGH,
                                "remote-action"))
        elif judged.kind == "destroys":
            out.append(Decision(Verdict.DENY, f"{label}: {judged.reason}", "mcp/url-acting-get", BlastRadius.CRITICAL,
                                "remote-action"))
        elif judged.kind == "file":
            out.append(_equivalent(call, ctx, label, "Read", {"file_path": judged.path}))
        else:
            out.append(Decision(Verdict.DENY, f"{label}: {judged.reason}", f"mcp/url-{judged.kind}",
                                BlastRadius.CRITICAL, "secrets"))
    return out


def _exposure(catalog: McpCatalog, found: Identified, args: dict) -> list[Decision]:
    """A private thing published (update_repository {private: false}) or control handed out
    (add_collaborator {permission: admin}): data exposure.publish / grants."""
    words = {w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", found.tool) if w}
    verb = catalog.verb_class(found.tool)
    if verb is not None and verb[0] == "change" and not words & {"create", "new", "fork"}:
        for key, values in catalog.publish.items():
            value = args.get(key)
            if value is not None and str(value).lower() in values:
                return [Decision(Verdict.DENY, f"{_label(found)} makes it public ({key}: {value}): every file and its "
                                               f"whole history, committed secrets included", "mcp/publish",
                                 BlastRadius.CRITICAL, "mcp-change")]
    if words & catalog.grant_tools:
        for key, values in catalog.grants.items():
            value = args.get(key)
            if value is not None and str(value).lower() in values:
                return [Decision(Verdict.DENY, f"{_label(found)} gives an account {key} {value}: control of it, its "
                                               f"secrets and its settings", "mcp/grant", BlastRadius.CRITICAL,
                                 "mcp-change")]
    return []


def _production_wipe(catalog: McpCatalog, found: Identified, args: dict) -> list[Decision]:
    """A function run by name (Convex's run {functionName: seed:reset}) whose name is a wipe on its own (the verb
    alone, or with an object that is everything: wipeAll, clearDatabase) on a production deployment: the whole
    production datastore (data production_wipes). Elsewhere it asks."""
    data = catalog.production_wipes
    if not data:
        return []
    name = next((args[k] for k in data["operations"] if isinstance(args.get(k), str)), None)
    if not name:
        return []
    last = re.split(r"[:/.]", name.strip())[-1]
    words = name_tokens(last)
    if not words or words[0] not in data["verbs"] or any(w not in data["wholes"] for w in words[1:]):
        return []
    target = next((f"{k}: {args[k]}" for k in data["targets"] if isinstance(args.get(k), str) and
                   re.search(data["production"], args[k])), None)
    if target is None:
        return [Decision(Verdict.ASK, f"{_label(found)} runs {name}, which by its name wipes the data it is run on",
                         "mcp/wipe", BlastRadius.HIGH, "mcp-delete")]
    return [Decision(Verdict.DENY, f"{_label(found)} runs {name} on production ({target}): by its name it wipes the "
                                   f"whole production datastore", "mcp/wipe", BlastRadius.CRITICAL, "mcp-delete")]


def _prints_secrets(catalog: McpCatalog, found: Identified) -> list[Decision]:
    """list-variables, get_env_vars, reveal_secret: a read that prints credentials asks (data secret_printers)."""
    data = catalog.secret_printers
    if not data:
        return []
    tokens = name_tokens(found.tool)
    if not set(tokens) & set(data["verbs"]):
        return []
    spaced = " " + " ".join(tokens) + " "
    what = next((o for o in data["objects"] if o in tokens), None) or \
        next((p for p in data["pairs"] if f" {p} " in spaced), None)
    if what is None:
        return []
    return [Decision(Verdict.ASK, f"{_label(found)} prints {what}: the values are credentials (the agent reads them "
                                  f"and may send them on)", "mcp/prints-secrets", BlastRadius.MEDIUM, "secrets")]


def _cascading_delete(catalog: McpCatalog, found: Identified, args: dict) -> list[Decision]:
    """delete_application {cascade: true}: the object goes with everything it manages (data cascades)."""
    data = catalog.cascades
    if not data:
        return []
    verb = catalog.verb_class(found.tool)
    if verb is None or verb[0] != "delete":
        return []
    owner = next((t for t in name_tokens(found.tool) if t in data["owners"]), None)
    flag = next((k for k in data["arguments"] if args.get(k) is True or str(args.get(k)).lower() == "true"), None)
    if owner is None or flag is None:
        return []
    named = next((str(v) for k, v in args.items() if isinstance(v, str) and "name" in k.lower()), "")
    return [Decision(Verdict.DENY, f"{_label(found)} deletes the {owner}{' ' + named[:60] if named else ''} with "
                                   f"{flag}: every resource it manages is deleted with it", "mcp/cascade-delete",
                     BlastRadius.CRITICAL, "mcp-delete")]


def _whole_store_delete(call: ToolCall, ctx: EvalContext, catalog: McpCatalog, found: Identified,
                        args: dict) -> list[Decision]:
    """Meilisearch delete-index, Algolia deleteIndex, delete_all_documents: a search engine's index is its whole
    datastore (data store_servers). Denied unless the server's configuration, or a URL the call gives, points
    only at this machine (then it asks, as a delete does)."""
    data = catalog.store_servers
    verb = catalog.verb_class(found.tool)
    if not data or verb is None or verb[0] != "delete":
        return []
    tokens = name_tokens(found.tool)
    named = set(name_tokens(found.server_name)) | set(tokens) | \
        ({w for w in name_tokens(found.server.title)} if found.server is not None else set())
    if not named & set(data["servers"]):
        return []
    whole = next((t for t in tokens if t in data["objects"]), None)
    every = next((t for t in tokens if t in data["all_of"]), None) if "all" in tokens else None
    what = f"a whole {whole}" if whole else f"all the {every} of" if every else None
    if what is None:
        return []
    urls = [v for v in _leaves(args) if "://" in v]
    configured = bound_targets(found.server_name, ctx.session.root or call.cwd, ctx.home) if found.server_name \
        else None
    urls += configured[1] if configured else []
    if urls and all(is_local(url_host(u)) for u in urls):
        return []
    named_one = next((str(v) for k, v in args.items() if isinstance(v, str) and not isinstance(v, bool)), "")
    return [Decision(Verdict.DENY, f"{_label(found)} deletes {what}{' ' + named_one[:60] if named_one else ''}"
                                   f": every document in it, on a server not shown to be this machine's",
                     "mcp/whole-store", BlastRadius.CRITICAL, "mcp-delete")]


def _metadata_headers(catalog: McpCatalog, found: Identified, args: dict) -> list[Decision]:
    """A request header only a cloud metadata service asks for (Metadata-Flavor: Google), whatever the URL."""
    for key in catalog.arguments.get("headers", ()):
        value = args.get(key)
        lines = [f"{k}: {v}" for k, v in value.items() if isinstance(v, (str, int, bool))] if isinstance(value, dict) \
            else list(_strings(value))
        for line in lines:
            service = metadata_header(line)
            if service:
                return [Decision(Verdict.DENY, f"{_label(found)} sends `{line[:60]}`, a header only {service} asks for: "
                                               f"the request fetches this machine's cloud credentials", "mcp/url-metadata",
                                 BlastRadius.CRITICAL, "secrets")]
    return []


def _page_code(label: str, value: Any) -> list[Decision]:
    for code in _strings(value):
        reached = metadata_in_text(code)
        if reached is not None:
            return [Decision(Verdict.DENY, f"{label} runs page code that reaches {reached[1]} ({reached[0][:60]}), "
                                           f"which hands out this machine's cloud credentials", "mcp/url-metadata",
                             BlastRadius.CRITICAL, "secrets")]
    return []


def _uploads(call: ToolCall, ctx: EvalContext, label: str, value: Any) -> list[Decision]:
    out = []
    catalog = secret_catalog()
    for raw in _strings(value):
        path = resolve_path(raw, call.cwd, ctx.home)
        secret = catalog.match(path, ctx.home)
        if secret is not None or catalog.in_area(path, ctx.home):
            out.append(Decision(Verdict.DENY, f"{label} sends {path} ({secret.reason if secret else 'keys'}) away",
                                "mcp/upload-secret", BlastRadius.CRITICAL, "secrets", {"path": path}))
        elif not (call.cwd and is_within(path, call.cwd)) and not any(is_within(path, t) for t in ctx.temp_dirs):
            out.append(Decision(Verdict.ASK, f"{label} sends {path}, a file outside the project", "mcp/upload",
                                BlastRadius.MEDIUM, "network", {"path": path}))
    return out


def _repo_files(call: ToolCall, ctx: EvalContext, label: str, args: dict, key: str) -> list[Decision]:
    """Files committed to the project's repository through a forge's API arrive in this checkout with the next
    pull (and in every other one): a guard file among them (.claude/settings.json, a project plugin) is judged
    as the local write it will become, and a deny of the guard's own rule stands."""
    value = args.get(key)
    entries = value if isinstance(value, list) else [args]
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        path, content = entry.get("path") or entry.get("file_path"), entry.get("content")
        if not isinstance(path, str) or not path or not call.cwd:
            continue
        local = resolve_path(path.lstrip("/"), call.cwd, ctx.home)
        tool_input = {"file_path": local, "content": content if isinstance(content, str) else ""}
        decision = ctx.judge(ToolCall("Write", tool_input, call.cwd, agent=call.agent, session=call.session,
                                      event=call.event, mode=call.mode))
        if decision is not None and decision.verdict is Verdict.DENY and (decision.rule.startswith("protect") or
                                                                         decision.rule.endswith("/ci-secrets")):
            out.append(decision.with_(reason=f"{label} commits {path} to the repository, and the next pull puts it "
                                             f"here: {decision.reason}", rule=f"mcp/repo:{decision.rule}"))
    return out


_WRITING_STAGES = ("$out", "$merge")


def _pipeline_writes(found: Identified, args: dict) -> list[Decision]:
    """An aggregation pipeline reads, unless a stage writes its result into a collection ($out, $merge)."""
    pending = [(args, 0)]
    while pending:
        value, level = pending.pop()
        if level > 8:
            continue
        if isinstance(value, dict):
            stage = next((k for k in value if k in _WRITING_STAGES), None)
            if stage is not None:
                return [Decision(Verdict.ASK, f"{_label(found)} writes its result into a collection ({stage})",
                                 "mcp/pipeline-write", BlastRadius.MEDIUM, "mcp-change")]
            pending += [(v, level + 1) for v in value.values()]
        elif isinstance(value, list):
            pending += [(v, level + 1) for v in value]
    return []


def _credentials(found: Identified, args: dict) -> list[Decision]:
    catalog = secret_catalog()
    for text in _leaves(args):
        kind = catalog.credential_in_message(text)
        if kind is not None:
            where = found.server.title if found.server else found.server_name or "an MCP server"
            return [Decision(Verdict.DENY, f"{_label(found)} sends {kind} to {where}", "mcp/credential",
                             BlastRadius.CRITICAL, "secrets")]
    return []


def _equivalent(call: ToolCall, ctx: EvalContext, label: str, tool: str, tool_input: dict) -> Decision:
    derived = ToolCall(tool, tool_input, call.cwd, agent=call.agent, session=call.session, event=call.event,
                       mode=call.mode)
    decision = ctx.judge(derived)
    shown = derived.summary(80)
    if decision is None:  # no engine to judge it (a bare context): fail closed
        return Decision(Verdict.ASK, f"{label} amounts to {tool} {shown}, which cannot be judged here", "mcp/as",
                        BlastRadius.UNKNOWN, "mcp")
    what = f"`{shown}`" if tool == "Bash" else f"{tool} {shown}"
    return decision.with_(reason=f"{label} amounts to {what}: {decision.reason}", rule=f"mcp/as:{decision.rule}")


# -- equivalents -------------------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_|-]+)(\*|\.\.\.|\?)?\}")
_GROUP = re.compile(r"\[([^\[\]]*)\]")


class _Missing(Exception):
    pass


def expand(template: str, args: dict) -> list[tuple[str, dict]]:
    """The calls an equivalent template names with these arguments (none when a required one is
    missing): `Read {paths*}` with paths [a, b] -> [("Read", {file_path: a}), ("Read", {file_path: b})]."""
    if template.startswith("$ "):
        out = []
        for row in _rows(template, args):  # commands: [["TTL", "k"], ["FLUSHDB"]]: one command each
            try:
                out.append(("Bash", {"command": _render_shell(template[2:], row)}))
            except _Missing:
                continue
        return out
    tool, _, placeholder = template.partition(" ")
    m = _PLACEHOLDER.fullmatch(placeholder)
    if m is None:
        return []
    value = _lookup(m.group(1), args)
    values = _strings(value) if m.group(2) == "*" else ([value] if isinstance(value, str) and value else [])
    # a write carries what it writes, so the file is judged by its new text (a .mk include, a conftest.py)
    extra = {"content": args["content"]} if tool == "Write" and isinstance(args.get("content"), str) else {}
    return [(tool, {_FILE_TOOLS[tool]: v, **extra}) for v in values]


def _rows(template: str, args: dict) -> list[dict]:
    """The argument sets a shell template is rendered with: one per inner list when an argument it names is a
    list of lists (a batch of commands), else the arguments as they are."""
    for m in _PLACEHOLDER.finditer(template):
        for name in m.group(1).split("|"):
            value = args.get(name)
            if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
                return [{**args, name: inner} for inner in value[:32]]
    return [args]


def _render_shell(template: str, args: dict) -> str:
    def group(m: re.Match) -> str:
        try:
            return _fill(m.group(1), args)
        except _Missing:
            return ""
    return " ".join(_fill(_GROUP.sub(group, template), args).split())


def _fill(text: str, args: dict) -> str:
    def one(m: re.Match) -> str:
        value = _lookup(m.group(1), args)
        mode = m.group(2)
        if mode == "?":
            if not value or value in ("false", "False"):
                raise _Missing
            return ""
        if value is None or value == "" or value == [] or value is False:
            raise _Missing
        if mode == "...":
            if isinstance(value, list):
                return " ".join(shlex.quote(str(v)) for v in value)
            return str(value)  # shell text as the tool takes it
        if isinstance(value, (list, dict)):
            raise _Missing
        return shlex.quote(str(value))
    return _PLACEHOLDER.sub(one, text)


def _lookup(names: str, args: dict) -> Any:
    for name in names.split("|"):
        value = args.get(name)
        if value not in (None, "", []):
            return value
    return None


# -- helpers ---------------------------------------------------------------------------------
def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)


_RUNNER_WORDS = frozenset({"run", "execute", "exec", "command", "cmd", "cli", "call", "invoke", "shell", "tool"})


def _cli_command(catalog: McpCatalog, found: Identified, args: dict) -> tuple[str, str] | None:
    """(the argument, the command line) of a tool that wraps a CLI: its name or its server's names the program
    (data cli_wrappers), an argument carries the words. None when it does not."""
    tool_words, server_words = name_tokens(found.tool), name_tokens(found.server_name)

    def named(words: list[str]) -> str | None:
        joined = [f"{a}_{b}" for a, b in zip(words, words[1:])]
        return next((catalog.cli_programs[w] for w in words + joined if w in catalog.cli_programs), None)

    # the tool's name names the program (run_gcloud_command, kubectl), or the server's does and the tool only runs
    # (aws_cli's execute): docker's run_container runs its command in a container, not as docker's arguments. A
    # server named after another CLI the shell's taxonomy knows (its args given as a list) is that CLI too.
    program = named(tool_words) or (named(server_words) if set(tool_words) <= _RUNNER_WORDS else None)
    keys = tuple(catalog.cli_arguments)
    if program is None:
        program = _cli_of(found)
        keys = tuple(catalog.arguments.get("cli_args", ()))
    if program is None:
        return None
    for key in keys:
        value = args.get(key)
        if isinstance(value, list) and value and all(isinstance(v, (str, int, float)) for v in value):
            given = [str(v) for v in value]
        elif isinstance(value, str) and value.strip():
            try:
                given = shlex.split(value)
            except ValueError:
                return key, f"{program} {value}"  # unbalanced quotes: the shell analysis judges the text as it is
        else:
            continue
        if given and given[0].rsplit("/", 1)[-1] == program:
            given = given[1:]
        return key, " ".join(shlex.quote(w) for w in [program, *given])
_POSITIONAL_ARGS = ("name", "id", "names", "ids", "app_name", "appName")


def _spelled_command(call: ToolCall, ctx: EvalContext, catalog: McpCatalog, found: Identified,
                     args: dict) -> list[Decision]:
    """A tool of a server named after a CLI whose own name spells that CLI's command (flyctl's server:
    fly-apps-destroy {name: X} is `fly apps destroy X`): judged as that command line too. Only a deny of it
    counts: the words are read from a name, so a milder verdict of them proves nothing."""
    if not catalog.cli_programs:
        return []
    server_words, tool_words = name_tokens(found.server_name), name_tokens(found.tool)
    program = next((catalog.cli_programs[w] for w in server_words if w in catalog.cli_programs), None)
    if program is None:
        return []
    while tool_words and catalog.cli_programs.get(tool_words[0]) == program:
        tool_words = tool_words[1:]  # fly-apps-destroy: the program's own word leads
    if len(tool_words) < 2:
        return []
    words = [program, *tool_words]
    for key in _POSITIONAL_ARGS:
        value = args.get(key)
        words += [str(v) for v in value if isinstance(v, (str, int))] if isinstance(value, list) else \
            [str(value)] if isinstance(value, (str, int)) and str(value).strip() else []
    for key, value in args.items():
        if key not in _POSITIONAL_ARGS and isinstance(value, (str, int)) and not isinstance(value, bool) and \
                re.fullmatch(r"[A-Za-z][\w-]*", key):
            words += [f"--{key}", str(value)]
    decision = _equivalent(call, ctx, _label(found), "Bash", {"command": shlex.join(words)})
    return [decision] if decision.verdict is Verdict.DENY else []


BROWSER_PAGE = "mcp:browser-page"
_LOOPBACK_URL = re.compile(r"(?i)^(?:https?|wss?)://(?:localhost|127(?:\.\d+){3}|\[::1\]|0\.0\.0\.0)(?::(\d+))?(?:/|$)")


def _page_opened(catalog: McpCatalog, found: Identified, args: dict) -> str | None:
    words = set(catalog.typing.get("navigate_words", ()))
    if not words or not words & set(name_tokens(found.tool)):
        return None
    url = next((v for k in catalog.arguments["url"] for v in _strings(args.get(k))), None)
    return url


def _page_key(found: Identified) -> str:
    return f"{BROWSER_PAGE}:{found.server.id if found.server is not None else found.server_name}"


def _drives_pages(catalog: McpCatalog, found: Identified) -> bool:
    """A browser-driving server: one whose tools open pages (navigate, goto), or named after a browser driver."""
    words = set(catalog.typing.get("navigate_words", ()))
    if found.server is not None and any(words & set(name_tokens(t)) and "url" in " ".join(
            found.server.tools[t].urls) for t in found.server.tools):
        return True
    return bool(set(name_tokens(found.server_name or "")) & {"browser", "playwright", "puppeteer", "chrome", "chromium",
                                                             "selenium", "webdriver", "firefox", "browserbase"})


def terminal_page(catalog: McpCatalog, url: str) -> bool:
    """A page of this machine served on a web terminal's port (ttyd): xterm.js wired to a shell or a console."""
    m = _LOOPBACK_URL.match(url or "")
    return m is not None and m.group(1) is not None and int(m.group(1)) in set(catalog.typing.get("terminal_ports", ()))


def _typing(call: ToolCall, ctx: EvalContext, catalog: McpCatalog, found: Identified, args: dict) -> list[Decision]:
    """Keystrokes a tool sends where guardtui's console may take them (data typing)."""
    spec = catalog.typing
    if not spec:
        return []
    tokens = set(name_tokens(found.tool))
    label = _label(found)
    why = "typed into guardtui's console, they would answer a waiting call as if you had pressed the keys"
    if tokens & set(spec["desktop_words"]) and not tokens & {"get", "list", "read", "layout", "layouts", "status"}:
        return [Decision(Verdict.DENY, f"{label} types into the focused window: {why}", "mcp/keystrokes",
                         BlastRadius.CRITICAL, "terminal-input")]
    if not tokens & set(spec["browser_words"]) or not _drives_pages(catalog, found):
        return []
    text = " ".join(_leaves(args))
    marker = next((m for m in spec["terminal_markers"] if re.search(m, text, re.I)), None)
    page = ctx.session.known_facts().get(_page_key(found), "") if ctx.session is not None else ""
    if marker is None and not terminal_page(catalog, page):
        return []
    where = f"a web terminal ({marker})" if marker else f"a web terminal's page ({page})"
    return [Decision(Verdict.DENY, f"{label} sends keys into {where}: {why}", "mcp/terminal-page",
                     BlastRadius.CRITICAL, "terminal-input")]


def _lifted(args: dict, catalog: McpCatalog) -> dict:
    """Arguments a server wraps in an object (wcgw's BashCommand {action_json: {command: …}}) read as if given
    at the top: what they carry is judged the same. The top level wins where both name a key."""
    carried = set().union(*(set(catalog.arguments.get(k, ())) for k in ("shell", "sql", "stdin")))
    for value in list(args.values()):
        if isinstance(value, dict):
            for key, inner in value.items():
                if key in carried and key not in args:
                    args[key] = inner
    return args


def _with_stdin(command: str, args: dict, keys) -> str:
    """A command run with text on its standard input (mcp-server-commands run_command {command: python3,
    stdin: …}): judged as the shell would run it, the text fed as a here-document (the code of that interpreter)."""
    text = next((args[k] for k in keys if isinstance(args.get(k), str) and args[k].strip()), None)
    if text is None:
        return command
    marker = "GUARDTUI_STDIN"
    while marker in text:
        marker += "_"
    return f"{command} <<'{marker}'\n{text.rstrip(chr(10))}\n{marker}"


def _cli_of(found: Identified) -> str | None:
    """The command-line tool a server is named after (gcloud, kubectl, az …), when the taxonomy knows it."""
    from ..shell.taxonomy import default_taxonomy  # the shell's data; loaded once
    name = (found.server_name or "").lower().replace("_", "-")
    tax = default_taxonomy()
    for candidate in (name, name.removesuffix("-mcp"), name.removeprefix("mcp-")):
        if candidate and (candidate in tax.commands or candidate in tax.safe):
            return candidate
    return None


def _shell_text(value: Any) -> str:
    return " ".join(shlex.quote(str(v)) for v in value) if isinstance(value, list) else str(value)


def _label(found: Identified) -> str:
    if found.server is not None:
        return f"{found.server.title} {found.tool}"
    return f"{found.server_name} {found.tool}".strip() if found.server_name else found.tool


def _where(server: Server | None) -> str:
    if server is None:
        return " through an MCP server"
    return f" in {server.title} (under your name)" if server.remote else " on this machine"


def _rank(cls: str) -> int:
    return {"delete": 0, "change": 1, "read": 2}[cls]


def _worst(parts: list[Decision]) -> Decision | None:
    best: Decision | None = None
    for d in parts:
        best = d if best is None else more_restrictive(best, d)
    return best
