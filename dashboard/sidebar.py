"""The sidebar filters, kept in the URL so any view can be shared as a link.

URL keys: from, to (local days, YYYY-MM-DD), version, tool, tz, run. A value in
the URL seeds the widget the first time a session sees it; after that the widget
is the truth and is written back to the URL on every run (page switches clear
the URL, this puts it back). Bad values in a link are ignored with a note, never
an error.
"""

from __future__ import annotations

import os
from datetime import date, timedelta

import pandas as pd
import streamlit as st

from ..queries import dashboard_queries as dq
from .safe import md

ALL = "(all)"
DEFAULT_DAYS = 7


def _qp(name: str) -> str | None:
    v = st.query_params.get(name)
    return v if v not in (None, "") else None


# Days the period may span: the instants of their local midnights (and of the period
# before) must exist in every zone, in Python and in pandas (which ends in 2262).
FIRST_DAY, LAST_DAY = date(1971, 1, 1), date(2199, 12, 30)


def _parse_day(text: str | None) -> date | None:
    if not text:
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        st.sidebar.caption(f"ignored bad date in link: {md(text)}")
        return None
    if not FIRST_DAY <= day <= LAST_DAY:
        st.sidebar.caption(f"ignored date out of range in link: {md(text)} (use a day between {FIRST_DAY} "
                           f"and {LAST_DAY})")
        return None
    return day


DATA_ZONE = "_ta_data_zone"


def default_tz() -> str:
    """$TRACE_AUDIT_TZ (`trace-audit dashboard --tz`), else the zone the data was ingested in
    (dq.default_zone, which `trace-audit report` uses too), else UTC."""
    return os.environ.get("TRACE_AUDIT_TZ") or st.session_state.get(DATA_ZONE) or "UTC"


def local_day(ts, tz: str) -> date | None:
    """The local day of a stored instant; None when there is none or it is out of range
    (a stored 9999-12-31 is a bad record, not the end of the period)."""
    try:
        if ts is None or pd.isna(ts):
            return None
        day = pd.Timestamp(ts).tz_convert(tz).date()
        return day if isinstance(day, date) and FIRST_DAY <= day <= LAST_DAY else None
    except (ValueError, OverflowError, TypeError):
        return None


def filters(options: pd.DataFrame, runs: pd.DataFrame) -> dq.Filters:
    """Draw the sidebar and return the validated filters."""
    sb = st.sidebar
    ss = st.session_state

    tz = _qp("tz") if "ta_tz" not in ss else ss["ta_tz"]
    try:
        tz = dq.Filters(since=date.today(), until=date.today(), tz=tz or default_tz()).tz
    except ValueError:
        sb.caption(f"ignored unknown timezone in link: {md(tz)}")
        tz = default_tz()
    ss["ta_tz"] = tz

    span = options[options["facet"] == "span"]
    first = local_day(span["first_ts"].iloc[0], tz) if len(span) else None
    last = local_day(span["last_ts"].iloc[0], tz) if len(span) else None
    last = last or date.today()
    first = first or last

    if "ta_period" not in ss:
        since = _parse_day(_qp("from")) or max(first, last - timedelta(days=DEFAULT_DAYS - 1))
        until = _parse_day(_qp("to")) or last
        if until < since:
            since, until = until, since
        ss["ta_period"] = (since, until)
    period = sb.date_input("Period (local days)", key="ta_period",
                           min_value=min(first, ss["ta_period"][0]), max_value=max(last, ss["ta_period"][-1]) + timedelta(days=1),
                           help="Turns are counted in the period in which they started; "
                                "comparisons use the same number of days just before.")
    if isinstance(period, (list, tuple)) and len(period) == 2:
        since, until = period
    else:  # half-picked range: keep the start, show one day
        since = until = period[0] if isinstance(period, (list, tuple)) and period else last

    versions = [ALL] + options.loc[options["facet"] == "agent_version", "value"].dropna().sort_values().tolist()
    tools = [ALL] + options.loc[options["facet"] == "tool", "value"].dropna().sort_values().tolist()
    run_ids = runs["run_id"].tolist() if not runs.empty else []

    def choice(key: str, url: str, label: str, values: list[str], help: str):
        if f"ta_{key}" not in ss:
            wanted = _qp(url)
            if wanted is not None and wanted not in values:
                sb.caption(f"{label}: {md(wanted)} from the link is not in this database")
                wanted = None
            ss[f"ta_{key}"] = wanted or values[0]
        elif ss[f"ta_{key}"] not in values:
            ss[f"ta_{key}"] = values[0]
        return sb.selectbox(label, values, key=f"ta_{key}", help=help)

    version = choice("version", "version", "Agent version", versions, "Only turns run by this agent version.")
    tool = choice("tool", "tool", "Tool", tools, "Only steps of this tool (and turns that used it).")
    run_id = None
    if run_ids:
        labels = {r.run_id: f"{r.run_id} · {_short_ts(r.started_at, tz)} · {int(r.finding_count or 0)} findings"
                  for r in runs.itertuples(index=False)}
        run_id = choice("run", "run", "Rule run", run_ids, "Findings come from this run; the newest by default.")
        sb.caption(md(labels.get(run_id, "")))

    f = dq.Filters(since=since, until=max(until, since), agent_version=None if version == ALL else version,
                   tool=None if tool == ALL else tool, tz=tz, run_id=run_id)
    keep_in_url(f, latest_run=run_ids[0] if run_ids else None)
    return f


def keep_in_url(f: dq.Filters, latest_run: str | None) -> None:
    want = {"from": f.since.isoformat(), "to": f.until.isoformat(), "version": f.agent_version, "tool": f.tool,
            "tz": None if f.tz == default_tz() else f.tz, "run": None if f.run_id == latest_run else f.run_id}
    for k, v in want.items():
        if v is None:
            if k in st.query_params:
                del st.query_params[k]
        elif st.query_params.get(k) != v:
            st.query_params[k] = v


def page_param(name: str, default: str | None = None) -> str | None:
    """A page's own URL value (task, user, week...)."""
    return _qp(name) or default


def set_page_params(**values: str | None) -> None:
    for k, v in values.items():
        if v in (None, ""):
            if k in st.query_params:
                del st.query_params[k]
        elif st.query_params.get(k) != v:
            st.query_params[k] = v


def share_params(f: dq.Filters, **page: str | None) -> dict[str, str]:
    """Query params for a link to another page with the same filters."""
    out = {"from": f.since.isoformat(), "to": f.until.isoformat()}
    for k, v in (("version", f.agent_version), ("tool", f.tool), ("run", f.run_id)):
        if v:
            out[k] = v
    if f.tz != default_tz():
        out["tz"] = f.tz
    out.update({k: v for k, v in page.items() if v})
    return out


def _short_ts(ts, tz: str) -> str:
    if ts is None or pd.isna(ts):
        return "—"
    return pd.Timestamp(ts).tz_convert(tz).strftime("%Y-%m-%d %H:%M")
