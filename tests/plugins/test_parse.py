"""Parsing both formats, and every validation error as one line naming file, line and field."""
from __future__ import annotations

import pytest

from guardtui.core.model import BlastRadius, Verdict
from guardtui.core.yamlfile import DataError

from .helpers import plugin

GOOD_YAML = """
id: block-docker
tool: Bash, Write
description: Docker needs approval
patterns:
  - match: "docker"
    verdict: ask
    reason: Docker commands require approval
  - file_match: "*.sql"
    path_match: "*/migrations/*"
    verdict: deny
    blast_radius: critical
    category: database
tests:
  - {command: "docker run ubuntu", expect: ask}
  - {tool: Write, file: migrations/1.sql, expect: deny, cwd: /srv/app}
  - {tool: mcp__db__query, input: {sql: "drop table x"}, expect: ask, flag: false}
"""


def test_yaml_plugin_parses_every_field():
    p = plugin(GOOD_YAML, file="guards/whatever.yaml")
    assert (p.id, p.file, p.level, p.description) == ("block-docker", "guards/whatever.yaml", "user",
                                                      "Docker needs approval")
    assert p.tools == ("bash", "write")
    first, second = p.patterns
    assert (first.match, first.verdict, first.reason, first.line) == ("docker", Verdict.ASK,
                                                                      "Docker commands require approval", 5)
    assert first.blast_radius is BlastRadius.MEDIUM and first.category == "plugin"  # defaults by verdict
    assert (second.file_match, second.path_match, second.verdict) == ("*.sql", "*/migrations/*", Verdict.DENY)
    assert second.blast_radius is BlastRadius.CRITICAL and second.category == "database"
    command, write, mcp = p.tests
    assert (command.tool, dict(command.input), command.expect) == ("Bash", {"command": "docker run ubuntu"},
                                                                   Verdict.ASK)
    assert (write.tool, dict(write.input), write.cwd) == ("Write", {"file_path": "migrations/1.sql"}, "/srv/app")
    assert (mcp.tool, dict(mcp.input), mcp.flag) == ("mcp__db__query", {"sql": "drop table x"}, False)
    assert len(p.sha256) == 64


def test_markdown_plugin_reads_frontmatter_and_takes_its_description_from_the_body():
    text = """
    ---
    tool: Write,Edit
    patterns:
      - file_match: ".env*"
        verdict: ask
        reason: Modifying environment configuration
    ---
    # Protect env files

    Secrets live there.
    """
    p = plugin(text, file="guards/protect-env.md")
    assert p.id == "protect-env"  # the file name, without extension
    assert p.description == "Protect env files"
    assert p.patterns[0].file_match == ".env*" and p.patterns[0].line == 4


def test_id_defaults_to_the_file_name():
    p = plugin("patterns: [{match: x, verdict: deny}]", file="/somewhere/no-x.yml")
    assert p.id == "no-x"
    assert p.patterns[0].reason == "matched plugin no-x"


def error_of(text: str, file: str = "g.yaml") -> str:
    with pytest.raises(DataError) as caught:
        plugin(text, file=file)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("text, expected", [
    ("patterns: [{match: x, verdict: deny}]\nsevrity: high\n",
     "g.yaml:2: sevrity: unknown key (known keys: description, id, patterns, tests, tool)"),
    ("patterns:\n  - match: x\n    verdict: block\n",
     "g.yaml:3: patterns[0].verdict: 'block' is not one of allow, deny, ask, flag"),
    ("patterns:\n  - match: x\n    verdict: DENY\n",
     "g.yaml:3: patterns[0].verdict: 'DENY' is not one of allow, deny, ask, flag"),
    ("patterns:\n  - match: x\n    verdict: deny\n  - match: '(unclosed'\n    verdict: ask\n",
     "g.yaml:4: patterns[1].match: regex does not compile: missing ) at position 9"),
    ("patterns:\n  - arg_match: '[a-'\n    verdict: ask\n",
     "g.yaml:2: patterns[0].arg_match: regex does not compile"),
    ("patterns:\n  - match: 42\n    verdict: ask\n",
     "g.yaml:2: patterns[0].match: must be a string, not a number (42)"),
    ("patterns:\n  - match: x\n    verdict: no\n",
     "g.yaml:3: patterns[0].verdict: must be a string, not true or false (False)"),
    ("patterns: {match: x, verdict: ask}\n", "g.yaml:1: patterns: must be a list, not a mapping"),
    ("tool: [Bash]\npatterns: [{match: x, verdict: ask}]\n", "g.yaml:1: tool: must be a string, not a list"),
    ("id: x\n", "g.yaml:1: missing required key 'patterns'"),
    ("patterns: []\n", "g.yaml:1: patterns: needs at least one pattern"),
    ("patterns:\n  - verdict: ask\n    reason: nothing to match\n",
     "g.yaml:2: patterns[0]: give at least one of match, file_match, path_match, arg_match"),
    ("patterns:\n  - match: ''\n    verdict: ask\n",
     "g.yaml:2: patterns[0].match: must not be empty (it would match everything)"),
    ("patterns:\n  - match: x\n    verdict: ask\n    blast_radius: huge\n",
     "g.yaml:4: patterns[0].blast_radius: 'huge' is not one of critical, high, medium, low, unknown"),
    ("id: 'no spaces please'\npatterns: [{match: x, verdict: ask}]\n", "g.yaml:1: id: use letters, digits"),
    ("patterns: [{match: x, verdict: ask}]\ntests:\n  - {command: ls, expect: maybe}\n",
     "g.yaml:3: tests[0].expect: 'maybe' is not one of allow, deny, ask"),
    ("patterns: [{match: x, verdict: ask}]\ntests:\n  - {expect: ask}\n",
     "g.yaml:3: tests[0]: give `command` (a shell command) or `tool`"),
    ("patterns: [{match: x, verdict: ask}]\ntests:\n  - {command: ls, expect: ask, cwd: relative/dir}\n",
     "g.yaml:3: tests[0].cwd: must be an absolute path"),
    ("patterns:\n  - match: x\n    verdict: ask\n    verdict: deny\n",
     "g.yaml:4: invalid YAML: duplicate key 'verdict' (first at line 3)"),
    ("patterns:\n  - match: [x\n    verdict: ask\n", "g.yaml:3: invalid YAML"),
    ("", "g.yaml: empty file"),
    ("- just\n- a list\n", "g.yaml:1: must be a mapping, not a list"),
])
def test_each_mistake_is_one_line_with_file_line_and_field(text, expected):
    assert error_of(text).startswith(expected)


def test_markdown_errors_count_lines_from_the_top_of_the_file():
    text = "---\nid: env\npatterns:\n  - file_match: .env\n    verdict: Ask\n---\nbody\n"
    assert error_of(text, file="env.md") == "env.md:5: patterns[0].verdict: 'Ask' is not one of allow, deny, ask, flag"


@pytest.mark.parametrize("text, expected", [
    ("# just a document\n", "x.md:1: a Markdown plugin starts with a '---' line"),
    ("---\npatterns: [{match: x, verdict: ask}]\n", "x.md:1: the frontmatter has no closing '---' line"),
])
def test_markdown_without_frontmatter_is_an_error_not_an_empty_plugin(text, expected):
    assert error_of(text, file="x.md").startswith(expected)


def test_non_utf8_and_oversized_files_are_refused():
    from guardtui.core.plugins.parse import MAX_BYTES, parse_plugin
    with pytest.raises(DataError, match=r"^g.yaml: not UTF-8 text"):
        parse_plugin(b"patterns: \xff\n", "g.yaml", "user", True)
    with pytest.raises(DataError, match=r"^g.yaml: file is larger than"):
        parse_plugin(b"#" * (MAX_BYTES + 1), "g.yaml", "user", True)


def test_unknown_tool_names_are_noted_not_silently_never_matching():
    p = plugin("tool: shell, Bash, mcp__github__*\npatterns: [{match: x, verdict: ask}]\n")
    assert len(p.notes) == 1 and "'shell' is not a tool name guardtui knows" in p.notes[0]
