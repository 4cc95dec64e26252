"""Property: any mix of good seed-004 steps and junk lines loses nothing and stores the good ones exactly."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_ingest_support import JSON_BLANKS, nonblank_lines
from trace_audit.ingest.load.loader import ingest
from trace_audit.ingest.redact.config import RedactionConfig

BASE = datetime(2026, 11, 2, tzinfo=timezone.utc)
line_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=40)

good_step = st.fixed_dictionaries({
    "tool": st.sampled_from(["create_reminder", "list_reminders", "verify_result", "删除提醒"]),
    "verified": st.sampled_from([0, 1, True, False, None]),
    "attempts": st.integers(0, 5),
    "status": st.sampled_from(["SUCCESS", "FAILED", "running", None]),
    "error": st.one_of(st.none(), line_text),
    "args": st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=10)), max_size=3),
    "minutes": st.integers(0, 60 * 24 * 30),
})

junk = st.one_of(
    line_text,                                                           # anything, mostly not JSON
    st.sampled_from(["", "   ", "\t", " \r", "{", "}", "[]", "null", "1", '"s"', "{}", '{"a": 1}']),
    st.builds(lambda s: json.dumps({"task_id": "j", "seq": s, "tool": "t"}), line_text),  # wrong seq type
    st.builds(lambda v: json.dumps({"task_id": "j", "seq": 1, "tool": "t", "verified": v}),
              st.sampled_from(["maybe", "2x", [1], {"a": 1}])),
)

items = st.lists(st.one_of(good_step.map(lambda g: ("good", g)), junk.map(lambda j: ("junk", j))), max_size=40)


def render(kind, value, seq, task_id) -> str:
    if kind == "junk":
        return value
    when = (BASE + timedelta(minutes=value["minutes"])).astimezone(timezone(timedelta(hours=8)))
    return json.dumps({
        "id": seq, "task_id": task_id, "seq": seq, "tool": value["tool"], "verified": value["verified"],
        "attempts": value["attempts"], "status": value["status"], "error": value["error"],
        "args_json": json.dumps(value["args"], ensure_ascii=False), "create_time": when.strftime("%Y-%m-%d %H:%M:%S"),
    }, ensure_ascii=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=items, crlf=st.booleans())
def test_good_records_stored_exactly_and_every_line_accounted(warehouse, items, crlf):
    con, tmp = warehouse
    path = tmp / f"mix-{uuid.uuid4().hex}.jsonl"
    task_id = path.stem
    seqs = iter(range(1, 10_000))
    rendered, goods = [], {}
    for kind, value in items:
        seq = next(seqs) if kind == "good" else None
        rendered.append(render(kind, value, seq, task_id))
        if kind == "good":
            goods[seq] = value
    # A first line that is a good record keeps the file JSON lines: a lone
    # junk "[]" would otherwise rightly be read as an empty JSON array file.
    goods[0] = {"tool": "header", "verified": None, "attempts": 0, "status": None, "error": None, "args": {},
                "minutes": 0}
    rendered.insert(0, render("good", goods[0], 0, task_id))
    data = ("\r\n" if crlf else "\n").join(rendered).encode("utf-8")
    path.write_bytes(data)
    # Stored exactly: redaction (own tests) would rewrite generated phone-like numbers.
    summary = ingest([str(path)], con=con, tz="Asia/Shanghai", redaction=RedactionConfig(enabled=False))
    assert summary.files[0].status in ("loaded", "already_loaded")
    if summary.files[0].status == "already_loaded":
        return  # the very same bytes as an earlier example (e.g. empty): nothing new to check

    def q(sql: str) -> list[tuple]:
        return con.execute(sql, [str(path)]).fetchall()

    n_steps = q("SELECT count(*) FROM steps WHERE source_file = ?")[0][0]
    n_errors = q("SELECT count(*) FROM ingest_errors WHERE source_file = ?")[0][0]
    # The count invariant: non-blank input lines == stored rows + quarantined rows.
    assert len(nonblank_lines(data)) == n_steps + n_errors
    assert all(raw.strip(JSON_BLANKS) for (raw,) in q("SELECT raw FROM ingest_errors WHERE source_file = ?"))
    stored = {r[0]: r[1:] for r in q(
        "SELECT seq, tool, verified, attempts, status, error, args, epoch(started_at) "
        "FROM steps WHERE source_file = ? AND task_id = '" + task_id + "'")}
    assert set(stored) == set(goods)
    status_of = {"SUCCESS": "success", "FAILED": "failed", "running": "running", None: None}
    for seq, g in goods.items():
        tool, verified, attempts, status, error, args, started = stored[seq]
        assert tool == g["tool"]
        assert verified == (None if g["verified"] is None else bool(g["verified"]))
        assert attempts == g["attempts"]
        assert status == status_of[g["status"]]
        assert error == g["error"]
        assert json.loads(args) == g["args"]
        assert started == (BASE + timedelta(minutes=g["minutes"])).timestamp()
