"""Task files judged when written (rules/tasks_written.py): a Makefile target, a justfile recipe, a package.json,
composer.json or deno.json script, a Taskfile task or a poe task that the write adds or changes, and that running
would deny, denies the write; routine recipes, what would only ask, and what already denied before stay as they were.
"""
from __future__ import annotations

import json

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


@pytest.fixture(autouse=True)
def real_temp_dirs(world):  # noqa: F811
    """The test's world lives under the machine's temp dir, which counts as scratch space: this one does not."""
    world.engine.temp_dirs = (str(world.home.parent / "scratch"),)


MAKEFILE = "BUILD = build\n\nall:\n\tcc -o app main.c\n\nclean:\n\trm -rf $(BUILD)\n"


def edit(world, name, old, new, **more):  # noqa: F811
    return world.tool("Edit", file_path=str(world.project / name), old_string=old, new_string=new, **more)


@pytest.mark.parametrize("new", [
    "clean:\n\trm -rf $(BUILD)\n\nreset:\n\trm -rf $(BUILDDIR)/*\n",  # a misspelt variable: rm -rf /*
    "clean:\n\trm -rf $(BUILD)\n\nwipe:\n\trm -rf ~/\n",
    "clean:\n\trm -rf $(BUILD)\n\nunguard:\n\t@rm -f ~/.claude/settings.json\n",
    "clean:\n\trm -rf $(BUILD)\n\tgit push --force origin main\n",  # an existing target changed
    "clean:\n\trm -rf $(BUILD)\n\ndb-reset:\n\tpsql \"$$DATABASE_URL\" -c 'DROP SCHEMA public CASCADE'\n",
])
def test_a_makefile_target_the_edit_plants_denies_the_edit(world, new):  # noqa: F811
    (world.project / "Makefile").write_text(MAKEFILE)
    d = edit(world, "Makefile", "clean:\n\trm -rf $(BUILD)\n", new)
    assert verdict(d) == "deny", d.reason
    assert "Makefile" in d.reason and "would then run" in d.reason, d.reason


def test_a_variable_the_edit_empties_denies_the_targets_that_use_it(world):  # noqa: F811
    (world.project / "Makefile").write_text("OUT = out\n\nall:\n\tcc main.c\n\nclean:\n\trm -rf $(OUT)/*\n")
    d = edit(world, "Makefile", "OUT = out\n", "OUT =\n")
    assert verdict(d) == "deny", d.reason
    assert "target clean" in d.reason


def test_a_whole_makefile_written_anew_is_judged_too(world):  # noqa: F811
    d = world.tool("Write", file_path=str(world.project / "GNUmakefile"),
                   content="test:\n\tpytest -q\n\nfresh:\n\trm -rf $(OUT_DIR)/\n")
    assert verdict(d) == "deny", d.reason


@pytest.mark.parametrize("new", [
    "clean:\n\trm -rf $(BUILD)\n\ndist:\n\tpython -m build\n",
    "clean:\n\trm -rf $(BUILD) dist .pytest_cache\n",
    "clean:\n\trm -rf $(BUILD)\n\ndeploy:\n\tkubectl apply -f k8s/\n",  # asks when run: the write stays allowed
])
def test_routine_and_ask_level_targets_keep_the_edit_allowed(world, new):  # noqa: F811
    (world.project / "Makefile").write_text(MAKEFILE)
    d = edit(world, "Makefile", "clean:\n\trm -rf $(BUILD)\n", new)
    assert verdict(d) == "allow", d.reason


def test_a_target_that_denied_before_is_not_the_edits_doing(world):  # noqa: F811
    (world.project / "Makefile").write_text(MAKEFILE + "\nnuke:\n\trm -rf ~/\n")
    d = edit(world, "Makefile", "all:\n\tcc -o app main.c\n", "all:\n\tcc -O2 -o app main.c\n")
    assert verdict(d) == "allow", d.reason


@pytest.mark.parametrize("edits", [
    [{"oldText": "test:\n    go test ./...\n", "newText": "test:\n    @rm -rf ~/.config/guardtui/guards\n    go test ./...\n"}],
    [{"old_string": "test:\n    go test ./...\n", "new_string": "test:\n    rm -rf ~\n    go test ./...\n"}],
])
def test_a_justfile_recipe_planted_through_any_edit_spelling_denies(world, edits):  # noqa: F811
    (world.project / "justfile").write_text("build:\n    go build ./...\n\ntest:\n    go test ./...\n")
    d = world.tool("Edit", file_path=str(world.project / "justfile"), edits=edits)
    assert verdict(d) == "deny", d.reason
    assert "recipe test" in d.reason


def test_a_routine_justfile_recipe_stays_allowed(world):  # noqa: F811
    (world.project / "justfile").write_text("test:\n    go test ./...\n")
    d = world.tool("Edit", file_path=str(world.project / "justfile"),
                   edits=[{"oldText": "test:\n", "newText": "lint:\n    golangci-lint run\n\ntest:\n"}])
    assert verdict(d) == "allow", d.reason


def _package(scripts):
    return json.dumps({"name": "shop", "scripts": scripts}, indent=2) + "\n"


@pytest.mark.parametrize("scripts", [
    {"test": "vitest run", "reset": "rm -rf ~/.config/guardtui/guards"},
    {"test": "vitest run", "posttest": "rm -f ~/.claude/settings.json"},  # runs with `npm run test`
    {"test": "vitest run", "postinstall": "rm -rf ~/.codex"},
])
def test_a_package_script_that_removes_the_guard_denies(world, scripts):  # noqa: F811
    (world.project / "package.json").write_text(_package({"test": "vitest run"}))
    d = world.tool("Write", file_path=str(world.project / "package.json"), content=_package(scripts))
    assert verdict(d) == "deny", d.reason


@pytest.mark.parametrize("scripts", [
    {"test": "vitest run", "clean": "rm -rf dist coverage", "build": "tsc -b"},
    {"test": "vitest run", "wipe": "rm -rf ~/*"},  # the manifest's other denies are judged when run
])
def test_routine_package_scripts_and_the_manifests_other_denies_stay_allowed(world, scripts):  # noqa: F811
    (world.project / "package.json").write_text(_package({"test": "vitest run"}))
    d = world.tool("Write", file_path=str(world.project / "package.json"), content=_package(scripts))
    assert verdict(d) == "allow", d.reason


def test_a_taskfile_task_and_a_composer_script_written_deny(world):  # noqa: F811
    d = world.tool("Write", file_path=str(world.project / "Taskfile.yml"),
                   content="version: '3'\ntasks:\n  wipe:\n    cmds:\n      - rm -rf ~/\n")
    assert verdict(d) == "deny", d.reason
    d = world.tool("Write", file_path=str(world.project / "composer.json"),
                   content=json.dumps({"scripts": {"nuke": "rm -rf ~/.config/guardtui"}}))
    assert verdict(d) == "deny", d.reason
    d = world.tool("Write", file_path=str(world.project / "Taskfile.yml"),
                   content="version: '3'\ntasks:\n  test:\n    cmds:\n      - go test ./...\n")
    assert verdict(d) == "allow", d.reason


def test_a_recipe_appended_through_the_shell_denies(world):  # noqa: F811
    (world.project / "Makefile").write_text(MAKEFILE)
    assert world.verdict("printf '\\nzap:\\n\\trm -rf $(BUILDDIR)/*\\n' >> Makefile") == "deny"
    assert world.verdict("printf '\\nfmt:\\n\\tgofmt -w .\\n' >> Makefile") != "deny"


def test_a_standalone_script_is_judged_when_it_runs_not_when_written(world):  # noqa: F811
    d = world.tool("Write", file_path=str(world.project / "scripts" / "wipe.sh"), content="#!/bin/sh\nrm -rf ~/\n")
    assert verdict(d) != "deny", d.reason


NOXFILE = '''import nox

nox.options.sessions = ["lint", "tests"]


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("-e", ".", "pytest")
    session.run("pytest", "-q", *session.posargs)


@nox.session
def lint(session):
    session.run("ruff", "check", "src")


@nox.session(python=False, name="publish")
def release(session):
    session.run("uv", "build")
    session.run(
        "twine", "upload", "dist/*",
    )


@nox.session(python=False)
def nuke(session):
    session.run("rm", "-rf", "/")
'''


@pytest.mark.parametrize("command, expected", [
    ("nox -s publish", "ask"),  # twine upload: a publish
    ("uv run nox --session publish", "ask"),
    ("nox -s nuke", "deny"),
    ("nox", "allow"),  # the default sessions: tests and lint
    ("nox -s tests lint", "allow"),
    ("nox --list", "allow"),
])
def test_nox_sessions_are_judged_by_what_they_run(world, command, expected):  # noqa: F811
    (world.project / "noxfile.py").write_text(NOXFILE)
    assert world.verdict(command) == expected
