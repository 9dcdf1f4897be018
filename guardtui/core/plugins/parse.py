"""Read one plugin file (YAML, or Markdown with YAML frontmatter) into a Plugin.

Every mistake is one DataError naming file, line and field: an unknown key, a verdict that
is not allow/deny/ask/flag (`block`, `DENY`), a regex that does not compile, a wrong type.
"""
from __future__ import annotations

import hashlib
import posixpath
from typing import Any

import regex

from ..catalog import tool_classes
from ..model import BlastRadius, Verdict
from ..yamlfile import DataError, Field, Located, check, load_yaml
from .model import Pattern, Plugin, PluginTest

YAML_SUFFIXES = (".yaml", ".yml")
MARKDOWN_SUFFIXES = (".md",)
MAX_BYTES = 1 << 20  # a plugin is a small hand-written file; anything bigger is a mistake

VERDICTS = tuple(v.value for v in (Verdict.ALLOW, Verdict.DENY, Verdict.ASK, Verdict.FLAG))
EXPECTATIONS = tuple(v.value for v in (Verdict.ALLOW, Verdict.DENY, Verdict.ASK))
CONDITIONS = ("match", "file_match", "path_match", "arg_match")
DEFAULT_RADIUS = {Verdict.DENY: BlastRadius.HIGH, Verdict.ASK: BlastRadius.MEDIUM,
                  Verdict.ALLOW: BlastRadius.LOW, Verdict.FLAG: BlastRadius.LOW}
_ID = regex.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _regex_problem(text: str) -> str | None:
    if not text:
        return "must not be empty (it would match everything)"
    try:
        regex.compile(text)
    except regex.error as exc:
        return f"regex does not compile: {exc.msg} at position {exc.pos}"
    return None


def _glob_problem(text: str) -> str | None:
    return "must not be empty" if not text else None


def _id_problem(text: str) -> str | None:
    return None if _ID.fullmatch(text) else "use letters, digits, '.', '_' and '-' (starting with a letter or digit)"


_PATTERN = {
    "match": Field(str, check=_regex_problem),
    "file_match": Field(str, check=_glob_problem),
    "path_match": Field(str, check=_glob_problem),
    "arg_match": Field(str, check=_regex_problem),
    "verdict": Field(str, required=True, choices=VERDICTS),
    "reason": Field(str),
    "blast_radius": Field(str, choices=tuple(b.value for b in BlastRadius)),
    "category": Field(str),
}
_TEST = {
    "command": Field(str),
    "tool": Field(str),
    "file": Field(str),
    "input": Field(dict),
    "cwd": Field(str, check=lambda v: None if v.startswith("/") else "must be an absolute path"),
    "expect": Field(str, required=True, choices=EXPECTATIONS),
    "flag": Field(bool),
}
SCHEMA = {
    "id": Field(str, check=_id_problem),
    "tool": Field(str),
    "description": Field(str),
    "patterns": Field(list, required=True, items=_PATTERN,
                      check=lambda v: None if v else "needs at least one pattern"),
    "tests": Field(list, items=_TEST),
}


def is_plugin_name(name: str) -> bool:
    """Plugin files by name: editor temp and backup files, hidden files and READMEs are not."""
    lower = name.lower()
    if lower.startswith((".", "#", "~")) or lower.startswith("readme"):
        return False
    return lower.endswith(YAML_SUFFIXES + MARKDOWN_SUFFIXES)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_plugin(data: bytes, file: str, level: str, trusted: bool) -> Plugin:
    """The plugin in `data` (the file's exact bytes). Raises DataError on the first problem."""
    if len(data) > MAX_BYTES:
        raise DataError(file, None, "", f"file is larger than {MAX_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(file, None, "", f"not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise DataError(file, None, "", "empty file (a plugin needs at least `patterns`)")
    body = ""
    if file.lower().endswith(MARKDOWN_SUFFIXES):
        text, offset, body = split_frontmatter(text, file)
        doc = load_yaml(text, file, line_offset=offset)
    else:
        doc = load_yaml(text, file)
    check(doc, SCHEMA)
    spec: dict[str, Any] = doc.data
    stem = posixpath.splitext(posixpath.basename(file))[0]
    plugin_id = spec.get("id") or stem
    if not _ID.fullmatch(plugin_id):
        raise doc.error((), f"the file name {stem!r} is not a usable id: add an `id:` key")
    tools = tuple(t.strip().lower() for t in (spec.get("tool") or "").split(",") if t.strip())
    return Plugin(
        id=plugin_id, file=file, level=level, sha256=digest(data), trusted=trusted,
        description=(spec.get("description") or _first_line(body)).strip(), tools=tools,
        declared=tuple(_pattern(doc, i, p, plugin_id) for i, p in enumerate(spec["patterns"])),
        tests=tuple(_test(doc, i, t) for i, t in enumerate(spec.get("tests") or [])),
        notes=tuple(_tool_notes(tools)),
    )


def split_frontmatter(text: str, file: str) -> tuple[str, int, str]:
    """(frontmatter YAML, its line offset in the file, the Markdown body)."""
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != "---":
        raise DataError(file, 1, "", "a Markdown plugin starts with a '---' line (its YAML frontmatter)")
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            return "".join(lines[1:end]), 1, "".join(lines[end + 1:])
    raise DataError(file, 1, "", "the frontmatter has no closing '---' line")


def _pattern(doc: Located, index: int, raw: dict[str, Any], plugin_id: str) -> Pattern:
    path = ("patterns", index)
    if not any(raw.get(name) for name in CONDITIONS):
        raise doc.error(path, f"give at least one of {', '.join(CONDITIONS)}")
    verdict = Verdict(raw["verdict"])
    radius = BlastRadius(raw["blast_radius"]) if raw.get("blast_radius") else DEFAULT_RADIUS[verdict]
    return Pattern(index=index, line=doc.line(path) or 1, verdict=verdict,
                   reason=raw.get("reason") or f"matched plugin {plugin_id}",
                   blast_radius=radius, category=raw.get("category") or "plugin",
                   **{name: raw.get(name) for name in CONDITIONS})


def _test(doc: Located, index: int, raw: dict[str, Any]) -> PluginTest:
    path = ("tests", index)
    if not raw.get("command") and not raw.get("tool"):
        raise doc.error(path, "give `command` (a shell command) or `tool` (with `file` or `input`)")
    tool_input = dict(raw.get("input") or {})
    if raw.get("command"):
        tool_input["command"] = raw["command"]
    if raw.get("file"):
        tool_input["file_path"] = raw["file"]
    return PluginTest(index=index, line=doc.line(path) or 1, tool=raw.get("tool") or "Bash", input=tool_input,
                      expect=Verdict(raw["expect"]), cwd=raw.get("cwd"), flag=raw.get("flag"))


def _tool_notes(tools: tuple[str, ...]):
    classes = tool_classes()
    known = {name.lower() for name in classes.read | classes.write | classes.shell}
    for name in tools:
        if name not in known and not name.startswith("mcp__") and not any(c in name for c in "*?["):
            yield (f"tool {name!r} is not a tool name guardtui knows: agents' tools are normalised to "
                   f"Claude Code's names (Bash, Write, Edit, Read, WebFetch, mcp__server__tool)")


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip().lstrip("#").strip():
            return line.strip().lstrip("#").strip()
    return ""
