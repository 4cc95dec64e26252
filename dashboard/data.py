"""The pages' only way to the warehouse: read-only, short-lived, cached.

Each script run opens one read-only connection (retrying briefly while an ingest
or the OTLP receiver holds the write lock), reads the change marker, and closes
the connection when the page has rendered, so a writer is never locked out for
longer than one page render. Query results are cached with `st.cache_data`
keyed on (path, file mtime, change marker, query, bound values): a new ingest or
rule run changes the key, nothing else does. A page's plan (its stages and the
queries that read them) is cached as one unit, since the queries need the stage
tables built on the same connection. The step lag (`dq.step_lag`, one join over
the whole warehouse) is measured once per change marker and shared by every page.

When the database is busy the run carries on without a connection: anything
already cached for the last key seen is shown with an "updating" note; anything
else raises `DatabaseBusy`, which the app turns into a friendly retry note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime

import duckdb
import pandas as pd
import streamlit as st

from ..queries import dashboard_queries as dq
from ..queries import marks
from ..queries.warehouse import db

WAIT_SECONDS = 2.0
LAST_KEY = "_ta_last_db_key"


@dataclass
class Warehouse:
    path: str
    con: duckdb.DuckDBPyConnection | None
    key: tuple
    busy: bool = False
    freshness: dict = field(default_factory=dict)

    def frame(self, name: str, params: dict) -> pd.DataFrame:
        return _cached_query(self.key, name, params, _wh=self)

    def plan(self, page: str, filters: dq.Filters, now: datetime | None, **extra) -> dict[str, pd.DataFrame]:
        plan = dq.page_plan(page, filters, now, **extra)
        if dq.uses_lag(plan):  # the step lag is one join over everything: only where it pays
            plan = dq.page_plan(page, filters, now, lag=self.lag(), **extra)
        return _cached_plan(self.key, plan.page, plan.stages, plan.params, plan.queries, _wh=self)

    def lag(self) -> dq.StepLag:
        return self.call("step_lag", dq.step_lag)

    def call(self, fn_name: str, fn, *args):
        """Cache any pure function of the connection (e.g. the weekly report builder)."""
        return _cached_call(self.key, fn_name, args, _fn=fn, _wh=self)

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None


@st.cache_data(show_spinner=False, max_entries=512)
def _cached_query(key: tuple, name: str, params: dict, _wh: Warehouse) -> pd.DataFrame:
    return dq.run(_wh_connection(_wh), name, params)


@st.cache_data(show_spinner=False, max_entries=128)
def _cached_plan(key: tuple, page: str, stages: tuple, params: dict, queries: dict, _wh: Warehouse
                 ) -> dict[str, pd.DataFrame]:
    return dq.run_plan(_wh_connection(_wh), dq.Plan(page, stages, params, queries))


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_call(key: tuple, fn_name: str, args: tuple, _fn, _wh: Warehouse):
    return _fn(_wh_connection(_wh), *args)


def _wh_connection(wh: Warehouse) -> duckdb.DuckDBPyConnection:
    if wh.con is None:
        raise db.DatabaseBusy(f"database {wh.path} is being written by another process; this view is not cached yet")
    return wh.con


def _naive_utc_files(con: duckdb.DuckDBPyConnection) -> tuple[int, str | None]:
    """(files whose naive times were read as UTC by default, one of them); (0, None) on a warehouse
    from before ingest_files recorded the zone (read-only here: its columns cannot be added)."""
    has = con.execute("SELECT count(*) FROM duckdb_columns() WHERE table_name = 'ingest_files' "
                      "AND column_name = 'naive_times'").fetchall()[0][0]
    if not has:
        return 0, None
    row = dq.run(con, "naive_utc_files").iloc[0]
    return int(row["files"]), row["example"]


def db_path() -> str:
    return db.default_db_path()


def open_warehouse(path: str | None = None) -> Warehouse:
    """Open for this script run. Raises DatabaseMissing / DatabaseError (not Busy: busy returns a
    Warehouse without a connection that serves what is cached)."""
    path = path or db_path()
    try:
        con = db.connect(path, read_only=True, wait_seconds=WAIT_SECONDS)
    except db.DatabaseBusy:
        last = st.session_state.get(LAST_KEY)
        return Warehouse(path, None, last or (path, "busy"), busy=True,
                         freshness=st.session_state.get(LAST_KEY + "_fresh", {}))
    try:
        dq.prepare(con)
        marks.register(con, path)  # the review marks file beside the warehouse
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            mtime = 0
        key = (os.path.abspath(path), mtime, db.change_marker(con), marks.version(path))
        fresh = dq.run(con, "freshness").iloc[0].to_dict()
        fresh["naive_utc_files"], fresh["naive_utc_example"] = _naive_utc_files(con)
    except duckdb.Error as exc:
        con.close()
        raise db.DatabaseError(
            f"{path} is not a trace-audit database or is damaged ({exc}). "
            f"Build one with: trace-audit ingest PATH --db {path}") from exc
    st.session_state[LAST_KEY] = key
    st.session_state[LAST_KEY + "_fresh"] = fresh
    return Warehouse(path, con, key, freshness=fresh)
