"""The top line of every screen: the screens and their keys, the broker, the calls waiting per
agent and in all."""
from __future__ import annotations

from textual.content import Content
from textual.style import Style
from textual.widgets import Static

SCREENS = (("console", "1", "Console"), ("rules", "2", "Rules"), ("playground", "3", "Playground"),
           ("editor", "4", "Editor"), ("history", "5", "History"))

BROKER_LOOK = {"listening": ("●", "$text-success"), "starting": ("○", "$text-muted"),
               "failed": ("●", "$text-error"), "stopped": ("○", "$text-muted"), "off": ("○", "$text-muted"),
               "demo": ("●", "$text-success")}


class NavBar(Static):
    def __init__(self, current: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.current = current

    def on_mount(self) -> None:
        self._scheduled = False
        for name in ("pending_count", "broker_state", "broker_detail", "agent_counts"):
            self.watch(self.app, name, lambda _value: self._schedule(), init=False)
        self.redraw()

    def _schedule(self) -> None:
        """A flood changes the counts 200 times a second: draw once per frame."""
        if not self._scheduled:
            self._scheduled = True
            self.call_after_refresh(self._redraw_scheduled)

    def _redraw_scheduled(self) -> None:
        self._scheduled = False
        self.redraw()

    def redraw(self) -> None:
        width = self.size.width or 80
        app = self.app
        state = getattr(app, "broker_state", "off")
        detail = getattr(app, "broker_detail", "")
        count = getattr(app, "pending_count", 0)
        per_agent = getattr(app, "agent_counts", ())
        dot, dot_style = BROKER_LOOK.get(state, ("○", "$text-muted"))
        waiting = (f"{count} waiting ", "bold $text-warning") if count else ("nothing waiting ", "$text-muted")
        agents = Content.assemble(*((f"{name} {n} · ", "$text-muted") for name, n in per_agent)) \
            if len(per_agent) > 1 else Content("")
        # as much as fits: full titles, the counts per agent and the broker's address, then less
        for titles, broker, gaps, counts in ((True, True, True, True), (True, False, True, True),
                                             (True, False, True, False), (True, False, False, False),
                                             (False, False, True, True), (False, False, True, False)):
            left = self._tabs(titles, gaps)
            right = Content.assemble((f"{dot} ", dot_style), (f"{detail or state}  ", "$text-muted")) if broker \
                else Content.assemble((f"{dot} ", dot_style))
            right = Content.assemble(right, agents if counts else "", waiting)
            if left.cell_length + right.cell_length + 1 <= width:
                break
        gap = max(1, width - left.cell_length - right.cell_length)
        self.update(Content.assemble(left, " " * gap, right), layout=False)  # one line, always

    def _tabs(self, titles: bool, gaps: bool = True) -> Content:
        pieces: list[Content | tuple[str, str | Style]] = [(" ⛨ guardtui ", "bold $text-primary")]
        for mode, key, title in SCREENS:
            click = Style.from_meta({"@click": f"app.show({mode!r})"})
            style = "bold reverse $primary" if mode == self.current else "$text-muted"
            label = f" {key} {title} " if titles or mode == self.current else f" {key} "
            pieces.append(Content.assemble((label, style)).stylize(click))
            pieces.append((" " if gaps else "", ""))
        return Content.assemble(*pieces)

    def on_resize(self) -> None:
        self.redraw()
