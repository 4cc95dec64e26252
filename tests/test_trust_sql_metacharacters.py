"""Every text a dashboard user can type (the Investigate fields, the sidebar's link parameters) tried
with SQL metacharacters in a real AppTest run: each is only ever data. Values stored with those
characters are found exactly, wildcards match only themselves, and no table changes."""

from __future__ import annotations

import json

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from trace_audit.dashboard.serve import app_path
from trace_audit.ingest.load.loader import ingest

from dashboard_support import shown

EVIL = "'; DROP TABLE steps; --"
PAYLOADS = [EVIL, "' OR '1'='1", "%", "_", "\\", '"', "'", "\\'; SELECT 1; --", "t1' --", "%' OR 1=1 --",
            "用户'); DELETE FROM tasks; --", "\u0000", "ＤＲＯＰ", "🙂'"]
TASKS = [
    {"record": "task", "task_id": "t1", "user_id": "u1", "conversation_id": "c1", "started_at": "2026-11-16T09:00:00Z",
     "final_answer": "reminder set for 8:00"},
    {"record": "task", "task_id": "t-evil", "user_id": EVIL, "conversation_id": "c'2", "started_at": "2026-11-16T10:00:00Z",
     "final_answer": "100% done_ it's \\ set \"ok\" 你好"},
]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("sqlmeta")
    src = tmp / "t.jsonl"
    src.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in TASKS)
                   + json.dumps({"record": "step", "task_id": "t1", "seq": 1, "tool": "create_reminder"}) + "\n")
    path = str(tmp / "w.duckdb")
    ingest([str(src)], path, progress=False)
    return path


def snapshot(path: str) -> dict:
    con = duckdb.connect(path, read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in tables}
    finally:
        con.close()


def search(monkeypatch, path: str, **fields) -> AppTest:
    monkeypatch.setenv("TRACE_AUDIT_DB", path)
    monkeypatch.setenv("TRACE_AUDIT_TZ", "UTC")
    monkeypatch.delenv("TRACE_AUDIT_DASHBOARD_PASSWORD", raising=False)
    at = AppTest.from_file(app_path(), default_timeout=30)
    at.query_params["all"] = "1"
    at.run()
    at.switch_page("views/investigate.py").run()
    labels = {"user": "User id", "conv": "Conversation id", "task": "Task id", "text": "Reply or request text"}
    for name, value in fields.items():
        next(t for t in at.text_input if t.label == labels[name]).input(value)
    next(b for b in at.button if b.label == "Search").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def found(at: AppTest) -> set[str]:
    """Task ids the page shows: the single turn opened, or the list of matches."""
    if any("No turn matches" in w.value for w in at.warning):
        return set()
    tables = [d.value for d in at.dataframe if "task_id" in d.value.columns and "seq" not in d.value.columns]
    if tables and len(tables[0]) > 1:
        return set(tables[0]["task_id"])
    text = "\n".join(shown(str(m.value)) for m in at.markdown) + "\n".join(shown(str(s.value)) for s in at.subheader)
    return {t["task_id"] for t in TASKS if f"Turn {t['task_id']}" in text}


@pytest.mark.parametrize("field", ["user", "conv", "task", "text"])
def test_metacharacters_in_every_field_are_data(monkeypatch, warehouse, field):
    before = snapshot(warehouse)
    for payload in PAYLOADS:
        at = search(monkeypatch, warehouse, **{field: payload})
        got = found(at)
        if field == "text":
            expected = {t["task_id"] for t in TASKS if payload.strip() and payload.strip().lower() in t["final_answer"].lower()}
        else:
            key = {"user": "user_id", "conv": "conversation_id", "task": "task_id"}[field]
            expected = {t["task_id"] for t in TASKS if t[key] == payload.strip()}
        assert got == expected, (field, payload, got)
    assert snapshot(warehouse) == before


def test_a_stored_injection_string_is_found_exactly(monkeypatch, warehouse):
    assert found(search(monkeypatch, warehouse, user=EVIL)) == {"t-evil"}
    assert found(search(monkeypatch, warehouse, text="100%")) == {"t-evil"}   # % is a character
    assert found(search(monkeypatch, warehouse, text="_")) == {"t-evil"}      # so is _
    assert found(search(monkeypatch, warehouse, conv="c'2")) == {"t-evil"}


@pytest.mark.parametrize("page", ["overview", "incidents", "patterns", "stuck", "trends", "weekly", "rules"])
def test_link_parameters_with_metacharacters_change_nothing(monkeypatch, warehouse, page):
    """The sidebar and pages read filters from the URL: anyone can put anything there."""
    before = snapshot(warehouse)
    monkeypatch.setenv("TRACE_AUDIT_DB", warehouse)
    monkeypatch.delenv("TRACE_AUDIT_DASHBOARD_PASSWORD", raising=False)
    for payload in (EVIL, "%", "\\'", "' OR '1'='1"):
        at = AppTest.from_file(app_path(), default_timeout=30)
        for k in ("from", "to", "version", "tool", "tz", "run", "week", "stuck", "measure"):
            at.query_params[k] = payload
        at.run()
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception, (page, payload, [e.value for e in at.exception])
    assert snapshot(warehouse) == before
