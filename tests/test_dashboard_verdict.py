"""The investigation verdict words the rules' own outcomes (queries/rules/_write_steps.sql,
_turn_outcomes.sql): it never classifies a step itself. Each case is a real warehouse with
the real rule engine run, opened in the real Investigate page."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from trace_audit.dashboard import verdict
from trace_audit.dashboard.serve import app_path
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.engine import run_rules
from trace_audit.queries.warehouse import db

DAY = {"from": "2026-11-16", "to": "2026-11-16"}


def _warehouse(tmp_path, steps: list[dict], reply: str, goal: str = "remind me at 8 to call mum") -> str:
    rows = [{"record": "task", "task_id": "t1", "user_id": "u1", "conversation_id": "c1", "status": "success",
             "goal": goal, "started_at": "2026-11-16T08:00:00Z", "finished_at": "2026-11-16T08:00:05Z"}]
    rows += [{"record": "step", "task_id": "t1", "attempts": 1, "started_at": "2026-11-16T08:00:01Z", **s}
             for s in steps]
    rows += [{"record": "message", "message_id": "m1", "conversation_id": "c1", "user_id": "u1", "role": "user",
              "content": goal, "created_at": "2026-11-16T08:00:00Z", "task_id": "t1"},
             {"record": "message", "message_id": "m2", "conversation_id": "c1", "user_id": "u1",
              "role": "assistant", "content": reply, "created_at": "2026-11-16T08:00:06Z", "task_id": "t1"}]
    src = tmp_path / "turn.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    path = str(tmp_path / "w.duckdb")
    ingest([str(src)], path, progress=False)
    con = db.connect(path)
    try:
        run_rules(con)
    finally:
        con.close()
    return path


def _investigate(monkeypatch, path: str) -> AppTest:
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    monkeypatch.setenv("TRACE_AUDIT_TZ", "UTC")
    at = AppTest.from_file(app_path(), default_timeout=60)
    for k, v in {**DAY, "task": "t1"}.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("views/investigate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _verdict(at: AppTest) -> str:
    boxes = [b.value for kind in (at.error, at.warning, at.success) for b in kind if "Verdict:" in b.value]
    assert len(boxes) == 1, boxes
    return boxes[0].replace("\\", "")


def test_a_step_never_read_back_is_unverified_not_confirmed(monkeypatch, tmp_path):
    # verified = NULL: the rules call the step unverified; the verdict used to say "confirmed by read-back".
    path = _warehouse(tmp_path, [{"seq": 1, "tool": "create_reminder", "status": "success", "verified": None}],
                      "OK, your reminder for 8:00 is set.")
    text = _verdict(_investigate(monkeypatch, path))
    assert text.startswith("**Verdict: unverified — the reply claimed success.**"), text
    assert "confirmed by read-back" not in text


def test_a_turn_that_only_read_was_not_executed(monkeypatch, tmp_path):
    path = _warehouse(tmp_path, [{"seq": 1, "tool": "list_reminders", "status": "success", "verified": True}],
                      "Done, your reminder for 8:00 is set.")
    at = _investigate(monkeypatch, path)
    text = _verdict(at)
    assert text.startswith("**Verdict: not executed — the reply claimed success.**"), text
    assert "no write step" in text and "confirmed by read-back" not in text


def test_a_calendar_conflict_is_not_created_and_offers_no_retry(monkeypatch, tmp_path):
    path = _warehouse(tmp_path, [{"seq": 1, "tool": "create_event", "status": "success", "verified": False,
                                  "detail": "该时段与已有日程冲突,未创建"}],
                      "好的,会议已经安排好了。", goal="明天下午3点安排会议")
    at = _investigate(monkeypatch, path)
    text = _verdict(at)
    assert text.startswith("**Verdict: not created — the reply claimed success.**"), text
    advice = " ".join(m.value for m in at.markdown if m.value.startswith(">")).replace("\\", "")
    assert "冲突" in advice and "clashes" in advice
    assert "try again" not in advice.lower() and "再试" not in advice


@pytest.mark.parametrize("kind, turn_outcome, step, headline, zh", [
    ("failed", "failed", {"outcome": "failed", "error": "DB write timeout", "attempts": 2}, "failed", "没有办成"),
    ("not_executed", "not_started", {"outcome": "not_started", "error": "not logged in"}, "not executed", "登录"),
    ("not_executed", "not_started", {"outcome": "not_started", "error": "permission denied"}, "not executed",
     "权限"),
    ("not_created", "not_created", {"outcome": "not_created", "detail": "已存在相同记录,未重复创建"},
     "not created", "一样的记录"),
    ("partial", "partial", {"outcome": "failed"}, "partly done", "一部分"),
    (None, "good", {"outcome": "good"}, "done", "办好了"),
    (None, "running", {"outcome": "running"}, "still running", "还没有处理完"),
])
def test_the_verdict_words_the_rules_outcome(kind, turn_outcome, step, headline, zh):
    steps = [{"seq": 1, "tool": "create_reminder", "status": "x", "verified": None, **step}]
    if kind == "partial":
        steps.append({"seq": 2, "tool": "create_todo", "outcome": "good"})
    v = verdict.decide({"task_id": "t", "status": "success"}, steps, [], turn_outcome, kind)
    assert v.outcome == headline
    assert v.reply_was_wrong is (kind is not None)
    assert zh in v.should_have_said_zh
    assert "verified" not in v.should_have_said_en and "create_reminder" not in v.should_have_said_en


def test_a_reply_without_any_turn_is_not_executed():
    v = verdict.decide(None, [], [], None, "not_executed", "已设置好提醒")
    assert v.outcome == "not executed" and v.label == "not executed — the reply claimed success"
