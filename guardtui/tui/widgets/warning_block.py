"""The warning block above a call: `⚠  Installs packages — medium blast radius` (what the call
does, and how bad), the reason on the next line (indented under the heading, also when it
wraps), the radius and the bar coloured by how bad it is, as the queue's badge is."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
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


KINDS = frozenset({"-destructive", "-unrecognised", "-safe", *(f"-radius-{r.value}" for r in BlastRadius)})


class WarningBlock(Vertical):
    """Shows a `Warning`; hidden when there is none. Its classes: the kind, and the radius whose
    colour the bar takes (as the queue's badge does)."""

    def compose(self) -> ComposeResult:
        yield Static(classes="warning-heading")
        yield Static(classes="warning-reason")

    @property
    def plain(self) -> str:
        """The block as text: the heading, and the reason under it indented by three spaces."""
        heading, reason = (self.query_one(c, Static).visual for c in (".warning-heading", ".warning-reason"))
        lines = [getattr(heading, "plain", str(heading))]
        if self.query_one(".warning-reason", Static).display:
            lines.append("   " + getattr(reason, "plain", str(reason)))
        return "\n".join(lines)

    def show(self, warning: Warning | None) -> None:
        kept = {c for c in self.classes if c not in KINDS}
        wanted = kept | ({f"-{warning.kind}"} | ({f"-radius-{warning.radius.value}"} if warning.radius else set())
                         if warning is not None else set())
        if wanted != set(self.classes):  # one style update, and none when the kind stays the same
            self.set_classes(" ".join(sorted(wanted)))
        self.display = warning is not None
        heading, reason = self.query_one(".warning-heading", Static), self.query_one(".warning-reason", Static)
        if warning is None:
            heading.update("")
            reason.update("")
            return
        text = Content.assemble((f"{warning.icon}  {warning.heading}", "bold"))
        if warning.radius is not None:
            text = Content.assemble(text, (" — ", "bold"), radius_badge(warning.radius), (" blast radius", "bold"))
        heading.update(text)
        reason.update(warning.reason or "")
        reason.display = bool(warning.reason)
