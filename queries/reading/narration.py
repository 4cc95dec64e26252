"""Clauses that tell no act of their own, though a completion rule matches them.

- A retry told after the failure it repeats ([clause.retry]: 第一次指令超时了，又发了一次，这回空调已经切到26度;
  "it timed out, so I tried again"): the attempt at the step that failed, with no thing of its own. It is
  narration; the clause after it tells the result, and that is the claim. Read as a send ("发了") it asked
  for a send the turn never made.
- The rest of a noun phrase cut at a comma: coordinated modifiers ("you'll need a registered, insured
  vehicle"). The clause before ends in an article and one word, claims nothing, and this one is a short
  participle and its noun ("insured vehicle"): the participle describes the noun, it is no headline.
"""

from __future__ import annotations

import re
from dataclasses import replace

_COMMA = (",", "，")
# an article and the first modifier, the phrase going on after the comma
_OPEN_PHRASE = re.compile(r"\b(?:a|an|the|your|their|its)\s+[\w-]+$", re.I)
_SHORT = re.compile(r"\W*[\w-]+(?:\s+[\w-]+){1,2}\W*")


def reread(first, clauses: list, segments: list) -> list:
    out = list(clauses)
    for i in range(1, len(out)):
        if out[i].kind != "completion" or segments[i - 1].sentence != segments[i].sentence:
            continue
        text = segments[i].text
        failed_before = any(out[j].kind == "failure" for j in range(i) if segments[j].sentence == segments[i].sentence)
        if failed_before and first("retry", text) is not None:
            out[i] = replace(out[i], kind="other", action=None, object=None)
        elif (segments[i - 1].closer in _COMMA and out[i - 1].kind != "completion"
              and _OPEN_PHRASE.search(segments[i - 1].text) and _SHORT.fullmatch(text)
              and first("our_headline", text) is not None):
            out[i] = replace(out[i], kind="other")
    return out
