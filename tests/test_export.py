"""`trace-audit export`: Parquet by UTC day that DuckDB, chDB and `trace-audit ingest` read back
identically; the ClickHouse DDL matches the warehouse schema; loading into ClickHouse (chDB here)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from trace_audit.cli.main import main
from trace_audit.ingest.load.loader import ingest
from trace_audit.queries.warehouse import db
from trace_audit.queries.engines.base import RULE_TABLES
from trace_audit.queries.engines.clickhouse_family import ddl
from trace_audit.queries.export import ExportError, load_into_clickhouse, write_parquet

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_data"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("exp") / "w.duckdb")
    ingest([str(SAMPLE / "seed004"), str(SAMPLE / "seed001")], path, tz="Asia/Shanghai", progress=False)
    return path


@pytest.fixture(scope="module")
def exported(warehouse, tmp_path_factory):
    out = tmp_path_factory.mktemp("parquet") / "export"
    assert main(["export", "--db", warehouse, "--parquet", str(out)]) == 0
    return out


def _table_rows(con, table: str, schema: str = "") -> int:
    return con.execute(f"SELECT count(*) FROM {schema}{table}").fetchall()[0][0]


def test_partitions_are_utc_days_never_timestamps(warehouse, exported):
    con = db.connect(warehouse, read_only=True)
    try:
        for table in RULE_TABLES:
            dirs = sorted(p.name for p in (exported / table).iterdir())
            assert dirs and all(re.fullmatch(r"day=(\d{4}-\d{2}-\d{2}|NULL)", d) for d in dirs), dirs[:3]
            col = {"tasks": "started_at", "steps": "coalesce(started_at, ended_at)"}.get(table, "created_at")
            want = {f"day={d}" for (d,) in con.execute(
                f"SELECT DISTINCT coalesce(CAST(CAST({col} AS DATE) AS VARCHAR), 'NULL') FROM {table}").fetchall()}
            assert set(dirs) == want
    finally:
        con.close()
    # 2026-11-02 00:30 in Shanghai is 2026-11-01 16:30 UTC: the month starts in an Nov-01 UTC partition
    assert (exported / "tasks" / "day=2026-11-01").is_dir()


def test_files_say_which_table_they_hold_and_json_is_text(exported):
    f = next((exported / "steps").rglob("*.parquet"))
    schema = pq.read_schema(f)
    assert schema.metadata[b"trace_audit_table"] == b"steps"
    assert str(schema.field("args").type) == "string"
    assert str(schema.field("started_at").type) == "timestamp[us, tz=UTC]"


def test_duckdb_reads_the_export_back_identically(warehouse, exported):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"ATTACH '{warehouse}' AS w (READ_ONLY)")
    for table in RULE_TABLES:
        cols = [r[0] for r in con.execute(f"DESCRIBE w.{table}").fetchall()]
        sel = ", ".join(f"CAST({c} AS VARCHAR)" for c in cols)
        back = f"SELECT {sel} FROM read_parquet('{exported}/{table}/*/*.parquet', hive_partitioning = true)"
        orig = f"SELECT {sel} FROM w.{table}"
        assert con.execute(f"SELECT count(*) FROM ({orig} EXCEPT ALL {back})").fetchall()[0][0] == 0
        assert con.execute(f"SELECT count(*) FROM ({back} EXCEPT ALL {orig})").fetchall()[0][0] == 0
        day_type = con.execute(f"SELECT typeof(day) FROM read_parquet('{exported}/{table}/*/*.parquet', "
                               "hive_partitioning = true) LIMIT 1").fetchall()[0][0]
        assert day_type == "DATE"
    con.close()


def test_trace_audit_ingest_reads_the_export_back(warehouse, exported, tmp_path):
    back = str(tmp_path / "back.duckdb")
    summary = ingest([str(exported)], back, progress=False)
    assert summary.files and all(f.status == "loaded" and not f.errors for f in summary.files)
    con = db.connect(back)
    try:
        con.execute(f"ATTACH '{warehouse}' AS w (READ_ONLY)")
        for table in RULE_TABLES:
            n = _table_rows(con, table)
            assert n == _table_rows(con, table, "w.") > 0
            for a, b in ((f"w.{table}", table), (table, f"w.{table}")):
                diff = con.execute(f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})")
                assert diff.fetchall()[0][0] == 0, f"{table}: rows differ after the round trip"
        again = ingest([str(exported)], back, progress=False)
        assert {f.status for f in again.files} == {"already_loaded"}
    finally:
        con.close()


def test_export_refuses_a_used_directory_without_overwrite(warehouse, exported):
    con = db.connect(warehouse, read_only=True)
    try:
        with pytest.raises(ExportError, match="--overwrite"):
            write_parquet(con, exported)
        assert write_parquet(con, exported, overwrite=True)["steps"] > 0
    finally:
        con.close()


def test_clickhouse_ddl_matches_the_warehouse_schema():
    con = db.connect(":memory:")
    try:
        for table in RULE_TABLES:
            want = con.execute(f"DESCRIBE {table}").fetchall()
            body = ddl(table)
            cols = re.findall(r"^\s{4}(\w+)\s+(.+?),?$", body.split("(", 1)[1].split("\n)")[0], re.M)
            assert [c for c, _ in cols] == [r[0] for r in want], table
            for (name, ch_type), row in zip(cols, want):
                duck_type, nullable = row[1], row[2] == "YES"
                expected = {"VARCHAR": "String", "JSON": "String", "INTEGER": "Int32", "BIGINT": "Int64",
                            "BOOLEAN": "Bool", "TIMESTAMP WITH TIME ZONE": "DateTime64(6, 'UTC')"}[duck_type]
                assert ch_type == (f"Nullable({expected})" if nullable else expected), f"{table}.{name}"
            assert "ENGINE = MergeTree" in body and "PARTITION BY toDate(" in body
        assert "ORDER BY (task_id, seq)" in ddl("steps")
    finally:
        con.close()


def test_chdb_reads_the_parquet_export(exported, warehouse):
    chdb = pytest.importorskip("chdb")
    con = db.connect(warehouse, read_only=True)
    try:
        for table in RULE_TABLES:
            got = chdb.query(f"SELECT count() FROM file('{exported}/{table}/*/*.parquet', Parquet)", "CSV")
            assert int(str(got).strip()) == _table_rows(con, table)
    finally:
        con.close()


def test_load_into_clickhouse_and_refuse_loading_twice(warehouse):
    pytest.importorskip("chdb")
    from trace_audit.queries.engines.chdb_engine import ChdbEngine

    con = db.connect(warehouse, read_only=True)
    eng = ChdbEngine()
    try:
        counts = load_into_clickhouse(con, eng)
        assert counts == {t: _table_rows(con, t) for t in RULE_TABLES}
        with pytest.raises(ExportError, match="--replace"):
            load_into_clickhouse(con, eng)
        assert load_into_clickhouse(con, eng, replace=True) == counts
        # times arrive as UTC microseconds, JSON as text, NULLs as NULL
        row = eng.query_arrow("SELECT toString(min(started_at)) AS t, countIf(verified IS NULL) AS n, "
                              "any(args) AS a FROM steps WHERE args IS NOT NULL").to_pylist()[0]
        duck = con.execute("SELECT strftime(min(started_at), '%Y-%m-%d %H:%M:%S.%f'), count(*) FILTER "
                           "(WHERE verified IS NULL) FROM steps WHERE args IS NOT NULL").fetchall()[0]
        assert (row["t"], row["n"]) == duck
        assert row["a"].startswith("{")
    finally:
        eng.close()
        con.close()


def test_export_cli_errors_are_plain(warehouse, tmp_path, capsys):
    assert main(["export", "--db", warehouse]) == 2
    assert "--parquet DIR" in capsys.readouterr().err
    assert main(["export", "--db", warehouse, "--to", "clickhouse"]) == 2
    assert "--clickhouse-url" in capsys.readouterr().err
