"""The restructured dashboard queries (page stages, the step-time window, fingerprints per
distinct error) return exactly what the plain reference queries in
tests/fixtures/dashboard_reference/ return: on the sample month under several filters, and
on a small warehouse built to break the step-time window (a step that starts days after its
turn, steps and turns without a start time)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest

from dashboard_support import TZ, build_sample_db
from trace_audit.queries import dashboard_queries as dq
from trace_audit.queries.sql_params import param_names
from trace_audit.queries.warehouse import db
from trace_audit.dashboard import report

REFERENCE = Path(__file__).parent / "fixtures" / "dashboard_reference"
NONDETERMINISTIC = {"example"}  # any_value(): any member of the group is right


def reference(con, name: str, params: dict) -> pd.DataFrame:
    text = (REFERENCE / f"{name}.sql").read_text("utf-8")
    return con.execute(text, {k: params[k] for k in param_names(text)}).df()


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    df = df.drop(columns=[c for c in df.columns if c in NONDETERMINISTIC])
    if df.empty:
        return df.reset_index(drop=True)
    key = df.map(repr)  # lists (quantiles) and NaNs sort as text
    return df.loc[key.sort_values(list(key.columns)).index].reset_index(drop=True)


def assert_same(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    assert list(got.columns) == list(want.columns), what
    pd.testing.assert_frame_equal(canonical(got), canonical(want), check_dtype=False, obj=what)


def check_plan(con, page: str, f: dq.Filters, lag: dq.StepLag | None, **extra) -> dict[str, pd.DataFrame]:
    now = dq.data_clock(con, f.run_id)
    plan = dq.page_plan(page, f, now, lag=lag, **extra)
    got = dq.run_plan(con, plan)
    for key, (name, params) in plan.queries.items():
        if (REFERENCE / f"{name}.sql").exists():
            assert_same(got[key], reference(con, name, params), f"{page}/{key} ({name}) {f}")
    return got


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    work = tmp_path_factory.mktemp("plans")
    path = str(work / "sample.duckdb")
    build_sample_db(path, work)
    con = db.connect(path, read_only=True)
    dq.prepare(con)
    yield con
    con.close()


def latest(con) -> str:
    return con.execute("SELECT run_id FROM rule_runs ORDER BY started_at DESC, run_id DESC LIMIT 1").fetchall()[0][0]


@pytest.mark.parametrize("week, extra_filters, grain", [
    ("2026-W47", {}, "day"),
    ("2026-W47", {"agent_version": "2.4.0"}, "day"),
    ("2026-W47", {"tool": "create_reminder"}, "hour"),
    ("2026-W46", {}, "hour"),
])
def test_page_plans_equal_reference_queries(sample, week, extra_filters, grain):
    monday, sunday = dq.iso_week_bounds(week)
    f = dq.Filters(since=monday, until=sunday, tz=TZ, run_id=latest(sample), **extra_filters)
    lag = dq.step_lag(sample)
    got = check_plan(sample, "overview", f, lag)
    assert got["daily"]["turns"].sum() > 0 and not got["tools"].empty
    got = check_plan(sample, "trends", f, lag, grain=grain, latency=True)
    assert not got["series"].empty and not got["latency"].empty
    got = check_plan(sample, "patterns", f, lag)
    assert got["fingerprints"]["steps"].sum() == got["hours"]["verified_false"].sum() > 0
    check_plan(sample, "incidents", f, lag)
    check_plan(sample, "rules", f, lag)
    got = check_plan(sample, "stuck", f, lag)
    assert not got["list"].empty
    p = f.params(now=dq.data_clock(sample, f.run_id), lag=lag, limit=10_000)
    dq.run_stage(sample, "stage_period_steps", p)
    # version_tool_rates serves the weekly report, which has no version filter (the stage
    # applies one when given, so it is compared without).
    for name in ("new_fingerprints",) + (("version_tool_rates",) if f.agent_version is None else ()):
        assert_same(dq.run(sample, name, p), reference(sample, name, p), f"{name} {f}")


EVER = {"since": datetime(1970, 1, 1, tzinfo=timezone.utc), "until": datetime(2200, 1, 1, tzinfo=timezone.utc)}


@pytest.mark.parametrize("search", [
    {"text": "reminder"}, {"text": "提醒"}, {"text": "REMINDER", **EVER}, {"user_id": "510"},
    {"user_id": "510", **EVER}, {"text": "x' OR 1=1 --", **EVER}, {"conversation_id": "nope"},
    {"tod_minute": 8 * 60 + 30}, {"tod_minute": 5, "text": "remind"}, {"user_id": "1003", **EVER},
])
def test_search_equals_reference(sample, search):
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22), tz=TZ, run_id=latest(sample))
    p = {**f.params(user_id=None, conversation_id=None, task_id=None, text=None, limit=200), **search}
    got = dq.run(sample, "search_turns", p)
    assert_same(got, reference(sample, "search_turns", p), f"search {search}")
    if "user_id" in search and search.get("since") is not None:
        assert not got.empty


def test_search_by_task_counts_its_findings(sample):
    task = sample.execute("SELECT task_id FROM findings WHERE run_id = ? AND task_id IS NOT NULL "
                          "GROUP BY task_id ORDER BY count(*) DESC, task_id LIMIT 1", [latest(sample)]).fetchall()[0][0]
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22), tz=TZ, run_id=latest(sample))
    p = {**f.params(user_id=None, conversation_id=None, text=None, limit=200), "task_id": task, **EVER}
    got = dq.run(sample, "search_turns", p)
    assert got["task_id"].tolist() == [task] and got["findings"].iloc[0] >= 2
    assert_same(got, reference(sample, "search_turns", p), "search by task")


def test_new_fingerprints_of_the_incident_week(sample):
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22), tz=TZ, run_id=latest(sample))
    p = f.params(lag=dq.step_lag(sample), limit=10_000)
    got = dq.run(sample, "new_fingerprints", p)
    assert not got.empty  # the W47 read-back mismatch is new that week
    assert (got["first_seen"] >= p["since"]).all()


def test_weekly_report_is_the_same_with_and_without_a_measured_lag(sample):
    a = report.build_weekly(sample, "2026-W47", tz=TZ)
    b = report.build_weekly(sample, "2026-W47", tz=TZ, lag=dq.StepLag())  # century-wide window
    assert a.headline == b.headline and a.jump_sentences() == b.jump_sentences()
    assert "agent version 2.4.0" in " ".join(a.jump_sentences())
    assert_same(a.tools, b.tools, "tools")
    assert_same(a.new_fingerprints, b.new_fingerprints, "new fingerprints")


# ---- a warehouse made to break a careless step-time window --------------------------------

T0 = datetime(2026, 11, 16, 2, 0, tzinfo=timezone.utc)


@pytest.fixture
def odd(tmp_path):
    """Turns in W47 and W46 whose steps start late, early, or never; one turn has no start."""
    path = str(tmp_path / "odd.duckdb")
    con = db.connect(path)
    tasks = [  # task_id, started_at, agent_version
        ("late", T0 + timedelta(days=5), "1.0"),            # its second step starts 3 days later
        ("early", T0 + timedelta(days=6, hours=13), "1.0"),  # a step starts 1 h before the turn
        ("untimed", T0 + timedelta(days=1), "2.0"),         # steps without a start time
        ("prev", T0 - timedelta(days=5), "1.0"),            # the week before
        ("old", T0 - timedelta(days=20), "1.0"),            # long before: its error is not new
        ("nostart", None, "1.0"),                           # a turn without a start time
    ]
    con.executemany("INSERT INTO tasks (task_id, user_id, started_at, status, agent_version, model) "
                    "VALUES (?, 'u1', ?, 'success', ?, 'm')", tasks)
    steps = [  # task_id, seq, tool, status, verified, attempts, error, started_at
        ("late", 1, "create_reminder", "success", True, 1, None, T0 + timedelta(days=5, seconds=2)),
        ("late", 2, "create_reminder", "success", False, 2, "read-back mismatch id=1", T0 + timedelta(days=8)),
        ("early", 1, "create_todo", "failed", None, 1, "timeout after 30 ms", T0 + timedelta(days=6, hours=12)),
        ("untimed", 1, "create_todo", "success", False, 1, "read-back mismatch id=2", None),
        ("untimed", 2, "list_reminders", "success", None, 1, None, None),
        ("prev", 1, "create_reminder", "success", True, 1, None, T0 - timedelta(days=5)),
        ("prev", 2, "create_todo", "failed", None, 2, "timeout after 99 ms", T0 - timedelta(days=5)),
        ("old", 1, "create_todo", "success", False, 1, "disk full on 7", T0 - timedelta(days=20)),
        ("nostart", 1, "create_todo", "success", False, 1, "disk full on 8", T0 + timedelta(days=2)),
    ]
    con.executemany("INSERT INTO steps (task_id, seq, tool, kind, status, verified, attempts, error, started_at, "
                    "ended_at) VALUES (?, ?, ?, 'tool', ?, ?, ?, ?, ?, CAST(? AS TIMESTAMPTZ) + INTERVAL 1 SECOND)",
                    [(*s, s[-1]) for s in steps])
    con.close()
    con = db.connect(path, read_only=True)
    dq.prepare(con)
    yield con
    con.close()


def test_only_pages_that_narrow_by_time_need_the_lag():
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22))
    need = {page: dq.uses_lag(dq.page_plan(page, f, None)) for page in dq.PAGE_QUERIES}
    assert need == {"overview": True, "incidents": False, "patterns": True, "stuck": False, "trends": True,
                    "rules": False}


def test_step_lag_measures_the_outliers(odd):
    lag = dq.step_lag(odd)
    assert lag.lag_min == timedelta(hours=-1) and lag.lag_max == timedelta(days=3)


@pytest.mark.parametrize("lag_kind", ["measured", "wide", "too_narrow"])
def test_plans_keep_every_step_of_the_period(odd, lag_kind):
    f = dq.Filters(since=date(2026, 11, 16), until=date(2026, 11, 22), tz="UTC")
    lag = {"measured": dq.step_lag(odd), "wide": dq.StepLag(),
           "too_narrow": dq.StepLag(lag_min=timedelta(0), lag_max=timedelta(seconds=5))}[lag_kind]
    if lag_kind == "too_narrow":
        # The window is only as good as the lag it is given: this one drops the late step
        # (it starts after the period ends), which is why the lag is measured over the
        # whole warehouse.
        got = dq.run_plan(odd, dq.page_plan("patterns", f, None, lag=lag))
        assert got["hours"]["verified_false"].sum() == 1
        return
    got = check_plan(odd, "overview", f, lag)
    assert got["daily"].query("period == 'current'")["verified_false"].sum() == 2  # late + untimed
    check_plan(odd, "trends", f, lag, grain="hour", latency=True)
    got = check_plan(odd, "patterns", f, lag)
    assert got["hours"]["verified_false"].sum() == 2
    p = f.params(lag=lag)
    dq.run_stage(odd, "stage_period_steps", p)
    for name in ("version_tool_rates", "new_fingerprints"):
        assert_same(dq.run(odd, name, p), reference(odd, name, p), name)
    new = dq.run(odd, "new_fingerprints", p)
    # new this week: the late read-back mismatch (and the untimed one, same fingerprint) and
    # the early timeout's fingerprint is NOT new (the week before had one); disk full is old.
    assert set(zip(new["tool"], new["fingerprint"])) == {
        ("create_reminder", "read-back mismatch id=<n>"), ("create_todo", "read-back mismatch id=<n>")}
