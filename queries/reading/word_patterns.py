"""Word lists as patterns: a lexicon's words compiled into one regex alternation built as a trie,
and the lower-casing and lookup keys the value and time readers share."""

from __future__ import annotations

import re


def alt(words, bound: bool = True) -> str:
    """A regex matching any of the literal words, longest first, built as a trie (one branch per
    first character: fast in Python's engine); English words only as whole words when `bound`,
    a space matching any run of spaces. Read case-blind: words are lower-cased."""
    trie: dict = {}
    for w in {" ".join(w.lower().split()) for w in words if w.strip()}:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = bound and w[-1].isascii() and w[-1].isalnum()
    return _branches(trie, bound, True) if trie else "(?!)"


def first(words) -> str:
    """A lookahead for the first characters of words: a part of a long alternation fails fast."""
    return "(?=[" + "".join(sorted({re.escape(w[0].lower()) for w in words if w})) + "])"


def _branches(node: dict, bound: bool, top: bool = False) -> str:
    out = []
    for ch in sorted(c for c in node if c):
        head = r"\s+" if ch == " " else re.escape(ch)
        if top and bound and ch.isascii() and ch.isalnum():
            head += r"(?<![A-Za-z].)" if ch.isalpha() else r"(?<![A-Za-z]\d)"
        out.append(head + _branches(node[ch], bound))
    if "" in node:  # a word ends here: tried after the longer words through this node
        out.append(r"(?![A-Za-z])" if node[""] else "")
    return out[0] if len(out) == 1 and "" not in node else "(?:" + "|".join(out) + ")"


def lower(text: str) -> str:
    """text in lower case, index for index (the patterns are compiled case-blind by lower-casing
    their words and the text: Python's engine skips ahead much faster without re.I)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def key(word: str) -> str:
    """How a matched word is looked up in a lexicon map: lower case, single spaces."""
    return " ".join(word.lower().split())


def split_pair(pair: str) -> tuple[str, str, str]:
    """A lexicon verb pair of several words ('set up set up', 'turn on turned on') as (base, ' ',
    past): the base is the first half of the words."""
    words = pair.split()
    half = len(words) // 2
    return " ".join(words[:half]), " ", " ".join(words[half:])
