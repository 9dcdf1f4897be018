"""What a command's own arguments make a program or a patch write: a script's sys.argv known from its
command line, `patch FILE < diff` and `patch -d DIR`. The world is the real one of test_guard_holds."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

MERGE = ("import json, sys, pathlib\nsrc, dst = sys.argv[1], pathlib.Path(sys.argv[2]).expanduser()\n"
         "d = json.loads(dst.read_text()) if dst.exists() else {}\nd.update(json.load(open(src)))\n"
         "dst.write_text(json.dumps(d))\n")


@pytest.mark.parametrize("command", [
    "python3 tools/merge_settings.py conf/off.json ~/.gemini/settings.json",
    "python3 tools/merge_settings.py conf/off.json .claude/settings.local.json",
    "uv run python tools/merge_settings.py conf/off.json \"$HOME/.codex/hooks.json\"",
    "cd tools && python3 merge_settings.py ../conf/off.json ~/.claude/settings.json",
])
def test_a_script_writing_where_its_arguments_say_is_judged_by_them(world, command):
    put(world, "tools/merge_settings.py", MERGE)
    put(world, "conf/off.json", '{"hooksConfig": {"enabled": false}}\n')
    assert verdict(world.run(command)) == "deny", command


def test_the_same_script_on_project_files_is_routine(world):
    put(world, "tools/merge_settings.py", MERGE)
    put(world, "conf/off.json", '{"a": 1}\n')
    assert verdict(world.run("python3 tools/merge_settings.py conf/off.json build/merged.json")) == "allow"
    assert verdict(world.run("python3 tools/merge_settings.py conf/off.json")) == "allow"  # argv[2] missing


def test_argv_of_a_script_with_a_constant_index_only(world):
    put(world, "tools/pick.py", "import sys\nopen(sys.argv[-1], 'w').write('x')\n")
    assert verdict(world.run("python3 tools/pick.py a b ~/.claude/settings.json")) == "deny"
    assert verdict(world.run("python3 tools/pick.py a b out.txt")) == "allow"


DIFF = "--- a/config.toml\n+++ b/config.toml\n@@ -1 +1,2 @@\n model = \"o4\"\n+hooks = false\n"


@pytest.mark.parametrize("command", [
    "patch ~/.codex/config.toml < tools/ci.diff",
    "patch -i tools/ci.diff ~/.codex/config.toml",
    "patch ~/.codex/config.toml tools/ci.diff",
    "patch -d ~/.codex -p1 < tools/ci.diff",
    "patch --directory=$HOME/.codex -p1 -i tools/ci.diff",
])
def test_patch_of_a_guard_file_denies(world, command):
    put(world, "tools/ci.diff", DIFF)
    assert verdict(world.run(command)) == "deny", command


def test_patch_inside_the_project_is_routine(world):
    put(world, "src/lib.rs", "fn main() {}\n")
    put(world, "tools/fix.diff", "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-fn main() {}\n+fn main() { }\n")
    assert verdict(world.run("patch -p1 < tools/fix.diff")) == "allow"
    assert verdict(world.run("patch src/lib.rs tools/fix.diff")) == "allow"
    assert verdict(world.run("patch -p1 --dry-run < tools/fix.diff")) == "allow"
