"""The investigation verdict: the rules' outcome of one turn, worded for support staff, and
the reply a correct system would have given.

Nothing is classified here. What each write step achieved and what the turn achieved come
from the turn model (`queries/rules/_write_steps.sql`, `_turn_outcomes.sql`, read through
`queries/outcomes.py`); whether the reply claimed something that was not done, and of which
kind, comes from the said_but_not_done finding on that reply. This module only words them.

The reply guidance follows the three-layer-defence article (section 5): never say "done"
for something that is not; no internal terms (verified, tool names); say what did not
happen, why, and the next step. A conflict or a duplicate made nothing, and trying again
would clash again, so those replies offer no retry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Wording only: which of the not-created cases a step's detail describes, and why a step
# never started. The classification itself is the lexicon's (queries/lexicon/claims.toml).
DUPLICATE = ("已存在", "重复", "already exist", "duplicate", "identical")
LOGIN = ("未登录", "登录", "not logged in", "login", "unauthenticated")
PERMISSION = ("权限", "permission", "forbidden", "not allowed", "unauthori", "access denied")

# Rule kinds (said_but_not_done) and turn outcomes (_turn_outcomes) -> the headline word.
HEADLINE = {
    "not_executed": "not executed", "not_started": "not executed", "no_write": "not executed",
    "failed": "failed", "unverified": "unverified", "not_created": "not created",
    "partial": "partly done", "running": "still running", "good": "done", "ok": "done",
}


def headline(turn_outcome: str | None, reply_kind: str | None) -> str:
    """One turn's verdict in a word or two, for lists: the false claim's kind when a reply made
    one (said_but_not_done), else what the turn's writes achieved (_turn_outcomes)."""
    if reply_kind:
        word = HEADLINE.get(reply_kind, reply_kind)
        return ("done, but the reply is wrong" if word == "done" else word) + " — the reply claimed success"
    if turn_outcome == "no_write":
        return "nothing to save"
    return HEADLINE.get(turn_outcome or "", turn_outcome or "no turn")


@dataclass(frozen=True)
class Verdict:
    outcome: str            # not executed | failed | unverified | not created | partly done | done | still running
    kind: str               # the rules' code for it: not_executed, failed, ..., good, no_write
    label: str              # the headline, e.g. "unverified — the reply claimed success"
    explanation: str
    reply_was_wrong: bool
    should_have_said_zh: str
    should_have_said_en: str
    evidence: list[str] = field(default_factory=list)


def _has(text: str | None, words) -> bool:
    t = (text or "").lower()
    return any(w.lower() in t for w in words)


def _thing(steps: list[dict], text: str | None = None) -> tuple[str, str]:
    """What the user asked for, in their words: (zh, en), from the tools used or the reply."""
    tools = " ".join(str(s.get("tool") or "") for s in steps if s.get("outcome")).lower()
    words = tools if tools.strip() else (text or "").lower()
    if any(w in words for w in ("message", "消息", "短信")):
        return "这条消息", "that message"
    if any(w in words for w in ("remind", "提醒")):
        return "这条提醒", "that reminder"
    if any(w in words for w in ("event", "calendar", "schedule", "meeting", "日程", "会议")):
        return "这个日程", "that calendar event"
    if any(w in words for w in ("todo", "to-do", "待办")):
        return "这个待办", "that to-do"
    return "这件事", "that"


def _step_text(s: dict) -> str:
    return " ".join(str(s.get(k) or "") for k in ("error", "detail"))


def _first(steps: list[dict], *outcomes: str) -> dict | None:
    return next((s for s in steps if s.get("outcome") in outcomes), None)


def _where(s: dict | None) -> str:
    if not s:
        return ""
    why = s.get("error") or s.get("detail")
    return f" Step {s.get('seq')} ({s.get('tool')})" + (f": {why}." if why else ".")


def decide(task: dict | None, steps: list[dict], findings: list[dict], turn_outcome: str | None = None,
           reply_kind: str | None = None, reply_text: str | None = None) -> Verdict:
    """Word one turn. `steps` are the turn's steps in order, each write step carrying the rules'
    `outcome`; `turn_outcome` is the turn model's outcome (None when there is no task);
    `reply_kind` the said_but_not_done kind of the reply being investigated (None when no rule
    found a false claim in it)."""
    said = [f for f in findings if f.get("rule_id") == "said_but_not_done"]
    claimed = reply_kind is not None or bool(said)
    evidence = [f"{f['rule_id']}: {f.get('message') or ''}".strip() for f in findings]
    kind = reply_kind or (turn_outcome if task is not None else "not_executed")
    if kind == "not_executed" and task is not None and turn_outcome in ("no_write", "not_started"):
        kind = turn_outcome
    writes = [s for s in steps if s.get("outcome")]
    zh_thing, en_thing = _thing(writes, reply_text)
    outcome = HEADLINE.get(kind or "", kind or "unknown")
    label = outcome + (" — the reply claimed success" if claimed and outcome != "done" else "")
    if claimed and outcome == "done":
        label = "done, but the reply is wrong"

    def v(explanation: str, zh: str, en: str) -> Verdict:
        return Verdict(outcome, kind or "unknown", label, explanation, claimed, zh, en, evidence)

    if task is None:
        return v("No turn was recorded for this reply: the agent never started any step, so nothing was saved.",
                 f"{zh_thing}我还没有办,刚才并没有真正执行;要我现在帮你办吗?",
                 f"I haven't set up {en_thing} yet: nothing was actually carried out. Shall I do it now?")
    if kind == "running":
        return v("The turn never finished (status 'running', no finish time): the finish step never ran, so "
                 "whatever the reply said, the outcome was never settled.",
                 "这件事还没有处理完,我确认结果后再告诉你。",
                 "This is still in progress; I'll tell you once it has actually gone through.")
    if kind == "no_write":
        did = ", ".join(sorted({str(s.get("tool")) for s in steps if s.get("tool")})) or "no step at all"
        return v(f"Nothing was saved: the turn made no write step (it ran {did}). Looking something up does not "
                 "create or change anything.",
                 f"我查看了相关信息,但{zh_thing}还没有真正建好;要我现在建吗?",
                 f"I looked that up, but I haven't actually set up {en_thing} yet. Shall I do it now?")
    if kind in ("not_started", "not_executed"):
        s = _first(writes, "not_started")
        text = _step_text(s or {})
        if _has(text, LOGIN):
            zh, en = ("这件事要先登录才能办,登录后我再帮你建。", "You need to sign in first; once you have, I'll set it up.")
        elif _has(text, PERMISSION):
            zh, en = ("写入的权限没有打开,所以我没法办;需要的话先去设置里打开。",
                      "Saving this isn't allowed for your account right now, so I couldn't do it. "
                      "Once that's switched on I can set it up.")
        else:
            zh, en = (f"{zh_thing}我没有办成,刚才根本没有执行;要我现在再试一次吗?",
                      f"I didn't get {en_thing} done: it never actually ran. Shall I try now?")
        return v("No write step started, so nothing was saved." + _where(s), zh, en)
    if kind == "partial":
        good = [s for s in writes if s.get("outcome") == "good"]
        bad = _first(writes, "failed", "unverified", "not_created", "not_started")
        return v(f"{len(good)} of {len(writes)} write steps were done and confirmed; the rest were not." + _where(bad),
                 "有一部分已经办好了,另一部分没有成功;要我再试一次没办成的那部分吗?",
                 "One part is done, but the other part didn't go through. Shall I try that part again?")
    if kind == "failed":
        s = _first(writes, "failed")
        attempts = (s or {}).get("attempts")
        again = f" (after {attempts} attempts)" if attempts and attempts > 1 else ""
        return v(f"The write failed{again}, so nothing was saved." + _where(s),
                 f"{zh_thing}没有办成,刚才的操作没有成功;要我再试一次吗?",
                 f"{en_thing[0].upper() + en_thing[1:]} didn't go through, so nothing was done. Shall I try again?")
    if kind == "unverified":
        s = _first(writes, "unverified")
        return v("The write reported success, but reading it back did not confirm it was saved as asked, so it "
                 "cannot be relied on." + _where(s),
                 f"{zh_thing}我没能确认已经保存好,请先不要依赖它;我核实后再告诉你,需要的话重新建。",
                 f"I couldn't confirm {en_thing} was saved correctly, so please don't rely on it yet. "
                 "I'll check it and set it up again if it's missing.")
    if kind == "not_created":
        s = _first(writes, "not_created")
        if _has(_step_text(s or {}), DUPLICATE):
            return v("The tool returned success, but an identical record already existed: nothing new was created."
                     + _where(s),
                     "已经有一条一样的记录了,我没有再建新的。",
                     "You already have the same one, so I didn't add another.")
        return v("The tool returned success, but the time conflicts with an existing entry: nothing was created."
                 + _where(s),
                 "这个时间和已有的日程冲突,所以我没有建;要不要换个时间?",
                 "That time clashes with something already on your calendar, so I didn't create it. "
                 "Would you like a different time?")
    if claimed:
        return v("Every write step was done and confirmed by read-back, but the rules found the reply does not match "
                 "what was done (see findings).",
                 "按实际办好的内容如实告知(时间、内容与记录一致)。",
                 "Confirm exactly what was saved: the same time and wording as the stored record.")
    checked = sum(1 for s in writes if s.get("verified") is True)
    how = ("and were confirmed by read-back" if checked == len(writes) else
           f"({len(writes) - checked} from a source that cannot record a read-back, so taken as reported)")
    return v(f"All {len(writes)} write step(s) succeeded {how}.",
             "好的,已经办好了(时间、内容与记录一致)。", "Done, and it matches what was saved.")
