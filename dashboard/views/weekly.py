"""Weekly review: one ISO week against the week before, and the same report to download."""

from datetime import timedelta
from urllib.parse import urlsplit

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import analysis, charts, context, sidebar
from .. import download, report
from ..safe import md

def page_base() -> str:
    """This dashboard's own address, so the downloaded report links back to it."""
    url = getattr(st.context, "url", None)
    if url:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"
    return report.dashboard_url()


ctx = context.get()
f = ctx.filters
st.title("Weekly review")

span = ctx.options[ctx.options["facet"] == "span"].iloc[0]
# No dated turn (undated transcripts) or none in range: the weeks of the sidebar's period.
first = sidebar.local_day(span["first_ts"], f.tz) or f.since
last = sidebar.local_day(span["last_ts"], f.tz) or f.until
weeks = []
day = first - timedelta(days=first.weekday())
while day <= last:
    iso = day.isocalendar()
    weeks.append(f"{iso.year}-W{iso.week:02d}")
    day += timedelta(days=7)
weeks.reverse()
wanted = sidebar.page_param("week")
week = st.selectbox("ISO week", weeks, index=weeks.index(wanted) if wanted in weeks else 0, key="ta_week")
sidebar.set_page_params(week=week)

rep = ctx.wh.call("weekly_report", report.build_weekly, week, f.tz, f.run_id, ctx.wh.lag())
st.caption(f"{rep.since} – {rep.until} ({f.tz}) against the week before · rule run {md(rep.run_id or '—')}")

k = rep.kpis
c = context.metric_columns(5)
for col, (key, label, kind) in zip(c, report.KPI_ROWS):
    cur, prev = k[key]["current"], k[key]["previous"]
    if kind == "rate":
        col.metric(label, analysis.pct(cur), None if cur is None or prev is None else f"{100 * (cur - prev):+.1f} pts")
    else:
        col.metric(label, f"{cur:,}", None if prev is None else analysis.change(cur, prev),
                   delta_color="normal" if key == "turns" else "inverse")
if rep.undated_note():
    st.caption(md(rep.undated_note()))

st.subheader("What changed")
for line in rep.headline:
    st.markdown(f"- {md(line)}")
for s in rep.jump_sentences():
    st.error(md(s), icon=":material/flag:")
st.caption(f"Flagging rule: {analysis.TEST_RULE}.")

left, right = st.columns(2)
with left:
    st.plotly_chart(charts.daily_overview(rep.daily), key="weekly_daily")
with right:
    st.plotly_chart(charts.weekly_tool_rates(rep.tools), key="weekly_tools")

for title, header, rows, none in report.sections(rep, base_url=None):
    st.subheader(title)
    if not rows:
        st.caption(none)
        continue
    st.dataframe([dict(zip(header, [c[0] if isinstance(c, tuple) else c for c in r])) for r in rows],
                 hide_index=True)
    if title.startswith("Top incidents") and len(rep.incidents):
        first_task = rep.incidents["task_id"].dropna()
        if len(first_task):
            st.page_link("views/investigate.py", label=f"Investigate the newest incident ({md(first_task.iloc[0])}) →",
                         icon=":material/search:", query_params=ctx.link_params(task=first_task.iloc[0]))

st.subheader("Download")
c1, c2 = st.columns(2)
# Made only when clicked (the HTML carries plotly.js inline, several MB), and handed to this
# session's browser only: no server URL serves it (download.py says why).
base = page_base()
download.offer(c1, "Markdown report", lambda: report.to_markdown(rep, base), f"trace-audit-{rep.week}.md",
               "text/markdown", key="ta_download_md")
download.offer(c2, "HTML report (self-contained)", lambda: report.to_html(rep, base),
               f"trace-audit-{rep.week}.html", "text/html", key="ta_download_html")
st.caption(f"Same report from the command line: `trace-audit report --week {rep.week} --format html --out report.html`")
