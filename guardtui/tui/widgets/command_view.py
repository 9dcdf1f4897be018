"""A shell command, syntax-highlighted, with the segment that decided marked, and the
per-segment analysis under it (each reason indented under its part, also when it wraps)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.highlight import highlight
from textual.widgets import Static

from ..present import VERDICT_MARK, Segment, char_span

VERDICT_STYLE = {"allow": "$text-success", "deny": "bold $text-error", "ask": "bold $text-warning",
                 "llm": "$text-muted", "flag": "$guard"}
MARK_STYLE = "bold underline on $error-muted"
SEGMENTS_HEADING = "What bash would run, part by part:"


def marked_command(command: str, segments: list[Segment]) -> Content:
    """`$ command` with bash highlighting and the deciding segment underlined on red."""
    code = highlight(command, language="bash") if command else Content("")
    for segment in segments:
        if segment.deciding:
            where = char_span(command, segment.span, segment.text)
            if where is not None:
                code = code.stylize(MARK_STYLE, where[0], where[1])
    return Content.assemble(("$ ", "$text-muted"), code)


def segment_head(s: Segment) -> Content:
    """A judged part's first line: pointer if it decided, mark, the part, how it was reached, radius."""
    pointer = ("▶ ", "bold $text-error") if s.deciding else ("  ", "")
    via = f"  (via {s.via})" if s.via else ""
    return Content.assemble(pointer, (VERDICT_MARK.get(s.verdict, "?") + " ", VERDICT_STYLE.get(s.verdict, "")),
                            (s.text, "bold" if s.deciding else ""), (via, "$text-muted"),
                            ("  · " + s.radius, "$text-muted"))


def segment_reason(s: Segment) -> Content:
    rule = f"  [{s.rule}]" if s.rule else ""
    return Content.assemble((s.reason, "" if s.deciding else "$text-muted"), (rule, "dim $text-muted"))


def shows_segments(command: str, segments: list[Segment]) -> bool:
    """Parts are worth listing when there are several, or the one judged is not the command itself."""
    return len(segments) > 1 or bool(segments and (segments[0].via or segments[0].text != command.strip()))


class CommandView(Vertical):
    """The command and its segments."""

    def compose(self) -> ComposeResult:
        yield Static(classes="command-line")

    @property
    def command_content(self) -> Content:
        return self.query_one(".command-line", Static).visual

    @property
    def plain(self) -> str:
        """What the view says, as text: the reasons indented by four spaces under their parts."""
        lines = []
        for child in self.query_children(Static):
            text = getattr(child.visual, "plain", str(child.visual))
            lines.append("    " + text if child.has_class("segment-reason") else text)
        return "\n".join(lines)

    def show(self, command: str, segments: list[Segment], with_command: bool = True) -> bool:
        """Show the command (unless it is shown elsewhere) and its parts; False: nothing to show."""
        line = self.query_one(".command-line", Static)
        line.display = with_command
        line.update(marked_command(command, segments))
        for child in list(self.query_children(Static)):
            if not child.has_class("command-line"):
                child.remove()
        if not shows_segments(command, segments):
            return with_command
        parts: list[Static] = [Static(Content.styled(SEGMENTS_HEADING, "$text-muted"), classes="segments-heading")]
        for s in segments:
            parts.append(Static(segment_head(s), classes="segment-head"))
            parts.append(Static(segment_reason(s), classes="segment-reason"))
        self.mount_all(parts)
        return True
