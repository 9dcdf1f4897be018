"""The session replay itself: the world it builds, the calls it applies, the corpus errors it names."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from .replay import CorpusError, World, _replay, load_corpus


def corpus(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


SESSION = {"type": "session", "id": "s", "cwd": "/home/dev/src/app",
           "files": {"/home/dev/src/app/notes.txt": "hello\n"},
           "links": {"/home/dev/src/app/cfg.json": "/home/dev/shared/cfg.json"}}


def test_a_call_before_its_session_is_named_with_file_and_line(tmp_path):
    path = corpus(tmp_path, [{"type": "call", "session": "s", "tool_name": "Bash", "tool_input": {"command": "ls"},
                              "expect": "allow", "family": "shell"}])
    with pytest.raises(CorpusError, match=r"^c\.jsonl:1: session 's' is not declared above"):
        load_corpus(path)


def test_an_unknown_label_is_refused(tmp_path):
    path = corpus(tmp_path, [SESSION, {"type": "call", "session": "s", "tool_name": "Bash",
                                       "tool_input": {"command": "ls"}, "expect": "maybe", "family": "shell"}])
    with pytest.raises(CorpusError, match=r"c\.jsonl:2: \"expect\""):
        load_corpus(path)


def test_the_world_holds_the_sessions_files_links_and_the_writes_that_went_through(tmp_path):
    rows = load_corpus(corpus(tmp_path, [
        SESSION,
        {"type": "call", "session": "s", "tool_name": "Write",
         "tool_input": {"file_path": "/home/dev/src/app/tools/gen.py", "content": "print('hi')\n"},
         "expect": "allow", "family": "file-write"},
        {"type": "call", "session": "s", "tool_name": "Edit",
         "tool_input": {"file_path": "/home/dev/src/app/notes.txt", "old_string": "hello", "new_string": "bye"},
         "expect": "allow", "family": "file-write"},
        {"type": "call", "session": "s", "tool_name": "Write",
         "tool_input": {"file_path": "/home/dev/src/app/never.txt", "content": "x"},
         "expect": "allow", "applies": False, "family": "file-write"},
    ]))
    world = World(tmp_path / "worlds")
    try:
        results = list(_replay(world, rows))
        project = world.home / "src" / "app"
        assert (project / "tools" / "gen.py").read_text() == "print('hi')\n"
        assert (project / "notes.txt").read_text() == "bye\n"
        assert not (project / "never.txt").exists()
        assert (project / "cfg.json").is_symlink()
        assert str((project / "cfg.json").readlink()) == str(world.home / "shared" / "cfg.json")
        assert [r.summary for r in results][0] == "/home/dev/src/app/tools/gen.py"  # paths shown as the corpus wrote them
    finally:
        world.close()
    assert not world.root.exists()


def test_a_payload_the_adapter_cannot_read_is_scored_by_the_agents_fail_safe_answer(tmp_path):
    rows = load_corpus(corpus(tmp_path, [SESSION, {"type": "call", "session": "s", "tool_name": "Bash",
                                                    "tool_input": "not an object", "expect": "ask",
                                                    "family": "attack"}]))
    world = World(tmp_path / "worlds")
    try:
        [result] = list(_replay(world, rows))
    finally:
        world.close()
    assert result.got == "ask" and result.rule == "adapter"


def test_the_worlds_guardtui_dirs_are_the_corpus_ones_not_this_machines(tmp_path):
    world = World(tmp_path / "worlds")
    try:
        assert world.locations.config_dir == world.home / ".config" / "guardtui"
        assert world.locations.audit_db == world.home / ".local" / "state" / "guardtui" / "audit.db"
        assert world.locations.socket_path == world.runtime / "guardtui" / "broker.sock"
    finally:
        world.close()
