"""The development corpus (labelled by peers' suites and the labeling policy) through the full engine."""
from __future__ import annotations

import pytest

from .corpus import DATA, DEV_CORPUS, TARGETS, load, metrics, score

# Lines we judge differently from the label, and why. The test fails if this list changes,
# so an improvement (or a regression) is noticed and the list kept honest.
KNOWN_MISSES = {
    "git checkout status":
        "one name is a branch or a path; with no repo to consult and no file extension, we take it for a branch",
    "git checkout --recurse-submodules checkout main":
        "--recurse-submodules takes no separate value, so `checkout main` reads as tree-ish + path: we ask",
    "rsync -a --progress /src/ /dest/":
        "a write outside the project: the working-directory rule asks (issue 2), the label allows local copies",
    "vault kv get secret/app/config":
        "it prints the secret's values into the agent's transcript: commands that print credentials ask (issue 11); "
        "the label (a peer's safe list) allows reading one's own secret store",
    "doppler secrets get DATABASE_URL":
        "as vault kv get: it prints a secret; captured in $(…) or piped on, the command that takes it is judged",
    "gh pr create --title 'fix'":
        "a pull request opened in the person's name, visible to others, asks (as the MCP tools that open one do, and "
        "as every session corpus labels it); the label is a peer's safe list",
    "git push origin main --force-with-lease":
        "a force push to main all the same (the lease only guards against a race): denied, as every session corpus "
        "labels it and the policy reads; the peer's label is ask",
}


@pytest.fixture(scope="module")
def dev_scored(request):
    engine = request.getfixturevalue("corpus_engine")
    return score(engine, load(DEV_CORPUS))


@pytest.fixture(scope="module")
def corpus_engine(tmp_path_factory):
    from guardtui.core.config import Locations
    from guardtui.core.factory import build_engine
    from guardtui.core.protect import Protection
    from guardtui.core.shell.analyze import Analyzer

    from ..conftest import HOME, TYPICAL

    root = tmp_path_factory.mktemp("corpus")
    env = {"HOME": str(root), "GUARDTUI_CONFIG_DIR": str(root / "c"), "GUARDTUI_STATE_DIR": str(root / "s"),
           "GUARDTUI_RUNTIME_DIR": str(root / "r")}
    engine = build_engine(Locations.from_env(env), record=False)
    engine.analyzer = Analyzer(command_exists=lambda name: name in TYPICAL)
    engine.home = HOME
    # guardtui installed where a user has it, not where this checkout happens to be (a clone in /tmp
    # would make `rm -rf /tmp` remove the guard's own code, and deny)
    engine.protection = Protection(Locations.from_env(env), homes=(HOME,), env={"PATH": "/usr/bin:/bin"},
                                   code_dir="/opt/guardtui/lib/python3/site-packages/guardtui",
                                   interpreter="/opt/guardtui/bin/python")
    return engine


def test_dev_corpus_meets_the_targets(dev_scored):
    m = metrics(dev_scored)
    for name, target in TARGETS.items():
        assert m[name] >= target, (name, m[name])
    assert m["severe_fp"] == 0  # no allow-labelled command denied


def test_dev_corpus_misses_are_exactly_the_known_ones(dev_scored):
    misses = {s.command: f"{s.expect} -> {s.got}: {s.reason}" for s in dev_scored if s.got != s.expect}
    assert set(misses) == set(KNOWN_MISSES), misses


@pytest.mark.parametrize("name", ["tricky.jsonl", "unseen-2.jsonl", "unseen-3.jsonl", "unseen-4.jsonl", "unseen-5.jsonl",
                                  "unseen-6.jsonl", "unseen-7.jsonl"])
def test_independently_written_corpora_meet_the_targets(corpus_engine, name):
    """Commands written apart from the analysis, by engineers who did not read its code.
    Their first-run figures (before any fix they prompted) are recorded in the issue notes."""
    path = DATA / name
    m = metrics(score(corpus_engine, load(path)))
    for metric, target in TARGETS.items():
        assert m[metric] >= target, (name, metric, m[metric])
    assert m["severe_fp"] == 0


def test_routine_work_of_the_main_stacks_is_quiet(corpus_engine):
    """stacks.jsonl: versions, auth checks, builds, formatters and task runners of the main stacks
    (Django, Next.js, Go, Rust, Gradle, Terraform, Helm, Rails, pnpm/turbo, CMake, dotfiles), and the
    nearby calls that must still ask or deny. Every line is judged as labelled."""
    scored = score(corpus_engine, load(DATA / "stacks.jsonl"))
    wrong = {s.command: f"{s.expect} -> {s.got}: {s.reason}" for s in scored if s.got != s.expect}
    assert not wrong, wrong
