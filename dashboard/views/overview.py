"""Overview: the chosen period against the one before it."""

import streamlit as st

# Streamlit runs this file as a script, with no parent package; naming it lets the file
# import its neighbours relatively (so the imports resolve for tools reading the checkout too).
__package__ = "trace_audit.dashboard.views"

from .. import analysis, charts, context
from ..safe import md

ctx = context.get()
f = ctx.filters
st.title("Overview")
st.caption(f"{f.since} – {f.until} ({f.days} days) against the {f.days} days before · times in {f.tz}")

d = ctx.plan("overview")
k = analysis.kpis(d["daily"], int(d["stuck"]["stuck"].iloc[0]))
worst = analysis.worst_tool(d["tools"])


def metric(col, label, key, fmt="count", help=None):
    cur, prev = k[key]["current"], k[key]["previous"]
    if fmt == "rate":
        value = analysis.pct(cur)
        delta = None if cur is None or prev is None else f"{100 * (cur - prev):+.1f} pts"
    else:
        value = f"{cur:,}"
        delta = None if prev is None else analysis.change(cur, prev)
    col.metric(label, value, delta, delta_color="normal" if key in ("turns", "verified_rate") else "inverse",
               help=help)


c = context.metric_columns(6)
metric(c[0], "Turns", "turns")
metric(c[1], "Said but not done", "incidents",
       help="said_but_not_done findings of the selected rule run whose reply falls in the period")
metric(c[2], "Verified rate of writes", "verified_rate", "rate",
       help="write steps that succeeded and were confirmed by read-back")
metric(c[3], "verified=false", "verified_false")
metric(c[4], "Stuck now", "stuck_now", help=f"turns still running {f.stuck_minutes}+ minutes before {ctx.ts(ctx.now)}")
# The rate is the value and the tool name goes in the smaller line below it:
# tool names are long and a metric's value is cut at the column's width.
c[5].metric("Worst tool", analysis.pct(worst[1]) if worst else "—",
            worst[0] if worst else None, delta_color="off", delta_arrow="off",
            help=f"highest share of calls that failed or were not verified (at least {analysis.MIN_CALLS} calls)"
                 + (f"; {worst[0]}: {worst[2]:,} calls in the period" if worst else ""))
u = d["undated"].iloc[0]
if int(u["turns"]):
    st.info(f"{int(u['turns']):,} turns have no time (transcripts that record none, such as tau-bench). They "
            "belong to no day, so they are counted here in every period and are not in the daily trend; "
            "Investigate lists them in the order of their source.")
    cu = context.metric_columns(5)
    cu[0].metric("Turns without a time", f"{int(u['turns']):,}")
    cu[1].metric("Said but not done (no time)", f"{int(u['incidents']):,}")
    cu[2].metric("Verified rate of their writes",
                 analysis.pct(int(u["verified_writes"]) / int(u["write_steps"])
                              if int(u["verified_writes"]) + int(u["verified_false"]) else None),
                 help="n/a when none of their writes was read back (some sources cannot record a read-back)")
    cu[3].metric("verified=false (no time)", f"{int(u['verified_false']):,}")
    cu[4].metric("Failed steps (no time)", f"{int(u['failed_steps']):,}")
if not ctx.has_run:
    context.no_rule_run_note()

st.subheader("Daily trend")
st.plotly_chart(charts.daily_overview(analysis.current(d["daily"])), key="overview_daily")

st.subheader("What changed")
rises = analysis.significant_rises(d["tools"])
versions = analysis.new_versions(ctx.options, f.params()["since"], f.params()["until"])
for line in analysis.what_changed(k, rises, versions, tz=f.tz):
    st.markdown(f"- {md(line)}")
st.caption(f"Rates are flagged with a {analysis.TEST_RULE}.")
