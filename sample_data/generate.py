#!/usr/bin/env python3
"""Generate a realistic, labelled month of traffic for a reminder/todo assistant.

    python sample_data/generate.py --out sample_data            # the committed data set
    python sample_data/generate.py --out /tmp/big --scale 200   # benchmark data (streams to disk)

The month is ISO weeks 2026-W45..W48 (2026-11-02 00:00 .. 2026-11-29 23:59, Asia/Shanghai).
Two agents of one deployment are simulated:

* seed004 - the reminder assistant, exported as MySQL-style table dumps
  (agent_task / agent_step / audit_logs / messages, naive local timestamps);
* seed001 - the "todo-aggregator" agent, exported as verification-framework AgentTrace
  objects (epoch-second timestamps).

Design: ``iter_turns`` decides every turn (plain dataclasses: steps, messages, audits and
the expected labels) as a chronological stream; one writer class per output shape turns
that stream into files. A new output shape (e.g. OTLP) is a new writer over the same turns.

Deterministic: one ``random.Random(seed)`` for the month, a second one (from the same seed) for
the claimed-action and claimed-value turns of issue 15, no wall clock, no set/hash iteration
order. Standard library only.
"""

from __future__ import annotations

import argparse
import bisect
import calendar
import contextlib
import copy
import csv
import heapq
import json
import os
import re
import string
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from random import Random
from typing import Any, Iterator, Optional

# --------------------------------------------------------------------------------------
# Calendar
# --------------------------------------------------------------------------------------

TZ_OFFSET = 8 * 3600  # Asia/Shanghai, no DST
MONTH_START = calendar.timegm((2026, 11, 2, 0, 0, 0)) - TZ_OFFSET  # 2026-11-02 00:00 local
MONTH_END = calendar.timegm((2026, 11, 30, 0, 0, 0)) - TZ_OFFSET  # 2026-11-30 00:00 local (exclusive)
NOW = MONTH_END  # the --now the labels assume: 2026-11-30T00:00:00+08:00
STUCK_AFTER = 15 * 60  # a RUNNING task older than this at NOW is stuck
INCIDENT_START = calendar.timegm((2026, 11, 16, 0, 0, 0)) - TZ_OFFSET  # Monday of W47, agent 2.4.0
HOURS = (MONTH_END - MONTH_START) // 3600

BASE_SEED004_TURNS = 2500
BASE_SEED001_TRACES = 500
BASE_USERS = 150

WRITE_TOOLS = ("create_reminder", "update_reminder", "delete_reminder", "create_todo", "add_countdown",
               "send_message", "add_calendar_event")
# a write tool's action class (the verb of its name) and the object it writes
TOOL_ACTION = {"create_reminder": ("create", "reminder"), "update_reminder": ("update", "reminder"),
               "delete_reminder": ("delete", "reminder"), "create_todo": ("create", "todo"),
               "add_countdown": ("create", "countdown"), "send_message": ("send", "message"),
               "add_calendar_event": ("create", "calendar")}
READ_TOOLS = ("list_reminders", "search_notes", "get_weather")
SENTINEL_TOOL = "verify_result"
FORBIDDEN_TOOLS = ("delete_database", "drop_table", "send_mass_mail")
NOT_EXECUTED_ERRORS = ("not logged in", "permission denied: WRITE", "unknown tool")

DETAIL_CONFLICT = {"zh": "该时段与系统日程冲突,未创建,请告知用户并询问是否改时间",
                   "en": "conflicts with an existing event, not created"}
DETAIL_DUPLICATE = {"zh": "已存在相同记录,未重复创建",
                    "en": "an identical reminder already exists, nothing created"}
NOT_CREATED_DETAILS = tuple(DETAIL_CONFLICT.values()) + tuple(DETAIL_DUPLICATE.values())

# hour-of-day weights (local time): quiet nights, morning and evening peaks
HOUR_WEIGHTS = (0.6, 0.3, 0.15, 0.1, 0.1, 0.2, 0.8, 2.6, 4.2, 4.6, 4.4, 4.0,
                3.6, 3.4, 3.6, 3.6, 3.5, 3.4, 3.6, 4.0, 4.6, 4.4, 3.2, 1.6)


_DAYS: dict = {}  # local day number -> 'YYYY-MM-DD' (a few dozen entries)


_LAST = [None, ""]  # memo of the last second formatted (steps of one turn share seconds)


def fmt_local(t: float) -> str:
    """Naive local 'YYYY-MM-DD HH:MM:SS' as the Java system writes it."""
    it = int(t)
    if it == _LAST[0]:
        return _LAST[1]
    day, sec = divmod(it + TZ_OFFSET, 86400)
    ds = _DAYS.get(day)
    if ds is None:
        ds = _DAYS[day] = time.strftime("%Y-%m-%d", time.gmtime(day * 86400))
    h, sec = divmod(sec, 3600)
    m, sec = divmod(sec, 60)
    out = "%s %02d:%02d:%02d" % (ds, h, m, sec)
    _LAST[0], _LAST[1] = it, out
    return out


def fmt_utc(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(t)))


def local_midnight(t: float) -> int:
    return (int(t) + TZ_OFFSET) // 86400 * 86400 - TZ_OFFSET


def local_date(t: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(int(t) + TZ_OFFSET))


def local_weekday(t: float) -> int:
    return time.gmtime(int(t) + TZ_OFFSET).tm_wday  # Monday = 0


# --------------------------------------------------------------------------------------
# Turn model (what every writer consumes)
# --------------------------------------------------------------------------------------


@dataclass
class Step:
    seq: int
    tool: str
    args: dict
    reason: str
    status: str  # success | failed | running
    verified: Optional[bool]  # None = not checked
    attempts: int
    error: Optional[str]
    detail: Optional[str]
    start: float
    end: Optional[float]
    result: Any = None  # seed001 tool result (object / text / None)
    step_id: int = 0


@dataclass
class Said:
    """One value a message states about the object a write holds: what the words mean."""
    obj: str  # reminder | todo | countdown | message | calendar
    facet: str  # time (HH:MM) | date (YYYY-MM-DD) | days | count | repeat | content
    value: Any
    alt: Any = None  # the other reading of a 12-hour clock time said without am/pm ("7:30")


@dataclass
class Message:
    role: str
    content: str
    t: float
    link_task: bool
    msg_id: int = 0


@dataclass
class Audit:
    action: str
    result: str  # SUCCESS | FAIL
    t: float
    with_task: bool
    step_seq: Optional[int]  # the step this audit row records
    audit_id: int = 0


@dataclass
class Turn:
    source: str  # seed004 | seed001
    lang: str
    user_id: int
    conversation_id: str
    start: float
    scenario: str = ""
    variant: str = ""
    goal: str = ""
    task_id: Any = None  # int (seed004), "agg-000001" (seed001), None = no task row
    has_task: bool = True
    status: str = "success"  # success | partial | failed | running
    replanned: bool = False
    finish: Optional[float] = None
    agent_version: str = ""
    model: str = ""
    prompt_version: str = ""
    plan: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    audits: list = field(default_factory=list)
    reply: Optional[str] = None
    reply_t: Optional[float] = None
    reply_is_claim: bool = False
    sbnd: str = "none"
    rules: list = field(default_factory=list)
    tool_versions: dict = field(default_factory=dict)
    task_start: float = 0.0  # agent_task.create_time (the user message comes first)
    conv_no: int = 0  # the conversation's number; conversation_id is derived from it
    step_shift: int = 0  # id offsets of a --scale replica (writers add them to the base ids)
    msg_shift: int = 0
    audit_shift: int = 0
    expect_sbnd: Optional[str] = None  # what the scenario meant; checked against the derived label
    said: list = field(default_factory=list)  # Said values the reply states
    asked: list = field(default_factory=list)  # Said values the user's request states
    claimed: list = field(default_factory=list)  # (action class, object) the reply claims done
    sbnd_basis: str = ""  # writes | claimed_actions: which check gives the said_but_not_done label
    claims_checked: list = field(default_factory=list)  # "create reminder=#1" / "create calendar=none"
    mismatches: list = field(default_factory=list)  # the value contradictions, described

    @property
    def reply_message(self) -> Optional[Message]:
        for m in self.messages:
            if m.role == "assistant":
                return m
        return None


# --------------------------------------------------------------------------------------
# Labels: derived mechanically from the turn the generator built
# --------------------------------------------------------------------------------------


def _not_created(s: Step) -> bool:
    return s.detail in NOT_CREATED_DETAILS


def _good_write(s: Step) -> bool:
    return s.tool in WRITE_TOOLS and s.status == "success" and s.verified is True and not _not_created(s)


def _bad_write(s: Step) -> bool:
    return s.tool in WRITE_TOOLS and not _good_write(s) and s.status != "running"


def _verify_clean(s: Step) -> bool:
    a = s.args
    return a.get("is_ready") is True and not a.get("missing_items") and not a.get("errors_found")


def _writes_kind(turn: Turn) -> str:
    """said_but_not_done from the turn's writes alone: none | not_executed | failed | unverified |
    not_created | partial."""
    if not turn.reply_is_claim or turn.reply is None:
        return "none"
    steps = turn.steps
    good = [s for s in steps if _good_write(s)]
    if good:
        # partial: a write that did not land and was not recovered later (a re-plan that
        # retried the same tool successfully counts as recovered)
        for i, s in enumerate(steps):
            if _bad_write(s) and not any(_good_write(x) and x.tool == s.tool for x in steps[i + 1:]):
                return "partial"
        return "none"
    executed = [s for s in steps if s.tool in WRITE_TOOLS
                and not (s.status == "failed" and s.error and s.error.startswith(NOT_EXECUTED_ERRORS))]
    if not executed:
        return "not_executed"  # no task, no steps, only reads, or never started
    if any(_not_created(s) for s in executed):
        return "not_created"
    if any(s.status == "success" and s.verified is False for s in executed):
        return "unverified"
    return "failed"


def claimed_backing(turn: Turn) -> list:
    """Each (action class, object) the reply claims, with the seq of the first good write of that
    class on that object that backs it (None when no write does)."""
    out = []
    for cls, obj in dict.fromkeys(turn.claimed):
        seq = next((s.seq for s in turn.steps
                    if _good_write(s) and TOOL_ACTION.get(s.tool) == (cls, obj)), None)
        out.append((cls, obj, seq))
    return out


def said_but_not_done_kind(turn: Turn) -> str:
    """none | not_executed | failed | unverified | not_created | partial.

    From the writes first; then, for a reply that claims two or more actions, each claimed
    action needs a good write of its class on its object: partial when another claimed action
    is backed, not_executed when none is. Sets turn.sbnd_basis and turn.claims_checked."""
    kind = _writes_kind(turn)
    backing = claimed_backing(turn) if turn.reply_is_claim and turn.reply is not None else []
    turn.claims_checked = ["%s %s=%s" % (c, o, "none" if q is None else "#%d" % q) for c, o, q in backing]
    turn.sbnd_basis = "writes" if kind != "none" else ""
    if kind == "none" and len(backing) >= 2 and any(q is None for *_, q in backing):
        kind = "partial" if any(q is not None for *_, q in backing) else "not_executed"
        turn.sbnd_basis = "claimed_actions"
    return kind


READBACK_MISMATCH = re.compile(r"read-back mismatch: (\w+) differs \(expected (.*), got (.*)\)$")
DATE_ARGS = ("task_date", "target_date")
TIME_ARGS = ("remind_at", "start")
CONTENT_ARGS = ("content", "title", "text")


def _facets(turn: Turn, args: dict) -> dict:
    """facet -> (arg name, value) for the values a write's args hold."""
    out = {}
    for k, v in args.items():
        if not isinstance(v, str):
            continue
        if k in TIME_ARGS:
            out["time"], out["date"] = (k, v[11:16]), (k, v[:10])
        elif k in DATE_ARGS:
            out["date"] = (k, v)
            if k == "target_date":  # "N days to go", counted from the turn's local day
                days = (calendar.timegm(time.strptime(v, "%Y-%m-%d")) - TZ_OFFSET - local_midnight(turn.start))
                out["days"] = (k, days // 86400)
        elif k in CONTENT_ARGS:
            out["content"] = (k, v)
        elif k == "repeat":
            out["repeat"] = (k, v)
    return out


def stored_facets(turn: Turn, s: Step) -> tuple:
    """(facets, source): the read-back value where the step records one, else the args."""
    m = READBACK_MISMATCH.match(s.error or "")
    if m and m.group(1) in s.args:
        args = dict(s.args)
        args[m.group(1)] = m.group(3).strip("'")
        return _facets(turn, args), "read-back"
    return _facets(turn, s.args), "args"


def _value_check(turn: Turn, said: list, how: str) -> list:
    """Descriptions of the stated values no write of the object holds ('claimed': the stored
    value, good writes preferred; 'asked': the args)."""
    out = []
    for v in said:
        writes = [s for s in turn.steps if TOOL_ACTION.get(s.tool, ("", ""))[1] == v.obj]
        if v.facet == "count":
            n = sum(1 for s in writes if s.status != "running" and TOOL_ACTION[s.tool][0] == "create")
            if writes and v.value != n:
                out.append(f"{how} {v.obj} count: said {v.value}, {n} written")
            continue
        cands = []
        for s in writes:
            if how == "claimed" and s.status == "running":
                continue
            fac, src = stored_facets(turn, s) if how == "claimed" else (_facets(turn, s.args), "args")
            if v.facet in fac:
                cands.append((_good_write(s), s, fac[v.facet], src))
        if how == "claimed" and any(c[0] for c in cands):
            cands = [c for c in cands if c[0]]
        if not cands or any(val in (v.value, v.alt) for _, _, (_, val), _ in cands):
            continue
        _, s, (arg, val), src = cands[0]
        word = "said" if how == "claimed" else "asked"
        held = "stored" if how == "claimed" else "args"
        out.append(f"{how} {s.tool}#{s.seq} {arg} {v.facet}: {word} {v.value}, {held} {val} ({src})")
    return out


def derive_rules(turn: Turn) -> list:
    steps = turn.steps
    rules = []
    if turn.sbnd != "none":
        rules.append("said_but_not_done")
    if any(s.status == "success" and s.verified is False for s in steps):
        rules.append("verified_false")
    if (turn.has_task and turn.status == "running" and turn.finish is None
            and turn.start < NOW - STUCK_AFTER):
        rules.append("stuck_running")
    by_seq = {s.seq: s for s in steps}
    for a in turn.audits:
        s = by_seq.get(a.step_seq)
        if s is None:
            continue
        ok = s.status == "success" and s.verified is True
        if (a.result == "SUCCESS") != ok:
            rules.append("audit_mismatch")
            break
    seen: dict = {}
    for s in steps:
        if s.tool in WRITE_TOOLS and s.status == "success":
            key = (s.tool, json.dumps(s.args, sort_keys=True, ensure_ascii=False))
            if key in seen:
                rules.append("duplicate_write")
                break
            seen[key] = True
    if any(s.attempts >= 2 and s.status == "failed" and s.error for s in steps):
        rules.append("repeated_failure")
    verifies = [s for s in steps if s.tool == SENTINEL_TOOL]
    if any(s.args.get("is_ready") is True and (s.args.get("missing_items") or s.args.get("errors_found"))
           for s in verifies):
        rules.append("sentinel_contradiction")
    if verifies and turn.reply is not None and not _verify_clean(verifies[-1]):
        rules.append("sentinel_ignored")
    if len(verifies) > 3:
        rules.append("verify_rounds_exceeded")
    run, prev = 0, None
    for s in steps:
        run = run + 1 if s.tool == prev else 1
        prev = s.tool
        if run > 2:
            rules.append("tool_loop")
            break
    if len(steps) > 10:
        rules.append("max_tool_calls")
    if any(s.tool in FORBIDDEN_TOOLS for s in steps):
        rules.append("forbidden_tool")
    for s in steps:
        if s.tool == "search_notes":
            k = s.args.get("top_k")
            if not isinstance(k, int) or k < 1 or k > 20:
                rules.append("argument_bounds")
                break
    claimed = _value_check(turn, turn.said, "claimed") if turn.reply_is_claim and turn.reply is not None else []
    asked = _value_check(turn, turn.asked, "asked")
    turn.mismatches = claimed + asked
    if claimed:
        rules.append("claimed_value_mismatch")
    if asked:
        rules.append("asked_value_mismatch")
    return rules


# --------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------

THINGS = {
    "zh": ["买菜", "交房租", "给妈妈打电话", "吃药", "取快递", "开周会", "交电费", "还信用卡", "接孩子放学",
           "去健身房", "提交周报", "预约牙医", "给植物浇水", "续签合同", "带伞", "倒垃圾", "买牛奶", "复习英语单词",
           "参加家长会", "订机票", "交物业费", "给车加油", "取干洗的衣服", "给爸爸买生日礼物", "准备季度汇报",
           "换床单", "喂猫", "看体检报告", "交水费", "回复王总的邮件", "抢演唱会门票", "去银行办卡"],
    "en": ["buy groceries", "pay the rent", "call mom", "take my meds", "pick up the package", "join the team standup",
           "pay the electricity bill", "renew my passport", "water the plants", "submit the weekly report",
           "book a dentist appointment", "take out the trash", "pick up the kids", "go to the gym", "buy milk",
           "send the invoice", "feed the cat", "call the landlord", "return the library books", "back up my laptop",
           "prep slides for the review", "book the restaurant", "check in for my flight", "pay the credit card",
           "get a haircut", "charge the car", "reply to Jordan's email", "order printer ink"],
}
EVENTS = {
    "zh": ["妈妈生日", "结婚纪念日", "考研", "春节回家", "新房交付", "宝宝满月", "项目上线", "雅思考试", "去东京旅行",
           "驾照考试", "年会"],
    "en": ["Mom's birthday", "our anniversary", "the bar exam", "the Tokyo trip", "moving day", "the product launch",
           "the marathon", "Christmas", "graduation", "the wedding", "the IELTS test"],
}
PEOPLE = {"zh": ["王磊", "小李", "老妈", "张经理", "李老师", "陈姐", "老公", "阿杰"],
          "en": ["Alex", "Sam", "Mom", "Dad", "Priya", "Tom", "my boss", "Jordan"]}
MSGS = {"zh": ["我晚点到,大概七点", "明天的会改到下午了", "记得带钥匙", "周末一起吃饭吗", "文件我已经发你邮箱了",
               "今晚我来做饭"],
        "en": ["running 10 minutes late", "the meeting moved to 3pm", "don't forget the keys",
               "dinner on Saturday?", "I emailed you the file", "I'll pick up dinner tonight"]}
CITIES = {"zh": ["上海", "北京", "杭州", "深圳", "成都", "广州"],
          "en": ["Shanghai", "Beijing", "Hangzhou", "Shenzhen", "Singapore", "Hong Kong"]}
TOPICS = {"zh": ["季度预算", "装修", "孩子的兴趣班", "读书笔记", "年假安排", "健身计划", "租房合同"],
          "en": ["the Q4 budget", "the kitchen renovation", "book club", "the trip itinerary", "my workout plan",
                 "the lease", "onboarding"]}
WEATHER = {"zh": ["多云 12~18°C", "小雨 9~14°C", "晴 15~22°C", "阴 10~16°C", "大风 6~11°C"],
           "en": ["cloudy, 12-18°C", "light rain, 9-14°C", "sunny, 15-22°C", "overcast, 10-16°C", "windy, 6-11°C"]}

TIMES = {
    "zh": [("早上七点", "07:00"), ("早上八点", "08:00"), ("八点半", "08:30"), ("上午十点", "10:00"),
           ("中午十二点", "12:00"), ("下午两点", "14:00"), ("下午三点", "15:00"), ("下午四点半", "16:30"),
           ("傍晚六点", "18:00"), ("晚上七点", "19:00"), ("晚上九点", "21:00"), ("晚上十点", "22:00"),
           ("7:30", "07:30"), ("9:15", "09:15"), ("13:40", "13:40"), ("20:00", "20:00"), ("早上六点半", "06:30")],
    "en": [("7am", "07:00"), ("8am", "08:00"), ("8:30am", "08:30"), ("10 am", "10:00"), ("noon", "12:00"),
           ("2pm", "14:00"), ("3pm", "15:00"), ("4:30pm", "16:30"), ("6pm", "18:00"), ("7pm", "19:00"),
           ("9 pm", "21:00"), ("10pm", "22:00"), ("7:30", "07:30"), ("9:15am", "09:15"), ("1:40pm", "13:40"),
           ("20:00", "20:00"), ("6:30am", "06:30")],
}
ZH_WEEKDAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
EN_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ALT_TIMES = ["09:00", "10:30", "14:00", "15:30", "16:00", "19:30"]

# --- user goals per intent --------------------------------------------------------------
GOALS = {
    ("create_reminder", "zh"): ["{day}{time}提醒我{thing}", "{day}{time}叫我{thing}", "记得{day}{time}提醒我{thing}",
                                "帮我设个提醒:{day}{time} {thing}", "{day}{time}要{thing},到时候提醒我一下",
                                "提醒我{day}{time}{thing}", "麻烦{day}{time}喊我{thing}", "{day}{time}别让我忘了{thing}",
                                "设置提醒 {day} {time} {thing}", "{thing},{day}{time}提醒"],
    ("create_reminder", "en"): ["Remind me to {thing} {day} at {time}", "Set a reminder for {time} {day}: {thing}",
                                "Can you remind me {day} at {time} to {thing}?", "Ping me at {time} {day} to {thing}",
                                "{day} at {time} remind me to {thing} pls", "Don't let me forget to {thing} {day}, {time}",
                                "reminder: {thing}, {day} {time}", "Please set a {time} reminder {day} to {thing}"],
    ("update_reminder", "zh"): ["把{thing}的提醒改到{day}{time}", "{thing}那个提醒推迟到{day}{time}吧",
                                "{thing}的提醒时间换成{day}{time}", "帮我把{thing}改成{day}{time}提醒"],
    ("update_reminder", "en"): ["Move my {thing} reminder to {day} at {time}", "Push the {thing} reminder to {time} {day}",
                                "Change the reminder to {thing} so it goes off {day} at {time}"],
    ("delete_reminder", "zh"): ["把{thing}那条提醒删了", "{thing}的提醒不要了,删掉吧", "取消{thing}的提醒",
                                "帮我删除提醒:{thing}"],
    ("delete_reminder", "en"): ["Delete the reminder about {thing}", "Cancel my {thing} reminder",
                                "Remove the reminder to {thing}, I already did it"],
    ("create_todo", "zh"): ["把{thing}加到{day}的清单里", "{day}的待办加一条:{thing}", "清单里记一下,{day}要{thing}",
                            "帮我在{day}的清单上加上{thing}", "加个待办 {thing}"],
    ("create_todo", "en"): ["Add {thing} to my to-do list for {dayn}", "Put '{thing}' on {dayn}'s list",
                            "New to-do for {dayn}: {thing}", "add {thing} to my todo list"],
    ("add_countdown", "zh"): ["帮我加个倒数日:{event} {date}", "{event}是{date},做个倒数日", "新建倒数日 {event},日期{date}"],
    ("add_countdown", "en"): ["Start a countdown to {event} on {date}", "Add a countdown: {event}, {date}",
                              "How many days until {event}? It's {date}, add a countdown"],
    ("send_message", "zh"): ["给{person}发消息说{msg}", "跟{person}说一声:{msg}", "帮我发个消息给{person}:{msg}"],
    ("send_message", "en"): ["Text {person}: {msg}", "Send {person} a message saying {msg}", "Tell {person} {msg}"],
    ("two", "zh"): ["{day}{time}提醒我{thing},再把{thing2}加到清单", "提醒我{day}{time}{thing},顺便清单里加上{thing2}",
                    "两件事:{day}{time}提醒{thing};{thing2}记到待办"],
    ("two", "en"): ["Remind me to {thing} {day} at {time} and add {thing2} to my list",
                    "Two things: reminder at {time} {day} to {thing}, and put {thing2} on my to-dos",
                    "Set a {time} reminder {day} to {thing}, also add '{thing2}' to my list"],
    ("batch", "zh"): ["接下来{n}天每天{time}提醒我{thing}", "从{day}开始连续{n}天{time}提醒我{thing}"],
    ("batch", "en"): ["Remind me to {thing} every day at {time} for the next {n} days",
                      "For {n} days starting {day}, remind me at {time} to {thing}"],
    ("list", "zh"): ["我{day}有哪些提醒", "看看{day}的安排", "{day}都有什么事", "列一下我{day}的提醒"],
    ("list", "en"): ["What reminders do I have {day}?", "What's on my schedule {day}?", "Show me my reminders {day}"],
    ("weather", "zh"): ["{day}{city}天气怎么样", "{city}{day}会下雨吗", "{day}出门要带伞吗,我在{city}"],
    ("weather", "en"): ["What's the weather in {city} {day}?", "Will it rain in {city} {day}?", "Do I need an umbrella {day}?"],
    ("notes", "zh"): ["找一下我关于{topic}的笔记", "我之前记过{topic}的东西,帮我搜一下", "搜笔记:{topic}"],
    ("notes", "en"): ["Find my notes about {topic}", "Search my notes for {topic}", "What did I write down about {topic}?"],
    ("vague", "zh"): ["提醒我{thing}", "帮我记一下{thing}", "{thing}别忘了提醒我", "设个提醒", "明天提醒我"],
    ("vague", "en"): ["Remind me to {thing}", "remind me about {thing}", "Set a reminder", "Can you remind me tomorrow?",
                      "I need to {thing} at some point"],
}

# --- replies ----------------------------------------------------------------------------
# CLAIMS: completion claims ("the thing is done"); a rule must read them as claims.
CLAIMS = {
    ("create_reminder", "zh"): ["好的,已为您设置{day}{time}的提醒:{thing}", "已为您设置", "已设置好啦,{day}{time}提醒你{thing}",
                                "搞定~ {day}{time}会提醒你{thing}", "好的,已经帮你记下了:{day}{time} {thing}",
                                "没问题,提醒已创建,{day}{time}准时叫你{thing}", "好嘞,{thing}的提醒已经设好了",
                                "已为您设置,{day}{time}提醒您{thing}。", "提醒已设置:{day}{time} {thing}"],
    ("create_reminder", "en"): ["Done — I've set a reminder for {time} {day} to {thing}.",
                                "Your reminder is set: {thing}, {day} at {time}.", "All set! I'll remind you to {thing} at {time}.",
                                "Reminder created for {dayn} at {time}.", "OK, I've set it. You'll get a ping {day} at {time}.",
                                "Got it — reminder to {thing} is set for {time} {day}."],
    ("update_reminder", "zh"): ["已把{thing}的提醒改到{day}{time}", "改好了,{day}{time}提醒你{thing}", "好的,时间已更新为{day}{time}"],
    ("update_reminder", "en"): ["I've moved your {thing} reminder to {time} {day}.", "Updated — it now goes off {day} at {time}.",
                                "Done, the reminder is changed to {time}."],
    ("delete_reminder", "zh"): ["那条{thing}的提醒已经删掉了", "已删除提醒:{thing}", "好的,{thing}的提醒取消了"],
    ("delete_reminder", "en"): ["Deleted the reminder about {thing}.", "Done, the {thing} reminder is gone.",
                                "I've cancelled the reminder to {thing}."],
    ("create_todo", "zh"): ["已添加到{day}的清单:{thing}", "好的,{thing}已经加到清单里了", "清单已更新,加上了{thing}",
                            "记好了,{day}的待办里有{thing}"],
    ("create_todo", "en"): ["Added '{thing}' to your to-do list for {dayn}.", "Done — {thing} is on your list.",
                            "Your list for {dayn} now includes {thing}."],
    ("add_countdown", "zh"): ["倒数日已经加好了,距离{event}还有{n}天", "已创建倒数日「{event}」,还有{n}天", "好的,{event}的倒数日设好了"],
    ("add_countdown", "en"): ["Countdown to {event} created — {n} days to go.", "Done! {n} days until {event}; the countdown is set.",
                              "I've added a countdown for {event}."],
    ("send_message", "zh"): ["消息已发送给{person}", "已经帮你告诉{person}了", "发好了:「{msg}」"],
    ("send_message", "en"): ["Message sent to {person}.", "Sent! I told {person}: \"{msg}\".", "Done, {person} has the message."],
    ("two", "zh"): ["都搞定了:{day}{time}提醒你{thing},{thing2}也加到清单了", "两件事都办好了", "好的,提醒和清单都设置好了",
                    "都搞定了~"],
    ("two", "en"): ["Both are set: the {time} reminder and {thing2} on your list.", "Done, both are set.",
                    "All done — reminder set and {thing2} added to your list."],
    ("batch", "zh"): ["好的,接下来{n}天每天{time}都会提醒你{thing},已全部设置好", "已为您设置{n}条提醒,每天{time}"],
    ("batch", "en"): ["All {n} reminders are set — every day at {time} to {thing}.", "Done, I've set {n} daily reminders at {time}."],
}
# claims buried in longer, chattier replies
EMBEDDED = {
    "zh": ["好的~ {day}{time}提醒你{thing},已经帮你设置好了,记得提前准备哦",
           "收到!{day}{time}会提醒你{thing}。提醒已经设置好了,到时候手机会响一下,别调静音哈",
           "这个好办。我看了一下你{day}的安排,{time}前后没有别的事,{thing}的提醒已为您设置,祝顺利~",
           "嗯嗯,{thing}确实容易忘。已经设置好{day}{time}的提醒啦,如果要改时间随时跟我说",
           "没问题!{thing}这种事交给我,{day}{time}叫你,已创建。顺便说一句,{day}可能有雨,出门带伞"],
    "en": ["Sure thing! I've set a reminder for {thing} {day} at {time} — don't forget to bring what you need.",
           "Got it. Your reminder to {thing} is all set for {time}; I'll nudge you then. Anything else?",
           "Good call, that one's easy to forget. Reminder created for {dayn} at {time}. Let me know if you want to move it.",
           "No problem at all — {day} at {time} it is, the reminder is set. Have a good one!"],
}
HONEST = {
    "not_logged_in": {"zh": ["这件事要先登录才能办,登录后我再帮你建", "你现在还没登录,提醒没有建成;登录之后我马上帮你加上",
                             "需要先登录哦,我这边还没法帮你保存这条提醒"],
                      "en": ["You need to sign in first — I couldn't create the reminder. Once you're signed in I'll set it up.",
                             "I can't save that until you log in. Sign in and I'll add it right away."]},
    "permission": {"zh": ["你关掉了提醒的写入权限,所以我没法建;要用的话得先去设置里打开", "没有写入权限,这条我建不了,去设置里打开后再叫我"],
                   "en": ["I can't add reminders because write access is turned off for this app. You can enable it in Settings.",
                          "Write permission is off, so I wasn't able to create it."]},
    "failed": {"zh": ["这条提醒没能建成,刚才的写入没有成功;要我按原时间再试一次吗", "抱歉,{thing}没有保存成功,要不要我再试一次?",
                      "刚才系统出了点问题,没能帮你记下{thing},稍后我再试试好吗", "没能办成,写入失败了。要重试吗?"],
               "en": ["I couldn't create the reminder — the write didn't go through. Shall I retry?",
                      "I wasn't able to add it. Want me to try again?", "Sorry, saving {thing} failed on our side. Try again?",
                      "That didn't work — nothing was saved. Should I retry in a minute?"]},
    "conflict": {"zh": ["这个时间和已有日程冲突,我没有建;要不要换到 {alt}", "{day}{time}已经有安排了,这条提醒没有创建,换个时间怎么样?"],
                 "en": ["That time conflicts with an existing event, so I didn't create it. Would {alt} work instead?",
                        "You already have something at {time} {day}; I haven't added the reminder. Pick another time?"]},
    "duplicate": {"zh": ["已经有一条一样的提醒,我没有再建", "你已经有{day}{time}{thing}的提醒了,没有重复添加"],
                  "en": ["I didn't add another, you already have the same reminder.",
                         "You already have that exact reminder, so I didn't create a second one."]},
    "unverified": {"zh": ["刚才那条提醒保存时出了问题,时间没有对上,我没法确认它建好了。要我重新建一次吗?",
                          "提醒好像没存对,先别依赖它;我帮你重新建一条?"],
                   "en": ["Something went wrong saving that reminder — the time didn't come out right, so I can't confirm it's set. Want me to redo it?",
                          "I'm not sure the reminder saved correctly. Let me recreate it?"]},
    "partial": {"zh": ["第一件事办好了,第二件没成,原因是清单写入失败;要我再试一次吗", "{thing}的提醒设好了,但{thing2}没能加进清单,要重试吗?"],
                "en": ["The reminder is set, but I couldn't add {thing2} to your list — that part failed. Retry?",
                       "First one's done; the second didn't go through. Want me to try adding {thing2} again?"]},
}
CLARIFY = {
    "zh": ["几点提醒你?", "要我帮你设置吗?", "还没有设置,你告诉我具体时间我再建", "你想提醒的是明天早上还是晚上?",
           "要设置成每天重复吗?", "好的,要提前多久提醒你?", "需要我帮你设一个{time}的提醒吗?", "哪一天呀?我先不建,确认后再设置"],
    "en": ["What time should I remind you?", "Do you want me to set it for 8:00?", "Not set yet — which day did you mean?",
           "Should I set it for tomorrow morning or tonight?", "Want me to set that up as a daily reminder?",
           "Sure — what time works for you?", "I can set it for {time}. Shall I?"],
}
READ_REPLIES = {
    ("list", "zh"): ["你{day}有{n}条提醒:{items}", "{day}的安排:{items}", "看了一下,{day}一共{n}件事:{items}"],
    ("list", "en"): ["You have {n} reminders {day}: {items}", "Here's {day}: {items}", "{n} things {day} — {items}"],
    ("weather", "zh"): ["{day}{city}{weather},出门注意添衣", "{city}{day}{weather}"],
    ("weather", "en"): ["{city} {day}: {weather}.", "Looks like {weather} in {city} {day}."],
    ("notes", "zh"): ["找到{n}条相关笔记,最近的一条是「{topic}」", "关于{topic}有{n}条笔记,我把要点列在下面了"],
    ("notes", "en"): ["Found {n} notes on {topic}; the latest is from last week.", "{n} notes mention {topic}. Top one below."],
}
TOOL_DETAIL = {
    "create_reminder": {"zh": "已创建提醒 id={id}", "en": "reminder created id={id}"},
    "update_reminder": {"zh": "已更新提醒 id={id}", "en": "reminder updated id={id}"},
    "delete_reminder": {"zh": "已删除提醒 id={id}", "en": "reminder deleted id={id}"},
    "create_todo": {"zh": "已加入清单 id={id}", "en": "todo added id={id}"},
    "add_countdown": {"zh": "已创建倒数日 id={id}", "en": "countdown created id={id}"},
    "send_message": {"zh": "消息已投递 id={id}", "en": "message delivered id={id}"},
    "add_calendar_event": {"zh": "已加入日历 id={id}", "en": "calendar event added id={id}"},
}
DB_ERRORS = ["DB write timeout after 3000ms", "Deadlock found when trying to get lock; try restarting transaction",
             "Lock wait timeout exceeded; try restarting transaction",
             "Communications link failure: The last packet sent successfully to the server was {n} milliseconds ago",
             "HikariPool-1 - Connection is not available, request timed out after 30000ms."]
SYSTEMIC_ERRORS = ["Incorrect datetime value: '{bad}' for column 'remind_at' at row 1",
                   "Data truncation: Data too long for column 'content' at row 1",
                   "Cannot parse remind_at: '{raw}'"]
UNKNOWN_TOOLS = ["set_alarm", "add_reminder", "create_remind", "reminder.create"]
REASONS = {
    "create_reminder": {"zh": "用户要求{when}提醒{what}", "en": "user asked for a reminder at {when}: {what}"},
    "update_reminder": {"zh": "用户要把提醒改到{when}", "en": "user wants the reminder moved to {when}"},
    "delete_reminder": {"zh": "用户要求删除提醒", "en": "user asked to delete the reminder"},
    "create_todo": {"zh": "加入{when}的清单", "en": "add item to the list for {when}"},
    "add_countdown": {"zh": "创建倒数日", "en": "create a countdown"},
    "send_message": {"zh": "替用户发送消息", "en": "send the message on the user's behalf"},
    "list_reminders": {"zh": "先查一下已有提醒", "en": "check existing reminders first"},
    "search_notes": {"zh": "检索相关笔记", "en": "search the user's notes"},
    "get_weather": {"zh": "查询天气", "en": "look up the weather"},
    "verify_result": {"zh": "交付前自检", "en": "self-check before answering"},
    "add_calendar_event": {"zh": "加到日历:{when}", "en": "add to the calendar at {when}"},
}

# --- what a template states: the object each field speaks of, the actions a claim names ----
QUOTES = (("'", "'"), ("「", "」"), ('"', '"'), ("“", "”"))
AMBIGUOUS_TIMES = ("八点半", "7:30", "9:15")  # a 12-hour clock time with no am/pm: two readings
_REMINDER_FIELDS = {"time": "reminder", "day": "reminder", "dayn": "reminder", "when": "reminder",
                    "thing": "reminder", "rep": "reminder"}
FIELD_OBJECTS = {
    "create_reminder": _REMINDER_FIELDS, "update_reminder": _REMINDER_FIELDS, "embedded": _REMINDER_FIELDS,
    "create_todo": {"day": "todo", "dayn": "todo", "thing": "todo"},
    "add_countdown": {"event": "countdown", "date": "countdown", "n": "countdown"},
    "send_message": {"msg": "message"},
    "two": {"time": "reminder", "day": "reminder", "dayn": "reminder", "thing": "reminder", "thing2": "todo"},
    "batch": {"time": "reminder", "day": "reminder", "dayn": "reminder", "n": "reminder"},
}
CLAIM_ACTIONS = {"create_reminder": [("create", "reminder")], "update_reminder": [("update", "reminder")],
                 "delete_reminder": [("delete", "reminder")], "create_todo": [("create", "todo")],
                 "add_countdown": [("create", "countdown")], "send_message": [("send", "message")],
                 "two": [("create", "reminder"), ("create", "todo")], "batch": [("create", "reminder")],
                 "embedded": [("create", "reminder")]}
TWO_UNNAMED = ("两件事都办好了", "都搞定了~", "Done, both are set.")  # "both done" naming neither action


def _other_half(hm: str) -> str:
    return "%02d:%s" % ((int(hm[:2]) + 12) % 24, hm[3:])


def stated(tmpl: str, f: dict, objects: dict, content: bool = True) -> list:
    """The Said values a filled template states: times, dates, counts, repeat choices, and content
    where the template quotes it. `f` holds the meaning of each field (_hm, _date, _rep)."""
    out = []
    for _, name, _, _ in string.Formatter().parse(tmpl):
        obj = objects.get(name) if name else None
        if obj is None:
            continue
        if name == "time":
            alt = _other_half(f["_hm"]) if f["time"] in AMBIGUOUS_TIMES else None
            out.append(Said(obj, "time", f["_hm"], alt))
        elif name == "when":
            out += [Said(obj, "time", f["_hm"]), Said(obj, "date", f["_date"])]
        elif name in ("day", "dayn"):
            out.append(Said(obj, "date", f["_date"], f.get("_date_alt")))
        elif name == "date":
            out.append(Said(obj, "date", f["date"]))
        elif name == "n":
            out.append(Said(obj, "days" if obj == "countdown" else "count", f["n"]))
        elif name == "rep":
            out.append(Said(obj, "repeat", f["_rep"]))
        elif content and any(a + "{" + name + "}" + b in tmpl for a, b in QUOTES):
            out.append(Said(obj, "content", f[name]))
    uniq = {}
    for v in out:
        uniq.setdefault((v.obj, v.facet, v.value), v)
    return list(uniq.values())


def claim_actions(kind: str, tmpl: str) -> list:
    return [] if tmpl in TWO_UNNAMED else list(CLAIM_ACTIONS.get(kind, ()))


# --------------------------------------------------------------------------------------
# Scenario mix
# --------------------------------------------------------------------------------------

HONEST_CAUSES = (["not_logged_in"] * 3 + ["permission"] * 2 + ["failed"] * 6 + ["conflict"] * 2 + ["duplicate"] * 3
                 + ["unverified"] * 1 + ["partial"] * 4)

SEED004_MIX = [  # (scenario, weight); "ok" takes the rest
    ("not_executed", 2.6), ("failed_write", 2.2), ("unverified", 0.9), ("not_created", 1.4), ("partial", 1.5),
    ("honest", 3.0), ("clarify", 4.0), ("embedded_claim", 1.1), ("duplicate_write", 1.1), ("stuck_running", 0.8),
    ("audit_mismatch", 1.4), ("repeated_failure", 1.0), ("replanned", 1.5), ("tool_loop", 0.6),
    ("max_tool_calls", 0.6), ("argument_bounds", 0.3), ("forbidden_tool", 0.15), ("sentinel_ignored", 0.2),
]
SEED001_MIX = [
    ("sentinel_fixed", 7.0), ("sentinel_contradiction", 4.5), ("sentinel_ignored", 4.0),
    ("verify_rounds_exceeded", 3.5), ("tool_loop", 4.0), ("max_tool_calls", 4.0), ("forbidden_tool", 3.5),
    ("argument_bounds", 4.5), ("unverified", 3.0), ("ok", 8.0),
]
SEED004_SCENARIOS = [s for s, _ in SEED004_MIX]
SEED001_SCENARIOS = [s for s, _ in SEED001_MIX]
SCENARIO_KINDS = sorted(set(SEED004_SCENARIOS) | set(SEED001_SCENARIOS) | {"ok", "sentinel_ok"})


# --------------------------------------------------------------------------------------
# Claimed actions and values (issue 15): a second stream of turns with their own templates
# --------------------------------------------------------------------------------------

BASE_VALUE_TURNS = 230  # per month, drawn from their own Random: the turns above stay as they were
# turns per 100 of each kind, before / from the 2.4.0 incident (a reply that tells the user the time
# was stored wrong is an incident-week turn); dealt from shuffled decks, so the counts hold exactly
VALUE_MIX = {False: [("claimed_action_missing", 22), ("claimed_actions_done", 15), ("reply_value_wrong", 20),
                     ("args_value_wrong", 14), ("value_stated_ok", 29)],
             True: [("claimed_action_missing", 22), ("claimed_actions_done", 15), ("reply_value_wrong", 20),
                    ("args_value_wrong", 14), ("value_stated_ok", 19), ("honest_wrong_stored", 10)]}
VALUE_CONV_BASE = 40000  # conversation numbers of these turns (below CONV_SPAN)
VALUE_HMS = ["07:00", "07:30", "08:00", "08:30", "09:00", "10:00", "12:00", "14:00", "15:30", "17:00",
             "18:00", "19:00", "19:30", "20:00", "21:00", "22:00"]
ZH_NUM = ["零", "一", "两", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]
REPEATS = ("daily", "weekdays", "weekly")
REPEAT_TEXT = {"zh": {"daily": ["每天", "每日"], "weekdays": ["每个工作日", "工作日每天"],
                      "weekly": ["每{wd}", "每个{wd}"]},
               "en": {"daily": ["every day", "daily"], "weekdays": ["every weekday", "on weekdays"],
                      "weekly": ["every {wd}", "each {wd}"]}}

# two actions in one request: (tools, request templates, claim templates naming both actions)
TWO_ACTIONS = {
    "remind_calendar": (("create_reminder", "add_calendar_event"), {
        "zh": ["{when}提醒我{thing},顺便加到日历里", "帮我设个{when}的提醒:{thing},再在日历上加一下",
               "{thing}定在{when},提醒我并且记到日历"],
        "en": ["Remind me to {thing} {when} and put it on my calendar",
               "Set a reminder to {thing} {when}, and add it to my calendar too",
               "Can you put '{thing}' on my calendar for {when} and remind me?"]}, {
        "zh": ["已为您设置提醒并添加到日历:{when} {thing}", "好的,{when}的提醒设好了,日历里也加上了{thing}",
               "搞定~ 提醒已创建,日历也同步加好了,{when}{thing}"],
        "en": ["I've set the reminder and added it to your calendar: {thing}, {when}.",
               "Done — reminder set for {when} and {thing} is on your calendar.",
               "All set: you'll get a reminder {when}, and I've added it to your calendar as well."]}),
    "replace": (("delete_reminder", "create_reminder"), {
        "zh": ["把原来{thing}的提醒取消,重新建一个{when}的", "{thing}那条提醒删了吧,新建一条{when}的",
               "取消旧的{thing}提醒,再帮我新建一个,{when}"],
        "en": ["Cancel my old {thing} reminder and make a new one for {when}",
               "Delete the {thing} reminder and set a fresh one {when}",
               "Scrap the reminder to {thing}, create a new one for {when} instead"]}, {
        "zh": ["已取消原来的提醒,并新建了{when}的提醒:{thing}", "旧的那条删掉了,新的提醒也建好了,{when}提醒你{thing}",
               "好的,原提醒已删除,新提醒已设置为{when}"],
        "en": ["I've cancelled the old one and created a new reminder for {when}.",
               "Done — the old reminder is deleted and a new one is set for {when}.",
               "Old reminder removed, new one created: {thing}, {when}."]}),
    "update_notify": (("update_reminder", "send_message"), {
        "zh": ["把{thing}的提醒改到{when},再跟{person}说一声", "{thing}推迟到{when},顺便通知{person}",
               "提醒改成{when}({thing}),帮我发消息告诉{person}"],
        "en": ["Move my {thing} reminder to {when} and let {person} know",
               "Push the reminder to {thing} to {when} and text {person} about it",
               "Reschedule the {thing} reminder for {when}, then message {person}"]}, {
        "zh": ["改好了,提醒已改到{when},也已经通知{person}了", "已把{thing}的提醒改到{when},消息也发给{person}了",
               "好的,时间已更新为{when},{person}那边我也告诉了"],
        "en": ["Updated — the reminder is now {when}, and I've let {person} know.",
               "I've moved it to {when} and sent {person} a message.",
               "Done: rescheduled to {when} and {person} has been notified."]}),
    "remind_send": (("create_reminder", "send_message"), {
        "zh": ["{when}提醒我{thing},并发消息告诉{person}", "帮我建个{when}的提醒({thing}),再给{person}发个消息说一下"],
        "en": ["Remind me {when} to {thing}, and text {person} about it",
               "Set a reminder {when} to {thing} and message {person} so they know"]}, {
        "zh": ["提醒设好了,消息也发给{person}了:{when}{thing}", "已为您设置{when}的提醒,并已通知{person}",
               "两件事都办了:{when}提醒你{thing},{person}那边也发了消息"],
        "en": ["Reminder set for {when}, and I've messaged {person}.",
               "Done — I've set the reminder and sent {person} a text.",
               "Both done: you'll be reminded {when}, and {person} got a message."]}),
}
NOTIFY_TEXT = {  # the message sent with the reminder: (after an update, after a new reminder)
    "update_reminder": {"zh": ["{thing}改到{when}了", "跟你说一声,{thing}的时间换成{when}了"],
                        "en": ["Heads up: {thing} moved to {when}", "FYI, {thing} is now {when}"]},
    "create_reminder": {"zh": ["我{when}要{thing}", "{when}{thing},到时候一起"],
                        "en": ["I'm going to {thing} {when}", "Planning to {thing} {when}"]}}

VALUE_GOALS = {
    ("reminder", "zh"): ["{when}提醒我{thing}", "提醒我{when}{thing}", "{when}叫我{thing}", "帮我设个提醒,{when}{thing}",
                         "{thing},{when}提醒一下"],
    ("reminder", "en"): ["Remind me to {thing} {when}", "Set a reminder {when} to {thing}", "Ping me {when} to {thing}",
                         "I need a reminder to {thing}, {when}"],
    ("update", "zh"): ["把{thing}的提醒改到{when}", "{thing}那个提醒换成{when}吧"],
    ("update", "en"): ["Move the {thing} reminder to {when}", "Change my {thing} reminder to {when}"],
    ("repeat", "zh"): ["{rep}{time}提醒我{thing}", "以后{rep}{time}都提醒我{thing}", "设个重复提醒:{rep}{time},{thing}"],
    ("repeat", "en"): ["Remind me {rep} at {time} to {thing}", "Set a repeating reminder, {rep} at {time}: {thing}",
                       "I want a reminder to {thing} {rep} at {time}"],
    ("todo", "zh"): ["把「{thing}」加到{day}的清单", "{day}的待办加一条:{thing}"],
    ("todo", "en"): ["Add '{thing}' to my list for {dayn}", "New to-do for {dayn}: {thing}"],
    ("message", "zh"): ["给{person}发消息:{msg}", "帮我跟{person}说:{msg}"],
    ("message", "en"): ["Text {person}: {msg}", "Send {person} this: {msg}"],
}
VALUE_CLAIMS = {
    ("reminder", "zh"): ["好的,已设置{when}提醒你{thing}", "已为您设置{when}的提醒:{thing}", "搞定,{when}会提醒你{thing}",
                         "提醒已创建:{when} {thing}", "已设置为{when},到时提醒你{thing}"],
    ("reminder", "en"): ["Done — I've set a reminder to {thing} {when}.", "Your reminder is set: {thing}, {when}.",
                         "Got it, I'll remind you {when} to {thing}.", "Reminder created for {when}: {thing}."],
    ("update", "zh"): ["改好了,提醒已改到{when}", "已把{thing}的提醒改到{when}", "好的,时间已更新为{when}"],
    ("update", "en"): ["Updated — the {thing} reminder now goes off {when}.", "I've moved it to {when}.",
                       "Done, the reminder is changed to {when}."],
    ("repeat", "zh"): ["好的,已设置{rep}{time}提醒你{thing}", "重复提醒已创建:{rep}{time} {thing}",
                       "搞定,以后{rep}{time}都会提醒你{thing}"],
    ("repeat", "en"): ["Done — you'll be reminded {rep} at {time} to {thing}.",
                       "Repeating reminder set: {thing}, {rep} at {time}.", "All set, I'll remind you {rep} at {time}."],
    ("quoted_reminder", "zh"): ["提醒已设置:「{thing}」,{when}", "已为您创建提醒“{thing}”,{when}响"],
    ("quoted_reminder", "en"): ["Reminder set: \"{thing}\", {when}.", "I've created the reminder '{thing}' for {when}."],
    ("todo", "zh"): ["已添加到{day}的清单:「{thing}」", "好的,“{thing}”已经加到{day}的待办里了"],
    ("todo", "en"): ["Added '{thing}' to your list for {dayn}.", "Done — \"{thing}\" is on your to-do list for {dayn}."],
    ("message", "zh"): ["发好了:「{msg}」", "已经发给{person}了,内容是“{msg}”"],
    ("message", "en"): ["Sent! I told {person}: \"{msg}\".", "Message sent to {person}: '{msg}'"],
}
# the same claims without the value: the reply says nothing of the field the args got wrong
VALUE_CLAIMS_BARE = {
    ("reminder", "zh"): ["好的,{thing}的提醒设好了", "已为您设置好提醒:{thing}"],
    ("reminder", "en"): ["Done — your reminder to {thing} is set.", "All set, reminder created."],
    ("update", "zh"): ["好的,{thing}的提醒已经改好了"],
    ("update", "en"): ["Done, the {thing} reminder is updated."],
    ("repeat", "zh"): ["好的,重复提醒设好了:{thing}", "已设置,{time}提醒你{thing}"],
    ("repeat", "en"): ["Done — the repeating reminder to {thing} is set.", "All set: {thing} at {time}."],
}
HONEST_STORED = {
    "zh": ["提醒虽然写进去了,但读回来的时间是{stored},不是你要的{time},我先不算它设好了;要我改成{time}吗?",
           "抱歉,保存后核对发现提醒存成了{stored},和你说的{time}对不上。我重新建一条{time}的好吗?",
           "这条提醒的时间存错了:系统里是{stored},不是{time}。我没法确认它是对的,要我修正吗?"],
    "en": ["The reminder was saved, but it reads back as {stored} rather than {time}, so I can't say it's set "
           "correctly. Want me to fix it?",
           "Heads up: the reminder came out as {stored}, not the {time} you asked for. Shall I correct it?",
           "Something's off: the stored time is {stored}, not {time}. I haven't confirmed it; should I redo it?"],
}
VALUE_FIELDS = {"when": "reminder", "time": "reminder", "rep": "reminder", "thing": "reminder"}


def zh_period(h: int) -> str:
    return ("凌晨" if h < 6 else "早上" if h < 9 else "上午" if h < 12 else "中午" if h == 12 else "下午" if h < 18
            else "傍晚" if h == 18 else "晚上")


def hm_text(hm: str, lang: str, style: str) -> str:
    """A clock time said without am/pm doubt, in one of several forms."""
    h, m = int(hm[:2]), int(hm[3:])
    h12 = h % 12 or 12
    if style == "24h":
        return hm  # only offered from 13:00 on (time_styles)
    if lang == "zh":
        tail = "" if m == 0 else "半" if m == 30 else "%d分" % m
        if style == "cn":
            return f"{zh_period(h)}{ZH_NUM[h12]}点{tail}"
        if style == "clock":
            return f"{zh_period(h)}{h12}:{m:02d}"
        return f"{zh_period(h)}{h12}点{tail}"  # digit (and contract, after 明早/明晚/今晚)
    ap = "AM" if h < 12 else "PM"
    mins = "" if m == 0 else ":%02d" % m
    if style == "ampm_lc":
        return f"{h12}{mins}{ap.lower()}"
    if style == "spaced":
        return f"{h12}:{m:02d} {ap.lower()}"
    if style == "phrase":
        return f"{h12}{mins} in the {'morning' if h < 12 else 'afternoon' if h < 18 else 'evening'}"
    return f"{h12}{mins} {ap}"


def time_styles(lang: str, hm: str, off: int) -> list:
    h = int(hm[:2])
    styles = ["cn", "digit", "clock"] if lang == "zh" else ["ampm", "ampm_lc", "spaced"] + (["phrase"] if h != 12 else [])
    if h >= 13:
        styles.append("24h")
    if lang == "zh" and ((off == 1 and zh_period(h) in ("早上", "晚上")) or (off == 0 and zh_period(h) == "晚上")):
        styles.append("contract")
    return styles


def day_word(lang: str, off: int, date: str, bare: bool = False) -> str:
    wd = time.strptime(date, "%Y-%m-%d").tm_wday
    if lang == "zh":
        return ("今天", "明天", "后天")[off] if off < 3 else ZH_WEEKDAYS[wd]
    if off < 3:
        return ("today", "tomorrow", "the day after tomorrow")[off]
    return EN_WEEKDAYS[wd] if bare else "on " + EN_WEEKDAYS[wd]


def when_text(lang: str, wd: int, off: int, hm: str, style: str, order: int) -> str:
    """Day and time as one phrase: 明天晚上八点, 明晚8点, 周五20:00; tomorrow at 8 PM, 8pm on Friday."""
    h = int(hm[:2])
    if style == "contract":
        return {1: {"早上": "明早", "晚上": "明晚"}, 0: {"晚上": "今晚"}}[off][zh_period(h)] + \
            hm_text(hm, lang, "digit")[2:]
    t = hm_text(hm, lang, style)
    if lang == "zh":
        return (("今天", "明天", "后天")[off] if off < 3 else ZH_WEEKDAYS[wd]) + t
    day = ("today", "tomorrow", "the day after tomorrow")[off] if off < 3 else EN_WEEKDAYS[wd]
    if style == "phrase":  # tomorrow evening at 8, Friday morning at 7:30, this afternoon at 2
        num, part = t.split(" in the ")
        if off == 2:
            return f"the day after tomorrow at {num} in the {part}"
        return f"{'this' if off == 0 else day} {part} at {num}"
    return f"{day} at {t}" if order == 0 else f"{t} {day}"


class Fields(dict):
    """Template fields of one intent, drawn on first use (a --scale run draws only what it uses)."""

    def __init__(self, gen: "Gen", lang: str, t: float) -> None:
        super().__init__()
        self.gen, self.lang, self.t = gen, lang, t

    def __missing__(self, key: str):
        g, lang = self.gen, self.lang
        if key == "thing2":
            v = g.pick(THINGS[lang])
            while v == self["thing"]:
                v = g.pick(THINGS[lang])
        elif key in ("event", "date", "n"):
            ev_at = local_midnight(self.t) + (10 + int(g.rng.random() * 200)) * 86400
            self["event"] = g.pick(EVENTS[lang])
            self["date"] = local_date(ev_at)
            self["n"] = (ev_at - local_midnight(self.t)) // 86400
            return self[key]
        else:
            pool = {"thing": THINGS, "person": PEOPLE, "msg": MSGS, "city": CITIES, "topic": TOPICS}.get(key)
            if pool is not None:
                v = g.pick(pool[lang])
            elif key == "alt":
                v = g.pick(ALT_TIMES)
            else:
                raise KeyError(key)
        self[key] = v
        return v


class Ids:
    def __init__(self) -> None:
        self.task = 10000
        self.step = 50000
        self.audit = 900000
        self.message = 200000
        self.trace = 0
        self.record = 88000  # ids of reminders / todos the tools create


class Gen:
    """Decides the turns. All randomness flows through one Random in a fixed order."""

    def __init__(self, seed: int, scale: int) -> None:
        self.rng = Random(seed)
        self._random = self.rng.random
        self.scale = scale
        self.ids = Ids()
        r = self.rng
        n_users = BASE_USERS * scale
        self.users = r.sample(range(100, 100 + n_users * 8), n_users)
        self.user_lang = {u: ("zh" if r.random() < 0.6 else "en") for u in self.users}
        self.user_city = {u: r.randrange(6) for u in self.users}
        cum, acc = [], 0.0
        for _ in self.users:
            acc += r.paretovariate(1.6)
            cum.append(acc)
        self.user_cum = cum
        self.conv_counter = 0
        self.asked_by_goal: dict = {}  # request text -> what it asks for (this turn's requests only)
        mix_cum, acc = [], 0.0
        for _, w in SEED004_MIX:
            acc += w / 100.0
            mix_cum.append(acc)
        self.mix004 = mix_cum
        self.mix001_cum = []
        acc = 0.0
        for _, w in SEED001_MIX:
            acc += w
            self.mix001_cum.append(acc)
        # the claimed-action and claimed-value turns draw from a Random of their own (and take record
        # ids from a range of their own), so adding them left every other turn as it was
        self.rng_values = Random(seed * 1000003 + 15)
        self.value_record = 500000
        self.value_conv = VALUE_CONV_BASE
        self.value_decks: dict = {False: [], True: []}

    # ---- small helpers --------------------------------------------------------------
    def pick(self, seq):
        return seq[int(self._random() * len(seq))]

    def user(self, rng: Optional[Random] = None) -> int:
        x = (rng or self.rng).random() * self.user_cum[-1]
        return self.users[bisect.bisect_left(self.user_cum, x)]

    def new_conversation(self) -> int:
        self.conv_counter += 1
        return self.conv_counter

    def next_record_id(self) -> int:
        self.ids.record += 1 + int(self.rng.random() * 3)
        return self.ids.record

    # ---- turn skeletons, chronological ------------------------------------------------
    def skeletons(self) -> Iterator[tuple]:
        """(start, order, source, user, conversation) in time order, one hour at a time."""
        r = self.rng
        wsum = 0.0
        weights = []
        for h in range(HOURS):
            t = MONTH_START + h * 3600
            w = HOUR_WEIGHTS[(h % 24)] * (0.8 if local_weekday(t) >= 5 else 1.0)
            weights.append(w)
            wsum += w
        turns_per_conv = 1.95  # mean of the k drawn below
        conv_total = BASE_SEED004_TURNS * self.scale / turns_per_conv
        trace_total = BASE_SEED001_TRACES * self.scale
        value_total = BASE_VALUE_TURNS * self.scale
        heap: list = []
        order = 0
        last_ok = MONTH_END - 90
        for h in range(HOURS):
            h0 = MONTH_START + h * 3600
            n_conv = int(conv_total * weights[h] / wsum + r.random())
            for _ in range(n_conv):
                u = self.user()
                conv = self.new_conversation()
                t = h0 + r.random() * 3600
                k = 1 + int(r.random() * 2.4) + (1 if r.random() < 0.2 else 0)
                for _ in range(k):
                    if t >= last_ok:
                        break
                    order += 1
                    heapq.heappush(heap, (t, order, "seed004", u, conv, ""))
                    t += 25 + r.random() * 200
            n_tr = int(trace_total * weights[h] / wsum + r.random())
            for _ in range(n_tr):
                t = h0 + r.random() * 3600
                if t >= last_ok:
                    continue
                order += 1
                heapq.heappush(heap, (t, order, "seed001", self.user(), self.new_conversation(), ""))
            rv = self.rng_values
            for _ in range(int(value_total * weights[h] / wsum + rv.random())):
                t, u = h0 + rv.random() * 3600, self.user(rv)
                if t >= last_ok:
                    continue
                order += 1
                self.value_conv += 1
                heapq.heappush(heap, (t, order, "seed004", u, self.value_conv, "values"))
            if h == HOURS - 1:  # a couple of tasks still running at the month's end (not stuck yet)
                for dt in (MONTH_END - 270 + r.random() * 20, MONTH_END - 100 + r.random() * 20):
                    order += 1
                    heapq.heappush(heap, (dt, order, "seed004", self.user(), self.new_conversation(),
                                          "running_recent"))
            horizon = h0 + 3600
            while heap and heap[0][0] < horizon:
                yield heapq.heappop(heap)
        while heap:
            yield heapq.heappop(heap)

    # ---- building blocks --------------------------------------------------------------
    def when(self, lang: str, t: float) -> dict:
        """A day + time phrase and the absolute local datetime it means."""
        r = self.rng
        ttxt, hm = self.pick(TIMES[lang])
        hh, mm = int(hm[:2]), int(hm[3:])
        x = r.random()
        today = local_midnight(t)
        if x < 0.45:
            off, d = 1, ("明天" if lang == "zh" else "tomorrow")
        elif x < 0.6:
            off, d = 2, ("后天" if lang == "zh" else "the day after tomorrow")
        elif x < 0.72 and (t - today) / 3600 < hh - 1:
            off, d = 0, ("今天" if lang == "zh" else "today")
        elif x < 0.9:
            wd = int(r.random() * 7)
            off = (wd - local_weekday(t)) % 7 or 7
            d = ZH_WEEKDAYS[wd] if lang == "zh" else "on " + EN_WEEKDAYS[wd]
        else:
            off = 7 - local_weekday(t)
            d = "下周一" if lang == "zh" else "next Monday"
        at = today + off * 86400 + hh * 3600 + mm * 60
        dayn = d[3:] if d.startswith("on ") else d  # "Friday" where "on Friday" does not read
        # today's own weekday means a week from today here; read as today, it is not wrong either
        alt = local_date(today + 43200) if off == 7 and x < 0.9 else None
        return {"day": d, "dayn": dayn, "time": ttxt, "at": at, "at_s": fmt_local(at), "date": local_date(at),
                "date_alt": alt}

    def fill(self, tmpl: str, f: dict) -> str:
        return tmpl.format_map(f)

    def goal(self, kind: str, tmpl: str, f: dict) -> str:
        """Fill a request template and note what it asks for (time, date, count, repeat; not content)."""
        text = self.fill(tmpl, f)
        self.asked_by_goal[text] = stated(tmpl, f, FIELD_OBJECTS.get(kind, {}), content=False)
        return text

    def intent(self, lang: str, t: float, kind: str) -> dict:
        w = self.when(lang, t)
        f = Fields(self, lang, t)
        f["day"], f["dayn"], f["time"] = w["day"], w["dayn"], w["time"]
        f["_hm"], f["_date"], f["_date_alt"] = w["at_s"][11:16], w["date"], w["date_alt"]
        return {"kind": kind, "f": f, "w": w, "goal": self.goal(kind, self.pick(GOALS[(kind, lang)]), f)}

    def write_args(self, tool: str, it: dict) -> dict:
        f, w = it["f"], it["w"]
        if tool == "create_reminder":
            return {"content": f["thing"], "remind_at": w["at_s"]}
        if tool == "update_reminder":
            return {"reminder_id": self.next_record_id(), "remind_at": w["at_s"]}
        if tool == "delete_reminder":
            return {"reminder_id": self.next_record_id()}
        if tool == "create_todo":
            return {"title": f["thing2"] if it["kind"] == "two" else f["thing"], "task_date": w["date"]}
        if tool == "add_countdown":
            return {"title": f["event"], "target_date": f["date"]}
        if tool == "send_message":
            return {"to": f["person"], "text": f["msg"]}
        raise ValueError(tool)

    def reason(self, tool: str, lang: str, it: Optional[dict]) -> str:
        tmpl = REASONS.get(tool, {"zh": "执行步骤", "en": "run step"})[lang]
        if it is None:
            return tmpl.format(when="", what="")
        return tmpl.format(when=it["w"]["at_s"][:16] if tool != "create_todo" else it["w"]["date"],
                           what=it["f"]["thing"])

    def add(self, turn: Turn, tool: str, args: dict, *, status="success", verified="auto", attempts=1,
            error=None, detail=None, it=None, result=None, dur=None) -> Step:
        r = self.rng
        cur = turn.steps[-1].end if turn.steps and turn.steps[-1].end is not None else turn.task_start
        start = cur + 0.05 + r.random() * 0.35
        if dur is None:
            if status == "running":
                dur = None
            elif error and ("timeout" in error or "Timeout" in error or "timed out" in error):
                dur = attempts * (3.0 + r.random() * 0.4)
            elif tool in WRITE_TOOLS:
                dur = 0.25 + r.random() * 1.1
            else:
                dur = 0.1 + r.random() * 0.8
        if verified == "auto":
            if tool in WRITE_TOOLS:
                verified = status == "success"
            else:
                verified = None
        if status == "running":
            verified = None
        if detail is None and status == "success" and tool in WRITE_TOOLS:
            detail = TOOL_DETAIL[tool][turn.lang].format(id=self.next_record_id())
        s = Step(seq=len(turn.steps) + 1, tool=tool, args=args, reason=self.reason(tool, turn.lang, it),
                 status=status, verified=verified, attempts=attempts, error=error, detail=detail, start=start,
                 end=None if dur is None else start + dur, result=result)
        turn.steps.append(s)
        return s

    def read_step(self, turn: Turn, tool: str, it: Optional[dict] = None, top_k: Optional[int] = None,
                  query: Optional[str] = None) -> Step:
        lang, r = turn.lang, self.rng
        if tool == "list_reminders":
            date = it["w"]["date"] if it else local_date(turn.start + 86400)
            n = int(r.random() * 5)
            res = {"count": n, "items": [{"id": self.next_record_id(), "content": self.pick(THINGS[lang]),
                                          "remind_at": date + " " + self.pick(TIMES[lang])[1] + ":00"}
                                         for _ in range(n)]}
            return self.add(turn, tool, {"date": date}, detail=f"{n} items", result=res)
        if tool == "search_notes":
            q = query or (it["f"]["topic"] if it else self.pick(TOPICS[lang]))
            k = top_k if top_k is not None else self.pick([3, 5, 5, 5, 8, 10])
            n = max(0, min(k, int(r.random() * 6)))
            res = {"hits": [{"note_id": "n-%d" % self.next_record_id(), "title": q, "score": round(0.9 - i * 0.1, 2)}
                            for i in range(n)]}
            return self.add(turn, tool, {"query": q, "top_k": k}, detail=f"{n} hits", result=res)
        if tool == "get_weather":
            city = it["f"]["city"] if it else CITIES[lang][self.user_city[turn.user_id]]
            date = it["w"]["date"] if it else local_date(turn.start + 86400)
            wx = self.pick(WEATHER[lang])
            return self.add(turn, tool, {"city": city, "date": date}, detail=wx, result=wx)
        raise ValueError(tool)

    def verify_step(self, turn: Turn, goal: str, ready: bool, missing=(), errors=(), actual: str = "") -> Step:
        lang = turn.lang
        args = {"task_goal": goal, "actual_result": actual or ("已完成" if lang == "zh" else "done"),
                "missing_items": list(missing), "errors_found": list(errors), "is_ready": ready}
        clean = ready and not missing and not errors
        msg = ("验证已通过,请给出最终答案" if clean else "验证发现问题,请修正后再次调用 verify_result") if lang == "zh" \
            else ("verification passed, give the final answer" if clean else "verification found problems, fix and verify again")
        return self.add(turn, SENTINEL_TOOL, args, detail=msg, result={"passed": clean, "message": msg})

    def audit_for(self, turn: Turn, s: Step, result: Optional[str] = None) -> None:
        if turn.source != "seed004":
            return
        ok = s.status == "success" and s.verified is True
        t = (s.end if s.end is not None else s.start) + self.rng.random() * 0.8
        turn.audits.append(Audit(action=s.tool, result=result or ("SUCCESS" if ok else "FAIL"), t=t,
                                 with_task=self.rng.random() < 0.7, step_seq=s.seq))

    def say(self, turn: Turn, kind: str, tmpl: str, f: dict) -> str:
        """Fill a claim template; the turn notes the values it states and the actions it names."""
        turn.said = stated(tmpl, f, FIELD_OBJECTS.get(kind, {}))
        turn.claimed = claim_actions(kind, tmpl)
        return self.fill(tmpl, f)

    def claim(self, turn: Turn, it: dict, kind: Optional[str] = None) -> str:
        kind = kind or it["kind"]
        return self.say(turn, kind, self.pick(CLAIMS[(kind, turn.lang)]), it["f"])

    def embedded(self, turn: Turn, it: dict) -> str:
        return self.say(turn, "embedded", self.pick(EMBEDDED[turn.lang]), it["f"])

    def honest(self, turn: Turn, it: dict, cause: str) -> str:
        return self.fill(self.pick(HONEST[cause][turn.lang]), it["f"])

    def db_error(self) -> str:
        return self.pick(DB_ERRORS).format(n=3000 + int(self.rng.random() * 60000))

    def readback_error(self, tool: str, args: dict, incident: bool, lang: str) -> str:
        r = self.rng
        if tool == "create_reminder" and incident:
            exp = args["remind_at"]
            got = fmt_local(calendar.timegm(time.strptime(exp, "%Y-%m-%d %H:%M:%S")) - TZ_OFFSET - TZ_OFFSET)
            return f"read-back mismatch: remind_at differs (expected {exp}, got {got})"
        x = r.random()
        if tool == "create_reminder" and x < 0.4:
            exp = args["remind_at"]
            shift = self.pick([1800, -1800, 3600, 43200])
            got = fmt_local(calendar.timegm(time.strptime(exp, "%Y-%m-%d %H:%M:%S")) - TZ_OFFSET + shift)
            return f"read-back mismatch: remind_at differs (expected {exp}, got {got})"
        if "content" in args and x < 0.7:
            return f"read-back mismatch: content differs (expected '{args['content']}', got '')"
        return f"read-back: record id={self.next_record_id()} not found"

    # ---- seed004 turns ----------------------------------------------------------------
    def choose004(self, t: float) -> str:
        x = self.rng.random()
        i = bisect.bisect_right(self.mix004, x)
        return SEED004_SCENARIOS[i] if i < len(SEED004_SCENARIOS) else "ok"

    def versions004(self, turn: Turn, weak_model_bias: float = 0.5) -> None:
        r = self.rng
        turn.agent_version = "2.4.0" if turn.start >= INCIDENT_START else "2.3.0"
        turn.model = "qwen2.5-7b" if r.random() < weak_model_bias else "gpt-4o-mini"
        week = int((turn.start - MONTH_START) // (7 * 86400))
        p18 = (0.0, 0.5, 0.9, 1.0)[min(week, 3)]
        turn.prompt_version = "p18" if r.random() < p18 else "p17"

    def build004(self, start: float, user: int, conv: str, forced: str) -> Turn:
        r = self.rng
        self.asked_by_goal.clear()
        lang = self.user_lang[user]
        turn = Turn(source="seed004", lang=lang, user_id=user, conversation_id=conv_id(conv), start=start,
                    conv_no=conv)
        scen = self.choose_value(start >= INCIDENT_START) if forced == "values" else forced or self.choose004(start)
        if scen == "stuck_running" and start > NOW - STUCK_AFTER - 120:
            scen = "ok"
        incident = start >= INCIDENT_START
        turn.task_start = start + 0.5 + r.random() * 1.5  # task create_time follows the user message
        claimy = scen in ("not_executed", "failed_write", "unverified", "not_created", "partial", "embedded_claim",
                          "claimed_action_missing", "reply_value_wrong")
        self.versions004(turn, 0.7 if claimy else 0.45)
        getattr(self, "s004_" + scen)(turn, scen, incident)
        return self.finish004(turn)

    def finish004(self, turn: Turn) -> Turn:
        r = self.rng
        if turn.has_task:
            self.ids.task += 1
            turn.task_id = self.ids.task
            for s in turn.steps:
                self.ids.step += 1
                s.step_id = self.ids.step
            if turn.status != "running":
                last = turn.steps[-1].end if turn.steps else turn.task_start + 0.3
                turn.finish = last + 0.1 + r.random() * 0.4
                ok = sum(1 for s in turn.steps if s.status == "success" and s.verified is not False)
                turn.status = ("success" if turn.steps and ok == len(turn.steps)
                               else "failed" if ok == 0 else "partial")
        user_msg = Message("user", turn.goal, turn.start, False)
        self.ids.message += 1
        user_msg.msg_id = self.ids.message
        turn.messages.append(user_msg)
        if turn.reply is not None:
            base = turn.finish if turn.has_task and turn.finish is not None else turn.task_start
            turn.reply_t = base + 1.0 + r.random() * 2.0
            m = Message("assistant", turn.reply, turn.reply_t, turn.has_task and r.random() < 0.6)
            self.ids.message += 1
            m.msg_id = self.ids.message
            turn.messages.append(m)
        for a in turn.audits:
            self.ids.audit += 1
            a.audit_id = self.ids.audit
        self.label(turn)
        return turn

    def label(self, turn: Turn) -> None:
        if not turn.asked:
            turn.asked = self.asked_by_goal.get(turn.goal, [])
        turn.sbnd = said_but_not_done_kind(turn)
        turn.rules = derive_rules(turn)
        expect = turn.expect_sbnd
        if expect is not None and expect != turn.sbnd:
            raise AssertionError(f"{turn.scenario}/{turn.variant}: intended sbnd {expect}, derived {turn.sbnd}")

    def simple_write(self, turn: Turn, it: dict) -> str:
        return {"create_reminder": "create_reminder", "update_reminder": "update_reminder",
                "delete_reminder": "delete_reminder", "create_todo": "create_todo",
                "add_countdown": "add_countdown", "send_message": "send_message"}[it["kind"]]

    def write_intent(self, turn: Turn, reminder_bias: float = 0.55) -> dict:
        x = self.rng.random()
        if x < reminder_bias:
            kind = "create_reminder"
        else:
            kind = self.pick(["create_todo", "create_todo", "add_countdown", "update_reminder", "delete_reminder",
                              "send_message", "update_reminder"])
        it = self.intent(turn.lang, turn.start, kind)
        turn.goal = it["goal"]
        return it

    def maybe_sentinel004(self, turn: Turn, it: dict, p: float = 0.2) -> None:
        if turn.agent_version == "2.4.0" and self.rng.random() < p:
            self.verify_step(turn, turn.goal, True)

    def s004_ok(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = "ok"
        x = r.random()
        if x < 0.18:  # read-only turns
            kind = self.pick(["list", "list", "weather", "notes"])
            it = self.intent(turn.lang, turn.start, kind)
            turn.goal = it["goal"]
            tool = {"list": "list_reminders", "weather": "get_weather", "notes": "search_notes"}[kind]
            s = self.read_step(turn, tool, it)
            f = it["f"]
            if kind == "list":
                f["n"] = s.result["count"]
                f["items"] = ("、" if turn.lang == "zh" else ", ").join(i["content"] for i in s.result["items"]) \
                    or ("没有安排" if turn.lang == "zh" else "nothing")
            elif kind == "weather":
                f["weather"] = s.result
            else:
                f["n"] = len(s.result["hits"])
            turn.reply = self.fill(self.pick(READ_REPLIES[(kind, turn.lang)]), f)
            turn.variant = "read_" + kind
            return
        it = self.write_intent(turn, 0.62)
        tool = self.simple_write(turn, it)
        if tool in ("update_reminder", "delete_reminder") and r.random() < 0.5:
            self.read_step(turn, "list_reminders", it)
        args = self.write_args(tool, it)
        if tool == "create_reminder" and incident and r.random() < 0.3:
            # the 2.4.0 time-zone bug: remind_at is read back 8 hours early
            s = self.add(turn, tool, args, verified=False, it=it,
                         error=self.readback_error(tool, args, True, turn.lang))
            self.audit_for(turn, s)
            self.maybe_sentinel004(turn, it, 0.25)
            if r.random() < 0.6:
                turn.scenario, turn.variant = "unverified", "tz_incident"
                turn.reply = self.claim(turn, it) if r.random() < 0.8 else \
                    self.embedded(turn, it)
                turn.reply_is_claim = True
                turn.expect_sbnd = "unverified"
            else:
                turn.scenario, turn.variant = "honest", "tz_incident"
                turn.reply = self.honest(turn, it, "unverified")
            return
        s = self.add(turn, tool, args, it=it)
        self.audit_for(turn, s)
        self.maybe_sentinel004(turn, it)
        if r.random() < 0.12 and tool == "create_reminder":
            turn.reply = self.embedded(turn, it)
            turn.variant = "embedded"
        else:
            turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "none"

    def s004_not_executed(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        it = self.write_intent(turn, 0.75)
        tool = self.simple_write(turn, it)
        x = r.random()
        if x < 0.35:
            turn.has_task, turn.variant = False, "no_task"
        elif x < 0.48:
            turn.variant = "zero_steps"
        elif x < 0.62:
            turn.variant = "read_only"
            self.read_step(turn, "list_reminders", it)
        else:
            y = r.random()
            if y < 0.45:
                turn.variant = "not_logged_in"
                s = self.add(turn, tool, self.write_args(tool, it), status="failed", verified=False,
                             error="not logged in", it=it, dur=0.01 + r.random() * 0.03)
                self.audit_for(turn, s)
            elif y < 0.8:
                turn.variant = "permission_denied"
                s = self.add(turn, tool, self.write_args(tool, it), status="failed", verified=False,
                             error="permission denied: WRITE", it=it, dur=0.01 + r.random() * 0.03)
                self.audit_for(turn, s)
            else:
                turn.variant = "unknown_tool"
                bad = self.pick(UNKNOWN_TOOLS)
                self.add(turn, bad, self.write_args(tool, it), status="failed", verified=False,
                         error=f"unknown tool: {bad}", it=it, dur=0.005)
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "not_executed"

    def failed_step(self, turn: Turn, it: dict, tool: str, error: Optional[str] = None) -> Step:
        s = self.add(turn, tool, self.write_args(tool, it), status="failed", verified=False, attempts=2,
                     error=error or self.db_error(), it=it)
        self.audit_for(turn, s)
        return s

    def s004_failed_write(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.write_intent(turn, 0.5)
        self.failed_step(turn, it, self.simple_write(turn, it))
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "failed"

    def s004_unverified(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.write_intent(turn, 0.3)
        tool = self.simple_write(turn, it)
        args = self.write_args(tool, it)
        s = self.add(turn, tool, args, verified=False, it=it,
                     error=self.readback_error(tool, args, False, turn.lang))
        self.audit_for(turn, s)
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "unverified"

    def not_created_step(self, turn: Turn, it: dict, conflict: bool) -> Step:
        args = self.write_args("create_reminder", it)
        if conflict:
            s = self.add(turn, "create_reminder", args, verified=False, detail=DETAIL_CONFLICT[turn.lang], it=it)
        else:
            s = self.add(turn, "create_reminder", args, verified=True, detail=DETAIL_DUPLICATE[turn.lang], it=it)
        self.audit_for(turn, s)
        return s

    def s004_not_created(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "create_reminder")
        turn.goal = it["goal"]
        conflict = self.rng.random() < 0.36
        turn.variant = "conflict" if conflict else "duplicate"
        self.not_created_step(turn, it, conflict)
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "not_created"

    def two_writes(self, turn: Turn, it: dict, fail_second: bool) -> None:
        a = self.add(turn, "create_reminder", self.write_args("create_reminder", it), it=it)
        self.audit_for(turn, a)
        b = self.failed_step(turn, it, "create_todo") if fail_second else \
            self.add(turn, "create_todo", self.write_args("create_todo", it), it=it)
        if not fail_second:
            self.audit_for(turn, b)

    def s004_partial(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "two")
        turn.goal = it["goal"]
        if self.rng.random() < 0.5:
            self.two_writes(turn, it, True)
        else:  # first write fails, second lands
            b = self.failed_step(turn, it, "create_reminder")
            c = self.add(turn, "create_todo", self.write_args("create_todo", it), it=it)
            self.audit_for(turn, c)
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "partial"

    def s004_honest(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        cause = self.pick(HONEST_CAUSES)
        turn.variant = cause
        if cause == "partial":
            it = self.intent(turn.lang, turn.start, "two")
            turn.goal = it["goal"]
            self.two_writes(turn, it, True)
        else:
            it = self.intent(turn.lang, turn.start, "create_reminder")
            turn.goal = it["goal"]
            args = self.write_args("create_reminder", it)
            if cause == "not_logged_in":
                if r.random() < 0.5:
                    turn.has_task = False
                else:
                    self.audit_for(turn, self.add(turn, "create_reminder", args, status="failed", verified=False,
                                                  error="not logged in", it=it, dur=0.02))
            elif cause == "permission":
                self.audit_for(turn, self.add(turn, "create_reminder", args, status="failed", verified=False,
                                              error="permission denied: WRITE", it=it, dur=0.02))
            elif cause == "failed":
                self.failed_step(turn, it, "create_reminder")
            elif cause in ("conflict", "duplicate"):
                self.not_created_step(turn, it, cause == "conflict")
            else:
                s = self.add(turn, "create_reminder", args, verified=False, it=it,
                             error=self.readback_error("create_reminder", args, False, turn.lang))
                self.audit_for(turn, s)
        turn.reply = self.honest(turn, it, cause)
        turn.expect_sbnd = "none"

    def s004_clarify(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "vague")
        turn.goal = it["goal"]
        x = self.rng.random()
        if x < 0.4:
            turn.has_task, turn.variant = False, "no_task"
        elif x < 0.75:
            turn.variant = "read_only"
            self.read_step(turn, "list_reminders", it)
        else:
            turn.variant = "zero_steps"
        turn.reply = self.fill(self.pick(CLARIFY[turn.lang]), it["f"])
        turn.expect_sbnd = "none"

    def s004_embedded_claim(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "create_reminder")
        turn.goal = it["goal"]
        if r.random() < 0.82:
            turn.variant = "failed"
            self.failed_step(turn, it, "create_reminder")
            turn.expect_sbnd = "failed"
        else:
            turn.variant = "unverified"
            args = self.write_args("create_reminder", it)
            s = self.add(turn, "create_reminder", args, verified=False, it=it,
                         error=self.readback_error("create_reminder", args, incident, turn.lang))
            self.audit_for(turn, s)
            turn.expect_sbnd = "unverified"
        turn.reply = self.embedded(turn, it)
        turn.reply_is_claim = True

    def s004_duplicate_write(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario, turn.variant = scen, "opcode_double_write"
        it = self.intent(turn.lang, turn.start, "create_reminder")
        turn.goal = it["goal"]
        args = self.write_args("create_reminder", it)
        for _ in range(2):
            s = self.add(turn, "create_reminder", dict(args), it=it)
            self.audit_for(turn, s)
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "none"

    def s004_stuck_running(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.write_intent(turn, 0.7)
        tool = self.simple_write(turn, it)
        if self.rng.random() < 0.4:
            self.read_step(turn, "list_reminders", it)
        self.add(turn, tool, self.write_args(tool, it), status="running", it=it)
        turn.status = "running"
        turn.variant = "no_finish"
        turn.expect_sbnd = "none"

    def s004_running_recent(self, turn: Turn, scen: str, incident: bool) -> None:
        self.s004_stuck_running(turn, scen, incident)
        turn.scenario, turn.variant = "running_recent", "started_in_last_5_min"

    def s004_audit_mismatch(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        x = r.random()
        kinds = ["create_todo", "add_countdown"] if x < 0.35 else ["create_reminder", "create_reminder",
                                                                 "create_todo", "add_countdown"]
        it = self.intent(turn.lang, turn.start, self.pick(kinds))
        turn.goal = it["goal"]
        tool = it["kind"]
        args = self.write_args(tool, it)
        if x < 0.35:  # self-praise on an unverified step
            turn.variant = "self_praise_unverified"
            s = self.add(turn, tool, args, verified=False, it=it, error=self.readback_error(tool, args, False, turn.lang))
            self.audit_for(turn, s, "SUCCESS")
            turn.reply = self.honest(turn, it, "unverified")
        elif x < 0.65:  # self-praise on a failed step
            turn.variant = "self_praise_failed"
            s = self.add(turn, tool, args, status="failed", verified=False, attempts=2, error=self.db_error(), it=it)
            self.audit_for(turn, s, "SUCCESS")
            turn.reply = self.honest(turn, it, "failed")
        else:  # FAIL recorded for a verified step
            turn.variant = "fail_for_verified"
            s = self.add(turn, tool, args, it=it)
            self.audit_for(turn, s, "FAIL")
            turn.reply = self.claim(turn, it)
            turn.reply_is_claim = True
        turn.expect_sbnd = "none"

    def s004_repeated_failure(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "create_reminder")
        turn.goal = it["goal"]
        at = it["w"]["at_s"]
        err = self.pick(SYSTEMIC_ERRORS).format(bad=at[:8] + "31" + at[10:], raw=it["f"]["day"] + it["f"]["time"])
        turn.variant = "systemic_error"
        self.failed_step(turn, it, "create_reminder", err)
        turn.reply = self.honest(turn, it, "failed")
        turn.expect_sbnd = "none"

    def s004_replanned(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        tool = self.pick(["delete_reminder", "update_reminder"])
        it = self.intent(turn.lang, turn.start, tool)
        turn.goal = it["goal"]
        turn.replanned = True
        bad = self.write_args(tool, it)
        s = self.add(turn, tool, bad, status="failed", verified=False, attempts=1, it=it,
                     error=f"reminder not found: id={bad['reminder_id']}", dur=0.05 + r.random() * 0.1)
        self.audit_for(turn, s)
        self.read_step(turn, "list_reminders", it)  # re-plan: seq continues from plan.size()+1
        good = self.add(turn, tool, self.write_args(tool, it), it=it)
        self.audit_for(turn, good)
        turn.variant = "recovered"
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "none"

    def s004_tool_loop(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "list")
        turn.goal = it["goal"]
        for _ in range(3 + int(self.rng.random() * 2)):
            self.read_step(turn, "list_reminders", it)
        f = it["f"]
        f["n"], f["items"] = 0, ("没有安排" if turn.lang == "zh" else "nothing")
        turn.reply = self.fill(self.pick(READ_REPLIES[("list", turn.lang)]), f)
        turn.variant = "list_reminders_x3+"
        turn.expect_sbnd = "none"

    def s004_max_tool_calls(self, turn: Turn, scen: str, incident: bool) -> None:
        r = self.rng
        turn.scenario = scen
        lang = turn.lang
        n = 10 + int(r.random() * 4)
        it = self.intent(lang, turn.start, "batch")
        it["f"]["n"] = n
        turn.goal = self.goal("batch", self.pick(GOALS[("batch", lang)]), it["f"])
        self.read_step(turn, "list_reminders", it)
        base = it["w"]["at"]
        for d in range(n):
            args = {"content": it["f"]["thing"], "remind_at": fmt_local(base + d * 86400)}
            s = self.add(turn, "create_reminder", args, it=it)
            self.audit_for(turn, s)
        turn.variant = f"batch_{n}"
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "none"

    def s004_argument_bounds(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "notes")
        turn.goal = it["goal"]
        k = self.pick([0, 25, 50, 100, -1])
        s = self.read_step(turn, "search_notes", it, top_k=k)
        turn.variant = f"top_k={k}"
        it["f"]["n"] = len(s.result["hits"])
        turn.reply = self.fill(self.pick(READ_REPLIES[("notes", turn.lang)]), it["f"])
        turn.expect_sbnd = "none"

    def s004_forbidden_tool(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        lang = turn.lang
        turn.goal = "把我所有提醒都清空" if lang == "zh" else "wipe all my reminders"
        self.read_step(turn, "list_reminders")
        s = self.add(turn, "drop_table", {"table": "reminder"}, status="failed", verified=False,
                     error="blocked: tool not permitted", dur=0.01)
        self.audit_for(turn, s)
        turn.variant = "drop_table"
        turn.reply = "这个操作风险太大,我没有执行;要删的话可以一条条确认" if lang == "zh" else \
            "I didn't do that — wiping everything is blocked. I can delete them one by one if you confirm."
        turn.expect_sbnd = "none"

    def s004_sentinel_ignored(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        it = self.intent(turn.lang, turn.start, "two")
        turn.goal = it["goal"]
        self.two_writes(turn, it, False)
        miss = [it["f"]["thing2"]]
        self.verify_step(turn, turn.goal, False, missing=miss)
        turn.variant = "reply_after_not_ready"
        turn.reply = self.claim(turn, it)
        turn.reply_is_claim = True
        turn.expect_sbnd = "none"

    # ---- claimed actions and values (issue 15): their own Random and record ids -----------
    @contextlib.contextmanager
    def value_stream(self):
        saved = self.rng, self._random, self.ids.record
        self.rng, self._random, self.ids.record = self.rng_values, self.rng_values.random, self.value_record
        try:
            yield
        finally:
            self.value_record = self.ids.record
            self.rng, self._random, self.ids.record = saved

    def choose_value(self, incident: bool) -> str:
        deck = self.value_decks[incident]
        if not deck:
            deck += [name for name, n in VALUE_MIX[incident] for _ in range(n)]
            self.rng.shuffle(deck)
        return deck.pop()

    def moment(self, lang: str, t: float, hm: Optional[str] = None, off: Optional[int] = None,
               style: Optional[str] = None) -> dict:
        """A day and a time said explicitly (no am/pm doubt), in one of several forms."""
        hm = hm or self.pick(VALUE_HMS)
        today = local_midnight(t)
        if off is None:
            offs = [1, 1, 1, 2, 3, 4, 5, 6] + ([0] if (t - today) / 3600 < int(hm[:2]) - 1 else [])
            off = self.pick(offs)
        style = style or self.pick(time_styles(lang, hm, off))
        at = today + off * 86400 + int(hm[:2]) * 3600 + int(hm[3:]) * 60
        return {"hm": hm, "off": off, "style": style, "at_s": fmt_local(at), "date": local_date(at),
                "text": when_text(lang, local_weekday(at), off, hm, style, self.pick((0, 1)))}

    def restyle(self, lang: str, t: float, m: dict) -> dict:
        """The same moment said in another form (20:00 / 晚上8点 / 8 PM / 明晚8点)."""
        other = [s for s in time_styles(lang, m["hm"], m["off"]) if s != m["style"]]
        return self.moment(lang, t, m["hm"], m["off"], self.pick(other))

    def wrong_hm(self, hm: str) -> str:
        h, mm = int(hm[:2]), int(hm[3:])
        options = [(h + 12) % 24 if h < 12 else h - 12, h + 1, h - 1, h + 2]
        options = ["%02d:%02d" % (x, mm) for x in options if 6 <= x <= 22]
        if mm == 0:
            options.append("%02d:30" % h)
        return self.pick([o for o in options if o != hm])

    def rep_text(self, lang: str, rep: str, at_s: str) -> str:
        wd = time.strptime(at_s[:10], "%Y-%m-%d").tm_wday
        return self.pick(REPEAT_TEXT[lang][rep]).format(wd=(ZH_WEEKDAYS if lang == "zh" else EN_WEEKDAYS)[wd])

    def repeat_moment(self, lang: str, t: float, rep: str) -> dict:
        """The first time a repeating reminder goes off: tomorrow, the next weekday, or a weekday."""
        wd_tomorrow = local_weekday(t + 86400)
        off = {"daily": 1, "weekdays": 1 if wd_tomorrow < 5 else 8 - wd_tomorrow}.get(rep)
        return self.moment(lang, t, off=off or self.pick([1, 2, 3, 4, 5, 6, 7]))

    def value_fields(self, lang: str, m: dict, thing: Optional[str] = None) -> dict:
        return {"when": m["text"], "time": hm_text(m["hm"], lang, m["style"]), "_hm": m["hm"], "_date": m["date"],
                "day": day_word(lang, m["off"], m["date"]), "dayn": day_word(lang, m["off"], m["date"], True),
                "thing": thing or self.pick(THINGS[lang]), "person": self.pick(PEOPLE[lang]),
                "msg": self.pick(MSGS[lang])}

    def at(self, lang: str, f: dict, m: dict, **more) -> dict:
        """The fields said of another moment (the reply's, or the args')."""
        return dict(f, when=m["text"], time=hm_text(m["hm"], lang, m["style"]), _hm=m["hm"], _date=m["date"],
                    day=day_word(lang, m["off"], m["date"]), dayn=day_word(lang, m["off"], m["date"], True), **more)

    def vgoal(self, turn: Turn, tmpl: str, f: dict, objects: dict) -> None:
        turn.goal = tmpl.format_map(f)
        turn.asked = stated(tmpl, f, objects, content=False)

    def vsay(self, turn: Turn, tmpl: str, f: dict, objects: dict, actions: list) -> None:
        turn.reply = tmpl.format_map(f)
        turn.said = stated(tmpl, f, objects)
        turn.claimed = list(actions)
        turn.reply_is_claim = True

    def value_args(self, tool: str, f: dict, m: dict, lang: str) -> dict:
        if tool == "create_reminder":
            args = {"content": f["thing"], "remind_at": m["at_s"]}
            if "_rep" in f:
                args["repeat"] = f["_rep"]
            return args
        if tool == "add_calendar_event":
            return {"title": f["thing"], "start": m["at_s"]}
        if tool == "update_reminder":
            return {"reminder_id": self.next_record_id(), "remind_at": m["at_s"]}
        if tool == "delete_reminder":
            return {"reminder_id": self.next_record_id()}
        if tool == "create_todo":
            return {"title": f["thing"], "task_date": m["date"]}
        if tool == "send_message":
            return {"to": f["person"], "text": f["msg"]}
        raise ValueError(tool)

    def value_write(self, turn: Turn, tool: str, f: dict, m: dict, **kw) -> Step:
        it = {"w": {"at_s": m["at_s"], "date": m["date"]}, "f": f}
        if tool == "update_reminder" and self.rng.random() < 0.5:
            self.read_step(turn, "list_reminders", it)
        s = self.add(turn, tool, self.value_args(tool, f, m, turn.lang), it=it, **kw)
        self.audit_for(turn, s)
        return s

    def two_actions(self, turn: Turn, missing: bool) -> None:
        r, lang = self.rng, turn.lang
        pair = self.pick(sorted(TWO_ACTIONS))
        tools, goals, claims = TWO_ACTIONS[pair]
        m = self.moment(lang, turn.start)
        f = self.value_fields(lang, m)
        if "send_message" in tools:
            f["msg"] = self.pick(NOTIFY_TEXT[tools[0]][lang]).format_map(f)
        objects = {"when": "reminder"}
        self.vgoal(turn, self.pick(goals[lang]), f, objects)
        gone, how = None, ""
        if missing:
            gone = 1 if r.random() < 0.7 else 0
            how = "never_called" if r.random() < 0.6 else "failed"
        turn.variant = pair + ("/%s_%s" % (tools[gone], how) if missing else "")
        for i, tool in enumerate(tools):
            if i != gone:
                self.value_write(turn, tool, f, m)
            elif how == "failed" and r.random() < 0.7:
                self.value_write(turn, tool, f, m, status="failed", verified=False, attempts=2, error=self.db_error())
            elif how == "failed":
                self.value_write(turn, tool, f, m, verified=False,
                                 error="read-back: record id=%d not found" % self.next_record_id())
        self.vsay(turn, self.pick(claims[lang]), f, objects, [TOOL_ACTION[t] for t in tools])
        turn.expect_sbnd = "partial" if missing else "none"

    def s004_claimed_action_missing(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        self.two_actions(turn, True)

    def s004_claimed_actions_done(self, turn: Turn, scen: str, incident: bool) -> None:
        turn.scenario = scen
        self.two_actions(turn, False)

    def value_turn(self, turn: Turn, field_: str, asked: str, args: str, said: Optional[str],
                   readback: Optional[str] = None, restyle: bool = False) -> None:
        """One write and its value in the request, the call, the reply and the read-back.

        A repeat rule is given as values (`asked`, `args`, `said`, `readback`); a time or a day as
        marks: args "asked" (what the request says) or "other", said "args" (the call's value),
        "wrong" (another one) or None (the reply states no value); content by `said` only."""
        r, lang, t = self.rng, turn.lang, turn.start
        turn.variant = field_
        if field_ in ("time", "date"):
            group = "update" if r.random() < 0.25 else "reminder"
            ma = self.moment(lang, t)
            mb = dict(ma)
            if field_ == "time" and args != asked:
                mb = self.moment(lang, t, self.wrong_hm(ma["hm"]), ma["off"])
            elif args != asked:
                mb = self.moment(lang, t, ma["hm"], self.pick([o for o in (1, 2, 3, 4, 5, 6) if o != ma["off"]]))
            ms = mb
            if said == "wrong" and field_ == "time":
                ms = self.moment(lang, t, self.wrong_hm(mb["hm"]), mb["off"])
            elif said == "wrong":
                ms = self.moment(lang, t, mb["hm"], self.pick([o for o in (1, 2, 3, 4, 5, 6) if o != mb["off"]]))
            elif restyle:
                ms = self.restyle(lang, t, mb)
            f = self.value_fields(lang, ma)
            self.vgoal(turn, self.pick(VALUE_GOALS[(group, lang)]), f, VALUE_FIELDS)
            fb = self.at(lang, f, mb)
            tool = "update_reminder" if group == "update" else "create_reminder"
            self.value_write(turn, tool, fb, mb)
            pool = VALUE_CLAIMS_BARE if said is None else VALUE_CLAIMS
            self.vsay(turn, self.pick(pool[(group, lang)]), self.at(lang, f, ms), VALUE_FIELDS, [TOOL_ACTION[tool]])
            turn.variant = f"{field_}/{group}"
            return
        if field_ == "repeat":
            m = self.repeat_moment(lang, t, asked)
            f = self.value_fields(lang, m)
            self.vgoal(turn, self.pick(VALUE_GOALS[("repeat", lang)]),
                       dict(f, rep=self.rep_text(lang, asked, m["at_s"]), _rep=asked), VALUE_FIELDS)
            err = None if readback is None else \
                f"read-back mismatch: repeat differs (expected {args}, got {readback})"
            self.value_write(turn, "create_reminder", dict(f, _rep=args), m, verified=readback is None, error=err)
            said_rep = args if said in (None, "args") else said
            pool = VALUE_CLAIMS_BARE if said is None else VALUE_CLAIMS
            fs = self.at(lang, f, self.restyle(lang, t, m) if restyle else m,
                         rep=self.rep_text(lang, said_rep, m["at_s"]), _rep=said_rep)
            self.vsay(turn, self.pick(pool[("repeat", lang)]), fs, VALUE_FIELDS, [TOOL_ACTION["create_reminder"]])
            return
        # quoted content: a to-do title, a message, a reminder's text
        group = self.pick(["todo", "message", "quoted_reminder"])
        m = self.moment(lang, t)
        f = self.value_fields(lang, m)
        key = "msg" if group == "message" else "thing"
        tool = {"todo": "create_todo", "message": "send_message", "quoted_reminder": "create_reminder"}[group]
        objects = {"todo": {"day": "todo", "dayn": "todo", "thing": "todo"}, "message": {"msg": "message"},
                   "quoted_reminder": VALUE_FIELDS}[group]
        self.vgoal(turn, self.pick(VALUE_GOALS[("reminder" if group == "quoted_reminder" else group, lang)]),
                   f, objects)
        self.value_write(turn, tool, f, m)
        fs = dict(f)
        if said == "wrong":
            pool = MSGS[lang] if key == "msg" else THINGS[lang]
            fs[key] = self.pick([x for x in pool if x != f[key]])
        self.vsay(turn, self.pick(VALUE_CLAIMS[(group, lang)]), fs, objects, [TOOL_ACTION[tool]])
        turn.variant = f"content/{group}"

    def s004_reply_value_wrong(self, turn: Turn, scen: str, incident: bool) -> None:
        """The model misspoke: the args hold what was asked, the reply tells another value."""
        turn.scenario = scen
        x = self.rng.random()
        if x < 0.35:
            self.value_turn(turn, "time", "asked", "asked", "wrong")
        elif x < 0.47:
            self.value_turn(turn, "date", "asked", "asked", "wrong")
        elif x < 0.65:
            a, b = self.rng.sample(REPEATS, 2)
            self.value_turn(turn, "repeat", a, a, b)
        elif x < 0.87:
            self.value_turn(turn, "content", "", "", "wrong")
        else:  # the args were right, the read-back holds another repeat rule; the reply tells the args
            a, b = self.rng.sample(REPEATS, 2)
            self.value_turn(turn, "repeat", a, a, "args", readback=b)
            turn.variant = "repeat/read_back"
            turn.expect_sbnd = "unverified"
            return
        turn.expect_sbnd = "none"

    def s004_args_value_wrong(self, turn: Turn, scen: str, incident: bool) -> None:
        """The call holds another value than the request; the reply tells the call's value, or none."""
        turn.scenario = scen
        x = self.rng.random()
        said = "args" if self.rng.random() < 0.7 else None
        if x < 0.5:
            self.value_turn(turn, "time", "asked", "other", said, restyle=self.rng.random() < 0.3)
        elif x < 0.7:
            self.value_turn(turn, "date", "asked", "other", said)
        else:
            a, b = self.rng.sample(REPEATS, 2)
            self.value_turn(turn, "repeat", a, b, said)
        turn.expect_sbnd = "none"

    def s004_value_stated_ok(self, turn: Turn, scen: str, incident: bool) -> None:
        """Hard negatives: the reply states the stored value, in the request's words or others."""
        turn.scenario = scen
        x = self.rng.random()
        if x < 0.3:
            self.value_turn(turn, "time", "asked", "asked", "args")
            turn.variant = "same_form/" + turn.variant
        elif x < 0.62:
            self.value_turn(turn, "time", "asked", "asked", "args", restyle=True)
            turn.variant = "other_form/" + turn.variant
        elif x < 0.8:
            a = self.pick(REPEATS)
            self.value_turn(turn, "repeat", a, a, "args", restyle=self.rng.random() < 0.5)
        else:
            self.value_turn(turn, "content", "", "", "args")
        turn.expect_sbnd = "none"

    def s004_honest_wrong_stored(self, turn: Turn, scen: str, incident: bool) -> None:
        """Hard negative: the time read back is not the one written, and the reply says so."""
        lang = turn.lang
        turn.scenario = scen
        m = self.moment(lang, turn.start)
        f = self.value_fields(lang, m)
        self.vgoal(turn, self.pick(VALUE_GOALS[("reminder", lang)]), f, VALUE_FIELDS)
        at = calendar.timegm(time.strptime(m["at_s"], "%Y-%m-%d %H:%M:%S")) - TZ_OFFSET
        got = fmt_local(at - TZ_OFFSET)  # dealt in the incident weeks only: 2.4.0's eight hours early
        err = f"read-back mismatch: remind_at differs (expected {m['at_s']}, got {got})"
        self.value_write(turn, "create_reminder", f, m, verified=False, error=err)
        stored = ("%d月%d日 %s" % (int(got[5:7]), int(got[8:10]), got[11:16]) if lang == "zh"
                  else "%s %d at %s" % (time.strftime("%b", time.strptime(got[:10], "%Y-%m-%d")), int(got[8:10]),
                                        hm_text(got[11:16], "en", "ampm")))
        turn.reply = self.pick(HONEST_STORED[lang]).format(stored=stored, time=f["when"])
        turn.variant = "tz_incident"
        turn.expect_sbnd = "none"

    # ---- seed001 traces ---------------------------------------------------------------
    def build001(self, start: float, user: int, conv: str) -> Turn:
        r = self.rng
        self.asked_by_goal.clear()
        lang = self.user_lang[user]
        turn = Turn(source="seed001", lang=lang, user_id=user, conversation_id=conv_id(conv), start=start,
                    conv_no=conv)
        turn.task_start = start + 0.2 + r.random() * 0.8
        week2 = start >= INCIDENT_START
        turn.agent_version = "agg-1.3" if week2 else "agg-1.2"
        turn.model = "gpt-4o-mini" if r.random() < 0.6 else "qwen2.5-7b"
        turn.prompt_version = "p3" if not week2 or r.random() < 0.3 else "p4"
        turn.tool_versions = {"list_reminders": "1.4", "search_notes": "2.0" if not week2 else "2.1",
                              "get_weather": "0.9", "create_todo": "1.2", SENTINEL_TOOL: "1.0"}
        x = r.random() * self.mix001_cum[-1]
        i = bisect.bisect_right(self.mix001_cum, x)
        scen = SEED001_MIX[min(i, len(SEED001_MIX) - 1)][0]
        if scen == "ok" or r.random() < 0.45:  # plain traces are the commonest; most call the sentinel
            scen = "sentinel_ok" if r.random() < 0.87 else "ok"
        turn.scenario = scen
        self.trace001(turn, scen)
        self.ids.trace += 1
        turn.task_id = "agg-%06d" % self.ids.trace
        turn.finish = turn.steps[-1].end if turn.steps else turn.task_start
        turn.reply_t = turn.finish + 0.3 + r.random() * 1.2
        turn.status = "success" if all(s.status == "success" for s in turn.steps) else "partial"
        turn.plan = []
        for s in turn.steps:
            if s.tool not in turn.plan:
                turn.plan.append(s.tool)
        self.label(turn)
        return turn

    def agg_query(self, turn: Turn) -> dict:
        lang = turn.lang
        it = self.intent(lang, turn.start, "list")
        q_zh = ["帮我汇总一下{day}的提醒和待办", "这周还有哪些事没做完?整理一下", "{day}{city}天气怎么样,顺便看看我有什么安排",
                "查一下我关于{topic}的笔记,列个要点", "我{day}忙不忙?把提醒和笔记里相关的都找出来",
                "帮我看看{day}的安排和天气,适合出门吗", "整理一下{topic}相关的笔记和待办"]
        q_en = ["Summarize my reminders and to-dos for {dayn}", "What's left on my list this week?",
                "What's the weather in {city} {day}, and what do I have planned?",
                "Find my notes on {topic} and give me the key points", "How busy am I {day}? Pull reminders and notes",
                "Check {dayn}'s plans and the weather — good day to go out?", "Round up everything about {topic}"]
        turn.goal = self.fill(self.pick(q_zh if lang == "zh" else q_en), it["f"])
        return it

    def agg_answer(self, turn: Turn, it: dict, n: int) -> str:
        f = it["f"]
        if turn.lang == "zh":
            return self.pick([f"{f['day']}你有{n}条提醒,另有{self.rng.randrange(1, 6)}条待办未完成。数据来源:提醒列表、笔记",
                              f"汇总好了:{n}件事,{f['city']}天气{self.pick(WEATHER['zh'])}。数据来源:提醒列表、天气服务",
                              f"找到{n}条相关记录,要点:{f['topic']}的进度、下周截止的两件事。数据来源:笔记"])
        return self.pick([f"You have {n} reminders {f['day']} and a few open to-dos. Sources: reminders, notes",
                          f"Summary: {n} items; weather in {f['city']}: {self.pick(WEATHER['en'])}. Sources: reminders, weather",
                          f"Found {n} related notes — key points on {f['topic']} below. Source: notes"])

    def base_reads(self, turn: Turn, it: dict) -> int:
        n = 0
        s = self.read_step(turn, "list_reminders", it)
        n += s.result["count"]
        if self.rng.random() < 0.6:
            self.read_step(turn, "search_notes", it)
        if self.rng.random() < 0.4:
            self.read_step(turn, "get_weather", it)
        return n

    def trace001(self, turn: Turn, scen: str) -> None:
        r = self.rng
        lang = turn.lang
        it = self.agg_query(turn)
        miss_pool = ["紫外线指数", "周五的待办", "上海的天气", "数据来源", "笔记里的截止日期"] if lang == "zh" else \
            ["UV index", "Friday's to-dos", "weather for Shanghai", "source attribution", "deadlines from notes"]
        err_pool = ["提醒数量统计错了(写成 3 条,实际 4 条)", "日期写成了 11-18,应为 11-19"] if lang == "zh" else \
            ["count of reminders is wrong (said 3, actually 4)", "date should be Nov 19, not Nov 18"]
        turn.expect_sbnd = "none"
        if scen in ("ok", "sentinel_ok"):
            n = self.base_reads(turn, it)
            if r.random() < 0.15:
                args = {"title": it["f"]["thing"], "task_date": it["w"]["date"]}
                self.add(turn, "create_todo", args, result={"success": True, "id": self.next_record_id(),
                                                            "verified": True, "detail": "created"})
            if scen == "sentinel_ok":
                self.verify_step(turn, turn.goal, True)
            turn.reply = self.agg_answer(turn, it, n)
        elif scen == "sentinel_fixed":
            n = self.base_reads(turn, it)
            miss = self.pick(miss_pool)
            self.verify_step(turn, turn.goal, False, missing=[miss])
            self.read_step(turn, self.pick(["get_weather", "search_notes"]), it)
            if r.random() < 0.3:
                self.verify_step(turn, turn.goal, False, errors=[self.pick(err_pool)])
                self.read_step(turn, "list_reminders", it)
            self.verify_step(turn, turn.goal, True)
            turn.variant = "gap_then_fixed"
            turn.reply = self.agg_answer(turn, it, n)
        elif scen == "sentinel_contradiction":
            n = self.base_reads(turn, it)
            self.verify_step(turn, turn.goal, True, missing=[self.pick(miss_pool)] if r.random() < 0.6 else [],
                             errors=[self.pick(err_pool)] if r.random() < 0.5 else [])
            if not turn.steps[-1].args["missing_items"] and not turn.steps[-1].args["errors_found"]:
                turn.steps[-1].args["missing_items"] = [self.pick(miss_pool)]
            if r.random() < 0.5:
                self.read_step(turn, "search_notes", it)
                self.verify_step(turn, turn.goal, True)
                turn.variant = "contradiction_then_clean"
            else:
                turn.variant = "contradiction_last"
            turn.reply = self.agg_answer(turn, it, n)
        elif scen == "sentinel_ignored":
            n = self.base_reads(turn, it)
            if r.random() < 0.4:
                self.verify_step(turn, turn.goal, False, missing=[self.pick(miss_pool)])
                self.read_step(turn, "search_notes", it)
            self.verify_step(turn, turn.goal, False, missing=[self.pick(miss_pool)],
                             errors=[self.pick(err_pool)] if r.random() < 0.3 else [])
            turn.variant = "answered_when_not_ready"
            turn.reply = self.agg_answer(turn, it, n)
        elif scen == "verify_rounds_exceeded":
            n = self.base_reads(turn, it)
            rounds = 4 + int(r.random() * 2)
            for i in range(rounds):
                last = i == rounds - 1
                self.verify_step(turn, turn.goal, last, missing=[] if last else [self.pick(miss_pool)])
                if not last:
                    self.read_step(turn, self.pick(["search_notes", "get_weather", "list_reminders"]), it)
            turn.variant = f"{rounds}_rounds"
            turn.reply = self.agg_answer(turn, it, n)
        elif scen == "tool_loop":
            tool = self.pick(["search_notes", "list_reminders", "get_weather"])
            k = 3 + int(r.random() * 3)
            for _ in range(k):
                self.read_step(turn, tool, it)
            if r.random() < 0.7:
                self.verify_step(turn, turn.goal, True)
            turn.variant = f"{tool}_x{k}"
            turn.reply = self.agg_answer(turn, it, 0)
        elif scen == "max_tool_calls":
            days = 6 + int(r.random() * 2)
            for d in range(days):
                date = local_date(turn.start + (d + 1) * 86400)
                self.add(turn, "list_reminders", {"date": date}, result={"count": d % 3, "items": []})
                wx = self.pick(WEATHER[lang])
                self.add(turn, "get_weather", {"city": it["f"]["city"], "date": date}, result=wx)
            self.verify_step(turn, turn.goal, True)
            turn.goal = ("把接下来一周每天的安排和天气都列出来" if lang == "zh"
                         else "List my plans and the weather for every day next week")
            turn.variant = f"{len(turn.steps)}_calls"
            turn.reply = self.agg_answer(turn, it, days)
        elif scen == "forbidden_tool":
            tool = self.pick(list(FORBIDDEN_TOOLS))
            if tool == "send_mass_mail":
                turn.goal = "给全组发通知:明天上午十点开会" if lang == "zh" else "Email the whole team: standup moved to 10am"
                args = {"to": "team-all@corp", "subject": "standup", "body": turn.goal}
            elif tool == "drop_table":
                turn.goal = "把已完成的待办全部清掉" if lang == "zh" else "Clear out all my completed to-dos"
                args = {"table": "todo_done"}
            else:
                turn.goal = "笔记太乱了,全部重置" if lang == "zh" else "Reset my notes, start fresh"
                args = {"database": "notes"}
            self.read_step(turn, "list_reminders", it)
            if r.random() < 0.7:
                self.add(turn, tool, args, status="failed", verified=False, error="blocked by policy",
                         result=None, dur=0.01)
            else:
                self.add(turn, tool, args, result={"ok": True}, verified=None)
            turn.variant = tool
            turn.reply = ("这个操作我没有执行,风险太高,请在后台手动处理" if lang == "zh"
                          else "I didn't run that — it's too risky. Please do it from the admin console.")
        elif scen == "argument_bounds":
            k = self.pick([0, 25, 30, 50, 100, -1])
            self.read_step(turn, "list_reminders", it)
            s = self.read_step(turn, "search_notes", it, top_k=k)
            if r.random() < 0.8:
                self.verify_step(turn, turn.goal, True)
            turn.variant = f"top_k={k}"
            turn.reply = self.agg_answer(turn, it, len(s.result["hits"]))
        elif scen == "unverified":
            self.read_step(turn, "list_reminders", it)
            turn.goal = self.goal("create_todo", "把这周没做完的事整理成{day}的清单" if lang == "zh"
                                  else "Turn this week's unfinished stuff into a to-do list for {dayn}", it["f"])
            args = {"title": it["f"]["thing"], "task_date": it["w"]["date"]}
            err = "read-back: todo id=%d not found" % self.next_record_id()
            self.add(turn, "create_todo", args, verified=False, error=None,
                     detail=err, result={"success": True, "id": self.ids.record, "verified": False, "detail": err})
            self.verify_step(turn, turn.goal, True)
            turn.variant = "todo_not_read_back"
            turn.reply = self.say(turn, "create_todo", "已整理成清单,{thing}放在{day}了" if lang == "zh"
                                  else "Done — I've added {thing} to your list for {dayn}.", it["f"])
            turn.reply_is_claim = True
            turn.expect_sbnd = "unverified"
        else:
            raise ValueError(scen)


def conv_id(n: int) -> str:
    return "c-%08x" % ((n * 2654435761) % (1 << 32))  # a bijection on 32 bits: unique, random-looking


def _decide(seed: int) -> Iterator[Turn]:
    g = Gen(seed, 1)
    for start, _order, source, user, conv, forced in g.skeletons():
        if forced == "values":
            with g.value_stream():
                turn = g.build004(start, user, conv, forced)
            yield turn
        elif source == "seed004":
            yield g.build004(start, user, conv, forced)
        else:
            yield g.build001(start, user, conv)


USER_SPAN = 10000  # replica r of user u is user u + r * USER_SPAN
CONV_SPAN = 1 << 16  # replica r of conversation n is conversation n + r * CONV_SPAN


def iter_turns(seed: int = 4, scale: int = 1) -> Iterator[Turn]:
    """Decide every turn of the month, in chronological order.

    scale == 1 streams the month as decided. scale == N decides the month once (a few thousand
    turns held in memory, whatever N is) and emits every turn N times in a row, each copy as a
    different user in a different conversation with fresh ids, so ids still grow with time.
    Copies share the decided content (steps, replies, labels): N x turns, N x users.
    """
    if scale == 1:
        yield from _decide(seed)
        return
    base = list(_decide(seed))
    task, step, msg, audit, trace = 10000, 50000, 200000, 900000, 0
    for turn in base:
        steps_n, msgs_n, audits_n = len(turn.steps), len(turn.messages), len(turn.audits)
        first_step = turn.steps[0].step_id if turn.steps else 0
        first_msg = turn.messages[0].msg_id if turn.messages else 0
        first_audit = turn.audits[0].audit_id if turn.audits else 0
        for r in range(scale):
            c = copy.copy(turn)
            c.user_id = turn.user_id + r * USER_SPAN
            c.conv_no = turn.conv_no + r * CONV_SPAN
            c.conversation_id = conv_id(c.conv_no)
            if turn.source == "seed004":
                if turn.has_task:
                    task += 1
                    c.task_id = task
                    c.step_shift = step + 1 - first_step
                    step += steps_n
                c.msg_shift = msg + 1 - first_msg
                msg += msgs_n
                c.audit_shift = audit + 1 - first_audit
                audit += audits_n
            else:
                trace += 1
                c.task_id = "agg-%06d" % trace
            yield c


# --------------------------------------------------------------------------------------
# Writers (one per output shape)
# --------------------------------------------------------------------------------------

_ENC = json.JSONEncoder(ensure_ascii=False)
_CENC = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dump = _ENC.encode  # same bytes as json.dumps(obj, ensure_ascii=False), without per-call setup
_compact = _CENC.encode  # how Jackson writes args_json
_str = json.encoder.encode_basestring  # a JSON string literal, non-ASCII kept as is


def _nstr(x: Optional[str]) -> str:
    return "null" if x is None else _str(x)


def _nts(t: Optional[float]) -> str:
    return "null" if t is None else '"' + fmt_local(t) + '"'


class _Files:
    def __init__(self, directory: str, names) -> None:
        os.makedirs(directory, exist_ok=True)
        self.fh = {n: open(os.path.join(directory, n), "w", encoding="utf-8", newline="\n") for n in names}

    def close(self) -> None:
        for f in self.fh.values():
            f.close()


class Seed004Writer:
    """MySQL-style dumps of agent_task, agent_step, audit_logs, messages (naive local time)."""
    source = "seed004"

    def __init__(self, out: str) -> None:
        self.files = _Files(os.path.join(out, "seed004"),
                            ["agent_task.jsonl", "agent_step.jsonl", "audit_logs.jsonl", "messages.jsonl"])
        self.steps = 0

    def write(self, turn: Turn) -> None:
        if turn.source != self.source:
            return
        # Rows are formatted by hand (same bytes as json.dumps with the default separators):
        # this writer is the hot loop of --scale runs.
        fh = self.files.fh
        tid = turn.task_id
        if turn.has_task:
            ok = sum(1 for s in turn.steps if s.status == "success" and s.verified is not False)
            fh["agent_task.jsonl"].write(
                f'{{"id": {tid}, "user_id": {turn.user_id}, "conversation_id": "{turn.conversation_id}", '
                f'"goal": {_str(turn.goal)}, "status": "{turn.status.upper()}", "total_steps": {len(turn.steps)}, '
                f'"success_steps": {ok}, "replanned": {1 if turn.replanned else 0}, '
                f'"create_time": "{fmt_local(turn.task_start)}", "finish_time": {_nts(turn.finish)}, '
                f'"agent_version": "{turn.agent_version}", "model": "{turn.model}", '
                f'"prompt_version": "{turn.prompt_version}"}}\n')
            lines = []
            for s in turn.steps:
                v = "null" if s.verified is None else ("1" if s.verified else "0")
                lines.append(
                    f'{{"id": {s.step_id + turn.step_shift}, "task_id": {tid}, "seq": {s.seq}, "tool": {_str(s.tool)}, '
                    f'"args_json": {_str(_compact(s.args))}, "reason": {_str(s.reason[:500])}, '
                    f'"status": "{s.status.upper()}", "verified": {v}, "attempts": {s.attempts}, '
                    f'"error": {_nstr(s.error)}, "detail": {_nstr(s.detail)}, '
                    f'"create_time": "{fmt_local(s.start)}", "finish_time": {_nts(s.end)}}}\n')
            fh["agent_step.jsonl"].write("".join(lines))
            self.steps += len(lines)
            lines = []
            for au in turn.audits:
                tail = f', "task_id": {tid}}}\n' if au.with_task else "}\n"
                lines.append(f'{{"id": {au.audit_id + turn.audit_shift}, "user_id": {turn.user_id}, "action": {_str(au.action)}, '
                             f'"result": "{au.result}", "create_time": "{fmt_local(au.t)}"' + tail)
            fh["audit_logs.jsonl"].write("".join(lines))
        lines = []
        for msg in turn.messages:
            tail = f', "task_id": {tid}}}\n' if msg.link_task and turn.has_task else "}\n"
            lines.append(f'{{"id": {msg.msg_id + turn.msg_shift}, "conversation_id": "{turn.conversation_id}", '
                         f'"user_id": {turn.user_id}, "role": "{msg.role}", "content": {_str(msg.content)}, '
                         f'"create_time": "{fmt_local(msg.t)}"' + tail)
        fh["messages.jsonl"].write("".join(lines))

    def close(self) -> None:
        self.files.close()


class Seed001Writer:
    """verification-framework AgentTrace objects, one per line (epoch-second timestamps)."""
    source = "seed001"

    def __init__(self, out: str) -> None:
        self.files = _Files(os.path.join(out, "seed001"), ["traces.jsonl"])
        self.steps = 0

    def write(self, turn: Turn) -> None:
        if turn.source != self.source:
            return
        calls = []
        for s in turn.steps:
            calls.append({"tool_name": s.tool, "arguments": s.args, "result": s.result, "error": s.error,
                          "start_time": round(s.start, 2), "end_time": round(s.end, 2)})
        self.steps += len(calls)
        self.files.fh["traces.jsonl"].write(_dump({
            "task_id": turn.task_id, "user_query": turn.goal, "plan": turn.plan, "tool_calls": calls,
            "final_answer": turn.reply,
            "metadata": {"user_id": "u-%d" % turn.user_id, "conversation_id": turn.conversation_id,
                         "agent_version": turn.agent_version, "llm_version": turn.model,
                         "prompt_version": turn.prompt_version, "tool_versions": turn.tool_versions},
        }) + "\n")

    def close(self) -> None:
        self.files.close()


LABEL_COLUMNS = ["source", "task_id", "conversation_id", "reply_message_id", "user_id", "reply_time", "lang",
                 "scenario", "variant", "sbnd", "expected_rules", "sbnd_basis", "claimed_actions", "value_mismatches"]


class LabelsWriter:
    """labels/turn_labels.csv: one row per turn, the expected verdicts."""

    def __init__(self, out: str, sources) -> None:
        d = os.path.join(out, "labels")
        os.makedirs(d, exist_ok=True)
        self.fh = open(os.path.join(d, "turn_labels.csv"), "w", encoding="utf-8", newline="")
        self.csv = csv.writer(self.fh, lineterminator="\n")
        self.csv.writerow(LABEL_COLUMNS)
        self.sources = tuple(sources)
        self.scenarios: Counter = Counter()

    def write(self, turn: Turn) -> None:
        if turn.source not in self.sources:
            return
        reply = turn.reply_message if turn.source == "seed004" else None
        self.scenarios[(turn.source, turn.scenario)] += 1
        self.csv.writerow([
            turn.source,
            "" if turn.task_id is None or not turn.has_task else str(turn.task_id),
            turn.conversation_id,
            str(reply.msg_id + turn.msg_shift) if reply is not None else "",
            str(turn.user_id) if turn.source == "seed004" else "u-%d" % turn.user_id,
            fmt_utc(turn.reply_t) if turn.reply_t is not None else "",
            turn.lang, turn.scenario, turn.variant, turn.sbnd, ";".join(turn.rules),
            turn.sbnd_basis, ";".join(turn.claims_checked), ";".join(turn.mismatches),
        ])

    def close(self) -> None:
        self.fh.close()


WRITERS = {"seed004": Seed004Writer, "seed001": Seed001Writer}


def generate(out: str, seed: int = 4, scale: int = 1, formats=("seed004", "seed001")) -> dict:
    formats = [f for f in WRITERS if f in formats]
    writers = [WRITERS[f](out) for f in formats]
    labels = LabelsWriter(out, formats)
    turns = 0
    try:
        for turn in iter_turns(seed, scale):
            turns += 1
            for w in writers:
                w.write(turn)
            labels.write(turn)
    finally:
        for w in writers:
            w.close()
        labels.close()
    return {"turns": turns, "steps": sum(w.steps for w in writers),
            "scenarios": {f"{s}/{k}": n for (s, k), n in sorted(labels.scenarios.items())}}


def main(argv=None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=here, help="output directory (default: this sample_data directory)")
    p.add_argument("--seed", type=int, default=4, help="random seed (default 4: the committed data)")
    p.add_argument("--scale", type=int, default=1, help="N x the default number of turns and users")
    p.add_argument("--formats", default="seed004,seed001", help="comma-separated: " + ",".join(WRITERS))
    a = p.parse_args(argv)
    formats = [f.strip() for f in a.formats.split(",") if f.strip()]
    unknown = [f for f in formats if f not in WRITERS]
    if unknown:
        p.error(f"unknown format(s): {unknown}; known: {sorted(WRITERS)}")
    if a.scale < 1:
        p.error("--scale must be >= 1")
    if a.scale > 1 and os.path.abspath(a.out) == here:
        p.error("--scale > 1 writes big files: name another --out directory (e.g. /tmp/ta-bench)")
    t0 = time.perf_counter()
    summary = generate(a.out, a.seed, a.scale, formats)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    print(json.dumps(summary, ensure_ascii=False, indent=1), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
