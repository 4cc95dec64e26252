"""A Parquet file from elsewhere with values the warehouse cannot take: those rows are
quarantined one by one (row number, column, value), the others load. Real Parquet, real DuckDB."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from trace_audit.ingest.load.loader import ingest


def test_bad_values_quarantine_their_rows_and_the_rest_loads(tmp_path):
    path = tmp_path / "tasks.parquet"
    pq.write_table(pa.table({
        "task_id": ["a", "b", "c", "d"], "goal": ["g"] * 4, "status": ["success"] * 4,
        "started_at": ["2026-11-01T08:00:00Z", "not a time", "2026-11-01T09:00:00Z", "2026-11-01T10:00:00Z"],
        "total_steps": ["1", "2", "x", "3"],
    }), path)
    db = str(tmp_path / "w.duckdb")
    (result,) = ingest([str(path)], db).files
    assert result.status == "loaded" and result.counts["tasks"] == 2 and result.errors == 2
    con = duckdb.connect(db, read_only=True)
    try:
        assert con.execute("SELECT task_id, total_steps FROM tasks ORDER BY 1").fetchall() == [("a", 1), ("d", 3)]
        assert con.execute("SELECT line, reason FROM ingest_errors ORDER BY line").fetchall() == [
            (2, "Parquet row 2: column started_at: not a time is not a TIMESTAMPTZ"),
            (3, "Parquet row 3: column total_steps: x is not a INTEGER")]
    finally:
        con.close()
