"""How plugins judge calls inside the full engine: conditions, tool filters, ordering, flags, timeouts."""
from __future__ import annotations

import time

from guardtui.core.engine import GuardEvent
from guardtui.core.model import Verdict
from guardtui.core.plugins import REGEX_TIMEOUT_S, PluginRule

from ..conftest import PROJECT
from .helpers import bash, engine_with, judge, plugin, tool

DOCKER_ASK = """
id: docker
tool: Bash
patterns:
  - {match: "^docker ps$", verdict: allow, reason: only lists containers}
  - {match: docker, verdict: ask, reason: Docker commands require approval}
"""


def test_the_first_matching_pattern_of_a_plugin_decides(make_engine):
    p = plugin(DOCKER_ASK)
    listing = judge(make_engine, [p], bash("docker ps"))
    running = judge(make_engine, [p], bash("docker build ."))
    assert (listing.verdict, listing.rule, listing.reason) == (Verdict.ALLOW, "plugins/docker", "only lists containers")
    assert (running.verdict, running.rule) == (Verdict.ASK, "plugins/docker")
    assert running.metadata["matched"] == "docker" and running.metadata["pattern"] == 1


def test_built_in_rules_run_before_plugins(make_engine):
    p = plugin("patterns: [{match: rm, verdict: allow}]\n")
    assert judge(make_engine, [p], bash("rm -rf ~")).verdict is Verdict.DENY


def test_a_plugins_deny_tightens_a_built_in_rules_ask(make_engine):
    """The person's rules may only tighten: a deny beats the shell rule's ask, an allow does not."""
    deny = plugin("patterns: [{match: '^npm (install|i)\\b', verdict: deny, reason: no installs in CI}]\n")
    decision = judge(make_engine, [deny], bash("npm install left-pad"))
    assert (decision.verdict, decision.rule, decision.reason) == (Verdict.DENY, "plugins/p", "no installs in CI")
    assert decision.metadata["tightened"]  # what the built-in rule said, kept for the record
    allow = plugin("patterns: [{match: npm, verdict: allow}]\n")
    assert judge(make_engine, [allow], bash("npm install left-pad")).verdict is Verdict.ASK
    ask = plugin("patterns: [{match: npm, verdict: ask, reason: mine}]\n")
    assert judge(make_engine, [ask], bash("npm install left-pad")).reason != "mine"  # the built-in reason stays


def test_a_flag_is_recorded_when_a_built_in_rule_asks(make_engine):
    events: list[GuardEvent] = []
    p = plugin('patterns: [{match: "npm", verdict: flag, reason: measuring npm}]\n')
    engine = make_engine(record=False, plugin_rule=PluginRule([p]), on_event=events.append)
    decision = engine.evaluate(bash("npm install left-pad"), record=False)
    assert decision.verdict is Verdict.ASK and [(e.kind, e.message) for e in events] == [("flag", "measuring npm")]


def test_match_applies_to_shell_calls_only_and_file_globs_to_file_tools(make_engine):
    p = plugin("""
        patterns:
          - {match: "hush", verdict: deny}
          - {file_match: "*.sql", verdict: ask}
          - {path_match: "*/vendor/*", verdict: deny}
        """)
    assert judge(make_engine, [p], bash("cat hush.txt")).verdict is Verdict.DENY
    assert judge(make_engine, [p], tool("Write", file_path="hush.txt", content="x")).verdict is Verdict.ALLOW
    assert judge(make_engine, [p], tool("Edit", file_path="db/1.sql")).verdict is Verdict.ASK
    assert judge(make_engine, [p], tool("Read", file_path=f"{PROJECT}/vendor/lib.py")).verdict is Verdict.DENY
    assert judge(make_engine, [p], bash("cat db/1.sql")).verdict is Verdict.ALLOW  # globs are for file tools


def test_path_match_sees_the_absolute_path_and_expands_tilde(make_engine):
    p = plugin('patterns: [{path_match: "~/notes/*", verdict: deny}]\n')
    assert judge(make_engine, [p], tool("Read", file_path="/home/user/notes/todo.md")).verdict is Verdict.DENY
    assert judge(make_engine, [p], tool("Read", file_path="../notes/todo.md")).verdict is Verdict.DENY
    assert judge(make_engine, [p], tool("Read", file_path="notes/todo.md")).verdict is Verdict.ALLOW


def test_arg_match_works_for_any_tool_including_mcp(make_engine):
    p = plugin('patterns: [{arg_match: "DROP TABLE", verdict: deny}]\n')
    assert judge(make_engine, [p], tool("mcp__db__query", sql="DROP TABLE users")).verdict is Verdict.DENY
    assert judge(make_engine, [p], bash("psql -c 'DROP TABLE users'")).verdict is Verdict.DENY
    assert judge(make_engine, [p], tool("mcp__db__query", sql="select 1")).verdict is Verdict.ALLOW  # read-only SQL
    assert judge(make_engine, [p], tool("mcp__db__frobnicate", x="select 1")).verdict is Verdict.ASK  # unknown tool


def test_all_conditions_of_a_pattern_that_apply_must_match(make_engine):
    p = plugin('patterns: [{match: "git push", arg_match: "--force", verdict: deny}]\n')
    assert judge(make_engine, [p], bash("git push --force origin main")).verdict is Verdict.DENY
    assert judge(make_engine, [p], bash("git push origin main")).rule != "plugins/p"


def test_the_tool_filter_is_case_insensitive_accepts_globs_and_an_empty_filter_means_all(make_engine):
    shell_only = plugin("tool: bash\npatterns: [{arg_match: token, verdict: deny}]\n", file="a.yaml")
    mcp_only = plugin("tool: mcp__github__*\npatterns: [{arg_match: token, verdict: deny}]\n", file="b.yaml")
    every = plugin("patterns: [{arg_match: token, verdict: deny}]\n", file="c.yaml")
    web = tool("WebFetch", url="https://x/?token=1")
    assert judge(make_engine, [shell_only], bash("echo token")).verdict is Verdict.DENY
    assert judge(make_engine, [shell_only], web).verdict is Verdict.ALLOW
    assert judge(make_engine, [mcp_only], tool("mcp__github__create_issue", body="token")).verdict is Verdict.DENY
    assert judge(make_engine, [mcp_only], web).verdict is Verdict.ALLOW
    assert judge(make_engine, [every], web).verdict is Verdict.DENY


def test_across_plugins_the_most_restrictive_verdict_wins_whatever_the_order(make_engine):
    allow = plugin('patterns: [{match: "^docker", verdict: allow}]\n', file="allow.yaml")
    ask = plugin('patterns: [{match: "docker build", verdict: ask, reason: ask me}]\n', file="ask.yaml")
    assert judge(make_engine, [allow], bash("docker build .")).verdict is Verdict.ALLOW
    for order in ([allow, ask], [ask, allow]):
        decision = judge(make_engine, order, bash("docker build ."))
        assert (decision.verdict, decision.rule) == (Verdict.ASK, "plugins/ask")


def test_an_allow_must_cover_every_part_of_the_command_the_analysis_did_not_allow(make_engine):
    p = plugin('patterns: [{match: "^frob", verdict: allow}]')
    engine = engine_with(make_engine, [p], every_command_installed=True)  # frob, defrob: installed, unknown
    assert engine.evaluate(bash("frob --all"), record=False).verdict is Verdict.ALLOW
    chained = engine.evaluate(bash("frob --all && defrob"), record=False)
    assert chained.verdict is Verdict.ASK and chained.rule.startswith("default")
    # parts the analysis already allows need no covering
    assert engine.evaluate(bash("ls && frob"), record=False).verdict is Verdict.ALLOW


def test_flag_records_a_guard_event_and_lets_evaluation_go_on(make_engine):
    events: list[GuardEvent] = []
    p = plugin('patterns: [{match: "git", verdict: flag, reason: measuring git use}]\n')
    engine = make_engine(record=False, plugin_rule=PluginRule([p]), on_event=events.append)
    decision = engine.evaluate(bash("git status"), record=False)
    assert decision.verdict is Verdict.ALLOW and decision.rule.startswith("default")
    assert [(e.kind, e.message, e.rule) for e in events] == [("flag", "measuring git use", "plugins/p")]
    assert decision.metadata["flags"] == [{"verdict": "flag", "reason": "measuring git use", "rule": "plugins/p",
                                           "blast_radius": "low", "category": "plugin"}]


def test_a_flag_beside_another_plugins_verdict_is_still_recorded(make_engine):
    events: list[GuardEvent] = []
    flag = plugin('patterns: [{match: curl, verdict: flag, reason: seen curl}]\n', file="flag.yaml")
    deny = plugin('patterns: [{match: evil, verdict: deny, reason: evil host}]\n', file="deny.yaml")
    engine = make_engine(record=False, plugin_rule=PluginRule([flag, deny]), on_event=events.append)
    decision = engine.evaluate(bash("curl https://evil.example"), record=False)
    assert (decision.verdict, decision.rule) == (Verdict.DENY, "plugins/deny")
    assert [(e.kind, e.rule) for e in events] == [("flag", "plugins/flag")]
    assert "flags_raised" not in decision.metadata and decision.metadata["flags"][0]["rule"] == "plugins/flag"


def test_a_catastrophic_regex_asks_with_the_reason_instead_of_hanging(make_engine):
    p = plugin('patterns: [{match: "(a|aa)+$", verdict: allow}]\n', file="slow.yaml")
    engine = engine_with(make_engine, [p])
    engine.budget_s = 30.0  # the pattern's own limit ends it, not the call's budget (tested below)
    start = time.monotonic()
    decision = engine.evaluate(bash("echo " + "a" * 40 + "!"), record=False)
    assert time.monotonic() - start < 10  # generous: the limit is 0.05 s per search
    assert (decision.verdict, decision.category, decision.rule) == (Verdict.ASK, "plugin-timeout", "plugins/slow")
    assert f"ran longer than {REGEX_TIMEOUT_S * 1000:.0f} ms" in decision.reason and "pattern 1 (line 1)" in decision.reason


def test_a_catastrophic_regex_never_runs_past_the_calls_budget(make_engine):
    """The search runs in C, where the budget cannot interrupt it: it is given what is left of the
    budget as its own limit, so the call still asks in about the budget's time."""
    p = plugin('patterns: [{match: "(a|aa)+$", verdict: allow}]\n', file="slow.yaml")
    engine = engine_with(make_engine, [p])
    engine.budget_s = 0.005  # less than the pattern's own limit
    decision = engine.evaluate(bash("echo " + "a" * 40 + "!"), record=False)
    assert (decision.verdict, decision.rule) == (Verdict.ASK, "engine.budget")
    assert "took longer than its 5 ms budget" in decision.reason


def test_a_timeout_never_loosens_another_plugins_deny(make_engine):
    slow = plugin('patterns: [{match: "(a|aa)+$", verdict: allow}]\n', file="slow.yaml")
    deny = plugin('patterns: [{match: "echo", verdict: deny}]\n', file="deny.yaml")
    assert judge(make_engine, [slow, deny], bash("echo " + "a" * 40 + "!")).verdict is Verdict.DENY
