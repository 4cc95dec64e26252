"""A small Python API for analysts: the warehouse, read-only, as polars DataFrames.

    from trace_audit import open_warehouse

    with open_warehouse("trace_audit.duckdb") as wh:
        steps = wh.steps(tool="create_reminder", since="2026-11-16")
        steps.group_by("error").len().sort("len", descending=True)

Every frame comes out of DuckDB as Arrow and is handed to polars with `pl.from_arrow(...,
rechunk=False)`: numbers, booleans and times keep DuckDB's Arrow buffers (no copy; the test
checks the addresses), and text is asked of DuckDB as Arrow string views, polars' own string
layout, so it is not re-encoded either (with pyarrow >= 16; older pyarrow gets plain strings). The `*_arrow` twins return
the pyarrow tables for code that wants no polars at all; polars itself is the `[polars]` extra.

The connection is read-only (an ingest or the OTLP receiver may write meanwhile: they wait for
no one, and this waits up to `wait_seconds` for them). Times are UTC instants. Filters are bound
values, never text pasted into SQL. See docs/python-api.md.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from .runs import resolve_run
from .warehouse import db

if TYPE_CHECKING:  # polars is optional: imported when a DataFrame is asked for
    import polars as pl

TURN_COLUMNS = ("task_id, source, user_id, conversation_id, goal, status, total_steps, success_steps, replanned, "
                "started_at, finished_at, final_answer, agent_version, model, prompt_version")


def _when(value: datetime | str | None) -> datetime | None:
    """An ISO text or a datetime; a naive one is UTC (as the warehouse stores every time)."""
    if value is None:
        return None
    ts = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else value
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def _polars():
    try:
        import polars
    except ModuleNotFoundError:
        raise ModuleNotFoundError("trace_audit's DataFrames need polars: pip install 'trace-audit[polars]' "
                                  "(or use the *_arrow methods, which return pyarrow tables)") from None
    return polars


class Warehouse:
    """One read-only connection to a trace-audit warehouse; close it (or use `with`)."""

    def __init__(self, path: str | None = None, wait_seconds: float = 10.0):
        self.path = db.require(path)
        self.con = db.connect(self.path, read_only=True, wait_seconds=wait_seconds)
        if int(pa.__version__.split(".")[0]) >= 16:  # pyarrow 15 cannot hold string views
            try:  # text as Arrow string views, polars' own string layout (needs Arrow format 1.4 output)
                self.con.execute("SET GLOBAL arrow_output_version = '1.4'")
                self.con.execute("SET GLOBAL produce_arrow_string_view = true")
            except duckdb.Error:  # an older DuckDB: plain strings, which polars converts
                pass

    # -- Arrow ---------------------------------------------------------------------------------
    def sql_arrow(self, query: str, params: dict[str, Any] | list | None = None) -> pa.Table:
        """Any read-only query of the warehouse tables (docs/architecture.md), bound `params`."""
        cur = self.con.cursor()
        try:
            return cur.sql(query, params=params).to_arrow_table()
        finally:
            cur.close()

    def turns_arrow(self, since=None, until=None, user: str | None = None, conversation: str | None = None,
                    status: str | None = None) -> pa.Table:
        """One row per turn (`tasks`), by start time: since <= started_at < until."""
        return self.sql_arrow(
            f"SELECT {TURN_COLUMNS} FROM tasks WHERE ($since IS NULL OR started_at >= $since) "
            "AND ($until IS NULL OR started_at < $until) AND ($user IS NULL OR user_id = $user) "
            "AND ($conv IS NULL OR conversation_id = $conv) AND ($status IS NULL OR status = $status) "
            "ORDER BY started_at NULLS LAST, task_id",
            {"since": _when(since), "until": _when(until), "user": user, "conv": conversation, "status": status})

    def steps_arrow(self, task_id: str | None = None, tool: str | None = None, since=None, until=None) -> pa.Table:
        """Every step (args and result as JSON text), by turn and seq; the time filter is the step's start."""
        return self.sql_arrow(
            "SELECT task_id, seq, tool, kind, status, verified, attempts, error, detail, "
            "CAST(args AS VARCHAR) AS args, CAST(result AS VARCHAR) AS result, started_at, ended_at, model "
            "FROM steps WHERE ($task IS NULL OR task_id = $task) AND ($tool IS NULL OR tool = $tool) "
            "AND ($since IS NULL OR started_at >= $since) AND ($until IS NULL OR started_at < $until) "
            "ORDER BY task_id, seq",
            {"task": task_id, "tool": tool, "since": _when(since), "until": _when(until)})

    def findings_arrow(self, run: str | None = "latest", rule: str | None = None) -> pa.Table:
        """The findings of one stored rule run (latest by default; a run id or unique prefix)."""
        return self.sql_arrow(
            "SELECT run_id, rule_id, severity, task_id, conversation_id, user_id, seq, event_time, message, "
            "CAST(evidence AS VARCHAR) AS evidence FROM findings WHERE run_id = $run "
            "AND ($rule IS NULL OR rule_id = $rule) ORDER BY rule_id, event_time NULLS LAST, task_id, seq",
            {"run": resolve_run(self.con, run), "rule": rule})

    def rule_runs_arrow(self) -> pa.Table:
        """Every stored rule run, newest first (what `trace-audit rules runs` lists)."""
        return self.sql_arrow(
            "SELECT run_id, started_at, finished_at, now_ts, since_ts, until_ts, engine, config_hash, "
            "finding_count, coalesce(json_array_length(rules), 0) AS rule_count, "
            "coalesce(json_array_length(failed_rules), 0) AS failed_count FROM rule_runs "
            "ORDER BY started_at DESC, run_id DESC")

    # -- polars --------------------------------------------------------------------------------
    @staticmethod
    def frame(table: pa.Table) -> pl.DataFrame:
        """`table` as a polars DataFrame over the same Arrow buffers (no rechunk, no copy)."""
        return _polars().from_arrow(table, rechunk=False)

    def sql(self, query: str, params: dict[str, Any] | list | None = None) -> pl.DataFrame:
        return self.frame(self.sql_arrow(query, params))

    def turns(self, since=None, until=None, user: str | None = None, conversation: str | None = None,
              status: str | None = None) -> pl.DataFrame:
        return self.frame(self.turns_arrow(since, until, user, conversation, status))

    def steps(self, task_id: str | None = None, tool: str | None = None, since=None, until=None) -> pl.DataFrame:
        return self.frame(self.steps_arrow(task_id, tool, since, until))

    def findings(self, run: str | None = "latest", rule: str | None = None) -> pl.DataFrame:
        return self.frame(self.findings_arrow(run, rule))

    def rule_runs(self) -> pl.DataFrame:
        return self.frame(self.rule_runs_arrow())

    # -- lifetime ------------------------------------------------------------------------------
    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_warehouse(path: str | None = None, wait_seconds: float = 10.0) -> Warehouse:
    """The warehouse at `path` (default $TRACE_AUDIT_DB or ./trace_audit.duckdb), read-only.
    A missing file raises DatabaseMissing: nothing is created."""
    return Warehouse(path, wait_seconds)
