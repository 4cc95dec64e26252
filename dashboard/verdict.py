"""The investigation verdict: what really happened in one turn, in plain words, and the
reply a correct system would have given.

The reply guidance follows the table in the three-layer-defence article (section 5):
never say "done" for something that is not; no internal terms (verified, tool names);
say what did not happen, why, and the next step. Conflicts and duplicates are
success=true for the system but "nothing was created" for the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CONFLICT = ("冲突", "conflict")
DUPLICATE = ("已存在", "重复", "already exist", "duplicate")
NOT_CREATED = ("未创建", "not created", "did not create")
LOGIN = ("未登录", "登录", "not logged in", "login", "unauthenticated", "no user")
PERMISSION = ("权限", "permission", "forbidden", "not allowed", "unauthorized")


@dataclass(frozen=True)
class Verdict:
    outcome: str            # not executed | failed | unverified | not created | partly done | done | still running
    label: str              # the headline, e.g. "unverified — the reply claimed success"
    explanation: str
    reply_was_wrong: bool
    should_have_said_zh: str
    should_have_said_en: str
    evidence: list[str] = field(default_factory=list)


def _never_started_reply(error_text) -> tuple[str, str] | None:
    """The guidance-table reply when an error says the step could not start (login, permission)."""
    if _has(error_text, LOGIN):
        return ("这件事要先登录才能办,登录后我再帮你建。", "You need to sign in first; once you have, I'll set it up.")
    if _has(error_text, PERMISSION):
        return ("提醒的写入权限是关着的,所以我没法建;需要的话先去设置里打开。",
                "Writing reminders is switched off in your settings, so I couldn't create it. Turn it on and I'll try again.")
    return None


def _has(text: str | None, words) -> bool:
    t = (text or "").lower()
    return any(w.lower() in t for w in words)


def _ok(s: dict) -> bool:
    return s.get("status") == "success" and s.get("verified") is True


def _not_created(s: dict) -> str | None:
    text = " ".join(str(s.get(k) or "") for k in ("detail", "error", "result"))
    if _has(text, CONFLICT):
        return "conflict"
    if _has(text, DUPLICATE):
        return "duplicate"
    if _has(text, NOT_CREATED):
        return "conflict"
    return None


def decide(task: dict | None, steps: list[dict], findings: list[dict]) -> Verdict:
    """Judge one turn from its task row, its steps (in order) and the rule findings on it."""
    tool_steps = [s for s in steps if (s.get("kind") or "tool") == "tool"]
    said = [f for f in findings if f.get("rule_id") == "said_but_not_done"]
    claimed_falsely = bool(said)
    evidence = [f"{f['rule_id']}: {f.get('message') or ''}".strip() for f in findings]
    wrong = " — the reply claimed success" if said else ""

    def verdict(outcome, explanation, zh, en, label=None):
        return Verdict(outcome, label or (outcome + (wrong if outcome != "done" else "")), explanation,
                       claimed_falsely, zh, en, evidence)

    if task is None and not tool_steps:
        return verdict("not executed",
                       "No task was recorded for this turn: the agent never started any step.",
                       "这件事我还没有办成,刚才没有真正执行;要我现在帮你办吗?",
                       "I haven't done that yet — nothing was actually carried out. Shall I do it now?")
    if task is not None and task.get("status") == "running" and not task.get("finished_at"):
        return verdict("still running",
                       "The turn never finished (status 'running', no finish time): the finish step never ran, "
                       "so whatever the reply said, the outcome was never settled.",
                       "这件事还没有处理完,我确认结果后再告诉你。",
                       "This is still in progress; I'll confirm once it has actually gone through.")
    if not tool_steps:
        err = (task or {}).get("goal")
        reason = " ".join(str(s.get("error") or "") for s in steps)
        zh, en = _never_started_reply(reason) or (
            "这件事我没有办成,刚才根本没有执行;要我现在再试一次吗?",
            "I didn't get that done — it never actually ran. Shall I try now?")
        return verdict("not executed", f"The turn ({err or 'no goal recorded'}) has no tool step: nothing was executed.",
                       zh, en)

    failed = [s for s in tool_steps if s.get("status") == "failed"]
    unverified = [s for s in tool_steps if s.get("status") != "failed" and s.get("verified") is False]
    not_created = [(s, _not_created(s)) for s in tool_steps if s.get("status") == "success" and _not_created(s)]
    ok = [s for s in tool_steps if _ok(s) and not _not_created(s)]
    bad = len(failed) + len(unverified) + len(not_created)

    if bad and ok:
        first_bad = (failed + unverified + [s for s, _ in not_created])[0]
        return verdict("partly done",
                       f"{len(ok)} of {len(tool_steps)} steps were done and confirmed; "
                       f"step {first_bad.get('seq')} ({first_bad.get('tool')}) was not.",
                       "第一件事办好了,另一件没有成功,原因是写入没通过;要我再试一次那一件吗?",
                       "The first part is done, but the other part didn't go through. Shall I retry that part?")
    if failed:
        s = failed[0]
        attempts = s.get("attempts")
        again = f" after {attempts} attempts" if attempts and attempts > 1 else ""
        zh, en = _never_started_reply(s.get("error")) or (
            "这条提醒没能建成,刚才的写入没有成功;要我按原来的时间再试一次吗?",
            "That reminder wasn't created — the save didn't go through. Shall I try again for the same time?")
        return verdict("failed", f"Step {s.get('seq')} ({s.get('tool')}) failed{again}: {s.get('error') or 'no error text'}.",
                       zh, en)
    if unverified:
        s = unverified[0]
        return verdict("unverified",
                       f"Step {s.get('seq')} ({s.get('tool')}) reported success but the read-back did not confirm it"
                       f" (verified=false): {s.get('error') or s.get('detail') or 'no detail'}. "
                       "For the user nothing reliable was created.",
                       "这条提醒没能确认建好,刚才的写入没有成功;要我按原来的时间再试一次吗?",
                       "I couldn't confirm that reminder was saved, so please don't rely on it. Shall I try again?")
    if not_created:
        s, why = not_created[0]
        if why == "duplicate":
            zh, en = ("已经有一条一样的提醒了,我没有再建新的。", "You already have the same reminder, so I didn't add another.")
            expl = "The tool returned success, but its detail says an identical record already existed: nothing new was created."
        else:
            zh, en = ("这个时间和已有的日程冲突,我没有建;要不要换个时间?",
                      "That time clashes with something already on your calendar, so I didn't create it. Want a different time?")
            expl = "The tool returned success, but its detail says the slot conflicts: nothing was created."
        return verdict("not created", f"Step {s.get('seq')} ({s.get('tool')}): {expl}", zh, en)

    # Every step done and read back.
    if said:
        return Verdict("done", "done, but the reply is wrong",
                       "Every step was done and confirmed by read-back, but the rules found the reply does not match "
                       "what was done (see findings).", True,
                       "按实际办好的内容如实告知(时间、内容与记录一致)。",
                       "Confirm exactly what was saved — the same time and wording as the stored record.", evidence)
    return Verdict("done", "done",
                   f"All {len(tool_steps)} step(s) succeeded and were confirmed by read-back.", False,
                   "好的,已经办好了(时间、内容与记录一致)。",
                   "Done — and it matches what was saved.", evidence)
