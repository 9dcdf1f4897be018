"""Small drawing helpers the line-API widgets share."""
from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content
from textual.strip import Strip
from textual.style import Style


def line_strip(content: Content, width: int, style: Style) -> Strip:
    """One screen line: the content over `style`, cut or padded to `width` cells."""
    return Strip(content.render_segments(style)).crop_extend(0, width, style.rich_style)


def fit(text: str, width: int) -> str:
    """Cut to `width` cells with an ellipsis, then pad to exactly `width`."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        out, used = [], 0
        for ch in text:
            w = cell_len(ch)
            if used + w > width - 1:
                break
            out.append(ch)
            used += w
        text = "".join(out) + "…"
    return text + " " * max(0, width - cell_len(text))


def hanging(label: str, body: list[tuple[str, str]], indent: int, variables: dict[str, str]):
    """`label` then `body` ((text, style) pairs; styles may name theme variables as `$name`),
    every line of the body — its wrapped lines too — starting `indent` cells in: a hanging
    indent, drawn by a two-column grid (a Rich renderable: an OptionList's prompt, a Static)."""
    from rich.table import Table
    from rich.text import Text

    def style(spec: str) -> str:
        words = []
        for word in spec.split():
            value = variables.get(word[1:], "") if word.startswith("$") else word
            words.append(value if not word.startswith("$") or value.startswith("#") else "dim")  # `auto 60%`
        return " ".join(words)

    grid = Table.grid()
    grid.add_column(width=indent, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(Text(label, style=style("bold $text-accent")),
                 Text.assemble(*((text, style(spec)) for text, spec in body)))
    return grid


def fill_table(table, headers: list[str], rows: list[tuple[list[str | Content], str]],
               widest: int = 60) -> None:
    """Replace a DataTable's columns and rows; widths fitted to the text (DataTable cannot
    measure styled Content cells by itself)."""
    widths = [cell_len(h) for h in headers]
    for cells, _key in rows:
        for i, value in enumerate(cells):
            plain = value.plain if isinstance(value, Content) else str(value)
            widths[i] = min(widest, max(widths[i], cell_len(plain)))
    table.clear(columns=True)
    for header, width in zip(headers, widths):
        table.add_column(header, width=width)
    for cells, key in rows:
        table.add_row(*cells, key=key)


def set_virtual_height(widget, width: int, height: int, redraw: bool = True) -> None:
    """Resize a line-API widget's scrollable area without a layout pass (a queue of 1,000
    calls growing 200 times a second must not re-lay the whole screen each time); `redraw`
    False: what is shown did not change, only the scrollbar does."""
    from textual.geometry import Size
    from textual.widget import Widget

    size = Size(width, height)
    if widget.virtual_size != size:
        widget.set_reactive(Widget.virtual_size, size)
        widget._scroll_update(size)
    if redraw:
        widget.refresh()
