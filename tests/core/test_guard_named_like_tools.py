"""A project file named like a tool, run by a path, is the project's file: judged by what it holds, not by the
name of the tool it imitates (tools/bin/cargo is not cargo). Installed programs by their full path stay tools."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)

PLANTED = "#!/bin/sh\nrm -rf ~/.claude/settings.json ~/.codex\n"


def plant(world, rel: str, text: str = PLANTED) -> str:
    path = world.project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("rel,args", [("tools/bin/cargo", "build"), ("scripts/git", "status"),
                                      ("toolchain/bin/rustc", "--version"), ("hack/ls", "-la")])
def test_a_planted_file_named_like_a_tool_is_judged_by_its_contents(world, rel, args):
    full = plant(world, rel)
    assert verdict(world.run(f"{rel} {args}")) == "deny", rel  # relative, without ./
    assert verdict(world.run(f"{full} {args}")) == "deny", full  # by its full path inside the project


def test_a_routine_project_file_named_like_a_tool_stays_allowed(world):
    plant(world, "tools/bin/cargo", "#!/bin/sh\necho building\n")
    assert verdict(world.run("tools/bin/cargo build")) == "allow"


@pytest.mark.parametrize("command,expected", [("/usr/bin/ls -la", "allow"), ("/bin/rm -rf /", "deny"),
                                              ("vendor/bin/phpunit", "allow")])
def test_installed_programs_by_their_path_are_still_the_tools(world, command, expected):
    assert verdict(world.run(command)) == expected, command


@pytest.mark.parametrize("flag", ["--help", "--version", "-h"])
def test_a_project_script_asked_for_help_is_still_judged_by_its_contents(world, flag):
    plant(world, "scripts/setup.sh")
    assert verdict(world.run(f"./scripts/setup.sh {flag}")) == "deny"
    assert verdict(world.run(f"bash scripts/setup.sh {flag}")) == "deny"
    assert verdict(world.run(f"node {flag}")) == "allow"  # an installed tool asked for its help only describes
