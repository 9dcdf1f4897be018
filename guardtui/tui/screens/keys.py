"""Keys every screen shares: j/k/g/G move in a table or a list as the arrows and home/end do,
and esc leaves a text field (the footer says so while one has the focus), after which 1–5
switch screens — a field keeps its text."""
from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input, OptionList, TextArea

MOVE_KEYS = [
    Binding("j", "move(1)", "Down", show=False),
    Binding("k", "move(-1)", "Up", show=False),
    Binding("g", "move_end(0)", "First", show=False),
    Binding("G", "move_end(1)", "Last", show=False),
]
LEAVE_FIELD = Binding("escape", "leave_field", "Leave field", key_display="esc")


def in_text_field(screen: Screen) -> bool:
    return isinstance(screen.focused, (Input, TextArea))


class SharedKeys:
    """Mixed into a Screen: j/k/g/G for its focused table or list, and the esc key's footer line."""

    def action_move(self, delta: int) -> None:
        widget = self.focused  # type: ignore[attr-defined]
        if isinstance(widget, DataTable):
            (widget.action_cursor_down if delta > 0 else widget.action_cursor_up)()
        elif isinstance(widget, OptionList):
            (widget.action_cursor_down if delta > 0 else widget.action_cursor_up)()

    def action_move_end(self, last: int) -> None:
        widget = self.focused  # type: ignore[attr-defined]
        if isinstance(widget, DataTable) and widget.row_count:
            widget.move_cursor(row=widget.row_count - 1 if last else 0)
        elif isinstance(widget, OptionList) and widget.option_count:
            widget.highlighted = widget.option_count - 1 if last else 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_field":
            return in_text_field(self)  # type: ignore[arg-type]
        if action in ("move", "move_end"):
            return not in_text_field(self)  # type: ignore[arg-type]
        return True
