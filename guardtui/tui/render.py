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
