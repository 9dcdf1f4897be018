"""The built-in knowledge of MCP servers (data/mcp.yaml): which server a call's name belongs to,
what each tool does, and the verbs that tell what an unknown tool does.

    catalog = mcp_catalog()
    catalog.identify("mcp__gh__get_issue")  -> Identified(server=<github>, tool="get_issue", spec=…)
    catalog.verb_class("API-post-search")  -> ("read", "search")
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..model import BlastRadius
from ..yamlfile import DataError, Field, Located, check, load_yaml

_LIST = Field(list, items=str)
_EFFECTS = ("read", "change", "delete")
_RADII = ("low", "medium", "high", "critical")
_EQUIVALENT = re.compile(r"^(?:\$ .+|(?:Read|Write|Edit|LS|Grep|Glob|WebFetch) \{[^{}]+\})$")


def _equivalents_ok(value: Any) -> str | None:
    for item in value:
        if not isinstance(item, str) or not _EQUIVALENT.match(item):
            return (f"{item!r} is not an equivalent call: write `Read {{arg}}` (Read, Write, Edit, LS, Grep, Glob, "
                    f"WebFetch) or `$ shell command`")
        if item.count("[") != item.count("]"):
            return f"{item!r}: unbalanced [ ]"
    return None


_TOOL = {
    "effect": Field(str, choices=_EFFECTS), "radius": Field(str, choices=_RADII), "reason": Field(str),
    "as": Field(list, items=str, check=_equivalents_ok), "sql": _LIST, "urls": _LIST, "page_code": _LIST,
    "uploads": _LIST, "verb": Field(str), "unless": _LIST, "dry_run": _LIST, "repo_files": _LIST,
}
_SERVER = {"title": Field(str, required=True), "aliases": Field(list, required=True, items=str),
           "remote": Field(bool), "tools": Field(dict, required=True, values=_TOOL),
           # arguments every call of its tools carries: when its name is not one the server is known by, a tool's
           # name alone says it is this server only with one of them there (Convex's `data`, `run`)
           "signature": Field(list, items=str)}
_VERBS = {k: Field(list, required=True, items=str) for k in ("read", "change", "delete", "weak", "carriers",
                                                                "read_nouns")}
_ARGUMENTS = {k: Field(list, required=True, items=str) for k in ("sql", "shell", "url", "path", "verb", "kind")}
_ARGUMENTS["headers"] = Field(list, items=str)
_ARGUMENTS["stdin"] = Field(list, items=str)  # text a command is run with on its standard input
_ARGUMENTS["cli_args"] = Field(list, items=str)  # the words of a CLI a server is named after (gcloud's args)  # request headers a fetcher sends (a metadata service's own)
_EXPOSURE = {"publish": Field(dict, required=True), "grant_tools": Field(list, required=True, items=str),
             "grants": Field(dict, required=True)}
# a function run by name whose name alone is a wipe (seed:reset, wipeAll), on a deployment that is production
# keystrokes from a tool: desktop automation types into the focused window; a browser types into a terminal page
_TYPING = {"desktop_words": Field(list, required=True, items=str), "browser_words": Field(list, required=True, items=str),
           "navigate_words": Field(list, required=True, items=str), "terminal_ports": Field(list, required=True, items=int),
           "terminal_markers": Field(list, required=True, items=str)}
_WIPES = {"operations": Field(list, required=True, items=str), "targets": Field(list, required=True, items=str),
          "production": Field(str, required=True), "verbs": Field(list, required=True, items=str),
          "wholes": Field(list, required=True, items=str)}
SCHEMA = {
    "version": Field(int, required=True, choices=(1,)),
    "exposure": Field(dict, fields=_EXPOSURE),
    "production_wipes": Field(dict, fields=_WIPES),
    "typing": Field(dict, fields=_TYPING),
    "verbs": Field(dict, required=True, fields=_VERBS),
    "wide_scopes": Field(list, required=True, items=str),
    "arguments": Field(dict, required=True, fields=_ARGUMENTS),
    "servers": Field(dict, required=True, values=_SERVER),
    # a delete that takes everything the object manages: the arguments that say so, the objects that manage others
    "cascades": Field(dict, fields={"arguments": Field(list, required=True, items=str),
                                    "owners": Field(list, required=True, items=str)}),
    # tools whose name says they print secrets: a read verb and an object (or a pair of words)
    "secret_printers": Field(dict, fields={"verbs": Field(list, required=True, items=str),
                                           "objects": Field(list, required=True, items=str),
                                           "pairs": Field(list, required=True, items=str)}),
    # servers that hold a datastore whose index (collection) is every document in it: their deletes of one deny
    "store_servers": Field(dict, fields={"servers": Field(list, required=True, items=str),
                                         "objects": Field(list, required=True, items=str),
                                         "all_of": Field(list, required=True, items=str)}),
    # servers that wrap a CLI: program -> the name words that name it; the arguments that carry its command line
    "cli_wrappers": Field(dict, fields={"programs": Field(dict, required=True, values=_LIST),
                                        "arguments": Field(list, required=True, items=str)}),
}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    effect: str | None = None
    radius: BlastRadius | None = None
    reason: str = ""
    equivalents: tuple[str, ...] = ()
    sql: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    page_code: tuple[str, ...] = ()
    uploads: tuple[str, ...] = ()
    verb_arg: str = ""
    unless: tuple[str, ...] = ()
    dry_run: tuple[str, ...] = ()  # arguments that, when true, make the tool only preview (it writes nothing)
    repo_files: tuple[str, ...] = ()  # arguments naming files it commits to the project's repository (path, files[].path)


@dataclass(frozen=True)
class Server:
    id: str
    title: str
    aliases: tuple[str, ...]
    remote: bool
    tools: dict[str, ToolSpec]
    signature: tuple[str, ...] = ()

    def carried_by(self, args: dict) -> bool:
        """A call of a tool of this name is this server's (when the server's name does not say so)."""
        return not self.signature or any(k in args for k in self.signature)


@dataclass(frozen=True)
class Identified:
    """What a call's name resolves to: the server (None: not one guardtui knows), the tool's own
    name, and the tool's description when the server's knowledge has one."""

    server_name: str  # as the user named it
    tool: str
    server: Server | None
    spec: ToolSpec | None
    by: str  # alias | tools | none


@dataclass
class McpCatalog:
    servers: dict[str, Server]
    verbs: dict[str, frozenset[str]]
    wide_scopes: frozenset[str]
    arguments: dict[str, tuple[str, ...]]
    # argument -> values that publish (private: false) / grant control (permission: admin); tool-name words of grants
    publish: dict[str, frozenset[str]] = field(default_factory=dict)
    grants: dict[str, frozenset[str]] = field(default_factory=dict)
    grant_tools: frozenset[str] = frozenset()
    production_wipes: dict = field(default_factory=dict)  # data production_wipes, as written
    cli_programs: dict[str, str] = field(default_factory=dict)  # a name word -> the CLI it names (cli_wrappers)
    cli_arguments: tuple[str, ...] = ()
    cascades: dict = field(default_factory=dict)  # data cascades, as written
    secret_printers: dict = field(default_factory=dict)  # data secret_printers, as written
    typing: dict = field(default_factory=dict)  # data typing, as written
    store_servers: dict = field(default_factory=dict)  # data store_servers, as written
    _by_tool: dict[str, list[Server]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for server in self.servers.values():
            for tool in server.tools:
                self._by_tool.setdefault(tool.lower(), []).append(server)

    # -- names ----------------------------------------------------------------------
    def identify(self, name: str, server_name: str | None = None, tool: str | None = None) -> Identified:
        """Resolve `mcp__server__tool` (or a server and tool given apart)."""
        if server_name is None or tool is None:
            server_name, tool = split_name(name, self._by_tool, self._is_alias,
                                           self.verbs["read"] | self.verbs["change"] | self.verbs["delete"])
        server = self.server_by_alias(server_name)
        if server is not None:
            return Identified(server_name, tool, server, _tool_spec(server, tool), "alias")
        owners = self._by_tool.get(tool.lower(), [])
        if len(owners) == 1 and not self._generic(tool):
            # the user's own name for a server: its tools say which it is (not a bare verb: any server may have a
            # `list` or a `get`, Redis's are not Trello's)
            return Identified(server_name, tool, owners[0], _tool_spec(owners[0], tool), "tools")
        return Identified(server_name, tool, None, None, "none")

    def candidates(self, tool: str) -> list[tuple[Server, ToolSpec]]:
        """Every server that has a tool of this name (when the server's name says nothing)."""
        return [(s, spec) for s in self._by_tool.get(tool.lower(), []) if (spec := _tool_spec(s, tool)) is not None]

    def _generic(self, tool: str) -> bool:
        tokens = name_tokens(tool)
        return len(tokens) == 1 and any(tokens[0] in self.verbs[k] for k in ("read", "change", "delete",
                                                                             "read_nouns"))

    def _is_alias(self, server_name: str) -> bool:
        key = normalise_server(server_name)
        return bool(key) and any(key in server.aliases for server in self.servers.values())

    def server_by_alias(self, server_name: str) -> Server | None:
        key = normalise_server(server_name)
        if not key:
            return None
        for server in self.servers.values():
            if key in server.aliases:
                return server
        tokens = set(key.split("_"))
        for server in self.servers.values():  # claude_ai_notion, supabase_epackage, plugin_github_github
            if any("_" not in a and a in tokens and len(a) > 2 for a in server.aliases):
                return server
        return None

    # -- verbs ----------------------------------------------------------------------
    def verb_class(self, text: str) -> tuple[str, str] | None:
        """(read | change | delete, the word) for a tool name or an operation's name."""
        tokens = name_tokens(text)
        weak: tuple[str, str] | None = None
        for token in tokens:
            cls = self._class_of(token)
            if cls is None:
                continue
            if token in self.verbs["weak"]:
                weak = weak or (cls, token)
                continue
            if token in self.verbs["carriers"]:
                # execute_log_insights_query, run_search: what it carries is named after it, and only reads
                # (its payload, SQL or a command, is judged on its own)
                following = [t for t in tokens[tokens.index(token) + 1:] if self._class_of(t) is not None]
                if following and all(self._class_of(t) == "read" for t in following):
                    return "read", following[-1]
            return cls, token
        if weak is not None:
            return weak
        nouns = self.verbs["read_nouns"]
        found = next((t for t in tokens if t in nouns), None)
        return ("read", found) if found else None

    def is_carrier(self, verb: str) -> bool:
        return verb in self.verbs["carriers"]

    def wide_scope(self, tool: str, args: dict) -> str | None:
        """The whole thing a delete takes: the name's last word (delete_namespace) or a kind
        argument (resources_delete {kind: Namespace})."""
        for key in self.arguments["kind"]:
            value = args.get(key)
            if isinstance(value, str) and value.strip().lower() in self.wide_scopes:
                return value.strip().lower()
        tokens = [t for t in name_tokens(tool) if t not in ("safely", "all", "force", "permanently", "by", "id")]
        while len(tokens) > 1 and self._class_of(tokens[-1]) == "delete":
            tokens.pop()  # d1_database_delete, bucket-delete: the object before the verb
        if tokens and tokens[-1] in self.wide_scopes and self._class_of(tokens[-1]) is None:
            return tokens[-1]
        return None

    def unfiltered(self, args: dict) -> str | None:
        """A delete's filter given empty (delete-many {filter: {}}): it matches every record."""
        for key in ("filter", "where", "query", "selector", "match", "conditions"):
            if key in args and args[key] in ({}, [], "", "{}", "*"):
                return key
        return None

    def _class_of(self, token: str) -> str | None:
        for cls in ("delete", "change", "read"):
            if token in self.verbs[cls]:
                return cls
        return None


def name_tokens(text: str) -> list[str]:
    """`getJiraIssue` -> [get, jira, issue]; `API-post-search` -> [api, post, search]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]


def normalise_server(name: str) -> str:
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    key = re.sub(r"^(?:plugin_[a-z0-9]+_|claude_ai_)", "", key)
    key = re.sub(r"^(?:mcp_server_|server_|mcp_)", "", key)
    key = re.sub(r"(?:_mcp_server|_mcp|_server)$", "", key)
    return key


def split_name(name: str, known_tools: dict[str, list] | None = None, is_alias=None,
               verbs: frozenset[str] = frozenset()) -> tuple[str, str]:
    """(server, tool) from `mcp__server__tool`; for `mcp__server_tool` (Cursor's `mcp_Server_tool`,
    Gemini's `mcp_server_tool`) a known server's name at the start, else the longest known tool name at the end
    decides where to cut, unless what it leaves for the server holds a verb: `mcp_trello_add_card_to_list` is
    Trello's add_card_to_list, not a `list` tool of a server named trello_add_card_to."""
    rest = name[5:] if name.startswith("mcp__") else name
    if "__" in rest:
        server, tool = rest.split("__", 1)
        return server, tool
    parts = rest.split("_")
    if is_alias is not None:
        first = 2 if parts[0].lower() == "mcp" else 1  # Gemini's mcp_server_tool: the server is after mcp_
        for i in range(len(parts) - 1, first - 1, -1):
            if is_alias("_".join(parts[:i])):
                return "_".join(parts[:i]), "_".join(parts[i:])
    if known_tools:
        for i in range(1, len(parts)):
            tool = "_".join(parts[i:])
            if tool.lower() in known_tools and not set(name_tokens("_".join(parts[:i]))) & verbs - {"mcp"}:
                return "_".join(parts[:i]), tool
    if len(parts) > 2 and parts[0].lower() == "mcp":  # mcp_figma_get_figma_data: server figma
        return "_".join(parts[:2]), "_".join(parts[2:])
    server, _, tool = rest.partition("_")
    return (server, tool) if tool else ("", rest)


def _tool_spec(server: Server, tool: str) -> ToolSpec | None:
    spec = server.tools.get(tool)
    if spec is None:
        lowered = tool.lower()
        spec = next((s for n, s in server.tools.items() if n.lower() == lowered), None)
    return spec


def parse_mcp(text: str, file: str = "mcp.yaml") -> McpCatalog:
    doc = load_yaml(text, file)
    check(doc, SCHEMA)
    data = doc.data
    servers: dict[str, Server] = {}
    seen_aliases: dict[str, str] = {}
    for sid, raw in data["servers"].items():
        aliases = tuple(dict.fromkeys(normalise_server(a) for a in raw["aliases"]))
        for alias in aliases:
            if alias in seen_aliases and seen_aliases[alias] != sid:
                raise doc.error(("servers", sid, "aliases"), f"alias {alias!r} is also {seen_aliases[alias]}'s")
            seen_aliases[alias] = sid
        tools = {name: _parse_tool(doc, sid, name, spec) for name, spec in raw["tools"].items()}
        servers[sid] = Server(sid, raw["title"], aliases, raw.get("remote", True), tools,
                              tuple(raw.get("signature") or ()))
    verbs = {k: frozenset(v) for k, v in data["verbs"].items()}
    if not verbs["weak"] <= verbs["read"] | verbs["change"] | verbs["delete"]:
        raise DataError(file, doc.line(("verbs", "weak")), "verbs.weak", "weak verbs must also be read, change or "
                                                                         "delete verbs")
    exposure = data.get("exposure") or {}
    wrappers = data.get("cli_wrappers") or {}

    def values(raw: dict, where: str) -> dict[str, frozenset[str]]:
        out = {}
        for key, listed in (raw or {}).items():
            if not isinstance(listed, list):
                raise doc.error(("exposure", where, key), "must be a list of values")
            out[str(key)] = frozenset(str(v).lower() for v in listed)
        return out

    return McpCatalog(servers, verbs, frozenset(data["wide_scopes"]),
                      {k: tuple(v) for k, v in data["arguments"].items()},
                      values(exposure.get("publish"), "publish"), values(exposure.get("grants"), "grants"),
                      frozenset(w.lower() for w in exposure.get("grant_tools") or ()),
                      dict(data.get("production_wipes") or {}),
                      {word: program for program, words in (wrappers.get("programs") or {}).items()
                       for word in [program, *words]},
                      tuple(wrappers.get("arguments") or ()), dict(data.get("cascades") or {}),
                      dict(data.get("secret_printers") or {}),
                      dict(data.get("typing") or {}), dict(data.get("store_servers") or {}))


def _parse_tool(doc: Located, sid: str, name: str, raw: dict) -> ToolSpec:
    if raw.get("unless") and not raw.get("effect"):
        raise doc.error(("servers", sid, "tools", name, "unless"), "unless needs an effect")
    return ToolSpec(name, raw.get("effect"), BlastRadius(raw["radius"]) if raw.get("radius") else None,
                    raw.get("reason", ""), tuple(raw.get("as") or ()), tuple(raw.get("sql") or ()),
                    tuple(raw.get("urls") or ()), tuple(raw.get("page_code") or ()), tuple(raw.get("uploads") or ()),
                    raw.get("verb", ""), tuple(raw.get("unless") or ()), tuple(raw.get("dry_run") or ()),
                    tuple(raw.get("repo_files") or ()))


@lru_cache(maxsize=1)
def mcp_catalog() -> McpCatalog:
    text = resources.files("guardtui.core.data").joinpath("mcp.yaml").read_text(encoding="utf-8")
    return parse_mcp(text, "guardtui/core/data/mcp.yaml")


# -- what guardtui knows, in words (guardtui rules --builtin, the console's Rules screen) ---------
def describe_tool(spec: ToolSpec) -> str:
    """`read_file: as Read {path}`, `merge_pull_request: change (high) — merges a pull request`."""
    parts = []
    if spec.effect:
        radius = f" ({spec.radius.value})" if spec.radius else ""
        parts.append(f"{spec.effect}{radius}" + (f" unless {', '.join(spec.unless)} given → read" if spec.unless
                                                 else ""))
    if spec.verb_arg:
        parts.append(f"what {spec.verb_arg} says")
    if spec.equivalents:
        parts.append("as " + "; ".join(spec.equivalents))
    for label, keys in (("SQL", spec.sql), ("URL", spec.urls), ("page code", spec.page_code),
                        ("uploads", spec.uploads)):
        if keys:
            parts.append(f"{label} in {', '.join(keys)}")
    if not parts:
        parts.append("by its name")
    text = f"{spec.name}: {'; '.join(parts)}"
    return f"{text} — {spec.reason}" if spec.reason else text


def describe_catalog(catalog: McpCatalog) -> list[dict]:
    """Every server guardtui knows, for listing: title, aliases, whether it is remote, its tools."""
    return [{"id": s.id, "title": s.title, "aliases": list(s.aliases), "remote": s.remote,
             "tools": [describe_tool(t) for t in s.tools.values()]} for s in catalog.servers.values()]


FALLBACK = ("Any other MCP tool: by the verbs in its name (get/list/search/read… allow; create/update/comment/"
            "merge/send/post/write/push… ask; delete/drop/remove… ask, and deny for a whole namespace, repository, "
            "project, database, bucket or cluster) and by its arguments (SQL, shell commands, URLs and file paths "
            "go through the same rules as every other tool); a credential in what a remote server is sent denies.")
