"""The guard's files reached by another spelling, an alias or an indirection (and the work that only
looks like it). Every case goes through the engine in a real world on disk (the World of
test_guard_holds)."""
from __future__ import annotations

import os

from .test_guard_holds import World, world  # noqa: F401  (the fixture)


# -- in-place editors that rename a new file over the name: a link there is replaced, not followed --

def test_in_place_rename_replaces_a_link_and_leaves_its_target_alone(world: World) -> None:
    (world.project / "tmp").mkdir()
    os.symlink(world.user_settings, world.project / "tmp" / "s.json")
    for command in ("sed -i 's/a/b/' tmp/s.json", "sed -i.bak -e 's/a/b/' tmp/s.json",
                    "sed --in-place 's/x/y/' tmp/s.json", "perl -pi -e 's/a/b/' tmp/s.json",
                    "perl -i -pe 's/a/b/' tmp/s.json"):
        assert world.verdict(command) == "allow", command


def test_in_place_write_through_a_link_is_still_caught(world: World) -> None:
    (world.project / "tmp").mkdir()
    os.symlink(world.user_settings, world.project / "tmp" / "s.json")
    os.symlink(world.user_settings.parent, world.project / "cl")
    for command in ("sed -i --follow-symlinks '/hook/d' tmp/s.json",  # GNU sed writes through the link
                    "sed -i '/hook/d' cl/settings.json",  # a linked directory on the way is followed
                    "sed -i '/hook/d' ~/.claude/settings.json",
                    "perl -pi -e 's/hook//' cl/settings.json"):
        assert world.verdict(command) == "deny", command
    assert world.tool("Edit", file_path=str(world.project / "tmp" / "s.json"), old_string="hooks",
                      new_string="x").verdict.value == "deny"
