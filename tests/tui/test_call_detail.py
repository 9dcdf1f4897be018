"""The selected call in full: warning block, highlighted command with the deciding segment
marked, per-segment analysis, diffs for file tools, pretty JSON for the rest."""
from __future__ import annotations

from guardtui.core.model import ToolCall
from guardtui.tui.widgets.call_detail import CallDetail
from guardtui.tui.widgets.command_view import MARK_STYLE, CommandView
from guardtui.tui.widgets.file_diff import FileDiff
from guardtui.tui.widgets.input_view import InputView
from guardtui.tui.widgets.warning_block import WarningBlock

from .conftest import CLAUDE_SESSION, bash, screen_text, selected, submit_direct, wait_until, write_files


async def show(app, pilot, call: ToolCall):
    submit_direct(app, call)
    await wait_until(pilot, lambda: selected(app) is not None)
    await pilot.pause()
    return app.screen.query_one(CallDetail)


def text_of(widget) -> str:
    if isinstance(widget, WarningBlock):
        return widget.plain
    return widget.visual.plain if hasattr(widget.visual, "plain") else str(widget.render())


async def test_a_destructive_command_shows_the_warning_block_and_the_marked_segment(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = await show(app, pilot, bash("ls && rm -rf build; echo done"))
        warning = detail.query_one(WarningBlock)
        assert warning.has_class("-destructive")
        assert text_of(warning).splitlines() == ["⚠  Destructive command — medium blast radius",
                                                 "   rm -rf build recursively deletes a path in the project"]
        view = detail.query_one(CommandView)
        content = view.command_content
        assert content.plain.startswith("$ ls && rm -rf build; echo done")
        marked = [content.plain[s.start:s.end] for s in content.spans if s.style == MARK_STYLE]
        assert marked == ["rm -rf build"]
        lines = view.plain.splitlines()
        assert any(line.startswith("▶ ? rm -rf build") for line in lines)
        assert any(line.startswith("  ✓ ls") for line in lines)
        assert any(line.startswith("  ✓ echo done") for line in lines)
        # each reason sits under its part, indented, also on the screen where it wraps
        deciding = lines.index(next(line for line in lines if line.startswith("▶ ? rm -rf build")))
        assert lines[deciding + 1].startswith("    rm -rf build recursively deletes")
        text = screen_text(app)
        assert "Bash  claude 1 · 6b58e1c2" in text and "rule dangerous-shell/fs.rm" in text
        # the decision first: the command, then the answer keys, then the rest
        assert text.index("$ ls && rm -rf build; echo done") < text.index("y allow once") < text.index("⚠")
        await app.queue.close()


async def test_an_unrecognised_command_does_not_cry_wolf(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 40)) as pilot:
        app.engine.analyzer.command_exists = lambda name: True
        detail = await show(app, pilot, bash("shopctl reindex --all"))
        warning = detail.query_one(WarningBlock)
        assert warning.has_class("-unrecognised")
        assert text_of(warning).splitlines()[0] == "⚠  Unrecognised command — not classified as safe"
        assert "Destructive" not in screen_text(app)
        await app.queue.close()


def test_the_read_only_wording():
    from guardtui.core.model import BlastRadius, Decision, Verdict
    from guardtui.tui.present import warning_for

    safe = warning_for(bash("ls"), Decision(Verdict.ALLOW, "ls only reads", "default", BlastRadius.LOW, "read-only"))
    assert (safe.kind, safe.text) == ("safe", "✓  Read-only command — safe")
    high = warning_for(bash("curl x | sh"), Decision(Verdict.ASK, "remote script", "r", BlastRadius.HIGH, "exec"))
    assert high.text == "⚠  Risky command — high blast radius"
    # words by what the call does, not "destructive" for everything that asks
    for command, category, heading in (("npm install lodash", "package", "Installs packages"),
                                       ("./deploy.sh --env staging", "deploy", "Deploys"),
                                       ("curl -o x https://example.com", "network", "Network access"),
                                       ("rm -rf build", "fs-delete", "Destructive command")):
        words = warning_for(bash(command), Decision(Verdict.ASK, "r", "r", BlastRadius.MEDIUM, category))
        assert words.text == f"⚠  {heading} — medium blast radius"


async def test_write_edit_and_multiedit_show_what_would_change_on_disk(console, tmp_path):
    project = tmp_path / "proj"
    write_files(project, {"src/app.py": "import os\n\nDEBUG = False\nprint('hi')\n", ".env": "KEY=1\n"})
    app = console(broker=False)
    async with app.run_test(size=(120, 40)) as pilot:
        calls = [
            ToolCall("Edit", {"file_path": str(project / ".env"), "old_string": "KEY=1", "new_string": "KEY=2"},
                     str(project), agent="claude", session=CLAUDE_SESSION),
            ToolCall("Write", {"file_path": "/home/user/notes/motd", "content": "hello\n"}, str(project),
                     agent="claude", session=CLAUDE_SESSION),
            ToolCall("MultiEdit", {"file_path": "/home/user/notes/extra", "edits": [
                {"old_string": "a", "new_string": "b"}]}, str(project), agent="claude", session=CLAUDE_SESSION),
        ]
        for call in calls:
            submit_direct(app, call)
        await wait_until(pilot, lambda: len(app.queue) == 3)
        await pilot.pause()
        detail = app.screen.query_one(CallDetail)
        diff = detail.query_one(FileDiff)
        assert diff.display and not detail.query_one(CommandView).display
        plain = text_of(diff)
        assert "-KEY=1" in plain and "+KEY=2" in plain and "+1 −1" in plain
        await pilot.press("j")
        await pilot.pause()
        plain = text_of(detail.query_one(FileDiff))
        assert "notes/motd" in plain and "+hello" in plain and "new file" in plain
        await pilot.press("j")
        await pilot.pause()
        assert "file not on disk" in text_of(detail.query_one(FileDiff))
        await app.queue.close()


async def test_other_tools_show_their_input_as_pretty_json(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 40)) as pilot:
        call = ToolCall("mcp__github__create_issue", {"repo": "acme/shop", "title": "Bug", "labels": ["bug"]},
                        "/home/user/project", agent="claude", session=CLAUDE_SESSION)
        detail = await show(app, pilot, call)
        view = detail.query_one(InputView)
        assert view.display
        assert text_of(view) == '{\n  "labels": [\n    "bug"\n  ],\n  "repo": "acme/shop",\n  "title": "Bug"\n}'
        warning = text_of(detail.query_one(WarningBlock))  # a known MCP tool: judged by what it does
        assert warning.startswith("⚠  Changes data — medium blast radius") and "GitHub create_issue changes something" in warning
        await app.queue.close()


async def test_the_countdown_and_age_follow_the_clock(console, clock):
    app = console(broker=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await show(app, pilot, bash("rm -rf build"))
        assert "waiting 0s" in screen_text(app) and "3m00 left" in screen_text(app)
        clock.advance(75)
        await pilot.pause(1.2)  # the console ticks once a second
        text = screen_text(app)
        assert "waiting 1m15" in text and "1m45 left" in text
        await app.queue.close()


async def test_a_long_diff_scrolls_with_shift_arrows(console, tmp_path):
    project = tmp_path / "p"
    write_files(project, {"big.txt": "".join(f"line {i}\n" for i in range(200))})
    app = console(broker=False)
    async with app.run_test(size=(80, 24)) as pilot:
        call = ToolCall("Write", {"file_path": "/srv/big.txt", "content": "".join(f"row {i}\n" for i in range(200))},
                        str(project), agent="claude", session=CLAUDE_SESSION)
        detail = await show(app, pilot, call)
        assert detail.scroll_y == 0
        await pilot.press("shift+down", "shift+down")
        await pilot.pause()
        assert detail.scroll_y > 0
        await app.queue.close()
