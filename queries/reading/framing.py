"""Clauses framed by the clause before them as someone else's words or a state read.

- A template, a draft or a sample the reply offers ("Here's a message you can send:", 模板：,
  可以这样回复：) frames what follows as text for the user to use: nothing after it is the
  assistant's own statement (a draft saying "I've cancelled my subscription" is the user's to send).
- A status read and then told after a colon ("Your order status shows: Cancelled.", 查询结果：已退款)
  frames the status as information: a bare completion right after it is a state read, not a claim;
  after a comma (工单 #5521 显示，师傅已上门修好，工单已被关闭), from a clause claiming nothing itself, the rest
  of its sentence is what it shows, except what the reply says it did itself ("No conflicts came back, and
  I've opened the new matter": [clause.our_doing]).
- A condition opening a sentence ("Once it's done, you'll get a text", 如果明天下雨，我早上七点提醒你)
  governs the reminder promised after its comma: a promise on a condition is made only if it holds.
  (Other claims after a condition keep their own clause's reading: "Since you asked, I've moved it".)
- A clause that goes on with an offer or with another party's doing in the same sentence, its subject
  the thing or the person just named ([clause.goes_on]: "I can put a hold on it — it's held for 24
  hours", "the airline already moved you, and you're in 22C") says more of that clause: the offered
  thing is offered, the other party's doing theirs.
- The reply catching itself ([clause.self_catch]: "I haven't actually placed the booking") is a failure
  about no one thing: it takes back every claim before it, whatever word it uses for the thing.
- A note's label closing on a colon ([clause.note_label]: 备注：, "Note:", "Comment:") frames the rest of
  its line as the text a write stored (备注：已安排补发配件，快递单号稍后会短信通知你): content, not another claim.
- A state right before, in its sentence, a clause saying the thing has nowhere to go or cannot go in
  ([clause.blocked]: "November's books are closed, so the $75 credit has nowhere to land", 被锁住了，
  这批货放不进去) is the reason it could not be done: a state that held already, and the clause after it
  admits the thing not done. With the reply as its doer ([clause.our_doing]) it stays a claim.
- A reminder's promise whose doer is another party ([clause.others_act]: 提交后航司会短信通知你结果, "the
  pharmacy will text you") is that party's future: the promise reading needs the reply itself as the doer.
  So is one with no subject of its own right after such a clause in its sentence (你签完之后物业会盖章，
  钥匙交接时间会短信通知你); with the reply named (我会短信提醒你) it is the reply's promise.
- A claim with no subject of its own ([clause.no_subject]: 把…, "and pushed …") going on in its sentence from a
  clause, itself no claim, whose subject is another party ([clause.others_subject]: 快递公司那边运力不足，把上门时间顺延
  到了 12月3日) is that party's doing: a report, not the reply's claim; with the reply named it stays a claim.
"""

from __future__ import annotations

from dataclasses import replace

from . import attempts, drafts, narration, proposals, retraction

_COLON = (":", "：")
_COMMA = (",", "，")


class Framing:
    """Which clauses frame what follows; each distinct clause text is matched once (texts recur)."""

    def __init__(self, first):
        self._first = first  # the reader's rule match, first(kind, text)
        self._seen: dict[str, tuple[bool, bool, int, bool, bool, bool, bool, bool]] = {}

    def _frames(self, text: str) -> tuple[bool, bool, int, bool, bool, bool, bool, bool]:
        """(opens a template, reads a status, where a correction word ends or -1, opens with a condition,
        goes on with the clause before it, catches itself, labels a note, names another party as doer)."""
        hit = self._seen.get(text)
        if hit is None:
            fix = self._first("correction", text)
            cond = self._first("conditional", text)
            hit = (self._first("template", text) is not None, self._first("status_read", text) is not None,
                   fix.end() if fix is not None else -1, cond is not None and not text[:cond.start()].strip(" \t*-•"),
                   self._first("goes_on", text) is not None, self._first("self_catch", text) is not None,
                   self._first("note_label", text) is not None, self._first("others_act", text) is not None)
            if len(self._seen) < 200_000:
                self._seen[text] = hit
        return hit

    def correction_end(self, text: str) -> int:
        """Where the correction word opening text ends ("correction, the 7:40"), or -1."""
        return self._frames(text)[2]

    def _ours(self, text: str) -> bool:
        """The reply as the doer: named ([clause.our_doing]) or a bare past verb opening ([clause.our_headline])."""
        return self._first("our_doing", text) is not None or self._first("our_headline", text) is not None

    def reframe(self, clauses: list, segments: list) -> list:
        """The clause readings with framed ones re-kinded; then a consent asked for a promise (proposals.py), an
        attempt's obstacle (attempts.py), a draft shown (drafts.py), a correction that takes back (retraction.py), a retry or a modifier cut
        at a comma (narration.py)."""
        out = proposals.propose(self._first, self._reframe(clauses, segments), segments)
        out = attempts.obstruct(self._first, self._ours, out, segments)  # an attempt, then what stopped it
        out = drafts.shown(self._first, out, segments)  # a message written up and shown for approval
        return narration.reread(self._first, retraction.withdraw(self._first, out, segments), segments)

    def _reframe(self, clauses: list, segments: list) -> list:
        out = list(clauses)
        for i, seg in enumerate(segments):
            template, status, _, condition, _, caught, note, others = self._frames(seg.text)
            # (a promise with no subject of its own goes on with the other party of the clause before it in its
            # sentence: 你签完之后物业会盖章，钥匙交接时间会短信通知你)
            others = others or (i > 0 and segments[i - 1].sentence == seg.sentence and self._frames(segments[i - 1].text)[7]
                                and not self._ours(seg.text))
            if others and out[i].kind == "completion" and (out[i].action, out[i].object) == ("create", "reminder"):
                out[i] = replace(out[i], kind="future")  # another party will tell the user: not the reply's promise
            if (i > 0 and out[i].kind == "completion" and segments[i - 1].sentence == seg.sentence
                    and out[i - 1].kind != "completion" and self._first("others_subject", segments[i - 1].text) is not None and not self._ours(segments[i - 1].text)
                    and self._first("no_subject", seg.text) is not None and not self._ours(seg.text)):
                out[i] = replace(out[i], kind="pre_existing")  # 快递公司那边运力不足，把上门时间顺延到了…: that party's doing
            if note and seg.closer in _COLON:  # the rest of a note's line is what the write stored
                for k in range(i + 1, len(out)):
                    if segments[k].sentence != seg.sentence:
                        break
                    out[k] = replace(out[k], kind="other", retracts=False, admits=False)
            if caught:
                out[i] = replace(out[i], kind="failure", action=None, object=None, retracts=True, admits=True)
            if seg.closer in _COLON and self._first("instruction", seg.text) is not None:
                # a bare instruction closing on a colon ("just set:", "simply run:"): the user's step, and
                # what follows is what the user types
                out[i], template = replace(out[i], kind="other", retracts=False, admits=False), True
            if template and (seg.closer in _COLON or i == len(segments) - 1 or segments[i + 1].sentence != seg.sentence):
                return out[:i + 1] + [replace(c, kind="other", retracts=False, admits=False) for c in out[i + 1:]]
            if status and seg.closer in _COLON:
                out[i + 1:i + 2] = [replace(c, kind="pre_existing") for c in out[i + 1:i + 2]
                                    if c.kind == "completion" and segments[i + 1].sentence == seg.sentence] or out[i + 1:i + 2]
            elif status and seg.closer in _COMMA and out[i].kind == "other":  # 工单显示，师傅已上门修好，工单已关闭: the sentence is what it shows
                for k in range(i + 1, len(out)):
                    if segments[k].sentence != seg.sentence:
                        break
                    # (not the reply's own doing: "No conflicts came back, and I've opened the new matter")
                    if out[k].kind == "completion" and not self._ours(segments[k].text):
                        out[k] = replace(out[k], kind="pre_existing")
            if (condition and i + 1 < len(out) and segments[i + 1].sentence == seg.sentence
                    and out[i + 1].kind == "completion" and (out[i + 1].action, out[i + 1].object) == ("create", "reminder")):
                out[i + 1] = replace(out[i + 1], kind="conditional")
            if (i > 0 and out[i].kind == "completion" and segments[i - 1].sentence == seg.sentence
                    and self._frames(seg.text)[4] and (lead := self._lead(out[i - 1])) is not None):
                out[i] = replace(out[i], kind=lead)
            if (i > 0 and out[i - 1].kind == "completion" and segments[i - 1].sentence == seg.sentence
                    and self._first("blocked", seg.text) is not None and not self._ours(segments[i - 1].text)):
                # the state is why the thing could not be done (not work done), and this clause admits it
                out[i - 1], out[i] = replace(out[i - 1], kind="pre_existing"), replace(out[i], admits=True)
        return out

    def _lead(self, c) -> str | None:
        """What a clause offers or reports for the one going on with it: its own kind, or for a plain
        clause ('I can put a hold on it', 'the airline already moved you') the offer or report it makes."""
        if c.kind in ("offer", "pre_existing"):
            return c.kind
        if c.kind != "other":
            return None
        return next((k for k in ("offer", "pre_existing") if self._first(k, c.text) is not None), None)
