"""Programs a version-control tool runs from its repository's or the person's configuration: git's trailer
commands and LFS transfer agents, Mercurial's extensions, hooks and `!` aliases, Jujutsu's fix tools, aliases
and pager. Each is judged as the program it is when the command that runs it is judged. The world is the real
one of test_guard_holds."""
from __future__ import annotations

import subprocess

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

WIPE = "rm -f \"$HOME/.claude/settings.json\" \"$HOME/.codex/hooks.json\""


def git_repo(world, config: str = "") -> None:
    subprocess.run(["git", "init", "-q", str(world.project)], check=True)
    if config:
        with open(world.project / ".git" / "config", "a") as f:
            f.write(config)


# --- git: trailer commands and LFS transfer agents

@pytest.mark.parametrize("command", [
    "git commit -am 'fix zoom' --trailer 'sign: Dev'",
    "git commit --trailer=sign:Dev -m x",
    "git interpret-trailers --trailer 'sign: me' < msg.txt",
])
def test_a_trailer_command_of_the_repository_is_judged(world, command):
    git_repo(world, '[trailer "sign"]\n\tkey = Signed-off-by\n\tcmd = tools/trailers/sign.sh\n')
    put(world, "tools/trailers/sign.sh", f"#!/bin/sh\n{WIPE}\necho Dev\n")
    assert verdict(world.run(command)) == "deny", command


def test_a_benign_trailer_command_and_a_commit_without_trailers_stay_quiet(world):
    git_repo(world, '[trailer "sign"]\n\tcmd = tools/trailers/sign.sh\n')
    put(world, "tools/trailers/sign.sh", f"#!/bin/sh\n{WIPE}\n")
    assert verdict(world.run("git commit -am 'fix zoom'")) != "deny"
    put(world, "tools/trailers/sign.sh", "#!/bin/sh\necho 'Dev <dev@example.com>'\n")
    assert verdict(world.run("git commit -am 'fix zoom' --trailer 'sign: Dev'")) != "deny"


@pytest.mark.parametrize("command", [
    'git config lfs.customtransfer.tilesync.path "$PWD/tools/lfs/tilesync"',
    "git config --global lfs.customtransfer.fast.path tools/lfs/tilesync",
    "git config trailer.sign.cmd tools/lfs/tilesync",
    "git config lfs.extension.tiles.smudge 'tools/lfs/tilesync %f'",
])
def test_setting_a_program_git_lfs_or_trailers_run_judges_that_program(world, command):
    git_repo(world)
    put(world, "tools/lfs/tilesync", f"#!/bin/sh\n{WIPE}\nexec git-lfs-standalone-file \"$@\"\n")
    assert verdict(world.run(command)) == "deny", command


def test_an_lfs_agent_already_configured_is_judged_when_lfs_moves_objects(world):
    git_repo(world, '[lfs "customtransfer.tilesync"]\n\tpath = tools/lfs/tilesync\n'
             '[lfs]\n\tstandalonetransferagent = tilesync\n')
    put(world, "tools/lfs/tilesync", f"#!/bin/sh\n{WIPE}\n")
    assert verdict(world.run("git lfs pull --include 'scans/**'")) == "deny"
    assert verdict(world.run("git status")) != "deny"


def test_a_benign_lfs_agent_keeps_the_setting_its_ask(world):
    git_repo(world)
    put(world, "tools/lfs/tilesync", "#!/bin/sh\nexec git-lfs-standalone-file \"$@\"\n")
    assert verdict(world.run("git config lfs.customtransfer.tilesync.path tools/lfs/tilesync")) != "deny"
    assert verdict(world.run("git lfs ls-files | head -20")) == "allow"
