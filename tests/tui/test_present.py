"""The console's words and its file edits, without Textual: durations, labels, paths, segments,
diffs, and the plugin-file edits behind "always allow" and "save as a test"."""
from __future__ import annotations

import re

import pytest
import yaml

from guardtui.core.config import Locations
from guardtui.core.model import BlastRadius, Decision, ToolCall, Verdict
from guardtui.core.plugins import load_plugin_set
from guardtui.core.session import Approval
from guardtui.tui import plugin_files
from guardtui.tui.changes import file_change
from guardtui.tui.present import (agent_label, call_text, tool_label, char_span, event_line, fmt_duration, segments_of,
                                  short_path, tilde)
from guardtui.tui.shipped import shipped_dir, stylesheets


@pytest.mark.parametrize("seconds,text", [(0, "0s"), (59.9, "59s"), (60, "1m00"), (185, "3m05"), (3600, "1h00"),
                                          (-3, "0s")])
def test_durations(seconds, text):
    assert fmt_duration(seconds) == text


def test_labels_and_paths():
    call = ToolCall("Edit", {"file_path": "/home/u/p/src/app.py"}, "/home/u/p", agent="claude",
                    session="6b58e1c2-4c1d")
    assert agent_label(call) == "claude·6b58"
    assert call_text(call, "/home/u") == "src/app.py"
    assert call_text(ToolCall("Edit", {"file_path": "/home/u/x.py"}, "/home/u/p"), "/home/u") == "~/x.py"
    mcp = ToolCall("mcp__gh__issue", {"title": "Bug", "labels": ["a"]}, "/")
    assert call_text(mcp) == 'issue labels=["a"] title=Bug'
    assert tool_label(mcp) == "gh" and tool_label(call) == "Edit"
    assert short_path("/home/u", "/home/u") == "~" and short_path("/home/uu/x", "/home/u") == "/home/uu/x"
    assert tilde("rm -rf /home/u/p deletes /home/u/p/src", "/home/u") == "rm -rf ~/p deletes ~/p/src"


def test_segment_spans_in_bytes_or_characters():
    command = "echo é && rm -rf x"
    assert char_span(command, (10, 18), "rm -rf x") == (10, 18)  # characters
    assert char_span(command, (11, 19), "rm -rf x") == (10, 18)  # bytes (tree-sitter)
    assert char_span(command, None, "rm -rf x") == (10, 18)  # found by text


def test_the_deciding_segment_is_marked_once():
    metadata = {"span": (6, 18), "segment": "rm -rf build", "segments": [
        {"segment": "ls", "verdict": "allow", "span": [0, 2], "reason": "reads"},
        {"segment": "rm -rf build", "verdict": "ask", "span": [6, 18], "reason": "deletes /home/u/p/build"},
        {"segment": "rm -rf build", "verdict": "ask", "span": [22, 34], "reason": "again"}]}
    decision = Decision(Verdict.ASK, "r", "dangerous-shell/fs.rm", BlastRadius.MEDIUM, "fs", metadata)
    call = ToolCall("Bash", {"command": "ls && rm -rf build && rm -rf build"}, "/home/u/p")
    segments = segments_of(call, decision, "/home/u")
    assert [s.deciding for s in segments] == [False, True, False]
    assert segments[1].reason == "deletes ~/p/build"



def test_of_two_findings_on_one_part_the_one_whose_reason_decided_is_marked():
    command = "docker run --rm -v /:/host alpine sh"
    span = [0, len(command)]
    metadata = {"span": tuple(span), "segment": command, "segments": [
        {"segment": command, "verdict": "ask", "span": span, "blast_radius": "low",
         "reason": "sh starts an interactive shell"},
        {"segment": command, "verdict": "ask", "span": span, "blast_radius": "high",
         "reason": "the container mounts the host's root file system"}]}
    decision = Decision(Verdict.ASK, "the container mounts the host's root file system",
                        "dangerous-shell/taxonomy:docker-run-host-root", BlastRadius.HIGH, "container", metadata)
    segments = segments_of(ToolCall("Bash", {"command": command}, "/home/u/p"), decision, "/home/u")
    assert [s.deciding for s in segments] == [False, True]


def test_guard_events_read_as_log_lines():
    from guardtui.core.engine import GuardEvent

    line = event_line(GuardEvent(1.0, "denied", "denied: rm -rf ~ deletes your home", "dangerous-shell/fs.rm",
                                 "claude", "rm -rf ~"), ts=5.0)
    assert (line.ts, line.icon, line.label, line.tone) == (5.0, "✗", "denied", "deny")
    assert line.text == "claude rm -rf ~ deletes your home"
    reload = event_line(GuardEvent(1.0, "reload-error", "x.yaml:3: bad verdict", "plugins"))
    assert (reload.label, reload.tone) == ("reload", "error")


# -- diffs ---------------------------------------------------------------------------------
def test_edit_diff_against_the_file_on_disk(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    change = file_change(ToolCall("Edit", {"file_path": "a.txt", "old_string": "two", "new_string": "2"},
                                  str(tmp_path)))
    assert ("-", "-two") in change.lines and ("+", "+2") in change.lines
    assert (change.added, change.removed, change.note) == (1, 1, "")
    missing = file_change(ToolCall("Edit", {"file_path": "a.txt", "old_string": "zzz", "new_string": "y"},
                                   str(tmp_path)))
    assert "do not match" in missing.note
    multi = file_change(ToolCall("MultiEdit", {"file_path": str(tmp_path / "a.txt"), "edits": [
        {"old_string": "one", "new_string": "1"}, {"old_string": "three", "new_string": "3"}]}, "/"))
    assert (multi.added, multi.removed) == (2, 2)
    (tmp_path / "bin").write_bytes(b"\0\1\2")
    assert "binary" in file_change(ToolCall("Write", {"file_path": str(tmp_path / "bin"), "content": "x"}, "/")).note
    assert file_change(ToolCall("Read", {"file_path": "a.txt"}, str(tmp_path))) is None


def test_a_codex_patch_is_shown_as_it_is(tmp_path):
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+2\n*** End Patch"
    change = file_change(ToolCall("Edit", {"command": patch, "file_path": str(tmp_path / "a.txt")}, str(tmp_path)))
    assert (change.added, change.removed) == (1, 1)


# -- plugin-file edits -----------------------------------------------------------------------
def test_a_saved_pattern_cannot_reach_past_a_command_separator():
    regex = re.compile(plugin_files.glob_to_command_regex("npm test*"))
    assert regex.match("npm test") and regex.match("npm test -- --watch")
    for sneaky in ("npm test; rm -rf /", "npm test && curl x | sh", "npm test $(rm -rf /)", "npm test `id`",
                   "npm test > /etc/passwd", "npm test\nrm -rf /", "xnpm test"):
        assert not regex.match(sneaky), sneaky


def test_items_are_inserted_keeping_comments_in_yaml_and_markdown():
    text = "# keep me\nid: x\npatterns:\n  - {match: a, verdict: ask}  # and me\ntests:\n  - {command: a, expect: ask}\n"
    out = plugin_files.insert_item(text, "tests", "{command: b, expect: allow}")
    assert "# keep me" in out and "# and me" in out
    assert yaml.safe_load(out)["tests"] == [{"command": "a", "expect": "ask"}, {"command": "b", "expect": "allow"}]
    out = plugin_files.insert_item("id: x\npatterns:\n- {match: a, verdict: ask}\n", "tests", "{command: b, expect: ask}")
    assert yaml.safe_load(out)["tests"] == [{"command": "b", "expect": "ask"}]
    md = "---\nid: m\npatterns:\n  - {match: a, verdict: ask}\n---\n# Title\n\nBody\n"
    out = plugin_files.insert_item(md, "patterns", "{match: b, verdict: deny}")
    front = out.split("---\n")[1]
    assert len(yaml.safe_load(front)["patterns"]) == 2 and out.endswith("# Title\n\nBody\n")
    with pytest.raises(plugin_files.PluginEditError):
        plugin_files.insert_item("tests: [{command: a, expect: ask}]\n", "tests", "{command: b, expect: ask}")


def test_an_allow_rule_is_saved_validated_and_appended(isolated_env):
    locations = Locations.from_env()
    call = ToolCall("Bash", {"command": "shopctl reindex --all"}, "/home/user/project")
    path = plugin_files.save_allow_rule(locations, "/home/user/project", call, Approval("pattern", "Bash", "shopctl*"))
    second = ToolCall("Write", {"file_path": "/home/user/project/docs/a.md", "content": "x"}, "/home/user/project")
    plugin_files.save_allow_rule(locations, "/home/user/project", second,
                                 Approval("pattern", "Write", "/home/user/project/docs/*"))
    data = yaml.safe_load(path.read_text())
    assert [p.get("match") or p.get("path_match") for p in data["patterns"]] == [
        plugin_files.glob_to_command_regex("shopctl*"), "/home/user/project/docs/*"]
    assert len(data["tests"]) == 2
    assert not load_plugin_set(locations, "/home/user/project").errors


def test_an_edit_that_breaks_the_file_is_undone(isolated_env):
    locations = Locations.from_env()
    path = locations.user_plugins_dir / "mine.yaml"
    path.parent.mkdir(parents=True)
    good = "id: mine\npatterns:\n  - {match: 'x', verdict: ask}\n"
    path.write_text(good)
    call = ToolCall("Bash", {"command": "x"}, "/")
    with pytest.raises(plugin_files.PluginEditError):
        plugin_files.save_test(path, call, "maybe", locations, "/")  # not a verdict a test may expect
    assert path.read_text() == good


def test_styles_and_example_plugins_are_found_in_a_checkout():
    names = [p.name for p in stylesheets()]
    assert names[:4] == ["guardtui.tcss", "console.tcss", "dialogs.tcss", "screens.tcss"]
    assert (shipped_dir("plugins") / "docker-approval.yaml").exists()
