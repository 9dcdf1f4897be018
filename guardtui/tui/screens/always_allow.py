"""The "always allow" dialog: choose the scope — this exact call, a pattern it proposes
(editable), or an allow rule saved in a user plugin file. Under the pattern it says what else
the pattern would let through, with an example or two, as it is edited."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...broker.queue import PendingCall
from ...core.session import Approval, describe_approval
from ..present import agent_label, tilde
from ..render import hanging


@dataclass(frozen=True)
class AlwaysOption:
    kind: str  # exact | pattern | rule
    title: str
    detail: str
    approval: Approval | None
    disabled_reason: str = ""  # why it is not offered


@dataclass(frozen=True)
class AlwaysChoice:
    kind: str
    approval: Approval


class AlwaysAllowScreen(ModalScreen[AlwaysChoice | None]):
    BINDINGS = [
        Binding("escape", "dismiss_none", "Cancel"),
        Binding("1", "pick('exact')", "This call", show=False),
        Binding("2", "pick('pattern')", "Pattern", show=False),
        Binding("3", "pick('rule')", "Rule", show=False),
        Binding("e", "edit_pattern", "Edit pattern", show=False),
    ]

    def __init__(self, pending: PendingCall, options: list[AlwaysOption], home: str = "") -> None:
        super().__init__()
        self.pending = pending
        self.home = home
        self.options = {o.kind: o for o in options}
        pattern = self.options.get("pattern")
        self.pattern_value = pattern.approval.value if pattern and pattern.approval else ""

    def compose(self) -> ComposeResult:
        call = self.pending.call
        with Vertical(id="always-dialog", classes="dialog"):
            yield Static(Content.assemble(("Always allow", "bold"), ("  ", ""),
                                          (f"{agent_label(call)} · {call.tool}", "$text-muted")), classes="dialog-title")
            yield Static(tilde(call.summary(200), self.home), classes="dialog-call")
            items = []
            for number, kind in enumerate(("exact", "pattern", "rule"), 1):
                option = self.options.get(kind)
                if option is None:
                    continue
                body = [(option.title, "bold"), ("\n", ""),
                        (tilde(option.disabled_reason or option.detail, self.home), "$text-muted")]
                items.append(Option(hanging(str(number), body, 3, self.app.get_css_variables()), id=kind,
                                    disabled=bool(option.disabled_reason)))
            yield OptionList(*items, id="always-options")
            yield Static(Content.assemble(("Pattern for 2 and 3", "bold"), (" — a glob; it must match every part "
                                          "of a command that asks (e to edit)", "$text-muted")), classes="dialog-label")
            yield Input(self.pattern_value, placeholder="glob pattern, e.g. npm test*", id="always-pattern",
                        disabled="pattern" not in self.options or bool(self.options["pattern"].disabled_reason))
            yield Static(self._reach(self.pattern_value), id="always-reach", classes="dialog-reach")
            yield Static(Content.assemble(("enter", "bold"), (" choose  ", "$text-muted"), ("1 2 3", "bold"),
                                          (" pick  ", "$text-muted"), ("e", "bold"), (" edit pattern  ", "$text-muted"),
                                          ("esc", "bold"), (" cancel", "$text-muted")), classes="dialog-keys")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        for index in range(options.option_count):
            if not options.get_option_at_index(index).disabled:
                options.highlighted = index
                break

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def action_edit_pattern(self) -> None:
        field = self.query_one("#always-pattern", Input)
        if not field.disabled:
            field.focus()

    def action_pick(self, kind: str) -> None:
        option = self.options.get(kind)
        if option is None or option.disabled_reason or option.approval is None:
            self.app.bell()
            return
        approval = option.approval
        if kind in ("pattern", "rule"):  # the edited glob, within the approved call's blast radius
            value = self.query_one("#always-pattern", Input).value.strip() or approval.value
            approval = dataclasses.replace(approval, value=value)
        self.dismiss(AlwaysChoice(kind, approval))

    def _reach(self, value: str) -> Content:
        """What the pattern lets through besides this call (2 and 3)."""
        pattern = self.options.get("pattern")
        if pattern is None or pattern.approval is None:
            return Content("")
        approval = dataclasses.replace(pattern.approval, value=value.strip() or pattern.approval.value)
        return Content.assemble(("Lets through: ", "bold"), (describe_approval(approval), "$text-muted"))

    @on(Input.Changed, "#always-pattern")
    def _pattern_changed(self, event: Input.Changed) -> None:
        self.query_one("#always-reach", Static).update(self._reach(event.value))

    @on(OptionList.OptionSelected, "#always-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.action_pick(event.option.id)

    @on(Input.Submitted, "#always-pattern")
    def _pattern_submitted(self) -> None:
        self.action_pick("pattern")
