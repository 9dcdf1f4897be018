"""The escape sequences the console writes (title, OSC 9 / 777, through tmux) and the transcript
reader (Claude Code, Codex and Gemini CLI formats; what it refuses to open)."""
from __future__ import annotations

import json
import os

from guardtui.tui.terminal import notification, title_sequence, which_notification
from guardtui.tui.transcript import MAX_CHARS, agent_context


def test_title_and_notifications_for_each_terminal():
    assert title_sequence("guardtui · 3 waiting") == "\x1b]2;guardtui · 3 waiting\x07"
    assert which_notification("auto", {"TERM": "foot"}) == "osc777"
    assert which_notification("auto", {"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert notification("off", "t", "b", {}) == ""
    assert notification("osc9", "Approval needed", "claude: rm -rf build", {}) == \
        "\x1b]9;Approval needed: claude: rm -rf build\x07"
    # inside tmux: wrapped for passthrough, its escapes doubled
    assert notification("osc9", "A", "b", {"TMUX": "/tmp/tmux-0/default,1,0"}) == "\x1bPtmux;\x1b\x1b]9;A: b\x07\x1b\\"


def test_a_command_cannot_break_out_of_the_sequence():
    sequence = notification("osc777", "Approval needed", "claude: echo \x07\x1b]2;pwned\x07; rm -rf x", {})
    assert sequence.count("\x07") == 1 and sequence.count("\x1b") == 1
    assert sequence.startswith("\x1b]777;notify;Approval needed;") and ";" not in sequence.split(";", 3)[3]


def test_claude_codex_and_gemini_transcripts(tmp_path):
    claude = tmp_path / "claude.jsonl"
    claude.write_text("\n".join(json.dumps(e) for e in [
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "first"}]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "before the call"},
                                                      {"type": "tool_use", "id": "toolu_9"}]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "after"}]}}]))
    assert agent_context(str(claude), "toolu_9").text == "before the call"
    assert agent_context(str(claude), "").text == "after"  # no id: the last thing it said
    codex = tmp_path / "rollout.jsonl"
    codex.write_text("\n".join(json.dumps(e) for e in [
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": "pushing the fix"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "call_id": "call_3", "name": "shell"}}]))
    assert agent_context(str(codex), "call_3").text == "pushing the fix"
    gemini = tmp_path / "chat.json"
    gemini.write_text(json.dumps({"messages": [{"type": "user", "content": "hi"},
                                               {"type": "gemini", "content": "running the tests"}]}))
    assert agent_context(str(gemini)).text == "running the tests"


def test_what_the_reader_refuses_and_caps(tmp_path):
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    assert "not a transcript" in agent_context(str(secret)).problem
    assert "not absolute" in agent_context("relative.jsonl").problem
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert "not a regular file" in agent_context(str(fifo)).problem  # never blocks on a pipe
    noise = tmp_path / "noise.jsonl"
    noise.write_text("not json\n" * 10)
    assert "no message from the agent" in agent_context(str(noise)).problem
    long = tmp_path / "long.jsonl"
    text = "x" * (MAX_CHARS * 3) + "\x1b[31m"
    long.write_text(json.dumps({"type": "assistant", "message": {"content": text}}))
    context = agent_context(str(long))
    assert context.cut and len(context.text) == MAX_CHARS and "\x1b" not in context.text
