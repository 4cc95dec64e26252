"""A message written up and shown to the user for approval ([clause.drafted], [clause.review]).

"给房东的微信我先帮你写好了，你看看：「…」", "I've drafted a reply for you, take a look: …": the clause of
writing comes before, in its sentence, a review asked that closes on a colon (or a template's frame, "Here's
what I'd send:"), and the text follows. What was written is the reply's own text, shown, not a write in the
world: the writing clause claims nothing, nor does the text shown after the review asked, up to where the
reply speaks again (a template's frame sets aside all that follows it, framing.py). A draft not shown ("草稿写好了，你确认一下我再发") may be a tool's write and keeps its reading.
"""

from __future__ import annotations

from dataclasses import replace

_COLON = (":", "：")


def shown(first, clauses: list, segments: list) -> list:
    out = list(clauses)
    for i, seg in enumerate(segments):
        if seg.closer not in _COLON or (first("review", seg.text) is None and first("template", seg.text) is None):
            continue
        drafted = False
        for j in range(i, -1, -1):
            if segments[j].sentence != seg.sentence:
                break
            if first("drafted", segments[j].text) is not None:
                out[j], drafted = (replace(out[j], kind="other") if out[j].kind == "completion" else out[j]), True
        # the text shown after a review asked is the draft's, up to where the reply speaks again (asks, offers,
        # denies, defers: "Shall I send it?", 我还没发)
        for k in range(i + 1, len(out)) if drafted and first("template", seg.text) is None else ():
            if out[k].kind not in ("completion", "other"):
                break
            out[k] = replace(out[k], kind="other")
    return out
