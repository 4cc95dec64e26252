"""Stored text shown as text: data never reaches a page as Markdown, HTML, an image, a link,
LaTeX or a Streamlit directive (`:red[...]`, `:material/...:`).

Streamlit renders every string given to st.markdown, st.caption, st.info and their kin as
Markdown, so any value that came from a trace passes through `md()` first: every ASCII
punctuation character is backslash-escaped (CommonMark lets any of them be escaped, and an
escaped one is always a literal), and control codes are dropped.
"""

from __future__ import annotations

import re

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def plain(value) -> str:
    """The value as one line of plain text, control codes removed."""
    if value is None:
        return "—"
    try:
        import pandas as pd

        if not isinstance(value, (list, dict)) and pd.isna(value):
            return "—"
    except (TypeError, ValueError):
        pass
    return _CONTROL.sub("", str(value)).replace("\n", " ").replace("\t", " ")


def md(value) -> str:
    """`value` as Markdown that renders exactly as the characters it holds."""
    return _PUNCT.sub(r"\\\1", plain(value))


_DOC_MARKUP = re.compile(r"([\\`*\[\]<>|$~])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|(?<=[A-Za-z]):(?=//)|(?i:(?<=www))\.")


def md_doc(value) -> str:
    """`value` for a Markdown file people read too (the weekly report): only what could make
    markup is escaped: emphasis and code marks, link and image brackets, HTML, table pipes,
    LaTeX dollars, strike-through, an underscore that is not inside a word, and the `://` or
    `www.` of an autolink. Text such as create_reminder: 12.5% (z = 6.3) stays as it is."""
    if value is None:
        return ""
    return _DOC_MARKUP.sub(lambda m: "\\" + m.group(0), plain(value))


def md_block(value) -> str:
    """Like md(), keeping line breaks (for a reply of several lines)."""
    if value is None:
        return "—"
    lines = _CONTROL.sub("", str(value).replace("\t", " ")).split("\n")
    return "  \n".join(_PUNCT.sub(r"\\\1", line) for line in lines) or "—"
