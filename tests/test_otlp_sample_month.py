"""The committed OTLP copy of the sample month tells the same story as the seed dumps."""

from __future__ import annotations

from pathlib import Path

from trace_audit.ingest.loader import ingest
from trace_audit.queries import db

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
PER_TOOL = ("SELECT tool, count(*), count(*) FILTER (status = 'failed'), count(*) FILTER (verified = false) "
            "FROM steps WHERE kind <> 'llm' {where} GROUP BY tool ORDER BY tool")


def _load(path: str, *sources) -> db.duckdb.DuckDBPyConnection:
    summary = ingest([str(s) for s in sources], path, progress=False)
    assert not summary.failed and summary.quarantined == 0
    return db.connect(path, read_only=True)


def test_otlp_month_matches_the_seed_dumps(tmp_path):
    seeds = _load(str(tmp_path / "seeds.duckdb"), SAMPLE / "seed004", SAMPLE / "seed001")
    otlp = _load(str(tmp_path / "otlp.duckdb"), SAMPLE / "otlp" / "month.otlp.jsonl.gz")
    # OpenTelemetry exports a span when it ends: steps still running, and running turns that
    # finished no step yet, leave nothing to export (docs/opentelemetry.md).
    exported_turns = seeds.execute(
        "SELECT count(*) FROM tasks t WHERE status <> 'running' "
        "OR EXISTS (SELECT 1 FROM steps s WHERE s.task_id = t.task_id AND s.ended_at IS NOT NULL)").fetchall()
    assert otlp.execute("SELECT count(*) FROM tasks").fetchall() == exported_turns
    assert otlp.execute(PER_TOOL.format(where="")).fetchall() == \
        seeds.execute(PER_TOOL.format(where="AND ended_at IS NOT NULL")).fetchall()
    status = "SELECT status, count(*) FROM tasks WHERE status <> 'running' GROUP BY 1 ORDER BY 1"
    assert otlp.execute(status).fetchall() == seeds.execute(status).fetchall()
    # Every finished turn has its reply, as an assistant message tied to the task.
    assert otlp.execute("SELECT count(*) FROM messages WHERE role = 'assistant' AND task_id IS NOT NULL").fetchall() \
        == otlp.execute("SELECT count(final_answer) FROM tasks").fetchall()


def test_directory_walk_skips_the_otlp_copy(tmp_path):
    summary = ingest([str(SAMPLE)], str(tmp_path / "w.duckdb"), progress=False)
    assert not any("otlp" in f.path for f in summary.files)
