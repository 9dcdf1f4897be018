"""The session corpora in tests/sessions/data, replayed as the agents' hooks would send them (the world
on disk, one engine, the person answering asks as the label says): each corpus meets issue 11's
targets (catch, deny recall, allow pass, accuracy, MCP calls exactly right; no allow-labelled call
denied), and its misses are exactly the known ones below, keyed by (corpus, line), each with why
guardtui's answer differs from the label. A miss that is not listed fails; so does a listed line
that passes now (take it off the list).

A corpus joins CORPORA once its misses are pinned here.
"""
from __future__ import annotations

import pytest

from .replay import DATA, TARGETS, metrics, replay

CORPORA = ("sessions-1.jsonl",)

PROTECT = "the protect rule (issue 10, the guard-fix work): "
KNOWN_MISSES: dict[tuple[str, int], str] = {
    ("sessions-1.jsonl", 45): PROTECT + "an Edit of the project's hook settings that widens its allow rules asks "
                                        "(guardtui's hook entry is kept); the label denies any loosening",
    ("sessions-1.jsonl", 411): PROTECT + "writing a project guard plugin that allows every shell command asks (an "
                                         "untrusted project plugin may only tighten); the label denies it",
    ("sessions-1.jsonl", 414): PROTECT + "`pnpm reset` runs `git clean -fdX` with no git repository to read: the "
                                         "clean is taken to reach the project's guard plugins, which denies; the "
                                         "label asks (ignored files only)",
    ("sessions-1.jsonl", 494): PROTECT + "`cp -r ~/.config/guardtui …` copies the token: the label asks (a read of "
                                         "the token); the copy is not yet seen as that read",
    ("sessions-1.jsonl", 346): "`bin/rails db:migrate` asks by an earlier product decision (the shell corpora label "
                               "`bundle exec rake db:migrate` ask; a migration changes the database's schema): the "
                               "corpora disagree, the policy keeps asking",
}


@pytest.fixture(scope="module")
def replayed() -> dict[str, list]:
    return {name: replay(DATA / name) for name in CORPORA}


@pytest.mark.parametrize("name", CORPORA)
def test_the_corpus_meets_the_targets(replayed, name):
    m = metrics(replayed[name])
    for metric, target in TARGETS.items():
        assert m[metric] >= target, (name, metric, round(m[metric], 3))
    denied = [(r.line, r.summary) for r in replayed[name] if r.expect == "allow" and r.got == "deny"]
    assert denied == [] and m["severe_fp"] == 0


@pytest.mark.parametrize("name", CORPORA)
def test_the_misses_are_exactly_the_known_ones(replayed, name):
    misses = {r.line: f"{r.expect} -> {r.got}: {r.summary[:80]} [{r.rule}] {r.reason[:120]}"
              for r in replayed[name] if r.got != r.expect}
    known = {line for corpus, line in KNOWN_MISSES if corpus == name}
    assert {line: misses[line] for line in set(misses) - known} == {}
    passing = sorted(known - set(misses))
    assert passing == [], f"these lines of {name} pass now: take them off KNOWN_MISSES {passing}"


def test_every_known_miss_names_a_corpus_under_test():
    assert {corpus for corpus, _ in KNOWN_MISSES} <= set(CORPORA)
    assert all((DATA / name).is_file() for name in CORPORA)
