"""Redaction never changes a rule's verdict.

The sample month holds no personal data, so redacting it proves nothing. This
test writes a copy of it with personal data planted in every free-text field
and inside the tool arguments (an email and a phone number per user, a
password, an API key, a bearer token), ingests the copy twice, without and
with redaction (and once more with pseudonymised user ids), runs the whole
rule catalogue over each, and compares the findings.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from trace_audit.ingest.redact.config import RedactionConfig
from trace_audit.ingest.redact.redactor import Redactor
from trace_audit.queries.warehouse import db
from trace_audit.queries.engine import run_rules

from test_redaction_warehouse import _load, _survivors

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
NOW = datetime(2026, 11, 29, 16, 0, tzinfo=timezone.utc)  # 2026-11-30 00:00 Asia/Shanghai, the labels' --now
KEY = b"verdict-test-key-0123456789"


def _email(user) -> str:
    return f"user{str(user).replace('u-', '')}.name@example.com"


def _phone(user) -> str:
    n = int(str(user).replace("u-", "") or 0)
    return f"+86 139-{n % 10000:04d}-{(n * 7) % 10000:04d}"


def _plant_seed004(name: str, rec: dict) -> dict:
    user = rec.get("user_id", rec.get("task_id", 0))
    if name == "agent_task":
        rec["goal"] = f"{rec.get('goal') or ''} (reach me at {_email(user)})"
        if rec.get("final_answer"):
            rec["final_answer"] += f" 短信已发到 {_phone(user)}"
    elif name == "agent_step":
        try:
            args = json.loads(rec["args_json"]) if rec.get("args_json") else {}
        except ValueError:
            args = None
        if isinstance(args, dict):
            args["contact"] = {"email": _email(user), "password": "Pa55-word-x"}
            rec["args_json"] = json.dumps(args, ensure_ascii=False)
        rec["reason"] = f"{rec.get('reason') or ''} [caller {_phone(user)}]"
        if rec.get("error"):
            rec["error"] += " (request had Authorization: Bearer abcdefgh0123456789)"
    elif name == "messages":
        rec["content"] = f"{rec.get('content') or ''} — {_email(user)}"
    elif name == "audit_logs":
        rec["detail"] = f"{rec.get('detail') or ''} by {_phone(user)}"
    return rec


def _plant_seed001(rec: dict) -> dict:
    user = (rec.get("metadata") or {}).get("user_id", "u-0")
    rec["user_query"] = f"{rec['user_query']} 我的邮箱 {_email(user)}"
    if rec.get("final_answer"):
        rec["final_answer"] = f"{rec['final_answer']}\n(copy sent to {_email(user)})"
    for call in rec.get("tool_calls") or []:
        if isinstance(call.get("arguments"), dict):
            call["arguments"]["api_key"] = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"
    return rec


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> list[str]:
    out = tmp_path_factory.mktemp("planted")
    paths = []
    for name in ("agent_task", "agent_step", "audit_logs", "messages"):
        src = SAMPLE / "seed004" / f"{name}.jsonl"
        lines = [json.dumps(_plant_seed004(name, json.loads(l)), ensure_ascii=False)
                 for l in src.read_text("utf-8").splitlines() if l.strip()]
        (out / f"{name}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
        paths.append(str(out / f"{name}.jsonl"))
    src = SAMPLE / "seed001" / "traces.jsonl"
    lines = [json.dumps(_plant_seed001(json.loads(l)), ensure_ascii=False)
             for l in src.read_text("utf-8").splitlines() if l.strip()]
    (out / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    paths.append(str(out / "traces.jsonl"))
    return paths


def _findings(db_path: str, with_user: bool = True) -> list[tuple]:
    con = db.connect(db_path)
    try:
        run = run_rules(con, now=NOW)
        assert not run.failed, run.failed
        cols = "rule_id, severity, task_id, conversation_id, seq, event_time" + (", user_id" if with_user else "")
        return con.execute(f"SELECT {cols} FROM findings WHERE run_id = ? ORDER BY ALL", [run.run_id]).fetchall()
    finally:
        con.close()


@pytest.mark.slow
def test_findings_on_the_sample_month_are_the_same_with_and_without_redaction(planted, tmp_path):
    plain, redacted, pseudo = (str(tmp_path / f"{n}.duckdb") for n in ("plain", "redacted", "pseudo"))
    _load(planted, plain, None)
    report = _load(planted, redacted, Redactor(RedactionConfig(), KEY))
    _load(planted, pseudo, Redactor(RedactionConfig(pseudonymise_user_id=True), KEY))

    # The planted data really is there without redaction and really gone with it.
    needles = [_email(1104), _phone(1104), "Pa55-word-x", "abcdefgh0123456789", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"]
    assert {n for _t, _c, n in _survivors(plain, needles)} == set(needles)
    assert _survivors(redacted, needles) == [] and _survivors(pseudo, needles) == []
    assert report.counts["email"] > 5000 and report.counts["field:password"] > 2000

    base = _findings(plain)
    assert len(base) > 100                      # the month has plenty of incidents to compare
    assert _findings(redacted) == base
    assert _findings(pseudo, with_user=False) == _findings(plain, with_user=False)
