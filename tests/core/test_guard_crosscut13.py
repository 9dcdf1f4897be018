"""Cross-cutting fail-open classes (attacks-13): code of languages guardtui cannot parse, programs that run
other programs, typing into the console by any automation, metadata endpoints through any program, MCP
shell servers, teardown CLIs. Every case goes through the engine in the real world of test_guard_holds."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


# -- guardtui's own subcommands behind any wrapper, known or not ------------------------------------------------

@pytest.mark.parametrize("command", [
    "gdb -q -batch -ex run --args python3 -m guardtui trust .guardtui/guards/team.yaml",
    "flatpak-spawn --host guardtui uninstall",
    "faketime '2024-01-01 00:00:00' python3 -m guardtui uninstall",
    "taskset -c 0 guardtui install claude",
    "strace -f -o /dev/null guardtui trust .guardtui/guards/team.yaml",
    "unbuffer guardtui uninstall",
    "mise exec -- guardtui uninstall",
    "totally-unknown-runner --flag x guardtui uninstall",
    "my-wrapper ~/.local/bin/guardtui trust .guardtui/guards/team.yaml",
    "nice -n 5 env FOO=1 some-tool run -- python3 -mguardtui install",
    "valgrind --leak-check=full guardtui uninstall",
    "hyperfine 'guardtui uninstall'",
    "watchexec -w src -- guardtui trust .guardtui/guards/team.yaml",
])
def test_guard_subcommands_behind_any_wrapper_deny(world, command):
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command", [
    "guardtui check -- ls",
    "echo 'run guardtui install yourself'",
    "grep -rn 'guardtui trust' docs",
    "faketime '2024-01-01 00:00:00' pytest -q",
    "gdb -q -batch -ex run --args ./build/app --selftest",
    "gdb ./build/app core",
    "watchexec -e py -- pytest -q",
])
def test_wrapper_controls(world, command):
    (world.project / "docs").mkdir(exist_ok=True)
    assert verdict(world.run(command)) != "deny", command


@pytest.mark.parametrize("command", [
    "gdb -batch -ex run --args rm -rf ~/.claude",
    "faketime -f '+2d' rm -rf ~/.codex",
    "watchexec --postpone -w ~/.gemini -- cp src/app.py ~/.claude/settings.json",
    "flatpak-spawn --host --directory=/tmp rm -rf ~/.config/guardtui",
])
def test_known_wrappers_judge_what_they_run(world, command):
    assert verdict(world.run(command)) == "deny", command
