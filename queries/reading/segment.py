"""Cut a reply into clauses: CJK and ASCII punctuation, line breaks, bullets, emoji, markdown.

What is not the assistant's own statement is set aside first: fenced code blocks,
inline code, quote lines (`> ...`), asides in parentheses and quotations (“…”, "…", 「…」, 『…』) become a
neutral placeholder, so a quoted "已经设好了" or a logged "Reminder created" is
never read as a claim, while "Added “buy milk” to your list" keeps its shape.

A clause ends at a sentence end (。！？!?；;…, a line break, a full stop followed
by a space, not after an abbreviation), at a clause mark (，,：:、—–), at an emoji,
or before a contrastive conjunction (but, however, 但是, 不过...). Each clause
keeps its sentence number and the punctuation that closed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUOTE_PLACEHOLDER = "Q"
# inline code names a thing (a service, a host, a file) where it stands: it leaves a word, so that
# "`api-gateway` is now on v2" keeps its subject and is not read as a question "is now on v2"
CODE_PLACEHOLDER = "X"
ASIDE = "\u2063"  # invisible separator: where an aside stood, counted per clause and then removed

_FENCED = re.compile(r"```.*?(```|\Z)|~~~.*?(~~~|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
_QUOTE_LINE = re.compile(r"^\s*>.*$", re.M)
# a quoted email: its header lines ("Subject: Booking confirmed", 主题：…), and all below an attribution or a
# forwarded-message rule ("On Tue, Ana wrote:", "-----Original Message-----"): someone else's words
_EMAIL_HEADER = re.compile(r"^[ \t]*(?:subject|from|to|cc|bcc|sent|fwd?|主题|发件人|收件人|抄送)[ \t]*[:：].*$", re.M | re.I)
_EMAIL_BELOW = re.compile(r"^[^\n]*(?:\bwrote:|写道[:：]|-{3,}\s*(?:original message|forwarded message|原始邮件|转发的邮件)\s*-{3,})[ \t]*$.*",
                          re.M | re.I | re.S)
_QUOTED = re.compile(r"“[^”\n]{0,300}”|「[^」\n]{0,300}」|『[^』\n]{0,300}』|‘[^’\n]{0,300}’"
                     r"|\"[^\"\n]{0,300}\"|《[^》\n]{0,100}》")
# asides in parentheses: "(change of plan, airline canceled flight, or other reasons)"
_PAREN = re.compile(r"\([^()\n]{0,200}\)|（[^（）\n]{0,200}）")
_PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9_])" + QUOTE_PLACEHOLDER + r"(?![A-Za-z0-9_])")  # 内容是Q counts
# a markdown table: its rule line goes, each row is read as its cells one after another ("| Refund |
# Issued |" says "Refund: Issued", a headline as "Refund issued" is)
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)+\|?[ \t]*$", re.M)
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*\|.*?)\|?[ \t]*$", re.M)
_CELL_SEP = re.compile(r"[ \t]*\|[ \t]*")
# a ticked line lists a thing done ("✅ Refund to card ending 4471", "☑️ 退款 128 元"): read as "Done: …";
# a step or a tip ticked ("✅ Step 1: open the app") is an instruction
_TICKED = re.compile(r"^([ \t]*(?:[-*+•][ \t]+)?)[✅✔☑✓]\uFE0F?[ \t]*+(?!(?:step|tip|note|next|todo|to-do)\b|第.步|步骤|提示)", re.M | re.I)
_MARKDOWN = re.compile(r"^\s*([-*+•·]|\d{1,3}[.)、]|#{1,6})\s+", re.M)
_EMPHASIS = re.compile(r"\*\*|__|~~")
_EMOJI = "\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D"
# sentence ends; a '.' only when a space or the end follows (8.5, 3.14, a.m. stay whole)
# (a wave dash closes a Chinese sentence as ！ does, 帮您办好了～还需要…吗; between digits it is a range, 3～5 天)
_SENTENCE_END = re.compile(r"[。！？!?；;…\n]+|\.(?=\s|$)|[" + _EMOJI + r"]+|(?<!\d)～+|(?<=[\u3400-\u9fff])~+(?!\d)")
# (a digit after an ASCII comma or colon is a thousands group or a clock, 1,200 and 10:30; after a
# full-width comma it begins the next clause: 搞定了，60 点已到账)
_CLAUSE_END = re.compile(r"，+|[，,：:、—–]+(?!\d)|(?<!\d)[:：](?=\d)|\s[-–]\s")


@dataclass(frozen=True)
class Clause:
    text: str
    sentence: int
    index: int
    closer: str  # the punctuation that ended it ('' at the end of the text)
    quotes: tuple[str, ...] = ()  # the quotations set aside in this clause, in order (their placeholders' words)
    asides: tuple[str, ...] = ()  # the parenthesised asides set aside in this clause ("（12 月 3 日）")
    opener: str = ""  # the conjunction the clause was cut after ("but", 但是), lower-cased; '' if none


def set_aside(text: str, quotes: list[str] | None = None, asides: list[str] | None = None) -> str:
    """The reply without code, quote lines and the words inside quotations (collected in `quotes`)
    and parentheses (collected in `asides`, each leaving an ASIDE mark where it stood)."""
    text = _FENCED.sub("\n", text)
    if "|" in text:  # (most replies hold no table: skip its two passes)
        text = _TABLE_RULE.sub("", text)
        text = _TABLE_ROW.sub(lambda m: ": ".join(c for c in _CELL_SEP.split(m.group(1).strip(" \t|")) if c), text)
    text = _INLINE.sub(" " + CODE_PLACEHOLDER + " ", text)
    text = _QUOTE_LINE.sub("", text)
    text = _TICKED.sub(r"\1Done: ", text)
    if "\n" in text and (":" in text or "：" in text or "---" in text):  # (a quoted email has lines and colons)
        text = _EMAIL_HEADER.sub("", _EMAIL_BELOW.sub("", text))
    if quotes is not None:
        quotes.extend(m.group(0)[1:-1] for m in _QUOTED.finditer(text))
    text = _QUOTED.sub(QUOTE_PLACEHOLDER, text)
    if asides is not None:
        asides.extend(m.group(0)[1:-1] for m in _PAREN.finditer(text))
        text = _PAREN.sub(" " + ASIDE + " ", text)
    else:
        text = _PAREN.sub(" ", text)
    text = _MARKDOWN.sub("", text)
    return _EMPHASIS.sub("", text)


class Segmenter:
    def __init__(self, conjunctions_zh: list[str], conjunctions_en: list[str], abbreviations: list[str]):
        zh = "|".join(sorted(map(re.escape, conjunctions_zh), key=len, reverse=True))
        en = "|".join(sorted(map(re.escape, conjunctions_en), key=len, reverse=True))
        parts = []
        if en:
            parts.append(rf"\s+(?:{en})\b")
        if zh:
            parts.append(rf"(?:{zh})(?=[^\W\d_])")
        self._conj = re.compile("|".join(parts), re.I) if parts else None
        self._abbrev = tuple(a.lower() + "." for a in abbreviations)

    def _sentences(self, text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        pos = 0
        carry = ""
        for m in _SENTENCE_END.finditer(text):
            piece = carry + text[pos:m.start()]
            closer = m.group(0)
            if closer == "." and piece.rstrip().lower().endswith(tuple(a[:-1] for a in self._abbrev)):
                words = piece.rstrip().split()
                if words and (words[-1].lower() + ".") in self._abbrev:
                    carry = piece + "."
                    pos = m.end()
                    continue
            out.append((piece, closer.strip()[:1] if closer.strip() else "\n"))
            carry = ""
            pos = m.end()
        tail = carry + text[pos:]
        if tail.strip():
            out.append((tail, ""))
        return out

    def clauses(self, reply: str) -> list[Clause]:
        quoted: list[str] = []
        aside: list[str] = []
        text = set_aside(reply, quoted, aside)
        pending = iter(quoted)
        pending_asides = iter(aside)
        result: list[Clause] = []
        for s_no, (sentence, closer) in enumerate(self._sentences(text)):
            pieces = []
            pos = 0
            for m in _CLAUSE_END.finditer(sentence):
                pieces.append((sentence[pos:m.start()], m.group(0).strip()[:1] or ","))
                pos = m.end()
            pieces.append((sentence[pos:], closer))
            for piece, end in pieces:
                for sub, opener in self._split_conjunctions(piece):
                    asides_here = tuple(next(pending_asides, "") for _ in range(sub.count(ASIDE)))
                    sub = sub.replace(ASIDE, " ")
                    if sub.strip(" \t\r\n.,，。"):
                        here = tuple(next(pending, "") for _ in _PLACEHOLDER.findall(sub))
                        result.append(Clause(re.sub(r"\s{2,}", " ", sub.strip()), s_no, len(result), "", here,
                                             asides_here, opener))
                    else:
                        for _ in _PLACEHOLDER.findall(sub):
                            next(pending, "")
                if result and not (end == "\n" and result[-1].closer in (":", "：") and not piece.strip()):
                    # (a colon closing a line stays its closer: "just set:\n`status = …`", "Booked:\n- …")
                    last = result[-1]
                    result[-1] = Clause(last.text, last.sentence, last.index, end, last.quotes, last.asides, last.opener)
        return result

    def _split_conjunctions(self, piece: str) -> list[tuple[str, str]]:
        """The piece cut before each conjunction, each part with the conjunction that opened it ('' for the first)."""
        if self._conj is None:
            return [(piece, "")]
        out, pos, opener = [], 0, ""
        for m in self._conj.finditer(piece):
            if m.start() > pos:
                out.append((piece[pos:m.start()], opener))
            pos, opener = m.end(), m.group(0).strip().lower()
        out.append((piece[pos:], opener))
        return out
