"""What every page needs for one run: the warehouse, the filters, the data clock, and the
friendly notes for a database that is missing, busy, empty or has no rule run yet."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pandas as pd
import streamlit as st

from . import sidebar
from .safe import md
from .analysis import fmt_ts
from .data import Warehouse
from ..queries import dashboard_queries as dq
from ..queries.warehouse import db

KEY = "_ta_context"


@dataclass
class Context:
    wh: Warehouse
    filters: dq.Filters
    now: datetime | None
    options: pd.DataFrame
    runs: pd.DataFrame

    @property
    def has_run(self) -> bool:
        return self.filters.run_id is not None

    def plan(self, page: str, **extra) -> dict[str, pd.DataFrame]:
        return self.wh.plan(page, self.filters, self.now, **extra)

    def frame(self, name: str, **extra) -> pd.DataFrame:
        return self.wh.frame(name, self.filters.params(now=self.now, **extra))

    def ts(self, value) -> str:
        return fmt_ts(value, self.filters.tz)

    def link_params(self, **page) -> dict[str, str]:
        return sidebar.share_params(self.filters, **page)


def get() -> Context:
    return st.session_state[KEY]


def setup(wh: Warehouse) -> bool:
    """Sidebar + context for this run; False (after explaining) if there is nothing to show."""
    fresh = wh.freshness or {}
    st.sidebar.caption(f"Database: `{wh.path}`")
    if wh.busy:
        st.info("⏳ The database is being updated by another process (an ingest, a rule run or the OTLP "
                "receiver). Showing what was loaded before; this page retries on the next interaction.")
    options = wh.frame("filter_options", {})
    runs = wh.frame("rule_runs", {})
    if not int(fresh.get("turns") or 0) and options[options["facet"] == "span"]["n"].sum() == 0:
        st.title("trace-audit")
        st.info(f"The database `{wh.path}` has no agent turns yet.\n\n"
                f"Load traces with `trace-audit ingest PATH --db {wh.path}` (or try the sample month with "
                "`trace-audit demo`), then reload this page.")
        return False
    st.session_state[sidebar.DATA_ZONE] = wh.call("data_zone", dq.default_zone, None)
    f = sidebar.filters(options, runs)
    now = wh.call("data_clock", dq.data_clock, f.run_id)
    st.sidebar.caption(
        f"Newest turn: {fmt_ts(fresh.get('newest_turn'), f.tz)} · last ingest: {fmt_ts(fresh.get('last_ingest'), f.tz)}"
        f" · last rule run: {fmt_ts(fresh.get('last_rule_run'), f.tz)} · times in {f.tz}")
    naive = int(fresh.get("naive_utc_files") or 0)
    if naive:
        st.caption(f"⚠️ {naive} loaded file(s) (e.g. `{fresh.get('naive_utc_example')}`) hold times without a UTC "
                   "offset, read as UTC because no zone was given at ingest (--tz or $TRACE_AUDIT_TZ). If they "
                   "are local times, every time here is off by the zone's offset: reload them with --tz.")
    st.session_state[KEY] = Context(wh, f, now, options, runs)
    return True


def metric_columns(n: int, per_row: int = 3) -> list:
    """Columns for n key figures, at most `per_row` a row: at 800 px a row of six cuts the
    figures themselves ("7…"); three a row keeps each value and label whole."""
    cols: list = []
    while len(cols) < n:
        cols += st.columns(per_row)
    return cols[:n]


def no_rule_run_note() -> None:
    ctx = get()
    st.info("No rule run yet, so there are no findings to show. Run the rules with "
            f"`trace-audit rules run --db {ctx.wh.path}` and reload.")


def database_problem(path: str, exc: Exception) -> None:
    st.title("trace-audit")
    if isinstance(exc, db.DatabaseMissing):
        st.info(f"There is no trace-audit database at `{path}` yet.\n\n"
                f"Create one with `trace-audit ingest PATH --db {path}`, or load the sample month with "
                "`trace-audit demo`. Then reload this page.")
    elif isinstance(exc, db.DatabaseBusy):
        st.warning(f"⏳ `{path}` is being written by another process right now (an ingest, a rule run or the "
                   "OTLP receiver) and this view has not been cached yet. It will load as soon as the writer "
                   "finishes.")
        if st.button("Retry now", key="ta_retry_busy"):
            st.rerun()
    else:
        st.error(f"Could not read `{path}`: {exc}")


def page_failed(title: str, exc: Exception) -> None:
    """What a user sees instead of a traceback when a page cannot be drawn."""
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        if "trace_audit" in tb.tb_frame.f_code.co_filename or "/dashboard/" in tb.tb_frame.f_code.co_filename:
            where = f" ({tb.tb_frame.f_code.co_filename.rsplit('/', 2)[-1]}:{tb.tb_lineno})"
        tb = tb.tb_next
    st.error(md(f"The {title} page could not be drawn{where}: {type(exc).__name__}: {exc}. "
                "Usually a value in the link or in the data is out of range (a date such as 0001-01-01 or "
                "9999-12-31): narrow the period in the sidebar, or open the page without the link's values. "
                "The server log has the details."))
