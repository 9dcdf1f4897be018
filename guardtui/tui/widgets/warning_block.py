"""The warning block above a call: `⚠  Destructive command — high blast radius`, the
reason on the next line, the radius coloured by how bad it is."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ...core.model import BlastRadius
from ..present import RADIUS_LABEL, Warning

RADIUS_STYLE = {
    BlastRadius.CRITICAL: "bold reverse $text-error",
    BlastRadius.HIGH: "bold $text-error",
    BlastRadius.MEDIUM: "bold $text-warning",
    BlastRadius.LOW: "bold $text-success",
    BlastRadius.UNKNOWN: "$text-muted",
}


def radius_badge(radius: BlastRadius) -> Content:
    return Content.assemble((RADIUS_LABEL[radius], RADIUS_STYLE[radius]))


class WarningBlock(Static):
    """Shows a `Warning`; hidden when there is none."""

    def show(self, warning: Warning | None) -> None:
        self.remove_class("-destructive", "-unrecognised", "-safe")
        self.display = warning is not None
        if warning is None:
            self.update("")
            return
        self.add_class(f"-{warning.kind}")
        heading = Content.assemble((f"{warning.icon}  {warning.heading}", "bold"))
        if warning.radius is not None:
            heading = Content.assemble(heading, (" — ", "bold"), radius_badge(warning.radius),
                                       (" blast radius", "bold"))
        body = Content.assemble(heading, "\n", (f"   {warning.reason}", "")) if warning.reason else heading
        self.update(body)
