"""A tool's input as pretty, highlighted JSON (for tools that are neither shell nor files)."""
from __future__ import annotations

import json
from typing import Any, Mapping

from textual.highlight import highlight
from textual.widgets import Static


class InputView(Static):
    def show(self, tool_input: Mapping[str, Any]) -> None:
        text = json.dumps(dict(tool_input), indent=2, ensure_ascii=False, sort_keys=True, default=str)
        self.update(highlight(text, language="json"))
