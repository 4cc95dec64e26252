"""The committed OTLP copy of the sample month tells the same story as the seed dumps.

Two warehouses: the seed dumps (seed004 + seed001), and what a user with OpenTelemetry
loads: the OTLP month plus the business system's audit log (seed004/audit_logs.jsonl).
Not the chat `messages` dump: the agent spans carry each turn's request and reply, so the
dump would give every reply twice. Every rule runs on both with the same --now, and the
findings must be identical, turn for turn, except where OpenTelemetry cannot carry a thing
by its nature: spans are exported when they end, so a step still running is missing, and a
running turn exports only its finished steps (no request, started at its first step).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from trace_audit.ingest.load.loader import ingest
from trace_audit.queries import dashboard_queries as dq
from trace_audit.queries.warehouse import db
from trace_audit.queries.engine import run_rules
from trace_audit.queries.outcomes import write_tool_table

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
OTLP = SAMPLE / "otlp" / "month.otlp.jsonl.gz"
NOW = datetime(2026, 11, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
TZ = "Asia/Shanghai"
PER_TOOL = ("SELECT tool, count(*), count(*) FILTER (status = 'failed'), count(*) FILTER (verified = false) "
            "FROM steps WHERE kind <> 'llm' {where} GROUP BY tool ORDER BY tool")
# A running turn with no finished step exports nothing; one with finished steps exports those.
EXPORTED = ("status <> 'running' OR EXISTS (SELECT 1 FROM steps s WHERE s.task_id = t.task_id "
            "AND s.ended_at IS NOT NULL)")
FINDINGS = "SELECT rule_id, task_id, conversation_id, user_id, seq, message, evidence, event_time FROM findings"
REPLY_RULES = ("said_but_not_done", "sentinel_ignored")  # their event time is the reply's


def _load(path: Path, *sources: Path) -> None:
    summary = ingest([str(s) for s in sources], str(path), tz=TZ, progress=False)
    assert not summary.failed and summary.quarantined == 0
    con = db.connect(str(path))
    try:
        result = run_rules(con, now=NOW)
        assert not result.failed
    finally:
        con.close()


@pytest.fixture(scope="module")
def month(tmp_path_factory):
    d = tmp_path_factory.mktemp("otlp_month")
    _load(d / "seeds.duckdb", SAMPLE / "seed004", SAMPLE / "seed001")
    _load(d / "otlp.duckdb", OTLP, SAMPLE / "seed004" / "audit_logs.jsonl")
    seeds, otlp = db.connect(str(d / "seeds.duckdb"), read_only=True), db.connect(str(d / "otlp.duckdb"), read_only=True)
    # Every span of a turn with a task row names the dump's task id (write_otlp.py), and the
    # task takes it; a turn without one is keyed by its trace id.
    ids = {t for (t,) in otlp.execute(
        "SELECT DISTINCT attributes->>'$.\"trace_audit.task_id\"' FROM otel_spans "
        "WHERE attributes->>'$.\"trace_audit.task_id\"' IS NOT NULL").fetchall()}
    yield seeds, otlp, ids, d
    seeds.close()
    otlp.close()


def _findings(con, ids: set | None) -> dict[tuple, list]:
    """Findings keyed by everything but the event time (kept aside, compared with a tolerance)."""
    out: dict[tuple, list] = {}
    for rule, task, conv, user, seq, message, evidence, at in con.execute(FINDINGS).fetchall():
        if ids is not None and task not in ids:
            task = None  # a turn without a task row has none in the dumps either
        ev = json.loads(evidence)
        # The reply's id is each store's own, and the chat dump ties 40% of replies to their
        # turn by time where the telemetry knows the turn: neither is part of the picture.
        ev.pop("message_id", None)
        ev.pop("link", None)
        key = (rule, task, conv, user, seq, message, json.dumps(ev, sort_keys=True, ensure_ascii=False))
        out.setdefault(key, []).append(at)
    return out


def _by_rule(keys) -> Counter:
    return Counter(k[0] for k in keys)


def test_otlp_month_matches_the_seed_dumps(month):
    seeds, otlp, ids, _ = month
    exported = seeds.execute(f"SELECT count(*) FROM tasks t WHERE {EXPORTED}").fetchall()[0][0]
    # Turns that left no task row (not logged in, clarifying questions) are agent invocations too.
    no_task = otlp.execute("SELECT count(*) FROM tasks").fetchall()[0][0] - len(ids)
    assert len(ids) == exported
    assert no_task == sum(1 for line in (SAMPLE / "labels" / "turn_labels.csv").read_text().splitlines()[1:]
                          if line.split(",")[1] == "")
    assert otlp.execute(PER_TOOL.format(where="")).fetchall() == \
        seeds.execute(PER_TOOL.format(where="AND ended_at IS NOT NULL")).fetchall()
    status = ("SELECT status, count(*) FROM tasks WHERE status <> 'running' AND coalesce(total_steps, 0) {} "
              "GROUP BY 1 ORDER BY 1")
    assert otlp.execute(status.format("> 0")).fetchall() == seeds.execute(status.format("> 0")).fetchall()
    # Every finished turn has its reply, as an assistant message tied to the task.
    assert otlp.execute("SELECT count(*) FROM messages WHERE role = 'assistant' AND task_id IS NOT NULL").fetchall() \
        == otlp.execute("SELECT count(final_answer) FROM tasks").fetchall()


def test_every_rule_finds_the_same_turns(month):
    seeds, otlp, ids, _ = month
    s, o = _findings(seeds, None), _findings(otlp, ids)
    running = {str(t) for (t,) in seeds.execute("SELECT task_id FROM tasks WHERE status = 'running'").fetchall()}
    unexported = {str(t) for (t,) in seeds.execute(
        f"SELECT task_id FROM tasks t WHERE status = 'running' AND NOT ({EXPORTED})").fetchall()}
    # Findings on finished turns: identical, with event times within a second (seed004 writes
    # whole seconds, seed001 hundredths, OTLP milliseconds). A seed-001 trace records no reply
    # time, so its reply counts as sent when the turn finished; the agent span ends when the
    # reply went out, 1-3 s later.
    fs = {k: v for k, v in s.items() if k[1] not in running}
    fo = {k: v for k, v in o.items() if k[1] not in running}
    assert set(fs) == set(fo), (_by_rule(set(fs) - set(fo)), _by_rule(set(fo) - set(fs)))
    for k in fs:
        assert len(fs[k]) == len(fo[k]), k
        for a, b in zip(sorted(fs[k]), sorted(fo[k])):
            slack = 3.05 if str(k[1]).startswith("agg-") and k[0] in REPLY_RULES else 1
            assert abs((a - b).total_seconds()) < slack, (k, a, b)
    # Running turns: only stuck_running fires on them. Without a finished step nothing is
    # exported; with one, the turn is found stuck from its first step, without its request.
    rs = {k: v for k, v in s.items() if k[1] in running}
    ro = {k: v for k, v in o.items() if k[1] in running}
    assert set(_by_rule(rs)) == set(_by_rule(ro)) == {"stuck_running"}
    expected = {k[1:5]: json.loads(k[6]) for k in rs if k[1] not in unexported}
    found = {k[1:5]: json.loads(k[6]) for k in ro}
    assert set(found) == set(expected) and len(found) > 0
    for key, ev in found.items():
        assert ev["goal"] is None and expected[key]["goal"]
        assert 0 <= expected[key]["minutes"] - ev["minutes"] <= 1, key
    # The counts, rule by rule (what docs/opentelemetry.md states).
    lost = sum(1 for k in rs if k[1] in unexported)
    assert Counter(k[0] for k, v in o.items() for _ in v) == \
        Counter(k[0] for k, v in s.items() for _ in v) - Counter(stuck_running=lost) and lost > 0


def _audit(con, ids: set | None) -> set:
    return {k for k in _findings(con, ids) if k[0] == "audit_mismatch"}


def test_plain_load_gives_the_same_audit_findings(month):
    """The audit log names turns by the business task id; the spans carry it as
    trace_audit.task_id, so a plain load links them: the same 34 findings."""
    seeds, otlp, ids, _ = month
    assert _audit(otlp, ids) == _audit(seeds, None) and len(_audit(seeds, None)) == 34
    # Every task row's id is the dump's, and no turn gave its claim up.
    assert otlp.execute("SELECT count(*) FROM tasks WHERE metadata->>'task_id_clash' IS NOT NULL").fetchall() == [(0,)]
    assert {t for (t,) in otlp.execute("SELECT task_id FROM tasks WHERE task_id <> metadata->>'trace_id'").fetchall()} \
        == ids


def test_readback_error_of_an_unverified_step_survives(month):
    seeds, otlp, _, _ = month
    q = "SELECT tool, error FROM steps WHERE status = 'success' AND error IS NOT NULL ORDER BY ALL"
    got = otlp.execute(q).fetchall()
    assert got == seeds.execute(q).fetchall() and len(got) > 0


def _overview(con):
    run_id = con.execute("SELECT run_id FROM rule_runs").fetchall()[0][0]  # the one run
    f = dq.Filters(since=date(2026, 11, 2), until=date(2026, 11, 29), tz=TZ, run_id=run_id)
    out = dq.run_plan(dq.prepare(con), dq.page_plan("overview", f, now=NOW))
    return out["daily"], out["tools"], out["stuck"]


def assert_tools_agree(seeds, st, ot) -> None:
    st, ot = (df[df.period == "current"].set_index("tool").drop(columns="period") for df in (st, ot))
    running = dict(seeds.execute("SELECT tool, count(*) FROM steps WHERE ended_at IS NULL GROUP BY 1").fetchall())
    assert list(st.index) == list(ot.index)
    assert (st.drop(columns="calls") == ot.drop(columns="calls")).all().all()
    assert {t: int(n) for t, n in (st.calls - ot.calls).items() if n} == running


def test_dashboard_headline_numbers_agree(month):
    seeds, otlp, ids, _ = month
    sd, st, ss = _overview(seeds)
    od, ot, os_ = _overview(otlp)
    cur = lambda df: df[df.period == "current"].drop(columns="period").reset_index(drop=True)  # noqa: E731
    sd, od = cur(sd), cur(od)
    # Incidents, verified writes, verified=false and failed steps: the same, day by day.
    for col in ("incidents", "verified_writes", "verified_false", "failed_steps"):
        assert sd[col].tolist() == od[col].tolist(), col
    # Writes: steps still running are not exported.
    # Which tools write is the rules' typing (tool_classes), the overview's own source.
    writes = {r["tool"] for r in write_tool_table(seeds).to_pylist() if r["is_write"]}
    running_writes = sum(n for t, n in seeds.execute(
        "SELECT tool, count(*) FROM steps WHERE ended_at IS NULL GROUP BY 1").fetchall() if t in writes)
    assert sd.write_steps.sum() - od.write_steps.sum() == running_writes > 0
    # Turns: the OTLP month also counts the turns that left no task row, and lacks the running
    # turns that exported nothing.
    no_task = otlp.execute("SELECT count(*) FROM tasks").fetchall()[0][0] - len(ids)
    unexported = seeds.execute(f"SELECT count(*) FROM tasks t WHERE NOT ({EXPORTED})").fetchall()[0][0]
    assert od.turns.sum() == sd.turns.sum() + no_task - unexported
    stuck_unexported = seeds.execute(
        f"SELECT count(*) FROM tasks t WHERE NOT ({EXPORTED}) AND started_at < ?",
        [NOW - timedelta(minutes=dq.Filters.model_fields["stuck_minutes"].default)]).fetchall()[0][0]
    assert ss.stuck.tolist() == [os_.stuck[0] + stuck_unexported] and stuck_unexported > 0
    # Per tool: steps, failures, verified=false, the same but for the steps still running.
    assert_tools_agree(seeds, st, ot)


def test_committed_file_is_a_fresh_write(tmp_path):
    subprocess.run([sys.executable, str(SAMPLE / "write_otlp.py"), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    assert (tmp_path / "otlp" / "month.otlp.jsonl.gz").read_bytes() == OTLP.read_bytes()


def test_directory_walk_skips_the_otlp_copy(tmp_path):
    summary = ingest([str(SAMPLE)], str(tmp_path / "w.duckdb"), progress=False)
    assert not any("otlp" in f.path for f in summary.files)
