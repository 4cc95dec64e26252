"""Stored text reaches the pages as text: an image link planted in the agent version (which an
OTLP span's service.version sets) is never Markdown the browser would fetch, and stored times
out of range (9999-12-31) or a link's from=0001-01-01 give a note, never a traceback."""

from __future__ import annotations

import json
import re

import pytest

from test_dashboard_pages import app
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.engine import run_rules
from trace_audit.queries.warehouse import db

PLANTED = "![x](http://example.invalid/pixel.png)<img src=http://example.invalid/i.png>$x^2$:red[hi]"
PAGES = ["overview", "incidents", "patterns", "stuck", "trends", "investigate", "weekly", "rules", "users",
         "conversations"]
UNESCAPED = re.compile(r"(?<!\\)!(?<!\\)\[|(?<!\\)<img|(?<!\\)\$x|(?<!\\):red(?<!\\)\[")


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> str:
    work = tmp_path_factory.mktemp("hostile")
    rows = [{"record": "task", "task_id": f"t{i}", "user_id": "u1", "conversation_id": "c1", "status": "success",
             "goal": PLANTED, "agent_version": PLANTED, "started_at": f"2026-11-16T0{i}:00:00Z"} for i in range(3)]
    rows += [{"record": "step", "task_id": f"t{i}", "seq": 1, "tool": "create_reminder", "status": "success",
              "verified": False, "error": PLANTED, "started_at": f"2026-11-16T0{i}:00:01Z"} for i in range(3)]
    rows += [{"record": "message", "message_id": "m1", "conversation_id": "c1", "user_id": "u1", "role": "assistant",
              "content": "Done! " + PLANTED, "task_id": "t0", "created_at": "2026-11-16T00:00:05Z"},
             {"record": "task", "task_id": "far", "user_id": "u1", "conversation_id": "c1", "status": "success",
              "started_at": "9999-12-31T09:00:00Z"}]
    src = work / "hostile.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")
    path = str(work / "w.duckdb")
    ingest([str(src)], path, progress=False)
    con = db.connect(path)
    try:
        run_rules(con)
    finally:
        con.close()
    return path


@pytest.mark.parametrize("page", PAGES)
def test_planted_markup_is_text_and_bad_dates_are_notes(monkeypatch, hostile_db, page):
    for params in ({"from": "2026-11-16", "to": "2026-11-16", "turn": "t0", "user": "u1", "conv": "c1"},
                   {"from": "0001-01-01", "to": "9999-12-31", "user": "u1"}):
        at = app(monkeypatch, hostile_db, page, **params)  # asserts there is no exception box
        shown = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "subheader")
                 for e in getattr(at, kind)] + [e.value for e in at.sidebar.caption]
        bad = [s for s in shown if UNESCAPED.search(str(s))]
        assert not bad, (page, params, bad)
        assert not any("could not be drawn" in e.value for e in at.error), (page, params)
