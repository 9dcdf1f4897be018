"""A shell command, syntax-highlighted, with the segment that decided marked, and the
per-segment analysis under it."""
from __future__ import annotations

from textual.content import Content
from textual.highlight import highlight
from textual.widgets import Static

from ..present import VERDICT_MARK, Segment, char_span

VERDICT_STYLE = {"allow": "$text-success", "deny": "bold $text-error", "ask": "bold $text-warning",
                 "llm": "$text-muted", "flag": "$guard"}
MARK_STYLE = "bold underline on $error-muted"


def marked_command(command: str, segments: list[Segment]) -> Content:
    """`$ command` with bash highlighting and the deciding segment underlined on red."""
    code = highlight(command, language="bash") if command else Content("")
    for segment in segments:
        if segment.deciding:
            where = char_span(command, segment.span, segment.text)
            if where is not None:
                code = code.stylize(MARK_STYLE, where[0], where[1])
    return Content.assemble(("$ ", "$text-muted"), code)


def segment_lines(segments: list[Segment]) -> Content:
    """Two lines per judged part: mark, segment and radius; then why. The deciding one pointed at."""
    lines: list[Content] = [Content.styled("What bash would run, part by part:", "$text-muted")]
    for s in segments:
        pointer = ("▶ ", "bold $guard") if s.deciding else ("  ", "")
        via = f"  (via {s.via})" if s.via else ""
        lines.append(Content.assemble(
            pointer, (VERDICT_MARK.get(s.verdict, "?") + " ", VERDICT_STYLE.get(s.verdict, "")),
            (s.text, "bold" if s.deciding else ""), (via, "$text-muted"), ("  · " + s.radius, "$text-muted")))
        rule = f"  [{s.rule}]" if s.rule else ""
        lines.append(Content.assemble(("    " + s.reason, "" if s.deciding else "$text-muted"),
                                      (rule, "$text-muted")))
    return Content("\n").join(lines)


class CommandView(Static):
    """The command and its segments."""

    def show(self, command: str, segments: list[Segment]) -> None:
        body = marked_command(command, segments)
        if len(segments) > 1 or (segments and segments[0].via):
            body = Content.assemble(body, "\n\n", segment_lines(segments))
        elif segments and segments[0].text != command.strip():
            body = Content.assemble(body, "\n\n", segment_lines(segments))
        self.update(body)
