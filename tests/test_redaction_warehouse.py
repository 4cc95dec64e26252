"""Redaction between decoding and the upsert, on a real DuckDB warehouse.

The records are shaped like seed-004 table dumps (agent_task, agent_step,
audit_logs, messages) plus a canonical step carrying OTel-style attributes and
a record the readers reject (it lands in ingest_errors). `_load` is the
loader's per-frame path with the one redaction call added; once the loader
calls `redact_decoded` itself these tests can use `ingest()` directly.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from test_otlp_support import protobuf_of_json
from trace_audit.ingest.load import loader
from trace_audit.ingest.read.decoder import Decoder
from trace_audit.ingest.read.framing import frames
from trace_audit.ingest.load.loader import AFTER_FILE
from trace_audit.ingest.read.registry import BINARY_SNIFFERS
from trace_audit.ingest.redact.columns import JSON_COLUMNS, TEXT_COLUMNS, USER_ID_COLUMNS
from trace_audit.ingest.redact.config import RedactionConfig
from trace_audit.ingest.redact.redactor import Redactor, redact_decoded, redact_tables, redaction_report
from trace_audit.ingest.redact.report import RedactionReport
from trace_audit.queries.warehouse import db

KEY = b"warehouse-test-key-0123456789"

EMAILS = ["li.lei@example.com", "Han.Meimei@Mail.Example.CN", "ops+alerts@corp.example.org"]
PHONES = ["13800138000", "+86 139-1234-5678", "+44 20 7946 0958", "(415) 555-2671"]
PHONE_DIGITS = ["13912345678", "2079460958", "4155552671"]
CARD = "6212 2622 0123 4567 891"
SECRETS = ["sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv", "hunter2-Pa55w0rd", "sid=9f8e7d6c5b4a",
           "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LTcifQ.c2lnbmF0dXJlLXZhbHVlLXh5eg", "AbCdEf0123456789xyz"]
ORIGINALS = EMAILS + PHONES + PHONE_DIGITS + [CARD, CARD.replace(" ", "")] + SECRETS


def seed004_records() -> list[dict]:
    return [
        {"id": 101, "user_id": 7, "conversation_id": "c-000123", "goal": f"提醒我明早8点给 {EMAILS[0]} 回邮件",
         "status": "SUCCESS", "total_steps": 2, "success_steps": 1, "replanned": 0,
         "create_time": "2026-11-08 07:59:58", "finish_time": "2026-11-08 08:00:03",
         "final_answer": f"好的,已为您创建提醒,并把确认发到 {EMAILS[0]},短信发到 {PHONES[0]}。"},
        {"id": 9001, "task_id": 101, "seq": 1, "tool": "create_reminder",
         "args_json": json.dumps({"title": "回邮件", "time": "2026-11-09 08:00:00", "notify": {"sms": PHONES[1]},
                                  "api_key": SECRETS[0]}, ensure_ascii=False),
         "reason": f"user asked; contact {EMAILS[1]}", "status": "SUCCESS", "verified": 1, "attempts": 1,
         "error": None, "detail": "已创建 reminder_id=88231", "create_time": "2026-11-08 08:00:01"},
        {"id": 9002, "task_id": 101, "seq": 2, "tool": "send_message",
         "args_json": json.dumps({"to": PHONES[2], "headers": {"Authorization": f"Bearer {SECRETS[4]}",
                                                               "Cookie": SECRETS[2]},
                                  "body": f"card {CARD} on file"}),
         "reason": "confirm", "status": "FAILED", "verified": 0, "attempts": 2,
         "error": f"401 from gateway: password={SECRETS[1]} rejected; jwt {SECRETS[3]}",
         "detail": "未创建", "create_time": "2026-11-08 08:00:02"},
        {"id": 5001, "user_id": 7, "task_id": 101, "action": "create_reminder", "result": "SUCCESS",
         "create_time": "2026-11-08 08:00:01", "detail": f"notified {PHONES[3]}"},
        {"id": 5002, "user_id": 7, "task_id": 101, "action": "send_message", "result": "FAIL",
         "create_time": "2026-11-08 08:00:02", "detail": None},
        {"id": 7001, "conversation_id": "c-000123", "user_id": 7, "role": "user",
         "content": f"明早8点提醒我回复 {EMAILS[0]},我的手机 {PHONES[0]}", "create_time": "2026-11-08 07:59:50"},
        {"id": 7002, "conversation_id": "c-000123", "user_id": 7, "role": "assistant", "task_id": 101,
         "content": f"好的,已为您创建提醒,确认已发到 {EMAILS[0]}。", "create_time": "2026-11-08 08:00:03"},
        # A second user whose id is an email address (some systems key users that way).
        {"id": 102, "user_id": EMAILS[2], "conversation_id": "c-000124", "goal": "list my reminders",
         "status": "SUCCESS", "total_steps": 1, "success_steps": 1, "create_time": "2026-11-08 09:00:00"},
        {"id": 7003, "conversation_id": "c-000124", "user_id": EMAILS[2], "role": "user",
         "content": "list my reminders", "create_time": "2026-11-08 08:59:58"},
        {"id": 5003, "user_id": EMAILS[2], "task_id": 102, "action": "list_reminders", "result": "SUCCESS",
         "create_time": "2026-11-08 09:00:00"},
    ]


def canonical_records() -> list[dict]:
    return [
        {"record": "step", "task_id": "102", "seq": 1, "tool": "list_reminders", "status": "success",
         "verified": True, "args": json.dumps({"filter": "today"}),
         "metadata": {"http.request.header.authorization": [f"Bearer {SECRETS[4]}"],
                      "gen_ai.usage.input_tokens": 812, "user.id": EMAILS[2], "gen_ai.user.id": EMAILS[2],
                      "gen_ai.tool.call.arguments": json.dumps({"owner": EMAILS[1], "password": SECRETS[1]})}},
        # Unrecognised: quarantined with its raw text, which must not keep the email.
        {"unknown_shape": True, "contact": EMAILS[1], "token": SECRETS[0]},
    ]


@pytest.fixture
def inputs(tmp_path) -> list[str]:
    a = tmp_path / "seed004.jsonl"
    a.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in seed004_records()) + "\n", "utf-8")
    b = tmp_path / "canonical.jsonl"
    b.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in canonical_records()) + "\n", "utf-8")
    return [str(a), str(b)]


def _load(paths: list[str], db_path: str, redactor: Redactor | None) -> RedactionReport:
    """The loader's per-file path (decode, upsert, quarantine, after-file hooks) plus the redaction line."""
    total = RedactionReport()
    con = db.connect(db_path)
    decoder = Decoder("Asia/Shanghai")
    try:
        for path in paths:
            con.execute("BEGIN TRANSACTION")
            raw_loaded: dict[str, list[pa.Table]] = {}
            with open(path, "rb") as fh:
                for frame in frames(fh, sniffers=BINARY_SNIFFERS):
                    decoded = decoder.decode(frame, path)
                    decoded = redact_decoded(decoded, redactor, total)  # the one line the loader adds
                    for table, rows in decoded.tables.items():
                        loader.store.upsert(con, table, rows)
                        raw_loaded.setdefault(table, []).append(rows.select(list(loader.KEYS[table])))
                    if decoded.errors:
                        loader.store.quarantine(con, path, "sha", decoded.errors)
            for hook in AFTER_FILE:
                mine = {t: pa.concat_tables(raw_loaded[t]) for t in hook.raw_tables if t in raw_loaded}
                if mine:
                    hook.after_file(con, mine)
            con.execute("COMMIT")
    finally:
        decoder.close()
        con.close()
    return total


def _text_columns(con) -> list[tuple[str, str]]:
    return con.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = 'main' AND data_type IN ('VARCHAR', 'JSON') ORDER BY ALL"
    ).fetchall()


def _survivors(db_path: str, needles: list[str]) -> list[tuple[str, str, str]]:
    con = db.connect(db_path, read_only=True)
    try:
        found = []
        for table, column in _text_columns(con):
            values = [v for v, in con.execute(f'SELECT CAST("{column}" AS VARCHAR) FROM "{table}"').fetchall() if v]
            found += [(table, column, n) for n in needles if any(n in v for v in values)]
        return found
    finally:
        con.close()


def test_no_original_survives_in_any_text_column(inputs, tmp_path):
    plain, redacted = str(tmp_path / "plain.duckdb"), str(tmp_path / "redacted.duckdb")
    _load(inputs, plain, None)
    report = _load(inputs, redacted, Redactor(RedactionConfig(), KEY))
    # The fixture really does hold every original when stored without redaction...
    assert {n for _t, _c, n in _survivors(plain, ORIGINALS)} >= set(EMAILS + PHONES + SECRETS + [CARD])
    # ...and none of it with redaction, in any VARCHAR or JSON column of any table.
    assert _survivors(redacted, ORIGINALS) == []
    assert report.counts["email"] >= 8 and report.counts["phone_cn"] >= 2
    assert {"field:api_key", "field:authorization", "field:cookie", "field:password", "card", "jwt",
            "secret_assignment", "phone_intl", "phone_formatted"} <= set(report.counts)
    assert report.by_column["ingest_errors.raw"]


def test_columns_rules_read_are_untouched(inputs, tmp_path):
    plain, redacted = str(tmp_path / "plain.duckdb"), str(tmp_path / "redacted.duckdb")
    _load(inputs, plain, None)
    _load(inputs, redacted, Redactor(RedactionConfig(), KEY))
    con = db.connect(redacted)
    try:
        con.execute(f"ATTACH '{plain}' AS plain (READ_ONLY)")
        for table in ("tasks", "steps", "messages", "audit_logs"):
            changeable = set(TEXT_COLUMNS[table]) | set(JSON_COLUMNS[table]) | set(USER_ID_COLUMNS.get(table, ()))
            cols = [c for c, in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_catalog = current_database() "
                "AND table_name = ? ORDER BY ordinal_position", [table]).fetchall() if c not in changeable]
            sel = ", ".join(f'"{c}"' for c in cols)
            diff = con.execute(f"SELECT count(*) FROM ((SELECT {sel} FROM plain.{table}) "
                               f"EXCEPT ALL (SELECT {sel} FROM {table}))").fetchall()[0][0]
            rows = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            assert diff == 0 and rows > 0, table
        # Claim words and outcome details survive; only the spans changed.
        answer, = con.execute("SELECT final_answer FROM tasks WHERE task_id = '101'").fetchone()
        assert answer.startswith("好的,已为您创建提醒,并把确认发到 «email:") and answer.endswith("»。")
        assert con.execute("SELECT detail FROM steps WHERE seq = 2 AND task_id = '101'").fetchone()[0] == "未创建"
        args = json.loads(con.execute("SELECT args FROM steps WHERE task_id = '101' AND seq = 1").fetchone()[0])
        assert args["title"] == "回邮件" and args["time"] == "2026-11-09 08:00:00"
        # The same email is the same token in every table: goal, reply, message, JSON.
        token = con.execute("SELECT regexp_extract(goal, '«email:[0-9a-f]+»') FROM tasks WHERE task_id = '101'").fetchone()[0]
        assert token
        for q in ("SELECT count(*) FROM messages WHERE contains(content, ?)",
                  "SELECT count(*) FROM tasks WHERE contains(final_answer, ?)"):
            assert con.execute(q, [token]).fetchone()[0] >= 1
        # A user id that is itself an email keeps joining, as its email token.
        uid = con.execute("SELECT user_id FROM tasks WHERE task_id = '102'").fetchone()[0]
        assert uid.startswith("«email:")
        assert con.execute("SELECT count(*) FROM audit_logs a JOIN tasks t USING (user_id) WHERE t.task_id = '102'"
                           ).fetchone()[0] == 1
        meta = json.loads(con.execute("SELECT metadata FROM steps WHERE task_id = '102'").fetchone()[0])
        assert meta["user.id"] == uid and meta["gen_ai.usage.input_tokens"] == 812
    finally:
        con.close()


def test_pseudonymised_user_ids_still_join(inputs, tmp_path):
    plain, redacted = str(tmp_path / "plain.duckdb"), str(tmp_path / "pseudo.duckdb")
    _load(inputs, plain, None)
    report = _load(inputs, redacted, Redactor(RedactionConfig(pseudonymise_user_id=True), KEY))
    join = ("SELECT t.task_id, count(DISTINCT m.message_id), count(DISTINCT a.audit_id) FROM tasks t "
            "JOIN messages m ON m.user_id = t.user_id JOIN audit_logs a ON a.user_id = t.user_id "
            "GROUP BY ALL ORDER BY ALL")
    results = []
    for path in (plain, redacted):
        con = db.connect(path, read_only=True)
        try:
            results.append(con.execute(join).fetchall())
            users = [u for u, in con.execute("SELECT DISTINCT user_id FROM tasks ORDER BY 1").fetchall()]
        finally:
            con.close()
    assert results[0] == results[1] and len(results[0]) == 2
    assert all(u.startswith("«user:") for u in users) and len(users) == 2
    assert report.counts["user_id"] == 2 + 3 + 3 + 2  # tasks, messages, audit_logs rows, two user-id keys in JSON
    con = db.connect(redacted, read_only=True)
    try:
        uid = con.execute("SELECT user_id FROM tasks WHERE task_id = '102'").fetchone()[0]
        meta = json.loads(con.execute("SELECT metadata FROM steps WHERE task_id = '102'").fetchone()[0])
        assert meta["user.id"] == meta["gen_ai.user.id"] == uid  # user ids inside JSON get the same pseudonym
    finally:
        con.close()
    assert _survivors(redacted, ["li.lei", EMAILS[2]]) == []


def _decoded_tables(paths: list[str]) -> dict[str, pa.Table]:
    decoder = Decoder("Asia/Shanghai")
    tables: dict[str, list[pa.Table]] = {}
    try:
        for path in paths:
            with open(path, "rb") as fh:
                for frame in frames(fh, sniffers=BINARY_SNIFFERS):
                    for t, rows in decoder.decode(frame, path).tables.items():
                        tables.setdefault(t, []).append(rows)
    finally:
        decoder.close()
    return {t: pa.concat_tables(parts) for t, parts in tables.items()}


def test_dry_run_counts_equal_real_counts_and_change_nothing(inputs):
    tables = _decoded_tables(inputs)
    for cfg in (RedactionConfig(), RedactionConfig(pseudonymise_user_id=True)):
        dry = redaction_report(tables, cfg, KEY)
        out, real = redact_tables(tables, cfg, KEY)
        assert dry.as_dict() == real.as_dict() and dry.total > 10
        assert all(out[t] != tables[t] for t in ("tasks", "steps", "messages"))
    assert redact_tables(tables, RedactionConfig(enabled=False), KEY) == (tables, RedactionReport())
    again = _decoded_tables(inputs)
    assert all(again[t].equals(tables[t]) for t in tables)  # the dry run left its input alone


def test_redaction_report_over_files_matches_the_real_ingest_and_writes_nothing(inputs, tmp_path):
    from trace_audit.ingest.load.dry_run import dry_run

    before = sorted(p.name for p in tmp_path.iterdir())
    report = dry_run(inputs, RedactionConfig(), tz="Asia/Shanghai")
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # no database, no key file
    real = _load(inputs, str(tmp_path / "w.duckdb"), Redactor(RedactionConfig(), KEY))
    assert report.as_dict() == real.as_dict()
    assert "steps.args" in report.table() and report.table().endswith(report.summary())


def _attr(key: str, value) -> dict:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def otlp_export() -> dict:
    trace = "5b8efff798038103d269b633813fc60c"
    t0 = 1_762_560_000_000_000_000
    agent = {"traceId": trace, "spanId": "eee19b7ec3c1b170", "name": "invoke_agent reminder-bot", "kind": 1,
             "startTimeUnixNano": str(t0), "endTimeUnixNano": str(t0 + 3_000_000_000),
             "attributes": [
                 _attr("gen_ai.operation.name", "invoke_agent"), _attr("user.id", EMAILS[1]),
                 _attr("gen_ai.conversation.id", "c-000777"),
                 _attr("gen_ai.input.messages", json.dumps(
                     [{"role": "user", "parts": [{"type": "text", "content": f"提醒我给 {EMAILS[0]} 打电话 {PHONES[0]}"}]}],
                     ensure_ascii=False)),
                 _attr("gen_ai.output.messages", json.dumps(
                     [{"role": "assistant", "parts": [{"type": "text", "content": f"好的,已创建提醒:联系 {EMAILS[0]}"}]}],
                     ensure_ascii=False)),
             ]}
    tool = {"traceId": trace, "spanId": "eee19b7ec3c1b171", "parentSpanId": "eee19b7ec3c1b170",
            "name": "execute_tool create_reminder", "kind": 1,
            "startTimeUnixNano": str(t0 + 1_000_000_000), "endTimeUnixNano": str(t0 + 2_000_000_000),
            "attributes": [
                _attr("gen_ai.operation.name", "execute_tool"), _attr("gen_ai.tool.name", "create_reminder"),
                _attr("gen_ai.tool.call.id", "call_1"),
                _attr("gen_ai.tool.call.arguments", json.dumps({"title": "打电话", "phone": PHONES[1],
                                                                 "api_key": SECRETS[0]}, ensure_ascii=False)),
                _attr("http.request.header.authorization", f"Bearer {SECRETS[4]}"),
                _attr("gen_ai.usage.input_tokens", 321),
            ],
            "status": {"code": 2, "message": f"gateway rejected password={SECRETS[1]}"}}
    return {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "reminder-bot"),
                                                            _attr("enduser.id", EMAILS[1])]},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": [agent, tool]}]}]}


def test_otlp_spans_and_everything_derived_from_them_are_redacted(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(otlp_export(), ensure_ascii=False), "utf-8")
    plain, redacted = str(tmp_path / "plain.duckdb"), str(tmp_path / "redacted.duckdb")
    _load([str(path)], plain, None)
    report = _load([str(path)], redacted, Redactor(RedactionConfig(), KEY))
    needles = [EMAILS[0], EMAILS[1], PHONES[0], PHONES[1], SECRETS[0], SECRETS[1], SECRETS[4]]
    assert {n for _t, _c, n in _survivors(plain, needles)} == set(needles)
    assert _survivors(redacted, needles) == []
    assert {"otel_spans.attributes", "otel_spans.resource", "otel_spans.status_message"} <= set(report.by_column)
    con = db.connect(redacted, read_only=True)
    try:
        tool, status = con.execute("SELECT tool, status FROM steps WHERE tool IS NOT NULL").fetchone()
        assert (tool, status) == ("create_reminder", "failed")
        goal, answer, uid = con.execute("SELECT goal, final_answer, user_id FROM tasks").fetchone()
        assert goal.startswith("提醒我给 «email:") and answer.startswith("好的,已创建提醒:联系 «email:")
        assert uid.startswith("«email:")
    finally:
        con.close()


def test_redaction_report_on_otlp_protobuf_counts_what_ingest_redacts(tmp_path):
    # Drift bug (issue 13): the dry run had its own frame loop without the binary sniffers, so a
    # protobuf file was framed as text: its email was reported under ingest_errors.raw while the
    # real ingest redacted it in otel_spans.attributes. The dry run now runs the loader's loop.
    from trace_audit.ingest.load.dry_run import dry_run
    from trace_audit.ingest.load.loader import ingest

    path = tmp_path / "export.pb"
    path.write_bytes(protobuf_of_json(otlp_export()))
    report = dry_run([str(path)], RedactionConfig())
    assert "ingest_errors.raw" not in report.by_column
    assert report.by_column["otel_spans.attributes"]["email"] >= 1
    real = ingest([str(path)], str(tmp_path / "w.duckdb"), redaction=RedactionConfig())
    assert real.files[0].status == "loaded" and real.quarantined == 0
    assert report.as_dict() == real.files[0].redaction.as_dict()
