"""Text shown literally in Markdown: ``plain`` escapes what Streamlit's Markdown would render (the pages reach it as
``ui.plain``; ``app.state``'s link warning uses it too)."""

from __future__ import annotations

import re
from typing import Any

_INLINE = re.compile(r"([\\`*_\[\]<>~$|&@])")  # emphasis, code, links / images, html, strikethrough, math, tables
_LINE_START = re.compile(r"^([ \t]*\d*)([#>+=-]|(?<=\d)[.)])", re.MULTILINE)  # headings, quotes, lists, setext underlines
_AUTOLINK = re.compile(r"(?i)(www)\.|:(?=//)")  # bare URLs that GitHub-flavoured Markdown would turn into links


def plain(text: Any) -> str:
    """``text`` escaped for any Markdown element (st.markdown, captions, alerts, labels): it shows literally, so a
    model reply or a file's content can never render an image, a link, HTML, a heading or emphasis."""
    text = _INLINE.sub(r"\\\1", str(text))
    text = _AUTOLINK.sub(lambda m: f"{m.group(1)}\\." if m.group(1) else "\\:", text)
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
