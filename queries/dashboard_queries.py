"""The dashboard's SQL: load `queries/dashboard/*.sql`, bind the filters, run.

Each query is one file whose `$name` placeholders are bound by DuckDB, never
pasted into the text, so nothing typed into a filter or a search box can change
a query. `Filters` is the one description of "what the user is looking at"
(period, versions, tool, timezone, rule run); `page_plan` says which queries a
page needs, so the pages, the cache and `bench/dashboard.py` all run the same
thing.

Speed: a page never joins steps to tasks more than once. Pages whose queries aggregate
steps by their turn's period first run a *stage* (`stage_*.sql`): one join, filtered by
the period, into a narrow session TEMP table that the page's queries then aggregate
(temp tables work on the read-only connection and die with it). Each join is narrowed by
a window on the steps' own start time, which DuckDB answers from its zone maps: `StepLag`
(`step_lag.sql`, computed once per data change) bounds how far a step starts from its
turn, so the window only drops steps that cannot belong to the period's turns. Without a
`StepLag` the window is a century wide: slower, never wrong.

Local days: bucketing by `timezone(tz, ts)` costs ~0.9 s per million rows
here, adding a fixed offset ~0.1 s, so the timezone's UTC offset at the middle
of the period is bound as `$tz_offset_s` (exact for zones without daylight
saving, an hour off for buckets on the far side of a DST switch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache
from importlib import resources
from zoneinfo import ZoneInfo

import duckdb
import pandas as pd
from pydantic import BaseModel, ConfigDict, field_validator

from . import marks

from .sql_params import param_names
from .warehouse.zones import check_zone

WIDE = timedelta(days=36525)
DEFAULT_LIMIT = 500


@lru_cache(maxsize=None)
def sql(name: str) -> str:
    """The text of `queries/dashboard/<name>.sql`."""
    return resources.files("trace_audit.queries").joinpath("dashboard", f"{name}.sql").read_text("utf-8")


def prepare(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Define the session-local macros the queries use (safe on read-only connections)."""
    con.execute(sql("macros"))
    # review marks (queries/marks.py): empty unless the caller registered the file beside the warehouse
    con.execute(f"CREATE TEMP TABLE IF NOT EXISTS review_marks ({marks.COLUMNS})")
    return con


def run(con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None) -> pd.DataFrame:
    """Run one dashboard query with its placeholders bound from `params`.

    Only the names the query uses are passed (DuckDB rejects extras); a name the
    query needs but `params` lacks is a programming error and says which.
    """
    text = sql(name)
    wanted = param_names(text)
    params = params or {}
    missing = [k for k in wanted if k not in params]
    if missing:
        raise KeyError(f"dashboard query {name}.sql needs parameters {missing}")
    return con.execute(text, {k: params[k] for k in wanted}).df()


class StepLag(BaseModel):
    """How early / late a step starts relative to its turn, over the whole warehouse."""

    model_config = ConfigDict(frozen=True)

    lag_min: timedelta = -WIDE
    lag_max: timedelta = WIDE


def step_lag(con: duckdb.DuckDBPyConnection) -> StepLag:
    """Measure the warehouse's step lag (one join of all steps to their turns; cache it per
    data change). An empty warehouse gets a zero-width lag, which is exact for it."""
    lo, hi = con.execute(sql("step_lag")).fetchall()[0]
    if lo is None:
        return StepLag(lag_min=timedelta(0), lag_max=timedelta(0))
    return StepLag(lag_min=timedelta(microseconds=int(lo)), lag_max=timedelta(microseconds=int(hi)))


class Filters(BaseModel):
    """What the user is looking at; built from the sidebar / URL and validated here."""

    model_config = ConfigDict(frozen=True)

    since: date                      # first local day of the period
    until: date                      # last local day of the period (inclusive)
    agent_version: str | None = None
    tool: str | None = None
    tz: str = "UTC"
    run_id: str | None = None        # rule run; None = no run yet
    stuck_minutes: int = 30

    @field_validator("tz")
    @classmethod
    def _known_zone(cls, v: str) -> str:
        return check_zone(v, option=None)

    @field_validator("until")
    @classmethod
    def _ordered(cls, v: date, info) -> date:
        since = info.data.get("since")
        if since and v < since:
            raise ValueError(f"the period ends ({v}) before it starts ({since})")
        return v

    @property
    def days(self) -> int:
        return (self.until - self.since).days + 1

    def _instant(self, day: date) -> datetime:
        return datetime.combine(day, time(0), ZoneInfo(self.tz)).astimezone(timezone.utc)

    def params(self, now: datetime | None = None, lag: StepLag | None = None, **extra) -> dict:
        """The bound values every dashboard query draws from. `lag` (from `step_lag`) only
        narrows the scans; left out, the queries are as exact and slower."""
        since = self._instant(self.since)
        until = self._instant(self.until + timedelta(days=1))
        prev_since = self._instant(self.since - timedelta(days=self.days))
        middle = since + (until - since) / 2
        offset = ZoneInfo(self.tz).utcoffset(middle.replace(tzinfo=None)) or timedelta(0)
        now = now or until
        out = {
            "since": since, "until": until, "prev_since": prev_since, "since_day": self.since,
            "agent_version": self.agent_version, "tool": self.tool,
            "tz_offset_s": int(offset.total_seconds()),
            "run_id": self.run_id or "", "now": now,
            "stuck_before": now - timedelta(minutes=self.stuck_minutes),
            "limit": DEFAULT_LIMIT, "grain": "day", "kind": None, "tod_minute": None,
            "lag_min": (lag or StepLag()).lag_min, "lag_max": (lag or StepLag()).lag_max,
        }
        out.update(extra)
        return out


def default_zone(con: duckdb.DuckDBPyConnection, explicit: str | None = None) -> str:
    """The zone a screen or report counts days in unless told otherwise: `explicit` (an
    option or $TRACE_AUDIT_TZ), else the zone the data was ingested in, else UTC. The
    dashboard and `trace-audit report` both ask here, so by default they agree."""
    if explicit:
        return explicit
    try:
        rows = run(con, "data_zone")
    except duckdb.Error:  # a warehouse from before ingest_files.tz
        return "UTC"
    zone = rows["tz"].iloc[0] if not rows.empty else None
    try:
        return Filters(since=date.today(), until=date.today(), tz=zone).tz if zone else "UTC"
    except ValueError:
        return "UTC"


def iso_week_bounds(week: str) -> tuple[date, date]:
    """'2026-W47' -> (Monday, Sunday)."""
    m = re.fullmatch(r"(\d{4})-?W(\d{1,2})", week.strip(), flags=re.IGNORECASE)
    if not m:
        raise ValueError(f"week {week!r} is not an ISO week like 2026-W47")
    year, num = int(m.group(1)), int(m.group(2))
    try:
        monday = date.fromisocalendar(year, num, 1)
    except ValueError as exc:
        raise ValueError(f"{year} has no ISO week {num}") from exc
    return monday, monday + timedelta(days=6)


def newest_week(con: duckdb.DuckDBPyConnection, tz: str) -> str:
    """The ISO week (in `tz`) of the newest turn that has a time; this week's when none has one."""
    from zoneinfo import ZoneInfo

    newest = con.execute("SELECT max(started_at) FROM tasks").fetchall()[0][0]
    day = (newest.astimezone(ZoneInfo(tz)) if newest is not None else datetime.now(ZoneInfo(tz))).date()
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def data_clock(con: duckdb.DuckDBPyConnection, run_id: str | None) -> datetime | None:
    """'Now' for stuck tasks: the chosen rule run's --now, else the newest event stored.

    The wall clock is wrong for a replayed month (every old running turn would be
    stuck for weeks), so the dashboard uses the instant the data describes.
    """
    if run_id:
        row = con.execute("SELECT now_ts FROM rule_runs WHERE run_id = ?", [run_id]).fetchall()
        if row and row[0][0] is not None:
            return row[0][0]
    row = con.execute(
        "SELECT greatest((SELECT max(started_at) FROM tasks), (SELECT max(started_at) FROM steps), "
        "(SELECT max(created_at) FROM messages))"
    ).fetchall()
    return row[0][0] if row else None


def run_stage(con: duckdb.DuckDBPyConnection, name: str, params: dict) -> None:
    """Build one stage's session table (`stage_<name>.sql`) on this connection."""
    text = sql(name)
    con.execute(text, {k: params[k] for k in param_names(text)})
    if name in TYPED_WRITE_STAGES:
        _typed_write_tools(con)


# Stages after which a page's queries read `typed_write_tools`.
TYPED_WRITE_STAGES = ("stage_period_steps",)


def _typed_write_tools(con: duckdb.DuckDBPyConnection) -> None:
    """`typed_write_tools`: the warehouse's tools that write, typed as the rules type them
    (queries/reading/tools.py through tool_classes: verbs anywhere in the name, MCP annotations,
    [write_tools] in trace-audit.toml), not by a second list of name prefixes. One row per
    distinct tool name, so dated and undated turns read the same typing."""
    from .outcomes import write_tool_table

    tools = write_tool_table(con)
    con.register("_ta_typed_tools", tools)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE typed_write_tools AS SELECT tool FROM _ta_typed_tools "
                    "WHERE is_write")
    finally:
        con.unregister("_ta_typed_tools")


# Stages each page builds first (one steps-to-tasks join each), then the queries that read them.
PAGE_STAGES: dict[str, tuple[str, ...]] = {
    "overview": ("stage_period_steps",),
    "trends": ("stage_period_steps",),
    "patterns": ("stage_checked_steps",),
}

# Which queries each page runs (name in the page -> sql file, extra bound values).
PAGE_QUERIES: dict[str, dict[str, tuple[str, dict]]] = {
    "overview": {
        "daily": ("overview_daily", {}),
        "tools": ("tool_compare", {}),
        "stuck": ("stuck_count", {}),
        "undated": ("undated", {}),
    },
    "incidents": {
        "daily": ("incidents_daily", {}),
        "list": ("incidents_list", {}),
    },
    "patterns": {
        "fingerprints": ("vf_fingerprints", {}),
        "previous": ("vf_previous", {}),
        "versions": ("vf_by_version", {}),
        "hours": ("vf_by_hour", {}),
        "daily": ("vf_daily", {}),
    },
    "stuck": {
        "list": ("stuck_tasks", {}),
        "summary": ("stuck_summary", {}),
    },
    "trends": {
        "series": ("tool_series", {}),
        "compare": ("tool_compare", {}),
    },
    "rules": {
        "runs": ("rule_runs", {}),
        "summary": ("rules_summary", {}),
    },
}


@dataclass(frozen=True)
class Plan:
    """Everything behind one page: stages to build, then named queries with their values."""

    page: str
    stages: tuple[str, ...]
    params: dict
    queries: dict[str, tuple[str, dict]]


def page_plan(page: str, filters: Filters, now: datetime | None, lag: StepLag | None = None,
              **extra) -> Plan:
    """The stages and queries behind `page`, with their bound values.

    Trends runs its (costly) latency percentiles only when latency is being looked at
    (`latency=True`)."""
    latency = extra.pop("latency", False)
    base = filters.params(now=now, lag=lag, **extra)
    queries = {key: (name, {**base, **more}) for key, (name, more) in PAGE_QUERIES[page].items()}
    if page == "trends" and latency:
        queries["latency"] = ("tool_latency", base)
    return Plan(page=page, stages=PAGE_STAGES.get(page, ()), params=base, queries=queries)


def uses_lag(plan: Plan) -> bool:
    """Whether any stage or query of `plan` narrows by the step lag (else measuring it is wasted)."""
    names = list(plan.stages) + [name for name, _ in plan.queries.values()]
    return any(p.startswith("lag_") for name in names for p in param_names(sql(name)))


def run_plan(con: duckdb.DuckDBPyConnection, plan: Plan) -> dict[str, pd.DataFrame]:
    """Build the plan's stages on `con`, then run its queries (all on the same connection)."""
    for stage in plan.stages:
        run_stage(con, stage, plan.params)
    return {key: run(con, name, params) for key, (name, params) in plan.queries.items()}
