"""What a Write / Edit / MultiEdit would change on disk."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ..changes import FileChange
from ..present import short_path

LINE_STYLE = {"+": "$text-success", "-": "$text-error", "@": "$text-accent", " ": "$text-muted"}


class FileDiff(Static):
    def show(self, change: FileChange, home: str = "") -> None:
        head = Content.assemble((short_path(change.path, home), "bold"), "  ",
                                (f"+{change.added}", "$text-success"), " ",
                                (f"−{change.removed}", "$text-error"))
        if change.note:
            head = Content.assemble(head, (f"  ({change.note})", "$text-muted italic"))
        lines = [Content.assemble((text, LINE_STYLE.get(kind, ""))) for kind, text in change.lines]
        self.update(Content("\n").join([head, *lines]))
